/* pmi2/jobconn, pmi2/kvsall: the draft's job-connect / job-disconnect and
 * kvs-getall / kvs-putall.  Optional (SPEC 1.3): a server without them
 * answers them as unknown commands (JOB-7) and is graded UNSUPPORTED; one
 * that closes, ends the job or never answers is graded by ERR-*.  Every
 * case is destructive: Hydra ends the job on them (M1), Slurm never
 * answers (S7).  They run on a victim rank alone, so nothing here fences. */
#include "pmi2_util.h"

/* The reply to a request this server may not know: 0 with *r, or -1 after
 * observing closed / no-answer / bad-response. */
static int reply_or_gone(pcf_ctx *c, const char *reply, p2r *r)
{
    pmc_msg m;
    pmc_error err;
    char b[300];
    pws_result w = pcf_recv(c, &m, &err);
    if (w == PWS_MSG) {
        if (!pmc_slice_eq(m.name, reply)) {
            pcf_observe(c, "wrong-response", "expected %s, got %s", reply,
                        pcf_show(&m, b, sizeof b));
            return -1;
        }
        p2_take(&m, r);
        return 0;
    }
    if (w == PWS_EOF) { /* whether the job also ended, rank 0 asks next */
        pcf_observe(c, "closed", "the server closed the connection instead of answering");
    } else if (w == PWS_TIMEOUT) {
        pcf_observe(c, "no-answer", "no %s within the deadline", reply);
    } else {
        char eb[PCF_ERR_TEXT];
        pcf_observe(c, "bad-response", "%s: %s", pws_result_name(w),
                    pcf_decode_error(c, &err, eb, sizeof eb));
    }
    return -1;
}

static void connect_unknown(pcf_ctx *c, const char *cmd)
{
    char reply[64], bogus[96];
    snprintf(reply, sizeof reply, "%s-response", cmd);
    snprintf(bogus, sizeof bogus, "pcf-no-such-job-%s", pcf_tag(c));
    pmc_enc e;
    p2r r;
    pmc_enc_begin(&e, PMC_WIRE_V2, cmd);
    pmc_enc_str(&e, "jobid", bogus);
    if (pcf_send(c, &e) || reply_or_gone(c, reply, &r))
        return;
    if (!p2_fail(&r)) {
        pcf_observe(c, "accepted", "%s of a job that does not exist answered %s", cmd, r.show);
        return;
    }
    /* an unknown-command answer and a refusal look alike; the text tells */
    const char *msg = r.errmsg;
    if (strstr(msg, "unknown") || strstr(msg, "not implemented") || strstr(msg, "unsupported"))
        pcf_observe(c, "unsupported", "%s is not implemented: %s", cmd, r.show);
    else
        pcf_observe(c, "ok", "refused: %s", r.show);
}

static void run_connect(pcf_ctx *c) { connect_unknown(c, "job-connect"); }
static void run_disconnect(pcf_ctx *c) { connect_unknown(c, "job-disconnect"); }

/* JOB-5: paircount, npair pairs, final; the harness's own control keys
 * (put and fenced by every rank before this case) are in the KVS. */
static void run_getall(pcf_ctx *c)
{
    char thrid[48];
    snprintf(thrid, sizeof thrid, "%s-ga", pcf_tag(c));
    pmc_enc e;
    p2r r;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-getall");
    pmc_enc_str(&e, "thrid", thrid);
    if (pcf_send(c, &e))
        return;
    pmc_msg m;
    pmc_error err;
    char b[300];
    pws_result w = pcf_recv(c, &m, &err);
    if (w == PWS_MSG && pmc_slice_eq(m.name, "kvs-getall-response")) {
        p2_take(&m, &r);
        if (p2_fail(&r))
            pcf_observe(c, "unsupported", "kvs-getall refused: %s", r.show);
        else
            pcf_observe(c, "no-paircount", "kvs-getall-response without the pair count: %s",
                        r.show);
        return;
    }
    if (w != PWS_MSG) {
        if (w == PWS_EOF) {
            pcf_observe(c, "closed", "the server closed the connection");
        } else if (w == PWS_TIMEOUT) {
            pcf_observe(c, "no-answer", "no answer to kvs-getall");
        } else {
            char eb[PCF_ERR_TEXT];
            pcf_observe(c, "bad-response", "%s", pcf_decode_error(c, &err, eb, sizeof eb));
        }
        return;
    }
    if (!pmc_slice_eq(m.name, "kvs-getall-paircount-response")) {
        pcf_observe(c, "wrong-response", "%s", pcf_show(&m, b, sizeof b));
        return;
    }
    long long npair = -1, rc = -1;
    if (pcf_rc(&m, &rc) != 1 || rc != 0 || pmc_msg_get_int(&m, "npair", &npair) != 1 ||
        npair < 0) {
        pcf_observe(c, "malformed", "%s", pcf_show(&m, b, sizeof b));
        return;
    }
    long long pairs = 0;
    bool ours = false;
    for (long long i = 0; i < npair; i++) {
        if (pcf_expect(c, "kvs-getall-pair-response", &m))
            return;
        char k[128];
        if (!pcf_get(&m, "key", k, sizeof k) || !pmc_msg_find(&m, "val")) {
            pcf_observe(c, "malformed", "pair %lld: %s", i, pcf_show(&m, b, sizeof b));
            return;
        }
        ours |= strncmp(k, "pcf-", 4) == 0;
        pairs++;
    }
    if (pcf_expect(c, "kvs-getall-response", &m))
        return;
    if (npair > 0 && !ours)
        pcf_observe(c, "incomplete", "%lld pairs, none of the job's own keys", npair);
    else
        pcf_observe(c, "ok", "%lld pairs, then kvs-getall-response", pairs);
}

/* JOB-6: kvs-putall;npair=3 then three kvs-putall-pair frames, one response. */
static void run_putall(pcf_ctx *c)
{
    char key[64];
    pmc_enc e;
    p2r r;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-putall");
    pmc_enc_int(&e, "npair", 3);
    if (pcf_send(c, &e))
        return;
    for (int i = 0; i < 3; i++) {
        snprintf(key, sizeof key, "%s-pa-r%d-%d", pcf_tag(c), pcf_rank(c), i);
        pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-putall-pair");
        pmc_enc_str(&e, "key", key);
        pmc_enc_str(&e, "val", "putall");
        if (pcf_send(c, &e))
            return;
    }
    if (reply_or_gone(c, "kvs-putall-response", &r))
        return;
    if (p2_fail(&r)) {
        pcf_observe(c, "unsupported", "kvs-putall refused: %s", r.show);
        return; /* the pair frame's own error answer is skipped by the harness */
    }
    if (!p2_ok(&r)) {
        pcf_observe(c, "malformed", "%s", r.show);
        return;
    }
    /* one response for the whole sequence: nothing more may follow */
    pws_result w = pws_wait_eof(pcf_session(c), pws_deadline_ms(500));
    if (w == PWS_MSG) {
        pmc_msg m;
        pmc_error err;
        char b[300];
        if (pcf_recv(c, &m, &err) == PWS_MSG) {
            pcf_observe(c, "extra-response", "after kvs-putall-response also %s",
                        pcf_show(&m, b, sizeof b));
            return;
        }
    }
    pcf_observe(c, "ok", "one kvs-putall-response;rc=0 for the sequence");
}

#define FEATURE_OUTCOMES                                                                         \
    { "unsupported", PCF_UNSUPPORTED, "JOB-7", "answered as an unknown command" },              \
    { "closed", PCF_DEVIATES, "ERR-7", "closed the connection instead of an unknown-command answer" }, \
    { "no-answer", PCF_FAIL, "ERR-3", "never answered (S7)" },                                   \
    { "job-killed", PCF_FAIL, "ERR-1", "the server ended the job (M1)" },                       \
    { "sender-killed", PCF_FAIL, "ERR-1", "the server ended the process" },                     \
    { "others-affected", PCF_FAIL, "ERR-2", "other connections stopped being served" }

static const pcf_case cases[] = {
    { .id = "pmi2/jobconn/connect-unknown-job",
      .desc = "job-connect to a job that does not exist is refused (or unknown to the server)",
      .clause = "ERR-11", .expected = "cmd=job-connect-response;rc!=0;errmsg=...;",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_connect,
      .outcomes = { FEATURE_OUTCOMES,
                    { "accepted", PCF_DEVIATES, NULL, "rc=0 for a job that does not exist" } } },
    { .id = "pmi2/jobconn/disconnect-unknown-job",
      .desc = "job-disconnect from a job that is not connected is refused",
      .clause = "JOB-4", .expected = "cmd=job-disconnect-response;rc!=0;...",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_disconnect,
      .outcomes = { FEATURE_OUTCOMES,
                    { "accepted", PCF_DEVIATES, NULL, "rc=0 although nothing was connected" } } },
    { .id = "pmi2/kvsall/getall",
      .desc = "kvs-getall answers paircount, npair pair frames and a final response",
      .clause = "JOB-5",
      .expected = "kvs-getall-paircount-response;npair=n, n kvs-getall-pair-response, kvs-getall-response",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_getall,
      .outcomes = { FEATURE_OUTCOMES } },
    { .id = "pmi2/kvsall/putall",
      .desc = "kvs-putall;npair=3 plus three kvs-putall-pair frames get one kvs-putall-response",
      .clause = "JOB-6", .expected = "one cmd=kvs-putall-response;rc=0;",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_putall,
      .outcomes = { FEATURE_OUTCOMES,
                    { "extra-response", PCF_DEVIATES, NULL, "more than one response to the sequence" } } },
};
PCF_CASES(cases)
