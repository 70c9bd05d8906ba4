#define _DEFAULT_SOURCE /* usleep */
/* pmi2-driver: exercises the whole PMI-2 API (pmi2.h) in a scripted
 * sequence so that `pmi2-conform client` can grade any client library linked
 * against it.  The script comes from PCF_DRIVER_SCRIPT (or argv[1]):
 *
 *   all            every call of pmi2.h but spawn/connect (the default)
 *   basic          all without the values real servers mangle (';', empty):
 *                  for dialect personas (Hydra 4.1 ends the job on an empty value)
 *   nodeattr-wait  rank 1 waits in Info_GetNodeAttr until rank 0 puts (2+ ranks)
 *   threads        concurrent KVS_Get from 4 threads (thrid, THRID-8)
 *   spawn          Job_Spawn of one command
 *   connect        Job_Connect / Job_Disconnect of its own job (draft commands)
 *   abort          Abort: the process must not wait for an answer
 *   init           Init and Finalize only
 *   limits         the longest key (63 bytes) and value (1023 bytes) PMI-2 allows
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
 *  - Slurm's header (an MPICH 1.x descendant) has no PMI2_keyval_t: the info
 *    and preput vectors of PMI2_Job_Spawn are struct MPID_Info.  It is told
 *    by the macros only it defines (PMI2U_Info, PMII_COMMANDLEN_SIZE);
 *    -DPCF_PMI2_MPID_INFO=0 or 1 overrides.  (The name service's info
 *    argument is always NULL here, whatever its type.)
 *  - MPICH's preput vector is an array of PMI2_keyval_t, this project's an
 *    array of pointers to them: PMI2_Job_Spawn's own type decides (_Generic).
 *  - Every call but PMI2_Init is referenced weakly: one the library lacks
 *    (MPICH has no PMI2_Job_GetRank nor PMI2_Info_GetSize, and its header does
 *    not declare them) is NULL at run time and reported absent, not a link
 *    error.  PMI2_Init is the strong reference that links the library in;
 *    a static library that splits the API over several objects needs
 *    -Wl,--whole-archive. */
#ifndef PCF_PMI2_MPID_INFO
#if defined(PMI2U_Info) || defined(PMII_COMMANDLEN_SIZE)
#define PCF_PMI2_MPID_INFO 1
#else
#define PCF_PMI2_MPID_INFO 0
#endif
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
        snprintf(key, sizeof key, "pcf-empty%d", g_rank);
        put("PMI2_KVS_Put:empty", key, "");
    }
    if (g_rank == 0)
        putnodeattr("pcf-na", "nv");
    fence();
    snprintf(key, sizeof key, "pcf-k%d", peer);
    do_get("PMI2_KVS_Get", key);
    if (unusual) {
        snprintf(key, sizeof key, "pcf-semi%d", peer);
        do_get("PMI2_KVS_Get:semi", key);
        snprintf(key, sizeof key, "pcf-empty%d", peer);
        do_get("PMI2_KVS_Get:empty", key);
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
               "scripts: all basic nodeattr-wait threads spawn connect abort init limits\n"
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
    if (init() != PMI2_SUCCESS && strcmp(script, "abort") != 0) {
        fin();
        printf("pcf-end\n");
        return 0;
    }
    if (strcmp(script, "all") == 0 || strcmp(script, "basic") == 0)
        script_all(strcmp(script, "all") == 0);
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
    else if (strcmp(script, "abort") == 0) {
        if (!LACKS("PMI2_Abort", PMI2_Abort)) {
            PMI2_Abort(1, "pcf abort");
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
