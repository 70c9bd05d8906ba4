/* robust/v1-...: PMI-1 puts whose pairs are odd: a bare word before key and
 * value, an empty key, value= twice, a NUL in the value, a key or a value
 * above the limits.  The PMI-1 counterparts of robust/bare-key,
 * robust/empty-key, robust/dup-keys, robust/nul-in-value, robust/key-100
 * and robust/value-2000 (issue 21).  The collective ones put, pass the
 * barrier and get their own key back; keys carry the case tag. */
#include "damage.h"

static void begin_put(pmc_enc *e, pcf_ctx *c)
{
    pmc_enc_begin(e, PMC_WIRE_V1, "put");
    pmc_enc_str(e, "kvsname", pcf_kvsname(c));
}

/* "cmd=put kvsname=K pcfbare key=<k> value=bare-ok" */
static void run_bare_word(pcf_ctx *c)
{
    char key[48];
    snprintf(key, sizeof key, "%s-bare-r%d", pcf_tag(c), pcf_rank(c));
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_msg m;
    pmc_slice v;
    begin_put(&e, c);
    pmc_enc_str(&e, "pcfbare", "Z");
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", "bare-ok");
    if (pcfd_encode(c, &e, NULL, &o) == 0) {
        long at = pcfd_find(&o, 4, "=Z ");
        if (at < 0) {
            pcf_observe(c, "harness-error", "no '=Z ' in the encoded line");
        } else {
            pcfd_cut(&o, (size_t)at, 2);
            int f = pcfd_v1_put_barrier_get(c, &o, key, &m, &v);
            if (f == 1 && pmc_slice_eq(v, "bare-ok"))
                pcf_observe(c, "ok", "the bare word was ignored, the pair stored");
            else if (f == 1)
                pcf_observe(c, "altered", "stored %.*s", (int)v.len, v.ptr);
            else if (f == 0)
                pcf_observe(c, "lost", "put answered rc=0 but %s is not found after the "
                                       "barrier (the pairs after the bare word were dropped)", key);
        }
    }
    pmc_out_free(&o);
    pcfd_collective_end(c);
}

/* "cmd=get_maxes =x" */
static void run_empty_key(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_maxes");
    pmc_enc_str(&e, "pcfk", "x");
    if (pcfd_encode(c, &e, NULL, &o) == 0) {
        long at = pcfd_find(&o, 4, "pcfk=");
        if (at < 0) {
            pcf_observe(c, "harness-error", "no pcfk= in the encoded line");
        } else {
            pcfd_cut(&o, (size_t)at, 4);
            if (pcfd_send(c, &o) == 0)
                pcfd_grade(c, "maxes", NULL);
        }
    }
    pmc_out_free(&o);
}

/* "... key=<k> value=first value=second" */
static void run_dup_keys(pcf_ctx *c)
{
    char key[48];
    snprintf(key, sizeof key, "%s-dup-r%d", pcf_tag(c), pcf_rank(c));
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_msg m;
    pmc_slice v;
    begin_put(&e, c);
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", "first");
    pmc_enc_str(&e, "xalue", "second");
    if (pcfd_encode(c, &e, NULL, &o) == 0 && pcfd_patch(c, &o, "xalue=", "v", 1) == 0) {
        int f = pcfd_v1_put_barrier_get(c, &o, key, &m, &v);
        if (f == 1 && pmc_slice_eq(v, "first"))
            pcf_observe(c, "ok", "the first occurrence won");
        else if (f == 1)
            pcf_observe(c, "later-won", "stored %.*s", (int)v.len, v.ptr);
        else if (f == 0)
            pcf_observe(c, "lost", "put answered rc=0 but the key is not found after the barrier");
    }
    pmc_out_free(&o);
    pcfd_collective_end(c);
}

/* "... value=a\x00b" */
static void run_nul_value(pcf_ctx *c)
{
    char key[48];
    snprintf(key, sizeof key, "%s-nul-r%d", pcf_tag(c), pcf_rank(c));
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_msg m;
    pmc_slice v;
    begin_put(&e, c);
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", "aQb");
    if (pcfd_encode(c, &e, NULL, &o) == 0 && pcfd_patch(c, &o, "=aQb\n", "=a\0b\n", 5) == 0) {
        int f = pcfd_v1_put_barrier_get(c, &o, key, &m, &v);
        if (f == 1 && v.len == 3 && memcmp(v.ptr, "a\0b", 3) == 0)
            pcf_observe(c, "ok", "the value with a NUL came back intact");
        else if (f == 1)
            pcf_observe(c, "cut", "put a\\x00b with rc=0, got %zu bytes back (\"%.*s\")", v.len,
                        (int)v.len, v.ptr);
        else if (f == 0)
            pcf_observe(c, "lost", "put answered rc=0 but the key is not found after the barrier");
    }
    pmc_out_free(&o);
    pcfd_collective_end(c);
}

/* A put of a klen-byte key and a vlen-byte value. */
static void run_long(pcf_ctx *c, size_t klen, size_t vlen)
{
    char *key = malloc(klen + 1), *val = malloc(vlen + 1);
    pmc_out o = { 0 };
    if (!key || !val) {
        pcf_observe(c, "harness-error", "out of memory");
        goto out;
    }
    snprintf(key, klen + 1, "%s-r%d-", pcf_tag(c), pcf_rank(c));
    size_t k0 = strlen(key);
    memset(key + k0, 'K', klen > k0 ? klen - k0 : 0);
    key[klen] = 0;
    memset(val, 'V', vlen);
    val[vlen] = 0;
    pmc_enc e;
    pmc_msg m;
    pmc_slice v;
    begin_put(&e, c);
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", val);
    if (pcfd_encode(c, &e, NULL, &o) == 0) {
        int f = pcfd_v1_put_barrier_get(c, &o, key, &m, &v);
        if (f == 1 && v.len == vlen)
            pcf_observe(c, "ok", "%zu-byte key, %zu-byte value stored whole", klen, vlen);
        else if (f == 1)
            pcf_observe(c, "truncated", "put %zu bytes with rc=0, got %zu back", vlen, v.len);
        else if (f == 0)
            pcf_observe(c, "truncated", "put of a %zu-byte key and a %zu-byte value answered rc=0, "
                                        "but the key is not found after the barrier", klen, vlen);
    }
out:
    free(key);
    free(val);
    pmc_out_free(&o);
    pcfd_collective_end(c);
}

static void run_key_100(pcf_ctx *c) { run_long(c, 100, 8); }
static void run_value_2000(pcf_ctx *c) { run_long(c, 40, 2000); }

#define COLLECTIVE_LOST                                                                          \
    { "job-killed", PCF_FAIL, "ERR-1", "the server ended the job" },                             \
    { "closed", PCF_DEVIATES, "ERR-4", "the server closed the connection without an answer" }

static const pcf_case cases[] = {
    { .id = "robust/v1-bare-word-put",
      .desc = "a PMI-1 put with a bare word before key and value (\"put kvsname=K pcfbare key=k value=v\")",
      .clause = "V1-7",
      .expected = "put_result rc=0 and, after the barrier, the value under its key",
      .flags = PCF_V1 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_bare_word,
      .outcomes = { { "put-refused", PCF_DEVIATES, NULL, "rejected the put" },
                    { "lost", PCF_DEVIATES, NULL, "dropped the pairs after the bare word" },
                    COLLECTIVE_LOST } },
    { .id = "robust/v1-empty-key", .desc = "a PMI-1 pair with an empty key (\"cmd=get_maxes =x\")",
      .clause = "KEY-5", .expected = "cmd=maxes rc!=0 ... (or a close)",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_empty_key,
      .outcomes = { PCFD_DELIMITED("KEY-5") } },
    { .id = "robust/v1-dup-keys",
      .desc = "value= given twice (first, then second) in one PMI-1 put",
      .clause = "PAIR-4", .expected = "the put rejected, or the first value stored",
      .flags = PCF_V1 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_dup_keys,
      .outcomes = { { "put-refused", PCF_PASS, NULL, "rejected the duplicate (allowed)" },
                    COLLECTIVE_LOST } },
    { .id = "robust/v1-nul-in-value", .desc = "a PMI-1 put value with a NUL byte (\"value=a\\x00b\")",
      .clause = "VAL-3",
      .expected = "the three bytes back, or the put rejected; never silently \"a\"",
      .flags = PCF_V1 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_nul_value,
      .outcomes = { { "put-refused", PCF_PASS, NULL, "rejected the value (allowed)" },
                    COLLECTIVE_LOST } },
    { .id = "robust/v1-key-100", .desc = "a PMI-1 put with a 100-byte key",
      .clause = "LIMIT-3",
      .expected = "rc!=0, or the whole key found after the barrier (B9: cut to 63)",
      .flags = PCF_V1 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_key_100,
      .outcomes = { { "put-refused", PCF_PASS, NULL, "refused the long key" },
                    COLLECTIVE_LOST } },
    { .id = "robust/v1-value-2000", .desc = "a PMI-1 put with a 2000-byte value",
      .clause = "LIMIT-3",
      .expected = "rc!=0, or 2000 bytes back after the barrier (B9: cut to 1023)",
      .flags = PCF_V1 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_value_2000,
      /* the line is over the 1024 bytes every server takes (LIMIT-8): closing it
       * is ERR-5's answer to a line longer than the server's limit */
      .outcomes = { { "put-refused", PCF_PASS, NULL, "refused the long value" },
                    { "closed", PCF_PASS, "ERR-5",
                      "closed the connection: the line is over LIMIT-8's 1024 bytes" },
                    COLLECTIVE_LOST } },
};
PCF_CASES(cases)
