/* Internal structures of the mock server. */
#ifndef PMISERVER_INTERNAL_H
#define PMISERVER_INTERNAL_H

#include "pmiserver/server.h"
#include "kvs.h"
#include "persona.h"
#include "strutil.h"
#include "tls.h"

#include <stdarg.h>

enum { PMS_READ_CHUNK = 65536 };

typedef enum pms_rank_state {
    PMS_RANK_NEW = 0,   /* not connected / not identified yet */
    PMS_RANK_LIVE,      /* connected */
    PMS_RANK_FINALIZED, /* sent finalize */
    PMS_RANK_GONE,      /* connection closed without finalize */
} pms_rank_state;

typedef struct pms_peer pms_peer;
typedef struct pms_port pms_port;

typedef struct pms_rank {
    pms_port *port;     /* its live process, NULL when none */
    int node;
    pms_rank_state state;
    int fence_epoch;   /* fences this rank has entered */
    int barrier_epoch; /* PMI-1 barriers entered */
    bool spoke;        /* sent at least one request */
    pms_kvs pending;   /* this rank's puts waiting for the next fence/barrier */
} pms_rank;

/* A request whose answer waits for something (a fence, a barrier, a node
 * attribute, a key).  Everything it needs is copied: the decoder's buffer
 * moves on. */
typedef enum pms_wait_kind {
    PMS_WAIT_FENCE = 1,    /* kvs-fence until every rank fenced (barrier personas) */
    PMS_WAIT_BARRIER,      /* PMI-1 barrier_in */
    PMS_WAIT_NODEATTR,     /* info-getnodeattr wait=TRUE */
    PMS_WAIT_KVS_GET,      /* kvs-get of a missing key while ranks are behind (lazy fence) */
    PMS_WAIT_RING,         /* Slurm ring: key = ring-left, group = ring-right, epoch = count */
} pms_wait_kind;

typedef struct pms_wait {
    pms_wait_kind kind;
    pms_port *port;     /* where the answer goes */
    int port_gen;       /* its generation: a closed connection's waits are dropped */
    int epoch;
    int node;
    pmc_wire wire;
    char *thrid;        /* NULL when the request had none */
    char *key;
    char *group;        /* PMI-1.2 barrier group */
    struct pms_wait *next;
} pms_wait;

struct pms_job {
    pms_server *srv;
    char id[96];
    int seq;
    int size;
    pms_job *spawner;
    pms_rank *ranks;
    pms_kvs kvs;          /* committed key-value pairs */
    pms_kvs pending;      /* puts into this job from other jobs' ranks (PMI-1
                           * kvsname=), waiting for the next fence */
    pms_kvs *nodeattr;    /* one per node */
    int fence_done;       /* completed fence epochs */
    int barrier_done;     /* completed barrier epochs */
    pms_wait *waits;
    bool aborted;
    bool rechecking;      /* pms_waits_recheck is running (a reply can re-enter it) */
    bool recheck_again;   /* ... and the waits changed under it: another pass */
    bool wedged;          /* persona job_wide_failures: nothing of this job is answered */
    int exit_code;
    pms_job **connected;  /* job-connect'ed jobs */
    size_t nconnected;
};

enum { PMS_EV_CONN = 1, PMS_EV_LISTEN = 2, PMS_EV_WATCH = 3 };

typedef struct pms_watch {
    int evkind; /* PMS_EV_WATCH */
    int fd;
    pms_fd_cb cb;
    void *ctx;
    struct pms_watch *next;
} pms_watch;

/* ---- layer "bytes" (conn.c) --------------------------------------------
 * A connection owns the socket, TLS, buffering, the decoder and
 * backpressure.  It calls nothing above it: what it decodes, and what
 * happens to it, goes up through the one set of callbacks it was given. */
typedef struct pms_conn_up {
    void (*message)(void *up, const pmc_msg *m);       /* one decoded request */
    void (*decode_error)(void *up, const pmc_error *e); /* one the decoder refused */
    void (*eof)(void *up);                              /* the peer ended its stream */
    void (*lost)(void *up, const char *why);            /* a read failed (before the close) */
    void (*fatal)(void *up, const char *why);           /* persona partial_len_fatal */
    void (*closed)(void *up, const char *why);          /* the connection is closed */
    void (*event)(void *up, const char *what, const char *why); /* observer: open/close/eof */
    void (*bytes)(void *up, bool from_client, const void *p, size_t n); /* observer */
    /* --mutant: true when this read is taken for a bad frame (NULL: none) */
    bool (*read_filter)(void *up, const void *p, size_t n, size_t pending);
    bool (*holding)(void *up); /* replies held above: not closed while they wait */
    int (*rank)(const void *up); /* for the log: the rank it is bound to, -1 none */
    /* head-of-line blocking: connections of one group (job) and node wait
     * for each other (persona hol_blocking) */
    void (*hol_key)(const void *up, const void **group, int *node);
} pms_conn_up;

struct pms_conn {
    int evkind;           /* PMS_EV_CONN: epoll data points here */
    pms_server *srv;
    int id;
    int gen;
    int fd;               /* -1 for an in-memory connection (fuzzing, tests) */
    const pms_conn_up *upc; /* the layer above, and its context */
    void *up;
    bool hol;             /* this connection can hold its group (set from above) */
    bool line_reads;      /* persona v1_one_read on a PMI-1 connection (set from above) */
    bool write_blocks;    /* answers go out with blocking writes (persona blocking_writes,
                           * mutant v1-blocking-write; set from above) */
    pmc_decoder *dec;
    pmc_out out;          /* bytes waiting to be written */
    size_t out_off;
    bool closing;         /* close once `out` is flushed */
    bool dead;            /* closed; freed at the end of the loop iteration */
    bool want_write;      /* EPOLLOUT registered */
    pms_tls *tls;         /* TLS session (TLS listeners), NULL for plain sockets */
    uint32_t ev_mask;     /* epoll events registered */
    bool unwatched;       /* out of epoll while held (hol_blocking): a hung-up peer would
                           * report EPOLLHUP at every wait */
    bool deaf;            /* never read again, kept open (persona eof_unnoticed,
                           * bad_len_finalize): closed when its process ends */
    int v1_skip_lf;       /* persona v1_one_read: line ends still to be thrown away */
    bool paused;          /* backpressure: unsent replies above out_limit */
    bool resume;          /* drained while paused: serve buffered requests */
    long long blocked_ms; /* since when writes block without progress; 0 = not */
    pms_conn *next;
};

/* ---- the reply port (port.c) --------------------------------------------
 * What the protocol handlers and the job state answer through.  A port is
 * one client process as the job state knows it: whom it answers for (job,
 * rank), and ops + ctx that take encoded replies down.  The state never
 * sees more: peer.c implements the port over a connection (its pms_peer
 * embeds the port and adds the PMI session), a unit test over a buffer. */

typedef struct pms_port_ops {
    /* a reply named cmd starts (faults match replies on it); may be NULL */
    void (*begin)(pms_port *p, const char *cmd, pmc_slice thrid);
    /* where replies are encoded: the port's own queue (a connection's
     * output), so that a reply is written where it goes, not copied */
    pmc_out *(*out)(pms_port *p);
    /* one reply just encoded at o->buf[before..len): the port may rewrite,
     * hold or drop it, and writes what is queued */
    void (*send)(pms_port *p, pmc_out *o, size_t before);
    /* bytes as they are, after what is queued, then written (len 0: write
     * what is queued, e.g. what was encoded into out() without send) */
    void (*raw)(pms_port *p, const void *buf, size_t len);
    void (*close)(pms_port *p, const char *why);           /* now, unanswered */
    /* close once the replies are out (flush: write them now) */
    void (*close_after)(pms_port *p, bool flush);
    void (*stop_reading)(pms_port *p, const char *why);    /* kept open, never read */
    void (*shut_reads)(pms_port *p); /* the peer's next write fails (fault drop after) */
    void (*drop_input)(pms_port *p);                       /* what is buffered, unread */
    size_t (*pending_input)(const pms_port *p);            /* bytes buffered, unread */
    /* persona on_error kill_job: the protocol error tears the job down */
    void (*fatal)(pms_port *p, const char *why);
    void (*error_sent)(pms_port *p, pmc_wire w);          /* may be NULL */
} pms_port_ops;

struct pms_port {
    const pms_port_ops *ops;
    void *ctx;            /* the port implementation's (peer.c: its pms_conn) */
    pms_server *srv;
    int id;               /* for logs and the observer: the connection's id */
    int gen;
    pms_job *job;         /* the process: (job, rank); rank -1 until identified */
    int rank;
    bool dead;            /* closed */
    bool deaf;            /* never read again (kept open) */
    bool finalized;       /* sent finalize: its end is not a failure */
    bool group_events;    /* sent group-subscribe: group-event frames may go out (GROUP-8) */
    /* requests spread over several messages, assembled by the job state */
    int pmi1_spawn_segments; /* mcmd=spawn blocks received for the current spawn */
    struct pms_spawn_req *pmi1_spawn; /* blocks of a PMI-1 spawn so far (spawn.c) */
    struct pms_putall *putall;        /* kvs-putall in progress (kvsall.c) */
    pms_port *next, *prev; /* the server's ports (s->ports): a job's crash closes all of its */
};

/* A connection's protocol side (peer.c): the port the handlers and the
 * state answer through, and the PMI session only the protocol reads. */
struct pms_peer {
    pms_port port;        /* first: peer.c's port ops find their peer from it */
    int version, subversion; /* from init, 0 before */
    bool fullinit;
    pmc_auth_server auth;
    bool auth_wait;       /* a challenge is outstanding */
    int claim;            /* PMI_PORT: the rank fullinit asked for while authenticating */
    struct pms_fconn *fx;             /* fault state: held output, armed faults (faults.c) */
    int synced_version;   /* peer.c: version + 1 when the connection was last told */
};

/* The peer whose port this is: every port on s->ports is a peer's (peer.c
 * adds them), never a test's. */
static inline pms_peer *pms_peer_of(pms_port *p)
{
    return (pms_peer *)p; /* the port is its first member */
}

typedef struct pms_listener {
    int evkind;           /* PMS_EV_LISTEN */
    int fd;
    bool is_unix;
    bool tls;             /* accepted connections speak TLS */
    char *path;
    pms_job *job;
    struct pms_listener *next;
} pms_listener;

typedef struct pms_service {
    char *name, *port;
} pms_service;

struct pms_server {
    pms_config cfg;
    const pms_persona *persona;
    pms_persona own_persona; /* a mutant's persona lives here (mutant.h) */
    pmc_decoder_opts dopts;
    int epfd;
    pms_job **jobs;
    size_t njobs;
    pms_conn *conns;
    pms_port *ports;      /* every connection's port (peer.c keeps the list) */
    /* re-serve a request (mutants that rewrite what they read): pms_dispatch */
    void (*serve)(pms_peer *p, const pmc_msg *m);
    pms_conn *hol;        /* holds part of a message: its node waits (persona hol_blocking) */
    int next_conn_id;
    pms_listener *listeners;
    pms_watch *watches;
    pms_kvs names;        /* name service: service -> port */
    pms_events ev;
    char err[256];
    FILE *trace;          /* --trace: pmi-trace v1 events (server.c) */
    long long t0_us;      /* trace timestamps count from here */
    pms_tls_ctx *tls;     /* NULL: TCP listeners are plain */
    pmc_enc enc;          /* reply under construction */
    struct pms_faults *faults; /* observer and fault table (faults.c); NULL: none */
    struct pms_groups *groups; /* the groups profile (groups.c); NULL: persona without it */
};

/* logging */
void pms_log(pms_server *s, int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* monotonic clock */
long long pms_now_ms(void);
long long pms_now_us(void);

/* trace recording (no-ops without --trace); kind/side are pmt_kind/pmt_side;
 * conn is the connection's id (log.c) */
void pms_trace_event(pms_server *s, int conn, int kind, int side, const void *data,
                     size_t len);

/* ---- connections: the bytes layer (conn.c) ---- */
/* rank: for the log and the trace only (identity lives above, peer.c) */
pms_conn *pms_conn_new(pms_server *s, int fd, const pms_conn_up *upc, void *up, int rank);
void pms_conn_close(pms_conn *c, const char *why);
void pms_conn_fail(pms_conn *c, const char *why); /* an abnormal end: always logged */
int pms_conn_input(pms_conn *c, const void *buf, size_t len); /* in-memory feed + dispatch */
/* bytes that complete what is buffered (a mutant's end of stream): fed and served */
int pms_conn_feed(pms_conn *c, const void *buf, size_t len);
/* the end of the stream: PMC_ERR with *e when a message was cut off */
int pms_conn_finish(pms_conn *c, pmc_error *e);
void pms_conn_write(pms_conn *c, const void *buf, size_t len); /* queue and flush */
pmc_out *pms_conn_out(pms_conn *c); /* the queue: bytes appended here go out at the next flush */
void pms_conn_flush(pms_conn *c);
void pms_conn_close_after(pms_conn *c); /* once `out` is flushed */
void pms_conn_shut_reads(pms_conn *c);  /* nothing more is read (a socketpair's writer fails) */
void pms_conn_deafen(pms_conn *c, const char *why); /* never read again, kept open */
pmc_decoder *pms_conn_decoder(pms_conn *c);
void pms_conn_readable(pms_conn *c);
/* epoll reported `events` for this connection */
void pms_conn_event(pms_conn *c, uint32_t events);
/* work epoll cannot report: requests held back by backpressure, TLS
 * records already decrypted, stalled peers.  Returns true when the
 * connection still has such work (the loop must not sleep). */
bool pms_conn_service(pms_conn *c, long long now_ms);

/* ---- peers: a connection's protocol side (peer.c) ---- */
/* A connection and its peer; bound to (job, rank) when rank >= 0.  NULL:
 * the rank is taken, or no memory. */
pms_conn *pms_open_conn(pms_server *s, int fd, pms_job *job, int rank);
pms_peer *pms_conn_peer(pms_conn *c);
void pms_peer_free(pms_peer *p); /* with its connection, at the end of the loop iteration */
/* PMI_PORT: the connection named no free rank and was refused (by whatever
 * the persona does with errors).  A persona that answers nothing closes it,
 * so the client sees EOF instead of waiting forever for an identity. */
void pms_conn_refused_identity(pms_port *c);
/* Slurm: answer finalize-response and never read the connection again
 * (persona bad_len_finalize) */
void pms_conn_drop_finalize(pms_port *c, const char *why);

/* ---- the reply port (port.c): begin, add fields (pmc_enc_* on &s->enc), send ---- */
pmc_enc *pms_reply_begin(pms_port *c, pmc_wire wire, const char *cmd, pmc_slice thrid);
void pms_reply_send(pms_port *c);
void pms_send_raw(pms_port *c, const void *buf, size_t len);
/* an error answer to a request that could be delimited */
void pms_reply_error(pms_port *c, pmc_wire wire, pmc_slice cmd, pmc_slice thrid, int rc,
                     const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
void pms_port_close(pms_port *c, const char *why);
void pms_port_close_after(pms_port *c, bool flush);
void pms_port_stop_reading(pms_port *c, const char *why);
void pms_port_drop_input(pms_port *c);
size_t pms_port_pending_input(const pms_port *c);
/* ERR-7: answer a command this server does not implement, per persona (replies.c) */
void pms_unknown_command(pms_port *c, const pmc_msg *m);
/* found/value answers of kvs-get and info-getnodeattr (replies.c) */
void pms_kvs_get_reply(pms_port *c, pmc_slice thrid, const pms_kv *kv);
void pms_nodeattr_reply(pms_port *c, pmc_slice thrid, const pms_kv *kv);
void pms_reply_found(pms_port *c, pmc_slice thrid, const char *resp, const char *val,
                     size_t vlen, bool found);

/* dispatch of one decoded message */
void pms_dispatch(pms_peer *c, const pmc_msg *m);
/* SPEC RC-6 numbers for a codec error (replies.c) */
int pms_rc_of(pmc_errcode code);
void pms_handle_v1(pms_peer *c, const pmc_msg *m);
void pms_handle_v2(pms_peer *c, const pmc_msg *m);

/* jobs */
pms_job *pms_job_find(pms_server *s, const char *id, size_t len);
int pms_job_node_of(const pms_job *j, int rank);
int pms_job_local_ranks(const pms_job *j, int node, int *out, int max);
size_t pms_process_mapping(const pms_job *j, char *buf, size_t n);
bool pms_job_bind(pms_job *j, pms_port *c, int rank); /* false if rank invalid or taken */
bool pms_job_rank_free(const pms_job *j, long long rank); /* in range, no live connection */
void pms_job_rank_gone(pms_job *j, int rank);

/* KVS: where a put goes, and what a get sees (FENCE-2, FENCE-6) */
void pms_kvs_store(pms_job *j, pms_port *c, pmc_wire w, pmc_slice k, pmc_slice v, int *rc);
pmc_slice pms_stored_value(const pms_persona *p, pmc_slice v); /* NUL, B9 truncation */
const pms_kv *pms_kvs_lookup(pms_job *j, const pms_port *c, pmc_slice k);
void pms_kvs_commit_all(pms_job *j);

/* waits */
pms_wait *pms_wait_add(pms_job *j, pms_wait_kind kind, pms_port *c, const pmc_msg *m);
void pms_wait_free(pms_wait *w);
void pms_fence_enter(pms_port *c, const pmc_msg *m);
void pms_barrier_enter(pms_port *c, const pmc_msg *m);
void pms_waits_recheck(pms_job *j); /* answer whatever became answerable */
/* A finalize answered (PMI-1 or PMI-2): the rank is done, its connection
 * closes after the answer (unless linger), waits on it are rechecked. */
void pms_port_finalize(pms_port *p);
void pms_waits_drop_port(pms_job *j, pms_port *c);

/* PMI-2 return codes (the pmi2.h values every implementation shares) */
enum {
    PMS_RC_OK = 0,
    PMS_RC_INIT = 1,
    PMS_RC_NOMEM = 2,
    PMS_RC_INVALID_ARG = 3,
    PMS_RC_INVALID_KEY = 4,
    PMS_RC_INVALID_KEY_LENGTH = 5,
    PMS_RC_INVALID_VAL = 6,
    PMS_RC_INVALID_VAL_LENGTH = 7,
    PMS_RC_INVALID_ARGS = 10,
    PMS_RC_OTHER = 14,
    /* what this project's servers send (SPEC RC-6) */
    PMS_RC_FAIL = 1,    /* a failed operation or a missing item */
    PMS_RC_KEY = 3,     /* a missing or malformed key */
    PMS_RC_UNKNOWN = 10 /* an unknown or unparsable command */
};
/* Hydra personas: a protocol error aborts the whole job with 255 (job.c) */
void pms_protocol_fatal(pms_port *c, const char *why);
/* Slurm: a crash of slurmstepd: every connection of the job closes (persona
 * job_wide_failures), or only c's */
void pms_job_crash(pms_port *c, const char *why);
/* Slurm: the job's connections are no longer answered (persona job_wide_failures) */
void pms_job_wedge(pms_port *c, const char *why);
/* persona netinfo_attr (job.c) */
bool pms_netinfo_sorts_after(pmc_slice k);
void pms_netinfo(char *buf, size_t n);
/* A rank's connection ended before finalize (persona eof_kills_job). */
void pms_rank_lost(pms_port *c, const char *why);

/* spawn (spawn.c), kvs-getall/putall (kvsall.c), ring (job.c) */
void pms_spawn_v2(pms_port *c, const pmc_msg *m);
void pms_spawn_v2_cmd(pms_port *c, const pmc_msg *m);
void pms_spawn_v1(pms_port *c, const pmc_msg *m);
void pms_spawn_conn_gone(pms_port *c);
void pms_kvs_getall(pms_port *c, const pmc_msg *m);
void pms_kvs_putall(pms_port *c, const pmc_msg *m);
void pms_kvs_putall_pair(pms_port *c, const pmc_msg *m);
void pms_ring_enter(pms_port *c, const pmc_msg *m);
/* a job that `j` may read: itself, its spawner, its children, connected jobs */
bool pms_job_may_read(const pms_job *j, const pms_job *o);
/* PMI_dead_processes: failed ranks as "1,3-5" (empty: none) */
void pms_dead_processes(const pms_job *j, char *buf, size_t n);

/* A behaviour mutant that acts on whole messages, not inside one handler,
 * is a set of filters at the places a fault filters too: a request before
 * it is routed and after it was handled, a reply on its way down, a
 * decoding error, a read, the end of the stream, an error answer; and the
 * connection flags it sets.  The registry (mutant.c) puts a mutant's set
 * in its persona (persona->filters); dispatch.c and peer.c run whatever
 * set the persona carries and name no mutant.  Any member may be NULL. */
typedef struct pms_mutant_filters {
    /* before routing: *m may be replaced by a rewritten copy (valid until
     * the next call); true when the mutant dealt with the request */
    bool (*request)(pms_peer *c, const pmc_msg **m);
    void (*after)(pms_peer *c, const pmc_msg *m);       /* after it was handled */
    void (*reply)(pms_peer *c, pmc_out *o, size_t before); /* may rewrite o[before..] */
    bool (*decode_error)(pms_peer *c, const pmc_error *e); /* true: dealt with */
    /* after each read of n bytes (before: bytes pending): true gives the
     * connection up for a bad frame */
    bool (*read)(pms_peer *c, const char *p, size_t n, size_t before);
    const char *(*eof_tail)(const pms_peer *c); /* bytes that complete a cut message */
    void (*error_sent)(pms_peer *c, pmc_wire wire);     /* an error answer went out */
    bool (*write_blocks)(const pms_peer *c);  /* answers go out with blocking writes */
    bool (*holds)(const pms_peer *c);         /* a partial line holds the node */
    void (*release)(void);  /* the server ends: free this thread's buffers */
} pms_mutant_filters;

/* the filters of the persona c runs as, NULL: none */
static inline const pms_mutant_filters *pms_filters(const pms_peer *c)
{
    return c->port.srv->persona->filters;
}

/* observation and fault injection (faults.c); cheap no-ops when unused */
bool pms_fault_request(pms_peer *c, const pmc_msg *m); /* true: a fault answered it */
/* Hand the request to the observer only (no fault, no answer). */
void pms_fault_observe(pms_peer *c, const pmc_msg *m);
void pms_fault_reply_begin(pms_peer *c, const char *cmd, pmc_slice thrid);
bool pms_fault_outgoing(pms_peer *c, pmc_out *o, size_t before); /* true: it took o[before..] */
bool pms_fault_holding(const pms_peer *c); /* replies wait in the fault queue */
int pms_faults_service(pms_server *s, long long now_ms, int timeout_ms);
void pms_faults_conn_free(pms_peer *c);
void pms_faults_free(pms_server *s);
void pms_observe_bytes(pms_peer *c, bool from_client, const void *p, size_t n);
void pms_observe_event(pms_peer *c, const char *what, const char *why);
void pms_observe_decode_error(pms_peer *c, const pmc_error *e);

/* the groups profile's glue (group_port.c; the state machine is groups.c) */
struct pms_groups *pms_group_state_new(pms_server *s); /* NULL: the persona lacks it */
bool pms_group_cmd(const pmc_msg *m);                  /* a group- command or event */
void pms_group_conn_gone(pms_port *c);        /* an identified connection closed */
void pms_group_rank_gone(pms_job *j, int rank); /* a rank ended (no connection) */

#endif
