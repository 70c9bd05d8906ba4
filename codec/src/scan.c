/* Vectorised skipping over value bytes.  Values are the bulk of a PMI
 * message (business cards of up to 1 KB); the grammar jumps over them with
 * these scans instead of taking one state transition per byte. */
#include "internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>

static inline unsigned first_bit(unsigned m)
{
    return (unsigned)__builtin_ctz(m);
}
#endif

const char *pmc_scan_v2_value(const char *p, const char *end)
{
#if defined(__SSE2__)
    const __m128i semi = _mm_set1_epi8(';');
    const __m128i zero = _mm_setzero_si128();
    while (end - p >= 32) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
        __m128i ma = _mm_or_si128(_mm_cmpeq_epi8(a, semi), _mm_cmpeq_epi8(a, zero));
        __m128i mb = _mm_or_si128(_mm_cmpeq_epi8(b, semi), _mm_cmpeq_epi8(b, zero));
        unsigned m = (unsigned)_mm_movemask_epi8(ma) | ((unsigned)_mm_movemask_epi8(mb) << 16);
        if (m)
            return p + first_bit(m);
        p += 32;
    }
    while (end - p >= 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(a, semi), _mm_cmpeq_epi8(a, zero)));
        if (m)
            return p + first_bit(m);
        p += 16;
    }
#endif
    while (p < end && *p != ';' && *p != 0)
        p++;
    return p;
}

const char *pmc_scan_v2_value_esc(const char *p, const char *end, size_t *escapes)
{
    /* Jump over ";;" pairs too, so an escaped value stays on the vector path
     * instead of dropping into the grammar at every ';'. */
    for (;;) {
        const char *q = pmc_scan_v2_value(p, end);
        if (q + 1 < end && q[0] == ';' && q[1] == ';') {
            ++*escapes;
            p = q + 2;
            continue;
        }
        return q;
    }
}

#define W4(c) [c] = 1, [c + 1] = 1, [c + 2] = 1, [c + 3] = 1
const uint8_t pmc_wordchar[256] = {
    ['-'] = 1, ['_'] = 1,
    W4('0'), W4('4'), ['8'] = 1, ['9'] = 1,
    W4('A'), W4('E'), W4('I'), W4('M'), W4('Q'), W4('U'), ['Y'] = 1, ['Z'] = 1,
    W4('a'), W4('e'), W4('i'), W4('m'), W4('q'), W4('u'), ['y'] = 1, ['z'] = 1,
};
#undef W4

/* Bytes that end a PMI-1 value: 1 always, 2 only with backslash escapes. */
static const uint8_t v1_stop[256] = { [0] = 1, [' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\\'] = 2 };

const char *pmc_scan_v1_value(const char *p, const char *end, bool backslash)
{
    /* Most PMI-1 values are short (kvs names, ranks, keys): a table lookup
     * per byte finds their end before vector set-up would pay off. */
    const uint8_t mask = backslash ? 3 : 1;
    const char *short_end = end - p > 16 ? p + 16 : end;
    while (p < short_end && !(v1_stop[(uint8_t)*p] & mask))
        p++;
    if (p < short_end || p == end)
        return p;
#if defined(__SSE2__)
    const __m128i sp = _mm_set1_epi8(' ');
    const __m128i nl = _mm_set1_epi8('\n');
    const __m128i cr = _mm_set1_epi8('\r');
    const __m128i zero = _mm_setzero_si128();
    const __m128i bsl = _mm_set1_epi8(backslash ? '\\' : ' ');
    while (end - p >= 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(a, sp), _mm_cmpeq_epi8(a, nl)),
                                 _mm_or_si128(_mm_cmpeq_epi8(a, cr), _mm_cmpeq_epi8(a, zero)));
        m = _mm_or_si128(m, _mm_cmpeq_epi8(a, bsl));
        unsigned bits = (unsigned)_mm_movemask_epi8(m);
        if (bits)
            return p + first_bit(bits);
        p += 16;
    }
#endif
    while (p < end && *p != ' ' && *p != '\n' && *p != '\r' && *p != 0 &&
           !(backslash && *p == '\\'))
        p++;
    return p;
}
