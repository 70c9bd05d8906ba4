/* A scenario connection as client steps.  The client plays the C>S events
 * and checks the S>C ones:
 *   C>S msg <pattern>            -> SEND pattern (rendered with captures, persona)
 *   C>S "bytes" (no split)       -> SEND recorded: consecutive writes up to a
 *                                   message boundary, kept as one step
 *   C>S raw "..." / split=...    -> SEND raw (fault injection: never rewritten)
 *   S>C msg <pattern>            -> EXPECT
 *   S>C "bytes"                  -> one EXPECT per recorded message
 *   S>C raw "..." / split=...    -> EXPECT_RAW (byte for byte)
 *   eof C / eof S / close        -> SHUTDOWN / EXPECT_EOF / CLOSE
 *   timeout [MS]                 -> SILENCE
 * The steps come from the trace library (pmitrace/steps.h), as the trace
 * runner's do; this adds the PMI-1 initack exchange and the outcome fields. */
#include "run.h"
#include "pmitrace/steps.h"

#include <stdlib.h>
#include <string.h>

static pmr_step *add(pmr_script *s, pmr_skind k, const pmt_event *ev)
{
    if (s->n == s->cap) {
        size_t c = s->cap ? s->cap * 2 : 32;
        pmr_step *n = realloc(s->st, c * sizeof *n);
        if (!n)
            return NULL;
        s->st = n;
        s->cap = c;
    }
    pmr_step *st = &s->st[s->n++];
    memset(st, 0, sizeof *st);
    st->kind = k;
    if (ev) {
        st->line = ev->line;
        st->flags = ev->flags;
        st->timeout_ms = ev->timeout_ms;
        st->delay_ms = ev->delay_ms;
        st->usec = ev->usec;
    }
    return st;
}

void pmr_script_free(pmr_script *s)
{
    for (size_t i = 0; i < s->n; i++) {
        pmr_step *st = &s->st[i];
        pmt_pattern_free(&st->pat);
        for (size_t k = 0; k < st->npats; k++)
            pmt_pattern_free(&st->pats[k]);
        free(st->pats);
        free(st->bytes);
        free(st->text);
        free(st->actual);
    }
    free(s->st);
    memset(s, 0, sizeof *s);
}

static int add_pattern(pmr_script *s, pmr_skind k, const pmt_event *ev, const char *text,
                       size_t len, char *err, size_t el)
{
    pmr_step *st = add(s, k, ev);
    if (!st) {
        snprintf(err, el, "out of memory");
        return -1;
    }
    st->form = PMR_F_PATTERN;
    size_t ep = 0;
    char pe[160];
    if (pmt_pattern_parse(text, len, &st->pat, &ep, pe, sizeof pe)) {
        snprintf(err, el, "line %u column %zu: %s", ev ? ev->line : 0, ep + 1, pe);
        s->n--;
        return -1;
    }
    if (k == PMR_S_SEND)
        for (size_t q = 0; q < st->pat.n; q++)
            if (!strcmp(st->pat.pairs[q].key, "key") && st->pat.pairs[q].kind == PMT_PV_LIT)
                snprintf(st->key, sizeof st->key, "%s", st->pat.pairs[q].val);
    return 0;
}

/* The exchange a PMI-1 client makes first when it reached the server
 * through PMI_PORT (mpich-wire.md §4.2): initack, then the server's
 * initack line and three set lines. */
static int add_initack(pmr_script *s, int id, char *err, size_t el)
{
    char t[96];
    snprintf(t, sizeof t, "v1 initack pmiid=%d", id);
    if (add_pattern(s, PMR_S_SEND, NULL, t, strlen(t), err, el))
        return -1;
    static const char *const exp[] = { "v1 initack ...", "v1 set size=* ...", NULL, "v1 set debug=* ..." };
    for (int i = 0; i < 4; i++) {
        if (exp[i]) {
            snprintf(t, sizeof t, "%s", exp[i]);
        } else {
            snprintf(t, sizeof t, "v1 set rank=%d ...", id);
        }
        if (add_pattern(s, PMR_S_EXPECT, NULL, t, strlen(t), err, el))
            return -1;
    }
    return 0;
}

static pmr_skind step_kind(pmt_step_kind k)
{
    switch (k) {
    case PMT_STEP_SEND_PATTERN:
    case PMT_STEP_SEND_RECORDED:
    case PMT_STEP_SEND_RAW: return PMR_S_SEND;
    case PMT_STEP_EXPECT_PATTERN:
    case PMT_STEP_EXPECT_RECORDED: return PMR_S_EXPECT;
    case PMT_STEP_EXPECT_BYTES: return PMR_S_EXPECT_RAW;
    case PMT_STEP_SHUTDOWN: return PMR_S_SHUTDOWN;
    case PMT_STEP_CLOSE: return PMR_S_CLOSE;
    case PMT_STEP_EXPECT_EOF: return PMR_S_EXPECT_EOF;
    default: return PMR_S_SILENCE;
    }
}

static pmr_sform step_form(pmt_step_kind k)
{
    switch (k) {
    case PMT_STEP_SEND_PATTERN:
    case PMT_STEP_EXPECT_PATTERN: return PMR_F_PATTERN;
    case PMT_STEP_SEND_RECORDED:
    case PMT_STEP_EXPECT_RECORDED: return PMR_F_RECORDED;
    case PMT_STEP_SEND_RAW:
    case PMT_STEP_EXPECT_BYTES: return PMR_F_RAW;
    default: return 0;
    }
}

int pmr_script_build(const pmt_trace *t, const char *conn, int initack_id, pmr_script *s,
                     char *err, size_t el)
{
    memset(s, 0, sizeof *s);
    pmt_steps ps = { 0 };
    if (initack_id >= 0 && add_initack(s, initack_id, err, el))
        goto fail;
    if (pmt_steps_build(t, conn, PMT_CLIENT, &ps, err, el))
        goto fail;
    for (size_t i = 0; i < ps.n; i++) { /* the trace's steps, what they own moved in */
        pmt_step *p = &ps.st[i];
        pmr_step *st = add(s, step_kind(p->kind), p->ev);
        if (!st) {
            snprintf(err, el, "out of memory");
            goto fail;
        }
        st->form = step_form(p->kind);
        st->pat = p->pat;
        memset(&p->pat, 0, sizeof p->pat);
        st->pats = p->pats;
        st->npats = p->npats;
        p->pats = NULL;
        p->npats = 0;
        st->bytes = p->bytes;
        st->len = p->len;
        p->bytes = NULL;
        memcpy(st->cuts, p->cuts, sizeof st->cuts);
        st->ncuts = p->ncuts;
        memcpy(st->key, p->key, sizeof st->key);
    }
    pmt_steps_free(&ps);
    return 0;
fail:
    pmt_steps_free(&ps);
    pmr_script_free(s);
    return -1;
}

bool pmr_script_wants_initack(const pmt_trace *t, const char *conn)
{
    for (size_t k = 0; k < t->nevents; k++) {
        const pmt_event *ev = &t->events[k];
        if (strcmp(ev->conn, conn) || ev->kind != PMT_EV_DATA || ev->side != PMT_CLIENT)
            continue;
        bool want = false;
        if (ev->form == PMT_FORM_MSG) {
            pmt_pattern p;
            size_t ep;
            char pe[160];
            if (pmt_pattern_parse(ev->data, ev->len, &p, &ep, pe, sizeof pe))
                return false;
            if (p.wire == PMC_WIRE_V1 && !strcmp(p.cmd, "init"))
                for (size_t q = 0; q < p.n; q++)
                    if (!strcmp(p.pairs[q].key, "pmi_version") && p.pairs[q].kind == PMT_PV_LIT &&
                        !strcmp(p.pairs[q].val, "1"))
                        want = true;
            pmt_pattern_free(&p);
        } else {
            pmc_decoder *d = pmc_decoder_new(NULL);
            if (!d)
                return false;
            pmc_decoder_feed(d, ev->data, ev->len);
            pmc_msg m;
            pmc_error e;
            if (pmc_decoder_next(d, &m, &e) == PMC_MSG && m.wire == PMC_WIRE_V1 &&
                pmc_slice_eq(m.name, "init")) {
                pmc_slice v;
                want = pmc_msg_get(&m, "pmi_version", &v) && pmc_slice_eq(v, "1");
            }
            pmc_decoder_free(d);
        }
        return want; /* only the first message counts */
    }
    return false;
}

size_t pmr_trace_conns(const pmt_trace *t, char (*labels)[PMT_CONN_MAX], size_t max)
{
    size_t n = 0;
    for (size_t k = 0; k < t->nevents; k++) {
        const char *c = t->events[k].conn;
        bool seen = false;
        for (size_t i = 0; i < n && !seen; i++)
            seen = !strcmp(labels[i], c);
        if (seen)
            continue;
        if (n == max)
            return max + 1; /* too many: the caller reports it */
        snprintf(labels[n++], PMT_CONN_MAX, "%s", c);
    }
    return n;
}
