/* A process that leaves without finalize while the others wait in a fence
 * (PMI-2 kvs-fence) or a PMI-1 barrier (barrier_in): FENCE-9.  The last
 * rank closes its PMI connection and stays alive, so that only the server's
 * answer is graded: a launcher that ends the job when that process exits
 * would otherwise answer for a server that left the others waiting. */
#include "damage.h"
#include "pcf.h"

#include <stdio.h>
#include <sys/socket.h>

/* The others are in their fence LEAVE_MS after the round that starts the
 * case; a server that sees the end of a connection has WAIT_MS to answer. */
enum { LEAVE_MS = 500, WAIT_MS = 6000, STAY_MS = 40000 };

/* Rank 0 records the case after its control exchange, which a server that
 * leaves fences waiting (or counts the stale ones) holds well past WAIT_MS:
 * the other ranks stay out of it until the job ends, or until rank 0 has
 * recorded (the orchestrator tells them), so that neither the end of the
 * leaving process nor the others' failed exchanges end the job before
 * rank 0 has recorded what it saw. */
static void stay(pcf_ctx *c)
{
    if (pcf_rank(c) != 0)
        pcf_stay_ms(c, STAY_MS);
}

static void run_rank_exits(pcf_ctx *c)
{
    bool v1 = pcf_pmi_version(c) == 1;
    const char *req = v1 ? "barrier_in" : "kvs-fence";
    const char *rsp = v1 ? "barrier_out" : "kvs-fence-response";
    if (pcfd_collective_start(c) != 0)
        return;
    int leaver = pcf_size(c) - 1;
    if (pcf_rank(c) == leaver) {
        pcf_pause_ms(c, LEAVE_MS);
        pcf_note(c, "rank %d closes its PMI connection without finalize; the process stays", leaver);
        shutdown(pws_fd(pcf_session(c)), SHUT_RDWR);
        pcf_observe(c, "ok", "closed its connection without finalize %d ms after the round",
                    LEAVE_MS);
        stay(c);
        return;
    }
    pmc_enc e;
    pmc_enc_begin(&e, v1 ? PMC_WIRE_V1 : PMC_WIRE_V2, req);
    uint64_t t0 = pws_now_usec();
    if (pcf_send(c, &e) != 0)
        return;
    uint64_t dl = pws_deadline_ms(LEAVE_MS + WAIT_MS);
    char what[160];
    snprintf(what, sizeof what, "rank %d closed its PMI connection without finalize (its process "
             "still running) about %.1f s after this rank sent %s", leaver, LEAVE_MS / 1000.0, req);
    for (;;) {
        pmc_msg m;
        pmc_error err;
        char b[200];
        pws_result r = pws_recv(pcf_session(c), dl, &m, &err);
        double s = (double)(pws_now_usec() - t0) / 1e6;
        if (r == PWS_MSG && !pmc_slice_eq(m.name, rsp))
            continue; /* a late answer to something else */
        if (r == PWS_MSG) {
            long long rc = 0;
            int got = pcf_rc(&m, &rc); /* RC-3: a barrier_out without rc is a success */
            bool success = v1 ? got == 0 || (got == 1 && rc == 0) : got == 1 && rc == 0;
            pcf_show(&m, b, sizeof b);
            if (success)
                pcf_observe(c, "completed", "%s; %.1f s after %s it was answered as completed: %s",
                            what, s, req, b);
            else
                pcf_observe(c, "refused", "%s; %.1f s after %s: %s", what, s, req, b);
            stay(c);
            return;
        }
        if (r == PWS_EOF)
            pcf_observe(c, "closed", "%s; %.1f s after %s the server closed this connection", what,
                        s, req);
        else if (r == PWS_TIMEOUT)
            pcf_observe(c, "left-waiting", "%s; no answer to %s in %.1f s (a server that watches "
                        "only processes, or keeps its own copy of the connection (CONN-7), "
                        "does not see it leave)", what, req, s);
        else
            pcf_observe(c, "bad-response", "%s; then %s", what, pws_result_name(r));
        stay(c);
        return;
    }
}

#define OUTCOMES                                                                                 \
    { { "refused", PCF_PASS, "FENCE-8", "the waiting processes were answered rc!=0" },          \
      { "closed", PCF_PASS, "CONN-6", "the server closed the waiting connections: the job ends" }, \
      { "job-killed", PCF_PASS, "CONN-6", "the job ended" },                                    \
      { "completed", PCF_FAIL, NULL, "answered as completed without the process that left" },  \
      { "left-waiting", PCF_FAIL, NULL, "the waiting processes were left waiting" } }

/* What explain prints: the same steps, either protocol. */
#define STEPS(req, rsp)                                                                          \
    "Every rank takes part (a launch of its own); after a control round they start together.\n"  \
    "The last rank waits 0.5 s, then closes its PMI connection without finalize; its process "   \
    "stays alive, so that only the server's answer is graded.\n"                                 \
    "Every other rank sends " req " and waits up to 6 s for " rsp ".\n"                          \
    rsp " with rc != 0 passes (FENCE-9); so does the end of the job or of the waiting "            \
    "connections (CONN-6).\n"                                                                    \
    rsp " with rc=0 is \"completed\" and no answer is \"left-waiting\": both FAIL."

static const pcf_case cases[] = {
    { .id = "pmi2/fence/rank-exits",
      .desc = "a rank closes its connection without finalize while the others wait in kvs-fence",
      .clause = "FENCE-9",
      .expected = "kvs-fence-response with rc!=0 to every waiting rank, or the job ends; never a "
                  "wait, never rc=0",
      .steps = STEPS("kvs-fence", "kvs-fence-response"),
      .flags = PCF_V2 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .min_ranks = 2,
      .timeout_ms = LEAVE_MS + WAIT_MS + 4000, .run = run_rank_exits, .outcomes = OUTCOMES },
    { .id = "pmi1/barrier/rank-exits",
      .desc = "a rank closes its connection without finalize while the others wait in barrier_in",
      .clause = "FENCE-9",
      .expected = "barrier_out with rc!=0 to every waiting rank, or the job ends; never a wait, "
                  "never a barrier_out of success",
      .steps = STEPS("barrier_in", "barrier_out"),
      .flags = PCF_V1 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .min_ranks = 2,
      .timeout_ms = LEAVE_MS + WAIT_MS + 4000, .run = run_rank_exits, .outcomes = OUTCOMES },
};
PCF_CASES(cases)
