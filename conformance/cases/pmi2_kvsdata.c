/* pmi2/kvs: put and get beyond the basics: response forms, repeated puts,
 * key and value sizes around the 64/1024 limits (B9), srcid and jobid
 * hints, the reserved PMI_ prefix and the mapping in the KVS. */
#include "pmi2_util.h"

/* put key=value, fence, get it back as rank `reader_off` ranks further on
 * sees it (0: the putter itself).  Every rank fences once. */
static void roundtrip(pcf_ctx *c, const char *key_fmt, const char *val, size_t vlen,
                      const char *what, bool fence)
{
    char key[256];
    snprintf(key, sizeof key, key_fmt, pcf_tag(c), pcf_rank(c));
    pmc_enc e;
    p2r *r = malloc(sizeof *r);
    if (!r) {
        pcf_observe(c, "harness-error", "out of memory");
        return;
    }
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", key);
    pmc_enc_slice(&e, PMC_SLICE_LIT("value"), (pmc_slice){ val, vlen });
    if (p2_call(c, &e, "kvs-put-response", r))
        goto out;
    bool refused = p2_fail(r);
    if (!refused && !p2_ok(r)) {
        pcf_observe(c, "bad-put", "%s", r->show);
        pcf_kvs_fence(c);
        goto out;
    }
    if ((fence && pcf_kvs_fence(c)) || p2_kvs_get(c, key, r))
        goto out;
    if (refused) {
        /* LIMIT-3: refusing is fine, provided nothing was stored */
        if (p2_hit(r))
            pcf_observe(c, "stored-anyway", "put refused, yet the key reads %zu bytes", r->vlen);
        else
            pcf_observe(c, "ok", "%s refused with rc != 0 and not stored", what);
    } else if (p2_value_is(r, val, vlen)) {
        pcf_observe(c, "ok", "%s came back intact", what);
    } else if (p2_hit(r)) {
        pcf_observe(c, "truncated", "%s: put %zu bytes with rc=0, got %zu back", what, vlen,
                    r->vlen);
    } else if (!fence && p2_any_miss(r)) {
        /* without a fence only FENCE-6 (SHOULD) makes the key visible */
        pcf_observe(c, "unverifiable", "%s: put with rc=0, but own puts are not visible before "
                    "a fence: %s", what, r->show);
    } else {
        pcf_observe(c, "lost", "%s: put with rc=0, then not found: %s", what, r->show);
    }
out:
    free(r);
}

static void run_found_form(pcf_ctx *c)
{
    roundtrip(c, "%s-ff-r%d", "pcf", 3, "a short value", true);
}

/* n <= 1024: every rank, with a fence; above: a victim rank alone (a
 * server may close the connection), reading its own put back. */
static void fill_run(pcf_ctx *c, size_t n)
{
    char *v = malloc(n + 1);
    if (!v) {
        pcf_observe(c, "harness-error", "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = (char)('A' + (i * 7 + (size_t)pcf_rank(c)) % 26);
    v[n] = 0;
    char what[64];
    snprintf(what, sizeof what, "a %zu-byte value", n);
    roundtrip(c, "%s-big-r%d", v, n, what, n <= 1024);
    free(v);
}

static void run_value_1023(pcf_ctx *c) { fill_run(c, 1023); }
static void run_value_1025(pcf_ctx *c) { fill_run(c, 1025); }
static void run_value_4000(pcf_ctx *c) { fill_run(c, 4000); }

/* A key of exactly n bytes (the tag, then filler). */
static void long_key(pcf_ctx *c, char *key, size_t n)
{
    int k = snprintf(key, n + 1, "%s-r%d-", pcf_tag(c), pcf_rank(c));
    for (size_t i = (size_t)k; i < n; i++)
        key[i] = (char)('a' + i % 26);
    key[n] = 0;
}

static void key_run(pcf_ctx *c, size_t n, bool check_prefix)
{
    bool fence = !check_prefix; /* the 100-byte case runs on a victim alone */
    char key[160], prefix[160];
    long_key(c, key, n);
    p2r *r = malloc(sizeof *r);
    if (!r) {
        pcf_observe(c, "harness-error", "out of memory");
        return;
    }
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", "long-key-value");
    if (p2_call(c, &e, "kvs-put-response", r))
        goto out;
    bool refused = p2_fail(r);
    if (fence && pcf_kvs_fence(c))
        goto out;
    if (check_prefix) {
        /* LIMIT-3: a shortened key must not have been stored */
        snprintf(prefix, sizeof prefix, "%.63s", key);
        if (p2_kvs_get(c, prefix, r))
            goto out;
        if (p2_hit(r)) {
            pcf_observe(c, "truncated", "the %zu-byte key was stored as its 63-byte prefix", n);
            goto out;
        }
    }
    if (p2_kvs_get(c, key, r))
        goto out;
    if (p2_hit(r) && p2_value_is(r, "long-key-value", 14))
        pcf_observe(c, "ok", "a %zu-byte key round-trips", n);
    else if (refused)
        pcf_observe(c, n > 64 ? "ok" : "refused", "the %zu-byte key was refused with rc != 0", n);
    else if (!fence && p2_any_miss(r))
        pcf_observe(c, "unverifiable", "put with rc=0, but own puts are not visible before a "
                    "fence: %s", r->show);
    else
        pcf_observe(c, "lost", "the %zu-byte key was put with rc=0 but is not found: %s", n,
                    r->show);
out:
    free(r);
}

static void run_key_63(pcf_ctx *c) { key_run(c, 63, false); }
static void run_key_64(pcf_ctx *c) { key_run(c, 64, false); }
static void run_key_100(pcf_ctx *c) { key_run(c, 100, true); }

/* The same key put twice in one epoch: either value (KVS-15). */
static void run_repeat_put(pcf_ctx *c)
{
    char key[64];
    snprintf(key, sizeof key, "%s-dup-r%d", pcf_tag(c), pcf_rank(c));
    p2r r;
    if (pcf_kvs_put(c, key, "first") || pcf_kvs_put(c, key, "second") || pcf_kvs_fence(c) ||
        p2_kvs_get(c, key, &r))
        return;
    if (p2_value_is(&r, "first", 5) || p2_value_is(&r, "second", 6))
        pcf_observe(c, "ok", "the key reads \"%s\"", r.value);
    else
        pcf_observe(c, "neither", "put first then second, got %s", r.show);
}

/* A later epoch's put of the same key replaces the earlier one. */
static void run_overwrite(pcf_ctx *c)
{
    char key[64];
    snprintf(key, sizeof key, "%s-ow-r%d", pcf_tag(c), pcf_rank(c));
    p2r r;
    if (pcf_kvs_put(c, key, "epoch-1") || pcf_kvs_fence(c) || pcf_kvs_put(c, key, "epoch-2") ||
        pcf_kvs_fence(c) || p2_kvs_get(c, key, &r))
        return;
    if (p2_value_is(&r, "epoch-2", 7))
        pcf_observe(c, "ok", "the later put wins");
    else if (p2_value_is(&r, "epoch-1", 7))
        pcf_observe(c, "kept-first", "the first epoch's value stays: %s", r.show);
    else
        pcf_observe(c, "lost", "%s", r.show);
}

/* Many keys per rank, all read back by the next rank. */
static void run_many(pcf_ctx *c)
{
    enum { N = 64 };
    char key[64], val[64];
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof key, "%s-m%d-r%d", pcf_tag(c), i, pcf_rank(c));
        snprintf(val, sizeof val, "%d-%d", pcf_rank(c), i * i);
        if (pcf_kvs_put(c, key, val))
            return;
    }
    if (pcf_kvs_fence(c))
        return;
    int peer = (pcf_rank(c) + 1) % pcf_size(c);
    for (int i = 0; i < N; i++) {
        p2r r;
        snprintf(key, sizeof key, "%s-m%d-r%d", pcf_tag(c), i, peer);
        snprintf(val, sizeof val, "%d-%d", peer, i * i);
        if (p2_kvs_get(c, key, &r))
            return;
        if (!p2_value_is(&r, val, strlen(val))) {
            pcf_observe(c, "lost", "rank %d's key %d of %d: %s", peer, i, N, r.show);
            return;
        }
    }
    pcf_observe(c, "ok", "all %d keys of rank %d read back", N, peer);
}

/* kvs-get with extra keys: srcid (a hint) or jobid. */
static void get_with(pcf_ctx *c, const char *hint_key, long long srcid, const char *jobid,
                     int owner_off)
{
    char key[64], val[64];
    snprintf(key, sizeof key, "%s-h-r%d", pcf_tag(c), pcf_rank(c));
    snprintf(val, sizeof val, "hint-%d", pcf_rank(c));
    if (pcf_kvs_put(c, key, val) || pcf_kvs_fence(c))
        return;
    int owner = (pcf_rank(c) + owner_off) % pcf_size(c);
    snprintf(key, sizeof key, "%s-h-r%d", pcf_tag(c), owner);
    snprintf(val, sizeof val, "hint-%d", owner);
    pmc_enc e;
    p2r r;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    if (jobid)
        pmc_enc_str(&e, "jobid", jobid);
    if (hint_key)
        pmc_enc_int(&e, hint_key, srcid);
    pmc_enc_str(&e, "key", key);
    if (p2_call(c, &e, "kvs-get-response", &r))
        return;
    if (p2_value_is(&r, val, strlen(val)))
        pcf_observe(c, "ok", "%s", r.show);
    else if (p2_fail(&r))
        pcf_observe(c, "refused", "%s", r.show);
    else
        pcf_observe(c, "wrong-value", "%s", r.show);
}

static void run_srcid_right(pcf_ctx *c)
{
    int peer = (pcf_rank(c) + 1) % pcf_size(c);
    get_with(c, "srcid", peer, NULL, 1);
}

static void run_srcid_wrong(pcf_ctx *c)
{
    /* the hint names the asker, the key belongs to the next rank */
    get_with(c, "srcid", pcf_rank(c), NULL, 1);
}

static void run_srcid_negative(pcf_ctx *c) { get_with(c, "srcid", -1, NULL, 1); }

static void run_jobid_own(pcf_ctx *c)
{
    if (!pcf_jobid(c)[0]) {
        pcf_observe(c, "harness-error", "no jobid from start-up");
        pcf_kvs_fence(c);
        return;
    }
    get_with(c, NULL, 0, pcf_jobid(c), 1);
}

static void run_jobid_foreign(pcf_ctx *c)
{
    char bogus[96];
    snprintf(bogus, sizeof bogus, "pcf-no-such-job-%s", pcf_tag(c));
    get_with(c, NULL, 0, bogus, 1);
}

/* PMI_ keys are reserved (KVS-12/13): either answer is fine, a hang is not. */
static void run_reserved(pcf_ctx *c)
{
    char key[64];
    snprintf(key, sizeof key, "PMI_pcf_%s_r%d", pcf_tag(c), pcf_rank(c));
    pmc_enc e;
    p2r r;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", "reserved");
    if (p2_call(c, &e, "kvs-put-response", &r) == 0) {
        if (p2_ok(&r))
            pcf_observe(c, "ok", "accepted: %s", r.show);
        else if (p2_fail(&r))
            pcf_observe(c, "refused", "refused: %s", r.show);
        else
            pcf_observe(c, "no-rc", "%s", r.show);
    }
    pcf_kvs_fence(c);
}

static void run_mapping_in_kvs(pcf_ctx *c)
{
    p2r a, k;
    if (p2_jobattr(c, "PMI_process_mapping", &a) || p2_kvs_get(c, "PMI_process_mapping", &k))
        return;
    if (!p2_hit(&k))
        pcf_observe(c, "absent", "kvs-get of PMI_process_mapping: %s", k.show);
    else if (p2_hit(&a) && strcmp(a.value, k.value) != 0)
        pcf_observe(c, "differs", "info-getjobattr says %s, kvs-get %s", a.value, k.value);
    else
        pcf_observe(c, "ok", "%s", k.value);
}

/* Over-long keys and values may make a server close the connection (the
 * mock's Hydra personas) or end the job: those cases run on a victim rank
 * and read the caller's own put back without a fence. */
#define LIMIT_OUTCOMES                                                                           \
    { "closed", PCF_DEVIATES, "ERR-4", "closed the connection instead of rc != 0" },            \
    { "unverifiable", PCF_INFO, "FENCE-6", "own puts hidden before a fence: nothing to read back" }, \
    { "job-killed", PCF_FAIL, "ERR-1", "the job ended" },                                       \
    { "sender-killed", PCF_FAIL, "ERR-1", "a rank was killed" }

static const pcf_case cases[] = {
    { .id = "pmi2/kvs/get-found-form",
      .desc = "a visible key is answered rc=0;found=TRUE;value=<v>;",
      .clause = "KVS-3", .expected = "cmd=kvs-get-response;rc=0;found=TRUE;value=pcf;",
      .steps = "Every rank puts <tag>-ff-r<rank> = pcf, fences, and gets its own key back.\n"
               "The answer must be rc=0;found=TRUE;value=pcf; a put answered without rc is "
               "\"bad-put\" (KVS-1); a put with rc=0 whose key is then not found is \"lost\".",
      .flags = PCF_V2, .run = run_found_form,
      .outcomes = { { "bad-put", PCF_DEVIATES, "KVS-1", "kvs-put answered without rc" } } },
    { .id = "pmi2/kvs/value-1023",
      .desc = "a 1023-byte value (the size every server keeps) round-trips",
      .clause = "LIMIT-1", .expected = "the 1023 bytes back",
      .steps = "Every rank puts <tag>-big-r<rank> with a 1023-byte value of letters, fences, and "
               "gets its key back.\n"
               "The 1023 bytes back pass; a refusal (rc != 0) with nothing stored is also fine; a "
               "shorter value with rc=0 is \"truncated\"; found=FALSE after rc=0 is \"lost\".",
      .flags = PCF_V2, .run = run_value_1023,
      .outcomes = { { "truncated", PCF_DEVIATES, "LIMIT-3", "shortened with rc=0" } } },
    { .id = "pmi2/kvs/value-1025",
      .desc = "a 1025-byte value is stored whole or refused, never cut",
      .clause = "LIMIT-3", .expected = "the 1025 bytes back, or rc != 0 and nothing stored",
      .steps = "A victim rank (a server may close the connection or end the job) puts "
               "<tag>-big-r<rank> with a 1025-byte value.\n"
               "Without a fence (it runs alone), it gets its own key back.\n"
               "The 1025 bytes back pass, and so does rc != 0 on the put with nothing stored; a "
               "shorter value is \"truncated\"; a put refused whose key still reads is "
               "\"stored-anyway\"; a close is \"closed\" (ERR-4); found=FALSE after rc=0 is "
               "\"unverifiable\" (INFO: the server hides own puts before a fence).",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_value_1025,
      .outcomes = { LIMIT_OUTCOMES } },
    { .id = "pmi2/kvs/value-4000",
      .desc = "a 4000-byte value (a frame under 4096 bytes) is stored whole or refused",
      .clause = "LIMIT-3", .expected = "the 4000 bytes back, or rc != 0 and nothing stored",
      .steps = "A victim rank (a server may close the connection or end the job) puts "
               "<tag>-big-r<rank> with a 4000-byte value (the frame stays under 4096 bytes).\n"
               "Without a fence (it runs alone), it gets its own key back.\n"
               "The 4000 bytes back pass, and so does rc != 0 on the put with nothing stored; a "
               "shorter value is \"truncated\"; a close is \"closed\" (ERR-4); found=FALSE after "
               "rc=0 is \"unverifiable\" (INFO).",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_value_4000,
      .outcomes = { LIMIT_OUTCOMES } },
    { .id = "pmi2/kvs/key-63", .desc = "a 63-byte key round-trips",
      .clause = "LIMIT-1", .expected = "found=TRUE with the value under the full key",
      .steps = "Every rank puts a key of exactly 63 bytes (<tag>-r<rank>- then letters) with the "
               "value long-key-value.\n"
               "It fences and gets the full key back.\n"
               "The value back passes; rc != 0 on the put is \"refused\" (within the limit: a "
               "deviation); found=FALSE after rc=0 is \"lost\".",
      .flags = PCF_V2, .run = run_key_63,
      .outcomes = { { "refused", PCF_DEVIATES, NULL, "refused a key within the limit" } } },
    { .id = "pmi2/kvs/key-64", .desc = "a 64-byte key (the SPEC limit) round-trips",
      .clause = "LIMIT-1", .expected = "found=TRUE with the value under the full 64-byte key",
      .steps = "Every rank puts a key of exactly 64 bytes (the LIMIT-1 size) with the value "
               "long-key-value.\n"
               "It fences and gets the full key back.\n"
               "The value back passes; rc != 0 on the put is \"refused\"; found=FALSE after rc=0 "
               "is \"lost\" (B9: Hydra 4.0 keeps 63 bytes of the key).",
      .flags = PCF_V2, .run = run_key_64,
      .outcomes = { { "refused", PCF_DEVIATES, NULL, "refused a key within the limit" },
                    { "lost", PCF_DEVIATES, NULL, "stored under another key (B9: cut to 63)" } } },
    { .id = "pmi2/kvs/key-100",
      .desc = "a 100-byte key is stored whole or refused, never stored as a prefix",
      .clause = "LIMIT-3", .expected = "the full key finds the value, or rc != 0; the 63-byte prefix finds nothing",
      .steps = "A victim rank (a server may close the connection or end the job) puts a 100-byte "
               "key with the value long-key-value.\n"
               "It gets the key's first 63 bytes: a hit is \"truncated\" (the key was stored "
               "shortened, LIMIT-3).\n"
               "It gets the full key: the value back passes, and so does a put refused with rc != "
               "0; found=FALSE after rc=0 is \"unverifiable\" (INFO, no fence); a close is "
               "\"closed\" (ERR-4).",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_key_100,
      .outcomes = { LIMIT_OUTCOMES } },
    { .id = "pmi2/kvs/repeat-put",
      .desc = "a key put twice in one fence epoch reads as one of the two values",
      .clause = "KVS-15", .expected = "found=TRUE with \"first\" or \"second\"",
      .steps = "Every rank puts <tag>-dup-r<rank> = first, then the same key = second, in one "
               "fence epoch.\n"
               "It fences and gets the key.\n"
               "Either value passes (KVS-15 lets the server keep either); anything else is "
               "\"neither\" (KVS-1: FAIL).",
      .flags = PCF_V2, .run = run_repeat_put,
      .outcomes = { { "neither", PCF_FAIL, "KVS-1", "neither stored value came back" } } },
    { .id = "pmi2/kvs/overwrite",
      .desc = "a put in a later fence epoch replaces the key's value",
      .clause = "KVS-1", .expected = "after put/fence/put/fence the second value",
      .steps = "Every rank puts <tag>-ow-r<rank> = epoch-1 and fences, then puts the same key = "
               "epoch-2 and fences again.\n"
               "It gets the key: epoch-2 passes; epoch-1 is \"kept-first\"; anything else "
               "\"lost\".",
      .flags = PCF_V2, .run = run_overwrite,
      .outcomes = { { "kept-first", PCF_DEVIATES, NULL, "the earlier epoch's value stayed" } } },
    { .id = "pmi2/kvs/many-keys",
      .desc = "64 keys per rank are all visible to the next rank after the fence",
      .clause = "FENCE-2", .expected = "every key of the neighbour with its value",
      .steps = "Every rank puts 64 keys (<tag>-m<i>-r<rank> = <rank>-<i*i>), then fences.\n"
               "Each rank gets all 64 keys of the next rank (rank + 1, wrapping).\n"
               "Every value must come back exactly; the first one that does not is \"lost\".",
      .flags = PCF_V2, .run = run_many },
    { .id = "pmi2/kvs/srcid-hint",
      .desc = "kvs-get with srcid naming the key's owner returns the value",
      .clause = "KVS-10", .expected = "found=TRUE with the owner's value",
      .steps = "Every rank puts <tag>-h-r<rank> = hint-<rank> and fences.\n"
               "Each rank sends kvs-get for the next rank's key with srcid=<that rank>, the key's "
               "owner.\n"
               "The owner's value passes; rc != 0 is \"refused\", another value \"wrong-value\".",
      .flags = PCF_V2, .run = run_srcid_right },
    { .id = "pmi2/kvs/srcid-wrong",
      .desc = "kvs-get with srcid naming another rank still returns the correct value",
      .clause = "KVS-10", .expected = "found=TRUE with the owner's value",
      .steps = "Every rank puts <tag>-h-r<rank> = hint-<rank> and fences.\n"
               "Each rank sends kvs-get for the next rank's key with srcid set to its own rank: a "
               "hint that names the wrong owner.\n"
               "The owner's value passes (srcid is a hint, KVS-10); rc != 0 is \"refused\", "
               "another value \"wrong-value\".",
      .flags = PCF_V2, .min_ranks = 2, .run = run_srcid_wrong },
    { .id = "pmi2/kvs/srcid-negative", .desc = "kvs-get with srcid=-1 is read as no hint",
      .clause = "KVS-10", .expected = "found=TRUE with the owner's value",
      .steps = "Every rank puts <tag>-h-r<rank> = hint-<rank> and fences.\n"
               "Each rank sends kvs-get for the next rank's key with srcid=-1 (no hint).\n"
               "The owner's value passes; rc != 0 is \"refused\", another value \"wrong-value\".",
      .flags = PCF_V2, .run = run_srcid_negative },
    { .id = "pmi2/kvs/jobid-own", .desc = "kvs-get with jobid = the caller's job reads its KVS",
      .clause = "KVS-8", .expected = "found=TRUE with the value",
      .steps = "Every rank puts <tag>-h-r<rank> = hint-<rank> and fences.\n"
               "Each rank sends kvs-get for the next rank's key with jobid set to its own job's "
               "id (from job-getid at start-up).\n"
               "The value passes; rc != 0 is \"refused\", another value \"wrong-value\".",
      .flags = PCF_V2, .run = run_jobid_own },
    { .id = "pmi2/kvs/jobid-foreign",
      .desc = "kvs-get naming a job that does not exist is refused",
      .clause = "KVS-9", .expected = "cmd=kvs-get-response;rc!=0;...",
      .steps = "Every rank puts <tag>-h-r<rank> = hint-<rank> and fences.\n"
               "Each rank sends kvs-get for the next rank's key with jobid=pcf-no-such-job-<tag>, "
               "a job that does not exist.\n"
               "rc != 0 (\"refused\") passes; the value of the caller's own job (\"ok\": jobid "
               "ignored) is a deviation, as is another value.",
      .flags = PCF_V2, .run = run_jobid_foreign,
      .outcomes = { { "refused", PCF_PASS, NULL, "refused the unknown job" },
                    { "ok", PCF_DEVIATES, NULL, "ignored jobid and read the caller's own KVS" } } },
    { .id = "pmi2/kvs/reserved-prefix",
      .desc = "a put of a PMI_ key is answered (stored or refused, KVS-13)",
      .clause = "KVS-13", .expected = "cmd=kvs-put-response with rc=0 or rc != 0",
      .steps = "Every rank sends kvs-put of PMI_pcf_<tag>_r<rank> = reserved, a key with the "
               "reserved PMI_ prefix.\n"
               "rc=0 (stored) and rc != 0 (refused) both pass; an answer without rc is \"no-rc\" "
               "(RC-1: FAIL).\n"
               "Every rank then sends one kvs-fence to leave the case together.",
      .flags = PCF_V2, .run = run_reserved,
      .outcomes = { { "refused", PCF_PASS, NULL, "refused the reserved prefix (allowed)" },
                    { "no-rc", PCF_FAIL, "RC-1", "a response without rc" } } },
    { .id = "pmi2/kvs/process-mapping",
      .desc = "PMI_process_mapping is readable with kvs-get, as from info-getjobattr",
      .clause = "KVS-14", .expected = "found=TRUE with the value info-getjobattr gives",
      .steps = "Each rank reads PMI_process_mapping twice: with info-getjobattr and with kvs-get.\n"
               "kvs-get must find it (else \"absent\"); when both find it, the two values must be "
               "the same (else \"differs\", graded by JOBATTR-6).",
      .flags = PCF_V2, .run = run_mapping_in_kvs,
      .outcomes = { { "differs", PCF_FAIL, "JOBATTR-6", "the two readings differ" } } },
};
PCF_CASES(cases)
