/* A user's server harness, built only from the installed package:
 *   clang -fsanitize=fuzzer harness.c $(pkg-config --cflags --libs pmifuzz)
 * The "parser" counts the pairs of a PMI-1 line into a table of 4; the
 * smoke test checks that libFuzzer picks up the custom mutator and that the
 * mutator's pair floods overflow the table (ASan is not needed: the harness
 * aborts itself on the fifth pair). */
#include <stdlib.h>
#include <string.h>

#include <pmifuzz/harness.h>

static void handle(const char *buf, size_t len)
{
    int pairs = 0;
    if (len < 4 || memcmp(buf, "cmd=", 4) != 0)
        return;
    for (size_t i = 0; i < len; i++)
        if (buf[i] == '=' && ++pairs > 5) /* cmd= and four pairs fit */
            abort();
}

PMIFUZZ_SERVER_HARNESS(handle)
