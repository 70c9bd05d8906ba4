/* MPI_UNIVERSE_SIZE must be what the launcher was told. argv[1]: expected. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, flag = 0, *usize = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag);
    int want = argc > 1 ? atoi(argv[1]) : 0;
    int ok = flag && *usize == want;
    if (rank == 0)
        printf("universe size: %s %d (want %d)\n", flag ? "set" : "unset", flag ? *usize : -1, want);
    MPI_Finalize();
    return ok ? 0 : 1;
}
