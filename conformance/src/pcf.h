/* pmi2-conform: the case API.  A case file (conformance/cases/<section>.c)
 * defines a static array of pcf_case and registers it with PCF_CASES(array);
 * nothing in the core changes when a file is added.
 *
 *   static void run_echo(pcf_ctx *c) { ... pcf_observe(c, "ok", "thrid came back"); }
 *   static const pcf_case cases[] = {
 *       { .id = "pmi2/thrid/echo", .clause = "THRID-4",
 *         .desc = "thrid is copied into the response",
 *         .expected = "the response carries the request's thrid byte for byte",
 *         .flags = PCF_V2, .run = run_echo,
 *         .outcomes = { { "altered", PCF_DEVIATES, NULL, "thrid changed" } } },
 *   };
 *   PCF_CASES(cases)
 *
 * Grading (SPEC.md 1.3, Autobahn style): a case observes named outcomes; each
 * rank's observation is mapped through the case's table to a verdict, and the
 * case's verdict is the worst over the ranks.  PCF_DEVIATES grades from the
 * clause's level: MUST -> FAIL, SHOULD -> NON-STRICT, MAY -> INFO, and a
 * "graded NON-STRICT" clause -> NON-STRICT.  Outcomes not in the table:
 * "ok" -> PASS, "no-answer" -> TIMEOUT, "harness-error" -> ERROR, anything
 * else -> PCF_DEVIATES. */
#ifndef PCF_H
#define PCF_H

#include "clauses.h"
#include "pmicodec/pmicodec.h"
#include "pmisession/session.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum pcf_verdict {
    PCF_PASS = 0,
    PCF_NON_STRICT,
    PCF_UNSUPPORTED,
    PCF_INFO,
    PCF_FAIL,
    PCF_ERROR,
    PCF_TIMEOUT,
    PCF_SKIPPED,
    PCF_FLAKY,
    PCF_V_COUNT,
    PCF_DEVIATES = 100, /* outcome tables only: from the clause's level */
} pcf_verdict;

const char *pcf_verdict_name(int v);   /* "NON-STRICT" */
int pcf_verdict_parse(const char *s);  /* -1 when unknown */
int pcf_verdict_severity(int v);       /* PASS 0 ... FAIL highest; for the worst over ranks */
bool pcf_verdict_failing(int v, bool strict);

enum pcf_case_flags {
    PCF_V1 = 1u << 0,          /* needs a PMI-1 session (run with --pmi 1) */
    PCF_V2 = 1u << 1,          /* needs a PMI-2 session (the default) */
    PCF_DESTRUCTIVE = 1u << 2, /* may break this rank's connection or end the job */
    PCF_LOCAL = 1u << 3,       /* grades the handshake already recorded: runs even when
                                * the session could not be set up */
    PCF_COLLECTIVE = 1u << 4,  /* destructive, but every rank takes part (fences): it runs
                                * only in a launch of its own (--launch) */
    PCF_ALONE = 1u << 5,       /* destructive, and reads what another destructive case may
                                * leave behind where it cannot be undone (a PMI-1 put), or
                                * is graded by the ranks beside its victim, which must not
                                * have run a case of their own: with --launch, a launch of
                                * its own */
    PCF_PLACED = 1u << 6,      /* its verdict can depend on where the ranks run (it chooses
                                * ranks by node, or grades the server's word on placement):
                                * run under each shape of --nodes 1,2 (min_nodes > 1 implies
                                * it) */
};

/* Preconditions (pcf_case.needs): what a case needs besides its protocol
 * flags.  A launch probes what its cases need once, at start-up (probe.c);
 * a case whose need is absent is not run but graded UNSUPPORTED with the
 * probe's finding (a server that refuses or lacks an optional part is not
 * graded on it), never FAIL or TIMEOUT.  Adding one: a bit here and a probe
 * in probe.c's table. */
enum pcf_case_needs {
    PCF_NEED_ACCEPTED = 1u << 0, /* the server accepted the case's protocol at init (a
                                  * PCF_LOCAL case that grades the init answer itself
                                  * does not need it: a refusal is graded, INIT-8) */
    PCF_NEED_NAMESERV = 1u << 1, /* a name service (NAME-8: optional) */
    PCF_NEED_THREADED = 1u << 2, /* client mode: a library that did not say threaded=FALSE
                                  * in its fullinit (FULLINIT-3); one that did is not
                                  * graded on calls from several threads at once */
    PCF_NEED_SPAWN = 1u << 3,    /* PMI-1 spawn (a server may refuse every spawn: the
                                  * probe's spawn of /bin/true answered rc != 0) */
};

typedef struct pcf_outcome {
    const char *name;   /* "error-response", "closed", "job-killed", "no-answer" */
    int verdict;        /* pcf_verdict or PCF_DEVIATES */
    const char *clause; /* clause that grades this outcome; NULL: the case's */
    const char *text;   /* what it means, for reports */
} pcf_outcome;

enum { PCF_MAX_OUTCOMES = 12 };

typedef struct pcf_ctx pcf_ctx;

typedef struct pcf_case {
    const char *id;       /* stable, never reused: "pmi2/kvs/fence-visibility" */
    const char *desc;     /* one line */
    const char *clause;   /* SPEC.md clause id */
    const char *expected; /* the behaviour that passes, one line */
    /* What the case does, for `pmi2-conform explain`: one step per line
     * ("\n" between), as a server author reads it on the wire.  NULL: not
     * written yet (explain then shows desc and expected). */
    const char *steps;
    unsigned flags;       /* pcf_case_flags */
    int min_ranks;        /* 0/1: any job size */
    unsigned timeout_ms;  /* 0: the run's --timeout */
    unsigned needs;       /* pcf_case_needs */
    /* Hosts the case needs its ranks on (node map, pcf_nodes): 0/1 any; 2: a
     * cross-node clause, SKIPPED "needs 2 nodes" in a launch on one host. */
    int min_nodes;
    /* pcf_case_needs probed for the case but not keeping it from running:
     * it runs, and grades what the absence explains (an error answer from a
     * server that refuses every spawn) as UNSUPPORTED, through pcf_absent,
     * while what no absence excuses (a crash, silence) stays graded. */
    unsigned soft_needs;
    pcf_outcome outcomes[PCF_MAX_OUTCOMES];
    void (*run)(pcf_ctx *c);
} pcf_case;

void pcf_register(const pcf_case *cases, size_t n, const char *file);

#define PCF_CASES_CAT2(a, b) a##b
#define PCF_CASES_CAT(a, b) PCF_CASES_CAT2(a, b)
#define PCF_CASES(arr)                                                                           \
    __attribute__((constructor)) static void PCF_CASES_CAT(pcf_register_, __LINE__)(void)        \
    {                                                                                            \
        pcf_register(arr, sizeof(arr) / sizeof((arr)[0]), __FILE__);                             \
    }

/* ---- inside a case ------------------------------------------------------ */

int pcf_rank(const pcf_ctx *c);
int pcf_size(const pcf_ctx *c);
pws_session *pcf_session(pcf_ctx *c); /* this rank's PMI connection, initialised */
int pcf_pmi_version(const pcf_ctx *c); /* 1 or 2: how the session was initialised */
const char *pcf_jobid(const pcf_ctx *c);    /* PMI-2 job-getid at start-up ("" if unknown) */
const char *pcf_kvsname(const pcf_ctx *c);  /* PMI-1 get_my_kvsname at start-up */
/* A tag unique to this run of this case ("c7i0"), for KVS keys and thrids. */
const char *pcf_tag(const pcf_ctx *c);
uint64_t pcf_deadline(const pcf_ctx *c); /* absolute, pws_now_usec clock */
/* The node map the harness learned at start-up, not from the server: each
 * rank said its host name (PMI2_CONFORM_HOST, else uname's node name) in
 * its hello word, rank 0 handed out the map (conformance/README.md, "The
 * node map and placement").  Nodes are numbered
 * from 0 in the order of their first rank, so rank 0 is on node 0.
 * pcf_nodes: the number of distinct hosts, 0 when the map is unknown (client
 * mode); pcf_node_of: -1 then.  Cases whose verdict depends on placement
 * choose their ranks with these. */
int pcf_nodes(const pcf_ctx *c);
int pcf_node_of(const pcf_ctx *c, int rank);
const char *pcf_host_of(const pcf_ctx *c, int rank); /* "" when unknown */

/* Record what this rank saw.  The worst outcome (after grading) of a rank wins. */
void pcf_observe(pcf_ctx *c, const char *outcome, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
bool pcf_observed(const pcf_ctx *c); /* something recorded on this rank */
void pcf_note(pcf_ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Send a built message (strict dialect) with the case deadline.  On failure
 * it observes "closed" / "io-error" and returns -1. */
int pcf_send(pcf_ctx *c, pmc_enc *e);
int pcf_send_raw(pcf_ctx *c, const void *buf, size_t len);

/* Receive with the case deadline (pws_recv). */
pws_result pcf_recv(pcf_ctx *c, pmc_msg *m, pmc_error *err);

/* Send, then wait for a response named `reply`.  Returns 0 with *m set; on
 * anything else observes a standard outcome and returns -1:
 *   "no-answer" (deadline), "closed" (end of stream), "bad-response" (the
 *   codec rejected the bytes), "wrong-response" (another command), "io-error". */
int pcf_call(pcf_ctx *c, pmc_enc *e, const char *reply, pmc_msg *m);
/* Same after the caller sent the request some other way (raw bytes). */
int pcf_expect(pcf_ctx *c, const char *reply, pmc_msg *m);

/* Response helpers.  pcf_rc: 1 with *rc set when rc is a valid integer, 0 absent, -1 bad. */
int pcf_rc(const pmc_msg *m, long long *rc);
/* Copy a value as a C string (truncating); "" when absent.  Returns presence. */
bool pcf_get(const pmc_msg *m, const char *key, char *buf, size_t n);
/* "cmd=...;rc=0;..." style one-line rendering of a message, for details. */
const char *pcf_show(const pmc_msg *m, char *buf, size_t n);
/* Inside a case: the start-up probe found this need absent (soft_needs). */
bool pcf_absent(const pcf_ctx *c, unsigned need);
/* The outcome this rank observed so far in the case (NULL: none) and its
 * detail. */
const char *pcf_outcome_so_far(const pcf_ctx *c, const char **detail);
/* A decode error of what this case's session received, as a report shows
 * it: pmc_error_format's text, then the received bytes around the offset
 * (PCF_ERR_BEFORE before it, PCF_ERR_AFTER from it on), escaped, the
 * offending byte in brackets.  A buffer of PCF_ERR_TEXT holds it all. */
enum { PCF_ERR_BEFORE = 24, PCF_ERR_AFTER = 24, PCF_ERR_TEXT = 400 };
const char *pcf_decode_error(const pcf_ctx *c, const pmc_error *err, char *buf, size_t n);
/* The same for another session of the case (PMI_PORT helpers, groups). */
const char *pcf_decode_error_on(pws_session *s, const pmc_error *err, char *buf, size_t n);
/* The same for bytes decoded from a buffer (err->offset counted in raw). */
const char *pcf_decode_error_in(const pmc_error *err, const char *raw, size_t len, char *buf,
                                size_t n);
/* Hex encoding for KVS values that must survive any server. */
void pcf_hex(const void *p, size_t n, char *out, size_t outn);

/* The start-up exchange, recorded before the first case.  Raw bytes of
 * the server's responses (NULL when none arrived) and what went wrong. */
typedef struct pcf_handshake {
    bool ok;                 /* the session is usable */
    char error[256];         /* why not */
    char *init_raw;          /* response_to_init line */
    size_t init_len;
    char *fullinit_raw;      /* fullinit-response frame (PMI-2) */
    size_t fullinit_len;
    char *maxes_raw;         /* maxes line (PMI-1) */
    size_t maxes_len;
    bool refused;            /* response_to_init refused the protocol asked for */
    bool identified;         /* PMI_PORT: initack done (rank and size from the set lines) */
    int env_rank, env_size;  /* PMI_RANK / PMI_SIZE, -1 when unset */
    bool via_port;           /* PMI_PORT mode */
} pcf_handshake;
const pcf_handshake *pcf_hs(const pcf_ctx *c);
/* The decoder options of every harness session and of pcf_decode: the
 * protocol's hard bounds (a value as long as a frame can carry), never a
 * limit of the harness's own, so a server that stores and returns a long
 * value whole is graded on its answer; sizes are graded against their
 * clauses by the cases. */
void pcf_wire_decoder_opts(pmc_decoder_opts *o);
/* Decode saved bytes with a scratch decoder (valid until the next call). */
int pcf_decode(pcf_ctx *c, const char *raw, size_t len, pmc_msg *m, pmc_error *err);

/* KVS helpers for cases (PMI-2 and PMI-1).  Each returns 0, or -1 after
 * observing an outcome: the standard ones of pcf_call, or "put-refused" /
 * "fence-refused" when rc != 0.  pcf_kvs_get: *found false when the server
 * says "not found" in either form (rc=0;found=FALSE or rc != 0). */
int pcf_kvs_put(pcf_ctx *c, const char *key, const char *value);
int pcf_kvs_fence(pcf_ctx *c); /* kvs-fence, or barrier_in on PMI-1 */
int pcf_kvs_get(pcf_ctx *c, const char *key, bool *found, char *value, size_t n, pmc_msg *resp);

/* Wait ms where the requirement itself is about time (a rank that comes
 * late).  Never to learn whether the server survived something: ask it
 * (pcf_ask_served).  PCF_NO_WAITS=1 in the environment makes it return at
 * once: the benchmark's floor, every request and no wait. */
void pcf_pause_ms(pcf_ctx *c, unsigned ms);
/* Stay ms (a rank kept alive so that its end cannot end the job while
 * rank 0 records what it saw), or less: in a launch of the orchestrator,
 * until rank 0 has finished (its "done", or the "lost" that closes its
 * record after a case), which the orchestrator passes on to every rank. */
void pcf_stay_ms(pcf_ctx *c, unsigned ms);
/* The same rule for waits given to other calls (pws_send_split's delay):
 * ms, or 0 in the floor run. */
unsigned pcf_wait_ms(const pcf_ctx *c, unsigned ms);

/* Does the server still serve this connection?  Asked, not waited for: a
 * request every server answers (job-getid on PMI-2, get_maxes on PMI-1)
 * goes out, and its answer or the end of the stream tells.
 *   PWS_EOF      the server closed the connection (or the write failed)
 *   PWS_MSG      it answered: the connection is kept
 *   PWS_TIMEOUT  nothing within ms (kept open, silent); PWS_BAD: bytes that
 *                do not decode (kept open). */
pws_result pcf_ask_served(pcf_ctx *c, unsigned ms);

/* Has the server read what this rank sent?  Asked of the kernel: the
 * socket's send queue (for a Unix socket, bytes still in the server's
 * receive queue) is polled until empty, at most ms.  0 when it drained,
 * -1 when not (or the socket cannot tell). */
int pcf_wait_consumed(pcf_ctx *c, unsigned ms);
/* Has the server begun answering what this rank sent and not read?  The
 * bytes waiting unread in this rank's receive queue (FIONREAD) are polled
 * until some arrived and their count held still for settle_ms, at most
 * max_ms.  Returns that count (0: nothing came), -1 when the socket cannot
 * tell. */
long pcf_wait_answers_queued(pcf_ctx *c, unsigned settle_ms, unsigned max_ms);

/* A dialect like strict with another length padding (frame cases). */
const pmc_dialect *pcf_dialect_pad(pmc_len_pad pad);

#endif
