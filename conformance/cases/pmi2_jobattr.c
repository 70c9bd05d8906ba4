/* pmi2/jobattr: info-getjobattr: PMI_process_mapping parsed strictly and
 * checked against the job size, the launcher's MPI_LOCALNRANKS /
 * MPI_LOCALRANKID and every other rank's copy; universeSize; the draft's
 * predefined names when provided; no false hits on either side of
 * Slurm's PMI_netinfo_of_task comparison (S6); the KVS fallback. */
#include "pmi2_util.h"

static void run_found_form(pcf_ctx *c)
{
    p2r r;
    if (p2_jobattr(c, "PMI_process_mapping", &r))
        return;
    if (p2_hit(&r))
        pcf_observe(c, "ok", "%s", r.show);
    else
        pcf_observe(c, "not-found-form", "%s", r.show);
}

static void run_mapping_abnf(pcf_ctx *c)
{
    int size = pcf_size(c);
    int *node = calloc((size_t)size, sizeof *node);
    if (!node) {
        pcf_observe(c, "harness-error", "out of memory");
        return;
    }
    p2r r;
    char why[160];
    if (p2_jobattr(c, "PMI_process_mapping", &r) == 0) {
        if (!p2_hit(&r))
            pcf_observe(c, "absent", "%s", r.show);
        else if (!r.vlen)
            pcf_observe(c, "ok", "empty (the mapping does not fit a value)");
        else if (p2_mapping_nodes(r.value, size, node, why, sizeof why) != 0)
            pcf_observe(c, "malformed", "%s: %s", r.value, why);
        else
            pcf_observe(c, "ok", "%s: rank %d on node %d", r.value, pcf_rank(c),
                        node[pcf_rank(c)]);
    }
    free(node);
}

/* MPI_LOCALNRANKS / MPI_LOCALRANKID (Hydra and the mock set them) agree
 * with the mapping: the count of ranks on this node, and this rank's place
 * among them. */
static void run_mapping_local_env(pcf_ctx *c)
{
    const char *ln = getenv("MPI_LOCALNRANKS"), *li = getenv("MPI_LOCALRANKID");
    int size = pcf_size(c), me = pcf_rank(c);
    int *node = calloc((size_t)size, sizeof *node);
    if (!node) {
        pcf_observe(c, "harness-error", "out of memory");
        return;
    }
    int got = p2_job_nodes(c, node);
    if (got == 1)
        pcf_observe(c, "absent", "no usable PMI_process_mapping");
    else if (got == 0 && (!ln || !*ln || !li || !*li))
        pcf_observe(c, "no-env", "MPI_LOCALNRANKS/MPI_LOCALRANKID are not set: nothing to compare");
    else if (got == 0) {
        int count = 0, idx = -1;
        for (int q = 0; q < size; q++)
            if (node[q] == node[me]) {
                if (q == me)
                    idx = count;
                count++;
            }
        if (atoi(ln) != count || atoi(li) != idx)
            pcf_observe(c, "inconsistent",
                        "the mapping puts %d ranks on node %d with this one at %d; "
                        "MPI_LOCALNRANKS=%s MPI_LOCALRANKID=%s", count, node[me], idx, ln, li);
        else
            pcf_observe(c, "ok", "%d local ranks, this one at %d", count, idx);
    }
    free(node);
}

/* Every rank got the same mapping (hex through the KVS). */
static void run_mapping_same(pcf_ctx *c)
{
    p2r r;
    char key[64], hex[2 * 1100 + 1], got[2 * 1100 + 1];
    if (p2_jobattr(c, "PMI_process_mapping", &r)) {
        pcf_kvs_fence(c);
        return;
    }
    snprintf(key, sizeof key, "%s-map", pcf_tag(c));
    pcf_hex(r.value, r.vlen < 500 ? r.vlen : 500, hex, sizeof hex);
    if (pcf_rank(c) == 0 && pcf_kvs_put(c, key, hex)) {
        pcf_kvs_fence(c);
        return;
    }
    if (pcf_kvs_fence(c))
        return;
    bool found;
    if (pcf_rank(c) != 0) {
        if (pcf_kvs_get(c, key, &found, got, sizeof got, NULL))
            return;
        if (!found || strcmp(got, hex) != 0) {
            pcf_observe(c, "differs", "rank %d's mapping %s differs from rank 0's", pcf_rank(c),
                        r.value);
            return;
        }
    }
    pcf_observe(c, "ok", "%s", r.value);
}

static void run_universe(pcf_ctx *c)
{
    p2r r;
    if (p2_jobattr(c, "universeSize", &r))
        return;
    if (!p2_hit(&r)) {
        pcf_observe(c, "absent", "%s", r.show);
        return;
    }
    char *end;
    long v = strtol(r.value, &end, 10);
    if (!r.value[0] || *end)
        pcf_observe(c, "malformed", "universeSize=%s is not a decimal integer", r.value);
    else if (v == -1)
        pcf_observe(c, "ok", "universeSize=-1 (unknown)");
    else if (v < pcf_size(c))
        pcf_observe(c, "smaller", "universeSize=%ld is below the job size %d", v, pcf_size(c));
    else
        pcf_observe(c, "ok", "universeSize=%ld", v);
}

/* hasNameServ=TRUE means the name service works: prove it. */
static void run_has_nameserv(pcf_ctx *c)
{
    p2r r;
    if (p2_jobattr(c, "hasNameServ", &r))
        return;
    if (!p2_hit(&r)) {
        pcf_observe(c, "not-provided", "%s", r.show);
        return;
    }
    if (strcmp(r.value, "TRUE") != 0 && strcmp(r.value, "FALSE") != 0) {
        pcf_observe(c, "malformed", "hasNameServ=%s", r.value);
        return;
    }
    bool said_false = strcmp(r.value, "FALSE") == 0;
    char name[64], port[64];
    snprintf(name, sizeof name, "pcf-hns-%s-r%d", pcf_tag(c), pcf_rank(c));
    snprintf(port, sizeof port, "port-%d", pcf_rank(c));
    pmc_enc e;
    if (said_false) {
        /* JOBATTR-10: FALSE means the name service does not work; a publish
         * that a lookup then finds says otherwise */
        pmc_enc_begin(&e, PMC_WIRE_V2, "name-publish");
        pmc_enc_str(&e, "name", name);
        pmc_enc_str(&e, "port", port);
        if (p2_call(c, &e, "name-publish-response", &r))
            return;
        if (!p2_ok(&r)) {
            pcf_observe(c, "ok", "hasNameServ=FALSE and name-publish refused: %s", r.show);
            return;
        }
        pmc_enc_begin(&e, PMC_WIRE_V2, "name-lookup");
        pmc_enc_str(&e, "name", name);
        p2r l;
        if (p2_call(c, &e, "name-lookup-response", &l))
            return;
        pmc_enc_begin(&e, PMC_WIRE_V2, "name-unpublish");
        pmc_enc_str(&e, "name", name);
        if (p2_call(c, &e, "name-unpublish-response", &r))
            return;
        if (p2_ok(&l))
            pcf_observe(c, "false-but-works", "hasNameServ=FALSE, yet a published name was found: %s",
                        l.show);
        else
            pcf_observe(c, "ok", "hasNameServ=FALSE; a published name is not found: %s", l.show);
        return;
    }
    pmc_enc_begin(&e, PMC_WIRE_V2, "name-publish");
    pmc_enc_str(&e, "name", name);
    pmc_enc_str(&e, "port", port);
    if (p2_call(c, &e, "name-publish-response", &r))
        return;
    if (!p2_ok(&r)) {
        pcf_observe(c, "broken", "hasNameServ=TRUE, but name-publish: %s", r.show);
        return;
    }
    pmc_enc_begin(&e, PMC_WIRE_V2, "name-unpublish");
    pmc_enc_str(&e, "name", name);
    if (p2_call(c, &e, "name-unpublish-response", &r))
        return;
    pcf_observe(c, p2_ok(&r) ? "ok" : "broken", "hasNameServ=TRUE and publish/unpublish work: %s",
                r.show);
}

/* PMI_dead_processes: every rank is alive and running this case. */
static void run_dead(pcf_ctx *c)
{
    p2r r;
    if (p2_jobattr(c, "PMI_dead_processes", &r))
        return;
    if (!p2_hit(&r)) {
        pcf_observe(c, "not-provided", "%s", r.show);
        return;
    }
    for (const char *p = r.value; *p; p++)
        if (!((*p >= '0' && *p <= '9') || *p == ',' || *p == '-')) {
            pcf_observe(c, "malformed", "PMI_dead_processes=%s", r.value);
            return;
        }
    if (r.value[0])
        pcf_observe(c, "lists-live", "PMI_dead_processes=%s while every rank runs", r.value);
    else
        pcf_observe(c, "ok", "empty: nobody died");
}

static void bool_attr(pcf_ctx *c, const char *name)
{
    p2r r;
    if (p2_jobattr(c, name, &r))
        return;
    if (!p2_hit(&r))
        pcf_observe(c, "not-provided", "%s", r.show);
    else if (strcmp(r.value, "TRUE") == 0 || strcmp(r.value, "FALSE") == 0)
        pcf_observe(c, "ok", "%s=%s", name, r.value);
    else
        pcf_observe(c, "malformed", "%s=%s is not TRUE/FALSE", name, r.value);
}

static void run_hetero(pcf_ctx *c) { bool_attr(c, "isHeterogeneous"); }

static void no_false_hit(pcf_ctx *c, const char *prefix)
{
    char name[96];
    p2r r;
    snprintf(name, sizeof name, "%s-pcf-%s", prefix, pcf_tag(c));
    if (p2_jobattr(c, name, &r))
        return;
    if (p2_hit(&r))
        pcf_observe(c, "false-hit", "%s: %s", name, r.show);
    else if (p2_miss(&r))
        pcf_observe(c, "ok", "%s", r.show);
    else
        pcf_observe(c, "rc-nonzero", "%s", r.show);
}

static void run_nf_after(pcf_ctx *c) { no_false_hit(c, "zzz"); }
static void run_nf_before(pcf_ctx *c) { no_false_hit(c, "AAA"); }

/* JOBATTR-4 (MAY): a KVS key read as a job attribute. */
static void run_kvs_fallback(pcf_ctx *c)
{
    char key[64];
    snprintf(key, sizeof key, "%s-jkf-r%d", pcf_tag(c), pcf_rank(c));
    p2r r;
    if (pcf_kvs_put(c, key, "via-kvs") || pcf_kvs_fence(c) || p2_jobattr(c, key, &r))
        return;
    if (p2_value_is(&r, "via-kvs", 7))
        pcf_observe(c, "kvs-visible", "the KVS key is readable as a job attribute");
    else if (p2_any_miss(&r))
        pcf_observe(c, "ok", "not a job attribute: %s", r.show);
    else
        pcf_observe(c, "wrong-value", "%s", r.show);
}

static const pcf_case cases[] = {
    { .id = "pmi2/jobattr/found-form",
      .desc = "PMI_process_mapping is answered rc=0;found=TRUE;value=...",
      .clause = "JOBATTR-1", .expected = "cmd=info-getjobattr-response;rc=0;found=TRUE;value=(vector,...);",
      .steps = "Every rank sends info-getjobattr for PMI_process_mapping.\n"
               "rc=0;found=TRUE with a value passes; anything else is \"not-found-form\", graded "
               "by JOBATTR-5 (a SHOULD: NON-STRICT).",
      .flags = PCF_V2, .run = run_found_form,
      .outcomes = { { "not-found-form", PCF_DEVIATES, "JOBATTR-5", "the mapping is not provided" } } },
    { .id = "pmi2/jobattr/mapping-abnf",
      .desc = "PMI_process_mapping matches SPEC's process-mapping ABNF exactly (no spaces, counts >= 1)",
      .clause = "JOBATTR-6", .expected = "(vector,(node,count,ppn)...) or an empty value",
      .steps = "Every rank sends info-getjobattr for PMI_process_mapping; not found is \"absent\" "
               "(JOBATTR-5: NON-STRICT).\n"
               "The value is parsed by SPEC.md's process-mapping rule: \"(vector\", then blocks "
               "\"(node,count,ppn)\" with counts of 1 or more, then \")\", no space anywhere; the "
               "blocks, applied again from the first when used up, must give every rank of the "
               "job a node.\n"
               "A value that parses passes, and so does an empty one (allowed when the mapping "
               "does not fit a value); anything else is \"malformed\", with the reason.",
      .flags = PCF_V2 | PCF_PLACED, .run = run_mapping_abnf,
      .outcomes = { { "absent", PCF_DEVIATES, "JOBATTR-5", "no PMI_process_mapping" } } },
    { .id = "pmi2/jobattr/mapping-local-env",
      .desc = "the mapping agrees with MPI_LOCALNRANKS and MPI_LOCALRANKID",
      .clause = "JOBATTR-6",
      .expected = "the node's rank count and this rank's index among them match the variables",
      .steps = "Every rank reads PMI_process_mapping and works out which ranks share its node (no "
               "usable mapping: \"absent\", JOBATTR-5).\n"
               "When the launcher sets MPI_LOCALNRANKS and MPI_LOCALRANKID (Hydra and the mock "
               "server do; otherwise \"no-env\", INFO), they must equal the number of ranks on "
               "this node and this rank's place among them (else \"inconsistent\").",
      .flags = PCF_V2 | PCF_PLACED, .run = run_mapping_local_env,
      .outcomes = { { "absent", PCF_DEVIATES, "JOBATTR-5", "no usable PMI_process_mapping" },
                    { "no-env", PCF_INFO, NULL, "the launcher sets no local-rank variables" } } },
    { .id = "pmi2/jobattr/mapping-same",
      .desc = "every rank receives the same PMI_process_mapping",
      .clause = "JOBATTR-6", .expected = "byte-identical values on every rank",
      .steps = "Every rank reads PMI_process_mapping; rank 0 puts its value (hex-encoded) in the "
               "KVS and every rank fences.\n"
               "The other ranks get rank 0's value and compare it with their own: a difference is "
               "\"differs\".",
      .flags = PCF_V2 | PCF_PLACED, .min_ranks = 2, .run = run_mapping_same },
    { .id = "pmi2/jobattr/universe-size",
      .desc = "universeSize is a decimal integer, -1 or at least the job size",
      .clause = "JOBATTR-8", .expected = "found=TRUE;value=<n> with n = -1 or n >= size",
      .steps = "Every rank sends info-getjobattr for universeSize; not found is \"absent\" "
               "(JOBATTR-8, a SHOULD: NON-STRICT).\n"
               "The value must be a decimal integer (else \"malformed\", JOBATTR-9: FAIL): -1 "
               "(unknown) or at least the job size passes; a smaller number is \"smaller\".",
      .flags = PCF_V2, .run = run_universe,
      .outcomes = { { "absent", PCF_DEVIATES, NULL, "universeSize not provided (SHOULD)" },
                    { "malformed", PCF_FAIL, "JOBATTR-9", "not a decimal integer" },
                    { "smaller", PCF_DEVIATES, NULL, "below the job size" } } },
    { .id = "pmi2/jobattr/has-nameserv",
      .desc = "hasNameServ, when provided, is TRUE/FALSE, TRUE when publish works and FALSE when not",
      .clause = "JOBATTR-10", .expected = "TRUE with a working name service, or FALSE",
      .steps = "Every rank sends info-getjobattr for hasNameServ; not provided is UNSUPPORTED; a "
               "value other than TRUE or FALSE is \"malformed\" (JOBATTR-9).\n"
               "TRUE: it publishes a name of its own and unpublishes it; either refused is "
               "\"broken\".\n"
               "FALSE: it publishes a name; a refusal passes; if the publish succeeds and a "
               "lookup then finds the name, the name service works after all: \"false-but-works\".",
      .flags = PCF_V2, .run = run_has_nameserv,
      .outcomes = { { "not-provided", PCF_UNSUPPORTED, NULL, "hasNameServ not provided" },
                    { "malformed", PCF_FAIL, "JOBATTR-9", "not TRUE/FALSE" },
                    { "broken", PCF_DEVIATES, NULL, "TRUE, yet the name service fails" },
                    { "false-but-works", PCF_DEVIATES, "JOBATTR-10", "FALSE, yet the name service works" } } },
    { .id = "pmi2/jobattr/dead-processes",
      .desc = "PMI_dead_processes, when provided, is an empty list while every rank runs",
      .clause = "JOBATTR-9", .expected = "found=TRUE;value=; (or not provided)",
      .steps = "Every rank sends info-getjobattr for PMI_dead_processes; not provided is "
               "UNSUPPORTED.\n"
               "The value may hold only digits, ',' and '-' (else \"malformed\"), and must be "
               "empty, since every rank is alive and running this case (else \"lists-live\").",
      .flags = PCF_V2, .run = run_dead,
      .outcomes = { { "not-provided", PCF_UNSUPPORTED, NULL, "PMI_dead_processes not provided" },
                    { "lists-live", PCF_DEVIATES, "JOBATTR-10", "names ranks that are alive" } } },
    { .id = "pmi2/jobattr/is-heterogeneous",
      .desc = "isHeterogeneous, when provided, is TRUE or FALSE",
      .clause = "JOBATTR-9", .expected = "found=TRUE;value=TRUE|FALSE; (or not provided)",
      .steps = "Every rank sends info-getjobattr for isHeterogeneous; not provided is "
               "UNSUPPORTED.\n"
               "TRUE or FALSE passes; any other value is \"malformed\".",
      .flags = PCF_V2, .run = run_hetero,
      .outcomes = { { "not-provided", PCF_UNSUPPORTED, NULL, "isHeterogeneous not provided" } } },
    { .id = "pmi2/jobattr/no-false-hit-high",
      .desc = "an undefined name sorting after PMI_netinfo_of_task is not found (S6)",
      .clause = "JOBATTR-3", .expected = "rc=0;found=FALSE (or rc != 0), never found=TRUE",
      .steps = "Every rank sends info-getjobattr for zzz-pcf-<tag>, a name nobody defines that "
               "sorts after PMI_netinfo_of_task (Slurm answers every such name, S6).\n"
               "Not found passes, as rc=0;found=FALSE or rc != 0 (the form is "
               "pmi2/jobattr/not-found's business); found=TRUE is \"false-hit\".",
      .flags = PCF_V2, .run = run_nf_after,
      .outcomes = { { "rc-nonzero", PCF_PASS, NULL, "not found, as rc != 0 (the form is graded by pmi2/jobattr/not-found)" } } },
    { .id = "pmi2/jobattr/no-false-hit-low",
      .desc = "an undefined name sorting before PMI_netinfo_of_task is not found",
      .clause = "JOBATTR-3", .expected = "rc=0;found=FALSE (or rc != 0), never found=TRUE",
      .steps = "Every rank sends info-getjobattr for AAA-pcf-<tag>, a name nobody defines that "
               "sorts before PMI_netinfo_of_task.\n"
               "Not found passes, as rc=0;found=FALSE or rc != 0; found=TRUE is \"false-hit\".",
      .flags = PCF_V2, .run = run_nf_before,
      .outcomes = { { "rc-nonzero", PCF_PASS, NULL, "not found, as rc != 0 (the form is graded by pmi2/jobattr/not-found)" } } },
    { .id = "pmi2/jobattr/kvs-fallback",
      .desc = "a KVS key read as a job attribute: either answer is allowed (JOBATTR-4)",
      .clause = "JOBATTR-4", .expected = "found=TRUE with the KVS value, or a not-found answer",
      .steps = "Every rank puts the KVS key <tag>-jkf-r<rank> = via-kvs and fences, then sends "
               "info-getjobattr for that name.\n"
               "Not found passes; found=TRUE with via-kvs is \"kvs-visible\", INFO (JOBATTR-4 "
               "allows answering from the KVS; Hydra does); found=TRUE with another value is "
               "\"wrong-value\" (JOBATTR-1: FAIL).",
      .flags = PCF_V2, .run = run_kvs_fallback,
      .outcomes = { { "kvs-visible", PCF_INFO, NULL, "the server answers from the KVS (Hydra does)" },
                    { "wrong-value", PCF_FAIL, "JOBATTR-1", "found=TRUE with another value" } } },
};
PCF_CASES(cases)
