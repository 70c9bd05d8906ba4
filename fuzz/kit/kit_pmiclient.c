/* libpmiclient (this project's PMI-2 client) through the client kit: the
 * input is what the server answers.  The calls a whole job makes, then the
 * rest of the PMI-2 API a job may call (spawn, connect, disconnect), the
 * library's groups extension (pmi2ext.h: construct, get, invite, events,
 * join, destruct), and some calls again with buffers too small for a usual
 * answer: every call but PMI2_Abort (which ends the process) is a parser a
 * server's answer reaches.  Each part is a chain of calls that stops at its
 * first failure (only where a call needs the one before: a get after its
 * fence), and every part runs whatever the one before did.  The seeds are
 * mock-server sessions of the job's calls (init to unpublish): answers to
 * the rest are the fuzzer's to find. */
#include <stdlib.h>

#include <pmi2.h>
#include <pmi2ext.h>

#include "pmifuzz/harness.h"
#include "pmiclient_calls.h"

/* The groups profile, as a leader and as an invitee would use it, in
 * parts; every construct and invite fails or completes on the answer it
 * reads (the timeouts only bound a server that never answers). */
static void groups(void)
{
    int flag = 0, found;
    char me[PMI2X_MAX_PROCID] = "job-1:0", other[PMI2X_MAX_PROCID] = "job-1:1", val[64];
    const char *leaders[] = { me }, *members[] = { other };
    PMI2_keyval_t info[] = { { "gkey", (char *)"gval" } };
    PMI2X_Group_result *res = NULL;
    PMI2X_Group_event *ev = NULL;
    if (PMI2X_Group_supported(&flag) != PMI2_SUCCESS || !flag)
        return;
    PMI2X_Group_procid(me, sizeof me);
    PMI2X_Group_make_procid("job-1", 1, other, sizeof other);
    PMI2X_Group_subscribe();
    /* a group, and what its members put in it */
    if (PMI2X_Group_construct_collective("g1", leaders, 1, members, 1, info, 1, 1000, &res) ==
            PMI2_SUCCESS &&
        res)
        PMI2X_Group_info_get(res, me, "gkey");
    PMI2X_Group_result_free(res);
    res = NULL;
    PMI2X_Group_get("g1", me, "gkey", val, sizeof val, &found);
    /* the other two ways in */
    PMI2X_Group_construct_bootstrap("g2", 1, NULL, 0, NULL, 0, 1000, &res);
    PMI2X_Group_result_free(res);
    res = NULL;
    PMI2X_Group_construct_member("g3", info, 1, 1000, NULL);
    /* a leader's invitation; an invitee's events (invited: it joins) */
    PMI2X_Group_invite("g4", members, 1, info, 1, 1000, &res);
    PMI2X_Group_result_free(res);
    res = NULL;
    if (PMI2X_Group_next_event(0, &ev) == PMI2_SUCCESS) {
        if (ev->kind == PMI2X_EVENT_INVITED)
            PMI2X_Group_join(ev->grp, 1, info, 1);
        PMI2X_Group_event_free(ev);
    }
    if (PMI2X_Group_destruct("g1", 1000, &res) != PMI2_SUCCESS)
        PMI2X_Group_last_reason();
    PMI2X_Group_result_free(res);
}

/* The rest of the PMI-2 API a job may call, in parts. */
static void more(void)
{
    int rank, size, ints[8], outn, found, errors[2];
    char child[64] = "job-2";
    const char *cmds[] = { "a.out" }, *args[] = { "-x", NULL }, **argvs[] = { args };
    int argcs[] = { 1 }, maxprocs[] = { 2 }, ninfo[] = { 1 };
    PMI2_keyval_t wdir = { "wdir", (char *)"/tmp" }, pre = { "pre-key", (char *)"pre-value" };
    const PMI2_keyval_t *infos[] = { &wdir }, *preput[] = { &pre };
    PMI2_Connect_comm_t conn = { 0 };
    PMI2_Job_GetRank(&rank);
    PMI2_Info_GetSize(&size);
    PMI2_Info_GetNodeAttrIntArray("localRanks", ints, 8, &outn, &found);
    PMI2_Job_Spawn(1, cmds, argcs, argvs, maxprocs, ninfo, infos, 1, preput, child, sizeof child,
                   errors);
    if (PMI2_Job_Connect(child, &conn) == PMI2_SUCCESS)
        PMI2_Job_Disconnect(child);
    PMI2_Initialized();
}

/* A whole job's calls, in parts: a part is a chain of calls that each
 * need a sensible answer to the one before (a get after its fence, a
 * lookup after its publish). */
static void job(void)
{
    int len, found, ints[8], outn;
    char jobid[64] = "job-1", val[256], port[128];
    PMI2_Job_GetId(jobid, sizeof jobid);
    if (PMI2_KVS_Put("key0", "value0") == PMI2_SUCCESS && PMI2_KVS_Fence() == PMI2_SUCCESS)
        PMI2_KVS_Get(jobid, PMI2_ID_NULL, "key0", val, sizeof val, &len);
    PMI2_Info_GetJobAttr("PMI_process_mapping", val, sizeof val, &found);
    if (PMI2_Info_PutNodeAttr("node-key", "node-value") == PMI2_SUCCESS)
        PMI2_Info_GetNodeAttr("node-key", val, sizeof val, &found, 0);
    PMI2_Info_GetJobAttrIntArray("universeSize", ints, 8, &outn, &found);
    if (PMI2_Nameserv_publish("svc", NULL, "port-0") == PMI2_SUCCESS &&
        PMI2_Nameserv_lookup("svc", NULL, port, sizeof port) == PMI2_SUCCESS)
        PMI2_Nameserv_unpublish("svc", NULL);
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
 * messages that follow (the docs' advice to a harness). */
void pmiclient_v2_calls(void)
{
    int spawned, size, rank, appnum;
    /* With a secret the library offers the challenge (AUTH-1): a server
     * may answer fullinit with auth-response, whose authinfo the library
     * hashes; a server that ignores it answers as the seeds do. */
    setenv("PMI_AUTH_SECRET", "fuzz-secret", 1);
    if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS)
        return;
    job();
    more();
    groups();
    tight();
    PMI2_Finalize();
}

#ifndef PMICLIENT_CALLS_ONLY /* kit_pmiclient_all.c runs these calls too */
PMIFUZZ_CLIENT_HARNESS(pmiclient_v2_calls)
#endif
