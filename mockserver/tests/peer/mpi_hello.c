/* MPI_Init, rank/size, an allreduce: the smallest real job. argv[1]: expected size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int want = argc > 1 ? atoi(argv[1]) : size;
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int ok = size == want && sum == size * (size - 1) / 2;
    printf("hello from rank %d of %d: %s\n", rank, size, ok ? "ok" : "WRONG");
    MPI_Finalize();
    return ok ? 0 : 1;
}
