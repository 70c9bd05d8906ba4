/* LLVMFuzzerMutate is libFuzzer's; it is declared weak so the library also
 * links into programs without libFuzzer (tests, other engines), which get a
 * small seeded byte mutator instead. */
#include "bytes.h"

#include <string.h>

extern size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max) __attribute__((weak));

static size_t own_mutate(uint8_t *data, size_t size, size_t max, pf_rng *r)
{
    static const char dict[] = "=; \n\r\\0123456789";
    switch (pf_below(r, 4)) {
    case 0: /* flip a byte */
        if (size) {
            data[pf_below(r, size)] ^= (uint8_t)(1u << pf_below(r, 8));
            return size;
        }
        /* fall through */
    case 1: /* insert a separator or a digit */
        if (size < max) {
            size_t at = pf_below(r, size + 1);
            memmove(data + at + 1, data + at, size - at);
            data[at] = (uint8_t)dict[pf_below(r, sizeof dict - 1)];
            return size + 1;
        }
        /* fall through */
    case 2: /* erase a byte */
        if (size > 1) {
            size_t at = pf_below(r, size);
            memmove(data + at, data + at + 1, size - at - 1);
            return size - 1;
        }
        return size;
    default: /* overwrite with a separator */
        if (size)
            data[pf_below(r, size)] = (uint8_t)dict[pf_below(r, sizeof dict - 1)];
        return size;
    }
}

size_t pf_byte_mutate(uint8_t *data, size_t size, size_t max, pf_rng *r)
{
    if (LLVMFuzzerMutate)
        return LLVMFuzzerMutate(data, size, max);
    return own_mutate(data, size, max, r);
}

int pf_in_libfuzzer(void)
{
    return LLVMFuzzerMutate != NULL;
}
