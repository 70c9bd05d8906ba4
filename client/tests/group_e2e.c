/* The groups profile end to end through pmi2ext.h (SPEC.md section 12)
 * against pmi-mockserver's strict persona.  Every rank checks what it got
 * and compares the context id with the other ranks through the KVS.
 *
 *   group_e2e collective   (-n 3) every rank a leader; group-get; destruct;
 *                          the name again gives a new ctxid (GROUP-15)
 *   group_e2e bootstrap    (-n 3) ranks 0 and 1 lead (nleaders=2), rank 0
 *                          adds rank 2, which joins as a member
 *   group_e2e invite       (-n 3) rank 0 invites 1 and 2; rank 1 accepts
 *                          from a thread waiting for events while its main
 *                          thread does KVS calls, rank 2 declines
 *   group_e2e timeout      (-n 2) rank 0 names rank 1 as a leader, which
 *                          never comes: the server's reason and failed list
 * Exit 0 passed, 1 failed. */
#define _DEFAULT_SOURCE
#include <pmi2.h>
#include <pmi2ext.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank = -1, size;
static char me[PMI2X_MAX_PROCID], jobid[256];

#define FAIL(...)                                                                              \
    do {                                                                                       \
        fprintf(stderr, "[%d] FAIL %s:%d: ", rank, __FILE__, __LINE__);                        \
        fprintf(stderr, __VA_ARGS__);                                                          \
        fprintf(stderr, " (last reason '%s': %s)\n", PMI2X_Group_last_reason(),                \
                PMI2X_Group_last_errmsg());                                                    \
        exit(1);                                                                               \
    } while (0)

static const char *procid(int r)
{
    static char ids[8][PMI2X_MAX_PROCID];
    if (PMI2X_Group_make_procid(jobid, r, ids[r], sizeof ids[r]) != PMI2_SUCCESS)
        FAIL("make_procid");
    return ids[r];
}

static void put(const char *k, const char *v)
{
    if (PMI2_KVS_Put(k, v) != PMI2_SUCCESS)
        FAIL("put %s", k);
}

static void fence(void)
{
    if (PMI2_KVS_Fence() != PMI2_SUCCESS)
        FAIL("fence");
}

static void get(int src, const char *k, char *v, int n)
{
    int len;
    if (PMI2_KVS_Get(jobid, src, k, v, n, &len) != PMI2_SUCCESS)
        FAIL("get %s", k);
}

/* Every rank in `ranks` has the same ctxid as this one (one fence round;
 * every rank of the job calls it). */
static void same_ctxid(const char *tag, long long ctxid, const int *ranks, int n)
{
    char k[64], v[64], w[64];
    snprintf(k, sizeof k, "%s-%d", tag, rank);
    snprintf(v, sizeof v, "%lld", ctxid);
    put(k, v);
    fence();
    for (int i = 0; i < n; i++) {
        snprintf(k, sizeof k, "%s-%d", tag, ranks[i]);
        get(ranks[i], k, w, sizeof w);
        if (ctxid && strcmp(v, w))
            FAIL("%s: ctxid %s here, %s at rank %d", tag, v, w, ranks[i]);
    }
}

static void check_members(const PMI2X_Group_result *res, const int *ranks, int n)
{
    if (res->rc || res->ctxid < 1 || res->nmembers != n)
        FAIL("result rc %d ctxid %lld nmembers %d, want %d", res->rc, res->ctxid, res->nmembers,
             n);
    for (int i = 0; i < n; i++) /* GROUP-7: sorted by rank within the job */
        if (strcmp(res->members[i], procid(ranks[i])))
            FAIL("member %d is %s, want %s", i, res->members[i], procid(ranks[i]));
}

static void check_info(const PMI2X_Group_result *res, const int *ranks, int n)
{
    for (int i = 0; i < n; i++) {
        char want[64];
        snprintf(want, sizeof want, "rank %d; pid", ranks[i]); /* a ';' crosses the wire too */
        const char *v = PMI2X_Group_info_get(res, procid(ranks[i]), "who");
        if (!v || strcmp(v, want))
            FAIL("info of %s: '%s', want '%s'", procid(ranks[i]), v ? v : "(none)", want);
    }
}

static void destruct(const char *grp)
{
    PMI2X_Group_result *res = NULL;
    if (PMI2X_Group_destruct(grp, 5000, &res) != PMI2_SUCCESS)
        FAIL("destruct %s", grp);
    PMI2X_Group_result_free(res);
}

static PMI2_keyval_t who[1];
static char whoval[64];

static int collective(void)
{
    const char *leaders[3] = { procid(2), procid(0), procid(1) }; /* any order */
    PMI2X_Group_result *res = NULL;
    if (PMI2X_Group_construct_collective("coll", leaders, 3, NULL, 0, who, 1, 10000, &res) !=
        PMI2_SUCCESS)
        FAIL("collective construct");
    int all[3] = { 0, 1, 2 };
    check_members(res, all, 3);
    check_info(res, all, 3);
    long long first = res->ctxid;
    same_ctxid("coll", res->ctxid, all, 3);
    char v[PMI2_MAX_VALLEN], want[64];
    int found = 0, peer = (rank + 1) % 3;
    snprintf(want, sizeof want, "rank %d; pid", peer);
    if (PMI2X_Group_get("coll", procid(peer), "who", v, sizeof v, &found) != PMI2_SUCCESS ||
        !found || strcmp(v, want))
        FAIL("group-get: found %d '%s'", found, v);
    if (PMI2X_Group_get("coll", procid(peer), "nope", v, sizeof v, &found) != PMI2_SUCCESS ||
        found)
        FAIL("group-get of a missing key: found %d", found);
    PMI2X_Group_result_free(res);
    destruct("coll");
    /* Gone: group-get is refused; the name can be reused, not the ctxid. */
    if (PMI2X_Group_get("coll", procid(peer), "who", v, sizeof v, &found) != PMI2_FAIL ||
        strcmp(PMI2X_Group_last_reason(), "unknown"))
        FAIL("group-get after destruct");
    if (PMI2X_Group_construct_collective("coll", leaders, 3, NULL, 0, NULL, 0, 10000, &res) !=
        PMI2_SUCCESS)
        FAIL("second collective construct");
    if (res->ctxid == first)
        FAIL("the name's second group has the first's ctxid %lld (GROUP-15)", first);
    same_ctxid("coll2", res->ctxid, all, 3);
    PMI2X_Group_result_free(res);
    destruct("coll");
    return 0;
}

static int bootstrap(void)
{
    PMI2X_Group_result *res = NULL;
    int rc;
    const char *add[1] = { procid(2) };
    if (rank == 0)
        rc = PMI2X_Group_construct_bootstrap("boot", 2, add, 1, who, 1, 10000, &res);
    else if (rank == 1)
        rc = PMI2X_Group_construct_bootstrap("boot", 2, NULL, 0, who, 1, 10000, &res);
    else
        rc = PMI2X_Group_construct_member("boot", who, 1, 10000, &res);
    if (rc != PMI2_SUCCESS)
        FAIL("bootstrap construct");
    int all[3] = { 0, 1, 2 };
    check_members(res, all, 3);
    check_info(res, all, 3);
    same_ctxid("boot", res->ctxid, all, 3);
    PMI2X_Group_result_free(res);
    destruct("boot");
    return 0;
}

static atomic_int invitee_done;
static long long invitee_ctxid;

/* Rank 1's and 2's event thread: the invitation, the answer, the completion. */
static void *invitee(void *arg)
{
    (void)arg;
    PMI2X_Group_event *ev = NULL;
    if (PMI2X_Group_next_event(20000, &ev) != PMI2_SUCCESS || ev->kind != PMI2X_EVENT_INVITED ||
        strcmp(ev->grp, "inv") || strcmp(ev->leader, procid(0)))
        FAIL("no invitation from %s", procid(0));
    PMI2X_Group_event_free(ev);
    bool accept = rank == 1;
    if (PMI2X_Group_join("inv", accept, who, 1) != PMI2_SUCCESS)
        FAIL("join");
    if (accept) {
        if (PMI2X_Group_next_event(20000, &ev) != PMI2_SUCCESS ||
            ev->kind != PMI2X_EVENT_COMPLETE)
            FAIL("no completion");
        int both[2] = { 0, 1 };
        check_members(ev->result, both, 2);
        check_info(ev->result, both, 2);
        invitee_ctxid = ev->result->ctxid;
        PMI2X_Group_event_free(ev);
    }
    atomic_store(&invitee_done, 1);
    return NULL;
}

static int invite(void)
{
    long long ctxid = 0;
    if (rank == 0) {
        fence(); /* the invitees have subscribed */
        const char *inv[2] = { procid(1), procid(2) };
        PMI2X_Group_result *res = NULL;
        if (PMI2X_Group_invite("inv", inv, 2, who, 1, 10000, &res) != PMI2_SUCCESS)
            FAIL("invite");
        int both[2] = { 0, 1 };
        check_members(res, both, 2);
        check_info(res, both, 2);
        if (res->nfailed != 1 || strcmp(res->failed[0], procid(2)))
            FAIL("invite's failed list: %d", res->nfailed);
        ctxid = res->ctxid;
        PMI2X_Group_result_free(res);
        /* GROUP-20: the decline also came as an event, before the completion. */
        PMI2X_Group_event *ev = NULL;
        if (PMI2X_Group_next_event(0, &ev) != PMI2_SUCCESS ||
            ev->kind != PMI2X_EVENT_INVITE_FAILED || strcmp(ev->proc, procid(2)) ||
            strcmp(ev->reason, "declined"))
            FAIL("no invite-failed event for %s", procid(2));
        PMI2X_Group_event_free(ev);
    } else {
        if (PMI2X_Group_subscribe() != PMI2_SUCCESS)
            FAIL("subscribe");
        pthread_t th;
        pthread_create(&th, NULL, invitee, NULL);
        fence();
        /* The main thread keeps the connection busy meanwhile: no answer
         * of its may be taken for an event or the other way round. */
        for (int i = 0; !atomic_load(&invitee_done); i++) {
            char k[64], v[64], w[64];
            snprintf(k, sizeof k, "busy-%d-%d", rank, i);
            snprintf(v, sizeof v, "value-%d", i);
            put(k, v);
            get(rank, k, w, sizeof w);
            if (strcmp(v, w))
                FAIL("busy get %s: '%s'", k, w);
            struct timespec t = { 0, 2 * 1000 * 1000 };
            nanosleep(&t, NULL);
        }
        pthread_join(th, NULL);
        ctxid = invitee_ctxid;
    }
    int both[2] = { 0, 1 };
    same_ctxid("inv", rank == 2 ? 0 : ctxid, both, 2);
    if (rank != 2)
        destruct("inv");
    return 0;
}

static int timeout(void)
{
    if (rank == 0) {
        const char *leaders[2] = { procid(0), procid(1) };
        PMI2X_Group_result *res = NULL;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int rc = PMI2X_Group_construct_collective("late", leaders, 2, NULL, 0, NULL, 0, 300, &res);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
        if (rc != PMI2_FAIL || !res || strcmp(res->reason, "timeout") ||
            strcmp(PMI2X_Group_last_reason(), "timeout"))
            FAIL("construct without the other leader: rc %d", rc);
        /* The server's answer (GROUP-24), not the library's own give-up: it
         * names the leader that never came. */
        if (res->nfailed != 1 || strcmp(res->failed[0], procid(1)))
            FAIL("failed list %d %s", res->nfailed, res->nfailed ? res->failed[0] : "");
        if (ms < 250 || ms > 3000)
            FAIL("the timeout of 300 ms took %.0f ms", ms);
        PMI2X_Group_result_free(res);
    }
    fence();
    return 0;
}

int main(int argc, char **argv)
{
    int spawned, appnum;
    if (argc != 2)
        FAIL("usage: group_e2e collective|bootstrap|invite|timeout");
    if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS)
        FAIL("PMI2_Init");
    if (PMI2_Job_GetId(jobid, sizeof jobid) != PMI2_SUCCESS ||
        PMI2X_Group_procid(me, sizeof me) != PMI2_SUCCESS || strcmp(me, procid(rank)))
        FAIL("process id");
    int flag = 0;
    if (PMI2X_Group_supported(&flag) != PMI2_SUCCESS || !flag)
        FAIL("the server does not offer the groups profile");
    snprintf(whoval, sizeof whoval, "rank %d; pid", rank);
    who[0].key = "who";
    who[0].val = whoval;
    int rc;
    if (strcmp(argv[1], "collective") == 0 && size == 3)
        rc = collective();
    else if (strcmp(argv[1], "bootstrap") == 0 && size == 3)
        rc = bootstrap();
    else if (strcmp(argv[1], "invite") == 0 && size == 3)
        rc = invite();
    else if (strcmp(argv[1], "timeout") == 0 && size == 2)
        rc = timeout();
    else
        FAIL("unknown mode %s for %d ranks", argv[1], size);
    if (PMI2_Finalize() != PMI2_SUCCESS)
        FAIL("finalize");
    printf("[%d] %s: ok\n", rank, argv[1]);
    return rc;
}
