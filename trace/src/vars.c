/* Scenario variables (${name} captures) and the recorded->live value map
 * that lets a replay tolerate job ids, kvs names and business cards. */
#include "pmitrace/match.h"

#include <stdlib.h>
#include <string.h>

typedef struct kv {
    char *k, *v;
    size_t kl, vl;
} kv;

struct pmt_vars {
    kv *vars;
    size_t nvars, capvars;
    kv *map; /* k = recorded, v = live */
    size_t nmap, capmap;
};

pmt_vars *pmt_vars_new(void)
{
    return calloc(1, sizeof(pmt_vars));
}

void pmt_vars_free(pmt_vars *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->nvars; i++) {
        free(v->vars[i].k);
        free(v->vars[i].v);
    }
    for (size_t i = 0; i < v->nmap; i++) {
        free(v->map[i].k);
        free(v->map[i].v);
    }
    free(v->vars);
    free(v->map);
    free(v);
}

static char *dupn(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        if (n)
            memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

static int put(kv **arr, size_t *n, size_t *cap, const char *k, size_t kl, const char *v,
               size_t vl)
{
    for (size_t i = 0; i < *n; i++)
        if ((*arr)[i].kl == kl && memcmp((*arr)[i].k, k, kl) == 0) {
            char *nv = dupn(v, vl);
            if (!nv)
                return -1;
            free((*arr)[i].v);
            (*arr)[i].v = nv;
            (*arr)[i].vl = vl;
            return 0;
        }
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 8;
        kv *a = realloc(*arr, c * sizeof *a);
        if (!a)
            return -1;
        *arr = a;
        *cap = c;
    }
    kv e = { dupn(k, kl), dupn(v, vl), kl, vl };
    if (!e.k || !e.v) {
        free(e.k);
        free(e.v);
        return -1;
    }
    (*arr)[(*n)++] = e;
    return 0;
}

int pmt_vars_set(pmt_vars *v, const char *name, const char *val, size_t len)
{
    return put(&v->vars, &v->nvars, &v->capvars, name, strlen(name), val, len);
}

const char *pmt_vars_get(const pmt_vars *v, const char *name, size_t *len)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i < v->nvars; i++)
        if (v->vars[i].kl == nl && memcmp(v->vars[i].k, name, nl) == 0) {
            if (len)
                *len = v->vars[i].vl;
            return v->vars[i].v;
        }
    return NULL;
}

int pmt_vars_map(pmt_vars *v, const char *from, size_t flen, const char *to, size_t tlen)
{
    if (flen == 0 || (flen == tlen && memcmp(from, to, flen) == 0))
        return 0;
    return put(&v->map, &v->nmap, &v->capmap, from, flen, to, tlen);
}

int pmt_vars_subst(const pmt_vars *v, const char *s, size_t len, pmc_out *out)
{
    for (size_t i = 0; v && i < v->nmap; i++)
        if (v->map[i].kl == len && memcmp(v->map[i].k, s, len) == 0)
            return pmc_out_append(out, v->map[i].v, v->map[i].vl) ? -1 : 1;
    int changed = 0;
    size_t pos = 0;
    while (pos < len) {
        /* the longest mapped value of >= 6 bytes starting here */
        const kv *best = NULL;
        for (size_t i = 0; v && i < v->nmap; i++) {
            const kv *m = &v->map[i];
            if (m->kl >= 6 && m->kl <= len - pos && memcmp(s + pos, m->k, m->kl) == 0 &&
                (!best || m->kl > best->kl))
                best = m;
        }
        if (best) {
            if (pmc_out_append(out, best->v, best->vl))
                return -1;
            pos += best->kl;
            changed = 1;
        } else {
            if (pmc_out_append(out, s + pos, 1))
                return -1;
            pos++;
        }
    }
    return changed;
}
