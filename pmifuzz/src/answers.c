/* A direct-mapped table keyed by a hash of the input: inputs libFuzzer
 * mutates are corpus entries, which ran when they were added, so a recent
 * entry is usually there; a collision only loses a hint. */
#include "answers.h"

#include <stdlib.h>
#include <string.h>

#include "accepted.h"
#include "model.h"

enum { SLOTS = 1u << 16 };

typedef struct slot {
    uint64_t hash;
    pf_answer last, stuck; /* stuck.cmd is PMC_CMD_UNKNOWN when none */
} slot;

static slot *table;

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull ^ n;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h | 1; /* 0 marks an empty slot */
}

enum { MAX_REQS = 64 };

static void keep_deep(const uint8_t *input, size_t n, uint64_t h, unsigned fits);

/* The request a harness writes when it stops: finalize, abort. */
static int giving_up(int cmd)
{
    const pmc_cmdspec *cs = pmc_schema_get((pmc_cmd)cmd);
    return cs && (strcmp(cs->name, "finalize") == 0 || strcmp(cs->name, "abort") == 0);
}

int pf_unasked(int cmd)
{
    return pmc_schema_unsolicited((pmc_cmd)cmd);
}

/* The 1-based ordinal-th request, for the answer table. */
static void describe(pf_answer *a, const pmc_msg *m, unsigned ordinal)
{
    a->cmd = m->cmd;
    a->nreq = a->msg = ordinal;
    a->thrid[0] = '\0';
    a->req_len = m->raw.len <= sizeof a->req ? (unsigned)m->raw.len : 0;
    memcpy(a->req, m->raw.ptr, a->req_len);
    if (m->thrid.ptr)
        pmc_slice_copy(m->thrid, a->thrid, sizeof a->thrid);
}

/* An answer a library goes on with: the request's reply, valid as a
 * response by the schema (types, required keys), rc 0 when it has one,
 * and the request's thrid when it had one.  Another answer may still be
 * taken (a lenient library), but it is where a job's chain of calls
 * breaks, whatever the library does next. */
static int fits(const pmc_msg *ans, const pf_answer *q)
{
    const pmc_cmdspec *req = pmc_schema_get((pmc_cmd)q->cmd);
    if (!req || (int)req->reply != ans->cmd || !pmc_validate(ans, PMC_VAL_RESPONSE, NULL))
        return 0;
    const pmc_pair *rc = pmc_msg_find(ans, "rc");
    if (rc && !pmc_slice_eq(rc->val, "0"))
        return 0;
    return !q->thrid[0] || (ans->thrid.ptr && pmc_slice_eq(ans->thrid, q->thrid));
}

/* Which request a library writes after a fitting answer to each request
 * (onward[req][next]): after an answer that does not fit, the same next
 * request means the library took it all the same (a lenient library), so
 * the session is not stuck there. */
static uint8_t onward[PMC_CMD__COUNT][PMC_CMD__COUNT];

static int known_cmd(int cmd)
{
    return cmd > PMC_CMD_UNKNOWN && cmd < PMC_CMD__COUNT;
}

/* The library wrote request k+1 after reading input message k.  Message k
 * was taken when it fits request k and the next request is not the
 * harness giving up (finalize, abort): remembered as an accepted answer.
 * The first request whose message neither fit nor led where fitting
 * answers lead is where the session is stuck; fits counts the others. */
/* What match() learnt of the last two requests' answers. */
typedef struct tail {
    unsigned unasked, unasked_prev; /* frames that answer nothing before the last
                                     * request's answer, and before the one before's */
    int answered, prev_answered;    /* their answer is in the input and fits */
} tail;

static void match(const uint8_t *input, size_t n, const pf_answer *reqs, size_t nreq,
                  pf_answer *stuck, unsigned *nfit, tail *t)
{
    pmc_decoder_opts o;
    pf_decoder_opts(&o);
    pmc_decoder *d = pmc_decoder_new(&o);
    if (!d)
        return;
    size_t pos = 0, k = 0;
    unsigned unasked = 0; /* frames the library read that answer nothing */
    for (; k + 1 < nreq && pos < n; k++) {
        pmc_msg m;
        pmc_error e;
        size_t used = 0;
        int rc = pmc_decode_buffer(d, (const char *)input + pos, n - pos, pos, &m, &e, &used);
        if (rc != PMC_MSG)
            break; /* the library read this far and no further in order */
        if (pf_unasked(m.cmd)) {
            unasked++;
            pos += used;
            k--; /* the same request waits for its answer */
            continue;
        }
        int a = reqs[k].cmd, b = reqs[k + 1].cmd, known = known_cmd(a) && known_cmd(b);
        if (k + 2 == nreq) {
            t->unasked_prev = unasked;
            t->prev_answered = fits(&m, &reqs[k]);
        }
        if (fits(&m, &reqs[k])) {
            ++*nfit;
            if (!giving_up(b)) {
                pf_accepted_put(&m);
                if (known)
                    onward[a][b] = 1;
            }
        } else if (known && onward[a][b]) {
            ++*nfit; /* taken all the same */
        } else if (stuck->cmd == PMC_CMD_UNKNOWN && !giving_up(a)) {
            *stuck = reqs[k];
            stuck->msg += unasked;
        }
        pos += used;
    }
    if (k + 1 < nreq && stuck->cmd == PMC_CMD_UNKNOWN && !giving_up(reqs[k].cmd)) {
        *stuck = reqs[k]; /* the input ended or broke before the session did */
        stuck->msg += unasked;
    }
    /* Every earlier answer read: the last request's own, and whether the
     * library had it (then what it reads next is a frame sent unasked: set
     * lines after initack, a group-event). */
    while (k + 1 == nreq && pos < n) {
        pmc_msg m;
        pmc_error e;
        size_t used = 0;
        if (pmc_decode_buffer(d, (const char *)input + pos, n - pos, pos, &m, &e, &used) != PMC_MSG)
            break;
        pos += used;
        if (!pf_unasked(m.cmd)) {
            t->answered = fits(&m, &reqs[k]);
            break;
        }
        unasked++;
    }
    t->unasked = unasked;
    pmc_decoder_free(d);
}

void pf_answer_record(const uint8_t *input, size_t n, const char *reqs, size_t nreqs)
{
    if (!table && !(table = calloc(SLOTS, sizeof *table)))
        return;
    pmc_decoder_opts o;
    pf_decoder_opts(&o);
    pmc_decoder *d = pmc_decoder_new(&o);
    pf_answer *q = calloc(MAX_REQS, sizeof *q);
    if (!d || !q) {
        pmc_decoder_free(d);
        free(q);
        return;
    }
    unsigned nreq = 0; /* all the requests; the first MAX_REQS kept in q */
    pf_answer last = { .cmd = PMC_CMD_UNKNOWN }, prev = last;
    size_t pos = 0;
    while (pos < nreqs) {
        pmc_msg m;
        pmc_error e;
        size_t used = 0;
        int rc = pmc_decode_buffer(d, reqs + pos, nreqs - pos, pos, &m, &e, &used);
        if (rc == PMC_MSG) {
            prev = last;
            describe(&last, &m, ++nreq);
            if (nreq <= MAX_REQS)
                q[nreq - 1] = last;
        } else if (!(rc == PMC_ERR && !e.fatal && used)) {
            break;
        }
        pos += used;
    }
    pmc_decoder_free(d);
    if (last.cmd == PMC_CMD_UNKNOWN) {
        free(q);
        return;
    }
    pf_answer stuck = { .cmd = PMC_CMD_UNKNOWN };
    unsigned nfit = 0;
    tail t = { 0 };
    match(input, n, q, nreq < MAX_REQS ? nreq : MAX_REQS, &stuck, &nfit, &t);
    free(q);
    if (nreq <= MAX_REQS) {
        last.msg += t.unasked;
        prev.msg += t.unasked_prev;
        last.answered = t.answered;
        prev.answered = t.prev_answered;
    } else { /* past the requests kept: where the last ones were read is not known */
        last.msg += t.unasked;
        prev.msg += t.unasked;
    }
    /* A harness ends with finalize, also after a call failed on its answer
     * (and a harness that calls on after a failure writes more requests
     * first): the request to answer is the one before it, where the input
     * ran out or went wrong, not the finalize. */
    if (giving_up(last.cmd) && prev.cmd != PMC_CMD_UNKNOWN)
        last = prev;
    last.fits = stuck.fits = nfit;
    if (stuck.nreq >= last.nreq)
        stuck.cmd = PMC_CMD_UNKNOWN; /* the same place: the last request */
    uint64_t h = fnv(input, n);
    table[h % SLOTS] = (slot){ h, last, stuck };
    keep_deep(input, n, h, nfit);
}

/* The inputs that took the library furthest (most requests), a few of
 * them, so that one dead end does not hold the frontier. */
enum { NDEEP = 8, DEEP_MAX = 8192 };

typedef struct deep_input {
    uint64_t hash;
    unsigned fits;
    size_t len;
    uint8_t buf[DEEP_MAX];
} deep_input;

static deep_input *deep;

static void keep_deep(const uint8_t *input, size_t n, uint64_t h, unsigned fits)
{
    if (n > DEEP_MAX || !fits)
        return;
    if (!deep && !(deep = calloc(NDEEP, sizeof *deep)))
        return;
    size_t low = 0;
    for (size_t i = 0; i < NDEEP; i++) {
        if (deep[i].hash == h)
            return;
        if (deep[i].fits < deep[low].fits)
            low = i;
    }
    if (fits <= deep[low].fits)
        return;
    deep[low].hash = h;
    deep[low].fits = fits;
    deep[low].len = n;
    memcpy(deep[low].buf, input, n);
}

size_t pf_answer_deep(pf_rng *r, unsigned beyond, uint8_t *out, size_t max)
{
    if (!deep)
        return 0;
    size_t idx[NDEEP], k = 0;
    for (size_t i = 0; i < NDEEP; i++)
        if (deep[i].fits > beyond && deep[i].len <= max && deep[i].len)
            idx[k++] = i;
    if (!k)
        return 0;
    const deep_input *d = &deep[idx[pf_below(r, k)]];
    memcpy(out, d->buf, d->len);
    return d->len;
}

int pf_answer_lookup(const uint8_t *input, size_t n, pf_answer *out)
{
    if (!table)
        return 0;
    uint64_t h = fnv(input, n);
    const slot *s = &table[h % SLOTS];
    if (s->hash != h)
        return 0;
    *out = s->last;
    return 1;
}

int pf_answer_stuck(const uint8_t *input, size_t n, pf_answer *out)
{
    if (!table)
        return 0;
    uint64_t h = fnv(input, n);
    const slot *s = &table[h % SLOTS];
    if (s->hash != h || s->stuck.cmd == PMC_CMD_UNKNOWN)
        return 0;
    *out = s->stuck;
    return 1;
}
