/* pmi2/init, pmi2/fullinit: the PMI-2 handshake every rank made at start-up
 * (cmd=init pmi_version=2, then fullinit), graded from the recorded bytes. */
#include "pmi2_util.h" /* the handshake steps text */

#include <stdio.h>
#include <string.h>

static bool hs_msg(pcf_ctx *c, const char *raw, size_t len, const char *what, pmc_msg *m)
{
    pmc_error err;
    if (!raw) {
        pcf_observe(c, "no-answer", "no %s arrived at start-up: %s", what, pcf_hs(c)->error);
        return false;
    }
    if (pcf_decode(c, raw, len, m, &err) != 0) {
        char b[PCF_ERR_TEXT];
        pcf_observe(c, "bad-response", "%s does not decode: %s", what,
                    pcf_decode_error_in(&err, raw, len, b, sizeof b));
        return false;
    }
    return true;
}

static void run_init_response(pcf_ctx *c)
{
    pmc_msg m;
    const pcf_handshake *h = pcf_hs(c);
    if (!hs_msg(c, h->init_raw, h->init_len, "response_to_init", &m))
        return;
    char b[300];
    long long rc, v, s;
    if (pcf_rc(&m, &rc) != 1 || pmc_msg_get_int(&m, "pmi_version", &v) != 1 ||
        pmc_msg_get_int(&m, "pmi_subversion", &s) != 1) {
        pcf_observe(c, "keys-missing", "%s", pcf_show(&m, b, sizeof b));
        return;
    }
    pcf_observe(c, "ok", "%s", pcf_show(&m, b, sizeof b));
}

static void run_init_version(pcf_ctx *c)
{
    pmc_msg m;
    const pcf_handshake *h = pcf_hs(c);
    if (!hs_msg(c, h->init_raw, h->init_len, "response_to_init", &m))
        return;
    char b[300];
    long long rc = -1, v = -1, s = -1;
    pcf_rc(&m, &rc);
    pmc_msg_get_int(&m, "pmi_version", &v);
    pmc_msg_get_int(&m, "pmi_subversion", &s);
    if (rc == 0 && v == 2 && s == 0)
        pcf_observe(c, "ok", "%s", pcf_show(&m, b, sizeof b));
    else if (rc != 0 && v == 1 && s >= 0) /* INIT-8's refusal: a PMI-1-only server */
        pcf_observe(c, "refused", "no PMI-2: refused as INIT-8 says, %s",
                    pcf_show(&m, b, sizeof b));
    else
        pcf_observe(c, "wrong-version", "asked for 2.0, got %s", pcf_show(&m, b, sizeof b));
}

static void run_fullinit_keys(pcf_ctx *c)
{
    pmc_msg m;
    const pcf_handshake *h = pcf_hs(c);
    if (!hs_msg(c, h->fullinit_raw, h->fullinit_len, "fullinit-response", &m))
        return;
    static const char *const keys[] = { "rc", "pmi-version", "pmi-subversion", "rank", "size",
                                        "appnum" };
    char missing[200] = "", b[400];
    size_t k = 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        long long x;
        if (pmc_msg_get_int(&m, keys[i], &x) != 1)
            k += (size_t)snprintf(missing + k, sizeof missing - k, "%s%s", k ? ", " : "", keys[i]);
    }
    if (k)
        pcf_observe(c, "keys-missing", "no integer %s in %s", missing, pcf_show(&m, b, sizeof b));
    else
        pcf_observe(c, "ok", "%s", pcf_show(&m, b, sizeof b));
}

static void run_fullinit_flags(pcf_ctx *c)
{
    pmc_msg m;
    const pcf_handshake *h = pcf_hs(c);
    if (!hs_msg(c, h->fullinit_raw, h->fullinit_len, "fullinit-response", &m))
        return;
    char b[400];
    bool v, lower = false;
    int d = pmc_msg_get_bool(&m, "debugged", &v, &lower);
    bool l2 = false;
    int p = pmc_msg_get_bool(&m, "pmiverbose", &v, &l2);
    if (d != 1 || p != 1 || lower || l2)
        pcf_observe(c, "flags-not-boolean",
                    "debugged and pmiverbose must be TRUE/FALSE: %s", pcf_show(&m, b, sizeof b));
    else
        pcf_observe(c, "ok", "%s", pcf_show(&m, b, sizeof b));
}

static void run_fullinit_rank(pcf_ctx *c)
{
    pmc_msg m;
    const pcf_handshake *h = pcf_hs(c);
    if (!hs_msg(c, h->fullinit_raw, h->fullinit_len, "fullinit-response", &m))
        return;
    long long r = -1, s = -1;
    pmc_msg_get_int(&m, "rank", &r);
    pmc_msg_get_int(&m, "size", &s);
    if (s <= 0 || r < 0 || r >= s)
        pcf_observe(c, "inconsistent", "rank=%lld size=%lld", r, s);
    else if (h->env_rank >= 0 && r != h->env_rank)
        pcf_observe(c, "inconsistent", "rank=%lld but PMI_RANK=%d", r, h->env_rank);
    else if (h->env_size >= 0 && s != h->env_size)
        pcf_observe(c, "inconsistent", "size=%lld but PMI_SIZE=%d", s, h->env_size);
    else
        pcf_observe(c, "ok", "rank=%lld size=%lld", r, s);
}

static void run_fullinit_order(pcf_ctx *c)
{
    pmc_msg m;
    const pcf_handshake *h = pcf_hs(c);
    if (!hs_msg(c, h->fullinit_raw, h->fullinit_len, "fullinit-response", &m))
        return;
    char b[400];
    /* PAIR-2: command, thrid (none here), rc, then the rest */
    if (m.npairs == 0 || !pmc_slice_eq(m.pairs[0].key, "rc"))
        pcf_observe(c, "rc-not-first", "%s", pcf_show(&m, b, sizeof b));
    else
        pcf_observe(c, "ok", "rc comes first");
}

static void run_fullinit_length(pcf_ctx *c)
{
    pmc_msg m;
    const pcf_handshake *h = pcf_hs(c);
    if (!hs_msg(c, h->fullinit_raw, h->fullinit_len, "fullinit-response", &m))
        return;
    char b[400];
    if (m.notes & (PMC_NOTE_LEN_LEFT | PMC_NOTE_LEN_ZERO))
        pcf_observe(c, "noncanonical-length", "length field '%.6s' in %s", m.raw.ptr,
                    pcf_show(&m, b, sizeof b));
    else if (m.notes & PMC_NOTE_TRAILING_JUNK)
        pcf_observe(c, "trailing-junk", "bytes after the final ';': %s",
                    pcf_show(&m, b, sizeof b));
    else
        pcf_observe(c, "ok", "length field '%.6s'", m.raw.ptr);
}

static const pcf_case cases[] = {
    { .id = "pmi2/init/response",
      .desc = "init for 2.0 is answered by one response_to_init line with rc and both versions",
      .clause = "INIT-5",
      .expected = "cmd=response_to_init with rc, pmi_version and pmi_subversion",
      .steps = P2_STEPS_HANDSHAKE
               "The case decodes the recorded response_to_init: it must carry rc, pmi_version and "
               "pmi_subversion as integers (else \"keys-missing\"); none recorded is a TIMEOUT, "
               "bytes that do not decode \"bad-response\".",
      .flags = PCF_V2 | PCF_LOCAL, .run = run_init_response },
    { .id = "pmi2/init/version-2-0",
      .desc = "a server asked for 2.0 answers rc=0 pmi_version=2 pmi_subversion=0",
      .clause = "INIT-7", .expected = "rc=0 pmi_version=2 pmi_subversion=0",
      .steps = P2_STEPS_HANDSHAKE
               "rc=0 pmi_version=2 pmi_subversion=0 passes. rc != 0 with pmi_version=1 is "
               "INIT-8's refusal by a PMI-1-only server: UNSUPPORTED. Anything else is "
               "\"wrong-version\".",
      .flags = PCF_V2 | PCF_LOCAL, .run = run_init_version,
      .outcomes = { { "refused", PCF_UNSUPPORTED, "INIT-8",
                      "a PMI-1-only server: 2.0 refused with rc != 0 and pmi_version=1" } } },
    { .id = "pmi2/fullinit/response-keys", .needs = PCF_NEED_ACCEPTED,
      .desc = "fullinit-response carries rc, pmi-version, pmi-subversion, rank, size, appnum",
      .clause = "FULLINIT-5",
      .expected = "every one of the six keys, with integer values",
      .steps = P2_STEPS_HANDSHAKE
               "The recorded fullinit-response must carry rc, pmi-version, pmi-subversion, rank, "
               "size and appnum, each an integer; the report names the missing ones "
               "(\"keys-missing\").",
      .flags = PCF_V2 | PCF_LOCAL, .run = run_fullinit_keys },
    { .id = "pmi2/fullinit/debug-flags", .needs = PCF_NEED_ACCEPTED,
      .desc = "fullinit-response carries debugged and pmiverbose as TRUE/FALSE",
      .clause = "FULLINIT-6", .expected = "debugged=TRUE|FALSE and pmiverbose=TRUE|FALSE",
      .steps = P2_STEPS_HANDSHAKE
               "The recorded fullinit-response must carry debugged and pmiverbose, each exactly "
               "TRUE or FALSE (upper case), else \"flags-not-boolean\".",
      .flags = PCF_V2 | PCF_LOCAL, .run = run_fullinit_flags },
    { .id = "pmi2/fullinit/rank-size", .needs = PCF_NEED_ACCEPTED,
      .desc = "rank and size agree with each other and with PMI_RANK/PMI_SIZE",
      .clause = "FULLINIT-4",
      .expected = "0 <= rank < size, rank = PMI_RANK and size = PMI_SIZE when they are set",
      .steps = P2_STEPS_HANDSHAKE
               "In the recorded fullinit-response: 0 <= rank < size, and, when the launcher set "
               "them, rank = PMI_RANK and size = PMI_SIZE; else \"inconsistent\".",
      .flags = PCF_V2 | PCF_LOCAL, .run = run_fullinit_rank },
    { .id = "pmi2/fullinit/canonical-order", .needs = PCF_NEED_ACCEPTED,
      .desc = "fullinit-response puts rc right after the command",
      .clause = "PAIR-2", .expected = "cmd=fullinit-response;rc=...; first",
      .steps = P2_STEPS_HANDSHAKE
               "In the recorded fullinit-response, rc must be the first pair after cmd (PAIR-2), "
               "else \"rc-not-first\".",
      .flags = PCF_V2 | PCF_LOCAL, .run = run_fullinit_order },
    { .id = "pmi2/fullinit/canonical-length", .needs = PCF_NEED_ACCEPTED,
      .desc = "the server writes the length field right-justified (%6u)",
      .clause = "FRAME-2", .expected = "a space-padded, right-justified length field",
      .steps = P2_STEPS_HANDSHAKE
               "The recorded fullinit-response's length field must be right-justified and "
               "space-padded (\"   113\"): left-justified or zero-padded is "
               "\"noncanonical-length\"; bytes after the final ';' are \"trailing-junk\" (BODY-5).",
      .flags = PCF_V2 | PCF_LOCAL, .run = run_fullinit_length,
      .outcomes = { { "trailing-junk", PCF_DEVIATES, "BODY-5", "bytes after the last ';'" } } },
};
PCF_CASES(cases)
