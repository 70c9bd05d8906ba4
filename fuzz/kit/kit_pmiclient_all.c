/* libpmiclient whole, both APIs in one harness: the input's first answer
 * says which API the job speaks.  An answer to init with pmi_version=1, or
 * the answer to initack (a PMI_PORT job), runs the PMI-1 calls of
 * kit_pmiclient_v1.c; anything else the PMI-2 calls of kit_pmiclient.c.
 * The mutator's changes to that first answer move an input from one API to
 * the other, so one run covers the library's every input-driven part.  Its
 * crash files replay in kit-pmiclient or kit-pmiclient_v1 (the same calls);
 * as the program of `pmi-trace replay --client` (PMIFUZZ_LIVE) it runs the
 * PMI-2 calls, or the PMI-1 calls when PMI_VERSION=1. */
#include <stdlib.h>
#include <string.h>

#include <pmicodec/pmicodec.h>

#include "pmiclient_calls.h"
#include "pmifuzz/harness.h"

static pmifuzz_api_fn api_for(const uint8_t *data, size_t size)
{
    pmc_decoder *d = pmc_decoder_new(NULL);
    pmc_msg m;
    pmc_error err;
    size_t used = 0;
    long long version = 2;
    pmifuzz_api_fn api = pmiclient_v2_calls;
    if (d && pmc_decode_buffer(d, (const char *)data, size, 0, &m, &err, &used) == PMC_MSG &&
        m.wire == PMC_WIRE_V1 &&
        (m.cmd == PMC_V1_INITACK ||
         (m.cmd == PMC_V1_RESPONSE_TO_INIT && pmc_msg_get_int(&m, "pmi_version", &version) == 1 &&
          version == 1)))
        api = pmiclient_v1_calls;
    pmc_decoder_free(d);
    return api;
}

static void live_calls(void)
{
    const char *v = getenv("PMI_VERSION");
    if (v && strcmp(v, "1") == 0)
        pmiclient_v1_calls();
    else
        pmiclient_v2_calls();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    pmifuzz_harness_init(PMIFUZZ_RESPONSES);
    pmifuzz_client_live(live_calls);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pmifuzz_client_run(data, size, api_for(data, size));
    return 0;
}
