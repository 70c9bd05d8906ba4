/* The measured loops.  Each runs `passes` passes over a whole workload
 * stream and returns a sum of lengths taken from the results, which the
 * timing code stores in a volatile.  On an unexpected codec result a loop
 * records it and stops; main() reports it and exits non-zero. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

const char *bench_op_name(bench_op op)
{
    static const char *const names[BENCH_OP_COUNT] = {
        [BENCH_DECODE] = "decode",
        [BENCH_VALIDATE] = "decode+validate",
        [BENCH_STREAM] = "stream",
        [BENCH_ENCODE] = "encode",
    };
    return op < BENCH_OP_COUNT ? names[op] : "?";
}

static void fail(bench_kctx *k, size_t i, const pmc_error *err, const char *what)
{
    k->failed = true;
    k->fail_index = i;
    if (err)
        k->err = *err;
    else
        pmc_error_set(&k->err, PMC_E_INTERNAL, 0, "%s", what);
}

static uint64_t k_decode(void *ctx, uint64_t passes)
{
    bench_kctx *k = ctx;
    const char *buf = k->in->buf;
    size_t len = k->in->len;
    uint64_t sum = 0;
    for (uint64_t p = 0; p < passes; p++) {
        size_t off = 0, i = 0;
        while (off < len) {
            pmc_msg m;
            pmc_error err;
            size_t used;
            if (pmc_decode_buffer(k->dec, buf + off, len - off, off, &m, &err, &used) != PMC_MSG) {
                fail(k, i, &err, NULL);
                return sum;
            }
            sum += m.npairs + m.raw.len;
            off += used;
            i++;
        }
    }
    return sum;
}

/* What a server does before acting on a request: decode, then check it
 * against the schema.  The report is NULL as on the fast path of a server,
 * which asks for findings only when the verdict is negative. */
static uint64_t k_validate(void *ctx, uint64_t passes)
{
    bench_kctx *k = ctx;
    const char *buf = k->in->buf;
    size_t len = k->in->len;
    uint64_t sum = 0;
    for (uint64_t p = 0; p < passes; p++) {
        size_t off = 0, i = 0;
        while (off < len) {
            pmc_msg m;
            pmc_error err;
            size_t used;
            if (pmc_decode_buffer(k->dec, buf + off, len - off, off, &m, &err, &used) != PMC_MSG) {
                fail(k, i, &err, NULL);
                return sum;
            }
            if (!pmc_validate(&m, PMC_VAL_REQUEST, NULL)) {
                fail(k, i, NULL, "pmc_validate rejected a benchmark message");
                return sum;
            }
            sum += m.npairs + m.raw.len;
            off += used;
            i++;
        }
    }
    return sum;
}

/* The socket path: bytes are copied into the decoder in read()-sized chunks
 * and messages are pulled out of its buffer.  No validation, so the
 * difference from the decode row is the cost of buffering. */
static uint64_t k_stream(void *ctx, uint64_t passes)
{
    bench_kctx *k = ctx;
    const char *buf = k->in->buf;
    size_t len = k->in->len;
    uint64_t sum = 0;
    for (uint64_t p = 0; p < passes; p++) {
        size_t off = 0, i = 0;
        while (off < len) {
            size_t n = len - off < BENCH_CHUNK ? len - off : BENCH_CHUNK;
            if (pmc_decoder_feed(k->dec, buf + off, n) != 0) {
                fail(k, i, NULL, "pmc_decoder_feed: out of memory");
                return sum;
            }
            off += n;
            pmc_msg m;
            pmc_error err;
            int rc;
            while ((rc = pmc_decoder_next(k->dec, &m, &err)) == PMC_MSG) {
                sum += m.npairs + m.raw.len;
                i++;
            }
            if (rc == PMC_ERR) {
                fail(k, i, &err, NULL);
                return sum;
            }
        }
    }
    return sum;
}

static uint64_t k_encode(void *ctx, uint64_t passes)
{
    bench_kctx *k = ctx;
    const bench_input *in = k->in;
    uint64_t sum = 0;
    for (uint64_t p = 0; p < passes; p++) {
        pmc_out_reset(&k->out);
        for (size_t i = 0; i < in->nmsgs; i++) {
            pmc_error err;
            if (in->emit(in, i, &k->out, &err) != 0) {
                fail(k, i, &err, NULL);
                return sum;
            }
        }
        sum += k->out.len;
    }
    return sum;
}

/* The baseline: copy the same bytes in the same pieces (one message at a
 * time, or 64 KiB chunks for the streaming path) into another buffer. */
uint64_t bench_memcpy_kernel(void *ctx, uint64_t passes)
{
    bench_kctx *k = ctx;
    const char *src = k->in->buf;
    char *dst = k->dst;
    uint64_t sum = 0;
    for (uint64_t p = 0; p < passes; p++) {
        size_t prev = 0;
        for (size_t i = 0; i < k->nends; i++) {
            memcpy(dst + prev, src + prev, k->ends[i] - prev);
            prev = k->ends[i];
        }
        sum += (unsigned char)dst[p % k->in->len] + prev;
    }
    return sum;
}

bench_kernel bench_op_kernel(bench_op op)
{
    switch (op) {
    case BENCH_DECODE: return k_decode;
    case BENCH_VALIDATE: return k_validate;
    case BENCH_STREAM: return k_stream;
    case BENCH_ENCODE: return k_encode;
    default: return NULL;
    }
}

int bench_kctx_init(bench_kctx *k, const bench_input *in, bench_op op)
{
    memset(k, 0, sizeof *k);
    k->in = in;
    k->dst = malloc(in->len ? in->len : 1);
    if (!k->dst)
        return -1;
    if (op == BENCH_DECODE || op == BENCH_VALIDATE || op == BENCH_STREAM) {
        k->dec = pmc_decoder_new(NULL);
        if (!k->dec)
            return -1;
    }
    if (op == BENCH_STREAM) {
        k->nends = (in->len + BENCH_CHUNK - 1) / BENCH_CHUNK;
        k->chunk_ends = malloc((k->nends ? k->nends : 1) * sizeof *k->chunk_ends);
        if (!k->chunk_ends)
            return -1;
        for (size_t i = 0; i < k->nends; i++)
            k->chunk_ends[i] = (i + 1) * BENCH_CHUNK < in->len ? (i + 1) * BENCH_CHUNK : in->len;
        k->ends = k->chunk_ends;
    } else {
        k->ends = in->ends;
        k->nends = in->nmsgs;
    }
    if (op == BENCH_ENCODE && pmc_out_reserve(&k->out, in->len) != 0)
        return -1;
    return 0;
}

void bench_kctx_free(bench_kctx *k)
{
    if (k->dec)
        pmc_decoder_free(k->dec);
    pmc_out_free(&k->out);
    free(k->dst);
    free(k->chunk_ends);
    memset(k, 0, sizeof *k);
}
