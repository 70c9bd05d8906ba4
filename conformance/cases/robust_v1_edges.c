/* robust/v1-...: what the newcomer servers' audits found no case for: a put
 * whose pairs come after the 64th of its line (LIMIT-10), a line of exactly
 * 1024 bytes (LIMIT-8's edge, LF included), a line that does not start with
 * cmd= (CLASS-1), a client that never reads its answers (CONN-9).  Built by
 * the encoder, then damaged. */
#include "damage.h"

#include <stdlib.h>

enum { PAD_PAIRS = 70 };

/* "cmd=put pcfpad0=x ... pcfpad69=x kvsname=K key=k value=v": the pairs the
 * put needs are the 71st to 73rd of the line. */
static void run_put_after_64(pcf_ctx *c)
{
    char key[48];
    snprintf(key, sizeof key, "%s-p64-r%d", pcf_tag(c), pcf_rank(c));
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_msg m;
    pmc_slice v;
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    char pk[PAD_PAIRS][16];
    for (int i = 0; i < PAD_PAIRS; i++) {
        snprintf(pk[i], sizeof pk[i], "pcfpad%d", i);
        pmc_enc_str(&e, pk[i], "x");
    }
    pmc_enc_str(&e, "kvsname", pcf_kvsname(c));
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", "after-64");
    if (pcfd_encode(c, &e, NULL, &o) == 0) {
        int f = pcfd_v1_put_barrier_get(c, &o, key, &m, &v);
        if (f == 1 && pmc_slice_eq(v, "after-64"))
            pcf_observe(c, "ok", "the put's pairs after the 64th were read: the value is stored");
        else if (f == 1)
            pcf_observe(c, "altered", "stored %.*s", (int)v.len, v.ptr);
        else if (f == 0)
            pcf_observe(c, "lost", "put answered rc=0 but %s is not found after the barrier "
                                   "(the pairs after the 64th were dropped)", key);
    }
    pmc_out_free(&o);
    pcfd_collective_end(c);
}

/* A put line of exactly 1024 bytes, its LF included. */
static void run_line_1024(pcf_ctx *c)
{
    enum { LINE = 1024 };
    char key[48];
    snprintf(key, sizeof key, "%s-l1024-r%d", pcf_tag(c), pcf_rank(c));
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_msg m;
    pmc_slice v;
    /* the line with an empty value, then the value that makes it 1024 */
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    pmc_enc_str(&e, "kvsname", pcf_kvsname(c));
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", "");
    if (pcfd_encode(c, &e, NULL, &o) != 0) {
        pmc_out_free(&o);
        pcfd_collective_end(c);
        return;
    }
    size_t vn = LINE - o.len;
    pmc_out_free(&o);
    o = (pmc_out){ 0 };
    char *val = malloc(vn + 1);
    if (!val) {
        pcf_observe(c, "harness-error", "out of memory");
        pcfd_collective_end(c);
        return;
    }
    memset(val, 'E', vn);
    val[vn] = 0;
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    pmc_enc_str(&e, "kvsname", pcf_kvsname(c));
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", val);
    if (pcfd_encode(c, &e, NULL, &o) == 0) {
        if (o.len != LINE) {
            pcf_observe(c, "harness-error", "the put line has %zu bytes, not %d", o.len, LINE);
        } else {
            int f = pcfd_v1_put_barrier_get(c, &o, key, &m, &v);
            if (f == 1 && v.len == vn && memcmp(v.ptr, val, vn) == 0)
                pcf_observe(c, "ok", "the 1024-byte line was read: its %zu-byte value is stored",
                            vn);
            else if (f == 1)
                pcf_observe(c, "altered", "stored %zu bytes, not the %zu sent", v.len, vn);
            else if (f == 0)
                pcf_observe(c, "lost", "put answered rc=0 but %s is not found after the barrier",
                            key);
        }
    }
    free(val);
    pmc_out_free(&o);
    pcfd_collective_end(c);
}

/* "pcf=get_maxes\n": cmd= replaced by another key. */
static void run_no_cmd(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_maxes");
    if (pcfd_encode(c, &e, NULL, &o) == 0 && pcfd_patch(c, &o, "cmd=", "pcf=", 4) == 0 &&
        pcfd_send(c, &o) == 0)
        pcfd_grade(c, NULL, NULL);
    pmc_out_free(&o);
}

enum { UNREAD_GETS = 1500, UNREAD_VAL = 900 };

/* A put of a 900-byte value, then 1500 gets of it in one write, and not one
 * answer read (about 1.4 MB of answers): rank 0 then asks on its own
 * connection whether the server still serves it. */
static void run_unread_answers(pcf_ctx *c)
{
    char key[48], *val = malloc(UNREAD_VAL + 1);
    if (!val) {
        pcf_observe(c, "harness-error", "out of memory");
        return;
    }
    snprintf(key, sizeof key, "%s-unread-r%d", pcf_tag(c), pcf_rank(c));
    memset(val, 'U', UNREAD_VAL);
    val[UNREAD_VAL] = 0;
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_msg m;
    long long rc = -1;
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    pmc_enc_str(&e, "kvsname", pcf_kvsname(c));
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", val);
    int called = pcf_call(c, &e, "put_result", &m);
    free(val); /* the encoder held it until the request went out */
    if (called != 0)
        return;
    if (pcf_rc(&m, &rc) != 1 || rc != 0) {
        char b[300];
        pcf_observe(c, "put-refused", "the put of a %d-byte value was answered %s", UNREAD_VAL,
                    pcf_show(&m, b, sizeof b));
        return;
    }
    for (int i = 0; i < UNREAD_GETS; i++) {
        pmc_enc_begin(&e, PMC_WIRE_V1, "get");
        pmc_enc_str(&e, "kvsname", pcf_kvsname(c));
        pmc_enc_str(&e, "key", key);
        if (pcfd_encode(c, &e, NULL, &o) != 0) {
            pmc_out_free(&o);
            return;
        }
    }
    /* a server that stops reading this connection may leave part of the
     * requests unsent: that is its right (CONN-9) */
    int sent = pcf_send_raw(c, o.buf, o.len);
    /* rank 0 asks only once the server is answering the flood (or after
     * 3 s of silence): asked earlier, a server that reads connections in
     * turn answers rank 0 before it reads the flood, and passes by luck */
    long queued = pcf_wait_answers_queued(c, 300, 3000);
    char waiting[96];
    if (queued > 0)
        snprintf(waiting, sizeof waiting, "%ld bytes of answers were waiting unread", queued);
    else
        snprintf(waiting, sizeof waiting, "%s", queued == 0 ? "no answer came within 3 s"
                                                           : "(the socket cannot tell what came back)");
    pcf_observe(c, "ok", "%s %d gets of a %d-byte value (%zu bytes) and read none of the "
                "answers (%s); whether the server still serves the other connections, rank 0 "
                "asks", sent == 0 ? "sent" : "began to send", UNREAD_GETS, UNREAD_VAL, o.len,
                waiting);
    pmc_out_free(&o);
}

/* put_barrier_get's outcomes besides its own "ok" */
#define EDGE_LOST                                                                                \
    { "job-killed", PCF_FAIL, "ERR-1", "the server ended the job" }

static const pcf_case cases[] = {
    { .id = "robust/v1-put-after-64-pairs",
      .desc = "a PMI-1 put whose kvsname, key and value come after 70 other pairs (73 in all)",
      .clause = "LIMIT-10",
      .expected = "put_result rc=0 and, after the barrier, the value under its key",
      .steps = "Every rank (in a launch of its own) fences, then sends \"cmd=put pcfpad0=x ... "
               "pcfpad69=x kvsname=K key=<k> value=after-64\": 73 pairs, the put's own three "
               "after the 70 others (unknown keys, ignored by PAIR-5), a line of about 600 "
               "bytes.\n"
               "A server MUST accept 256 pairs (LIMIT-10): put_result rc=0, then after the "
               "barrier get of <k> returns after-64.  A refused put (\"put-refused\", the "
               "server missed the pairs it needs) or a key not found (\"lost\") FAIL; a close "
               "is \"closed\".",
      .flags = PCF_V1 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_put_after_64,
      .outcomes = { { "put-refused", PCF_DEVIATES, NULL,
                      "refused the put: the pairs after the 64th were not read" },
                    { "lost", PCF_DEVIATES, NULL, "dropped the pairs after the 64th" },
                    { "closed", PCF_DEVIATES, NULL, "closed the connection on a line of 73 pairs" },
                    EDGE_LOST } },
    { .id = "robust/v1-line-1024",
      .desc = "a PMI-1 put line of exactly 1024 bytes, its LF included",
      .clause = "LIMIT-8",
      .expected = "put_result rc=0 and, after the barrier, the whole value under its key",
      .steps = "Every rank (in a launch of its own) fences, then sends a put whose value makes "
               "the line exactly 1024 bytes, LF included (a value of about 980 bytes, below "
               "the 1024 every server announces).\n"
               "LIMIT-8 counts the LF in the 1024 bytes a receiver MUST accept: put_result "
               "rc=0, then after the barrier the whole value.  A close (\"closed\": a buffer "
               "that keeps a byte for a NUL), a refused put or a value not found FAIL.",
      .flags = PCF_V1 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_line_1024,
      .outcomes = { { "closed", PCF_DEVIATES, NULL,
                      "closed the connection on a line of exactly 1024 bytes" },
                    { "put-refused", PCF_DEVIATES, NULL, "refused a line of 1024 bytes" },
                    { "lost", PCF_DEVIATES, NULL, "answered rc=0 but stored nothing" },
                    EDGE_LOST } },
    { .id = "robust/v1-no-cmd",
      .desc = "a line that does not start with cmd= (\"pcf=get_maxes\\n\")",
      .clause = "CLASS-1",
      .expected = "the server closes the connection (not cmd=, so a PMI-2 frame with a bad "
                  "length field: ERR-5); never get_maxes's answer",
      .steps = "In a PMI-1 launch, a victim rank (the case may end the job) sends "
               "\"pcf=get_maxes\\n\": a get_maxes line whose first key is not cmd.\n"
               "A message that does not start with cmd= or mcmd= is a PMI-2 frame (CLASS-1); "
               "\"pcf=ge\" is no length field, so the framing is broken and the server must "
               "close the connection (ERR-5).  Answering maxes is \"accepted\" (BODY-2: the "
               "server acted on a message without cmd=); no answer and no close is a "
               "TIMEOUT (ERR-3: the client waits for ever).\n"
               PCFD_STEPS_FRAMING,
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_no_cmd,
      .outcomes = { PCFD_FRAMING("BODY-2") } },
    { .id = "robust/v1-unread-answers",
      .desc = "a client that sends 1500 gets of a 900-byte value and reads none of the answers",
      .clause = "CONN-9",
      .expected = "the other ranks are still served (the server may stop reading the client, "
                  "or close it)",
      .steps = "In a PMI-1 launch, a victim rank (the case may end the job) puts a 900-byte "
               "value, then sends 1500 gets of it in one write (80 to 90 KB) and reads none of "
               "the answers (about 1.4 MB): its socket fills, and the server cannot write "
               "to it.\n"
               "The victim does not read its connection again; it waits until answers are "
               "queued unread in its socket and their count holds still for 0.3 s (at most "
               "3 s), so that the server is answering the flood before anyone else asks.  "
               "Rank 0 then sends get_appnum "
               "on its own connection, and every other rank asks on its own (the case has a "
               "launch of its own, so on several nodes the ranks beside the victim, whose "
               "proxy or agent is the one that may stall, are among them): answers pass; none is \"others-affected\" (CONN-9: "
               "a server that writes with blocking writes stops serving everyone); a job the "
               "server ended is \"job-killed\" (ERR-1).",
      /* a launch of its own: a server that stalls only the victim's node
       * (one Hydra proxy per node) is seen by the ranks beside the victim,
       * and only those that ran no case of their own are asked */
      .flags = PCF_V1 | PCF_DESTRUCTIVE | PCF_ALONE | PCF_PLACED, .run = run_unread_answers,
      .outcomes = { { "others-affected", PCF_FAIL, "CONN-9",
                      "a client that did not read its answers stopped the server serving "
                      "the others" },
                    { "put-refused", PCF_DEVIATES, "LIMIT-1", "refused a 900-byte value" },
                    { "job-killed", PCF_FAIL, "ERR-1", "the server ended the job" } } },
};
PCF_CASES(cases)
