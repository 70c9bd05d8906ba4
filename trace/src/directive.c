/* Server directives of v2 scenario files ("@server ..." lines, documented in
 * traces/README.md, "Server scripts"): parsing with precise positions,
 * canonical writing, and the triggers that select requests. */
#define _POSIX_C_SOURCE 200809L
#include "pmitrace/match.h"
#include "pmitrace/trace.h"

#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const action_names[] = {
    [PMT_SA_DELAY] = "delay",   [PMT_SA_SPLIT] = "split",     [PMT_SA_BEFORE] = "before",
    [PMT_SA_AFTER] = "after",   [PMT_SA_ERROR] = "error",     [PMT_SA_REORDER] = "reorder",
    [PMT_SA_DROP] = "drop",     [PMT_SA_KILL] = "kill",       [PMT_SA_FAIL_FENCE] = "fail-fence",
};

const char *pmt_saction_name(pmt_saction a)
{
    return a >= PMT_SA_DELAY && a <= PMT_SA_FAIL_FENCE ? action_names[a] : "?";
}

static const struct {
    const char *name;
    int no;
} signames[] = {
    { "HUP", SIGHUP },   { "INT", SIGINT },   { "QUIT", SIGQUIT }, { "ILL", SIGILL },
    { "ABRT", SIGABRT }, { "BUS", SIGBUS },   { "FPE", SIGFPE },   { "KILL", SIGKILL },
    { "USR1", SIGUSR1 }, { "SEGV", SIGSEGV }, { "USR2", SIGUSR2 }, { "PIPE", SIGPIPE },
    { "ALRM", SIGALRM }, { "TERM", SIGTERM }, { "STOP", SIGSTOP }, { "CONT", SIGCONT },
};

/* ------------------------------------------------------------------ parsing */

typedef struct dp {
    const char *s;
    size_t n;
    size_t *errpos;
    char *err;
    size_t errlen;
} dp;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(dp *p, size_t at, const char *fmt, ...)
{
    *p->errpos = at;
    if (p->err && p->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err, p->errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static bool blank(char c)
{
    return c == ' ' || c == '\t';
}

static size_t skip(const dp *p, size_t i)
{
    while (i < p->n && blank(p->s[i]))
        i++;
    return i;
}

static size_t word_end(const dp *p, size_t i)
{
    while (i < p->n && !blank(p->s[i]))
        i++;
    return i;
}

static bool is_word(const dp *p, size_t i, size_t e, const char *w)
{
    return e - i == strlen(w) && memcmp(p->s + i, w, e - i) == 0;
}

static char *dupn(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        if (n)
            memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

/* A decimal number filling the token [i, e). */
static int number(dp *p, size_t i, size_t e, long long lo, long long hi, long long *out,
                  const char *what)
{
    bool neg = i < e && p->s[i] == '-' && lo < 0;
    size_t k = i + (neg ? 1 : 0);
    long long v = 0;
    if (k == e)
        return fail(p, i, "expected %s", what);
    for (; k < e; k++) {
        if (p->s[k] < '0' || p->s[k] > '9')
            return fail(p, k, "expected %s", what);
        v = v * 10 + (p->s[k] - '0');
        if (v > 1000000000LL)
            return fail(p, i, "%s out of range (%lld..%lld)", what, lo, hi);
    }
    if (neg)
        v = -v;
    if (v < lo || v > hi)
        return fail(p, i, "%s out of range (%lld..%lld)", what, lo, hi);
    *out = v;
    return 0;
}

/* The end of a quoted string that starts at s[i] == '"' (index after the
 * closing quote), or 0 when it is not closed. */
static size_t quote_end(const dp *p, size_t i)
{
    size_t q = i + 1;
    while (q < p->n && p->s[q] != '"') {
        if (p->s[q] == '\\' && q + 1 < p->n)
            q++;
        q++;
    }
    return q < p->n ? q + 1 : 0;
}

static int quoted(dp *p, size_t *i, char **out, size_t *outlen, bool nonempty)
{
    size_t e = quote_end(p, *i);
    if (!e)
        return fail(p, p->n, "expected the closing '\"'");
    size_t slen = e - *i - 2;
    if (nonempty && slen == 0)
        return fail(p, *i, "expected at least one byte between the quotes");
    char *b = malloc(slen + 1);
    if (!b)
        return fail(p, *i, "out of memory");
    size_t ep = 0;
    char m[120];
    if (pmt_unescape(p->s + *i + 1, slen, b, outlen, &ep, m, sizeof m)) {
        free(b);
        return fail(p, *i + 1 + ep, "%s", m);
    }
    b[*outlen] = 0;
    *out = b;
    *i = e;
    return 0;
}

/* Nothing but blanks, or blanks and a " # comment", from i on. */
static int at_end(dp *p, size_t i, const char *after)
{
    size_t j = skip(p, i);
    if (j == p->n || (p->s[j] == '#' && j > i))
        return 0;
    return fail(p, j, "expected the end of the line or a ' # comment' after %s", after);
}

/* Where the trigger ends: the first "->" token outside quotes. */
static size_t find_arrow(const dp *p, size_t i)
{
    while (i < p->n) {
        if (p->s[i] == '"') {
            size_t e = quote_end(p, i);
            if (!e)
                return p->n;
            i = e;
            continue;
        }
        if (p->s[i] == '-' && i + 1 < p->n && p->s[i + 1] == '>' && (i == 0 || blank(p->s[i - 1])) &&
            (i + 2 == p->n || blank(p->s[i + 2])))
            return i;
        i++;
    }
    return p->n;
}

/* A " #" comment outside quotes, or the end. */
static size_t comment_start(const dp *p, size_t i)
{
    while (i < p->n) {
        if (p->s[i] == '"') {
            size_t e = quote_end(p, i);
            if (!e)
                return p->n;
            i = e;
            continue;
        }
        if (p->s[i] == '#' && i > 0 && blank(p->s[i - 1]))
            return i;
        i++;
    }
    return p->n;
}

static int parse_signal(dp *p, size_t i, size_t e, int *out)
{
    size_t k = i;
    if (e - k > 3 && memcmp(p->s + k, "SIG", 3) == 0)
        k += 3;
    for (size_t j = 0; j < sizeof signames / sizeof signames[0]; j++)
        if (is_word(p, k, e, signames[j].name)) {
            *out = signames[j].no;
            return 0;
        }
    long long v;
    if (p->s[i] >= '0' && p->s[i] <= '9') {
        if (number(p, i, e, 1, 64, &v, "a signal number"))
            return -1;
        *out = (int)v;
        return 0;
    }
    return fail(p, i, "expected a signal: a number (1..64) or a name (KILL, TERM, SEGV, ...)");
}

/* before/after: "bytes", raw "bytes" or msg <pattern>. */
static int parse_body(dp *p, size_t i, pmt_directive *d)
{
    size_t e = word_end(p, i);
    if (is_word(p, i, e, "msg")) {
        size_t a = skip(p, e);
        size_t end = comment_start(p, a);
        while (end > a && blank(p->s[end - 1]))
            end--;
        if (a >= end)
            return fail(p, a, "expected a message pattern after msg (\"v2 kvs-get-response rc=0\")");
        pmt_pattern pat;
        size_t ep = 0;
        char m[160];
        if (pmt_pattern_parse(p->s + a, end - a, &pat, &ep, m, sizeof m))
            return fail(p, a + ep, "%s", m);
        for (size_t k = 0; k < pat.n; k++)
            if (pat.pairs[k].kind != PMT_PV_LIT) {
                fail(p, a, "a message the server sends is written out: no *, ~regex or "
                           "${name} (key %s)", pat.pairs[k].key);
                pmt_pattern_free(&pat);
                return -1;
            }
        pmt_pattern_free(&pat);
        d->form = PMT_FORM_MSG;
        d->data_col = (uint32_t)a;
        if (!(d->data = dupn(p->s + a, end - a)))
            return fail(p, a, "out of memory");
        d->len = end - a;
        return 0;
    }
    if (is_word(p, i, e, "raw"))
        i = skip(p, e);
    if (i >= p->n || p->s[i] != '"')
        return fail(p, i, "expected \"bytes\", raw \"bytes\" or msg <pattern> after %s",
                    pmt_saction_name(d->action));
    d->form = PMT_FORM_RAW;
    d->data_col = (uint32_t)i;
    if (quoted(p, &i, &d->data, &d->len, true))
        return -1;
    return at_end(p, i, "the closing '\"'");
}

/* Optional [RC] ["text"] of error and fail-fence. */
static int parse_rc_text(dp *p, size_t last, pmt_directive *d, bool need_rc)
{
    size_t i = skip(p, last);
    size_t e = word_end(p, i);
    bool has_rc = i < p->n && p->s[i] != '"' && p->s[i] != '#';
    if (has_rc) {
        long long v;
        if (number(p, i, e, -999999999, 999999999, &v, "an rc (a non-zero integer)"))
            return -1;
        if (v == 0)
            return fail(p, i, "an rc of 0 means success: an error needs a non-zero rc");
        d->rc = (int)v;
        last = e;
        i = skip(p, e);
    } else if (need_rc) {
        return fail(p, i, "expected the rc to answer with (error RC [\"text\"])");
    }
    if (i < p->n && p->s[i] == '"') {
        size_t tl = 0, at = i;
        if (quoted(p, &i, &d->text, &tl, true))
            return -1;
        if (memchr(d->text, 0, tl))
            return fail(p, at, "an error text cannot hold a NUL byte");
        last = i;
    }
    return at_end(p, last, pmt_saction_name(d->action));
}

void pmt_directive_free(pmt_directive *d)
{
    free(d->trigger);
    free(d->text);
    free(d->data);
    memset(d, 0, sizeof *d);
}

int pmt_directive_parse(const char *text, size_t len, pmt_directive *d, size_t *errpos, char *err,
                        size_t errlen)
{
    size_t dummy;
    dp P = { text, len, errpos ? errpos : &dummy, err, errlen }, *p = &P;
    memset(d, 0, sizeof *d);
    d->rank = -1;
    size_t i = skip(p, 0);
    bool have_rank = false, have_nth = false;
    for (;;) {
        size_t e = word_end(p, i);
        long long v;
        if (e - i > 5 && memcmp(p->s + i, "rank=", 5) == 0) {
            if (have_rank)
                return fail(p, i, "rank= given twice");
            if (number(p, i + 5, e, 0, 99999999, &v, "a rank (0..99999999)"))
                return -1;
            d->rank = (int)v;
            have_rank = true;
        } else if (e - i > 4 && memcmp(p->s + i, "nth=", 4) == 0) {
            if (have_nth)
                return fail(p, i, "nth= given twice");
            if (number(p, i + 4, e, 1, 99999999, &v, "an occurrence (nth counts from 1)"))
                return -1;
            d->nth = (uint32_t)v;
            have_nth = true;
        } else {
            break;
        }
        i = skip(p, e);
    }
    size_t arrow = find_arrow(p, i);
    if (arrow >= p->n) {
        if (i >= p->n)
            return fail(p, i, "expected a trigger (* or a request pattern) and '-> <action>'");
        return fail(p, p->n, "expected '-> <action>' after the trigger");
    }
    size_t te = arrow;
    while (te > i && blank(p->s[te - 1]))
        te--;
    if (te == i)
        return fail(p, i, "expected a trigger before '->': * or a request pattern (\"v2 kvs-get key=k1\")");
    d->trigger_col = (uint32_t)i;
    if (!(te - i == 1 && p->s[i] == '*')) {
        char *t = dupn(p->s + i, te - i);
        pmt_trigger tr;
        size_t ep = 0;
        char m[160];
        if (!t)
            return fail(p, i, "out of memory");
        if (pmt_trigger_compile(t, &tr, &ep, m, sizeof m)) {
            free(t);
            return fail(p, i + ep, "%s", m);
        }
        pmt_trigger_free(&tr);
        d->trigger = t;
    }

    size_t a = skip(p, arrow + 2);
    size_t e = word_end(p, a);
    int act = -1;
    for (int k = PMT_SA_DELAY; k <= PMT_SA_FAIL_FENCE; k++)
        if (is_word(p, a, e, action_names[k]))
            act = k;
    if (act < 0) {
        fail(p, a, "expected an action: delay, split, before, after, error, reorder, drop, kill "
                   "or fail-fence");
        goto bad;
    }
    d->action = (pmt_saction)act;
    size_t i2 = skip(p, e), e2 = word_end(p, i2);
    long long v;
    int rc = 0;
    switch (d->action) {
    case PMT_SA_DELAY:
        rc = number(p, i2, e2, 1, 99999999, &v, "milliseconds (delay MS)");
        d->ms = (uint32_t)v;
        if (!rc)
            rc = at_end(p, e2, "delay MS");
        break;
    case PMT_SA_SPLIT:
        rc = number(p, i2, e2, 1, 99999999, &v, "a byte offset (split OFFSET [gap MS])");
        if (rc)
            break;
        d->offset = (uint32_t)v;
        d->ms = PMT_SPLIT_GAP_MS;
        {
            size_t i3 = skip(p, e2), e3 = word_end(p, i3);
            if (is_word(p, i3, e3, "gap")) {
                size_t i4 = skip(p, e3), e4 = word_end(p, i4);
                if ((rc = number(p, i4, e4, 0, 99999999, &v, "milliseconds after gap")))
                    break;
                d->ms = (uint32_t)v;
                e2 = e4;
            }
        }
        rc = at_end(p, e2, "split OFFSET [gap MS]");
        break;
    case PMT_SA_BEFORE:
    case PMT_SA_AFTER:
        if (i2 >= p->n)
            rc = fail(p, i2, "expected \"bytes\", raw \"bytes\" or msg <pattern>");
        else
            rc = parse_body(p, i2, d);
        break;
    case PMT_SA_ERROR:
    case PMT_SA_FAIL_FENCE:
        rc = parse_rc_text(p, e, d, d->action == PMT_SA_ERROR);
        break;
    case PMT_SA_REORDER:
        if (i2 < p->n && p->s[i2] != '#') {
            if ((rc = number(p, i2, e2, 1, 99999999, &v, "milliseconds (reorder [MS])")))
                break;
            d->ms = (uint32_t)v;
            rc = at_end(p, e2, "reorder MS");
        }
        break;
    case PMT_SA_DROP:
        rc = at_end(p, e, "drop");
        break;
    case PMT_SA_KILL:
        if (i2 < p->n && p->s[i2] != '#') {
            if ((rc = parse_signal(p, i2, e2, &d->signo)))
                break;
            rc = at_end(p, e2, "kill SIGNAL");
        }
        break;
    }
    if (rc)
        goto bad;
    return 0;
bad:
    pmt_directive_free(d);
    return -1;
}

/* ------------------------------------------------------------------ writing */

static int put_quoted(FILE *f, const char *s, size_t n)
{
    size_t need = pmt_escaped_len(s, n);
    char *b = malloc(need + 1);
    if (!b)
        return -1;
    pmt_escape(s, n, b, need + 1);
    int rc = fprintf(f, " \"%s\"", b) < 0 ? -1 : 0;
    free(b);
    return rc;
}

int pmt_write_directive(FILE *f, const pmt_directive *d)
{
    if (fputs("@server", f) == EOF)
        return -1;
    if (d->rank >= 0 && fprintf(f, " rank=%d", d->rank) < 0)
        return -1;
    if (d->nth && fprintf(f, " nth=%u", d->nth) < 0)
        return -1;
    if (fprintf(f, " %s -> %s", d->trigger ? d->trigger : "*", pmt_saction_name(d->action)) < 0)
        return -1;
    int rc = 0;
    switch (d->action) {
    case PMT_SA_DELAY:
        rc = fprintf(f, " %u", d->ms);
        break;
    case PMT_SA_SPLIT:
        rc = fprintf(f, " %u gap %u", d->offset, d->ms);
        break;
    case PMT_SA_BEFORE:
    case PMT_SA_AFTER:
        if (d->form == PMT_FORM_MSG)
            rc = fprintf(f, " msg %.*s", (int)d->len, d->data);
        else
            rc = put_quoted(f, d->data, d->len);
        break;
    case PMT_SA_ERROR:
    case PMT_SA_FAIL_FENCE:
        if (d->rc)
            rc = fprintf(f, " %d", d->rc);
        if (rc >= 0 && d->text)
            rc = put_quoted(f, d->text, strlen(d->text));
        break;
    case PMT_SA_REORDER:
        if (d->ms)
            rc = fprintf(f, " %u", d->ms);
        break;
    case PMT_SA_DROP:
        break;
    case PMT_SA_KILL:
        if (d->signo) {
            const char *name = NULL;
            for (size_t j = 0; j < sizeof signames / sizeof signames[0]; j++)
                if (signames[j].no == d->signo)
                    name = signames[j].name;
            rc = name ? fprintf(f, " %s", name) : fprintf(f, " %d", d->signo);
        }
        break;
    default:
        return -1;
    }
    if (rc < 0 || fputc('\n', f) == EOF)
        return -1;
    return 0;
}

/* A directive built in memory is kept only when its canonical line reads
 * back: what a trace holds can always be written and read again. */
int pmt_add_directive(pmt_trace *t, const pmt_directive *d)
{
    char *mem = NULL;
    size_t mlen = 0;
    FILE *f = open_memstream(&mem, &mlen);
    if (!f)
        return -1;
    int wrc = pmt_write_directive(f, d);
    if (fclose(f) != 0 || wrc != 0 || mlen < 9 || memchr(mem, '\n', mlen) != mem + mlen - 1) {
        free(mem);
        return -1;
    }
    pmt_directive c;
    int rc = pmt_directive_parse(mem + 8, mlen - 9, &c, NULL, NULL, 0);
    free(mem);
    if (rc)
        return -1;
    if (t->ndirectives == t->cap_directives) {
        size_t cap = t->cap_directives ? t->cap_directives * 2 : 8;
        pmt_directive *nd = realloc(t->directives, cap * sizeof *nd);
        if (!nd) {
            pmt_directive_free(&c);
            return -1;
        }
        t->directives = nd;
        t->cap_directives = cap;
    }
    c.line = d->line;
    c.trigger_col = d->trigger_col;
    c.data_col = d->data_col;
    t->directives[t->ndirectives++] = c;
    return 0;
}

/* ----------------------------------------------------------------- triggers */

void pmt_trigger_free(pmt_trigger *t)
{
    pmt_pattern_free(&t->p);
    pmt_pattern_free(&t->p1);
    memset(t, 0, sizeof *t);
}

int pmt_trigger_compile(const char *text, pmt_trigger *t, size_t *errpos, char *err,
                        size_t errlen)
{
    size_t dummy;
    if (!errpos)
        errpos = &dummy;
    memset(t, 0, sizeof *t);
    size_t n = text ? strlen(text) : 0, i = 0;
    while (i < n && blank(text[i]))
        i++;
    size_t e = i;
    while (e < n && !blank(text[e]))
        e++;
    if (!text || (e - i == 1 && text[i] == '*' && e == n)) {
        t->any = true;
        return 0;
    }
    bool wire = (e - i == 2 && (!memcmp(text + i, "v1", 2) || !memcmp(text + i, "v2", 2))) ||
                (e - i == 4 && !memcmp(text + i, "mcmd", 4));
    if (wire) {
        if (pmt_pattern_parse(text, n, &t->p, errpos, err, errlen))
            return -1;
        t->p.open = true;
        return 0;
    }
    /* no wire: the same pattern for either wire */
    char *b = malloc(n + 4);
    if (!b) {
        *errpos = 0;
        if (err && errlen)
            snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(b, "v2 ", 3);
    memcpy(b + 3, text, n + 1);
    size_t ep = 0;
    if (pmt_pattern_parse(b, n + 3, &t->p, &ep, err, errlen)) {
        *errpos = ep >= 3 ? ep - 3 : 0;
        free(b);
        return -1;
    }
    b[1] = '1';
    if (pmt_pattern_parse(b, n + 3, &t->p1, &ep, err, errlen)) {
        *errpos = ep >= 3 ? ep - 3 : 0;
        free(b);
        pmt_trigger_free(t);
        return -1;
    }
    free(b);
    t->p.open = t->p1.open = true;
    t->anywire = true;
    return 0;
}

bool pmt_trigger_match(const pmt_trigger *t, const pmc_msg *m, pmt_vars *v)
{
    if (t->any)
        return true;
    if (pmt_match(&t->p, m, v, NULL, NULL, NULL, 0))
        return true;
    return t->anywire && pmt_match(&t->p1, m, v, NULL, NULL, NULL, 0);
}

const char *pmt_trigger_cmd(const pmt_trigger *t)
{
    return t->any ? NULL : t->p.cmd;
}
