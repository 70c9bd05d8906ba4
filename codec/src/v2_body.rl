/* Host for the PMI-2 body grammar (grammar/pmi_v2.rl): actions and the
 * parse function.  The body is complete when this runs (the C framing code
 * delimited it), so one exec pass over it decides everything.
 *
 * Pairs are finished lazily: a value's end is only known once the byte after
 * its ';' is seen (another ';' is an escape), so a pair is pushed when the
 * next key starts or when the body ends. */
#include "internal.h"

#include <stdio.h>

enum { PH_PREFIX, PH_NAME, PH_KEY_START, PH_KEY, PH_VALUE };

typedef struct v2_parse {
    const char *body;
    uint64_t off;
    const pmc_decoder_opts *o;
    pmc_scratch *s;
    pmc_body *out;
    pmc_error *err;
    int phase;
    const char *name_start;
    const char *key_start, *key_end;
    const char *val_start, *val_end; /* val_end: the candidate terminating ';' */
    size_t escapes;                  /* ";;" pairs in the pending value */
    bool pending;                    /* a key=value pair waits to be pushed */
    bool drop;                       /* ... and is an "=value" to skip (PMC_DEC_EMPTY_KEYS) */
    bool esc;                        /* ";;" is an escape (PMC_DEC_SEMI_ESCAPE) */
    bool failed;
} v2_parse;

static uint64_t at(const v2_parse *st, const char *p)
{
    return st->off + (uint64_t)(p - st->body);
}

static void note(v2_parse *st, uint32_t bit, const char *p)
{
    pmc_body_note(st->out, st->o, bit, at(st, p));
}

static bool is_thrid(const char *k, size_t n)
{
    return n == 5 && k[0] == 't' && memcmp(k, "thrid", 5) == 0;
}

/* Push the pending key=value pair, unescaping ";;" into the arena if needed. */
static int finish_pair(v2_parse *st)
{
    if (!st->pending)
        return 0;
    st->pending = false;
    if (st->drop) {
        st->drop = false;
        return 0;
    }
    pmc_slice key = { st->key_start, (size_t)(st->key_end - st->key_start) };
    size_t raw_len = (size_t)(st->val_end - st->val_start);
    size_t vlen = raw_len - st->escapes;
    if (vlen > st->o->limits.max_val) {
        pmc_error_set(st->err, PMC_E_VAL_TOO_LONG, at(st, st->val_start),
                      "value of key '%.*s' is %zu bytes; the limit is %u", (int)(key.len > 64 ? 64 : key.len),
                      key.ptr, vlen, st->o->limits.max_val);
        return -1;
    }
    pmc_slice val = { st->val_start, raw_len };
    uint32_t flags = 0;
    if (vlen == 0)
        note(st, PMC_NOTE_EMPTY_VALUE, st->val_start);
    if (st->escapes) {
        long ao = pmc_scratch_arena(st->s, vlen);
        if (ao < 0) {
            pmc_error_set(st->err, PMC_E_NOMEM, at(st, st->val_start), "out of memory");
            return -1;
        }
        char *dst = st->s->arena + ao;
        const char *src = st->val_start, *end = st->val_end;
        while (src < end) {
            const char *semi = memchr(src, ';', (size_t)(end - src));
            size_t chunk = (size_t)((semi ? semi : end) - src);
            memcpy(dst, src, chunk);
            dst += chunk;
            if (!semi)
                break;
            *dst++ = ';';
            src = semi + 2; /* the grammar guarantees ";;" here */
        }
        val.ptr = (const char *)(uintptr_t)ao; /* fixed up when the message is complete */
        val.len = vlen;
        flags |= PMC_PAIR_UNESCAPED;
        st->out->has_unescaped = true;
        note(st, PMC_NOTE_ESCAPED_SEMI, st->val_start);
    }
    if (pmc_scratch_push(st->s, st->o, key, val, flags, at(st, st->key_start), st->err) < 0)
        return -1;
    if (!st->out->thrid.ptr && !st->out->thrid_escaped && is_thrid(key.ptr, key.len)) {
        if (st->escapes)
            st->out->thrid_escaped = true; /* its value is in the arena: see decoder.c */
        else
            st->out->thrid = val;
    }
    return 0;
}

%%{
machine pmi_v2_body;

action name_mark { st.phase = PH_NAME; st.name_start = p + 1; }
action name_end {
    st.out->name.ptr = st.name_start;
    st.out->name.len = (size_t)(p - st.name_start);
    st.phase = PH_KEY_START;
}
action key_start {
    if (finish_pair(&st) < 0) { st.failed = true; fbreak; }
    st.phase = PH_KEY;
    st.key_start = p;
}
action wskip { fexec pmc_skip_word(p + 1, pe); }
action key_odd {
    if (fc == 0) {
        pmc_error_set(st.err, PMC_E_NUL, at(&st, p), "NUL byte in a key; keys are [-_A-Za-z0-9]");
        st.failed = true;
        fbreak;
    }
    note(&st, PMC_NOTE_KEY_CHARS, p);
}
action key_end {
    st.key_end = p;
    if ((size_t)(p - st.key_start) > st.o->limits.max_key) {
        pmc_error_set(st.err, PMC_E_KEY_TOO_LONG, at(&st, st.key_start),
                      "key is %zu bytes; the limit is %u", (size_t)(p - st.key_start),
                      st.o->limits.max_key);
        st.failed = true;
        fbreak;
    }
}
action val_start {
    st.phase = PH_VALUE;
    st.val_start = p + 1;
    st.escapes = 0;
    st.pending = true;
}
action vskip {
    if (fc == 0)
        note(&st, PMC_NOTE_NUL_IN_VALUE, p);
    /* short values (a rank, a flag) end right here: skip the vector scan */
    if (p + 1 < pe && p[1] != ';' && p[1] != 0) {
        if (st.esc)
            fexec pmc_scan_v2_value_esc(p + 1, pe, &st.escapes);
        else
            fexec pmc_scan_v2_value(p + 1, pe);
    } else if (st.esc && p + 2 < pe && p[1] == ';' && p[2] == ';') {
        fexec pmc_scan_v2_value_esc(p + 1, pe, &st.escapes);
    }
}
action vsemi { st.val_end = p; st.phase = PH_KEY_START; }
action vesc { st.escapes++; st.phase = PH_VALUE; }
action bare_end {
    pmc_slice key = { st.key_start, (size_t)(p - st.key_start) };
    note(&st, PMC_NOTE_BARE_KEY, st.key_start);
    if (pmc_scratch_push(st.s, st.o, key, (pmc_slice){ p, 0 }, PMC_PAIR_BARE,
                         at(&st, st.key_start), st.err) < 0) {
        st.failed = true;
        fbreak;
    }
    st.phase = PH_KEY_START;
}
action empty_tok { note(&st, PMC_NOTE_EMPTY_TOKEN, p); }
action empty_key {
    if (!(st.o->flags & PMC_DEC_EMPTY_KEYS)) {
        pmc_error_set(st.err, PMC_E_KEY_EMPTY, at(&st, p), "'=' with no key before it");
        st.failed = true;
        fbreak;
    }
    if (finish_pair(&st) < 0) { st.failed = true; fbreak; }
    note(&st, PMC_NOTE_EMPTY_KEY, p);
    st.phase = PH_VALUE;
    st.val_start = p + 1;
    st.escapes = 0;
    st.pending = true;
    st.drop = true;
}

include pmi_v2 "pmi_v2.rl";

main := v2_body_esc;
raw := v2_body_raw;

write data;
}%%

/* Explain a grammar failure at p (or at the end when p == pe). */
static void syntax_error(v2_parse *st, const char *p, const char *pe)
{
    if (p >= pe) {
        switch (st->phase) {
        case PH_PREFIX:
            pmc_error_set(st->err, PMC_E_NO_CMD, at(st, p), "body ended before \"cmd=\"");
            break;
        case PH_NAME:
            pmc_error_set(st->err, PMC_E_UNTERMINATED, at(st, p),
                          "command name not terminated by ';'");
            break;
        case PH_KEY:
            pmc_error_set(st->err, PMC_E_UNTERMINATED, at(st, p),
                          "key '%.*s' not followed by '=' or ';'",
                          (int)((p - st->key_start) > 64 ? 64 : (p - st->key_start)), st->key_start);
            break;
        default:
            pmc_error_set(st->err, PMC_E_UNTERMINATED, at(st, p),
                          "value not terminated by ';' (a \";;\" at the end is an escaped ';')");
            break;
        }
        return;
    }
    unsigned char c = (unsigned char)*p;
    switch (st->phase) {
    case PH_PREFIX:
        pmc_error_set(st->err, PMC_E_NO_CMD, at(st, p),
                      "expected the body to start with \"cmd=\", found byte 0x%02x", c);
        break;
    case PH_NAME:
        if (p == st->name_start && c == ';')
            pmc_error_set(st->err, PMC_E_CMD_EMPTY, at(st, p), "empty command name");
        else
            pmc_error_set(st->err, PMC_E_CMD_CHARS, at(st, p),
                          "byte 0x%02x in the command name; expected [-_A-Za-z0-9] or ';'", c);
        break;
    case PH_KEY_START:
        if (c == '=')
            pmc_error_set(st->err, PMC_E_KEY_EMPTY, at(st, p), "'=' with no key before it");
        else if (c == ';')
            pmc_error_set(st->err, PMC_E_EMPTY_TOKEN, at(st, p), "empty token");
        else
            pmc_error_set(st->err, PMC_E_KEY_CHARS, at(st, p), "unexpected byte 0x%02x", c);
        break;
    default:
        pmc_error_set(st->err, PMC_E_KEY_CHARS, at(st, p), "unexpected byte 0x%02x in a key", c);
        break;
    }
}

int pmc_v2_body_parse(const char *body, size_t len, uint64_t off, const pmc_decoder_opts *o,
                      pmc_scratch *s, pmc_body *out, pmc_error *err)
{
    v2_parse st = { .body = body, .off = off, .o = o, .s = s, .out = out, .err = err,
                    .phase = PH_PREFIX };
    out->name = (pmc_slice){ NULL, 0 };
    out->thrid = (pmc_slice){ NULL, 0 };
    out->first_pair = s->npairs;
    const char *p = body, *pe = body + len, *eof = pe;
    st.esc = (o->flags & PMC_DEC_SEMI_ESCAPE) != 0;
    int cs = st.esc ? pmi_v2_body_en_main : pmi_v2_body_en_raw;
    (void)eof;
    %% write exec;
    if (st.failed)
        return -1;
    if (cs < pmi_v2_body_first_final || p < pe) {
        syntax_error(&st, p, pe);
        return -1;
    }
    if (finish_pair(&st) < 0)
        return -1;
    return 0;
}
