/* Hash map behind the KVS, node attributes and name service. */
#include "kvs.h"
#include "strutil.h"

#include <stdlib.h>
#include <string.h>

static uint32_t hash(const char *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 16777619u;
    return h;
}

static int reindex(pms_kvs *k, size_t cap)
{
    uint32_t *ni = calloc(cap, sizeof *ni);
    if (!ni)
        return -1;
    for (size_t i = 0; i < k->n; i++) {
        if (k->items[i].dead)
            continue;
        size_t h = k->items[i].hash & (cap - 1);
        while (ni[h])
            h = (h + 1) & (cap - 1);
        ni[h] = (uint32_t)(i + 1);
    }
    free(k->idx);
    k->idx = ni;
    k->idxcap = cap;
    return 0;
}

static long find(const pms_kvs *k, const char *key, size_t klen, uint32_t h)
{
    if (!k->idxcap)
        return -1;
    for (size_t s = h & (k->idxcap - 1);; s = (s + 1) & (k->idxcap - 1)) {
        uint32_t e = k->idx[s];
        if (!e)
            return -1;
        const pms_kv *kv = &k->items[e - 1];
        if (!kv->dead && kv->hash == h && kv->klen == klen && memcmp(kv->key, key, klen) == 0)
            return (long)(e - 1);
    }
}

int pms_kvs_put(pms_kvs *k, const char *key, size_t klen, const char *val, size_t vlen,
                bool replace)
{
    uint32_t h = hash(key, klen);
    long at = find(k, key, klen, h);
    if (at >= 0) {
        if (!replace)
            return 0;
        char *nv = pms_strndup(val, vlen);
        if (!nv)
            return -1;
        free(k->items[at].val);
        k->items[at].val = nv;
        k->items[at].vlen = vlen;
        return 0;
    }
    if (k->n == k->cap) {
        size_t ncap = k->cap ? k->cap * 2 : 16;
        pms_kv *ni = realloc(k->items, ncap * sizeof *ni);
        if (!ni)
            return -1;
        k->items = ni;
        k->cap = ncap;
    }
    /* keep the index at most half full (dead items count: they hold slots) */
    if ((k->n + 1) * 2 > k->idxcap && reindex(k, k->idxcap ? k->idxcap * 2 : 32) < 0)
        return -1;
    pms_kv kv = { pms_strndup(key, klen), klen, pms_strndup(val, vlen), vlen, h, false };
    if (!kv.key || !kv.val) {
        free(kv.key);
        free(kv.val);
        return -1;
    }
    k->items[k->n] = kv;
    size_t s = h & (k->idxcap - 1);
    while (k->idx[s])
        s = (s + 1) & (k->idxcap - 1);
    k->idx[s] = (uint32_t)(k->n + 1);
    k->n++;
    k->live++;
    return 1;
}

const pms_kv *pms_kvs_get(const pms_kvs *k, const char *key, size_t klen)
{
    long at = find(k, key, klen, hash(key, klen));
    return at >= 0 ? &k->items[at] : NULL;
}

bool pms_kvs_del(pms_kvs *k, const char *key, size_t klen)
{
    long at = find(k, key, klen, hash(key, klen));
    if (at < 0)
        return false;
    pms_kv *kv = &k->items[at];
    free(kv->key);
    free(kv->val);
    kv->key = kv->val = NULL;
    kv->klen = kv->vlen = 0;
    kv->dead = true;
    k->live--;
    return true;
}

int pms_kvs_commit(pms_kvs *dst, pms_kvs *src, bool replace)
{
    int rc = 0;
    for (size_t i = 0; i < src->n; i++) {
        const pms_kv *kv = &src->items[i];
        if (!kv->dead && pms_kvs_put(dst, kv->key, kv->klen, kv->val, kv->vlen, replace) < 0)
            rc = -1;
    }
    pms_kvs_clear(src);
    return rc;
}

void pms_kvs_clear(pms_kvs *k)
{
    for (size_t i = 0; i < k->n; i++) {
        free(k->items[i].key);
        free(k->items[i].val);
    }
    k->n = k->live = 0;
    if (k->idx)
        memset(k->idx, 0, k->idxcap * sizeof *k->idx);
}

void pms_kvs_free(pms_kvs *k)
{
    pms_kvs_clear(k);
    free(k->items);
    free(k->idx);
    memset(k, 0, sizeof *k);
}
