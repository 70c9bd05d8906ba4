/* The decoder, one rule per test: bytes in, message or error out (code,
 * offset, fatal, cmd, thrid).  Covers every error class the decoder can
 * produce, every note, limits, strict mode, pmc_decode_buffer on a caller
 * buffer, the typed getters and error formatting. */
#include "pmicodec/pmicodec.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers -------------------------------------------------------------- */

static pmc_decoder_opts opts_default(void)
{
    pmc_decoder_opts o;
    pmc_decoder_opts_default(&o);
    return o;
}

/* One decoder per test, freed by the fixture. */
static pmc_decoder *D;
static pmc_msg M;
static pmc_error E;

static void teardown(void)
{
    pmc_decoder_free(D);
    D = NULL;
}

static void use(const pmc_decoder_opts *o)
{
    pmc_decoder_free(D);
    D = pmc_decoder_new(o);
    ck_assert_ptr_nonnull(D);
}

/* Feed n bytes and return what next() says. */
static int feed_next(const char *b, size_t n)
{
    if (!D)
        use(NULL);
    ck_assert_int_eq(pmc_decoder_feed(D, b, n), 0);
    memset(&M, 0, sizeof M);
    memset(&E, 0, sizeof E);
    return pmc_decoder_next(D, &M, &E);
}
#define FEED(lit) feed_next(lit, sizeof(lit) - 1)

static int next(void)
{
    return pmc_decoder_next(D, &M, &E);
}

static void is_msg(int rc, pmc_wire w, const char *name, size_t npairs)
{
    if (rc == PMC_ERR)
        ck_abort_msg("expected a message, got %s at %llu: %s", pmc_errcode_name(E.code),
                     (unsigned long long)E.offset, E.detail);
    ck_assert_int_eq(rc, PMC_MSG);
    ck_assert_int_eq(M.wire, w);
    ck_assert_msg(pmc_slice_eq(M.name, name), "name '%.*s', expected '%s'", (int)M.name.len,
                  M.name.ptr, name);
    ck_assert_uint_eq(M.npairs, npairs);
}

static void pair_is(size_t i, const char *key, const char *val)
{
    ck_assert_uint_lt(i, M.npairs);
    ck_assert_msg(pmc_slice_eq(M.pairs[i].key, key), "pair %zu key '%.*s', expected '%s'", i,
                  (int)M.pairs[i].key.len, M.pairs[i].key.ptr, key);
    if (val) {
        ck_assert_msg(pmc_slice_eq(M.pairs[i].val, val), "pair %zu value '%.*s', expected '%s'",
                      i, (int)M.pairs[i].val.len, M.pairs[i].val.ptr, val);
        ck_assert(!(M.pairs[i].flags & PMC_PAIR_BARE));
    } else {
        ck_assert(M.pairs[i].flags & PMC_PAIR_BARE);
        ck_assert_uint_eq(M.pairs[i].val.len, 0);
    }
}

static void is_err(int rc, pmc_errcode code, uint64_t off, bool fatal)
{
    if (rc == PMC_MSG)
        ck_abort_msg("expected %s, got message '%.*s'", pmc_errcode_name(code),
                     (int)M.name.len, M.name.ptr);
    ck_assert_int_eq(rc, PMC_ERR);
    ck_assert_msg(E.code == code, "error %s, expected %s (%s)", pmc_errcode_name(E.code),
                  pmc_errcode_name(code), E.detail);
    ck_assert_msg(E.offset == off, "%s at offset %llu, expected %llu", pmc_errcode_name(code),
                  (unsigned long long)E.offset, (unsigned long long)off);
    ck_assert_int_eq(E.fatal, fatal);
    ck_assert_msg(E.detail[0] != 0, "error without detail text");
}

static void err_cmd(const char *cmd)
{
    if (!cmd) {
        ck_assert_ptr_null(E.cmd.ptr);
        return;
    }
    ck_assert_msg(E.cmd.ptr && pmc_slice_eq(E.cmd, cmd), "error cmd '%.*s', expected '%s'",
                  (int)E.cmd.len, E.cmd.ptr ? E.cmd.ptr : "", cmd);
}

/* After a fatal error every call repeats it. */
static void stays_failed(pmc_errcode code, uint64_t off)
{
    for (int i = 0; i < 2; i++) {
        pmc_error e2;
        pmc_msg m2;
        ck_assert_int_eq(pmc_decoder_feed(D, "    14cmd=job-getid;", 20), 0);
        ck_assert_int_eq(pmc_decoder_next(D, &m2, &e2), PMC_ERR);
        ck_assert_int_eq(e2.code, code);
        ck_assert_uint_eq(e2.offset, off);
        ck_assert(e2.fatal);
        ck_assert_int_eq(pmc_decoder_finish(D, &e2), PMC_ERR);
        ck_assert_int_eq(e2.code, code);
    }
}

/* A recoverable error: the next message decodes. */
static void recovers(void)
{
    ck_assert_int_eq(pmc_decoder_feed(D, "    13cmd=finalize;", 19), 0);
    is_msg(next(), PMC_WIRE_V2, "finalize", 0);
}

static void single_error(const pmc_decoder_opts *o, const char *b, size_t n, pmc_errcode code,
                         uint64_t off, bool fatal)
{
    use(o);
    is_err(feed_next(b, n), code, off, fatal);
}
#define ERR_CASE(o, lit, code, off, fatal) single_error(o, lit, sizeof(lit) - 1, code, off, fatal)

/* ---- classification and the length field --------------------------------- */

START_TEST(classify_per_message)
{
    is_msg(FEED("cmd=init pmi_version=2 pmi_subversion=0\n"), PMC_WIRE_V1, "init", 2);
    ck_assert_int_eq(M.cmd, PMC_V1_INIT);
    is_msg(FEED("    14cmd=job-getid;"), PMC_WIRE_V2, "job-getid", 0);
    ck_assert_int_eq(M.cmd, PMC_V2_JOB_GETID);
    ck_assert_uint_eq(M.offset, 40);
    is_msg(FEED("mcmd=spawn\nnprocs=1\nendcmd\n"), PMC_WIRE_V1_MCMD, "spawn", 1);
    is_msg(FEED("cmd=get_maxes\n"), PMC_WIRE_V1, "get_maxes", 0);
    /* "cm" could still become cmd= or a v2 frame: wait */
    ck_assert_int_eq(FEED("c"), PMC_AGAIN);
    ck_assert_int_eq(FEED("m"), PMC_AGAIN);
    ck_assert_int_eq(FEED("d"), PMC_AGAIN);
    is_msg(FEED("=barrier_in\n"), PMC_WIRE_V1, "barrier_in", 0);
    ck_assert_uint_eq(pmc_decoder_pending(D), 0);
}
END_TEST

START_TEST(length_paddings)
{
    is_msg(FEED("    14cmd=job-getid;"), PMC_WIRE_V2, "job-getid", 0);
    ck_assert_uint_eq(M.notes, 0);
    ck_assert_uint_eq(M.raw.len, 20);
    is_msg(FEED("14    cmd=job-getid;"), PMC_WIRE_V2, "job-getid", 0);
    ck_assert_uint_eq(M.notes, PMC_NOTE_LEN_LEFT);
    ck_assert_uint_eq(M.offset, 20);
    is_msg(FEED("000014cmd=job-getid;"), PMC_WIRE_V2, "job-getid", 0);
    ck_assert_uint_eq(M.notes, PMC_NOTE_LEN_ZERO);
    is_msg(FEED("     6cmd=x;"), PMC_WIRE_V2, "x", 0);
}
END_TEST

START_TEST(length_errors)
{
    ERR_CASE(NULL, "    -5cmd=job-getid;", PMC_E_LEN_SIGN, 4, true);
    ck_assert_int_eq(E.wire, PMC_WIRE_V2);
    ck_assert_uint_eq(E.msg_offset, 0);
    stays_failed(PMC_E_LEN_SIGN, 4);
    ERR_CASE(NULL, "+14   cmd=job-getid;", PMC_E_LEN_SIGN, 0, true);
    ERR_CASE(NULL, "abcdefcmd=job-getid;", PMC_E_LEN_SYNTAX, 0, true);
    ERR_CASE(NULL, "   1x4cmd=job-getid;", PMC_E_LEN_SYNTAX, 4, true);
    ERR_CASE(NULL, "      cmd=job-getid;", PMC_E_LEN_EMPTY, 0, true);
    ERR_CASE(NULL, "  1 4 cmd=job-getid;", PMC_E_LEN_SPACES, 4, true);
    ERR_CASE(NULL, "     5cmd=x", PMC_E_LEN_SHORT, 5, true);
    ERR_CASE(NULL, "     0", PMC_E_LEN_SHORT, 5, true);
    ERR_CASE(NULL, " 65537", PMC_E_LEN_LARGE, 1, true);
    stays_failed(PMC_E_LEN_LARGE, 1);
    /* the error comes from the header alone: no need to wait for the body */
    ERR_CASE(NULL, " 70027cmd=kvs-put;key=big;value=", PMC_E_LEN_LARGE, 1, true);
}
END_TEST

/* PMC_DEC_LEN_ATOI: what the strict rules reject but atoi reads as a usable
 * length is accepted and noted; what atoi cannot use keeps its precise error. */
START_TEST(length_atoi)
{
    pmc_decoder_opts o = opts_default();
    o.flags |= PMC_DEC_LEN_ATOI;
    use(&o);
    is_msg(FEED("   +14cmd=job-getid;"), PMC_WIRE_V2, "job-getid", 0);
    ck_assert_uint_eq(M.notes, PMC_NOTE_LEN_ATOI);
    is_msg(FEED("14abcdcmd=job-getid;"), PMC_WIRE_V2, "job-getid", 0);
    ck_assert_uint_eq(M.notes, PMC_NOTE_LEN_ATOI);
    is_msg(FEED(" \t 6  cmd=x;"), PMC_WIRE_V2, "x", 0); /* leading white space of any kind */
    ck_assert_uint_eq(M.notes, PMC_NOTE_LEN_ATOI);
    is_msg(FEED("    14cmd=job-getid;"), PMC_WIRE_V2, "job-getid", 0);
    ck_assert_uint_eq(M.notes, 0); /* canonical input is untouched */
    ERR_CASE(&o, "    -5cmd=job-getid;", PMC_E_LEN_SIGN, 4, true);
    ERR_CASE(&o, "abcdefcmd=job-getid;", PMC_E_LEN_SYNTAX, 0, true);
    ERR_CASE(&o, "    +0cmd=job-getid;", PMC_E_LEN_SIGN, 4, true);
    ERR_CASE(&o, "   +1x", PMC_E_LEN_SIGN, 3, true); /* atoi: 1, below 6 */
    /* a strict decoder that rejects the note never reads by atoi */
    o.strict = PMC_STRICT_ALL;
    ERR_CASE(&o, "   +14cmd=job-getid;", PMC_E_LEN_SIGN, 3, true);
}
END_TEST

START_TEST(length_at_default_max_frame)
{
    /* 65536 is allowed, so the decoder waits for the body */
    ck_assert_int_eq(FEED(" 65536cmd=kvs-put;"), PMC_AGAIN);
}
END_TEST

START_TEST(length_error_after_messages)
{
    is_msg(FEED("    14cmd=job-getid;"), PMC_WIRE_V2, "job-getid", 0);
    is_err(FEED("    -1"), PMC_E_LEN_SIGN, 24, true);
    ck_assert_uint_eq(E.msg_offset, 20);
}
END_TEST

START_TEST(length_custom_max_frame)
{
    pmc_decoder_opts o = opts_default();
    o.limits.max_frame = 20;
    use(&o);
    is_msg(FEED("    20cmd=kvs-put;key=abc;"), PMC_WIRE_V2, "kvs-put", 1);
    is_err(FEED("    21cmd=kvs-put;key=abcd;"), PMC_E_LEN_LARGE, 26 + 4, true);
}
END_TEST

START_TEST(length_strict)
{
    pmc_decoder_opts o = opts_default();
    o.strict = PMC_STRICT_ALL;
    ERR_CASE(&o, "14    cmd=job-getid;", PMC_E_LEN_NONCANONICAL, 0, false);
    recovers();
    ERR_CASE(&o, "000014cmd=job-getid;", PMC_E_LEN_NONCANONICAL, 0, false);
    /* only the selected note is rejected */
    o.strict = PMC_NOTE_LEN_ZERO;
    use(&o);
    is_msg(FEED("14    cmd=job-getid;"), PMC_WIRE_V2, "job-getid", 0);
    is_err(FEED("000014cmd=job-getid;"), PMC_E_LEN_NONCANONICAL, 20, false);
    o.strict = PMC_STRICT_ALL;
    use(&o);
    is_msg(FEED("    14cmd=job-getid;"), PMC_WIRE_V2, "job-getid", 0);
    /* a continuation frame's length is held to the same rule (found by the
     * decode_buffer fuzzer: "   036" went through) */
    is_msg(FEED("    21cmd=kvs-get;concat=7;    28cmd=concat;concatid=7;key=k;"), PMC_WIRE_V2,
           "kvs-get", 1);
    is_err(FEED("    21cmd=kvs-get;concat=7;   028cmd=concat;concatid=7;key=k;"),
           PMC_E_LEN_NONCANONICAL, 81 + 27, false);
    ck_assert_uint_eq(E.msg_offset, 81);
    recovers();
    is_err(FEED("    21cmd=kvs-get;concat=7;28    cmd=concat;concatid=7;key=k;"),
           PMC_E_LEN_NONCANONICAL, 161 + 27, false);
}
END_TEST

/* ---- v2 bodies ------------------------------------------------------------ */

START_TEST(v2_pairs_and_views)
{
    static const char in[] = "    41cmd=kvs-get;jobid=ignored;srcid=0;key=k0;";
    is_msg(FEED(in), PMC_WIRE_V2, "kvs-get", 3);
    pair_is(0, "jobid", "ignored");
    pair_is(1, "srcid", "0");
    pair_is(2, "key", "k0");
    ck_assert_uint_eq(M.raw.len, sizeof in - 1);
    ck_assert_int_eq(memcmp(M.raw.ptr, in, M.raw.len), 0);
    ck_assert_uint_eq(M.nframes, 1);
    ck_assert_uint_eq(M.notes, 0);
    ck_assert_ptr_null(M.thrid.ptr);
}
END_TEST

START_TEST(v2_no_cmd)
{
    ERR_CASE(NULL, "    14key=x;value=y;", PMC_E_NO_CMD, 6, false);
    ck_assert_uint_eq(E.raw.len, 20);
    recovers();
}
END_TEST

START_TEST(v2_cmd_empty)
{
    ERR_CASE(NULL, "     9cmd=;k=v;", PMC_E_CMD_EMPTY, 10, false);
    recovers();
}
END_TEST

START_TEST(v2_cmd_chars)
{
    ERR_CASE(NULL, "    12cmd=kvs put;", PMC_E_CMD_CHARS, 13, false);
    recovers();
}
END_TEST

START_TEST(v2_unterminated)
{
    ERR_CASE(NULL, "    13cmd=job-getid", PMC_E_UNTERMINATED, 19, false);
    recovers();
    /* seven bytes after the last ';' are too many */
    ERR_CASE(NULL, "    21cmd=job-getid;1234567", PMC_E_UNTERMINATED, 27, false);
    err_cmd("job-getid");
    recovers();
}
END_TEST

START_TEST(v2_trailing_junk)
{
    /* the MPICH 4.0.2 client: length = body + 6, left-justified, 6 stack bytes */
    static const char in[] = "44    cmd=fullinit;pmirank=0;threaded=FALSE;\0\0\0\0\0\0";
    is_msg(FEED(in), PMC_WIRE_V2, "fullinit", 2);
    pair_is(0, "pmirank", "0");
    pair_is(1, "threaded", "FALSE");
    ck_assert_uint_eq(M.notes, PMC_NOTE_LEN_LEFT | PMC_NOTE_TRAILING_JUNK);
    ck_assert_uint_eq(M.raw.len, sizeof in - 1); /* the junk belongs to the frame */
    is_msg(FEED("50    cmd=info-getjobattr;key=PMI_process_mapping;    cm"), PMC_WIRE_V2,
           "info-getjobattr", 1);
    pair_is(0, "key", "PMI_process_mapping");
    ck_assert(M.notes & PMC_NOTE_TRAILING_JUNK);
}
END_TEST

START_TEST(v2_junk_limit)
{
    pmc_decoder_opts o = opts_default();
    o.limits.max_junk = 2;
    use(&o);
    is_msg(FEED("    16cmd=job-getid;ab"), PMC_WIRE_V2, "job-getid", 0);
    is_err(FEED("    17cmd=job-getid;abc"), PMC_E_UNTERMINATED, 22 + 23, false);
    o.limits.max_junk = 0;
    ERR_CASE(&o, "    15cmd=job-getid;a", PMC_E_UNTERMINATED, 21, false);
    o.strict = PMC_NOTE_TRAILING_JUNK;
    o.limits.max_junk = 6;
    ERR_CASE(&o, "    20cmd=job-getid;\0\0\0\0\0\0", PMC_E_TRAILING_JUNK, 20, false);
    err_cmd("job-getid");
    recovers();
}
END_TEST

START_TEST(v2_escaped_semi)
{
    static const char in[] = "    32cmd=kvs-put;key=semi;value=a;;b;";
    is_msg(FEED(in), PMC_WIRE_V2, "kvs-put", 2);
    pair_is(1, "value", "a;b");
    ck_assert(M.pairs[1].flags & PMC_PAIR_UNESCAPED);
    ck_assert(!(M.pairs[0].flags & PMC_PAIR_UNESCAPED));
    ck_assert_uint_eq(M.notes, PMC_NOTE_ESCAPED_SEMI);
    /* ";;" right before the final ';' and a value made of escapes only */
    is_msg(FEED("    26cmd=kvs-put;v=ab;;;w=;;;;;"), PMC_WIRE_V2, "kvs-put", 2);
    pair_is(0, "v", "ab;");
    pair_is(1, "w", ";;");
}
END_TEST

START_TEST(v2_escaping_off)
{
    pmc_decoder_opts o = opts_default();
    o.flags &= ~(uint32_t)PMC_DEC_SEMI_ESCAPE;
    use(&o);
    is_msg(FEED("    23cmd=kvs-put;value=a;;b;"), PMC_WIRE_V2, "kvs-put", 2);
    pair_is(0, "value", "a");
    pair_is(1, "b", NULL);
    ck_assert_uint_eq(M.notes, PMC_NOTE_EMPTY_TOKEN | PMC_NOTE_BARE_KEY);
    o.strict = PMC_NOTE_EMPTY_TOKEN;
    ERR_CASE(&o, "    23cmd=kvs-put;value=a;;b;", PMC_E_EMPTY_TOKEN, 26, false);
    err_cmd("kvs-put");
}
END_TEST

START_TEST(v2_empty_value)
{
    is_msg(FEED("    25cmd=kvs-put;key=e;value=;"), PMC_WIRE_V2, "kvs-put", 2);
    pair_is(1, "value", "");
    ck_assert_uint_eq(M.notes, PMC_NOTE_EMPTY_VALUE);
    pmc_decoder_opts o = opts_default();
    o.strict = PMC_NOTE_EMPTY_VALUE;
    ERR_CASE(&o, "    25cmd=kvs-put;key=e;value=;", PMC_E_EMPTY_VALUE, 30, false);
    err_cmd("kvs-put");
}
END_TEST

START_TEST(v2_bare_key)
{
    is_msg(FEED("    31cmd=kvs-put;flag;key=x;value=y;"), PMC_WIRE_V2, "kvs-put", 3);
    pair_is(0, "flag", NULL);
    pair_is(1, "key", "x");
    ck_assert_uint_eq(M.notes, PMC_NOTE_BARE_KEY);
    /* read as MPICH 4.1+ and Slurm read it: "flag;key" is one key */
    pmc_pair joined[3];
    ck_assert_uint_eq(pmc_msg_join_bare_keys(&M, joined), 2);
    ck_assert(joined[0].key.len == 8 && memcmp(joined[0].key.ptr, "flag;key", 8) == 0);
    ck_assert(joined[0].val.len == 1 && joined[0].val.ptr[0] == 'x');
    ck_assert(!(joined[0].flags & PMC_PAIR_BARE));
    ck_assert(joined[1].key.len == 5 && memcmp(joined[1].key.ptr, "value", 5) == 0);
    pmc_decoder_opts o = opts_default();
    o.strict = PMC_STRICT_ALL;
    ERR_CASE(&o, "    31cmd=kvs-put;flag;key=x;value=y;", PMC_E_BARE_KEY, 18, false);
    err_cmd("kvs-put");
    recovers();
}
END_TEST

START_TEST(v2_dup_key)
{
    is_msg(FEED("    43cmd=kvs-put;key=a;value=first;value=second;"), PMC_WIRE_V2, "kvs-put", 3);
    ck_assert_uint_eq(M.notes, PMC_NOTE_DUP_KEY);
    pair_is(1, "value", "first");
    pair_is(2, "value", "second");
    const pmc_pair *p = pmc_msg_find(&M, "value");
    ck_assert_ptr_eq(p, &M.pairs[1]);
    pmc_decoder_opts o = opts_default();
    o.strict = PMC_STRICT_ALL;
    ERR_CASE(&o, "    43cmd=kvs-put;key=a;value=first;value=second;", PMC_E_DUP_KEY, 36, false);
    err_cmd("kvs-put");
}
END_TEST

START_TEST(v2_dup_key_many_pairs)
{
    /* more pairs than a pairwise comparison handles cheaply */
    char body[2048], frame[2100];
    int n = snprintf(body, sizeof body, "cmd=spawn;");
    for (int i = 0; i < 100; i++)
        n += snprintf(body + n, sizeof body - (size_t)n, "argv%d=x;", i);
    n += snprintf(body + n, sizeof body - (size_t)n, "argv57=y;");
    int fl = snprintf(frame, sizeof frame, "%6d%s", n, body);
    is_msg(feed_next(frame, (size_t)fl), PMC_WIRE_V2, "spawn", 101);
    ck_assert(M.notes & PMC_NOTE_DUP_KEY);
    ck_assert(pmc_slice_eq(pmc_msg_find(&M, "argv57")->val, "x"));
}
END_TEST

START_TEST(v2_key_chars)
{
    is_msg(FEED("    20cmd=kvs-put;key.x=1;"), PMC_WIRE_V2, "kvs-put", 1);
    pair_is(0, "key.x", "1");
    ck_assert_uint_eq(M.notes, PMC_NOTE_KEY_CHARS);
    pmc_decoder_opts o = opts_default();
    o.strict = PMC_NOTE_KEY_CHARS;
    ERR_CASE(&o, "    20cmd=kvs-put;key.x=1;", PMC_E_KEY_CHARS, 21, false);
}
END_TEST

START_TEST(v2_nul)
{
    static const char in[] = "    28cmd=kvs-put;key=z;value=a\0b;";
    is_msg(FEED(in), PMC_WIRE_V2, "kvs-put", 2);
    ck_assert_uint_eq(M.pairs[1].val.len, 3);
    ck_assert_int_eq(memcmp(M.pairs[1].val.ptr, "a\0b", 3), 0);
    ck_assert_uint_eq(M.notes, PMC_NOTE_NUL_IN_VALUE);
    pmc_decoder_opts o = opts_default();
    o.strict = PMC_STRICT_ALL;
    ERR_CASE(&o, "    28cmd=kvs-put;key=z;value=a\0b;", PMC_E_NUL, 31, false);
    /* a NUL in a key is always an error */
    ERR_CASE(NULL, "    18cmd=kvs-put;k\0y=1;", PMC_E_NUL, 19, false);
    recovers();
}
END_TEST

START_TEST(v2_key_empty)
{
    ERR_CASE(NULL, "    19cmd=kvs-put;=value;", PMC_E_KEY_EMPTY, 18, false);
    err_cmd("kvs-put");
    recovers();
}
END_TEST

/* PMC_DEC_EMPTY_KEYS: the "=value" pair is skipped and noted, escaped or
 * raw, anywhere among the pairs; strict still rejects it. */
START_TEST(v2_key_empty_skipped)
{
    pmc_decoder_opts o = opts_default();
    o.flags |= PMC_DEC_EMPTY_KEYS;
    use(&o);
    is_msg(FEED("    29cmd=kvs-put;=x;key=k;value=v;"), PMC_WIRE_V2, "kvs-put", 2);
    pair_is(0, "key", "k");
    pair_is(1, "value", "v");
    ck_assert_uint_eq(M.notes, PMC_NOTE_EMPTY_KEY);
    is_msg(FEED("    32cmd=kvs-put;key=k;=a;;b;value=v;"), PMC_WIRE_V2, "kvs-put", 2);
    pair_is(1, "value", "v");
    ck_assert_uint_eq(M.notes, PMC_NOTE_EMPTY_KEY); /* the skipped value is not unescaped */
    is_msg(FEED("    17cmd=job-getid;=x;"), PMC_WIRE_V2, "job-getid", 0);
    o.flags &= ~(uint32_t)PMC_DEC_SEMI_ESCAPE;
    use(&o);
    is_msg(FEED("    29cmd=kvs-put;key=k;=;;value=v;"), PMC_WIRE_V2, "kvs-put", 2);
    ck_assert_uint_eq(M.notes, PMC_NOTE_EMPTY_KEY | PMC_NOTE_EMPTY_TOKEN);
    o.strict = PMC_STRICT_ALL;
    ERR_CASE(&o, "    17cmd=job-getid;=x;", PMC_E_KEY_EMPTY, 20, false);
}
END_TEST

START_TEST(v2_key_too_long)
{
    char frame[200];
    char key[80];
    memset(key, 'K', 65);
    key[65] = 0;
    int n = snprintf(frame, sizeof frame, "%6zu", strlen("cmd=kvs-put;=v;") + 65);
    n += snprintf(frame + n, sizeof frame - (size_t)n, "cmd=kvs-put;%s=v;", key);
    single_error(NULL, frame, (size_t)n, PMC_E_KEY_TOO_LONG, 18, false);
    err_cmd("kvs-put");
    recovers();
    /* 64 is fine; a configured limit applies */
    key[64] = 0;
    n = snprintf(frame, sizeof frame, "%6zu", strlen("cmd=kvs-put;=v;") + 64);
    n += snprintf(frame + n, sizeof frame - (size_t)n, "cmd=kvs-put;%s=v;", key);
    is_msg(feed_next(frame, (size_t)n), PMC_WIRE_V2, "kvs-put", 1);
    pmc_decoder_opts o = opts_default();
    o.limits.max_key = 3;
    use(&o);
    is_msg(FEED("    18cmd=kvs-put;abc=v;"), PMC_WIRE_V2, "kvs-put", 1);
    is_err(FEED("    19cmd=kvs-put;abcd=v;"), PMC_E_KEY_TOO_LONG, 24 + 18, false);
}
END_TEST

START_TEST(v2_val_too_long)
{
    char body[1200], frame[1300];
    int bl = snprintf(body, sizeof body, "cmd=kvs-put;key=k;value=");
    memset(body + bl, 'V', 1025);
    bl += 1025;
    body[bl++] = ';';
    int n = snprintf(frame, sizeof frame, "%6d", bl);
    memcpy(frame + n, body, (size_t)bl);
    n += bl;
    single_error(NULL, frame, (size_t)n, PMC_E_VAL_TOO_LONG, 30, false);
    err_cmd("kvs-put");
    ck_assert_uint_eq(E.raw.len, (size_t)n);
    recovers();
    /* 1024 after unescaping: 1022 bytes and two escaped ';' */
    bl = snprintf(body, sizeof body, "cmd=kvs-put;key=k;value=");
    memset(body + bl, 'V', 1022);
    bl += 1022;
    memcpy(body + bl, ";;;;;", 5);
    bl += 5;
    n = snprintf(frame, sizeof frame, "%6d", bl);
    memcpy(frame + n, body, (size_t)bl);
    n += bl;
    is_msg(feed_next(frame, (size_t)n), PMC_WIRE_V2, "kvs-put", 2);
    ck_assert_uint_eq(M.pairs[1].val.len, 1024);
    pmc_decoder_opts o = opts_default();
    o.limits.max_val = 2;
    use(&o);
    is_msg(FEED("    17cmd=kvs-put;v=ab;"), PMC_WIRE_V2, "kvs-put", 1);
    is_err(FEED("    18cmd=kvs-put;v=abc;"), PMC_E_VAL_TOO_LONG, 23 + 20, false);
}
END_TEST

START_TEST(v2_too_many_pairs)
{
    pmc_decoder_opts o = opts_default();
    o.limits.max_pairs = 3;
    use(&o);
    is_msg(FEED("    24cmd=kvs-put;a=1;b=2;c=3;"), PMC_WIRE_V2, "kvs-put", 3);
    is_err(FEED("    28cmd=kvs-put;a=1;b=2;c=3;d=4;"), PMC_E_TOO_MANY_PAIRS, 30 + 30, false);
    ck_assert_uint_eq(E.msg_offset, 30);
    err_cmd("kvs-put");
    recovers();
}
END_TEST

START_TEST(v2_thrid)
{
    is_msg(FEED("    30cmd=job-getid;thrid=a;thrid=b;"), PMC_WIRE_V2, "job-getid", 2);
    ck_assert(pmc_slice_eq(M.thrid, "a"));
    ck_assert_ptr_eq(M.thrid.ptr, M.pairs[0].val.ptr);
    /* the error for a bad message carries cmd and thrid for the reply */
    pmc_decoder_opts o = opts_default();
    o.limits.max_val = 4;
    use(&o);
    is_err(FEED("    35cmd=kvs-get;thrid=0x55;key=toolong;"), PMC_E_VAL_TOO_LONG, 33, false);
    err_cmd("kvs-get");
    ck_assert(E.thrid.ptr && pmc_slice_eq(E.thrid, "0x55"));
}
END_TEST

START_TEST(v2_strict_all_notes)
{
    /* strict turns each non-canonical form into its error */
    pmc_decoder_opts o = opts_default();
    o.strict = PMC_STRICT_ALL;
    ERR_CASE(&o, "    20cmd=job-getid;\0\0\0\0\0\0", PMC_E_TRAILING_JUNK, 20, false);
    ERR_CASE(&o, "    20cmd=kvs-put;key.x=1;", PMC_E_KEY_CHARS, 21, false);
    /* an empty value is legal (BODY-8): STRICT_ALL keeps it ... */
    use(&o);
    is_msg(FEED("    25cmd=kvs-put;key=e;value=;"), PMC_WIRE_V2, "kvs-put", 2);
    /* ... but an explicit bit rejects it, as Hydra 4.1+ does */
    pmc_decoder_opts oe = opts_default();
    oe.strict = PMC_NOTE_EMPTY_VALUE;
    ERR_CASE(&oe, "    25cmd=kvs-put;key=e;value=;", PMC_E_EMPTY_VALUE, 30, false);
    /* canonical input passes */
    use(&o);
    is_msg(FEED("    38cmd=fullinit;pmirank=0;threaded=FALSE;"), PMC_WIRE_V2, "fullinit", 2);
    is_msg(FEED("cmd=init pmi_version=2 pmi_subversion=0\n"), PMC_WIRE_V1, "init", 2);
}
END_TEST

/* ---- v1 lines ------------------------------------------------------------- */

START_TEST(v1_line)
{
    static const char in[] = "cmd=put kvsname=x key=e value=a=b\n";
    is_msg(FEED(in), PMC_WIRE_V1, "put", 3);
    pair_is(2, "value", "a=b");
    ck_assert_uint_eq(M.raw.len, sizeof in - 1);
    ck_assert_int_eq(M.raw.ptr[M.raw.len - 1], '\n');
    ck_assert_uint_eq(M.notes, 0);
    is_msg(FEED("cmd=put kvsname=x key=e value=\n"), PMC_WIRE_V1, "put", 3);
    pair_is(2, "value", "");
    ck_assert_uint_eq(M.notes, PMC_NOTE_EMPTY_VALUE);
    ck_assert_uint_eq(M.offset, sizeof in - 1);
}
END_TEST

START_TEST(v1_spaces_and_bare_words)
{
    is_msg(FEED("cmd=get_appnum  foo\n"), PMC_WIRE_V1, "get_appnum", 1);
    pair_is(0, "foo", NULL);
    ck_assert_uint_eq(M.notes, PMC_NOTE_V1_SPACES | PMC_NOTE_BARE_KEY);
    is_msg(FEED("cmd=get_maxes   \n"), PMC_WIRE_V1, "get_maxes", 0);
    ck_assert_uint_eq(M.notes, PMC_NOTE_V1_SPACES);
    is_msg(FEED("cmd=put key=sp value=a b c\n"), PMC_WIRE_V1, "put", 4);
    pair_is(1, "value", "a");
    pair_is(3, "c", NULL);
    pmc_decoder_opts o = opts_default();
    o.strict = PMC_STRICT_ALL;
    ERR_CASE(&o, "cmd=get_maxes   \n", PMC_E_V1_SPACES, 13, false);
    err_cmd("get_maxes");
}
END_TEST

START_TEST(v1_cr)
{
    is_msg(FEED("cmd=get_maxes\r\n"), PMC_WIRE_V1, "get_maxes", 0);
    ck_assert_uint_eq(M.notes, PMC_NOTE_V1_CR);
    ck_assert_uint_eq(M.raw.len, 15);
    is_msg(FEED("cmd=get kvsname=x key=y\r\n"), PMC_WIRE_V1, "get", 2);
    pair_is(1, "key", "y");
    pmc_decoder_opts o = opts_default();
    o.strict = PMC_NOTE_V1_CR;
    ERR_CASE(&o, "cmd=get_maxes\r\n", PMC_E_V1_CR, 13, false);
    recovers();
}
END_TEST

START_TEST(v1_backslash)
{
    static const char in[] = "cmd=put key=bs value=a\\\\b\\ c\n";
    is_msg(FEED(in), PMC_WIRE_V1, "put", 3);
    pair_is(1, "value", "a\\\\b\\");
    pair_is(2, "c", NULL);
    ck_assert(!(M.notes & PMC_NOTE_V1_BACKSLASH));
    pmc_decoder_opts o = opts_default();
    o.flags |= PMC_DEC_V1_BACKSLASH;
    use(&o);
    is_msg(FEED(in), PMC_WIRE_V1, "put", 2);
    pair_is(1, "value", "a\\b c");
    ck_assert(M.pairs[1].flags & PMC_PAIR_UNESCAPED);
    ck_assert_uint_eq(M.notes, PMC_NOTE_V1_BACKSLASH);
    is_err(FEED("cmd=put key=k value=ab\\\n"), PMC_E_BAD_ESCAPE, sizeof in - 1 + 22, false);
}
END_TEST

START_TEST(v1_errors)
{
    ERR_CASE(NULL, "cmd= key=v\n", PMC_E_CMD_EMPTY, 4, false);
    recovers();
    ERR_CASE(NULL, "cmd=get.maxes\n", PMC_E_CMD_CHARS, 7, false);
    ERR_CASE(NULL, "cmd=put =v\n", PMC_E_KEY_EMPTY, 8, false);
    err_cmd("put");
    recovers();
}
END_TEST

START_TEST(v1_line_too_long)
{
    pmc_decoder_opts o = opts_default();
    o.limits.max_line = 64;
    use(&o);
    char line[200];
    memset(line, 'y', sizeof line);
    memcpy(line, "cmd=put key=k value=", 20);
    ck_assert_int_eq(feed_next(line, 64), PMC_AGAIN); /* 64 bytes could still end in '\n' */
    is_err(feed_next(line + 64, 1), PMC_E_LINE_TOO_LONG, 64, true);
    ck_assert_uint_eq(E.msg_offset, 0);
    stays_failed(PMC_E_LINE_TOO_LONG, 64);
}
END_TEST

START_TEST(v1_line_too_long_newline_later)
{
    /* The verdict must not depend on whether the '\n' has arrived: no '\n'
     * within max_line is fatal either way. */
    pmc_decoder_opts o = opts_default();
    o.limits.max_line = 64;
    use(&o);
    char line[101];
    memset(line, 'y', sizeof line);
    memcpy(line, "cmd=put key=k value=", 20);
    line[100] = '\n';
    is_err(feed_next(line, sizeof line), PMC_E_LINE_TOO_LONG, 64, true);
}
END_TEST

START_TEST(v1_truncated)
{
    ck_assert_int_eq(FEED("cmd=get_maxes"), PMC_AGAIN);
    ck_assert_int_eq(pmc_decoder_finish(D, &E), PMC_ERR);
    ck_assert_int_eq(E.code, PMC_E_TRUNCATED);
    ck_assert_uint_eq(E.offset, 13);
    ck_assert_uint_eq(E.msg_offset, 0);
    ck_assert(E.fatal);
}
END_TEST

/* ---- mcmd blocks ---------------------------------------------------------- */

START_TEST(mcmd_spawn)
{
    static const char in[] = "mcmd=spawn\nnprocs=2\nexecname=/bin/echo\narg1=hello world\n"
                             "preput_num=0\nendcmd\n";
    is_msg(FEED(in), PMC_WIRE_V1_MCMD, "spawn", 4);
    ck_assert_int_eq(M.cmd, PMC_V1_SPAWN);
    pair_is(0, "nprocs", "2");
    pair_is(2, "arg1", "hello world");
    pair_is(3, "preput_num", "0");
    ck_assert_uint_eq(M.raw.len, sizeof in - 1);
    ck_assert_uint_eq(M.notes, 0);
    /* the block is only complete at "endcmd\n" */
    ck_assert_int_eq(FEED("mcmd=spawn\nnprocs=1\nendcm"), PMC_AGAIN);
    is_msg(FEED("d\n"), PMC_WIRE_V1_MCMD, "spawn", 1);
}
END_TEST

START_TEST(mcmd_syntax)
{
    ERR_CASE(NULL, "mcmd=spawn\nnprocs=1\njust words\nendcmd\n", PMC_E_MCMD_SYNTAX, 30, false);
    err_cmd("spawn");
    recovers();
}
END_TEST

START_TEST(mcmd_too_long)
{
    pmc_decoder_opts o = opts_default();
    o.limits.max_message = 64;
    use(&o);
    char blk[100];
    memset(blk, 'a', sizeof blk);
    memcpy(blk, "mcmd=spawn\narg1=", 16);
    is_err(feed_next(blk, sizeof blk), PMC_E_MCMD_TOO_LONG, 64, true);
}
END_TEST

/* ---- continuations -------------------------------------------------------- */

static const char concat3[] = "    28cmd=spawn;ncmds=1;concat=c1;"
                              "    42cmd=concat;concatid=c1;subcmd=a;concat=c1;"
                              "    41cmd=concat;concatid=c1;maxprocs=1;argc=0;";

START_TEST(concat_reassembled)
{
    is_msg(FEED(concat3), PMC_WIRE_V2, "spawn", 4);
    pair_is(0, "ncmds", "1");
    pair_is(1, "subcmd", "a");
    pair_is(2, "maxprocs", "1");
    pair_is(3, "argc", "0");
    ck_assert_uint_eq(M.nframes, 3);
    ck_assert(M.notes & PMC_NOTE_CONTINUED);
    ck_assert_uint_eq(M.raw.len, sizeof concat3 - 1);
    ck_assert_ptr_null(pmc_msg_find(&M, "concat"));
    ck_assert_ptr_null(pmc_msg_find(&M, "concatid"));
    is_msg(FEED("    14cmd=kvs-fence;"), PMC_WIRE_V2, "kvs-fence", 0);
    ck_assert_uint_eq(M.offset, sizeof concat3 - 1);
}
END_TEST

/* An id with an escaped ';' is compared as unescaped text (found by fuzzing:
 * the comparison once read the arena offset as a pointer). */
static const char concat_esc[] = "    30cmd=kvs-put;key=k;concat=a;;b;"
                                 "    36cmd=concat;concatid=a;;b;value=x;;y;";

START_TEST(concat_escaped_id)
{
    is_msg(FEED(concat_esc), PMC_WIRE_V2, "kvs-put", 2);
    pair_is(0, "key", "k");
    pair_is(1, "value", "x;y");
    ck_assert_uint_eq(M.nframes, 2);
}
END_TEST

START_TEST(concat_waits_for_all_frames)
{
    /* the first frame alone is not a message yet */
    ck_assert_int_eq(feed_next(concat3, 34), PMC_AGAIN);
    ck_assert_int_eq(feed_next(concat3 + 34, 48), PMC_AGAIN);
    is_msg(feed_next(concat3 + 82, sizeof concat3 - 1 - 82), PMC_WIRE_V2, "spawn", 4);
}
END_TEST

START_TEST(concat_no_reassembly)
{
    pmc_decoder_opts o = opts_default();
    o.flags |= PMC_DEC_NO_CONCAT;
    use(&o);
    is_msg(FEED(concat3), PMC_WIRE_V2, "spawn", 2);
    pair_is(1, "concat", "c1");
    ck_assert_uint_eq(M.nframes, 1);
    is_msg(next(), PMC_WIRE_V2, "concat", 3);
    pair_is(0, "concatid", "c1");
    is_msg(next(), PMC_WIRE_V2, "concat", 3);
}
END_TEST

START_TEST(concat_errors)
{
    ERR_CASE(NULL, "    27cmd=kvs-put;key=k;concat=1;    30cmd=concat;concatid=2;value=v;",
             PMC_E_CONCAT_ID, 39, false);
    err_cmd("kvs-put");
    recovers();
    ERR_CASE(NULL, "    27cmd=kvs-put;key=k;concat=1;    14cmd=kvs-fence;", PMC_E_CONCAT_BROKEN,
             33, false);
    ERR_CASE(NULL, "    27cmd=kvs-put;key=k;concat=1;cmd=barrier_in\n", PMC_E_CONCAT_BROKEN, 33,
             false);
    ERR_CASE(NULL, "    30cmd=concat;concatid=1;value=v;", PMC_E_CONCAT_UNEXPECTED, 6, false);
    err_cmd("concat");
    recovers();
    pmc_decoder_opts o = opts_default();
    o.limits.max_message = 60;
    ERR_CASE(&o, "    27cmd=kvs-put;key=k;concat=1;    30cmd=concat;concatid=1;value=v;",
             PMC_E_CONCAT_TOO_LARGE, 33, false);
}
END_TEST

/* CONCAT-10: the later frames of a message refused as too large are
 * reported as dropped (a receiver answers them not); the next message, and
 * a stray continuation of another id, are read as usual. */
START_TEST(concat_too_large_drops_rest)
{
    pmc_decoder_opts o = opts_default();
    o.limits.max_message = 60;
    use(&o);
    is_err(FEED("    27cmd=kvs-put;key=k;concat=1;    39cmd=concat;concatid=1;value=v;concat=1;"),
           PMC_E_CONCAT_TOO_LARGE, 33, false);
    is_err(next(), PMC_E_CONCAT_DROPPED, 39, false);
    is_err(FEED("    26cmd=concat;concatid=1;x=y;"), PMC_E_CONCAT_DROPPED, 84, false);
    recovers();
    is_err(FEED("    26cmd=concat;concatid=1;x=y;"), PMC_E_CONCAT_UNEXPECTED, 135, false);
}
END_TEST

START_TEST(concat_truncated)
{
    ck_assert_int_eq(FEED("    27cmd=kvs-put;key=k;concat=1;"), PMC_AGAIN);
    ck_assert_int_eq(pmc_decoder_finish(D, &E), PMC_ERR);
    ck_assert_int_eq(E.code, PMC_E_TRUNCATED);
    ck_assert(E.fatal);
}
END_TEST

/* ---- finish, reset, offsets ----------------------------------------------- */

START_TEST(finish_clean_and_truncated)
{
    is_msg(FEED("    14cmd=job-getid;"), PMC_WIRE_V2, "job-getid", 0);
    ck_assert_int_eq(pmc_decoder_finish(D, &E), PMC_AGAIN);
    ck_assert_int_eq(FEED("    14cmd=job"), PMC_AGAIN);
    ck_assert_uint_eq(pmc_decoder_pending(D), 13);
    ck_assert_uint_eq(pmc_decoder_offset(D), 20);
    ck_assert_int_eq(pmc_decoder_finish(D, &E), PMC_ERR);
    ck_assert_int_eq(E.code, PMC_E_TRUNCATED);
    ck_assert_uint_eq(E.offset, 33);
    ck_assert_uint_eq(E.msg_offset, 20);
    ck_assert(E.fatal);
    /* a length field cut short is a truncated message too */
    use(NULL);
    ck_assert_int_eq(FEED("   1"), PMC_AGAIN);
    ck_assert_int_eq(pmc_decoder_finish(D, &E), PMC_ERR);
    ck_assert_int_eq(E.code, PMC_E_TRUNCATED);
}
END_TEST

START_TEST(reset_forgets_failure)
{
    is_err(FEED("    -5"), PMC_E_LEN_SIGN, 4, true);
    pmc_decoder_reset(D);
    ck_assert_uint_eq(pmc_decoder_pending(D), 0);
    is_msg(FEED("    14cmd=job-getid;"), PMC_WIRE_V2, "job-getid", 0);
}
END_TEST

START_TEST(opts_are_kept)
{
    pmc_decoder_opts o = opts_default();
    ck_assert_uint_eq(o.limits.max_key, 64);
    ck_assert_uint_eq(o.limits.max_val, 1024);
    ck_assert_uint_eq(o.limits.max_pairs, 4096);
    ck_assert_uint_eq(o.limits.max_frame, 65536);
    ck_assert_uint_eq(o.limits.max_line, 65536);
    ck_assert_uint_eq(o.limits.max_message, 1u << 20);
    ck_assert_uint_eq(o.limits.max_junk, 6);
    ck_assert_uint_eq(o.flags, PMC_DEC_SEMI_ESCAPE);
    ck_assert_uint_eq(o.strict, 0);
    o.limits.max_val = 7;
    o.strict = PMC_NOTE_DUP_KEY;
    use(&o);
    ck_assert_uint_eq(pmc_decoder_get_opts(D)->limits.max_val, 7);
    ck_assert_uint_eq(pmc_decoder_get_opts(D)->strict, PMC_NOTE_DUP_KEY);
}
END_TEST

/* ---- pmc_decode_buffer ---------------------------------------------------- */

START_TEST(buffer_zero_copy)
{
    use(NULL);
    static const char buf[] = "    28cmd=kvs-put;key=k1;value=v1;    32cmd=kvs-put;key=semi;value=a;;b;"
                              "cmd=barrier_in\n";
    pmc_msg m;
    pmc_error e;
    size_t used = 0;
    ck_assert_int_eq(pmc_decode_buffer(D, buf, sizeof buf - 1, 1000, &m, &e, &used), PMC_MSG);
    ck_assert_uint_eq(used, 34);
    ck_assert_uint_eq(m.offset, 1000);
    ck_assert_ptr_eq(m.raw.ptr, buf);
    /* views point into the caller's buffer */
    ck_assert_ptr_eq(m.name.ptr, buf + 10);
    ck_assert_ptr_eq(m.pairs[0].key.ptr, buf + 18);
    ck_assert_ptr_eq(m.pairs[1].val.ptr, buf + 31);
    size_t pos = used;
    ck_assert_int_eq(pmc_decode_buffer(D, buf + pos, sizeof buf - 1 - pos, 1000 + pos, &m, &e,
                                       &used), PMC_MSG);
    ck_assert_uint_eq(used, 38);
    ck_assert_uint_eq(m.offset, 1034);
    /* the escaped value cannot point into the input */
    ck_assert(pmc_slice_eq(m.pairs[1].val, "a;b"));
    ck_assert(m.pairs[1].val.ptr < buf || m.pairs[1].val.ptr >= buf + sizeof buf);
    ck_assert_ptr_eq(m.pairs[0].val.ptr, buf + pos + 22);
    pos += used;
    ck_assert_int_eq(pmc_decode_buffer(D, buf + pos, sizeof buf - 1 - pos, 1000 + pos, &m, &e,
                                       &used), PMC_MSG);
    ck_assert_uint_eq(used, 15);
    ck_assert_int_eq(m.wire, PMC_WIRE_V1);
    ck_assert_uint_eq(pos + used, sizeof buf - 1);
}
END_TEST

START_TEST(buffer_partial)
{
    use(NULL);
    static const char buf[] = "    27cmd=kvs-put;key=k;concat=1;    30cmd=concat;concatid=1;value=v;";
    pmc_msg m;
    pmc_error e;
    size_t used;
    /* every proper prefix is incomplete */
    for (size_t n = 0; n < sizeof buf - 1; n++) {
        used = 99;
        ck_assert_msg(pmc_decode_buffer(D, buf, n, 0, &m, &e, &used) == PMC_AGAIN,
                      "prefix of %zu bytes", n);
    }
    ck_assert_int_eq(pmc_decode_buffer(D, buf, sizeof buf - 1, 0, &m, &e, &used), PMC_MSG);
    ck_assert_uint_eq(used, sizeof buf - 1);
    ck_assert_uint_eq(m.nframes, 2);
    ck_assert_int_eq(pmc_decode_buffer(D, "cmd=get", 7, 0, &m, &e, &used), PMC_AGAIN);
}
END_TEST

START_TEST(buffer_errors)
{
    use(NULL);
    pmc_msg m;
    pmc_error e;
    size_t used = 0;
    static const char bad[] = "    14key=x;value=y;    13cmd=finalize;";
    ck_assert_int_eq(pmc_decode_buffer(D, bad, sizeof bad - 1, 500, &m, &e, &used), PMC_ERR);
    ck_assert_int_eq(e.code, PMC_E_NO_CMD);
    ck_assert_uint_eq(e.offset, 506);
    ck_assert_uint_eq(e.msg_offset, 500);
    ck_assert(!e.fatal);
    ck_assert_uint_eq(used, 20);
    ck_assert_int_eq(pmc_decode_buffer(D, bad + used, sizeof bad - 1 - used, 520, &m, &e, &used),
                     PMC_MSG);
    ck_assert(pmc_slice_eq(m.name, "finalize"));
    ck_assert_int_eq(pmc_decode_buffer(D, "    -5cmd=x;", 12, 7, &m, &e, &used), PMC_ERR);
    ck_assert_int_eq(e.code, PMC_E_LEN_SIGN);
    ck_assert_uint_eq(e.offset, 11);
    ck_assert(e.fatal);
}
END_TEST

/* ---- typed getters and error text ----------------------------------------- */

START_TEST(getters)
{
    is_msg(FEED("    75cmd=x;rank=-12;size=2;big=99999999999999999999;bad=1x;t=TRUE;f=false;b=yes;"),
           PMC_WIRE_V2, "x", 7);
    long long v = 0;
    ck_assert_int_eq(pmc_msg_get_int(&M, "rank", &v), 1);
    ck_assert_int_eq(v, -12);
    ck_assert_int_eq(pmc_msg_get_int(&M, "size", &v), 1);
    ck_assert_int_eq(v, 2);
    ck_assert_int_eq(pmc_msg_get_int(&M, "big", &v), -1);
    ck_assert_int_eq(pmc_msg_get_int(&M, "bad", &v), -1);
    ck_assert_int_eq(pmc_msg_get_int(&M, "absent", &v), 0);
    bool bv = false, lower = true;
    ck_assert_int_eq(pmc_msg_get_bool(&M, "t", &bv, &lower), 1);
    ck_assert(bv);
    ck_assert(!lower);
    ck_assert_int_eq(pmc_msg_get_bool(&M, "f", &bv, &lower), 1);
    ck_assert(!bv);
    ck_assert(lower);
    ck_assert_int_eq(pmc_msg_get_bool(&M, "b", &bv, NULL), -1);
    ck_assert_int_eq(pmc_msg_get_bool(&M, "absent", &bv, NULL), 0);
    pmc_slice s;
    ck_assert(pmc_msg_get(&M, "size", &s));
    ck_assert(pmc_slice_eq(s, "2"));
    ck_assert(!pmc_msg_get(&M, "nope", &s));
    ck_assert_ptr_eq(pmc_msg_findn(&M, "rankX", 4), &M.pairs[0]);
}
END_TEST

START_TEST(error_format)
{
    is_msg(FEED("    14cmd=job-getid;  +12cmd=job-getid;"), PMC_WIRE_V2, "job-getid", 0);
    is_err(next(), PMC_E_LEN_SIGN, 22, true);
    char buf[300];
    size_t need = pmc_error_format(&E, buf, sizeof buf);
    ck_assert_uint_eq(need, strlen(buf));
    ck_assert_msg(strstr(buf, "22"), "no offset in '%s'", buf);
    ck_assert_msg(strstr(buf, "E_LEN_SIGN"), "no code name in '%s'", buf);
    /* truncated output still reports the full length */
    char small[8];
    ck_assert_uint_eq(pmc_error_format(&E, small, sizeof small), need);
    ck_assert_uint_eq(strlen(small), sizeof small - 1);
    ck_assert_str_eq(pmc_errcode_name(PMC_E_CONCAT_ID), "E_CONCAT_ID");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("decoder");
    TCase *t;
    t = tcase_create("framing");
    tcase_add_checked_fixture(t, NULL, teardown);
    tcase_add_test(t, classify_per_message);
    tcase_add_test(t, length_paddings);
    tcase_add_test(t, length_errors);
    tcase_add_test(t, length_at_default_max_frame);
    tcase_add_test(t, length_error_after_messages);
    tcase_add_test(t, length_custom_max_frame);
    tcase_add_test(t, length_strict);
    suite_add_tcase(s, t);

    t = tcase_create("v2");
    tcase_add_checked_fixture(t, NULL, teardown);
    tcase_add_test(t, v2_pairs_and_views);
    tcase_add_test(t, v2_no_cmd);
    tcase_add_test(t, v2_cmd_empty);
    tcase_add_test(t, v2_cmd_chars);
    tcase_add_test(t, v2_unterminated);
    tcase_add_test(t, v2_trailing_junk);
    tcase_add_test(t, v2_junk_limit);
    tcase_add_test(t, v2_escaped_semi);
    tcase_add_test(t, v2_escaping_off);
    tcase_add_test(t, v2_empty_value);
    tcase_add_test(t, v2_bare_key);
    tcase_add_test(t, v2_dup_key);
    tcase_add_test(t, v2_dup_key_many_pairs);
    tcase_add_test(t, v2_key_chars);
    tcase_add_test(t, v2_nul);
    tcase_add_test(t, v2_key_empty);
    tcase_add_test(t, v2_key_empty_skipped);
    tcase_add_test(t, length_atoi);
    tcase_add_test(t, v2_key_too_long);
    tcase_add_test(t, v2_val_too_long);
    tcase_add_test(t, v2_too_many_pairs);
    tcase_add_test(t, v2_thrid);
    tcase_add_test(t, v2_strict_all_notes);
    suite_add_tcase(s, t);

    t = tcase_create("v1");
    tcase_add_checked_fixture(t, NULL, teardown);
    tcase_add_test(t, v1_line);
    tcase_add_test(t, v1_spaces_and_bare_words);
    tcase_add_test(t, v1_cr);
    tcase_add_test(t, v1_backslash);
    tcase_add_test(t, v1_errors);
    tcase_add_test(t, v1_line_too_long);
    tcase_add_test(t, v1_line_too_long_newline_later);
    tcase_add_test(t, v1_truncated);
    tcase_add_test(t, mcmd_spawn);
    tcase_add_test(t, mcmd_syntax);
    tcase_add_test(t, mcmd_too_long);
    suite_add_tcase(s, t);

    t = tcase_create("concat");
    tcase_add_checked_fixture(t, NULL, teardown);
    tcase_add_test(t, concat_reassembled);
    tcase_add_test(t, concat_escaped_id);
    tcase_add_test(t, concat_waits_for_all_frames);
    tcase_add_test(t, concat_no_reassembly);
    tcase_add_test(t, concat_errors);
    tcase_add_test(t, concat_too_large_drops_rest);
    tcase_add_test(t, concat_truncated);
    suite_add_tcase(s, t);

    t = tcase_create("api");
    tcase_add_checked_fixture(t, NULL, teardown);
    tcase_add_test(t, finish_clean_and_truncated);
    tcase_add_test(t, reset_forgets_failure);
    tcase_add_test(t, opts_are_kept);
    tcase_add_test(t, buffer_zero_copy);
    tcase_add_test(t, buffer_partial);
    tcase_add_test(t, buffer_errors);
    tcase_add_test(t, getters);
    tcase_add_test(t, error_format);
    suite_add_tcase(s, t);
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
