/* MPI_Publish_name / MPI_Lookup_name / MPI_Unpublish_name across ranks. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, bad = 0;
    char port[MPI_MAX_PORT_NAME] = "tag#0$description#pmi2-conform-test$";
    char got[MPI_MAX_PORT_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (rank == 0 && MPI_Publish_name("pmi2conform-svc", MPI_INFO_NULL, port) != MPI_SUCCESS)
        bad = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    memset(got, 0, sizeof got);
    if (MPI_Lookup_name("pmi2conform-svc", MPI_INFO_NULL, got) != MPI_SUCCESS || strcmp(got, port))
        bad = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && MPI_Unpublish_name("pmi2conform-svc", MPI_INFO_NULL, port) != MPI_SUCCESS)
        bad = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (bad)
        fprintf(stderr, "rank %d: name service check failed (got '%s')\n", rank, got);
    MPI_Finalize();
    return bad;
}
