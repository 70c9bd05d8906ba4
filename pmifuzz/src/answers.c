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
    pf_answer a;
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

static void keep_deep(const uint8_t *input, size_t n, uint64_t h, unsigned nreq);

/* The request a harness writes when it stops: finalize, abort. */
static int giving_up(int cmd)
{
    const pmc_cmdspec *cs = pmc_schema_get((pmc_cmd)cmd);
    return cs && (strcmp(cs->name, "finalize") == 0 || strcmp(cs->name, "abort") == 0);
}

/* The library wrote request k+1 after reading input message k: message k
 * answered request k and was taken, when it is that request's reply and the
 * next request is not the harness giving up (finalize, abort). */
static void learn(const uint8_t *input, size_t n, const int *cmds, size_t nreq)
{
    pmc_decoder_opts o;
    pf_decoder_opts(&o);
    pmc_decoder *d = pmc_decoder_new(&o);
    if (!d)
        return;
    size_t pos = 0;
    for (size_t k = 0; k + 1 < nreq && pos < n;) {
        pmc_msg m;
        pmc_error e;
        size_t used = 0;
        int rc = pmc_decode_buffer(d, (const char *)input + pos, n - pos, pos, &m, &e, &used);
        if (rc != PMC_MSG)
            break; /* the library read this far and no further in order */
        const pmc_cmdspec *req = pmc_schema_get((pmc_cmd)cmds[k]);
        if (req && (int)req->reply == m.cmd && !giving_up(cmds[k + 1]))
            pf_accepted_put(&m);
        pos += used;
        k++;
    }
    pmc_decoder_free(d);
}

void pf_answer_record(const uint8_t *input, size_t n, const char *reqs, size_t nreqs)
{
    if (!table && !(table = calloc(SLOTS, sizeof *table)))
        return;
    pmc_decoder_opts o;
    pf_decoder_opts(&o);
    pmc_decoder *d = pmc_decoder_new(&o);
    if (!d)
        return;
    pf_answer last = { .cmd = PMC_CMD_UNKNOWN }, prev = last;
    int cmds[MAX_REQS]; /* the requests' commands, in order */
    size_t pos = 0;
    while (pos < nreqs) {
        pmc_msg m;
        pmc_error e;
        size_t used = 0;
        int rc = pmc_decode_buffer(d, reqs + pos, nreqs - pos, pos, &m, &e, &used);
        if (rc == PMC_MSG) {
            prev = last;
            last.cmd = m.cmd;
            if (last.nreq < MAX_REQS)
                cmds[last.nreq] = m.cmd;
            last.nreq++;
            last.thrid[0] = '\0';
            last.req_len = m.raw.len <= sizeof last.req ? (unsigned)m.raw.len : 0;
            memcpy(last.req, m.raw.ptr, last.req_len);
            if (m.thrid.ptr)
                pmc_slice_copy(m.thrid, last.thrid, sizeof last.thrid);
        } else if (!(rc == PMC_ERR && !e.fatal && used)) {
            break;
        }
        pos += used;
    }
    pmc_decoder_free(d);
    if (last.cmd == PMC_CMD_UNKNOWN)
        return;
    learn(input, n, cmds, last.nreq < MAX_REQS ? last.nreq : MAX_REQS);
    /* A harness ends with finalize, also after a call failed on its answer
     * (and a harness that calls on after a failure writes more requests
     * first): the request to answer is the one before it, where the input
     * ran out or went wrong, not the finalize. */
    if (giving_up(last.cmd) && prev.cmd != PMC_CMD_UNKNOWN)
        last = prev;
    uint64_t h = fnv(input, n);
    table[h % SLOTS] = (slot){ h, last };
    keep_deep(input, n, h, last.nreq);
}

/* The inputs that took the library furthest (most requests), a few of
 * them, so that one dead end does not hold the frontier. */
enum { NDEEP = 8, DEEP_MAX = 8192 };

typedef struct deep_input {
    uint64_t hash;
    unsigned nreq;
    size_t len;
    uint8_t buf[DEEP_MAX];
} deep_input;

static deep_input *deep;

static void keep_deep(const uint8_t *input, size_t n, uint64_t h, unsigned nreq)
{
    if (n > DEEP_MAX || !nreq)
        return;
    if (!deep && !(deep = calloc(NDEEP, sizeof *deep)))
        return;
    size_t low = 0;
    for (size_t i = 0; i < NDEEP; i++) {
        if (deep[i].hash == h)
            return;
        if (deep[i].nreq < deep[low].nreq)
            low = i;
    }
    if (nreq <= deep[low].nreq)
        return;
    deep[low].hash = h;
    deep[low].nreq = nreq;
    deep[low].len = n;
    memcpy(deep[low].buf, input, n);
}

size_t pf_answer_deep(pf_rng *r, unsigned beyond, uint8_t *out, size_t max)
{
    if (!deep)
        return 0;
    size_t idx[NDEEP], k = 0;
    for (size_t i = 0; i < NDEEP; i++)
        if (deep[i].nreq > beyond && deep[i].len <= max && deep[i].len)
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
    *out = s->a;
    return 1;
}
