/* frame/...: how the server reads the byte stream: every tolerated length
 * padding, a message split anywhere, several messages in one write. */
#include "pcf.h"

#include <stdio.h>
#include <string.h>

/* job-getid in dialect d; the response must come back. */
static void getid_in(pcf_ctx *c, const pmc_dialect *d)
{
    pmc_enc e;
    pmc_out out = { 0 };
    pmc_error err;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    if (pmc_enc_end(&e, d, &out, &err) != 0) {
        pcf_observe(c, "harness-error", "encoder: %s", pmc_errcode_name(err.code));
        return;
    }
    pmc_msg m;
    char b[200];
    if (pcf_send_raw(c, out.buf, out.len) == 0 && pcf_expect(c, "job-getid-response", &m) == 0) {
        long long rc = -1;
        if (pcf_rc(&m, &rc) == 1 && rc == 0)
            pcf_observe(c, "ok", "length field '%.6s' accepted", out.buf);
        else
            pcf_observe(c, "rejected", "length field '%.6s': %s", out.buf,
                        pcf_show(&m, b, sizeof b));
    }
    pmc_out_free(&out);
}

static void run_left(pcf_ctx *c)
{
    getid_in(c, pcf_dialect_pad(PMC_PAD_LEFT));
}

static void run_zero(pcf_ctx *c)
{
    getid_in(c, pcf_dialect_pad(PMC_PAD_ZERO));
}

static int encode(pcf_ctx *c, pmc_out *out, const char *thrid)
{
    pmc_enc e;
    pmc_error err;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    if (thrid)
        pmc_enc_str(&e, "thrid", thrid);
    if (pmc_enc_end(&e, NULL, out, &err) != 0) {
        pcf_observe(c, "harness-error", "encoder: %s", pmc_errcode_name(err.code));
        return -1;
    }
    return 0;
}

static void split_at(pcf_ctx *c, const size_t *cuts, size_t ncuts, unsigned delay_ms)
{
    pmc_out out = { 0 };
    if (encode(c, &out, NULL) != 0)
        return;
    pmc_msg m;
    int rc = pws_send_split(pcf_session(c), out.buf, out.len, cuts, ncuts, pcf_wait_ms(c, delay_ms),
                            pcf_deadline(c));
    if (rc)
        pcf_observe(c, "closed", "write failed: %s", pws_result_name(rc));
    else if (pcf_expect(c, "job-getid-response", &m) == 0)
        pcf_observe(c, "ok", "%zu pieces reassembled", ncuts + 1);
    pmc_out_free(&out);
}

static void run_split_body(pcf_ctx *c)
{
    static const size_t cuts[] = { 6, 10, 15 }; /* after the length field, inside the body */
    split_at(c, cuts, 3, 50);
}

static void run_split_length(pcf_ctx *c)
{
    static const size_t cuts[] = { 1, 2, 3, 4, 5 }; /* one byte of the length field at a time */
    split_at(c, cuts, 5, 30);
}

static void run_coalesced(pcf_ctx *c)
{
    pmc_out out = { 0 };
    char t1[48], t2[48];
    snprintf(t1, sizeof t1, "%s-a", pcf_tag(c));
    snprintf(t2, sizeof t2, "%s-b", pcf_tag(c));
    if (encode(c, &out, t1) || encode(c, &out, t2)) {
        pmc_out_free(&out);
        return;
    }
    pmc_msg m;
    /* both requests in one write(); two responses must come back */
    if (pcf_send_raw(c, out.buf, out.len) == 0 && pcf_expect(c, "job-getid-response", &m) == 0 &&
        pcf_expect(c, "job-getid-response", &m) == 0)
        pcf_observe(c, "ok", "two messages in one write, two responses");
    pmc_out_free(&out);
}

static void run_v1_after_v2(pcf_ctx *c)
{
    pmc_enc e;
    pmc_msg m;
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_maxes");
    if (pcf_call(c, &e, "maxes", &m) != 0)
        return;
    if (m.wire != PMC_WIRE_V1) /* CLASS-4: the answer in the request's own wire form */
        pcf_observe(c, "wrong-response", "cmd=maxes came back as a PMI-2 frame");
    else
        pcf_observe(c, "ok", "a PMI-1 request on the PMI-2 connection was answered as PMI-1");
}

static const pcf_case cases[] = {
    { .id = "frame/len-left-justified", .desc = "a left-justified length field (\"14    \") is accepted",
      .clause = "FRAME-3", .expected = "the request is answered normally",
      .flags = PCF_V2, .run = run_left },
    { .id = "frame/len-zero-padded", .desc = "a zero-padded length field (\"000014\") is accepted",
      .clause = "FRAME-3", .expected = "the request is answered normally",
      .flags = PCF_V2, .run = run_zero },
    { .id = "frame/split-writes", .desc = "a frame split into four writes is reassembled",
      .clause = "CONN-1", .expected = "the request is answered normally",
      .flags = PCF_V2, .run = run_split_body },
    { .id = "frame/split-length-field",
      .desc = "a length field written one byte at a time is reassembled",
      .clause = "CONN-1", .expected = "the request is answered normally",
      .flags = PCF_V2, .run = run_split_length },
    { .id = "frame/coalesced", .desc = "two frames in one write get two responses",
      .clause = "CONN-2", .expected = "two job-getid-response frames",
      .flags = PCF_V2, .run = run_coalesced },
    { .id = "frame/v1-on-v2-connection",
      .desc = "a PMI-1 request on a PMI-2 connection is answered in PMI-1",
      .clause = "CLASS-2", .expected = "cmd=maxes ... as a PMI-1 line",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, /* Slurm reads the line as a zero length and closes */ .run = run_v1_after_v2,
      .outcomes = { { "wrong-response", PCF_DEVIATES, "CLASS-4", "answered in the wrong form" } } },
};
PCF_CASES(cases)
