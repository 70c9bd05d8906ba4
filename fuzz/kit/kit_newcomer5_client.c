/* kit-newcomer5_client: the harness the newcomer who wrote tests/peers/newcomer5_client
 * (a PMI-1 client that connects through PMI_PORT) wrote from docs/fuzzing-your-parser.md,
 * kept as written. */
/* fuzz_client.c - libpmifuzz client harness for libnc5pmi (PMI-1) */
#include <string.h>
#include <nc5pmi.h>
#include <pmifuzz/harness.h>

static void api(void)
{
    int spawned, size, rank, usize, appnum, init, len;
    char kvs[256], val[1024], port[256], tiny[4];

    if (PMI_Init(&spawned) != PMI_SUCCESS)
        return;
    PMI_Initialized(&init);
    PMI_Get_size(&size);
    PMI_Get_rank(&rank);
    PMI_Get_appnum(&appnum);
    PMI_KVS_Get_name_length_max(&len);
    PMI_KVS_Get_key_length_max(&len);
    PMI_KVS_Get_value_length_max(&len);
    PMI_Get_universe_size(&usize);

    /* put, commit, barrier, get: a get needs the barrier before it */
    if (PMI_KVS_Get_my_name(kvs, sizeof kvs) != PMI_SUCCESS)
        strcpy(kvs, "kvs_0");
    if (PMI_KVS_Put(kvs, "key0", "value0") == PMI_SUCCESS &&
        PMI_KVS_Commit(kvs) == PMI_SUCCESS && PMI_Barrier() == PMI_SUCCESS)
        PMI_KVS_Get(kvs, "key0", val, sizeof val);
    /* a get on its own, and again with buffers too small for a usual answer */
    PMI_KVS_Get(kvs, "key1", val, sizeof val);
    PMI_KVS_Get(kvs, "key0", tiny, sizeof tiny);
    PMI_KVS_Get_my_name(tiny, sizeof tiny);
    PMI_Barrier();

    /* name service: the lookup needs the publish */
    if (PMI_Publish_name("svc0", "port0") == PMI_SUCCESS)
        PMI_Lookup_name("svc0", port);
    PMI_Lookup_name("svc1", port);
    PMI_Unpublish_name("svc0");

    PMI_Finalize();
}

PMIFUZZ_CLIENT_HARNESS(api)
