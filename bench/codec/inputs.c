/* The workloads.  Every stream is written by the codec's encoder, never by
 * hand, and holds many messages back to back so the decoder walks through
 * memory as it would on a busy connection instead of re-reading one cached
 * message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { N_SHORT = 4096, N_LONG = 1024, VALUE_LEN = 1024, ESCAPE_EVERY = 64 };

static int emit_v2_get(const bench_input *in, size_t i, pmc_out *out, pmc_error *err)
{
    (void)i;
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(&e, "key", "k");
    return pmc_enc_end(&e, in->dialect, out, err);
}

static int emit_v2_put(const bench_input *in, size_t i, pmc_out *out, pmc_error *err)
{
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", "k");
    pmc_enc_str(&e, "value", in->vals + i * (in->vlen + 1));
    return pmc_enc_end(&e, in->dialect, out, err);
}

static int emit_v1_get(const bench_input *in, size_t i, pmc_out *out, pmc_error *err)
{
    (void)i;
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V1, "get");
    pmc_enc_str(&e, "kvsname", "kvs_1");
    pmc_enc_str(&e, "key", "k");
    return pmc_enc_end(&e, in->dialect, out, err);
}

/* Values that look like business cards ("port#1234$ifname#10.0.0.1$..."):
 * printable, varied, no ';' unless `escapes` asks for one every 64 bytes. */
static char *make_values(size_t n, size_t vlen, bool escapes)
{
    static const char alphabet[] =
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ#$.:-_/";
    char *v = malloc(n * (vlen + 1));
    if (!v)
        return NULL;
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < n; i++) {
        char *p = v + i * (vlen + 1);
        for (size_t j = 0; j < vlen; j++) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            p[j] = alphabet[(x >> 33) % (sizeof alphabet - 1)];
            if (escapes && j % ESCAPE_EVERY == ESCAPE_EVERY - 1)
                p[j] = ';';
        }
        p[vlen] = '\0';
    }
    return v;
}

static void print_err(const char *what, const bench_input *in, size_t i, const pmc_error *err)
{
    char text[512];
    pmc_error_format(err, text, sizeof text);
    fprintf(stderr, "bench-codec: %s: %s, message %zu: %s\n", in->name, what, i, text);
}

static int build_stream(bench_input *in)
{
    pmc_out out = { 0 };
    pmc_error err;
    in->ends = malloc(in->nmsgs * sizeof *in->ends);
    if (!in->ends)
        goto nomem;
    for (size_t i = 0; i < in->nmsgs; i++) {
        pmc_error_clear(&err);
        if (in->emit(in, i, &out, &err) != 0) {
            print_err("encoder rejected the input", in, i, &err);
            pmc_out_free(&out);
            return -1;
        }
        in->ends[i] = out.len;
    }
    in->buf = malloc(out.len ? out.len : 1);
    if (!in->buf)
        goto nomem;
    memcpy(in->buf, out.buf, out.len);
    in->len = out.len;
    pmc_out_free(&out);
    return 0;
nomem:
    pmc_out_free(&out);
    fprintf(stderr, "bench-codec: %s: out of memory\n", in->name);
    return -1;
}

/* The dialect for values with ';': strict when it escapes, else the draft. */
static const pmc_dialect *escaping_dialect(void)
{
    if (pmc_dialect_strict.escape_semi)
        return &pmc_dialect_strict;
    const pmc_dialect *d = pmc_dialect_get("draft");
    return d && d->escape_semi ? d : NULL;
}

int bench_inputs_build(bench_input *in, size_t max, bool quick)
{
    (void)quick; /* same streams: --quick only shortens the timing */
    const pmc_dialect *esc = escaping_dialect();
    bench_input all[] = {
        { .name = "v2-kvs-get",
          .what = "PMI-2 \"cmd=kvs-get;key=k;\" (short request)",
          .wire = PMC_WIRE_V2, .cmd = PMC_V2_KVS_GET, .dialect = &pmc_dialect_strict,
          .emit = emit_v2_get, .nmsgs = N_SHORT,
          .target = BENCH_T_MAX_NS, .target_value = 50 },
        { .name = "v2-kvs-put-1k",
          .what = "PMI-2 kvs-put with a 1024-byte value",
          .wire = PMC_WIRE_V2, .cmd = PMC_V2_KVS_PUT, .dialect = &pmc_dialect_strict,
          .emit = emit_v2_put, .nmsgs = N_LONG, .vlen = VALUE_LEN,
          .target = BENCH_T_MIN_GBPS, .target_value = 5 },
        { .name = "v2-kvs-put-1k-esc",
          .what = "PMI-2 kvs-put, 1024-byte value with a ';' (sent as \";;\") every 64 bytes",
          .wire = PMC_WIRE_V2, .cmd = PMC_V2_KVS_PUT, .dialect = esc,
          .emit = emit_v2_put, .nmsgs = N_LONG, .vlen = VALUE_LEN,
          .expect_notes = PMC_NOTE_ESCAPED_SEMI },
        { .name = "v1-get",
          .what = "PMI-1 \"cmd=get kvsname=kvs_1 key=k\\n\" (short request)",
          .wire = PMC_WIRE_V1, .cmd = PMC_V1_GET, .dialect = &pmc_dialect_strict,
          .emit = emit_v1_get, .nmsgs = N_SHORT,
          .target = BENCH_T_MAX_NS, .target_value = 50 },
    };
    size_t n = sizeof all / sizeof all[0];
    if (n > max)
        n = max;
    for (size_t i = 0; i < n; i++) {
        in[i] = all[i];
        if (!in[i].dialect) {
            fprintf(stderr, "bench-codec: %s: no dialect escapes ';' (strict, draft)\n",
                    in[i].name);
            bench_inputs_free(in, i + 1);
            return -1;
        }
        if (in[i].vlen) {
            in[i].vals = make_values(in[i].nmsgs, in[i].vlen,
                                     in[i].expect_notes & PMC_NOTE_ESCAPED_SEMI);
            if (!in[i].vals) {
                fprintf(stderr, "bench-codec: out of memory\n");
                bench_inputs_free(in, i + 1);
                return -1;
            }
        }
        if (build_stream(&in[i]) != 0) {
            bench_inputs_free(in, i + 1);
            return -1;
        }
    }
    return (int)n;
}

void bench_inputs_free(bench_input *in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(in[i].vals);
        free(in[i].buf);
        free(in[i].ends);
        in[i].vals = in[i].buf = NULL;
        in[i].ends = NULL;
    }
}

/* ---- verification: the figures mean nothing if the decode is wrong ---- */

static int check_msg(const bench_input *in, size_t i, const pmc_msg *m, const char *how)
{
    size_t start = i ? in->ends[i - 1] : 0, len = in->ends[i] - start;
    const char *why = NULL;
    pmc_slice v;
    if (m->wire != in->wire)
        why = "wrong wire form";
    else if (m->cmd != in->cmd)
        why = "wrong command id";
    else if (m->raw.len != len || memcmp(m->raw.ptr, in->buf + start, len) != 0)
        why = "raw bytes differ from the encoded message";
    else if (m->notes != in->expect_notes)
        why = "unexpected notes";
    else if (!pmc_msg_get(m, "key", &v) || !pmc_slice_eq(v, "k"))
        why = "key is not \"k\"";
    else if (in->vlen && (!pmc_msg_get(m, "value", &v) || v.len != in->vlen ||
                          memcmp(v.ptr, in->vals + i * (in->vlen + 1), in->vlen) != 0))
        why = "value differs from the encoded value";
    if (!why) {
        pmc_vreport rep;
        if (pmc_validate(m, PMC_VAL_REQUEST, &rep))
            return 0;
        fprintf(stderr, "bench-codec: %s (%s): message %zu fails validation:", in->name, how, i);
        if (rep.n == 0)
            fprintf(stderr, " (no findings recorded)");
        for (size_t f = 0; f < rep.n; f++)
            fprintf(stderr, " [%s %.*s: %s]", pmc_errcode_name(rep.f[f].code),
                    (int)rep.f[f].key.len, rep.f[f].key.ptr ? rep.f[f].key.ptr : "",
                    rep.f[f].detail);
        fputc('\n', stderr);
        return -1;
    }
    char notes[256];
    pmc_notes_format(m->notes, notes, sizeof notes);
    fprintf(stderr, "bench-codec: %s (%s): message %zu: %s (cmd %d, wire %s, %zu raw bytes, "
            "notes \"%s\")\n", in->name, how, i, why, m->cmd, pmc_wire_name(m->wire),
            m->raw.len, notes);
    return -1;
}

static int verify_buffer(const bench_input *in, pmc_decoder *d)
{
    size_t off = 0;
    for (size_t i = 0; i < in->nmsgs; i++) {
        pmc_msg m;
        pmc_error err;
        size_t used = 0;
        pmc_error_clear(&err);
        int rc = pmc_decode_buffer(d, in->buf + off, in->len - off, off, &m, &err, &used);
        if (rc != PMC_MSG) {
            if (rc == PMC_AGAIN)
                pmc_error_set(&err, PMC_E_TRUNCATED, off, "decoder wants more bytes");
            print_err("pmc_decode_buffer", in, i, &err);
            return -1;
        }
        if (check_msg(in, i, &m, "pmc_decode_buffer") != 0)
            return -1;
        off += used;
    }
    return 0;
}

static int verify_stream(const bench_input *in, pmc_decoder *d)
{
    size_t off = 0, i = 0;
    pmc_msg m;
    pmc_error err;
    while (off < in->len) {
        size_t n = in->len - off < BENCH_CHUNK ? in->len - off : BENCH_CHUNK;
        if (pmc_decoder_feed(d, in->buf + off, n) != 0) {
            fprintf(stderr, "bench-codec: %s: pmc_decoder_feed: out of memory\n", in->name);
            return -1;
        }
        off += n;
        int rc;
        while ((rc = pmc_decoder_next(d, &m, &err)) == PMC_MSG) {
            if (i >= in->nmsgs) {
                fprintf(stderr, "bench-codec: %s: stream decoded more messages than sent\n",
                        in->name);
                return -1;
            }
            if (check_msg(in, i, &m, "pmc_decoder_next") != 0)
                return -1;
            i++;
        }
        if (rc == PMC_ERR) {
            print_err("pmc_decoder_next", in, i, &err);
            return -1;
        }
    }
    if (i != in->nmsgs || pmc_decoder_pending(d) != 0 || pmc_decoder_finish(d, &err) != PMC_AGAIN) {
        fprintf(stderr, "bench-codec: %s: stream gave %zu of %zu messages, %zu bytes left over\n",
                in->name, i, in->nmsgs, pmc_decoder_pending(d));
        return -1;
    }
    return 0;
}

static int verify_encode(const bench_input *in)
{
    pmc_out out = { 0 };
    pmc_error err;
    int rc = 0;
    for (size_t i = 0; i < in->nmsgs && rc == 0; i++) {
        if (in->emit(in, i, &out, &err) != 0) {
            print_err("encoder", in, i, &err);
            rc = -1;
        }
    }
    if (rc == 0 && (out.len != in->len || memcmp(out.buf, in->buf, in->len) != 0)) {
        fprintf(stderr, "bench-codec: %s: encoding twice gave different bytes\n", in->name);
        rc = -1;
    }
    pmc_out_free(&out);
    return rc;
}

int bench_input_verify(const bench_input *in)
{
    pmc_decoder *d = pmc_decoder_new(NULL);
    if (!d) {
        fprintf(stderr, "bench-codec: pmc_decoder_new failed\n");
        return -1;
    }
    int rc = verify_buffer(in, d);
    pmc_decoder_reset(d);
    if (rc == 0)
        rc = verify_stream(in, d);
    pmc_decoder_free(d);
    if (rc == 0)
        rc = verify_encode(in);
    return rc;
}
