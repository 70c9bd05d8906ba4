/* Debian's libmpich (its PMI-1 client inside MPI_Init, the shared library as
 * installed, not instrumented) through the client kit, one child process
 * per input: MPI_Init runs once per process and MPICH exits on PMI errors. */
#include <mpi.h>
#include <stdlib.h>

#include "pmifuzz/harness.h"

static void api(void)
{
    if (MPI_Init(NULL, NULL) == MPI_SUCCESS)
        MPI_Finalize();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    pmifuzz_harness_init(PMIFUZZ_RESPONSES);
    pmifuzz_client_fork(1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pmifuzz_client_run(data, size, api);
    return 0;
}
