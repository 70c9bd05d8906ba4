/* pmi2/thrid: the echo for every command type (error responses included),
 * several requests pipelined on one connection and matched by thrid, and
 * thrid values of unusual shape.  Slurm never echoes (S11). */
#include "pmi2_util.h"

static void check(pcf_ctx *c, const p2r *r, const char *thrid)
{
    if (!r->has_thrid)
        pcf_observe(c, "missing", "no thrid in %s", r->show);
    else if (strcmp(r->thrid, thrid) != 0)
        pcf_observe(c, "altered", "sent thrid=%s, got thrid=%s", thrid, r->thrid);
    else
        pcf_observe(c, "ok", "%s", r->show);
}

/* One request of `cmd` with a thrid and up to two key=value pairs. */
static void echo(pcf_ctx *c, const char *cmd, const char *k1, const char *v1, const char *k2,
                 const char *v2)
{
    char thrid[64], reply[80];
    snprintf(thrid, sizeof thrid, "%s-%s", cmd, pcf_tag(c));
    snprintf(reply, sizeof reply, "%s-response", cmd);
    pmc_enc e;
    p2r r;
    pmc_enc_begin(&e, PMC_WIRE_V2, cmd);
    pmc_enc_str(&e, "thrid", thrid);
    if (k1)
        pmc_enc_str(&e, k1, v1);
    if (k2)
        pmc_enc_str(&e, k2, v2);
    if (p2_call(c, &e, reply, &r) == 0)
        check(c, &r, thrid);
}

static void run_put(pcf_ctx *c)
{
    char key[64];
    snprintf(key, sizeof key, "%s-t-r%d", pcf_tag(c), pcf_rank(c));
    echo(c, "kvs-put", "key", key, "value", "v");
}

static void run_get(pcf_ctx *c)
{
    char key[64];
    snprintf(key, sizeof key, "%s-t-r%d", pcf_tag(c), pcf_rank(c));
    if (pcf_kvs_put(c, key, "v"))
        return;
    echo(c, "kvs-get", "key", key, NULL, NULL);
}

static void run_fence(pcf_ctx *c) { echo(c, "kvs-fence", NULL, NULL, NULL, NULL); }
static void run_jobattr(pcf_ctx *c) { echo(c, "info-getjobattr", "key", "PMI_process_mapping", NULL, NULL); }

static void run_putnode(pcf_ctx *c)
{
    char key[64];
    snprintf(key, sizeof key, "%s-tn-r%d", pcf_tag(c), pcf_rank(c));
    echo(c, "info-putnodeattr", "key", key, "value", "v");
}

static void run_getnode(pcf_ctx *c)
{
    char key[64];
    snprintf(key, sizeof key, "%s-tn-miss-r%d", pcf_tag(c), pcf_rank(c));
    echo(c, "info-getnodeattr", "key", key, "wait", "FALSE");
}

static void run_name_lookup_miss(pcf_ctx *c)
{
    char name[64];
    snprintf(name, sizeof name, "pcf-tmiss-%s-r%d", pcf_tag(c), pcf_rank(c));
    echo(c, "name-lookup", "name", name, NULL, NULL); /* rc != 0: an error response */
}

static void run_name_publish(pcf_ctx *c)
{
    char name[64];
    snprintf(name, sizeof name, "pcf-tpub-%s-r%d", pcf_tag(c), pcf_rank(c));
    echo(c, "name-publish", "name", name, "port", "p");
    pmc_enc e;
    p2r r;
    pmc_enc_begin(&e, PMC_WIRE_V2, "name-unpublish");
    pmc_enc_str(&e, "name", name);
    p2_call(c, &e, "name-unpublish-response", &r);
}

static void run_name_unpublish_miss(pcf_ctx *c)
{
    char name[64];
    snprintf(name, sizeof name, "pcf-tunp-%s-r%d", pcf_tag(c), pcf_rank(c));
    echo(c, "name-unpublish", "name", name, NULL, NULL);
}

/* Send n requests in one write, then match the n responses by thrid. */
static void pipelined(pcf_ctx *c, size_t n, const char *const *cmds, const char *const *keys)
{
    char thrids[8][48], replies[8][64];
    const char *tp[8], *np[8];
    pmc_out out = { 0 };
    pmc_error err;
    for (size_t i = 0; i < n; i++) {
        snprintf(thrids[i], sizeof thrids[i], "%s-p%zu", pcf_tag(c), i);
        snprintf(replies[i], sizeof replies[i], "%s-response", cmds[i]);
        tp[i] = thrids[i];
        np[i] = replies[i];
        pmc_enc e;
        pmc_enc_begin(&e, PMC_WIRE_V2, cmds[i]);
        pmc_enc_str(&e, "thrid", thrids[i]);
        if (keys[i])
            pmc_enc_str(&e, "key", keys[i]);
        if (strcmp(cmds[i], "kvs-put") == 0)
            pmc_enc_str(&e, "value", "piped");
        if (pmc_enc_end(&e, NULL, &out, &err) != 0) {
            pcf_observe(c, "harness-error", "encoder: %s", pmc_errcode_name(err.code));
            pmc_out_free(&out);
            return;
        }
    }
    p2r *r = calloc(n, sizeof *r);
    int order[8];
    if (!r) {
        pcf_observe(c, "harness-error", "out of memory");
        pmc_out_free(&out);
        return;
    }
    if (pcf_send_raw(c, out.buf, out.len) == 0 && p2_collect(c, n, np, tp, r, order) == 0) {
        size_t bad = n;
        for (size_t i = 0; i < n && bad == n; i++)
            if (!r[i].has_thrid)
                bad = i;
        if (bad < n)
            pcf_observe(c, "missing", "no thrid in %s", r[bad].show);
        else {
            char seq[64];
            size_t w = 0;
            for (size_t k = 0; k < n; k++)
                w += (size_t)snprintf(seq + w, sizeof seq - w, "%s%d", k ? "," : "", order[k]);
            pcf_observe(c, "ok", "%zu pipelined requests, answers in order %s, each matched", n,
                        seq);
        }
    }
    free(r);
    pmc_out_free(&out);
}

static void run_pipe_same(pcf_ctx *c)
{
    static const char *const cmds[] = { "job-getid", "job-getid", "job-getid", "job-getid" };
    static const char *const keys[] = { NULL, NULL, NULL, NULL };
    pipelined(c, 4, cmds, keys);
}

static void run_pipe_mixed(pcf_ctx *c)
{
    char key[64];
    snprintf(key, sizeof key, "%s-pm-r%d", pcf_tag(c), pcf_rank(c));
    const char *cmds[] = { "kvs-put", "info-getjobattr", "job-getid" };
    const char *keys[] = { key, "PMI_process_mapping", NULL };
    pipelined(c, 3, cmds, keys);
}

static void shaped(pcf_ctx *c, const char *thrid)
{
    pmc_enc e;
    p2r r;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    pmc_enc_str(&e, "thrid", thrid);
    if (p2_call(c, &e, "job-getid-response", &r) == 0)
        check(c, &r, thrid);
}

static void run_long(pcf_ctx *c)
{
    char t[65];
    int k = snprintf(t, sizeof t, "%s-", pcf_tag(c));
    for (int i = k; i < 64; i++)
        t[i] = (char)('0' + i % 10);
    t[64] = 0;
    shaped(c, t);
}

static void run_numeric(pcf_ctx *c)
{
    char t[32];
    snprintf(t, sizeof t, "%d", 1000 + pcf_rank(c));
    shaped(c, t);
}

static void run_odd(pcf_ctx *c)
{
    char t[64];
    snprintf(t, sizeof t, "a=b c/%s", pcf_tag(c)); /* '=' and a space: any value bytes */
    shaped(c, t);
}

#define NOECHO(cl) { "missing", PCF_DEVIATES, cl, "no thrid echoed (S11)" }

static const pcf_case cases[] = {
    { .id = "pmi2/thrid/kvs-put", .desc = "kvs-put-response echoes thrid",
      .clause = "THRID-4", .expected = "cmd=kvs-put-response;thrid=<t>;rc=0;",
      .flags = PCF_V2, .run = run_put },
    { .id = "pmi2/thrid/kvs-get", .desc = "kvs-get-response echoes thrid",
      .clause = "THRID-4", .expected = "cmd=kvs-get-response;thrid=<t>;...",
      .flags = PCF_V2, .run = run_get },
    { .id = "pmi2/thrid/kvs-fence", .desc = "kvs-fence-response echoes thrid",
      .clause = "THRID-4", .expected = "cmd=kvs-fence-response;thrid=<t>;rc=0;",
      .flags = PCF_V2, .run = run_fence },
    { .id = "pmi2/thrid/info-getjobattr", .desc = "info-getjobattr-response echoes thrid",
      .clause = "THRID-4", .expected = "cmd=info-getjobattr-response;thrid=<t>;...",
      .flags = PCF_V2, .run = run_jobattr },
    { .id = "pmi2/thrid/info-putnodeattr", .desc = "info-putnodeattr-response echoes thrid",
      .clause = "THRID-4", .expected = "cmd=info-putnodeattr-response;thrid=<t>;rc=0;",
      .flags = PCF_V2, .run = run_putnode },
    { .id = "pmi2/thrid/info-getnodeattr", .desc = "info-getnodeattr-response echoes thrid",
      .clause = "THRID-4", .expected = "cmd=info-getnodeattr-response;thrid=<t>;...",
      .flags = PCF_V2, .run = run_getnode },
    { .id = "pmi2/thrid/name-publish", .needs = PCF_NEED_NAMESERV, .desc = "name-publish-response echoes thrid",
      .clause = "THRID-4", .expected = "cmd=name-publish-response;thrid=<t>;...",
      .flags = PCF_V2, .run = run_name_publish },
    { .id = "pmi2/thrid/error-response",
      .desc = "an rc != 0 response (name-lookup of a missing name) echoes thrid",
      .clause = "ERR-9", .expected = "cmd=name-lookup-response;thrid=<t>;rc!=0;...",
      .flags = PCF_V2, .run = run_name_lookup_miss },
    { .id = "pmi2/thrid/name-unpublish", .needs = PCF_NEED_NAMESERV,
      .desc = "name-unpublish-response (of a name never published) echoes thrid",
      .clause = "THRID-4", .expected = "cmd=name-unpublish-response;thrid=<t>;...",
      .flags = PCF_V2, .run = run_name_unpublish_miss },
    { .id = "pmi2/thrid/pipelined",
      .desc = "four job-getid requests in one write, each answered once with its thrid",
      .clause = "THRID-7", .expected = "four responses carrying the four thrids, in any order",
      .flags = PCF_V2, .run = run_pipe_same,
      .outcomes = { NOECHO("THRID-4"), { "altered", PCF_FAIL, "THRID-4", "a thrid matches no request" } } },
    { .id = "pmi2/thrid/pipelined-mixed",
      .desc = "kvs-put, info-getjobattr and job-getid pipelined: each response has its thrid",
      .clause = "THRID-7", .expected = "three responses, each with the thrid of its own request",
      .flags = PCF_V2, .run = run_pipe_mixed,
      .outcomes = { NOECHO("THRID-4"), { "altered", PCF_FAIL, "THRID-4", "a thrid matches no request" } } },
    { .id = "pmi2/thrid/long", .desc = "a 64-byte thrid is echoed whole",
      .clause = "THRID-4", .expected = "the 64 bytes back",
      .flags = PCF_V2, .run = run_long },
    { .id = "pmi2/thrid/numeric", .desc = "a plain decimal thrid is echoed as sent",
      .clause = "THRID-4", .expected = "the same digits back",
      .flags = PCF_V2, .run = run_numeric },
    { .id = "pmi2/thrid/any-bytes", .desc = "a thrid with '=' and a space is echoed byte for byte",
      .clause = "THRID-4", .expected = "thrid=a=b c/<tag> back",
      .flags = PCF_V2, .run = run_odd },
};
PCF_CASES(cases)
