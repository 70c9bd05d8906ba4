/* PMI-2 API end to end, run as every rank of a job (or as a singleton):
 * init, ids, put/fence/get with empty and long values (the negative-length
 * protocol), misses, job and node attributes with a wait, the name
 * service, finalize.  Exit 0 when every check passed.
 *
 *   pmi2_basic [SIZE] [--no-empty] [--expect-init-fail] [--abort CODE]
 *
 * SIZE: the expected job size.  --no-empty: skip the empty value (Hydra
 * 4.1+ ends the job on one, bug H1).  --expect-init-fail: succeed only
 * when PMI2_Init fails (auth with a wrong secret), with exit status 42 so
 * that a launcher's own failure cannot pass for it.  --abort CODE: rank 1
 * (or 0 alone) calls PMI2_Abort after init. */
#define _POSIX_C_SOURCE 200809L
#include <pmi2.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank = -1;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "[%d] FAIL %s:%d: %s: ", rank, __FILE__, __LINE__, #cond);         \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static void nap(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static void big_value(char *buf, int r, int len)
{
    for (int i = 0; i < len; i++)
        buf[i] = (char)('a' + (i + r) % 26);
    buf[len] = 0;
}

int main(int argc, char **argv)
{
    int want_size = -1, abort_code = -1;
    int no_empty = 0, expect_fail = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-empty") == 0)
            no_empty = 1;
        else if (strcmp(argv[i], "--expect-init-fail") == 0)
            expect_fail = 1;
        else if (strcmp(argv[i], "--abort") == 0 && i + 1 < argc)
            abort_code = atoi(argv[++i]);
        else
            want_size = atoi(argv[i]);
    }

    int spawned = -1, size = -1, appnum = -99, rc;
    CHECK(!PMI2_Initialized(), "initialized before init");
    rc = PMI2_Init(&spawned, &size, &rank, &appnum);
    if (expect_fail) {
        CHECK(rc == PMI2_ERR_INIT, "PMI2_Init returned %d, expected PMI2_ERR_INIT", rc);
        CHECK(!PMI2_Initialized(), "initialized after a failed init");
        return 42;
    }
    CHECK(rc == PMI2_SUCCESS, "PMI2_Init rc=%d", rc);
    CHECK(PMI2_Initialized(), "not initialized after init");
    CHECK(size >= 1 && rank >= 0 && rank < size, "size %d rank %d", size, rank);
    CHECK(want_size < 0 || size == want_size, "size %d, expected %d", size, want_size);
    CHECK(spawned == 0, "spawned=%d", spawned);
    if (abort_code >= 0) {
        if (rank == (size > 1 ? 1 : 0))
            PMI2_Abort(1, "pmi2_basic: abort requested");
        nap(30000); /* the others wait to be killed */
        return 3;
    }

    int r2 = -1, s2 = -1;
    CHECK(PMI2_Job_GetRank(&r2) == PMI2_SUCCESS && r2 == rank, "GetRank %d", r2);
    CHECK(PMI2_Info_GetSize(&s2) == PMI2_SUCCESS && s2 == size, "GetSize %d", s2);
    char jobid[256];
    CHECK(PMI2_Job_GetId(jobid, sizeof jobid) == PMI2_SUCCESS && jobid[0], "GetId");
    char tiny[2];
    CHECK(PMI2_Job_GetId(tiny, sizeof tiny) == PMI2_ERR_INVALID_LENGTH || strlen(jobid) < 2,
          "GetId into 2 bytes must report truncation");

    /* put / fence / get */
    char key[64], val[1100], exp[1100];
    snprintf(key, sizeof key, "key-%d", rank);
    snprintf(val, sizeof val, "val-%d-%s", rank, jobid);
    CHECK(PMI2_KVS_Put(key, val) == PMI2_SUCCESS, "put %s", key);
    snprintf(key, sizeof key, "big-%d", rank);
    big_value(val, rank, 1000);
    CHECK(PMI2_KVS_Put(key, val) == PMI2_SUCCESS, "put big");
    if (!no_empty) {
        snprintf(key, sizeof key, "empty-%d", rank);
        CHECK(PMI2_KVS_Put(key, "") == PMI2_SUCCESS, "put empty");
    }
    char longkey[100];
    memset(longkey, 'k', 80);
    longkey[80] = 0;
    CHECK(PMI2_KVS_Put(longkey, "x") == PMI2_ERR_INVALID_KEY_LENGTH, "80-byte key accepted");
    memset(val, 'v', 1024);
    val[1024] = 0;
    CHECK(PMI2_KVS_Put("k", val) == PMI2_ERR_INVALID_VAL_LENGTH, "1024-byte value accepted");
    CHECK(PMI2_KVS_Fence() == PMI2_SUCCESS, "fence");

    for (int r = 0; r < size; r++) {
        int len = -7;
        snprintf(key, sizeof key, "key-%d", r);
        snprintf(exp, sizeof exp, "val-%d-%s", r, jobid);
        rc = PMI2_KVS_Get(jobid, r, key, val, sizeof val, &len);
        CHECK(rc == PMI2_SUCCESS && strcmp(val, exp) == 0 && len == (int)strlen(exp),
              "get %s rc=%d len=%d value '%s'", key, rc, len, val);
        rc = PMI2_KVS_Get(NULL, PMI2_ID_NULL, key, val, sizeof val, &len);
        CHECK(rc == PMI2_SUCCESS && strcmp(val, exp) == 0, "get %s without jobid", key);

        /* Too long for the buffer: truncated, *vallen = -(full length). */
        snprintf(key, sizeof key, "big-%d", r);
        big_value(exp, r, 1000);
        char small[100];
        rc = PMI2_KVS_Get(NULL, PMI2_ID_NULL, key, small, sizeof small, &len);
        CHECK(rc == PMI2_SUCCESS && len == -1000 && strlen(small) == 99 &&
                  strncmp(small, exp, 99) == 0,
              "get %s into 100 bytes: rc=%d len=%d", key, rc, len);
        rc = PMI2_KVS_Get(NULL, PMI2_ID_NULL, key, val, -len + 1, &len);
        CHECK(rc == PMI2_SUCCESS && len == 1000 && strcmp(val, exp) == 0,
              "get %s into 1001 bytes: rc=%d len=%d", key, rc, len);

        if (!no_empty) {
            snprintf(key, sizeof key, "empty-%d", r);
            strcpy(val, "junk");
            rc = PMI2_KVS_Get(NULL, PMI2_ID_NULL, key, val, sizeof val, &len);
            CHECK(rc == PMI2_SUCCESS && len == 0 && val[0] == 0, "get empty: rc=%d len=%d", rc,
                  len);
        }
    }
    int len = 5;
    rc = PMI2_KVS_Get(NULL, PMI2_ID_NULL, "never-put", val, sizeof val, &len);
    CHECK(rc == PMI2_ERR_INVALID_KEY && len == 0, "get of a missing key: rc=%d", rc);

    /* Job attributes. */
    int found = -1;
    rc = PMI2_Info_GetJobAttr("PMI_process_mapping", val, sizeof val, &found);
    CHECK(rc == PMI2_SUCCESS && found == 1 && strncmp(val, "(vector,", 8) == 0,
          "PMI_process_mapping rc=%d found=%d '%s'", rc, found, val);
    /* sorts before PMI_netinfo_of_task: Slurm (and its persona) answers every
     * key at or after it with the netinfo (slurm-pmi2.md 8) */
    rc = PMI2_Info_GetJobAttr("AAA-noSuchAttribute", val, sizeof val, &found);
    CHECK(rc == PMI2_SUCCESS && found == 0, "missing job attribute rc=%d found=%d", rc, found);

    /* Node attributes: rank 0 puts late, everybody on the node waits for it. */
    rc = PMI2_Info_GetNodeAttr("na-never", val, sizeof val, &found, 0);
    CHECK(rc == PMI2_SUCCESS && found == 0, "missing node attribute rc=%d found=%d", rc, found);
    if (rank == 0) {
        nap(200);
        CHECK(PMI2_Info_PutNodeAttr("na-shared", "4,5,6") == PMI2_SUCCESS, "putnodeattr");
    }
    rc = PMI2_Info_GetNodeAttr("na-shared", val, sizeof val, &found, 1);
    CHECK(rc == PMI2_SUCCESS && found == 1 && strcmp(val, "4,5,6") == 0,
          "wait for node attribute rc=%d found=%d '%s'", rc, found, val);
    int arr[8], outlen = -1;
    rc = PMI2_Info_GetNodeAttrIntArray("na-shared", arr, 8, &outlen, &found);
    CHECK(rc == PMI2_SUCCESS && found == 1 && outlen == 3 && arr[0] == 4 && arr[2] == 6,
          "int array rc=%d outlen=%d", rc, outlen);
    rc = PMI2_Info_GetNodeAttrIntArray("na-shared", arr, 2, &outlen, &found);
    CHECK(rc == PMI2_SUCCESS && outlen == 2 && arr[1] == 5, "short int array outlen=%d", outlen);

    /* Name service: rank 0 publishes, everybody looks it up.  A fence is
     * not a barrier (FENCE-3, Hydra): ordering comes from gets of keys put
     * before the fence, which FENCE-2 makes wait for the putter's fence. */
    char svc[300], port[256];
    snprintf(svc, sizeof svc, "svc-%s", jobid);
    if (rank == 0) {
        CHECK(PMI2_Nameserv_publish(svc, NULL, "tcp://host:1234") == PMI2_SUCCESS, "publish");
        CHECK(PMI2_KVS_Put("published", "yes") == PMI2_SUCCESS, "put published");
    }
    CHECK(PMI2_KVS_Fence() == PMI2_SUCCESS, "fence 2");
    CHECK(PMI2_KVS_Get(NULL, 0, "published", val, sizeof val, &len) == PMI2_SUCCESS, "published");
    rc = PMI2_Nameserv_lookup(svc, NULL, port, sizeof port);
    CHECK(rc == PMI2_SUCCESS && strcmp(port, "tcp://host:1234") == 0, "lookup rc=%d '%s'", rc,
          port);
    snprintf(key, sizeof key, "looked-%d", rank);
    CHECK(PMI2_KVS_Put(key, "yes") == PMI2_SUCCESS, "put looked");
    CHECK(PMI2_KVS_Fence() == PMI2_SUCCESS, "fence 3");
    if (rank == 0) {
        for (int r = 0; r < size; r++) {
            snprintf(key, sizeof key, "looked-%d", r);
            CHECK(PMI2_KVS_Get(NULL, r, key, val, sizeof val, &len) == PMI2_SUCCESS, "%s", key);
        }
        CHECK(PMI2_Nameserv_unpublish(svc, NULL) == PMI2_SUCCESS, "unpublish");
        rc = PMI2_Nameserv_lookup(svc, NULL, port, sizeof port);
        CHECK(rc != PMI2_SUCCESS, "lookup after unpublish succeeded");
    }

    CHECK(PMI2_Finalize() == PMI2_SUCCESS, "finalize");
    CHECK(!PMI2_Initialized(), "initialized after finalize");
    CHECK(PMI2_KVS_Fence() == PMI2_ERR_INIT, "fence after finalize");
    printf("[%d/%d] pmi2_basic ok\n", rank, size);
    return 0;
}
