/* Bump allocator for the bytes of one mutation: keys, values and names
 * copied out of the decoder or invented, all freed at once afterwards. */
#ifndef PMIFUZZ_ARENA_H
#define PMIFUZZ_ARENA_H

#include <stddef.h>

#include "pmicodec/types.h"

typedef struct pf_block pf_block;

typedef struct pf_arena {
    pf_block *head;
} pf_arena;

void *pf_arena_alloc(pf_arena *a, size_t n); /* NULL on ENOMEM */
pmc_slice pf_arena_dup(pf_arena *a, const void *p, size_t n);
void pf_arena_free(pf_arena *a);

#endif
