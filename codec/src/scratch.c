/* The decoder's reusable storage: the pairs array and the unescape arena.
 * Both grow to the largest message seen and are then reused, so steady-state
 * decoding allocates nothing. */
#include "internal.h"

#include <stdlib.h>

int pmc_scratch_push_slow(pmc_scratch *s, const pmc_decoder_opts *o, pmc_slice key,
                          pmc_slice val, uint32_t flags, uint64_t off, pmc_error *err)
{
    if (s->npairs >= o->limits.max_pairs) {
        pmc_error_set(err, PMC_E_TOO_MANY_PAIRS, off, "more than %u pairs in one message",
                      o->limits.max_pairs);
        return -1;
    }
    if (s->npairs == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 16;
        pmc_pair *np = realloc(s->pairs, ncap * sizeof *np);
        if (!np) {
            pmc_error_set(err, PMC_E_NOMEM, off, "out of memory for %zu pairs", ncap);
            return -1;
        }
        s->pairs = np;
        s->cap = ncap;
    }
    s->pairs[s->npairs++] = (pmc_pair){ key, val, flags };
    return 0;
}

long pmc_scratch_arena(pmc_scratch *s, size_t n)
{
    if (s->arena_cap - s->arena_len < n) {
        size_t ncap = s->arena_cap ? s->arena_cap : 256;
        while (ncap - s->arena_len < n)
            ncap *= 2;
        char *na = realloc(s->arena, ncap);
        if (!na)
            return -1;
        s->arena = na;
        s->arena_cap = ncap;
    }
    long at = (long)s->arena_len;
    s->arena_len += n;
    return at;
}

void pmc_scratch_fix_arena(pmc_scratch *s, size_t from)
{
    for (size_t i = from; i < s->npairs; i++)
        if (s->pairs[i].flags & PMC_PAIR_UNESCAPED)
            s->pairs[i].val.ptr = s->arena + (uintptr_t)s->pairs[i].val.ptr;
}

void pmc_scratch_free(pmc_scratch *s)
{
    free(s->pairs);
    free(s->arena);
    free(s->dup);
    memset(s, 0, sizeof *s);
}
