/* A program written against pmi2.h (and pmi2ext.h), built from an
 * installed tree with `pkg-config --cflags --libs pmiclient`: every rank
 * puts its rank, fences and reads its right-hand neighbour's, and asks
 * whether the server offers the groups profile. */
#include <pmi2.h>
#include <pmi2ext.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int spawned, size, rank, appnum;
    if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS) {
        fprintf(stderr, "PMI2_Init failed\n");
        return 1;
    }
    int want = argc > 1 ? atoi(argv[1]) : size;
    char key[PMI2_MAX_KEYLEN], val[PMI2_MAX_VALLEN], exp[PMI2_MAX_VALLEN];
    snprintf(key, sizeof key, "hello-%d", rank);
    snprintf(val, sizeof val, "from-rank-%d", rank);
    if (PMI2_KVS_Put(key, val) != PMI2_SUCCESS || PMI2_KVS_Fence() != PMI2_SUCCESS) {
        fprintf(stderr, "[%d] put/fence failed\n", rank);
        return 1;
    }
    int peer = (rank + 1) % size, len = 0;
    snprintf(key, sizeof key, "hello-%d", peer);
    snprintf(exp, sizeof exp, "from-rank-%d", peer);
    if (PMI2_KVS_Get(NULL, peer, key, val, sizeof val, &len) != PMI2_SUCCESS ||
        strcmp(val, exp) != 0) {
        fprintf(stderr, "[%d] get %s: '%s'\n", rank, key, val);
        return 1;
    }
    int groups = -1;
    if (PMI2X_Group_supported(&groups) != PMI2_SUCCESS) {
        fprintf(stderr, "[%d] PMI2X_Group_supported: %s\n", rank, PMI2X_Group_last_reason());
        return 1;
    }
    if (PMI2_Finalize() != PMI2_SUCCESS)
        return 1;
    printf("hello from %d of %d (groups profile: %s)\n", rank, size, groups ? "yes" : "no");
    return size == want ? 0 : 1;
}
