/* tests/peers/newcomer4_parser, a PMI server's request parser written in a
 * day from SPEC.md by an engineer who had never seen this project's code,
 * through the server kit; the harness is the one that engineer wrote from
 * docs/fuzzing-your-parser.md.  Its first-version bugs (a 1024-byte line
 * buffer, 16 spawn segments, keys and values copied without bounds) are
 * the bench's crashes in independent code. */
#include "pmifuzz/harness.h"
#include "pmisrv.h"

static void handle(const char *buf, size_t len)
{
    struct pmisrv_conn *c = pmisrv_conn_new();
    pmisrv_feed(c, buf, len);
    pmisrv_conn_free(c);
}

PMIFUZZ_SERVER_HARNESS(handle)
