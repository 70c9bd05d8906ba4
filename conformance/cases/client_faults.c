/* Client cases: how a client copes with a misbehaving or different server:
 * delayed, split, reordered, refused and unsolicited responses, a dropped
 * connection, each persona's dialect, concurrent threads, PMI-1 calls. */
#include "client.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define F(...) ((pms_fault){ .rank = -1, __VA_ARGS__ })

static const pcf_crun *run1(pcf_ctx *c, const char *persona, const char *scr, int np,
                            pms_fault f)
{
    pcf_cspec s = { .persona = persona, .script = scr, .np = np, .nfaults = f.kind ? 1 : 0 };
    s.faults[0] = f;
    return pcf_client_run(c, &s);
}

static int rc_of(pcf_ctx *c, const pcf_crun *r, int rank, const char *call, long *rc)
{
    return pcf_crc_of(c, r, rank, call, rc, "hang");
}

/* The program (any program) ended on its own, every rank exit 0. */
static void grade_finished(pcf_ctx *c, const pcf_crun *r, const char *what)
{
    char b[100];
    if (!r || pcf_cserver_ended(c, r, false))
        return;
    if (r->timed_out) {
        pcf_observe(c, "hang", "%s: the program was still running at the deadline", what);
        return;
    }
    for (int k = 0; k < r->np; k++)
        if (!WIFEXITED(r->ranks[k].status) || WEXITSTATUS(r->ranks[k].status) != 0) {
            pcf_observe(c, "failed", "%s: rank %d %s; stderr: %.200s", what, k,
                        pcf_cstatus(r, k, b, sizeof b), r->ranks[k].err);
            return;
        }
    if (r->spec.nfaults && r->fired[0] <= 0) {
        /* the program never got that far: its init failed (a dialect persona) */
        if (pcf_cinit_failed(c, r, 0, r->proto == 1 ? "PMI_KVS_Get" : "PMI2_KVS_Get"))
            return;
        pcf_observe(c, "harness-error", "%s: the fault never applied", what);
        return;
    }
    pcf_observe(c, "ok", "%s: every rank finished and exited 0", what);
}

/* The program ended (any status) before the deadline, without a crash signal. */
static void grade_no_hang(pcf_ctx *c, const pcf_crun *r, const char *what)
{
    char b[100];
    if (!r || pcf_cserver_ended(c, r, false))
        return;
    if (r->timed_out) {
        pcf_observe(c, "hang", "%s: the program was still running at the deadline", what);
        return;
    }
    if (r->aborted) {
        pcf_observe(c, "ok", "%s: the program aborted the job", what);
        return;
    }
    for (int k = 0; k < r->np; k++)
        if (WIFSIGNALED(r->ranks[k].status) && WTERMSIG(r->ranks[k].status) != 9 &&
            WTERMSIG(r->ranks[k].status) != 15) {
            /* death by SIGPIPE: a write to the closed connection (ERR-20) */
            pcf_observe(c, WTERMSIG(r->ranks[k].status) == SIGPIPE ? "sigpipe" : "crashed",
                        "%s: rank %d %s", what, k, pcf_cstatus(r, k, b, sizeof b));
            return;
        }
    pcf_observe(c, "ok", "%s: the program ended by itself (rank 0 %s)", what,
                pcf_cstatus(r, 0, b, sizeof b));
}

/* ---------------------------------------------------------------- any program */

static void run_delay(pcf_ctx *c)
{
    grade_finished(c, run1(c, NULL, NULL, 1, F(.kind = PMS_FAULT_DELAY, .nth = 3, .delay_ms = 700)),
                   "third response 700 ms late");
}

static void run_delay_all(pcf_ctx *c)
{
    grade_finished(c, run1(c, NULL, NULL, 1, F(.kind = PMS_FAULT_DELAY, .delay_ms = 30)),
                   "every response 30 ms late");
}

static void run_split(pcf_ctx *c)
{
    grade_finished(c, run1(c, NULL, NULL, 1,
                           F(.kind = PMS_FAULT_SPLIT, .nth = 2, .offset = 9, .delay_ms = 300)),
                   "second response in two writes, 300 ms apart");
}

static void run_split_early(pcf_ctx *c)
{
    grade_finished(c, run1(c, NULL, NULL, 1,
                           F(.kind = PMS_FAULT_SPLIT, .offset = 3, .delay_ms = 20)),
                   "every response split after 3 bytes");
}

static void run_split_bytes(pcf_ctx *c)
{
    pcf_cspec s = { .np = 1, .nfaults = 2 };
    s.faults[0] = F(.kind = PMS_FAULT_SPLIT, .nth = 1, .offset = 1, .delay_ms = 100);
    s.faults[1] = F(.kind = PMS_FAULT_SPLIT, .nth = 2, .offset = 20, .delay_ms = 100);
    grade_finished(c, pcf_client_run(c, &s), "first responses split after 1 and 20 bytes");
}

static void run_drop(pcf_ctx *c)
{
    grade_no_hang(c, run1(c, NULL, NULL, 1, F(.kind = PMS_FAULT_DROP, .nth = 3)),
                  "connection closed instead of the third response");
}

static void run_drop_init(pcf_ctx *c)
{
    grade_no_hang(c, run1(c, NULL, NULL, 1, F(.kind = PMS_FAULT_DROP, .nth = 1)),
                  "connection closed instead of response_to_init");
}

static void run_init_refused(pcf_ctx *c)
{
    const pcf_crun *r = run1(c, NULL, NULL, 1,
                             F(.kind = PMS_FAULT_ERROR, .cmd = "init", .rc = 1,
                               .errmsg = "version refused"));
    if (!r)
        return;
    char b[100], names[300];
    if (r->aborted) {
        pcf_observe(c, "ok", "the client aborted after the refusal (%s)",
                    pcf_creq_names(r, 0, names, sizeof names));
        return;
    }
    if (r->timed_out) {
        pcf_observe(c, "hang", "the program hung after a refused init; it sent: %s; stderr: "
                    "%.200s", pcf_creq_names(r, 0, names, sizeof names), r->ranks[0].err);
        return;
    }
    if (pcf_creq_count(r, 0, NULL) > 1 &&
        (pcf_creq_count(r, 0, "fullinit") || pcf_creq_count(r, 0, "get_maxes") ||
         pcf_creq_count(r, 0, "kvs-put") || pcf_creq_count(r, 0, "put"))) {
        pcf_observe(c, "went-on", "the client used the connection after response_to_init rc=1 "
                    "(%zu requests)", pcf_creq_count(r, 0, NULL));
        return;
    }
    pcf_observe(c, "ok", "the client stopped after the refusal (%s)",
                pcf_cstatus(r, 0, b, sizeof b));
}

/* ---------------------------------------------------------------- PMI-2 driver */

static void run_fullinit_refused(pcf_ctx *c)
{
    const pcf_crun *r = run1(c, NULL, "init", 1,
                             F(.kind = PMS_FAULT_ERROR, .cmd = "fullinit", .rc = 1));
    long rc;
    /* a server that ends the job when the connection closes (Hydra, CONN-6)
     * may kill the program before it prints PMI2_Init's result: a close
     * right after the refusal, with nothing sent, is the program giving up */
    if (r && !pcf_crc(r, 0, "PMI2_Init", &rc) && r->ranks[0].eof &&
        pcf_creq_count(r, 0, NULL) == pcf_creq_count(r, 0, "init") + 1 &&
        pcf_creq_count(r, 0, "fullinit") == 1) {
        pcf_observe(c, "ok", "the program closed its connection after the refusal, sending "
                    "nothing more (the %s server then ended the job before it printed "
                    "PMI2_Init's result)", r->persona);
        return;
    }
    if (!r || rc_of(c, r, 0, "PMI2_Init", &rc))
        return;
    if (rc == 0)
        pcf_observe(c, "accepted", "PMI2_Init succeeded on fullinit-response rc=1");
    else
        pcf_observe(c, "ok", "PMI2_Init failed (rc=%ld)", rc);
}

static void run_get_error(pcf_ctx *c)
{
    const pcf_crun *r = run1(c, NULL, NULL, 1,
                             F(.kind = PMS_FAULT_ERROR, .cmd = "kvs-get", .nth = 1, .rc = 14,
                               .errmsg = "injected failure"));
    long rc;
    if (!r || rc_of(c, r, 0, "PMI2_KVS_Get", &rc))
        return;
    if (rc == 0)
        pcf_observe(c, "success", "kvs-get-response rc=14 (no value) returned success");
    else if (!pcf_cended(r, 0))
        pcf_observe(c, "stopped", "the program did not go on after the error");
    else
        pcf_observe(c, "ok", "the error failed the call (rc=%ld); later calls went on", rc);
}

static void run_rc_meaning(pcf_ctx *c)
{
    long rc1, rc2;
    const pcf_crun *a = run1(c, NULL, NULL, 1,
                             F(.kind = PMS_FAULT_ERROR, .cmd = "kvs-put", .nth = 1, .rc = 1));
    if (!a || rc_of(c, a, 0, "PMI2_KVS_Put", &rc1))
        return;
    const pcf_crun *b = run1(c, NULL, NULL, 1,
                             F(.kind = PMS_FAULT_ERROR, .cmd = "kvs-put", .nth = 1, .rc = 77));
    if (!b || rc_of(c, b, 0, "PMI2_KVS_Put", &rc2))
        return;
    if (rc1 == 0 || rc2 == 0)
        pcf_observe(c, "differs", "rc=1 gave %ld, rc=77 gave %ld", rc1, rc2);
    else
        pcf_observe(c, "ok", "both failed the call (%ld, %ld)", rc1, rc2);
}

static void run_fence_fail(pcf_ctx *c)
{
    const pcf_crun *r = run1(c, NULL, NULL, 1, F(.kind = PMS_FAULT_FAIL_FENCE, .nth = 1));
    long rc;
    if (!r || rc_of(c, r, 0, "PMI2_KVS_Fence", &rc))
        return;
    if (rc == 0)
        pcf_observe(c, "success", "kvs-fence-response rc=1 returned success");
    else
        pcf_observe(c, "ok", "the failed fence failed the call (rc=%ld)", rc);
}

/* The driver's PMI2_KVS_Get of the peer's key "pcf-k<rank>" (not the gets
 * of the other report lines: one late answer is the case, not four). */
static bool graded_get(void *ctx, int conn, int rank, const pmc_msg *m)
{
    (void)ctx;
    (void)conn;
    (void)rank;
    pmc_slice k;
    return pmc_msg_get(m, "key", &k) && k.len > 5 && memcmp(k.ptr, "pcf-k", 5) == 0;
}

static void run_get_delay(pcf_ctx *c)
{
    const pcf_crun *r = run1(c, NULL, NULL, 1,
                             F(.kind = PMS_FAULT_DELAY, .cmd = "kvs-get", .delay_ms = 800,
                               .accept = graded_get));
    long rc;
    if (!r || rc_of(c, r, 0, "PMI2_KVS_Get", &rc))
        return;
    if (r->fired[0] <= 0) {
        pcf_observe(c, "harness-error", "no kvs-get of the key pcf-k0 was delayed");
        return;
    }
    if (rc == 0 && pcf_chex_is(r, 0, "PMI2_KVS_Get", "v0"))
        pcf_observe(c, "ok", "PMI2_KVS_Get waited 800 ms and returned the value");
    else
        pcf_observe(c, "gave-up", "rc=%ld on a response 800 ms late", rc);
}

static void run_get_split(pcf_ctx *c)
{
    const pcf_crun *r = run1(c, NULL, NULL, 1,
                             F(.kind = PMS_FAULT_SPLIT, .cmd = "kvs-get", .nth = 1, .offset = 30,
                               .delay_ms = 300));
    long rc;
    if (!r || rc_of(c, r, 0, "PMI2_KVS_Get", &rc))
        return;
    if (rc == 0 && pcf_chex_is(r, 0, "PMI2_KVS_Get", "v0"))
        pcf_observe(c, "ok", "the value arrived in two pieces and was read whole");
    else
        pcf_observe(c, "wrong", "rc=%ld on a response split after 30 bytes", rc);
}

static pms_fault unsolicited(const void *p, size_t n, const char *cmd, bool after)
{
    return F(.kind = PMS_FAULT_UNSOLICITED, .cmd = cmd, .nth = 1, .data = p, .len = n,
             .after = after);
}

/* The first request of rank k after its first request named name (NULL: none). */
static const pcf_creq *request_after(const pcf_crun *r, int k, const char *name)
{
    bool seen = false;
    for (size_t i = 0; i < r->nreq; i++) {
        const pcf_creq *q = &r->req[i];
        if (q->rank != k)
            continue;
        if (seen)
            return q;
        seen = strcmp(q->name, name) == 0;
    }
    return NULL;
}

/* After `after` on rank 0, the first call that reached the server and
 * returned rc=0 (NULL: none), in buf as its report line; local calls and
 * PMI2_Finalize (which may succeed on a closed connection) do not count. */
static const char *success_after(const pcf_crun *r, const char *after, char *buf, size_t n)
{
    const char *p = r->ranks[0].out, *at = pcf_cline(r, 0, after);
    if (!p || !at)
        return NULL;
    p = strchr(at, '\n');
    while (p && *++p) {
        size_t l = strcspn(p, "\n");
        if (strncmp(p, "pcf PMI2_", 9) == 0 && strncmp(p, "pcf PMI2_Finalize ", 18) != 0 &&
            strncmp(p, "pcf PMI2_Initialized ", 21) != 0) {
            const char *rc = strstr(p, " rc=0");
            if (rc && rc < p + l && (rc[5] == ' ' || rc[5] == '\n')) {
                snprintf(buf, n, "%.*s", (int)(l < 200 ? l : 200), p);
                return buf;
            }
        }
        p = strchr(p, '\n');
    }
    return NULL;
}

static void run_unsolicited_name(pcf_ctx *c)
{
    pmc_enc e;
    size_t n;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid-response");
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_str(&e, "jobid", "bogus");
    const char *p = pcf_cencode(&e, &n);
    if (!p) {
        pcf_observe(c, "harness-error", "cannot encode");
        return;
    }
    const pcf_crun *r = run1(c, NULL, NULL, 1, unsolicited(p, n, "kvs-get", false));
    long rc;
    if (!r || rc_of(c, r, 0, "PMI2_KVS_Get", &rc))
        return;
    if (rc == 0 && !pcf_chex_is(r, 0, "PMI2_KVS_Get", "v0")) {
        pcf_observe(c, "misread", "PMI2_KVS_Get returned something other than the value");
        return;
    }
    if (rc == 0) {
        pcf_observe(c, "ignored", "the unexpected job-getid-response was skipped; the get "
                    "returned its value");
        return;
    }
    /* ERR-19: the answer the failed get was owed comes next; the calls after
     * it must get their own answers (or fail), never that one */
    long r2;
    if (pcf_crc(r, 0, "PMI2_KVS_Get:semi", &r2) && r2 == 0 &&
        pcf_chex_is(r, 0, "PMI2_KVS_Get:semi", "v0")) {
        pcf_observe(c, "behind", "after the failed get (rc=%ld), the next PMI2_KVS_Get (of the "
                    "value a;b;c) returned v0: the answer the failed call was owed", rc);
        return;
    }
    if (pcf_crc(r, 0, "PMI2_KVS_Get:missing", &r2) && r2 == 0) {
        pcf_observe(c, "behind", "after the failed get (rc=%ld), PMI2_KVS_Get of a key nobody "
                    "put returned rc=0: another call's answer", rc);
        return;
    }
    grade_no_hang(c, r, "an unexpected response before the get's own");
    if (strcmp(c->obs.outcome, "ok") == 0)
        pcf_observe(c, "ok", "the unexpected response failed the waiting call (rc=%ld); the "
                    "calls after it got their own answers or failed", rc);
}

static void run_unknown_thrid(pcf_ctx *c)
{
    pmc_enc e;
    size_t n;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get-response");
    pmc_enc_str(&e, "thrid", "999999");
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_bool(&e, "found", true);
    pmc_enc_str(&e, "value", "forged");
    const char *p = pcf_cencode(&e, &n);
    if (!p) {
        pcf_observe(c, "harness-error", "cannot encode");
        return;
    }
    const pcf_crun *r = run1(c, NULL, NULL, 1, unsolicited(p, n, "kvs-get", false));
    long rc;
    if (!r || rc_of(c, r, 0, "PMI2_KVS_Get", &rc))
        return;
    if (rc == 0 && pcf_chex_is(r, 0, "PMI2_KVS_Get", "forged")) {
        /* say what the request carried: a library that never tags its
         * requests is bound too, and may not see why at first */
        const char *tag = "no thrid";
        for (size_t i = 0; i < r->nreq; i++)
            if (r->req[i].rank == 0 && strcmp(r->req[i].name, "kvs-get") == 0) {
                tag = r->req[i].thrid ? "a thrid of its own" : "no thrid";
                break;
            }
        pcf_observe(c, "used", "PMI2_KVS_Get rc=0 returned \"forged\", the value of a "
                    "kvs-get-response with thrid=999999, written before the real answer; the "
                    "kvs-get carried %s, so that tag matched no outstanding request", tag);
    } else
        grade_no_hang(c, r, "a response with an unknown thrid before the real one");
}

static void run_garbage(pcf_ctx *c)
{
    /* a whole kvs-get-response whose length field carries a sign ("   +NN",
     * FRAME-5): the encoder's frame with the blank before the digits made
     * '+', so a reader that takes the field with atoi reads a well-formed
     * answer; SPEC.md's reader stops there */
    pmc_enc e;
    size_t n;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get-response");
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_bool(&e, "found", true);
    pmc_enc_str(&e, "value", "forged");
    const char *p = pcf_cencode(&e, &n);
    char junk[128];
    size_t d = 0;
    while (p && d < 6 && p[d] == ' ')
        d++;
    if (!p || n > sizeof junk || d == 0 || d >= 6) {
        pcf_observe(c, "harness-error", "cannot encode");
        return;
    }
    memcpy(junk, p, n);
    junk[d - 1] = '+';
    const pcf_crun *r = run1(c, NULL, NULL, 1, unsolicited(junk, n, "kvs-get", false));
    long rc;
    char b[260];
    if (!r || rc_of(c, r, 0, "PMI2_KVS_Get", &rc))
        return;
    if (rc == 0) {
        pcf_observe(c, "accepted", "a frame whose length field has a sign (%.6s) before the "
                    "response was not an error: PMI2_KVS_Get rc=0%s", junk,
                    pcf_chex_is(r, 0, "PMI2_KVS_Get", "forged") ? ", with the forged value"
                                                                : "");
        return;
    }
    /* ERR-16: fatal for the connection (PMI_FD: the only one) */
    if (r->ranks[0].conns == 1 && success_after(r, "PMI2_KVS_Get", b, sizeof b)) {
        pcf_observe(c, "connection-kept", "the get failed (rc=%ld), but the connection was read "
                    "on after the framing error: %s", rc, b);
        return;
    }
    /* a request after the failed get went out on the broken connection:
     * later calls that fail only because they read its misaligned bytes
     * looked like a dead connection (a sign-rejecting reader that kept
     * reading PASSed) */
    const pcf_creq *q = r->ranks[0].conns == 1 ? request_after(r, 0, "kvs-get") : NULL;
    if (q) {
        pcf_observe(c, "connection-kept", "the get failed (rc=%ld), but the connection was used "
                    "on after the framing error: the library sent %s on it", rc,
                    pcf_cshow(q->raw, q->len, b, sizeof b));
        return;
    }
    grade_no_hang(c, r, "a framing error in the server's stream");
}

static void run_drop_get(pcf_ctx *c)
{
    const pcf_crun *r = run1(c, NULL, NULL, 1, F(.kind = PMS_FAULT_DROP, .cmd = "kvs-get"));
    long rc;
    if (!r || rc_of(c, r, 0, "PMI2_KVS_Get", &rc))
        return;
    if (rc == 0)
        pcf_observe(c, "success", "PMI2_KVS_Get succeeded on a closed connection");
    else
        grade_no_hang(c, r, "connection closed while PMI2_KVS_Get waited");
}

/* ---------------------------------------------------------------- threads */

static void grade_threads(pcf_ctx *c, const pcf_crun *r, const char *what)
{
    if (!r)
        return;
    for (int i = 0; i < 4; i++) {
        char call[32], want[16];
        long rc;
        snprintf(call, sizeof call, "PMI2_KVS_Get:t%d", i);
        snprintf(want, sizeof want, "tv%d", i);
        if (rc_of(c, r, 0, call, &rc))
            return;
        if (rc != 0 || !pcf_chex_is(r, 0, call, want)) {
            pcf_observe(c, "mismatched", "%s: thread %d got rc=%ld and not its value", what, i,
                        rc);
            return;
        }
    }
    grade_finished(c, r, what);
}

static void run_threads(pcf_ctx *c)
{
    grade_threads(c, run1(c, NULL, "threads", 1, (pms_fault){ 0 }), "4 threads, concurrent gets");
}

static void run_threads_distinct(pcf_ctx *c)
{
    /* every kvs-get answered 300 ms late: the four threads' gets overlap at
     * the server however fast it is, so an untagged one is seen outstanding */
    const pcf_crun *r = run1(c, NULL, "threads", 1,
                             F(.kind = PMS_FAULT_DELAY, .cmd = "kvs-get", .delay_ms = 300));
    if (!r)
        return;
    for (size_t i = 0; i < r->nreq; i++) {
        const pcf_creq *q = &r->req[i];
        if (strcmp(q->name, "kvs-get") || !q->outstanding)
            continue;
        if (!q->thrid) {
            pcf_observe(c, "untagged", "a kvs-get without thrid while another was outstanding");
            return;
        }
    }
    pcf_observe(c, "ok", "overlapping requests carried thrid");
}

static void run_reorder(pcf_ctx *c)
{
    grade_threads(c, run1(c, NULL, "threads", 1,
                          F(.kind = PMS_FAULT_REORDER, .cmd = "kvs-get", .nth = 1,
                            .delay_ms = 1500)),
                  "the first get's response held back behind the next");
}

static void run_no_echo(pcf_ctx *c)
{
    grade_threads(c, run1(c, "slurm", "threads", 1, (pms_fault){ 0 }),
                  "slurm persona (thrid not echoed)");
}

/* ---------------------------------------------------------------- personas */

static void grade_persona(pcf_ctx *c, const char *persona)
{
    const pcf_crun *r = run1(c, persona, "basic", 2, (pms_fault){ 0 });
    if (!r)
        return;
    long rc;
    /* a failed init first, from any rank that reported it: a server that
     * ends the job when a rank closes (Hydra, CONN-6) may kill the others
     * before they print theirs */
    for (int k = 0; k < r->np; k++)
        if (pcf_crc(r, k, "PMI2_Init", &rc) && rc != 0) {
            pcf_observe(c, "init-failed", "rank %d: PMI2_Init rc=%ld under %s", k, rc, persona);
            return;
        }
    for (int k = 0; k < r->np; k++) {
        if (rc_of(c, r, k, "PMI2_Init", &rc))
            return;
        if (rc != 0) {
            pcf_observe(c, "init-failed", "rank %d: PMI2_Init rc=%ld under %s", k, rc, persona);
            return;
        }
        char want[16];
        snprintf(want, sizeof want, "v%d", (k + 1) % r->np);
        if (rc_of(c, r, k, "PMI2_KVS_Get", &rc))
            return;
        if (rc != 0 || !pcf_chex_is(r, k, "PMI2_KVS_Get", want)) {
            pcf_observe(c, "get-failed", "rank %d: PMI2_KVS_Get rc=%ld under %s", k, rc, persona);
            return;
        }
        if (rc_of(c, r, k, "PMI2_KVS_Get:missing", &rc))
            return;
        if (rc == 0) {
            pcf_observe(c, "notfound-misread", "rank %d: a miss read as found under %s", k,
                        persona);
            return;
        }
    }
    grade_finished(c, r, persona);
}

static void run_p_h40(pcf_ctx *c) { grade_persona(c, "hydra-4.0"); }
static void run_p_h41(pcf_ctx *c) { grade_persona(c, "hydra-4.1"); }
static void run_p_slurm(pcf_ctx *c) { grade_persona(c, "slurm"); }
static void run_p_strict(pcf_ctx *c) { grade_persona(c, "strict"); }

static void run_appnum(pcf_ctx *c)
{
    const pcf_crun *r = run1(c, "slurm", "init", 1, (pms_fault){ 0 });
    long rc;
    char a[16];
    if (!r || rc_of(c, r, 0, "PMI2_Init", &rc))
        return;
    pcf_cfield(r, 0, "PMI2_Init", "appnum", a, sizeof a);
    if (rc == 0 && atoi(a) == -1)
        pcf_observe(c, "ok", "appnum=-1 (Slurm) accepted and reported");
    else
        pcf_observe(c, "refused", "PMI2_Init rc=%ld appnum=%s", rc, a);
}

static void run_port_key(pcf_ctx *c)
{
    const pcf_crun *r = run1(c, "hydra-4.0", "basic", 1, (pms_fault){ 0 });
    long rc;
    if (!r || rc_of(c, r, 0, "PMI2_Nameserv_lookup", &rc))
        return;
    if (rc == 0 && pcf_chex_is(r, 0, "PMI2_Nameserv_lookup", "port-0"))
        pcf_observe(c, "ok", "the port read from port= (Hydra)");
    else
        pcf_observe(c, "missed", "lookup rc=%ld with the port in port=", rc);
}

static void run_notfound_rc1(pcf_ctx *c)
{
    const pcf_crun *r = run1(c, "hydra-4.1", "basic", 1, (pms_fault){ 0 });
    long rc;
    char f[8];
    if (!r || rc_of(c, r, 0, "PMI2_Info_GetNodeAttr:missing", &rc))
        return;
    pcf_cfield(r, 0, "PMI2_Info_GetNodeAttr:missing", "found", f, sizeof f);
    if (atoi(f) == 1)
        pcf_observe(c, "misread", "rc=1 without found read as found");
    else if (!pcf_cended(r, 0))
        pcf_observe(c, "stopped", "the program did not go on after rc=1 (not found)");
    else
        pcf_observe(c, "ok", "rc=1 read as not available (rc=%ld found=%s)", rc, f);
}

/* ---------------------------------------------------------------- PMI-1 */

static void run_v1_personas(pcf_ctx *c, const char *persona)
{
    grade_finished(c, run1(c, persona, NULL, 2, (pms_fault){ 0 }), persona);
}
static void run_v1_h40(pcf_ctx *c) { run_v1_personas(c, "hydra-4.0"); }
static void run_v1_h41(pcf_ctx *c) { run_v1_personas(c, "hydra-4.1"); }
static void run_v1_slurm(pcf_ctx *c) { run_v1_personas(c, "slurm"); }

static void run_v1_group(pcf_ctx *c)
{
    const pcf_crun *r = run1(c, "hydra-4.0", NULL, 2, (pms_fault){ 0 });
    if (!r)
        return;
    for (size_t i = 0; i < r->nreq; i++) {
        pmc_msg m;
        if (strcmp(r->req[i].name, "barrier_in") == 0 && pcf_creq_msg(c, &r->req[i], &m) == 0 &&
            pmc_msg_find(&m, "group")) {
            pcf_observe(c, "group-barrier", "a group barrier to a PMI-1.1 server");
            return;
        }
    }
    pcf_observe(c, "ok", "no PMI-1.2 group barrier to a 1.1 server");
}

static void run_v1_kvsname(pcf_ctx *c)
{
    const pcf_crun *r = pcf_client_run(c, &(pcf_cspec){ 0 });
    if (!r)
        return;
    char b[300];
    for (size_t i = 0; i < r->nreq; i++) {
        const pcf_creq *q = &r->req[i];
        pmc_msg m;
        pmc_slice k;
        if (strcmp(q->name, "put") && strcmp(q->name, "get"))
            continue;
        if (pcf_creq_msg(c, q, &m) || !pmc_msg_get(&m, "kvsname", &k) ||
            !pmc_slice_eq(k, r->jobid)) {
            pcf_observe(c, "no-kvsname", "rank %d: %s", q->rank,
                        pcf_cshow(q->raw, q->len, b, sizeof b));
            return;
        }
    }
    pcf_observe(c, "ok", "every put and get names the client's own kvsname");
}

static void run_v1_get_error(pcf_ctx *c)
{
    /* every get: a library may send its own gets (the process mapping) first */
    const pcf_crun *r = run1(c, NULL, NULL, 1, F(.kind = PMS_FAULT_ERROR, .cmd = "get",
                                                 .rc = 1));
    long rc;
    if (!r || rc_of(c, r, 0, "PMI_KVS_Get", &rc))
        return;
    if (rc == 0)
        pcf_observe(c, "success", "get_result rc=1 returned success");
    else if (!pcf_cended(r, 0))
        pcf_observe(c, "stopped", "the program did not go on");
    else
        pcf_observe(c, "ok", "the error failed PMI_KVS_Get (rc=%ld)", rc);
}

static void run_v1_roundtrip(pcf_ctx *c)
{
    const pcf_crun *r = pcf_client_run(c, &(pcf_cspec){ 0 });
    if (!r)
        return;
    for (int k = 0; k < r->np; k++) {
        long rc;
        char want[16];
        snprintf(want, sizeof want, "v%d", (k + 1) % r->np);
        if (rc_of(c, r, k, "PMI_KVS_Get", &rc))
            return;
        if (rc != 0 || !pcf_chex_is(r, k, "PMI_KVS_Get", want)) {
            pcf_observe(c, "wrong-value", "rank %d: PMI_KVS_Get rc=%ld", k, rc);
            return;
        }
    }
    pcf_observe(c, "ok", "put, barrier, get: the peer's value");
}

static void run_v1_lookup(pcf_ctx *c)
{
    const pcf_crun *r = pcf_client_run(c, &(pcf_cspec){ 0 });
    long rc;
    if (!r || rc_of(c, r, 0, "PMI_Lookup_name", &rc))
        return;
    if (rc == 0 && pcf_chex_is(r, 0, "PMI_Lookup_name", "port-0"))
        pcf_observe(c, "ok", "published port found");
    else
        pcf_observe(c, "wrong", "PMI_Lookup_name rc=%ld", rc);
}

#define CASE(ID, CL, FL, DESC, EXP, FN, ...)                                                     \
    { .c = { .id = ID, .clause = CL, .flags = FL, .desc = DESC, .expected = EXP,                \
             .timeout_ms = 0, .outcomes = { __VA_ARGS__ } },                                      \
      .run = FN }
/* a case that calls from 4 threads: not run against a library that said
 * threaded=FALSE in its fullinit (UNSUPPORTED, needs-absent) */
#define TCASE(ID, CL, FL, DESC, EXP, FN, ...)                                                    \
    { .c = { .id = ID, .clause = CL, .flags = FL, .desc = DESC, .expected = EXP,                \
             .needs = PCF_NEED_THREADED, .outcomes = { __VA_ARGS__ } },                           \
      .run = FN }
#define ANY (PCF_V1 | PCF_V2)
#define V2D (PCF_V2 | PCF_CDRIVER)
#define V1D (PCF_V1 | PCF_CDRIVER)
#define HANG { "hang", PCF_FAIL, "ERR-13", "the client waited for ever" }
#define SIGPIPED { "sigpipe", PCF_FAIL, "ERR-20", "the process died writing to the closed connection" }

static const pcf_ccase cases[] = {
    CASE("client/fault/delay", "CONN-1", ANY, "a response 700 ms late",
         "the program waits and finishes normally", run_delay, HANG),
    CASE("client/fault/delay-every", "CONN-1", ANY, "every response 30 ms late",
         "the program finishes normally", run_delay_all, HANG),
    CASE("client/fault/split", "CONN-2", ANY, "a response in two writes",
         "the client reassembles the message", run_split, HANG),
    CASE("client/fault/split-early", "CONN-2", ANY, "every response split after 3 bytes",
         "the client reassembles every message", run_split_early, HANG),
    CASE("client/fault/split-bytes", "CONN-1", ANY, "responses split after 1 and 20 bytes",
         "the client reads the stream, not single reads", run_split_bytes, HANG),
    CASE("client/fault/drop", "ERR-13", ANY, "the connection closes instead of a response",
         "the program ends (an error), it does not hang", run_drop, SIGPIPED),
    CASE("client/fault/drop-init", "ERR-13", ANY, "the connection closes after the init line",
         "the program ends, it does not hang", run_drop_init, SIGPIPED),
    CASE("client/fault/init-refused", "INIT-9", ANY, "response_to_init with rc=1",
         "the client does not go on with the connection", run_init_refused,
         { "hang", PCF_FAIL, "ERR-13", "the client neither went on nor ended" }),
    CASE("client/fault/fullinit-refused", "FULLINIT-9", V2D, "fullinit-response with rc=1",
         "PMI2_Init fails", run_fullinit_refused),
    CASE("client/fault/get-error", "RC-9", V2D, "kvs-get-response rc=14 without found or value",
         "PMI2_KVS_Get fails, the program goes on", run_get_error),
    CASE("client/fault/rc-meaning", "RC-6", V2D, "rc=1 and rc=77 mean the same",
         "both fail PMI2_KVS_Put", run_rc_meaning),
    CASE("client/fault/fence-failed", "RC-4", V2D, "kvs-fence-response with rc=1",
         "PMI2_KVS_Fence fails", run_fence_fail),
    CASE("client/fault/get-delayed", "ERR-17", V2D, "kvs-get answered 800 ms late",
         "PMI2_KVS_Get waits and returns the value", run_get_delay,
         { "gave-up", PCF_INFO, NULL, "the client gave up after its own timeout (allowed)" }),
    CASE("client/fault/get-split", "CONN-2", V2D, "kvs-get-response split inside the value",
         "PMI2_KVS_Get returns the whole value", run_get_split),
    CASE("client/fault/unexpected-response", "ERR-15", V2D,
         "an unexpected command name before the response",
         "the waiting call fails as a protocol error; the calls after it get their own answers",
         run_unsolicited_name,
         { "misread", PCF_FAIL, "ERR-14", "another response was taken as the answer" },
         { "behind", PCF_FAIL, "ERR-19", "a later call got the answer the failed call was owed" }),
    CASE("client/fault/unknown-thrid", "THRID-10", V2D, "a response with a thrid nobody sent",
         "a protocol error; the value is never used", run_unknown_thrid),
    CASE("client/fault/framing-error", "ERR-16", V2D, "a bad length field from the server",
         "the waiting call fails and the connection is not read again; no crash, no hang",
         run_garbage,
         { "crashed", PCF_FAIL, "ERR-12", "the process died on the server's bytes" }),
    CASE("client/fault/drop-during-get", "ERR-13", V2D, "the connection closes during a get",
         "PMI2_KVS_Get fails; the program does not hang", run_drop_get, SIGPIPED),
    TCASE("client/thrid/concurrent", "THRID-8", V2D, "gets from 4 threads",
         "every thread gets its own value", run_threads),
    TCASE("client/thrid/tagged", "THRID-9", V2D, "overlapping requests are tagged",
         "a request sent while another is outstanding carries thrid", run_threads_distinct),
    TCASE("client/thrid/reordered", "THRID-8", V2D, "responses out of order",
         "responses matched by thrid, not by arrival", run_reorder),
    TCASE("client/thrid/no-echo", "THRID-9", V2D, "a server that does not echo thrid",
         "the client serializes and every thread gets its value", run_no_echo),
    CASE("client/persona/strict", "FULLINIT-8", V2D, "SPEC.md's server",
         "init, put/fence/get, a miss, finalize", run_p_strict),
    CASE("client/persona/hydra-4.0", "FULLINIT-8", V2D, "Hydra 4.0's dialect",
         "init, put/fence/get, a miss, finalize", run_p_h40),
    CASE("client/persona/hydra-4.1", "FULLINIT-8", V2D,
         "Hydra 4.1: no pmi-version, pmiverbose=0, rc=1 for misses",
         "init, put/fence/get, a miss, finalize", run_p_h41),
    CASE("client/persona/slurm", "FULLINIT-8", V2D,
         "Slurm: left-justified lengths, no thrid echo, appnum=-1",
         "init, put/fence/get, a miss, finalize", run_p_slurm),
    CASE("client/persona/slurm-appnum", "FULLINIT-10", V2D, "appnum=-1",
         "PMI2_Init accepts and reports -1", run_appnum),
    CASE("client/persona/port-key", "NAME-4", V2D, "name-lookup-response with port=",
         "the port read from port= as from value=", run_port_key),
    CASE("client/persona/notfound-rc1", "KVS-5", V2D, "rc=1 without found",
         "read as not available", run_notfound_rc1,
         { "init-failed", PCF_DEVIATES, "FULLINIT-8",
           "PMI2_Init already failed under hydra-4.1 (client/persona/hydra-4.1)" }),
    CASE("client/pmi1/persona-hydra-4.0", "RC-3", PCF_V1, "Hydra 4.0: barrier_out without rc",
         "every rank finishes", run_v1_h40),
    CASE("client/pmi1/persona-hydra-4.1", "INIT-9", PCF_V1, "Hydra 4.1: 1.2 answered, rc first",
         "every rank finishes", run_v1_h41),
    CASE("client/pmi1/persona-slurm", "RC-4", PCF_V1, "Slurm's PMI-1",
         "every rank finishes", run_v1_slurm),
    CASE("client/pmi1/group-barrier", "V1CMD-16", PCF_V1, "no group barrier to a 1.1 server",
         "barrier_in without group", run_v1_group),
    CASE("client/pmi1/kvsname", "V1CMD-10", PCF_V1, "kvsname in put and get",
         "every put and get names its own kvsname", run_v1_kvsname),
    CASE("client/pmi1/get", "V1CMD-29", V1D, "PMI_KVS_Put, PMI_Barrier, PMI_KVS_Get",
         "the peer's value", run_v1_roundtrip),
    CASE("client/pmi1/get-error", "RC-9", V1D, "get_result rc=1",
         "PMI_KVS_Get fails, the program goes on", run_v1_get_error),
    CASE("client/pmi1/name-service", "V1CMD-22", V1D, "PMI_Publish_name, PMI_Lookup_name",
         "the published port", run_v1_lookup),
};
PCF_CLIENT_CASES(cases)
