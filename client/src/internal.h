/* libpmiclient internals: one session per process (env -> io -> engine),
 * shared by the PMI-1 and PMI-2 entry points. */
#ifndef PMICLIENT_INTERNAL_H
#define PMICLIENT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "pmicodec/pmicodec.h"

/* Only the PMI_* and PMI2_* entry points leave the library. */
#define PMIC_EXPORT __attribute__((visibility("default")))

/* The longest value the library's decoder takes from a server. */
#define PMIC_MAX_VAL (1 << 20)

/* Internal status of a call; the API files map it to PMI_/PMI2_ codes. */
typedef enum pmic_status {
    PMIC_OK = 0,
    PMIC_E_COMM,    /* connection broken, framing error, end of stream */
    PMIC_E_PROTO,   /* a response we cannot use (wrong name, missing keys) */
    PMIC_E_NOMEM,
    PMIC_E_ENCODE,  /* the request cannot be written (value with a space in PMI-1, ...) */
    PMIC_E_TIMEOUT, /* a timed call or wait ran out (pmic_call_timed, events) */
} pmic_status;

/* ---------------------------------------------------------------- env.c */

typedef struct pmic_env {
    int fd;              /* PMI_FD, or -1 */
    const char *port;    /* PMI_PORT, or NULL */
    bool has_id;         /* PMI_ID */
    long id;
    bool has_rank, has_size;
    int rank, size;      /* PMI_RANK, PMI_SIZE */
    const char *jobid;   /* PMI_JOBID (Slurm), sent as pmijobid */
    int spawned;         /* PMI_SPAWNED */
    bool totalview;      /* PMI_TOTALVIEW non-zero: read cmd=tv_ready first */
    bool tls;            /* PMI_SOCKTYPE=OpenSSL */
    const char *tls_ca;  /* PMI_TLS_CA */
    char *secret;        /* PMI_AUTH_SECRET_FILE contents or PMI_AUTH_SECRET; NULL = no auth */
    size_t secret_len;
    int debug;           /* PMI2_DEBUG / PMI_DEBUG */
} pmic_env;

/* 0, or -1 with a reason in err (a variable that is set but malformed). */
int pmic_env_read(pmic_env *e, char *err, size_t errlen);
void pmic_env_clear(pmic_env *e);

/* ---------------------------------------------------------------- io.c, tls.c */

typedef struct pmic_io {
    int fd;
    void *ssl;               /* SSL *, NULL for a plain connection */
    void *ssl_ctx;           /* SSL_CTX * */
    pthread_mutex_t ssl_mu;  /* an SSL object is not safe for concurrent use */
    bool owns_fd;
} pmic_io;

/* Connect as the environment says (PMI_FD, else PMI_PORT).  0 or -1 with err. */
int pmic_io_open(pmic_io *io, const pmic_env *env, char *err, size_t errlen);
/* >0 bytes, 0 end of stream, -1 error. */
ssize_t pmic_io_read(pmic_io *io, void *buf, size_t n);
int pmic_io_write_all(pmic_io *io, const void *buf, size_t n); /* 0 or -1 */
/* Wait until a read would find bytes: 1, 0 when timeout_ms passed, -1 error. */
int pmic_io_wait(pmic_io *io, int timeout_ms);
void pmic_io_close(pmic_io *io);

/* TLS client on io->fd: handshake, verification against ca (NULL: the
 * system store) and host.  0 or -1 with err. */
int pmic_tls_start(pmic_io *io, const char *host, const char *ca, char *err, size_t errlen);
ssize_t pmic_tls_read(pmic_io *io, void *buf, size_t n);
bool pmic_tls_pending(pmic_io *io); /* decrypted bytes wait in the SSL object */
int pmic_tls_write_all(pmic_io *io, const void *buf, size_t n);
void pmic_tls_close(pmic_io *io);

/* ---------------------------------------------------------------- resp.c */

typedef struct pmic_kv {
    const char *key;
    const char *val;
    size_t vlen;
} pmic_kv;

/* A response copied out of the decoder, owned by the thread that asked. */
typedef struct pmic_resp {
    pmc_wire wire;
    const char *name;
    size_t npairs;
    pmic_kv *pairs;
} pmic_resp;

pmic_resp *pmic_resp_copy(const pmc_msg *m);
void pmic_resp_free(pmic_resp *r);
/* First occurrence wins (PAIR-4).  NULL when absent. */
const char *pmic_resp_get(const pmic_resp *r, const char *key, size_t *len);
/* 1 found and well formed, 0 absent, -1 malformed. */
int pmic_resp_int(const pmic_resp *r, const char *key, long long *out);
int pmic_resp_bool(const pmic_resp *r, const char *key, bool *out);
/* rc as a success flag: absent rc counts as 0 (RC-3), any other integer
 * or a malformed value as failure (RC-4). */
bool pmic_resp_ok(const pmic_resp *r);
/* "found"/"flag" (KVS-7) or, absent both, the rc: true when the value is there. */
bool pmic_resp_found(const pmic_resp *r);

/* ---------------------------------------------------------------- engine.c */

/* Whether the server echoes thrid; decided by the first tagged response. */
typedef enum pmic_tagmode { PMIC_TAG_UNKNOWN = 0, PMIC_TAG_ON, PMIC_TAG_OFF } pmic_tagmode;

typedef struct pmic_req pmic_req;
typedef struct pmic_evnode pmic_evnode;

typedef struct pmic_engine {
    pmic_io *io;
    pthread_mutex_t mu;      /* pending list, mode, decoder hand-over */
    pthread_mutex_t wmu;     /* the one write critical section */
    pthread_cond_t slot_cv;  /* a request may be admitted */
    pthread_cond_t ev_cv;    /* an event was queued, or the reader role is free */
    pmic_evnode *evq, **evtail; /* group-event frames nobody has taken yet (GROUP-10) */
    size_t nevwait;          /* threads in pmic_engine_next_event */
    pmc_decoder *dec;
    pmic_req *pending;
    size_t npending, nuntagged;
    bool reading;            /* some waiting thread is the progress reader */
    bool broken;
    pmic_tagmode tagmode;
    unsigned long next_thrid;
    const pmc_dialect *dialect;
    int debug;
} pmic_engine;

enum pmic_call_flags {
    PMIC_CALL_TAG = 1u << 0,       /* tag with thrid unless the server does not echo it */
    PMIC_CALL_TAG_KNOWN = 1u << 1, /* tag only once the server is known to echo (spawn:
                                    * Slurm rejects a spawn that carries thrid) */
    PMIC_CALL_NOREPLY = 1u << 2,   /* send and return (abort) */
};

int pmic_engine_init(pmic_engine *e, pmic_io *io, pmic_tagmode mode, int debug);
void pmic_engine_destroy(pmic_engine *e);
/* Send `req` (NULL: send nothing, wait for the next message) and wait for
 * the response named `expect` (or `alt`; NULL expect = any).  On PMIC_OK
 * *out holds the response (caller frees); on PMIC_E_PROTO *out may hold the
 * unexpected response.  The builder is always consumed. */
pmic_status pmic_call(pmic_engine *e, pmc_enc *req, unsigned flags, const char *expect,
                      const char *alt, pmic_resp **out);
/* Several messages written back to back in one write (a PMI-1 spawn's
 * mcmd blocks); the response to the last one is awaited. */
pmic_status pmic_call_multi(pmic_engine *e, pmc_enc *reqs, size_t nreq, unsigned flags,
                            const char *expect, const char *alt, pmic_resp **out);
/* pmic_call that gives up timeout_ms (> 0) after the request was written
 * with PMIC_E_TIMEOUT (GROUP-30); the request stays registered so that its
 * late answer is recognised and dropped.  timeout_ms <= 0: pmic_call. */
pmic_status pmic_call_timed(pmic_engine *e, pmc_enc *req, unsigned flags, const char *expect,
                            long timeout_ms, pmic_resp **out);
/* The oldest queued group-event frame (GROUP-9), caller frees.  Waits
 * timeout_ms (< 0: for ever, 0: what is buffered or readable now), reading
 * the connection itself when no other thread does.  PMIC_E_TIMEOUT when
 * nothing came, PMIC_E_COMM when the connection is gone. */
pmic_status pmic_engine_next_event(pmic_engine *e, long timeout_ms, pmic_resp **out);

/* ---------------------------------------------------------------- local.c */

/* A small string map for the singleton (KVS, node attributes, names). */
typedef struct pmic_map pmic_map;
pmic_map *pmic_map_new(void);
void pmic_map_free(pmic_map *m);
int pmic_map_put(pmic_map *m, const char *k, const char *v, bool replace); /* 0, 1 exists, -1 */
const char *pmic_map_get(pmic_map *m, const char *k);
int pmic_map_del(pmic_map *m, const char *k); /* 0 removed, 1 absent */

/* ---------------------------------------------------------------- mapping.c */

/* Ranks on the node of `rank` in a job of `size` according to a
 * PMI_process_mapping value (JOBATTR-6, JOBATTR-7, JOBATTR-11).  Returns
 * how many there are (<= size) and writes the first `max` of them,
 * ascending, to ranks (NULL when max is 0); -1 when the value does not
 * parse.  Time and memory follow max and the value, not size. */
int pmic_mapping_local_ranks(const char *mapping, int size, int rank, int *ranks, int max);
/* Parse "1,2,3" into array; returns the number of integers in the text
 * (may exceed arraylen; only arraylen are stored), -1 when malformed. */
int pmic_parse_int_list(const char *s, int *array, int arraylen);

/* ---------------------------------------------------------------- pmi2_api.c */

/* errmsg of this thread's last call that the server refused ("" if none). */
const char *pmic_last_errmsg(void);

/* ---------------------------------------------------------------- group_result.c */

struct PMI2X_Group_result;
struct PMI2X_Group_event;
/* The result keys of a group response or a complete event (GROUP-14,
 * GROUP-21, GROUP-29).  group: a success must carry ctxid and members.
 * NULL when out of memory; *bad when the answer is malformed (a success
 * without its keys, a broken info family, a malformed rc or ctxid). */
struct PMI2X_Group_result *pmic_group_result(const pmic_resp *r, bool group, bool *bad);
/* A group-event frame (GROUP-9); an event that cannot be read comes out
 * as PMI2X_EVENT_OTHER.  NULL when out of memory. */
struct PMI2X_Group_event *pmic_group_event(const pmic_resp *r);

/* ---------------------------------------------------------------- session.c */

enum pmic_state { PMIC_NONE = 0, PMIC_V1 = 1, PMIC_V2 = 2, PMIC_FINALIZED = 3 };

typedef struct pmic_session {
    pthread_mutex_t init_mu;
    atomic_int state;       /* pmic_state */
    bool singleton;
    pmic_env env;
    pmic_io io;
    pmic_engine eng;
    int rank, size, appnum, spawned;
    int debugged, verbose;
    char jobid[256];        /* PMI-2 job id (cached) / PMI-1 kvsname */
    bool have_jobid;
    char spawner_jobid[256];
    int v1_subversion;
    int kvsname_max, keylen_max, vallen_max;
    pthread_mutex_t local_mu; /* singleton maps */
    pthread_cond_t local_cv;  /* a node attribute was put (waits in a singleton) */
    pmic_map *kvs, *nodeattr, *names;
    pthread_mutex_t cache_mu; /* jobid cache */
    pthread_mutex_t grp_mu;   /* groups profile: discovery and subscription (groups.c) */
    int grp_profile;          /* 0 not asked yet, 1 offered, -1 absent */
    bool grp_subscribed;
} pmic_session;

extern pmic_session pmic_S;

/* Connect and run the PMI-1 or PMI-2 handshake (or set up a singleton).
 * Returns PMIC_OK, or a status with a reason logged. */
pmic_status pmic_session_start(int version);
pmic_status pmic_session_finalize(void);
void pmic_session_abort(bool world, int code, const char *msg);
void pmic_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
