/* Client cases for the groups profile (SPEC.md §12): the driver's "groups"
 * script (pmi2ext.h: collective, group-get, bootstrap with an added member,
 * invite with a decline and an accept, destruct) run by the embedded mock
 * server, graded from the requests it recorded and the driver's report.  A
 * library without pmi2ext.h reports every call absent: UNSUPPORTED. */
#include "client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const pcf_crun *groups_run(pcf_ctx *c, const char *persona, const char *script)
{
    return pcf_client_run(c, &(pcf_cspec){ .persona = persona, .script = script, .np = 3 });
}

/* The run under a server that offers the profile; NULL after observing
 * why not (absent calls: UNSUPPORTED). */
static const pcf_crun *with_profile(pcf_ctx *c, const char *script)
{
    const pcf_crun *r = groups_run(c, "strict", script);
    if (!r || pcf_clacks(c, r, "PMI2X_Group_supported"))
        return NULL;
    for (int k = 0; k < r->np; k++) {
        char flag[8] = "";
        pcf_cfield(r, k, "PMI2X_Group_supported", "flag", flag, sizeof flag);
        if (strcmp(flag, "1") != 0) {
            pcf_observe(c, "not-detected", "rank %d: PMI2X_Group_supported said flag=%s under a "
                        "server that answers PMI_ext_groups", k, flag[0] ? flag : "(none)");
            return NULL;
        }
    }
    return r;
}

static bool is_group(const pcf_creq *q) { return strncmp(q->name, "group-", 6) == 0; }

/* GROUP-3: the profile is asked for before any group- request. */
static void run_asks_first(pcf_ctx *c)
{
    const pcf_crun *r = with_profile(c, "groups");
    if (!r)
        return;
    char b[300];
    for (int k = 0; k < r->np; k++) {
        bool asked = false, any = false;
        for (size_t i = 0; i < r->nreq; i++) {
            const pcf_creq *q = &r->req[i];
            if (q->rank != k)
                continue;
            pmc_msg m;
            pmc_slice key;
            if (!strcmp(q->name, "info-getjobattr") && pcf_creq_msg(c, q, &m) == 0 &&
                pmc_msg_get(&m, "key", &key) && pmc_slice_eq(key, "PMI_ext_groups"))
                asked = true;
            if (is_group(q)) {
                any = true;
                if (!asked) {
                    pcf_observe(c, "not-asked", "rank %d sent %s before asking PMI_ext_groups",
                                k, pcf_cshow(q->raw, q->len, b, sizeof b));
                    return;
                }
            }
        }
        if (!any) {
            pcf_observe(c, "no-request", "rank %d sent no group- request: %s", k,
                        pcf_creq_names(r, k, b, sizeof b));
            return;
        }
    }
    pcf_observe(c, "ok", "every rank read PMI_ext_groups before its first group- request");
}

/* GROUP-3: under a server without the profile, nothing group- is sent and
 * the calls fail.  The slurm persona is one every library here starts under
 * (Slurm's libpmi2 does not under the Hydra personas); it leaves unknown
 * commands unanswered (S7), and the recorded requests show any stray one. */
static void run_silent_without(pcf_ctx *c)
{
    const pcf_crun *r = groups_run(c, "slurm", "groups");
    if (!r || pcf_clacks(c, r, "PMI2X_Group_supported"))
        return;
    char b[300];
    for (size_t i = 0; i < r->nreq; i++)
        if (is_group(&r->req[i])) {
            pcf_observe(c, "sent", "rank %d sent %s to a server without the profile",
                        r->req[i].rank, pcf_cshow(r->req[i].raw, r->req[i].len, b, sizeof b));
            return;
        }
    for (int k = 0; k < r->np; k++) {
        char flag[8] = "", b[100];
        long rc = 0;
        if (!pcf_cline(r, k, "PMI2X_Group_supported")) {
            pcf_observe(c, "no-report", "rank %d: no result of PMI2X_Group_supported (%s; "
                        "stderr: %.200s)", k, pcf_cstatus(r, k, b, sizeof b), r->ranks[k].err);
            return;
        }
        pcf_cfield(r, k, "PMI2X_Group_supported", "flag", flag, sizeof flag);
        if (strcmp(flag, "0") != 0) {
            pcf_observe(c, "detected", "rank %d: PMI2X_Group_supported flag=%s without the "
                        "profile", k, flag);
            return;
        }
        if (!pcf_crc(r, k, "PMI2X_Group_construct_bootstrap:absent", &rc) || rc == 0) {
            pcf_observe(c, "not-refused", "rank %d: a construct without the profile: %s", k,
                        pcf_cline(r, k, "PMI2X_Group_construct_bootstrap:absent")
                            ? pcf_cline(r, k, "PMI2X_Group_construct_bootstrap:absent")
                            : "no report");
            return;
        }
    }
    pcf_observe(c, "ok", "no group- request; the calls failed (profile absent)");
}

/* GROUP-12: the constructs' wire form: valid against the schema, the
 * method's own keys, a collective leader in its own list. */
static void run_construct_form(pcf_ctx *c)
{
    const pcf_crun *r = with_profile(c, "groups");
    if (!r)
        return;
    char b[400];
    size_t seen = 0;
    for (size_t i = 0; i < r->nreq; i++) {
        const pcf_creq *q = &r->req[i];
        pmc_msg m;
        if (strcmp(q->name, "group-construct") != 0 || pcf_creq_msg(c, q, &m) != 0)
            continue;
        seen++;
        if (!q->valid || q->unknown_keys) {
            pcf_observe(c, "malformed", "rank %d: %s (%s)", q->rank,
                        pcf_cshow(q->raw, q->len, b, sizeof b), q->findings);
            return;
        }
        pmc_slice method = { 0 }, leaders = { 0 }, nl = { 0 };
        pmc_msg_get(&m, "method", &method);
        bool has_l = pmc_msg_get(&m, "leaders", &leaders), has_n = pmc_msg_get(&m, "nleaders", &nl);
        bool ok = pmc_slice_eq(method, "collective")  ? has_l && !has_n
                  : pmc_slice_eq(method, "bootstrap") ? has_n && !has_l
                  : pmc_slice_eq(method, "member")    ? !has_n && !has_l && !pmc_msg_find(&m, "members")
                                                      : false;
        if (ok && has_l) { /* GROUP-12: the caller is among the leaders */
            char me[128];
            snprintf(me, sizeof me, "%s:%d", r->jobid, q->rank);
            ok = false;
            for (size_t p = 0; p < leaders.len;) {
                size_t e = p;
                while (e < leaders.len && leaders.ptr[e] != ',')
                    e++;
                ok |= e - p == strlen(me) && memcmp(leaders.ptr + p, me, e - p) == 0;
                p = e + 1;
            }
        }
        if (!ok) {
            pcf_observe(c, "wrong-keys", "rank %d: %s", q->rank,
                        pcf_cshow(q->raw, q->len, b, sizeof b));
            return;
        }
    }
    if (seen < 6) {
        pcf_observe(c, "no-request", "%zu group-construct requests, expected 6 (3 collective, "
                    "2 bootstrap, 1 member)", seen);
        return;
    }
    pcf_observe(c, "ok", "%zu group-construct requests, each with its method's keys", seen);
}

/* GROUP-11 / THRID-8: a threaded library tags its group requests. */
static void run_thrid(pcf_ctx *c)
{
    const pcf_crun *r = with_profile(c, "groups");
    if (!r)
        return;
    char b[300];
    for (size_t i = 0; i < r->nreq; i++)
        if (is_group(&r->req[i]) && (!r->req[i].thrid || !r->req[i].thrid_first)) {
            pcf_observe(c, "untagged", "rank %d: %s", r->req[i].rank,
                        pcf_cshow(r->req[i].raw, r->req[i].len, b, sizeof b));
            return;
        }
    pcf_observe(c, "ok", "every group- request carries thrid first");
}

/* GROUP-14: every rank reports the same ctxid and membership, and reads a
 * peer's contribution back (GROUP-23). */
static void run_result(pcf_ctx *c)
{
    const pcf_crun *r = with_profile(c, "groups");
    if (!r)
        return;
    char ctx0[32] = "", mx0[2000] = "";
    for (int k = 0; k < r->np; k++) {
        long rc = -1;
        char ctx[32] = "", mx[2000] = "", ni[16] = "", gx[200] = "", want[64], wx[140];
        if (!pcf_crc(r, k, "PMI2X_Group_construct_collective", &rc) || rc != 0) {
            pcf_observe(c, "failed", "rank %d: %s", k,
                        pcf_cline(r, k, "PMI2X_Group_construct_collective")
                            ? pcf_cline(r, k, "PMI2X_Group_construct_collective")
                            : "no report");
            return;
        }
        pcf_cfield(r, k, "PMI2X_Group_construct_collective", "ctxid", ctx, sizeof ctx);
        pcf_cfield(r, k, "PMI2X_Group_construct_collective", "mx", mx, sizeof mx);
        pcf_cfield(r, k, "PMI2X_Group_construct_collective", "ninfo", ni, sizeof ni);
        if (!k) {
            snprintf(ctx0, sizeof ctx0, "%s", ctx);
            snprintf(mx0, sizeof mx0, "%s", mx);
        }
        if (atoll(ctx) <= 0 || strcmp(ctx, ctx0) || strcmp(mx, mx0) || atoi(ni) != r->np) {
            pcf_observe(c, "disagree", "rank %d: ctxid=%s ninfo=%s members(hex)=%.80s; rank 0: "
                        "ctxid=%s members(hex)=%.80s", k, ctx, ni, mx, ctx0, mx0);
            return;
        }
        snprintf(want, sizeof want, "endpoint-%d", (k + 1) % r->np);
        size_t j = 0;
        for (const char *p = want; *p; p++)
            j += (size_t)snprintf(wx + j, sizeof wx - j, "%02x", (unsigned char)*p);
        pcf_cfield(r, k, "PMI2X_Group_get", "x", gx, sizeof gx);
        if (!pcf_crc(r, k, "PMI2X_Group_get", &rc) || rc != 0 || strcmp(gx, wx) != 0) {
            pcf_observe(c, "get-wrong", "rank %d: PMI2X_Group_get of rank %d's pair: %s", k,
                        (k + 1) % r->np, pcf_cline(r, k, "PMI2X_Group_get")
                                              ? pcf_cline(r, k, "PMI2X_Group_get") : "no report");
            return;
        }
    }
    pcf_observe(c, "ok", "one ctxid (%s) and one membership on every rank; contributions read back",
                ctx0);
}

/* GROUP-10: invitations and completions arrive as events and reach the
 * program; the leader learns the decline both ways (GROUP-20, GROUP-21). */
static void run_invite_events(pcf_ctx *c)
{
    const pcf_crun *r = with_profile(c, "groups");
    if (!r)
        return;
    long rc = -1;
    char why[300] = "";
    for (int k = 1; k < r->np && !why[0]; k++)
        if (!pcf_crc(r, k, "PMI2X_Group_next_event:invited", &rc) || rc != 0)
            snprintf(why, sizeof why, "rank %d: no invitation reached the program (%s)", k,
                     pcf_cline(r, k, "PMI2X_Group_next_event:invited")
                         ? pcf_cline(r, k, "PMI2X_Group_next_event:invited") : "no report");
    if (!why[0] && (!pcf_crc(r, 2, "PMI2X_Group_next_event:complete", &rc) || rc != 0))
        snprintf(why, sizeof why, "rank 2 accepted; its completion: %s",
                 pcf_cline(r, 2, "PMI2X_Group_next_event:complete")
                     ? pcf_cline(r, 2, "PMI2X_Group_next_event:complete") : "no report");
    char fx[200] = "", want[140] = "", reason[32] = "";
    if (!why[0]) {
        char p1[128];
        snprintf(p1, sizeof p1, "%s:1", r->jobid);
        size_t j = 0;
        for (const char *p = p1; *p; p++)
            j += (size_t)snprintf(want + j, sizeof want - j, "%02x", (unsigned char)*p);
        pcf_cfield(r, 0, "PMI2X_Group_invite", "fx", fx, sizeof fx);
        pcf_cfield(r, 0, "PMI2X_Group_next_event:failed", "reason", reason, sizeof reason);
        if (!pcf_crc(r, 0, "PMI2X_Group_invite", &rc) || rc != 0 || strcmp(fx, want) != 0)
            snprintf(why, sizeof why, "the leader's invite: %s",
                     pcf_cline(r, 0, "PMI2X_Group_invite") ? pcf_cline(r, 0, "PMI2X_Group_invite")
                                                           : "no report");
        else if (strcmp(reason, "declined") != 0)
            snprintf(why, sizeof why, "the leader's invite-failed event: %s",
                     pcf_cline(r, 0, "PMI2X_Group_next_event:failed")
                         ? pcf_cline(r, 0, "PMI2X_Group_next_event:failed") : "no report");
    }
    if (why[0]) {
        pcf_observe(c, "event-lost", "%s", why);
        return;
    }
    pcf_observe(c, "ok", "invitations and the completion reached the program; the leader saw the "
                "decline in its result and as an event");
}

/* GROUP-30: a construct nobody can complete returns the server's reason
 * within its timeout and the grace GROUP-24 gives the server. */
static void run_timeout_reported(pcf_ctx *c)
{
    const pcf_crun *r = with_profile(c, "groups-timeout");
    if (!r)
        return;
    for (int k = 0; k < r->np; k++) {
        long rc = 0;
        char reason[32] = "", ms[16] = "";
        const char *call = "PMI2X_Group_construct_bootstrap:timeout";
        pcf_cfield(r, k, call, "reason", reason, sizeof reason);
        pcf_cfield(r, k, call, "ms", ms, sizeof ms);
        if (!pcf_crc(r, k, call, &rc)) {
            pcf_observe(c, r->timed_out ? "hung" : "no-report", "rank %d: the construct did not "
                        "return", k);
            return;
        }
        if (rc == 0 || strcmp(reason, "timeout") != 0 || atoi(ms) > 300 + 2000) {
            pcf_observe(c, "wrong-report", "rank %d: %s", k, pcf_cline(r, k, call));
            return;
        }
    }
    pcf_observe(c, "ok", "the construct failed with reason timeout on every rank");
}

#define CASE(ID, CL, DESC, EXP, FN, ...)                                                         \
    { .c = { .id = ID, .clause = CL, .flags = PCF_V2 | PCF_CDRIVER, .desc = DESC,               \
             .expected = EXP, .outcomes = { __VA_ARGS__ } },                                      \
      .run = FN }

static const pcf_ccase cases[] = {
    CASE("client/group/asks-first", "GROUP-3", "the profile is asked for first",
         "info-getjobattr PMI_ext_groups before the first group- request", run_asks_first),
    CASE("client/group/silent-without", "GROUP-3", "no group- request without the profile",
         "under a server without PMI_ext_groups the calls fail and nothing group- is sent",
         run_silent_without),
    CASE("client/group/construct-form", "GROUP-12", "group-construct keys",
         "valid requests; collective: leaders (with the caller), bootstrap: nleaders, member: "
         "neither", run_construct_form),
    CASE("client/group/thrid", "GROUP-11", "group requests are tagged",
         "thrid first in every group- request", run_thrid,
         { "untagged", PCF_NON_STRICT, "THRID-8", "a request without thrid (THRID-8 is a SHOULD)" }),
    CASE("client/group/result", "GROUP-14", "the result reaches the program",
         "one ctxid and membership on every rank; a peer's contribution read back", run_result),
    CASE("client/group/invite-events", "GROUP-10", "invitations and completions as events",
         "each invitee sees its invitation, the acceptor its completion, the leader the decline",
         run_invite_events),
    CASE("client/group/timeout-reported", "GROUP-30", "a construct that cannot complete",
         "fails with the server's reason timeout, within the timeout and the server's grace",
         run_timeout_reported,
         { "hung", PCF_FAIL, NULL, "the call never returned" }),
};
PCF_CLIENT_CASES(cases)
