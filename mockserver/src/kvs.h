/* A string-to-string map with owned copies and insertion order: the job KVS,
 * node attributes, the name service. Values may hold any byte. */
#ifndef PMISERVER_KVS_H
#define PMISERVER_KVS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pms_kv {
    char *key;
    size_t klen;
    char *val; /* NUL-terminated copy; vlen is the real length */
    size_t vlen;
    uint32_t hash;
    bool dead; /* deleted (kept so insertion order stays stable) */
} pms_kv;

typedef struct pms_kvs {
    pms_kv *items;
    size_t n, cap, live;
    uint32_t *idx; /* open addressing: item index + 1, 0 = empty */
    size_t idxcap;
} pms_kvs;

/* 1 inserted, 0 key existed (replaced when `replace`, else left alone), -1 no memory */
int pms_kvs_put(pms_kvs *k, const char *key, size_t klen, const char *val, size_t vlen,
                bool replace);
const pms_kv *pms_kvs_get(const pms_kvs *k, const char *key, size_t klen);
bool pms_kvs_del(pms_kvs *k, const char *key, size_t klen);
/* Move every live item of src into dst (src ends empty). */
int pms_kvs_commit(pms_kvs *dst, pms_kvs *src, bool replace);
void pms_kvs_clear(pms_kvs *k);
void pms_kvs_free(pms_kvs *k);

#endif
