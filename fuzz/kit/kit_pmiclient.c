/* libpmiclient (this project's PMI-2 client) through the client kit: the
 * input is what the server answers.  The calls go as deep as a whole job
 * does, each needing a sensible answer to the one before (the seed is a
 * mock-server session of exactly these calls). */
#include <pmi2.h>

#include "pmifuzz/harness.h"

static void api(void)
{
    int spawned, size, rank, appnum, len, found, ints[8], outn;
    char jobid[64], val[256], port[128];
    if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS)
        return;
    if (PMI2_Job_GetId(jobid, sizeof jobid) == PMI2_SUCCESS &&
        PMI2_KVS_Put("key0", "value0") == PMI2_SUCCESS && PMI2_KVS_Fence() == PMI2_SUCCESS &&
        PMI2_KVS_Get(jobid, PMI2_ID_NULL, "key0", val, sizeof val, &len) == PMI2_SUCCESS &&
        PMI2_Info_GetJobAttr("PMI_process_mapping", val, sizeof val, &found) == PMI2_SUCCESS &&
        PMI2_Info_PutNodeAttr("node-key", "node-value") == PMI2_SUCCESS &&
        PMI2_Info_GetNodeAttr("node-key", val, sizeof val, &found, 0) == PMI2_SUCCESS &&
        PMI2_Info_GetJobAttrIntArray("universeSize", ints, 8, &outn, &found) == PMI2_SUCCESS &&
        PMI2_Nameserv_publish("svc", NULL, "port-0") == PMI2_SUCCESS &&
        PMI2_Nameserv_lookup("svc", NULL, port, sizeof port) == PMI2_SUCCESS)
        PMI2_Nameserv_unpublish("svc", NULL);
    PMI2_Finalize();
}

PMIFUZZ_CLIENT_HARNESS(api)
