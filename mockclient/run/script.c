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
 *   timeout [MS]                 -> SILENCE */
#include "run.h"

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

static char *dupn(const void *p, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        if (n)
            memcpy(d, p, n);
        d[n] = 0;
    }
    return d;
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

/* Recorded client writes collected until the played stream is at a message
 * boundary. */
typedef struct chunk {
    pmc_out bytes;
    size_t cuts[PMT_MAX_CUTS];
    size_t ncuts;
    const pmt_event *first;
    bool dead; /* the stream stopped decoding: the rest goes out raw */
} chunk;

static int flush_chunk(pmr_script *s, chunk *c)
{
    if (!c->bytes.len)
        return 0;
    pmr_step *st = add(s, PMR_S_SEND, c->first);
    if (!st || !(st->bytes = dupn(c->bytes.buf, c->bytes.len)))
        return -1;
    st->form = PMR_F_RAW;
    st->len = c->bytes.len;
    memcpy(st->cuts, c->cuts, sizeof st->cuts);
    st->ncuts = c->ncuts;
    if (!c->dead) {
        pmc_decoder *d = pmc_decoder_new(NULL);
        if (!d)
            return -1;
        pmc_decoder_feed(d, c->bytes.buf, c->bytes.len);
        size_t total = 0;
        bool clean = true;
        for (;;) {
            pmc_msg m;
            pmc_error e;
            int rc = pmc_decoder_next(d, &m, &e);
            if (rc == PMC_AGAIN)
                break;
            if (rc == PMC_ERR) {
                clean = false;
                break;
            }
            pmt_pattern *np = realloc(st->pats, (st->npats + 1) * sizeof *np);
            if (!np || pmt_pattern_from_msg(&m, &np[st->npats])) {
                if (np)
                    st->pats = np;
                pmc_decoder_free(d);
                return -1;
            }
            st->pats = np;
            st->npats++;
            total += m.raw.len;
            pmc_slice k;
            if (pmc_msg_get(&m, "key", &k))
                pmc_slice_copy(k, st->key, sizeof st->key);
        }
        if (clean && total == c->bytes.len && st->npats)
            st->form = PMR_F_RECORDED;
        pmc_decoder_free(d);
    }
    pmc_out_reset(&c->bytes);
    c->ncuts = 0;
    c->first = NULL;
    return 0;
}

/* Recorded server bytes: one EXPECT per message; junk compared raw. */
static int add_checked(pmr_script *s, pmc_decoder *d, bool *dead, const pmt_event *ev)
{
    if (*dead) {
        pmr_step *st = add(s, PMR_S_EXPECT_RAW, ev);
        if (!st || !(st->bytes = dupn(ev->data, ev->len)))
            return -1;
        st->len = ev->len;
        return 0;
    }
    if (pmc_decoder_feed(d, ev->data, ev->len))
        return -1;
    for (;;) {
        pmc_msg m;
        pmc_error e;
        int rc = pmc_decoder_next(d, &m, &e);
        if (rc == PMC_AGAIN)
            return 0;
        if (rc == PMC_ERR) {
            if (e.raw.ptr && e.raw.len) {
                pmr_step *st = add(s, PMR_S_EXPECT_RAW, ev);
                if (!st || !(st->bytes = dupn(e.raw.ptr, e.raw.len)))
                    return -1;
                st->len = e.raw.len;
            }
            if (e.fatal) {
                *dead = true;
                return 0;
            }
            continue;
        }
        pmr_step *st = add(s, PMR_S_EXPECT, ev);
        if (!st || pmt_pattern_from_msg(&m, &st->pat))
            return -1;
        st->form = PMR_F_RECORDED;
    }
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

int pmr_script_build(const pmt_trace *t, const char *conn, int initack_id, pmr_script *s,
                     char *err, size_t el)
{
    memset(s, 0, sizeof *s);
    chunk c;
    memset(&c, 0, sizeof c);
    pmc_decoder *pd = pmc_decoder_new(NULL); /* played stream: message boundaries */
    pmc_decoder *cd = pmc_decoder_new(NULL); /* checked stream */
    bool cdead = false;
    if (!pd || !cd)
        goto nomem;
    if (initack_id >= 0 && add_initack(s, initack_id, err, el))
        goto fail;
    for (size_t k = 0; k < t->nevents; k++) {
        const pmt_event *ev = &t->events[k];
        if (strcmp(ev->conn, conn))
            continue;
        bool played = ev->side == PMT_CLIENT;
        if (ev->kind == PMT_EV_DATA && played && ev->form == PMT_FORM_BYTES && !ev->ncuts) {
            if (!c.bytes.len)
                c.first = ev;
            else if (c.ncuts < PMT_MAX_CUTS)
                c.cuts[c.ncuts++] = c.bytes.len;
            if (pmc_out_append(&c.bytes, ev->data, ev->len))
                goto nomem;
            if (!c.dead) {
                pmc_decoder_feed(pd, ev->data, ev->len);
                pmc_msg m;
                pmc_error e;
                int rc;
                while ((rc = pmc_decoder_next(pd, &m, &e)) != PMC_AGAIN)
                    if (rc == PMC_ERR && e.fatal) {
                        c.dead = true;
                        break;
                    }
            }
            if ((c.dead || pmc_decoder_pending(pd) == 0) && flush_chunk(s, &c))
                goto nomem;
            continue;
        }
        if (ev->kind == PMT_EV_OPEN || ev->kind == PMT_EV_NOTE)
            continue;
        if (flush_chunk(s, &c))
            goto nomem;
        pmr_step *st;
        switch (ev->kind) {
        case PMT_EV_DATA:
            if (ev->form == PMT_FORM_MSG) {
                if (add_pattern(s, played ? PMR_S_SEND : PMR_S_EXPECT, ev, ev->data, ev->len, err,
                                el))
                    goto fail;
            } else if (played || ev->form == PMT_FORM_RAW || ev->ncuts) {
                st = add(s, played ? PMR_S_SEND : PMR_S_EXPECT_RAW, ev);
                if (!st || !(st->bytes = dupn(ev->data, ev->len)))
                    goto nomem;
                st->form = PMR_F_RAW;
                st->len = ev->len;
                for (uint32_t q = 0; q < ev->ncuts && q < PMT_MAX_CUTS; q++)
                    st->cuts[q] = ev->cuts[q];
                st->ncuts = ev->ncuts;
            } else if (add_checked(s, cd, &cdead, ev)) {
                goto nomem;
            }
            break;
        case PMT_EV_EOF:
            if (!add(s, played ? PMR_S_SHUTDOWN : PMR_S_EXPECT_EOF, ev))
                goto nomem;
            break;
        case PMT_EV_CLOSE:
            if (!add(s, PMR_S_CLOSE, ev))
                goto nomem;
            break;
        case PMT_EV_TIMEOUT:
            if (!add(s, PMR_S_SILENCE, ev))
                goto nomem;
            break;
        default:
            break;
        }
    }
    if (flush_chunk(s, &c))
        goto nomem;
    pmc_decoder_free(pd);
    pmc_decoder_free(cd);
    pmc_out_free(&c.bytes);
    return 0;
nomem:
    snprintf(err, el, "out of memory");
fail:
    pmc_decoder_free(pd);
    pmc_decoder_free(cd);
    pmc_out_free(&c.bytes);
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
