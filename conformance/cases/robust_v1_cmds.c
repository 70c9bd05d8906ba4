/* robust/v1-...: PMI-1 commands with bad arguments: abort without exitcode
 * or with a junk one (the job's exit status is graded: "exit-1"), a spawn
 * of a program that cannot run, spawn blocks with a junk or missing key,
 * an mcmd block that is not spawn (issue 21). */
#include "damage.h"

/* Rank 1 aborts with `code` (NULL: no exitcode pair); every rank waits for
 * the job to end.  The orchestrator grades the launcher's exit status
 * against the case's "exit-1" outcome. */
static void abort_with(pcf_ctx *c, const char *code)
{
    if (pcfd_collective_start(c) != 0)
        return;
    if (pcf_rank(c) == 1) {
        pmc_enc e;
        pmc_enc_begin(&e, PMC_WIRE_V1, "abort");
        if (code)
            pmc_enc_str(&e, "exitcode", code);
        if (pcf_send(c, &e) != 0)
            return;
    }
    pmc_msg m;
    pmc_error err;
    char b[200];
    pws_result r = pws_wait_eof(pcf_session(c), pcf_deadline(c));
    if (r == PWS_MSG && pcf_recv(c, &m, &err) == PWS_MSG)
        pcf_observe(c, "answered", "abort was answered: %s", pcf_show(&m, b, sizeof b));
    else if (r == PWS_EOF) {
        pcf_pause_ms(c, 3000); /* the job should end now */
        pcf_observe(c, "closed", "the connection closed but the job kept running");
    } else
        pcf_observe(c, "not-ended", "the job still runs after abort");
}

static void run_abort_no_code(pcf_ctx *c) { abort_with(c, NULL); }
static void run_abort_junk(pcf_ctx *c) { abort_with(c, "pcfjunk"); }

/* A one-block spawn of `exe`; `bad_key` (when not NULL) gets `bad_val`
 * instead of its value, or is left out when bad_val is NULL. */
static int spawn_block(pcf_ctx *c, const char *exe, const char *bad_key, const char *bad_val,
                       pmc_out *o)
{
    static const char *const keys[] = { "nprocs", "execname", "totspawns", "spawnssofar",
                                        "argcnt", "preput_num", "info_num" };
    const char *vals[] = { "1", exe, "1", "1", "0", "0", "0" };
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V1_MCMD, "spawn");
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        bool bad = bad_key && strcmp(keys[i], bad_key) == 0;
        if (bad && !bad_val)
            continue;
        pmc_enc_str(&e, keys[i], bad ? bad_val : vals[i]);
    }
    return pcfd_encode(c, &e, NULL, o);
}

static void send_spawn(pcf_ctx *c, const char *exe, const char *bad_key, const char *bad_val)
{
    pmc_out o = { 0 };
    if (spawn_block(c, exe, bad_key, bad_val, &o) == 0 && pcfd_send(c, &o) == 0) {
        pcfd_grade(c, "spawn_result", NULL);
        /* a server that refuses every spawn refuses this one too: its error
         * answer says nothing of the damage (pmi1/spawn/result: UNSUPPORTED) */
        const char *d, *oc = pcf_outcome_so_far(c, &d);
        if (oc && pcf_absent(c, PCF_NEED_SPAWN) &&
            (strcmp(oc, "error-response") == 0 || strcmp(oc, "error-then-close") == 0))
            pcf_observe(c, "spawn-refused", "the server refuses every spawn (the start-up "
                        "probe's spawn of /bin/true was refused), so its refusal of this block "
                        "says nothing of the damage: %.400s", d);
    }
    pmc_out_free(&o);
}

/* A path no system has: the name says which case asked. */
static void run_spawn_no_program(pcf_ctx *c)
{
    char exe[96];
    snprintf(exe, sizeof exe, "/nonexistent/pcf-%s-no-such-program", pcf_tag(c));
    send_spawn(c, exe, NULL, NULL);
}

static void run_spawn_bad_nprocs(pcf_ctx *c) { send_spawn(c, "/bin/true", "nprocs", "pcfjunk"); }
static void run_spawn_no_execname(pcf_ctx *c) { send_spawn(c, "/bin/true", "execname", NULL); }

/* A whole spawn block of /bin/true named mcmd=pcfzz. */
static void run_mcmd_not_spawn(pcf_ctx *c)
{
    pmc_out o = { 0 };
    if (spawn_block(c, "/bin/true", NULL, NULL, &o) == 0) {
        long at = pcfd_find(&o, 0, "mcmd=spawn\n");
        if (at != 0) {
            pcf_observe(c, "harness-error", "the encoded block does not start with mcmd=spawn");
        } else {
            memcpy(o.buf + 5, "pcfzz", 5);
            if (pcfd_send(c, &o) == 0)
                pcfd_grade(c, NULL, NULL);
        }
    }
    pmc_out_free(&o);
}

/* the server refuses every spawn (the probe's): its error answer to a
 * damaged block cannot be told from that refusal */
#define SPAWN_REFUSED                                                                            \
    { "spawn-refused", PCF_UNSUPPORTED, "V1CMD-20",                                              \
      "the server refuses every spawn: its refusal of the damaged block says nothing" }

#define ABORT_OUTCOMES                                                                           \
    { "exit-1", PCF_PASS, NULL, "the job ended with exit status 1" },                            \
    { "exit-other", PCF_FAIL, NULL, "the job ended, but not with exit status 1" },               \
    { "answered", PCF_FAIL, NULL, "abort was answered" },                                        \
    { "closed", PCF_FAIL, NULL, "a connection closed but the job went on" },                     \
    { "not-ended", PCF_FAIL, NULL, "the job went on after abort" }

static const pcf_case cases[] = {
    { .id = "robust/v1-abort-no-exitcode",
      .desc = "rank 1 sends \"cmd=abort\" without exitcode",
      .clause = "V1CMD-21", .expected = "no answer; the job ends with exit status 1",
      .flags = PCF_V1 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .min_ranks = 2,
      .run = run_abort_no_code, .outcomes = { ABORT_OUTCOMES } },
    { .id = "robust/v1-abort-exitcode-junk",
      .desc = "rank 1 sends \"cmd=abort exitcode=pcfjunk\"",
      .clause = "V1CMD-21", .expected = "no answer; the job ends with exit status 1 (never 0)",
      .flags = PCF_V1 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .min_ranks = 2,
      .run = run_abort_junk, .outcomes = { ABORT_OUTCOMES } },
    { .id = "robust/v1-spawn-no-program",
      .desc = "an mcmd=spawn block of a program that does not exist (/nonexistent/pcf-...)",
      .clause = "ERR-11", .expected = "cmd=spawn_result rc!=0 ...",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .soft_needs = PCF_NEED_SPAWN, .run = run_spawn_no_program,
      .outcomes = { SPAWN_REFUSED,
                    { "error-response", PCF_PASS, NULL, "refused the spawn" },
                    { "error-then-close", PCF_PASS, NULL, "refused the spawn, then closed" },
                    { "accepted", PCF_DEVIATES, NULL, "answered rc=0: the spawn \"succeeded\"" },
                    { "closed", PCF_DEVIATES, "ERR-4", "closed without an answer" },
                    PCFD_KILLED } },
    { .id = "robust/v1-spawn-bad-nprocs",
      .desc = "an mcmd=spawn block of /bin/true with nprocs=pcfjunk",
      .clause = "PAIR-6", .expected = "cmd=spawn_result rc!=0 ...; nothing started",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .soft_needs = PCF_NEED_SPAWN, .timeout_ms = 8000, .run = run_spawn_bad_nprocs,
      .outcomes = { SPAWN_REFUSED, PCFD_DELIMITED("PAIR-6"),
                    { "no-answer", PCF_FAIL, "ERR-3", "the block was never answered" } } },
    { .id = "robust/v1-spawn-no-execname",
      .desc = "an mcmd=spawn block without execname",
      .clause = "PAIR-6", .expected = "cmd=spawn_result rc!=0 ...",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .soft_needs = PCF_NEED_SPAWN, .timeout_ms = 8000, .run = run_spawn_no_execname,
      .outcomes = { SPAWN_REFUSED, PCFD_DELIMITED("PAIR-6"),
                    { "no-answer", PCF_FAIL, "ERR-3", "the block was never answered" } } },
    { .id = "robust/v1-mcmd-not-spawn",
      .desc = "a whole spawn block of /bin/true sent as mcmd=pcfzz",
      .clause = "ERR-7", .expected = "cmd=pcfzz_result rc!=0 ... (or a close); nothing started",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_mcmd_not_spawn,
      .outcomes = { PCFD_DELIMITED("ERR-7") } },
};
PCF_CASES(cases)
