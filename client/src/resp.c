/* Responses copied out of the decoder's buffer (its views die at the next
 * decoder call), so the progress reader can hand one to another thread. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

pmic_resp *pmic_resp_copy(const pmc_msg *m)
{
    size_t bytes = sizeof(pmic_resp) + m->npairs * sizeof(pmic_kv) + m->name.len + 1;
    for (size_t i = 0; i < m->npairs; i++)
        bytes += m->pairs[i].key.len + 1 + m->pairs[i].val.len + 1;
    pmic_resp *r = malloc(bytes);
    if (!r)
        return NULL;
    r->wire = m->wire;
    r->npairs = m->npairs;
    r->pairs = (pmic_kv *)(r + 1);
    char *p = (char *)(r->pairs + m->npairs);
    r->name = p;
    if (m->name.len)
        memcpy(p, m->name.ptr, m->name.len);
    p[m->name.len] = 0;
    p += m->name.len + 1;
    for (size_t i = 0; i < m->npairs; i++) {
        const pmc_pair *s = &m->pairs[i];
        r->pairs[i].key = p;
        if (s->key.len)
            memcpy(p, s->key.ptr, s->key.len);
        p[s->key.len] = 0;
        p += s->key.len + 1;
        r->pairs[i].val = p;
        r->pairs[i].vlen = s->val.len;
        if (s->val.len)
            memcpy(p, s->val.ptr, s->val.len);
        p[s->val.len] = 0;
        p += s->val.len + 1;
    }
    return r;
}

void pmic_resp_free(pmic_resp *r)
{
    free(r);
}

const char *pmic_resp_get(const pmic_resp *r, const char *key, size_t *len)
{
    if (!r)
        return NULL;
    for (size_t i = 0; i < r->npairs; i++)
        if (strcmp(r->pairs[i].key, key) == 0) {
            if (len)
                *len = r->pairs[i].vlen;
            return r->pairs[i].val;
        }
    return NULL;
}

int pmic_resp_int(const pmic_resp *r, const char *key, long long *out)
{
    size_t n;
    const char *v = pmic_resp_get(r, key, &n);
    if (!v)
        return 0;
    pmc_slice s = { v, n };
    return pmc_parse_int(s, out) == 0 ? 1 : -1;
}

int pmic_resp_bool(const pmic_resp *r, const char *key, bool *out)
{
    size_t n;
    const char *v = pmic_resp_get(r, key, &n);
    if (!v)
        return 0;
    pmc_slice s = { v, n };
    /* BOOL-2: any mix of case. */
    return pmc_parse_bool(s, out, NULL) == 0 ? 1 : -1;
}

bool pmic_resp_ok(const pmic_resp *r)
{
    long long rc;
    int g = pmic_resp_int(r, "rc", &rc);
    if (g == 0)
        return true; /* RC-3 */
    return g == 1 && rc == 0;
}

bool pmic_resp_found(const pmic_resp *r)
{
    /* KVS-5: rc=0;found=FALSE and rc!=0 without found both mean "not there";
     * KVS-7: the draft spells it flag. */
    if (!pmic_resp_ok(r))
        return false;
    bool f;
    int g = pmic_resp_bool(r, "found", &f);
    if (g == 0)
        g = pmic_resp_bool(r, "flag", &f);
    if (g == 1)
        return f;
    if (g < 0)
        return false;
    /* rc=0 and no indicator: found when a value came with it. */
    return pmic_resp_get(r, "value", NULL) != NULL;
}
