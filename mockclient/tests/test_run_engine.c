/* The scenario engine and the personas against a scripted fake server on a
 * socketpair: per-step results, unsolicited messages, mismatches, timeouts,
 * optional and unordered steps, raw bytes; persona wire shapes decoded with
 * the codec. */
#include "run.h"

#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* The fake server: after `after` more requests have arrived, write reply;
 * after = -1: close the connection now. */
typedef struct turn {
    int after;
    const char *reply;
} turn;

static pid_t fake_server(int fd, int other, const turn *turns, size_t n)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    close(other); /* else our own copy keeps the client's end open: no EOF */
    pmc_decoder *d = pmc_decoder_new(NULL);
    char buf[4096];
    int seen = 0, want = 0;
    for (size_t t = 0; t < n; t++) {
        if (turns[t].after < 0)
            _exit(0);
        want += turns[t].after;
        while (seen < want) {
            pmc_msg m;
            pmc_error e;
            int rc = pmc_decoder_next(d, &m, &e);
            if (rc == PMC_MSG) {
                seen++;
                continue;
            }
            if (rc == PMC_ERR && e.fatal)
                _exit(3);
            if (rc == PMC_ERR)
                continue;
            ssize_t k = read(fd, buf, sizeof buf);
            if (k <= 0)
                _exit(0);
            pmc_decoder_feed(d, buf, (size_t)k);
        }
        if (turns[t].reply && write(fd, turns[t].reply, strlen(turns[t].reply)) < 0)
            _exit(4);
    }
    while (read(fd, buf, sizeof buf) > 0)
        ;
    _exit(0);
}

typedef struct outcome {
    int rc;
    pmr_totals tot;
    char report[8192];
} outcome;

static void play(const char *scenario, const turn *turns, size_t n, pmr_unexpected un, outcome *o)
{
    pmt_trace t;
    pmt_error e;
    pmt_trace_init(&t);
    ck_assert_msg(pmt_parse(scenario, strlen(scenario), &t, &e) == 0, "%s", e.msg);
    int sv[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    pid_t pid = fake_server(sv[1], sv[0], turns, n);
    close(sv[1]);
    memset(o, 0, sizeof *o);
    FILE *rep = fmemopen(o->report, sizeof o->report - 1, "w");
    pmr_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.out = rep;
    opts.timeout_ms = 500;
    opts.optional_ms = 100;
    opts.unexpected = un;
    opts.order = true;
    pmr_run *r = pmr_run_new(&t, &opts);
    char err[256];
    ck_assert_int_eq(pmr_run_add(r, "r0", sv[0], 0, -1, false, err, sizeof err), 0);
    o->rc = pmr_run_play(r);
    pmr_run_totals(r, &o->tot);
    pmr_report_summary(&opts, &o->tot);
    pmr_run_free(r);
    fclose(rep);
    int st;
    waitpid(pid, &st, 0);
    pmt_trace_free(&t);
}

#define HEAD "# pmi-trace v2\n"
#define GETID "0.000000 r0 C>S msg v2 job-getid\n"

START_TEST(test_capture_and_reuse)
{
    static const turn turns[] = {
        { 1, "    37cmd=job-getid-response;jobid=J7;rc=0;" },
        { 1, "    45cmd=kvs-get-response;rc=0;found=TRUE;value=x;" },
    };
    outcome o;
    play(HEAD GETID "0.000000 r0 S>C msg v2 job-getid-response rc=0 jobid=${j}\n"
              "0.000000 r0 C>S msg v2 kvs-get jobid=${j} key=k\n"
              "0.000000 r0 S>C msg v2 kvs-get-response rc=0 found=TRUE value=x\n",
         turns, 2, PMR_UNEXP_WARN, &o);
    ck_assert_int_eq(o.rc, 0);
    ck_assert_uint_eq(o.tot.ok, 4);
    ck_assert_ptr_nonnull(strstr(o.report, "kvs-get jobid=J7 key=k"));
    ck_assert_ptr_nonnull(strstr(o.report, "PASS"));
}
END_TEST

START_TEST(test_unsolicited_is_ignored)
{
    /* a message nobody asked for arrives before the answer */
    static const turn turns[] = {
        { 1, "    35cmd=info-getnodeattr-response;rc=0;    37cmd=job-getid-response;jobid=J7;rc=0;" },
    };
    outcome o;
    play(HEAD GETID "0.000000 r0 S>C msg v2 job-getid-response rc=0 jobid=J7\n", turns, 1,
         PMR_UNEXP_WARN, &o);
    ck_assert_int_eq(o.rc, 0);
    ck_assert_uint_eq(o.tot.unexpected, 1);
    ck_assert_ptr_nonnull(strstr(o.report, "unsolicited"));
    play(HEAD GETID "0.000000 r0 S>C msg v2 job-getid-response rc=0 jobid=J7\n", turns, 1,
         PMR_UNEXP_FAIL, &o);
    ck_assert_int_eq(o.rc, 1);
}
END_TEST

START_TEST(test_mismatch_side_by_side)
{
    static const turn turns[] = { { 1, "    38cmd=job-getid-response;jobid=BAD;rc=0;" } };
    outcome o;
    play(HEAD GETID "0.000000 r0 S>C msg v2 job-getid-response rc=0 jobid=GOOD\n"
              "0.000000 r0 C>S msg v2 finalize\n",
         turns, 1, PMR_UNEXP_WARN, &o);
    ck_assert_int_eq(o.rc, 1);
    ck_assert_uint_eq(o.tot.failed, 1);
    ck_assert_uint_eq(o.tot.notrun, 1);
    ck_assert_ptr_nonnull(strstr(o.report, "MISMATCH"));
    ck_assert_ptr_nonnull(strstr(o.report, "jobid=GOOD"));
    ck_assert_ptr_nonnull(strstr(o.report, "jobid=BAD"));
    ck_assert_ptr_nonnull(strstr(o.report, "| actual"));
    ck_assert_ptr_nonnull(strstr(o.report, "FAIL"));
}
END_TEST

START_TEST(test_timeout)
{
    static const turn turns[] = { { 1, NULL } };
    outcome o;
    play(HEAD GETID "0.000000 r0 S>C timeout=150 msg v2 job-getid-response rc=0 ...\n", turns, 1,
         PMR_UNEXP_WARN, &o);
    ck_assert_int_eq(o.rc, 1);
    ck_assert_ptr_nonnull(strstr(o.report, "TIMEOUT"));
}
END_TEST

START_TEST(test_optional_and_unordered)
{
    static const turn turns[] = {
        { 2, "    34cmd=kvs-put-response;thrid=b;rc=0;    36cmd=kvs-fence-response;thrid=a;rc=0;" },
    };
    outcome o;
    play(HEAD "0.000000 r0 C>S msg v2 kvs-fence thrid=a\n"
              "0.000000 r0 C>S msg v2 kvs-put thrid=b key=k value=v\n"
              "0.000000 r0 S>C optional msg v2 info-getnodeattr-response ...\n"
              "0.000000 r0 S>C unordered msg v2 kvs-fence-response thrid=a rc=0\n"
              "0.000000 r0 S>C unordered msg v2 kvs-put-response thrid=b rc=0\n"
              "0.000000 r0 S>C optional timeout=50 msg v2 job-getid-response ...\n",
         turns, 1, PMR_UNEXP_WARN, &o);
    ck_assert_int_eq(o.rc, 0);
    ck_assert_uint_eq(o.tot.ok, 4);
    ck_assert_uint_eq(o.tot.skipped, 2);
}
END_TEST

START_TEST(test_raw_and_eof)
{
    static const turn turns[] = { { 1, "cmd=junk\x01\n" }, { -1, NULL } };
    outcome o;
    play(HEAD "0.000000 r0 C>S split=2,5 delay=5 raw \"    14cmd=job-getid;\"\n"
              "0.000000 r0 S>C raw \"cmd=junk\\x01\\n\"\n"
              "0.000000 r0 eof S\n",
         turns, 2, PMR_UNEXP_WARN, &o);
    ck_assert_msg(o.rc == 0, "%s", o.report);
    ck_assert_uint_eq(o.tot.ok, 3);
}
END_TEST

static void persona_msg(const char *persona, const char *wire_in, int id, const char *jobid,
                        pmc_out *out)
{
    const pmr_persona *p = pmr_persona_get(persona);
    ck_assert_ptr_nonnull(p);
    pmc_decoder *d = pmc_decoder_new(NULL);
    pmc_decoder_feed(d, wire_in, strlen(wire_in));
    pmc_msg m;
    pmc_error e;
    ck_assert_int_eq(pmc_decoder_next(d, &m, &e), PMC_MSG);
    pmr_persona_ctx c = { .rank = 0, .id = id, .jobid = jobid };
    ck_assert_int_eq(pmr_persona_rewrite(p, &m, &c, out, &e), 0);
    pmc_decoder_free(d);
}

static const char *FULLINIT = "    69cmd=fullinit;pmi-version=2;pmi-subversion=0;pmirank=3;threaded=FALSE;";

START_TEST(test_persona_mpich40_frames)
{
    pmc_out o = { 0 };
    persona_msg("mpich-4.0-pmi2", FULLINIT, -1, "kvs_1", &o);
    static const char want[] = "59    cmd=fullinit;pmijobid=kvs_1;pmirank=3;threaded=FALSE;\0\0\0\0\0\0";
    ck_assert_uint_eq(o.len, sizeof want - 1);
    ck_assert_int_eq(memcmp(o.buf, want, o.len), 0);
    /* the codec sees exactly the 4.0.2 client's defect B1 */
    pmc_decoder *d = pmc_decoder_new(NULL);
    pmc_decoder_feed(d, o.buf, o.len);
    pmc_msg m;
    pmc_error e;
    ck_assert_int_eq(pmc_decoder_next(d, &m, &e), PMC_MSG);
    ck_assert(m.notes & PMC_NOTE_LEN_LEFT);
    ck_assert(m.notes & PMC_NOTE_TRAILING_JUNK);
    pmc_decoder_free(d);
    /* info-getnodeattr always carries wait=, thrid goes first */
    pmc_out_reset(&o);
    persona_msg("mpich-4.0-client", "    35cmd=info-getnodeattr;key=k;thrid=7;", -1, NULL, &o);
    ck_assert_ptr_nonnull(memmem(o.buf, o.len, "cmd=info-getnodeattr;thrid=7;key=k;wait=FALSE;", 46));
    pmc_out_free(&o);
}
END_TEST

START_TEST(test_persona_mpich5_and_slurm)
{
    pmc_out o = { 0 };
    persona_msg("mpich-5-pmi2", FULLINIT, -1, "kvs_1", &o);
    ck_assert_uint_eq(o.len, strlen("    23cmd=fullinit;pmirank=3;"));
    ck_assert_int_eq(memcmp(o.buf, "    23cmd=fullinit;pmirank=3;", o.len), 0);
    pmc_out_reset(&o);
    persona_msg("mpich-5-pmi2", "    35cmd=kvs-get;thrid=9;srcid=-1;key=k;", -1, NULL, &o);
    ck_assert_int_eq(memcmp(o.buf, "    26cmd=kvs-get;key=k;thrid=9;", o.len), 0);
    pmc_out_reset(&o);
    persona_msg("slurm-pmi2", FULLINIT, 3, "6.0", &o);
    static const char s1[] = "49    cmd=fullinit;pmijobid=6.0;srcid=3;threaded=FALSE;";
    ck_assert_uint_eq(o.len, sizeof s1 - 1);
    ck_assert_int_eq(memcmp(o.buf, s1, o.len), 0);
    pmc_out_reset(&o);
    persona_msg("slurm-client", "    22cmd=kvs-get;key=lib-1;", -1, "6.0", &o);
    static const char s2[] = "41    cmd=kvs-get;jobid=6.0;srcid=-1;key=lib-1;";
    ck_assert_int_eq(memcmp(o.buf, s2, sizeof s2 - 1), 0); /* libpmi2-strace-rank0.txt */
    pmc_out_reset(&o);
    persona_msg("slurm-pmi2", "    23cmd=name-lookup;name=s;", -1, NULL, &o);
    ck_assert_ptr_nonnull(memmem(o.buf, o.len, "infokeycount=0;", 15));
    pmc_out_reset(&o);
    persona_msg("mpich-4.0-pmi1", "cmd=get key=k kvsname=K\n", -1, NULL, &o);
    ck_assert_int_eq(memcmp(o.buf, "cmd=get kvsname=K key=k\n", o.len), 0);
    pmc_out_free(&o);
}
END_TEST

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    Suite *s = suite_create("run_engine");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 20);
    tcase_add_test(tc, test_capture_and_reuse);
    tcase_add_test(tc, test_unsolicited_is_ignored);
    tcase_add_test(tc, test_mismatch_side_by_side);
    tcase_add_test(tc, test_timeout);
    tcase_add_test(tc, test_optional_and_unordered);
    tcase_add_test(tc, test_raw_and_eof);
    tcase_add_test(tc, test_persona_mpich40_frames);
    tcase_add_test(tc, test_persona_mpich5_and_slurm);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
