/* pmi2/concat: continuation frames (SPEC 7, optional).  The frames come
 * from the codec's encoder (a dialect with a small max_frame splits a
 * message at pair boundaries); partial sequences are cut from its output at
 * frame boundaries the decoder reports.  A server without continuations is
 * UNSUPPORTED; one that dies, closes or hangs is graded by ERR-*.  Every
 * case is destructive (Hydra ends the job on cmd=concat, Slurm never
 * answers it) and runs on a victim rank alone. */
#include "pmi2_util.h"

/* The strict dialect, split above `max` body bytes. */
static const pmc_dialect *split_dialect(uint32_t max)
{
    static pmc_dialect d;
    d = pmc_dialect_strict;
    d.name = "strict-concat";
    d.max_frame = max;
    return &d;
}

/* Two unknown keys (ignored, PAIR-5) that push the message over 80 bytes. */
static void pad(pmc_enc *e)
{
    pmc_enc_str(e, "pcf-pad0", "continuation-filler-continuation-filler");
    pmc_enc_str(e, "pcf-pad1", "continuation-filler-continuation-filler");
}

/* Byte length of each frame in out (up to n); returns the frame count. */
static size_t frames(const pmc_out *out, size_t *len, size_t n)
{
    pmc_decoder_opts o;
    pmc_decoder_opts_default(&o);
    o.flags |= PMC_DEC_NO_CONCAT;
    pmc_decoder *d = pmc_decoder_new(&o);
    size_t k = 0, off = 0;
    while (d && k < n && off < out->len) {
        pmc_msg m;
        pmc_error err;
        size_t used = 0;
        pmc_decoder_reset(d);
        if (pmc_decode_buffer(d, out->buf + off, out->len - off, off, &m, &err, &used) != PMC_MSG ||
            !used)
            break;
        len[k++] = used;
        off += used;
    }
    pmc_decoder_free(d);
    return k;
}

static void grade_first(pcf_ctx *c, const char *reply, p2r *r, bool *got)
{
    pmc_msg m;
    pmc_error err;
    char b[300];
    *got = false;
    pws_result w = pcf_recv(c, &m, &err);
    if (w == PWS_MSG) {
        if (!pmc_slice_eq(m.name, reply)) {
            pcf_observe(c, "wrong-response", "expected %s, got %s", reply,
                        pcf_show(&m, b, sizeof b));
            return;
        }
        p2_take(&m, r);
        *got = true;
    } else if (w == PWS_EOF) { /* whether the job also ended, rank 0 asks next */
        pcf_observe(c, "closed", "the server closed the connection");
    } else if (w == PWS_TIMEOUT) {
        pcf_observe(c, "no-answer", "no %s within the deadline", reply);
    } else {
        char eb[PCF_ERR_TEXT];
        pcf_observe(c, "bad-response", "%s", pcf_decode_error(c, &err, eb, sizeof eb));
    }
}

/* info-getjobattr whose key travels in a continuation frame: only a server
 * that reassembles can answer found=TRUE. */
static void run_reassembly(pcf_ctx *c)
{
    char thrid[48];
    snprintf(thrid, sizeof thrid, "%s-cc", pcf_tag(c));
    pmc_enc e;
    pmc_out out = { 0 };
    pmc_error err;
    pmc_enc_begin(&e, PMC_WIRE_V2, "info-getjobattr");
    pmc_enc_str(&e, "thrid", thrid);
    pmc_enc_str(&e, "key", "PMI_process_mapping");
    if (pmc_enc_end(&e, split_dialect(56), &out, &err) != 0) {
        pcf_observe(c, "harness-error", "encoder: %s", pmc_errcode_name(err.code));
        return;
    }
    size_t len[8];
    size_t nf = frames(&out, len, 8);
    pcf_note(c, "%zu frames", nf);
    p2r r;
    bool got;
    if (nf < 2) {
        pcf_observe(c, "harness-error", "the encoder did not split the message");
    } else if (pcf_send_raw(c, out.buf, out.len) == 0) {
        grade_first(c, "info-getjobattr-response", &r, &got);
        if (got) {
            if (p2_hit(&r) && r.has_thrid && strcmp(r.thrid, thrid) == 0)
                pcf_observe(c, "ok", "%zu frames reassembled: %s", nf, r.show);
            else if (p2_hit(&r))
                pcf_observe(c, "thrid-lost", "reassembled, but the thrid is wrong: %s", r.show);
            else if (p2_fail(&r) || p2_miss(&r))
                pcf_observe(c, "unsupported", "the first frame was taken as complete: %s", r.show);
            else
                pcf_observe(c, "malformed", "%s", r.show);
        }
    }
    pmc_out_free(&out);
}

/* Only the continuation frame, continuing nothing (CONCAT-9). */
static void run_unexpected(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out out = { 0 };
    pmc_error err;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    pad(&e);
    if (pmc_enc_end(&e, split_dialect(80), &out, &err) != 0) {
        pcf_observe(c, "harness-error", "encoder: %s", pmc_errcode_name(err.code));
        return;
    }
    size_t len[8];
    size_t nf = frames(&out, len, 8);
    p2r r;
    bool got;
    if (nf < 2) {
        pcf_observe(c, "harness-error", "the encoder did not split the message");
    } else if (pcf_send_raw(c, out.buf + len[0], len[1]) == 0) {
        grade_first(c, "concat-response", &r, &got);
        if (got)
            pcf_observe(c, p2_fail(&r) ? "ok" : "accepted", "%s", r.show);
    }
    pmc_out_free(&out);
}

/* The first frame of a continued job-getid, then an ordinary job-getid
 * (CONCAT-7): the partial message gets an error, the new one an answer.  A
 * server without continuations answers the first frame as complete. */
static void run_broken(pcf_ctx *c)
{
    char t1[48], t2[48];
    snprintf(t1, sizeof t1, "%s-b1", pcf_tag(c));
    snprintf(t2, sizeof t2, "%s-b2", pcf_tag(c));
    pmc_enc e;
    pmc_out out = { 0 }, next = { 0 };
    pmc_error err;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    pmc_enc_str(&e, "thrid", t1);
    pad(&e);
    if (pmc_enc_end(&e, split_dialect(80), &out, &err) != 0) {
        pcf_observe(c, "harness-error", "encoder: %s", pmc_errcode_name(err.code));
        return;
    }
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    pmc_enc_str(&e, "thrid", t2);
    if (pmc_enc_end(&e, NULL, &next, &err) != 0) {
        pcf_observe(c, "harness-error", "encoder: %s", pmc_errcode_name(err.code));
        pmc_out_free(&out);
        return;
    }
    size_t len[8];
    size_t nf = frames(&out, len, 8);
    p2r r[2];
    if (nf < 2) {
        pcf_observe(c, "harness-error", "the encoder did not split the message");
    } else if (pcf_send_raw(c, out.buf, len[0]) == 0 && pcf_send_raw(c, next.buf, next.len) == 0) {
        const char *names[] = { "job-getid-response", "job-getid-response" };
        const char *thrids[] = { t1, t2 };
        if (p2_collect(c, 2, names, thrids, r, NULL) == 0) {
            if (!p2_ok(&r[1]))
                pcf_observe(c, "second-lost", "the new message after the broken one: %s",
                            r[1].show);
            else if (p2_fail(&r[0]))
                pcf_observe(c, "ok", "broken continuation refused, next message answered");
            else {
                /* no continuations: the stray cmd=concat frame was a command of its
                 * own, which Hydra answers by ending the job at mpiexec's pace */
                pcf_pause_ms(c, 1000);
                if (pcf_ask_served(c, 1500) == PWS_EOF)
                    pcf_observe(c, "closed", "the first frame was answered as complete, then "
                                             "the connection closed: %s", r[0].show);
                else
                    pcf_observe(c, "unsupported", "the first frame was answered as complete: %s",
                                r[0].show);
            }
        }
    }
    pmc_out_free(&out);
    pmc_out_free(&next);
}

/* The first frame of a continued job-getid, then its continuation with a
 * different concatid, then an ordinary job-getid (CONCAT-8): the partial
 * message gets an error response, the new one an answer. */
static void run_wrong_id(pcf_ctx *c)
{
    char t1[48], t2[48];
    snprintf(t1, sizeof t1, "%s-w1", pcf_tag(c));
    snprintf(t2, sizeof t2, "%s-w2", pcf_tag(c));
    pmc_enc e;
    pmc_out out = { 0 }, next = { 0 };
    pmc_error err;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    pmc_enc_str(&e, "thrid", t1);
    pad(&e);
    if (pmc_enc_end(&e, split_dialect(80), &out, &err) != 0) {
        pcf_observe(c, "harness-error", "encoder: %s", pmc_errcode_name(err.code));
        return;
    }
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    pmc_enc_str(&e, "thrid", t2);
    if (pmc_enc_end(&e, NULL, &next, &err) != 0) {
        pcf_observe(c, "harness-error", "encoder: %s", pmc_errcode_name(err.code));
        pmc_out_free(&out);
        return;
    }
    size_t len[8];
    size_t nf = frames(&out, len, 8);
    static const char pre[] = "cmd=concat;concatid=";
    char *second = nf >= 2 ? out.buf + len[0] : NULL;
    if (!second || len[1] < 6 + sizeof pre || memcmp(second + 6, pre, sizeof pre - 1) != 0) {
        pcf_observe(c, "harness-error", "the encoder did not split the message as expected");
        pmc_out_free(&out);
        pmc_out_free(&next);
        return;
    }
    char *id = second + 6 + sizeof pre - 1; /* same length, another id */
    *id = *id == 'Z' ? 'Y' : 'Z';
    p2r r[2];
    bool got[2] = { false, false };
    if (pcf_send_raw(c, out.buf, len[0] + len[1]) == 0 &&
        pcf_send_raw(c, next.buf, next.len) == 0) {
        /* both job-getid answers, in any order; a server without continuations
         * also answers the stray cmd=concat frame (concat-response): skipped */
        for (int k = 0; k < 4 && !(got[0] && got[1]); k++) {
            pmc_msg m;
            pmc_error er;
            char b[300];
            pws_result w = pcf_recv(c, &m, &er);
            if (w != PWS_MSG) {
                if (w == PWS_TIMEOUT)
                    pcf_observe(c, "no-answer", "%s of the two job-getid requests unanswered",
                                got[0] || got[1] ? "one" : "both");
                else if (w == PWS_EOF)
                    pcf_observe(c, "closed", "the server closed the connection");
                else
                    pcf_observe(c, "bad-response", "%s", pws_result_name(w));
                break;
            }
            if (pmc_slice_eq(m.name, "concat-response"))
                continue;
            /* without a thrid (Slurm echoes none) the answers come in order */
            int slot = m.thrid.ptr ? (pmc_slice_eq(m.thrid, t2) ? 1 : 0) : (got[0] ? 1 : 0);
            if (!pmc_slice_eq(m.name, "job-getid-response") || got[slot]) {
                pcf_observe(c, "wrong-response", "%s", pcf_show(&m, b, sizeof b));
                break;
            }
            p2_take(&m, &r[slot]);
            got[slot] = true;
        }
        if (got[0] && got[1]) {
            if (!p2_ok(&r[1]))
                pcf_observe(c, "second-lost", "the new message after the wrong id: %s", r[1].show);
            else if (p2_fail(&r[0]))
                pcf_observe(c, "ok", "wrong concatid refused, next message answered");
            else {
                /* no continuations: the stray cmd=concat frame was a command of its
                 * own, which Hydra answers by ending the job at mpiexec's pace */
                pcf_pause_ms(c, 1000);
                if (pcf_ask_served(c, 1500) == PWS_EOF)
                    pcf_observe(c, "closed", "the first frame was answered as complete, then "
                                             "the connection closed: %s", r[0].show);
                else
                    pcf_observe(c, "unsupported", "the first frame was answered as complete: %s",
                                r[0].show);
            }
        }
    }
    pmc_out_free(&out);
    pmc_out_free(&next);
}

/* The answers to the requests tagged t[0] and t[1], in any order; a stray
 * frame's concat-response (a server without continuations) is skipped.
 * 0, or -1 after observing. */
static int two_answers(pcf_ctx *c, const char *const t[2], p2r r[2], int *nconcat)
{
    bool got[2] = { false, false };
    *nconcat = 0;
    for (int k = 0; k < 64 && !(got[0] && got[1]); k++) {
        pmc_msg m;
        pmc_error er;
        char b[300];
        pws_result w = pcf_recv(c, &m, &er);
        if (w != PWS_MSG) {
            if (w == PWS_TIMEOUT)
                pcf_observe(c, "no-answer", "%s of the two requests unanswered",
                            got[0] || got[1] ? "one" : "both");
            else if (w == PWS_EOF)
                pcf_observe(c, "closed", "the server closed the connection");
            else
                pcf_observe(c, "bad-response", "%s", pws_result_name(w));
            return -1;
        }
        if (pmc_slice_eq(m.name, "concat-response")) {
            ++*nconcat;
            continue;
        }
        int slot = m.thrid.ptr ? (pmc_slice_eq(m.thrid, t[1]) ? 1 : 0) : (got[0] ? 1 : 0);
        if (!pmc_slice_eq(m.name, "job-getid-response") || got[slot]) {
            pcf_observe(c, "wrong-response", "%s", pcf_show(&m, b, sizeof b));
            return -1;
        }
        p2_take(&m, &r[slot]);
        got[slot] = true;
    }
    return got[0] && got[1] ? 0 : -1;
}

/* CONCAT-10: a continued job-getid of about 1.1 MB (1100 unknown pairs of
 * 1000 bytes, 60000-byte frames), then an ordinary job-getid.  A server
 * whose bound is below it answers the big one once with an error; one with
 * a larger bound (or none of §7) answers it rc=0; either way the next
 * request is answered. */
static void run_too_large(pcf_ctx *c)
{
    enum { NPAD = 1100, PADLEN = 1000 };
    static char keys[NPAD][16], val[PADLEN + 1];
    char t1[48], t2[48];
    snprintf(t1, sizeof t1, "%s-big", pcf_tag(c));
    snprintf(t2, sizeof t2, "%s-after", pcf_tag(c));
    memset(val, 'x', PADLEN);
    pmc_enc e;
    pmc_out out = { 0 }, next = { 0 };
    pmc_error err;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    pmc_enc_str(&e, "thrid", t1);
    for (int i = 0; i < NPAD; i++) {
        snprintf(keys[i], sizeof keys[i], "pcf-pad%d", i);
        pmc_enc_str(&e, keys[i], val);
    }
    if (pmc_enc_end(&e, split_dialect(60000), &out, &err) != 0) {
        pcf_observe(c, "harness-error", "encoder: %s", pmc_errcode_name(err.code));
        return;
    }
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    pmc_enc_str(&e, "thrid", t2);
    if (pmc_enc_end(&e, NULL, &next, &err) != 0) {
        pcf_observe(c, "harness-error", "encoder: %s", pmc_errcode_name(err.code));
        pmc_out_free(&out);
        return;
    }
    const char *t[2] = { t1, t2 };
    p2r r[2];
    int nconcat;
    if (pcf_send_raw(c, out.buf, out.len) == 0 && pcf_send_raw(c, next.buf, next.len) == 0 &&
        two_answers(c, t, r, &nconcat) == 0) {
        if (!p2_ok(&r[1]))
            pcf_observe(c, "second-lost", "the request after the big one: %s", r[1].show);
        else if (nconcat) /* each continuation frame answered on its own: no §7 */
            pcf_observe(c, "unsupported", "the first frame was answered as complete (%s) and "
                        "%d continuation frame(s) each got a concat-response", r[0].show,
                        nconcat);
        else if (p2_fail(&r[0]))
            pcf_observe(c, "ok", "%zu bytes refused once, the next request answered", out.len);
        else
            pcf_observe(c, "within-bound", "%zu bytes reassembled and answered rc=0 (a bound "
                                           "above them)", out.len);
    }
    pmc_out_free(&out);
    pmc_out_free(&next);
}

#define CONCAT_OUTCOMES                                                                          \
    { "unsupported", PCF_UNSUPPORTED, NULL, "no continuation support (SPEC 1.3)" },             \
    { "closed", PCF_DEVIATES, "ERR-4", "closed the connection" },                               \
    { "no-answer", PCF_FAIL, "ERR-3", "never answered (S7)" },                                   \
    { "job-killed", PCF_FAIL, "ERR-1", "the server ended the job" },                            \
    { "sender-killed", PCF_FAIL, "ERR-1", "the server ended the process" },                     \
    { "others-affected", PCF_FAIL, "ERR-2", "other connections stopped being served" }

static const pcf_case cases[] = {
    { .id = "pmi2/concat/reassembly",
      .desc = "info-getjobattr split over continuation frames is answered as one message",
      .clause = "CONCAT-5", .expected = "one found=TRUE response carrying the first frame's thrid",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_reassembly,
      .outcomes = { CONCAT_OUTCOMES,
                    { "thrid-lost", PCF_DEVIATES, "CONCAT-11", "the response lacks the thrid" } } },
    { .id = "pmi2/concat/unexpected",
      .desc = "a cmd=concat frame that continues nothing gets an error response",
      .clause = "CONCAT-9", .expected = "cmd=concat-response;rc!=0;...",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_unexpected,
      .outcomes = { CONCAT_OUTCOMES,
                    { "accepted", PCF_DEVIATES, NULL, "rc=0 for a stray continuation" } } },
    { .id = "pmi2/concat/broken",
      .desc = "a continued message interrupted by a new one: an error for it, an answer for the new one",
      .clause = "CONCAT-7",
      .expected = "job-getid-response rc!=0 (first thrid), then rc=0 (second thrid)",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_broken,
      .outcomes = { CONCAT_OUTCOMES,
                    { "second-lost", PCF_DEVIATES, NULL, "the message after the broken one failed" } } },
    { .id = "pmi2/concat/wrong-id",
      .desc = "a continuation frame with another concatid: an error for the partial message",
      .clause = "CONCAT-8",
      .expected = "job-getid-response rc!=0 (first thrid), then rc=0 for the next message",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_wrong_id,
      .outcomes = { CONCAT_OUTCOMES,
                    { "wrong-response", PCF_DEVIATES, NULL, "an answer that belongs to no request" },
                    { "second-lost", PCF_DEVIATES, NULL, "the message after the wrong id failed" } } },
    { .id = "pmi2/concat/too-large",
      .desc = "a continued message of 1.1 MB: one error response (or rc=0 within a larger bound), the next message answered",
      .clause = "CONCAT-10",
      .expected = "job-getid-response rc!=0 once for the big message, then rc=0 for the next",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_too_large,
      .outcomes = { CONCAT_OUTCOMES,
                    { "within-bound", PCF_INFO, NULL, "answered rc=0: the bound, if any, is larger" },
                    { "wrong-response", PCF_DEVIATES, NULL, "a second answer to the big message" },
                    { "second-lost", PCF_DEVIATES, NULL, "the message after the big one failed" } } },
};
PCF_CASES(cases)
