/* Unit tests of the pmitrace library: escaping, the v1 reader and writer,
 * and the transcript importer. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmitrace/trace.h"

/* ---------------------------------------------------------------- escaping */

START_TEST(escape_all_bytes_round_trip)
{
    char in[256], esc[1100], back[256];
    for (int i = 0; i < 256; i++)
        in[i] = (char)i;
    size_t n = pmt_escape(in, sizeof in, esc, sizeof esc);
    ck_assert_uint_eq(n, pmt_escaped_len(in, sizeof in));
    ck_assert_uint_eq(strlen(esc), n);
    /* only printable ASCII in the escaped form, and no bare quote */
    for (size_t i = 0; i < n; i++) {
        ck_assert(esc[i] >= 0x20 && esc[i] <= 0x7e);
        if (esc[i] == '"')
            ck_assert(i > 0 && esc[i - 1] == '\\');
    }
    size_t blen = 0, errpos = 0;
    ck_assert_int_eq(pmt_unescape(esc, n, back, &blen, &errpos, NULL, 0), 0);
    ck_assert_uint_eq(blen, 256);
    ck_assert(memcmp(in, back, 256) == 0);
}
END_TEST

START_TEST(escape_forms)
{
    char out[64];
    pmt_escape("a\0\n\r\t\\\"~\x7f\xff", 10, out, sizeof out);
    ck_assert_str_eq(out, "a\\x00\\n\\r\\t\\\\\\\"~\\x7f\\xff");
    /* truncation: like snprintf, the needed length is returned and the
     * output is a clean prefix (no half escape) */
    char small[4];
    size_t need = pmt_escape("\n\n\n", 3, small, sizeof small);
    ck_assert_uint_eq(need, 6);
    ck_assert_str_eq(small, "\\n");
}
END_TEST

START_TEST(unescape_errors)
{
    char out[16];
    size_t n, pos;
    char err[100];
    ck_assert_int_eq(pmt_unescape("ab\\x4", 5, out, &n, &pos, err, sizeof err), -1);
    ck_assert_uint_eq(pos, 2);
    ck_assert(strstr(err, "hex") != NULL);
    ck_assert_int_eq(pmt_unescape("a\\q", 3, out, &n, &pos, err, sizeof err), -1);
    ck_assert_uint_eq(pos, 1);
    ck_assert_int_eq(pmt_unescape("a\"b", 3, out, &n, &pos, err, sizeof err), -1);
    ck_assert_uint_eq(pos, 1);
    ck_assert_int_eq(pmt_unescape("ab\\", 3, out, &n, &pos, err, sizeof err), -1);
    ck_assert_uint_eq(pos, 2);
    ck_assert_int_eq(pmt_unescape("\\X41", 4, out, &n, &pos, err, sizeof err), -1);
    ck_assert_int_eq(pmt_unescape("\\x4A\\x4a", 8, out, &n, &pos, err, sizeof err), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert(out[0] == 'J' && out[1] == 'J');
}
END_TEST

/* ---------------------------------------------------------------- reader */

static const char good[] =
    "# pmi-trace v1\n"
    "# a comment\n"
    "@source unit test, hand written\n"
    "@meta exit=255\n"
    "@env PMI_FD=6\n"
    "@expect C>S note trailing-junk  # mpich-wire.md §11 B1\n"
    "@expect S>C validate E_MISSING_KEY\n"
    "\n"
    "0.000000 r0 open fd=6\n"
    "0.000100 r0 C>S \"44    cmd=x;\\x00\\\"\\\\\"  # decoded text is ignored\n"
    "1.500000 r0 S>C \"a\\r\\n\"\n"
    "1.500001 r0 eof S\n"
    "2.000000 c3 timeout\n"
    "2.000000 c3 note free text # with a hash\n"
    "# comments after events are ignored\n"
    "2.000000 c3 close\n";

START_TEST(parse_good)
{
    pmt_trace t;
    pmt_error e;
    ck_assert_int_eq(pmt_parse(good, strlen(good), &t, &e), 0);
    ck_assert_uint_eq(t.nheaders, 6);
    ck_assert_int_eq(t.headers[0].kind, PMT_H_COMMENT);
    ck_assert_str_eq(t.headers[0].value, "a comment");
    ck_assert_str_eq(pmt_find_header(&t, PMT_H_SOURCE, NULL)->value, "unit test, hand written");
    ck_assert_str_eq(pmt_find_header(&t, PMT_H_META, "exit")->value, "255");
    ck_assert_str_eq(pmt_find_header(&t, PMT_H_ENV, "PMI_FD")->value, "6");
    const pmt_header *x = pmt_find_header(&t, PMT_H_EXPECT, NULL);
    ck_assert_int_eq(x->expect.from, PMT_CLIENT);
    ck_assert_int_eq(x->expect.kind, PMT_X_NOTE);
    ck_assert_str_eq(x->expect.name, "trailing-junk");
    ck_assert_str_eq(x->value, "mpich-wire.md §11 B1");
    ck_assert_uint_eq(x->line, 6);

    ck_assert_uint_eq(t.nevents, 7);
    ck_assert_int_eq(t.events[0].kind, PMT_EV_OPEN);
    ck_assert_str_eq(t.events[0].data, "fd=6");
    ck_assert_int_eq(t.events[1].kind, PMT_EV_DATA);
    ck_assert_int_eq(t.events[1].side, PMT_CLIENT);
    ck_assert_uint_eq(t.events[1].usec, 100);
    ck_assert_uint_eq(t.events[1].len, 15);
    ck_assert(memcmp(t.events[1].data, "44    cmd=x;\0\"\\", 15) == 0);
    ck_assert_uint_eq(t.events[1].line, 10);
    ck_assert_int_eq(t.events[2].side, PMT_SERVER);
    ck_assert_uint_eq(t.events[2].usec, 1500000);
    ck_assert_int_eq(t.events[3].kind, PMT_EV_EOF);
    ck_assert_int_eq(t.events[3].side, PMT_SERVER);
    ck_assert_int_eq(t.events[4].kind, PMT_EV_TIMEOUT);
    ck_assert_str_eq(t.events[4].conn, "c3");
    ck_assert_str_eq(t.events[5].data, "free text # with a hash");
    ck_assert_int_eq(t.events[6].kind, PMT_EV_CLOSE);
    pmt_trace_free(&t);
}
END_TEST

/* Parse `doc`, expect failure at line:column with `what` in the message. */
static void bad(const char *doc, unsigned line, unsigned col, const char *what)
{
    pmt_trace t;
    pmt_error e;
    ck_assert_msg(pmt_parse(doc, strlen(doc), &t, &e) == -1, "accepted: %s", doc);
    ck_assert_msg(e.line == line && e.column == col, "%s: got %u:%u (%s), want %u:%u", doc, e.line,
                  e.column, e.msg, line, col);
    ck_assert_msg(strstr(e.msg, what) != NULL, "message '%s' lacks '%s'", e.msg, what);
    ck_assert_uint_eq(t.nevents, 0);
    ck_assert_uint_eq(t.nheaders, 0);
}

#define H "# pmi-trace v1\n"

START_TEST(parse_errors)
{
    bad("", 1, 1, "empty file");
    bad("# pmi-trace\n", 1, 1, "first line");
    bad("# pmi-trace v3\n", 1, 14, "unsupported format version");
    bad(H "0.00000 r0 close\n", 2, 8, "6 decimals");
    bad(H "x r0 close\n", 2, 1, "time");
    bad(H "0.000000 r0 C>S abc\n", 2, 17, "reserved for a later version");
    bad(H "0.000000 r0 C>S \"abc\n", 2, 21, "closing");
    bad(H "0.000000 r0 C>S \"a\\qb\"\n", 2, 19, "unknown escape");
    bad(H "0.000000 r0 C>S \"\"\n", 2, 17, "at least one byte");
    bad(H "0.000000 r0 C>S \"a\" junk\n", 2, 21, "end of the line");
    bad(H "0.000000 r0 eof X\n", 2, 17, "C or S");
    bad(H "0.000000 r0 frob\n", 2, 13, "expected an event");
    bad(H "0.000000 r/0 close\n", 2, 11, "connection label");
    bad(H "0.000000 r0 close\n@meta a=b\n", 3, 1, "header line after the first event");
    bad(H "@meta novalue\n", 2, 7, "key=value");
    bad(H "@source\n", 2, 8, "description");
    bad(H "@frob x\n", 2, 1, "unknown header");
    bad(H "@expect X>Y note a\n", 2, 9, "C>S or S>C");
    bad(H "@expect C>S oops a\n", 2, 13, "note, error or validate");
    bad(H "@expect C>S error trailing\n", 2, 19, "error code");
    bad(H "@expect C>S note a b\n", 2, 20, "end of the line");
    bad(H "0.000000 r0 close\r\n", 2, 18, "CR");
}
END_TEST

/* ---------------------------------------------------------------- writer */

static char *write_to_string(const pmt_trace *t, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(pmt_write(f, t, NULL, NULL), 0);
    fclose(f);
    return buf;
}

START_TEST(writer_reader_round_trip)
{
    pmt_trace t;
    pmt_trace_init(&t);
    char all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (char)(255 - i);
    pmt_expect x = { PMT_SERVER, PMT_X_ERROR, "E_LEN_SIGN" };
    ck_assert_int_eq(pmt_add_comment(&t, "why this trace exists"), 0);
    ck_assert_int_eq(pmt_add_source(&t, "round trip test"), 0);
    ck_assert_int_eq(pmt_add_meta(&t, "exit", "0"), 0);
    ck_assert_int_eq(pmt_add_env(&t, "PMI_RANK", "a=b c"), 0);
    ck_assert_int_eq(pmt_add_expect(&t, &x, "a citation"), 0);
    ck_assert_int_eq(pmt_add_event(&t, PMT_EV_OPEN, 0, "r0", PMT_CLIENT, "", 0), 0);
    ck_assert_int_eq(pmt_add_event(&t, PMT_EV_DATA, 12, "r0", PMT_CLIENT, all, 256), 0);
    ck_assert_int_eq(pmt_add_event(&t, PMT_EV_DATA, 3000001, "r0", PMT_SERVER, "\0", 1), 0);
    ck_assert_int_eq(pmt_add_event(&t, PMT_EV_EOF, 4000000, "r0", PMT_CLIENT, NULL, 0), 0);
    ck_assert_int_eq(pmt_add_event(&t, PMT_EV_TIMEOUT, 4000000, "r0", PMT_CLIENT, NULL, 0), 0);
    ck_assert_int_eq(pmt_add_event(&t, PMT_EV_NOTE, 4000000, "r0", PMT_CLIENT, "done", 4), 0);
    ck_assert_int_eq(pmt_add_event(&t, PMT_EV_CLOSE, 4000000, "r0", PMT_CLIENT, NULL, 0), 0);
    /* what the format cannot carry is refused, not mangled */
    ck_assert_int_eq(pmt_add_event(&t, PMT_EV_NOTE, 0, "r0", PMT_CLIENT, "a\nb", 3), -1);
    ck_assert_int_eq(pmt_add_event(&t, PMT_EV_DATA, 0, "bad label", PMT_CLIENT, "x", 1), -1);
    ck_assert_int_eq(pmt_add_source(&t, "two\nlines"), -1);

    size_t len1;
    char *s1 = write_to_string(&t, &len1);
    pmt_trace u;
    pmt_error e;
    ck_assert_msg(pmt_parse(s1, len1, &u, &e) == 0, "%u:%u %s", e.line, e.column, e.msg);
    ck_assert_uint_eq(u.nevents, t.nevents);
    ck_assert_uint_eq(u.nheaders, t.nheaders);
    for (size_t i = 0; i < t.nevents; i++) {
        ck_assert_int_eq(u.events[i].kind, t.events[i].kind);
        ck_assert_uint_eq(u.events[i].usec, t.events[i].usec);
        ck_assert_str_eq(u.events[i].conn, t.events[i].conn);
        ck_assert_uint_eq(u.events[i].len, t.events[i].len);
        ck_assert(memcmp(u.events[i].data, t.events[i].data, t.events[i].len) == 0);
        if (t.events[i].kind == PMT_EV_DATA || t.events[i].kind == PMT_EV_EOF)
            ck_assert_int_eq(u.events[i].side, t.events[i].side);
    }
    ck_assert_str_eq(u.headers[3].value, "a=b c");
    ck_assert_str_eq(u.headers[4].value, "a citation");
    ck_assert_str_eq(u.headers[4].expect.name, "E_LEN_SIGN");
    ck_assert(strstr(s1, "3.000001 r0 S>C \"\\x00\"\n") != NULL);

    size_t len2;
    char *s2 = write_to_string(&u, &len2);
    ck_assert_uint_eq(len1, len2);
    ck_assert(memcmp(s1, s2, len1) == 0);
    free(s1);
    free(s2);
    pmt_trace_free(&t);
    pmt_trace_free(&u);
}
END_TEST

/* ---------------------------------------------------------------- import */

static void import_ok(pmt_import_flavour fl, const char *text, pmt_trace *t)
{
    pmt_error e;
    pmt_trace_init(t);
    pmt_import_opts o = { "r1", -1 };
    ck_assert_msg(pmt_import(fl, text, strlen(text), &o, t, &e) == 0, "%u:%u %s", e.line,
                  e.column, e.msg);
}

START_TEST(import_probe_log)
{
    const char *log =
        "NOTE env PMI_FD=6 PMI_RANK=1\n"
        "NOTE scenario v2_demo\n"
        "C>S b'cmd=init pmi_version=2 pmi_subversion=0\\n'\n"
        "C>S b'44    cmd=x;\\x00\\xff\\t\\r\\\\'\n"
        "S>C b\"it's\"\n"
        "S>C b'q\\'\"'\n"
        "S>C TIMEOUT\n"
        "C>S SENDERR [Errno 32] Broken pipe\n"
        "NOTE finalize (end of probe)\n"
        "S>C EOF\n"
        "C>S 'EOF'\n"
        "NOTE done\n";
    pmt_trace t;
    import_ok(PMT_IMPORT_PROBE, log, &t);
    ck_assert_str_eq(pmt_find_header(&t, PMT_H_ENV, "PMI_RANK")->value, "1");
    ck_assert_str_eq(pmt_find_header(&t, PMT_H_META, "scenario")->value, "v2_demo");
    ck_assert_uint_eq(t.nevents, 10);
    ck_assert_int_eq(t.events[0].kind, PMT_EV_DATA);
    ck_assert_str_eq(t.events[0].conn, "r1");
    ck_assert_uint_eq(t.events[1].len, 17);
    ck_assert(memcmp(t.events[1].data, "44    cmd=x;\0\xff\t\r\\", 17) == 0);
    ck_assert_int_eq(t.events[2].side, PMT_SERVER);
    ck_assert_str_eq(t.events[2].data, "it's");
    ck_assert_str_eq(t.events[3].data, "q'\"");
    ck_assert_int_eq(t.events[4].kind, PMT_EV_TIMEOUT);
    ck_assert_int_eq(t.events[5].kind, PMT_EV_NOTE);
    ck_assert_str_eq(t.events[5].data, "C>S SENDERR [Errno 32] Broken pipe");
    ck_assert_str_eq(t.events[6].data, "finalize (end of probe)");
    ck_assert_int_eq(t.events[7].kind, PMT_EV_EOF);
    ck_assert_int_eq(t.events[7].side, PMT_SERVER);
    ck_assert_int_eq(t.events[8].kind, PMT_EV_EOF);
    ck_assert_int_eq(t.events[8].side, PMT_CLIENT);
    ck_assert_str_eq(t.events[9].data, "done");
    pmt_trace_free(&t);
}
END_TEST

START_TEST(import_slurm_log)
{
    const char *log =
        "env {'PMI_SIZE': '2', 'PMI_FD': '11', 'PMI_JOBID': '1.0'}\n"
        "C>S b'14    cmd=job-getid;'\n"
        "C>S b'49    cmd=kvs-put;key=k;value=aaaaaaaaaaaaaaaaaaaa'...<100 bytes total>..."
        "b'aaaaaaaaaaaaaaaaaaaa;'\n"
        "EOF\n"
        "S>C(drain) b''\n"
        "EXC ConnectionResetError [Errno 104] Connection reset by peer\n"
        "done\n";
    pmt_trace t;
    import_ok(PMT_IMPORT_PROBE, log, &t);
    ck_assert_str_eq(pmt_find_header(&t, PMT_H_ENV, "PMI_JOBID")->value, "1.0");
    ck_assert_uint_eq(t.nevents, 7);
    /* the shortened write is restored to its full length, with a note */
    ck_assert_int_eq(t.events[1].kind, PMT_EV_NOTE);
    ck_assert(strstr(t.events[1].data, "restored") != NULL);
    ck_assert_uint_eq(t.events[2].len, 100);
    ck_assert(memcmp(t.events[2].data, "49    cmd=kvs-put;key=k;value=", 30) == 0);
    for (size_t i = 30; i < 99; i++)
        ck_assert(t.events[2].data[i] == 'a');
    ck_assert(t.events[2].data[99] == ';');
    ck_assert_int_eq(t.events[3].kind, PMT_EV_EOF);
    ck_assert_int_eq(t.events[3].side, PMT_SERVER);
    ck_assert_str_eq(t.events[4].data, "S>C(drain) b''");
    ck_assert_str_eq(t.events[6].data, "done");
    pmt_trace_free(&t);
}
END_TEST

START_TEST(import_strace)
{
    const char *st =
        "9120  write(11, \"cmd=init pmi_version=2 pmi_subversion=0\\n\", 40) = 40\n"
        "9120  read(11, \"114   \", 6)             = 6\n"
        "9120  read(11, \"a\\tb\\\"\\\\\\0\\377\", 7) = 7\n"
        "9120  write(2, \"log\", 3) = 3\n"
        "9120  read(11, \"\", 6) = 0\n";
    pmt_trace t;
    import_ok(PMT_IMPORT_STRACE, st, &t);
    ck_assert_uint_eq(t.nevents, 5);
    ck_assert_int_eq(t.events[0].side, PMT_CLIENT);
    ck_assert_uint_eq(t.events[0].len, 40);
    ck_assert_int_eq(t.events[1].side, PMT_SERVER);
    ck_assert_str_eq(t.events[1].data, "114   ");
    ck_assert_uint_eq(t.events[2].len, 7);
    ck_assert(memcmp(t.events[2].data, "a\tb\"\\\0\377", 7) == 0);
    ck_assert_int_eq(t.events[3].kind, PMT_EV_NOTE); /* another fd */
    ck_assert_int_eq(t.events[4].kind, PMT_EV_EOF);
    pmt_trace_free(&t);
}
END_TEST

static void import_bad(pmt_import_flavour fl, const char *text, unsigned line, unsigned col,
                       const char *what)
{
    pmt_trace t;
    pmt_error e;
    pmt_trace_init(&t);
    ck_assert_int_eq(pmt_import(fl, text, strlen(text), NULL, &t, &e), -1);
    ck_assert_msg(e.line == line && e.column == col, "got %u:%u (%s)", e.line, e.column, e.msg);
    ck_assert_msg(strstr(e.msg, what) != NULL, "'%s' lacks '%s'", e.msg, what);
    pmt_trace_free(&t);
}

START_TEST(import_errors)
{
    import_bad(PMT_IMPORT_PROBE, "C>S b'ok'\nC>S b'a\\x4'\n", 2, 8, "hex");
    import_bad(PMT_IMPORT_PROBE, "C>S b'abc\n", 1, 10, "closing quote");
    import_bad(PMT_IMPORT_PROBE, "C>S b'a' trailing\n", 1, 9, "end of the line");
    import_bad(PMT_IMPORT_PROBE, "hello\n", 1, 1, "transcript line");
    import_bad(PMT_IMPORT_PROBE, "S>C WHAT\n", 1, 5, "bytes literal");
    /* a shortened write whose middle is not a run cannot be restored */
    import_bad(PMT_IMPORT_PROBE, "C>S b'abc'...<10 bytes total>...b'xyz'\n", 1, 1,
               "cannot be restored");
    import_bad(PMT_IMPORT_STRACE, "1 write(11, \"ab\"..., 4) = 4\n", 1, 17, "shortened");
    import_bad(PMT_IMPORT_STRACE, "1 write(11, \"ab\", 4) = 4\n", 1, 3, "the call says 4");
}
END_TEST

START_TEST(pybytes_literal)
{
    char out[32];
    size_t n = 0, used = 0, pos = 0;
    ck_assert_int_eq(pmt_pybytes("b'\\101\\0x\\x7F' rest", 19, out, &n, &used, &pos, NULL, 0), 0);
    ck_assert_uint_eq(n, 4);
    ck_assert(memcmp(out, "A\0x\x7f", 4) == 0);
    ck_assert_uint_eq(used, 14);
    n = 0;
    ck_assert_int_eq(pmt_pybytes("'x'", 3, out, &n, &used, &pos, NULL, 0), -1);
    ck_assert_int_eq(pmt_pybytes("b'\\z'", 5, out, &n, &used, &pos, NULL, 0), -1);
    ck_assert_uint_eq(pos, 2);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("trace");
    TCase *tc = tcase_create("format");
    tcase_add_test(tc, escape_all_bytes_round_trip);
    tcase_add_test(tc, escape_forms);
    tcase_add_test(tc, unescape_errors);
    tcase_add_test(tc, parse_good);
    tcase_add_test(tc, parse_errors);
    tcase_add_test(tc, writer_reader_round_trip);
    suite_add_tcase(s, tc);
    tc = tcase_create("import");
    tcase_add_test(tc, import_probe_log);
    tcase_add_test(tc, import_slurm_log);
    tcase_add_test(tc, import_strace);
    tcase_add_test(tc, import_errors);
    tcase_add_test(tc, pybytes_literal);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
