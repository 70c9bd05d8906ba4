/* The client kit's fork mode (pmifuzz_client_fork) against a stand-in
 * library whose behaviour the input's first byte picks, so that
 * kit/forked.sh can check how each end of the child is judged:
 *   e  exit(3)             the library's refusal: no finding
 *   a  abort()             the library's refusal: no finding
 *   s  a write through NULL a finding
 *   S  the same after 3.5 s (the parent's wait is interrupted by
 *      libFuzzer's alarm meanwhile: the crash must still be seen)
 *   anything else          returns */
#include <stdlib.h>
#include <time.h>

#include "pmifuzz/harness.h"

static volatile char what;
static int *volatile nowhere;

static void api(void)
{
    switch (what) {
    case 'e':
        exit(3);
    case 'a':
        abort();
    case 'S': {
        struct timespec ts = { 3, 500000000L };
        nanosleep(&ts, NULL);
    }
        /* fall through */
    case 's':
        *nowhere = 1;
        break;
    default:
        break;
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    pmifuzz_harness_init(PMIFUZZ_RESPONSES);
    pmifuzz_client_fork(1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    what = size ? (char)data[0] : 0;
    pmifuzz_client_run(data, size, api);
    return 0;
}
