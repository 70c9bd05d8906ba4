/* smoke.c: two ranks put, fence and read each other's value through newcomer2_client. */
#include <pmi2.h>
#include <stdio.h>

int main(void)
{
    int spawned, size, rank, appnum, len;
    char key[32], val[64], got[64];
    if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS)
        return 1;
    snprintf(key, sizeof key, "k%d", rank);
    snprintf(val, sizeof val, "v%d;x", rank);
    if (PMI2_KVS_Put(key, val) || PMI2_KVS_Fence())
        return 2;
    snprintf(key, sizeof key, "k%d", (rank + 1) % size);
    snprintf(val, sizeof val, "v%d;x", (rank + 1) % size);
    if (PMI2_KVS_Get(NULL, PMI2_ID_NULL, key, got, sizeof got, &len) || len < 0)
        return 3;
    printf("rank %d of %d got %s=%s\n", rank, size, key, got);
    return PMI2_Finalize() == PMI2_SUCCESS ? 0 : 4;
}
