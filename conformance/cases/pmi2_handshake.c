/* pmi2/init, pmi2/fullinit: more of the PMI-2 handshake.  The recorded
 * start-up exchange (PCF_LOCAL), rank/size/appnum agreement across ranks
 * through the KVS, and the destructive ones: a second init (2.0, 2.1, 3.0)
 * and a second fullinit on the established connection. */
#include "pmi2_util.h"

static bool hs_decode(pcf_ctx *c, const char *raw, size_t len, const char *what, pmc_msg *m)
{
    pmc_error err;
    if (!raw) {
        pcf_observe(c, "no-answer", "no %s arrived at start-up: %s", what, pcf_hs(c)->error);
        return false;
    }
    if (pcf_decode(c, raw, len, m, &err) != 0) {
        char b[PCF_ERR_TEXT];
        pcf_observe(c, "bad-response", "%s does not decode: %s", what,
                    pcf_decode_error_in(&err, raw, len, b, sizeof b));
        return false;
    }
    return true;
}

static void run_init_order(pcf_ctx *c)
{
    pmc_msg m;
    char b[300];
    if (!hs_decode(c, pcf_hs(c)->init_raw, pcf_hs(c)->init_len, "response_to_init", &m))
        return;
    if (m.npairs == 0 || !pmc_slice_eq(m.pairs[0].key, "rc"))
        pcf_observe(c, "rc-not-first", "%s", pcf_show(&m, b, sizeof b));
    else
        pcf_observe(c, "ok", "%s", pcf_show(&m, b, sizeof b));
}

static void run_fullinit_success(pcf_ctx *c)
{
    pmc_msg m;
    char b[400];
    if (!hs_decode(c, pcf_hs(c)->fullinit_raw, pcf_hs(c)->fullinit_len, "fullinit-response", &m))
        return;
    long long rc = -1;
    int h = pcf_rc(&m, &rc);
    if (h == 1 && rc == 0)
        pcf_observe(c, "ok", "rc=0");
    else
        pcf_observe(c, h == 0 ? "no-rc" : "failed", "%s", pcf_show(&m, b, sizeof b));
}

/* Every integer-typed key that is present is a well-formed integer (VAL-4). */
static void run_fullinit_integers(pcf_ctx *c)
{
    pmc_msg m;
    char b[400];
    if (!hs_decode(c, pcf_hs(c)->fullinit_raw, pcf_hs(c)->fullinit_len, "fullinit-response", &m))
        return;
    static const char *const ints[] = { "rc", "pmi-version", "pmi-subversion", "rank", "size",
                                        "appnum" };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        long long x;
        if (pmc_msg_get_int(&m, ints[i], &x) == -1) {
            pcf_observe(c, "malformed", "%s is not a decimal integer: %s", ints[i],
                        pcf_show(&m, b, sizeof b));
            return;
        }
    }
    long long v = -1, s = -1;
    if (pmc_msg_get_int(&m, "pmi-version", &v) == 1 && v != 2) {
        pcf_observe(c, "wrong-version", "pmi-version=%lld on a 2.0 session", v);
        return;
    }
    if (pmc_msg_get_int(&m, "pmi-subversion", &s) == 1 && s < 0) {
        pcf_observe(c, "wrong-version", "pmi-subversion=%lld", s);
        return;
    }
    pcf_observe(c, "ok", "%s", pcf_show(&m, b, sizeof b));
}

static void run_no_spawner(pcf_ctx *c)
{
    pmc_msg m;
    char b[400];
    if (!hs_decode(c, pcf_hs(c)->fullinit_raw, pcf_hs(c)->fullinit_len, "fullinit-response", &m))
        return;
    const char *sp = getenv("PMI_SPAWNED");
    bool spawned = sp && *sp && strcmp(sp, "0") != 0;
    bool has = pmc_msg_find(&m, "spawner-jobid") != NULL;
    if (spawned && !has)
        pcf_observe(c, "missing", "PMI_SPAWNED=%s but no spawner-jobid: %s", sp,
                    pcf_show(&m, b, sizeof b));
    else if (!spawned && has)
        pcf_observe(c, "invented", "spawner-jobid in a job nobody spawned: %s",
                    pcf_show(&m, b, sizeof b));
    else
        pcf_observe(c, "ok", "%s", spawned ? "spawned, spawner-jobid present" : "no spawner-jobid");
}

/* Each rank puts what its fullinit-response said; rank 0 compares. */
static void run_agree(pcf_ctx *c, const char *what)
{
    pmc_msg m;
    char b[400], key[96], mine[64];
    const pcf_handshake *h = pcf_hs(c);
    if (!hs_decode(c, h->fullinit_raw, h->fullinit_len, "fullinit-response", &m))
        return;
    long long v = -1;
    if (pmc_msg_get_int(&m, what, &v) != 1) {
        pcf_observe(c, "keys-missing", "no integer %s: %s", what, pcf_show(&m, b, sizeof b));
        pcf_kvs_fence(c);
        return;
    }
    snprintf(key, sizeof key, "%s-%s-r%d", pcf_tag(c), what, pcf_rank(c));
    snprintf(mine, sizeof mine, "%lld", v);
    if (pcf_kvs_put(c, key, mine) || pcf_kvs_fence(c))
        return;
    if (pcf_rank(c) != 0) {
        pcf_observe(c, "ok", "%s=%lld", what, v);
        return;
    }
    int n = pcf_size(c) < 64 ? pcf_size(c) : 64;
    char *seen = calloc((size_t)n, 1);
    if (!seen) {
        pcf_observe(c, "harness-error", "out of memory");
        return;
    }
    for (int r = 0; r < n; r++) {
        bool found;
        char got[64];
        snprintf(key, sizeof key, "%s-%s-r%d", pcf_tag(c), what, r);
        if (pcf_kvs_get(c, key, &found, got, sizeof got, NULL))
            goto out;
        if (!found) {
            pcf_observe(c, "harness-error", "rank %d's report %s is not visible", r, key);
            goto out;
        }
        long long x = strtoll(got, NULL, 10);
        if (strcmp(what, "rank") == 0) {
            if (x != r || x < 0 || x >= n || seen[x]) {
                pcf_observe(c, "inconsistent", "the rank %d process was told rank=%lld", r, x);
                goto out;
            }
            seen[x] = 1;
        } else if (x != v) {
            pcf_observe(c, "inconsistent", "rank 0 was told %s=%lld, rank %d %s=%lld", what, v, r,
                        what, x);
            goto out;
        }
    }
    pcf_observe(c, "ok", "%d ranks agree on %s", n, what);
out:
    free(seen);
}

static void run_ranks(pcf_ctx *c) { run_agree(c, "rank"); }
static void run_size(pcf_ctx *c) { run_agree(c, "size"); }
static void run_appnum(pcf_ctx *c) { run_agree(c, "appnum"); }

/* A further init line on the established connection, graded by INIT-8/10/13. */
static void reinit(pcf_ctx *c, int v, int s)
{
    pmc_enc e;
    p2r r;
    pmc_enc_begin(&e, PMC_WIRE_V1, "init");
    pmc_enc_int(&e, "pmi_version", v);
    pmc_enc_int(&e, "pmi_subversion", s);
    pmc_msg m;
    long long pv = -1, ps = -1;
    if (pcf_call(c, &e, "response_to_init", &m))
        return;
    pmc_msg_get_int(&m, "pmi_version", &pv);
    pmc_msg_get_int(&m, "pmi_subversion", &ps);
    p2_take(&m, &r);
    /* a second response_to_init for one init breaks INIT-13 */
    pws_result w = pws_wait_eof(pcf_session(c), pws_deadline_ms(300));
    if (w == PWS_MSG) {
        pmc_msg x;
        pmc_error err;
        char b[300];
        if (pcf_recv(c, &x, &err) == PWS_MSG) {
            pcf_observe(c, "extra-message", "after %s also %s", r.show, pcf_show(&x, b, sizeof b));
            return;
        }
    }
    if (r.hrc != 1) {
        pcf_observe(c, "no-rc", "%s", r.show);
    } else if (v == 2 && r.rc == 0 && pv == 2 && ps == 0) {
        pcf_observe(c, "ok", "%s", r.show);
    } else if (v == 2 && r.rc == 0) {
        pcf_observe(c, "wrong-version", "%s", r.show);
    } else if (v == 2) {
        pcf_observe(c, "refused", "%s", r.show);
    } else if (r.rc == 0) {
        pcf_observe(c, "accepted", "init %d.%d answered rc=0: %s", v, s, r.show);
    } else if (pv == 1 || pv == 2) {
        pcf_observe(c, "ok", "refused, naming its version: %s", r.show);
    } else {
        pcf_observe(c, "no-version", "refused without a supported version: %s", r.show);
    }
}

static void run_init_again(pcf_ctx *c) { reinit(c, 2, 0); }
static void run_init_21(pcf_ctx *c) { reinit(c, 2, 1); }
static void run_init_30(pcf_ctx *c) { reinit(c, 3, 0); }

static void refullinit(pcf_ctx *c, long long pmirank)
{
    pmc_enc e;
    p2r r;
    pmc_enc_begin(&e, PMC_WIRE_V2, "fullinit");
    pmc_enc_int(&e, "pmirank", pmirank);
    const char *jid = getenv("PMI_JOBID");
    if (jid && *jid)
        pmc_enc_str(&e, "pmijobid", jid);
    pmc_enc_bool(&e, "threaded", false);
    pmc_msg m;
    long long rank = -1;
    if (pcf_call(c, &e, "fullinit-response", &m))
        return;
    pmc_msg_get_int(&m, "rank", &rank);
    p2_take(&m, &r);
    if (r.hrc != 1) {
        pcf_observe(c, "no-rc", "%s", r.show);
        return;
    }
    if (r.rc != 0)
        pcf_observe(c, "ok", "refused: %s", r.show);
    else if (pmirank != pcf_rank(c) && rank == pmirank)
        pcf_observe(c, "adopted", "took the client's pmirank=%lld: %s", pmirank, r.show);
    else if (pmirank != pcf_rank(c))
        pcf_observe(c, "kept-own-rank", "answered rc=0 with its own rank: %s", r.show);
    else
        pcf_observe(c, "accepted", "a second fullinit answered rc=0: %s", r.show);
}

static void run_fullinit_again(pcf_ctx *c) { refullinit(c, pcf_rank(c)); }
static void run_fullinit_foreign(pcf_ctx *c) { refullinit(c, (long long)pcf_size(c) + 95); }

#define KILLED                                                                                   \
    { "job-killed", PCF_FAIL, "ERR-1", "the server ended the job" },                             \
    { "sender-killed", PCF_FAIL, "ERR-1", "the server ended the process" },                      \
    { "others-affected", PCF_FAIL, "ERR-2", "other connections stopped being served" }

static const pcf_case cases[] = {
    { .id = "pmi2/init/canonical-order",
      .desc = "response_to_init puts rc right after the command",
      .clause = "PAIR-2", .expected = "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0",
      .steps = P2_STEPS_HANDSHAKE
               "In the recorded response_to_init, rc must be the first pair after cmd (PAIR-2), "
               "else \"rc-not-first\".",
      .flags = PCF_V2 | PCF_LOCAL, .run = run_init_order },
    { .id = "pmi2/init/again-2-0",
      .desc = "a second init 2.0 on the established connection gets exactly one response_to_init",
      .clause = "INIT-13",
      .expected = "one cmd=response_to_init (rc=0 2.0, or a refusal) and nothing else",
      .steps = "A victim rank (the case may end the job) sends cmd=init pmi_version=2 "
               "pmi_subversion=0 again on its established connection.\n"
               "It waits for response_to_init, then 300 ms more: a second message for the one "
               "init is \"extra-message\" (INIT-13).\n"
               "rc=0 with 2.0 passes, and so does a refusal (rc != 0); a close without an answer "
               "is \"closed\" (INIT-8). Rank 0 then checks its own connection is still served "
               "(ERR-2).",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_init_again,
      .outcomes = { { "refused", PCF_PASS, NULL, "answered once, with rc != 0" },
                    { "closed", PCF_DEVIATES, "INIT-8", "closed instead of answering" },
                    { "extra-message", PCF_DEVIATES, NULL, "more than one message for one init" },
                    KILLED } },
    { .id = "pmi2/init/version-2-1",
      .desc = "init asking for 2.1 is answered rc=0 pmi_version=2 pmi_subversion=0",
      .clause = "INIT-10", .expected = "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0",
      .steps = "A victim rank (the case may end the job) sends cmd=init pmi_version=2 "
               "pmi_subversion=1 on its established connection.\n"
               "INIT-10: the server answers the highest subversion it has, rc=0 pmi_version=2 "
               "pmi_subversion=0. A refusal is \"refused\"; a close, no answer or a job that "
               "ended are graded by INIT-8 (a version request is always answered).",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_init_21,
      .outcomes = { { "refused", PCF_DEVIATES, NULL, "refused 2.1 (rc != 0)" },
                    { "closed", PCF_DEVIATES, "INIT-8", "closed the connection without an answer" },
                    { "no-answer", PCF_DEVIATES, "INIT-8", "no answer" },
                    { "job-killed", PCF_FAIL, "INIT-8", "ended the job (M2)" },
                    { "sender-killed", PCF_FAIL, "INIT-8", "ended the process" },
                    { "others-affected", PCF_FAIL, "ERR-2", "other connections stopped" } } },
    { .id = "pmi2/init/version-3-0",
      .desc = "init asking for 3.0 is refused with rc != 0 and a version the server supports",
      .clause = "INIT-8",
      .expected = "cmd=response_to_init rc!=0 pmi_version=1|2; the connection and job go on",
      .steps = "A victim rank (the case may end the job) sends cmd=init pmi_version=3 "
               "pmi_subversion=0 on its established connection.\n"
               "INIT-8: rc != 0 and the version the server does support (pmi_version=1 or 2) "
               "passes; rc=0 is \"accepted\"; a refusal without a version \"no-version\"; a close "
               "without an answer \"closed\"; no answer a deviation too (the client would hang).\n"
               "Rank 0 then checks its own connection is still served (ERR-2); a job that ended "
               "is FAIL (ERR-1).",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_init_30,
      .outcomes = { { "accepted", PCF_DEVIATES, NULL, "answered rc=0 to an unknown major version" },
                    { "no-version", PCF_DEVIATES, NULL, "refused without naming a supported version" },
                    { "closed", PCF_DEVIATES, NULL, "closed the connection without an answer" },
                    { "no-answer", PCF_DEVIATES, NULL, "no answer (the client hangs)" },
                    KILLED } },
    { .id = "pmi2/fullinit/success", .needs = PCF_NEED_ACCEPTED, .desc = "the start-up fullinit was answered with rc=0",
      .clause = "FULLINIT-5", .expected = "cmd=fullinit-response;rc=0;...",
      .steps = P2_STEPS_HANDSHAKE
               "The recorded fullinit-response must say rc=0: no rc is \"no-rc\", rc != 0 "
               "\"failed\".",
      .flags = PCF_V2 | PCF_LOCAL, .run = run_fullinit_success },
    { .id = "pmi2/fullinit/integer-values", .needs = PCF_NEED_ACCEPTED,
      .desc = "rc, pmi-version, pmi-subversion, rank, size, appnum are decimal integers; version 2",
      .clause = "VAL-4", .expected = "every integer key well formed, pmi-version=2 when present",
      .steps = P2_STEPS_HANDSHAKE
               "Every integer key present in the recorded fullinit-response (rc, pmi-version, "
               "pmi-subversion, rank, size, appnum) must be a well-formed decimal integer (VAL-4, "
               "else \"malformed\"), and pmi-version must be 2 (else \"wrong-version\", "
               "FULLINIT-5).",
      .flags = PCF_V2 | PCF_LOCAL, .run = run_fullinit_integers,
      .outcomes = { { "wrong-version", PCF_FAIL, "FULLINIT-5", "pmi-version is not 2" } } },
    { .id = "pmi2/fullinit/no-spawner-jobid", .needs = PCF_NEED_ACCEPTED,
      .desc = "spawner-jobid appears if and only if the process was spawned (PMI_SPAWNED)",
      .clause = "FULLINIT-7", .expected = "no spawner-jobid in a job started by the launcher",
      .steps = P2_STEPS_HANDSHAKE
               "The recorded fullinit-response must carry spawner-jobid if and only if "
               "PMI_SPAWNED is set (to anything but 0): missing in a spawned process is "
               "\"missing\", present in a job the launcher started \"invented\".",
      .flags = PCF_V2 | PCF_LOCAL, .run = run_no_spawner },
    { .id = "pmi2/fullinit/ranks-distinct",
      .desc = "the ranks of the job's processes are 0..size-1, each given once",
      .clause = "FULLINIT-4", .expected = "rank r's fullinit-response says rank=r, no rank twice",
      .steps = P2_STEPS_HANDSHAKE
               "Every rank puts the rank its fullinit-response gave it in the KVS "
               "(<tag>-rank-r<rank>), and all fence.\n"
               "Rank 0 reads the reports of the first 64 ranks: rank r must have been told "
               "rank=r, and no rank twice (else \"inconsistent\").",
      .flags = PCF_V2, .min_ranks = 2, .run = run_ranks },
    { .id = "pmi2/fullinit/size-agrees",
      .desc = "every process of the job is told the same size",
      .clause = "FULLINIT-5", .expected = "the same size=N on every rank",
      .steps = P2_STEPS_HANDSHAKE
               "Every rank puts the size its fullinit-response gave it in the KVS, and all fence.\n"
               "Rank 0 reads the reports of the first 64 ranks: each must equal its own (else "
               "\"inconsistent\").",
      .flags = PCF_V2, .min_ranks = 2, .run = run_size },
    { .id = "pmi2/fullinit/appnum-agrees",
      .desc = "the processes of a single-executable job share one appnum",
      .clause = "FULLINIT-5", .expected = "the same appnum on every rank",
      .steps = P2_STEPS_HANDSHAKE
               "Every rank puts the appnum its fullinit-response gave it in the KVS, and all "
               "fence.\n"
               "Rank 0 reads the reports of the first 64 ranks: in a job of one executable each "
               "must equal its own (else \"inconsistent\").",
      .flags = PCF_V2, .min_ranks = 2, .run = run_appnum },
    { .id = "pmi2/fullinit/second-fullinit",
      .desc = "a second fullinit on the same connection is refused",
      .clause = "FULLINIT-12", .expected = "cmd=fullinit-response;rc!=0;...",
      .steps = "A victim rank (the case may end the job) sends a second fullinit on its "
               "established connection, with its own rank as pmirank.\n"
               "rc != 0 passes (FULLINIT-12); rc=0 is \"accepted\"; a close without an answer is "
               "\"closed\" (ERR-4). Rank 0 then checks its own connection is still served "
               "(ERR-2); a job that ended is FAIL (ERR-1).",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_fullinit_again,
      .outcomes = { { "accepted", PCF_DEVIATES, NULL, "answered rc=0 again" },
                    { "closed", PCF_DEVIATES, "ERR-4", "closed the connection without an answer" },
                    KILLED } },
    { .id = "pmi2/fullinit/foreign-pmirank",
      .desc = "fullinit with another process's pmirank on a PMI_FD connection is not adopted",
      .clause = "FULLINIT-4",
      .expected = "rc != 0, or the server's own rank (never the client's pmirank)",
      .steps = "A victim rank (the case may end the job) sends a second fullinit whose pmirank is "
               "size + 95, a rank that is not its own.\n"
               "On a PMI_FD connection the server already knows who the process is: rc != 0 "
               "passes, and so does rc=0 with the rank it had (\"kept-own-rank\"); rc=0 with the "
               "foreign rank is \"adopted\" (H8).\n"
               "A close without an answer is \"closed\" (ERR-4); a job that ended is FAIL (ERR-1).",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_fullinit_foreign,
      .outcomes = { { "kept-own-rank", PCF_PASS, NULL, "ignored pmirank and kept its own record" },
                    { "adopted", PCF_DEVIATES, NULL, "took the client's pmirank (H8)" },
                    { "closed", PCF_DEVIATES, "ERR-4", "closed the connection without an answer" },
                    KILLED } },
};
PCF_CASES(cases)
