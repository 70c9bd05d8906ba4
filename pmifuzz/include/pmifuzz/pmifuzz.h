/* libpmifuzz: a PMI-aware mutator for libFuzzer.
 *
 * Linking libpmifuzz into a libFuzzer harness is enough: the library defines
 * LLVMFuzzerCustomMutator and LLVMFuzzerCustomCrossOver, which decode the
 * input with pmicodec (PMI-1 lines, PMI-2 frames, or a mix), mutate it
 * structurally and write it back in one of the codec's dialects.  Input that
 * does not decode gets libFuzzer's byte-level mutation.
 *
 *   clang -fsanitize=fuzzer harness.c $(pkg-config --cflags --libs pmifuzz)
 *
 * The functions below are for harnesses that want to steer the mutator or
 * call it themselves (tests, other fuzzing engines). */
#ifndef PMIFUZZ_H
#define PMIFUZZ_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PMIFUZZ_API __attribute__((visibility("default")))
#else
#define PMIFUZZ_API
#endif

/* Which side's messages the mutator invents when it swaps or adds commands. */
typedef enum pmifuzz_side {
    PMIFUZZ_ANY = 0,       /* requests and responses */
    PMIFUZZ_REQUESTS = 1,  /* a server parser is fed requests */
    PMIFUZZ_RESPONSES = 2, /* a client library is fed responses */
} pmifuzz_side;

/* Which wire forms it writes. */
enum pmifuzz_wires {
    PMIFUZZ_WIRE_V1 = 1u << 0,
    PMIFUZZ_WIRE_V2 = 1u << 1,
    PMIFUZZ_WIRE_BOTH = PMIFUZZ_WIRE_V1 | PMIFUZZ_WIRE_V2,
};

typedef struct pmifuzz_config {
    pmifuzz_side side;
    unsigned wires;     /* pmifuzz_wires; 0 = both */
    unsigned raw_damage; /* out of 16: how often a mutation damages bytes after encoding (4) */
} pmifuzz_config;

/* Process-wide settings (call from LLVMFuzzerInitialize).  NULL: defaults.
 * PMIFUZZ_SIDE=requests|responses and PMIFUZZ_WIRES=v1|v2 in the environment
 * override them. */
PMIFUZZ_API void pmifuzz_configure(const pmifuzz_config *c);

/* One mutation of data[0..size) in place, at most max bytes; returns the new
 * size.  Every choice comes from seed: outside libFuzzer the same (data, size,
 * max, seed) always gives the same output.  Inside libFuzzer three inputs
 * also depend on the run so far, all reproduced by the same -seed=N and
 * corpus: byte-level steps use LLVMFuzzerMutate (libFuzzer's generator), the
 * client kit's record of where the library stopped on each input, and the
 * length limit (libFuzzer's length control, which it turns off for custom
 * mutators, kept by the mutator: it grows with the number of calls). */
PMIFUZZ_API size_t pmifuzz_mutate(uint8_t *data, size_t size, size_t max, unsigned seed);

/* A child of two inputs in out[0..max); returns its size.  Deterministic. */
PMIFUZZ_API size_t pmifuzz_crossover(const uint8_t *a, size_t na, const uint8_t *b, size_t nb,
                                     uint8_t *out, size_t max, unsigned seed);

/* Messages the codec decodes from data (a harness's corpus check). */
PMIFUZZ_API size_t pmifuzz_count_messages(const uint8_t *data, size_t size);

#ifdef __cplusplus
}
#endif
#endif
