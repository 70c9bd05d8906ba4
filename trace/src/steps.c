/* A trace connection as the played side's steps (steps.h). */
#include "pmitrace/steps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pmt_step *add(pmt_steps *s, pmt_step_kind k, const pmt_event *ev)
{
    if (s->n == s->cap) {
        size_t c = s->cap ? s->cap * 2 : 32;
        pmt_step *n = realloc(s->st, c * sizeof *n);
        if (!n)
            return NULL;
        s->st = n;
        s->cap = c;
    }
    pmt_step *st = &s->st[s->n++];
    memset(st, 0, sizeof *st);
    st->kind = k;
    st->ev = ev;
    return st;
}

static char *dupn(const char *p, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        if (n)
            memcpy(d, p, n);
        d[n] = 0;
    }
    return d;
}

static int add_bytes(pmt_steps *s, pmt_step_kind k, const pmt_event *ev, const char *p, size_t n)
{
    pmt_step *st = add(s, k, ev);
    if (!st || !(st->bytes = dupn(p, n)))
        return -1;
    st->len = n;
    return 0;
}

/* Recorded writes of the played side, gathered until its stream is at a
 * message boundary, so that a message written in pieces goes out as the
 * pieces (cuts) yet can be re-encoded when a value maps. */
typedef struct chunk {
    pmc_out bytes;
    size_t cuts[PMT_MAX_CUTS];
    size_t ncuts;
    const pmt_event *first;
    bool dead; /* the played stream stopped decoding: the rest goes out raw */
} chunk;

static int flush_chunk(pmt_steps *s, chunk *c)
{
    if (!c->bytes.len)
        return 0;
    if (add_bytes(s, PMT_STEP_SEND_RAW, c->first, c->bytes.buf, c->bytes.len))
        return -1;
    pmt_step *st = &s->st[s->n - 1];
    st->chunk = true;
    memcpy(st->cuts, c->cuts, sizeof st->cuts);
    st->ncuts = c->ncuts;
    if (!c->dead) {
        /* its messages, so values can be mapped before sending */
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
            if (!np) {
                pmc_decoder_free(d);
                return -1;
            }
            st->pats = np;
            if (pmt_pattern_from_msg(&m, &st->pats[st->npats])) {
                pmc_decoder_free(d);
                return -1;
            }
            st->npats++;
            total += m.raw.len;
            pmc_slice k;
            if (pmc_msg_get(&m, "key", &k))
                pmc_slice_copy(k, st->key, sizeof st->key);
        }
        if (clean && total == c->bytes.len && pmc_decoder_pending(d) == 0 && st->npats)
            st->kind = PMT_STEP_SEND_RECORDED;
        pmc_decoder_free(d);
    }
    pmc_out_reset(&c->bytes);
    c->ncuts = 0;
    c->first = NULL;
    return 0;
}

/* Recorded bytes of the checked side: one step per message; what does not
 * decode (junk) is compared byte for byte, and after a fatal error the rest. */
static int add_checked(pmt_steps *s, pmc_decoder *d, bool *dead, const pmt_event *ev)
{
    if (*dead)
        return add_bytes(s, PMT_STEP_EXPECT_BYTES, ev, ev->data, ev->len);
    if (pmc_decoder_feed(d, ev->data, ev->len))
        return -1;
    for (;;) {
        pmc_msg m;
        pmc_error e;
        int rc = pmc_decoder_next(d, &m, &e);
        if (rc == PMC_AGAIN)
            return 0;
        if (rc == PMC_ERR) {
            if (e.raw.ptr && e.raw.len &&
                add_bytes(s, PMT_STEP_EXPECT_BYTES, ev, e.raw.ptr, e.raw.len))
                return -1;
            if (e.fatal) {
                *dead = true;
                return 0;
            }
            continue;
        }
        pmt_step *st = add(s, PMT_STEP_EXPECT_RECORDED, ev);
        if (!st || pmt_pattern_from_msg(&m, &st->pat))
            return -1;
    }
}

/* A "msg <pattern>" event; a sent one names the key it is about. */
static int add_pattern(pmt_steps *s, pmt_step_kind k, const pmt_event *ev, char *err, size_t el)
{
    pmt_step *st = add(s, k, ev);
    if (!st) {
        snprintf(err, el, "out of memory");
        return -1;
    }
    size_t ep = 0;
    char pe[160];
    if (pmt_pattern_parse(ev->data, ev->len, &st->pat, &ep, pe, sizeof pe)) {
        snprintf(err, el, "line %u column %zu: %s", ev->line, ep + 1, pe);
        s->n--;
        return -1;
    }
    if (k == PMT_STEP_SEND_PATTERN)
        for (size_t q = 0; q < st->pat.n; q++)
            if (!strcmp(st->pat.pairs[q].key, "key") && st->pat.pairs[q].kind == PMT_PV_LIT)
                snprintf(st->key, sizeof st->key, "%s", st->pat.pairs[q].val);
    return 0;
}

int pmt_steps_build(const pmt_trace *t, const char *conn, pmt_side play, pmt_steps *out,
                    char *err, size_t el)
{
    chunk c;
    memset(&c, 0, sizeof c);
    pmc_decoder *pd = pmc_decoder_new(NULL); /* played stream: message boundaries */
    pmc_decoder *cd = pmc_decoder_new(NULL); /* checked stream */
    bool cdead = false;
    int rc = -1;
    if (!pd || !cd)
        goto nomem;
    for (size_t k = 0; k < t->nevents; k++) {
        const pmt_event *ev = &t->events[k];
        if (strcmp(ev->conn, conn))
            continue;
        bool played = ev->side == play;
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
                int r;
                while ((r = pmc_decoder_next(pd, &m, &e)) != PMC_AGAIN)
                    if (r == PMC_ERR && e.fatal) {
                        c.dead = true;
                        break;
                    }
            }
            if ((c.dead || pmc_decoder_pending(pd) == 0) && flush_chunk(out, &c))
                goto nomem;
            continue;
        }
        if (ev->kind == PMT_EV_OPEN || ev->kind == PMT_EV_NOTE)
            continue; /* no step, and no boundary between two writes */
        if (flush_chunk(out, &c))
            goto nomem;
        switch (ev->kind) {
        case PMT_EV_DATA:
            if (ev->form == PMT_FORM_MSG) {
                if (add_pattern(out, played ? PMT_STEP_SEND_PATTERN : PMT_STEP_EXPECT_PATTERN, ev,
                                err, el))
                    goto fail;
            } else if (played || ev->form == PMT_FORM_RAW || ev->ncuts) {
                if (add_bytes(out, played ? PMT_STEP_SEND_RAW : PMT_STEP_EXPECT_BYTES, ev,
                              ev->data, ev->len))
                    goto nomem;
                pmt_step *st = &out->st[out->n - 1];
                for (uint32_t q = 0; q < ev->ncuts && q < PMT_MAX_CUTS; q++)
                    st->cuts[q] = ev->cuts[q];
                st->ncuts = ev->ncuts < PMT_MAX_CUTS ? ev->ncuts : PMT_MAX_CUTS;
            } else if (add_checked(out, cd, &cdead, ev)) {
                goto nomem;
            }
            break;
        case PMT_EV_EOF:
            if (!add(out, played ? PMT_STEP_SHUTDOWN : PMT_STEP_EXPECT_EOF, ev))
                goto nomem;
            break;
        case PMT_EV_CLOSE:
            if (play == PMT_CLIENT && !add(out, PMT_STEP_CLOSE, ev))
                goto nomem;
            break;
        case PMT_EV_TIMEOUT:
            if (!add(out, PMT_STEP_SILENCE, ev))
                goto nomem;
            break;
        default:
            break;
        }
    }
    if (flush_chunk(out, &c))
        goto nomem;
    rc = 0;
    goto done;
nomem:
    snprintf(err, el, "out of memory");
fail:
done:
    pmc_decoder_free(pd);
    pmc_decoder_free(cd);
    pmc_out_free(&c.bytes);
    return rc;
}

void pmt_steps_free(pmt_steps *s)
{
    for (size_t i = 0; i < s->n; i++) {
        pmt_step *st = &s->st[i];
        pmt_pattern_free(&st->pat);
        for (size_t k = 0; k < st->npats; k++)
            pmt_pattern_free(&st->pats[k]);
        free(st->pats);
        free(st->bytes);
    }
    free(s->st);
    memset(s, 0, sizeof *s);
}
