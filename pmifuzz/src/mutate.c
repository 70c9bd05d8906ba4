/* pmifuzz_mutate: decode, apply one to three structural mutations, encode.
 * An input with no decodable message, and now and then any input, gets
 * byte-level mutation instead, so the byte neighbourhood is not lost. */
#include <string.h>

#include "answers.h"
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

static const pf_op *op_named(const char *name)
{
    size_t n = 0;
    const pf_op *ops = pf_ops(&n);
    for (size_t j = 0; j < n; j++)
        if (strcmp(ops[j].name, name) == 0)
            return &ops[j];
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
    /* a client library's run of this input: where it stopped, or (half the
     * time when there is one) where its chain of calls broke first */
    pf_answer a, stuck;
    const pf_answer *ans = NULL;
    if (pf_answer_lookup(data, size, &a) && a.nreq) {
        s.last_read = a.msg;
        ans = pf_answer_stuck(data, size, &stuck) && pf_chance(r, 1, 2) ? &stuck : &a;
        s.focus = ans->msg;
    }
    /* grow a little at a time, within the length limit (an input already
     * above it may change, not grow) */
    size_t soft = size + 64 + size / 2, lim = pf_len_limit();
    if (soft > (lim > size + 16 ? lim : size + 16))
        soft = lim > size + 16 ? lim : size + 16;
    pf_ctx c = { .s = &s, .r = r, .max = soft < max ? soft : max, .hard = max,
                 .cfg = cfg, .input = data, .input_len = size, .ans = ans };
    int applied = 0;
    size_t rounds = 1 + pf_below(r, 3);
    /* The library read every message and waited for one more: the input
     * ran out before its session did.  Answering it, alone, is the step
     * that leads somewhere new half the time. */
    if (s.focus > s.nmsg && pf_chance(r, 1, 2)) {
        applied = op_named("answer")->fn(&c);
        rounds = applied ? 0 : rounds;
    } else if (s.focus && s.focus <= s.nmsg && pf_chance(r, 1, ans == &stuck ? 2 : 4)) {
        /* It stopped at a message it could not use: this input is in the
         * corpus for what that message reached; an answer in its place (or
         * before it) takes the session on past it. */
        applied = op_named("answer")->fn(&c);
        rounds = applied ? 0 : rounds;
    }
    for (size_t i = 0; i < rounds; i++) {
        const pf_op *op = s.nmsg ? choose(r, cfg) : op_named("new-msg");
        /* nothing decodes: start a message from the schema */
        applied |= op->fn(&c);
    }
    size_t out_len = 0;
    pmc_out out = { 0 };
    if (applied && pf_stream_encode(&s, &out) == 0 && out.len <= (c.grown ? max : c.max) &&
        out.len > 0) {
        memcpy(data, out.buf, out.len);
        out_len = out.len;
    }
    pmc_out_free(&out);
    pf_stream_free(&s);
    return out_len;
}

/* libFuzzer turns its length control off when a custom mutator is linked
 * (and -len_control is not given): without one, inputs drift to max_len
 * and each run costs more.  This is the same rule, kept here: the limit
 * starts at the largest input of the first calls (the seeds) and grows by
 * log2 of itself every 100 * log2 of itself calls (libFuzzer's pace when
 * coverage stalls).  Inputs above it may change but not grow, except by
 * the answer a client library waits for and, a quarter of the time, a
 * flood or a limit value (they are about sizes).  Outside libFuzzer (tests,
 * other engines) there is no limit: every output depends only on the
 * arguments. */
static size_t len_calls, len_limit, len_next;
static uint64_t last_out; /* hash of the last output: libFuzzer stacks up to
                           * -mutate_depth mutations on one corpus input */

static unsigned ilog2(size_t n)
{
    unsigned l = 0;
    while (n >>= 1)
        l++;
    return l ? l : 1;
}

static uint64_t hash(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull ^ n;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

void pf_len_tick(const uint8_t *data, size_t size)
{
    len_calls++;
    if (len_calls <= 256) {
        /* the start: the largest corpus input (not one of our own outputs) */
        if (size > len_limit && hash(data, size) != last_out)
            len_limit = size;
        if (len_limit < 64)
            len_limit = 64;
        len_next = len_calls + 100 * ilog2(len_limit);
    } else if (len_calls >= len_next) {
        len_limit += ilog2(len_limit);
        len_next = len_calls + 100 * ilog2(len_limit);
    }
}

void pf_len_output(const uint8_t *data, size_t size)
{
    if (len_calls <= 256)
        last_out = hash(data, size);
}

size_t pf_len_limit(void)
{
    if (!pf_in_libfuzzer())
        return (size_t)-1 / 2;
    return len_limit ? len_limit : 64;
}

/* max for the byte path: the limit, or the input's size when above it. */
static size_t byte_max(size_t size, size_t max)
{
    size_t lim = pf_len_limit();
    size_t m = lim > size ? lim : size;
    return m < max ? m : max;
}

static size_t mutate(uint8_t *data, size_t size, size_t max, pf_rng *r)
{
    /* A client session grows one answer at a time at its frontier, and
     * libFuzzer hands out the few inputs at the frontier no more often
     * than the hundreds behind it: one time in four, work on an input
     * that took the library further than this one did. */
    pf_answer a;
    unsigned here = pf_answer_lookup(data, size, &a) ? a.fits : 0;
    if (pf_chance(r, 1, 4)) {
        size_t n = pf_answer_deep(r, here, data, max);
        if (n)
            size = n;
    }
    size_t nmsg = pmifuzz_count_messages(data, size);
    /* A client library's run that ended within its first two reads, on an
     * input of one or two messages, is a probe of the first answers'
     * grammars (a line, an mcmd block, a frame): bytes half the time. */
    int probe = nmsg <= 2 && pf_answer_lookup(data, size, &a) && a.msg <= 2;
    /* undecodable input is mostly bytes; a decodable one keeps a byte path too */
    if ((nmsg == 0 && pf_chance(r, 3, 4)) || pf_chance(r, 1, probe ? 2 : 8))
        return pf_byte_mutate(data, size, byte_max(size, max), r);
    for (int tries = 0; tries < 4; tries++) {
        size_t n = attempt(data, size, max, r);
        if (n)
            return n;
    }
    return pf_byte_mutate(data, size, byte_max(size, max), r);
}

size_t pmifuzz_mutate(uint8_t *data, size_t size, size_t max, unsigned seed)
{
    pf_rng r;
    pf_rng_seed(&r, seed);
    pf_len_tick(data, size);
    size_t n = mutate(data, size, max, &r);
    pf_len_output(data, n);
    return n;
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
