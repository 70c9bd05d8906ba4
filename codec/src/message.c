/* Reading values out of a decoded message. */
#include "internal.h"

#include <limits.h>

const pmc_pair *pmc_msg_findn(const pmc_msg *m, const char *key, size_t keylen)
{
    for (size_t i = 0; i < m->npairs; i++) {
        const pmc_pair *p = &m->pairs[i];
        if (p->key.len == keylen && memcmp(p->key.ptr, key, keylen) == 0)
            return p;
    }
    return NULL;
}

const pmc_pair *pmc_msg_find(const pmc_msg *m, const char *key)
{
    return pmc_msg_findn(m, key, strlen(key));
}

static bool in_raw(const pmc_msg *m, pmc_slice s)
{
    return s.ptr >= m->raw.ptr && s.ptr + s.len <= m->raw.ptr + m->raw.len;
}

size_t pmc_msg_join_bare_keys(const pmc_msg *m, pmc_pair *out)
{
    size_t n = 0;
    for (size_t i = 0; i < m->npairs; i++) {
        pmc_pair pr = m->pairs[i];
        pmc_pair *b = n ? &out[n - 1] : NULL;
        if (b && (b->flags & PMC_PAIR_BARE) && in_raw(m, b->key) && in_raw(m, pr.key) &&
            pr.key.ptr > b->key.ptr) {
            /* the key runs from the bare token over its ';' to this key's end */
            b->key.len = (size_t)(pr.key.ptr + pr.key.len - b->key.ptr);
            b->val = pr.val;
            b->flags = pr.flags;
            continue;
        }
        out[n++] = pr;
    }
    return n;
}

bool pmc_msg_get(const pmc_msg *m, const char *key, pmc_slice *out)
{
    const pmc_pair *p = pmc_msg_find(m, key);
    if (!p)
        return false;
    if (out)
        *out = p->val;
    return true;
}

int pmc_parse_int(pmc_slice s, long long *out)
{
    /* optional '-', then decimal digits; no '+', no spaces, no overflow */
    size_t i = 0;
    bool neg = false;
    if (s.len && s.ptr[0] == '-') {
        neg = true;
        i = 1;
    }
    if (i == s.len)
        return -1;
    unsigned long long v = 0;
    unsigned long long lim = neg ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX;
    for (; i < s.len; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        if (c < '0' || c > '9')
            return -1;
        unsigned d = c - '0';
        if (v > (lim - d) / 10)
            return -1; /* overflow */
        v = v * 10 + d;
    }
    if (out)
        *out = neg ? (long long)(0 - v) : (long long)v;
    return 0;
}

static bool ieq(pmc_slice s, const char *w)
{
    size_t n = strlen(w);
    if (s.len != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s.ptr[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != w[i])
            return false;
    }
    return true;
}

int pmc_parse_bool(pmc_slice s, bool *out, bool *lower)
{
    /* TRUE/FALSE is what everyone sends; any other case is accepted (the
     * draft wrote true/false) and reported as non-canonical. */
    bool v;
    if (ieq(s, "true"))
        v = true;
    else if (ieq(s, "false"))
        v = false;
    else
        return -1;
    if (out)
        *out = v;
    if (lower)
        *lower = !(pmc_slice_eq(s, "TRUE") || pmc_slice_eq(s, "FALSE"));
    return 0;
}

int pmc_msg_get_int(const pmc_msg *m, const char *key, long long *out)
{
    const pmc_pair *p = pmc_msg_find(m, key);
    if (!p)
        return 0;
    return pmc_parse_int(p->val, out) == 0 ? 1 : -1;
}

int pmc_msg_get_bool(const pmc_msg *m, const char *key, bool *out, bool *lower)
{
    const pmc_pair *p = pmc_msg_find(m, key);
    if (!p)
        return 0;
    return pmc_parse_bool(p->val, out, lower) == 0 ? 1 : -1;
}

size_t pmc_slice_copy(pmc_slice s, char *buf, size_t n)
{
    if (n) {
        size_t c = s.len < n - 1 ? s.len : n - 1;
        if (c)
            memcpy(buf, s.ptr, c);
        buf[c] = 0;
    }
    return s.len;
}
