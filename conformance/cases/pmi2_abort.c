/* pmi2/abort, pmi2/finalize: the requests that end things.  abort with
 * isworld=FALSE may end the caller but not the job and gets no response;
 * abort of the world (isworld=TRUE, or Hydra 4.1's exitcode-only form) must
 * end every process: those run as a launch of their own in which every rank
 * takes part, rank 1 aborting and the others waiting for the end.
 * finalize is answered, then the connection ends. */
#include "pmi2_util.h"

enum { SETTLE_MS = 2000 };

/* isworld=FALSE on a victim rank: no response, and the job goes on (the
 * runner checks rank 0's connection afterwards, ERR-2). */
static void run_abort_self(pcf_ctx *c)
{
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "abort");
    pmc_enc_bool(&e, "isworld", false);
    pmc_enc_int(&e, "exitcode", 3);
    pmc_enc_str(&e, "msg", "pcf-abort-self");
    pmc_enc_str(&e, "message", "pcf-abort-self");
    if (pcf_send(c, &e))
        return;
    /* No response may come, so ask: a job-getid right behind the abort.  A
     * response to the abort arrives before its answer; a server that ends
     * the caller closes the connection instead; whether the job goes on,
     * rank 0 asks next (ERR-2). */
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    if (pws_send_enc(pcf_session(c), &e, &pmc_dialect_strict, pcf_deadline(c), NULL) != 0) {
        pcf_observe(c, "caller-ended", "the server closed the caller's connection (ABORT-5 "
                                       "allows it)");
        return;
    }
    pmc_msg m;
    pmc_error err;
    char b[300];
    pws_result w = pcf_recv(c, &m, &err);
    if (w == PWS_MSG && pmc_slice_eq(m.name, "job-getid-response")) {
        pcf_show(&m, b, sizeof b);
        /* The requirement is about time: the job goes on after the abort.
         * A server that ends it anyway does so on its own schedule (Hydra:
         * the proxy tells mpiexec, which kills every proxy), so the job
         * gets SETTLE_MS to end (this rank then dies inside the case); a
         * close of this connection in that time ends the wait. */
        uint64_t now = pws_now_usec(), end = pcf_deadline(c);
        uint64_t settle = end > now ? (end - now) / 2 : 0;
        if (settle > pcf_wait_ms(c, SETTLE_MS) * 1000ull)
            settle = pcf_wait_ms(c, SETTLE_MS) * 1000ull;
        if (pws_wait_eof(pcf_session(c), now + settle) == PWS_EOF) {
            pcf_pause_ms(c, SETTLE_MS); /* a server ending the job gets to do it first */
            pcf_observe(c, "caller-ended", "after the abort the server closed the caller's "
                                           "connection (ABORT-5 allows it)");
        } else {
            pcf_observe(c, "ok", "no response, the connection still serves: %s; the job "
                                 "still runs %u ms later", b, pcf_wait_ms(c, SETTLE_MS));
        }
    } else if (w == PWS_MSG)
        pcf_observe(c, "responded", "abort was answered: %s", pcf_show(&m, b, sizeof b));
    else if (w == PWS_EOF || w == PWS_IOERR)
        pcf_observe(c, "caller-ended", "the server closed the caller's connection (ABORT-5 "
                                       "allows it)");
    else if (w == PWS_TIMEOUT)
        pcf_observe(c, "no-answer", "neither the connection closed nor job-getid was answered");
    else {
        char eb[PCF_ERR_TEXT];
        pcf_observe(c, "bad-response", "%s", pcf_decode_error(c, &err, eb, sizeof eb));
    }
}

/* Rank 1 aborts the world (with exitcode 7, or `code` when given); every
 * rank must see its connection end. */
static void world_code(pcf_ctx *c, bool with_isworld, const char *code)
{
    /* every rank, rank 0 included, is inside the case (and rank 0 has
     * recorded its start) before anything ends */
    if (p2_together(c))
        return;
    if (pcf_rank(c) == 1) {
        pmc_enc e;
        pmc_enc_begin(&e, PMC_WIRE_V2, "abort");
        if (with_isworld)
            pmc_enc_bool(&e, "isworld", true);
        if (code)
            pmc_enc_str(&e, "exitcode", code);
        else
            pmc_enc_int(&e, "exitcode", 7);
        pmc_enc_str(&e, "msg", "pcf-abort-world");
        pmc_enc_str(&e, "message", "pcf-abort-world");
        if (pcf_send(c, &e))
            return;
    }
    pws_result w = pws_wait_eof(pcf_session(c), pcf_deadline(c));
    if (w == PWS_EOF) {
        /* the launcher is about to kill this process; if it does not, the
         * case is over anyway */
        pcf_pause_ms(c, SETTLE_MS);
        pcf_observe(c, "connection-ended", "the connection ended after the abort");
    } else if (w == PWS_MSG) {
        pmc_msg m;
        pmc_error err;
        char b[300];
        if (pcf_recv(c, &m, &err) == PWS_MSG)
            pcf_observe(c, "responded", "a message after the abort: %s", pcf_show(&m, b, sizeof b));
    } else {
        pcf_observe(c, "survived", "rank %d still runs with an open connection", pcf_rank(c));
    }
}

static void run_abort_world(pcf_ctx *c) { world_code(c, true, NULL); }
static void run_abort_exitcode(pcf_ctx *c) { world_code(c, false, NULL); }
static void run_abort_junk(pcf_ctx *c) { world_code(c, true, "pcfjunk"); }

static void finalize(pcf_ctx *c, bool thrid)
{
    char t[48];
    snprintf(t, sizeof t, "%s-fin", pcf_tag(c));
    pmc_enc e;
    p2r r;
    pmc_enc_begin(&e, PMC_WIRE_V2, "finalize");
    if (thrid)
        pmc_enc_str(&e, "thrid", t);
    if (p2_call(c, &e, "finalize-response", &r))
        return;
    if (!p2_ok(&r)) {
        pcf_observe(c, "failed", "%s", r.show);
        return;
    }
    if (thrid && (!r.has_thrid || strcmp(r.thrid, t) != 0)) {
        pcf_observe(c, "thrid-missing", "%s", r.show);
        return;
    }
    pws_result w = pws_wait_eof(pcf_session(c), pws_deadline_ms(SETTLE_MS));
    if (w == PWS_EOF)
        pcf_observe(c, "ok", "%s, then end of stream", r.show);
    else if (w == PWS_MSG)
        pcf_observe(c, "extra-message", "a message after finalize-response");
    else
        pcf_observe(c, "kept-open", "%s, the connection stays open", r.show);
}

static void run_finalize(pcf_ctx *c) { finalize(c, false); }
static void run_finalize_thrid(pcf_ctx *c) { finalize(c, true); }

static const pcf_case cases[] = {
    { .id = "pmi2/abort/self",
      .desc = "abort with isworld=FALSE gets no response and leaves the other processes running",
      .clause = "ABORT-5",
      .expected = "no response; the caller may be ended, the job goes on",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_abort_self,
      .outcomes = { { "caller-ended", PCF_PASS, NULL, "only the caller was ended" },
                    { "sender-killed", PCF_PASS, NULL, "only the caller was ended" },
                    { "responded", PCF_DEVIATES, "ABORT-3", "abort was answered" },
                    { "job-killed", PCF_DEVIATES, "ABORT-5", "isworld=FALSE ended the whole job" },
                    { "others-affected", PCF_FAIL, "ERR-2", "the other connections stopped" } } },
    { .id = "pmi2/abort/world",
      .desc = "abort with isworld=TRUE ends every process of the job",
      .clause = "ABORT-4", .expected = "no response; the job ends (exit code 7)",
      .flags = PCF_V2 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .min_ranks = 2, .run = run_abort_world,
      .outcomes = { { "job-killed", PCF_PASS, NULL, "the job ended" },
                    { "connection-ended", PCF_PASS, NULL, "the job's connections ended" },
                    { "sender-killed", PCF_PASS, NULL, "the processes were ended" },
                    { "responded", PCF_DEVIATES, "ABORT-3", "abort was answered" },
                    { "survived", PCF_DEVIATES, NULL, "a process outlived the abort" } } },
    { .id = "pmi2/abort/exitcode-only",
      .desc = "abort without isworld (exitcode and message only, MPICH 4.1+) ends the job",
      .clause = "ABORT-4", .expected = "no response; the job ends",
      .flags = PCF_V2 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .min_ranks = 2,
      .run = run_abort_exitcode,
      .outcomes = { { "job-killed", PCF_PASS, NULL, "the job ended" },
                    { "connection-ended", PCF_PASS, NULL, "the job's connections ended" },
                    { "sender-killed", PCF_PASS, NULL, "the processes were ended" },
                    { "responded", PCF_DEVIATES, "ABORT-3", "abort was answered" },
                    { "survived", PCF_DEVIATES, NULL, "a process outlived the abort" } } },
    { .id = "pmi2/abort/exitcode-junk",
      .desc = "abort with isworld=TRUE and exitcode=pcfjunk ends the job, never with status 0",
      .clause = "ABORT-10", .expected = "no response; the job ends with exit status 1 (never 0)",
      .flags = PCF_V2 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .min_ranks = 2, .run = run_abort_junk,
      .outcomes = { { "exit-1", PCF_PASS, NULL, "the job ended with exit status 1" },
                    { "exit-0", PCF_DEVIATES, NULL, "the aborted job ended with exit status 0" },
                    { "exit-other", PCF_DEVIATES, "ABORT-6",
                      "the job ended with a status other than 1" },
                    { "connection-ended", PCF_PASS, NULL, "the job's connections ended" },
                    { "responded", PCF_DEVIATES, "ABORT-3", "abort was answered" },
                    { "survived", PCF_DEVIATES, "ABORT-4", "a process outlived the abort" } } },
    { .id = "pmi2/finalize/response",
      .desc = "finalize is answered rc=0, then the connection ends",
      .clause = "FINALIZE-1", .expected = "cmd=finalize-response;rc=0; then end of stream",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_finalize,
      .outcomes = { { "kept-open", PCF_INFO, NULL, "answered; the connection stays open" },
                    { "extra-message", PCF_DEVIATES, NULL, "more after finalize-response" },
                    { "job-killed", PCF_FAIL, "ERR-1", "the job ended" } } },
    { .id = "pmi2/finalize/thrid",
      .desc = "finalize-response echoes the request's thrid",
      .clause = "THRID-4", .expected = "cmd=finalize-response;thrid=<t>;rc=0;",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_finalize_thrid,
      .outcomes = { { "kept-open", PCF_PASS, NULL, "answered; the connection stays open" },
                    { "job-killed", PCF_FAIL, "ERR-1", "the job ended" } } },
};
PCF_CASES(cases)
