/* robust/v1-...: how a server reads a stream of PMI-1 lines when they are
 * odd: many pairs, cut short at the end of the stream, left half-written,
 * longer than a buffer, written a byte at a time, pipelined by the
 * hundred, an empty or NUL-holding command name.  The PMI-1 counterparts
 * of robust/pairs-*, robust/partial-frame-stall, robust/disconnect-*,
 * frame/split-every-byte and the others (issue 21).  Every line is encoder
 * output, damaged on purpose where the case is about damage. */
#include "damage.h"

/* ---- many pairs ------------------------------------------------------------ */

/* get_maxes with `extra` unknown pairs p0=x p1=x ... (PAIR-5: ignored). */
static int many_pairs_line(pcf_ctx *c, int extra, pmc_out *o)
{
    char (*names)[12] = malloc((size_t)extra * sizeof *names);
    if (!names) {
        pcf_observe(c, "harness-error", "out of memory");
        return -1;
    }
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_maxes");
    for (int i = 0; i < extra; i++) {
        snprintf(names[i], sizeof names[i], "p%d", i);
        pmc_enc_str(&e, names[i], "x");
    }
    int rc = pcfd_encode(c, &e, NULL, o);
    free(names);
    return rc;
}

/* get_maxes and 200 unknown pairs in one line of 952 bytes: keys of one
 * and two characters, values "x", so that the line stays within the 1024
 * bytes LIMIT-8 asks every receiver to take (256 pairs do not fit with
 * non-empty values, and empty ones would test V1-6 too). */
enum { SMALL_PAIRS = 200 };

static void run_pairs_200(pcf_ctx *c)
{
    static const char al[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    enum { NA = sizeof al - 1 };
    char names[SMALL_PAIRS][3];
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_msg m;
    char b[200];
    long long rc = 0;
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_maxes");
    for (int i = 0; i < SMALL_PAIRS; i++) {
        int k = i < NA ? i : i - NA;
        names[i][0] = al[i < NA ? k : k / NA];
        names[i][1] = i < NA ? 0 : al[k % NA];
        names[i][2] = 0;
        pmc_enc_str(&e, names[i], "x");
    }
    if (pcfd_encode(c, &e, NULL, &o) == 0 && o.len > 1024) {
        pcf_observe(c, "harness-error", "the line is %zu bytes, above 1024", o.len);
    } else if (o.len && pcfd_send(c, &o) == 0 && pcf_expect(c, "maxes", &m) == 0) {
        if (pcf_rc(&m, &rc) == 1 && rc != 0)
            pcf_observe(c, "rejected", "%s", pcf_show(&m, b, sizeof b));
        else
            pcf_observe(c, "ok", "a %zu-byte line of %d pairs answered: %s", o.len,
                        SMALL_PAIRS + 1, pcf_show(&m, b, sizeof b));
    }
    pmc_out_free(&o);
}

static void run_pairs_5000(pcf_ctx *c)
{
    pmc_out o = { 0 };
    if (many_pairs_line(c, 5000, &o) == 0 && pcfd_send(c, &o) == 0)
        pcfd_grade(c, "maxes", NULL);
    pmc_out_free(&o);
}

/* ---- a line left unfinished ------------------------------------------------- */

/* B7 for PMI-1: 10 bytes of a line, then silence with the connection open.
 * The harness then checks that rank 0 is still served (CONN-3). */
static void run_partial_stall(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_universe_size");
    if (pcfd_encode(c, &e, NULL, &o) == 0 && pcf_send_raw(c, o.buf, 10) == 0) {
        /* rank 0 asks next: the server must have read the half line by then,
         * or a server that blocks on it could pass by luck */
        bool read = pcf_wait_consumed(c, 2000) == 0;
        pcf_observe(c, "ok", "10 of %zu bytes sent (\"%.10s\")%s; the connection stays open (the "
                             "harness now checks rank 0 is still served)", o.len, o.buf,
                    read ? " and read by the server" : "");
    }
    pmc_out_free(&o);
}

/* The message without its end, then the client's end of stream: a server
 * must close, never run what it has (ERR-5). */
static void eof_inside(pcf_ctx *c, const pmc_out *o, size_t keep)
{
    pcf_note(c, "sent %zu of %zu bytes, then ended the stream", keep, o->len);
    if (pcf_send_raw(c, o->buf, keep) != 0)
        return;
    pws_shutdown_write(pcf_session(c));
    pmc_msg m;
    pmc_error err;
    char b[300];
    pws_result r = pws_wait_eof(pcf_session(c), pcf_deadline(c));
    if (r == PWS_MSG && pcf_recv(c, &m, &err) == PWS_MSG)
        pcf_observe(c, "answered", "the unterminated message was run: %s",
                    pcf_show(&m, b, sizeof b));
    else if (r == PWS_EOF || r == PWS_BAD)
        pcf_observe(c, "ok", "after the client's end of stream the server closed, unanswered");
    else
        pcf_observe(c, "not-closed", "the server kept the connection after the client's end "
                                     "of stream inside a message");
}

static void run_eof_line(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_maxes");
    if (pcfd_encode(c, &e, NULL, &o) == 0)
        eof_inside(c, &o, o.len - 1); /* all but the LF: "cmd=get_maxes" */
    pmc_out_free(&o);
}

static void run_eof_block(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V1_MCMD, "spawn");
    pmc_enc_int(&e, "nprocs", 1);
    pmc_enc_str(&e, "execname", "/bin/true");
    pmc_enc_int(&e, "totspawns", 1);
    pmc_enc_int(&e, "spawnssofar", 1);
    pmc_enc_int(&e, "argcnt", 0);
    pmc_enc_int(&e, "preput_num", 0);
    pmc_enc_int(&e, "info_num", 0);
    if (pcfd_encode(c, &e, NULL, &o) == 0) {
        long end = pcfd_find(&o, 0, "endcmd\n");
        if (end < 0)
            pcf_observe(c, "harness-error", "no endcmd in the encoded block");
        else
            eof_inside(c, &o, (size_t)end); /* every pair, no endcmd */
    }
    pmc_out_free(&o);
}

/* ---- a line longer than a buffer ------------------------------------------- */

/* get_maxes of 2966 bytes whose values hold "cmd=get_maxes" at offsets 1024
 * and 2048 (V1-5: '=' belongs to the value).  A server that cuts the line
 * at a 1024-byte buffer reads a new get_maxes there. */
enum { CUT = 1024 };

static void run_past_1024(pcf_ctx *c)
{
    static char v0[CUT], v1[CUT], v2[901];
    const char *mark = "cmd=get_maxes";
    size_t ml = strlen(mark);
    /* "cmd=get_maxes p0=" fill mark " p1=" fill mark " p2=" zzz... */
    size_t f0 = CUT - strlen("cmd=get_maxes p0="), f1 = 2 * CUT - (CUT + ml + strlen(" p1="));
    memset(v0, 'x', f0);
    memcpy(v0 + f0, mark, ml + 1);
    memset(v1, 'y', f1);
    memcpy(v1 + f1, mark, ml + 1);
    memset(v2, 'z', 900);
    v2[900] = 0;
    pmc_enc e;
    pmc_out o = { 0 }, next = { 0 };
    pmc_msg m;
    pmc_error err;
    char b[300];
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_maxes");
    pmc_enc_str(&e, "p0", v0);
    pmc_enc_str(&e, "p1", v1);
    pmc_enc_str(&e, "p2", v2);
    if (pcfd_encode(c, &e, NULL, &o) != 0)
        goto out;
    if (pcfd_find(&o, 1, mark) != CUT || pcfd_find(&o, CUT + 1, mark) != 2 * CUT) {
        pcf_observe(c, "harness-error", "the marks are not where the case needs them");
        goto out;
    }
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_appnum"); /* in its own write: the next request */
    if (pcfd_send(c, &o) != 0 || pcfd_encode(c, &e, NULL, &next) != 0)
        goto out;
    pws_result r = pcf_recv(c, &m, &err);
    if (r == PWS_EOF) {
        pcf_observe(c, "closed", "closed on a %zu-byte line (above the server's limit)", o.len);
    } else if (r != PWS_MSG) {
        pcf_observe(c, r == PWS_TIMEOUT ? "no-answer" : "bad-response",
                    "nothing came back for a %zu-byte line: %s", o.len, pws_result_name(r));
    } else {
        long long rc = 0;
        bool ok = pmc_slice_eq(m.name, "maxes") && !(pcf_rc(&m, &rc) == 1 && rc != 0);
        pcf_show(&m, b, sizeof b);
        if (pcfd_send(c, &next) == 0) {
            char b2[300];
            pws_result r2 = pcf_recv(c, &m, &err);
            if (r2 == PWS_MSG && pmc_slice_eq(m.name, "appnum"))
                pcf_observe(c, ok ? "ok" : "error-response", "one answer to the %zu-byte line "
                            "(%s), then get_appnum answered", o.len, b);
            else if (r2 == PWS_MSG)
                pcf_observe(c, "split", "first answer %s, then, before get_appnum's, another: %s "
                            "(the bytes after the cut were read as a new line)", b,
                            pcf_show(&m, b2, sizeof b2));
            else if (r2 == PWS_EOF)
                pcf_observe(c, ok ? "answered-then-closed" : "error-then-close",
                            "%s, then closed before answering get_appnum", b);
            else
                pcf_observe(c, "no-answer", "%s, then no answer to get_appnum", b);
        }
    }
out:
    pmc_out_free(&o);
    pmc_out_free(&next);
}

/* ---- writes and reads ------------------------------------------------------- */

/* Each byte in its own write: a server must not judge a message by the
 * first bytes of a read. */
static void run_every_byte(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_msg m;
    char b[200];
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_universe_size");
    if (pcfd_encode(c, &e, NULL, &o) == 0) {
        size_t cuts[64], n = 0;
        for (size_t i = 1; i < o.len && n < 64; i++)
            cuts[n++] = i;
        int rc = pws_send_split(pcf_session(c), o.buf, o.len, cuts, n, pcf_wait_ms(c, 20),
                                pcf_deadline(c));
        if (rc)
            pcf_observe(c, "closed", "write failed: %s", pws_result_name(rc));
        else if (pcf_expect(c, "universe_size", &m) == 0)
            pcf_observe(c, "ok", "%zu one-byte writes answered: %s", o.len,
                        pcf_show(&m, b, sizeof b));
    }
    pmc_out_free(&o);
}

/* 256 get_appnum lines in one write, then (once the server has read them)
 * get_universe_size: 256 appnum answers must come first. */
enum { PIPELINED = 256 };

static void run_pipelined(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out o = { 0 }, last = { 0 };
    for (int i = 0; i < PIPELINED; i++) {
        pmc_enc_begin(&e, PMC_WIRE_V1, "get_appnum");
        if (pcfd_encode(c, &e, NULL, &o) != 0)
            goto out;
    }
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_universe_size");
    if (pcfd_encode(c, &e, NULL, &last) != 0 || pcfd_send(c, &o) != 0)
        goto out;
    pcf_wait_consumed(c, 2000); /* the last request in a read of its own */
    if (pcfd_send(c, &last) != 0)
        goto out;
    int got = 0;
    for (;;) {
        pmc_msg m;
        pmc_error err;
        char b[200];
        pws_result r = pcf_recv(c, &m, &err);
        if (r != PWS_MSG) {
            pcf_observe(c, r == PWS_EOF ? "closed" : r == PWS_TIMEOUT ? "no-answer"
                                                                      : "bad-response",
                        "after %d of %d appnum answers: %s", got, PIPELINED, pws_result_name(r));
            break;
        }
        if (pmc_slice_eq(m.name, "appnum")) {
            got++;
            continue;
        }
        if (pmc_slice_eq(m.name, "universe_size") && got == PIPELINED)
            pcf_observe(c, "ok", "%d lines in one write, %d answers in order", PIPELINED, got);
        else if (pmc_slice_eq(m.name, "universe_size"))
            pcf_observe(c, "lost", "%d lines in one write, only %d answered before the next "
                                   "request's answer", PIPELINED, got);
        else
            pcf_observe(c, "wrong-response", "after %d appnum answers: %s", got,
                        pcf_show(&m, b, sizeof b));
        break;
    }
out:
    pmc_out_free(&o);
    pmc_out_free(&last);
}

/* put without key (an error answer), then get_appnum, in one write: the
 * line after the bad one is a request of its own (CONN-2). */
static void run_error_then_line(pcf_ctx *c)
{
    char v[48];
    snprintf(v, sizeof v, "nokey-%s", pcf_tag(c));
    pmc_enc e;
    pmc_out o = { 0 }, probe = { 0 };
    pmc_msg m;
    pmc_error err;
    char b[200], b2[200];
    long long rc = 0;
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    pmc_enc_str(&e, "kvsname", pcf_kvsname(c));
    pmc_enc_str(&e, "value", v);
    if (pcfd_encode(c, &e, NULL, &o) != 0)
        goto out;
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_appnum");
    if (pcfd_encode(c, &e, NULL, &o) != 0)
        goto out;
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_universe_size");
    if (pcfd_encode(c, &e, NULL, &probe) != 0 || pcfd_send(c, &o) != 0 ||
        pcf_expect(c, "put_result", &m) != 0)
        goto out;
    pcf_show(&m, b, sizeof b);
    if (pcf_rc(&m, &rc) != 1 || rc == 0) {
        pcf_observe(c, "accepted", "a put without key answered %s", b);
        goto out;
    }
    /* the appnum answer comes now, or never: ask with another request */
    if (pcfd_send(c, &probe) != 0)
        goto out;
    pws_result r = pcf_recv(c, &m, &err);
    if (r == PWS_MSG && pmc_slice_eq(m.name, "appnum"))
        pcf_observe(c, "ok", "%s, then get_appnum answered", b);
    else if (r == PWS_MSG && pmc_slice_eq(m.name, "universe_size"))
        pcf_observe(c, "lost", "%s; get_appnum (same write) never answered, the next request "
                               "was: %s", b, pcf_show(&m, b2, sizeof b2));
    else if (r == PWS_MSG)
        pcf_observe(c, "wrong-response", "%s, then %s", b, pcf_show(&m, b2, sizeof b2));
    else
        pcf_observe(c, r == PWS_EOF ? "error-then-close" : "no-answer",
                    "%s, then %s instead of the answer to get_appnum", b, pws_result_name(r));
out:
    pmc_out_free(&o);
    pmc_out_free(&probe);
}

/* ---- command names ---------------------------------------------------------- */

/* The encoded line with the first `what` after "cmd=" cut out. */
static void send_cut(pcf_ctx *c, const char *cmd, const char *key, const char *what,
                     const char *reply)
{
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V1, cmd);
    if (key)
        pmc_enc_str(&e, key, "x");
    if (pcfd_encode(c, &e, NULL, &o) == 0) {
        long at = pcfd_find(&o, 4, what);
        if (at < 0)
            pcf_observe(c, "harness-error", "'%s' not in the encoded line", what);
        else {
            pcfd_cut(&o, (size_t)at, strlen(what));
            if (pcfd_send(c, &o) == 0)
                pcfd_grade(c, reply, NULL);
        }
    }
    pmc_out_free(&o);
}

/* "cmd= pcfk=x" */
static void run_empty_cmd(pcf_ctx *c) { send_cut(c, "pcfcmd", "pcfk", "pcfcmd", NULL); }

/* "cmd=get_maxesx": not get_maxes */
static void run_cmd_prefix(pcf_ctx *c)
{
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_maxesx");
    if (pcf_send(c, &e) == 0)
        pcfd_grade(c, NULL, NULL);
}

/* Replace the first `from` after "cmd=" by `to` (same length), send, grade. */
static void send_patched(pcf_ctx *c, pmc_enc *e, const char *from, const char *to, size_t n)
{
    pmc_out o = { 0 };
    if (pcfd_encode(c, e, NULL, &o) == 0) {
        long at = pcfd_find(&o, 4, from);
        if (at < 0)
            pcf_observe(c, "harness-error", "'%s' not in the encoded line", from);
        else {
            memcpy(o.buf + at, to, n);
            if (pcfd_send(c, &o) == 0)
                pcfd_grade(c, NULL, NULL);
        }
    }
    pmc_out_free(&o);
}

/* "cmd=get_maxes\0pcf": a C string reader sees get_maxes */
static void run_nul_in_cmd(pcf_ctx *c)
{
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_maxesQpcf");
    send_patched(c, &e, "Qpcf", "\0pcf", 4);
}

/* "cmd=get_maxes pcf=\x01\x02\x7f\xfe": bytes no sender should send (V1-12) */
static void run_control_bytes(pcf_ctx *c)
{
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_maxes");
    pmc_enc_str(&e, "pcf", "ABCD");
    send_patched(c, &e, "=ABCD", "=\x01\x02\x7f\xfe", 5);
}

#define STALL_OUTCOMES                                                                           \
    { "others-affected", PCF_FAIL, "CONN-3", "rank 0 was not served while the half line was "    \
                                             "pending" },                                        \
    { "job-killed", PCF_FAIL, "ERR-1", "the server ended the job" }

#define EOF_OUTCOMES                                                                             \
    { "answered", PCF_DEVIATES, NULL, "ran a message that never ended" },                        \
    { "not-closed", PCF_DEVIATES, NULL, "kept a connection whose stream ended mid-message" },   \
    { "job-killed", PCF_INFO, "CONN-6", "the job ended when the client's stream ended before "   \
                                        "finalize (a failure policy CONN-6 allows)" },           \
    { "sender-killed", PCF_INFO, "CONN-6", "the sender was ended after its stream ended" },      \
    { "others-affected", PCF_FAIL, "ERR-2", "other connections stopped being served" }

#define ANY_ANSWER                                                                               \
    { "accepted", PCF_PASS, NULL, "answered normally" },                                         \
    { "error-response", PCF_PASS, NULL, "answered with an error" },                              \
    { "error-then-close", PCF_PASS, NULL, "answered with an error, then closed" },               \
    { "closed", PCF_PASS, "ERR-3", "closed the connection" }

static const pcf_case cases[] = {
    { .id = "robust/v1-pairs-200",
      .desc = "a 952-byte PMI-1 line of 201 pairs (get_maxes and 200 unknown keys) is answered",
      .clause = "LIMIT-10", .expected = "cmd=maxes rc=0 ...",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_pairs_200,
      .outcomes = { { "rejected", PCF_DEVIATES, NULL, "answered rc != 0" },
                    { "closed", PCF_DEVIATES, NULL, "closed the connection" }, PCFD_KILLED } },
    { .id = "robust/v1-pairs-5000",
      .desc = "a PMI-1 line of 5001 pairs (get_maxes and 5000 unknown keys)",
      .clause = "ERR-3", .expected = "an answer, an error or a close; never silence or the end of the job",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .timeout_ms = 8000, .run = run_pairs_5000,
      .outcomes = { ANY_ANSWER,
                    { "no-answer", PCF_FAIL, NULL, "neither an answer nor a close: the client "
                                                   "waits for ever" }, PCFD_KILLED } },
    { .id = "robust/v1-partial-line-stall",
      .desc = "half a PMI-1 line left pending on one connection does not stall the others (B7)",
      .clause = "CONN-3",
      .expected = "rank 0's requests are answered while the victim's half line is pending",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_partial_stall,
      .outcomes = { STALL_OUTCOMES } },
    { .id = "robust/v1-eof-unterminated-line",
      .desc = "\"cmd=get_maxes\" without its LF, then the client ends its stream",
      .clause = "ERR-5",
      .expected = "no answer; the server closes (ending the job is a CONN-6 policy, INFO)",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_eof_line,
      .outcomes = { EOF_OUTCOMES } },
    { .id = "robust/v1-eof-unterminated-block",
      .desc = "an mcmd=spawn block of /bin/true without its endcmd line, then the end of the stream",
      .clause = "ERR-5",
      .expected = "no spawn_result, nothing started; the server closes",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_eof_block,
      .outcomes = { EOF_OUTCOMES } },
    { .id = "robust/v1-line-past-1024",
      .desc = "a 2966-byte get_maxes line whose values hold \"cmd=get_maxes\" at offsets 1024 "
              "and 2048, then get_appnum",
      .clause = "CONN-2",
      .expected = "one answer to the line (or a close: above the limit, ERR-5), then appnum",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_past_1024,
      .outcomes = { { "closed", PCF_PASS, "ERR-5", "closed: the line is above its limit" },
                    { "error-response", PCF_PASS, "LIMIT-8", "refused the line, kept serving" },
                    { "error-then-close", PCF_PASS, "ERR-5", "refused the line, then closed" },
                    { "split", PCF_DEVIATES, NULL, "read the bytes past a buffer as a new line" },
                    { "answered-then-closed", PCF_DEVIATES, "ERR-5",
                      "answered part of the line as a command, then lost the stream" },
                    PCFD_KILLED } },
    { .id = "robust/v1-split-every-byte",
      .desc = "a PMI-1 line written one byte per write (20 ms apart) is reassembled",
      .clause = "CONN-1", .expected = "cmd=universe_size ...",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_every_byte,
      .outcomes = { { "closed", PCF_DEVIATES, NULL, "closed the connection" }, PCFD_KILLED } },
    { .id = "robust/v1-pipelined-256",
      .desc = "256 get_appnum lines in one write, then get_universe_size: 257 answers in order",
      .clause = "CONN-1", .expected = "256 cmd=appnum lines, then cmd=universe_size",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .timeout_ms = 10000, .run = run_pipelined,
      .outcomes = { { "lost", PCF_DEVIATES, NULL, "lines of the write were never answered" },
                    { "closed", PCF_DEVIATES, NULL, "closed the connection" }, PCFD_KILLED } },
    { .id = "robust/v1-error-then-line",
      .desc = "a put without key and get_appnum in one write; then get_universe_size",
      .clause = "CONN-2",
      .expected = "cmd=put_result rc!=0, cmd=appnum, cmd=universe_size, in that order",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_error_then_line,
      .outcomes = { { "lost", PCF_DEVIATES, NULL, "the line after the bad one was never answered" },
                    /* precondition: no error answer, nothing to follow it (robust/v1-put-no-key
                     * grades the rc=0) */
                    { "accepted", PCF_SKIPPED, "PAIR-6", "the put without key was not refused" },
                    { "error-then-close", PCF_DEVIATES, "ERR-4",
                      "closed after the error answer, the next line unanswered" },
                    { "closed", PCF_DEVIATES, "ERR-4", "closed without an answer" },
                    PCFD_KILLED } },
    { .id = "robust/v1-empty-cmd", .desc = "a PMI-1 line with an empty command name (\"cmd= pcfk=x\")",
      .clause = "ERR-6",
      .expected = "the server closes the connection; never acts on the line",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_empty_cmd,
      .outcomes = { { "closed", PCF_PASS, NULL, "closed the connection" },
                    { "error-then-close", PCF_PASS, NULL, "answered an error, then closed" },
                    { "other-then-close", PCF_PASS, NULL, "answered an error, then closed" },
                    { "error-response", PCF_DEVIATES, NULL, "answered but kept the connection" },
                    { "wrong-response", PCF_DEVIATES, NULL, "answered but kept the connection" },
                    { "accepted", PCF_DEVIATES, "ERR-3", "acted on an empty command" },
                    PCFD_KILLED } },
    { .id = "robust/v1-cmd-prefix",
      .desc = "an unknown PMI-1 command whose name starts with a known one (\"cmd=get_maxesx\")",
      .clause = "ERR-7",
      .expected = "cmd=get_maxesx_result rc!=0 msg=...; never the answer of get_maxes",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_cmd_prefix,
      .outcomes = { PCFD_DELIMITED("ERR-7") } },
    { .id = "robust/v1-nul-in-cmd",
      .desc = "a NUL byte inside a PMI-1 command name (\"cmd=get_maxes\\x00pcf\")",
      .clause = "ERR-7",
      .expected = "an error answer or a close; never the answer of get_maxes",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_nul_in_cmd,
      .outcomes = { PCFD_DELIMITED("ERR-7") } },
    { .id = "robust/v1-control-bytes",
      .desc = "a PMI-1 value of bytes 0x01 0x02 0x7f 0xfe (\"cmd=get_maxes pcf=\\x01\\x02\\x7f\\xfe\")",
      .clause = "ERR-1",
      .expected = "an answer, an error or a close; never the end of the job",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_control_bytes,
      .outcomes = { ANY_ANSWER, PCFD_KILLED } },
};
PCF_CASES(cases)
