/* A small seeded generator: every choice of a mutation comes from it, so a
 * (input, seed) pair always mutates the same way. */
#ifndef PMIFUZZ_RNG_H
#define PMIFUZZ_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct pf_rng {
    uint64_t s;
} pf_rng;

void pf_rng_seed(pf_rng *r, uint64_t seed);
uint64_t pf_rng_next(pf_rng *r);
/* Uniform in [0, n); 0 when n is 0. */
size_t pf_below(pf_rng *r, size_t n);
/* true with probability num/den. */
int pf_chance(pf_rng *r, unsigned num, unsigned den);

#endif
