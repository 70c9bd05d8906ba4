/* Scenarios: message patterns, captures and the step runner that plays one
 * side of a trace (v1 recording or v2 scenario) and checks the other.
 *
 * The same trace drives a mock client (play C>S, check S>C) and a mock
 * server (play S>C, check C>S).  Matching is message level: both the
 * expected and the arriving bytes go through the codec's decoder and are
 * compared pair by pair; raw events fall back to byte comparison.
 *
 *   pmt_vars *v = pmt_vars_new();
 *   pmt_runner *r = pmt_runner_new(&trace, "r0", PMT_CLIENT, v, NULL, err, sizeof err);
 *   for (;;) {
 *       pmt_action a;
 *       pmt_runner_next(r, &a);
 *       switch (a.kind) {
 *       case PMT_ACT_SEND: sleep a.pause_ms, write a.buf in pieces at a.cuts, sleeping
 *                          a.delay_ms; break;
 *       case PMT_ACT_WAIT: read for at most a.timeout_ms, then pmt_runner_feed() the bytes,
 *                          pmt_runner_eof() or pmt_runner_timeout(); break;
 *       case PMT_ACT_SHUTDOWN: shutdown(fd, SHUT_WR); pmt_runner_done_action(r); break;
 *       case PMT_ACT_DONE: / PMT_ACT_FAILED: finish; see pmt_runner_divergence(). }
 *   }
 *
 * Pattern syntax (the text after "msg " in a v2 event, see traces/README.md):
 *   <wire> <cmd> [key=value ...] [...]
 *   wire: v1 | v2 | mcmd;  value: a literal without blanks or '"', a
 *   "quoted" literal (trace escapes), * (anything), ~regex or ~"regex"
 *   (POSIX extended, anchored), ${name} (captures the first time, must be
 *   equal afterwards; substituted when sending).  A trailing "..." allows
 *   keys the pattern does not name.  Keys are matched as a set unless a key
 *   repeats (spawn segments), then in order. */
#ifndef PMITRACE_MATCH_H
#define PMITRACE_MATCH_H

#include "pmicodec/pmicodec.h"
#include "pmitrace/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ variables */

/* Captured variables (${name}) and the map from recorded values to the live
 * ones that replaced them (job ids, kvs names, business cards). */
typedef struct pmt_vars pmt_vars;

pmt_vars *pmt_vars_new(void);
void pmt_vars_free(pmt_vars *v);
int pmt_vars_set(pmt_vars *v, const char *name, const char *val, size_t len); /* 0 / -1 ENOMEM */
/* NULL when unbound. */
const char *pmt_vars_get(const pmt_vars *v, const char *name, size_t *len);
/* Recorded value `from` is `to` in this run (ignored when equal or empty). */
int pmt_vars_map(pmt_vars *v, const char *from, size_t flen, const char *to, size_t tlen);
/* Replace mapped values in s: the whole value, or occurrences of mapped
 * values of 6 bytes or more inside it.  Appends to out; returns 1 when
 * something was replaced, 0 when out holds s unchanged, -1 on ENOMEM. */
int pmt_vars_subst(const pmt_vars *v, const char *s, size_t len, pmc_out *out);

/* ------------------------------------------------------------- patterns */

typedef enum pmt_pvkind {
    PMT_PV_LIT = 0, /* exact value (tolerant comparison when the pattern is recorded) */
    PMT_PV_ANY,     /* * */
    PMT_PV_REGEX,   /* ~regex */
    PMT_PV_VAR,     /* ${name} */
} pmt_pvkind;

typedef struct pmt_ppair {
    char *key;
    pmt_pvkind kind;
    char *val; /* literal bytes, regex text or variable name; NUL-terminated */
    size_t vlen;
    void *re;  /* compiled regex_t for PMT_PV_REGEX */
} pmt_ppair;

typedef struct pmt_pattern {
    pmc_wire wire;
    char *cmd;
    pmt_ppair *pairs;
    size_t n;
    bool open;     /* "...": other keys allowed */
    bool recorded; /* made from a recorded message: tolerant literal comparison */
    uint32_t notes;/* recorded: the decoder notes (padding style for re-encoding) */
    char *raw;     /* recorded: the exact bytes */
    size_t rawlen;
} pmt_pattern;

/* Parse pattern text.  Returns 0, or -1 with a message and *errpos (0-based). */
int pmt_pattern_parse(const char *text, size_t len, pmt_pattern *p, size_t *errpos, char *err,
                      size_t errlen);
/* Copy a decoded message into a recorded (all-literal) pattern. */
int pmt_pattern_from_msg(const pmc_msg *m, pmt_pattern *p);
void pmt_pattern_free(pmt_pattern *p);
/* One-line human text: "v2 kvs-get jobid=x key=k1". Returns length needed. */
size_t pmt_pattern_text(const pmt_pattern *p, char *buf, size_t n);
size_t pmt_msg_text(const pmc_msg *m, char *buf, size_t n);

/* Wire bytes of a pattern: ${name} substituted, recorded values mapped
 * (pmt_vars_subst).  A recorded pattern whose values did not change is
 * written as its exact recorded bytes; otherwise it is re-encoded with the
 * codec keeping the recorded length padding.  d: dialect for patterns that
 * are not recorded (NULL = strict).  Returns 0, or -1 with err (unbound
 * variable, wildcard in a message to send, encoder refusal). */
int pmt_pattern_render(const pmt_pattern *p, const pmt_vars *v, const pmc_dialect *d,
                       pmc_out *out, char *err, size_t errlen);

/* What may legitimately differ when a recorded message is compared with a
 * live one. */
typedef struct pmt_match_opts {
    const char *const *keys;    /* message keys whose values may differ (NULL-terminated) */
    const char *const *kvskeys; /* substrings of KVS keys whose values may differ */
} pmt_match_opts;
/* kvsname, jobid, port, hostname, host; businesscard, -bcast-, -allgather-shm-,
 * PMI_hostname, hwloc */
const pmt_match_opts *pmt_match_opts_default(void);

/* Does actual message m match pattern p?  On success captures are bound
 * and recorded->live mappings added to v; on failure v is unchanged and
 * `why` says what differed.  kvskey: the KVS key the message is about when
 * the message itself has no key= (the request it answers), or NULL. */
bool pmt_match(const pmt_pattern *p, const pmc_msg *m, pmt_vars *v, const pmt_match_opts *o,
               const char *kvskey, char *why, size_t whylen);

/* ------------------------------------------------------------- triggers */

/* The request selector of a server directive (pmt_directive.trigger): a
 * pattern whose wire may be left out (then v1 and v2 requests both match)
 * and that allows keys it does not name, as if it ended in "...". */
typedef struct pmt_trigger {
    bool any;        /* "*" / NULL text: every request */
    bool anywire;    /* no wire given: p (v2) or p1 (v1) */
    pmt_pattern p, p1;
} pmt_trigger;

/* Compile trigger text (NULL or "*": any request).  Returns 0, or -1 with a
 * message and the 0-based offset in the text of what is wrong. */
int pmt_trigger_compile(const char *text, pmt_trigger *t, size_t *errpos, char *err,
                        size_t errlen);
/* Does request m match?  Captures (${name}) bind in v on a match. */
bool pmt_trigger_match(const pmt_trigger *t, const pmc_msg *m, pmt_vars *v);
/* The command name the trigger requires; NULL for "*". */
const char *pmt_trigger_cmd(const pmt_trigger *t);
void pmt_trigger_free(pmt_trigger *t);

/* --------------------------------------------------------------- runner */

typedef enum pmt_act_kind {
    PMT_ACT_SEND = 1, /* write buf[0..len) in pieces cut at cuts[], delay_ms between them */
    PMT_ACT_WAIT,     /* read up to timeout_ms; then feed/eof/timeout */
    PMT_ACT_SHUTDOWN, /* the played side closes its writing end; then pmt_runner_done_action */
    PMT_ACT_CLOSE,    /* the played side closes the connection; then pmt_runner_done_action */
    PMT_ACT_DONE,     /* the script ended and everything matched */
    PMT_ACT_FAILED,   /* a divergence (pmt_runner_divergence) or a setup error */
} pmt_act_kind;

typedef struct pmt_action {
    pmt_act_kind kind;
    const char *buf;  /* SEND: valid until the next runner call */
    size_t len;
    const size_t *cuts;
    size_t ncuts;
    unsigned delay_ms;
    unsigned pause_ms;   /* SEND: wait this long before the first piece (pause=MS) */
    unsigned timeout_ms; /* WAIT */
} pmt_action;

typedef struct pmt_divergence {
    uint32_t line;      /* trace line of the expected event (0 = end of script) */
    char conn[PMT_CONN_MAX];
    char expected[1024];
    char actual[1024];
    char why[256];
    bool failure;       /* the expected event is a failure mark (PMT_F_FAILURE) */
} pmt_divergence;

typedef struct pmt_runner_opts {
    const pmt_match_opts *match; /* NULL: pmt_match_opts_default() */
    const pmc_dialect *dialect;  /* for patterns; NULL: strict */
    unsigned timeout_ms;         /* default wait for a message (10000) */
    unsigned optional_ms;        /* wait for an optional message before going on (200) */
    unsigned silence_ms;         /* a recorded timeout event without a duration (300) */
    /* Judged replays: an expected message that is not a failure mark
     * matches any message of the same command, so that only the failure
     * decides (values learnt from it as far as they compare). */
    bool lenient;
} pmt_runner_opts;

typedef struct pmt_runner pmt_runner;

/* Steps of connection `conn` of t, playing side `play` (PMT_CLIENT: send
 * the C>S events, check the S>C ones).  v is shared between runners of one
 * replay (captures of one rank are visible to the others).  NULL with a
 * message in err when the trace cannot be played (a checked stream whose
 * recorded bytes do not decode is kept as raw bytes, not an error). */
pmt_runner *pmt_runner_new(const pmt_trace *t, const char *conn, pmt_side play, pmt_vars *v,
                           const pmt_runner_opts *o, char *err, size_t errlen);
void pmt_runner_free(pmt_runner *r);
void pmt_runner_next(pmt_runner *r, pmt_action *a);
void pmt_runner_done_action(pmt_runner *r); /* after SEND, SHUTDOWN, CLOSE */
void pmt_runner_feed(pmt_runner *r, const void *buf, size_t len);
void pmt_runner_eof(pmt_runner *r);
void pmt_runner_timeout(pmt_runner *r);
const pmt_divergence *pmt_runner_divergence(const pmt_runner *r); /* NULL when none */
size_t pmt_runner_matched(const pmt_runner *r); /* messages compared equal so far */
size_t pmt_runner_steps(const pmt_runner *r);
/* Steps that check the peer (a message, bytes, its end, its silence): 0
 * when the trace holds nothing of the other side for this connection. */
size_t pmt_runner_checks(const pmt_runner *r);
/* Failure marks (PMT_F_FAILURE) among the expected events, and how many of
 * them arrived as recorded. */
size_t pmt_runner_failures(const pmt_runner *r, size_t *matched);
/* Cross-connection order for several runners of one job: the trace time
 * of the current step, and whether the runner still waits for a message
 * recorded before `usec` (another connection's send recorded at usec
 * should then wait: a barrier released in the recording only after it). */
uint64_t pmt_runner_usec(const pmt_runner *r);
bool pmt_runner_waiting_before(const pmt_runner *r, uint64_t usec);
/* Print a divergence with both versions side by side (width columns). */
void pmt_divergence_print(FILE *f, const pmt_divergence *d, int width);

#ifdef __cplusplus
}
#endif
#endif
