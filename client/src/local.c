/* A string map for the singleton's private key-value space, node
 * attributes and names (ENV-9).  A singleton holds few entries; a sorted
 * array keeps lookups logarithmic without a hash table. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct ent {
    char *k, *v;
} ent;

struct pmic_map {
    ent *e;
    size_t n, cap;
};

pmic_map *pmic_map_new(void)
{
    return calloc(1, sizeof(pmic_map));
}

void pmic_map_free(pmic_map *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++) {
        free(m->e[i].k);
        free(m->e[i].v);
    }
    free(m->e);
    free(m);
}

/* Index of k, or of where it would go (*found false). */
static size_t find(const pmic_map *m, const char *k, bool *found)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(m->e[mid].k, k);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

static char *dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

int pmic_map_put(pmic_map *m, const char *k, const char *v, bool replace)
{
    bool found;
    size_t i = find(m, k, &found);
    if (found) {
        if (!replace)
            return 1;
        char *nv = dup(v);
        if (!nv)
            return -1;
        free(m->e[i].v);
        m->e[i].v = nv;
        return 0;
    }
    if (m->n == m->cap) {
        size_t nc = m->cap ? 2 * m->cap : 16;
        ent *ne = realloc(m->e, nc * sizeof *ne);
        if (!ne)
            return -1;
        m->e = ne;
        m->cap = nc;
    }
    char *nk = dup(k), *nv = dup(v);
    if (!nk || !nv) {
        free(nk);
        free(nv);
        return -1;
    }
    memmove(&m->e[i + 1], &m->e[i], (m->n - i) * sizeof *m->e);
    m->e[i].k = nk;
    m->e[i].v = nv;
    m->n++;
    return 0;
}

const char *pmic_map_get(pmic_map *m, const char *k)
{
    bool found;
    size_t i = find(m, k, &found);
    return found ? m->e[i].v : NULL;
}

int pmic_map_del(pmic_map *m, const char *k)
{
    bool found;
    size_t i = find(m, k, &found);
    if (!found)
        return 1;
    free(m->e[i].k);
    free(m->e[i].v);
    memmove(&m->e[i], &m->e[i + 1], (m->n - i - 1) * sizeof *m->e);
    m->n--;
    return 0;
}
