/* pmi2/kvs, pmi2/job, pmi2/jobattr: the key-value space across ranks, the
 * job id and the process mapping. */
#include "pcf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void run_put(pcf_ctx *c)
{
    char key[64];
    snprintf(key, sizeof key, "%s-put-r%d", pcf_tag(c), pcf_rank(c));
    if (pcf_kvs_put(c, key, "pcf-value") == 0)
        pcf_observe(c, "ok", "kvs-put answered rc=0");
    pcf_kvs_fence(c); /* keep every rank's fence count equal */
}

/* Every rank puts, fences, and reads every other rank's key (at most 16). */
static void run_fence_visibility(pcf_ctx *c)
{
    char key[64], val[64], got[128];
    snprintf(key, sizeof key, "%s-vis-r%d", pcf_tag(c), pcf_rank(c));
    snprintf(val, sizeof val, "v%d-%s", pcf_rank(c), pcf_tag(c));
    if (pcf_kvs_put(c, key, val) || pcf_kvs_fence(c))
        return;
    int n = pcf_size(c) < 16 ? pcf_size(c) : 16;
    for (int k = 1; k < n; k++) {
        int r = (pcf_rank(c) + k) % pcf_size(c);
        bool found;
        snprintf(key, sizeof key, "%s-vis-r%d", pcf_tag(c), r);
        snprintf(val, sizeof val, "v%d-%s", r, pcf_tag(c));
        if (pcf_kvs_get(c, key, &found, got, sizeof got, NULL))
            return;
        if (!found) {
            pcf_observe(c, "not-visible", "rank %d's key %s not found after the fence", r, key);
            return;
        }
        if (strcmp(got, val) != 0) {
            pcf_observe(c, "wrong-value", "rank %d's key %s: expected %s, got %s", r, key, val,
                        got);
            return;
        }
    }
    pcf_observe(c, "ok", "saw the keys of %d other ranks", n - 1);
}

static void run_not_found(pcf_ctx *c)
{
    /* everyone fences first so a lazy-fence server (Hydra) need not hold the get */
    if (pcf_kvs_fence(c))
        return;
    char key[64], b[300];
    snprintf(key, sizeof key, "%s-never-put", pcf_tag(c));
    pmc_enc e;
    pmc_msg m;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(&e, "key", key);
    if (pcf_call(c, &e, "kvs-get-response", &m))
        return;
    long long rc = -1;
    bool found = true;
    int hr = pcf_rc(&m, &rc), hf = pmc_msg_get_bool(&m, "found", &found, NULL);
    if (hr == 1 && rc == 0 && hf == 1 && !found)
        pcf_observe(c, "ok", "%s", pcf_show(&m, b, sizeof b));
    else if (hr == 1 && rc != 0)
        pcf_observe(c, "rc-nonzero", "not found reported through rc: %s",
                    pcf_show(&m, b, sizeof b));
    else
        pcf_observe(c, "found-wrong", "%s", pcf_show(&m, b, sizeof b));
}

static void run_own_put(pcf_ctx *c)
{
    char key[64], got[64];
    snprintf(key, sizeof key, "%s-own-r%d", pcf_tag(c), pcf_rank(c));
    bool found = false;
    if (pcf_kvs_put(c, key, "mine") == 0 && pcf_kvs_get(c, key, &found, got, sizeof got, NULL) == 0) {
        if (found && strcmp(got, "mine") == 0)
            pcf_observe(c, "ok", "own key visible before the fence");
        else
            pcf_observe(c, "not-visible", "own key %s not visible before the fence", key);
    }
    pcf_kvs_fence(c);
}

/* Values are opaque bytes except ';' (VAL-1, BODY-7). */
static void run_value_bytes(pcf_ctx *c)
{
    char key[64], got[128];
    const char *val = "a=b c\tUTF8:\xc3\xa9";
    snprintf(key, sizeof key, "%s-bytes-r%d", pcf_tag(c), pcf_rank(c));
    bool found;
    if (pcf_kvs_put(c, key, val) || pcf_kvs_fence(c) ||
        pcf_kvs_get(c, key, &found, got, sizeof got, NULL))
        return;
    if (found && strcmp(got, val) == 0)
        pcf_observe(c, "ok", "value with '=', space, tab and UTF-8 came back intact");
    else
        pcf_observe(c, "altered", "put \"a=b c\\tUTF8:\\xc3\\xa9\", got %s\"%s\"",
                    found ? "" : "(not found) ", got);
}

static void run_value_1024(pcf_ctx *c)
{
    char key[64], val[1025], got[1100];
    memset(val, 'V', 1024);
    val[1024] = 0;
    snprintf(key, sizeof key, "%s-big-r%d", pcf_tag(c), pcf_rank(c));
    bool found;
    if (pcf_kvs_put(c, key, val) || pcf_kvs_fence(c) ||
        pcf_kvs_get(c, key, &found, got, sizeof got, NULL))
        return;
    if (found && strcmp(got, val) == 0)
        pcf_observe(c, "ok", "a 1024-byte value came back intact");
    else if (found)
        pcf_observe(c, "truncated", "put 1024 bytes, got %zu back with rc=0", strlen(got));
    else
        pcf_observe(c, "lost", "the 1024-byte value is not found");
}

static void run_getid(pcf_ctx *c)
{
    pmc_enc e;
    pmc_msg m;
    char b[300], id[256];
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    if (pcf_call(c, &e, "job-getid-response", &m))
        return;
    long long rc = -1;
    if (pcf_rc(&m, &rc) != 1 || rc != 0 || !pcf_get(&m, "jobid", id, sizeof id) || !id[0]) {
        pcf_observe(c, "no-jobid", "%s", pcf_show(&m, b, sizeof b));
        return;
    }
    /* every rank must see the same id: compare with rank 0's through the KVS */
    char key[64], hex[600], got[600];
    snprintf(key, sizeof key, "%s-jobid", pcf_tag(c));
    if (pcf_rank(c) == 0 && pcf_kvs_put(c, key, (pcf_hex(id, strlen(id), hex, sizeof hex), hex)))
        return;
    if (pcf_kvs_fence(c))
        return;
    bool found;
    if (pcf_rank(c) != 0) {
        pcf_hex(id, strlen(id), hex, sizeof hex);
        if (pcf_kvs_get(c, key, &found, got, sizeof got, NULL))
            return;
        if (!found || strcmp(got, hex) != 0) {
            pcf_observe(c, "differs", "rank %d's jobid %s differs from rank 0's", pcf_rank(c), id);
            return;
        }
    }
    pcf_observe(c, "ok", "jobid=%s", id);
}

/* PMI_process_mapping: "(vector,(node,count,ppn),...)", covering every rank. */
static int check_mapping(const char *v, int size, char *why, size_t n)
{
    const char *p = v;
    if (strncmp(p, "(vector", 7) != 0) {
        snprintf(why, n, "does not start with (vector");
        return -1;
    }
    p += 7;
    long ranks = 0;
    int blocks = 0;
    while (*p == ',') {
        long a, b, cc;
        int used = 0;
        if (sscanf(p, ",(%ld,%ld,%ld)%n", &a, &b, &cc, &used) != 3 || used == 0 || a < 0 ||
            b < 1 || cc < 1) {
            snprintf(why, n, "malformed block at \"%.40s\"", p);
            return -1;
        }
        for (const char *q = p; q < p + used; q++)
            if (*q == ' ') {
                snprintf(why, n, "space inside the value");
                return -1;
            }
        ranks += b * cc;
        blocks++;
        p += used;
    }
    if (strcmp(p, ")") != 0 || blocks == 0) {
        snprintf(why, n, "does not end with ')' after the blocks");
        return -1;
    }
    if (ranks <= 0 || (ranks < size && size % ranks != 0)) {
        snprintf(why, n, "blocks place %ld ranks per pass, job size %d", ranks, size);
        return -1;
    }
    return 0;
}

static void run_mapping(pcf_ctx *c)
{
    pmc_enc e;
    pmc_msg m;
    char b[300], v[1100], why[200];
    pmc_enc_begin(&e, PMC_WIRE_V2, "info-getjobattr");
    pmc_enc_str(&e, "key", "PMI_process_mapping");
    if (pcf_call(c, &e, "info-getjobattr-response", &m))
        return;
    long long rc = -1;
    bool found = false;
    if (pcf_rc(&m, &rc) != 1 || rc != 0 || pmc_msg_get_bool(&m, "found", &found, NULL) != 1 ||
        !found) {
        pcf_observe(c, "absent", "%s", pcf_show(&m, b, sizeof b));
        return;
    }
    pcf_get(&m, "value", v, sizeof v);
    if (!v[0])
        pcf_observe(c, "ok", "empty mapping (allowed when it does not fit)");
    else if (check_mapping(v, pcf_size(c), why, sizeof why) != 0)
        pcf_observe(c, "malformed", "%s: %s", v, why);
    else
        pcf_observe(c, "ok", "%s", v);
}

static void run_jobattr_missing(pcf_ctx *c)
{
    pmc_enc e;
    pmc_msg m;
    char b[300];
    pmc_enc_begin(&e, PMC_WIRE_V2, "info-getjobattr");
    pmc_enc_str(&e, "key", "pcfNoSuchAttribute");
    if (pcf_call(c, &e, "info-getjobattr-response", &m))
        return;
    long long rc = -1;
    bool found = true;
    int hr = pcf_rc(&m, &rc), hf = pmc_msg_get_bool(&m, "found", &found, NULL);
    if (hr == 1 && rc == 0 && hf == 1 && !found)
        pcf_observe(c, "ok", "%s", pcf_show(&m, b, sizeof b));
    else if (hr == 1 && rc == 0 && found)
        pcf_observe(c, "false-hit", "%s", pcf_show(&m, b, sizeof b));
    else
        pcf_observe(c, "rc-nonzero", "%s", pcf_show(&m, b, sizeof b));
}

static void run_empty_value(pcf_ctx *c)
{
    char key[64], got[16];
    snprintf(key, sizeof key, "%s-empty-r%d", pcf_tag(c), pcf_rank(c));
    pmc_msg m;
    bool found;
    if (pcf_kvs_put(c, key, "") || pcf_kvs_fence(c) ||
        pcf_kvs_get(c, key, &found, got, sizeof got, &m))
        return;
    char b[200];
    if (found && !got[0])
        pcf_observe(c, "ok", "%s", pcf_show(&m, b, sizeof b));
    else
        pcf_observe(c, "not-round-trip", "%s", pcf_show(&m, b, sizeof b));
}

static const pcf_case cases[] = {
    { .id = "pmi2/kvs/put", .desc = "kvs-put is answered with rc=0",
      .clause = "KVS-1", .expected = "cmd=kvs-put-response;rc=0;",
      .steps = "Every rank sends kvs-put with a key of its own (<tag>-put-r<rank>) and the value "
               "pcf-value.\n"
               "The answer must be kvs-put-response with rc=0; rc != 0 or no rc is "
               "\"put-refused\".\n"
               "Every rank then sends one kvs-fence, so that all ranks leave the case together (a "
               "fence answered without rc=0 is \"fence-refused\").",
      .flags = PCF_V2, .run = run_put },
    { .id = "pmi2/kvs/fence-visibility",
      .desc = "after kvs-fence every rank sees every other rank's put",
      .clause = "FENCE-2", .expected = "found=TRUE with the exact value for every other rank",
      .steps = "Every rank puts <tag>-vis-r<rank> = v<rank>-<tag> and sends kvs-fence.\n"
               "After its fence answer, each rank sends kvs-get for the key of every other rank "
               "(at most 15 of them, starting with the next rank).\n"
               "Every get must answer rc=0;found=TRUE with exactly that rank's value: found=FALSE "
               "(or rc != 0) is \"not-visible\", another value \"wrong-value\".",
      .flags = PCF_V2, .min_ranks = 2, .run = run_fence_visibility },
    { .id = "pmi2/kvs/not-found-form",
      .desc = "a key nobody put is reported as rc=0;found=FALSE",
      .clause = "KVS-4", .expected = "cmd=kvs-get-response;rc=0;found=FALSE;",
      .steps = "Every rank sends kvs-fence first, so that a server that answers gets lazily "
               "(FENCE-3) need not hold the next get.\n"
               "Each rank sends kvs-get for <tag>-never-put, a key nobody put.\n"
               "rc=0;found=FALSE passes; rc != 0 is \"rc-nonzero\" (KVS-4 asks for rc=0); "
               "found=TRUE, or no found at all, is \"found-wrong\" (KVS-3).",
      .flags = PCF_V2, .run = run_not_found,
      .outcomes = { { "rc-nonzero", PCF_DEVIATES, NULL, "not found reported with rc != 0" },
                    { "found-wrong", PCF_FAIL, "KVS-3", "found=TRUE or no found for a missing key" } } },
    { .id = "pmi2/kvs/own-put-visible",
      .desc = "a rank sees its own put before the fence",
      .clause = "FENCE-6", .expected = "found=TRUE;value=mine before any fence",
      .steps = "Every rank puts <tag>-own-r<rank> = mine and, before any fence, sends kvs-get for "
               "that key.\n"
               "found=TRUE with value mine passes; anything else is \"not-visible\" (FENCE-6 is a "
               "SHOULD: NON-STRICT).\n"
               "Every rank then sends one kvs-fence to leave the case together.",
      .flags = PCF_V2, .run = run_own_put },
    { .id = "pmi2/kvs/value-bytes",
      .desc = "values with '=', space, tab and UTF-8 bytes round-trip",
      .clause = "VAL-1", .expected = "the same bytes back",
      .steps = "Every rank puts <tag>-bytes-r<rank> with a value holding '=', a space, a tab and "
               "the UTF-8 bytes of \u00e9 (\"a=b c\\tUTF8:\\xc3\\xa9\").\n"
               "It fences, then gets its own key back.\n"
               "The same bytes with found=TRUE pass; anything else is \"altered\".",
      .flags = PCF_V2, .run = run_value_bytes },
    { .id = "pmi2/kvs/value-1024",
      .desc = "a 1024-byte value is stored and returned whole",
      .clause = "LIMIT-1", .expected = "the 1024 bytes back, or rc != 0 (never a shortened value)",
      .steps = "Every rank puts <tag>-big-r<rank> with a value of 1024 'V' bytes, fences, and "
               "gets its key back.\n"
               "All 1024 bytes back pass; fewer with rc=0 is \"truncated\" (LIMIT-3: a server may "
               "refuse a value it cannot keep, never shorten it); found=FALSE is \"lost\".",
      .flags = PCF_V2, .run = run_value_1024,
      .outcomes = { { "truncated", PCF_DEVIATES, "LIMIT-3", "stored a shortened value with rc=0" } } },
    { .id = "pmi2/kvs/empty-value",
      .desc = "an empty value is stored and returned as found=TRUE;value=;",
      .clause = "KVS-11", .expected = "cmd=kvs-get-response;rc=0;found=TRUE;value=;",
      .steps = "In a launch of its own (a server may end the job on an empty value), every rank "
               "puts <tag>-empty-r<rank> with an empty value (value=;).\n"
               "It fences, then gets its key back.\n"
               "rc=0;found=TRUE;value=; passes; found=FALSE or a non-empty value is "
               "\"not-round-trip\"; a refused put is \"put-refused\".",
      .flags = PCF_V2 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_empty_value,
      .outcomes = { { "job-killed", PCF_FAIL, "ERR-1", "the job ended" },
                    { "sender-killed", PCF_FAIL, "KVS-11", "the rank was killed" } } },
    { .id = "pmi2/job/getid", .desc = "job-getid gives every rank the same non-empty jobid",
      .clause = "JOB-1", .expected = "rc=0 and the same jobid on every rank",
      .steps = "Every rank sends job-getid: it must answer rc=0 with a non-empty jobid (else "
               "\"no-jobid\").\n"
               "Rank 0 puts its jobid (hex-encoded) in the KVS; every rank fences.\n"
               "The other ranks get rank 0's jobid and compare it with their own: a difference is "
               "\"differs\".",
      .flags = PCF_V2, .run = run_getid },
    { .id = "pmi2/jobattr/process-mapping",
      .desc = "PMI_process_mapping is provided in the (vector,(n,c,p)...) form",
      .clause = "JOBATTR-6", .expected = "found=TRUE and a value matching process-mapping",
      .steps = "Every rank sends info-getjobattr for PMI_process_mapping.\n"
               "found=FALSE or rc != 0 is \"absent\" (JOBATTR-5, a SHOULD: NON-STRICT).\n"
               "The value must be (vector,(node,count,ppn),...) with no space, and its blocks "
               "must place a whole number of passes over the job's ranks (else \"malformed\"); an "
               "empty value passes (allowed when the mapping does not fit).",
      .flags = PCF_V2, .run = run_mapping,
      .outcomes = { { "absent", PCF_DEVIATES, "JOBATTR-5", "no PMI_process_mapping" } } },
    { .id = "pmi2/jobattr/not-found",
      .desc = "an undefined job attribute is reported as rc=0;found=FALSE",
      .clause = "JOBATTR-2", .expected = "cmd=info-getjobattr-response;rc=0;found=FALSE;",
      .steps = "Every rank sends info-getjobattr for pcfNoSuchAttribute, a name nobody defines.\n"
               "rc=0;found=FALSE passes; found=TRUE is \"false-hit\" (JOBATTR-3: FAIL); rc != 0 "
               "is \"rc-nonzero\" (JOBATTR-2 asks for rc=0: NON-STRICT).",
      .flags = PCF_V2, .run = run_jobattr_missing,
      .outcomes = { { "false-hit", PCF_DEVIATES, "JOBATTR-3", "found=TRUE for a name nobody defined" } } },
};
PCF_CASES(cases)
