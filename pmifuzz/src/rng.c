/* splitmix64: tiny, full-period, and good enough to pick mutations. */
#include "rng.h"

void pf_rng_seed(pf_rng *r, uint64_t seed)
{
    r->s = seed ^ 0x9e3779b97f4a7c15ull;
}

uint64_t pf_rng_next(pf_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

size_t pf_below(pf_rng *r, size_t n)
{
    return n ? (size_t)(pf_rng_next(r) % n) : 0;
}

int pf_chance(pf_rng *r, unsigned num, unsigned den)
{
    return den && pf_below(r, den) < num;
}
