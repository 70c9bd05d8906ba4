/* Text forms of attribute values: PMI_process_mapping (SPEC.md 9.11) and
 * comma-separated integer lists (localRanks, cartCoords). */
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static bool num(const char **p, long *out)
{
    const char *s = *p;
    if (*s < '0' || *s > '9')
        return false;
    long v = 0;
    while (*s >= '0' && *s <= '9') {
        if (v > (INT_MAX - (*s - '0')) / 10)
            return false;
        v = v * 10 + (*s - '0');
        s++;
    }
    *p = s;
    *out = v;
    return true;
}

typedef struct block {
    long node, nnodes, ppn;
} block;

int pmic_mapping_local_ranks(const char *mapping, int size, int rank, int *ranks, int max)
{
    const char *p = mapping;
    if (!p || strncmp(p, "(vector", 7) != 0 || size <= 0 || rank < 0 || rank >= size)
        return -1;
    p += 7;
    block blocks[256];
    size_t nb = 0;
    while (*p == ',') {
        p++;
        block b;
        if (*p == '(') {
            p++;
            if (!num(&p, &b.node) || *p++ != ',' || !num(&p, &b.nnodes) || *p++ != ',' ||
                !num(&p, &b.ppn) || *p++ != ')')
                return -1;
        } else if (num(&p, &b.node)) {
            /* JOBATTR-7: MPICH 4.1+ writes a bare node id for one process. */
            b.nnodes = 1;
            b.ppn = 1;
        } else {
            return -1;
        }
        if (b.nnodes < 1 || b.ppn < 1 || nb == sizeof blocks / sizeof blocks[0])
            return -1;
        blocks[nb++] = b;
    }
    if (*p != ')' || p[1] || nb == 0)
        return -1;

    /* The blocks, applied again from the first until every rank has a node
     * (JOBATTR-11), repeat with a period of `cycle` ranks; block i starts at
     * off[i] within it.  Worked out by arithmetic, not with a table of `size`
     * entries: the size is the server's word and may be anything an int
     * holds.  Blocks that start at or past size are never reached. */
    long long off[256], cycle = 0;
    size_t used = 0;
    while (used < nb && cycle < size) {
        long long len = (long long)blocks[used].nnodes * blocks[used].ppn; /* < 2^62 */
        off[used] = cycle;
        cycle += len; /* < 2^62 + INT_MAX: no overflow */
        used++;
    }
    /* the node of rank */
    long long at = rank % cycle, node = 0;
    for (size_t i = 0; i < used; i++)
        if (at < off[i] + (long long)blocks[i].nnodes * blocks[i].ppn) {
            node = blocks[i].node + (at - off[i]) / blocks[i].ppn;
            break;
        }
    /* Its ranks: in each block, at most one of its nodes is that node, a
     * run of ppn ranks from seg[j] in every period. */
    long long seg[256], segn[256];
    size_t ns = 0;
    for (size_t i = 0; i < used; i++) {
        long long n = node - blocks[i].node;
        if (n >= 0 && n < blocks[i].nnodes) {
            seg[ns] = off[i] + n * blocks[i].ppn;
            segn[ns++] = blocks[i].ppn;
        }
    }
    long long full = size / cycle, rest = size % cycle, count = 0;
    for (size_t j = 0; j < ns; j++) {
        long long tail = rest - seg[j];
        count += full * segn[j] + (tail <= 0 ? 0 : tail < segn[j] ? tail : segn[j]);
    }
    /* the first max of them, ascending */
    int got = 0;
    for (long long base = 0; base < size && got < max; base += cycle)
        for (size_t j = 0; j < ns && got < max; j++)
            for (long long k = 0; k < segn[j] && got < max && base + seg[j] + k < size; k++)
                ranks[got++] = (int)(base + seg[j] + k);
    return (int)count;
}

int pmic_parse_int_list(const char *s, int *array, int arraylen)
{
    if (!s)
        return -1;
    int n = 0;
    if (!*s)
        return 0;
    const char *p = s;
    for (;;) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < INT_MIN || v > INT_MAX)
            return -1;
        if (n < arraylen)
            array[n] = (int)v;
        n++;
        p = end;
        while (*p == ' ')
            p++;
        if (!*p)
            return n;
        if (*p != ',')
            return -1;
        p++;
    }
}
