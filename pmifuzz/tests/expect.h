/* A check that counts its failures and goes on (libpmifuzz's tests report
 * every broken promise of a run, not the first). */
#ifndef PMIFUZZ_TESTS_EXPECT_H
#define PMIFUZZ_TESTS_EXPECT_H

#include <stdio.h>

static int failures;
#define EXPECT(c, ...)                                                                             \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#endif
