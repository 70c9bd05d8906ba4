/* Every rank contributes a value; every rank must see all of them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mine = 1000 + rank * 7;
    int *all = calloc((size_t)size, sizeof *all);
    MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    int bad = 0;
    for (int r = 0; r < size; r++)
        bad += all[r] != 1000 + r * 7;
    if (bad)
        fprintf(stderr, "rank %d: %d wrong values\n", rank, bad);
    free(all);
    MPI_Finalize();
    return bad ? 1 : 0;
}
