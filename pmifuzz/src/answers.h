/* Where a client library got to, per input: the client kit records, for
 * each input it ran, the requests the library wrote; the mutator then
 * answers exactly the request it is stuck at (its reply command from the
 * schema, the request's thrid, rc=0), so a session grows one exchange at a
 * time instead of waiting for a random command to be the right one.
 * There are two such places: the last request (where the input ran out or
 * went wrong), and the first request whose answer in the input was not one
 * a library goes on with (not its reply, not valid by the schema, rc not 0,
 * another thrid).  A harness that calls on after a failed call, as the
 * kit's documentation asks, writes more requests after that one; its run
 * then ends far past the place where the job's chain broke. */
#ifndef PMIFUZZ_ANSWERS_H
#define PMIFUZZ_ANSWERS_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

typedef struct pf_answer {
    int cmd;        /* the request's pmc_cmd; PMC_CMD_UNKNOWN when none recorded */
    char thrid[24]; /* its thrid, "" when it had none */
    unsigned nreq;  /* requests it wrote in all: it reads the answer to the last as
                     * its nreq-th message, so the input's messages before that one
                     * got it there and the ones after it were never read */
    unsigned msg;   /* the input message it reads as the answer (1-based): nreq
                     * plus the frames the server sent unasked before it */
    unsigned req_len; /* the last request's bytes (0 when longer than req) */
    char req[240];
    unsigned fits;  /* answers in the input that fit their request: how far the
                     * session got (nreq also grows with calls after a failure) */
    int answered;   /* message msg is in the input and fits this request: what the
                     * library read next answers nothing it asked (set lines after
                     * initack, a group-event it waits for) */
} pf_answer;

/* Whether cmd is a frame a server sends unasked (a response that answers
 * no request: group-event, tv_ready, PMI-1's set lines after initack): a
 * library reads it without having written a request for it. */
int pf_unasked(int cmd);

/* The library wrote reqs[0..nreqs) while reading input[0..n). */
void pf_answer_record(const uint8_t *input, size_t n, const char *reqs, size_t nreqs);
/* The last request recorded for exactly this input; false when none. */
int pf_answer_lookup(const uint8_t *input, size_t n, pf_answer *out);
/* The first request of this input's run whose answer did not fit, when it
 * came before the last request (nreq is its 1-based ordinal); false when
 * none. */
int pf_answer_stuck(const uint8_t *input, size_t n, pf_answer *out);

/* One of the inputs that took a client library furthest (more than beyond
 * answers that fit), copied into out; its length, or 0 when none fits max.  Only a
 * client kit's runs fill this: elsewhere it is always 0. */
size_t pf_answer_deep(pf_rng *r, unsigned beyond, uint8_t *out, size_t max);

#endif
