/* Byte-level mutation: libFuzzer's own when the harness has it. */
#ifndef PMIFUZZ_BYTES_H
#define PMIFUZZ_BYTES_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

size_t pf_byte_mutate(uint8_t *data, size_t size, size_t max, pf_rng *r);
/* Whether the library runs inside libFuzzer (LLVMFuzzerMutate is there). */
int pf_in_libfuzzer(void);

#endif
