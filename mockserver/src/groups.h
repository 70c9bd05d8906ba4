/* The groups extension profile (SPEC.md §12, GROUP-1..30): group-subscribe,
 * group-construct (collective, bootstrap, member), group-invite and
 * group-join with group-event frames, group-get and group-destruct.
 *
 * groups.c knows processes as (job, rank) and answers through one small
 * port (pms_group_port) that the state layer implements over peers and
 * their reply port (group_port.c).  It never sees a connection or a peer:
 * through the port it can be driven and tested without a socket
 * (docs/architecture.md, the layers of pmi-mockserver). */
#ifndef PMISERVER_GROUPS_H
#define PMISERVER_GROUPS_H

#include "pmicodec/pmicodec.h"

#include <stdbool.h>

typedef struct pms_job pms_job; /* opaque here */
typedef struct pms_groups pms_groups;

/* What the port says about a process. */
typedef enum pms_gproc_state {
    PMS_GPROC_ENDED = 0,  /* its connection closed, or it finalized and left */
    PMS_GPROC_PENDING,    /* not connected yet (a rank still to start) */
    PMS_GPROC_LIVE,       /* connected */
    PMS_GPROC_SUBSCRIBED, /* connected and sent group-subscribe (GROUP-8) */
} pms_gproc_state;

/* The reply interface.  begin/send frame exactly one message to a process:
 * begin returns the encoder (add pairs with pmc_enc_*; keys and values
 * must stay valid until send) or NULL when the process has no live
 * connection, in which case send is not called.  thrid.ptr NULL: none (an
 * event, GROUP-9).  A send can close a connection, which comes back as
 * pms_groups_proc_gone: groups.c defers that until its own work is done. */
typedef struct pms_group_port {
    void *ctx;
    pmc_enc *(*begin)(void *ctx, pms_job *j, int rank, const char *cmd, pmc_slice thrid);
    void (*send)(void *ctx, pms_job *j, int rank);
    pms_gproc_state (*state)(void *ctx, pms_job *j, int rank);
    void (*subscribe)(void *ctx, pms_job *j, int rank);
    /* jobs: by id, their id and size, and which jobs a caller's job may
     * put in a group (GROUP-6) */
    pms_job *(*find_job)(void *ctx, const char *id, size_t len);
    const char *(*job_id)(void *ctx, const pms_job *j);
    int (*job_size)(void *ctx, const pms_job *j);
    bool (*accepts)(void *ctx, const pms_job *caller, const pms_job *other);
    void (*log)(void *ctx, const char *text);
    /* the persona's mutant (mutant.h; mutants_groups.c names the group-
     * ones), NULL: none.  A plain name keeps groups.c off the persona. */
    const char *mutant;
} pms_group_port;

pms_groups *pms_groups_new(const pms_group_port *port);
void pms_groups_free(pms_groups *g);

/* One request of process (j, rank); m is valid during the call only. */
void pms_groups_subscribe(pms_groups *g, pms_job *j, int rank, const pmc_msg *m);
void pms_groups_construct(pms_groups *g, pms_job *j, int rank, const pmc_msg *m);
void pms_groups_invite(pms_groups *g, pms_job *j, int rank, const pmc_msg *m);
void pms_groups_join(pms_groups *g, pms_job *j, int rank, const pmc_msg *m);
void pms_groups_destruct(pms_groups *g, pms_job *j, int rank, const pmc_msg *m);
void pms_groups_get(pms_groups *g, pms_job *j, int rank, const pmc_msg *m);

/* The connection of (j, rank) closed, or its process ended unconnected
 * (GROUP-25, GROUP-20, GROUP-27). */
void pms_groups_proc_gone(pms_groups *g, pms_job *j, int rank);

/* Answer whatever timed out by now_ms (GROUP-24); returns the ms until the
 * next deadline, or -1 when nothing waits on one. */
int pms_groups_service(pms_groups *g, long long now_ms);

#endif
