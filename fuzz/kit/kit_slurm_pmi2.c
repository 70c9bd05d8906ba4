/* Slurm's libpmi2 (Debian libpmi2-0, the shared library as installed, not
 * copied or instrumented) through the client kit. */
#include <slurm/pmi2.h>

#include "pmifuzz/harness.h"

static void api(void)
{
    int spawned, size, rank, appnum, len, found;
    char jobid[64], val[256];
    if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS)
        return;
    if (PMI2_Job_GetId(jobid, sizeof jobid) == PMI2_SUCCESS &&
        PMI2_KVS_Put("key0", "value0") == PMI2_SUCCESS && PMI2_KVS_Fence() == PMI2_SUCCESS) {
        PMI2_KVS_Get(jobid, PMI2_ID_NULL, "key0", val, sizeof val, &len);
        PMI2_Info_GetJobAttr("PMI_process_mapping", val, sizeof val, &found);
        PMI2_Info_GetNodeAttr("node-key", val, sizeof val, &found, 0);
    }
    PMI2_Finalize();
}

PMIFUZZ_CLIENT_HARNESS(api)
