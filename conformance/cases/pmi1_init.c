/* pmi1/init/...: version negotiation.  A PMI_FD connection cannot be opened
 * again, so each case sends one more init line on the victim's initialised
 * PMI-1 connection (INIT-13: the server answers every init line) and grades
 * the answer against INIT-7/8/10.  Destructive: Hydra 4.0 ends the job on
 * 1.2 and 2.1 (M2) and crashes without the two keys (B2). */
#include "damage.h"

/* Returns 1 when the answer was rc=0 with the major asked for, 0 when not, -1
 * when none came (observed). */
static int reinit(pcf_ctx *c, long long v, long long s, bool swapped, bool args)
{
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V1, "init");
    if (args && !swapped) {
        pmc_enc_int(&e, "pmi_version", v);
        pmc_enc_int(&e, "pmi_subversion", s);
    } else if (args) { /* INIT-4: found by key, whatever the order */
        pmc_enc_int(&e, "pmi_subversion", s);
        pmc_enc_int(&e, "pmi_version", v);
    }
    pmc_msg m;
    if (pcf_call(c, &e, "response_to_init", &m) != 0)
        return -1;
    char b[300];
    long long rc = -1, rv = -1, rs = -1;
    int hr = pcf_rc(&m, &rc);
    pmc_msg_get_int(&m, "pmi_version", &rv);
    pmc_msg_get_int(&m, "pmi_subversion", &rs);
    pcf_show(&m, b, sizeof b);
    if (!args) {
        pcf_observe(c, hr == 1 && rc != 0 ? "ok" : "accepted", "init without versions: %s", b);
    } else if (v == 1) { /* INIT-7: rc=0, major 1, the server's subversion (1 or 2) */
        if (hr == 1 && rc == 0 && rv == 1 && (rs == 1 || rs == 2))
            pcf_observe(c, "ok", "asked for 1.%lld: %s", s, b);
        else
            pcf_observe(c, "refused", "asked for 1.%lld: %s", s, b);
    } else if (v == 2) { /* INIT-10 */
        if (hr == 1 && rc == 0 && rv == 2 && rs == 0)
            pcf_observe(c, "ok", "asked for 2.%lld: %s", s, b);
        else
            pcf_observe(c, "refused", "asked for 2.%lld: %s", s, b);
    } else { /* INIT-8: refusal with rc != 0 and a version it speaks */
        if (hr == 1 && rc != 0 && (rv == 1 || rv == 2))
            pcf_observe(c, "ok", "asked for %lld.%lld: %s", v, s, b);
        else if (hr == 1 && rc == 0)
            pcf_observe(c, "accepted", "asked for %lld.%lld: %s", v, s, b);
        else
            pcf_observe(c, "bad-refusal", "asked for %lld.%lld: %s", v, s, b);
    }
    return hr == 1 && rc == 0 && rv == v;
}

/* INIT-4 with two different numbers (1.0 swapped: a reader by position sees
 * version 0).  A server that refuses 1.0 whatever the order (INIT-7, graded
 * by pmi1/init/version-1-0) is asked for 1.1 swapped instead, so the case
 * grades the key parsing and not the 1.0 refusal. */
static void run_swapped(pcf_ctx *c)
{
    pmc_enc e;
    pmc_msg m;
    char b[300], b0[300];
    long long rc = -1, rv = -1, rs = -1;
    for (int step = 0; step < 3; step++) {
        long long s = step == 2 ? 1 : 0;
        bool swapped = step != 1;
        pmc_enc_begin(&e, PMC_WIRE_V1, "init");
        if (swapped) {
            pmc_enc_int(&e, "pmi_subversion", s);
            pmc_enc_int(&e, "pmi_version", 1);
        } else {
            pmc_enc_int(&e, "pmi_version", 1);
            pmc_enc_int(&e, "pmi_subversion", s);
        }
        if (pcf_call(c, &e, "response_to_init", &m) != 0)
            return;
        rc = rv = rs = -1;
        int hr = pcf_rc(&m, &rc);
        pmc_msg_get_int(&m, "pmi_version", &rv);
        pmc_msg_get_int(&m, "pmi_subversion", &rs);
        bool ok = hr == 1 && rc == 0 && rv == 1;
        pcf_show(&m, step == 0 ? b0 : b, sizeof b);
        if (step == 0 && ok) {
            pcf_observe(c, "ok", "1.0 with the keys swapped: %s", b0);
            return;
        }
        if (step == 1 && ok) {
            pcf_observe(c, "refused", "1.0 with the keys swapped: %s; in the usual order: %s",
                        b0, b);
            return;
        }
        if (step == 2) {
            if (ok)
                pcf_observe(c, "ok", "1.0 is refused in either order (%s); 1.1 with the keys "
                                     "swapped: %s", b0, b);
            else
                pcf_observe(c, "refused", "1.1 with the keys swapped: %s", b);
        }
    }
}

static void run_1_0(pcf_ctx *c) { reinit(c, 1, 0, false, true); }
static void run_1_2(pcf_ctx *c) { reinit(c, 1, 2, false, true); }
static void run_3_0(pcf_ctx *c) { reinit(c, 3, 0, false, true); }
static void run_2_1(pcf_ctx *c) { reinit(c, 2, 1, false, true); }

static void run_no_args(pcf_ctx *c) { reinit(c, 0, 0, false, false); }

#define LOST                                                                                     \
    { "job-killed", PCF_FAIL, "ERR-1", "the server ended the job" },                             \
    { "sender-killed", PCF_FAIL, "INIT-8", "the server ended the process" },                     \
    { "closed", PCF_FAIL, "INIT-13", "closed the connection instead of answering" },             \
    { "others-affected", PCF_FAIL, "ERR-2", "other connections stopped being served" }

static const pcf_case cases[] = {
    { .id = "pmi1/init/version-1-0", .desc = "init 1.0 is answered as version 1",
      .clause = "INIT-7", .expected = "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1|2",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_1_0,
      .outcomes = { { "refused", PCF_DEVIATES, NULL, "did not answer rc=0 with major 1" }, LOST } },
    { .id = "pmi1/init/version-1-2",
      .desc = "init 1.2 is answered rc=0 with major 1 (M2: Hydra 4.0 ends the job)",
      .clause = "INIT-7", .expected = "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1|2",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_1_2,
      .outcomes = { { "refused", PCF_DEVIATES, NULL, "did not answer rc=0 with major 1" }, LOST } },
    { .id = "pmi1/init/refuse-3-0", .desc = "init 3.0 is refused with rc != 0 and a version it speaks",
      .clause = "INIT-8", .expected = "cmd=response_to_init rc!=0 pmi_version=1|2 ...",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_3_0,
      .outcomes = { { "accepted", PCF_DEVIATES, NULL, "answered rc=0 to version 3" },
                    { "bad-refusal", PCF_DEVIATES, NULL, "refused without a version it speaks" },
                    LOST } },
    { .id = "pmi1/init/version-2-1",
      .desc = "init 2.1 is answered rc=0 pmi_version=2 pmi_subversion=0 (M2)",
      .clause = "INIT-10", .expected = "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_2_1,
      .outcomes = { { "refused", PCF_DEVIATES, NULL, "did not answer 2.0" }, LOST } },
    { .id = "pmi1/init/keys-swapped",
      .desc = "init with pmi_subversion before pmi_version is read by key (B2); 1.0, or 1.1 "
              "when the server refuses 1.0 in either order",
      .clause = "INIT-4", .expected = "cmd=response_to_init rc=0 pmi_version=1 ...",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_swapped,
      .outcomes = { { "refused", PCF_DEVIATES, NULL, "read the keys by position" }, LOST } },
    { .id = "pmi1/init/no-versions",
      .desc = "init without pmi_version and pmi_subversion (B2: the Hydra 4.0 proxy segfaults)",
      .clause = "PAIR-6", .expected = "cmd=response_to_init rc!=0 ...",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_no_args,
      .outcomes = { { "accepted", PCF_DEVIATES, NULL, "answered rc=0 without versions" },
                    { "job-killed", PCF_FAIL, "ERR-1", "the server ended the job" },
                    { "sender-killed", PCF_NON_STRICT, "ERR-4", "the server ended the process" },
                    { "closed", PCF_DEVIATES, "ERR-4", "closed the connection without an answer" },
                    { "others-affected", PCF_FAIL, "ERR-2", "other connections stopped being served" } } },
};
PCF_CASES(cases)
