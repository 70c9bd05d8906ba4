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
        const pmc_cmdspec *next = pmc_schema_get((pmc_cmd)cmds[k + 1]);
        int giving_up = next && (strcmp(next->name, "finalize") == 0 ||
                                 strcmp(next->name, "abort") == 0);
        if (req && (int)req->reply == m.cmd && !giving_up)
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
    pf_answer last = { .cmd = PMC_CMD_UNKNOWN };
    int cmds[MAX_REQS]; /* the requests' commands, in order */
    size_t pos = 0;
    while (pos < nreqs) {
        pmc_msg m;
        pmc_error e;
        size_t used = 0;
        int rc = pmc_decode_buffer(d, reqs + pos, nreqs - pos, pos, &m, &e, &used);
        if (rc == PMC_MSG) {
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
    uint64_t h = fnv(input, n);
    table[h % SLOTS] = (slot){ h, last };
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
