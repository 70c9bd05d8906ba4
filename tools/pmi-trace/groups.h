/* The groups profile (SPEC.md §12) as pmi-trace show and the diagram name
 * it.  A tracker follows a trace's decoded messages in order: each group-
 * request is paired with its response by connection and thrid (GROUP-11),
 * group-event frames are server-initiated and answer nothing (GROUP-9), and
 * every construction (collective, bootstrap, invite) is followed from its
 * first request to its completion or failure, with what every connection
 * was in it.  Pure bookkeeping: the codec decodes, this only reads pairs. */
#ifndef PMI_TRACE_GROUPS_H
#define PMI_TRACE_GROUPS_H

#include "tool.h"

enum { GT_TEXT = 480, GT_LIST = 200, GT_NAME = 72, GT_PARTS = 32, GT_MARKS = 16 };

typedef enum gt_kind { GT_NONE = 0, GT_REQUEST, GT_RESPONSE, GT_EVENT } gt_kind;

/* What a connection is in a construction. */
typedef enum gt_role {
    GT_ROLE_NONE = 0,
    GT_LEADER,   /* collective or bootstrap leader */
    GT_MEMBER,   /* added member (method=member) */
    GT_INVITER,  /* the leader of an invite */
    GT_INVITED,  /* got event=invited, has not answered */
    GT_JOINED,   /* group-join accept=TRUE */
    GT_DECLINED, /* group-join accept=FALSE */
} gt_role;

const char *gt_role_name(gt_role r);

/* One message as the tracker read it. */
typedef struct gt_msg {
    gt_kind kind;           /* GT_NONE: not a group- message */
    char grp[GT_NAME];      /* the group concerned ("" when unknown) */
    char text[GT_TEXT];     /* one line: what the message means */
    const char *clause;     /* SPEC.md clause, or NULL */
    char problem[200];      /* non-empty: an unanswerable response, an event with thrid, ... */
    long cons;              /* the construction it belongs to, -1 none */
} gt_msg;

typedef struct gt_part {
    char conn[PMT_CONN_MAX];
    gt_role role;
    size_t seq;            /* its first message in the construction */
    bool answered, ok;     /* got its result (a response or event=complete) */
    size_t done_seq;
    char done_text[96];    /* "ctxid 3" or "timeout, failed job0:1" */
} gt_part;

/* An invite failure (event=invite-failed) at the leader. */
typedef struct gt_mark {
    size_t seq;
    char conn[PMT_CONN_MAX];
    char text[96]; /* "job0:2 declined" */
} gt_mark;

typedef enum gt_state { GT_PENDING = 0, GT_COMPLETE, GT_FAILED } gt_state;

typedef struct gt_cons {
    char grp[GT_NAME];
    char method[16];          /* collective, bootstrap, invite; member while no leader is seen */
    gt_state state;
    bool destructed;
    size_t first, last;       /* seq of its first and last message */
    double t0, t1;
    char ctxid[24];
    char members[GT_LIST], failed[GT_LIST], reason[32];
    gt_part parts[GT_PARTS];
    size_t nparts;
    gt_mark marks[GT_MARKS];
    size_t nmarks;
} gt_cons;

typedef struct gt_tracker gt_tracker;

gt_tracker *gt_new(void);
void gt_free(gt_tracker *t);
/* One decoded message of connection conn, written by side; seq is the
 * caller's index of it (strictly increasing), secs its time.  Fills *g.
 * Returns 0, or -1 when out of memory. */
int gt_msg_read(gt_tracker *t, const char *conn, pmt_side side, const pmc_msg *m, size_t seq,
                double secs, gt_msg *g);
size_t gt_ncons(const gt_tracker *t);
const gt_cons *gt_cons_get(const gt_tracker *t, size_t i);
/* Group requests that no response answered (so far): "r1 group-construct
 * thrid=3 (group solver) at 0.000300".  i from 0; false past the last. */
bool gt_unanswered(const gt_tracker *t, size_t i, char *buf, size_t n);
/* "solver (bootstrap): complete, ctxid 3, members ...; leader r0, ..." */
void gt_cons_text(const gt_cons *c, char *buf, size_t n);

#endif
