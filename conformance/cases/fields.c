/* frame/...: fields spelled as SPEC.md asks receivers to take or refuse:
 * a boolean that is neither TRUE nor FALSE (BOOL-3: refused, not guessed)
 * and a key with bytes outside [-_A-Za-z0-9] (KEY-2: accepted). */
#include "damage.h"

/* info-getnodeattr key=K wait=<spelled> pipelined with info-putnodeattr K,
 * so a server that guesses TRUE answers the get once the put arrives. */
static void other_bool(pcf_ctx *c, const char *spelled)
{
    char key[64], t1[16], t2[16];
    snprintf(key, sizeof key, "%s-bool3", pcf_tag(c));
    snprintf(t1, sizeof t1, "b3g%d", pcf_rank(c));
    snprintf(t2, sizeof t2, "b3p%d", pcf_rank(c));
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V2, "info-getnodeattr");
    pmc_enc_str(&e, "thrid", t1);
    pmc_enc_str(&e, "key", key);
    pmc_enc_bool(&e, "wait", true);
    if (pcfd_encode(c, &e, NULL, &o) != 0)
        return;
    long at = pcfd_find(&o, 0, "wait=TRUE");
    if (at < 0 || pcfd_insert(&o, (size_t)at + 5, spelled, strlen(spelled)) != 0) {
        pcf_observe(c, "harness-error", "cannot respell the boolean");
        pmc_out_free(&o);
        return;
    }
    pcfd_cut(&o, (size_t)at + 5 + strlen(spelled), 4);
    if (pcfd_fix_len(&o, 0, o.len) != 0) {
        pcf_observe(c, "harness-error", "cannot fix the length field");
        pmc_out_free(&o);
        return;
    }
    pmc_enc_begin(&e, PMC_WIRE_V2, "info-putnodeattr");
    pmc_enc_str(&e, "thrid", t2);
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", "guessed");
    if (pcfd_encode(c, &e, NULL, &o) == 0 && pcfd_send(c, &o) == 0) {
        /* two answers in any order (THRID-7), told apart by their names */
        for (int i = 0; i < 2 && !pcf_observed(c); i++) {
            pmc_msg m;
            pmc_error err;
            char b[200];
            pws_result r = pcf_recv(c, &m, &err);
            if (r != PWS_MSG) {
                pcf_observe(c, r == PWS_EOF ? "closed" : r == PWS_TIMEOUT ? "no-answer"
                                                                          : "bad-response",
                            "waiting for the nodeattr answers: %s", pws_result_name(r));
                break;
            }
            if (!pmc_slice_eq(m.name, "info-getnodeattr-response"))
                continue;
            long long rc = 0;
            bool found = false;
            pcf_show(&m, b, sizeof b);
            if (pcf_rc(&m, &rc) == 1 && rc != 0) {
                pcf_observe(c, "rejected", "wait=%s refused: %s", spelled, b);
            } else {
                pmc_msg_get_bool(&m, "found", &found, NULL);
                pcf_observe(c, found ? "read-as-true" : "read-as-false",
                            "wait=%s was taken as %s: %s", spelled, found ? "TRUE" : "FALSE", b);
            }
        }
    }
    pmc_out_free(&o);
}

static void run_bool_one(pcf_ctx *c) { other_bool(c, "1"); }
static void run_bool_yes(pcf_ctx *c) { other_bool(c, "yes"); }

/* job-getid with one more pair whose key has '.', ':' and '/' (PAIR-5: an
 * unknown key is ignored; KEY-2: its bytes are no reason to refuse). */
static void run_key_bytes(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    pmc_enc_str(&e, "x-y_z-w", "1");
    if (pcfd_encode(c, &e, NULL, &o) != 0)
        return;
    long at = pcfd_find(&o, 0, "x-y_z-w=");
    if (at < 0) {
        pcf_observe(c, "harness-error", "the extra key is not in the frame");
        pmc_out_free(&o);
        return;
    }
    memcpy(o.buf + at, "x.y:z/w", 7); /* same length: the length field stays right */
    if (pcfd_send(c, &o) == 0)
        pcfd_grade(c, "job-getid-response", NULL);
    pmc_out_free(&o);
}

#define GUESS_OUTCOMES                                                                           \
    { "rejected", PCF_PASS, NULL, "answered rc != 0" },                                          \
    { "read-as-false", PCF_DEVIATES, NULL, "guessed FALSE (answered not found at once)" },       \
    { "read-as-true", PCF_DEVIATES, NULL, "guessed TRUE (waited for the put)" },                 \
    { "closed", PCF_DEVIATES, "ERR-4", "closed the connection without an answer" },              \
    { "no-answer", PCF_DEVIATES, "ERR-3", "neither answered nor closed" },                       \
    PCFD_KILLED

static const pcf_case cases[] = {
    { .id = "frame/bool-other-spelling",
      .desc = "info-getnodeattr wait=1 is refused with rc != 0, not read as TRUE or FALSE",
      .clause = "BOOL-3", .expected = "info-getnodeattr-response with rc != 0",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_bool_one, .outcomes = { GUESS_OUTCOMES } },
    { .id = "frame/bool-yes",
      .desc = "info-getnodeattr wait=yes is refused with rc != 0, not read as TRUE or FALSE",
      .clause = "BOOL-3", .expected = "info-getnodeattr-response with rc != 0",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_bool_yes, .outcomes = { GUESS_OUTCOMES } },
    { .id = "frame/key-other-bytes",
      .desc = "an unknown key with '.', ':' and '/' in it does not make job-getid fail",
      .clause = "KEY-2", .expected = "cmd=job-getid-response;rc=0;...",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_key_bytes,
      .outcomes = { { "accepted", PCF_PASS, NULL, "answered rc=0" },
                    { "error-response", PCF_DEVIATES, NULL, "refused the request" },
                    { "error-then-close", PCF_DEVIATES, NULL, "refused, then closed" },
                    { "closed", PCF_DEVIATES, NULL, "closed the connection" },
                    { "no-answer", PCF_DEVIATES, "ERR-3", "neither answered nor closed" },
                    PCFD_KILLED } },
};
PCF_CASES(cases)
