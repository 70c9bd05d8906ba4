/* The scenario engine: every connection steps through its script on its
 * own, non-blocking, in one poll loop.  A connection waiting for an answer
 * never holds up another one; ordering between connections comes from the
 * protocol (a fence or barrier answers only when every rank arrived) and,
 * in a recorded trace with real times, from the recording: a send recorded
 * after another connection's answer waits for that answer
 * (pmt_runner_waiting_before's rule, traces/README.md).
 *
 * An answer is matched against the current expectation (or any member of
 * an unordered group).  A message that does not match is
 *   - a mismatch when it is an answer of the kind expected (same command),
 *   - otherwise unsolicited: reported and ignored, the wait goes on
 *     (--unexpected=fail, or "@meta unexpected=fail", makes it fatal). */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct pmr_conn {
    char label[PMT_CONN_MAX];
    int fd;
    pmr_persona_ctx pctx;
    pmr_script s;
    size_t i;          /* current step */
    pmc_decoder *dec;
    pmc_out in;        /* bytes read and not yet given to the decoder */
    size_t bpos;       /* progress inside the current EXPECT_RAW */
    bool eof;          /* the server closed (or the read failed) */
    bool finished, failed;
    /* a send in progress */
    bool sending;
    pmc_out out;
    size_t ends[PMT_MAX_CUTS + 1];
    size_t nends, piece, off;
    uint64_t next_at;  /* delay between pieces */
    bool want_out;     /* the last write would block */
    /* the current wait */
    size_t wait_step;
    uint64_t deadline;
    char ctxkey[80];   /* KVS key of the last request (recorded answers) */
    size_t unexpected;
    char *last_unexp;  /* what arrived during the current wait */
};

struct pmr_run {
    const pmt_trace *t;
    pmr_opts o;
    pmt_vars *v;
    pmr_conn **c;
    size_t n, cap;
    bool abort;
};

static uint64_t now_usec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

pmr_run *pmr_run_new(const pmt_trace *t, const pmr_opts *o)
{
    pmr_run *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->t = t;
    r->o = *o;
    if (!r->o.timeout_ms)
        r->o.timeout_ms = 10000;
    if (!r->o.optional_ms)
        r->o.optional_ms = 200;
    if (!r->o.silence_ms)
        r->o.silence_ms = 300;
    if (!r->o.out)
        r->o.out = stdout;
    if (!(r->v = pmt_vars_new())) {
        free(r);
        return NULL;
    }
    return r;
}

static void conn_free(pmr_conn *c)
{
    if (!c)
        return;
    if (c->fd >= 0)
        close(c->fd);
    pmr_script_free(&c->s);
    pmc_decoder_free(c->dec);
    pmc_out_free(&c->in);
    pmc_out_free(&c->out);
    free(c->last_unexp);
    free(c);
}

void pmr_run_free(pmr_run *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        conn_free(r->c[i]);
    free(r->c);
    pmt_vars_free(r->v);
    free(r);
}

int pmr_run_add(pmr_run *r, const char *label, int fd, int rank, int id, bool auto_initack,
                char *err, size_t el)
{
    pmr_conn *c = calloc(1, sizeof *c);
    if (!c) {
        close(fd);
        snprintf(err, el, "out of memory");
        return -1;
    }
    c->fd = fd;
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0 && !(fl & O_NONBLOCK))
        fcntl(fd, F_SETFL, fl | O_NONBLOCK); /* one poll loop: no read may block */
    snprintf(c->label, sizeof c->label, "%s", label);
    c->pctx.rank = rank;
    c->pctx.id = id;
    c->pctx.jobid = r->o.jobid;
    c->wait_step = (size_t)-1;
    if (!(c->dec = pmc_decoder_new(NULL))) {
        conn_free(c);
        snprintf(err, el, "out of memory");
        return -1;
    }
    int ia = auto_initack && id >= 0 && pmr_script_wants_initack(r->t, label) ? id : -1;
    if (pmr_script_build(r->t, label, ia, &c->s, err, el)) {
        conn_free(c);
        return -1;
    }
    if (r->n == r->cap) {
        size_t nc = r->cap ? r->cap * 2 : 8;
        pmr_conn **np = realloc(r->c, nc * sizeof *np);
        if (!np) {
            conn_free(c);
            snprintf(err, el, "out of memory");
            return -1;
        }
        r->c = np;
        r->cap = nc;
    }
    r->c[r->n++] = c;
    pmr_rec_event(&r->o, PMT_EV_OPEN, now_usec(), label, PMT_CLIENT, "", 0);
    return 0;
}

/* ------------------------------------------------------------ outcomes */

static char *text_of_bytes(const char *buf, size_t len)
{
    /* messages as "v2 cmd k=v", several joined by " + "; junk as raw "..." */
    pmc_out t = { 0 };
    pmc_decoder *d = pmc_decoder_new(NULL);
    size_t used = 0;
    if (d) {
        pmc_decoder_feed(d, buf, len);
        pmc_msg m;
        pmc_error e;
        while (pmc_decoder_next(d, &m, &e) == PMC_MSG) {
            char mt[1024];
            size_t k = pmt_msg_text(&m, mt, sizeof mt);
            if (t.len)
                pmc_out_append(&t, " + ", 3);
            pmc_out_append(&t, mt, k < sizeof mt ? k : sizeof mt - 1);
            used += m.raw.len;
        }
        pmc_decoder_free(d);
    }
    if (used < len || !t.len) {
        char eb[1024];
        pmt_escape(buf + used, len - used, eb, sizeof eb);
        if (t.len)
            pmc_out_append(&t, " + ", 3);
        pmc_out_append(&t, "raw \"", 5);
        pmc_out_append(&t, eb, strlen(eb));
        pmc_out_append(&t, "\"", 1);
    }
    pmc_out_append(&t, "", 1);
    return t.buf;
}

static char *sdup(const char *s)
{
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    if (d)
        memcpy(d, s, n + 1);
    return d;
}

static void finish_step(pmr_run *r, pmr_conn *c, pmr_step *s, pmr_result res)
{
    s->result = res;
    s->t_done = now_usec();
    pmr_report_step(&r->o, c->label, s);
    if (res != PMR_R_OK && res != PMR_R_SKIPPED)
        pmr_rec_note(&r->o, s->t_done, c->label, "step line %u: %s: %s", s->line,
                     pmr_result_name(res), s->why);
}

static void close_conn(pmr_run *r, pmr_conn *c)
{
    if (c->fd >= 0) {
        close(c->fd);
        c->fd = -1;
        pmr_rec_event(&r->o, PMT_EV_CLOSE, now_usec(), c->label, PMT_CLIENT, NULL, 0);
    }
}

/* Stop a connection: the steps left are not run. */
static void stop_conn(pmr_run *r, pmr_conn *c)
{
    for (size_t k = c->i; k < c->s.n; k++)
        if (c->s.st[k].result == PMR_R_PENDING) {
            c->s.st[k].result = PMR_R_NOTRUN;
            if (r->o.quiet == 0)
                pmr_report_step(&r->o, c->label, &c->s.st[k]);
        }
    c->i = c->s.n;
    c->finished = true;
    c->sending = false;
    close_conn(r, c);
}

#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
static void fail(pmr_run *r, pmr_conn *c, pmr_step *s, pmr_result res, const char *actual,
                 const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->why, sizeof s->why, fmt, ap);
    va_end(ap);
    free(s->actual);
    s->actual = sdup(actual ? actual : "");
    finish_step(r, c, s, res);
    c->failed = true;
    c->i++;
    stop_conn(r, c);
    if (!r->o.keep_going)
        r->abort = true;
}

static bool is_expect(pmr_skind k)
{
    return k == PMR_S_EXPECT || k == PMR_S_EXPECT_RAW || k == PMR_S_EXPECT_EOF ||
           k == PMR_S_SILENCE;
}

static size_t group_end(const pmr_conn *c, size_t i)
{
    const pmr_step *s = &c->s.st[i];
    if (s->kind != PMR_S_EXPECT || !(s->flags & PMT_F_UNORDERED))
        return i + 1;
    size_t e = i;
    while (e < c->s.n && c->s.st[e].kind == PMR_S_EXPECT && (c->s.st[e].flags & PMT_F_UNORDERED))
        e++;
    return e;
}

static bool rest_optional(const pmr_conn *c, size_t from, size_t to)
{
    for (size_t g = from; g < to; g++)
        if (!c->s.st[g].matched && !(c->s.st[g].flags & PMT_F_OPTIONAL))
            return false;
    return true;
}

static void skip_group(pmr_run *r, pmr_conn *c, size_t ge)
{
    for (size_t g = c->i; g < ge; g++)
        if (!c->s.st[g].matched) {
            snprintf(c->s.st[g].why, sizeof c->s.st[g].why, "optional: not sent");
            finish_step(r, c, &c->s.st[g], PMR_R_SKIPPED);
        }
    c->i = ge;
}

static void unsolicited(pmr_run *r, pmr_conn *c, const char *text)
{
    pmr_step *s = c->i < c->s.n ? &c->s.st[c->i] : NULL;
    c->unexpected++;
    bool fatal = r->o.unexpected == PMR_UNEXP_FAIL;
    pmr_report_unexpected(&r->o, c->label, s ? s->line : 0, text, fatal);
    pmr_rec_note(&r->o, now_usec(), c->label, "unexpected message: %s", text);
    free(c->last_unexp);
    c->last_unexp = sdup(text);
    if (fatal && s)
        fail(r, c, s, PMR_R_MISMATCH, text, "an unsolicited message (unexpected=fail)");
    else if (fatal)
        c->failed = true;
}

/* One decoded message while an EXPECT group is current. */
static void on_msg(pmr_run *r, pmr_conn *c, const pmc_msg *m)
{
    char at[1024];
    pmt_msg_text(m, at, sizeof at);
    for (;;) {
        if (c->i >= c->s.n || c->s.st[c->i].kind != PMR_S_EXPECT) {
            unsolicited(r, c, at);
            return;
        }
        size_t ge = group_end(c, c->i);
        const char *key = c->ctxkey[0] ? c->ctxkey : NULL;
        char why[256], cmdwhy[256] = "";
        long same_cmd = -1;
        for (size_t g = c->i; g < ge; g++) {
            pmr_step *s = &c->s.st[g];
            if (s->matched)
                continue;
            if (pmt_match(&s->pat, m, r->v, pmt_match_opts_default(), key, why, sizeof why)) {
                s->matched = true;
                free(s->text);
                s->text = sdup(at);
                finish_step(r, c, s, PMR_R_OK);
                pmc_slice k;
                if (pmc_msg_get(m, "key", &k))
                    pmc_slice_copy(k, c->ctxkey, sizeof c->ctxkey);
                size_t done = c->i;
                while (done < ge && c->s.st[done].matched)
                    done++;
                if (done == ge) {
                    c->i = ge;
                } else {
                    c->i = done;
                    if (rest_optional(c, done, ge)) /* only optional members left */
                        c->deadline = now_usec() + (uint64_t)r->o.optional_ms * 1000u;
                }
                free(c->last_unexp);
                c->last_unexp = NULL;
                return;
            }
            if (same_cmd < 0 && s->pat.wire == m->wire && pmc_slice_eq(m->name, s->pat.cmd)) {
                same_cmd = (long)g;
                snprintf(cmdwhy, sizeof cmdwhy, "%s", why);
            }
        }
        if (rest_optional(c, c->i, ge)) {
            skip_group(r, c, ge);
            continue; /* the message may be the next expectation */
        }
        if (same_cmd >= 0) {
            pmr_step *s = &c->s.st[same_cmd];
            /* report the failing member in place of the group head */
            if ((size_t)same_cmd != c->i) {
                pmr_step tmp = c->s.st[c->i];
                c->s.st[c->i] = *s;
                *s = tmp;
            }
            fail(r, c, &c->s.st[c->i], PMR_R_MISMATCH, at, "%s", cmdwhy);
            return;
        }
        unsolicited(r, c, at);
        return;
    }
}

/* Give buffered input to the current expectation.  Returns true when the
 * connection moved (a step finished or failed). */
static bool consume(pmr_run *r, pmr_conn *c)
{
    size_t before = c->i;
    bool failed_before = c->finished;
    while (!c->finished && c->i < c->s.n) {
        pmr_step *s = &c->s.st[c->i];
        if (!is_expect(s->kind))
            break;
        if (s->kind == PMR_S_SILENCE) {
            if (c->in.len || pmc_decoder_pending(c->dec)) {
                char *t = text_of_bytes(c->in.buf ? c->in.buf : "", c->in.len);
                fail(r, c, s, PMR_R_MISMATCH, t ? t : "(bytes)", "bytes arrived during a silence");
                free(t);
            }
            break;
        }
        if (s->kind == PMR_S_EXPECT_RAW && pmc_decoder_pending(c->dec) == 0) {
            if (!c->in.len)
                break;
            size_t k = s->len - c->bpos < c->in.len ? s->len - c->bpos : c->in.len;
            if (memcmp(c->in.buf, s->bytes + c->bpos, k)) {
                char eb[900], at[1024];
                pmt_escape(c->in.buf, c->in.len, eb, sizeof eb);
                snprintf(at, sizeof at, "raw \"%s\"", eb);
                fail(r, c, s, PMR_R_MISMATCH, at, "bytes differ");
                break;
            }
            c->bpos += k;
            memmove(c->in.buf, c->in.buf + k, c->in.len - k);
            c->in.len -= k;
            if (c->bpos == s->len) {
                c->bpos = 0;
                free(s->text);
                s->text = text_of_bytes(s->bytes, s->len);
                finish_step(r, c, s, PMR_R_OK);
                c->i++;
            }
            continue;
        }
        if (c->in.len) {
            if (pmc_decoder_feed(c->dec, c->in.buf, c->in.len)) {
                fail(r, c, s, PMR_R_ERROR, "(out of memory)", "out of memory");
                break;
            }
            c->in.len = 0;
        }
        pmc_msg m;
        pmc_error e;
        int rc = pmc_decoder_next(c->dec, &m, &e);
        if (rc == PMC_AGAIN)
            break;
        if (rc == PMC_ERR) {
            char eb[400], at[480];
            pmc_error_format(&e, eb, sizeof eb);
            snprintf(at, sizeof at, "undecodable bytes: %s", eb);
            if (s->kind == PMR_S_EXPECT_RAW && e.raw.ptr && e.raw.len <= s->len - c->bpos &&
                !memcmp(e.raw.ptr, s->bytes + c->bpos, e.raw.len)) {
                c->bpos += e.raw.len;
                if (c->bpos == s->len) {
                    c->bpos = 0;
                    free(s->text);
                    s->text = text_of_bytes(s->bytes, s->len);
                    finish_step(r, c, s, PMR_R_OK);
                    c->i++;
                }
                if (!e.fatal)
                    continue;
            }
            if (e.fatal)
                fail(r, c, s, PMR_R_MISMATCH, at, "the server sent bytes the codec rejects");
            else
                unsolicited(r, c, at);
            continue;
        }
        if (s->kind == PMR_S_EXPECT_RAW) {
            char at[1024];
            pmt_msg_text(&m, at, sizeof at);
            size_t k = m.raw.len;
            if (k > s->len - c->bpos || memcmp(m.raw.ptr, s->bytes + c->bpos, k)) {
                fail(r, c, s, PMR_R_MISMATCH, at, "bytes differ");
                break;
            }
            c->bpos += k;
            if (c->bpos == s->len) {
                c->bpos = 0;
                free(s->text);
                s->text = text_of_bytes(s->bytes, s->len);
                finish_step(r, c, s, PMR_R_OK);
                c->i++;
            }
            continue;
        }
        if (s->kind == PMR_S_EXPECT_EOF) {
            char at[1024];
            pmt_msg_text(&m, at, sizeof at);
            unsolicited(r, c, at);
            continue;
        }
        on_msg(r, c, &m);
    }
    return c->i != before || c->finished != failed_before;
}

/* The server closed: settle the current expectation. */
static void on_eof(pmr_run *r, pmr_conn *c)
{
    while (!c->finished && c->i < c->s.n) {
        pmr_step *s = &c->s.st[c->i];
        if (!is_expect(s->kind) || s->kind == PMR_S_SILENCE)
            return;
        if (s->kind == PMR_S_EXPECT_EOF) {
            s->text = sdup("eof (the server closed)");
            finish_step(r, c, s, PMR_R_OK);
            c->i++;
            pmr_rec_event(&r->o, PMT_EV_EOF, now_usec(), c->label, PMT_SERVER, NULL, 0);
            return;
        }
        size_t ge = group_end(c, c->i);
        if (s->kind == PMR_S_EXPECT && rest_optional(c, c->i, ge)) {
            skip_group(r, c, ge);
            continue;
        }
        pmc_error e;
        bool cut = pmc_decoder_finish(c->dec, &e) == PMC_ERR || c->bpos;
        fail(r, c, s, PMR_R_EOF, cut ? "eof inside a message" : "eof (the server closed)",
             "the server closed the connection");
        return;
    }
}

static void on_timeout(pmr_run *r, pmr_conn *c)
{
    pmr_step *s = &c->s.st[c->i];
    if (s->kind == PMR_S_SILENCE) {
        char t[64];
        snprintf(t, sizeof t, "nothing for %u ms",
                 s->timeout_ms ? s->timeout_ms : r->o.silence_ms);
        s->text = sdup(t);
        finish_step(r, c, s, PMR_R_OK);
        c->i++;
        return;
    }
    size_t ge = group_end(c, c->i);
    if (s->kind == PMR_S_EXPECT && rest_optional(c, c->i, ge)) {
        skip_group(r, c, ge);
        return;
    }
    char at[1100];
    if (c->last_unexp)
        snprintf(at, sizeof at, "(only unsolicited) %s", c->last_unexp);
    else if (c->bpos || c->in.len || pmc_decoder_pending(c->dec))
        snprintf(at, sizeof at, "an incomplete message");
    else
        snprintf(at, sizeof at, "nothing");
    fail(r, c, s, PMR_R_TIMEOUT, at, "no answer in time");
}

/* ---------------------------------------------------------------- sends */

/* strict, but pairs stay where the scenario put them (a persona reorders) */
static const pmc_dialect keep_dialect = {
    .name = "scenario",
    .len_pad = PMC_PAD_RIGHT,
    .escape_semi = true,
    .rc_pos = PMC_POS_KEEP,
    .thrid_pos = PMC_POS_KEEP,
};

static int persona_bytes(pmr_run *r, pmr_conn *c, const char *buf, size_t len, pmc_out *out,
                         char *err, size_t el)
{
    pmc_decoder *d = pmc_decoder_new(NULL);
    if (!d) {
        snprintf(err, el, "out of memory");
        return -1;
    }
    pmc_decoder_feed(d, buf, len);
    int rc = 0;
    for (;;) {
        pmc_msg m;
        pmc_error e;
        int k = pmc_decoder_next(d, &m, &e);
        if (k == PMC_AGAIN)
            break;
        if (k == PMC_ERR) {
            pmc_error_format(&e, err, el);
            rc = -1;
            break;
        }
        if (pmr_persona_rewrite(r->o.persona, &m, &c->pctx, out, &e)) {
            char eb[300];
            pmc_error_format(&e, eb, sizeof eb);
            snprintf(err, el, "persona %s cannot write this request: %s", r->o.persona->name, eb);
            rc = -1;
            break;
        }
    }
    pmc_decoder_free(d);
    return rc;
}

static int render(pmr_run *r, pmr_conn *c, pmr_step *s, char *err, size_t el)
{
    pmc_out_reset(&c->out);
    c->nends = 0;
    bool persona = r->o.persona != NULL;
    if (s->form == PMR_F_RAW) {
        if (pmc_out_append(&c->out, s->bytes, s->len))
            goto nomem;
        for (size_t k = 0; k < s->ncuts; k++)
            if (s->cuts[k] > 0 && s->cuts[k] < s->len)
                c->ends[c->nends++] = s->cuts[k];
        c->ends[c->nends++] = s->len;
        return 0;
    }
    pmc_out tmp = { 0 };
    int rc = 0;
    if (s->form == PMR_F_PATTERN) {
        if (!persona) {
            rc = pmt_pattern_render(&s->pat, r->v, NULL, &c->out, err, el);
        } else if (!(rc = pmt_pattern_render(&s->pat, r->v, &keep_dialect, &tmp, err, el))) {
            rc = persona_bytes(r, c, tmp.buf, tmp.len, &c->out, err, el);
        }
    } else {
        bool same = true;
        for (size_t k = 0; k < s->npats && !rc; k++)
            rc = pmt_pattern_render(&s->pats[k], r->v, NULL, &tmp, err, el);
        same = !rc && tmp.len == s->len && !memcmp(tmp.buf, s->bytes, s->len);
        if (!rc && persona) {
            rc = persona_bytes(r, c, tmp.buf, tmp.len, &c->out, err, el);
        } else if (!rc) {
            if (pmc_out_append(&c->out, tmp.buf, tmp.len)) {
                pmc_out_free(&tmp);
                goto nomem;
            }
            if (same) /* the recorded write boundaries */
                for (size_t k = 0; k < s->ncuts; k++)
                    c->ends[c->nends++] = s->cuts[k];
        }
    }
    pmc_out_free(&tmp);
    if (rc)
        return -1;
    if (s->form == PMR_F_PATTERN)
        for (size_t k = 0; k < s->ncuts; k++)
            if (s->cuts[k] > 0 && s->cuts[k] < c->out.len)
                c->ends[c->nends++] = s->cuts[k];
    c->ends[c->nends++] = c->out.len;
    return 0;
nomem:
    snprintf(err, el, "out of memory");
    return -1;
}

/* Write what is due.  Returns 1 when the step's bytes are all out, 0 when
 * blocked (delay or full socket), -1 on a write error (step failed). */
static int pump(pmr_run *r, pmr_conn *c, pmr_step *s)
{
    c->want_out = false;
    while (c->piece < c->nends) {
        uint64_t now = now_usec();
        if (now < c->next_at)
            return 0;
        size_t end = c->ends[c->piece];
        if (end <= c->off) {
            c->piece++;
            continue;
        }
        ssize_t w = write(c->fd, c->out.buf + c->off, end - c->off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                c->want_out = true;
                return 0;
            }
            char at[160];
            snprintf(at, sizeof at, "write: %s", strerror(errno));
            fail(r, c, s, PMR_R_ERROR, at, "the connection broke while sending");
            return -1;
        }
        pmr_rec_event(&r->o, PMT_EV_DATA, now_usec(), c->label, PMT_CLIENT, c->out.buf + c->off,
                      (size_t)w);
        c->off += (size_t)w;
        if (c->off == end) {
            c->piece++;
            if (c->piece < c->nends && s->delay_ms)
                c->next_at = now_usec() + (uint64_t)s->delay_ms * 1000u;
        }
    }
    return 1;
}

/* A send recorded at `usec` waits while another connection still waits for
 * an answer recorded before it (recorded traces only: all-zero times never
 * wait). */
static bool held_back(const pmr_run *r, const pmr_conn *self, uint64_t usec)
{
    if (!r->o.order || !usec)
        return false;
    for (size_t k = 0; k < r->n; k++) {
        const pmr_conn *o = r->c[k];
        if (o == self || o->finished || o->i >= o->s.n)
            continue;
        const pmr_step *s = &o->s.st[o->i];
        if ((s->kind == PMR_S_EXPECT || s->kind == PMR_S_EXPECT_RAW || s->kind == PMR_S_EXPECT_EOF) &&
            s->usec < usec)
            return true;
    }
    return false;
}

static void end_of_script(pmr_run *r, pmr_conn *c)
{
    /* answers already buffered that no step asked for */
    if (c->in.len && c->fd >= 0) {
        pmc_decoder_feed(c->dec, c->in.buf, c->in.len);
        c->in.len = 0;
    }
    for (;;) {
        pmc_msg m;
        pmc_error e;
        int rc = pmc_decoder_next(c->dec, &m, &e);
        if (rc == PMC_AGAIN)
            break;
        char at[1024];
        if (rc == PMC_ERR) {
            char eb[400];
            pmc_error_format(&e, eb, sizeof eb);
            snprintf(at, sizeof at, "undecodable bytes: %s", eb);
        } else {
            pmt_msg_text(&m, at, sizeof at);
        }
        unsolicited(r, c, at);
        if (rc == PMC_ERR && e.fatal)
            break;
    }
    c->finished = true;
    close_conn(r, c);
}

/* Run a connection as far as it goes without waiting. */
static void advance(pmr_run *r, pmr_conn *c)
{
    char err[400];
    while (!c->finished) {
        if (r->abort && !c->failed) {
            stop_conn(r, c);
            return;
        }
        if (c->i >= c->s.n) {
            end_of_script(r, c);
            return;
        }
        pmr_step *s = &c->s.st[c->i];
        switch (s->kind) {
        case PMR_S_SEND:
            if (!c->sending) {
                if (held_back(r, c, s->usec))
                    return;
                if (c->fd < 0) {
                    fail(r, c, s, PMR_R_ERROR, "(closed)", "the connection is closed");
                    return;
                }
                if (render(r, c, s, err, sizeof err)) {
                    fail(r, c, s, PMR_R_ERROR, "(nothing sent)", "cannot send: %s", err);
                    return;
                }
                c->sending = true;
                c->piece = c->off = 0;
                c->next_at = 0;
            }
            int p = pump(r, c, s);
            if (p <= 0)
                return;
            c->sending = false;
            free(s->text);
            s->text = text_of_bytes(c->out.buf, c->out.len);
            if (s->key[0])
                snprintf(c->ctxkey, sizeof c->ctxkey, "%s", s->key);
            finish_step(r, c, s, PMR_R_OK);
            c->i++;
            continue;
        case PMR_S_SHUTDOWN:
            if (c->fd >= 0)
                shutdown(c->fd, SHUT_WR);
            pmr_rec_event(&r->o, PMT_EV_EOF, now_usec(), c->label, PMT_CLIENT, NULL, 0);
            s->text = sdup("eof (shut down the writing half)");
            finish_step(r, c, s, PMR_R_OK);
            c->i++;
            continue;
        case PMR_S_CLOSE:
            close_conn(r, c);
            s->text = sdup("close");
            finish_step(r, c, s, PMR_R_OK);
            c->i++;
            continue;
        default:
            break;
        }
        if (c->wait_step != c->i) {
            c->wait_step = c->i;
            unsigned ms = s->timeout_ms;
            if (!ms)
                ms = s->kind == PMR_S_SILENCE ? r->o.silence_ms
                     : (s->kind == PMR_S_EXPECT && (s->flags & PMT_F_OPTIONAL)) ? r->o.optional_ms
                                                                                 : r->o.timeout_ms;
            c->deadline = now_usec() + (uint64_t)ms * 1000u;
            free(c->last_unexp);
            c->last_unexp = NULL;
        }
        if (consume(r, c))
            continue;
        if (c->eof) {
            size_t before = c->i;
            on_eof(r, c);
            if (c->i != before || c->finished)
                continue;
        }
        return;
    }
}

static bool all_finished(const pmr_run *r)
{
    for (size_t k = 0; k < r->n; k++)
        if (!r->c[k]->finished)
            return false;
    return true;
}

static void read_input(pmr_run *r, pmr_conn *c)
{
    for (;;) {
        if (pmc_out_reserve(&c->in, 65536)) {
            c->eof = true;
            return;
        }
        ssize_t n = read(c->fd, c->in.buf + c->in.len, 65536);
        if (n > 0) {
            pmr_rec_event(&r->o, PMT_EV_DATA, now_usec(), c->label, PMT_SERVER,
                          c->in.buf + c->in.len, (size_t)n);
            c->in.len += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n < 0)
            pmr_rec_note(&r->o, now_usec(), c->label, "read: %s", strerror(errno));
        c->eof = true;
        return;
    }
}

int pmr_run_play(pmr_run *r)
{
    struct pollfd *pf = calloc(r->n ? r->n : 1, sizeof *pf);
    size_t *idx = calloc(r->n ? r->n : 1, sizeof *idx);
    if (!pf || !idx) {
        free(pf);
        free(idx);
        fprintf(stderr, "pmi-mockclient run: out of memory\n");
        return 1;
    }
    for (;;) {
        for (size_t k = 0; k < r->n; k++)
            advance(r, r->c[k]);
        uint64_t now = now_usec();
        for (size_t k = 0; k < r->n; k++) {
            pmr_conn *c = r->c[k];
            if (!c->finished && c->i < c->s.n && c->wait_step == c->i &&
                is_expect(c->s.st[c->i].kind) && now >= c->deadline) {
                on_timeout(r, c);
                advance(r, c);
            }
        }
        if (all_finished(r))
            break;
        int64_t wait_us = 1000000;
        size_t np = 0;
        now = now_usec();
        for (size_t k = 0; k < r->n; k++) {
            pmr_conn *c = r->c[k];
            if (c->finished)
                continue;
            uint64_t due = 0;
            if (c->sending && c->next_at > now)
                due = c->next_at;
            else if (c->i < c->s.n && c->wait_step == c->i && is_expect(c->s.st[c->i].kind))
                due = c->deadline;
            if (due) {
                int64_t d = due > now ? (int64_t)(due - now) : 0;
                if (d < wait_us)
                    wait_us = d;
            }
            if (c->fd < 0)
                continue;
            short ev = (short)(c->eof ? 0 : POLLIN);
            if (c->sending && c->want_out)
                ev |= POLLOUT;
            if (!ev)
                continue;
            pf[np].fd = c->fd;
            pf[np].events = ev;
            pf[np].revents = 0;
            idx[np++] = k;
        }
        int ms = (int)((wait_us + 999) / 1000);
        int rc = poll(pf, (nfds_t)np, ms);
        if (rc < 0 && errno != EINTR) {
            perror("pmi-mockclient run: poll");
            break;
        }
        for (size_t q = 0; rc > 0 && q < np; q++)
            if (pf[q].revents & (POLLIN | POLLHUP | POLLERR))
                read_input(r, r->c[idx[q]]);
    }
    free(pf);
    free(idx);
    bool failed = false;
    for (size_t k = 0; k < r->n; k++)
        failed |= r->c[k]->failed;
    return failed ? 1 : 0;
}

void pmr_run_totals(const pmr_run *r, pmr_totals *t)
{
    memset(t, 0, sizeof *t);
    t->conns = r->n;
    for (size_t k = 0; k < r->n; k++) {
        const pmr_conn *c = r->c[k];
        t->unexpected += c->unexpected;
        for (size_t i = 0; i < c->s.n; i++) {
            t->steps++;
            switch (c->s.st[i].result) {
            case PMR_R_OK: t->ok++; break;
            case PMR_R_SKIPPED: t->skipped++; break;
            case PMR_R_NOTRUN:
            case PMR_R_PENDING: t->notrun++; break;
            default: t->failed++; break;
            }
        }
    }
}
