/* The step runner: turns one connection of a trace into steps for the side
 * being played (send) and the side being checked (expect), and checks what
 * arrives message by message (byte by byte for raw events).  It does no I/O:
 * the caller moves bytes, so the same runner serves a socket, a socketpair
 * under a launcher or an in-process mock. */
#include "pmitrace/match.h"
#include "pmitrace/steps.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef enum stkind {
    ST_SEND_PAT = 1, /* msg pattern to render */
    ST_SEND_REC,     /* recorded messages (re-encoded only when a value maps) */
    ST_SEND_RAW,     /* bytes as they are */
    ST_SHUTDOWN,
    ST_CLOSE,
    ST_EXPECT,       /* one message (pattern or recorded) */
    ST_EXPECT_BYTES,
    ST_EXPECT_EOF,
    ST_SILENCE,
} stkind;

typedef struct step {
    stkind kind;
    uint32_t flags, timeout_ms, delay_ms, pause_ms, line;
    uint64_t usec;       /* trace time of the event (cross-connection order) */
    pmt_pattern pat;     /* SEND_PAT, EXPECT */
    pmt_pattern *pats;   /* SEND_REC */
    size_t npats;
    char *bytes;         /* SEND_REC (recorded chunk), SEND_RAW, EXPECT_BYTES */
    size_t len;
    size_t cuts[PMT_MAX_CUTS];
    size_t ncuts;
    char key[80];        /* SEND_*: last key= sent (context for the answer) */
    bool matched;        /* EXPECT inside an unordered group */
} step;

struct pmt_runner {
    step *st;
    size_t n, cap, i;
    char conn[PMT_CONN_MAX];
    pmt_vars *v;
    pmt_runner_opts o;
    pmc_decoder *dec;
    bool eof, failed, in_action;
    size_t bpos;        /* progress inside the current EXPECT_BYTES */
    pmc_out out;
    size_t cuts[PMT_MAX_CUTS * 4 + 1];
    size_t ncuts;
    char ctxkey[80];    /* the KVS key of the last request */
    size_t matched;
    size_t fmatched;    /* failure marks that arrived as recorded */
    pmt_divergence div;
};

static step *new_step(pmt_runner *r, stkind k, const pmt_event *ev)
{
    if (r->n == r->cap) {
        size_t c = r->cap ? r->cap * 2 : 32;
        step *s = realloc(r->st, c * sizeof *s);
        if (!s)
            return NULL;
        r->st = s;
        r->cap = c;
    }
    step *s = &r->st[r->n++];
    memset(s, 0, sizeof *s);
    s->kind = k;
    if (ev) {
        s->flags = ev->flags;
        s->timeout_ms = ev->timeout_ms;
        s->delay_ms = ev->delay_ms;
        s->pause_ms = ev->pause_ms;
        s->line = ev->line;
        s->usec = ev->usec;
    }
    return s;
}

static stkind step_kind(pmt_step_kind k)
{
    switch (k) {
    case PMT_STEP_SEND_PATTERN: return ST_SEND_PAT;
    case PMT_STEP_SEND_RECORDED: return ST_SEND_REC;
    case PMT_STEP_SEND_RAW: return ST_SEND_RAW;
    case PMT_STEP_SHUTDOWN: return ST_SHUTDOWN;
    case PMT_STEP_CLOSE: return ST_CLOSE;
    case PMT_STEP_EXPECT_PATTERN:
    case PMT_STEP_EXPECT_RECORDED: return ST_EXPECT;
    case PMT_STEP_EXPECT_BYTES: return ST_EXPECT_BYTES;
    case PMT_STEP_EXPECT_EOF: return ST_EXPECT_EOF;
    default: return ST_SILENCE;
    }
}

/* The runner's steps: the trace's (steps.c), what they own moved in. */
static int take_steps(pmt_runner *r, pmt_steps *ps)
{
    for (size_t i = 0; i < ps->n; i++) {
        pmt_step *p = &ps->st[i];
        step *s = new_step(r, step_kind(p->kind), p->ev);
        if (!s)
            return -1;
        if (p->chunk) /* gathered writes: the first one's place and pause, no flags */
            s->flags = s->timeout_ms = 0;
        s->pat = p->pat;
        memset(&p->pat, 0, sizeof p->pat);
        s->pats = p->pats;
        s->npats = p->npats;
        p->pats = NULL;
        p->npats = 0;
        s->bytes = p->bytes;
        s->len = p->len;
        p->bytes = NULL;
        memcpy(s->cuts, p->cuts, sizeof s->cuts);
        s->ncuts = p->ncuts;
        memcpy(s->key, p->key, sizeof s->key);
    }
    return 0;
}

pmt_runner *pmt_runner_new(const pmt_trace *t, const char *conn, pmt_side play, pmt_vars *v,
                           const pmt_runner_opts *o, char *err, size_t el)
{
    pmt_runner *r = calloc(1, sizeof *r);
    pmt_steps ps = { 0 };
    if (!r)
        goto nomem;
    snprintf(r->conn, sizeof r->conn, "%s", conn);
    r->v = v;
    if (o)
        r->o = *o;
    if (!r->o.match)
        r->o.match = pmt_match_opts_default();
    if (!r->o.timeout_ms)
        r->o.timeout_ms = 10000;
    if (!r->o.optional_ms)
        r->o.optional_ms = 200;
    if (!r->o.silence_ms)
        r->o.silence_ms = 300;
    if (!(r->dec = pmc_decoder_new(NULL)))
        goto nomem;
    if (pmt_steps_build(t, conn, play, &ps, err, el))
        goto fail;
    if (take_steps(r, &ps))
        goto nomem;
    pmt_steps_free(&ps);
    return r;
nomem:
    snprintf(err, el, "out of memory");
fail:
    pmt_steps_free(&ps);
    pmt_runner_free(r);
    return NULL;
}

void pmt_runner_free(pmt_runner *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        step *s = &r->st[i];
        pmt_pattern_free(&s->pat);
        for (size_t k = 0; k < s->npats; k++)
            pmt_pattern_free(&s->pats[k]);
        free(s->pats);
        free(s->bytes);
    }
    free(r->st);
    pmc_decoder_free(r->dec);
    pmc_out_free(&r->out);
    free(r);
}

size_t pmt_runner_matched(const pmt_runner *r)
{
    return r->matched;
}

size_t pmt_runner_steps(const pmt_runner *r)
{
    return r->n;
}

size_t pmt_runner_failures(const pmt_runner *r, size_t *matched)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        if (r->st[i].kind >= ST_EXPECT && (r->st[i].flags & PMT_F_FAILURE))
            n++;
    if (matched)
        *matched = r->fmatched;
    return n;
}

const pmt_divergence *pmt_runner_divergence(const pmt_runner *r)
{
    return r->failed ? &r->div : NULL;
}

static bool is_expect(stkind k)
{
    return k >= ST_EXPECT;
}

size_t pmt_runner_checks(const pmt_runner *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        n += is_expect(r->st[i].kind);
    return n;
}

static void expected_text(const pmt_runner *r, const step *s, char *buf, size_t n)
{
    (void)r;
    if (!s) {
        snprintf(buf, n, "(end of the trace)");
        return;
    }
    switch (s->kind) {
    case ST_EXPECT:
        pmt_pattern_text(&s->pat, buf, n);
        break;
    case ST_EXPECT_BYTES: {
        size_t w = snprintf(buf, n, "raw \"");
        if (w < n)
            w += pmt_escape(s->bytes, s->len, buf + w, n - w);
        if (w + 2 < n)
            strcat(buf, "\"");
        break;
    }
    case ST_EXPECT_EOF:
        snprintf(buf, n, "eof (the peer closes)");
        break;
    case ST_SILENCE:
        snprintf(buf, n, "nothing for %u ms", s->timeout_ms ? s->timeout_ms : r->o.silence_ms);
        break;
    default:
        snprintf(buf, n, "(a send)");
    }
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void diverge(pmt_runner *r, const step *s, const char *actual, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = true;
    r->div.line = s ? s->line : 0;
    r->div.failure = s && (s->flags & PMT_F_FAILURE);
    snprintf(r->div.conn, sizeof r->div.conn, "%s", r->conn);
    expected_text(r, s, r->div.expected, sizeof r->div.expected);
    snprintf(r->div.actual, sizeof r->div.actual, "%s", actual);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->div.why, sizeof r->div.why, fmt, ap);
    va_end(ap);
}

/* Last index of the unordered group starting at i (exclusive end). */
static size_t group_end(const pmt_runner *r, size_t i)
{
    if (r->st[i].kind != ST_EXPECT || !(r->st[i].flags & PMT_F_UNORDERED))
        return i + 1;
    size_t e = i;
    while (e < r->n && r->st[e].kind == ST_EXPECT && (r->st[e].flags & PMT_F_UNORDERED))
        e++;
    return e;
}

/* Judged replays: a message that is not the failure only has to be the
 * answer the trace has there (its command), whatever its values; the live
 * values of the tolerated keys (kvsname, jobid, port...) are still learnt. */
static bool lenient_match(pmt_runner *r, const step *s, const pmc_msg *m)
{
    if (!r->o.lenient || (s->flags & PMT_F_FAILURE) || !s->pat.cmd ||
        !pmc_slice_eq(m->name, s->pat.cmd))
        return false;
    for (size_t i = 0; i < s->pat.n; i++) {
        const pmt_ppair *pp = &s->pat.pairs[i];
        pmc_slice live;
        if (pp->kind != PMT_PV_LIT || !pmc_msg_get(m, pp->key, &live))
            continue;
        for (size_t k = 0; r->o.match->keys && r->o.match->keys[k]; k++)
            if (!strcmp(pp->key, r->o.match->keys[k]))
                pmt_vars_map(r->v, pp->val, pp->vlen, live.ptr, live.len);
    }
    return true;
}

static void handle_msg(pmt_runner *r, const pmc_msg *m)
{
    char atext[1024];
    pmt_msg_text(m, atext, sizeof atext);
    for (;;) {
        if (r->i >= r->n) {
            diverge(r, NULL, atext, "a message after the end of the trace");
            return;
        }
        step *s = &r->st[r->i];
        if (s->kind == ST_EXPECT_BYTES) {
            size_t k = m->raw.len;
            if (k > s->len - r->bpos || memcmp(m->raw.ptr, s->bytes + r->bpos, k)) {
                diverge(r, s, atext, "bytes differ");
                return;
            }
            r->bpos += k;
            if (r->bpos == s->len) {
                r->bpos = 0;
                r->i++;
            }
            r->matched++;
            return;
        }
        if (s->kind == ST_EXPECT_EOF && (s->flags & PMT_F_FAILURE) && r->o.lenient)
            return; /* judged: the failure is the close; answers before it do not count */
        if (s->kind != ST_EXPECT) {
            diverge(r, s, atext, "a message where none was expected");
            return;
        }
        size_t ge = group_end(r, r->i);
        char why[256] = "", firstwhy[256] = "";
        const char *key = r->ctxkey[0] ? r->ctxkey : NULL;
        for (size_t g = r->i; g < ge; g++) {
            if (r->st[g].matched)
                continue;
            if (pmt_match(&r->st[g].pat, m, r->v, r->o.match, key, why, sizeof why) ||
                lenient_match(r, &r->st[g], m)) {
                r->st[g].matched = true;
                r->matched++;
                if (r->st[g].flags & PMT_F_FAILURE)
                    r->fmatched++;
                pmc_slice k;
                if (pmc_msg_get(m, "key", &k))
                    pmc_slice_copy(k, r->ctxkey, sizeof r->ctxkey);
                size_t done = r->i;
                while (done < ge && r->st[done].matched)
                    done++;
                if (done == ge || !(s->flags & PMT_F_UNORDERED))
                    r->i = ge;
                return;
            }
            if (!firstwhy[0])
                snprintf(firstwhy, sizeof firstwhy, "%s", why);
        }
        bool all_optional = true;
        for (size_t g = r->i; g < ge; g++)
            if (!r->st[g].matched && !(r->st[g].flags & PMT_F_OPTIONAL))
                all_optional = false;
        if (all_optional) {
            r->i = ge;
            continue;
        }
        size_t first = r->i;
        while (first < ge && r->st[first].matched)
            first++;
        diverge(r, &r->st[first < ge ? first : r->i], atext, "%s", firstwhy);
        return;
    }
}

static void drain(pmt_runner *r)
{
    while (!r->failed && r->i < r->n && is_expect(r->st[r->i].kind)) {
        pmc_msg m;
        pmc_error e;
        int rc = pmc_decoder_next(r->dec, &m, &e);
        if (rc == PMC_AGAIN)
            return;
        if (rc == PMC_ERR) {
            step *s = &r->st[r->i];
            if (s->kind == ST_EXPECT_BYTES && e.raw.ptr && e.raw.len <= s->len - r->bpos &&
                !memcmp(e.raw.ptr, s->bytes + r->bpos, e.raw.len)) {
                r->bpos += e.raw.len;
                if (r->bpos == s->len) {
                    r->bpos = 0;
                    r->i++;
                }
                if (!e.fatal)
                    continue;
            }
            char eb[400];
            pmc_error_format(&e, eb, sizeof eb);
            char at[480];
            snprintf(at, sizeof at, "undecodable bytes: %s", eb);
            diverge(r, s, at, "the peer sent bytes the codec rejects");
            return;
        }
        handle_msg(r, &m);
    }
}

void pmt_runner_feed(pmt_runner *r, const void *buf, size_t len)
{
    const char *p = buf;
    while (len && !r->failed) {
        step *s = r->i < r->n ? &r->st[r->i] : NULL;
        if (s && s->kind == ST_EXPECT_BYTES && pmc_decoder_pending(r->dec) == 0) {
            size_t k = s->len - r->bpos < len ? s->len - r->bpos : len;
            if (memcmp(p, s->bytes + r->bpos, k)) {
                char at[1024];
                size_t w = snprintf(at, sizeof at, "raw \"");
                pmt_escape(p, len, at + w, sizeof at - w - 2);
                strcat(at, "\"");
                diverge(r, s, at, "bytes differ");
                return;
            }
            r->bpos += k;
            p += k;
            len -= k;
            if (r->bpos == s->len) {
                r->bpos = 0;
                r->i++;
                r->matched++;
            }
            continue;
        }
        if (pmc_decoder_feed(r->dec, p, len)) {
            diverge(r, s, "(out of memory)", "out of memory");
            return;
        }
        len = 0;
    }
    drain(r);
}

void pmt_runner_eof(pmt_runner *r)
{
    r->eof = true;
    drain(r);
    while (!r->failed && r->i < r->n) {
        step *s = &r->st[r->i];
        if (s->kind == ST_EXPECT_EOF) {
            if (s->flags & PMT_F_FAILURE)
                r->fmatched++;
            r->i++;
            return;
        }
        if (s->kind == ST_EXPECT && (s->flags & PMT_F_OPTIONAL)) {
            r->i++;
            continue;
        }
        if (is_expect(s->kind)) {
            pmc_error e;
            if (pmc_decoder_finish(r->dec, &e) == PMC_ERR)
                diverge(r, s, "eof inside a message", "the peer closed in the middle of a message");
            else
                diverge(r, s, "eof (the peer closed)", "the peer closed the connection");
        }
        return;
    }
}

void pmt_runner_timeout(pmt_runner *r)
{
    if (r->failed || r->i >= r->n)
        return;
    step *s = &r->st[r->i];
    if (s->kind == ST_SILENCE) {
        if (s->flags & PMT_F_FAILURE)
            r->fmatched++;
        r->i++;
        return;
    }
    size_t ge = group_end(r, r->i);
    bool all_optional = true;
    for (size_t g = r->i; g < ge; g++)
        if (!r->st[g].matched && !(r->st[g].flags & PMT_F_OPTIONAL))
            all_optional = false;
    if (s->kind == ST_EXPECT && all_optional) {
        r->i = ge;
        return;
    }
    char at[64];
    snprintf(at, sizeof at, "nothing (timed out)");
    diverge(r, s, at, "no answer in time");
}

static int render(pmt_runner *r, step *s)
{
    char err[300];
    pmc_out_reset(&r->out);
    r->ncuts = 0;
    if (s->kind == ST_SEND_PAT) {
        if (pmt_pattern_render(&s->pat, r->v, r->o.dialect, &r->out, err, sizeof err)) {
            diverge(r, s, "(nothing sent)", "cannot send: %s", err);
            return -1;
        }
        return 0;
    }
    if (s->kind == ST_SEND_RAW) {
        pmc_out_append(&r->out, s->bytes, s->len);
        for (size_t k = 0; k < s->ncuts; k++)
            r->cuts[r->ncuts++] = s->cuts[k];
        return 0;
    }
    /* recorded messages: map values, keep write boundaries at the same
     * offsets inside each message */
    size_t recstart = 0, ci = 0;
    for (size_t k = 0; k < s->npats; k++) {
        size_t newstart = r->out.len;
        if (pmt_pattern_render(&s->pats[k], r->v, NULL, &r->out, err, sizeof err)) {
            diverge(r, s, "(nothing sent)", "cannot send: %s", err);
            return -1;
        }
        size_t newlen = r->out.len - newstart, reclen = s->pats[k].rawlen;
        if (k && r->ncuts < sizeof r->cuts / sizeof r->cuts[0] &&
            (ci < s->ncuts && s->cuts[ci] == recstart)) {
            r->cuts[r->ncuts++] = newstart;
            ci++;
        }
        while (ci < s->ncuts && s->cuts[ci] < recstart + reclen) {
            size_t off = s->cuts[ci] - recstart;
            if (off >= newlen)
                off = newlen - 1;
            if (off && r->ncuts < sizeof r->cuts / sizeof r->cuts[0])
                r->cuts[r->ncuts++] = newstart + off;
            ci++;
        }
        recstart += reclen;
    }
    return 0;
}

void pmt_runner_next(pmt_runner *r, pmt_action *a)
{
    memset(a, 0, sizeof *a);
    for (;;) {
        if (r->failed) {
            a->kind = PMT_ACT_FAILED;
            return;
        }
        if (r->i >= r->n) {
            a->kind = PMT_ACT_DONE;
            return;
        }
        step *s = &r->st[r->i];
        switch (s->kind) {
        case ST_SEND_PAT:
        case ST_SEND_REC:
        case ST_SEND_RAW:
            if (render(r, s))
                continue;
            if (s->key[0])
                snprintf(r->ctxkey, sizeof r->ctxkey, "%s", s->key);
            a->kind = PMT_ACT_SEND;
            a->buf = r->out.buf;
            a->len = r->out.len;
            a->cuts = r->cuts;
            a->ncuts = r->ncuts;
            a->delay_ms = s->delay_ms;
            a->pause_ms = s->pause_ms;
            r->in_action = true;
            return;
        case ST_SHUTDOWN:
        case ST_CLOSE:
            a->kind = s->kind == ST_SHUTDOWN ? PMT_ACT_SHUTDOWN : PMT_ACT_CLOSE;
            r->in_action = true;
            return;
        default:
            break;
        }
        size_t before = r->i;
        drain(r);
        if (r->failed || r->i != before)
            continue;
        if (r->eof) {
            pmt_runner_eof(r);
            if (r->i != before || r->failed)
                continue;
        }
        a->kind = PMT_ACT_WAIT;
        if (s->timeout_ms)
            a->timeout_ms = s->timeout_ms;
        else if (s->kind == ST_SILENCE)
            a->timeout_ms = r->o.silence_ms;
        else if (s->kind == ST_EXPECT && (s->flags & PMT_F_OPTIONAL))
            a->timeout_ms = r->o.optional_ms;
        else
            a->timeout_ms = r->o.timeout_ms;
        return;
    }
}

void pmt_runner_done_action(pmt_runner *r)
{
    if (r->in_action && r->i < r->n) {
        r->i++;
        r->in_action = false;
    }
}

/* Print two texts in columns, wrapping each at w characters. */
void pmt_divergence_print(FILE *f, const pmt_divergence *d, int width)
{
    if (width < 40)
        width = 40;
    int w = (width - 3) / 2;
    fprintf(f, "divergence on %s", d->conn);
    if (d->line)
        fprintf(f, " (trace line %u)", d->line);
    fprintf(f, ": %s\n", d->why);
    fprintf(f, "  %-*s | %s\n", w, "expected (trace)", "actual");
    fprintf(f, "  %.*s-+-%.*s\n", w, "----------------------------------------------------------------"
            "----------------------------------------------------------------", w,
            "----------------------------------------------------------------"
            "----------------------------------------------------------------");
    size_t le = strlen(d->expected), la = strlen(d->actual), pe = 0, pa = 0;
    while (pe < le || pa < la) {
        int ke = (int)(le - pe < (size_t)w ? le - pe : (size_t)w);
        int ka = (int)(la - pa < (size_t)w ? la - pa : (size_t)w);
        fprintf(f, "  %-*.*s | %.*s\n", w, ke, d->expected + pe, ka, d->actual + pa);
        pe += (size_t)ke;
        pa += (size_t)ka;
    }
}

bool pmt_runner_waiting_before(const pmt_runner *r, uint64_t usec)
{
    if (r->failed || r->i >= r->n)
        return false;
    const step *s = &r->st[r->i];
    return is_expect(s->kind) && s->kind != ST_SILENCE && s->usec < usec;
}

uint64_t pmt_runner_usec(const pmt_runner *r)
{
    return r->i < r->n ? r->st[r->i].usec : UINT64_MAX;
}
