/* Reader for pmi-trace v1 files.  Every rejection names the line, the
 * column and what was expected there. */
#include "pmitrace/trace.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct lp {
    const char *s; /* the line, without '\n' */
    size_t n;
    uint32_t line;
    pmt_error *e;
} lp;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int perr(lp *p, size_t col0, const char *fmt, ...)
{
    p->e->line = p->line;
    p->e->column = (uint32_t)col0 + 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->e->msg, sizeof p->e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

static bool starts(const lp *p, size_t at, const char *w)
{
    size_t k = strlen(w);
    return at + k <= p->n && memcmp(p->s + at, w, k) == 0;
}

static size_t skip_ws(const lp *p, size_t i)
{
    while (i < p->n && (p->s[i] == ' ' || p->s[i] == '\t'))
        i++;
    return i;
}

/* Nothing but blanks, or blanks and a '#' comment, from i to the end. */
static int expect_end(lp *p, size_t i, const char *after)
{
    size_t j = skip_ws(p, i);
    if (j == p->n || (p->s[j] == '#' && j > i))
        return 0;
    return perr(p, j, "expected the end of the line or a ' # comment' after %s", after);
}

static char *dup_range(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

static int nomem(lp *p)
{
    return perr(p, 0, "out of memory");
}

static int parse_header(lp *p, pmt_trace *t)
{
    size_t i = 1;
    size_t w = 0;
    while (i + w < p->n && p->s[i + w] != ' ' && p->s[i + w] != '\t')
        w++;
    const char *word = p->s + i;
    size_t vi = skip_ws(p, i + w);
    const char *val = p->s + vi;
    size_t vn = p->n - vi;

    if (w == 6 && memcmp(word, "source", 6) == 0) {
        if (vn == 0)
            return perr(p, vi, "expected a description after @source");
        char *v = dup_range(val, vn);
        if (!v)
            return nomem(p);
        int rc = pmt_add_source(t, v);
        free(v);
        if (rc)
            return nomem(p);
    } else if ((w == 4 && memcmp(word, "meta", 4) == 0) || (w == 3 && memcmp(word, "env", 3) == 0)) {
        bool meta = w == 4;
        const char *eq = memchr(val, '=', vn);
        size_t kn = eq ? (size_t)(eq - val) : 0;
        if (!eq || kn == 0)
            return perr(p, vi, "expected %s after @%s", meta ? "key=value" : "NAME=value",
                        meta ? "meta" : "env");
        for (size_t k = 0; k < kn; k++)
            if (val[k] == ' ' || val[k] == '\t')
                return perr(p, vi + k, "expected '=' (no blanks in a %s name)",
                            meta ? "meta" : "env");
        char *k = dup_range(val, kn), *v = dup_range(eq + 1, vn - kn - 1);
        int rc = (!k || !v) ? -1 : meta ? pmt_add_meta(t, k, v) : pmt_add_env(t, k, v);
        free(k);
        free(v);
        if (rc)
            return nomem(p);
    } else if (w == 6 && memcmp(word, "expect", 6) == 0) {
        /* the comment starts at a '#' preceded by a blank */
        size_t cut = vn;
        for (size_t k = 1; k < vn; k++)
            if (val[k] == '#' && (val[k - 1] == ' ' || val[k - 1] == '\t')) {
                cut = k;
                break;
            }
        char *body = dup_range(val, cut);
        if (!body)
            return nomem(p);
        pmt_expect x;
        size_t pos = 0;
        char err[120];
        int rc = pmt_expect_parse(body, &x, &pos, err, sizeof err);
        free(body);
        if (rc)
            return perr(p, vi + pos, "@expect: %s", err);
        char *comment = NULL;
        if (cut < vn) {
            size_t c = cut + 1;
            while (c < vn && (val[c] == ' ' || val[c] == '\t'))
                c++;
            if (!(comment = dup_range(val + c, vn - c)))
                return nomem(p);
        }
        rc = pmt_add_expect(t, &x, comment);
        free(comment);
        if (rc)
            return nomem(p);
    } else if (w == 6 && memcmp(word, "server", 6) == 0) {
        /* server directives (directive.c): v2 only, kept apart from the headers */
        if (t->version < 2)
            return perr(p, 0, "@server directives need a v2 file (first line \"" PMT_MAGIC_V2
                              "\")");
        pmt_directive d;
        size_t pos = 0;
        char err[200];
        if (pmt_directive_parse(val, vn, &d, &pos, err, sizeof err))
            return perr(p, vi + pos, "@server: %s", err);
        d.line = p->line;
        d.trigger_col += (uint32_t)vi + 1;
        if (d.data)
            d.data_col += (uint32_t)vi + 1;
        int rc = pmt_add_directive(t, &d);
        pmt_directive_free(&d);
        if (rc)
            return perr(p, vi, "@server: out of memory (or a directive that cannot be kept)");
        return 0;
    } else {
        return perr(p, 0, "unknown header '@%.*s' (expected @source, @meta, @env, @expect or "
                          "@server)",
                    (int)(w > 40 ? 40 : w), word);
    }
    t->headers[t->nheaders - 1].line = p->line;
    return 0;
}

static int parse_time(lp *p, size_t *i, uint64_t *usec)
{
    size_t a = *i;
    uint64_t sec = 0;
    size_t d = 0;
    while (a + d < p->n && p->s[a + d] >= '0' && p->s[a + d] <= '9') {
        if (sec > (UINT64_MAX / 1000000u - 9) / 10)
            return perr(p, a, "time too large");
        sec = sec * 10 + (uint64_t)(p->s[a + d] - '0');
        d++;
    }
    if (d == 0)
        return perr(p, a, "expected a time in seconds (\"0.000000\")");
    size_t b = a + d;
    if (b >= p->n || p->s[b] != '.')
        return perr(p, b, "expected '.' and 6 decimals in the time");
    uint64_t frac = 0;
    for (size_t k = 1; k <= 6; k++) {
        if (b + k >= p->n || p->s[b + k] < '0' || p->s[b + k] > '9')
            return perr(p, b + k, "expected 6 decimals in the time");
        frac = frac * 10 + (uint64_t)(p->s[b + k] - '0');
    }
    *i = b + 7;
    *usec = sec * 1000000u + frac;
    return 0;
}

/* v2 modifiers before the body: optional, unordered, failure, timeout=MS, pause=MS,
 * split=N,N,..., delay=MS. */
static int parse_u32(lp *p, size_t *i, uint32_t *out)
{
    uint64_t v = 0;
    size_t d = *i;
    while (d < p->n && p->s[d] >= '0' && p->s[d] <= '9' && v < 100000000u)
        v = v * 10 + (uint64_t)(p->s[d++] - '0');
    if (d == *i || v >= 100000000u)
        return perr(p, *i, "expected a number below 100000000");
    *out = (uint32_t)v;
    *i = d;
    return 0;
}

static int parse_mods(lp *p, size_t *at, pmt_event *m)
{
    size_t i = *at;
    for (;;) {
        size_t j = i;
        if (starts(p, i, "optional")) {
            m->flags |= PMT_F_OPTIONAL;
            j = i + 8;
        } else if (starts(p, i, "unordered")) {
            m->flags |= PMT_F_UNORDERED;
            j = i + 9;
        } else if (starts(p, i, "failure")) {
            m->flags |= PMT_F_FAILURE;
            j = i + 7;
        } else if (starts(p, i, "pause=")) {
            j = i + 6;
            if (parse_u32(p, &j, &m->pause_ms))
                return -1;
        } else if (starts(p, i, "timeout=")) {
            j = i + 8;
            if (parse_u32(p, &j, &m->timeout_ms))
                return -1;
        } else if (starts(p, i, "delay=")) {
            j = i + 6;
            if (parse_u32(p, &j, &m->delay_ms))
                return -1;
        } else if (starts(p, i, "split=")) {
            j = i + 6;
            for (;;) {
                if (m->ncuts == PMT_MAX_CUTS)
                    return perr(p, j, "at most %d split offsets", PMT_MAX_CUTS);
                if (parse_u32(p, &j, &m->cuts[m->ncuts]))
                    return -1;
                m->ncuts++;
                if (j < p->n && p->s[j] == ',') {
                    j++;
                    continue;
                }
                break;
            }
        } else {
            break;
        }
        if (j >= p->n || (p->s[j] != ' ' && p->s[j] != '\t'))
            return perr(p, j, "expected a blank after the modifier");
        i = skip_ws(p, j);
    }
    if (i >= p->n)
        return perr(p, i, "expected the bytes or msg <pattern> after the modifiers");
    *at = i;
    return 0;
}

static int parse_event(lp *p, pmt_trace *t)
{
    size_t i = 0;
    uint64_t usec = 0;
    if (parse_time(p, &i, &usec))
        return -1;
    if (i >= p->n || (p->s[i] != ' ' && p->s[i] != '\t'))
        return perr(p, i, "expected a blank after the time");
    i = skip_ws(p, i);

    char conn[PMT_CONN_MAX];
    size_t c = 0;
    while (i + c < p->n && p->s[i + c] != ' ' && p->s[i + c] != '\t') {
        char ch = p->s[i + c];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '.' || ch == '-'))
            return perr(p, i + c, "expected a connection label of [-_.A-Za-z0-9]");
        if (c + 1 >= PMT_CONN_MAX)
            return perr(p, i, "connection label longer than %d bytes", PMT_CONN_MAX - 1);
        conn[c] = ch;
        c++;
    }
    if (c == 0)
        return perr(p, i, "expected a connection label (\"r0\")");
    conn[c] = 0;
    i = skip_ws(p, i + c);

    size_t ev = i;
    size_t w = 0;
    while (i + w < p->n && p->s[i + w] != ' ' && p->s[i + w] != '\t')
        w++;
    const char *word = p->s + i;
    size_t after = skip_ws(p, i + w);
    bool blank = after > i + w;
    int rc;

    if (w == 3 && (memcmp(word, "C>S", 3) == 0 || memcmp(word, "S>C", 3) == 0)) {
        pmt_side side = word[0] == 'C' ? PMT_CLIENT : PMT_SERVER;
        if (after >= p->n)
            return perr(p, after, "expected the bytes as a \"quoted string\" after %.3s", word);
        if (!blank)
            return perr(p, i + w, "expected a blank after %.3s", word);
        pmt_event mods;
        memset(&mods, 0, sizeof mods);
        if (t->version >= 2 && parse_mods(p, &after, &mods))
            return -1;
        if (t->version >= 2 && starts(p, after, "msg") &&
            (after + 3 == p->n || p->s[after + 3] == ' ' || p->s[after + 3] == '\t')) {
            /* a pattern runs to the end of the line; match.c parses it */
            size_t a = skip_ws(p, after + 3);
            size_t end = p->n;
            while (end > a && (p->s[end - 1] == ' ' || p->s[end - 1] == '\t'))
                end--;
            if (a >= end)
                return perr(p, a, "expected a message pattern after msg (\"v2 kvs-get key=k\")");
            if (mods.ncuts)
                return perr(p, after, "split= applies to bytes, not to a msg pattern");
            rc = pmt_add_event(t, PMT_EV_DATA, usec, conn, side, p->s + a, end - a);
            if (rc)
                return nomem(p);
            pmt_event *e = &t->events[t->nevents - 1];
            e->form = PMT_FORM_MSG;
            e->flags = mods.flags;
            e->timeout_ms = mods.timeout_ms;
            e->delay_ms = mods.delay_ms;
            e->pause_ms = mods.pause_ms;
            e->line = p->line;
            return 0;
        }
        if (t->version >= 2 && starts(p, after, "raw") && after + 3 < p->n &&
            (p->s[after + 3] == ' ' || p->s[after + 3] == '\t')) {
            mods.form = PMT_FORM_RAW;
            after = skip_ws(p, after + 3);
        }
        if (after >= p->n || p->s[after] != '"') /* "raw" then blanks to the end of the line */
            return perr(p, after, t->version >= 2
                                      ? "expected '\"', raw \"...\" or msg <pattern>"
                                      : "expected '\"' (patterns in place of bytes are reserved for a later version: v2)");
        /* find the closing quote: the first '"' not escaped */
        size_t q = after + 1;
        while (q < p->n && p->s[q] != '"') {
            if (p->s[q] == '\\' && q + 1 < p->n)
                q++;
            q++;
        }
        if (q >= p->n)
            return perr(p, p->n, "expected the closing '\"' of the bytes");
        size_t slen = q - after - 1;
        if (slen == 0)
            return perr(p, after, "expected at least one byte (an empty write is not an event)");
        char *buf = malloc(slen);
        if (!buf)
            return nomem(p);
        size_t outlen = 0, errpos = 0;
        char err[120];
        if (pmt_unescape(p->s + after + 1, slen, buf, &outlen, &errpos, err, sizeof err)) {
            free(buf);
            return perr(p, after + 1 + errpos, "%s", err);
        }
        if (expect_end(p, q + 1, "the closing '\"'")) {
            free(buf);
            return -1;
        }
        for (uint32_t k = 0; k < mods.ncuts; k++)
            if (mods.cuts[k] == 0 || mods.cuts[k] >= outlen ||
                (k && mods.cuts[k] <= mods.cuts[k - 1])) {
                free(buf);
                return perr(p, after, "split offsets must increase and lie inside the %zu bytes",
                            outlen);
            }
        rc = pmt_add_event(t, PMT_EV_DATA, usec, conn, side, buf, outlen);
        free(buf);
        if (!rc) {
            pmt_event *e = &t->events[t->nevents - 1];
            e->form = mods.form;
            e->flags = mods.flags;
            e->timeout_ms = mods.timeout_ms;
            e->delay_ms = mods.delay_ms;
            e->pause_ms = mods.pause_ms;
            e->ncuts = mods.ncuts;
            memcpy(e->cuts, mods.cuts, sizeof e->cuts);
        }
    } else if (w == 3 && memcmp(word, "eof", 3) == 0) {
        if (after >= p->n || (p->s[after] != 'C' && p->s[after] != 'S') || !blank)
            return perr(p, after, "expected C or S after eof (the side that closed)");
        pmt_side side = p->s[after] == 'C' ? PMT_CLIENT : PMT_SERVER;
        /* v2: "eof S failure": the close is the failure a reproducer shows */
        size_t f = skip_ws(p, after + 1);
        bool failure = t->version >= 2 && f > after + 1 && starts(p, f, "failure");
        if (expect_end(p, failure ? f + 7 : after + 1, "eof C|S"))
            return -1;
        rc = pmt_add_event(t, PMT_EV_EOF, usec, conn, side, NULL, 0);
        if (!rc && failure)
            t->events[t->nevents - 1].flags = PMT_F_FAILURE;
    } else if (w == 7 && memcmp(word, "timeout", 7) == 0 && t->version >= 2 && after < p->n &&
               p->s[after] != '#') {
        uint64_t ms = 0;
        size_t d = after;
        while (d < p->n && p->s[d] >= '0' && p->s[d] <= '9' && ms < 100000000u)
            ms = ms * 10 + (uint64_t)(p->s[d++] - '0');
        if (d == after || ms == 0 || ms >= 100000000u)
            return perr(p, after, "expected milliseconds (1..99999999) after timeout");
        /* "timeout MS failure": the silence is the failure a reproducer shows */
        size_t f = skip_ws(p, d);
        bool failure = f > d && starts(p, f, "failure");
        if (expect_end(p, failure ? f + 7 : d, "timeout MS"))
            return -1;
        rc = pmt_add_event(t, PMT_EV_TIMEOUT, usec, conn, PMT_CLIENT, NULL, 0);
        if (!rc) {
            t->events[t->nevents - 1].timeout_ms = (uint32_t)ms;
            t->events[t->nevents - 1].flags = failure ? PMT_F_FAILURE : 0;
        }
    } else if ((w == 5 && memcmp(word, "close", 5) == 0) ||
               (w == 7 && memcmp(word, "timeout", 7) == 0)) {
        if (expect_end(p, i + w, w == 5 ? "close" : "timeout"))
            return -1;
        rc = pmt_add_event(t, w == 5 ? PMT_EV_CLOSE : PMT_EV_TIMEOUT, usec, conn, PMT_CLIENT,
                           NULL, 0);
    } else if ((w == 4 && memcmp(word, "note", 4) == 0) || (w == 4 && memcmp(word, "open", 4) == 0)) {
        if (after < p->n && !blank)
            return perr(p, i + w, "expected a blank after %.4s", word);
        rc = pmt_add_event(t, word[0] == 'n' ? PMT_EV_NOTE : PMT_EV_OPEN, usec, conn, PMT_CLIENT,
                           p->s + after, p->n - after);
    } else {
        return perr(p, ev, "expected an event: open, C>S, S>C, eof, close, timeout or note");
    }
    if (rc)
        return nomem(p);
    t->events[t->nevents - 1].line = p->line;
    return 0;
}

int pmt_parse(const char *buf, size_t len, pmt_trace *t, pmt_error *e)
{
    pmt_error dummy;
    if (!e)
        e = &dummy;
    memset(e, 0, sizeof *e);
    pmt_trace_init(t);

    size_t pos = 0;
    uint32_t line = 0;
    while (pos < len) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;
        lp p = { buf + pos, n, ++line, e };
        pos += n + (nl ? 1 : 0);

        /* a raw NUL is never part of the format (bytes are escaped) and
         * would cut header text short */
        const char *nul = memchr(p.s, '\0', p.n);
        if (nul) {
            perr(&p, (size_t)(nul - p.s), "NUL byte in a line (bytes inside quotes are written \\x00)");
            goto fail;
        }
        const char *cr = memchr(p.s, '\r', p.n);
        if (cr) {
            perr(&p, (size_t)(cr - p.s), "CR in a line (trace files end lines with LF only)");
            goto fail;
        }
        if (line == 1) {
            if (p.n == strlen(PMT_MAGIC) && memcmp(p.s, PMT_MAGIC, p.n) == 0) {
                t->version = 1;
                continue;
            }
            if (p.n == strlen(PMT_MAGIC_V2) && memcmp(p.s, PMT_MAGIC_V2, p.n) == 0) {
                t->version = 2;
                continue;
            }
            if (starts(&p, 0, "# pmi-trace v"))
                perr(&p, 13, "unsupported format version '%.*s' (this reader knows v1 and v2)",
                     (int)(p.n - 13 > 20 ? 20 : p.n - 13), p.s + 13);
            else
                perr(&p, 0, "expected the first line \"" PMT_MAGIC "\"");
            goto fail;
        }
        if (p.n == 0 || skip_ws(&p, 0) == p.n)
            continue;
        if (p.s[0] == '#') {
            if (t->nevents == 0) {
                size_t c = 1;
                if (c < p.n && p.s[c] == ' ')
                    c++;
                char *text = dup_range(p.s + c, p.n - c);
                int rc = text ? pmt_add_comment(t, text) : -1;
                free(text);
                if (rc) {
                    nomem(&p);
                    goto fail;
                }
                t->headers[t->nheaders - 1].line = line;
            }
            continue;
        }
        if (p.s[0] == '@') {
            if (t->nevents) {
                perr(&p, 0, "header line after the first event (headers come first)");
                goto fail;
            }
            if (parse_header(&p, t))
                goto fail;
            continue;
        }
        if (parse_event(&p, t))
            goto fail;
    }
    if (line == 0) {
        e->line = 1;
        e->column = 1;
        snprintf(e->msg, sizeof e->msg, "empty file: expected the first line \"" PMT_MAGIC "\"");
        goto fail;
    }
    return 0;
fail:
    pmt_trace_free(t);
    return -1;
}

int pmt_read_stream(FILE *f, pmt_trace *t, pmt_error *e)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        goto nomem;
    for (;;) {
        if (n == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb)
                goto nomem;
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
    }
    if (ferror(f)) {
        int err = errno;
        free(buf);
        pmt_trace_init(t);
        if (e) {
            memset(e, 0, sizeof *e);
            snprintf(e->msg, sizeof e->msg, "read error: %s", strerror(err));
        }
        return -1;
    }
    int rc = pmt_parse(buf, n, t, e);
    free(buf);
    return rc;
nomem:
    free(buf);
    pmt_trace_init(t);
    if (e) {
        memset(e, 0, sizeof *e);
        snprintf(e->msg, sizeof e->msg, "out of memory");
    }
    return -1;
}

int pmt_read_file(const char *path, pmt_trace *t, pmt_error *e)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        pmt_trace_init(t);
        if (e) {
            memset(e, 0, sizeof *e);
            snprintf(e->msg, sizeof e->msg, "cannot open: %s", strerror(errno));
        }
        return -1;
    }
    int rc = pmt_read_stream(f, t, e);
    fclose(f);
    return rc;
}
