/* pmi2-conform client mode: the embedded mock server runs the client under
 * test (any program: a driver linked against a PMI library, an MPI program)
 * once per distinct run spec, records every request it sends, and client
 * cases grade the recordings and the program's own report lines.
 *
 *   static void run_x(pcf_ctx *c) {
 *       const pcf_crun *r = pcf_client_run(c, &(pcf_cspec){ .np = 1, .script = "all" });
 *       if (!r) return;                              // observed harness-error/skip already
 *       const pcf_creq *q = pcf_creq_find(r, 0, "kvs-put", 1);
 *       ...; pcf_observe(c, "ok", "...");
 *   }
 *   static const pcf_ccase cases[] = { { .c = { .id = "client/kvs/put", ... }, .run = run_x } };
 *   PCF_CLIENT_CASES(cases)
 *
 * A client case is a pcf_case (id, clause, outcome table, flags PCF_V1/PCF_V2
 * for the protocol the client must speak) plus a run function; the registry
 * of client cases is separate from the server cases', so server mode never
 * sees them. */
#ifndef PCF_CLIENT_H
#define PCF_CLIENT_H

#include "internal.h"
#include "pmiserver/server.h"
#include "pmitrace/trace.h"

enum { PCF_CDRIVER = 1u << 8 }; /* needs the driver's report lines (pmi2-driver/pmi1-driver) */

typedef struct pcf_ccase {
    pcf_case c; /* c.run is unused */
    void (*run)(pcf_ctx *c);
} pcf_ccase;

void pcf_register_client(const pcf_ccase *cases, size_t n, const char *file);
#define PCF_CLIENT_CASES(arr)                                                                    \
    __attribute__((constructor)) static void PCF_CASES_CAT(pcf_cregister_, __LINE__)(void)       \
    {                                                                                            \
        pcf_register_client(arr, sizeof(arr) / sizeof((arr)[0]), __FILE__);                     \
    }

/* What to run. Zero fields take the defaults: the run's --persona, -n (2), script "all". */
enum { PCF_CMAX_FAULTS = 4 };
typedef struct pcf_cspec {
    const char *persona;
    int np;
    const char *script;             /* PCF_DRIVER_SCRIPT for the driver */
    pms_fault faults[PCF_CMAX_FAULTS];
    int nfaults;
    bool abort_ignored;             /* abort does not kill the job (ABORT-8: who waits?) */
    bool linger;                    /* the server reads on after finalize (FINALIZE-2) */
    const char *fd_junk;            /* appended to PMI_FD ("3abc": ENV-8) */
    int nodes;                      /* simulated nodes (1) */
    bool cyclic;                    /* ranks dealt over the nodes round robin (else block) */
    size_t max_val;                 /* the server's value limit, announced as vallen_max */
} pcf_cspec;

/* One request the client sent, as the server decoded it. */
typedef struct pcf_creq {
    int rank;
    pmc_wire wire;
    char name[64];
    char *raw;
    size_t len;
    uint32_t notes;      /* codec notes: non-canonical forms */
    uint32_t vnotes;     /* validation notes */
    bool valid;          /* no fatal validation finding */
    char findings[400];  /* "code: detail; ..." ("" when none) */
    bool unknown_keys;   /* a key the schema does not know */
    bool thrid;          /* carries thrid */
    bool thrid_first;    /* ... as the first pair after cmd */
    bool before_reply;   /* arrived before any byte of a response to this rank */
    bool outstanding;    /* another request of this rank was still unanswered */
    uint64_t usec;
} pcf_creq;

typedef struct pcf_crank {
    char *out;           /* stdout */
    size_t outlen;
    char err[2048];      /* last bytes of stderr */
    size_t errlen;
    int status;          /* wait status */
    bool exited;
    size_t c2s_before_reply; /* client bytes received before the first server byte */
    size_t s2c;          /* server bytes sent */
    char first[128];     /* the server's first bytes to it (response_to_init), NUL-ended */
    size_t firstlen;
    bool eof;            /* the client closed its connection */
    char close_why[200];
    char decode_err[300]; /* the first framing error of its stream */
    int pending;         /* requests sent minus responses sent (approximate) */
    int conns;           /* connections opened for this rank */
    int conn0;           /* the server's id of its first connection (-1: none yet) */
} pcf_crank;

typedef struct pcf_crun {
    pcf_cspec spec;
    char persona[32];
    int np;
    pcf_crank *ranks;
    pcf_creq *req;
    size_t nreq, capreq;
    bool timed_out;
    bool aborted;        /* a rank sent abort: the job was killed, as a launcher does */
    bool driver;         /* printed "pcf-driver" */
    int driver_api;      /* its "api=pmiN": 1 (pmi.h) or 2 (pmi2.h); 0 unknown */
    int proto;           /* 1 or 2: the init line's pmi_version; 0 unknown */
    char jobid[96];      /* the mock server's job id (PMI_JOBID, kvsname) */
    int fired[PCF_CMAX_FAULTS];
    uint64_t usec;
    char error[256];     /* harness failure ("" when none) */
    /* Every byte both ways and every connection event, as the server saw
     * them (connection "r<rank>", a rank's later ones "r<rank>.c<id>"):
     * the case's transcript in the reports. */
    pmt_trace trace;
    uint64_t t0;         /* when the run started (pws_now_usec) */
    /* The server tore the job down itself (a dialect persona's answer to a
     * request it refuses: Hydra ends the job, H1), not on a client's abort. */
    bool server_ended;
    int ended_rank;
    uint64_t ended_usec; /* when (the transcript's clock) */
    char ended_why[200];
} pcf_crun;

/* Run the app under spec (or return the cached run of an identical spec).
 * NULL after observing "harness-error" when it could not be started. */
const pcf_crun *pcf_client_run(pcf_ctx *c, const pcf_cspec *spec);

/* The nth (1-based) request named `name` from `rank` (-1: any), or NULL. */
const pcf_creq *pcf_creq_find(const pcf_crun *r, int rank, const char *name, int nth);
size_t pcf_creq_count(const pcf_crun *r, int rank, const char *name);
/* "init, get_maxes, ..." : the names of rank's requests in order (truncated). */
const char *pcf_creq_names(const pcf_crun *r, int rank, char *buf, size_t n);
/* Decode a recorded request again (valid until the next call on this ctx). */
int pcf_creq_msg(pcf_ctx *c, const pcf_creq *q, pmc_msg *m);
/* Printable rendering of raw bytes (\xNN, \n), truncated. */
const char *pcf_cshow(const char *p, size_t n, char *buf, size_t bn);

/* The driver's report line of `call` on `rank` (first one), its rc, a field. */
const char *pcf_cline(const pcf_crun *r, int rank, const char *call);
bool pcf_crc(const pcf_crun *r, int rank, const char *call, long *rc);
bool pcf_cfield(const pcf_crun *r, int rank, const char *call, const char *key, char *buf,
                size_t n);
bool pcf_cended(const pcf_crun *r, int rank); /* printed pcf-end and exited 0 */
/* The driver reported "pcf <call> absent": the library has no such function. */
bool pcf_cabsent(const pcf_crun *r, int rank, const char *call);
/* Observe "absent" when some rank's library lacks call ("PMI2_Job_Spawn",
 * or "PMI2_KVS_Get:missing": the report's name) and return true.  A case
 * whose outcome is "absent" is UNSUPPORTED unless its table says otherwise. */
bool pcf_clacks(pcf_ctx *c, const pcf_crun *r, const char *call);
/* `call` has no report on `rank` because the program's init call failed:
 * observe "init-failed" under the init clause (INIT-9 for PMI-1, FULLINIT-9
 * or, under a dialect persona, FULLINIT-8 for PMI-2; a case's own
 * "init-failed" outcome wins), with a hint when the program asked for PMI
 * 1.1 only, and return true. */
bool pcf_cinit_failed(pcf_ctx *c, const pcf_crun *r, int rank, const char *call);
/* The call's rc on `rank`: 0, or -1 after observing why there is none (the
 * library lacks it, init failed, `hang` when the run timed out, else
 * "no-report" with the rank's status and stderr). */
int pcf_crc_of(pcf_ctx *c, const pcf_crun *r, int rank, const char *call, long *rc,
               const char *hang);
/* A message built with the encoder (strict dialect), for a fault's bytes:
 * valid until four more are built (a run copies its faults' bytes).  NULL
 * when the encoder refuses. */
const char *pcf_cencode(pmc_enc *e, size_t *n);
/* q is the driver's kvs-put of a;b;c (key pcf-semi*) with its ';' sent as is,
 * otherwise as the encoder writes it: ESC-1's finding (client/api/escape-sent),
 * which the cases that read the same bytes another way leave to it. */
bool pcf_creq_semi_unescaped(pcf_ctx *c, const pcf_creq *q);
/* The call's x=<hex> field is the hex of `want`. */
bool pcf_chex_is(const pcf_crun *r, int rank, const char *call, const char *want);
/* The pmi_version and pmi_subversion of rank's init line (-1: unknown). */
void pcf_creq_init_version(const pcf_crun *r, int rank, long long *v, long long *sv);
/* The job of this run was torn down by the server on a request SPEC.md
 * allows (the persona refuses it, as the server it stands for does), or,
 * with on_close, when the program closed its connection before finalize
 * (Hydra ends the job then, CONN-6): observe "server-ended" (UNSUPPORTED
 * unless the case's table says otherwise) and return true.  A request
 * outside SPEC.md is the client's own doing: false. */
bool pcf_cserver_ended(pcf_ctx *c, const pcf_crun *r, bool on_close);
/* The integer `key` of the first response named `name` the server sent to
 * rank (decoded from the run's transcript); false when there is none. */
bool pcf_cresponse_int(const pcf_crun *r, int rank, const char *name, const char *key,
                       long long *v);
/* Some response named `name` the server sent to rank carried key=value (as
 * SPEC.md decodes it). */
bool pcf_cresponse_has(const pcf_crun *r, int rank, const char *name, const char *key,
                       const char *value);
/* "exit 0", "signal 9", "still running" */
const char *pcf_cstatus(const pcf_crun *r, int rank, char *buf, size_t n);

/* Client mode entry (main.c). */
int pcf_run_client(const pcf_opts *o, const char *persona, char **app);
int pcf_client_list(const pcf_opts *o);
int pcf_client_registry_check(FILE *f);

#endif
