/* Debian's libmpich (its PMI-1 client inside MPI_Init, the shared library as
 * installed, not instrumented) through the client kit, one child process
 * per input: MPI_Init runs once per process and MPICH exits on PMI errors. */
#include <mpi.h>

#include "pmifuzz/harness.h"

static void api(void)
{
    if (MPI_Init(NULL, NULL) == MPI_SUCCESS)
        MPI_Finalize();
}

PMIFUZZ_CLIENT_HARNESS_FORKED(api)
