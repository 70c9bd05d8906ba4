/* argv[1] = "abort CODE": rank 1 calls MPI_Abort(CODE); "crash": rank 2 calls abort(). */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 1 && strcmp(argv[1], "abort") == 0 && rank == 1)
        MPI_Abort(MPI_COMM_WORLD, argc > 2 ? atoi(argv[2]) : 1);
    if (argc > 1 && strcmp(argv[1], "crash") == 0 && rank == 2)
        abort();
    sleep(30); /* the others wait to be killed */
    MPI_Finalize();
    return 0;
}
