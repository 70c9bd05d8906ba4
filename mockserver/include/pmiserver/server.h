/* pmi-mockserver as a library: a PMI-1/PMI-2 process manager for one machine
 * that the launcher tool, the conformance suite (client mode), trace replay,
 * the fuzzers and the benchmarks embed.
 *
 *   pms_config c; pms_config_default(&c);
 *   pms_server *s = pms_server_new(&c);
 *   pms_job *j = pms_job_create(s, 4, NULL);          // a job of 4 ranks
 *   int fd = pms_attach_rank(s, j, 0);                 // the client's end (PMI_FD)
 *   ... pms_server_run(s, -1) until pms_server_done(s) ...
 */
#ifndef PMISERVER_SERVER_H
#define PMISERVER_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pmicodec/pmicodec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pms_server pms_server;
typedef struct pms_job pms_job;
typedef struct pms_conn pms_conn;

typedef enum pms_mapping { PMS_MAP_BLOCK = 0, PMS_MAP_CYCLIC = 1 } pms_mapping;

typedef struct pms_config {
    const char *persona;      /* "strict" (SPEC.md), "hydra-4.0", "hydra-4.1", "slurm",
                               * "pmi1", "no-nameserv" */
    int nodes;                /* simulated nodes (1) */
    pms_mapping mapping;      /* how ranks map to nodes */
    bool wrap_mapping;        /* PMI_process_mapping as its shortest block list that,
                               * applied again and again, places every rank
                               * ((vector,(0,2,1)) for 3 ranks dealt over 2 nodes) */
    int universe_size;        /* reported universe size; 0 = the job size */
    int appnum;               /* reported appnum (0) */
    const char *secret;       /* shared secret for the auth challenge; NULL = off */
    size_t secret_len;
    bool require_auth;        /* refuse fullinit without authtype=challenge-sha256 */
    pmc_limits limits;        /* decoder limits per connection */
    int verbose;              /* 0 quiet, 1 connection events, 2 every message */
    FILE *log;                /* where logs go (stderr) */
    const char *trace_path;   /* record every byte to this trace file; NULL = off */
    /* TLS on TCP listeners (PMI_SOCKTYPE=OpenSSL): PEM files; NULL = plain TCP. */
    const char *tls_cert, *tls_key;
    const char *tls_ca;       /* CA bundle for client certificates */
    bool tls_verify_client;   /* require a client certificate signed by tls_ca */
    /* Backpressure: a connection whose unsent replies exceed out_limit bytes
     * is not read (nor its buffered requests served) until they drain; one
     * that makes no write progress for stall_timeout_ms meanwhile is closed. */
    size_t out_limit;         /* 1 MiB */
    int stall_timeout_ms;     /* 30000 */
    /* Keep reading a connection after finalize, answering nothing, until the
     * client ends the stream: an observer (pms_faults_observe) then sees what
     * a client sends after finalize (FINALIZE-2), which a server that closes
     * (as every real one does) never reads. */
    bool finalize_linger;
    /* Whatever the persona: no name service (the persona answers the name
     * commands as commands it does not know; --no-nameserv). */
    bool no_nameserv;
    /* Jobs are named PREFIX_<n>; NULL: kvs_<pid>_<n>, unique per server
     * process (a harness that replays recorded requests names them alike). */
    const char *job_prefix;
} pms_config;

void pms_config_default(pms_config *c);
bool pms_persona_exists(const char *name);
/* The persona (a mutant) only shows in PMI_PORT mode: a launcher gives its
 * ranks PMI_PORT+PMI_ID unless told otherwise. */
bool pms_persona_wants_port(const char *name);
/* The mutants (the strict persona with one clause broken; persona
 * "mutant:NAME"), one per line: name TAB clause TAB what [TAB unobservable: why]. */
void pms_mutant_list(FILE *f);
/* The launcher sets MPI_LOCALNRANKS and MPI_LOCALRANKID (not the slurm persona) */
bool pms_server_local_env(const pms_server *s);

pms_server *pms_server_new(const pms_config *c);
void pms_server_free(pms_server *s);
const char *pms_server_error(const pms_server *s); /* last setup error */

/* Jobs.  `spawner` is the parent job for spawned jobs, NULL otherwise. */
pms_job *pms_job_create(pms_server *s, int size, pms_job *spawner);
const char *pms_job_id(const pms_job *j);
int pms_job_size(const pms_job *j);
bool pms_job_finished(const pms_job *j);   /* every rank finalized or gone */
int pms_job_exit_code(const pms_job *j);   /* abort's code, or 0 */
bool pms_job_aborted(const pms_job *j);
/* The persona stopped serving every connection of the job, as Slurm's PMI
 * agent does for the whole step after one failure (job_wide_failures). */
bool pms_job_unserved(const pms_job *j);

/* PMI_FD mode: a socketpair for rank `rank` of job `j`; returns the
 * client's end (close-on-exec cleared by the launcher), -1 on error. */
int pms_attach_rank(pms_server *s, pms_job *j, int rank);
/* Serve an already-connected socket (PMI_PORT clients, tests). The
 * connection is bound to a rank when the client identifies itself
 * (initack pmiid=, fullinit pmirank=). */
pms_conn *pms_attach_fd(pms_server *s, int fd, pms_job *j);

/* PMI_PORT mode: listen on TCP loopback (port 0 = any) or a UNIX socket path.
 * Writes the value for PMI_PORT ("host:port" or the path) into portbuf. */
int pms_listen_tcp(pms_server *s, pms_job *j, int port, char *portbuf, size_t n);
int pms_listen_unix(pms_server *s, pms_job *j, const char *path, char *portbuf, size_t n);

/* Run the event loop for at most timeout_ms (-1: until something happens).
 * Returns the number of events handled, or -1 on a fatal loop error. */
int pms_server_run(pms_server *s, int timeout_ms);
/* True when every job has finished (or aborted). */
bool pms_server_done(const pms_server *s);
/* True while one connection holds part of a message and the other
 * connections of its node wait for it, as under Hydra's proxy (the
 * hydra personas' head-of-line blocking, mpich-wire.md B7). */
bool pms_server_hol_blocked(const pms_server *s);

/* Hooks the launcher uses to learn about job events. */
typedef struct pms_events {
    void *ctx;
    /* a client asked to spawn: launch `nprocs` of argv for child job `j`. */
    int (*spawn)(void *ctx, pms_job *child, int cmd_index, const char *exe, char **argv,
                 int nprocs, char **info_keys, char **info_vals, int ninfo);
    /* abort: kill the job (or only `rank` when !world). */
    void (*abort)(void *ctx, pms_job *j, int rank, bool world, int code, const char *msg);
} pms_events;

void pms_set_events(pms_server *s, const pms_events *ev);

/* Let the embedding program watch its own descriptors (rank output pipes,
 * signalfd) from the same loop.  The callback gets the epoll events. */
typedef void (*pms_fd_cb)(void *ctx, int fd, uint32_t events);
int pms_watch_fd(pms_server *s, int fd, pms_fd_cb cb, void *ctx);
void pms_unwatch_fd(pms_server *s, int fd);

/* Jobs known to the server (spawned jobs are added as they are created). */
size_t pms_job_count(const pms_server *s);
pms_job *pms_job_at(const pms_server *s, size_t i);
/* Rank state as the server sees it: true once the rank sent finalize. */
bool pms_rank_finalized(const pms_job *j, int rank);
/* True once the rank connected (or identified itself). */
bool pms_rank_used(const pms_job *j, int rank);
/* True while a live connection is bound to the rank (PMI_PORT: a second
 * claim of it is refused). */
bool pms_rank_bound(const pms_job *j, int rank);
int pms_rank_node(const pms_job *j, int rank);
int pms_job_local_count(const pms_job *j, int node);
/* Mark a rank whose process has exited (so collectives stop waiting). */
void pms_rank_exited(pms_job *j, int rank);

/* ---- observation and fault injection (faults.c) ---------------------------
 *
 * The conformance suite's client mode grades every byte a client sends and
 * makes the server misbehave at chosen points; the mock server's scenario
 * files drive the same actions.  Nothing here changes what the server does
 * until an observer is set or a fault is added. */

/* Called from the event loop; the pointers are valid during the call only. */
typedef struct pms_observer {
    void *ctx;
    /* Every decoded request before the server acts on it: the codec's notes
     * (m->notes: non-canonical forms) and the schema validation with
     * PMC_VAL_REQUEST | PMC_VAL_UNKNOWN_KEYS (rep->f: findings). */
    void (*request)(void *ctx, int conn, int rank, const pmc_msg *m, const pmc_vreport *rep);
    /* Raw bytes as they cross the connection, in order (from_client: received). */
    void (*bytes)(void *ctx, int conn, int rank, bool from_client, const void *p, size_t n);
    /* The decoder rejected the client's bytes (framing errors). */
    void (*decode_error)(void *ctx, int conn, int rank, const pmc_error *e);
    /* Connection events: "open", "eof" (the client closed), "close" (why). */
    void (*event)(void *ctx, int conn, int rank, const char *what, const char *why);
} pms_observer;

void pms_set_observer(pms_server *s, const pms_observer *o); /* NULL: none */

/* Fault actions.  A fault selects requests by command name, rank and
 * occurrence; the action applies to that request or to its response (the
 * response named by the schema for the request, with the same thrid).
 *
 *   DELAY        hold the response for delay_ms before writing it.
 *   SPLIT        write the response's first `offset` bytes, wait delay_ms,
 *                then the rest (a message that arrives in two reads).
 *   UNSOLICITED  write data[0..len) (raw bytes, or a message built with
 *                pmc_enc_* and pmc_enc_end) before the response, or after it
 *                when `after` is set.
 *   ERROR        do not serve the request: answer it with the request's
 *                response name, rc (1 when 0) and errmsg (PMI-1: msg=, spaces
 *                become '_'), whatever the persona would do with errors.
 *   REORDER      hold the response until the next response on the same
 *                connection has been written (for thrid-tagged concurrent
 *                requests), or for at most delay_ms (2000 when 0).
 *   DROP         close the connection instead of answering (with `after`:
 *                answer, then close, so the client learns it only when it
 *                next writes or reads).
 *   KILL         do not answer: kill the rank's process with signo (SIGKILL
 *                when 0) through the killer (pms_set_killer); without one,
 *                close the connection.
 *   FAIL_FENCE   ERROR on kvs-fence (PMI-2) or barrier_in (PMI-1) when cmd
 *                is NULL; rc 1 and "fence failed" by default.
 *   PAD          PMI-2 responses only: data[0..len) (whole pairs, each
 *                "key=value;") written into the response right after its
 *                command pair, the length field rewritten: a response of
 *                many pairs, or a large frame, that is otherwise the real one
 *                (thrid included).  A PMI-1 response is left alone.
 *
 * While a connection has delayed output, later responses queue behind it, so
 * bytes of two messages never interleave.  Responses already in the socket
 * are not affected when a fault is added. */
typedef enum pms_fault_kind {
    PMS_FAULT_DELAY = 1,
    PMS_FAULT_SPLIT,
    PMS_FAULT_UNSOLICITED,
    PMS_FAULT_ERROR,
    PMS_FAULT_REORDER,
    PMS_FAULT_DROP,
    PMS_FAULT_KILL,
    PMS_FAULT_FAIL_FENCE,
    PMS_FAULT_PAD,
} pms_fault_kind;

typedef struct pms_fault {
    pms_fault_kind kind;
    const char *cmd;      /* request name ("kvs-get", "get"); NULL or "*": any request */
    int nth;              /* act on the nth selected request (1-based); 0: on every one */
    int rank;             /* only this rank's requests; -1: any rank */
    int delay_ms;         /* DELAY, SPLIT (the gap), REORDER (longest hold) */
    size_t offset;        /* SPLIT: bytes written before the gap (clamped to the message) */
    int rc;               /* ERROR, FAIL_FENCE */
    const char *errmsg;   /* ERROR, FAIL_FENCE; NULL: "injected error" / "fence failed" */
    const void *data;     /* UNSOLICITED: the bytes; PAD: the pairs */
    size_t len;
    bool after;           /* UNSOLICITED: after the response; DROP: close after it */
    int signo;            /* KILL */
    /* Optional finer selection (scripts: a request pattern, per-connection
     * occurrences): called for requests that cmd and rank selected; the
     * fault counts and acts only on those it accepts.  ctx must outlive
     * the fault. */
    bool (*accept)(void *ctx, int conn, int rank, const pmc_msg *m);
    void *accept_ctx;
} pms_fault;

/* Add a fault (everything is copied).  Returns its id (>= 0) or -1. */
int pms_fault_add(pms_server *s, const pms_fault *f);
void pms_fault_clear(pms_server *s);
/* Times the fault acted so far (-1: no such id). */
int pms_fault_fired(const pms_server *s, int id);
const char *pms_fault_kind_name(pms_fault_kind k); /* "delay", ... */
int pms_fault_kind_parse(const char *name);        /* -1 when unknown */

/* How KILL reaches a rank's process (the launcher or the embedding program). */
typedef void (*pms_kill_cb)(void *ctx, pms_job *j, int rank, int signo);
void pms_set_killer(pms_server *s, pms_kill_cb cb, void *ctx);

/* ---- scripts (script.c) ----------------------------------------------------
 *
 * The "@server" directives of a pmi-trace v2 scenario file (traces/README.md,
 * "Server scripts") added as faults: a trigger (request pattern, rank, nth
 * occurrence per connection) and an action.  The script owns what the
 * faults refer to: free it after the server (or after pms_fault_clear). */
typedef struct pms_script pms_script;

/* Read FILE and add its directives to s.  NULL on error, with
 * "FILE:line:column: what" in err: nothing is added for a file that does
 * not read or compile (out of memory while adding clears every fault). */
pms_script *pms_script_load(pms_server *s, const char *path, char *err, size_t errlen);
size_t pms_script_count(const pms_script *sc);
/* Times directive i acted so far (-1: no such directive). */
int pms_script_fired(const pms_script *sc, const pms_server *s, size_t i);
/* One line per directive: "FILE:LINE: ACTION fired N times". */
void pms_script_report(const pms_script *sc, const pms_server *s, FILE *f);
void pms_script_free(pms_script *sc);

#ifdef __cplusplus
}
#endif
#endif
