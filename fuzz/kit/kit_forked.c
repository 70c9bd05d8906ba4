/* The client kit's fork mode (PMIFUZZ_CLIENT_HARNESS_FORKED) against a
 * stand-in library that reads one byte of the server's answer from PMI_FD
 * and does what it says, so that kit/forked.sh can check how each end of
 * the child is judged:
 *   e  exit(3)             the library's refusal: no finding
 *   a  abort()             the library's refusal: no finding
 *   s  a write through NULL a finding
 *   S  the same after 3.5 s (the parent's wait is interrupted by
 *      libFuzzer's alarm meanwhile: the crash must still be seen)
 *   anything else          returns */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "pmifuzz/harness.h"

static int *volatile nowhere;

static void api(void)
{
    const char *fd = getenv("PMI_FD");
    char what = 0;
    if (!fd || read(atoi(fd), &what, 1) != 1)
        return;
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

PMIFUZZ_CLIENT_HARNESS_FORKED(api)
