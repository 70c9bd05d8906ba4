/* Harness: the decoder on PMI-2 frames.
 *
 * Input: [opts byte][mode byte] then bytes.  Mode bits 0-1:
 *   0  the bytes are used as they are (a leading 'c'/'m' is replaced by ' '
 *      so the input stays a v2 frame and the length field is fuzzed too);
 *   1-3  the bytes are a body and a length field is computed for it,
 *      right-justified, left-justified or zero-padded; mode bits 2-4 add
 *      0-7 to the announced length (junk / truncation) when bit 5 is set.
 * Then every message and error is checked and the decoding paths compared. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    pmc_decoder_opts o;
    fz_opts_from_byte(data[0], &o);
    uint8_t mode = data[1];
    const char *in = (const char *)data + 2;
    size_t n = size - 2;
    char *buf = malloc(n + 7);
    FZ_CHECK(buf != NULL, "allocation");
    size_t len;
    if ((mode & 3) == 0) {
        memcpy(buf, in, n);
        if (n && (buf[0] == 'c' || buf[0] == 'm'))
            buf[0] = ' ';
        len = n;
    } else {
        size_t claim = n + ((mode & 0x20) ? ((mode >> 2) & 7) : 0);
        char field[16];
        if (claim > 999999)
            claim = 999999;
        if ((mode & 3) == 1)
            snprintf(field, sizeof field, "%6zu", claim);
        else if ((mode & 3) == 2)
            snprintf(field, sizeof field, "%-6zu", claim);
        else
            snprintf(field, sizeof field, "%06zu", claim);
        memcpy(buf, field, 6);
        memcpy(buf + 6, in, n);
        len = n + 6;
    }
    fz_decode_workout(&o, buf, len, NULL, NULL);
    free(buf);
    return 0;
}
