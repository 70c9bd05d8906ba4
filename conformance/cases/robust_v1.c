/* robust/v1-...: broken PMI-1 lines: a CR where the LF belongs, a line
 * without end, a 5000-byte line, a response sent to the server, the end of
 * the stream inside a line.  Built by the encoder, then damaged. */
#include "damage.h"

#include <stdlib.h>

/* "cmd=get_maxes\r" + "cmd=get_appnum\n": the first line has no LF, so the
 * server sees one line with a CR inside its command name. */
static void run_cr_only(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_maxes");
    if (pcfd_encode(c, &e, NULL, &o) == 0) {
        o.buf[o.len - 1] = '\r';
        pmc_enc_begin(&e, PMC_WIRE_V1, "get_appnum");
        if (pcfd_encode(c, &e, NULL, &o) == 0 && pcfd_send(c, &o) == 0)
            pcfd_grade(c, NULL, NULL);
    }
    pmc_out_free(&o);
}

static void run_response_to_server(pcf_ctx *c)
{
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V1, "maxes");
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_int(&e, "kvsname_max", 256);
    if (pcf_send(c, &e) == 0)
        pcfd_grade(c, NULL, NULL);
}

/* A put line of 200 000 bytes without its LF. */
static void run_line_flood(pcf_ctx *c)
{
    enum { N = 200000 };
    char *val = malloc(N + 1);
    if (!val) {
        pcf_observe(c, "harness-error", "out of memory");
        return;
    }
    memset(val, 'a', N);
    val[N] = 0;
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    pmc_enc_str(&e, "kvsname", pcf_kvsname(c));
    pmc_enc_str(&e, "key", "pcf-flood");
    pmc_enc_str(&e, "value", val);
    if (pcfd_encode(c, &e, NULL, &o) == 0) {
        o.len--; /* no LF */
        if (pcfd_send(c, &o) == 0)
            pcfd_grade(c, NULL, NULL);
    }
    free(val);
    pmc_out_free(&o);
}

/* Half a line, then the end of the stream. */
static void run_disconnect_mid_line(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_universe_size");
    if (pcfd_encode(c, &e, NULL, &o) == 0 && pcf_send_raw(c, o.buf, 10) == 0) {
        pws_shutdown_write(pcf_session(c));
        pws_result r = pws_wait_eof(pcf_session(c), pcf_deadline(c));
        if (r == PWS_EOF || r == PWS_BAD) {
            pcf_observe(c, "ok", "after the client's end of stream the server closed");
        } else if (r == PWS_MSG) {
            pcf_observe(c, "accepted", "the half line was answered");
        } else {
            pcf_observe(c, "not-closed", "the server kept the connection");
        }
    }
    pmc_out_free(&o);
}

/* Every rank puts a 5000-byte value (a line of over 5 KB), barrier, get. */
static void run_line_5000(pcf_ctx *c)
{
    enum { N = 5000 };
    char key[64], *val = malloc(N + 1), *got = malloc(N + 64);
    if (!val || !got) {
        pcf_observe(c, "harness-error", "out of memory");
        free(val);
        free(got);
        return;
    }
    snprintf(key, sizeof key, "%s-l5k-r%d", pcf_tag(c), pcf_rank(c));
    memset(val, 'L', N);
    val[N] = 0;
    pmc_enc e;
    pmc_msg m;
    long long rc = -1;
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    pmc_enc_str(&e, "kvsname", pcf_kvsname(c));
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", val);
    if (pcfd_collective_start(c) == 0 && pcf_call(c, &e, "put_result", &m) == 0) {
        bool refused = pcf_rc(&m, &rc) != 1 || rc != 0;
        bool found = false;
        if (pcf_kvs_fence(c) == 0) {
            if (refused)
                pcf_observe(c, "put-refused", "refused the 5000-byte value");
            else if (pcf_kvs_get(c, key, &found, got, N + 64, NULL) == 0) {
                if (found && strlen(got) == N)
                    pcf_observe(c, "ok", "5000 bytes stored and returned whole");
                else
                    pcf_observe(c, "truncated", "put 5000 bytes with rc=0, got %zu%s",
                                strlen(got), found ? "" : " (not found)");
            }
        }
    }
    free(val);
    free(got);
    pcfd_collective_end(c);
}

static const pcf_case cases[] = {
    { .id = "robust/v1-cr-only",
      .desc = "a PMI-1 line ended by CR alone, then a valid line (\"cmd=get_maxes\\rcmd=get_appnum\\n\")",
      .clause = "V1-5",
      .expected = "the CR is no separator: the command is \"get_maxes\\rcmd=get_appnum\", "
                  "unknown, so an error answer (ERR-7) or a close; never get_maxes's answer",
      .steps = "In a PMI-1 launch, a victim rank (the case may end the job) sends "
               "\"cmd=get_maxes\\rcmd=get_appnum\\n\" in one write: the first line ends with CR "
               "alone.\n"
               "A CR is no separator (V1-5): the command is \"get_maxes\\rcmd=get_appnum\", which "
               "no server knows. Answering maxes is \"accepted\" (the CR taken for a separator); "
               "any error answer passes, unless it sends the CR back inside its line "
               "(\"cr-in-answer\", V1-9: a value the server sends holds no CR).\n"
               PCFD_STEPS_DELIMITED,
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_cr_only,
      /* the value of cmd runs to the next space or LF (V1-5): a server that
       * answers maxes took the CR for a separator */
      .outcomes = { { "accepted", PCF_DEVIATES, "V1-5",
                      "took the CR for a separator and answered the line as get_maxes" },
                    /* read as V1-5 says, but the error answer echoes the
                     * command name with its CR: a PMI-1 value the server
                     * sends must not hold one */
                    { "cr-in-answer", PCF_FAIL, "V1-9",
                      "the error answer carries the CR back inside its line" },
                    PCFD_DELIMITED("ERR-7"),
                    { "wrong-response", PCF_PASS, NULL, "answered with an error" } } },
    { .id = "robust/v1-response-to-server",
      .desc = "a PMI-1 response (cmd=maxes ...) sent to the server",
      .clause = "ERR-7", .expected = "an error answer (or a close); never the end of the job",
      .steps = "In a PMI-1 launch, a victim rank (the case may end the job) sends cmd=maxes rc=0 "
               "kvsname_max=256, a response, as if it were a request.\n"
               "Any error answer passes, under any name (ERR-7).\n"
               PCFD_STEPS_DELIMITED,
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_response_to_server,
      .outcomes = { PCFD_DELIMITED("ERR-7"),
                    { "wrong-response", PCF_PASS, NULL, "answered with an error" } } },
    { .id = "robust/v1-line-flood", .desc = "a PMI-1 line of 200 000 bytes without its LF",
      .clause = "ERR-5", .expected = "the server closes the connection once the line passes its limit",
      .steps = "In a PMI-1 launch, a victim rank (the case may end the job) sends a put line of "
               "200 000 bytes (a 200 000-byte value) without its LF.\n"
               "The line passes the PMI-1 line limit (LIMIT-8) long before it ends, so the server "
               "must give up on the stream (ERR-5).\n"
               PCFD_STEPS_FRAMING,
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_line_flood,
      .outcomes = { PCFD_FRAMING("LIMIT-8") } },
    { .id = "robust/disconnect-mid-line",
      .desc = "10 bytes of a PMI-1 line, then the client ends its stream",
      .clause = "ERR-5", .expected = "the server closes; ending the job is a CONN-6 policy (INFO)",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_disconnect_mid_line,
      .outcomes = { { "accepted", PCF_DEVIATES, NULL, "answered a half line" },
                    { "not-closed", PCF_DEVIATES, NULL, "kept the connection" },
                    { "job-killed", PCF_INFO, "CONN-6", "the job ended when the client's stream "
                                                        "ended before finalize" },
                    { "sender-killed", PCF_INFO, "CONN-6", "the sender was ended" },
                    { "others-affected", PCF_FAIL, "ERR-2", "others stopped being served" } } },
    { .id = "robust/v1-line-5000",
      .desc = "a PMI-1 put line of over 5000 bytes (a 5000-byte value)",
      .clause = "LIMIT-3",
      .expected = "rc!=0, a close, or the 5000 bytes back after the barrier; never a shortened value",
      .flags = PCF_V1 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_line_5000,
      /* A server that reads the line in pieces may lose the value (rc=0,
       * nothing stored) or answer nothing more, depending on how the bytes
       * arrive (real Slurm 22.05 does either, by load): both are the line
       * breaking the session, one verdict. */
      .outcomes = { { "put-refused", PCF_PASS, NULL, "refused the value" },
                    { "closed", PCF_PASS, "ERR-5", "closed: the line is above its limit" },
                    { "job-killed", PCF_FAIL, "ERR-1", "the job ended" },
                    { "no-answer", PCF_FAIL, NULL,
                      "no answer after the long line: it broke the session" } } },
};
PCF_CASES(cases)
