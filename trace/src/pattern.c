/* Message patterns of v2 scenarios: parsing, rendering to wire bytes
 * through the encoder, and message-level matching against decoded input. */
#include "pmitrace/match.h"

#include <regex.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void say(char *buf, size_t n, const char *fmt, ...)
{
    if (!buf || !n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, n, fmt, ap);
    va_end(ap);
}

void pmt_pattern_free(pmt_pattern *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->pairs[i].key);
        free(p->pairs[i].val);
        if (p->pairs[i].re) {
            regfree(p->pairs[i].re);
            free(p->pairs[i].re);
        }
    }
    free(p->pairs);
    free(p->cmd);
    free(p->raw);
    memset(p, 0, sizeof *p);
}

static pmt_ppair *add_pair(pmt_pattern *p, size_t *cap)
{
    if (p->n == *cap) {
        size_t c = *cap ? *cap * 2 : 8;
        pmt_ppair *a = realloc(p->pairs, c * sizeof *a);
        if (!a)
            return NULL;
        p->pairs = a;
        *cap = c;
    }
    pmt_ppair *pp = &p->pairs[p->n++];
    memset(pp, 0, sizeof *pp);
    return pp;
}

static bool isblank_(char c)
{
    return c == ' ' || c == '\t';
}

/* A quoted string at s[i] == '"': unescape into a new buffer. */
static int quoted(const char *s, size_t len, size_t *i, char **out, size_t *outlen,
                  size_t *errpos, char *err, size_t errlen)
{
    size_t q = *i + 1;
    while (q < len && s[q] != '"') {
        if (s[q] == '\\' && q + 1 < len)
            q++;
        q++;
    }
    if (q >= len) {
        *errpos = len;
        say(err, errlen, "expected the closing '\"'");
        return -1;
    }
    char *b = malloc(q - *i);
    if (!b) {
        say(err, errlen, "out of memory");
        return -1;
    }
    size_t ep = 0;
    if (pmt_unescape(s + *i + 1, q - *i - 1, b, outlen, &ep, err, errlen)) {
        free(b);
        *errpos = *i + 1 + ep;
        return -1;
    }
    b[*outlen] = 0;
    *out = b;
    *i = q + 1;
    return 0;
}

/* glibc's regcomp takes time and memory that grow steeply with stacked,
 * nested or counted repetitions ("0****...", "(()|a)*" repeated, "(a|()){1,255}"):
 * a trace must not be able to stall the reader.  Values in PMI messages need
 * none of that, so a match regex is held to: at most PMT_RX_MAX_LEN bytes,
 * PMT_RX_MAX_REPS repetition operators, none right after another, and counts
 * in {m,n} of at most PMT_RX_MAX_COUNT.  NULL when the regex is within them,
 * else what it broke. */
enum { PMT_RX_MAX_LEN = 256, PMT_RX_MAX_REPS = 8, PMT_RX_MAX_COUNT = 16 };

static const char *regex_too_costly(const char *rx, size_t n)
{
    if (n > PMT_RX_MAX_LEN)
        return "longer than 256 bytes";
    unsigned reps = 0;
    bool after_rep = false;
    for (size_t i = 0; i < n; i++) {
        char c = rx[i];
        if (c == '\\') { /* an escaped byte is an atom */
            i++;
            after_rep = false;
            continue;
        }
        if (c == '[') { /* a bracket expression is an atom: skip to its ']' */
            size_t j = i + 1;
            if (j < n && rx[j] == '^')
                j++;
            if (j < n && rx[j] == ']')
                j++;
            while (j < n && rx[j] != ']') {
                if (rx[j] == '[' && j + 1 < n && (rx[j + 1] == ':' || rx[j + 1] == '.' ||
                                                  rx[j + 1] == '=')) {
                    char close = rx[j + 1];
                    j += 2;
                    while (j + 1 < n && !(rx[j] == close && rx[j + 1] == ']'))
                        j++;
                    j++;
                }
                j++;
            }
            i = j;
            after_rep = false;
            continue;
        }
        if (c == '*' || c == '+' || c == '?' || c == '{') {
            if (after_rep)
                return "a repetition operator right after another";
            if (++reps > PMT_RX_MAX_REPS)
                return "more than 8 repetition operators";
            if (c == '{') {
                long v = 0;
                size_t j = i + 1;
                for (; j < n && rx[j] != '}'; j++) {
                    if (rx[j] >= '0' && rx[j] <= '9') {
                        v = v * 10 + (rx[j] - '0');
                        if (v > PMT_RX_MAX_COUNT)
                            return "a repetition count above 16";
                    } else {
                        v = 0; /* the ',' between m and n */
                    }
                }
                i = j;
            }
            after_rep = true;
            continue;
        }
        after_rep = false;
    }
    return NULL;
}

int pmt_pattern_parse(const char *s, size_t len, pmt_pattern *p, size_t *errpos, char *err,
                      size_t errlen)
{
    size_t dummy;
    if (!errpos)
        errpos = &dummy;
    memset(p, 0, sizeof *p);
    size_t i = 0, cap = 0;
    while (i < len && isblank_(s[i]))
        i++;
    size_t w = i;
    while (w < len && !isblank_(s[w]))
        w++;
    if (w - i == 2 && !memcmp(s + i, "v1", 2))
        p->wire = PMC_WIRE_V1;
    else if (w - i == 2 && !memcmp(s + i, "v2", 2))
        p->wire = PMC_WIRE_V2;
    else if (w - i == 4 && !memcmp(s + i, "mcmd", 4))
        p->wire = PMC_WIRE_V1_MCMD;
    else {
        *errpos = i;
        say(err, errlen, "expected the wire form: v1, v2 or mcmd");
        return -1;
    }
    i = w;
    while (i < len && isblank_(s[i]))
        i++;
    w = i;
    while (w < len && !isblank_(s[w]))
        w++;
    if (w == i) {
        *errpos = i;
        say(err, errlen, "expected the command name");
        return -1;
    }
    for (size_t k = i; k < w; k++)
        if (!((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z') ||
              (s[k] >= '0' && s[k] <= '9') || s[k] == '_' || s[k] == '-')) {
            *errpos = k;
            say(err, errlen, "expected a command name of [-_A-Za-z0-9]");
            return -1;
        }
    if (!(p->cmd = dupn(s + i, w - i)))
        goto nomem;
    i = w;
    for (;;) {
        while (i < len && isblank_(s[i]))
            i++;
        if (i >= len || s[i] == '#')
            break;
        if (p->open) {
            *errpos = i;
            say(err, errlen, "\"...\" must be the last token");
            goto fail;
        }
        if (len - i >= 3 && !memcmp(s + i, "...", 3) && (i + 3 == len || isblank_(s[i + 3]))) {
            p->open = true;
            i += 3;
            continue;
        }
        size_t k = i;
        while (k < len && s[k] != '=' && !isblank_(s[k]))
            k++;
        if (k == i || k >= len || s[k] != '=') {
            *errpos = k;
            say(err, errlen, "expected key=value");
            goto fail;
        }
        pmt_ppair *pp = add_pair(p, &cap);
        if (!pp || !(pp->key = dupn(s + i, k - i)))
            goto nomem;
        i = k + 1;
        bool tilde = false;
        if (i < len && s[i] == '~') {
            tilde = true;
            i++;
        }
        if (i < len && s[i] == '"') {
            if (quoted(s, len, &i, &pp->val, &pp->vlen, errpos, err, errlen))
                goto fail;
            if (i < len && !isblank_(s[i])) {
                *errpos = i;
                say(err, errlen, "expected a blank after the closing '\"'");
                goto fail;
            }
            pp->kind = tilde ? PMT_PV_REGEX : PMT_PV_LIT;
        } else {
            size_t e = i;
            while (e < len && !isblank_(s[e]) && s[e] != '"')
                e++;
            if (e < len && s[e] == '"') {
                *errpos = e;
                say(err, errlen, "a value with '\"' must be quoted as a whole");
                goto fail;
            }
            if (!(pp->val = dupn(s + i, e - i)))
                goto nomem;
            pp->vlen = e - i;
            if (tilde)
                pp->kind = PMT_PV_REGEX;
            else if (pp->vlen == 1 && pp->val[0] == '*')
                pp->kind = PMT_PV_ANY;
            else if (pp->vlen >= 4 && pp->val[0] == '$' && pp->val[1] == '{' &&
                     pp->val[pp->vlen - 1] == '}') {
                pp->kind = PMT_PV_VAR;
                memmove(pp->val, pp->val + 2, pp->vlen - 3);
                pp->vlen -= 3;
                pp->val[pp->vlen] = 0;
                for (size_t c = 0; c < pp->vlen; c++)
                    if (!((pp->val[c] >= 'a' && pp->val[c] <= 'z') ||
                          (pp->val[c] >= 'A' && pp->val[c] <= 'Z') ||
                          (pp->val[c] >= '0' && pp->val[c] <= '9') || pp->val[c] == '_')) {
                        *errpos = i + 2 + c;
                        say(err, errlen, "variable names are [A-Za-z0-9_]");
                        goto fail;
                    }
            }
            i = e;
        }
        if (pp->kind == PMT_PV_REGEX) {
            const char *why = regex_too_costly(pp->val, pp->vlen);
            if (why) {
                *errpos = i;
                say(err, errlen, "regex for %s refused: %s (limits: 256 bytes, 8 repetitions, "
                    "counts up to 16, no stacked repetitions)", pp->key, why);
                goto fail;
            }
            /* anchored: the whole value must match */
            size_t rl = pp->vlen + 5;
            char *rx = malloc(rl);
            regex_t *re = malloc(sizeof *re);
            if (!rx || !re) {
                free(rx);
                free(re);
                goto nomem;
            }
            snprintf(rx, rl, "^(%s)$", pp->val);
            int rc = regcomp(re, rx, REG_EXTENDED | REG_NOSUB);
            free(rx);
            if (rc) {
                char m[120];
                regerror(rc, re, m, sizeof m);
                free(re);
                *errpos = i;
                say(err, errlen, "bad regex for %s: %s", pp->key, m);
                goto fail;
            }
            pp->re = re;
        }
    }
    return 0;
nomem:
    say(err, errlen, "out of memory");
fail:
    pmt_pattern_free(p);
    return -1;
}

int pmt_pattern_from_msg(const pmc_msg *m, pmt_pattern *p)
{
    memset(p, 0, sizeof *p);
    size_t cap = 0;
    p->wire = m->wire;
    p->recorded = true;
    p->notes = m->notes;
    if (!(p->cmd = dupn(m->name.ptr, m->name.len)) ||
        !(p->raw = dupn(m->raw.ptr, m->raw.len)))
        goto nomem;
    p->rawlen = m->raw.len;
    for (size_t i = 0; i < m->npairs; i++) {
        pmt_ppair *pp = add_pair(p, &cap);
        if (!pp || !(pp->key = dupn(m->pairs[i].key.ptr, m->pairs[i].key.len)) ||
            !(pp->val = dupn(m->pairs[i].val.ptr, m->pairs[i].val.len)))
            goto nomem;
        pp->vlen = m->pairs[i].val.len;
    }
    return 0;
nomem:
    pmt_pattern_free(p);
    return -1;
}

/* Append printable text of bytes (escaped when not plain). */
static size_t app(char *buf, size_t n, size_t at, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        char tmp[5];
        size_t k;
        if (c >= 0x20 && c < 0x7f) {
            tmp[0] = (char)c;
            k = 1;
        } else {
            k = pmt_escape(s + i, 1, tmp, sizeof tmp);
        }
        for (size_t j = 0; j < k; j++, at++)
            if (at + 1 < n)
                buf[at] = tmp[j];
    }
    if (n)
        buf[at < n ? at : n - 1] = 0;
    return at;
}

size_t pmt_pattern_text(const pmt_pattern *p, char *buf, size_t n)
{
    size_t at = 0;
    const char *w = pmc_wire_name(p->wire);
    at = app(buf, n, at, w, strlen(w));
    at = app(buf, n, at, " ", 1);
    at = app(buf, n, at, p->cmd, strlen(p->cmd));
    for (size_t i = 0; i < p->n; i++) {
        const pmt_ppair *pp = &p->pairs[i];
        at = app(buf, n, at, " ", 1);
        at = app(buf, n, at, pp->key, strlen(pp->key));
        at = app(buf, n, at, "=", 1);
        if (pp->kind == PMT_PV_REGEX)
            at = app(buf, n, at, "~", 1);
        if (pp->kind == PMT_PV_VAR)
            at = app(buf, n, at, "${", 2);
        at = app(buf, n, at, pp->val, pp->vlen);
        if (pp->kind == PMT_PV_VAR)
            at = app(buf, n, at, "}", 1);
    }
    if (p->open)
        at = app(buf, n, at, " ...", 4);
    return at;
}

size_t pmt_msg_text(const pmc_msg *m, char *buf, size_t n)
{
    size_t at = 0;
    const char *w = pmc_wire_name(m->wire);
    at = app(buf, n, at, w, strlen(w));
    at = app(buf, n, at, " ", 1);
    at = app(buf, n, at, m->name.ptr, m->name.len);
    for (size_t i = 0; i < m->npairs; i++) {
        at = app(buf, n, at, " ", 1);
        at = app(buf, n, at, m->pairs[i].key.ptr, m->pairs[i].key.len);
        if (!(m->pairs[i].flags & PMC_PAIR_BARE)) {
            at = app(buf, n, at, "=", 1);
            at = app(buf, n, at, m->pairs[i].val.ptr, m->pairs[i].val.len);
        }
    }
    return at;
}

/* ------------------------------------------------------------- render */

int pmt_pattern_render(const pmt_pattern *p, const pmt_vars *v, const pmc_dialect *d,
                       pmc_out *out, char *err, size_t errlen)
{
    pmc_out vals = { 0 };
    size_t *off = calloc(p->n + 1, sizeof *off);
    size_t *vl = calloc(p->n + 1, sizeof *vl);
    int rc = -1;
    bool changed = false;
    if (!off || !vl) {
        say(err, errlen, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < p->n; i++) {
        const pmt_ppair *pp = &p->pairs[i];
        off[i] = vals.len;
        if (pp->kind == PMT_PV_ANY || pp->kind == PMT_PV_REGEX) {
            say(err, errlen, "%s: a wildcard cannot be sent", pp->key);
            goto done;
        }
        if (pp->kind == PMT_PV_VAR) {
            size_t l;
            const char *x = v ? pmt_vars_get(v, pp->val, &l) : NULL;
            if (!x) {
                say(err, errlen, "%s: variable ${%s} is not bound", pp->key, pp->val);
                goto done;
            }
            if (pmc_out_append(&vals, x, l))
                goto nomem;
            changed = true;
        } else {
            int s = pmt_vars_subst(v, pp->val, pp->vlen, &vals);
            if (s < 0)
                goto nomem;
            changed |= s == 1;
        }
        vl[i] = vals.len - off[i];
    }
    if (p->recorded && !changed) {
        /* unchanged: the exact recorded bytes (junk, padding, escapes kept) */
        rc = pmc_out_append(out, p->raw, p->rawlen);
        goto done;
    }
    pmc_dialect dl = d ? *d : pmc_dialect_strict;
    if (p->recorded) {
        /* keep the recorded framing style */
        dl = pmc_dialect_strict;
        dl.len_pad = (p->notes & PMC_NOTE_LEN_LEFT)   ? PMC_PAD_LEFT
                     : (p->notes & PMC_NOTE_LEN_ZERO) ? PMC_PAD_ZERO
                                                      : PMC_PAD_RIGHT;
        dl.escape_semi = true;
        dl.v1_backslash = (p->notes & PMC_NOTE_V1_BACKSLASH) != 0;
        dl.rc_pos = PMC_POS_KEEP;
        dl.thrid_pos = PMC_POS_KEEP;
    }
    pmc_enc e;
    pmc_enc_begin(&e, p->wire, p->cmd);
    for (size_t i = 0; i < p->n; i++)
        pmc_enc_slice(&e, pmc_slice_cstr(p->pairs[i].key),
                      (pmc_slice){ vals.buf ? vals.buf + off[i] : "", vl[i] });
    pmc_error pe;
    if (pmc_enc_end(&e, &dl, out, &pe)) {
        char eb[300];
        pmc_error_format(&pe, eb, sizeof eb);
        say(err, errlen, "encoder: %s", eb);
        goto done;
    }
    rc = 0;
    goto done;
nomem:
    say(err, errlen, "out of memory");
done:
    pmc_out_free(&vals);
    free(off);
    free(vl);
    return rc;
}

/* -------------------------------------------------------------- match */

static const char *const dflt_keys[] = { "kvsname", "jobid", "port", "hostname", "host", NULL };
static const char *const dflt_kvs[] = { "businesscard", "-bcast-", "-allgather-shm-", "PMI_hostname",
                                         "hwloc", NULL };
static const pmt_match_opts dflt = { dflt_keys, dflt_kvs };

const pmt_match_opts *pmt_match_opts_default(void)
{
    return &dflt;
}

static bool in_list(const char *const *l, const char *s, size_t n, bool substring)
{
    for (size_t i = 0; l && l[i]; i++) {
        size_t k = strlen(l[i]);
        if (!substring) {
            if (k == n && !memcmp(l[i], s, n))
                return true;
        } else {
            for (size_t j = 0; j + k <= n; j++)
                if (!memcmp(s + j, l[i], k))
                    return true;
        }
    }
    return false;
}

typedef struct bind {
    const char *name;
    pmc_slice val;
    bool map; /* a recorded->live mapping instead of a variable */
    const char *from;
    size_t flen;
} bind;

/* Compare one expected pair with one actual value. */
static bool value_ok(const pmt_pattern *p, const pmt_ppair *pp, pmc_slice a, const pmt_vars *v,
                     const pmt_match_opts *o, const char *kvskey, bind *b, size_t *nb, char *why,
                     size_t wl)
{
    switch (pp->kind) {
    case PMT_PV_ANY:
        return true;
    case PMT_PV_REGEX: {
        char *z = dupn(a.ptr, a.len);
        bool ok = z && memchr(a.ptr, 0, a.len) == NULL && regexec(pp->re, z, 0, NULL, 0) == 0;
        free(z);
        if (!ok)
            say(why, wl, "%s: value does not match ~%s", pp->key, pp->val);
        return ok;
    }
    case PMT_PV_VAR: {
        size_t l;
        const char *x = pmt_vars_get(v, pp->val, &l);
        for (size_t i = 0; !x && i < *nb; i++)
            if (!b[i].map && !strcmp(b[i].name, pp->val)) {
                x = b[i].val.ptr;
                l = b[i].val.len;
            }
        if (!x) {
            b[(*nb)++] = (bind){ pp->val, a, false, NULL, 0 };
            return true;
        }
        if (l == a.len && !memcmp(x, a.ptr, l))
            return true;
        say(why, wl, "%s: ${%s} was \"%.*s\"", pp->key, pp->val, (int)(l > 60 ? 60 : l), x);
        return false;
    }
    case PMT_PV_LIT:
        break;
    }
    if (pp->vlen == a.len && !memcmp(pp->val, a.ptr, a.len))
        return true;
    if (p->recorded) {
        pmc_out s = { 0 };
        int r = pmt_vars_subst(v, pp->val, pp->vlen, &s);
        bool eq = r >= 0 && s.len == a.len && (a.len == 0 || !memcmp(s.buf, a.ptr, a.len));
        pmc_out_free(&s);
        if (eq)
            return true;
        bool tol = in_list(o->keys, pp->key, strlen(pp->key), false);
        if (!tol && kvskey && (!strcmp(pp->key, "value") || !strcmp(pp->key, "val")))
            tol = in_list(o->kvskeys, kvskey, strlen(kvskey), true);
        if (tol) {
            b[(*nb)++] = (bind){ NULL, a, true, pp->val, pp->vlen };
            return true;
        }
    }
    say(why, wl, "%s: expected \"%.*s\", got \"%.*s\"", pp->key, (int)(pp->vlen > 60 ? 60 : pp->vlen),
        pp->val, (int)(a.len > 60 ? 60 : a.len), a.ptr);
    return false;
}

bool pmt_match(const pmt_pattern *p, const pmc_msg *m, pmt_vars *v, const pmt_match_opts *o,
               const char *kvskey, char *why, size_t wl)
{
    if (!o)
        o = &dflt;
    bool mwire_v1 = m->wire == PMC_WIRE_V1 || m->wire == PMC_WIRE_V1_MCMD;
    bool pwire_v1 = p->wire == PMC_WIRE_V1 || p->wire == PMC_WIRE_V1_MCMD;
    if (mwire_v1 != pwire_v1) {
        say(why, wl, "wire: expected %s, got %s", pmc_wire_name(p->wire), pmc_wire_name(m->wire));
        return false;
    }
    if (!pmc_slice_eq(m->name, p->cmd)) {
        say(why, wl, "command: expected %s, got %.*s", p->cmd, (int)m->name.len, m->name.ptr);
        return false;
    }
    /* the KVS key the message talks about: its own key=, else the request's */
    char ownkey[80] = "";
    pmc_slice ks;
    if (pmc_msg_get(m, "key", &ks))
        pmc_slice_copy(ks, ownkey, sizeof ownkey);
    if (ownkey[0])
        kvskey = ownkey;

    bind *b = calloc(p->n + 1, sizeof *b);
    bool *used = calloc(m->npairs + 1, sizeof *used);
    bool ok = b && used;
    size_t nb = 0;
    /* repeated keys (spawn segments) are compared in order, others as a set (KVS pair order) */
    bool ordered = (m->notes & PMC_NOTE_DUP_KEY) != 0 || m->wire == PMC_WIRE_V1_MCMD;
    for (size_t i = 0; ok && i < p->n && !ordered; i++)
        for (size_t j = i + 1; j < p->n; j++)
            if (!strcmp(p->pairs[i].key, p->pairs[j].key))
                ordered = true;
    if (!ok)
        say(why, wl, "out of memory");
    size_t next = 0;
    for (size_t i = 0; ok && i < p->n; i++) {
        const pmt_ppair *pp = &p->pairs[i];
        size_t j = ordered ? next : 0;
        for (; j < m->npairs; j++)
            if (!used[j] && pmc_slice_eq(m->pairs[j].key, pp->key))
                break;
        if (j >= m->npairs) {
            say(why, wl, "missing key %s", pp->key);
            ok = false;
            break;
        }
        used[j] = true;
        next = j + 1;
        if (!value_ok(p, pp, m->pairs[j].val, v, o, kvskey, b, &nb, why, wl))
            ok = false;
    }
    for (size_t j = 0; ok && !p->open && j < m->npairs; j++)
        if (!used[j]) {
            say(why, wl, "unexpected key %.*s", (int)m->pairs[j].key.len, m->pairs[j].key.ptr);
            ok = false;
        }
    for (size_t i = 0; ok && i < nb; i++) {
        int r = b[i].map ? pmt_vars_map(v, b[i].from, b[i].flen, b[i].val.ptr, b[i].val.len)
                         : pmt_vars_set(v, b[i].name, b[i].val.ptr, b[i].val.len);
        if (r) {
            say(why, wl, "out of memory");
            ok = false;
        }
    }
    free(b);
    free(used);
    return ok;
}
