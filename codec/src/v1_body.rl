/* Host for the PMI-1 grammars (grammar/pmi_v1.rl): one-line commands and
 * mcmd blocks.  The C framing code has already found the end of the line or
 * block, so one exec pass decides everything. */
#include "internal.h"

enum { PH_PREFIX, PH_NAME, PH_KEY_START, PH_KEY, PH_VALUE };

typedef struct v1_parse {
    const char *base;
    uint64_t off;
    const pmc_decoder_opts *o;
    pmc_scratch *s;
    pmc_body *out;
    pmc_error *err;
    int phase;
    const char *name_start;
    const char *prev_end;  /* where the previous token (or the name) ended */
    const char *key_start, *key_end;
    const char *val_start;
    const char *cr;        /* position of a CR seen before LF */
    size_t escapes;        /* backslash escapes in the current value */
    bool has_val;
    bool failed;
} v1_parse;

static uint64_t at(const v1_parse *st, const char *p)
{
    return st->off + (uint64_t)(p - st->base);
}

static void note(v1_parse *st, uint32_t bit, const char *p)
{
    pmc_body_note(st->out, st->o, bit, at(st, p));
}

/* Push key[=value] ending at `end`. */
static int push_token(v1_parse *st, const char *end)
{
    pmc_slice key = { st->key_start, (size_t)(st->key_end - st->key_start) };
    if (!st->has_val) {
        note(st, PMC_NOTE_BARE_KEY, st->key_start);
        return pmc_scratch_push(st->s, st->o, key, (pmc_slice){ st->key_end, 0 }, PMC_PAIR_BARE,
                                at(st, st->key_start), st->err);
    }
    size_t raw_len = (size_t)(end - st->val_start);
    size_t vlen = raw_len - st->escapes;
    if (vlen > st->o->limits.max_val) {
        pmc_error_set(st->err, PMC_E_VAL_TOO_LONG, at(st, st->val_start),
                      "value of key '%.*s' is %zu bytes; the limit is %u",
                      (int)(key.len > 64 ? 64 : key.len), key.ptr, vlen, st->o->limits.max_val);
        return -1;
    }
    if (vlen == 0)
        note(st, PMC_NOTE_EMPTY_VALUE, st->val_start);
    pmc_slice val = { st->val_start, raw_len };
    uint32_t flags = 0;
    if (st->escapes) {
        long ao = pmc_scratch_arena(st->s, vlen);
        if (ao < 0) {
            pmc_error_set(st->err, PMC_E_NOMEM, at(st, st->val_start), "out of memory");
            return -1;
        }
        char *dst = st->s->arena + ao;
        for (const char *src = st->val_start; src < end; src++) {
            if (*src == '\\')
                src++; /* the grammar guarantees a byte follows */
            *dst++ = *src;
        }
        val.ptr = (const char *)(uintptr_t)ao;
        val.len = vlen;
        flags |= PMC_PAIR_UNESCAPED;
        st->out->has_unescaped = true;
        note(st, PMC_NOTE_V1_BACKSLASH, st->val_start);
    }
    return pmc_scratch_push(st->s, st->o, key, val, flags, at(st, st->key_start), st->err);
}

%%{
machine pmi_v1_body;

action name_mark { st.phase = PH_NAME; st.name_start = p + 1; }
action name_end {
    st.out->name.ptr = st.name_start;
    st.out->name.len = (size_t)(p - st.name_start);
    st.prev_end = p;
    st.phase = PH_KEY_START;
}
action key_start {
    if (p - st.prev_end > 1 && st.out->name.ptr && !mcmd)
        note(&st, PMC_NOTE_V1_SPACES, st.prev_end);
    st.phase = PH_KEY;
    st.key_start = p;
    st.has_val = false;
    st.escapes = 0;
}
action key_odd {
    if (fc == 0) {
        pmc_error_set(st.err, PMC_E_NUL, at(&st, p), "NUL byte in a key; keys are [-_A-Za-z0-9]");
        st.failed = true;
        fbreak;
    }
    if (mcmd && fc == ' ')
        note(&st, PMC_NOTE_MCMD_SPACES, p);
    else
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
action wskip { fexec pmc_skip_word(p + 1, pe); }
action val_start { st.phase = PH_VALUE; st.val_start = p + 1; st.has_val = true; }
action v1skip {
    if (fc == 0)
        note(&st, PMC_NOTE_NUL_IN_VALUE, p);
    fexec pmc_scan_v1_value(p + 1, pe, bs);
}
action mskip {
    if (fc == 0)
        note(&st, PMC_NOTE_NUL_IN_VALUE, p);
    {
        const char *q = p + 1;
        while (q < pe && *q != '\n' && *q != '\r' && *q != 0)
            q++;
        fexec q;
    }
}
action v1esc_mark { }
action v1esc { st.escapes++; }
action tok_end {
    if (push_token(&st, p) < 0) { st.failed = true; fbreak; }
    st.prev_end = p;
    st.phase = PH_KEY_START;
}
action cr { st.cr = p; note(&st, PMC_NOTE_V1_CR, p); }
action eol {
    const char *q = st.cr ? st.cr : p;
    if (!mcmd && q > st.base && q[-1] == ' ') {
        while (q > st.base && q[-1] == ' ')
            q--; /* report the start of the trailing run */
        note(&st, PMC_NOTE_V1_SPACES, q);
    }
}
action mname_end { st.cr = NULL; st.phase = PH_KEY_START; }
action mline_end {
    const char *end = (st.cr && st.cr == p - 1) ? st.cr : p;
    if (push_token(&st, end) < 0) { st.failed = true; fbreak; }
    st.cr = NULL;
    st.phase = PH_KEY_START;
}

include pmi_v1 "pmi_v1.rl";

main := v1_line_raw;
bs := v1_line_bs;
mcmd := mcmd_block;

write data;
}%%

static void syntax_error(v1_parse *st, const char *p, const char *pe, bool mcmd)
{
    if (p >= pe) {
        pmc_error_set(st->err, mcmd ? PMC_E_MCMD_SYNTAX : PMC_E_TRUNCATED, at(st, p),
                      mcmd ? "block does not end with a line \"endcmd\""
                           : "line ended before its '\\n'");
        return;
    }
    unsigned char c = (unsigned char)*p;
    if (p > st->base && p[-1] == '\r') {
        pmc_error_set(st->err, PMC_E_V1_CR, at(st, p - 1), "CR not followed by LF");
        return;
    }
    switch (st->phase) {
    case PH_PREFIX:
        pmc_error_set(st->err, PMC_E_NO_CMD, at(st, p),
                      mcmd ? "expected \"mcmd=\"" : "expected the line to start with \"cmd=\"");
        break;
    case PH_NAME:
        if (p == st->name_start)
            pmc_error_set(st->err, PMC_E_CMD_EMPTY, at(st, p), "empty command name");
        else
            pmc_error_set(st->err, PMC_E_CMD_CHARS, at(st, p),
                          "byte 0x%02x in the command name; expected [-_A-Za-z0-9], ' ' or '\\n'", c);
        break;
    case PH_KEY_START:
        if (c == '=')
            pmc_error_set(st->err, PMC_E_KEY_EMPTY, at(st, p), "'=' with no key before it");
        else if (mcmd)
            pmc_error_set(st->err, PMC_E_MCMD_SYNTAX, at(st, p),
                          "expected a key=value line or \"endcmd\", found byte 0x%02x", c);
        else
            pmc_error_set(st->err, PMC_E_KEY_CHARS, at(st, p), "unexpected byte 0x%02x", c);
        break;
    case PH_KEY:
        pmc_error_set(st->err, mcmd ? PMC_E_MCMD_SYNTAX : PMC_E_KEY_CHARS, at(st, p),
                      mcmd ? "mcmd line without '=' (byte 0x%02x)" : "unexpected byte 0x%02x in a key", c);
        break;
    default:
        if (c == '\n' || c == '\r')
            pmc_error_set(st->err, PMC_E_BAD_ESCAPE, at(st, p - 1),
                          "backslash at the end of a value; expected \"\\ \" or \"\\\\\"");
        else
            pmc_error_set(st->err, PMC_E_KEY_CHARS, at(st, p), "unexpected byte 0x%02x", c);
        break;
    }
}

static int run(const char *base, size_t len, uint64_t off, const pmc_decoder_opts *o,
               pmc_scratch *s, pmc_body *out, pmc_error *err, bool mcmd)
{
    v1_parse st = { .base = base, .off = off, .o = o, .s = s, .out = out, .err = err,
                    .phase = PH_PREFIX };
    bool bs = (o->flags & PMC_DEC_V1_BACKSLASH) != 0;
    out->name = (pmc_slice){ NULL, 0 };
    out->thrid = (pmc_slice){ NULL, 0 };
    out->first_pair = s->npairs;
    const char *p = base, *pe = base + len, *eof = pe;
    int cs = mcmd ? pmi_v1_body_en_mcmd : bs ? pmi_v1_body_en_bs : pmi_v1_body_en_main;
    (void)eof;
    (void)pmi_v1_body_error;
    (void)pmi_v1_body_start;
    %% write exec;
    if (st.failed)
        return -1;
    if (cs < pmi_v1_body_first_final || p < pe) {
        syntax_error(&st, p, pe, mcmd);
        return -1;
    }
    return 0;
}

int pmc_v1_line_parse(const char *line, size_t len, uint64_t off, const pmc_decoder_opts *o,
                      pmc_scratch *s, pmc_body *out, pmc_error *err)
{
    return run(line, len, off, o, s, out, err, false);
}

int pmc_mcmd_parse(const char *blk, size_t len, uint64_t off, const pmc_decoder_opts *o,
                   pmc_scratch *s, pmc_body *out, pmc_error *err)
{
    return run(blk, len, off, o, s, out, err, true);
}
