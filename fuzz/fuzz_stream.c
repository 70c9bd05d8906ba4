/* Harness: the streaming decoder fed in chunks whose sizes come from the input.
 *
 * Input: [opts byte][k][k chunk-size bytes, k = low 4 bits of the byte] then
 * the stream.  A size byte's low 7 bits are the chunk length (0 = an empty
 * feed); its high bit feeds through pmc_decoder_space/commit instead of
 * pmc_decoder_feed.  Sizes repeat cyclically.
 *
 * The same messages, errors (codes, offsets, raw bytes) and end-of-stream
 * verdict must come out whatever the chunking: the chunked run is compared
 * with one feed of the whole stream.  Fatal errors must be sticky, and
 * pmc_decoder_reset must keep counting stream offsets. */
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void feed(pmc_decoder *d, const char *p, size_t n, bool zero_copy)
{
    if (!zero_copy) {
        FZ_CHECK(pmc_decoder_feed(d, p, n) == 0, "feed of %zu bytes", n);
        return;
    }
    size_t avail = 0;
    char *dst = pmc_decoder_space(d, n, &avail);
    FZ_CHECK(dst != NULL && avail >= n, "space for %zu bytes (got %zu)", n, avail);
    if (n)
        memcpy(dst, p, n);
    pmc_decoder_commit(d, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    pmc_decoder_opts o;
    fz_opts_from_byte(data[0], &o);
    size_t k = data[1] & 15;
    if (size < 2 + k)
        return 0;
    const uint8_t *sizes = data + 2;
    const char *in = (const char *)data + 2 + k;
    size_t n = size - 2 - k;
    bool any = false;
    for (size_t i = 0; i < k; i++)
        any |= (sizes[i] & 0x7f) != 0;

    fz_log whole = { 0 }, chunked = { 0 };
    pmc_decoder *w = pmc_decoder_new(&o);
    FZ_CHECK(w != NULL, "decoder");
    feed(w, in, n, false);
    fz_stream_drain(w, &whole);
    fz_stream_finish(w, &whole);
    pmc_decoder_free(w);

    pmc_decoder *c = pmc_decoder_new(&o);
    FZ_CHECK(c != NULL, "decoder");
    bool alive = true;
    size_t pos = 0, i = 0;
    while (pos < n && alive) {
        size_t chunk = 1;
        bool zc = false;
        if (any) {
            chunk = sizes[i % k] & 0x7f;
            zc = (sizes[i % k] & 0x80) != 0;
            i++;
        }
        if (chunk > n - pos)
            chunk = n - pos;
        feed(c, in + pos, chunk, zc);
        pos += chunk;
        alive = fz_stream_drain(c, &chunked);
    }
    if (alive)
        alive = fz_stream_drain(c, &chunked); /* nothing new: must change nothing */
    fz_stream_finish(c, &chunked);
    fz_log_expect_equal(&whole, &chunked, "one feed", "chunked feeds");

    /* After a reset the decoder starts afresh, and offsets keep counting the
     * bytes fed so far. */
    pmc_decoder_reset(c);
    FZ_CHECK(pmc_decoder_pending(c) == 0, "reset empties the buffer");
    /* fz_stream_drain feeds a 6-byte probe into a failed decoder */
    size_t fed = pos + (alive ? 0 : 6);
    FZ_CHECK(pmc_decoder_offset(c) == fed, "offset %llu after reset is the %zu bytes fed",
             (unsigned long long)pmc_decoder_offset(c), fed);
    static const char probe[] = "    14cmd=kvs-fence;";
    feed(c, probe, sizeof probe - 1, false);
    pmc_msg m;
    pmc_error err;
    int rc = pmc_decoder_next(c, &m, &err);
    FZ_CHECK(rc == PMC_MSG && m.offset == fed && pmc_slice_eq(m.name, "kvs-fence"),
             "a decoder reset after any input decodes a fresh frame (rc %d)", rc);
    pmc_decoder_free(c);
    fz_log_free(&whole);
    fz_log_free(&chunked);
    return 0;
}
