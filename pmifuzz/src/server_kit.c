/* The server kit: the codec frames the input into messages; each goes to
 * the user's parser in a buffer of exactly its size (with PMIFUZZ_CSTRING,
 * its size and a NUL). */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "pmifuzz/harness.h"

static void call(pmifuzz_handle_fn handle, const char *p, size_t n, unsigned flags)
{
    size_t nul = (flags & PMIFUZZ_CSTRING) ? 1 : 0, sz = n + nul;
    char *copy = malloc(sz ? sz : 1); /* its own allocation: ASan sees the end */
    if (!copy)
        return;
    if (n)
        memcpy(copy, p, n);
    if (nul)
        copy[n] = '\0';
    handle(copy, n);
    free(copy);
}

/* The end of the message that starts at pos (the codec frames it; a
 * cut-off or unframeable rest runs to the end of the input). */
static size_t message_end(pmc_decoder *d, const char *buf, size_t size, size_t pos)
{
    pmc_msg m;
    pmc_error err;
    size_t used = 0;
    int rc = d ? pmc_decode_buffer(d, buf + pos, size - pos, pos, &m, &err, &used) : PMC_AGAIN;
    if (rc == PMC_AGAIN || (rc == PMC_ERR && (err.fatal || !used)))
        used = size - pos;
    return pos + used;
}

/* PMIFUZZ_CHUNKS: the stream in the pieces a socket may hand a reader: a
 * message whole, one byte, a few bytes (inside a length field), all of a
 * message but its last byte, or any run.  The cuts follow from the input's
 * own bytes, so a crash file replays with the same pieces.  handle(NULL, 0)
 * last: the peer closed. */
static void feed_chunks(pmc_decoder *d, const char *buf, size_t size, pmifuzz_handle_fn handle,
                        unsigned flags)
{
    uint64_t h = 0xcbf29ce484222325ull ^ size;
    for (size_t i = 0; i < size; i++)
        h = (h ^ (uint8_t)buf[i]) * 0x100000001b3ull;
    size_t pos = 0, end = 0; /* end: of the message pos is in */
    while (pos < size) {
        h ^= h << 13, h ^= h >> 7, h ^= h << 17; /* xorshift64 */
        while (end <= pos)
            end = message_end(d, buf, size, end);
        size_t to_end = end - pos, n;
        switch (h % 8) {
        case 0:
            n = 1;
            break;
        case 1:
            n = 1 + (size_t)(h >> 8) % 7;
            break;
        case 2:
            n = 1 + (size_t)(h >> 8) % (size - pos);
            break;
        case 3:
            n = to_end > 1 ? to_end - 1 : to_end;
            break;
        default:
            n = to_end;
            break;
        }
        if (n > size - pos)
            n = size - pos;
        call(handle, buf + pos, n, flags);
        pos += n;
    }
    handle(NULL, 0);
}

void pmifuzz_server_feed(const uint8_t *data, size_t size, pmifuzz_handle_fn handle,
                         unsigned flags)
{
    const char *buf = (const char *)data;
    if (flags & PMIFUZZ_WHOLE && !(flags & PMIFUZZ_CHUNKS)) {
        call(handle, buf, size, flags);
        return;
    }
    pmc_decoder_opts o;
    pf_decoder_opts(&o);
    pmc_decoder *d = pmc_decoder_new(&o); /* none: the rest as one piece */
    if (flags & PMIFUZZ_CHUNKS)
        feed_chunks(d, buf, size, handle, flags);
    else
        for (size_t pos = 0, end; pos < size; pos = end) {
            end = message_end(d, buf, size, pos);
            call(handle, buf + pos, end - pos, flags);
        }
    pmc_decoder_free(d);
}

void pmifuzz_harness_init(pmifuzz_side side)
{
    pmifuzz_config c = { .side = side, .wires = PMIFUZZ_WIRE_BOTH, .raw_damage = 4 };
    pmifuzz_configure(&c);
}
