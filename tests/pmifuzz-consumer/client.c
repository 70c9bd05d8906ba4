/* A user's client harness, built only from the installed packages:
 *   clang -fsanitize=fuzzer client.c $(pkg-config --cflags --libs pmifuzz pmiclient)
 * The smoke test runs it live under the installed mock server (the
 * documentation's way to record a seed) and turns the trace into a seed
 * with pmifuzz-trace --seed client. */
#include <pmi2.h>
#include <pmifuzz/harness.h>

static void api(void)
{
    int spawned, size, rank, appnum, len;
    char jobid[64], val[256];
    if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS)
        return;
    if (PMI2_Job_GetId(jobid, sizeof jobid) == PMI2_SUCCESS &&
        PMI2_KVS_Put("key0", "value0") == PMI2_SUCCESS && PMI2_KVS_Fence() == PMI2_SUCCESS)
        PMI2_KVS_Get(jobid, PMI2_ID_NULL, "key0", val, sizeof val, &len);
    PMI2_Finalize();
}

PMIFUZZ_CLIENT_HARNESS(api)
