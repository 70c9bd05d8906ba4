/* libFuzzer's custom mutator hooks: defined here so that linking the
 * library is all a harness does to get the PMI-aware mutator. */
#include "pmifuzz/pmifuzz.h"

PMIFUZZ_API size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max,
                                           unsigned int seed);
PMIFUZZ_API size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2,
                                             size_t s2, uint8_t *out, size_t max,
                                             unsigned int seed);

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed)
{
    return pmifuzz_mutate(data, size, max, seed);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
                                 uint8_t *out, size_t max, unsigned int seed)
{
    return pmifuzz_crossover(d1, s1, d2, s2, out, max, seed);
}
