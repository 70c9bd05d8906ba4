/* Scenario patterns, captures and the step runner (pmitrace/match.h). */
#include "pmitrace/match.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* decode one message from wire bytes into a caller-owned decoder */
static pmc_msg decode1(pmc_decoder *d, const char *wire)
{
    pmc_msg m;
    pmc_error e;
    ck_assert_int_eq(pmc_decoder_feed(d, wire, strlen(wire)), 0);
    ck_assert_int_eq(pmc_decoder_next(d, &m, &e), PMC_MSG);
    return m;
}

static void parse(pmt_pattern *p, const char *text)
{
    char err[160];
    size_t pos;
    ck_assert_msg(pmt_pattern_parse(text, strlen(text), p, &pos, err, sizeof err) == 0, "%s: %s",
                  text, err);
}

START_TEST(capture_then_substitute)
{
    pmt_vars *v = pmt_vars_new();
    pmc_decoder *d = pmc_decoder_new(NULL);
    pmt_pattern p;
    char why[256];
    parse(&p, "v2 job-getid-response jobid=${jobid} rc=0");
    pmc_msg m = decode1(d, "    40cmd=job-getid-response;rc=0;jobid=kvs_7;");
    ck_assert(pmt_match(&p, &m, v, NULL, NULL, why, sizeof why));
    size_t l;
    const char *j = pmt_vars_get(v, "jobid", &l);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(l, 5);
    ck_assert(!memcmp(j, "kvs_7", 5));
    pmt_pattern_free(&p);
    /* a second use must be equal */
    parse(&p, "v2 job-getid-response jobid=${jobid} rc=0");
    m = decode1(d, "    40cmd=job-getid-response;rc=0;jobid=kvs_8;");
    ck_assert(!pmt_match(&p, &m, v, NULL, NULL, why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "${jobid}"));
    pmt_pattern_free(&p);
    /* and is substituted when sending, through the encoder */
    parse(&p, "v2 kvs-get jobid=${jobid} key=k1");
    pmc_out o = { 0 };
    ck_assert_int_eq(pmt_pattern_render(&p, v, NULL, &o, why, sizeof why), 0);
    ck_assert_int_eq(o.len, 37);
    ck_assert(!memcmp(o.buf, "    31cmd=kvs-get;jobid=kvs_7;key=k1;", 37));
    pmc_out_free(&o);
    pmt_pattern_free(&p);
    pmc_decoder_free(d);
    pmt_vars_free(v);
}
END_TEST

START_TEST(wildcards_regex_order)
{
    pmt_vars *v = pmt_vars_new();
    pmc_decoder *d = pmc_decoder_new(NULL);
    pmt_pattern p;
    char why[256];
    parse(&p, "v1 get_result value=~\"\\\\(vector,.*\\\\)\" rc=0 msg=*");
    pmc_msg m = decode1(d, "cmd=get_result rc=0 msg=success value=(vector,(0,2,1))\n");
    ck_assert_msg(pmt_match(&p, &m, v, NULL, NULL, why, sizeof why), "%s", why);
    m = decode1(d, "cmd=get_result rc=0 msg=success value=other\n");
    ck_assert(!pmt_match(&p, &m, v, NULL, NULL, why, sizeof why));
    /* an unnamed key: rejected unless "..." */
    m = decode1(d, "cmd=get_result rc=0 msg=x value=(vector,1) found=TRUE\n");
    ck_assert(!pmt_match(&p, &m, v, NULL, NULL, why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "unexpected key found"));
    pmt_pattern_free(&p);
    parse(&p, "v1 get_result rc=0 ...");
    ck_assert(pmt_match(&p, &m, v, NULL, NULL, why, sizeof why));
    pmt_pattern_free(&p);
    /* a wildcard cannot be sent */
    parse(&p, "v1 get key=*");
    pmc_out o = { 0 };
    ck_assert_int_eq(pmt_pattern_render(&p, v, NULL, &o, why, sizeof why), -1);
    pmt_pattern_free(&p);
    size_t pos;
    ck_assert_int_eq(pmt_pattern_parse("v3 x", 4, &p, &pos, why, sizeof why), -1);
    ck_assert_int_eq(pmt_pattern_parse("v1 get key=~(", 13, &p, &pos, why, sizeof why), -1);
    /* regexes whose compilation cost explodes are refused up front (the
     * trace_read fuzzer stalled glibc's regcomp on "0****...r") */
    static const char *costly[] = {
        "v1 get key=~0**r",
        "v1 get key=~a*b*c*d*e*f*g*h*i*",
        "v1 get key=~(a|b){1,255}",
        "v1 get key=~x{2}{3}",
    };
    for (size_t k = 0; k < sizeof costly / sizeof *costly; k++) {
        ck_assert_int_eq(pmt_pattern_parse(costly[k], strlen(costly[k]), &p, &pos, why, sizeof why),
                         -1);
        ck_assert_msg(strstr(why, "refused"), "%s: %s", costly[k], why);
    }
    /* within the limits, and '*' inside a bracket expression is no repetition */
    parse(&p, "v1 get key=~[*+?]{1,16}(kvs_[0-9]+|x*)?");
    pmt_pattern_free(&p);
    pmc_decoder_free(d);
    pmt_vars_free(v);
}
END_TEST

START_TEST(recorded_tolerance)
{
    pmt_vars *v = pmt_vars_new();
    pmc_decoder *d = pmc_decoder_new(NULL), *d2 = pmc_decoder_new(NULL);
    pmt_pattern p;
    char why[256];
    pmc_msg rec = decode1(d, "cmd=my_kvsname kvsname=kvs_1_0\n");
    ck_assert_int_eq(pmt_pattern_from_msg(&rec, &p), 0);
    pmc_msg live = decode1(d2, "cmd=my_kvsname kvsname=kvs_99_0\n");
    ck_assert(pmt_match(&p, &live, v, NULL, NULL, why, sizeof why));
    pmt_pattern_free(&p);
    /* the recorded name is now replaced in what is sent: re-encoded */
    rec = decode1(d, "cmd=get kvsname=kvs_1_0 key=k\n");
    ck_assert_int_eq(pmt_pattern_from_msg(&rec, &p), 0);
    pmc_out o = { 0 };
    ck_assert_int_eq(pmt_pattern_render(&p, v, NULL, &o, why, sizeof why), 0);
    ck_assert_int_eq(o.len, strlen("cmd=get kvsname=kvs_99_0 key=k\n"));
    ck_assert(!memcmp(o.buf, "cmd=get kvsname=kvs_99_0 key=k\n", o.len));
    pmc_out_free(&o);
    pmt_pattern_free(&p);
    /* a v2 frame keeps its left-justified length when re-encoded */
    rec = decode1(d, "26    cmd=kvs-get;jobid=kvs_1_0;");
    ck_assert_int_eq(pmt_pattern_from_msg(&rec, &p), 0);
    ck_assert_int_eq(pmt_pattern_render(&p, v, NULL, &o, why, sizeof why), 0);
    ck_assert_str_eq(o.buf ? (o.buf[o.len] = 0, o.buf) : "", "27    cmd=kvs-get;jobid=kvs_99_0;");
    pmc_out_free(&o);
    pmt_pattern_free(&p);
    /* other values are not tolerated */
    rec = decode1(d, "cmd=appnum appnum=0\n");
    live = decode1(d2, "cmd=appnum appnum=7\n");
    ck_assert_int_eq(pmt_pattern_from_msg(&rec, &p), 0);
    ck_assert(!pmt_match(&p, &live, v, NULL, NULL, why, sizeof why));
    ck_assert_str_eq(why, "appnum: expected \"0\", got \"7\"");
    pmt_pattern_free(&p);
    pmc_decoder_free(d);
    pmc_decoder_free(d2);
    pmt_vars_free(v);
}
END_TEST

static pmt_runner *runner(const char *doc, pmt_side play, pmt_vars *v, pmt_trace *t)
{
    pmt_error e;
    ck_assert_msg(pmt_parse(doc, strlen(doc), t, &e) == 0, "%u:%u %s", e.line, e.column, e.msg);
    char err[200];
    pmt_runner_opts o = { NULL, NULL, 1000, 50, 50, false };
    pmt_runner *r = pmt_runner_new(t, "r0", play, v, &o, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    return r;
}

START_TEST(runner_scenario)
{
    const char *doc = "# pmi-trace v2\n"
                      "0.000000 r0 C>S msg v2 fullinit pmirank=0\n"
                      "0.000000 r0 S>C msg v2 fullinit-response rc=0 ...\n"
                      "0.000000 r0 C>S split=3,10 delay=1 \"    20cmd=job-getid;\"\n"
                      "0.000000 r0 S>C unordered msg v2 kvs-put-response rc=0\n"
                      "0.000000 r0 S>C unordered msg v2 job-getid-response jobid=${j} rc=0\n"
                      "0.000000 r0 S>C optional msg v2 info-getnodeattr-response rc=0\n"
                      "0.000000 r0 C>S raw \"junk\\x00\"\n"
                      "0.000000 r0 S>C raw \"ok\\n\"\n"
                      "0.000000 r0 timeout 20\n"
                      "0.000000 r0 eof S\n";
    pmt_trace t;
    pmt_vars *v = pmt_vars_new();
    pmt_runner *r = runner(doc, PMT_CLIENT, v, &t);
    pmt_action a;
    pmt_runner_next(r, &a);
    ck_assert_int_eq(a.kind, PMT_ACT_SEND);
    ck_assert_int_eq(a.len, strlen("    23cmd=fullinit;pmirank=0;"));
    pmt_runner_done_action(r);
    pmt_runner_next(r, &a);
    ck_assert_int_eq(a.kind, PMT_ACT_WAIT);
    /* arrives in two pieces */
    const char *resp = "    41cmd=fullinit-response;rc=0;rank=0;size=1;";
    pmt_runner_feed(r, resp, 10);
    pmt_runner_feed(r, resp + 10, strlen(resp) - 10);
    pmt_runner_next(r, &a);
    ck_assert_int_eq(a.kind, PMT_ACT_SEND);
    ck_assert_int_eq(a.ncuts, 2);
    ck_assert_int_eq(a.cuts[0], 3);
    ck_assert_int_eq(a.delay_ms, 1);
    pmt_runner_done_action(r);
    /* the unordered pair in the other order */
    const char *two = "    40cmd=job-getid-response;rc=0;jobid=kvs_5;    26cmd=kvs-put-response;rc=0;";
    pmt_runner_feed(r, two, strlen(two));
    ck_assert_ptr_null(pmt_runner_divergence(r));
    ck_assert_str_eq(pmt_vars_get(v, "j", NULL), "kvs_5");
    /* the optional message does not come: timeout skips it */
    pmt_runner_next(r, &a);
    ck_assert_int_eq(a.kind, PMT_ACT_WAIT);
    ck_assert_int_eq(a.timeout_ms, 50);
    pmt_runner_timeout(r);
    pmt_runner_next(r, &a);
    ck_assert_int_eq(a.kind, PMT_ACT_SEND);
    ck_assert_int_eq(a.len, 5);
    ck_assert(!memcmp(a.buf, "junk\0", 5));
    pmt_runner_done_action(r);
    pmt_runner_feed(r, "ok\n", 3);
    pmt_runner_next(r, &a);
    ck_assert_int_eq(a.kind, PMT_ACT_WAIT); /* silence */
    ck_assert_int_eq(a.timeout_ms, 20);
    pmt_runner_timeout(r);
    pmt_runner_next(r, &a);
    ck_assert_int_eq(a.kind, PMT_ACT_WAIT);
    pmt_runner_eof(r);
    pmt_runner_next(r, &a);
    ck_assert_int_eq(a.kind, PMT_ACT_DONE);
    pmt_runner_free(r);
    pmt_trace_free(&t);
    pmt_vars_free(v);
}
END_TEST

/* What replay says of a trace with nothing of the other side: checks
 * count every step that looks at the peer, its end included. */
START_TEST(runner_checks)
{
    const char *only_sends = "# pmi-trace v1\n"
                             "0.000000 r0 C>S \"cmd=get_appnum\\n\"\n"
                             "0.000100 r0 eof C\n";
    const char *server_closes = "# pmi-trace v2\n"
                                "0.000000 r0 C>S \"cmd=get_appnum\\n\"\n"
                                "0.000100 r0 eof S failure\n";
    const char *answered = "# pmi-trace v1\n"
                           "0.000000 r0 C>S \"cmd=get_appnum\\n\"\n"
                           "0.000000 r0 S>C \"cmd=appnum appnum=0\\n\"\n";
    const char *docs[] = { only_sends, server_closes, answered };
    const size_t want[] = { 0, 1, 1 };
    for (size_t i = 0; i < 3; i++) {
        pmt_trace t;
        pmt_vars *v = pmt_vars_new();
        pmt_runner *r = runner(docs[i], PMT_CLIENT, v, &t);
        ck_assert_uint_eq(pmt_runner_checks(r), want[i]);
        pmt_runner_free(r);
        pmt_trace_free(&t);
        pmt_vars_free(v);
    }
}
END_TEST

START_TEST(runner_divergence)
{
    const char *doc = "# pmi-trace v1\n"
                      "0.000000 r0 C>S \"cmd=get_appnum\\n\"\n"
                      "0.000000 r0 S>C \"cmd=appnum appnum=0\\n\"\n";
    pmt_trace t;
    pmt_vars *v = pmt_vars_new();
    pmt_runner *r = runner(doc, PMT_CLIENT, v, &t);
    pmt_action a;
    pmt_runner_next(r, &a);
    ck_assert_int_eq(a.kind, PMT_ACT_SEND);
    pmt_runner_done_action(r);
    pmt_runner_feed(r, "cmd=appnum appnum=3\n", 20);
    pmt_runner_next(r, &a);
    ck_assert_int_eq(a.kind, PMT_ACT_FAILED);
    const pmt_divergence *dv = pmt_runner_divergence(r);
    ck_assert_ptr_nonnull(dv);
    ck_assert_uint_eq(dv->line, 3);
    ck_assert_str_eq(dv->expected, "v1 appnum appnum=0");
    ck_assert_str_eq(dv->actual, "v1 appnum appnum=3");
    pmt_runner_free(r);
    pmt_trace_free(&t);
    /* the server side of the same trace: check the request, answer it */
    r = runner(doc, PMT_SERVER, v, &t);
    pmt_runner_next(r, &a);
    ck_assert_int_eq(a.kind, PMT_ACT_WAIT);
    pmt_runner_feed(r, "cmd=get_appnum\n", 15);
    pmt_runner_next(r, &a);
    ck_assert_int_eq(a.kind, PMT_ACT_SEND);
    ck_assert_int_eq(a.len, 20);
    pmt_runner_done_action(r);
    pmt_runner_next(r, &a);
    ck_assert_int_eq(a.kind, PMT_ACT_DONE);
    pmt_runner_free(r);
    pmt_trace_free(&t);
    pmt_vars_free(v);
}
END_TEST

/* t written back is exactly doc */
static void assert_written(const pmt_trace *t, const char *doc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(pmt_write(f, t, NULL, NULL), 0);
    fclose(f);
    ck_assert_str_eq(buf, doc);
    free(buf);
}

START_TEST(v2_roundtrip)
{
    const char *doc = "# pmi-trace v2\n"
                      "0.000000 r0 C>S optional unordered timeout=5 split=2 delay=3 \"abcd\"\n"
                      "0.000000 r0 C>S raw \"x\"\n"
                      "0.000000 r0 S>C msg v1 get_result value=${v} rc=~[0-9]+\n"
                      "0.000000 r0 timeout 40\n";
    pmt_trace t;
    pmt_error e;
    ck_assert_int_eq(pmt_parse(doc, strlen(doc), &t, &e), 0);
    assert_written(&t, doc);
    pmt_trace_free(&t);
    /* v2 syntax in a v1 file is still refused; bad split offsets too */
    const char *bad = "# pmi-trace v1\n0.000000 r0 C>S msg v1 get\n";
    ck_assert_int_eq(pmt_parse(bad, strlen(bad), &t, &e), -1);
    const char *bad2 = "# pmi-trace v2\n0.000000 r0 C>S split=9 \"abc\"\n";
    ck_assert_int_eq(pmt_parse(bad2, strlen(bad2), &t, &e), -1);
    ck_assert_ptr_nonnull(strstr(e.msg, "split"));
}
END_TEST

/* Reproducers: pause=MS before a write, failure marks on answers and on
 * eof, and a lenient runner that lets only the marks decide. */
START_TEST(failure_marks_and_pause)
{
    const char *doc = "# pmi-trace v2\n"
                      "0.000000 r0 C>S \"cmd=get_maxes\\n\"\n"
                      "0.000000 r0 S>C \"cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\\n\"\n"
                      "0.400000 r0 C>S pause=400 \"cmd=get kvsname=k key=a\\n\"\n"
                      "0.400000 r0 S>C failure \"cmd=get_result rc=-1 msg=not_found\\n\"\n"
                      "0.400000 r0 timeout 20 failure\n"
                      "0.400000 r0 eof S failure\n";
    pmt_trace t;
    pmt_error e;
    ck_assert_int_eq(pmt_parse(doc, strlen(doc), &t, &e), 0);
    ck_assert_uint_eq(t.events[2].pause_ms, 400);
    ck_assert_uint_eq(t.events[3].flags, PMT_F_FAILURE);
    ck_assert_uint_eq(t.events[4].flags, PMT_F_FAILURE);
    ck_assert_uint_eq(t.events[5].flags, PMT_F_FAILURE);
    assert_written(&t, doc);
    /* failure marks exist in v2 only */
    const char *v1 = "# pmi-trace v1\n0.000000 r0 eof S failure\n";
    pmt_trace t1;
    ck_assert_int_eq(pmt_parse(v1, strlen(v1), &t1, &e), -1);

    for (int round = 0; round < 3; round++) {
        char err[200];
        pmt_vars *v = pmt_vars_new();
        pmt_runner_opts o = { NULL, NULL, 1000, 50, 50, round < 2 };
        pmt_runner *r = pmt_runner_new(&t, "r0", PMT_CLIENT, v, &o, err, sizeof err);
        ck_assert_ptr_nonnull(r);
        size_t got = 9;
        ck_assert_uint_eq(pmt_runner_failures(r, &got), 3);
        ck_assert_uint_eq(got, 0);
        pmt_action a;
        pmt_runner_next(r, &a);
        ck_assert_int_eq(a.pause_ms, 0);
        pmt_runner_done_action(r);
        /* other limits: lenient runners take it (same command), a strict one does not */
        const char *mx = "cmd=maxes kvsname_max=128 keylen_max=64 vallen_max=1024\n";
        pmt_runner_feed(r, mx, strlen(mx));
        pmt_runner_next(r, &a);
        if (round == 2) {
            ck_assert_int_eq(a.kind, PMT_ACT_FAILED);
            ck_assert(!pmt_runner_divergence(r)->failure);
            pmt_runner_free(r);
            pmt_vars_free(v);
            continue;
        }
        ck_assert_int_eq(a.kind, PMT_ACT_SEND);
        ck_assert_int_eq(a.pause_ms, 400);
        pmt_runner_done_action(r);
        /* round 0: the bug again; round 1: the server now finds the key */
        const char *ans = round == 0 ? "cmd=get_result rc=-1 msg=not_found\n"
                                     : "cmd=get_result rc=0 value=late\n";
        pmt_runner_feed(r, ans, strlen(ans));
        if (round == 0) {
            pmt_runner_next(r, &a);
            ck_assert_int_eq(a.kind, PMT_ACT_WAIT); /* the silence */
            ck_assert_int_eq(a.timeout_ms, 20);
            pmt_runner_timeout(r);
            /* judged: answers before a failure eof do not count, the close does */
            pmt_runner_feed(r, "cmd=barrier_out\n", 16);
            pmt_runner_eof(r);
        }
        pmt_runner_next(r, &a);
        const pmt_divergence *dv = pmt_runner_divergence(r);
        if (round == 0) {
            ck_assert_int_eq(a.kind, PMT_ACT_DONE);
            pmt_runner_failures(r, &got);
            ck_assert_uint_eq(got, 3);
        } else {
            ck_assert_int_eq(a.kind, PMT_ACT_FAILED);
            ck_assert(dv->failure); /* a lenient runner never waves a failure mark through */
            ck_assert_uint_eq(dv->line, 5);
        }
        pmt_runner_free(r);
        pmt_vars_free(v);
    }
    pmt_trace_free(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("match");
    TCase *tc = tcase_create("all");
    tcase_add_test(tc, capture_then_substitute);
    tcase_add_test(tc, wildcards_regex_order);
    tcase_add_test(tc, recorded_tolerance);
    tcase_add_test(tc, runner_scenario);
    tcase_add_test(tc, runner_divergence);
    tcase_add_test(tc, runner_checks);
    tcase_add_test(tc, v2_roundtrip);
    tcase_add_test(tc, failure_marks_and_pause);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
