/* pmi1/...: the PMI-1 basics on a connection initialised as 1.1 (run with
 * --pmi 1, or --launch which makes a PMI-1 launch of its own). */
#include "pcf.h"

#include <stdio.h>
#include <string.h>

static void run_init(pcf_ctx *c)
{
    const pcf_handshake *h = pcf_hs(c);
    pmc_msg m;
    pmc_error err;
    char b[300];
    if (!h->init_raw) {
        pcf_observe(c, "no-answer", "no response_to_init: %s", h->error);
        return;
    }
    if (pcf_decode(c, h->init_raw, h->init_len, &m, &err) != 0) {
        pcf_observe(c, "bad-response", "response_to_init does not decode");
        return;
    }
    long long rc = -1, v = -1, s = -1;
    int hr = pcf_rc(&m, &rc);
    pmc_msg_get_int(&m, "pmi_version", &v);
    pmc_msg_get_int(&m, "pmi_subversion", &s);
    if (hr != 1)
        pcf_observe(c, "keys-missing", "no rc: %s", pcf_show(&m, b, sizeof b));
    else if (rc != 0 || v != 1 || (s != 1 && s != 2))
        pcf_observe(c, "wrong-version", "asked for 1.1: %s", pcf_show(&m, b, sizeof b));
    else
        pcf_observe(c, "ok", "%s", pcf_show(&m, b, sizeof b));
}

static void run_maxes(pcf_ctx *c)
{
    const pcf_handshake *h = pcf_hs(c);
    pmc_msg m;
    pmc_error err;
    char b[300];
    if (pcf_decode(c, h->maxes_raw, h->maxes_len, &m, &err) != 0) {
        pcf_observe(c, "no-answer", "no maxes line at start-up");
        return;
    }
    static const char *const keys[] = { "kvsname_max", "keylen_max", "vallen_max" };
    for (size_t i = 0; i < 3; i++) {
        long long x;
        if (pmc_msg_get_int(&m, keys[i], &x) != 1 || x <= 0) {
            pcf_observe(c, "keys-missing", "%s missing or not positive: %s", keys[i],
                        pcf_show(&m, b, sizeof b));
            return;
        }
    }
    pcf_observe(c, "ok", "%s", pcf_show(&m, b, sizeof b));
}

static void run_maxes_rc(pcf_ctx *c)
{
    const pcf_handshake *h = pcf_hs(c);
    pmc_msg m;
    pmc_error err;
    char b[300];
    long long rc;
    if (pcf_decode(c, h->maxes_raw, h->maxes_len, &m, &err) != 0)
        pcf_observe(c, "no-answer", "no maxes line at start-up");
    else if (pcf_rc(&m, &rc) != 1)
        pcf_observe(c, "no-rc", "%s", pcf_show(&m, b, sizeof b));
    else
        pcf_observe(c, "ok", "%s", pcf_show(&m, b, sizeof b));
}

static void run_appnum(pcf_ctx *c)
{
    pmc_enc e;
    pmc_msg m;
    char b[300];
    long long a;
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_appnum");
    if (pcf_call(c, &e, "appnum", &m))
        return;
    if (pmc_msg_get_int(&m, "appnum", &a) != 1 || a < -1)
        pcf_observe(c, "bad-value", "%s", pcf_show(&m, b, sizeof b));
    else if (pcf_rank(c) == 0 && a != 0 && a != -1)
        /* rank 0 belongs to the first executable of any launch command */
        pcf_observe(c, "wrong-appnum", "rank 0 got appnum=%lld, not 0 (or -1)", a);
    else
        pcf_observe(c, "ok", "appnum=%lld", a);
}

static void run_universe(pcf_ctx *c)
{
    pmc_enc e;
    pmc_msg m;
    char b[300];
    long long s;
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_universe_size");
    if (pcf_call(c, &e, "universe_size", &m))
        return;
    if (pmc_msg_get_int(&m, "size", &s) != 1 || s < -1 || s == 0)
        pcf_observe(c, "bad-value", "%s", pcf_show(&m, b, sizeof b));
    else
        pcf_observe(c, "ok", "size=%lld", s);
}

static void run_kvsname_same(pcf_ctx *c)
{
    char key[64], hex[600], got[600];
    snprintf(key, sizeof key, "%s-kvsname", pcf_tag(c));
    pcf_hex(pcf_kvsname(c), strlen(pcf_kvsname(c)), hex, sizeof hex);
    if (pcf_rank(c) == 0 && pcf_kvs_put(c, key, hex))
        return;
    if (pcf_kvs_fence(c))
        return;
    bool found;
    if (pcf_rank(c) != 0) {
        if (pcf_kvs_get(c, key, &found, got, sizeof got, NULL))
            return;
        if (!found || strcmp(got, hex) != 0) {
            pcf_observe(c, "differs", "rank %d has kvsname %s, unlike rank 0", pcf_rank(c),
                        pcf_kvsname(c));
            return;
        }
    }
    pcf_observe(c, "ok", "kvsname=%s", pcf_kvsname(c));
}

/* get_my_kvsname asked twice more: the name the session started with each time. */
static void run_kvsname_stable(pcf_ctx *c)
{
    for (int i = 0; i < 2; i++) {
        pmc_enc e;
        pmc_msg m;
        char b[300], got[300];
        pmc_enc_begin(&e, PMC_WIRE_V1, "get_my_kvsname");
        if (pcf_call(c, &e, "my_kvsname", &m))
            return;
        if (!pcf_get(&m, "kvsname", got, sizeof got) || strcmp(got, pcf_kvsname(c)) != 0) {
            pcf_observe(c, "changed", "first %s, now: %s", pcf_kvsname(c),
                        pcf_show(&m, b, sizeof b));
            return;
        }
    }
    pcf_observe(c, "ok", "kvsname=%s at every call", pcf_kvsname(c));
}

static void run_barrier_visibility(pcf_ctx *c)
{
    char key[64], val[64], got[128];
    snprintf(key, sizeof key, "%s-v1vis-r%d", pcf_tag(c), pcf_rank(c));
    snprintf(val, sizeof val, "v%d-%s", pcf_rank(c), pcf_tag(c));
    if (pcf_kvs_put(c, key, val) || pcf_kvs_fence(c))
        return;
    int n = pcf_size(c) < 16 ? pcf_size(c) : 16;
    for (int k = 1; k < n; k++) {
        int r = (pcf_rank(c) + k) % pcf_size(c);
        bool found;
        snprintf(key, sizeof key, "%s-v1vis-r%d", pcf_tag(c), r);
        snprintf(val, sizeof val, "v%d-%s", r, pcf_tag(c));
        if (pcf_kvs_get(c, key, &found, got, sizeof got, NULL))
            return;
        if (!found || strcmp(got, val) != 0) {
            pcf_observe(c, "not-visible", "rank %d's key %s: %s", r, key,
                        found ? got : "not found after the barrier");
            return;
        }
    }
    pcf_observe(c, "ok", "saw the keys of %d other ranks", n - 1);
}

/* V1CMD-9, V1CMD-15: two puts before a barrier are both kept; a key put
 * again before the next barrier has its new value after it (or, when the
 * second put was refused, its old one).  Read by the next rank. */
/* Get key `what` of rank o; 1 when it holds `want`, 0 after observing. */
static int neighbour_has(pcf_ctx *c, const char *what, int o, const char *want,
                         const char *outcome, const char *why)
{
    char key[64], got[64], b[300];
    pmc_msg m;
    bool found;
    snprintf(key, sizeof key, "%s-%s-r%d", pcf_tag(c), what, o);
    if (pcf_kvs_get(c, key, &found, got, sizeof got, &m))
        return 0;
    if (found && strcmp(got, want) == 0)
        return 1;
    pcf_observe(c, outcome, "%s; %s after it: %s", why, key, pcf_show(&m, b, sizeof b));
    return 0;
}

static void run_put_again(pcf_ctx *c)
{
    char k1[64], k2[64], why[300];
    int n = pcf_size(c), r = pcf_rank(c), o = (r + 1) % n;
    snprintf(k1, sizeof k1, "%s-again-r%d", pcf_tag(c), r);
    snprintf(k2, sizeof k2, "%s-other-r%d", pcf_tag(c), r);
    if (pcf_kvs_put(c, k1, "first") || pcf_kvs_put(c, k2, "other") || pcf_kvs_fence(c))
        return;
    snprintf(why, sizeof why, "rank %d put two keys before the barrier", o);
    bool both = neighbour_has(c, "again", o, "first", "lost", why) &&
                neighbour_has(c, "other", o, "other", "lost", why);
    /* every rank has read before any puts again (else a fast neighbour's
     * second value is read as the first round's), whatever it found */
    if (pcf_kvs_fence(c) || !both)
        return;
    pmc_enc e;
    pmc_msg m;
    long long rc = -1;
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    pmc_enc_str(&e, "kvsname", pcf_kvsname(c));
    pmc_enc_str(&e, "key", k1);
    pmc_enc_str(&e, "value", "second");
    if (pcf_call(c, &e, "put_result", &m))
        return;
    bool replaced = pcf_rc(&m, &rc) == 1 && rc == 0;
    char put2[200];
    pcf_show(&m, put2, sizeof put2);
    if (pcf_kvs_fence(c))
        return;
    snprintf(why, sizeof why, "rank %d put its key again before the next barrier: %s", o, put2);
    if (neighbour_has(c, "again", o, replaced ? "second" : "first",
                      replaced ? "old-value" : "refused-but-stored", why))
        pcf_observe(c, "ok", "both keys after the first barrier; the second put (%s) left the %s "
                             "value", put2, replaced ? "new" : "old");
}

static void run_get_missing(pcf_ctx *c, bool check_sign)
{
    char key[64], got[64], b[300];
    snprintf(key, sizeof key, "%s-v1-never", pcf_tag(c));
    pmc_msg m;
    bool found;
    if (pcf_kvs_fence(c) || pcf_kvs_get(c, key, &found, got, sizeof got, &m))
        return;
    long long rc = 0;
    int h = pcf_rc(&m, &rc);
    if (h != 1 || rc == 0)
        pcf_observe(c, "rc-zero", "%s", pcf_show(&m, b, sizeof b));
    else if (check_sign && rc < 0)
        pcf_observe(c, "negative-rc", "%s", pcf_show(&m, b, sizeof b));
    else
        pcf_observe(c, "ok", "%s", pcf_show(&m, b, sizeof b));
}

static void run_get_missing_rc(pcf_ctx *c)
{
    run_get_missing(c, false);
}

static void run_get_missing_sign(pcf_ctx *c)
{
    run_get_missing(c, true);
}

static void run_own_put(pcf_ctx *c)
{
    char key[64], got[64];
    snprintf(key, sizeof key, "%s-v1own-r%d", pcf_tag(c), pcf_rank(c));
    bool found = false;
    if (pcf_kvs_put(c, key, "mine") == 0 && pcf_kvs_get(c, key, &found, got, sizeof got, NULL) == 0) {
        if (found && strcmp(got, "mine") == 0)
            pcf_observe(c, "ok", "own key visible before the barrier");
        else
            pcf_observe(c, "not-visible", "own key not visible before the barrier");
    }
    pcf_kvs_fence(c);
}

static const pcf_case cases[] = {
    { .id = "pmi1/init/response", .desc = "init 1.1 is answered rc=0 pmi_version=1, subversion 1 or 2",
      .clause = "INIT-7", .expected = "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1|2",
      .flags = PCF_V1 | PCF_LOCAL, .run = run_init,
      .outcomes = { { "keys-missing", PCF_DEVIATES, "INIT-5", "rc or a version missing" } } },
    { .id = "pmi1/maxes/values", .desc = "get_maxes gives kvsname_max, keylen_max, vallen_max",
      .clause = "V1CMD-5", .expected = "three positive integers",
      .flags = PCF_V1 | PCF_LOCAL, .run = run_maxes },
    { .id = "pmi1/maxes/rc", .desc = "the maxes line carries rc",
      .clause = "RC-2", .expected = "cmd=maxes rc=0 ...",
      .flags = PCF_V1 | PCF_LOCAL, .run = run_maxes_rc },
    { .id = "pmi1/appnum/value",
      .desc = "get_appnum answers an integer appnum, 0 (or -1) on rank 0",
      .clause = "V1CMD-6", .expected = "cmd=appnum appnum=<int >= -1>, 0 or -1 on rank 0",
      .flags = PCF_V1, .run = run_appnum },
    { .id = "pmi1/universe/value", .desc = "get_universe_size answers a size",
      .clause = "V1CMD-8", .expected = "cmd=universe_size size=<positive or -1>",
      .flags = PCF_V1, .run = run_universe },
    { .id = "pmi1/kvs/kvsname-shared", .desc = "every rank gets the same kvsname",
      .clause = "V1CMD-7", .expected = "the same kvsname on every rank",
      .flags = PCF_V1, .run = run_kvsname_same },
    { .id = "pmi1/kvs/kvsname-stable", .desc = "get_my_kvsname gives the same name at every call",
      .clause = "V1CMD-7", .expected = "cmd=my_kvsname kvsname=<the name of the first call>",
      .flags = PCF_V1, .run = run_kvsname_stable },
    { .id = "pmi1/kvs/barrier-visibility",
      .desc = "after the barrier every rank sees every other rank's put",
      .clause = "V1CMD-15", .expected = "get_result rc=0 with the exact value",
      .flags = PCF_V1, .min_ranks = 2, .run = run_barrier_visibility },
    { .id = "pmi1/kvs/put-again",
      .desc = "two puts before a barrier are both kept; a key put again has its new value "
              "after the next barrier",
      .clause = "V1CMD-15", .expected = "both keys, then the second value (the first when the "
                                        "second put was refused)",
      .flags = PCF_V1, .min_ranks = 2, .run = run_put_again,
      .outcomes = { { "lost", PCF_DEVIATES, "V1CMD-9", "a put answered rc=0 was not stored" },
                    { "refused-but-stored", PCF_DEVIATES, "V1CMD-9",
                      "a put answered rc!=0 changed the value" } } },
    { .id = "pmi1/kvs/get-not-found", .desc = "a get of a key nobody put answers rc != 0",
      .clause = "V1CMD-13", .expected = "cmd=get_result rc=<non-zero>",
      .flags = PCF_V1, .run = run_get_missing_rc },
    { .id = "pmi1/kvs/get-not-found-rc-sign", .desc = "the not-found rc is non-negative",
      .clause = "RC-5", .expected = "cmd=get_result rc=<positive>",
      .flags = PCF_V1, .run = run_get_missing_sign,
      .outcomes = { { "rc-zero", PCF_DEVIATES, "V1CMD-13", "rc=0 for a missing key" } } },
    { .id = "pmi1/kvs/own-put-visible", .desc = "a rank sees its own put before the barrier",
      .clause = "V1CMD-27", .expected = "get_result rc=0 value=mine before the barrier",
      .flags = PCF_V1, .run = run_own_put },
};
PCF_CASES(cases)
