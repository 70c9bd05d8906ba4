/* pmi2/thrid: the request tag is echoed byte for byte, first after cmd,
 * only when the request had one, wherever the request put it. */
#include "pcf.h"

#include <stdio.h>
#include <string.h>

/* job-getid with a thrid; pos_last puts it after the other keys. */
static int getid_with_thrid(pcf_ctx *c, const char *thrid, bool pos_last, pmc_msg *m)
{
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    if (!pos_last)
        pmc_enc_str(&e, "thrid", thrid);
    pmc_enc_str(&e, "pcf-extra", "x"); /* an unknown key, ignored (PAIR-5) */
    if (pos_last)
        pmc_enc_str(&e, "thrid", thrid);
    return pcf_call(c, &e, "job-getid-response", m);
}

static void check_echo(pcf_ctx *c, const pmc_msg *m, const char *thrid)
{
    char b[300];
    if (!m->thrid.ptr)
        pcf_observe(c, "missing", "no thrid in %s", pcf_show(m, b, sizeof b));
    else if (!pmc_slice_eq(m->thrid, thrid))
        pcf_observe(c, "altered", "sent thrid=%s, got thrid=%.*s", thrid, (int)m->thrid.len,
                    m->thrid.ptr);
    else
        pcf_observe(c, "ok", "thrid=%s echoed", thrid);
}

static void run_echo(pcf_ctx *c)
{
    char thrid[64];
    pmc_msg m;
    /* a pointer-like tag, as MPICH 4.1+ sends it */
    snprintf(thrid, sizeof thrid, "0x7ffd%s", pcf_tag(c));
    if (getid_with_thrid(c, thrid, false, &m) == 0)
        check_echo(c, &m, thrid);
}

static void run_anywhere(pcf_ctx *c)
{
    char thrid[64];
    pmc_msg m;
    snprintf(thrid, sizeof thrid, "last-%s", pcf_tag(c));
    if (getid_with_thrid(c, thrid, true, &m) == 0)
        check_echo(c, &m, thrid);
}

static void run_position(pcf_ctx *c)
{
    char thrid[64], b[300];
    pmc_msg m;
    snprintf(thrid, sizeof thrid, "pos-%s", pcf_tag(c));
    if (getid_with_thrid(c, thrid, true, &m) != 0)
        return;
    if (!m.thrid.ptr)
        pcf_observe(c, "missing", "no thrid echoed: %s", pcf_show(&m, b, sizeof b));
    else if (m.npairs == 0 || !pmc_slice_eq(m.pairs[0].key, "thrid"))
        pcf_observe(c, "not-first", "%s", pcf_show(&m, b, sizeof b));
    else
        pcf_observe(c, "ok", "thrid directly after cmd");
}

static void run_not_invented(pcf_ctx *c)
{
    pmc_enc e;
    pmc_msg m;
    char b[300];
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    if (pcf_call(c, &e, "job-getid-response", &m))
        return;
    if (m.thrid.ptr)
        pcf_observe(c, "invented", "%s", pcf_show(&m, b, sizeof b));
    else
        pcf_observe(c, "ok", "no thrid in the response");
}

static const pcf_case cases[] = {
    { .id = "pmi2/thrid/echo", .desc = "thrid is copied into the response byte for byte",
      .clause = "THRID-4", .expected = "the response carries the request's thrid unchanged",
      .flags = PCF_V2, .run = run_echo },
    { .id = "pmi2/thrid/accepted-anywhere",
      .desc = "a thrid after the other keys is still echoed",
      .clause = "THRID-3", .expected = "the response carries the thrid",
      .flags = PCF_V2, .run = run_anywhere,
      .outcomes = { { "missing", PCF_DEVIATES, "THRID-4", "no thrid echoed" } } },
    { .id = "pmi2/thrid/echo-position", .desc = "the echoed thrid comes directly after cmd",
      .clause = "THRID-5", .expected = "cmd=...-response;thrid=...; first",
      .flags = PCF_V2, .run = run_position,
      .outcomes = { { "missing", PCF_DEVIATES, "THRID-4", "no thrid echoed" } } },
    { .id = "pmi2/thrid/not-invented", .desc = "a request without thrid gets no thrid back",
      .clause = "THRID-6", .expected = "no thrid key in the response",
      .flags = PCF_V2, .run = run_not_invented },
};
PCF_CASES(cases)
