/* libpmiclient's PMI-1 API (pmi.h) through the client kit: a whole job's
 * calls over PMI-1 lines, each needing a sensible answer to the one before. */
#include <pmi.h>

#include "pmifuzz/harness.h"

static void api(void)
{
    int spawned, n, len;
    char kvs[256], val[1024], port[256];
    if (PMI_Init(&spawned) != PMI_SUCCESS)
        return;
    if (PMI_Get_size(&n) == PMI_SUCCESS && PMI_Get_rank(&n) == PMI_SUCCESS &&
        PMI_Get_universe_size(&n) == PMI_SUCCESS && PMI_Get_appnum(&n) == PMI_SUCCESS &&
        PMI_KVS_Get_name_length_max(&len) == PMI_SUCCESS &&
        PMI_KVS_Get_my_name(kvs, sizeof kvs) == PMI_SUCCESS &&
        PMI_KVS_Put(kvs, "key0", "value0") == PMI_SUCCESS && PMI_KVS_Commit(kvs) == PMI_SUCCESS &&
        PMI_Barrier() == PMI_SUCCESS && PMI_KVS_Get(kvs, "key0", val, sizeof val) == PMI_SUCCESS &&
        PMI_Publish_name("svc", "port-0") == PMI_SUCCESS &&
        PMI_Lookup_name("svc", port) == PMI_SUCCESS)
        PMI_Unpublish_name("svc");
    PMI_Finalize();
}

PMIFUZZ_CLIENT_HARNESS(api)
