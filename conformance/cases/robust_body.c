/* robust/...: PMI-2 bodies that are delimited but wrong (no final ';', no
 * command, empty key, bare key, duplicate keys, NUL in a value, oversized
 * keys, values and frames, many pairs, a response sent to the server, a
 * continuation that continues nothing).  Each starts as encoder output and
 * is damaged on purpose; the length field is then taken from a frame the
 * encoder wrote for the new body size. */
#include "damage.h"

#include <stdlib.h>

/* Cut `what` (its first occurrence after the length field) out of a single
 * frame and fix the length. */
static int cut_str(pcf_ctx *c, pmc_out *o, const char *what)
{
    long at = pcfd_find(o, 6, what);
    if (at < 0) {
        pcf_observe(c, "harness-error", "'%s' not in the encoded frame", what);
        return -1;
    }
    pcfd_cut(o, (size_t)at, strlen(what));
    if (pcfd_fix_len(o, 0, o->len) != 0) {
        pcf_observe(c, "harness-error", "no length field for %zu bytes", o->len - 6);
        return -1;
    }
    return 0;
}

static void run_no_semicolon(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    if (pcfd_encode(c, &e, NULL, &o) == 0) {
        o.len--; /* the final ';' */
        if (pcfd_fix_len(&o, 0, o.len) == 0 && pcfd_send(c, &o) == 0)
            pcfd_grade(c, NULL, NULL); /* any error answer rejects it */
    }
    pmc_out_free(&o);
}

static void run_no_cmd(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", "x");
    pmc_enc_str(&e, "value", "y");
    if (pcfd_encode(c, &e, NULL, &o) == 0 && cut_str(c, &o, "cmd=kvs-put;") == 0 &&
        pcfd_send(c, &o) == 0)
        pcfd_grade(c, NULL, NULL);
    pmc_out_free(&o);
}

static void run_empty_cmd(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    pmc_enc_str(&e, "pcfk", "x"); /* "cmd=;" alone is below the shortest body */
    if (pcfd_encode(c, &e, NULL, &o) == 0 && cut_str(c, &o, "job-getid") == 0 &&
        pcfd_send(c, &o) == 0)
        pcfd_grade(c, NULL, NULL);
    pmc_out_free(&o);
}

static void run_empty_key(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    pmc_enc_str(&e, "pcfk", "x");
    if (pcfd_encode(c, &e, NULL, &o) == 0 && cut_str(c, &o, "pcfk") == 0 &&
        pcfd_send(c, &o) == 0)
        pcfd_grade(c, "job-getid-response", NULL);
    pmc_out_free(&o);
}

static void run_unknown_thrid(pcf_ctx *c)
{
    char thrid[48];
    snprintf(thrid, sizeof thrid, "t-%s", pcf_tag(c));
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "pcf-frobnicate");
    pmc_enc_str(&e, "thrid", thrid);
    if (pcf_send(c, &e) == 0)
        pcfd_grade(c, "pcf-frobnicate-response", thrid);
}

static void run_response_to_server(pcf_ctx *c)
{
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid-response");
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_str(&e, "jobid", "pcf-not-a-request");
    if (pcf_send(c, &e) == 0)
        pcfd_grade(c, NULL, NULL);
}

/* The encoder splits a kvs-put into two frames (max_frame 64); only the
 * continuation frame is sent: cmd=concat with nothing to continue. */
static void run_concat_unexpected(pcf_ctx *c)
{
    pmc_dialect d = pmc_dialect_strict;
    d.name = "strict-frame-64";
    d.max_frame = 64;
    char key[40], val[31];
    snprintf(key, sizeof key, "%.20s-concat", pcf_tag(c));
    memset(val, 'v', 30);
    val[30] = 0;
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", val);
    if (pcfd_encode(c, &e, &d, &o) == 0) {
        long at = pcfd_find(&o, 6, "cmd=concat;");
        if (at < 6)
            pcf_observe(c, "harness-error", "the encoder did not continue the message");
        else if (pcf_send_raw(c, o.buf + at - 6, o.len - (size_t)(at - 6)) == 0)
            pcfd_grade(c, NULL, NULL);
    }
    pmc_out_free(&o);
}

/* job-getid with `extra` unknown pairs (PAIR-5 says: ignore them). */
static void many_pairs(pcf_ctx *c, int extra, bool must_answer)
{
    pmc_enc e;
    pmc_out o = { 0 };
    char (*names)[12] = malloc((size_t)extra * sizeof *names);
    if (!names) {
        pcf_observe(c, "harness-error", "out of memory");
        return;
    }
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    for (int i = 0; i < extra; i++) {
        snprintf(names[i], sizeof names[i], "p%d", i);
        pmc_enc_str(&e, names[i], "x");
    }
    if (pcfd_encode(c, &e, NULL, &o) == 0 && pcfd_send(c, &o) == 0) {
        if (!must_answer) {
            pcfd_grade(c, "job-getid-response", NULL);
        } else {
            pmc_msg m;
            char b[200];
            long long rc = -1;
            if (pcf_expect(c, "job-getid-response", &m) == 0) {
                if (pcf_rc(&m, &rc) == 1 && rc == 0)
                    pcf_observe(c, "ok", "%d pairs answered rc=0", extra + 1);
                else
                    pcf_observe(c, "rejected", "%s", pcf_show(&m, b, sizeof b));
            }
        }
    }
    free(names);
    pmc_out_free(&o);
}

static void run_pairs_256(pcf_ctx *c) { many_pairs(c, 255, true); }
static void run_pairs_5000(pcf_ctx *c) { many_pairs(c, 5000, false); }

/* A kvs-put of a 70 000-byte value: a frame above Hydra's 64 KiB buffer. */
static void run_frame_70000(pcf_ctx *c)
{
    enum { N = 70000 };
    char *val = malloc(N + 1);
    if (!val) {
        pcf_observe(c, "harness-error", "out of memory");
        return;
    }
    memset(val, 'V', N);
    val[N] = 0;
    char key[48];
    snprintf(key, sizeof key, "%s-big70k", pcf_tag(c));
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", val);
    if (pcfd_encode(c, &e, NULL, &o) == 0 && pcfd_send(c, &o) == 0) {
        pmc_msg m;
        pmc_error err;
        char b[200];
        pws_result r = pcf_recv(c, &m, &err);
        long long rc = 0;
        if (r != PWS_MSG || !pmc_slice_eq(m.name, "kvs-put-response") || pcf_rc(&m, &rc) != 1 ||
            rc != 0) {
            /* not stored: classify like any rejection (the answer is consumed) */
            if (r == PWS_MSG)
                pcf_observe(c, "error-response", "%s", pcf_show(&m, b, sizeof b));
            else if (r == PWS_EOF)
                pcf_observe(c, "closed", "closed the connection (frame above its maximum)");
            else if (r == PWS_TIMEOUT)
                pcf_observe(c, "no-answer", "no answer to a 70000-byte frame");
            else
                pcf_observe(c, "bad-response", "%s", pws_result_name(r));
        } else {
            /* stored: it must be whole where it is visible (LIMIT-3) */
            pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
            pmc_enc_str(&e, "key", key);
            pmc_slice v;
            bool found = false;
            if (pcf_call(c, &e, "kvs-get-response", &m) == 0) {
                pmc_msg_get_bool(&m, "found", &found, NULL);
                if (found && pmc_msg_get(&m, "value", &v) && v.len != N)
                    pcf_observe(c, "truncated", "stored with rc=0 but %zu bytes came back",
                                v.len);
                else
                    pcf_observe(c, "ok", "accepted%s", found ? " and returned whole"
                                                             : " (not visible before a fence)");
            }
        }
    }
    free(val);
    pmc_out_free(&o);
}

/* ---- collective: damaged put, fence, get of one's own key -------------- */

/* Send the damaged kvs-put, fence (always, once, unless the connection is
 * gone), then get `key`.  Returns 1 found (value in *v, valid until the next
 * receive), 0 not found, -1 after observing (put refused: "put-refused";
 * lost connection: the standard outcomes). */
static int put_fence_get(pcf_ctx *c, const pmc_out *o, const char *key, pmc_msg *m,
                         pmc_slice *v)
{
    pmc_msg pm;
    char b[300];
    long long rc = -1;
    if (pcfd_collective_start(c) != 0 || pcfd_send(c, o) != 0 ||
        pcf_expect(c, "kvs-put-response", &pm) != 0)
        return -1;
    bool refused = pcf_rc(&pm, &rc) != 1 || rc != 0;
    if (refused)
        pcf_show(&pm, b, sizeof b);
    if (pcf_kvs_fence(c) != 0)
        return -1;
    if (refused) {
        pcf_observe(c, "put-refused", "%s", b);
        return -1;
    }
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(&e, "key", key);
    if (pcf_call(c, &e, "kvs-get-response", m) != 0)
        return -1;
    bool found = false;
    if (pcf_rc(m, &rc) == 1 && rc == 0 && pmc_msg_get_bool(m, "found", &found, NULL) == 1 &&
        found && pmc_msg_get(m, "value", v))
        return 1;
    return 0;
}

static void run_bare_key(pcf_ctx *c)
{
    char key[48];
    snprintf(key, sizeof key, "%s-bare-r%d", pcf_tag(c), pcf_rank(c));
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_msg m;
    pmc_slice v;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "pcfflag", "Z");
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", "bare-ok");
    if (pcfd_encode(c, &e, NULL, &o) == 0 && cut_str(c, &o, "=Z") == 0) {
        int f = put_fence_get(c, &o, key, &m, &v);
        if (f == 1 && pmc_slice_eq(v, "bare-ok"))
            pcf_observe(c, "ok", "the bare key was ignored, the pair stored");
        else if (f == 1)
            pcf_observe(c, "altered", "stored %.*s", (int)v.len, v.ptr);
        else if (f == 0)
            pcf_observe(c, "lost", "put answered rc=0 but %s is not found after the fence "
                                   "(the bare key was joined to the next key)", key);
    }
    pmc_out_free(&o);
    pcfd_collective_end(c);
}

static void run_dup_keys(pcf_ctx *c)
{
    char key[48];
    snprintf(key, sizeof key, "%s-dup-r%d", pcf_tag(c), pcf_rank(c));
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_msg m;
    pmc_slice v;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", "first");
    pmc_enc_str(&e, "xalue", "second");
    if (pcfd_encode(c, &e, NULL, &o) == 0 && pcfd_patch(c, &o, "xalue=", "v", 1) == 0) {
        int f = put_fence_get(c, &o, key, &m, &v);
        if (f == 1 && pmc_slice_eq(v, "first"))
            pcf_observe(c, "ok", "the first occurrence won");
        else if (f == 1)
            pcf_observe(c, "later-won", "stored %.*s", (int)v.len, v.ptr);
        else if (f == 0)
            pcf_observe(c, "lost", "put answered rc=0 but the key is not found after the fence");
        else if (!pcf_observed(c))
            pcf_observe(c, "harness-error", "no observation");
    }
    pmc_out_free(&o);
    pcfd_collective_end(c);
}

static void run_nul_value(pcf_ctx *c)
{
    char key[48];
    snprintf(key, sizeof key, "%s-nul-r%d", pcf_tag(c), pcf_rank(c));
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_msg m;
    pmc_slice v;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", "aQb");
    if (pcfd_encode(c, &e, NULL, &o) == 0 && pcfd_patch(c, &o, "=aQb;", "=a\0b;", 5) == 0) {
        int f = put_fence_get(c, &o, key, &m, &v);
        if (f == 1 && v.len == 3 && memcmp(v.ptr, "a\0b", 3) == 0)
            pcf_observe(c, "ok", "the value with a NUL came back intact");
        else if (f == 1)
            pcf_observe(c, "cut", "put a\\x00b, got %zu bytes back", v.len);
        else if (f == 0)
            pcf_observe(c, "lost", "put answered rc=0 but the key is not found after the fence");
    }
    pmc_out_free(&o);
    pcfd_collective_end(c);
}

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
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", val);
    if (pcfd_encode(c, &e, NULL, &o) == 0) {
        int f = put_fence_get(c, &o, key, &m, &v);
        if (f == 1 && v.len == vlen)
            pcf_observe(c, "ok", "%zu-byte key, %zu-byte value stored whole", klen, vlen);
        else if (f == 1)
            pcf_observe(c, "truncated", "put %zu bytes with rc=0, got %zu back", vlen, v.len);
        else if (f == 0)
            pcf_observe(c, "truncated", "put answered rc=0 but the %zu-byte key is not found "
                                        "after the fence (stored under a shortened key)", klen);
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
    { "closed", PCF_FAIL, "ERR-1", "the server closed the connection" }

static const pcf_case cases[] = {
    { .id = "robust/no-trailing-semicolon",
      .desc = "a frame whose last pair has no ';' (\"cmd=job-getid\", M8, S18)",
      .clause = "BODY-4",
      .expected = "an error response for job-getid, never a shorter command (job-geti)",
      .steps = "A victim rank (the case may end the job) sends job-getid with the final ';' cut "
               "off: \"cmd=job-getid\" with its length field fixed to match.\n"
               "BODY-4 makes that an error: a server must not read it as a command (\"job-geti\" "
               "or \"job-getid\" answered as usual). An answer under another name is "
               "\"wrong-response\".\n"
               PCFD_STEPS_DELIMITED,
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_no_semicolon,
      .outcomes = { PCFD_DELIMITED("BODY-4"),
                    { "wrong-response", PCF_DEVIATES, "BODY-4", "read another command name" } } },
    { .id = "robust/no-cmd", .desc = "a body without cmd= (\"key=x;value=y;\", B5, H5)",
      .clause = "BODY-2",
      .expected = "the server closes the connection (ERR-6); never acts on the body",
      .steps = "A victim rank (the case may end the job) sends a kvs-put frame with "
               "\"cmd=kvs-put;\" cut out: the body is \"key=x;value=y;\", with a length field "
               "that matches.\n"
               "A body without a command cannot be answered by name: closing the connection "
               "passes (ERR-6), with or without an error answer first; an answer with the "
               "connection kept open is a deviation; rc=0 is \"accepted\" (BODY-2: the server "
               "acted on it).\n"
               PCFD_STEPS_AFTER,
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_no_cmd,
      .outcomes = { { "closed", PCF_PASS, "ERR-6", "closed the connection" },
                    { "error-then-close", PCF_PASS, "ERR-6", "answered an error, then closed" },
                    { "other-then-close", PCF_PASS, "ERR-6", "answered an error, then closed" },
                    { "error-response", PCF_DEVIATES, "ERR-6", "answered but kept the connection" },
                    { "wrong-response", PCF_DEVIATES, "ERR-6", "answered but kept the connection" },
                    { "accepted", PCF_DEVIATES, "BODY-2", "acted on a body without a command" },
                    PCFD_KILLED } },
    { .id = "robust/empty-cmd", .desc = "a body whose command name is empty (\"cmd=;pcfk=x;\")",
      .clause = "BODY-2",
      .expected = "the server closes the connection (ERR-6); never acts on the body",
      .steps = "A victim rank (the case may end the job) sends \"cmd=;pcfk=x;\": a job-getid "
               "frame with the command name cut out, length field fixed.\n"
               "Closing the connection passes (ERR-6), with or without an error answer first; an "
               "answer with the connection kept open is a deviation; rc=0 is \"accepted\" "
               "(BODY-2).\n"
               PCFD_STEPS_AFTER,
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_empty_cmd,
      .outcomes = { { "closed", PCF_PASS, "ERR-6", "closed the connection" },
                    { "error-then-close", PCF_PASS, "ERR-6", "answered an error, then closed" },
                    { "other-then-close", PCF_PASS, "ERR-6", "answered an error, then closed" },
                    { "error-response", PCF_DEVIATES, "ERR-6", "answered but kept the connection" },
                    { "wrong-response", PCF_DEVIATES, "ERR-6", "answered but kept the connection" },
                    { "accepted", PCF_DEVIATES, "BODY-2", "acted on an empty command" },
                    PCFD_KILLED } },
    { .id = "robust/empty-key", .desc = "a pair with an empty key (\"cmd=job-getid;=x;\")",
      .clause = "KEY-5", .expected = "cmd=job-getid-response;rc!=0;...",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_empty_key,
      .outcomes = { PCFD_DELIMITED("KEY-5") } },
    { .id = "robust/unknown-command-thrid",
      .desc = "the error answer to an unknown command carries the request's thrid",
      .clause = "ERR-9", .expected = "cmd=pcf-frobnicate-response;thrid=<same>;rc!=0;...",
      .steps = "A victim rank (the case may end the job) sends cmd=pcf-frobnicate;thrid=t-<tag>;, "
               "an unknown command with a thrid.\n"
               "The error answer must carry thrid=t-<tag> (ERR-9): one without it is "
               "\"thrid-lost\".\n"
               PCFD_STEPS_DELIMITED,
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_unknown_thrid,
      .outcomes = { PCFD_DELIMITED("ERR-7"),
                    { "thrid-lost", PCF_DEVIATES, NULL, "the error answer lacks the thrid" } } },
    { .id = "robust/response-to-server",
      .desc = "a response (job-getid-response) sent to the server as if it were a request",
      .clause = "ERR-7", .expected = "an error response (or the close of the connection)",
      .steps = "A victim rank (the case may end the job) sends "
               "cmd=job-getid-response;rc=0;jobid=pcf-not-a-request;, a response, as if it were a "
               "request.\n"
               "Any error answer passes, under any name (ERR-7).\n"
               PCFD_STEPS_DELIMITED,
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_response_to_server,
      .outcomes = { PCFD_DELIMITED("ERR-7"),
                    { "wrong-response", PCF_PASS, NULL, "answered with an error" } } },
    { .id = "robust/concat-unexpected",
      .desc = "a cmd=concat continuation frame with nothing to continue",
      .clause = "CONCAT-9",
      .expected = "cmd=concat-response;rc!=0 (or an unknown-command error, ERR-7)",
      .steps = "The encoder splits a kvs-put into two frames (a 64-byte frame limit); a victim "
               "rank (the case may end the job) sends only the second, the cmd=concat "
               "continuation, with nothing before it to continue.\n"
               "CONCAT-9 asks for an error answer (concat-response with rc != 0, or the "
               "unknown-command answer of ERR-7).\n"
               PCFD_STEPS_DELIMITED,
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_concat_unexpected,
      .outcomes = { PCFD_DELIMITED("CONCAT-9") } },
    { .id = "robust/pairs-256", .desc = "a request of 256 pairs (255 unknown keys) is answered",
      .clause = "LIMIT-10", .expected = "cmd=job-getid-response;rc=0;...",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_pairs_256,
      .outcomes = { { "rejected", PCF_DEVIATES, NULL, "answered rc != 0" },
                    { "closed", PCF_DEVIATES, NULL, "closed the connection" }, PCFD_KILLED } },
    { .id = "robust/pairs-5000", .desc = "a request of 5001 pairs (5000 unknown keys)",
      .clause = "ERR-1", .expected = "an answer, an error or a close; never the end of the job",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_pairs_5000,
      .outcomes = { { "accepted", PCF_PASS, NULL, "answered normally" },
                    { "error-response", PCF_PASS, NULL, "answered with an error" },
                    { "error-then-close", PCF_PASS, NULL, "answered with an error, then closed" },
                    { "closed", PCF_PASS, "ERR-3", "closed the connection" }, PCFD_KILLED } },
    { .id = "robust/frame-70000",
      .desc = "a kvs-put frame of 70 000 bytes (above a 64 KiB buffer)",
      .clause = "FRAME-7",
      .expected = "stored whole, rc!=0, or the connection closed; never the end of the job",
      .steps = "A victim rank (the case may end the job) sends one kvs-put frame of about 70 000 "
               "bytes (a 70 000-byte value): more than a 64 KiB read buffer holds.\n"
               "rc != 0 passes (LIMIT-3: refused), and so does closing the connection (ERR-5: "
               "above the server's maximum frame).\n"
               "rc=0: it gets the key back on the same connection; a shorter value is "
               "\"truncated\"; the whole value, or not visible before a fence, passes.\n"
               PCFD_STEPS_AFTER,
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_frame_70000,
      .outcomes = { { "closed", PCF_PASS, "ERR-5", "closed: the frame is above its maximum" },
                    { "error-response", PCF_PASS, "LIMIT-3", "refused with rc != 0" },
                    { "truncated", PCF_DEVIATES, "LIMIT-3", "stored a shortened value with rc=0" },
                    PCFD_KILLED } },
    { .id = "robust/bare-key", .desc = "a pair without '=' (\"pcfflag;\") before key and value",
      .clause = "BODY-9",
      .expected = "kvs-put rc=0 and, after the fence, the value under its key",
      .flags = PCF_V2 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_bare_key,
      .outcomes = { { "put-refused", PCF_DEVIATES, NULL, "rejected the put" },
                    { "lost", PCF_DEVIATES, NULL, "joined the bare key to the next key" },
                    COLLECTIVE_LOST } },
    { .id = "robust/dup-keys", .desc = "value= given twice (first, then second) in one kvs-put",
      .clause = "PAIR-4",
      .expected = "the put rejected, or the first value stored",
      .flags = PCF_V2 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_dup_keys,
      .outcomes = { { "put-refused", PCF_PASS, NULL, "rejected the duplicate (allowed)" },
                    COLLECTIVE_LOST } },
    { .id = "robust/nul-in-value", .desc = "a value with a NUL byte (\"a\\x00b\")",
      .clause = "VAL-3",
      .expected = "the three bytes back, or the put rejected; never silently \"a\"",
      .flags = PCF_V2 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_nul_value,
      .outcomes = { { "put-refused", PCF_PASS, NULL, "rejected the value (allowed)" },
                    COLLECTIVE_LOST } },
    { .id = "robust/key-100", .desc = "a kvs-put with a 100-byte key",
      .clause = "LIMIT-3",
      .expected = "rc!=0, or the whole key found after the fence (B9: cut to 63)",
      .flags = PCF_V2 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_key_100,
      .outcomes = { { "put-refused", PCF_PASS, NULL, "refused the long key" },
                    COLLECTIVE_LOST } },
    { .id = "robust/value-2000", .desc = "a kvs-put with a 2000-byte value",
      .clause = "LIMIT-3",
      .expected = "rc!=0, or 2000 bytes back after the fence (B9: cut to 1023)",
      .flags = PCF_V2 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_value_2000,
      .outcomes = { { "put-refused", PCF_PASS, NULL, "refused the long value" },
                    COLLECTIVE_LOST } },
};
PCF_CASES(cases)
