#define _DEFAULT_SOURCE /* usleep */
/* pmi2-driver: exercises the whole PMI-2 API (pmi2.h) in a scripted
 * sequence so that `pmi2-conform client` can grade any client library linked
 * against it.  The script comes from PCF_DRIVER_SCRIPT (or argv[1]):
 *
 *   all            every call of pmi2.h but spawn/connect (the default)
 *   basic          all without the value real servers mangle (';')
 *   empty          an empty value put, fenced and read back (Hydra 4.1 ends the
 *                  job on it, H1: a run of its own, so nothing else is lost)
 *   nodeattr-wait  rank 1 waits in Info_GetNodeAttr until rank 0 puts (2+ ranks)
 *   threads        concurrent KVS_Get from 4 threads (thrid, THRID-8)
 *   spawn          Job_Spawn of one command
 *   connect        Job_Connect / Job_Disconnect of its own job (draft commands)
 *   abort          Abort: the process must not wait for an answer
 *   abort-null     Abort without a message (NULL: ABORT-9)
 *   init           Init and Finalize only
 *   limits         the longest key (63 bytes) and value (1023 bytes) PMI-2 allows
 *   groups         the groups profile (pmi2ext.h, SPEC.md §12; 3 ranks): collective,
 *                  group-get, bootstrap with an added member, invite (rank 1
 *                  declines, rank 2 accepts), destruct; without the profile,
 *                  the calls must fail without a word on the wire
 *   groups-timeout a bootstrap that waits for one leader too many (timeout 300 ms)
 *
 * Every call prints one line on stdout, flushed at once:
 *   pcf <call> rc=<int> [name=value ...]
 * strings as hex (x=<hex>), so the grader can compare bytes exactly.
 * A call the library does not have prints "pcf <call> absent" instead (the
 * case that grades it is UNSUPPORTED).
 * Exit status: 0 when the script ran to its end (whatever the rcs). */
#include <pmi2.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- any pmi2.h
 * The driver builds unchanged against this project's pmi2.h, MPICH's
 * (src/pmi/include/pmi2.h, 4.x and 5.x) and Slurm's (slurm/pmi2.h):
 *
 *  - Slurm's header (an MPICH 1.x descendant), and any header of its ABI,
 *    has no PMI2_keyval_t: the info and preput vectors of PMI2_Job_Spawn
 *    are struct MPID_Info.  C cannot ask whether a type exists, so the
 *    build asks the header: drivers.mk and CMake try to compile
 *    "#include <pmi2.h> / PMI2_keyval_t x;" and pass -DPCF_PMI2_MPID_INFO=0
 *    when it compiles, 1 when not (no library's own macros are trusted).
 *    Built by hand without that probe, the driver assumes PMI2_keyval_t.
 *    (The name service's info argument is always NULL here, whatever its
 *    type.)
 *  - MPICH's preput vector is an array of PMI2_keyval_t, this project's an
 *    array of pointers to them: PMI2_Job_Spawn's own type decides (_Generic).
 *  - Every call but PMI2_Init is referenced weakly: one the library lacks
 *    (MPICH has no PMI2_Job_GetRank nor PMI2_Info_GetSize, and its header does
 *    not declare them) is NULL at run time and reported absent, not a link
 *    error.  PMI2_Init is the strong reference that links the library in;
 *    a static library that splits the API over several objects needs
 *    -Wl,--whole-archive. */
#ifndef PCF_PMI2_MPID_INFO
#define PCF_PMI2_MPID_INFO 0
#endif

int PMI2_Job_GetRank(int *rank);
int PMI2_Info_GetSize(int *size);
#pragma weak PMI2_Finalize
#pragma weak PMI2_Initialized
#pragma weak PMI2_Abort
#pragma weak PMI2_Job_Spawn
#pragma weak PMI2_Job_GetId
#pragma weak PMI2_Job_GetRank
#pragma weak PMI2_Info_GetSize
#pragma weak PMI2_Job_Connect
#pragma weak PMI2_Job_Disconnect
#pragma weak PMI2_KVS_Put
#pragma weak PMI2_KVS_Fence
#pragma weak PMI2_KVS_Get
#pragma weak PMI2_Info_GetNodeAttr
#pragma weak PMI2_Info_GetNodeAttrIntArray
#pragma weak PMI2_Info_PutNodeAttr
#pragma weak PMI2_Info_GetJobAttr
#pragma weak PMI2_Info_GetJobAttrIntArray
#pragma weak PMI2_Nameserv_publish
#pragma weak PMI2_Nameserv_lookup
#pragma weak PMI2_Nameserv_unpublish

#if PCF_PMI2_MPID_INFO
typedef struct MPID_Info pcf_kv;
#define PCF_KV(k, v) { .key = (k), .value = (v) }
#define PCF_PREPUT(vec, ptrs) (ptrs)
#else
typedef PMI2_keyval_t pcf_kv;
#define PCF_KV(k, v) { .key = (k), .val = (v) }
/* this project's PMI2_Job_Spawn takes pointers to the preput pairs */
typedef int pcf_spawn_ptrs(int, const char *[], int[], const char **[], const int[], const int[],
                           const PMI2_keyval_t *[], int, const PMI2_keyval_t *[], char[], int,
                           int[]);
#define PCF_PREPUT(vec, ptrs)                                                                    \
    _Generic(&PMI2_Job_Spawn, pcf_spawn_ptrs *: (void *)(ptrs), default: (void *)(vec))
#endif

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_rank = -1, g_size = 0;

static void hex(const char *s, int n, char *out, size_t on)
{
    static const char hx[] = "0123456789abcdef";
    size_t j = 0;
    for (int i = 0; i < n && j + 3 < on; i++) {
        out[j++] = hx[(unsigned char)s[i] >> 4];
        out[j++] = hx[(unsigned char)s[i] & 15];
    }
    out[j] = 0;
}

/* "pcf <call> rc=<rc> <fmt...>" */
static void say(const char *call, int rc, const char *fmt, ...)
{
    char extra[4096] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(extra, sizeof extra, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_lock(&out_lock);
    printf("pcf %s rc=%d%s%s\n", call, rc, *extra ? " " : "", extra);
    fflush(stdout);
    pthread_mutex_unlock(&out_lock);
}

/* "pcf <call> absent" when the library lacks fn: true */
static bool lacks(const char *call, void (*fn)(void))
{
    if (fn)
        return false;
    pthread_mutex_lock(&out_lock);
    printf("pcf %s absent\n", call);
    fflush(stdout);
    pthread_mutex_unlock(&out_lock);
    return true;
}
#define LACKS(call, fn) lacks(call, (void (*)(void))(fn))

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void do_get(const char *call, const char *key)
{
    char v[PMI2_MAX_VALLEN + 1] = "", hx[2 * PMI2_MAX_VALLEN + 4];
    int len = -1;
    if (LACKS(call, PMI2_KVS_Get))
        return;
    int rc = PMI2_KVS_Get(NULL, PMI2_ID_NULL, key, v, sizeof v, &len);
    hex(v, rc == PMI2_SUCCESS ? (int)strnlen(v, sizeof v) : 0, hx, sizeof hx);
    say(call, rc, "vallen=%d x=%s", len, hx);
}

static void do_nodeattr(const char *call, const char *name, int wait)
{
    char v[PMI2_MAX_ATTRVALUE + 1] = "", hx[2 * PMI2_MAX_ATTRVALUE + 4];
    int found = -1;
    long long t0 = now_ms();
    if (LACKS(call, PMI2_Info_GetNodeAttr))
        return;
    int rc = PMI2_Info_GetNodeAttr(name, v, sizeof v, &found, wait);
    hex(v, found == 1 ? (int)strnlen(v, sizeof v) : 0, hx, sizeof hx);
    say(call, rc, "found=%d ms=%lld x=%s", found, now_ms() - t0, hx);
}

static void do_jobattr(const char *call, const char *name)
{
    char v[PMI2_MAX_ATTRVALUE + 1] = "", hx[2 * PMI2_MAX_ATTRVALUE + 4];
    int found = -1;
    if (LACKS(call, PMI2_Info_GetJobAttr))
        return;
    int rc = PMI2_Info_GetJobAttr(name, v, sizeof v, &found);
    hex(v, found == 1 ? (int)strnlen(v, sizeof v) : 0, hx, sizeof hx);
    say(call, rc, "found=%d x=%s", found, hx);
}

static void put(const char *call, const char *key, const char *val)
{
    if (!LACKS(call, PMI2_KVS_Put))
        say(call, PMI2_KVS_Put(key, val), NULL);
}

static void putnodeattr(const char *name, const char *val)
{
    if (!LACKS("PMI2_Info_PutNodeAttr", PMI2_Info_PutNodeAttr))
        say("PMI2_Info_PutNodeAttr", PMI2_Info_PutNodeAttr(name, val), NULL);
}

static void fence(void)
{
    if (!LACKS("PMI2_KVS_Fence", PMI2_KVS_Fence))
        say("PMI2_KVS_Fence", PMI2_KVS_Fence(), NULL);
}

static int init(void)
{
    int spawned = -1, appnum = -99;
    int rc = PMI2_Init(&spawned, &g_size, &g_rank, &appnum);
    say("PMI2_Init", rc, "spawned=%d size=%d rank=%d appnum=%d", spawned, g_size, g_rank, appnum);
    if (!LACKS("PMI2_Initialized", PMI2_Initialized))
        say("PMI2_Initialized", PMI2_Initialized(), NULL);
    return rc;
}

static void fin(void)
{
    if (!LACKS("PMI2_Finalize", PMI2_Finalize))
        say("PMI2_Finalize", PMI2_Finalize(), NULL);
}

static void script_all(bool unusual)
{
    char jobid[256] = "", hx[600], key[64];
    int rc;
    if (!LACKS("PMI2_Job_GetId", PMI2_Job_GetId)) {
        rc = PMI2_Job_GetId(jobid, sizeof jobid);
        hex(jobid, (int)strlen(jobid), hx, sizeof hx);
        say("PMI2_Job_GetId", rc, "x=%s", hx);
    }
    int r = -1, sz = -1;
    if (!LACKS("PMI2_Job_GetRank", PMI2_Job_GetRank)) {
        rc = PMI2_Job_GetRank(&r); /* before r is read: call arguments are unsequenced */
        say("PMI2_Job_GetRank", rc, "rank=%d", r);
    }
    if (!LACKS("PMI2_Info_GetSize", PMI2_Info_GetSize)) {
        rc = PMI2_Info_GetSize(&sz);
        say("PMI2_Info_GetSize", rc, "size=%d", sz);
    }
    do_jobattr("PMI2_Info_GetJobAttr:PMI_process_mapping", "PMI_process_mapping");
    do_jobattr("PMI2_Info_GetJobAttr:universeSize", "universeSize");
    int arr[16], outlen = -1, found = -1;
    if (!LACKS("PMI2_Info_GetJobAttrIntArray", PMI2_Info_GetJobAttrIntArray)) {
        rc = PMI2_Info_GetJobAttrIntArray("universeSize", arr, 16, &outlen, &found);
        say("PMI2_Info_GetJobAttrIntArray", rc, "found=%d outlen=%d first=%d", found, outlen,
            outlen > 0 ? arr[0] : -1);
    }

    int peer = g_size > 0 ? (g_rank + 1) % g_size : 0;
    char val[64];
    snprintf(key, sizeof key, "pcf-k%d", g_rank);
    snprintf(val, sizeof val, "v%d", g_rank);
    put("PMI2_KVS_Put", key, val);
    if (unusual) {
        snprintf(key, sizeof key, "pcf-semi%d", g_rank);
        put("PMI2_KVS_Put:semi", key, "a;b;c");
    }
    if (g_rank == 0)
        putnodeattr("pcf-na", "nv");
    fence();
    snprintf(key, sizeof key, "pcf-k%d", peer);
    do_get("PMI2_KVS_Get", key);
    if (unusual) {
        snprintf(key, sizeof key, "pcf-semi%d", peer);
        do_get("PMI2_KVS_Get:semi", key);
    }
    do_get("PMI2_KVS_Get:missing", "pcf-missing");
    do_nodeattr("PMI2_Info_GetNodeAttr", "pcf-na", 0);
    do_nodeattr("PMI2_Info_GetNodeAttr:missing", "pcf-na-missing", 0);
    if (!LACKS("PMI2_Info_GetNodeAttrIntArray", PMI2_Info_GetNodeAttrIntArray)) {
        rc = PMI2_Info_GetNodeAttrIntArray("localRanksCount", arr, 16, &outlen, &found);
        say("PMI2_Info_GetNodeAttrIntArray", rc, "found=%d outlen=%d", found, outlen);
    }

    char svc[64], port[64], got[PMI2_MAX_VALLEN + 1] = "";
    snprintf(svc, sizeof svc, "pcf-svc%d", g_rank);
    snprintf(port, sizeof port, "port-%d", g_rank);
    if (!LACKS("PMI2_Nameserv_publish", PMI2_Nameserv_publish))
        say("PMI2_Nameserv_publish", PMI2_Nameserv_publish(svc, NULL, port), NULL);
    if (!LACKS("PMI2_Nameserv_lookup", PMI2_Nameserv_lookup)) {
        rc = PMI2_Nameserv_lookup(svc, NULL, got, sizeof got);
        hex(got, rc == 0 ? (int)strlen(got) : 0, hx, sizeof hx);
        say("PMI2_Nameserv_lookup", rc, "x=%s", hx);
    }
    if (!LACKS("PMI2_Nameserv_unpublish", PMI2_Nameserv_unpublish))
        say("PMI2_Nameserv_unpublish", PMI2_Nameserv_unpublish(svc, NULL), NULL);
    got[0] = 0;
    if (!LACKS("PMI2_Nameserv_lookup:gone", PMI2_Nameserv_lookup))
        say("PMI2_Nameserv_lookup:gone", PMI2_Nameserv_lookup(svc, NULL, got, sizeof got),
            NULL);
}

/* KVS-11: an empty value, in a run of its own (Hydra 4.1 ends the job on it) */
static void script_empty(void)
{
    char key[64];
    int peer = g_size > 0 ? (g_rank + 1) % g_size : 0;
    snprintf(key, sizeof key, "pcf-empty%d", g_rank);
    put("PMI2_KVS_Put:empty", key, "");
    fence();
    snprintf(key, sizeof key, "pcf-empty%d", peer);
    do_get("PMI2_KVS_Get:empty", key);
}

static void script_nodeattr_wait(void)
{
    if (g_rank == 0) {
        usleep(400 * 1000);
        putnodeattr("pcf-late", "late-value");
    } else if (g_rank == 1) {
        do_nodeattr("PMI2_Info_GetNodeAttr:wait", "pcf-late", 1);
    }
    fence();
}

static void *get_thread(void *arg)
{
    int i = (int)(long)arg;
    char key[64], call[64];
    snprintf(key, sizeof key, "pcf-t%d", i);
    snprintf(call, sizeof call, "PMI2_KVS_Get:t%d", i);
    do_get(call, key);
    return NULL;
}

static void script_threads(void)
{
    char key[64], val[64];
    enum { NT = 4 };
    if (g_rank == 0)
        for (int i = 0; i < NT; i++) {
            snprintf(key, sizeof key, "pcf-t%d", i);
            snprintf(val, sizeof val, "tv%d", i);
            put("PMI2_KVS_Put", key, val);
        }
    fence();
    pthread_t t[NT];
    for (int i = 0; i < NT; i++)
        if (pthread_create(&t[i], NULL, get_thread, (void *)(long)i) != 0)
            t[i] = 0;
    for (int i = 0; i < NT; i++)
        if (t[i])
            pthread_join(t[i], NULL);
}

static void script_spawn(void)
{
    const char *cmds[1] = { "/bin/true" };
    int argcs[1] = { 2 };
    const char *args[] = { "a b", "c" };
    const char **argvs[1] = { args };
    int maxprocs[1] = { 1 };
    char k1[] = "wdir", v1[] = "/tmp";
    pcf_kv info[1] = { PCF_KV(k1, v1) };
    int infosizes[1] = { 1 };
    const pcf_kv *infos[1] = { info };
    char pk[] = "pcf-pre", pv[] = "pre-value";
    pcf_kv pre[1] = { PCF_KV(pk, pv) };
    const pcf_kv *prev[1] = { pre };
    char jobid[256] = "";
    int errors[1] = { -1 };
    if (LACKS("PMI2_Job_Spawn", PMI2_Job_Spawn))
        return;
    int rc = PMI2_Job_Spawn(1, cmds, argcs, argvs, maxprocs, infosizes, infos, 1,
                            PCF_PREPUT(pre, prev), jobid, sizeof jobid, errors);
    say("PMI2_Job_Spawn", rc, "error0=%d", errors[0]);
}

static void script_connect(void)
{
    char jobid[256] = "";
    if (PMI2_Job_GetId)
        PMI2_Job_GetId(jobid, sizeof jobid);
    PMI2_Connect_comm_t comm = { 0 };
    if (!LACKS("PMI2_Job_Connect", PMI2_Job_Connect))
        say("PMI2_Job_Connect", PMI2_Job_Connect(jobid, &comm), NULL);
    if (!LACKS("PMI2_Job_Disconnect", PMI2_Job_Disconnect))
        say("PMI2_Job_Disconnect", PMI2_Job_Disconnect(jobid), NULL);
}

/* ---------------------------------------------------------------- groups
 * The groups profile is this project's extension (pmi2ext.h).  A library
 * built without that header has none of it: every call is reported absent.
 * With it, every PMI2X_ call is referenced weakly like the PMI2_ ones. */
#if defined(__has_include)
#if __has_include(<pmi2ext.h>) && !PCF_PMI2_MPID_INFO
#define PCF_GROUPS 1
#endif
#endif

#ifdef PCF_GROUPS
#include <pmi2ext.h>
#pragma weak PMI2X_Group_supported
#pragma weak PMI2X_Group_procid
#pragma weak PMI2X_Group_make_procid
#pragma weak PMI2X_Group_subscribe
#pragma weak PMI2X_Group_construct_collective
#pragma weak PMI2X_Group_construct_bootstrap
#pragma weak PMI2X_Group_construct_member
#pragma weak PMI2X_Group_invite
#pragma weak PMI2X_Group_join
#pragma weak PMI2X_Group_next_event
#pragma weak PMI2X_Group_get
#pragma weak PMI2X_Group_destruct
#pragma weak PMI2X_Group_result_free
#pragma weak PMI2X_Group_event_free
#pragma weak PMI2X_Group_last_reason

static char g_procs[8][PMI2X_MAX_PROCID]; /* every rank's process id (up to 8 ranks) */

static const char *reason_now(void)
{
    const char *r = PMI2X_Group_last_reason ? PMI2X_Group_last_reason() : NULL;
    return r && *r ? r : "-";
}

/* "ctxid=.. mx=<members hex> ninfo=.. fx=<failed hex> reason=.." of a result */
static void say_result(const char *call, int rc, const PMI2X_Group_result *res, const char *more)
{
    char m[2400] = "", f[2400] = "", mx[4900], fx[4900];
    size_t j = 0;
    for (int i = 0; res && i < res->nmembers && j < sizeof m - 300; i++)
        j += (size_t)snprintf(m + j, sizeof m - j, "%s%s", i ? "," : "", res->members[i]);
    j = 0;
    for (int i = 0; res && i < res->nfailed && j < sizeof f - 300; i++)
        j += (size_t)snprintf(f + j, sizeof f - j, "%s%s", i ? "," : "", res->failed[i]);
    hex(m, (int)strlen(m), mx, sizeof mx);
    hex(f, (int)strlen(f), fx, sizeof fx);
    say(call, rc, "ctxid=%lld mx=%s ninfo=%d fx=%s reason=%s%s%s", res ? res->ctxid : 0LL, mx,
        res ? res->ninfo : -1, fx, res && res->reason ? res->reason : reason_now(),
        more ? " " : "", more ? more : "");
}

static void free_result(PMI2X_Group_result *res)
{
    if (res && PMI2X_Group_result_free)
        PMI2X_Group_result_free(res);
}

static void group_destruct(const char *call, const char *grp)
{
    PMI2X_Group_result *res = NULL;
    if (LACKS(call, PMI2X_Group_destruct))
        return;
    int rc = PMI2X_Group_destruct(grp, 5000, &res);
    say(call, rc, "reason=%s", res && res->reason ? res->reason : reason_now());
    free_result(res);
}

/* The next event of `want` kind within 5 s: 0, or -1 after saying why not. */
static int group_event(const char *call, PMI2X_Group_event_kind want, PMI2X_Group_event **ev)
{
    *ev = NULL;
    if (LACKS(call, PMI2X_Group_next_event))
        return -1;
    int rc = PMI2X_Group_next_event(5000, ev);
    if (rc != PMI2_SUCCESS || !*ev || (*ev)->kind != want) {
        say(call, rc == PMI2_SUCCESS ? PMI2_FAIL : rc, "kind=%d event=%s reason=%s",
            *ev ? (int)(*ev)->kind : -1, *ev && (*ev)->event ? (*ev)->event : "-", reason_now());
        if (*ev && PMI2X_Group_event_free)
            PMI2X_Group_event_free(*ev);
        *ev = NULL;
        return -1;
    }
    return 0;
}

static void script_groups(void)
{
    int flag = -1, rc;
    if (LACKS("PMI2X_Group_supported", PMI2X_Group_supported))
        return;
    rc = PMI2X_Group_supported(&flag);
    say("PMI2X_Group_supported", rc, "flag=%d", flag);
    if (!flag) { /* GROUP-3: refused without a word on the wire */
        PMI2X_Group_result *res = NULL;
        if (!LACKS("PMI2X_Group_construct_bootstrap:absent", PMI2X_Group_construct_bootstrap)) {
            rc = PMI2X_Group_construct_bootstrap("pcf-absent", g_size, NULL, 0, NULL, 0, 1000,
                                                 &res);
            say("PMI2X_Group_construct_bootstrap:absent", rc, "reason=%s", reason_now());
            free_result(res);
        }
        return;
    }
    char jobid[256] = "";
    if (PMI2_Job_GetId)
        PMI2_Job_GetId(jobid, sizeof jobid);
    int n = g_size < 8 ? g_size : 8;
    for (int r = 0; r < n && PMI2X_Group_make_procid; r++)
        PMI2X_Group_make_procid(jobid, r, g_procs[r], sizeof g_procs[r]);
    char me[PMI2X_MAX_PROCID] = "", mx[2 * PMI2X_MAX_PROCID + 2];
    if (PMI2X_Group_procid)
        PMI2X_Group_procid(me, sizeof me);
    hex(me, (int)strlen(me), mx, sizeof mx);
    say("PMI2X_Group_procid", strcmp(me, g_procs[g_rank < 8 ? g_rank : 0]) ? PMI2_FAIL : 0,
        "x=%s", mx);

    /* collective: every rank a leader, the leaders listed in reverse order */
    const char *leaders[8];
    for (int r = 0; r < n; r++)
        leaders[r] = g_procs[n - 1 - r];
    char k[] = "pcf-ep", v[64];
    snprintf(v, sizeof v, "endpoint-%d", g_rank);
    PMI2_keyval_t info[1] = { { .key = k, .val = v } };
    PMI2X_Group_result *res = NULL;
    if (!LACKS("PMI2X_Group_construct_collective", PMI2X_Group_construct_collective)) {
        rc = PMI2X_Group_construct_collective("pcf-coll", leaders, n, NULL, 0, info, 1, 5000,
                                              &res);
        say_result("PMI2X_Group_construct_collective", rc, res, NULL);
        free_result(res);
        res = NULL;
    }
    if (!LACKS("PMI2X_Group_get", PMI2X_Group_get)) {
        char got[256] = "", gx[520];
        int found = -1;
        rc = PMI2X_Group_get("pcf-coll", g_procs[(g_rank + 1) % n], "pcf-ep", got, sizeof got,
                             &found);
        hex(got, found == 1 ? (int)strlen(got) : 0, gx, sizeof gx);
        say("PMI2X_Group_get", rc, "found=%d x=%s", found, gx);
    }
    group_destruct("PMI2X_Group_destruct:coll", "pcf-coll");

    /* bootstrap: ranks 0 and 1 lead, rank 0 adds the others */
    if (g_rank <= 1) {
        const char *add[8];
        int nadd = 0;
        for (int r = 2; g_rank == 0 && r < n; r++)
            add[nadd++] = g_procs[r];
        if (!LACKS("PMI2X_Group_construct_bootstrap", PMI2X_Group_construct_bootstrap)) {
            rc = PMI2X_Group_construct_bootstrap("pcf-boot", n < 2 ? 1 : 2, nadd ? add : NULL,
                                                 nadd, info, 1, 5000, &res);
            say_result("PMI2X_Group_construct_bootstrap", rc, res, NULL);
        }
    } else if (!LACKS("PMI2X_Group_construct_member", PMI2X_Group_construct_member)) {
        rc = PMI2X_Group_construct_member("pcf-boot", info, 1, 5000, &res);
        say_result("PMI2X_Group_construct_member", rc, res, NULL);
    }
    free_result(res);
    res = NULL;
    group_destruct("PMI2X_Group_destruct:boot", "pcf-boot");

    /* invite: the invitees subscribe before the fence, the leader invites after it */
    if (g_rank > 0 && !LACKS("PMI2X_Group_subscribe", PMI2X_Group_subscribe))
        say("PMI2X_Group_subscribe", PMI2X_Group_subscribe(), NULL);
    fence();
    PMI2X_Group_event *ev = NULL;
    if (g_rank == 0 && n > 1) {
        if (!LACKS("PMI2X_Group_invite", PMI2X_Group_invite)) {
            rc = PMI2X_Group_invite("pcf-inv", leaders, n - 1, info, 1, 5000, &res);
            say_result("PMI2X_Group_invite", rc, res, NULL);
            free_result(res);
            res = NULL;
        }
        if (n > 2 && group_event("PMI2X_Group_next_event:failed", PMI2X_EVENT_INVITE_FAILED,
                                 &ev) == 0) {
            char px[2 * PMI2X_MAX_PROCID + 2];
            hex(ev->proc ? ev->proc : "", ev->proc ? (int)strlen(ev->proc) : 0, px, sizeof px);
            say("PMI2X_Group_next_event:failed", 0, "x=%s reason=%s", px,
                ev->reason ? ev->reason : "-");
            PMI2X_Group_event_free(ev);
        }
    } else if (g_rank > 0 && group_event("PMI2X_Group_next_event:invited", PMI2X_EVENT_INVITED,
                                         &ev) == 0) {
        char lx[2 * PMI2X_MAX_PROCID + 2];
        hex(ev->leader ? ev->leader : "", ev->leader ? (int)strlen(ev->leader) : 0, lx,
            sizeof lx);
        say("PMI2X_Group_next_event:invited", 0, "x=%s", lx);
        PMI2X_Group_event_free(ev);
        bool accept = g_rank != 1; /* rank 1 declines, the others accept */
        if (!LACKS("PMI2X_Group_join", PMI2X_Group_join))
            say("PMI2X_Group_join", PMI2X_Group_join("pcf-inv", accept, info, 1),
                "accept=%d", accept);
        if (accept && group_event("PMI2X_Group_next_event:complete", PMI2X_EVENT_COMPLETE,
                                  &ev) == 0) {
            say_result("PMI2X_Group_next_event:complete", ev->result ? ev->result->rc : -1,
                       ev->result, NULL);
            PMI2X_Group_event_free(ev);
        }
    }
    if (g_rank != 1)
        group_destruct("PMI2X_Group_destruct:inv", "pcf-inv");
    fence();
}

/* GROUP-24/30: a construct nobody can complete comes back with the server's
 * timeout, not never. */
static void script_groups_timeout(void)
{
    int flag = 0;
    if (LACKS("PMI2X_Group_supported", PMI2X_Group_supported))
        return;
    int rc = PMI2X_Group_supported(&flag);
    say("PMI2X_Group_supported", rc, "flag=%d", flag);
    if (!flag || LACKS("PMI2X_Group_construct_bootstrap", PMI2X_Group_construct_bootstrap))
        return;
    PMI2X_Group_result *res = NULL;
    long long t0 = now_ms();
    rc = PMI2X_Group_construct_bootstrap("pcf-late", g_size + 1, NULL, 0, NULL, 0, 300, &res);
    char ms[32];
    snprintf(ms, sizeof ms, "ms=%lld", now_ms() - t0);
    say_result("PMI2X_Group_construct_bootstrap:timeout", rc, res, ms);
    free_result(res);
}
#else
static void script_groups(void)
{
    LACKS("PMI2X_Group_supported", NULL);
}
static void script_groups_timeout(void)
{
    LACKS("PMI2X_Group_supported", NULL);
}
#endif

static void script_limits(void)
{
    char key[64], val[1024];
    int kl = snprintf(key, sizeof key, "pcf-long%d-", g_rank);
    memset(key + kl, 'k', (size_t)(63 - kl));
    key[63] = 0;
    memset(val, 'v', 1023);
    val[1023] = 0;
    put("PMI2_KVS_Put:long", key, val);
    fence();
    do_get("PMI2_KVS_Get:long", key);
}

int main(int argc, char **argv)
{
    const char *script = getenv("PCF_DRIVER_SCRIPT");
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: pmi2-driver [SCRIPT]   (or PCF_DRIVER_SCRIPT=SCRIPT)\n"
               "scripts: all basic empty nodeattr-wait threads spawn connect abort abort-null init\n"
               "         limits\n"
               "         groups groups-timeout\n"
               "Run under a PMI-2 process manager; prints one 'pcf' line per call.\n"
               "exit status: 0 the script ran to its end, 2 usage.\n");
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("pmi2-driver 1\n");
        return 0;
    }
    if (argc > 1)
        script = argv[1];
    if (!script || !*script)
        script = "all";
    printf("pcf-driver api=pmi2 protocol=1 script=%s\n", script);
    fflush(stdout);
    bool aborts = strcmp(script, "abort") == 0 || strcmp(script, "abort-null") == 0;
    if (init() != PMI2_SUCCESS && !aborts) {
        fin();
        printf("pcf-end\n");
        return 0;
    }
    if (strcmp(script, "all") == 0 || strcmp(script, "basic") == 0)
        script_all(strcmp(script, "all") == 0);
    else if (strcmp(script, "empty") == 0)
        script_empty();
    else if (strcmp(script, "nodeattr-wait") == 0)
        script_nodeattr_wait();
    else if (strcmp(script, "threads") == 0)
        script_threads();
    else if (strcmp(script, "spawn") == 0)
        script_spawn();
    else if (strcmp(script, "connect") == 0)
        script_connect();
    else if (strcmp(script, "limits") == 0)
        script_limits();
    else if (strcmp(script, "groups") == 0)
        script_groups();
    else if (strcmp(script, "groups-timeout") == 0)
        script_groups_timeout();
    else if (aborts) {
        if (!LACKS("PMI2_Abort", PMI2_Abort)) {
            PMI2_Abort(1, strcmp(script, "abort") == 0 ? "pcf abort" : NULL);
            say("PMI2_Abort:returned", 0, NULL); /* should not be reached */
        }
        return 0;
    } else if (strcmp(script, "init") != 0) {
        fprintf(stderr, "pmi2-driver: unknown script '%s'\n", script);
        return 2;
    }
    fin();
    printf("pcf-end\n");
    fflush(stdout);
    return 0;
}
