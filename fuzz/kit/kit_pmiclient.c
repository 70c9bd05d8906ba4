/* libpmiclient (this project's PMI-2 client) through the client kit: the
 * input is what the server answers.  The calls go as deep as a whole job
 * does, each needing a sensible answer to the one before; then, whether or
 * not those went through, the rest of the PMI-2 API a job may call (spawn,
 * connect, disconnect) and the library's groups extension (pmi2ext.h:
 * construct, get, invite, events, join, destruct), and some calls again
 * with buffers too small for a usual answer: every call but PMI2_Abort
 * (which ends the process) is a parser a server's answer reaches.  The seeds are mock-server sessions of the first part
 * (init to unpublish): answers to the rest are the fuzzer's to find. */
#include <pmi2.h>
#include <pmi2ext.h>

#include "pmifuzz/harness.h"

/* The groups profile, as a leader and as an invitee would use it; every
 * construct and invite fails or completes on the answer it reads (the
 * timeouts only bound a server that never answers). */
static void groups(void)
{
    int flag = 0, found;
    char me[PMI2X_MAX_PROCID], other[PMI2X_MAX_PROCID], val[64];
    const char *leaders[] = { me }, *members[] = { other };
    PMI2_keyval_t info[] = { { "gkey", (char *)"gval" } };
    PMI2X_Group_result *res = NULL;
    PMI2X_Group_event *ev = NULL;
    if (PMI2X_Group_supported(&flag) != PMI2_SUCCESS || !flag ||
        PMI2X_Group_procid(me, sizeof me) != PMI2_SUCCESS ||
        PMI2X_Group_make_procid("job-1", 1, other, sizeof other) != PMI2_SUCCESS ||
        PMI2X_Group_subscribe() != PMI2_SUCCESS)
        return;
    int ok = PMI2X_Group_construct_collective("g1", leaders, 1, members, 1, info, 1, 1000,
                                              &res) == PMI2_SUCCESS;
    if (res)
        PMI2X_Group_info_get(res, me, "gkey");
    PMI2X_Group_result_free(res);
    res = NULL;
    if (!ok || PMI2X_Group_get("g1", me, "gkey", val, sizeof val, &found) != PMI2_SUCCESS)
        return;
    ok = PMI2X_Group_construct_bootstrap("g2", 1, NULL, 0, NULL, 0, 1000, &res) == PMI2_SUCCESS &&
         PMI2X_Group_construct_member("g3", info, 1, 1000, NULL) == PMI2_SUCCESS;
    PMI2X_Group_result_free(res);
    res = NULL;
    if (!ok)
        return;
    ok = PMI2X_Group_invite("g4", members, 1, info, 1, 1000, &res) == PMI2_SUCCESS;
    PMI2X_Group_result_free(res);
    res = NULL;
    if (ok && PMI2X_Group_next_event(0, &ev) == PMI2_SUCCESS) {
        if (ev->kind == PMI2X_EVENT_INVITED)
            PMI2X_Group_join(ev->grp, 1, info, 1);
        PMI2X_Group_event_free(ev);
    }
    if (PMI2X_Group_destruct("g1", 1000, &res) != PMI2_SUCCESS)
        PMI2X_Group_last_reason();
    PMI2X_Group_result_free(res);
}

/* The rest of the PMI-2 API a job may call. */
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
           PMI2_Job_Disconnect(child) == PMI2_SUCCESS && PMI2_Initialized();
}

/* A whole job's calls, each needing a sensible answer to the one before. */
static int job(void)
{
    int len, found, ints[8], outn;
    char jobid[64], val[256], port[128];
    return PMI2_Job_GetId(jobid, sizeof jobid) == PMI2_SUCCESS &&
           PMI2_KVS_Put("key0", "value0") == PMI2_SUCCESS && PMI2_KVS_Fence() == PMI2_SUCCESS &&
           PMI2_KVS_Get(jobid, PMI2_ID_NULL, "key0", val, sizeof val, &len) == PMI2_SUCCESS &&
           PMI2_Info_GetJobAttr("PMI_process_mapping", val, sizeof val, &found) == PMI2_SUCCESS &&
           PMI2_Info_PutNodeAttr("node-key", "node-value") == PMI2_SUCCESS &&
           PMI2_Info_GetNodeAttr("node-key", val, sizeof val, &found, 0) == PMI2_SUCCESS &&
           PMI2_Info_GetJobAttrIntArray("universeSize", ints, 8, &outn, &found) == PMI2_SUCCESS &&
           PMI2_Nameserv_publish("svc", NULL, "port-0") == PMI2_SUCCESS &&
           PMI2_Nameserv_lookup("svc", NULL, port, sizeof port) == PMI2_SUCCESS &&
           PMI2_Nameserv_unpublish("svc", NULL) == PMI2_SUCCESS;
}

/* Answers longer than the caller's buffer (a library must cut or refuse
 * them, never write past it), and the waiting form of a node attribute. */
static void tight(void)
{
    int len, found, ints[1], outn;
    char small[4];
    PMI2_Job_GetId(small, sizeof small);
    PMI2_KVS_Get(NULL, PMI2_ID_NULL, "key0", small, sizeof small, &len);
    PMI2_Info_GetJobAttr("PMI_process_mapping", small, sizeof small, &found);
    PMI2_Info_GetNodeAttr("node-key", small, sizeof small, &found, 1);
    PMI2_Info_GetJobAttrIntArray("universeSize", ints, 1, &outn, &found);
}

/* Each part of the API in turn, whether or not the one before went
 * through: a part that failed on its answer leaves the next to read the
 * messages that follow. */
static void api(void)
{
    int spawned, size, rank, appnum;
    if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS)
        return;
    job();
    more();
    groups();
    tight();
    PMI2_Finalize();
}

PMIFUZZ_CLIENT_HARNESS(api)
