/* Client cases: the handshake, framing, keys and limits of every request a
 * client sends in the reference run (the run's persona, 2 ranks, the
 * driver's "all" script or whatever the program does). */
#include "client.h"

#include <string.h>
#include <sys/wait.h>

static const pcf_crun *ref(pcf_ctx *c)
{
    return pcf_client_run(c, &(pcf_cspec){ 0 });
}

/* The first request of `r` (per rank) failing pred, observed as `outcome`;
 * "ok" with `okmsg` when none does.  pred returns true when the request is fine. */
static void grade_all(pcf_ctx *c, const pcf_crun *r, bool (*pred)(const pcf_creq *),
                      const char *outcome, const char *what, const char *okmsg)
{
    char b[300];
    for (size_t i = 0; i < r->nreq; i++)
        if (!pred(&r->req[i])) {
            pcf_observe(c, outcome, "rank %d: %s: %s", r->req[i].rank, what,
                        pcf_cshow(r->req[i].raw, r->req[i].len, b, sizeof b));
            return;
        }
    pcf_observe(c, "ok", "%s (%zu requests)", okmsg, r->nreq);
}

/* ---------------------------------------------------------------- handshake */

static void run_init_first(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    if (!r)
        return;
    char b[200];
    for (int k = 0; k < r->np; k++) {
        const pcf_creq *q = NULL;
        for (size_t i = 0; i < r->nreq && !q; i++)
            if (r->req[i].rank == k)
                q = &r->req[i];
        if (!q) {
            pcf_observe(c, "silent", "rank %d sent nothing (%s)", k,
                        pcf_cstatus(r, k, b, sizeof b));
            return;
        }
        if (q->wire != PMC_WIRE_V1 || strcmp(q->name, "init") != 0) {
            pcf_observe(c, "not-first", "rank %d began with %s", k,
                        pcf_cshow(q->raw, q->len, b, sizeof b));
            return;
        }
    }
    pcf_observe(c, "ok", "every rank began with cmd=init");
}

static void run_init_exact(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    if (!r)
        return;
    const pcf_creq *q = pcf_creq_find(r, -1, "init", 1);
    if (!q) {
        pcf_observe(c, "no-init", "no init line");
        return;
    }
    pmc_msg m;
    long long v = -1, sv = -1;
    char b[200];
    if (pcf_creq_msg(c, q, &m) != 0 || pmc_msg_get_int(&m, "pmi_version", &v) != 1 ||
        pmc_msg_get_int(&m, "pmi_subversion", &sv) != 1) {
        pcf_observe(c, "inexact", "%s", pcf_cshow(q->raw, q->len, b, sizeof b));
        return;
    }
    /* the canonical line for these versions, from the encoder */
    pmc_enc e;
    pmc_out out = { 0 };
    pmc_error err;
    pmc_enc_begin(&e, PMC_WIRE_V1, "init");
    pmc_enc_int(&e, "pmi_version", v);
    pmc_enc_int(&e, "pmi_subversion", sv);
    if (pmc_enc_end(&e, &pmc_dialect_strict, &out, &err) < 0) {
        pcf_observe(c, "harness-error", "cannot encode the canonical init line");
        return;
    }
    bool same = out.len == q->len && memcmp(out.buf, q->raw, q->len) == 0;
    pmc_out_free(&out);
    if (same)
        pcf_observe(c, "ok", "%s", pcf_cshow(q->raw, q->len, b, sizeof b));
    else
        pcf_observe(c, "inexact", "sent %s", pcf_cshow(q->raw, q->len, b, sizeof b));
}

static void run_init_alone(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    if (!r)
        return;
    for (int k = 0; k < r->np; k++) {
        const pcf_creq *q = pcf_creq_find(r, k, "init", 1);
        if (q && r->ranks[k].c2s_before_reply > q->len) {
            pcf_observe(c, "pipelined", "rank %d sent %zu bytes before response_to_init, the "
                        "init line is %zu", k, r->ranks[k].c2s_before_reply, q->len);
            return;
        }
    }
    pcf_observe(c, "ok", "nothing followed the init line before its answer");
}

static void run_init_once(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    if (!r)
        return;
    for (int k = 0; k < r->np; k++)
        if (pcf_creq_count(r, k, "init") > 1) {
            pcf_observe(c, "second-init", "rank %d sent init %zu times", k,
                        pcf_creq_count(r, k, "init"));
            return;
        }
    pcf_observe(c, "ok", "one init per connection");
}

static void run_one_conn(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    if (!r)
        return;
    for (int k = 0; k < r->np; k++)
        if (r->ranks[k].conns > 1) {
            pcf_observe(c, "reconnected", "rank %d opened %d connections", k, r->ranks[k].conns);
            return;
        }
    pcf_observe(c, "ok", "one connection per process");
}

static void run_mixed(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    if (!r)
        return;
    char b[200];
    for (size_t i = 0; i < r->nreq; i++) {
        const pcf_creq *q = &r->req[i];
        if (strcmp(q->name, "init") == 0)
            continue;
        pmc_wire want = r->proto == 2 ? PMC_WIRE_V2 : PMC_WIRE_V1;
        if (q->wire != want) {
            pcf_observe(c, "mixed", "rank %d: a %s message on a PMI-%d connection: %s", q->rank,
                        q->wire == PMC_WIRE_V2 ? "PMI-2" : "PMI-1", r->proto,
                        pcf_cshow(q->raw, q->len, b, sizeof b));
            return;
        }
    }
    pcf_observe(c, "ok", "every message after init in the negotiated protocol");
}

static void run_after_finalize(pcf_ctx *c)
{
    /* the server reads on after finalize: what a client sends then is seen */
    const pcf_crun *r = pcf_client_run(c, &(pcf_cspec){ .linger = true });
    if (!r)
        return;
    char b[200];
    for (int k = 0; k < r->np; k++) {
        bool fin = false;
        for (size_t i = 0; i < r->nreq; i++) {
            const pcf_creq *q = &r->req[i];
            if (q->rank != k)
                continue;
            if (fin) {
                pcf_observe(c, "after-finalize", "rank %d sent %s after finalize", k,
                            pcf_cshow(q->raw, q->len, b, sizeof b));
                return;
            }
            fin = strcmp(q->name, "finalize") == 0;
        }
    }
    pcf_observe(c, "ok", "nothing after finalize");
}

static void run_exit_clean(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    if (!r)
        return;
    char b[100];
    if (r->timed_out) {
        pcf_observe(c, "no-answer", "the program did not end before the deadline");
        return;
    }
    for (int k = 0; k < r->np; k++) {
        /* a driver whose init call failed never finalizes: the init clause's */
        if (!pcf_creq_find(r, k, "finalize", 1) &&
            pcf_cinit_failed(c, r, k, r->driver_api == 1 ? "PMI_Finalize" : "PMI2_Finalize"))
            return;
        if (!pcf_creq_find(r, k, "finalize", 1)) {
            pcf_observe(c, "no-finalize", "rank %d never sent finalize (%s)", k,
                        pcf_cstatus(r, k, b, sizeof b));
            return;
        }
        if (!WIFEXITED(r->ranks[k].status) || WEXITSTATUS(r->ranks[k].status) != 0) {
            pcf_observe(c, "failed-after-finalize", "rank %d: %s after the server closed the "
                        "connection; stderr: %.200s", k, pcf_cstatus(r, k, b, sizeof b),
                        r->ranks[k].err);
            return;
        }
    }
    pcf_observe(c, "ok", "every rank finalized and exited 0 after the end of the stream");
}

/* ---------------------------------------------------------------- framing */

static bool p_len_canonical(const pcf_creq *q)
{
    return q->wire != PMC_WIRE_V2 || !(q->notes & (PMC_NOTE_LEN_LEFT | PMC_NOTE_LEN_ZERO));
}
static bool p_no_junk(const pcf_creq *q) { return !(q->notes & PMC_NOTE_TRAILING_JUNK); }
static bool p_no_bare(const pcf_creq *q)
{
    return !(q->notes & (PMC_NOTE_BARE_KEY | PMC_NOTE_EMPTY_TOKEN));
}
static bool p_no_dup(const pcf_creq *q) { return !(q->notes & PMC_NOTE_DUP_KEY); }
static bool p_key_chars(const pcf_creq *q) { return !(q->notes & PMC_NOTE_KEY_CHARS); }
static bool p_no_nul(const pcf_creq *q) { return !(q->notes & PMC_NOTE_NUL_IN_VALUE); }
static bool p_frame_size(const pcf_creq *q) { return q->wire != PMC_WIRE_V2 || q->len <= 4102; }
static bool p_v1_line(const pcf_creq *q) { return q->wire == PMC_WIRE_V2 || q->len <= 1024; }
static bool p_v1_spaces(const pcf_creq *q)
{
    return !(q->notes & (PMC_NOTE_V1_SPACES | PMC_NOTE_MCMD_SPACES));
}
static bool p_no_cr(const pcf_creq *q) { return !(q->notes & PMC_NOTE_V1_CR); }
static bool p_no_backslash(const pcf_creq *q) { return !(q->notes & PMC_NOTE_V1_BACKSLASH); }
static bool p_bools(const pcf_creq *q)
{
    return !(q->vnotes & PMC_VNOTE_BOOL_LOWER) && !strstr(q->findings, "E_BAD_BOOL");
}
static bool p_ints(const pcf_creq *q) { return !strstr(q->findings, "E_BAD_INT"); }
static bool p_valid(const pcf_creq *q) { return q->valid; }
static bool p_thrid_first(const pcf_creq *q) { return !q->thrid || q->thrid_first; }
static bool p_no_pipeline(const pcf_creq *q) { return q->thrid || !q->outstanding; }
static bool p_no_continuation(const pcf_creq *q) { return !(q->notes & PMC_NOTE_CONTINUED); }
static bool p_v1_no_bare(const pcf_creq *q)
{
    return q->wire == PMC_WIRE_V2 || !(q->notes & PMC_NOTE_BARE_KEY);
}
/* KEY-6: a pair named concat or concatid in a message that is not continued.
 * A pair starts at the body's start or after a ';' that is no ";;" escape. */
static bool p_concat_reserved(const pcf_creq *q)
{
    if (q->wire != PMC_WIRE_V2 || (q->notes & PMC_NOTE_CONTINUED) || q->len < 6)
        return true;
    const char *b = q->raw + 6;
    size_t n = q->len - 6;
    for (size_t i = 0; i < n; i++) {
        bool start = i == 0 || (b[i - 1] == ';' && (i < 2 || b[i - 2] != ';'));
        if (!start)
            continue;
        if ((n - i > 7 && memcmp(b + i, "concat=", 7) == 0) ||
            (n - i > 9 && memcmp(b + i, "concatid=", 9) == 0))
            return false;
    }
    return true;
}

#define GRADE(fn, pred, outcome, what, okmsg)                                                    \
    static void fn(pcf_ctx *c)                                                                   \
    {                                                                                            \
        const pcf_crun *r = ref(c);                                                              \
        if (r)                                                                                   \
            grade_all(c, r, pred, outcome, what, okmsg);                                         \
    }

GRADE(run_len_canonical, p_len_canonical, "len-noncanonical", "length field not %6u",
      "every length field right-justified, space-padded")
GRADE(run_junk, p_no_junk, "trailing-junk", "bytes after the last ';' inside the frame",
      "no bytes after the last pair")
/* the driver's put of a;b;c with ';' sent as is reads as bare tokens: that
 * is ESC-1's (client/api/escape-sent), not counted again here */
static void run_bare(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    char b[300];
    size_t left = 0;
    if (!r)
        return;
    for (size_t i = 0; i < r->nreq; i++) {
        const pcf_creq *q = &r->req[i];
        if (p_no_bare(q))
            continue;
        if (pcf_creq_semi_unescaped(c, q)) {
            left++;
            continue;
        }
        pcf_observe(c, "bare-key", "rank %d: a token without '=' or an empty pair: %s", q->rank,
                    pcf_cshow(q->raw, q->len, b, sizeof b));
        return;
    }
    pcf_observe(c, "ok", "no bare keys (%zu requests%s)", r->nreq,
                left ? "; the put of a;b;c with ';' unescaped is client/api/escape-sent's" : "");
}
GRADE(run_dup, p_no_dup, "duplicate-key", "the same key twice", "no duplicate keys")
GRADE(run_key_chars, p_key_chars, "key-chars", "a key outside [-_A-Za-z0-9]",
      "keys from the portable set")
GRADE(run_nul, p_no_nul, "nul-sent", "a NUL byte in a value", "no NUL bytes in values")
GRADE(run_frame_size, p_frame_size, "large-frame", "a frame body over 4096 bytes",
      "every frame within 4096 bytes")
GRADE(run_v1_line, p_v1_line, "long-line", "a PMI-1 line over 1024 bytes",
      "every PMI-1 line within 1024 bytes")
GRADE(run_v1_spaces, p_v1_spaces, "extra-spaces", "runs of spaces or spaces at the ends",
      "single spaces between pairs")
GRADE(run_no_cr, p_no_cr, "cr-sent", "a CR before the LF", "no CR")
GRADE(run_backslash, p_no_backslash, "backslash", "a backslash escape in a value",
      "no backslash escapes")
GRADE(run_bools, p_bools, "bool-spelling", "a boolean not spelled TRUE/FALSE",
      "booleans spelled TRUE or FALSE")
GRADE(run_ints, p_ints, "bad-integer", "an integer field that is not decimal",
      "integer fields decimal")
GRADE(run_valid, p_valid, "invalid-request", "a request the schema rejects",
      "every request has its required keys in valid forms")
GRADE(run_thrid_first, p_thrid_first, "thrid-late", "thrid not directly after cmd",
      "thrid (when sent) directly after cmd")
GRADE(run_no_pipeline, p_no_pipeline, "pipelined", "an untagged request while another was "
      "unanswered", "no untagged request while another was outstanding")
GRADE(run_v1_bare, p_v1_no_bare, "bare-word", "a PMI-1 token without '='",
      "every PMI-1 token is key=value")
GRADE(run_concat_reserved, p_concat_reserved, "reserved-key",
      "concat= or concatid= in a message that is not continued",
      "concat and concatid only for continuation")
GRADE(run_no_concat, p_no_continuation, "continued", "a message split into continuation frames",
      "no continuation frames (none needed)")

static void run_frame_accepted(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    if (!r)
        return;
    for (int k = 0; k < r->np; k++)
        if (r->ranks[k].decode_err[0]) {
            pcf_observe(c, "framing-error", "rank %d: the server's decoder rejected the stream: "
                        "%s", k, r->ranks[k].decode_err);
            return;
        }
    pcf_observe(c, "ok", "every byte decoded as whole messages");
}

static void run_sizes(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    if (!r)
        return;
    for (size_t i = 0; i < r->nreq; i++) {
        const pcf_creq *q = &r->req[i];
        if (strcmp(q->name, "kvs-put") && strcmp(q->name, "put") && strcmp(q->name, "kvs-get") &&
            strcmp(q->name, "get") && strcmp(q->name, "info-putnodeattr") &&
            strcmp(q->name, "info-getnodeattr"))
            continue;
        pmc_msg m;
        pmc_slice k = { 0 }, v = { 0 };
        if (pcf_creq_msg(c, q, &m) != 0)
            continue;
        pmc_msg_get(&m, "key", &k);
        pmc_msg_get(&m, "value", &v);
        if (k.len > 63 || v.len > 1023) {
            pcf_observe(c, "oversize", "rank %d: %s with a %zu-byte key, %zu-byte value",
                        q->rank, q->name, k.len, v.len);
            return;
        }
    }
    pcf_observe(c, "ok", "keys within 63 bytes, values within 1023");
}

/* PAIR-2: a PMI-1 value pair goes last (Flux's parser needs it there). */
static void run_v1_value_last(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    if (!r)
        return;
    char b[300];
    for (size_t i = 0; i < r->nreq; i++) {
        const pcf_creq *q = &r->req[i];
        pmc_msg m;
        if (q->wire != PMC_WIRE_V1 || pcf_creq_msg(c, q, &m) != 0 || !pmc_msg_find(&m, "value"))
            continue;
        if (!pmc_slice_eq(m.pairs[m.npairs - 1].key, "value")) {
            pcf_observe(c, "value-not-last", "rank %d: %s", q->rank,
                        pcf_cshow(q->raw, q->len, b, sizeof b));
            return;
        }
    }
    pcf_observe(c, "ok", "value is the last pair of every PMI-1 line that has one");
}

static void run_reserved_prefix(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    if (!r)
        return;
    for (size_t i = 0; i < r->nreq; i++) {
        const pcf_creq *q = &r->req[i];
        if (strcmp(q->name, "kvs-put") && strcmp(q->name, "put"))
            continue;
        pmc_msg m;
        pmc_slice k = { 0 };
        if (pcf_creq_msg(c, q, &m) == 0 && pmc_msg_get(&m, "key", &k) && k.len >= 4 &&
            memcmp(k.ptr, "PMI_", 4) == 0) {
            pcf_observe(c, "reserved", "rank %d put %.*s", q->rank, (int)k.len, k.ptr);
            return;
        }
    }
    pcf_observe(c, "ok", "no key with the reserved PMI_ prefix");
}

#define CASE(ID, CL, FL, DESC, EXP, FN, ...)                                                     \
    { .c = { .id = ID, .clause = CL, .flags = FL, .desc = DESC, .expected = EXP,                \
             .outcomes = { __VA_ARGS__ } },                                                       \
      .run = FN }

static const pcf_ccase cases[] = {
    CASE("client/init/first", "INIT-1", PCF_V1 | PCF_V2, "the first message is the init line",
         "every rank's first bytes are cmd=init", run_init_first),
    CASE("client/init/exact-form", "INIT-2", PCF_V1 | PCF_V2, "the init line's exact form",
         "cmd=init pmi_version=<v> pmi_subversion=<s>\\n, byte for byte", run_init_exact),
    CASE("client/init/alone", "INIT-3", PCF_V1 | PCF_V2,
         "nothing follows init before response_to_init",
         "no byte after the init line until the server answered", run_init_alone),
    CASE("client/init/once", "INIT-11", PCF_V1 | PCF_V2, "init is sent once",
         "one init line per connection", run_init_once),
    CASE("client/init/one-connection", "CONN-4", PCF_V1 | PCF_V2,
         "one PMI connection per process", "each rank opens one connection", run_one_conn),
    CASE("client/init/no-mixed-traffic", "CLASS-3", PCF_V1 | PCF_V2,
         "the negotiated protocol only", "after init, only messages of the version asked for",
         run_mixed),
    CASE("client/finalize/nothing-after", "FINALIZE-2", PCF_V1 | PCF_V2,
         "no request after finalize", "finalize is the last request of every rank",
         run_after_finalize),
    CASE("client/finalize/eof", "FINALIZE-3", PCF_V1 | PCF_V2,
         "the end of the stream after finalize is not an error",
         "every rank finalizes and exits 0 although the server closes the connection",
         run_exit_clean),
    CASE("client/frame/length-canonical", "FRAME-2", PCF_V2, "canonical length fields",
         "every length field as printf(\"%6u\")", run_len_canonical,
         { "len-noncanonical", PCF_DEVIATES, NULL, "left-justified or zero-padded length" }),
    CASE("client/frame/length-accepted", "FRAME-4", PCF_V2, "length fields a receiver accepts",
         "the server's decoder accepts every frame", run_frame_accepted),
    CASE("client/frame/trailing-junk", "BODY-5", PCF_V2, "nothing after the last pair",
         "each frame ends with the last pair's ';'", run_junk),
    CASE("client/frame/bare-keys", "BODY-10", PCF_V2, "no bare keys or empty pairs",
         "every token is key=value", run_bare),
    CASE("client/frame/no-continuation", "CONCAT-12", PCF_V2,
         "continuations only when needed", "short messages go in one frame", run_no_concat),
    CASE("client/frame/size", "LIMIT-7", PCF_V2, "frame bodies within 4096 bytes",
         "no frame body over 4096 bytes", run_frame_size),
    CASE("client/keys/duplicates", "PAIR-3", PCF_V1 | PCF_V2, "no duplicate keys",
         "each key at most once per message", run_dup),
    CASE("client/keys/characters", "KEY-1", PCF_V1 | PCF_V2, "key characters",
         "keys use [-_A-Za-z0-9]", run_key_chars),
    CASE("client/keys/no-nul", "VAL-2", PCF_V1 | PCF_V2, "no NUL bytes in values",
         "values without NUL", run_nul),
    CASE("client/keys/booleans", "BOOL-1", PCF_V2, "booleans spelled TRUE/FALSE",
         "every boolean is TRUE or FALSE", run_bools),
    CASE("client/keys/integers", "VAL-4", PCF_V1 | PCF_V2, "integers in decimal",
         "integer fields are decimal integers", run_ints),
    CASE("client/keys/schema", "PAIR-3", PCF_V1 | PCF_V2, "requests the schema accepts",
         "every request carries its required keys, in valid forms", run_valid,
         { "invalid-request", PCF_DEVIATES, "BODY-1", "the server cannot act on a request" }),
    CASE("client/keys/reserved-prefix", "KVS-12", PCF_V1 | PCF_V2, "no PMI_ keys put",
         "the client does not put keys with the reserved prefix", run_reserved_prefix),
    CASE("client/thrid/first", "THRID-2", PCF_V2, "thrid directly after cmd",
         "a request's thrid is its first pair", run_thrid_first),
    CASE("client/thrid/no-pipelining", "THRID-9", PCF_V1 | PCF_V2,
         "no untagged request while another is outstanding",
         "one untagged request at a time", run_no_pipeline),
    CASE("client/limits/sizes", "LIMIT-2", PCF_V1 | PCF_V2, "key and value sizes sent",
         "keys at most 63 bytes, values at most 1023", run_sizes),
    CASE("client/pmi1/line-length", "LIMIT-9", PCF_V1, "PMI-1 lines within 1024 bytes",
         "no PMI-1 line over 1024 bytes", run_v1_line),
    CASE("client/pmi1/spaces", "V1-1", PCF_V1, "single spaces between pairs",
         "cmd=<name> key=value ... with one space between pairs", run_v1_spaces),
    CASE("client/pmi1/no-cr", "V1-2", PCF_V1, "no CR in PMI-1 lines", "lines end with LF only",
         run_no_cr),
    CASE("client/pmi1/no-backslash", "V1-11", PCF_V1, "no backslash escapes",
         "values without backslash escapes", run_backslash),
    CASE("client/pmi1/bare-words", "V1-8", PCF_V1, "no bare words",
         "every token of a PMI-1 line is key=value", run_v1_bare),
    CASE("client/pmi1/value-last", "PAIR-2", PCF_V1, "value is the last pair",
         "a PMI-1 line's value pair comes last", run_v1_value_last),
    CASE("client/keys/concat-reserved", "KEY-6", PCF_V2, "concat and concatid reserved",
         "no concat= or concatid= pair outside continuation", run_concat_reserved),
};
PCF_CLIENT_CASES(cases)
