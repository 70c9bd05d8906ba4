/* Invariant checks and outcome logs shared by the codec fuzz harnesses. */
#include "fuzz_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fz_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    abort();
}

void fz_dump(const char *label, const void *p, size_t n)
{
    const unsigned char *b = p;
    fprintf(stderr, "%s (%zu bytes): \"", label, n);
    for (size_t i = 0; i < n && i < 512; i++) {
        unsigned char c = b[i];
        if (c == '\\' || c == '"')
            fprintf(stderr, "\\%c", c);
        else if (c >= 0x20 && c < 0x7f)
            fputc(c, stderr);
        else
            fprintf(stderr, "\\x%02x", c);
    }
    fprintf(stderr, "%s\"\n", n > 512 ? "..." : "");
}

void fz_opts_from_byte(uint8_t b, pmc_decoder_opts *o)
{
    pmc_decoder_opts_default(o);
    o->flags = 0;
    if (b & 1)
        o->flags |= PMC_DEC_SEMI_ESCAPE;
    if (b & 2)
        o->flags |= PMC_DEC_V1_BACKSLASH;
    if (b & 4)
        o->flags |= PMC_DEC_NO_CONCAT;
    if (b & 64)
        o->flags |= PMC_DEC_EMPTY_KEYS;
    if (b & 128)
        o->flags |= PMC_DEC_LEN_ATOI;
    o->strict = (b & 8) ? PMC_STRICT_ALL : 0;
    pmc_limits *l = &o->limits;
    switch ((b >> 4) & 3) {
    case 0:
        break;
    case 1:
        *l = (pmc_limits){ .max_key = 8, .max_val = 16, .max_pairs = 8, .max_frame = 128,
                           .max_line = 128, .max_message = 512, .max_junk = 6 };
        break;
    case 2:
        *l = (pmc_limits){ .max_key = 2, .max_val = 2, .max_pairs = 2, .max_frame = 16,
                           .max_line = 16, .max_message = 40, .max_junk = 1 };
        break;
    default:
        l->max_junk = 0;
        break;
    }
}

static bool within(const char *p, size_t n, const char *buf, size_t len)
{
    return p >= buf && p <= buf + len && n <= (size_t)(buf + len - p);
}

static bool name_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_';
}

/* Value of a 6-byte length field that the decoder accepted: spaces around one
 * run of digits; otherwise (only under PMC_DEC_LEN_ATOI, noted) what atoi()
 * reads.  *atoi_read says which. */
static size_t field_value(const char *f, bool *atoi_read)
{
    size_t v = 0;
    int runs = 0;
    bool digit = false, plain = true;
    for (int i = 0; i < 6; i++) {
        bool d = f[i] >= '0' && f[i] <= '9';
        if (d) {
            v = v * 10 + (size_t)(f[i] - '0');
            runs += !digit;
        } else if (f[i] != ' ')
            plain = false;
        digit = d;
    }
    *atoi_read = !(plain && runs == 1);
    if (!*atoi_read)
        return v;
    int i = 0;
    while (i < 6 && (f[i] == ' ' || (f[i] >= '\t' && f[i] <= '\r')))
        i++;
    if (i < 6 && f[i] == '+')
        i++;
    for (v = 0; i < 6 && f[i] >= '0' && f[i] <= '9'; i++)
        v = v * 10 + (size_t)(f[i] - '0');
    return v;
}

static void check_framing(const pmc_decoder_opts *o, const pmc_msg *m)
{
    const pmc_limits *l = &o->limits;
    const char *r = m->raw.ptr;
    size_t n = m->raw.len;
    switch (m->wire) {
    case PMC_WIRE_V1:
        FZ_CHECK(n >= 5 && memcmp(r, "cmd=", 4) == 0, "a v1 line starts with cmd=");
        FZ_CHECK(r[n - 1] == '\n' && !memchr(r, '\n', n - 1), "one '\\n', at the end");
        FZ_CHECK(n <= l->max_line, "line of %zu bytes within max_line %u", n, l->max_line);
        FZ_CHECK(m->nframes == 1, "v1 has one frame, got %u", m->nframes);
        break;
    case PMC_WIRE_V1_MCMD:
        FZ_CHECK(n >= 5 && memcmp(r, "mcmd=", 5) == 0, "an mcmd block starts with mcmd=");
        FZ_CHECK((n >= 7 && memcmp(r + n - 7, "endcmd\n", 7) == 0) ||
                     (n >= 8 && memcmp(r + n - 8, "endcmd\r\n", 8) == 0),
                 "an mcmd block ends with the endcmd line");
        FZ_CHECK(n <= l->max_message, "block of %zu bytes within max_message", n);
        FZ_CHECK(m->nframes == 1, "mcmd has one frame, got %u", m->nframes);
        break;
    case PMC_WIRE_V2: {
        size_t pos = 0;
        uint32_t frames = 0;
        while (pos < n) {
            FZ_CHECK(n - pos >= 6, "frame %u has a whole length field", frames);
            bool by_atoi = false;
            size_t body = field_value(r + pos, &by_atoi);
            if (by_atoi)
                FZ_CHECK((o->flags & PMC_DEC_LEN_ATOI) && (m->notes & PMC_NOTE_LEN_ATOI),
                         "frame %u's length field is read by atoi only under LEN_ATOI, noted",
                         frames);
            FZ_CHECK(body >= 6 && body <= l->max_frame, "frame body %zu within [6, %u]", body,
                     l->max_frame);
            FZ_CHECK(body <= n - pos - 6, "frame %u lies inside raw", frames);
            pos += 6 + body;
            frames++;
        }
        FZ_CHECK(pos == n, "the frames' length fields add up to raw (%zu vs %zu)", pos, n);
        FZ_CHECK(frames == m->nframes, "nframes %u matches the %u frames in raw", m->nframes,
                 frames);
        if (frames > 1)
            FZ_CHECK(n <= l->max_message, "continued message within max_message");
        break;
    }
    default:
        FZ_CHECK(0, "message wire %d is v1, v1-mcmd or v2", (int)m->wire);
    }
    FZ_CHECK(((m->notes & PMC_NOTE_CONTINUED) != 0) == (m->nframes > 1),
             "CONTINUED noted exactly when frames were joined");
}

static void check_pair(const pmc_decoder_opts *o, const pmc_msg *m, const pmc_pair *p, size_t i)
{
    const pmc_limits *l = &o->limits;
    FZ_CHECK(p->key.len > 0, "pair %zu has a key", i);
    FZ_CHECK(p->key.len <= l->max_key, "key %zu within max_key", i);
    FZ_CHECK(p->val.len <= l->max_val, "value %zu within max_val", i);
    FZ_CHECK(within(p->key.ptr, p->key.len, m->raw.ptr, m->raw.len), "key %zu lies in raw", i);
    FZ_CHECK(!memchr(p->key.ptr, '=', p->key.len), "key %zu holds no '='", i);
    FZ_CHECK(!memchr(p->key.ptr, '\0', p->key.len), "key %zu holds no NUL", i);
    FZ_CHECK(p->val.len == 0 || p->val.ptr != NULL, "value %zu has bytes", i);
    bool unesc = (p->flags & PMC_PAIR_UNESCAPED) != 0;
    if (p->flags & PMC_PAIR_BARE)
        FZ_CHECK(p->val.len == 0 && !unesc, "bare key %zu has an empty value", i);
    if (!unesc && p->val.len)
        FZ_CHECK(within(p->val.ptr, p->val.len, m->raw.ptr, m->raw.len),
                 "plain value %zu lies in raw", i);
    if (p->val.len)
        (void)*(volatile const char *)(p->val.ptr + p->val.len - 1); /* readable (ASan) */
    switch (m->wire) {
    case PMC_WIRE_V2:
        FZ_CHECK(!memchr(p->key.ptr, ';', p->key.len), "v2 key %zu holds no ';'", i);
        if (!unesc)
            FZ_CHECK(!p->val.len || !memchr(p->val.ptr, ';', p->val.len),
                     "v2 value %zu holds ';' only when unescaped", i);
        else
            FZ_CHECK(o->flags & PMC_DEC_SEMI_ESCAPE, "v2 value unescaped only with SEMI_ESCAPE");
        break;
    case PMC_WIRE_V1:
        FZ_CHECK(!memchr(p->key.ptr, ' ', p->key.len) && !memchr(p->key.ptr, '\n', p->key.len),
                 "v1 key %zu holds no space or LF", i);
        if (!unesc)
            FZ_CHECK(!p->val.len || (!memchr(p->val.ptr, ' ', p->val.len) &&
                                     !memchr(p->val.ptr, '\n', p->val.len) &&
                                     !memchr(p->val.ptr, '\r', p->val.len)),
                     "v1 value %zu holds no space, CR or LF", i);
        else
            FZ_CHECK(o->flags & PMC_DEC_V1_BACKSLASH, "v1 value unescaped only with V1_BACKSLASH");
        break;
    default:
        FZ_CHECK(!memchr(p->key.ptr, '\n', p->key.len), "mcmd key %zu holds no LF", i);
        FZ_CHECK(!p->val.len || !memchr(p->val.ptr, '\n', p->val.len),
                 "mcmd value %zu holds no LF", i);
        break;
    }
}

void fz_check_msg(const pmc_decoder_opts *o, const char *buf, size_t len, uint64_t base,
                  const pmc_msg *m, size_t consumed)
{
    FZ_CHECK(consumed > 0 && consumed <= len, "consumed %zu in (0, %zu]", consumed, len);
    FZ_CHECK(m->raw.ptr == buf && m->raw.len == consumed,
             "raw covers exactly the consumed bytes (raw %zu, consumed %zu)", m->raw.len,
             consumed);
    FZ_CHECK(m->offset == base, "offset %llu is the message start %llu",
             (unsigned long long)m->offset, (unsigned long long)base);
    check_framing(o, m);

    FZ_CHECK(m->name.len > 0 && within(m->name.ptr, m->name.len, m->raw.ptr, m->raw.len),
             "command name lies in raw");
    for (size_t i = 0; i < m->name.len; i++)
        FZ_CHECK(name_char((unsigned char)m->name.ptr[i]), "command name byte %zu is a name byte",
                 i);
    if (m->cmd != PMC_CMD_UNKNOWN) {
        const pmc_cmdspec *cs = pmc_schema_get((pmc_cmd)m->cmd);
        FZ_CHECK(cs && pmc_slice_eq(m->name, cs->name), "cmd id names the command");
    }
    FZ_CHECK(m->notes < (1u << PMC_NOTE_COUNT), "only known notes (0x%x)", (unsigned)m->notes);
    if (o->strict == PMC_STRICT_ALL)
        FZ_CHECK(!(m->notes & FZ_NOTES_NONCANONICAL), "strict lets no non-canonical form through"
                 " (notes 0x%x)", (unsigned)m->notes);
    FZ_CHECK(m->npairs <= o->limits.max_pairs, "npairs %zu within max_pairs", m->npairs);
    FZ_CHECK(m->npairs == 0 || m->pairs != NULL, "pairs present");

    bool dup = false;
    size_t seg = 0;
    const pmc_pair *first_thrid = NULL;
    for (size_t i = 0; i < m->npairs; i++) {
        const pmc_pair *p = &m->pairs[i];
        check_pair(o, m, p, i);
        if (!first_thrid && pmc_slice_eq(p->key, "thrid") && !(p->flags & PMC_PAIR_BARE))
            first_thrid = p;
        /* pmc_msg_findn returns the first pair with the key */
        const pmc_pair *f = pmc_msg_findn(m, p->key.ptr, p->key.len);
        FZ_CHECK(f && f <= p, "pmc_msg_findn finds pair %zu or an earlier one", i);
        /* keys are unique per PMI-2 spawn segment: a "subcmd" pair starts one */
        if (m->cmd == PMC_V2_SPAWN && pmc_slice_eq(p->key, "subcmd"))
            seg = i;
        for (size_t j = seg; j < i && !dup && m->npairs <= 512; j++)
            dup = pmc_slice_eqs(m->pairs[j].key, p->key);
    }
    if (m->npairs <= 512) /* quadratic check: small messages only */
        FZ_CHECK(dup == ((m->notes & PMC_NOTE_DUP_KEY) != 0), "DUP_KEY noted exactly when a key"
                 " repeats (within a spawn segment) (repeat %d)", (int)dup);
    /* thrid is a PMI-2 tag: the value of the first thrid pair that has one
     * (not bare), unescaped if it held ";;". */
    if (m->wire != PMC_WIRE_V2) {
        FZ_CHECK(m->thrid.ptr == NULL, "thrid only in PMI-2 messages");
    } else if (first_thrid) {
        FZ_CHECK(m->thrid.ptr == first_thrid->val.ptr && m->thrid.len == first_thrid->val.len,
                 "thrid is the value of the first plain thrid pair");
    } else {
        FZ_CHECK(m->thrid.ptr == NULL, "no thrid without a thrid pair");
    }
    if (m->wire == PMC_WIRE_V2 && !(o->flags & PMC_DEC_NO_CONCAT)) {
        FZ_CHECK(!pmc_slice_eq(m->name, "concat"), "a continuation frame is never a message");
        /* A single frame ending in concat=<id> would have been continued.  (A
         * reassembled message may end in a concat pair of an earlier frame
         * when the continuation frame is empty: fuzz_concat.c checks those
         * frame by frame.) */
        if (m->nframes == 1 && m->npairs > 0)
            FZ_CHECK(!pmc_slice_eq(m->pairs[m->npairs - 1].key, "concat") ||
                         (m->pairs[m->npairs - 1].flags & PMC_PAIR_BARE),
                     "no single frame ends with a continuation marker");
    }
}

static bool fatal_code(pmc_errcode c)
{
    switch (c) {
    case PMC_E_LEN_SYNTAX: case PMC_E_LEN_SIGN: case PMC_E_LEN_EMPTY: case PMC_E_LEN_SHORT:
    case PMC_E_LEN_LARGE: case PMC_E_LEN_SPACES: case PMC_E_LINE_TOO_LONG:
    case PMC_E_MCMD_TOO_LONG: case PMC_E_TRUNCATED: case PMC_E_NOMEM:
        return true;
    default:
        return false;
    }
}

void fz_check_err_record(const pmc_error *e)
{
    FZ_CHECK(e->code != PMC_E_NONE, "an error has a code");
    FZ_CHECK(strcmp(pmc_errcode_name(e->code), "E_UNKNOWN") != 0, "code %d has a name",
             (int)e->code);
    FZ_CHECK(memchr(e->detail, '\0', sizeof e->detail) != NULL, "detail is NUL-terminated");
    FZ_CHECK(e->detail[0] != '\0', "detail says what was expected");
    char line[512];
    size_t need = pmc_error_format(e, line, sizeof line);
    FZ_CHECK(need > 0 && strlen(line) == (need < sizeof line ? need : sizeof line - 1),
             "pmc_error_format reports its length");
    if (e->fatal)
        FZ_CHECK(fatal_code(e->code), "%s is not a framing error yet fatal",
                 pmc_errcode_name(e->code));
}

void fz_check_err(const char *buf, size_t len, uint64_t base, const pmc_error *e,
                  size_t consumed)
{
    fz_check_err_record(e);
    FZ_CHECK(e->offset >= base && e->offset <= base + len, "error offset %llu within the input"
             " [%llu, %llu]", (unsigned long long)e->offset, (unsigned long long)base,
             (unsigned long long)(base + len));
    FZ_CHECK(e->msg_offset >= base && e->msg_offset <= e->offset,
             "message offset %llu within [base, offset %llu]",
             (unsigned long long)e->msg_offset, (unsigned long long)e->offset);
    if (e->raw.ptr) {
        FZ_CHECK(within(e->raw.ptr, e->raw.len, buf, len), "error raw lies in the input");
        FZ_CHECK(e->raw.ptr == buf + (e->msg_offset - base), "error raw starts at msg_offset");
    }
    if (e->cmd.ptr)
        FZ_CHECK(within(e->cmd.ptr, e->cmd.len, buf, len), "error cmd lies in the input");
    if (e->thrid.ptr)
        FZ_CHECK(within(e->thrid.ptr, e->thrid.len, buf, len), "error thrid lies in the input");
    FZ_CHECK(e->wire == PMC_WIRE_V1 || e->wire == PMC_WIRE_V1_MCMD || e->wire == PMC_WIRE_V2,
             "a rejected message is classified (wire %d)", (int)e->wire);
    if (consumed == SIZE_MAX)
        return;
    if (e->fatal) {
        FZ_CHECK(consumed == 0, "a fatal error consumes nothing (consumed %zu)", consumed);
    } else {
        FZ_CHECK(consumed > 0 && consumed <= len, "a skipped message consumed %zu in (0, %zu]",
                 consumed, len);
        FZ_CHECK(e->raw.ptr == buf && e->raw.len == consumed,
                 "error raw is exactly the skipped bytes (raw %zu, consumed %zu)", e->raw.len,
                 consumed);
        FZ_CHECK(e->msg_offset == base, "skipped message starts at the input");
    }
}

/* ---- outcome logs ---------------------------------------------------------- */

static void put(fz_log *l, const void *p, size_t n)
{
    if (l->cap - l->len < n) {
        size_t c = l->cap ? l->cap : 256;
        while (c - l->len < n)
            c *= 2;
        unsigned char *np = realloc(l->p, c);
        if (!np)
            fz_fail(__FILE__, __LINE__, "out of memory in the outcome log");
        l->p = np;
        l->cap = c;
    }
    if (n)
        memcpy(l->p + l->len, p, n);
    l->len += n;
}

/* Events are logged as text lines so a difference can be shown. */
static void put_u64(fz_log *l, uint64_t v)
{
    char t[32];
    int n = snprintf(t, sizeof t, " %llu", (unsigned long long)v);
    put(l, t, (size_t)n);
}

static void put_slice(fz_log *l, pmc_slice s)
{
    if (!s.ptr) {
        put(l, " -", 2);
        return;
    }
    put(l, " \"", 2);
    for (size_t i = 0; i < s.len; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            put(l, &c, 1);
        } else {
            char t[8];
            snprintf(t, sizeof t, "\\x%02x", c);
            put(l, t, 4);
        }
    }
    put(l, "\"", 1);
}

void fz_log_msg(fz_log *l, const pmc_msg *m)
{
    put(l, "MSG off", 7);
    put_u64(l, m->offset);
    put(l, " wire", 5);
    put_u64(l, (uint64_t)m->wire);
    put(l, " cmd", 4);
    put_u64(l, (uint64_t)m->cmd);
    put_slice(l, m->name);
    put(l, " frames", 7);
    put_u64(l, m->nframes);
    put(l, " notes", 6);
    put_u64(l, m->notes);
    put(l, " thrid", 6);
    put_slice(l, m->thrid);
    put(l, " raw", 4);
    put_slice(l, m->raw);
    put(l, " pairs", 6);
    put_u64(l, m->npairs);
    for (size_t i = 0; i < m->npairs; i++) {
        put_slice(l, m->pairs[i].key);
        put_slice(l, m->pairs[i].val);
        put_u64(l, m->pairs[i].flags);
    }
    put(l, "\n", 1);
    l->events++;
}

void fz_log_err(fz_log *l, const pmc_error *e)
{
    put(l, "ERR ", 4);
    put(l, pmc_errcode_name(e->code), strlen(pmc_errcode_name(e->code)));
    put(l, e->fatal ? " fatal" : " skip", e->fatal ? 6 : 5);
    put(l, " off", 4);
    put_u64(l, e->offset);
    put(l, " msg", 4);
    put_u64(l, e->msg_offset);
    put(l, " wire", 5);
    put_u64(l, (uint64_t)e->wire);
    put(l, " raw", 4);
    put_slice(l, e->raw);
    put(l, " cmd", 4);
    put_slice(l, e->cmd);
    put(l, " thrid", 6);
    put_slice(l, e->thrid);
    put(l, " detail", 7);
    put_slice(l, pmc_slice_cstr(e->detail));
    put(l, "\n", 1);
    l->events++;
}

void fz_log_again(fz_log *l, int finish_rc, const pmc_error *e)
{
    put(l, "END", 3);
    put_u64(l, (uint64_t)(int64_t)finish_rc);
    if (finish_rc == PMC_ERR) {
        put(l, " ", 1);
        put(l, pmc_errcode_name(e->code), strlen(pmc_errcode_name(e->code)));
        put_u64(l, e->offset);
        put_u64(l, e->msg_offset);
    }
    put(l, "\n", 1);
    l->events++;
}

void fz_log_free(fz_log *l)
{
    free(l->p);
    *l = (fz_log){ 0 };
}

void fz_log_expect_equal(const fz_log *a, const fz_log *b, const char *what_a,
                         const char *what_b)
{
    if (a->len == b->len && (a->len == 0 || memcmp(a->p, b->p, a->len) == 0))
        return;
    fprintf(stderr, "--- %s (%zu events):\n%.*s--- %s (%zu events):\n%.*s", what_a, a->events,
            (int)(a->len > 4000 ? 4000 : a->len), (const char *)a->p, what_b, b->events,
            (int)(b->len > 4000 ? 4000 : b->len), (const char *)b->p);
    fz_fail(__FILE__, __LINE__, "%s and %s decoded the same bytes differently", what_a, what_b);
}

bool fz_pairs_equal(const pmc_pair *a, size_t na, const pmc_pair *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (!pmc_slice_eqs(a[i].key, b[i].key) || !pmc_slice_eqs(a[i].val, b[i].val))
            return false;
    return true;
}

/* ---- whole-input decoding ------------------------------------------------------ */

size_t fz_decode_buffer_all(pmc_decoder *d, const char *buf, size_t len, uint64_t base,
                            fz_log *log, fz_msg_fn fn, void *ctx)
{
    const pmc_decoder_opts *o = pmc_decoder_get_opts(d);
    size_t pos = 0;
    for (;;) {
        pmc_msg m;
        pmc_error err;
        size_t consumed = (size_t)0xdeadbeef;
        int rc = pmc_decode_buffer(d, buf + pos, len - pos, base + pos, &m, &err, &consumed);
        if (rc == PMC_AGAIN) {
            FZ_CHECK(consumed == 0, "PMC_AGAIN consumes nothing (consumed %zu)", consumed);
            return pos;
        }
        FZ_CHECK(rc == PMC_MSG || rc == PMC_ERR, "result %d is MSG, AGAIN or ERR", rc);
        if (rc == PMC_MSG) {
            fz_check_msg(o, buf + pos, len - pos, base + pos, &m, consumed);
            if (log)
                fz_log_msg(log, &m);
            if (fn)
                fn(o, &m, ctx);
        } else {
            fz_check_err(buf + pos, len - pos, base + pos, &err, consumed);
            if (log)
                fz_log_err(log, &err);
            if (err.fatal)
                return pos;
        }
        pos += consumed;
    }
}

bool fz_stream_drain(pmc_decoder *d, fz_log *log)
{
    const pmc_decoder_opts *o = pmc_decoder_get_opts(d);
    for (;;) {
        uint64_t off = pmc_decoder_offset(d);
        size_t pending = pmc_decoder_pending(d);
        pmc_msg m;
        pmc_error err;
        int rc = pmc_decoder_next(d, &m, &err);
        if (rc == PMC_AGAIN) {
            FZ_CHECK(pmc_decoder_offset(d) == off && pmc_decoder_pending(d) == pending,
                     "PMC_AGAIN leaves the stream position alone");
            return true;
        }
        FZ_CHECK(rc == PMC_MSG || rc == PMC_ERR, "result %d is MSG, AGAIN or ERR", rc);
        if (rc == PMC_MSG) {
            FZ_CHECK(m.raw.len <= pending, "message within the buffered bytes");
            fz_check_msg(o, m.raw.ptr, pending, off, &m, m.raw.len);
            FZ_CHECK(pmc_decoder_offset(d) == off + m.raw.len &&
                         pmc_decoder_pending(d) == pending - m.raw.len,
                     "a message advances the stream by its raw bytes");
            if (log)
                fz_log_msg(log, &m);
            continue;
        }
        FZ_CHECK(err.msg_offset >= off, "error at or after the stream position");
        const char *start = err.raw.ptr ? err.raw.ptr - (err.msg_offset - off) : NULL;
        if (start)
            fz_check_err(start, pending, off, &err, SIZE_MAX);
        else
            fz_check_err_record(&err);
        if (log)
            fz_log_err(log, &err);
        if (!err.fatal) {
            FZ_CHECK(err.raw.ptr && err.msg_offset == off, "a skipped message is delimited");
            FZ_CHECK(pmc_decoder_offset(d) == off + err.raw.len &&
                         pmc_decoder_pending(d) == pending - err.raw.len,
                     "a skipped message advances the stream by its raw bytes");
            continue;
        }
        /* Fatal errors are sticky: the same error again, and from finish. */
        FZ_CHECK(pmc_decoder_offset(d) == off, "a fatal error does not advance the stream");
        for (int i = 0; i < 2; i++) {
            pmc_error again;
            int r2 = i == 0 ? pmc_decoder_next(d, &m, &again) : pmc_decoder_finish(d, &again);
            FZ_CHECK(r2 == PMC_ERR && again.fatal && again.code == err.code &&
                         again.offset == err.offset && again.msg_offset == err.msg_offset,
                     "a fatal error repeats (%s call %d)", pmc_errcode_name(err.code), i);
        }
        FZ_CHECK(pmc_decoder_feed(d, "cmd=x\n", 6) == 0, "feeding a failed decoder works");
        pmc_error again;
        FZ_CHECK(pmc_decoder_next(d, &m, &again) == PMC_ERR && again.code == err.code,
                 "a failed decoder stays failed after more input");
        return false;
    }
}

void fz_stream_finish(pmc_decoder *d, fz_log *log)
{
    pmc_error err;
    size_t pending = pmc_decoder_pending(d);
    int rc = pmc_decoder_finish(d, &err);
    if (rc == PMC_AGAIN) {
        FZ_CHECK(pending == 0, "finish is clean only with nothing buffered (%zu left)", pending);
    } else {
        FZ_CHECK(rc == PMC_ERR, "finish returns AGAIN or ERR, got %d", rc);
        fz_check_err_record(&err);
        FZ_CHECK(err.fatal, "end of stream inside a message is fatal");
        if (err.code == PMC_E_TRUNCATED)
            FZ_CHECK(pending > 0 && err.offset == pmc_decoder_offset(d) + pending &&
                         err.msg_offset == pmc_decoder_offset(d),
                     "TRUNCATED names the leftover bytes");
    }
    if (log)
        fz_log_again(log, rc, &err);
}

void fz_decode_workout(const pmc_decoder_opts *o, const char *buf, size_t len, fz_msg_fn fn,
                       void *ctx)
{
    pmc_decoder *d = pmc_decoder_new(o);
    FZ_CHECK(d != NULL, "decoder allocated");
    fz_log a = { 0 }, b = { 0 }, s = { 0 };
    size_t used = fz_decode_buffer_all(d, buf, len, 0, &a, fn, ctx);
    size_t used2 = fz_decode_buffer_all(d, buf, len, 0, &b, NULL, NULL);
    FZ_CHECK(used == used2, "same bytes consumed on a second pass");
    fz_log_expect_equal(&a, &b, "first pmc_decode_buffer pass", "second pass");

    pmc_decoder *st = pmc_decoder_new(o);
    FZ_CHECK(st != NULL, "decoder allocated");
    FZ_CHECK(pmc_decoder_feed(st, buf, len) == 0, "feed");
    fz_stream_drain(st, &s);
    fz_log_expect_equal(&a, &s, "pmc_decode_buffer", "pmc_decoder_next");
    fz_stream_finish(st, NULL);
    pmc_decoder_free(st);
    pmc_decoder_free(d);
    fz_log_free(&a);
    fz_log_free(&b);
    fz_log_free(&s);
}

/* ---- encoder ------------------------------------------------------------------- */

static size_t first_key(const pmc_slice *keys, size_t n, const char *k)
{
    for (size_t i = 0; i < n; i++)
        if (pmc_slice_eq(keys[i], k))
            return i;
    return SIZE_MAX;
}

void fz_dialect_order(const pmc_slice *keys, size_t n, const pmc_dialect *d, size_t *perm)
{
    size_t rc = d->rc_pos != PMC_POS_KEEP ? first_key(keys, n, "rc") : SIZE_MAX;
    size_t th = d->thrid_pos != PMC_POS_KEEP ? first_key(keys, n, "thrid") : SIZE_MAX;
    size_t k = 0;
    if (th != SIZE_MAX && d->thrid_pos == PMC_POS_FIRST)
        perm[k++] = th;
    if (rc != SIZE_MAX && d->rc_pos == PMC_POS_FIRST)
        perm[k++] = rc;
    for (size_t i = 0; i < n; i++)
        if (i != rc && i != th)
            perm[k++] = i;
    if (rc != SIZE_MAX && d->rc_pos == PMC_POS_LAST)
        perm[k++] = rc;
    if (th != SIZE_MAX && d->thrid_pos == PMC_POS_LAST)
        perm[k++] = th;
    FZ_CHECK(k == n, "permutation of %zu pairs has %zu", n, k);
}

void fz_opts_for_dialect(const pmc_dialect *d, pmc_decoder_opts *o)
{
    pmc_decoder_opts_default(o);
    o->flags = (d->escape_semi ? PMC_DEC_SEMI_ESCAPE : 0) |
               (d->v1_backslash ? PMC_DEC_V1_BACKSLASH : 0);
    o->strict = 0;
    o->limits = (pmc_limits){ .max_key = 1u << 20, .max_val = 1u << 20, .max_pairs = 1u << 20,
                              .max_frame = 999999, .max_line = 1u << 26,
                              .max_message = 1u << 26, .max_junk = d->junk };
}

void fz_decode_encoded(pmc_decoder *d, const char *buf, size_t len, pmc_msg *m)
{
    pmc_error err;
    size_t used = 0;
    int rc = pmc_decode_buffer(d, buf, len, 0, m, &err, &used);
    if (rc != PMC_MSG) {
        fz_dump("encoder output", buf, len);
        if (rc == PMC_ERR) {
            char line[300];
            pmc_error_format(&err, line, sizeof line);
            fz_fail(__FILE__, __LINE__, "the decoder rejects what the encoder wrote: %s", line);
        }
        fz_fail(__FILE__, __LINE__, "the decoder wants more than the encoder wrote (rc %d)", rc);
    }
    fz_check_msg(pmc_decoder_get_opts(d), buf, len, 0, m, used);
    if (used != len) {
        fz_dump("encoder output", buf, len);
        fz_fail(__FILE__, __LINE__, "encoder output is %zu bytes, one message took %zu", len,
                used);
    }
}

void fz_check_enc_failure(int rc, const pmc_error *err, size_t out_len_before,
                          size_t out_len_after)
{
    FZ_CHECK(rc == -1, "an encoder failure returns -1 (got %d)", rc);
    fz_check_err_record(err);
    FZ_CHECK(err->code == PMC_E_ENC_KEY || err->code == PMC_E_ENC_VALUE ||
                 err->code == PMC_E_ENC_TOO_LARGE || err->code == PMC_E_ENC_STATE ||
                 err->code == PMC_E_NOMEM,
             "encoder failures are E_ENC_* (got %s)", pmc_errcode_name(err->code));
    FZ_CHECK(out_len_before == out_len_after, "a failed encoding appends nothing (%zu -> %zu)",
             out_len_before, out_len_after);
}
