/* Harness: the decoder on input classified as PMI-1 (a line or an mcmd block).
 *
 * Input: [opts byte][mode byte] then the message bytes.  When the bytes do not
 * already start with "cmd=" / "mcmd=", mode bit 0 picks which prefix is put
 * in front, so every input exercises the v1 path.  Each message and error is
 * checked against the invariants of fuzz_common.c, and pmc_decode_buffer and
 * the streaming decoder must agree. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_msg(const pmc_decoder_opts *o, const pmc_msg *m, void *ctx)
{
    (void)o;
    (void)ctx;
    FZ_CHECK(m->wire == PMC_WIRE_V1 || m->wire == PMC_WIRE_V1_MCMD || m->offset > 0,
             "the first message of v1 input is v1");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    pmc_decoder_opts o;
    fz_opts_from_byte(data[0], &o);
    const char *in = (const char *)data + 2;
    size_t n = size - 2;
    const char *prefix = "";
    if (!(n >= 4 && memcmp(in, "cmd=", 4) == 0) && !(n >= 5 && memcmp(in, "mcmd=", 5) == 0))
        prefix = (data[1] & 1) ? "mcmd=" : "cmd=";
    size_t pl = strlen(prefix);
    char *buf = malloc(pl + n + 1);
    FZ_CHECK(buf != NULL, "allocation");
    memcpy(buf, prefix, pl);
    memcpy(buf + pl, in, n);
    fz_decode_workout(&o, buf, pl + n, on_msg, NULL);
    free(buf);
    return 0;
}
