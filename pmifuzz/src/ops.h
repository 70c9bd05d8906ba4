/* Structural mutations of a decoded stream.  Each returns 1 when it changed
 * something, 0 when it did not apply (no message, nothing to drop). */
#ifndef PMIFUZZ_OPS_H
#define PMIFUZZ_OPS_H

#include "config.h"
#include "model.h"

typedef struct pf_ctx {
    pf_stream *s;
    pf_rng *r;
    size_t max;  /* output budget: the length limit (mutate.c) */
    size_t hard; /* libFuzzer's max: what the limit-seeking ops and answers may use */
    int grown;   /* an op used hard: the output may exceed max */
    const uint8_t *input; /* the input as it came (the answers table's key) */
    size_t input_len;
    const pmifuzz_config *cfg;
    const struct pf_answer *ans; /* the request to answer (answers.h), NULL when none known */
} pf_ctx;

typedef int (*pf_op_fn)(pf_ctx *c);

typedef struct pf_op {
    const char *name;
    pf_op_fn fn;
    unsigned weight;
    int raw; /* raw damage: chosen at the rate raw_damage says */
} pf_op;

const pf_op *pf_ops(size_t *n);

/* The length limit now; one call of the mutator or cross-over with an
 * input; the output it gave (mutate.c). */
size_t pf_len_limit(void);
void pf_len_tick(const uint8_t *data, size_t size);
void pf_len_output(const uint8_t *data, size_t size);

#endif
