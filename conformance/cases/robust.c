/* robust/...: malformed input, graded on what the server does with it: an
 * error response, closing that connection, ending the job (FAIL, ERR-1), or
 * nothing at all (TIMEOUT).  Destructive: each runs on a victim rank, last,
 * or in a launch of its own with --launch.  The bad bytes are made from a
 * message the codec encoded, then damaged on purpose. */
#include "damage.h" /* the steps text shared with the other robust files */

#include <stdio.h>
#include <string.h>

/* How long to ask whether the connection is still served after an error
 * answer (pcf_ask_served: a server that keeps it answers at once). */
enum { ASK_MS = 1500 };

/* After the bad bytes: wait for the answer and classify it.  `word`: what
 * the error text should name (ERR-8), or NULL. */
static void grade_reaction_naming(pcf_ctx *c, const char *reply, const char *word)
{
    pmc_msg m;
    pmc_error err;
    char b[300];
    pws_result r = pcf_recv(c, &m, &err);
    if (r == PWS_MSG) {
        long long rc = 0;
        int h = pcf_rc(&m, &rc);
        if (!pmc_slice_eq(m.name, reply)) {
            pcf_observe(c, "wrong-response", "expected %s, got %s", reply,
                        pcf_show(&m, b, sizeof b));
            return;
        }
        if (h != 1 || rc == 0) {
            pcf_observe(c, "accepted", "answered as if valid: %s", pcf_show(&m, b, sizeof b));
            return;
        }
        char em[200];
        if (word && (!pcf_get(&m, "errmsg", em, sizeof em) || !strstr(em, word))) {
            pcf_observe(c, "vague-errmsg", "the error text does not name %s: %s", word,
                        pcf_show(&m, b, sizeof b));
            return;
        }
        if (word && strpbrk(em, ";\n")) { /* RC-8: one short line, no ';' */
            pcf_observe(c, "errmsg-form", "the error text holds ';' or a line break: %s",
                        pcf_show(&m, b, sizeof b));
            return;
        }
        /* an error answer; does the server then close (framing errors must)?
         * Shown first: the question's answer reuses the buffer m points into. */
        pcf_show(&m, b, sizeof b);
        if (pcf_ask_served(c, ASK_MS) == PWS_EOF)
            pcf_observe(c, "error-then-close", "%s, then closed", b);
        else
            pcf_observe(c, "error-response", "%s (connection kept open)", b);
        return;
    }
    if (r == PWS_EOF) { /* whether the job also ended, rank 0 asks next */
        pcf_observe(c, "closed", "the server closed the connection without an answer");
        return;
    }
    if (r == PWS_TIMEOUT) {
        pcf_observe(c, "no-answer", "neither an answer nor a close within the deadline");
        return;
    }
    char eb[PCF_ERR_TEXT];
    pcf_observe(c, "bad-response", "%s: %s", pws_result_name(r),
                pcf_decode_error(c, &err, eb, sizeof eb));
}

static void grade_reaction(pcf_ctx *c, const char *reply)
{
    grade_reaction_naming(c, reply, NULL);
}

/* A job-getid frame whose six-byte length field is replaced by `field`. */
static void bad_length(pcf_ctx *c, const char field[6])
{
    pmc_enc e;
    pmc_out out = { 0 };
    pmc_error err;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    if (pmc_enc_end(&e, NULL, &out, &err) != 0 || out.len < 6) {
        pcf_observe(c, "harness-error", "encoder failed");
        pmc_out_free(&out);
        return;
    }
    memcpy(out.buf, field, 6);
    pcf_note(c, "length field replaced by '%.6s'", field);
    if (pcf_send_raw(c, out.buf, out.len) == 0)
        grade_reaction(c, "job-getid-response");
    pmc_out_free(&out);
}

static void run_len_negative(pcf_ctx *c)
{
    bad_length(c, "    -5");
}

static void run_len_garbage(pcf_ctx *c)
{
    bad_length(c, "abcdef");
}

static void run_unknown_v2(pcf_ctx *c)
{
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "pcf-frobnicate");
    pmc_enc_str(&e, "key", "x");
    if (pcf_send(c, &e) == 0)
        grade_reaction(c, "pcf-frobnicate-response");
}

static void run_unknown_v1(pcf_ctx *c)
{
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V1, "pcf_frobnicate");
    if (pcf_send(c, &e) == 0)
        grade_reaction(c, "pcf_frobnicate_result");
}

static void run_missing_key(pcf_ctx *c)
{
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "value", "v");
    if (pcf_send(c, &e) == 0)
        grade_reaction_naming(c, "kvs-put-response", "key");
}

/* Outcome tables.  Framing errors (ERR-5): closing is required; an error
 * answer followed by the close is as good.  Delimited messages (ERR-3/4/7):
 * an error answer is best, a close is tolerated (SHOULD). */
#define KILLED                                                                                   \
    { "job-killed", PCF_FAIL, "ERR-1", "the server ended the job" },                             \
    { "sender-killed", PCF_NON_STRICT, "ERR-4", "only the sender was ended" },                   \
    { "others-affected", PCF_FAIL, "ERR-2", "other connections stopped being served" }

static const pcf_case cases[] = {
    { .id = "robust/len-negative", .desc = "a length field with a sign (\"    -5\")",
      .clause = "FRAME-5",
      .expected = "the server closes the connection (a fatal framing error, ERR-5)",
      .steps = "A victim rank (the case may end the job) sends a job-getid frame whose six-byte "
               "length field is replaced by \"    -5\".\n"
               PCFD_STEPS_FRAMING,
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_len_negative,
      .outcomes = { { "closed", PCF_PASS, "ERR-5", "closed the connection" },
                    { "error-then-close", PCF_PASS, "ERR-5", "answered with an error, then closed" },
                    { "error-response", PCF_DEVIATES, "ERR-5", "answered but kept reading a broken stream" },
                    { "accepted", PCF_DEVIATES, "FRAME-5", "read the length as a number" },
                    KILLED } },
    { .id = "robust/len-garbage", .desc = "a length field of letters (\"abcdef\")",
      .clause = "FRAME-5",
      .expected = "the server closes the connection (a fatal framing error, ERR-5)",
      .steps = "A victim rank (the case may end the job) sends a job-getid frame whose six-byte "
               "length field is replaced by \"abcdef\".\n"
               PCFD_STEPS_FRAMING,
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_len_garbage,
      .outcomes = { { "closed", PCF_PASS, "ERR-5", "closed the connection" },
                    { "error-then-close", PCF_PASS, "ERR-5", "answered with an error, then closed" },
                    { "error-response", PCF_DEVIATES, "ERR-5", "answered but kept reading a broken stream" },
                    { "accepted", PCF_DEVIATES, "FRAME-5", "read the length as a number" },
                    KILLED } },
    { .id = "robust/unknown-command", .desc = "an unknown PMI-2 command",
      .clause = "ERR-7",
      .expected = "cmd=pcf-frobnicate-response;rc!=0;errmsg=...; and the connection stays open",
      .steps = "A victim rank (the case may end the job) sends cmd=pcf-frobnicate;key=x;, a "
               "command no server knows.\n"
               "ERR-7 asks for cmd=pcf-frobnicate-response with rc != 0 and the connection kept "
               "open; an answer with rc=0 is \"accepted\" (ERR-3).\n"
               PCFD_STEPS_DELIMITED,
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_unknown_v2,
      .outcomes = { { "error-response", PCF_PASS, NULL, "answered with an error" },
                    { "error-then-close", PCF_PASS, NULL, "answered with an error, then closed" },
                    { "closed", PCF_DEVIATES, NULL, "closed without an answer (ERR-3 allows it)" },
                    { "accepted", PCF_DEVIATES, "ERR-3", "answered rc=0 to an unknown command" },
                    KILLED } },
    { .id = "robust/v1-unknown-command", .desc = "an unknown PMI-1 command",
      .clause = "ERR-7",
      .expected = "cmd=pcf_frobnicate_result rc!=0 msg=... and the connection stays open",
      /* a PMI-1 line: planned into a PMI-1 launch (on a PMI-2 connection it
       * would grade mixed traffic, CLASS-2, and miss PMI-1-only servers) */
      .steps = "In a PMI-1 launch, a victim rank (the case may end the job) sends "
               "cmd=pcf_frobnicate, a PMI-1 command no server knows.\n"
               "ERR-7 asks for cmd=pcf_frobnicate_result with rc != 0; an answer with rc=0 is "
               "\"accepted\" (ERR-3).\n"
               PCFD_STEPS_DELIMITED,
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_unknown_v1,
      .outcomes = { { "error-response", PCF_PASS, NULL, "answered with an error" },
                    { "error-then-close", PCF_PASS, NULL, "answered with an error, then closed" },
                    { "closed", PCF_DEVIATES, NULL, "closed without an answer (ERR-3 allows it)" },
                    { "accepted", PCF_DEVIATES, "ERR-3", "answered rc=0 to an unknown command" },
                    KILLED } },
    { .id = "robust/missing-key", .desc = "kvs-put without its required key",
      .clause = "KVS-2",
      .expected = "cmd=kvs-put-response;rc!=0;... and nothing stored",
      .steps = "A victim rank (the case may end the job) sends kvs-put with value=v and no key.\n"
               "The error answer it waits for must also name the key in errmsg (else "
               "\"vague-errmsg\", ERR-8) and be one line without ';' (else \"errmsg-form\", "
               "RC-8).\n"
               PCFD_STEPS_DELIMITED,
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_missing_key,
      .outcomes = { { "error-response", PCF_PASS, NULL, "answered with an error" },
                    { "error-then-close", PCF_PASS, NULL, "answered with an error, then closed" },
                    { "closed", PCF_DEVIATES, "ERR-4", "closed without an answer" },
                    { "accepted", PCF_DEVIATES, "KVS-2", "answered rc=0" },
                    { "vague-errmsg", PCF_DEVIATES, "ERR-8", "the error text does not name the missing key" },
                    { "errmsg-form", PCF_DEVIATES, "RC-8", "the error text is not one line without ';'" },
                    KILLED } },
};
PCF_CASES(cases)
