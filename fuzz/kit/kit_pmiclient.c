/* libpmiclient (this project's PMI-2 client) through the client kit: the
 * input is what the server answers.  The calls go as deep as a whole job
 * does, each needing a sensible answer to the one before, and then through
 * the rest of the PMI-2 API a job may call (spawn, connect, disconnect).
 * The seeds are mock-server sessions of the first part (init to
 * unpublish): answers to the rest are the fuzzer's to find. */
#include <pmi2.h>

#include "pmifuzz/harness.h"

static int more(void)
{
    int rank, size, ints[8], outn, found, errors[2];
    char child[64];
    const char *cmds[] = { "a.out" }, *args[] = { "-x", NULL }, **argvs[] = { args };
    int argcs[] = { 1 }, maxprocs[] = { 2 }, ninfo[] = { 1 };
    PMI2_keyval_t wdir = { "wdir", (char *)"/tmp" }, pre = { "pre-key", (char *)"pre-value" };
    const PMI2_keyval_t *infos[] = { &wdir }, *preput[] = { &pre };
    PMI2_Connect_comm_t conn = { 0 };
    return PMI2_Job_GetRank(&rank) == PMI2_SUCCESS && PMI2_Info_GetSize(&size) == PMI2_SUCCESS &&
           PMI2_Info_GetNodeAttrIntArray("localRanks", ints, 8, &outn, &found) == PMI2_SUCCESS &&
           PMI2_Job_Spawn(1, cmds, argcs, argvs, maxprocs, ninfo, infos, 1, preput, child,
                          sizeof child, errors) == PMI2_SUCCESS &&
           PMI2_Job_Connect(child, &conn) == PMI2_SUCCESS &&
           PMI2_Job_Disconnect(child) == PMI2_SUCCESS;
}

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
        PMI2_Nameserv_lookup("svc", NULL, port, sizeof port) == PMI2_SUCCESS &&
        PMI2_Nameserv_unpublish("svc", NULL) == PMI2_SUCCESS)
        more();
    PMI2_Finalize();
}

PMIFUZZ_CLIENT_HARNESS(api)
