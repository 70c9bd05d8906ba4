/* PMI-1 API end to end, run as every rank of a job (or as a singleton).
 *
 *   pmi1_basic [SIZE] */
#define _POSIX_C_SOURCE 200809L
#include <pmi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(int argc, char **argv)
{
    int want_size = argc > 1 ? atoi(argv[1]) : -1;
    PMI_BOOL init = PMI_TRUE;
    CHECK(PMI_Initialized(&init) == PMI_SUCCESS && init == PMI_FALSE, "initialized early");
    int spawned = -1, size = -1, appnum = -9, rc;
    CHECK((rc = PMI_Init(&spawned)) == PMI_SUCCESS, "PMI_Init rc=%d", rc);
    CHECK(PMI_Initialized(&init) == PMI_SUCCESS && init == PMI_TRUE, "not initialized");
    CHECK(PMI_Get_rank(&rank) == PMI_SUCCESS && PMI_Get_size(&size) == PMI_SUCCESS, "rank/size");
    CHECK(rank >= 0 && rank < size, "rank %d size %d", rank, size);
    CHECK(want_size < 0 || size == want_size, "size %d, expected %d", size, want_size);
    CHECK(spawned == 0, "spawned=%d", spawned);
    CHECK(PMI_Get_appnum(&appnum) == PMI_SUCCESS && appnum >= -1, "appnum %d", appnum);

    int nmax = 0, kmax = 0, vmax = 0;
    CHECK(PMI_KVS_Get_name_length_max(&nmax) == PMI_SUCCESS && nmax > 0, "name max");
    CHECK(PMI_KVS_Get_key_length_max(&kmax) == PMI_SUCCESS && kmax >= 32, "key max %d", kmax);
    CHECK(PMI_KVS_Get_value_length_max(&vmax) == PMI_SUCCESS && vmax >= 256, "val max %d", vmax);
    char kvs[512];
    CHECK(PMI_KVS_Get_my_name(kvs, sizeof kvs) == PMI_SUCCESS && kvs[0], "kvsname");

    char key[64], val[1024], exp[1024];
    snprintf(key, sizeof key, "k1-%d", rank);
    snprintf(val, sizeof val, "v1-%d-%s", rank, kvs);
    CHECK(PMI_KVS_Put(kvs, key, val) == PMI_SUCCESS, "put");
    CHECK(PMI_KVS_Put(kvs, "spaced", "a b") == PMI_ERR_INVALID_VAL, "space in a PMI-1 value");
    CHECK(PMI_KVS_Commit(kvs) == PMI_SUCCESS, "commit");
    CHECK(PMI_Barrier() == PMI_SUCCESS, "barrier");
    for (int r = 0; r < size; r++) {
        snprintf(key, sizeof key, "k1-%d", r);
        snprintf(exp, sizeof exp, "v1-%d-%s", r, kvs);
        rc = PMI_KVS_Get(kvs, key, val, sizeof val);
        CHECK(rc == PMI_SUCCESS && strcmp(val, exp) == 0, "get %s rc=%d '%s'", key, rc, val);
    }
    rc = PMI_KVS_Get(kvs, "never-put", val, sizeof val);
    CHECK(rc == PMI_ERR_INVALID_KEY, "missing key rc=%d", rc);

    int usize = 0;
    CHECK(PMI_Get_universe_size(&usize) == PMI_SUCCESS && (usize == -1 || usize >= size),
          "universe %d", usize);
    int csize = 0, cranks[256];
    CHECK(PMI_Get_clique_size(&csize) == PMI_SUCCESS && csize >= 1 && csize <= size, "clique %d",
          csize);
    CHECK(PMI_Get_clique_ranks(cranks, 256) == PMI_SUCCESS, "clique ranks");
    int self = 0;
    for (int i = 0; i < csize; i++)
        self |= cranks[i] == rank;
    CHECK(self, "own rank not in the clique");

    char svc[600], port[256];
    snprintf(svc, sizeof svc, "svc1-%s", kvs);
    if (rank == 0)
        CHECK(PMI_Publish_name(svc, "port-4711") == PMI_SUCCESS, "publish");
    CHECK(PMI_Barrier() == PMI_SUCCESS, "barrier 2");
    rc = PMI_Lookup_name(svc, port);
    CHECK(rc == PMI_SUCCESS && strcmp(port, "port-4711") == 0, "lookup rc=%d '%s'", rc, port);
    CHECK(PMI_Barrier() == PMI_SUCCESS, "barrier 3");
    if (rank == 0) {
        CHECK(PMI_Unpublish_name(svc) == PMI_SUCCESS, "unpublish");
        CHECK(PMI_Lookup_name(svc, port) != PMI_SUCCESS, "lookup after unpublish");
    }
    CHECK(PMI_Finalize() == PMI_SUCCESS, "finalize");
    CHECK(PMI_Initialized(&init) == PMI_SUCCESS && init == PMI_FALSE, "initialized after");
    printf("[%d/%d] pmi1_basic ok\n", rank, size);
    return 0;
}
