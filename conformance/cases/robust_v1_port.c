/* robust/v1-port-...: PMI_PORT mode (issue 21).  The victim opens a second
 * connection to the server's listener: a command on it before initack, or
 * an initack that names the victim's own PMI_ID, which its first
 * connection holds.  Under PMI_FD there is no listener to open: SKIPPED. */
#include "damage.h"

/* A second connection the server took for this rank: closing it could end
 * the job (CONN-6) before the finding is reported, so it stays open until
 * the process ends. */
static pws_session *granted;

/* A second connection to PMI_PORT, or NULL after observing why not. */
static pws_session *second_connection(pcf_ctx *c)
{
    const char *port = getenv("PMI_PORT");
    if (!pcf_hs(c)->via_port || !port) {
        pcf_observe(c, "not-port-mode", "the launch gives PMI_FD, not PMI_PORT: no listener "
                                        "to open a second connection to");
        return NULL;
    }
    pws_session *s = NULL;
    char err[200];
    if (pws_connect(&s, port, "second", 5000, err, sizeof err) != 0) {
        pcf_observe(c, "connect-refused", "a second connection to PMI_PORT=%s failed: %s", port,
                    err);
        return NULL;
    }
    return s;
}

/* Send e on s, wait for one message. */
static pws_result ask(pcf_ctx *c, pws_session *s, pmc_enc *e, pmc_msg *m)
{
    pmc_out o = { 0 };
    pmc_error err;
    pws_result r = PWS_BAD;
    if (pcfd_encode(c, e, NULL, &o) == 0)
        r = pws_send_raw(s, o.buf, o.len, pcf_deadline(c)) == 0 ? pws_recv(s, pcf_deadline(c), m, &err)
                                                                  : PWS_EOF;
    pmc_out_free(&o);
    return r;
}

static const char *result_outcome(pws_result r)
{
    return r == PWS_EOF ? "closed" : r == PWS_TIMEOUT ? "no-answer" : "bad-response";
}

/* get_appnum before initack, twice: two error answers on an open connection. */
static void run_before_initack(pcf_ctx *c)
{
    pws_session *s = second_connection(c);
    if (!s)
        return;
    pmc_enc e;
    pmc_msg m;
    char b[200];
    long long rc = 0;
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_appnum");
    pws_result r = ask(c, s, &e, &m);
    if (r != PWS_MSG) {
        pcf_observe(c, result_outcome(r), "get_appnum before initack: %s", pws_result_name(r));
    } else if (pcf_rc(&m, &rc) != 1 || rc == 0) {
        pcf_observe(c, "accepted", "get_appnum before initack answered as if identified: %s",
                    pcf_show(&m, b, sizeof b));
    } else {
        pcf_show(&m, b, sizeof b);
        pmc_enc_begin(&e, PMC_WIRE_V1, "get_appnum"); /* still served? */
        r = ask(c, s, &e, &m);
        if (r == PWS_MSG)
            pcf_observe(c, "ok", "%s, and the connection is still served", b);
        else
            pcf_observe(c, r == PWS_EOF ? "error-then-close" : result_outcome(r),
                        "%s, then %s on the next request", b, pws_result_name(r));
    }
    pws_close(s);
}

/* initack pmiid=<own PMI_ID> on a second connection, then: is the first
 * connection still this process's? */
static void run_pmiid_taken(pcf_ctx *c)
{
    pws_session *s = second_connection(c);
    if (!s)
        return;
    long long id = strtoll(getenv("PMI_ID") ? getenv("PMI_ID") : "-1", NULL, 10);
    pmc_enc e;
    pmc_msg m;
    char b[200];
    long long rc = 0;
    pmc_enc_begin(&e, PMC_WIRE_V1, "initack");
    pmc_enc_int(&e, "pmiid", id);
    pws_result r = ask(c, s, &e, &m);
    bool refused = r != PWS_MSG || (pcf_rc(&m, &rc) == 1 && rc != 0);
    if (r == PWS_MSG)
        pcf_show(&m, b, sizeof b);
    else
        snprintf(b, sizeof b, "%s", pws_result_name(r));
    if (r == PWS_MSG && !refused) {
        granted = s;
        pcf_observe(c, "accepted", "initack pmiid=%lld, held by this rank's live connection, "
                                   "was granted to a second connection: %s", id, b);
        return;
    }
    pws_close(s);
    if (r == PWS_TIMEOUT) {
        pcf_observe(c, "no-answer", "initack pmiid=%lld (held by this rank's connection) was "
                                    "neither answered nor closed", id);
        return;
    }
    pws_result own = pcf_ask_served(c, PCFD_ASK_MS);
    if (own == PWS_MSG)
        pcf_observe(c, "ok", "initack pmiid=%lld refused (%s); the first connection still served",
                    id, r == PWS_EOF ? "closed" : b);
    else
        pcf_observe(c, "own-lost", "initack pmiid=%lld refused (%s), but this rank's first "
                                   "connection is no longer served (%s)", id,
                    r == PWS_EOF ? "closed" : b, pws_result_name(own));
}

#define NOT_PORT                                                                                 \
    { "not-port-mode", PCF_SKIPPED, NULL, "the launch does not use PMI_PORT" },                  \
    { "connect-refused", PCF_FAIL, "ENV-1", "the listener of PMI_PORT refused a connection" }

static const pcf_case cases[] = {
    { .id = "robust/v1-port-before-initack",
      .desc = "PMI_PORT mode: get_appnum on a second connection before initack, twice",
      .clause = "V1CMD-4",
      .expected = "two cmd=appnum rc!=0 answers; the connection stays open (SKIPPED under PMI_FD)",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .timeout_ms = 8000, .run = run_before_initack,
      .outcomes = { NOT_PORT,
                    { "accepted", PCF_DEVIATES, NULL, "served an unidentified connection" },
                    { "error-then-close", PCF_DEVIATES, NULL, "answered once, then closed" },
                    { "closed", PCF_DEVIATES, NULL, "closed without an answer" },
                    { "no-answer", PCF_FAIL, NULL, "no answer: the client waits for ever" },
                    PCFD_KILLED } },
    { .id = "robust/v1-port-pmiid-taken",
      .desc = "PMI_PORT mode: a second connection sends initack with the PMI_ID this rank holds",
      .clause = "V1CMD-30",
      .expected = "initack rc!=0 (or the second connection closed); the first connection still "
                  "served (SKIPPED under PMI_FD)",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .timeout_ms = 8000, .run = run_pmiid_taken,
      .outcomes = { NOT_PORT,
                    { "accepted", PCF_DEVIATES, NULL, "gave a taken identity to a second connection" },
                    { "own-lost", PCF_DEVIATES, NULL, "stopped serving the first connection" },
                    { "no-answer", PCF_FAIL, "ERR-3", "neither an answer nor a close" },
                    PCFD_KILLED } },
};
PCF_CASES(cases)
