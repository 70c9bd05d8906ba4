/* An independent PMI-2 client library through the client kit: the
 * newcomer libraries of tests/peers (newcomer_client, newcomer2_client),
 * written from SPEC.md by engineers who never saw this project's code or
 * the mutator.  They are the bench's check that libpmifuzz's lead is not
 * a fit to libpmiclient.  The harness is what docs/fuzzing-your-parser.md
 * tells a user to write: every part of the API, each part a chain that
 * stops at its first failure, the next part run whatever the last did. */
#include <pmi2.h>

#include "pmifuzz/harness.h"

static int job(void)
{
    int len, found;
    char jobid[64], val[256];
    return PMI2_Job_GetId(jobid, sizeof jobid) == PMI2_SUCCESS &&
           PMI2_KVS_Put("key0", "value0") == PMI2_SUCCESS && PMI2_KVS_Fence() == PMI2_SUCCESS &&
           PMI2_KVS_Get(jobid, PMI2_ID_NULL, "key0", val, sizeof val, &len) == PMI2_SUCCESS &&
           PMI2_Info_GetJobAttr("PMI_process_mapping", val, sizeof val, &found) == PMI2_SUCCESS &&
           PMI2_Info_PutNodeAttr("node-key", "node-value") == PMI2_SUCCESS &&
           PMI2_Info_GetNodeAttr("node-key", val, sizeof val, &found, 0) == PMI2_SUCCESS;
}

static int names(void)
{
    int rank, size;
    char port[128];
    return PMI2_Job_GetRank(&rank) == PMI2_SUCCESS && PMI2_Info_GetSize(&size) == PMI2_SUCCESS &&
           PMI2_Nameserv_publish("svc", NULL, "port-0") == PMI2_SUCCESS &&
           PMI2_Nameserv_lookup("svc", NULL, port, sizeof port) == PMI2_SUCCESS &&
           PMI2_Nameserv_unpublish("svc", NULL) == PMI2_SUCCESS;
}

static void api(void)
{
    int spawned, size, rank, appnum;
    if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS)
        return;
    job();
    names();
    PMI2_Finalize();
}

PMIFUZZ_CLIENT_HARNESS(api)
