/* The planted server target through the server kit (the bench's crash
 * measurement).  PLANTED=pairs|abort selects one bug. */
#include <stdlib.h>
#include <string.h>

#include "planted_server.h"
#include "pmifuzz/harness.h"

static void handle(const char *buf, size_t len)
{
    planted_handle(buf, len);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *w = getenv("PLANTED");
    if (w)
        planted_select(strcmp(w, "pairs") == 0 ? PLANTED_PAIRS
                       : strcmp(w, "abort") == 0 ? PLANTED_ABORT
                                                 : PLANTED_PAIRS | PLANTED_ABORT);
    pmifuzz_harness_init(PMIFUZZ_REQUESTS);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pmifuzz_server_feed(data, size, handle, 0);
    return 0;
}
