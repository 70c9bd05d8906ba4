/* pmifuzz_mutate: decode, apply one to three structural mutations, encode.
 * An input with no decodable message, and now and then any input, gets
 * byte-level mutation instead, so the byte neighbourhood is not lost. */
#include <string.h>

#include "bytes.h"
#include "ops.h"

/* Weighted choice among the structural ops; raw damage at the configured rate. */
static const pf_op *choose(pf_rng *r, const pmifuzz_config *cfg)
{
    size_t n = 0;
    const pf_op *ops = pf_ops(&n);
    int raw = pf_chance(r, cfg->raw_damage, 16);
    unsigned total = 0;
    for (size_t i = 0; i < n; i++)
        if (ops[i].raw == raw)
            total += ops[i].weight;
    size_t k = pf_below(r, total);
    for (size_t i = 0; i < n; i++) {
        if (ops[i].raw != raw)
            continue;
        if (k < ops[i].weight)
            return &ops[i];
        k -= ops[i].weight;
    }
    return &ops[0];
}

/* One attempt; returns the new size, or 0 when the result did not fit or
 * nothing applied. */
static size_t attempt(uint8_t *data, size_t size, size_t max, pf_rng *r)
{
    pf_stream s;
    if (pf_stream_decode(&s, data, size) != 0) {
        pf_stream_free(&s);
        return 0;
    }
    const pmifuzz_config *cfg = pf_config();
    /* libFuzzer turns its length control off for custom mutators: grow
     * inputs a little at a time (small inputs run faster), with a full-size
     * attempt now and then so floods and limit values still reach max */
    size_t room = size + 64 + size / 2;
    pf_ctx c = { .s = &s, .r = r, .max = pf_chance(r, 1, 8) || room > max ? max : room,
                 .cfg = cfg, .input = data, .input_len = size };
    int applied = 0;
    size_t rounds = 1 + pf_below(r, 3);
    for (size_t i = 0; i < rounds; i++) {
        const pf_op *op = s.nmsg ? choose(r, cfg) : NULL;
        if (!op) { /* nothing decodes: start a message from the schema */
            size_t n = 0;
            const pf_op *ops = pf_ops(&n);
            for (size_t j = 0; j < n; j++)
                if (strcmp(ops[j].name, "new-msg") == 0)
                    op = &ops[j];
        }
        applied |= op->fn(&c);
    }
    size_t out_len = 0;
    pmc_out out = { 0 };
    if (applied && pf_stream_encode(&s, &out) == 0 && out.len <= max && out.len > 0) {
        memcpy(data, out.buf, out.len);
        out_len = out.len;
    }
    pmc_out_free(&out);
    pf_stream_free(&s);
    return out_len;
}

size_t pmifuzz_mutate(uint8_t *data, size_t size, size_t max, unsigned seed)
{
    pf_rng r;
    pf_rng_seed(&r, seed);
    size_t nmsg = pmifuzz_count_messages(data, size);
    /* undecodable input is mostly bytes; a decodable one keeps a byte path too */
    if ((nmsg == 0 && pf_chance(&r, 3, 4)) || pf_chance(&r, 1, 8))
        return pf_byte_mutate(data, size, max, &r);
    for (int tries = 0; tries < 4; tries++) {
        size_t n = attempt(data, size, max, &r);
        if (n)
            return n;
    }
    return pf_byte_mutate(data, size, max, &r);
}

size_t pmifuzz_count_messages(const uint8_t *data, size_t size)
{
    pmc_decoder_opts o;
    pf_decoder_opts(&o);
    pmc_decoder *d = pmc_decoder_new(&o);
    if (!d)
        return 0;
    size_t pos = 0, n = 0;
    while (pos < size) {
        pmc_msg m;
        pmc_error err;
        size_t used = 0;
        int rc = pmc_decode_buffer(d, (const char *)data + pos, size - pos, pos, &m, &err, &used);
        if (rc == PMC_MSG)
            n++;
        else if (!(rc == PMC_ERR && !err.fatal && used))
            break;
        pos += used;
    }
    pmc_decoder_free(d);
    return n;
}
