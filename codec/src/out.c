/* pmc_out: the growable byte buffer the encoder writes into.
 * Capacity doubles (amortised O(1) appends) and never shrinks, so a buffer
 * reused across messages stops allocating once it fits the largest one. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmicodec/encoder.h"

enum { OUT_MIN_CAP = 256 };

int pmc_out_reserve(pmc_out *o, size_t extra)
{
    if (extra <= o->cap - o->len)
        return 0;
    /* No object may exceed PTRDIFF_MAX; refuse before asking realloc. */
    if (extra > (size_t)PTRDIFF_MAX - o->len)
        return -1;
    size_t need = o->len + extra;
    size_t cap = o->cap ? o->cap : OUT_MIN_CAP;
    while (cap < need) {
        if (cap > (size_t)PTRDIFF_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    /* realloc leaves the old block intact on failure: nothing is lost. */
    char *p = realloc(o->buf, cap);
    if (!p)
        return -1;
    o->buf = p;
    o->cap = cap;
    return 0;
}

int pmc_out_append(pmc_out *o, const void *p, size_t n)
{
    if (n == 0)
        return 0;
    if (pmc_out_reserve(o, n) != 0)
        return -1;
    memcpy(o->buf + o->len, p, n);
    o->len += n;
    return 0;
}

void pmc_out_reset(pmc_out *o)
{
    o->len = 0;
}

void pmc_out_free(pmc_out *o)
{
    free(o->buf);
    o->buf = NULL;
    o->len = 0;
    o->cap = 0;
}
