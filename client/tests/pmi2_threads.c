/* Many threads in PMI-2 calls at once (SPEC.md THRID-8, SPAWN-12): worker
 * threads issue kvs-gets and node-attribute waits that other threads
 * satisfy, while rank 0 spawns a child in another thread.  Every value is
 * checked, so a response handed to the wrong thread fails the test.
 *
 *   pmi2_threads [--threads N] [--serial] [--no-spawn]
 *   pmi2_threads --child        (what the spawned process runs)
 *
 * --serial: for servers that do not echo thrid (Slurm): one request is in
 * flight at a time there, so a thread cannot wait for an attribute another
 * thread has yet to put; all puts then happen before the waits.
 * Exit 0 passed, 1 failed, 77 the server answered that spawn is
 * unsupported (everything else passed). */
#define _GNU_SOURCE /* strcasestr */
#include <pmi2.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

const char *pmic_last_errmsg(void); /* libpmiclient internal (static test build) */

enum { NKEYS = 16, ROUNDS = 40, MAXTHREADS = 64 };

static int rank = -1, size = 0, nthreads = 8, serial = 0;
static const char *self_path;
static pthread_barrier_t put_barrier;
static int spawn_result = 0; /* 0 ok, 1 failed, 77 unsupported */

#define FAIL(...)                                                                              \
    do {                                                                                       \
        fprintf(stderr, "[%d] FAIL %s:%d: ", rank, __FILE__, __LINE__);                        \
        fprintf(stderr, __VA_ARGS__);                                                          \
        fputc('\n', stderr);                                                                   \
        exit(1);                                                                               \
    } while (0)

static void value_of(char *buf, size_t n, int r, int k)
{
    snprintf(buf, n, "value-%d-%d-%0*d", r, k, 40 + k, k);
}

static void do_get(unsigned *seed)
{
    int r = (int)(rand_r(seed) % (unsigned)size), k = (int)(rand_r(seed) % NKEYS);
    char key[64], val[256], exp[256];
    int len = 0;
    snprintf(key, sizeof key, "t-%d-%d", r, k);
    value_of(exp, sizeof exp, r, k);
    int rc = PMI2_KVS_Get(NULL, r, key, val, sizeof val, &len);
    if (rc != PMI2_SUCCESS || strcmp(val, exp) != 0 || len != (int)strlen(exp))
        FAIL("get %s: rc=%d '%s' (expected '%s')", key, rc, val, exp);
}

static void put_attr(int t)
{
    char name[64], v[64];
    snprintf(name, sizeof name, "w-%d-%d", rank, t);
    snprintf(v, sizeof v, "%d,%d", rank, t);
    if (PMI2_Info_PutNodeAttr(name, v) != PMI2_SUCCESS)
        FAIL("putnodeattr %s", name);
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    unsigned seed = (unsigned)(rank * 131 + t);
    for (int i = 0; i < 5; i++)
        do_get(&seed);
    /* Thread t waits for w-<rank>-<t>, which thread t+1 puts: in tagged
     * mode the wait is held by the server while the put goes by. */
    put_attr((t + nthreads - 1) % nthreads);
    if (serial)
        pthread_barrier_wait(&put_barrier);
    char name[64], v[64];
    int found = 0, arr[4], outlen = 0;
    snprintf(name, sizeof name, "w-%d-%d", rank, t);
    int rc = PMI2_Info_GetNodeAttr(name, v, sizeof v, &found, 1);
    char exp[64];
    snprintf(exp, sizeof exp, "%d,%d", rank, t);
    if (rc != PMI2_SUCCESS || !found || strcmp(v, exp) != 0)
        FAIL("wait for %s: rc=%d found=%d '%s'", name, rc, found, v);
    rc = PMI2_Info_GetNodeAttrIntArray(name, arr, 4, &outlen, &found);
    if (rc != PMI2_SUCCESS || !found || outlen != 2 || arr[0] != rank || arr[1] != t)
        FAIL("int array %s: rc=%d outlen=%d", name, rc, outlen);
    for (int i = 0; i < ROUNDS; i++)
        do_get(&seed);
    return NULL;
}

static void *spawner(void *arg)
{
    (void)arg;
    const char *cmds[1] = { self_path };
    const char *args[2] = { "--child", NULL };
    const char **argvs[1] = { args };
    int argcs[1] = { 1 }, maxprocs[1] = { 1 }, infosizes[1] = { 0 }, errors[1] = { -1 };
    PMI2_keyval_t pp = { "pp-key", "pp-value" };
    const PMI2_keyval_t *ppv[1] = { &pp };
    char jobid[256] = "unset";
    int rc = PMI2_Job_Spawn(1, cmds, argcs, argvs, maxprocs, infosizes, NULL, 1, ppv, jobid,
                            sizeof jobid, errors);
    if (rc == PMI2_SUCCESS) {
        if (errors[0] != 0)
            FAIL("spawn: errors[0]=%d", errors[0]);
        printf("[%d] spawned job '%s'\n", rank, jobid);
        spawn_result = 0;
        return NULL;
    }
    const char *why = pmic_last_errmsg();
    if (strcasestr(why, "unknown command") || strcasestr(why, "unsupported") ||
        strcasestr(why, "not supported")) {
        printf("[%d] spawn unsupported by the server: %s\n", rank, why);
        spawn_result = 77;
        return NULL;
    }
    FAIL("spawn rc=%d errmsg '%s'", rc, why);
}

static int child(void)
{
    int spawned = 0, appnum = 0;
    if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS)
        FAIL("child init");
    if (!spawned)
        FAIL("child: spawned=0");
    char val[64];
    int len = 0;
    /* SPAWN-13: the preput pairs are readable before the first fence. */
    if (PMI2_KVS_Get(NULL, PMI2_ID_NULL, "pp-key", val, sizeof val, &len) != PMI2_SUCCESS ||
        strcmp(val, "pp-value") != 0)
        FAIL("child: preput pp-key='%s'", val);
    if (PMI2_KVS_Fence() != PMI2_SUCCESS || PMI2_Finalize() != PMI2_SUCCESS)
        FAIL("child: fence/finalize");
    printf("[child %d/%d] ok\n", rank, size);
    return 0;
}

int main(int argc, char **argv)
{
    int do_spawn = 1;
    self_path = argv[0];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--child") == 0)
            return child();
        if (strcmp(argv[i], "--serial") == 0)
            serial = 1;
        else if (strcmp(argv[i], "--no-spawn") == 0)
            do_spawn = 0;
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            nthreads = atoi(argv[++i]);
    }
    if (nthreads < 2 || nthreads > MAXTHREADS)
        FAIL("--threads must be 2..%d", MAXTHREADS);
    int spawned = 0, appnum = 0;
    if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS)
        FAIL("init");
    for (int k = 0; k < NKEYS; k++) {
        char key[64], val[256];
        snprintf(key, sizeof key, "t-%d-%d", rank, k);
        value_of(val, sizeof val, rank, k);
        if (PMI2_KVS_Put(key, val) != PMI2_SUCCESS)
            FAIL("put %s", key);
    }
    if (PMI2_KVS_Fence() != PMI2_SUCCESS)
        FAIL("fence");

    pthread_barrier_init(&put_barrier, NULL, (unsigned)nthreads);
    pthread_t th[MAXTHREADS], sp;
    int spawning = do_spawn && rank == 0;
    if (spawning && pthread_create(&sp, NULL, spawner, NULL) != 0)
        FAIL("pthread_create");
    for (int t = 0; t < nthreads; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)(long)t) != 0)
            FAIL("pthread_create");
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    if (spawning)
        pthread_join(sp, NULL);
    pthread_barrier_destroy(&put_barrier);

    if (PMI2_KVS_Fence() != PMI2_SUCCESS || PMI2_Finalize() != PMI2_SUCCESS)
        FAIL("fence/finalize");
    printf("[%d/%d] pmi2_threads ok (%d threads%s)\n", rank, size, nthreads,
           spawning ? (spawn_result == 77 ? ", spawn unsupported" : ", spawn") : "");
    return spawn_result;
}
