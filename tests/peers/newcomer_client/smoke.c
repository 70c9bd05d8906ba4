/* PMI_Init / Put / Barrier / Get / Finalize, checked against the neighbour's value. */
#include <pmi.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    int spawned, rank, size;
    char kvs[256], key[64], val[1024], want[64];
    if (PMI_Init(&spawned) || PMI_Get_rank(&rank) || PMI_Get_size(&size) ||
        PMI_KVS_Get_my_name(kvs, sizeof kvs))
        return 2;
    snprintf(key, sizeof key, "card-%d", rank);
    snprintf(val, sizeof val, "hello-from-%d", rank);
    if (PMI_KVS_Put(kvs, key, val) || PMI_KVS_Commit(kvs) || PMI_Barrier())
        return 3;
    int peer = (rank + 1) % size;
    snprintf(key, sizeof key, "card-%d", peer);
    snprintf(want, sizeof want, "hello-from-%d", peer);
    if (PMI_KVS_Get(kvs, key, val, sizeof val) || strcmp(val, want) != 0)
        return 4;
    printf("rank %d/%d got %s=%s\n", rank, size, key, val);
    return PMI_Finalize() ? 5 : 0;
}
