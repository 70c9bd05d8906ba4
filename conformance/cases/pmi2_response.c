/* pmi2/response: the form of the server's own frames beyond what the
 * command cases read (every pair has a key of the allowed characters and
 * an '=', no key twice, nothing after the last ';'), error text on a
 * refusal, and keys compared case-sensitively (KEY-3). */
#include "pmi2_util.h"

/* Forms a response must not have, as the session's decoder notes them. */
static const struct {
    uint32_t note;
    const char *outcome;
} bad_forms[] = {
    { PMC_NOTE_BARE_KEY | PMC_NOTE_EMPTY_TOKEN, "bare-pair" },
    { PMC_NOTE_DUP_KEY, "dup-key" },
    { PMC_NOTE_KEY_CHARS, "key-chars" },
    { PMC_NOTE_TRAILING_JUNK, "junk" },
    { PMC_NOTE_NUL_IN_VALUE, "nul" },
};

/* 0 when the response is well formed; -1 after observing what is wrong. */
static int check_form(pcf_ctx *c, const pmc_msg *m)
{
    char b[300];
    for (size_t i = 0; i < sizeof bad_forms / sizeof bad_forms[0]; i++)
        if (m->notes & bad_forms[i].note) {
            pcf_observe(c, bad_forms[i].outcome, "%s", pcf_show(m, b, sizeof b));
            return -1;
        }
    return 0;
}

static int form_of(pcf_ctx *c, pmc_enc *e, const char *reply)
{
    pmc_msg m;
    if (pcf_call(c, e, reply, &m))
        return -1;
    return check_form(c, &m);
}

/* Five ordinary requests, each answer checked. */
static void run_form(pcf_ctx *c)
{
    char key[64];
    snprintf(key, sizeof key, "%s-nokey", pcf_tag(c));
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    if (form_of(c, &e, "job-getid-response"))
        return;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(&e, "key", key);
    if (form_of(c, &e, "kvs-get-response"))
        return;
    pmc_enc_begin(&e, PMC_WIRE_V2, "info-getjobattr");
    pmc_enc_str(&e, "key", "universeSize");
    if (form_of(c, &e, "info-getjobattr-response"))
        return;
    pmc_enc_begin(&e, PMC_WIRE_V2, "info-getjobattr");
    pmc_enc_str(&e, "key", key);
    if (form_of(c, &e, "info-getjobattr-response"))
        return;
    pmc_enc_begin(&e, PMC_WIRE_V2, "info-getnodeattr");
    pmc_enc_str(&e, "key", key);
    if (form_of(c, &e, "info-getnodeattr-response"))
        return;
    pcf_observe(c, "ok", "five responses, every pair key=value; with allowed keys, none twice");
}

/* RC-7: a refusal says why.  kvs-get of the caller's own key naming a job
 * that does not exist is refused by a server that reads jobid (KVS-9); one
 * that ignores it answers from the caller's job.  An rc != 0 miss (Hydra
 * 4.1+'s form, KVS-4) is not a refusal: a plain get of the key tells. */
static void run_errmsg(pcf_ctx *c)
{
    char bogus[96], key[64];
    snprintf(bogus, sizeof bogus, "pcf-no-such-job-%s", pcf_tag(c));
    snprintf(key, sizeof key, "%s-em-r%d", pcf_tag(c), pcf_rank(c));
    if (pcf_kvs_put(c, key, "own"))
        return;
    pmc_enc e;
    p2r r, plain;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(&e, "jobid", bogus);
    pmc_enc_str(&e, "key", key);
    if (p2_call(c, &e, "kvs-get-response", &r))
        return;
    if (!p2_fail(&r)) {
        pcf_observe(c, "ok", "not refused (jobid not read): %s", r.show);
        return;
    }
    if (r.errmsg[0]) {
        pcf_observe(c, "ok", "refused with errmsg: %s", r.show);
        return;
    }
    if (p2_kvs_get(c, key, &plain))
        return;
    if (p2_hit(&plain))
        pcf_observe(c, "no-errmsg", "refused without errmsg: %s", r.show);
    else
        pcf_observe(c, "cannot-tell", "rc != 0 without errmsg, but the key is not visible "
                                      "without jobid either (a miss?): %s", r.show);
}

/* KEY-3: "Value" is not "value".  The put carries Value=wrong before
 * value=right; the key must come back as "right".  Every rank fences once
 * (own puts need not be visible before it, FENCE-7). */
static void run_key_case(pcf_ctx *c)
{
    char key[64];
    snprintf(key, sizeof key, "%s-kc-r%d", pcf_tag(c), pcf_rank(c));
    pmc_enc e;
    p2r r;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "Value", "wrong");
    pmc_enc_str(&e, "value", "right");
    if (p2_call(c, &e, "kvs-put-response", &r))
        return;
    if (!p2_ok(&r)) {
        pcf_observe(c, "put-refused", "%s", r.show);
        pcf_kvs_fence(c);
        return;
    }
    if (pcf_kvs_fence(c) || p2_kvs_get(c, key, &r))
        return;
    if (p2_value_is(&r, "right", 5))
        pcf_observe(c, "ok", "Value= was another key: %s", r.show);
    else if (p2_value_is(&r, "wrong", 5))
        pcf_observe(c, "case-folded", "Value= was taken for value=: %s", r.show);
    else
        pcf_observe(c, "lost", "%s", r.show);
}

static const pcf_case cases[] = {
    { .id = "pmi2/response/form",
      .desc = "five ordinary responses: every pair key=value; with allowed key bytes, no key twice",
      .clause = "BODY-10", .expected = "no bare or empty pair, no repeated key, no bytes after the last ';'",
      .flags = PCF_V2, .run = run_form,
      .outcomes = { { "bare-pair", PCF_DEVIATES, NULL, "a pair without '=' or an empty pair" },
                    { "dup-key", PCF_DEVIATES, "PAIR-3", "a key twice in one response" },
                    { "key-chars", PCF_DEVIATES, "KEY-1", "a key outside [-_A-Za-z0-9]" },
                    { "junk", PCF_DEVIATES, "BODY-5", "bytes after the final ';'" },
                    { "nul", PCF_DEVIATES, "VAL-2", "a NUL byte in a value" } } },
    { .id = "pmi2/response/errmsg",
      .desc = "a refused kvs-get (a job that does not exist) carries errmsg",
      .clause = "RC-7", .expected = "rc!=0 with errmsg=<text> (or no refusal: jobid not read)",
      .flags = PCF_V2, .run = run_errmsg,
      .outcomes = { { "no-errmsg", PCF_DEVIATES, NULL, "rc != 0 without errmsg" },
                    { "cannot-tell", PCF_INFO, NULL, "a refusal cannot be told from a miss here" },
                    { "put-refused", PCF_INFO, "KVS-1", "the put needed for the check was refused" } } },
    { .id = "pmi2/kvs/key-case",
      .desc = "kvs-put with Value=wrong before value=right stores \"right\"",
      .clause = "KEY-3", .expected = "the get after the fence returns right",
      .steps = "Every rank sends kvs-put with key=<tag>-kc-r<rank>, Value=wrong and then "
               "value=right: keys are case-sensitive, so Value is an unknown key.\n"
               "A put refused for the unknown key is \"put-refused\" (PAIR-5).\n"
               "It fences and gets the key: right passes; wrong is \"case-folded\"; anything else "
               "\"lost\".",
      .flags = PCF_V2, .run = run_key_case,
      .outcomes = { { "case-folded", PCF_DEVIATES, NULL, "keys compared without regard to case" },
                    { "put-refused", PCF_DEVIATES, "PAIR-5", "the unknown key Value made the put fail" },
                    { "lost", PCF_DEVIATES, "KVS-1", "the put was not stored" } } },
};
PCF_CASES(cases)
