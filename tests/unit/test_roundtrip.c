/* Encoder and decoder together: decode(encode(m)) == m for hand-written,
 * captured and generated messages, in every dialect, including messages
 * split into continuation frames; and captured canonical frames re-encode
 * to the very same bytes. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmicodec/decoder.h"
#include "pmicodec/encoder.h"

/* ------------------------------------------------------------ owned messages */

enum { MAXP = 512 };

typedef struct omsg {
    pmc_wire wire;
    char name[64];
    size_t n;
    char *key[MAXP], *val[MAXP];
    size_t klen[MAXP], vlen[MAXP];
    uint32_t nframes, notes;
} omsg;

static char *dup_bytes(const char *p, size_t n)
{
    char *d = malloc(n + 1);
    ck_assert_ptr_nonnull(d);
    if (n)
        memcpy(d, p, n);
    d[n] = '\0';
    return d;
}

static void omsg_add(omsg *m, const char *k, size_t kl, const char *v, size_t vl)
{
    ck_assert_uint_lt(m->n, MAXP);
    m->key[m->n] = dup_bytes(k, kl);
    m->klen[m->n] = kl;
    m->val[m->n] = dup_bytes(v, vl);
    m->vlen[m->n] = vl;
    m->n++;
}

static void omsg_free(omsg *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->key[i]);
        free(m->val[i]);
    }
    m->n = 0;
}

static void omsg_from(omsg *o, const pmc_msg *m)
{
    memset(o, 0, sizeof *o);
    o->wire = m->wire;
    ck_assert_uint_lt(m->name.len, sizeof o->name);
    memcpy(o->name, m->name.ptr, m->name.len);
    for (size_t i = 0; i < m->npairs; i++)
        omsg_add(o, m->pairs[i].key.ptr, m->pairs[i].key.len, m->pairs[i].val.ptr,
                 m->pairs[i].val.len);
    o->nframes = m->nframes;
    o->notes = m->notes;
}

/* Exact equality: wire, name, pairs in order. */
static void omsg_expect_eq(const omsg *a, const omsg *b, const char *ctx)
{
    ck_assert_msg(a->wire == b->wire, "%s: wire %d vs %d", ctx, a->wire, b->wire);
    ck_assert_msg(strcmp(a->name, b->name) == 0, "%s: name %s vs %s", ctx, a->name, b->name);
    ck_assert_msg(a->n == b->n, "%s: %zu pairs vs %zu", ctx, a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        ck_assert_msg(a->klen[i] == b->klen[i] && memcmp(a->key[i], b->key[i], a->klen[i]) == 0,
                      "%s: pair %zu key %s vs %s", ctx, i, a->key[i], b->key[i]);
        ck_assert_msg(a->vlen[i] == b->vlen[i] && memcmp(a->val[i], b->val[i], a->vlen[i]) == 0,
                      "%s: pair %zu (%s) value \"%s\" vs \"%s\"", ctx, i, a->key[i], a->val[i],
                      b->val[i]);
    }
}

/* ------------------------------------------------------------ helpers */

static pmc_decoder *decoder_for(const pmc_dialect *d)
{
    pmc_decoder_opts o;
    pmc_decoder_opts_default(&o);
    o.flags = 0;
    if (d->escape_semi)
        o.flags |= PMC_DEC_SEMI_ESCAPE;
    if (d->v1_backslash)
        o.flags |= PMC_DEC_V1_BACKSLASH;
    o.limits.max_message = 4u << 20;
    pmc_decoder *dec = pmc_decoder_new(&o);
    ck_assert_ptr_nonnull(dec);
    return dec;
}

/* Decode exactly one message from bytes, fed in `chunk`-byte pieces. */
static void decode_one(const pmc_dialect *d, const char *p, size_t n, size_t chunk, omsg *out)
{
    pmc_decoder *dec = decoder_for(d);
    pmc_msg m;
    pmc_error err;
    int rc = PMC_AGAIN;
    size_t fed = 0;
    while (rc == PMC_AGAIN && fed < n) {
        size_t k = n - fed < chunk ? n - fed : chunk;
        ck_assert_int_eq(pmc_decoder_feed(dec, p + fed, k), 0);
        fed += k;
        rc = pmc_decoder_next(dec, &m, &err);
        ck_assert_msg(rc != PMC_ERR, "decode error %d at %llu: %s", err.code,
                      (unsigned long long)err.offset, err.detail);
    }
    ck_assert_int_eq(rc, PMC_MSG);
    ck_assert_uint_eq(fed, n); /* the message used every byte */
    ck_assert_uint_eq(pmc_decoder_pending(dec), 0);
    ck_assert_uint_eq(m.raw.len, n);
    omsg_from(out, &m);
    ck_assert_int_eq(pmc_decoder_next(dec, &m, &err), PMC_AGAIN);
    ck_assert_int_eq(pmc_decoder_finish(dec, &err), PMC_AGAIN);
    pmc_decoder_free(dec);
}

static const pmc_dialect *D(const char *name)
{
    const pmc_dialect *d = pmc_dialect_get(name);
    ck_assert_ptr_nonnull(d);
    return d;
}

/* A dialect that keeps the caller's order, so decode(encode(m)) is exact. */
static pmc_dialect keep(const pmc_dialect *d)
{
    pmc_dialect k = *d;
    k.rc_pos = PMC_POS_KEEP;
    k.thrid_pos = PMC_POS_KEEP;
    return k;
}

static int encode_omsg(const omsg *m, const pmc_dialect *d, pmc_out *out, pmc_error *err)
{
    pmc_enc e;
    pmc_enc_begin(&e, m->wire, m->name);
    for (size_t i = 0; i < m->n; i++)
        pmc_enc_slice(&e, (pmc_slice){ m->key[i], m->klen[i] },
                      (pmc_slice){ m->val[i], m->vlen[i] });
    return pmc_enc_end(&e, d, out, err);
}

/* ------------------------------------------------------------ hand-written */

typedef struct tcase_msg {
    pmc_wire wire;
    const char *name;
    const char *kv[12][2];
} tcase_msg;

static const tcase_msg table[] = {
    { PMC_WIRE_V2, "kvs-get-response", { { "rc", "0" }, { "found", "TRUE" }, { "value", "v1" } } },
    { PMC_WIRE_V2, "job-getid-response",
      { { "jobid", "kvs_9200_0_395295555_vm" }, { "rc", "0" }, { "thrid", "0x1234" } } },
    { PMC_WIRE_V2, "fullinit", { { "pmirank", "0" }, { "threaded", "FALSE" } } },
    { PMC_WIRE_V2, "job-getid", { { NULL, NULL } } },
    { PMC_WIRE_V2, "kvs-put", { { "key", "semi" }, { "value", "a;b;;c;" } } },
    { PMC_WIRE_V2, "kvs-put", { { "key", "eq" }, { "value", "a=b c\td" } } },
    { PMC_WIRE_V2, "info-getjobattr-response", { { "found", "TRUE" }, { "value", "" }, { "rc", "0" } } },
    { PMC_WIRE_V2, "spawn",
      { { "ncmds", "1" }, { "preputcount", "1" }, { "ppkey0", "PARENT_KEY" },
        { "ppval0", "parent-val" }, { "subcmd", "/bin/true" }, { "maxprocs", "1" },
        { "argc", "1" }, { "argv0", "x y" }, { "infokeycount", "1" }, { "infokey0", "wdir" },
        { "infoval0", "/tmp" } } },
    { PMC_WIRE_V1, "init", { { "pmi_version", "1" }, { "pmi_subversion", "1" } } },
    { PMC_WIRE_V1, "get_result", { { "rc", "0" }, { "msg", "success" }, { "value", "a=b;c" } } },
    { PMC_WIRE_V1, "get_maxes", { { NULL, NULL } } },
    { PMC_WIRE_V1, "put", { { "kvsname", "x" }, { "key", "bs" }, { "value", "a\\b c" } } },
    { PMC_WIRE_V1_MCMD, "spawn",
      { { "nprocs", "1" }, { "execname", "/bin/echo" }, { "arg1", "hello world" },
        { "arg2", "a;b=c" }, { "argcnt", "2" }, { "info_num", "0" } } },
};

static void omsg_from_table(omsg *o, const tcase_msg *t)
{
    memset(o, 0, sizeof *o);
    o->wire = t->wire;
    snprintf(o->name, sizeof o->name, "%s", t->name);
    for (size_t i = 0; i < 12 && t->kv[i][0]; i++)
        omsg_add(o, t->kv[i][0], strlen(t->kv[i][0]), t->kv[i][1], strlen(t->kv[i][1]));
}

/* Whether `m` can be written in dialect d at all (what the encoder must
 * refuse otherwise). */
static bool representable(const omsg *m, const pmc_dialect *d)
{
    for (size_t i = 0; i < m->n; i++) {
        const char *v = m->val[i];
        if (m->wire == PMC_WIRE_V2 && strchr(v, ';') && !d->escape_semi)
            return false;
        if (m->wire == PMC_WIRE_V1 && strchr(v, ' ') && !d->v1_backslash)
            return false;
    }
    return true;
}

START_TEST(rt_table_all_dialects)
{
    size_t nd = 0;
    const pmc_dialect *const *list = pmc_dialect_list(&nd);
    pmc_dialect extra = pmc_dialect_strict;
    extra.name = "strict+backslash";
    extra.v1_backslash = true;
    for (size_t di = 0; di <= nd; di++) {
        const pmc_dialect *real = di < nd ? list[di] : &extra;
        pmc_dialect d = keep(real);
        for (size_t ti = 0; ti < sizeof table / sizeof *table; ti++) {
            omsg a, b;
            omsg_from_table(&a, &table[ti]);
            pmc_out out = { 0 };
            pmc_error err;
            char ctx[96];
            snprintf(ctx, sizeof ctx, "%s #%zu %s", real->name, ti, a.name);
            int r = encode_omsg(&a, &d, &out, &err);
            if (!representable(&a, &d)) {
                ck_assert_msg(r == -1 && err.code == PMC_E_ENC_VALUE, "%s: expected ENC_VALUE",
                              ctx);
                omsg_free(&a);
                continue;
            }
            ck_assert_msg(r == 0, "%s: %s", ctx, err.detail);
            /* whole, then byte by byte */
            decode_one(&d, out.buf, out.len, out.len, &b);
            omsg_expect_eq(&a, &b, ctx);
            omsg_free(&b);
            decode_one(&d, out.buf, out.len, 1, &b);
            omsg_expect_eq(&a, &b, ctx);
            omsg_free(&b);

            /* the real dialect only moves rc / thrid: same pairs, same count */
            pmc_out_reset(&out);
            ck_assert_int_eq(encode_omsg(&a, real, &out, &err), 0);
            decode_one(real, out.buf, out.len, out.len, &b);
            ck_assert_uint_eq(a.n, b.n);
            for (size_t i = 0; i < a.n; i++) {
                bool found = false;
                for (size_t j = 0; j < b.n && !found; j++)
                    found = strcmp(a.key[i], b.key[j]) == 0 && a.vlen[i] == b.vlen[j] &&
                            memcmp(a.val[i], b.val[j], a.vlen[i]) == 0;
                ck_assert_msg(found, "%s: pair %s lost", ctx, a.key[i]);
            }
            omsg_free(&b);
            omsg_free(&a);
            pmc_out_free(&out);
        }
    }
}
END_TEST

START_TEST(rt_bools)
{
    pmc_enc e;
    pmc_out out = { 0 };
    pmc_error err;
    omsg b;
    for (int lower = 0; lower < 2; lower++) {
        const pmc_dialect *d = lower ? D("draft") : &pmc_dialect_strict;
        pmc_out_reset(&out);
        pmc_enc_begin(&e, PMC_WIRE_V2, "info-getnodeattr");
        pmc_enc_str(&e, "key", "k");
        pmc_enc_bool(&e, "wait", true);
        pmc_enc_bool(&e, "other", false);
        ck_assert_int_eq(pmc_enc_end(&e, d, &out, &err), 0);
        decode_one(d, out.buf, out.len, out.len, &b);
        ck_assert_str_eq(b.val[1], lower ? "true" : "TRUE");
        ck_assert_str_eq(b.val[2], lower ? "false" : "FALSE");
        omsg_free(&b);
    }
    pmc_out_free(&out);
}
END_TEST

/* ------------------------------------------------------------ captured frames */

typedef struct capture {
    const char *dialect;
    const char *bytes;
    size_t len;
} capture;

#define CAP(d, s) { d, s, sizeof(s) - 1 }

/* Real frames (see test_encoder.c for their files).  Each is canonical for
 * its dialect, so decoding and re-encoding must give the same bytes. */
static const capture captures[] = {
    CAP("hydra-4.0", "    46cmd=kvs-get-response;found=TRUE;value=v1;rc=0;"),
    CAP("hydra-4.0", "    71cmd=job-getid-response;thrid=0x1234;jobid=kvs_9200_0_395295555_vm;rc=0;"),
    CAP("hydra-4.0", "    52cmd=info-getjobattr-response;found=TRUE;value=;rc=0;"),
    CAP("hydra-4.0", "   113cmd=fullinit-response;pmi-version=2;pmi-subversion=0;rank=0;size=2;"
                     "appnum=0;debugged=FALSE;pmiverbose=FALSE;rc=0;"),
    CAP("hydra-4.0", "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n"),
    CAP("hydra-4.0", "cmd=universe_size size=-1\n"),
    CAP("hydra-4.1", "    46cmd=kvs-get-response;rc=0;found=TRUE;value=v1;"),
    CAP("hydra-4.1", "    71cmd=job-getid-response;thrid=0x1234;rc=0;jobid=kvs_3007_0_264713323_vm;"),
    CAP("hydra-4.1", "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=2\n"),
    CAP("hydra-4.1", "cmd=barrier_out tag=0\n"),
    CAP("slurm", "26    cmd=kvs-put-response;rc=0;"),
    CAP("slurm", "114   cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=0;size=2;"
                 "appnum=-1;debugged=FALSE;pmiverbose=FALSE;"),
    CAP("slurm-client", "51    cmd=fullinit;pmijobid=1.0;pmirank=0;threaded=FALSE;"),
    CAP("slurm-client", "38    cmd=kvs-get;jobid=;srcid=-1;key=own-0;"),
    CAP("mpich-4.0-client", "44    cmd=fullinit;pmirank=0;threaded=FALSE;\0\0\0\0\0\0"),
    CAP("mpich-4.0-client", "47    cmd=kvs-put;key=key0;value=semi;;colon-0;\0\0\0\0\0\0"),
    CAP("mpich-4.0-client", "mcmd=spawn\nnprocs=1\nexecname=//opt/python/versions/3.11.7/bin/python3\n"
                            "totspawns=1\nspawnssofar=1\narg1=/home/user/pmi/probes/________/"
                            "pmiprobe.py\narg2=child_v1\nargcnt=2\npreput_num=1\npreput_key_0="
                            "PARENT_KEY\npreput_val_0=parent-val\ninfo_num=1\ninfo_key_0=wdir\n"
                            "info_val_0=/tmp\nendcmd\n"),
    CAP("mpich-4.1-client", "    23cmd=fullinit;pmirank=0;"),
    CAP("mpich-4.1-client", "    49cmd=kvs-put;key=key0;value=semi;colon=eq value-0;"),
    CAP("strict", "    42cmd=info-getnodeattr;key=nattr;wait=FALSE;"),
};

START_TEST(rt_captures_byte_exact)
{
    for (size_t i = 0; i < sizeof captures / sizeof *captures; i++) {
        const capture *c = &captures[i];
        const pmc_dialect *d = D(c->dialect);
        pmc_decoder *dec = decoder_for(d);
        pmc_msg m;
        pmc_error err;
        ck_assert_int_eq(pmc_decoder_feed(dec, c->bytes, c->len), 0);
        int rc = pmc_decoder_next(dec, &m, &err);
        ck_assert_msg(rc == PMC_MSG, "capture %zu: rc %d: %s", i, rc, err.detail);
        pmc_out out = { 0 };
        ck_assert_msg(pmc_encode_msg(&m, d, &out, &err) == 0, "capture %zu: %s", i, err.detail);
        ck_assert_msg(out.len == c->len && memcmp(out.buf, c->bytes, c->len) == 0,
                      "capture %zu (%s) re-encoded differently", i, c->dialect);
        /* and decode(encode(decode(x))) == decode(x) */
        omsg a, b;
        omsg_from(&a, &m);
        decode_one(d, out.buf, out.len, 7, &b);
        omsg_expect_eq(&a, &b, c->dialect);
        omsg_free(&a);
        omsg_free(&b);
        pmc_out_free(&out);
        pmc_decoder_free(dec);
    }
}
END_TEST

/* ------------------------------------------------------------ continuations */

START_TEST(rt_split_frames)
{
    static const char *const dialects[] = { "strict", "hydra-4.0", "slurm-client",
                                            "mpich-4.0-client" };
    for (size_t di = 0; di < 4; di++) {
        for (uint32_t mf = 80; mf <= 400; mf += 88) {
            pmc_dialect d = keep(D(dialects[di]));
            d.max_frame = mf;
            omsg a, b;
            memset(&a, 0, sizeof a);
            a.wire = PMC_WIRE_V2;
            snprintf(a.name, sizeof a.name, "spawn");
            for (int i = 0; i < 60; i++) {
                char k[16], v[40];
                int kl = snprintf(k, sizeof k, "argv%d", i);
                int vl = snprintf(v, sizeof v, "%.*s", i % 23, "abcdefghijklmnopqrstuvw");
                omsg_add(&a, k, (size_t)kl, v, (size_t)vl);
            }
            pmc_out out = { 0 };
            pmc_error err;
            ck_assert_msg(encode_omsg(&a, &d, &out, &err) == 0, "%s/%u: %s", d.name, mf,
                          err.detail);
            decode_one(&d, out.buf, out.len, 13, &b);
            char ctx[64];
            snprintf(ctx, sizeof ctx, "%s max_frame %u", d.name, mf);
            omsg_expect_eq(&a, &b, ctx);
            ck_assert_uint_gt(b.nframes, 1);
            ck_assert(b.notes & PMC_NOTE_CONTINUED);
            if (d.junk)
                ck_assert(b.notes & PMC_NOTE_TRAILING_JUNK);
            omsg_free(&a);
            omsg_free(&b);
            pmc_out_free(&out);
        }
    }
}
END_TEST

/* A continued message, then an ordinary one, in one stream. */
START_TEST(rt_split_then_next)
{
    pmc_dialect d = pmc_dialect_strict;
    d.max_frame = 50; /* whole body 55: frames [key] and [value, flag] */
    pmc_out out = { 0 };
    pmc_error err;
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", "kkkkkkkkkkkk");
    pmc_enc_str(&e, "value", "vvvvvvvvvvvv");
    pmc_enc_str(&e, "flag", "1");
    ck_assert_int_eq(pmc_enc_end(&e, &d, &out, &err), 0);
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-fence");
    ck_assert_int_eq(pmc_enc_end(&e, &d, &out, &err), 0);

    pmc_decoder *dec = decoder_for(&d);
    ck_assert_int_eq(pmc_decoder_feed(dec, out.buf, out.len), 0);
    pmc_msg m;
    ck_assert_int_eq(pmc_decoder_next(dec, &m, &err), PMC_MSG);
    ck_assert(pmc_slice_eq(m.name, "kvs-put"));
    ck_assert_uint_eq(m.npairs, 3);
    ck_assert_uint_eq(m.nframes, 2);
    ck_assert(pmc_slice_eq(m.pairs[1].val, "vvvvvvvvvvvv"));
    ck_assert(pmc_slice_eq(m.pairs[2].key, "flag"));
    ck_assert_int_eq(pmc_decoder_next(dec, &m, &err), PMC_MSG);
    ck_assert(pmc_slice_eq(m.name, "kvs-fence"));
    ck_assert_uint_eq(m.nframes, 1);
    ck_assert_int_eq(pmc_decoder_next(dec, &m, &err), PMC_AGAIN);
    pmc_decoder_free(dec);
    pmc_out_free(&out);
}
END_TEST

/* ------------------------------------------------------------ generated */

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)((rng_state >> 33) % n);
}

static const char KEYCH[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";

static size_t gen_value(char *v, pmc_wire w, bool semi_ok, bool space_ok)
{
    static const char base[] = "abcXYZ019=-_/.,:()[]{}+*#@!%~";
    size_t n = rnd(5) == 0 ? 0 : rnd(120) + 1, i;
    for (i = 0; i < n; i++) {
        uint32_t r = rnd(10);
        char c = base[rnd(sizeof base - 1)];
        if (r == 0 && (w != PMC_WIRE_V2 || semi_ok))
            c = ';';
        else if (r == 1 && (w != PMC_WIRE_V1 || space_ok))
            c = ' ';
        else if (r == 2)
            c = '\\';
        v[i] = c;
    }
    return n;
}

START_TEST(rt_generated)
{
    rng_state = 0x5eed0000u + (uint64_t)_i;
    pmc_dialect variants[3];
    variants[0] = keep(&pmc_dialect_strict);
    variants[1] = keep(D("hydra-4.1")); /* no ';;' */
    variants[2] = keep(&pmc_dialect_strict);
    variants[2].v1_backslash = true;
    variants[2].max_frame = 200;
    pmc_out out = { 0 };
    size_t seen[4] = { 0 }, split = 0;
    for (int iter = 0; iter < 300; iter++) {
        const pmc_dialect *d = &variants[rnd(3)];
        static const pmc_wire wires[] = { PMC_WIRE_V2, PMC_WIRE_V2, PMC_WIRE_V1,
                                          PMC_WIRE_V1_MCMD };
        pmc_wire w = wires[rnd(4)];
        omsg a, b;
        memset(&a, 0, sizeof a);
        a.wire = w;
        size_t nl = rnd(20) + 1;
        for (size_t i = 0; i < nl; i++)
            a.name[i] = KEYCH[rnd(sizeof KEYCH - 1)];
        if (w == PMC_WIRE_V2 && strcmp(a.name, "concat") == 0)
            a.name[0] = 'C';
        if (w == PMC_WIRE_V1_MCMD) /* the only block command (V1-16) */
            snprintf(a.name, sizeof a.name, "spawn");
        size_t np = rnd(40);
        for (size_t i = 0; i < np; i++) {
            char k[24], v[128];
            /* unique keys: a counter suffix */
            size_t kl = rnd(8);
            for (size_t j = 0; j < kl; j++)
                k[j] = KEYCH[rnd(sizeof KEYCH - 1)];
            kl += (size_t)snprintf(k + kl, sizeof k - kl, "k%zu", i);
            size_t vl = gen_value(v, w, d->escape_semi, d->v1_backslash);
            omsg_add(&a, k, kl, v, vl);
        }
        pmc_out_reset(&out);
        pmc_error err;
        int r = encode_omsg(&a, d, &out, &err);
        ck_assert_msg(r == 0, "iteration %d (%s, %s): %s", iter, d->name, pmc_wire_name(w),
                      err.detail);
        decode_one(d, out.buf, out.len, 1 + rnd(64), &b);
        char ctx[64];
        snprintf(ctx, sizeof ctx, "iteration %d (%s)", iter, d->name);
        omsg_expect_eq(&a, &b, ctx);

        /* and the decoded message re-encodes to the very same bytes */
        pmc_out again = { 0 };
        pmc_decoder *dec = decoder_for(d);
        pmc_msg m;
        ck_assert_int_eq(pmc_decoder_feed(dec, out.buf, out.len), 0);
        ck_assert_int_eq(pmc_decoder_next(dec, &m, &err), PMC_MSG);
        seen[w]++;
        split += m.nframes > 1;
        if (m.nframes == 1) {
            ck_assert_int_eq(pmc_encode_msg(&m, d, &again, &err), 0);
            ck_assert_msg(again.len == out.len && memcmp(again.buf, out.buf, out.len) == 0,
                          "%s: re-encoding differs", ctx);
        }
        pmc_decoder_free(dec);
        pmc_out_free(&again);
        omsg_free(&a);
        omsg_free(&b);
    }
    /* the generator reached every form */
    ck_assert_uint_gt(seen[PMC_WIRE_V1], 0);
    ck_assert_uint_gt(seen[PMC_WIRE_V1_MCMD], 0);
    ck_assert_uint_gt(seen[PMC_WIRE_V2], 0);
    ck_assert_uint_gt(split, 0);
    pmc_out_free(&out);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("roundtrip");
    TCase *t = tcase_create("encode-decode");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, rt_table_all_dialects);
    tcase_add_test(t, rt_bools);
    tcase_add_test(t, rt_captures_byte_exact);
    tcase_add_test(t, rt_split_frames);
    tcase_add_test(t, rt_split_then_next);
    tcase_add_loop_test(t, rt_generated, 0, 4);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
