/* libpmiclient's PMI-1 API (pmi.h) through the client kit: a whole job's
 * calls over PMI-1 lines, the rest of the PMI-1 API a job may call (clique,
 * limits, spawn), and some calls again with buffers too small for a usual
 * answer: every call but PMI_Abort (which ends the process).  Each part is
 * a chain of calls that stops at its first failure (only where a call needs
 * the one before), and every part runs whatever the one before did.  The
 * seeds are mock-server sessions of the job's calls (init to unpublish):
 * answers to the rest are the fuzzer's to find. */
#include <pmi.h>

#include "pmifuzz/harness.h"
#include "pmiclient_calls.h"

/* The rest of the PMI-1 API a job may call, in parts. */
static void more(void)
{
    int n, ranks[8], errors[3];
    PMI_BOOL init;
    const char *cmds[] = { "a.out", "b.out" }, *args[] = { "-x", NULL }, **argvs[] = { args, NULL };
    int maxprocs[] = { 2, 1 }, ninfo[] = { 1, 0 };
    PMI_keyval_t wdir = { "wdir", (char *)"/tmp" }, pre = { "pre-key", (char *)"pre-value" };
    const PMI_keyval_t *infos[] = { &wdir, NULL };
    PMI_Initialized(&init);
    if (PMI_Get_clique_size(&n) == PMI_SUCCESS)
        PMI_Get_clique_ranks(ranks, 8);
    PMI_KVS_Get_key_length_max(&n);
    PMI_KVS_Get_value_length_max(&n);
    PMI_Spawn_multiple(2, cmds, argvs, maxprocs, ninfo, infos, 1, &pre, errors);
}

/* A whole job's calls, in parts: a part is a chain of calls that each
 * need a sensible answer to the one before (a put in the KVS it named, a
 * get after its barrier, a lookup after its publish). */
static void job(void)
{
    int n, len;
    char kvs[256] = "kvs_0", val[1024], port[256];
    PMI_Get_size(&n);
    PMI_Get_rank(&n);
    PMI_Get_universe_size(&n);
    PMI_Get_appnum(&n);
    if (PMI_KVS_Get_name_length_max(&len) == PMI_SUCCESS &&
        PMI_KVS_Get_my_name(kvs, sizeof kvs) == PMI_SUCCESS &&
        PMI_KVS_Put(kvs, "key0", "value0") == PMI_SUCCESS && PMI_KVS_Commit(kvs) == PMI_SUCCESS &&
        PMI_Barrier() == PMI_SUCCESS)
        PMI_KVS_Get(kvs, "key0", val, sizeof val);
    if (PMI_Publish_name("svc", "port-0") == PMI_SUCCESS &&
        PMI_Lookup_name("svc", port) == PMI_SUCCESS)
        PMI_Unpublish_name("svc");
}

/* Answers longer than the caller's buffer (a library must cut or refuse
 * them, never write past it). */
static void tight(void)
{
    int ranks[1];
    char small[4];
    PMI_KVS_Get_my_name(small, sizeof small);
    PMI_KVS_Get("kvs_0", "key0", small, sizeof small);
    PMI_Get_clique_ranks(ranks, 1);
}

/* Each part of the API in turn, whether or not the one before went
 * through: a part that failed on its answer leaves the next to read the
 * messages that follow. */
void pmiclient_v1_calls(void)
{
    int spawned;
    if (PMI_Init(&spawned) != PMI_SUCCESS)
        return;
    job();
    more();
    tight();
    PMI_Finalize();
}

#ifndef PMICLIENT_CALLS_ONLY /* kit_pmiclient_all.c runs these calls too */
PMIFUZZ_CLIENT_HARNESS(pmiclient_v1_calls)
#endif
