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
    const char *persona;      /* "strict" (SPEC.md), "hydra-4.0", "hydra-4.1", "slurm" */
    int nodes;                /* simulated nodes (1) */
    pms_mapping mapping;      /* how ranks map to nodes */
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
} pms_config;

void pms_config_default(pms_config *c);
bool pms_persona_exists(const char *name);

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
int pms_rank_node(const pms_job *j, int rank);
int pms_job_local_count(const pms_job *j, int node);
/* Mark a rank whose process has exited (so collectives stop waiting). */
void pms_rank_exited(pms_job *j, int rank);

#ifdef __cplusplus
}
#endif
#endif
