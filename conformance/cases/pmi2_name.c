/* pmi2/name: the name service (optional, SPEC 1.3): publish, lookup in
 * either key spelling, unpublish, duplicates, misses, info keys, and a
 * name published by one rank looked up by the others.  A server whose
 * first name-publish is refused is graded UNSUPPORTED (NAME-8).  Names are
 * unique per run and rank, and every case unpublishes what it published. */
#include "pmi2_util.h"

static int publish(pcf_ctx *c, const char *name, const char *port, bool info, p2r *r)
{
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "name-publish");
    pmc_enc_str(&e, "name", name);
    pmc_enc_str(&e, "port", port);
    if (info) {
        pmc_enc_int(&e, "infokeycount", 1);
        pmc_enc_str(&e, "infokey0", "pcf-info");
        pmc_enc_str(&e, "infoval0", "ignored");
    }
    return p2_call(c, &e, "name-publish-response", r);
}

static int lookup(pcf_ctx *c, const char *name, p2r *r, char *port, size_t n)
{
    pmc_enc e;
    pmc_msg m;
    pmc_enc_begin(&e, PMC_WIRE_V2, "name-lookup");
    pmc_enc_str(&e, "name", name);
    if (pcf_call(c, &e, "name-lookup-response", &m))
        return -1;
    p2_take(&m, r);
    /* NAME-4: the port may come as port or value */
    if (!pcf_get(&m, "port", port, n))
        pcf_get(&m, "value", port, n);
    return 0;
}

static int unpublish(pcf_ctx *c, const char *name, p2r *r)
{
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "name-unpublish");
    pmc_enc_str(&e, "name", name);
    return p2_call(c, &e, "name-unpublish-response", r);
}

static void names(pcf_ctx *c, const char *what, char *name, size_t n, char *port, size_t pn)
{
    snprintf(name, n, "pcf-%s-%s-r%d", what, pcf_tag(c), pcf_rank(c));
    snprintf(port, pn, "tcp://pcf-%s:%d", what, 4000 + pcf_rank(c));
}

/* Publish; 0, 1 when the service is refused (observed "unsupported"). */
static int publish_or_unsupported(pcf_ctx *c, const char *name, const char *port, bool info)
{
    p2r r;
    if (publish(c, name, port, info, &r))
        return -1;
    if (!p2_ok(&r)) {
        pcf_observe(c, "unsupported", "name-publish refused: %s", r.show);
        return 1;
    }
    return 0;
}

static void pub_lookup(pcf_ctx *c, bool info)
{
    char name[96], port[64], got[128];
    names(c, info ? "info" : "pub", name, sizeof name, port, sizeof port);
    if (publish_or_unsupported(c, name, port, info))
        return;
    p2r r;
    if (lookup(c, name, &r, got, sizeof got))
        return;
    if (p2_ok(&r) && strcmp(got, port) == 0)
        pcf_observe(c, "ok", "%s", r.show);
    else
        pcf_observe(c, "not-found", "published %s, lookup: %s", port, r.show);
    unpublish(c, name, &r);
}

static void run_publish(pcf_ctx *c) { pub_lookup(c, false); }
static void run_info_keys(pcf_ctx *c) { pub_lookup(c, true); }

static void run_lookup_keys(pcf_ctx *c)
{
    char name[96], port[64], got[128];
    names(c, "keys", name, sizeof name, port, sizeof port);
    if (publish_or_unsupported(c, name, port, false))
        return;
    pmc_enc e;
    pmc_msg m;
    pmc_enc_begin(&e, PMC_WIRE_V2, "name-lookup");
    pmc_enc_str(&e, "name", name);
    if (pcf_call(c, &e, "name-lookup-response", &m))
        return;
    char b[300], pv[128], vv[128];
    bool found = false;
    bool hp = pcf_get(&m, "port", pv, sizeof pv), hv = pcf_get(&m, "value", vv, sizeof vv);
    int hf = pmc_msg_get_bool(&m, "found", &found, NULL);
    pcf_show(&m, b, sizeof b);
    if (hp && hv && hf == 1 && found && strcmp(pv, port) == 0 && strcmp(vv, port) == 0)
        pcf_observe(c, "ok", "%s", b);
    else if ((hp && strcmp(pv, port) == 0) || (hv && strcmp(vv, port) == 0))
        pcf_observe(c, "partial", "the port, but not as port, value and found=TRUE: %s", b);
    else
        pcf_observe(c, "not-found", "%s", b);
    p2r r;
    (void)got;
    unpublish(c, name, &r);
}

static void run_duplicate(pcf_ctx *c, bool check_kept)
{
    char name[96], port[64], got[128];
    names(c, "dup", name, sizeof name, port, sizeof port);
    if (publish_or_unsupported(c, name, port, false))
        return;
    p2r r;
    if (publish(c, name, "tcp://pcf-second:1", false, &r))
        return;
    bool refused = p2_fail(&r);
    if (!check_kept) {
        pcf_observe(c, refused ? "ok" : "accepted", "second publish: %s", r.show);
    } else if (lookup(c, name, &r, got, sizeof got) == 0) {
        if (strcmp(got, port) == 0)
            pcf_observe(c, "ok", "the first port stays: %s", r.show);
        else if (strcmp(got, "tcp://pcf-second:1") == 0)
            pcf_observe(c, "replaced", "the second publish replaced the port (S19)");
        else
            pcf_observe(c, "not-found", "%s", r.show);
    }
    unpublish(c, name, &r);
}

static void run_dup_refused(pcf_ctx *c) { run_duplicate(c, false); }
static void run_dup_kept(pcf_ctx *c) { run_duplicate(c, true); }

static void run_lookup_miss(pcf_ctx *c)
{
    char name[96], port[64], got[128];
    names(c, "miss", name, sizeof name, port, sizeof port);
    p2r r;
    if (lookup(c, name, &r, got, sizeof got))
        return;
    if (p2_fail(&r))
        pcf_observe(c, "ok", "%s", r.show);
    else if (p2_ok(&r) && got[0])
        pcf_observe(c, "false-hit", "a port for a name nobody published: %s", r.show);
    else
        pcf_observe(c, "rc-zero", "a miss reported with rc=0: %s", r.show);
}

static void run_unpublish(pcf_ctx *c)
{
    char name[96], port[64], got[128];
    names(c, "unp", name, sizeof name, port, sizeof port);
    if (publish_or_unsupported(c, name, port, false))
        return;
    p2r r;
    if (unpublish(c, name, &r))
        return;
    if (!p2_ok(&r)) {
        pcf_observe(c, "refused", "unpublish of a published name: %s", r.show);
        return;
    }
    if (lookup(c, name, &r, got, sizeof got))
        return;
    if (p2_fail(&r))
        pcf_observe(c, "ok", "gone after unpublish");
    else
        pcf_observe(c, "still-there", "lookup after unpublish: %s", r.show);
}

static void run_unpublish_miss(pcf_ctx *c)
{
    char name[96], port[64];
    names(c, "unpm", name, sizeof name, port, sizeof port);
    p2r r;
    if (unpublish(c, name, &r))
        return;
    if (p2_fail(&r))
        pcf_observe(c, "ok", "%s", r.show);
    else
        pcf_observe(c, "accepted", "rc=0 for a name that was never published: %s", r.show);
}

/* Rank 0 publishes; after a fence every other rank looks it up; after a
 * second fence rank 0 unpublishes.  Every rank fences twice. */
static void run_cross_rank(pcf_ctx *c)
{
    char name[96], port[64], got[128];
    snprintf(name, sizeof name, "pcf-x-%s", pcf_tag(c));
    snprintf(port, sizeof port, "tcp://pcf-x:%s", pcf_tag(c));
    p2r r;
    int pub = 0;
    char said[64], v[8] = "";
    snprintf(said, sizeof said, "%s-published", pcf_tag(c));
    if (pcf_rank(c) == 0) {
        pub = publish_or_unsupported(c, name, port, false);
        /* the others learn whether the service refused it (NAME-8) */
        if (pub < 0 || pcf_kvs_put(c, said, pub == 0 ? "1" : "0"))
            return;
    }
    if (p2_step(c, 0, 1)) /* the name is published before anyone looks */
        return;
    bool found = false;
    if (pcf_rank(c) != 0 && pcf_kvs_get(c, said, &found, v, sizeof v, NULL) == 0 &&
        strcmp(v, "0") == 0)
        pcf_observe(c, "unsupported", "rank 0's name-publish was refused");
    else if (pcf_rank(c) != 0 && !pcf_observed(c) && lookup(c, name, &r, got, sizeof got) == 0) {
        if (p2_ok(&r) && strcmp(got, port) == 0)
            pcf_observe(c, "ok", "rank 0's name found");
        else if (p2_fail(&r))
            pcf_observe(c, "not-found", "rank 0's published name: %s", r.show);
        else
            pcf_observe(c, "wrong-value", "%s", r.show);
    }
    if (p2_step(c, -1, 2)) /* everybody looked before it goes */
        return;
    if (pcf_rank(c) == 0 && pub == 0) {
        unpublish(c, name, &r);
        pcf_observe(c, "ok", "published and unpublished");
    }
}

#define UNSUP { "unsupported", PCF_UNSUPPORTED, "NAME-8", "no name service (name-publish refused)" }

static const pcf_case cases[] = {
    { .id = "pmi2/name/publish-lookup", .needs = PCF_NEED_NAMESERV,
      .desc = "a published name is found by name-lookup with its port",
      .clause = "NAME-1", .expected = "name-publish rc=0, then name-lookup rc=0 with the port",
      .flags = PCF_V2, .run = run_publish, .outcomes = { UNSUP } },
    { .id = "pmi2/name/lookup-keys", .needs = PCF_NEED_NAMESERV,
      .desc = "a successful lookup carries the port as both port and value, and found=TRUE",
      .clause = "NAME-3", .expected = "rc=0;port=<p>;value=<p>;found=TRUE",
      .flags = PCF_V2, .run = run_lookup_keys,
      .outcomes = { UNSUP, { "not-found", PCF_FAIL, "NAME-1", "the published port is not returned" } } },
    { .id = "pmi2/name/cross-rank", .needs = PCF_NEED_NAMESERV,
      .desc = "a name rank 0 publishes is found by every other rank",
      .clause = "NAME-1", .expected = "name-lookup rc=0 with rank 0's port on every rank",
      .flags = PCF_V2, .min_ranks = 2, .run = run_cross_rank, .outcomes = { UNSUP } },
    { .id = "pmi2/name/duplicate", .needs = PCF_NEED_NAMESERV,
      .desc = "publishing a name that is already published is refused",
      .clause = "NAME-2", .expected = "the second name-publish answers rc != 0",
      .flags = PCF_V2, .run = run_dup_refused,
      .outcomes = { UNSUP, { "accepted", PCF_DEVIATES, NULL, "the duplicate was accepted (S19)" } } },
    { .id = "pmi2/name/duplicate-keeps-first", .needs = PCF_NEED_NAMESERV,
      .desc = "after a duplicate publish the first port is still the one looked up",
      .clause = "NAME-2", .expected = "name-lookup returns the first port",
      .flags = PCF_V2, .run = run_dup_kept,
      .outcomes = { UNSUP, { "replaced", PCF_DEVIATES, NULL, "the second publish replaced the first (S19)" },
                    { "not-found", PCF_FAIL, "NAME-1", "the name is gone" } } },
    { .id = "pmi2/name/lookup-miss", .needs = PCF_NEED_NAMESERV,
      .desc = "a lookup of a name nobody published is answered with rc != 0",
      .clause = "NAME-5", .expected = "cmd=name-lookup-response;rc!=0;...",
      .flags = PCF_V2, .run = run_lookup_miss },
    { .id = "pmi2/name/unpublish", .needs = PCF_NEED_NAMESERV,
      .desc = "unpublish of a published name answers rc=0 and the name is gone",
      .clause = "NAME-6", .expected = "rc=0, then a lookup answers rc != 0",
      .flags = PCF_V2, .run = run_unpublish, .outcomes = { UNSUP } },
    { .id = "pmi2/name/unpublish-miss", .needs = PCF_NEED_NAMESERV,
      .desc = "unpublish of a name that was never published answers rc != 0",
      .clause = "NAME-6", .expected = "cmd=name-unpublish-response;rc!=0;",
      .flags = PCF_V2, .run = run_unpublish_miss },
    { .id = "pmi2/name/info-keys", .needs = PCF_NEED_NAMESERV,
      .desc = "name-publish with infokeycount/infokey0/infoval0 is accepted, the keys ignored",
      .clause = "NAME-9", .expected = "rc=0 and the port found",
      .flags = PCF_V2, .run = run_info_keys,
      .outcomes = { { "unsupported", PCF_DEVIATES, NULL, "refused a publish with info keys" },
                    { "not-found", PCF_FAIL, "NAME-1", "published, then not found" } } },
};
PCF_CASES(cases)
