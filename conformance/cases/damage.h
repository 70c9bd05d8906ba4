/* Helpers shared by the pmi1/, frame/ and robust/ case files: building wire
 * bytes with the encoder and damaging them on purpose (nothing here formats
 * wire text by hand: even a replacement length field is taken from a frame
 * the encoder wrote), and grading what a server does with bad input.
 * Header-only (static inline) because case files are self-registering
 * translation units. */
#ifndef PCF_CASES_DAMAGE_H
#define PCF_CASES_DAMAGE_H

#include "pcf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How long a victim asks whether its connection is still served after an
 * error answer (pcf_ask_served): a server that keeps the connection answers
 * at once; only one that keeps it but stops answering uses it up. */
enum { PCFD_ASK_MS = 1500 };

/* Encode e in dialect d (NULL: strict), appending to out. */
static inline int pcfd_encode(pcf_ctx *c, pmc_enc *e, const pmc_dialect *d, pmc_out *out)
{
    pmc_error err;
    if (pmc_enc_end(e, d, out, &err) != 0) {
        char b[256];
        pmc_error_format(&err, b, sizeof b);
        pcf_observe(c, "harness-error", "encoder: %s", b);
        return -1;
    }
    return 0;
}

/* A strict-dialect copy with one field changed (lower-case booleans, B1 junk). */
static inline const pmc_dialect *pcfd_dialect_lower_bool(void)
{
    static pmc_dialect d;
    d = pmc_dialect_strict;
    d.name = "strict-bool-lower";
    d.bool_lower = true;
    return &d;
}

static inline long pcfd_find(const pmc_out *o, size_t from, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = from; n && i + n <= o->len; i++)
        if (memcmp(o->buf + i, s, n) == 0)
            return (long)i;
    return -1;
}

/* Overwrite the first `from` in an encoded message (a PMI-2 length field
 * holds no such text) with n bytes of `to` (n <= its length: a length
 * field stays right); -1 after observing when absent.  For what the encoder
 * will not write (a key twice, a NUL), in a PMI-1 line or a PMI-2 frame. */
static inline int pcfd_patch(pcf_ctx *c, pmc_out *o, const char *from, const char *to,
                             size_t n)
{
    long at = pcfd_find(o, 0, from);
    if (at < 0) {
        pcf_observe(c, "harness-error", "'%s' not in the encoded message", from);
        return -1;
    }
    memcpy(o->buf + at, to, n);
    return 0;
}

/* Remove n bytes at `at`. */
static inline void pcfd_cut(pmc_out *o, size_t at, size_t n)
{
    if (at > o->len)
        return;
    if (at + n > o->len)
        n = o->len - at;
    memmove(o->buf + at, o->buf + at + n, o->len - at - n);
    o->len -= n;
}

/* Insert n bytes at `at`; 0 or -1 (no memory). */
static inline int pcfd_insert(pmc_out *o, size_t at, const void *p, size_t n)
{
    if (at > o->len || pmc_out_reserve(o, n) != 0)
        return -1;
    memmove(o->buf + at + n, o->buf + at, o->len - at);
    memcpy(o->buf + at, p, n);
    o->len += n;
    return 0;
}

/* The canonical six-byte length field for a body of n bytes (n >= 6), taken
 * from a frame the encoder wrote: "cmd=x;" padded with one pair. */
static inline int pcfd_len_field(size_t n, char field[6])
{
    pmc_enc e;
    pmc_out out = { 0 };
    pmc_error err;
    if (n < 6 || n > 999999)
        return -1;
    if (n <= 8) {
        char name[4] = "xxx";
        name[n - 5] = 0; /* cmd=x; cmd=xx; cmd=xxx; */
        pmc_enc_begin(&e, PMC_WIRE_V2, name);
        if (pmc_enc_end(&e, NULL, &out, &err) != 0)
            return -1;
    } else {
        char *pad = malloc(n - 8);
        if (!pad)
            return -1;
        memset(pad, 'p', n - 9);
        pad[n - 9] = 0; /* cmd=x; + p=<n-9>; */
        pmc_enc_begin(&e, PMC_WIRE_V2, "x");
        pmc_enc_str(&e, "p", pad);
        int rc = pmc_enc_end(&e, NULL, &out, &err);
        free(pad);
        if (rc != 0) {
            pmc_out_free(&out);
            return -1;
        }
    }
    int ok = out.len == n + 6;
    if (ok)
        memcpy(field, out.buf, 6);
    pmc_out_free(&out);
    return ok ? 0 : -1;
}

/* Rewrite the length field of the frame at `at` to the body that follows it
 * up to `end` (after bytes were cut from or added to the body). */
static inline int pcfd_fix_len(pmc_out *o, size_t at, size_t end)
{
    char f[6];
    if (end < at + 6 || pcfd_len_field(end - at - 6, f) != 0)
        return -1;
    memcpy(o->buf + at, f, 6);
    return 0;
}

/* Send bytes and observe "closed"/"no-answer" on failure (pcf_send_raw). */
static inline int pcfd_send(pcf_ctx *c, const pmc_out *o)
{
    return pcf_send_raw(c, o->buf, o->len) == 0 ? 0 : -1;
}

/* Collective destructive cases start with a fence: rank 0 has recorded the
 * case as started before it fences, so if the server then ends the job the
 * case is charged with it (and not the launch before it). */
static inline int pcfd_collective_start(pcf_ctx *c)
{
    return pcf_kvs_fence(c);
}

/* End of a collective destructive case: when the server closed this rank's
 * connection, ranks other than 0 wait before they report, so that rank 0
 * records the case before these ranks leave and the launcher reacts to
 * their end (which would otherwise race with rank 0's record). */
static inline void pcfd_collective_end(pcf_ctx *c)
{
    if (pcf_rank(c) != 0 && pws_eof(pcf_session(c)))
        pcf_pause_ms(c, 5000);
}

/* After bad bytes: wait for the answer and classify it.
 *   reply NULL: any message counts as the answer.
 *   "accepted"        the answer has rc=0 (or no rc)
 *   "error-response"  rc != 0, connection kept open
 *   "error-then-close" rc != 0, then the server closed
 *   "other-then-close" another message (Slurm's finalize-response), then closed
 *   "wrong-response"  another message, connection kept open
 *   "closed"          closed without an answer
 *   "no-answer"       nothing before the deadline
 *   "cr-in-answer"    the answer holds a CR inside its line (V1-2, V1-9)
 *   "bad-response"    another answer that does not decode
 * want_thrid: an error answer without it is "thrid-lost" (ERR-9). */
static inline void pcfd_grade(pcf_ctx *c, const char *reply, const char *want_thrid)
{
    pmc_msg m;
    pmc_error err;
    char b[300];
    pws_result r = pcf_recv(c, &m, &err);
    if (r == PWS_MSG) {
        long long rc = 0;
        int h = pcf_rc(&m, &rc);
        pmc_slice info;
        /* V1CMD-22: without rc, a PMI-1 name-service answer says it in info */
        if (h == 0 && pmc_msg_get(&m, "info", &info) && !pmc_slice_eq(info, "ok"))
            h = 1, rc = 1;
        bool named = !reply || pmc_slice_eq(m.name, reply);
        pcf_show(&m, b, sizeof b);
        if (named && (h != 1 || rc == 0)) {
            pcf_observe(c, "accepted", "answered as if valid: %s", b);
            return;
        }
        if (named && want_thrid && !pmc_slice_eq(m.thrid, want_thrid)) {
            pcf_observe(c, "thrid-lost", "the error answer lacks thrid=%s: %s", want_thrid, b);
            return;
        }
        if (pcf_ask_served(c, PCFD_ASK_MS) == PWS_EOF)
            pcf_observe(c, named ? "error-then-close" : "other-then-close", "%s, then closed", b);
        else
            pcf_observe(c, named ? "error-response" : "wrong-response",
                        "%s (connection kept open)", b);
        return;
    }
    if (r == PWS_EOF) {
        /* whether the server also ended the job, rank 0 asks it next */
        pcf_observe(c, "closed", "the server closed the connection without an answer");
        return;
    }
    if (r == PWS_TIMEOUT) {
        pcf_observe(c, "no-answer", "neither an answer nor a close within the deadline");
        return;
    }
    char eb[PCF_ERR_TEXT];
    /* a CR inside the answer line: the server echoed a CR it was sent
     * (V1-9: no CR in a PMI-1 value it sends) */
    pcf_observe(c, err.code == PMC_E_V1_CR ? "cr-in-answer" : "bad-response", "%s: %s",
                pws_result_name(r), pcf_decode_error(c, &err, eb, sizeof eb));
}

/* Send the (damaged) put line, barrier (always, once, unless the
 * connection is gone), then get `key`.  Returns 1 found (value in *v, valid
 * until the next receive), 0 not found, -1 after observing ("put-refused",
 * or the standard outcomes of a lost connection). */
static inline int pcfd_v1_put_barrier_get(pcf_ctx *c, const pmc_out *o, const char *key, pmc_msg *m,
                           pmc_slice *v)
{
    pmc_msg pm;
    char b[300];
    long long rc = -1;
    if (pcfd_collective_start(c) != 0 || pcfd_send(c, o) != 0 ||
        pcf_expect(c, "put_result", &pm) != 0)
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
    pmc_enc_begin(&e, PMC_WIRE_V1, "get");
    pmc_enc_str(&e, "kvsname", pcf_kvsname(c));
    pmc_enc_str(&e, "key", key);
    if (pcf_call(c, &e, "get_result", m) != 0)
        return -1;
    if (pcf_rc(m, &rc) == 1 && rc == 0 && pmc_msg_get(m, "value", v))
        return 1;
    return 0;
}

/* ---- steps: what pcfd_grade and the harness do after the bad bytes ------ */

/* For `explain` (pcf_case.steps), appended to a case's own first steps. */
#define PCFD_STEPS_AFTER                                                                         \
    "Rank 0 then sends job-getid (get_appnum in PMI-1) on its own connection: no answer "       \
    "there is \"others-affected\" (ERR-2), a job the server ended is \"job-killed\" (ERR-1); "  \
    "both FAIL."
#define PCFD_STEPS_DELIMITED                                                                     \
    "It reads the answer.  An error response (rc != 0) passes; it then asks once more on the "  \
    "same connection (job-getid, get_maxes in PMI-1) to tell a kept connection "               \
    "(error-response) from a closed one (error-then-close): both pass.\n"                      \
    "rc=0 is \"accepted\" (the server acted on a request it had to refuse); a close without "  \
    "an answer is \"closed\" (ERR-4); nothing before the deadline is a TIMEOUT.\n"             \
    PCFD_STEPS_AFTER
#define PCFD_STEPS_FRAMING                                                                       \
    "It reads what the server does.  Closing the connection passes, with or without an "        \
    "answer first: after a framing error the stream cannot be read on (ERR-5).\n"                \
    "An answer with the connection kept open is \"error-response\" (the server goes on "         \
    "reading a stream it cannot frame); rc=0 is \"accepted\" (it read the broken frame as "      \
    "valid); nothing before the deadline is a TIMEOUT.\n"                                        \
    PCFD_STEPS_AFTER

/* ---- outcome tables ---------------------------------------------------- */

#define PCFD_KILLED                                                                              \
    { "job-killed", PCF_FAIL, "ERR-1", "the server ended the job" },                             \
    { "sender-killed", PCF_NON_STRICT, "ERR-4", "only the sender was ended" },                   \
    { "others-affected", PCF_FAIL, "ERR-2", "other connections stopped being served" }

/* A broken framing (ERR-5): the connection must close; an answer first is fine. */
#define PCFD_FRAMING(cl)                                                                         \
    { "closed", PCF_PASS, "ERR-5", "closed the connection" },                                    \
    { "error-then-close", PCF_PASS, "ERR-5", "answered with an error, then closed" },            \
    { "other-then-close", PCF_PASS, "ERR-5", "answered something, then closed" },                \
    { "error-response", PCF_DEVIATES, "ERR-5", "answered but kept reading a broken stream" },    \
    { "wrong-response", PCF_DEVIATES, "ERR-5", "answered but kept reading a broken stream" },    \
    { "accepted", PCF_DEVIATES, cl, "read the broken frame as valid" },                          \
    PCFD_KILLED

/* A delimited message the server should reject (ERR-3, ERR-4). */
#define PCFD_DELIMITED(cl)                                                                       \
    { "error-response", PCF_PASS, NULL, "answered with an error" },                              \
    { "error-then-close", PCF_PASS, NULL, "answered with an error, then closed" },               \
    { "closed", PCF_DEVIATES, "ERR-4", "closed without an answer" },                             \
    { "other-then-close", PCF_DEVIATES, "ERR-4", "closed after an unrelated answer" },            \
    { "accepted", PCF_DEVIATES, cl, "answered rc=0" },                                           \
    PCFD_KILLED

#endif
