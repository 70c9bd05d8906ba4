/* Answers a client library took: for each reply command, the last few
 * messages the library read and then went on to its next request with.
 * Answering a request with one of them (thrid replaced, a value changed
 * now and then) is a structurally valid response whose values the library
 * already accepts together (rank below size, a version it speaks), which a
 * value typed at random rarely is. */
#ifndef PMIFUZZ_ACCEPTED_H
#define PMIFUZZ_ACCEPTED_H

#include <stddef.h>

#include "model.h"

/* The library read m in answer to a request and went on: remember it under
 * its command (m->cmd, a schema command). */
void pf_accepted_put(const pmc_msg *m);
/* Add the pairs of a remembered answer of command cmd to it (after its
 * existing pairs, copied into s's arena); 0 when none is remembered. */
int pf_accepted_fill(pf_stream *s, pf_item *it, int cmd, pf_rng *r);

#endif
