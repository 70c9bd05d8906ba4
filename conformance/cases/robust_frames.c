/* robust/len-*, robust/disconnect-*, junk and floods: broken PMI-2 framing,
 * graded on what the server does: closing the connection is required
 * (ERR-5), an answer first is fine, ending the job fails (ERR-1), stalling
 * the other connections fails (CONN-3, ERR-2).  Every byte sent starts as
 * encoder output and is damaged on purpose. */
#include "damage.h"

#include <stdlib.h>

/* A job-getid frame whose six-byte length field is replaced by `field`. */
static void bad_length(pcf_ctx *c, const char field[6])
{
    pmc_enc e;
    pmc_out out = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    if (pcfd_encode(c, &e, NULL, &out) == 0) {
        memcpy(out.buf, field, 6);
        pcf_note(c, "length field replaced by '%.6s'", field);
        if (pcfd_send(c, &out) == 0)
            pcfd_grade(c, NULL, NULL);
    }
    pmc_out_free(&out);
}

static void run_len_zero(pcf_ctx *c) { bad_length(c, "     0"); }
static void run_len_below6(pcf_ctx *c) { bad_length(c, "     3"); }
static void run_len_plus(pcf_ctx *c) { bad_length(c, "   +14"); }
static void run_len_inner_space(pcf_ctx *c) { bad_length(c, "1 4   "); }
static void run_len_empty(pcf_ctx *c) { bad_length(c, "      "); }
/* a digit separator some number parsers take (Python's int("1_4") is 14) */
static void run_len_underscore(pcf_ctx *c) { bad_length(c, "   1_4"); }

/* B10: a length shorter than the body, then a valid frame.  The server reads
 * "cmd=job-g" as the body; the rest ("etid;" and the next frame) is no
 * length field, so the stream is lost and must be closed. */
static void run_len_short_body(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out out = { 0 };
    char f[6];
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    if (pcfd_encode(c, &e, NULL, &out) == 0) {
        pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
        if (pcfd_encode(c, &e, NULL, &out) == 0 && pcfd_len_field(9, f) == 0) {
            memcpy(out.buf, f, 6);
            if (pcfd_send(c, &out) == 0)
                pcfd_grade(c, NULL, NULL);
        }
    }
    pmc_out_free(&out);
}

/* A server that rejects an incomplete frame at once does it within this:
 * the wait is the requirement's own ("at once"), not a grace. */
enum { EARLY_MS = 250 };

/* After a frame the server cannot complete, end our half of the stream: a
 * server must then close (ERR-5: end of stream inside a message). */
static void expect_close_after_eof(pcf_ctx *c)
{
    pmc_msg m;
    pmc_error err;
    char b[300];
    /* anything the server says before our EOF (it may reject at once: a
     * server that rejects reads the bytes, and answers, within this) */
    pws_result r = pws_recv(pcf_session(c), pws_deadline_ms(EARLY_MS), &m, &err);
    if (r == PWS_MSG) {
        long long rc = 0;
        if (pcf_rc(&m, &rc) != 1 || rc == 0) {
            pcf_observe(c, "accepted", "answered an incomplete frame: %s",
                        pcf_show(&m, b, sizeof b));
            return;
        }
        pcf_note(c, "early answer: %s", pcf_show(&m, b, sizeof b));
    } else if (r == PWS_EOF) {
        pcf_observe(c, "ok", "the server closed the connection before the frame ended");
        return;
    }
    pws_shutdown_write(pcf_session(c));
    r = pws_wait_eof(pcf_session(c), pcf_deadline(c));
    if (r == PWS_MSG) { /* the decoder may see the EOF as a message boundary: drain */
        r = pcf_recv(c, &m, &err);
        if (r == PWS_MSG)
            r = pws_wait_eof(pcf_session(c), pcf_deadline(c));
    }
    if (r == PWS_EOF || r == PWS_BAD) {
        pcf_observe(c, "ok", "after the client's end of stream the server closed");
    } else {
        pcf_observe(c, "not-closed", "the server kept the connection after the client's end "
                                     "of stream inside a frame");
    }
}

/* The first `keep` bytes of a job-getid frame (keep < 0: all of it). */
static void send_prefix(pcf_ctx *c, long keep, const char *field)
{
    pmc_enc e;
    pmc_out out = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    pmc_enc_str(&e, "pcf-pad", "xxxxxxxx");
    if (pcfd_encode(c, &e, NULL, &out) == 0) {
        if (field)
            memcpy(out.buf, field, 6);
        size_t n = keep < 0 || (size_t)keep > out.len ? out.len : (size_t)keep;
        pcf_note(c, "sending %zu of %zu bytes of a frame", n, out.len);
        if (pcf_send_raw(c, out.buf, n) == 0)
            expect_close_after_eof(c);
    }
    pmc_out_free(&out);
}

static void run_disconnect_mid_frame(pcf_ctx *c) { send_prefix(c, 15, NULL); }
static void run_disconnect_in_length(pcf_ctx *c) { send_prefix(c, 3, NULL); }
static void run_len_too_long(pcf_ctx *c) { send_prefix(c, -1, "   100"); }
static void run_len_999999(pcf_ctx *c) { send_prefix(c, -1, "999999"); }

/* B7: half a frame, then silence with the connection open.  The victim
 * reports at once; the harness then checks that rank 0 is still served
 * while these bytes sit in the server (CONN-3). */
static void run_partial_stall(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out out = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    if (pcfd_encode(c, &e, NULL, &out) == 0 && pcf_send_raw(c, out.buf, 10) == 0) {
        /* rank 0 asks next: the server must have read the half frame by
         * then, or a server that blocks on it could pass by luck */
        bool read = pcf_wait_consumed(c, 2000) == 0;
        pcf_observe(c, "ok", "10 of %zu bytes sent%s; the connection stays open (the harness "
                             "now checks rank 0 is still served)", out.len,
                    read ? " and read by the server" : "");
    }
    pmc_out_free(&out);
}

/* Bytes that are no frame at all: an encoded frame overwritten with a
 * fixed pseudo-random sequence (first byte not a digit or space). */
static void run_binary_junk(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out out = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    pmc_enc_str(&e, "pcf-pad", "................................................................");
    if (pcfd_encode(c, &e, NULL, &out) == 0) {
        unsigned x = 2463534242u;
        for (size_t i = 0; i < out.len; i++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            out.buf[i] = (char)(x & 0xff);
        }
        out.buf[0] = (char)0x01;
        if (pcfd_send(c, &out) == 0)
            pcfd_grade(c, NULL, NULL);
    }
    pmc_out_free(&out);
}

/* 64 KiB whose length field is the start of its own body ("cmd=jo"): a
 * PMI-1 line of 64 KiB to a receiver that classifies by the first bytes. */
static void run_garbage_flood(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out out = { 0 };
    char *pad = malloc(65536);
    if (!pad) {
        pcf_observe(c, "harness-error", "out of memory");
        return;
    }
    memset(pad, 'g', 65535);
    pad[65535] = 0;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    pmc_enc_str(&e, "pcf-pad", pad);
    if (pcfd_encode(c, &e, NULL, &out) == 0) {
        memcpy(out.buf, out.buf + 6, 6);
        if (pcfd_send(c, &out) == 0)
            pcfd_grade(c, NULL, NULL);
    }
    free(pad);
    pmc_out_free(&out);
}

#define EOF_OUTCOMES(cl)                                                                         \
    { "accepted", PCF_DEVIATES, cl, "answered rc=0 to an incomplete frame" },                    \
    { "not-closed", PCF_DEVIATES, "ERR-5", "kept a connection whose stream ended mid-frame" },   \
    { "job-killed", PCF_INFO, "CONN-6", "the job ended when the client's stream ended before "   \
                                        "finalize (a failure policy CONN-6 allows)" },           \
    { "sender-killed", PCF_INFO, "CONN-6", "the sender was ended after its stream ended" },      \
    { "others-affected", PCF_FAIL, "ERR-2", "other connections stopped being served" }

static const pcf_case cases[] = {
    { .id = "robust/len-zero", .desc = "a zero length field (\"     0\") before a body",
      .clause = "FRAME-6",
      .expected = "the server closes the connection (fatal framing error); it may answer first",
      .steps = "A victim rank (the case may end the job) sends a job-getid frame whose length "
               "field is \"     0\": the body that follows is then no frame.\n"
               PCFD_STEPS_FRAMING,
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_len_zero,
      .outcomes = { PCFD_FRAMING("FRAME-6") } },
    { .id = "robust/len-below-6", .desc = "a length field below the shortest body (\"     3\")",
      .clause = "FRAME-6",
      .expected = "the server closes the connection (fatal framing error)",
      .steps = "A victim rank (the case may end the job) sends a job-getid frame whose length "
               "field is \"     3\", shorter than any body.\n"
               PCFD_STEPS_FRAMING,
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_len_below6,
      .outcomes = { PCFD_FRAMING("FRAME-6") } },
    { .id = "robust/len-plus-sign", .desc = "a length field with a plus sign (\"   +14\")",
      .clause = "FRAME-5",
      .expected = "the server closes the connection; atoi() reading 14 is a FAIL",
      .steps = "A victim rank (the case may end the job) sends a job-getid frame whose length "
               "field is \"   +14\": the right number with a sign FRAME-5 does not allow. A "
               "server that reads the field with atoi() answers it: \"accepted\", a FAIL.\n"
               PCFD_STEPS_FRAMING,
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_len_plus,
      .outcomes = { PCFD_FRAMING("FRAME-5") } },
    { .id = "robust/len-inner-space", .desc = "spaces between the digits of the length (\"1 4   \")",
      .clause = "FRAME-5", .expected = "the server closes the connection",
      .steps = "A victim rank (the case may end the job) sends a job-getid frame whose length "
               "field is \"1 4   \" (a space between the digits).\n"
               PCFD_STEPS_FRAMING,
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_len_inner_space,
      .outcomes = { PCFD_FRAMING("FRAME-5") } },
    { .id = "robust/len-underscore",
      .desc = "a digit separator in the length (\"   1_4\", 14 to some number parsers)",
      .clause = "FRAME-5", .expected = "the server closes the connection",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_len_underscore,
      .outcomes = { PCFD_FRAMING("FRAME-5") } },
    { .id = "robust/len-empty", .desc = "a length field of six spaces (no digit)",
      .clause = "FRAME-5", .expected = "the server closes the connection",
      .steps = "A victim rank (the case may end the job) sends a job-getid frame whose length "
               "field is six spaces.\n"
               PCFD_STEPS_FRAMING,
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_len_empty,
      .outcomes = { PCFD_FRAMING("FRAME-5") } },
    { .id = "robust/len-short-body",
      .desc = "a length of 9 for a 14-byte body, then a valid frame (B10: double free in Hydra 4.0)",
      .clause = "ERR-5",
      .expected = "an error for the 9-byte body at most, then the close of the lost stream",
      .steps = "A victim rank (the case may end the job) sends two job-getid frames in one write, "
               "the first with the length 9 for its 14-byte body.\n"
               "The server reads \"cmd=job-g\" as the body; what follows (\"etid;\" and the "
               "second frame) is no length field, so the stream is lost. An error answer to the "
               "9-byte body is fine, then the connection must close.\n"
               PCFD_STEPS_FRAMING,
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_len_short_body,
      .outcomes = { PCFD_FRAMING("ERR-5") } },
    { .id = "robust/disconnect-mid-frame",
      .desc = "15 bytes of a frame, then the client ends its stream",
      .clause = "ERR-5",
      .expected = "the server closes the connection; ending the job is a CONN-6 policy (INFO)",
      .steps = "A victim rank (the case may end the job) sends the first 15 bytes of a job-getid "
               "frame and stops.\n"
               "For 250 ms it listens: a close then passes; an answer with rc=0 is \"accepted\" "
               "(an incomplete frame answered).\n"
               "It ends its half of the stream (shutdown) and waits for the server to close the "
               "connection (ERR-5: end of stream inside a message): a close passes, a connection "
               "kept open is \"not-closed\".\n"
               "A job the server ends is INFO, not FAIL: ending the job when a client's stream "
               "ends before finalize is a failure policy CONN-6 allows. Rank 0 then checks its "
               "own connection is still served (ERR-2).",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_disconnect_mid_frame,
      .outcomes = { EOF_OUTCOMES("ERR-5") } },
    { .id = "robust/disconnect-in-length",
      .desc = "3 bytes of a length field, then the client ends its stream",
      .clause = "ERR-5",
      .expected = "the server closes the connection; ending the job is a CONN-6 policy (INFO)",
      .steps = "A victim rank (the case may end the job) sends the first 3 bytes of a length "
               "field and stops.\n"
               "For 250 ms it listens: a close then passes; an answer with rc=0 is \"accepted\".\n"
               "It ends its half of the stream (shutdown) and waits for the server to close the "
               "connection (ERR-5): a close passes, a connection kept open is \"not-closed\".\n"
               "A job the server ends is INFO (CONN-6 allows that policy). Rank 0 then checks its "
               "own connection is still served (ERR-2).",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_disconnect_in_length,
      .outcomes = { EOF_OUTCOMES("ERR-5") } },
    { .id = "robust/len-too-long",
      .desc = "a length of 100 on a 31-byte body, then the client ends its stream",
      .clause = "CONN-2",
      .expected = "no answer to the incomplete frame; the server closes at the client's end of stream",
      .steps = "A victim rank (the case may end the job) sends a whole job-getid frame (31-byte "
               "body) whose length field says 100: the server must wait for 69 more bytes "
               "(CONN-2).\n"
               "For 250 ms it listens: an answer with rc=0 is \"accepted\" (the frame is not "
               "complete).\n"
               "It ends its half of the stream (shutdown) and waits for the server to close: a "
               "close passes, a connection kept open is \"not-closed\".\n"
               "A job the server ends is INFO (CONN-6). Rank 0 then checks its own connection is "
               "still served (ERR-2).",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_len_too_long,
      .outcomes = { EOF_OUTCOMES("CONN-2") } },
    { .id = "robust/len-999999",
      .desc = "a length of 999999 on a 31-byte body, then the client ends its stream",
      .clause = "FRAME-7",
      .expected = "the server closes at once (above its maximum) or at the client's end of stream",
      .steps = "A victim rank (the case may end the job) sends a whole job-getid frame (31-byte "
               "body) whose length field says 999999, far above any frame a server keeps "
               "(FRAME-7).\n"
               "For 250 ms it listens: a close then passes (refused at once); an answer with rc=0 "
               "is \"accepted\".\n"
               "It ends its half of the stream (shutdown) and waits for the server to close: a "
               "close passes, a connection kept open is \"not-closed\".\n"
               "A job the server ends is INFO (CONN-6). Rank 0 then checks its own connection is "
               "still served (ERR-2).",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_len_999999,
      .outcomes = { EOF_OUTCOMES("FRAME-7") } },
    { .id = "robust/partial-frame-stall",
      .desc = "half a frame left pending on one connection does not stall the others (B7)",
      .clause = "CONN-3",
      .expected = "rank 0's requests are answered while the victim's half frame is pending",
      .steps = "A victim rank sends the first 10 bytes of a job-getid frame and nothing more, "
               "keeping its connection open.\n"
               "It waits until the server has read those bytes (the socket's send queue drains, "
               "at most 2 s), then reports at once.\n"
               "Rank 0 sends job-getid on its own connection while the half frame is pending: it "
               "must be answered (CONN-3). No answer is \"others-affected\" (FAIL): a server that "
               "reads each client with blocking reads (B7) stalls here. A job that ended is "
               "\"job-killed\" (ERR-1).",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_partial_stall,
      .outcomes = { { "others-affected", PCF_FAIL, "CONN-3",
                      "rank 0 was not served while the half frame was pending" },
                    { "job-killed", PCF_FAIL, "ERR-1", "the server ended the job" } } },
    { .id = "robust/binary-junk", .desc = "a frame's worth of binary bytes (first byte 0x01)",
      .clause = "FRAME-5", .expected = "the server closes the connection",
      .steps = "A victim rank (the case may end the job) sends a frame's worth of fixed "
               "pseudo-random bytes whose first byte is 0x01 (no length field at all).\n"
               PCFD_STEPS_FRAMING,
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_binary_junk,
      .outcomes = { PCFD_FRAMING("FRAME-5") } },
    /* CLASS-1 makes bytes that start "cmd=" a PMI-1 line, whatever a PMI-2
     * connection expected: this one is 64 times the line limit (LIMIT-8),
     * which ERR-5 makes a framing error */
    { .id = "robust/garbage-flood",
      .desc = "64 KiB whose length field is \"cmd=jo\": by CLASS-1 a PMI-1 line far over "
              "its limit",
      .clause = "ERR-5", .expected = "the server closes the connection without reading it all",
      .steps = "A victim rank (the case may end the job) sends 64 KiB whose first six bytes, "
               "where a length field belongs, are \"cmd=jo\": by CLASS-1 that is a PMI-1 line, 64 "
               "times the line limit (LIMIT-8), with no LF.\n"
               PCFD_STEPS_FRAMING,
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_garbage_flood,
      .outcomes = { PCFD_FRAMING("LIMIT-8") } },
};
PCF_CASES(cases)
