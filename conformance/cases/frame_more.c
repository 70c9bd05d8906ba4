/* frame/...: more of how the server reads the byte stream: paddings on
 * long frames, splits at every interesting offset, coalesced frames with a
 * PMI-1 line between them, the frame sizes LIMIT-5/6 name, thrid in the
 * middle, the MPICH 4.0.2 client's over-long length with junk (B1), and
 * booleans in other cases (BOOL-2). */
#include "damage.h"

#include <stdlib.h>

/* job-getid padded with unknown keys (p0, p1, ...; values of at most 1000
 * bytes, so only the frame is large) to a body of exactly `body` bytes, in
 * dialect d.  PAIR-5: the server ignores the keys. */
static int padded_getid(pcf_ctx *c, size_t body, const pmc_dialect *d, pmc_out *o)
{
    enum { MAXV = 1000, MAXP = 256 };
    static char vals[MAXP][MAXV + 1];
    char names[MAXP][8];
    size_t left = body - 14; /* after "cmd=job-getid;" */
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    for (int i = 0; left > 0; i++) {
        int nl = snprintf(names[i], sizeof names[i], "p%d", i);
        size_t over = (size_t)nl + 2, v; /* "pN=" ... ";" */
        if (i + 1 >= MAXP || left < over) {
            pmc_enc_abandon(&e);
            pcf_observe(c, "harness-error", "cannot pad a body to %zu bytes", body);
            return -1;
        }
        v = left - over;
        if (v > MAXV)
            v = left - over - MAXV < 8 ? MAXV - 16 : MAXV; /* leave room for one more pair */
        memset(vals[i], 'x', v);
        vals[i][v] = 0;
        pmc_enc_str(&e, names[i], vals[i]);
        left -= over + v;
    }
    return pcfd_encode(c, &e, d, o);
}

static void expect_getid(pcf_ctx *c, const char *what)
{
    pmc_msg m;
    char b[200];
    long long rc = -1;
    if (pcf_expect(c, "job-getid-response", &m) != 0)
        return;
    if (pcf_rc(&m, &rc) == 1 && rc == 0)
        pcf_observe(c, "ok", "%s answered", what);
    else
        pcf_observe(c, "rejected", "%s: %s", what, pcf_show(&m, b, sizeof b));
}

static void sized(pcf_ctx *c, size_t body, const pmc_dialect *d, const char *what)
{
    pmc_out o = { 0 };
    if (padded_getid(c, body, d, &o) == 0) {
        pcf_note(c, "length field '%.6s'", o.buf);
        if (pcfd_send(c, &o) == 0)
            expect_getid(c, what);
    }
    pmc_out_free(&o);
}

static void run_left_4digits(pcf_ctx *c) { sized(c, 1045, pcf_dialect_pad(PMC_PAD_LEFT), "'1045  '"); }
static void run_zero_4digits(pcf_ctx *c) { sized(c, 1045, pcf_dialect_pad(PMC_PAD_ZERO), "'001045'"); }
static void run_body_4096(pcf_ctx *c) { sized(c, 4096, NULL, "a 4096-byte body"); }
static void run_body_65530(pcf_ctx *c) { sized(c, 65530, NULL, "a 65530-byte body"); }

static void split(pcf_ctx *c, const size_t *cuts, size_t n, unsigned delay, const char *what)
{
    pmc_out o = { 0 };
    if (padded_getid(c, 40, NULL, &o) != 0)
        return;
    int rc = pws_send_split(pcf_session(c), o.buf, o.len, cuts, n, pcf_wait_ms(c, delay), pcf_deadline(c));
    if (rc)
        pcf_observe(c, "closed", "write failed: %s", pws_result_name(rc));
    else
        expect_getid(c, what);
    pmc_out_free(&o);
}

/* body: "cmd=job-getid;p0=xxxxxxxxxxxxxxxxxxxxx;" (40 bytes, 46 with the field) */
static void run_every_byte(pcf_ctx *c)
{
    size_t cuts[45];
    for (size_t i = 0; i < 45; i++)
        cuts[i] = i + 1;
    split(c, cuts, 45, 2, "a frame written one byte at a time");
}

static void run_split_after_length(pcf_ctx *c)
{
    static const size_t cuts[] = { 6 };
    split(c, cuts, 1, 50, "length and body in two writes (as Hydra 4.0 writes)");
}

static void run_split_in_key(pcf_ctx *c)
{
    static const size_t cuts[] = { 6 + 15 }; /* "cmd=job-getid;p" | "0=" */
    split(c, cuts, 1, 50, "a frame cut inside a key");
}

static void run_split_in_value(pcf_ctx *c)
{
    static const size_t cuts[] = { 6 + 25, 6 + 38 }; /* inside the value, before its ';' */
    split(c, cuts, 2, 50, "a frame cut inside a value");
}

/* frame, PMI-1 line, frame in one write: three answers, in order. */
static void run_v1_between(pcf_ctx *c)
{
    pmc_out o = { 0 };
    pmc_enc e;
    pmc_msg m;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    if (pcfd_encode(c, &e, NULL, &o) == 0) {
        pmc_enc_begin(&e, PMC_WIRE_V1, "get_maxes");
        if (pcfd_encode(c, &e, NULL, &o) == 0) {
            pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
            if (pcfd_encode(c, &e, NULL, &o) == 0 && pcfd_send(c, &o) == 0 &&
                pcf_expect(c, "job-getid-response", &m) == 0 && pcf_expect(c, "maxes", &m) == 0) {
                if (m.wire != PMC_WIRE_V1) /* CLASS-4 */
                    pcf_observe(c, "wrong-response", "cmd=maxes came back as a PMI-2 frame");
                else if (pcf_expect(c, "job-getid-response", &m) == 0)
                    pcf_observe(c, "ok", "frame, line, frame in one write: three answers in order");
            }
        }
    }
    pmc_out_free(&o);
}

/* Two frames in several writes whose cuts straddle the boundary. */
static void straddle(pcf_ctx *c, const size_t *cuts, size_t n)
{
    pmc_out o = { 0 };
    pmc_msg m;
    if (padded_getid(c, 40, NULL, &o) == 0 && padded_getid(c, 40, NULL, &o) == 0) {
        int rc = pws_send_split(pcf_session(c), o.buf, o.len, cuts, n, pcf_wait_ms(c, 40), pcf_deadline(c));
        if (rc)
            pcf_observe(c, "closed", "write failed: %s", pws_result_name(rc));
        else if (pcf_expect(c, "job-getid-response", &m) == 0 &&
                 pcf_expect(c, "job-getid-response", &m) == 0)
            pcf_observe(c, "ok", "two frames across %zu writes, two answers", n + 1);
    }
    pmc_out_free(&o);
}

static void run_coalesced_straddle(pcf_ctx *c)
{
    static const size_t cuts[] = { 30, 49 }; /* inside frame 1; inside frame 2's length */
    straddle(c, cuts, 2);
}

static void run_partial_length(pcf_ctx *c)
{
    static const size_t cuts[] = { 49 }; /* frame 1 and half of frame 2's length field */
    straddle(c, cuts, 1);
}

static void run_thrid_middle(pcf_ctx *c)
{
    char thrid[48];
    snprintf(thrid, sizeof thrid, "mid-%s", pcf_tag(c));
    pmc_enc e;
    pmc_msg m;
    char b[200];
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    pmc_enc_str(&e, "pcf-a", "1");
    pmc_enc_str(&e, "thrid", thrid);
    pmc_enc_str(&e, "pcf-b", "2");
    if (pcf_call(c, &e, "job-getid-response", &m) != 0)
        return;
    if (pmc_slice_eq(m.thrid, thrid))
        pcf_observe(c, "ok", "thrid between two keys echoed");
    else
        pcf_observe(c, "missing", "sent thrid=%s: %s", thrid, pcf_show(&m, b, sizeof b));
}

/* B1: length = body + 6, left-justified, six junk bytes (NUL) after the ';'. */
static void run_b1_junk(pcf_ctx *c)
{
    const pmc_dialect *d = pmc_dialect_get("mpich-4.0-client");
    pmc_enc e;
    pmc_out o = { 0 };
    if (!d) {
        pcf_observe(c, "harness-error", "no mpich-4.0-client dialect");
        return;
    }
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    if (pcfd_encode(c, &e, d, &o) == 0 && pcfd_send(c, &o) == 0)
        expect_getid(c, "a B1 frame ('20    cmd=job-getid;' + 6 NUL)");
    pmc_out_free(&o);
}

/* B1 on a kvs-put: the junk must not become part of the value. */
static void run_b1_put(pcf_ctx *c)
{
    const pmc_dialect *d = pmc_dialect_get("mpich-4.0-client");
    char key[64], got[64];
    snprintf(key, sizeof key, "%s-b1-r%d", pcf_tag(c), pcf_rank(c));
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_msg m;
    long long rc = -1;
    if (!d) {
        pcf_observe(c, "harness-error", "no mpich-4.0-client dialect");
        return;
    }
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", "b1-value");
    if (pcfd_encode(c, &e, d, &o) == 0 && pcfd_collective_start(c) == 0 &&
        pcfd_send(c, &o) == 0 && pcf_expect(c, "kvs-put-response", &m) == 0) {
        bool refused = pcf_rc(&m, &rc) != 1 || rc != 0;
        bool found = false;
        if (pcf_kvs_fence(c) == 0) {
            if (refused)
                pcf_observe(c, "rejected", "the B1 kvs-put was refused");
            else if (pcf_kvs_get(c, key, &found, got, sizeof got, NULL) == 0) {
                if (found && strcmp(got, "b1-value") == 0)
                    pcf_observe(c, "ok", "the junk was ignored, the value intact");
                else
                    pcf_observe(c, "altered", "stored \"%s\"%s", got, found ? "" : " (not found)");
            }
        }
    }
    pmc_out_free(&o);
    pcfd_collective_end(c);
}

/* info-getnodeattr wait=<bool> for a missing attribute, pipelined with the
 * put that satisfies it (thrids tag both).  Read as TRUE, the get waits
 * for the put and returns its value; read as FALSE, it says not found. */
static void wait_bool(pcf_ctx *c, const char *spelled)
{
    char key[64], t1[48], t2[48];
    snprintf(key, sizeof key, "%s-wait-r%d", pcf_tag(c), pcf_rank(c));
    snprintf(t1, sizeof t1, "g-%s", pcf_tag(c));
    snprintf(t2, sizeof t2, "p-%s", pcf_tag(c));
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V2, "info-getnodeattr");
    pmc_enc_str(&e, "thrid", t1);
    pmc_enc_str(&e, "key", key);
    pmc_enc_bool(&e, "wait", true);
    if (pcfd_encode(c, &e, pcfd_dialect_lower_bool(), &o) != 0)
        return;
    long at = pcfd_find(&o, 6, "wait=true;");
    if (at < 0) {
        pcf_observe(c, "harness-error", "no wait=true in the encoded frame");
        pmc_out_free(&o);
        return;
    }
    memcpy(o.buf + at + 5, spelled, 4);
    pmc_enc_begin(&e, PMC_WIRE_V2, "info-putnodeattr");
    pmc_enc_str(&e, "thrid", t2);
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", "waited");
    if (pcfd_encode(c, &e, NULL, &o) == 0 && pcfd_send(c, &o) == 0) {
        /* two answers in any order (THRID-7): told apart by their names */
        bool put_answered = false;
        for (int i = 0; i < 2 && !pcf_observed(c); i++) {
            pmc_msg m;
            pmc_error err;
            char b[200];
            pws_result r = pcf_recv(c, &m, &err);
            if (r == PWS_TIMEOUT && !put_answered) {
                /* the get was held, so wait=<spelled> was read as TRUE (BOOL-2
                 * holds); the put behind it was never served: NODEATTR-5 */
                pcf_observe(c, "blocked",
                            "neither the get (wait=%s, held: read as TRUE) nor the "
                            "info-putnodeattr sent behind it was answered: the server stopped "
                            "serving this connection while the get waited",
                            spelled);
                break;
            }
            if (r == PWS_TIMEOUT) {
                pcf_observe(c, "not-released",
                            "the put was answered but the held get (wait=%s, read as TRUE) never was",
                            spelled);
                break;
            }
            if (r != PWS_MSG) {
                pcf_observe(c, r == PWS_EOF ? "closed" : "bad-response",
                            "waiting for the nodeattr answers: %s", pws_result_name(r));
                break;
            }
            if (!pmc_slice_eq(m.name, "info-getnodeattr-response")) {
                put_answered |= pmc_slice_eq(m.name, "info-putnodeattr-response");
                continue;
            }
            bool found = false;
            pmc_slice v;
            pmc_msg_get_bool(&m, "found", &found, NULL);
            if (found && pmc_msg_get(&m, "value", &v) && pmc_slice_eq(v, "waited"))
                pcf_observe(c, "ok", "wait=%s was read as TRUE", spelled);
            else
                pcf_observe(c, "read-as-false", "wait=%s: %s", spelled,
                            pcf_show(&m, b, sizeof b));
        }
    }
    pmc_out_free(&o);
}

static void run_bool_lower(pcf_ctx *c) { wait_bool(c, "true"); }
static void run_bool_mixed(pcf_ctx *c) { wait_bool(c, "True"); }

static const pcf_case cases[] = {
    { .id = "frame/len-left-4-digits", .desc = "a left-justified four-digit length (\"1045  \")",
      .clause = "FRAME-3", .expected = "the request is answered normally",
      .flags = PCF_V2, .run = run_left_4digits },
    { .id = "frame/len-zero-4-digits", .desc = "a zero-padded four-digit length (\"001045\")",
      .clause = "FRAME-3", .expected = "the request is answered normally",
      .flags = PCF_V2, .run = run_zero_4digits },
    { .id = "frame/body-4096", .desc = "a frame with a 4096-byte body is accepted",
      .clause = "LIMIT-5", .expected = "cmd=job-getid-response;rc=0;...",
      .flags = PCF_V2, .run = run_body_4096 },
    { .id = "frame/body-65530",
      .desc = "a frame with a 65530-byte body: 65536 bytes in all, a full 64 KiB buffer (B12)",
      .clause = "LIMIT-6", .expected = "cmd=job-getid-response;rc=0;...",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_body_65530,
      .outcomes = { { "rejected", PCF_DEVIATES, NULL, "answered rc != 0" },
                    { "closed", PCF_DEVIATES, NULL, "closed the connection" }, PCFD_KILLED } },
    { .id = "frame/split-every-byte", .desc = "a frame written one byte per write is reassembled",
      .clause = "CONN-1", .expected = "the request is answered normally",
      .flags = PCF_V2, .run = run_every_byte },
    { .id = "frame/split-after-length",
      .desc = "the length field and the body in two writes are reassembled",
      .clause = "CONN-1", .expected = "the request is answered normally",
      .flags = PCF_V2, .run = run_split_after_length },
    { .id = "frame/split-in-key", .desc = "a frame cut inside a key is reassembled",
      .clause = "CONN-1", .expected = "the request is answered normally",
      .flags = PCF_V2, .run = run_split_in_key },
    { .id = "frame/split-in-value", .desc = "a frame cut twice inside a value is reassembled",
      .clause = "CONN-1", .expected = "the request is answered normally",
      .flags = PCF_V2, .run = run_split_in_value },
    { .id = "frame/v1-between-frames",
      .desc = "frame, PMI-1 line, frame in one write get three answers in order",
      .clause = "CONN-2", .expected = "job-getid-response, maxes, job-getid-response",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, /* as frame/v1-on-v2-connection */ .run = run_v1_between,
      .outcomes = { { "wrong-response", PCF_DEVIATES, "CLASS-2", "the PMI-1 line was not served" } } },
    { .id = "frame/coalesced-straddle",
      .desc = "two frames in three writes cut inside frame 1 and inside frame 2's length",
      .clause = "CONN-1", .expected = "two job-getid-response frames",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_coalesced_straddle,
      .outcomes = { { "closed", PCF_DEVIATES, NULL, "closed the connection" }, PCFD_KILLED } },
    { .id = "frame/coalesced-partial-length",
      .desc = "one write holds a whole frame and 3 bytes of the next frame's length field",
      .clause = "CONN-1", .expected = "two job-getid-response frames",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_partial_length,
      .outcomes = { { "closed", PCF_DEVIATES, NULL, "closed the connection" }, PCFD_KILLED } },
    { .id = "frame/thrid-middle", .desc = "a thrid between two other keys is echoed (S11)",
      .clause = "THRID-3", .expected = "the response carries the thrid",
      .flags = PCF_V2, .run = run_thrid_middle,
      .outcomes = { { "missing", PCF_DEVIATES, "THRID-4", "no thrid echoed" } } },
    { .id = "frame/b1-junk",
      .desc = "the MPICH 4.0.2 client's frame: length body+6, left-justified, 6 junk bytes (B1)",
      .clause = "BODY-6", .expected = "the request is answered normally",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_b1_junk,
      .outcomes = { { "rejected", PCF_DEVIATES, NULL, "answered rc != 0" },
                    { "closed", PCF_DEVIATES, NULL, "closed the connection" }, PCFD_KILLED } },
    { .id = "frame/b1-put-value",
      .desc = "a B1 kvs-put stores the value without the junk bytes",
      .clause = "BODY-6", .expected = "after the fence, the value exactly as put",
      .flags = PCF_V2 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_b1_put,
      .outcomes = { { "rejected", PCF_DEVIATES, NULL, "refused the put" },
                    { "job-killed", PCF_FAIL, "ERR-1", "the job ended" },
                    { "closed", PCF_DEVIATES, NULL, "closed the connection" } } },
    { .id = "frame/bool-lower-case",
      .desc = "info-getnodeattr wait=true (lower case) waits like wait=TRUE (M9)",
      .clause = "BOOL-2", .expected = "the get waits for the pipelined put: found=TRUE;value=waited",
      .flags = PCF_V2, .run = run_bool_lower,
      .outcomes = { { "read-as-false", PCF_DEVIATES, NULL, "answered not found at once" },
                    { "blocked", PCF_FAIL, "NODEATTR-5", "the put behind the held get went unanswered" },
                    { "not-released", PCF_TIMEOUT, "NODEATTR-4", "the put did not release the held get" } } },
    { .id = "frame/bool-mixed-case",
      .desc = "info-getnodeattr wait=True (mixed case) waits like wait=TRUE",
      .clause = "BOOL-2", .expected = "the get waits for the pipelined put: found=TRUE;value=waited",
      .flags = PCF_V2, .run = run_bool_mixed,
      .outcomes = { { "read-as-false", PCF_DEVIATES, NULL, "answered not found at once" },
                    { "blocked", PCF_FAIL, "NODEATTR-5", "the put behind the held get went unanswered" },
                    { "not-released", PCF_TIMEOUT, "NODEATTR-4", "the put did not release the held get" } } },
};
PCF_CASES(cases)
