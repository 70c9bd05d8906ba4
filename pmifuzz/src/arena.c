/* Blocks are never moved, so slices handed out stay valid until the arena
 * is freed. */
#include "arena.h"

#include <stdlib.h>
#include <string.h>

struct pf_block {
    pf_block *next;
    size_t used, cap;
    max_align_t align[]; /* data */
};

enum { PF_BLOCK = 64 * 1024 };

void *pf_arena_alloc(pf_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    pf_block *b = a->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > PF_BLOCK ? n : PF_BLOCK;
        b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->next = a->head;
        b->used = 0;
        b->cap = cap;
        a->head = b;
    }
    void *p = (char *)b->align + b->used;
    b->used += n;
    return p;
}

pmc_slice pf_arena_dup(pf_arena *a, const void *p, size_t n)
{
    char *q = pf_arena_alloc(a, n + 1);
    if (!q)
        return (pmc_slice){ "", 0 };
    if (n)
        memcpy(q, p, n);
    q[n] = '\0';
    return (pmc_slice){ q, n };
}

void pf_arena_free(pf_arena *a)
{
    while (a->head) {
        pf_block *n = a->head->next;
        free(a->head);
        a->head = n;
    }
}
