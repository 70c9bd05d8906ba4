/* The streaming decoder does not care how its input is cut: a mixed stream
 * of ~30 messages decoded in one feed, a byte at a time, split at every
 * position, in random chunks and through space/commit must give the same
 * messages (name, wire, pairs, raw, offset, notes, frames, thrid) and the
 * same errors.  Also: a long run of identical messages leaves nothing
 * behind. */
#include "pmicodec/pmicodec.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- the stream ----------------------------------------------------------- */

#define P(s) { s, sizeof(s) - 1 }
typedef struct piece {
    const char *b;
    size_t n;
} piece;

/* Bodies longer than a literal comfortably holds are built at start-up. */
static char big_value_frame[1100];
static char too_long_frame[1600];

static const piece fixed_head[] = {
    P("cmd=init pmi_version=2 pmi_subversion=0\n"),
    P("    38cmd=fullinit;pmirank=0;threaded=FALSE;"),
    P("14    cmd=job-getid;"),                               /* Slurm padding */
    P("000014cmd=job-getid;"),                               /* zero padding */
    P("    27cmd=job-getid;thrid=0x1234;"),
    P("    32cmd=kvs-put;key=semi;value=a;;b;"),            /* escaped ';' */
    P("44    cmd=fullinit;pmirank=0;threaded=FALSE;\0\0\0\0\0\0"), /* MPICH 4.0.2 junk */
    P("mcmd=spawn\nnprocs=2\nexecname=/bin/echo\narg1=hello world\nendcmd\n"),
    /* one message in three frames */
    P("    28cmd=spawn;ncmds=1;concat=c1;"
      "    42cmd=concat;concatid=c1;subcmd=a;concat=c1;"
      "    41cmd=concat;concatid=c1;maxprocs=1;argc=0;"),
    P("cmd=get kvsname=x key=y\r\n"),
    P("    14key=x;value=y;"),                                /* recoverable: no cmd= */
    P("    14cmd=kvs-fence;"),
    P("cmd=put kvsname=x key=e value=\n"),
    P("    31cmd=kvs-put;flag;key=x;value=y;"),
    P("    43cmd=kvs-put;key=a;value=first;value=second;"),
    P("    14cmd=job-getid;    22cmd=job-getid;thrid=2;"),    /* two frames, one write */
    P("cmd=barrier_in\n"),
    P("    28cmd=kvs-put;key=z;value=a\0b;"),
    P("cmd=get_maxes   \n"),
    P("50    cmd=info-getjobattr;key=PMI_process_mapping;    cm"),
    P("cmd=put kvsname=x key=e value=a=b\n"),
};
static const piece fixed_tail[] = {
    P("    25cmd=kvs-put;key=k;value=;"),
    P("cmd=get_appnum  foo\n"),
    P("    36cmd=info-getnodeattr;thrid=T6;key=n;"),
    P("    13cmd=finalize;"),
    P("cmd=finalize\n"),
};

static char *stream;
static size_t stream_len;
enum { STREAM_MESSAGES = 27, STREAM_ERRORS = 2 };

static void append(const char *b, size_t n)
{
    memcpy(stream + stream_len, b, n);
    stream_len += n;
}

static void build_stream(void)
{
    if (stream)
        return;
    /* a 1000-byte value (vector scan) and a value above max_val (recoverable) */
    char body[1600];
    int bl = snprintf(body, sizeof body, "cmd=kvs-put;key=big;value=");
    memset(body + bl, 'v', 1000);
    bl += 1000;
    body[bl++] = ';';
    snprintf(big_value_frame, sizeof big_value_frame, "%6d", bl);
    memcpy(big_value_frame + 6, body, (size_t)bl);
    size_t big_n = 6 + (size_t)bl;

    bl = snprintf(body, sizeof body, "cmd=kvs-put;key=huge;value=");
    memset(body + bl, 'w', 1500);
    bl += 1500;
    body[bl++] = ';';
    snprintf(too_long_frame, sizeof too_long_frame, "%6d", bl);
    memcpy(too_long_frame + 6, body, (size_t)bl);
    size_t huge_n = 6 + (size_t)bl;

    stream = malloc(16384);
    ck_assert_ptr_nonnull(stream);
    for (size_t i = 0; i < sizeof fixed_head / sizeof fixed_head[0]; i++)
        append(fixed_head[i].b, fixed_head[i].n);
    append(big_value_frame, big_n);
    append(too_long_frame, huge_n);
    for (size_t i = 0; i < sizeof fixed_tail / sizeof fixed_tail[0]; i++)
        append(fixed_tail[i].b, fixed_tail[i].n);
}

/* ---- recording what the decoder says -------------------------------------- */

typedef struct rec {
    char *s;
    size_t len, cap;
    int msgs, errs;
} rec;

static void r_put(rec *r, const void *p, size_t n)
{
    if (r->cap - r->len < n + 1) {
        size_t nc = r->cap ? r->cap : 4096;
        while (nc - r->len < n + 1)
            nc *= 2;
        r->s = realloc(r->s, nc);
        ck_assert_ptr_nonnull(r->s);
        r->cap = nc;
    }
    memcpy(r->s + r->len, p, n);
    r->len += n;
    r->s[r->len] = 0;
}

static void r_printf(rec *r, const char *fmt, ...)
{
    char b[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    r_put(r, b, (size_t)n);
}

/* Length-prefixed so that any byte, NUL included, compares exactly. */
static bool has_n(const rec *r, const char *needle, size_t n)
{
    for (size_t i = 0; i + n <= r->len; i++)
        if (memcmp(r->s + i, needle, n) == 0)
            return true;
    return false;
}

static bool has(const rec *r, const char *needle)
{
    return has_n(r, needle, strlen(needle));
}

static void r_slice(rec *r, pmc_slice s)
{
    r_printf(r, "%zu:", s.len);
    if (s.len)
        r_put(r, s.ptr, s.len);
}

static void r_msg(rec *r, const pmc_msg *m)
{
    r_printf(r, "MSG %s cmd=%d off=%llu frames=%u notes=%x name=", pmc_wire_name(m->wire),
             m->cmd, (unsigned long long)m->offset, m->nframes, m->notes);
    r_slice(r, m->name);
    r_put(r, " raw=", 5);
    r_slice(r, m->raw);
    r_printf(r, " thrid=%d", m->thrid.ptr != NULL);
    r_slice(r, m->thrid);
    for (size_t i = 0; i < m->npairs; i++) {
        r_printf(r, " [%x]", m->pairs[i].flags);
        r_slice(r, m->pairs[i].key);
        r_put(r, "=", 1);
        r_slice(r, m->pairs[i].val);
    }
    r_put(r, "\n", 1);
    r->msgs++;
}

static void r_err(rec *r, const pmc_error *e)
{
    r_printf(r, "ERR %s at=%llu msg=%llu fatal=%d wire=%d cmd=", pmc_errcode_name(e->code),
             (unsigned long long)e->offset, (unsigned long long)e->msg_offset, e->fatal,
             (int)e->wire);
    r_slice(r, e->cmd);
    r_put(r, " thrid=", 7);
    r_slice(r, e->thrid);
    r_put(r, "\n", 1);
    r->errs++;
}

static void drain(pmc_decoder *d, rec *r)
{
    pmc_msg m;
    pmc_error e;
    int rc;
    while ((rc = pmc_decoder_next(d, &m, &e)) != PMC_AGAIN) {
        if (rc == PMC_MSG) {
            r_msg(r, &m);
        } else {
            ck_assert_int_eq(rc, PMC_ERR);
            r_err(r, &e);
            ck_assert_msg(!e.fatal, "unexpected fatal error %s at %llu",
                          pmc_errcode_name(e.code), (unsigned long long)e.offset);
        }
    }
}

static void finish(pmc_decoder *d, rec *r)
{
    pmc_error e;
    ck_assert_int_eq(pmc_decoder_finish(d, &e), PMC_AGAIN);
    ck_assert_uint_eq(pmc_decoder_pending(d), 0);
    ck_assert_uint_eq(pmc_decoder_offset(d), stream_len);
    pmc_decoder_free(d);
    (void)r;
}

/* Decode the stream cut at the given chunk sizes (cycled). */
static void decode_chunks(rec *r, const size_t *sizes, size_t nsizes)
{
    pmc_decoder *d = pmc_decoder_new(NULL);
    ck_assert_ptr_nonnull(d);
    size_t pos = 0, k = 0;
    while (pos < stream_len) {
        size_t n = sizes[k++ % nsizes];
        if (n > stream_len - pos)
            n = stream_len - pos;
        ck_assert_int_eq(pmc_decoder_feed(d, stream + pos, n), 0);
        pos += n;
        drain(d, r);
    }
    finish(d, r);
}

static rec reference;

static void make_reference(void)
{
    build_stream();
    if (reference.s)
        return;
    size_t all = stream_len;
    decode_chunks(&reference, &all, 1);
}

static void same_as_reference(const rec *r, const char *how)
{
    ck_assert_msg(r->msgs == reference.msgs && r->errs == reference.errs,
                  "%s: %d messages and %d errors, one feed gave %d and %d", how, r->msgs,
                  r->errs, reference.msgs, reference.errs);
    if (r->len != reference.len || memcmp(r->s, reference.s, r->len) != 0) {
        size_t i = 0;
        while (i < r->len && i < reference.len && r->s[i] == reference.s[i])
            i++;
        size_t ls = i;
        while (ls > 0 && reference.s[ls - 1] != '\n')
            ls--;
        ck_abort_msg("%s differs from one feed near: %.120s\n  vs: %.120s", how,
                     reference.s + ls, r->s + ls);
    }
}

/* ---- the tests ------------------------------------------------------------ */

START_TEST(one_feed_reference)
{
    make_reference();
    ck_assert_int_eq(reference.msgs, STREAM_MESSAGES);
    ck_assert_int_eq(reference.errs, STREAM_ERRORS);
    /* spot checks that the reference itself is right (the text holds NULs) */
    ck_assert(has(&reference, "ERR E_NO_CMD at=468 msg=462 fatal=0"));
    ck_assert(has(&reference, "ERR E_VAL_TOO_LONG"));
    ck_assert(!has(&reference, "huge"));
    ck_assert(has(&reference, "MSG v1-mcmd"));
    ck_assert(has(&reference, "4:arg1=11:hello world"));
    ck_assert(has(&reference, "frames=3"));
    ck_assert(has(&reference, "6:subcmd=1:a [0]8:maxprocs=1:1"));
    ck_assert(has(&reference, "5:value=3:a;b"));
    ck_assert(has_n(&reference, "5:value=3:a\0b", 13));
    ck_assert(has(&reference, "5:value=5:first [0]5:value=6:second"));
}
END_TEST

START_TEST(byte_at_a_time)
{
    make_reference();
    rec r = { 0 };
    size_t one = 1;
    decode_chunks(&r, &one, 1);
    same_as_reference(&r, "one byte at a time");
    free(r.s);
}
END_TEST

START_TEST(every_split_point)
{
    make_reference();
    rec r = { 0 };
    char how[64];
    for (size_t k = 1; k < stream_len; k++) {
        r.len = 0;
        r.msgs = r.errs = 0;
        size_t two[2] = { k, stream_len };
        decode_chunks(&r, two, 2);
        snprintf(how, sizeof how, "split at %zu", k);
        same_as_reference(&r, how);
    }
    free(r.s);
}
END_TEST

/* xorshift32 with a fixed seed: the same chunks on every run */
static uint32_t rnd_state;
static uint32_t rnd(void)
{
    uint32_t x = rnd_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rnd_state = x;
}

START_TEST(random_chunks)
{
    make_reference();
    rnd_state = 0x9e3779b9u;
    rec r = { 0 };
    size_t sizes[200];
    char how[64];
    for (int round = 0; round < 200; round++) {
        /* mostly small chunks, sometimes large ones */
        uint32_t span = (round % 4 == 0) ? 2048 : 40;
        for (size_t i = 0; i < 200; i++)
            sizes[i] = 1 + rnd() % span;
        r.len = 0;
        r.msgs = r.errs = 0;
        decode_chunks(&r, sizes, 200);
        snprintf(how, sizeof how, "random chunks, round %d", round);
        same_as_reference(&r, how);
    }
    free(r.s);
}
END_TEST

START_TEST(space_and_commit)
{
    make_reference();
    rnd_state = 12345u;
    rec r = { 0 };
    for (int round = 0; round < 50; round++) {
        r.len = 0;
        r.msgs = r.errs = 0;
        pmc_decoder *d = pmc_decoder_new(NULL);
        ck_assert_ptr_nonnull(d);
        size_t pos = 0;
        while (pos < stream_len) {
            size_t want = 1 + rnd() % 300, avail = 0;
            char *sp = pmc_decoder_space(d, want, &avail);
            ck_assert_ptr_nonnull(sp);
            ck_assert_uint_ge(avail, want);
            /* a read() that returns less than asked for */
            size_t n = 1 + rnd() % want;
            if (n > stream_len - pos)
                n = stream_len - pos;
            memcpy(sp, stream + pos, n);
            pmc_decoder_commit(d, n);
            pos += n;
            drain(d, &r);
        }
        finish(d, &r);
        same_as_reference(&r, "space/commit");
    }
    free(r.s);
}
END_TEST

START_TEST(decode_buffer_in_place)
{
    /* pmc_decode_buffer over the whole stream, offsets from base_offset */
    make_reference();
    rec r = { 0 };
    pmc_decoder *d = pmc_decoder_new(NULL);
    size_t pos = 0;
    while (pos < stream_len) {
        pmc_msg m;
        pmc_error e;
        size_t used = 0;
        int rc = pmc_decode_buffer(d, stream + pos, stream_len - pos, pos, &m, &e, &used);
        ck_assert_int_ne(rc, PMC_AGAIN);
        if (rc == PMC_MSG)
            r_msg(&r, &m);
        else
            r_err(&r, &e);
        ck_assert_uint_gt(used, 0);
        pos += used;
    }
    ck_assert_uint_eq(pos, stream_len);
    pmc_decoder_free(d);
    same_as_reference(&r, "pmc_decode_buffer");
    free(r.s);
}
END_TEST

START_TEST(many_identical_messages)
{
    static const char msg[] = "    28cmd=kvs-put;key=k1;value=v1;";
    enum { N = 100000, ML = sizeof msg - 1 };
    pmc_decoder *d = pmc_decoder_new(NULL);
    ck_assert_ptr_nonnull(d);
    size_t sent = 0, got = 0;
    uint64_t total = (uint64_t)N * ML;
    uint64_t fed = 0;
    while (fed < total) {
        /* read()-sized chunks that cut messages anywhere */
        size_t avail;
        char *sp = pmc_decoder_space(d, 4096, &avail);
        ck_assert_ptr_nonnull(sp);
        size_t n = 4093; /* prime to the message size: every cut position occurs */
        if (n > total - fed)
            n = (size_t)(total - fed);
        for (size_t i = 0; i < n; i++)
            sp[i] = msg[(fed + i) % ML];
        pmc_decoder_commit(d, n);
        fed += n;
        pmc_msg m;
        pmc_error e;
        int rc;
        while ((rc = pmc_decoder_next(d, &m, &e)) == PMC_MSG) {
            ck_assert_uint_eq(m.offset, (uint64_t)got * ML);
            ck_assert_uint_eq(m.npairs, 2);
            ck_assert(pmc_slice_eq(m.pairs[1].val, "v1"));
            got++;
        }
        ck_assert_int_eq(rc, PMC_AGAIN);
    }
    sent = N;
    ck_assert_uint_eq(got, sent);
    ck_assert_uint_eq(pmc_decoder_pending(d), 0);
    ck_assert_uint_eq(pmc_decoder_offset(d), total);
    pmc_error e;
    ck_assert_int_eq(pmc_decoder_finish(d, &e), PMC_AGAIN);
    pmc_decoder_free(d);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("stream");
    TCase *tc = tcase_create("splits");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, one_feed_reference);
    tcase_add_test(tc, byte_at_a_time);
    tcase_add_test(tc, every_split_point);
    tcase_add_test(tc, random_chunks);
    tcase_add_test(tc, space_and_commit);
    tcase_add_test(tc, decode_buffer_in_place);
    tcase_add_test(tc, many_identical_messages);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
