/* robust/dup-cmd, robust/dup-thrid: a request that repeats cmd= or thrid=.
 * PAIR-4: a receiver that takes such a message uses the first occurrence
 * (or rejects it); serving the later command, or echoing the later thrid,
 * acts on what the client did not ask first.  The encoder writes no key
 * twice (PAIR-3), so the second one is patched in. */
#include "damage.h"

/* Send job-getid with `extra` (a key the encoder writes, patched to `key`
 * afterwards) and, when given, an attribute key for the later command (one
 * job-getid ignores, PAIR-5); read one answer. */
static int send_dup(pcf_ctx *c, const char *thrid, const char *extra, const char *key,
                    const char *val, const char *attr, pmc_msg *m)
{
    char x[16];
    snprintf(x, sizeof x, "%s=", extra);
    char k[16];
    snprintf(k, sizeof k, "%s=", key);
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    if (thrid)
        pmc_enc_str(&e, "thrid", thrid);
    pmc_enc_str(&e, extra, val);
    if (attr)
        pmc_enc_str(&e, "key", attr);
    int rc = -1;
    if (pcfd_encode(c, &e, NULL, &o) == 0 && pcfd_patch(c, &o, x, k, strlen(k)) == 0 &&
        pcfd_send(c, &o) == 0) {
        pmc_error err;
        pws_result r = pcf_recv(c, m, &err);
        if (r == PWS_MSG)
            rc = 0;
        else if (r == PWS_EOF)
            pcf_observe(c, "closed", "the server closed the connection without an answer");
        else if (r == PWS_TIMEOUT)
            pcf_observe(c, "no-answer", "neither an answer nor a close within the deadline");
        else
            pcf_observe(c, "bad-response", "%s", pws_result_name(r));
    }
    pmc_out_free(&o);
    return rc;
}

static void run_dup_cmd(pcf_ctx *c)
{
    pmc_msg m;
    char b[300];
    if (send_dup(c, NULL, "xmd", "cmd", "info-getjobattr", "PMI_process_mapping", &m) != 0)
        return;
    long long rc = 0;
    pcf_show(&m, b, sizeof b);
    if (pmc_slice_eq(m.name, "job-getid-response") && pcf_rc(&m, &rc) == 1 && rc == 0)
        pcf_observe(c, "ok", "served as the first cmd, job-getid: %s", b);
    else if (pmc_slice_eq(m.name, "job-getid-response"))
        pcf_observe(c, "error-response", "refused the repeated cmd: %s", b);
    else if (pmc_slice_eq(m.name, "info-getjobattr-response"))
        pcf_observe(c, "later-won", "served as the second cmd, info-getjobattr: %s", b);
    else
        pcf_observe(c, "wrong-response", "%s", b);
}

static void run_dup_thrid(pcf_ctx *c)
{
    char first[48], second[48];
    snprintf(first, sizeof first, "%s-first", pcf_tag(c));
    snprintf(second, sizeof second, "%s-later", pcf_tag(c)); /* as long as first */
    pmc_msg m;
    char b[300];
    if (send_dup(c, first, "xhrid", "thrid", second, NULL, &m) != 0)
        return;
    long long rc = 0;
    pcf_show(&m, b, sizeof b);
    if (!pmc_slice_eq(m.name, "job-getid-response"))
        pcf_observe(c, "wrong-response", "%s", b);
    else if (pmc_slice_eq(m.thrid, second))
        pcf_observe(c, "later-won", "echoed the second thrid: %s", b);
    else if (pmc_slice_eq(m.thrid, first))
        pcf_observe(c, "ok", "echoed the first thrid: %s", b);
    else if (pcf_rc(&m, &rc) == 1 && rc != 0)
        pcf_observe(c, "error-response", "refused the repeated thrid: %s", b);
    else if (!m.thrid.ptr) /* THRID-4 broken outright: the pmi2/thrid cases grade that */
        pcf_observe(c, "no-echo", "no thrid echoed at all, so which one wins cannot be "
                                  "seen: %s", b);
    else
        pcf_observe(c, "thrid-lost", "echoed neither thrid: %s", b);
}

#define DUP_OUTCOMES                                                                             \
    { "error-response", PCF_PASS, NULL, "rejected the repeated key (allowed)" },                 \
    { "later-won", PCF_DEVIATES, NULL, "the later occurrence won" },                             \
    { "closed", PCF_DEVIATES, "ERR-4", "closed without an answer" },                             \
    { "no-answer", PCF_DEVIATES, "ERR-3", "never answered" },                                    \
    PCFD_KILLED

static const pcf_case cases[] = {
    { .id = "robust/dup-cmd",
      .desc = "job-getid with a second cmd= pair (info-getjobattr) is served as job-getid",
      .clause = "PAIR-4",
      .expected = "job-getid-response (the first cmd wins), or an error answer",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_dup_cmd,
      .outcomes = { DUP_OUTCOMES,
                    { "wrong-response", PCF_DEVIATES, NULL, "answered as another command" } } },
    { .id = "robust/dup-thrid",
      .desc = "a request with thrid twice: the first is echoed",
      .clause = "PAIR-4",
      .expected = "the response carries the first thrid (or an error answer)",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_dup_thrid,
      .outcomes = { DUP_OUTCOMES,
                    { "thrid-lost", PCF_DEVIATES, "THRID-4", "echoed neither thrid" },
                    { "no-echo", PCF_UNSUPPORTED, "THRID-4",
                      "the server echoes no thrid (pmi2/thrid/* grade that)" },
                    { "wrong-response", PCF_DEVIATES, NULL, "answered as another command" } } },
};
PCF_CASES(cases)
