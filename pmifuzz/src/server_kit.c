/* The server kit: the codec frames the input into messages; each goes to
 * the user's parser in a buffer of exactly its size. */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "pmifuzz/harness.h"

static void call(pmifuzz_handle_fn handle, const char *p, size_t n)
{
    char *copy = malloc(n ? n : 1); /* its own allocation: ASan sees the end */
    if (!copy)
        return;
    if (n)
        memcpy(copy, p, n);
    handle(copy, n);
    free(copy);
}

void pmifuzz_server_feed(const uint8_t *data, size_t size, pmifuzz_handle_fn handle,
                         unsigned flags)
{
    const char *buf = (const char *)data;
    if (flags & PMIFUZZ_WHOLE) {
        call(handle, buf, size);
        return;
    }
    pmc_decoder_opts o;
    pf_decoder_opts(&o);
    pmc_decoder *d = pmc_decoder_new(&o);
    if (!d) {
        call(handle, buf, size);
        return;
    }
    size_t pos = 0;
    while (pos < size) {
        pmc_msg m;
        pmc_error err;
        size_t used = 0;
        int rc = pmc_decode_buffer(d, buf + pos, size - pos, pos, &m, &err, &used);
        if (rc == PMC_AGAIN || (rc == PMC_ERR && (err.fatal || !used)))
            used = size - pos; /* a cut-off or unframeable rest goes as it is */
        call(handle, buf + pos, used);
        pos += used;
    }
    pmc_decoder_free(d);
}

void pmifuzz_harness_init(pmifuzz_side side)
{
    pmifuzz_config c = { .side = side, .wires = PMIFUZZ_WIRE_BOTH, .raw_damage = 4 };
    pmifuzz_configure(&c);
}
