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

int pmic_mapping_local_ranks(const char *mapping, int size, int rank, int *ranks)
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

    /* Place every rank; the blocks repeat until all ranks have a node. */
    int *node_of = malloc((size_t)size * sizeof *node_of);
    if (!node_of)
        return -1;
    int r = 0;
    while (r < size) {
        for (size_t i = 0; i < nb && r < size; i++)
            for (long n = 0; n < blocks[i].nnodes && r < size; n++)
                for (long k = 0; k < blocks[i].ppn && r < size; k++)
                    node_of[r++] = (int)(blocks[i].node + n);
    }
    int count = 0;
    for (int i = 0; i < size; i++)
        if (node_of[i] == node_of[rank])
            ranks[count++] = i;
    free(node_of);
    return count;
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
