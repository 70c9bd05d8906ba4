/* pmi2/escape: value bytes through the KVS.  ';' goes out as ";;" (the
 * harness's strict dialect escapes, ESC-1) and must come back decoded
 * (ESC-2/ESC-3, graded NON-STRICT: no deployed server does it, M10, S13);
 * every other byte is opaque (VAL-1, ESC-5).  NUL is not tested: the codec
 * refuses to send it (VAL-2).  Each value is put by one rank and read by
 * the next. */
#include "pmi2_util.h"

static void via_peer(pcf_ctx *c, const char *val, size_t vlen, const char *label)
{
    char key[64];
    snprintf(key, sizeof key, "%s-esc-r%d", pcf_tag(c), pcf_rank(c));
    pmc_enc e;
    p2r r;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", key);
    pmc_enc_slice(&e, PMC_SLICE_LIT("value"), (pmc_slice){ val, vlen });
    if (p2_call(c, &e, "kvs-put-response", &r))
        return;
    bool refused = p2_fail(&r);
    if (pcf_kvs_fence(c))
        return;
    int peer = (pcf_rank(c) + 1) % pcf_size(c);
    snprintf(key, sizeof key, "%s-esc-r%d", pcf_tag(c), peer);
    if (p2_kvs_get(c, key, &r))
        return;
    char hex[200];
    pcf_hex(r.value, r.vlen < 90 ? r.vlen : 90, hex, sizeof hex);
    if (p2_value_is(&r, val, vlen))
        pcf_observe(c, "ok", "%s came back intact", label);
    else if (refused && !p2_hit(&r))
        pcf_observe(c, "refused", "%s: the put was refused (rc != 0)", label);
    else if (p2_hit(&r) && r.vlen < vlen && memcmp(r.value, val, r.vlen) == 0)
        pcf_observe(c, "cut", "%s came back cut to %zu of %zu bytes (hex %s)", label, r.vlen,
                    vlen, hex);
    else if (p2_hit(&r))
        pcf_observe(c, "altered", "%s came back as %zu bytes (hex %s)", label, r.vlen, hex);
    else
        pcf_observe(c, "lost", "%s: %s", label, r.show);
}

#define V(s) s, sizeof(s) - 1
static void run_semi(pcf_ctx *c) { via_peer(c, V("a;b"), "a;b"); }
static void run_semi_only(pcf_ctx *c) { via_peer(c, V(";"), "a lone ';'"); }
static void run_semi_run(pcf_ctx *c) { via_peer(c, V("x;;y;"), "x;;y; (two and a trailing ';')"); }
static void run_equals(pcf_ctx *c) { via_peer(c, V("=k=v="), "=k=v="); }
static void run_newline(pcf_ctx *c) { via_peer(c, V("line1\nline2\n"), "a value with LF"); }
static void run_spaces(pcf_ctx *c) { via_peer(c, V("  lead and trail  "), "leading and trailing spaces"); }
static void run_utf8(pcf_ctx *c) { via_peer(c, V("\xcf\x80\xe2\x89\x88" "3.14 \xe2\x9c\x93 \xe6\x97\xa5\xe6\x9c\xac"), "UTF-8 text"); }
static void run_high(pcf_ctx *c) { via_peer(c, V("\xff\xfe\x80\x01\x7f not UTF-8"), "bytes that are not UTF-8"); }
static void run_backslash(pcf_ctx *c) { via_peer(c, V("a\\b\\ c\\;d\\"), "backslashes (and one ';')"); }
static void run_backslash_plain(pcf_ctx *c) { via_peer(c, V("a\\b\\ c\\\\"), "backslashes"); }
static void run_frame_like(pcf_ctx *c) { via_peer(c, V("    14cmd=abort"), "text that looks like a frame"); }

static const pcf_case cases[] = {
    { .id = "pmi2/escape/semicolon",
      .desc = "a value with ';', sent as \";;\", comes back as the same value",
      .clause = "ESC-2", .expected = "the peer reads a;b",
      .flags = PCF_V2, .run = run_semi },
    /* destructive: a server that does not decode ";;" reads an empty value
     * here, and Hydra 4.1+ ends the job on empty values (H1) */
    { .id = "pmi2/escape/semicolon-only", .desc = "the value \";\" (sent \";;;\") round-trips",
      .clause = "ESC-2", .expected = "the peer reads ;",
      .flags = PCF_V2 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_semi_only },
    { .id = "pmi2/escape/semicolon-run",
      .desc = "the value \"x;;y;\" (sent \"x;;;;y;;;\") round-trips",
      .clause = "ESC-3", .expected = "the peer reads x;;y;",
      .flags = PCF_V2, .run = run_semi_run,
      .outcomes = { { "cut", PCF_DEVIATES, "ESC-2", "cut at the first ';' (no decoding)" },
                    { "altered", PCF_DEVIATES, "ESC-2", "decoded but not escaped back, or garbled" },
                    { "lost", PCF_DEVIATES, "ESC-2", "the value did not survive" } } },
    { .id = "pmi2/escape/equals", .desc = "'=' anywhere in a value is part of the value",
      .clause = "BODY-7", .expected = "the peer reads =k=v=",
      .flags = PCF_V2, .run = run_equals },
    { .id = "pmi2/escape/newline", .desc = "LF bytes in a value round-trip",
      .clause = "VAL-1", .expected = "the peer reads line1\\nline2\\n",
      .flags = PCF_V2, .run = run_newline },
    { .id = "pmi2/escape/spaces", .desc = "leading and trailing spaces in a value are kept",
      .clause = "VAL-1", .expected = "the same bytes back",
      .flags = PCF_V2, .run = run_spaces },
    { .id = "pmi2/escape/utf8", .desc = "multi-byte UTF-8 in a value round-trips",
      .clause = "VAL-1", .expected = "the same bytes back",
      .flags = PCF_V2, .run = run_utf8 },
    { .id = "pmi2/escape/not-utf8", .desc = "bytes 0x80-0xff that are not UTF-8 round-trip unchecked",
      .clause = "VAL-1", .expected = "the same bytes back",
      .flags = PCF_V2, .run = run_high },
    { .id = "pmi2/escape/backslash",
      .desc = "backslashes have no meaning in a PMI-2 value",
      .clause = "ESC-5", .expected = "a\\b\\ c\\\\ back unchanged",
      .flags = PCF_V2, .run = run_backslash_plain },
    { .id = "pmi2/escape/backslash-semicolon",
      .desc = "a backslash before ';' does not escape it: \";;\" still decodes",
      .clause = "ESC-2", .expected = "a\\b\\ c\\;d\\ back unchanged",
      .flags = PCF_V2, .run = run_backslash },
    { .id = "pmi2/escape/frame-text",
      .desc = "a value that looks like a frame (\"    14cmd=abort\") is data",
      .clause = "VAL-1", .expected = "the same bytes back and the job goes on",
      .flags = PCF_V2, .run = run_frame_like },
};
PCF_CASES(cases)
