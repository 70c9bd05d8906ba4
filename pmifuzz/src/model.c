/* Decoding an input into items and writing items back, both through the
 * codec: nothing here reads or writes wire syntax itself. */
#include "model.h"

#include <stdlib.h>
#include <string.h>

#include "damage.h"

void pf_decoder_opts(pmc_decoder_opts *o)
{
    pmc_decoder_opts_default(o);
    /* every dialect's input: atoi lengths, Hydra's empty keys, ';;' escapes;
     * continuation frames kept apart so each can be mutated */
    o->flags = PMC_DEC_SEMI_ESCAPE | PMC_DEC_EMPTY_KEYS | PMC_DEC_LEN_ATOI | PMC_DEC_NO_CONCAT;
    o->strict = 0;
    /* limits far above any real peer's, so an input already past them still
     * decodes and can be pushed further */
    o->limits = (pmc_limits){ .max_key = 1u << 16, .max_val = 1u << 20, .max_pairs = 1u << 20,
                              .max_frame = 999999, .max_line = 1u << 24,
                              .max_message = 1u << 24, .max_junk = 64 };
}

/* The dialect a decoded message most likely came in, from what the decoder noted. */
static const pmc_dialect *guess_dialect(const pmc_msg *m)
{
    if (m->notes & PMC_NOTE_TRAILING_JUNK)
        return pmc_dialect_get("mpich-4.0-client");
    if (m->notes & PMC_NOTE_LEN_LEFT)
        return pmc_dialect_get("slurm");
    if (m->notes & PMC_NOTE_V1_BACKSLASH)
        return pmc_dialect_get("mpich-4.1-client");
    return pmc_dialect_get("hydra-4.1");
}

static pf_item *grow(pf_stream *s)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        pf_item *p = realloc(s->it, cap * sizeof *p);
        if (!p)
            return NULL;
        s->it = p;
        s->cap = cap;
    }
    return &s->it[s->n];
}

static int add_raw(pf_stream *s, const char *p, size_t n)
{
    if (!n)
        return 0;
    pf_item *it = grow(s);
    if (!it)
        return -1;
    *it = (pf_item){ .raw = pf_arena_dup(&s->arena, p, n) };
    s->n++;
    return 0;
}

static int add_msg(pf_stream *s, const pmc_msg *m)
{
    pf_item *it = grow(s);
    if (!it)
        return -1;
    *it = (pf_item){ .is_msg = 1, .wire = m->wire, .dialect = guess_dialect(m) };
    it->name = pf_arena_dup(&s->arena, m->name.ptr, m->name.len);
    it->raw = pf_arena_dup(&s->arena, m->raw.ptr, m->raw.len);
    s->n++;
    s->nmsg++;
    for (size_t i = 0; i < m->npairs; i++) {
        const pmc_pair *p = &m->pairs[i];
        if (pf_item_add(s, it, it->n, p->key, p->val) != 0)
            return -1;
    }
    return 0;
}

int pf_stream_decode(pf_stream *s, const uint8_t *data, size_t size)
{
    memset(s, 0, sizeof *s);
    pmc_decoder_opts o;
    pf_decoder_opts(&o);
    pmc_decoder *d = pmc_decoder_new(&o);
    if (!d)
        return -1;
    const char *buf = (const char *)data;
    size_t pos = 0;
    int rc = 0;
    while (pos < size && rc == 0) {
        pmc_msg m;
        pmc_error err;
        size_t used = 0;
        int r = pmc_decode_buffer(d, buf + pos, size - pos, pos, &m, &err, &used);
        if (r == PMC_MSG) {
            rc = add_msg(s, &m);
        } else if (r == PMC_ERR && !err.fatal && used > 0) {
            rc = add_raw(s, buf + pos, used); /* a skipped message: kept as bytes */
        } else {
            rc = add_raw(s, buf + pos, size - pos); /* cut off or fatal: the rest as bytes */
            used = size - pos;
        }
        pos += used;
    }
    pmc_decoder_free(d);
    return rc;
}

void pf_stream_free(pf_stream *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->it[i].kv);
    free(s->it);
    pf_arena_free(&s->arena);
    memset(s, 0, sizeof *s);
}

pf_item *pf_stream_insert(pf_stream *s, size_t pos, const pf_item *src)
{
    pf_item copy = *src; /* src may lie in s->it, which grow() moves */
    const pf_kv *kv = copy.kv; /* the pairs are on the heap: they stay put */
    if (!grow(s))
        return NULL;
    if (pos > s->n)
        pos = s->n;
    size_t n = copy.n;
    copy.kv = NULL;
    copy.n = copy.cap = 0;
    if (n) {
        copy.kv = malloc(n * sizeof *copy.kv);
        if (!copy.kv)
            return NULL;
        memcpy(copy.kv, kv, n * sizeof *copy.kv);
        copy.n = copy.cap = n;
    }
    memmove(&s->it[pos + 1], &s->it[pos], (s->n - pos) * sizeof *s->it);
    s->it[pos] = copy;
    s->n++;
    s->nmsg += copy.is_msg;
    return &s->it[pos];
}

void pf_stream_remove(pf_stream *s, size_t pos)
{
    if (pos >= s->n)
        return;
    s->nmsg -= s->it[pos].is_msg;
    free(s->it[pos].kv);
    memmove(&s->it[pos], &s->it[pos + 1], (s->n - pos - 1) * sizeof *s->it);
    s->n--;
}

size_t pf_stream_msg_index(const pf_stream *s, size_t k)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->it[i].is_msg && k-- == 0)
            return i;
    return s->n;
}

pf_item *pf_stream_pick_msg(pf_stream *s, pf_rng *r, size_t *pos)
{
    if (!s->nmsg)
        return NULL;
    size_t k = pf_below(r, s->nmsg);
    if (s->focus && pf_chance(r, 1, 2)) {
        k = s->focus - 1 + pf_below(r, 2);
        if (k >= s->nmsg)
            k = s->nmsg - 1;
    }
    for (size_t i = 0; i < s->n; i++)
        if (s->it[i].is_msg && k-- == 0) {
            if (pos)
                *pos = i;
            return &s->it[i];
        }
    return NULL;
}

int pf_item_add(pf_stream *s, pf_item *it, size_t pos, pmc_slice key, pmc_slice val)
{
    if (it->n == it->cap) {
        size_t cap = it->cap ? 2 * it->cap : 8;
        pf_kv *p = realloc(it->kv, cap * sizeof *p);
        if (!p)
            return -1;
        it->kv = p;
        it->cap = cap;
    }
    if (pos > it->n)
        pos = it->n;
    memmove(&it->kv[pos + 1], &it->kv[pos], (it->n - pos) * sizeof *it->kv);
    it->kv[pos].key = pf_arena_dup(&s->arena, key.ptr, key.len);
    it->kv[pos].val = pf_arena_dup(&s->arena, val.ptr, val.len);
    it->n++;
    return 0;
}

void pf_item_del(pf_item *it, size_t pos)
{
    if (pos >= it->n)
        return;
    memmove(&it->kv[pos], &it->kv[pos + 1], (it->n - pos - 1) * sizeof *it->kv);
    it->n--;
}

/* Encode it's pairs (skip[i] set: left out) in dialect d. */
static int encode_with(const pf_item *it, const pmc_dialect *d, const unsigned char *skip,
                       pmc_out *out)
{
    pmc_enc e;
    pmc_error err;
    pmc_enc_beginn(&e, it->wire, it->name);
    for (size_t i = 0; i < it->n; i++)
        if (!skip || !skip[i])
            pmc_enc_slice(&e, it->kv[i].key, it->kv[i].val);
    return pmc_enc_end(&e, d, out, &err);
}

/* The encoder refuses what it cannot write canonically (a ';' with escaping
 * off, a space in a v1 value, a bad key).  Try the same dialect with every
 * escape on, then leave out each pair it cannot write on its own. */
static int encode_item(const pf_item *it, pmc_out *out)
{
    const pmc_dialect *d = it->dialect ? it->dialect : &pmc_dialect_strict;
    pmc_dialect esc = *d;
    esc.escape_semi = true;
    esc.v1_backslash = true;
    esc.max_frame = 0; /* continuation ids come from a process-wide counter: not reproducible */
    pmc_dialect plain = *d;
    plain.max_frame = 0;
    if (encode_with(it, &plain, NULL, out) == 0 || encode_with(it, &esc, NULL, out) == 0)
        return 0;
    unsigned char *skip = calloc(it->n ? it->n : 1, 1);
    if (!skip)
        return -1;
    pf_item one = *it;
    for (size_t i = 0; i < it->n; i++) {
        one.kv = &it->kv[i];
        one.n = 1;
        size_t before = out->len;
        if (encode_with(&one, &esc, NULL, out) != 0)
            skip[i] = 1;
        out->len = before;
    }
    int rc = encode_with(it, &esc, skip, out);
    free(skip);
    return rc;
}

int pf_item_encode(const pf_item *it, pmc_out *out)
{
    pmc_out tmp = { 0 };
    int rc = 0;
    if (!it->is_msg || encode_item(it, &tmp) != 0)
        rc = pmc_out_append(&tmp, it->raw.ptr, it->raw.len);
    if (rc == 0 && it->dmg != PF_DMG_NONE)
        rc = pf_damage_apply(it, &tmp);
    if (rc == 0)
        rc = pmc_out_append(out, tmp.buf, tmp.len);
    pmc_out_free(&tmp);
    return rc;
}

int pf_stream_encode(pf_stream *s, pmc_out *out)
{
    int rc = 0;
    for (size_t i = 0; i < s->n && rc == 0; i++)
        rc = pf_item_encode(&s->it[i], out);
    return rc;
}
