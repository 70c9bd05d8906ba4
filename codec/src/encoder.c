/* Encoder: a pair-by-pair builder and the writer that turns pairs into wire
 * bytes for one dialect (v2 frames with continuations, v1 lines, v1 mcmd
 * blocks).
 *
 * The writer validates and measures every pair first and writes second, so
 * an unrepresentable pair leaves `out` untouched.  The hot path is memcpy
 * plus memchr; length digits are written by hand (no printf). */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pmicodec/encoder.h"

enum { LEN_FIELD = 6, LEN_MAX = 999999 };

/* ------------------------------------------------------------------ */
/* Builder                                                             */

/* `fields` is NULL while the inline array is in use, so a builder holds no
 * pointer into itself for its field array. */
static pmc_field *enc_fields(pmc_enc *e)
{
    return e->fields ? e->fields : e->inl;
}

void pmc_enc_beginn(pmc_enc *e, pmc_wire wire, pmc_slice cmd)
{
    /* Only the bookkeeping is reset: clearing the inline arrays would cost
     * more than encoding a small message. */
    e->wire = wire;
    e->cmd = cmd;
    e->fields = NULL;
    e->n = 0;
    e->cap = PMC_ENC_INLINE;
    e->nnums = 0;
    e->heapnums = NULL;
    e->nheapnums = 0;
    e->failed = false;
}

void pmc_enc_begin(pmc_enc *e, pmc_wire wire, const char *cmd)
{
    pmc_enc_beginn(e, wire, pmc_slice_cstr(cmd));
}

static void add_field(pmc_enc *e, pmc_slice key, pmc_slice val, uint8_t is_bool)
{
    if (e->failed)
        return;
    if (e->n == e->cap) {
        if (e->cap > SIZE_MAX / 2 / sizeof(pmc_field)) {
            e->failed = true;
            return;
        }
        size_t ncap = e->cap * 2;
        pmc_field *nf;
        if (e->fields) {
            nf = realloc(e->fields, ncap * sizeof *nf);
        } else {
            nf = malloc(ncap * sizeof *nf);
            if (nf)
                memcpy(nf, e->inl, e->n * sizeof *nf);
        }
        if (!nf) {
            e->failed = true;
            return;
        }
        e->fields = nf;
        e->cap = ncap;
    }
    pmc_field *f = enc_fields(e) + e->n++;
    f->key = key;
    f->val = val;
    f->is_bool = is_bool;
}

void pmc_enc_slice(pmc_enc *e, pmc_slice key, pmc_slice val)
{
    add_field(e, key, val, 0);
}

void pmc_enc_str(pmc_enc *e, const char *key, const char *val)
{
    add_field(e, pmc_slice_cstr(key), pmc_slice_cstr(val), 0);
}

/* Decimal text of v into buf (at least 21 bytes); returns its length. */
static size_t fmt_ll(char *buf, long long v)
{
    char tmp[24];
    size_t n = 0, len = 0;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        buf[len++] = '-';
    while (n)
        buf[len++] = tmp[--n];
    buf[len] = '\0';
    return len;
}

static bool is_pow2(size_t x)
{
    return x && (x & (x - 1)) == 0;
}

void pmc_enc_int(pmc_enc *e, const char *key, long long v)
{
    if (e->failed)
        return;
    char *slot;
    if (e->nnums < PMC_ENC_INLINE) {
        slot = e->nums[e->nnums++];
    } else {
        /* heapnums grows by doubling; its capacity is the next power of
         * two at or above nheapnums (minimum 8). */
        size_t k = e->nheapnums;
        if (k == 0 || (k >= 8 && is_pow2(k))) {
            size_t ncap = k == 0 ? 8 : k * 2;
            char **nh = ncap > SIZE_MAX / sizeof *nh ? NULL
                                                    : realloc(e->heapnums, ncap * sizeof *nh);
            if (!nh) {
                e->failed = true;
                return;
            }
            e->heapnums = nh;
        }
        slot = malloc(24);
        if (!slot) {
            e->failed = true;
            return;
        }
        e->heapnums[e->nheapnums++] = slot;
    }
    size_t len = fmt_ll(slot, v);
    add_field(e, pmc_slice_cstr(key), (pmc_slice){ slot, len }, 0);
}

void pmc_enc_bool(pmc_enc *e, const char *key, bool v)
{
    add_field(e, pmc_slice_cstr(key), v ? PMC_SLICE_LIT("TRUE") : PMC_SLICE_LIT("FALSE"), 1);
}

static void enc_release(pmc_enc *e)
{
    if (e->heapnums) {
        for (size_t i = 0; i < e->nheapnums; i++)
            free(e->heapnums[i]);
        free(e->heapnums);
    }
    if (e->fields)
        free(e->fields);
    e->heapnums = NULL;
    e->nheapnums = 0;
    e->nnums = 0;
    e->fields = NULL;
    e->n = 0;
    e->cap = PMC_ENC_INLINE;
}

void pmc_enc_abandon(pmc_enc *e)
{
    enc_release(e);
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */

/* A printable excerpt of s for error details: at most 24 bytes, bytes
 * outside printable ASCII shown as '?'. */
static const char *excerpt(pmc_slice s, char buf[32])
{
    size_t n = s.len < 24 ? s.len : 24, j = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        buf[j++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (s.len > n) {
        buf[j++] = '.';
        buf[j++] = '.';
        buf[j++] = '.';
    }
    buf[j] = '\0';
    return buf;
}

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static int enc_fail(pmc_error *err, pmc_errcode code, pmc_wire wire, pmc_slice cmd,
                    const char *fmt, ...)
{
    if (!err)
        return -1;
    char detail[sizeof err->detail];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    /* Encoding has no stream: the offset is 0 and the detail names the pair. */
    pmc_error_set(err, code, 0, "%s", detail);
    err->wire = wire;
    err->cmd = cmd;
    return -1;
}

/* ------------------------------------------------------------------ */
/* Field sources: builder fields or the pairs of a decoded message      */

typedef struct src {
    const pmc_field *f; /* exactly one of f / p is set */
    const pmc_pair *p;
    size_t n;
} src;

static pmc_slice src_key(const src *s, size_t i)
{
    return s->f ? s->f[i].key : s->p[i].key;
}

static pmc_slice src_val(const src *s, size_t i, const pmc_dialect *d)
{
    if (s->f) {
        const pmc_field *f = &s->f[i];
        if (f->is_bool && d->bool_lower)
            return (f->val.len == 4) ? PMC_SLICE_LIT("true") : PMC_SLICE_LIT("false");
        return f->val;
    }
    /* A bare key (PMC_PAIR_BARE) has an empty value: written as "key=". */
    return s->p[i].val;
}

/* Output order: the first rc / thrid may be moved to the front or the back.
 * pos -> field index without building a permutation array. */
typedef struct order {
    size_t n;
    size_t head[2], nhead;
    size_t tail[2], ntail;
    size_t moved[2], nmoved; /* ascending */
} order;

static bool is_rc(pmc_slice k)
{
    return k.len == 2 && k.ptr[0] == 'r' && k.ptr[1] == 'c';
}

static bool is_thrid(pmc_slice k)
{
    return k.len == 5 && memcmp(k.ptr, "thrid", 5) == 0;
}

static size_t find_key(const src *s, bool (*match)(pmc_slice))
{
    for (size_t i = 0; i < s->n; i++)
        if (match(src_key(s, i)))
            return i;
    return SIZE_MAX;
}

static void order_init(order *o, const src *s, const pmc_dialect *d)
{
    o->n = s->n;
    o->nhead = o->ntail = o->nmoved = 0;
    /* Any value other than FIRST / LAST (KEEP or out of range) keeps the key. */
    bool rc_moves = d->rc_pos == PMC_POS_FIRST || d->rc_pos == PMC_POS_LAST;
    bool th_moves = d->thrid_pos == PMC_POS_FIRST || d->thrid_pos == PMC_POS_LAST;
    size_t rc = rc_moves ? find_key(s, is_rc) : SIZE_MAX;
    size_t th = th_moves ? find_key(s, is_thrid) : SIZE_MAX;
    /* Both first: thrid, then rc (Hydra echoes thrid right after cmd=).
     * Both last: rc, then thrid (the MPICH >= 4.1 client appends thrid). */
    if (th != SIZE_MAX && d->thrid_pos == PMC_POS_FIRST)
        o->head[o->nhead++] = th;
    if (rc != SIZE_MAX && d->rc_pos == PMC_POS_FIRST)
        o->head[o->nhead++] = rc;
    if (rc != SIZE_MAX && d->rc_pos == PMC_POS_LAST)
        o->tail[o->ntail++] = rc;
    if (th != SIZE_MAX && d->thrid_pos == PMC_POS_LAST)
        o->tail[o->ntail++] = th;
    if (rc != SIZE_MAX)
        o->moved[o->nmoved++] = rc;
    if (th != SIZE_MAX)
        o->moved[o->nmoved++] = th;
    if (o->nmoved == 2 && o->moved[0] > o->moved[1]) {
        size_t t = o->moved[0];
        o->moved[0] = o->moved[1];
        o->moved[1] = t;
    }
}

static size_t order_at(const order *o, size_t k)
{
    if (o->nmoved == 0)
        return k;
    if (k < o->nhead)
        return o->head[k];
    if (k >= o->n - o->ntail)
        return o->tail[k - (o->n - o->ntail)];
    size_t j = k - o->nhead;
    for (size_t m = 0; m < o->nmoved; m++)
        if (o->moved[m] <= j)
            j++;
    return j;
}

/* ------------------------------------------------------------------ */
/* Validation and measurement                                          */

/* Keys and command names: [-_A-Za-z0-9]{1,64} (SPEC KEY-1, BODY-1), the
 * decoder's own class. */
static bool name_char_ok(unsigned char c)
{
    return pmc_wordchar[c] != 0;
}

static int check_cmd(pmc_wire wire, pmc_slice cmd, pmc_error *err)
{
    char x[32];
    if (wire != PMC_WIRE_V1 && wire != PMC_WIRE_V1_MCMD && wire != PMC_WIRE_V2)
        return enc_fail(err, PMC_E_ENC_STATE, wire, cmd,
                        "builder not begun: expected wire v1, v1-mcmd or v2, found %d",
                        (int)wire);
    if (cmd.len == 0 || !cmd.ptr)
        return enc_fail(err, PMC_E_ENC_VALUE, wire, cmd,
                        "empty command name: expected [-_A-Za-z0-9]+");
    if (cmd.len > PMC_ENC_MAX_NAME)
        return enc_fail(err, PMC_E_ENC_VALUE, wire, cmd,
                        "command name \"%s\" has %zu bytes; at most %d", excerpt(cmd, x),
                        cmd.len, PMC_ENC_MAX_NAME);
    for (size_t i = 0; i < cmd.len; i++)
        if (!name_char_ok((unsigned char)cmd.ptr[i]))
            return enc_fail(err, PMC_E_ENC_VALUE, wire, cmd,
                            "command name \"%s\" byte %zu: expected [-_A-Za-z0-9]",
                            excerpt(cmd, x), i);
    if (wire == PMC_WIRE_V1_MCMD && !pmc_slice_eq(cmd, "spawn"))
        return enc_fail(err, PMC_E_ENC_VALUE, wire, cmd,
                        "mcmd block for \"%s\": only spawn is written as an mcmd block "
                        "(V1-16)",
                        excerpt(cmd, x));
    if (wire == PMC_WIRE_V2 && pmc_slice_eq(cmd, "concat"))
        return enc_fail(err, PMC_E_ENC_VALUE, wire, cmd,
                        "command \"concat\" is reserved for continuation frames "
                        "the encoder writes itself");
    return 0;
}

/* ';' and NUL: the bytes a v2 value needs attention for (escaping, refusal). */
static const uint8_t v2_special[256] = { [0] = 1, [';'] = 1 };

static const char *byte_name(char c, char buf[8])
{
    switch (c) {
    case '\0': return "NUL";
    case '\n': return "'\\n'";
    case '\r': return "'\\r'";
    case ' ': return "' '";
    default:
        snprintf(buf, 8, "'%c'", c);
        return buf;
    }
}

/* Scan a v2 value: number of ';' in *semis; index of a NUL or SIZE_MAX.
 * Short values: one table-driven pass; long ones: memchr (vectorised). */
static size_t scan_v2_value(pmc_slice v, size_t *semis, size_t *first_semi)
{
    size_t n = 0, nul = SIZE_MAX;
    *first_semi = SIZE_MAX;
    if (v.len < 64) {
        for (size_t i = 0; i < v.len; i++) {
            if (v2_special[(unsigned char)v.ptr[i]]) {
                if (v.ptr[i] == '\0')
                    return i;
                if (n++ == 0)
                    *first_semi = i;
            }
        }
    } else {
        const char *z = memchr(v.ptr, '\0', v.len);
        if (z)
            nul = (size_t)(z - v.ptr);
        const char *p = memchr(v.ptr, ';', v.len);
        if (p)
            *first_semi = (size_t)(p - v.ptr);
        while (p) {
            n++;
            size_t off = (size_t)(p - v.ptr) + 1;
            p = memchr(v.ptr + off, ';', v.len - off);
        }
    }
    *semis = n;
    return nul;
}

/* Checks pair i and returns its encoded size (v2: "k=v;", v1: " k=v",
 * mcmd: "k=v\n"), or SIZE_MAX with *err filled.  *semis gets the number of
 * ';' that v2 escaping doubles. */
static size_t measure_pair(pmc_wire wire, pmc_slice cmd, const src *s, size_t i,
                           const pmc_dialect *d, size_t *semis, pmc_error *err)
{
    pmc_slice k = src_key(s, i), v = src_val(s, i, d);
    char x[32], b[8];
    *semis = 0;

    if (k.len == 0 || !k.ptr) {
        enc_fail(err, PMC_E_ENC_KEY, wire, cmd, "pair %zu: empty key", i);
        return SIZE_MAX;
    }
    if (k.len > PMC_ENC_MAX_NAME) {
        enc_fail(err, PMC_E_ENC_KEY, wire, cmd,
                 "pair %zu: key \"%s\" has %zu bytes; keys have at most %d (KEY-1)", i,
                 excerpt(k, x), k.len, PMC_ENC_MAX_NAME);
        return SIZE_MAX;
    }
    for (size_t j = 0; j < k.len; j++) {
        if (!name_char_ok((unsigned char)k.ptr[j])) {
            enc_fail(err, PMC_E_ENC_KEY, wire, cmd,
                     "pair %zu: key \"%s\" has %s at byte %zu; keys are [-_A-Za-z0-9] "
                     "(KEY-1)",
                     i, excerpt(k, x), byte_name(k.ptr[j], b), j);
            return SIZE_MAX;
        }
    }

    if (!v.ptr && v.len) {
        enc_fail(err, PMC_E_ENC_STATE, wire, cmd, "pair %zu (%s): NULL value of length %zu",
                 i, excerpt(k, x), v.len);
        return SIZE_MAX;
    }

    if (wire == PMC_WIRE_V2) {
        if (k.len >= 6 && k.ptr[0] == 'c' &&
            (pmc_slice_eq(k, "concat") || pmc_slice_eq(k, "concatid"))) {
            enc_fail(err, PMC_E_ENC_KEY, wire, cmd,
                     "pair %zu: key \"%s\" is reserved for continuation markers", i,
                     excerpt(k, x));
            return SIZE_MAX;
        }
        size_t n, first;
        size_t nul = scan_v2_value(v, &n, &first);
        if (nul != SIZE_MAX) {
            enc_fail(err, PMC_E_ENC_VALUE, wire, cmd,
                     "pair %zu (%s): NUL at byte %zu of the value; peers truncate values "
                     "at NUL",
                     i, excerpt(k, x), nul);
            return SIZE_MAX;
        }
        if (n && !d->escape_semi) {
            enc_fail(err, PMC_E_ENC_VALUE, wire, cmd,
                     "pair %zu (%s): ';' at byte %zu of the value and dialect %s does not "
                     "escape it as ';;'",
                     i, excerpt(k, x), first, d->name ? d->name : "?");
            return SIZE_MAX;
        }
        *semis = n;
        return k.len + 1 + v.len + n + 1;
    }

    if (v.len && memchr(v.ptr, '\0', v.len)) {
        enc_fail(err, PMC_E_ENC_VALUE, wire, cmd,
                 "pair %zu (%s): NUL in the value; peers truncate values at NUL", i,
                 excerpt(k, x));
        return SIZE_MAX;
    }

    if (wire == PMC_WIRE_V1) {
        size_t extra = 0;
        for (size_t j = 0; j < v.len; j++) {
            char c = v.ptr[j];
            if (c == '\n' || c == '\r') {
                enc_fail(err, PMC_E_ENC_VALUE, wire, cmd,
                         "pair %zu (%s): %s at byte %zu of the value cannot be written in a "
                         "v1 line",
                         i, excerpt(k, x), byte_name(c, b), j);
                return SIZE_MAX;
            }
            if (c == ' ' || c == '\\') {
                if (d->v1_backslash) {
                    extra++;
                } else if (c == ' ') {
                    enc_fail(err, PMC_E_ENC_VALUE, wire, cmd,
                             "pair %zu (%s): ' ' at byte %zu of the value and dialect %s "
                             "has no v1 backslash escapes",
                             i, excerpt(k, x), j, d->name ? d->name : "?");
                    return SIZE_MAX;
                }
            }
        }
        return 1 + k.len + 1 + v.len + extra;
    }

    /* mcmd: the value runs to the LF, spaces included (V1-15). */
    for (size_t j = 0; j < v.len; j++) {
        if (v.ptr[j] == '\n' || v.ptr[j] == '\r') {
            enc_fail(err, PMC_E_ENC_VALUE, wire, cmd,
                     "pair %zu (%s): %s at byte %zu of the value cannot be written in an "
                     "mcmd line",
                     i, excerpt(k, x), byte_name(v.ptr[j], b), j);
            return SIZE_MAX;
        }
    }
    return k.len + 1 + v.len + 1;
}

/* ------------------------------------------------------------------ */
/* Writers                                                             */

static char *put(char *p, const void *s, size_t n)
{
    memcpy(p, s, n);
    return p + n;
}

static char *put_len(char *p, size_t v, pmc_len_pad pad)
{
    char dig[LEN_FIELD];
    size_t nd = 0;
    do {
        dig[LEN_FIELD - 1 - nd++] = (char)('0' + v % 10);
        v /= 10;
    } while (v && nd < LEN_FIELD);
    const char *d = dig + LEN_FIELD - nd;
    size_t fill = LEN_FIELD - nd;
    if (pad == PMC_PAD_LEFT) {
        memcpy(p, d, nd);
        memset(p + nd, ' ', fill);
    } else {
        memset(p, pad == PMC_PAD_ZERO ? '0' : ' ', fill);
        memcpy(p + fill, d, nd);
    }
    return p + LEN_FIELD;
}

static char *put_semi_escaped(char *p, pmc_slice v)
{
    const char *s = v.ptr;
    size_t n = v.len;
    while (n) {
        const char *q = memchr(s, ';', n);
        if (!q)
            return put(p, s, n);
        size_t k = (size_t)(q - s) + 1;
        p = put(p, s, k);
        *p++ = ';';
        s += k;
        n -= k;
    }
    return p;
}

static char *put_v2_pair(char *p, const src *s, size_t i, const pmc_dialect *d, bool escape)
{
    pmc_slice k = src_key(s, i), v = src_val(s, i, d);
    p = put(p, k.ptr, k.len);
    *p++ = '=';
    if (escape)
        p = put_semi_escaped(p, v);
    else if (v.len)
        p = put(p, v.ptr, v.len);
    *p++ = ';';
    return p;
}

/* One v2 frame: the length field, `pre` (cmd=...;), pairs [from, to) in
 * output order, `post` (concat=<id>; or nothing), then the junk bytes. */
static int write_frame(pmc_out *out, const pmc_dialect *d, pmc_slice pre1, pmc_slice pre2,
                       pmc_slice pre3, const src *s, const order *o, size_t from, size_t to,
                       pmc_slice post, size_t body, bool escape)
{
    size_t total = LEN_FIELD + body + d->junk;
    if (pmc_out_reserve(out, total) != 0)
        return -1;
    char *p = out->buf + out->len, *start = p;
    p = put_len(p, body + d->junk, d->len_pad);
    p = put(p, pre1.ptr, pre1.len);
    p = put(p, pre2.ptr, pre2.len);
    p = put(p, pre3.ptr, pre3.len);
    for (size_t k = from; k < to; k++)
        p = put_v2_pair(p, s, order_at(o, k), d, escape);
    if (post.len)
        p = put(p, post.ptr, post.len);
    /* Deterministic junk (NUL bytes) so traces reproduce; see bug B1. */
    if (d->junk) {
        memset(p, 0, d->junk);
        p += d->junk;
    }
    out->len += (size_t)(p - start);
    return (size_t)(p - start) == total ? 0 : 1;
}

static atomic_ullong concat_counter = 1;

static int encode_v2(pmc_slice cmd, const src *s, const order *o, size_t total_pairs,
                     bool escape, const pmc_dialect *d, pmc_out *out, pmc_error *err)
{
    const pmc_wire w = PMC_WIRE_V2;
    size_t limit = d->max_frame ? d->max_frame : LEN_MAX;
    if (limit > LEN_MAX)
        limit = LEN_MAX;
    /* The length field claims body + junk; both must fit the limit. */
    size_t blimit = d->junk < limit ? limit - d->junk : 0;
    size_t head = 4 + cmd.len + 1;
    pmc_slice cmdeq = PMC_SLICE_LIT("cmd="), semi = PMC_SLICE_LIT(";"), none = { "", 0 };

    if (head + total_pairs <= blimit) {
        int r = write_frame(out, d, cmdeq, cmd, semi, s, o, 0, o->n, none, head + total_pairs,
                            escape);
        if (r < 0)
            return enc_fail(err, PMC_E_NOMEM, w, cmd, "out of memory growing the output");
        if (r > 0)
            return enc_fail(err, PMC_E_INTERNAL, w, cmd, "frame size mismatch");
        return 0;
    }

    /* Continuations, pair level: every frame but the last ends with
     * concat=<id>; every continuation starts cmd=concat;concatid=<id>; */
    unsigned long long id = atomic_fetch_add_explicit(&concat_counter, 1, memory_order_relaxed);
    char idtxt[24], post_buf[40], cont_buf[48];
    size_t idlen = fmt_ll(idtxt, (long long)(id & 0x7fffffffffffffffULL));
    memcpy(post_buf, "concat=", 7);
    memcpy(post_buf + 7, idtxt, idlen);
    post_buf[7 + idlen] = ';';
    pmc_slice post = { post_buf, 7 + idlen + 1 };
    memcpy(cont_buf, "cmd=concat;concatid=", 20);
    memcpy(cont_buf + 20, idtxt, idlen);
    cont_buf[20 + idlen] = ';';
    pmc_slice cont = { cont_buf, 20 + idlen + 1 };

    size_t k = 0, rest = total_pairs, fhead = head;
    bool first = true;
    char x[32];
    for (;;) {
        pmc_slice p1 = first ? cmdeq : cont, p2 = first ? cmd : none, p3 = first ? semi : none;
        if (fhead + rest <= blimit) {
            int r = write_frame(out, d, p1, p2, p3, s, o, k, o->n, none, fhead + rest, escape);
            if (r < 0)
                return enc_fail(err, PMC_E_NOMEM, w, cmd, "out of memory growing the output");
            if (r > 0)
                return enc_fail(err, PMC_E_INTERNAL, w, cmd, "frame size mismatch");
            return 0;
        }
        size_t size = fhead + post.len, j = k, sum = 0;
        while (j < o->n) {
            size_t semis;
            size_t ps = measure_pair(w, cmd, s, order_at(o, j), d, &semis, err);
            if (ps == SIZE_MAX)
                return -1; /* cannot happen: every pair was checked already */
            if (size + ps > blimit)
                break;
            size += ps;
            sum += ps;
            j++;
        }
        if (j == k && k == o->n)
            return enc_fail(err, PMC_E_ENC_TOO_LARGE, w, cmd,
                            "the command alone does not fit a %zu-byte frame", limit);
        if (j == k)
            return enc_fail(err, PMC_E_ENC_TOO_LARGE, w, cmd,
                            "pair %zu (%s) does not fit a %zu-byte frame even alone with the "
                            "continuation markers",
                            order_at(o, k), excerpt(src_key(s, order_at(o, k)), x), limit);
        int r = write_frame(out, d, p1, p2, p3, s, o, k, j, post, size, escape);
        if (r < 0)
            return enc_fail(err, PMC_E_NOMEM, w, cmd, "out of memory growing the output");
        if (r > 0)
            return enc_fail(err, PMC_E_INTERNAL, w, cmd, "frame size mismatch");
        rest -= sum;
        k = j;
        fhead = cont.len;
        first = false;
    }
}

static char *put_v1_value(char *p, pmc_slice v, bool backslash)
{
    if (!backslash)
        return v.len ? put(p, v.ptr, v.len) : p;
    for (size_t i = 0; i < v.len; i++) {
        if (v.ptr[i] == ' ' || v.ptr[i] == '\\')
            *p++ = '\\';
        *p++ = v.ptr[i];
    }
    return p;
}

static int encode_v1(pmc_wire w, pmc_slice cmd, const src *s, const order *o, size_t pairs,
                     const pmc_dialect *d, pmc_out *out, pmc_error *err)
{
    bool mcmd = w == PMC_WIRE_V1_MCMD;
    /* v1: "cmd=" name {" k=v"} "\n";  mcmd: "mcmd=" name "\n" {"k=v\n"} "endcmd\n" */
    size_t total = mcmd ? 5 + cmd.len + 1 + pairs + 7 : 4 + cmd.len + pairs + 1;
    if (pmc_out_reserve(out, total) != 0)
        return enc_fail(err, PMC_E_NOMEM, w, cmd, "out of memory growing the output");
    char *p = out->buf + out->len, *start = p;
    p = mcmd ? put(p, "mcmd=", 5) : put(p, "cmd=", 4);
    p = put(p, cmd.ptr, cmd.len);
    if (mcmd)
        *p++ = '\n';
    for (size_t k = 0; k < o->n; k++) {
        size_t i = order_at(o, k);
        pmc_slice key = src_key(s, i), v = src_val(s, i, d);
        if (!mcmd)
            *p++ = ' ';
        p = put(p, key.ptr, key.len);
        *p++ = '=';
        p = put_v1_value(p, v, !mcmd && d->v1_backslash);
        if (mcmd)
            *p++ = '\n';
    }
    p = mcmd ? put(p, "endcmd\n", 7) : put(p, "\n", 1);
    if ((size_t)(p - start) != total)
        return enc_fail(err, PMC_E_INTERNAL, w, cmd, "line size mismatch");
    out->len += total;
    return 0;
}

static int encode(pmc_wire wire, pmc_slice cmd, const src *s, const pmc_dialect *d,
                  pmc_out *out, pmc_error *err)
{
    if (!d)
        d = &pmc_dialect_strict;
    if (!out)
        return enc_fail(err, PMC_E_ENC_STATE, wire, cmd, "no output buffer");
    if (check_cmd(wire, cmd, err) != 0)
        return -1;
    size_t pairs = 0, nsemis = 0;
    for (size_t i = 0; i < s->n; i++) {
        size_t semis;
        size_t ps = measure_pair(wire, cmd, s, i, d, &semis, err);
        if (ps == SIZE_MAX)
            return -1;
        pairs += ps;
        nsemis += semis;
    }
    order o;
    order_init(&o, s, d);
    size_t len0 = out->len;
    /* Escaping costs a memchr per value: skip it when no value has a ';'. */
    int r = wire == PMC_WIRE_V2 ? encode_v2(cmd, s, &o, pairs, nsemis > 0, d, out, err)
                                : encode_v1(wire, cmd, s, &o, pairs, d, out, err);
    if (r != 0)
        out->len = len0; /* nothing half-written stays behind */
    return r;
}

int pmc_enc_end(pmc_enc *e, const pmc_dialect *d, pmc_out *out, pmc_error *err)
{
    int r;
    if (e->failed) {
        r = enc_fail(err, PMC_E_NOMEM, e->wire, e->cmd,
                     "out of memory while adding pairs to the builder");
    } else {
        src s = { enc_fields(e), NULL, e->n };
        r = encode(e->wire, e->cmd, &s, d, out, err);
    }
    enc_release(e);
    return r;
}

int pmc_encode_msg(const pmc_msg *m, const pmc_dialect *d, pmc_out *out, pmc_error *err)
{
    if (!m)
        return enc_fail(err, PMC_E_ENC_STATE, PMC_WIRE_NONE, (pmc_slice){ NULL, 0 },
                        "no message");
    if (m->npairs && !m->pairs)
        return enc_fail(err, PMC_E_ENC_STATE, m->wire, m->name, "message has no pair array");
    src s = { NULL, m->pairs, m->npairs };
    return encode(m->wire, m->name, &s, d, out, err);
}
