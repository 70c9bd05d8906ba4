/* pmic_mapping_local_ranks (a process's clique from PMI_process_mapping)
 * against the plain reading of JOBATTR-11 written rank by rank: every
 * rank of small jobs under many mappings, the count and the ranks, cut to
 * any max.  Then jobs of sizes a server may announce (up to INT_MAX): the
 * count by arithmetic, the first ranks, no table of size entries (the
 * fuzzer found the old code asking for 8 GB on `size=2147483647`). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int failures;
#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                       \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

typedef struct {
    long node, nnodes, ppn;
} blk;

/* the node of every rank, the blocks applied again from the first until
 * every rank has one */
static void place(const blk *b, int nb, int size, long *node_of)
{
    int r = 0;
    while (r < size)
        for (int i = 0; i < nb && r < size; i++)
            for (long n = 0; n < b[i].nnodes && r < size; n++)
                for (long k = 0; k < b[i].ppn && r < size; k++)
                    node_of[r++] = b[i].node + n;
}

static void text(const blk *b, int nb, char *out, size_t cap)
{
    size_t o = (size_t)snprintf(out, cap, "(vector");
    for (int i = 0; i < nb; i++)
        o += (size_t)snprintf(out + o, cap - o, ",(%ld,%ld,%ld)", b[i].node, b[i].nnodes, b[i].ppn);
    snprintf(out + o, cap - o, ")");
}

static void small_jobs(void)
{
    unsigned seed = 12345;
    enum { MAXSIZE = 40 };
    for (int t = 0; t < 3000; t++) {
        blk b[4];
        int nb = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 4;
        for (int i = 0; i < nb; i++) {
            seed = seed * 1103515245u + 12345u;
            b[i].node = (seed >> 16) % 4; /* blocks may share a node */
            b[i].nnodes = 1 + (seed >> 20) % 3;
            b[i].ppn = 1 + (seed >> 24) % 4;
        }
        char map[256];
        text(b, nb, map, sizeof map);
        int size = 1 + t % MAXSIZE;
        long node_of[MAXSIZE];
        place(b, nb, size, node_of);
        for (int rank = 0; rank < size; rank++) {
            int want[MAXSIZE], nwant = 0;
            for (int r = 0; r < size; r++)
                if (node_of[r] == node_of[rank])
                    want[nwant++] = r;
            int got[MAXSIZE + 1];
            int max = (rank + t) % (size + 2); /* any max, 0 included */
            memset(got, 0xff, sizeof got);
            int n = pmic_mapping_local_ranks(map, size, rank, max ? got : NULL, max);
            CHECK(n == nwant, "%s size %d rank %d: %d ranks, expected %d", map, size, rank, n, nwant);
            for (int i = 0; i < max && i < nwant; i++)
                CHECK(got[i] == want[i], "%s size %d rank %d: rank %d is %d, expected %d", map,
                      size, rank, i, got[i], want[i]);
            if (max < MAXSIZE + 1 && max > nwant)
                CHECK(got[nwant] == -1, "%s size %d rank %d: wrote past the count", map, size, rank);
        }
    }
}

static void huge_jobs(void)
{
    int r[4];
    /* one node: every rank */
    CHECK(pmic_mapping_local_ranks("(vector,(0,1,1))", INT_MAX, 5, r, 4) == INT_MAX,
          "one node of INT_MAX ranks");
    CHECK(r[0] == 0 && r[3] == 3, "one node: the first ranks");
    /* two nodes, cyclic: the even ranks, or the odd */
    CHECK(pmic_mapping_local_ranks("(vector,(0,2,1))", INT_MAX, 0, r, 4) == INT_MAX / 2 + 1,
          "cyclic, node 0");
    CHECK(r[0] == 0 && r[1] == 2 && r[3] == 6, "cyclic, node 0: the first ranks");
    CHECK(pmic_mapping_local_ranks("(vector,(0,2,1))", INT_MAX, INT_MAX - 2, r, 2) == INT_MAX / 2,
          "cyclic, node 1 (its last rank)");
    CHECK(r[0] == 1 && r[1] == 3, "cyclic, node 1: the first ranks");
    /* blocks far larger than the job; the second never reached */
    CHECK(pmic_mapping_local_ranks("(vector,(0,2147483647,2147483647),(1,1,1))", INT_MAX,
                                   INT_MAX - 1, r, 4) == INT_MAX,
          "a block larger than the job");
    /* one rank per node: just itself */
    CHECK(pmic_mapping_local_ranks("(vector,(0,2147483647,1))", INT_MAX, 123456, r, 4) == 1 &&
              r[0] == 123456,
          "a node per rank");
    /* the count alone */
    CHECK(pmic_mapping_local_ranks("(vector,(0,3,5),(7,1,2))", INT_MAX, 16, NULL, 0) > 0,
          "the count without ranks");
    /* not a mapping */
    CHECK(pmic_mapping_local_ranks("(vector,(0,0,1))", 4, 0, r, 4) == -1, "a block of no nodes");
    CHECK(pmic_mapping_local_ranks("(vector,(0,1,1))", 4, 4, r, 4) == -1, "a rank past the size");
}

int main(void)
{
    small_jobs();
    huge_jobs();
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    puts("mapping: all checks passed");
    return 0;
}
