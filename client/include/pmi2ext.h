/* pmi2ext.h: extensions of libpmiclient (pmi2-conform) beyond MPICH's pmi2.h.
 *
 * The groups profile (SPEC.md section 12, GROUP-1..30): processes of one or
 * several jobs form a named group with a final membership, a context id and
 * the information every participant contributed.  Only servers that answer
 * the job attribute PMI_ext_groups offer it (the strict persona of
 * pmi-mockserver does); the library asks before it sends any group command
 * (GROUP-3), and without the profile every PMI2X_Group_* call fails with
 * PMI2_ERR_OTHER and the reason "unsupported" without touching the wire.
 *
 * Every function is thread safe like the rest of the library, and needs
 * PMI2_Init first.  Return codes are those of pmi2.h:
 *   PMI2_SUCCESS          done (a construct or invite: the group completed);
 *   PMI2_FAIL             the server refused or failed the operation, or a
 *                         construct's answer did not come in its timeout plus
 *                         100 ms (GROUP-30): the reason ("timeout", "exited",
 *                         "mismatch", "not-member", "exists", "busy",
 *                         "unknown", "invalid", "limit") and the processes
 *                         that caused it are in the result and in
 *                         PMI2X_Group_last_reason()/PMI2X_Group_last_errmsg();
 *   PMI2_ERR_INIT         PMI2_Init has not been called;
 *   PMI2_ERR_INVALID_ARG  a bad argument (a group name outside GROUP-28's
 *                         grammar, a process id with ',' ...), reason "invalid";
 *   PMI2_ERR_NOMEM        out of memory;
 *   PMI2_ERR_OTHER        no usable answer: the profile is absent (reason
 *                         "unsupported"), the connection is gone ("connection")
 *                         or the server's answer cannot be read ("protocol").
 *
 * Process ids are "<jobid>:<rank>" (GROUP-5); lists given to the library are
 * arrays of such strings, lists it returns are in the server's order (sorted
 * by job id, then rank: GROUP-7).
 *
 * Events: invitations, invite failures and invite completions arrive as
 * group-event frames (GROUP-9) at any time, also while another call of the
 * process waits; the library queues them and PMI2X_Group_next_event hands
 * them out in arrival order.  A process receives events only once it has
 * subscribed (GROUP-8): PMI2X_Group_subscribe does it explicitly, and the
 * first PMI2X_Group_next_event or PMI2X_Group_invite does it implicitly.  A
 * process that wants to be invited must subscribe before the leader
 * invites it (an unsubscribed invitee is reported "unreachable"). */
#ifndef PMI2EXT_H_INCLUDED
#define PMI2EXT_H_INCLUDED

#include "pmi2.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the groups profile this library speaks (PMI_ext_groups). */
#define PMI2X_GROUPS_VERSION 1
/* Longest group name (GROUP-28), without the NUL. */
#define PMI2X_MAX_GRPNAME 64
/* A buffer that holds any process id this library builds. */
#define PMI2X_MAX_PROCID 288

/* One contributed pair and who contributed it (GROUP-22). */
typedef struct PMI2X_Group_info {
    const char *proc;
    const char *key;
    const char *val;
} PMI2X_Group_info;

/* The result of a construct, an invite, a destruct or a completion event.
 * rc is the server's (0: completed).  On success ctxid, members and info
 * are set; an invite's failed lists the invitees that did not join.  On
 * failure reason and errmsg are the server's (or the library's own when no
 * answer came: reason "timeout") and failed the processes that caused it.
 * Strings live as long as the result; free it with PMI2X_Group_result_free. */
typedef struct PMI2X_Group_result {
    int rc;
    char *grp;
    long long ctxid;          /* 1 .. 2^63-1, unique to the group (GROUP-15); 0 on failure */
    int nmembers;
    char **members;
    int ninfo;
    PMI2X_Group_info *info;   /* contributors in GROUP-7 order, each one's pairs in order */
    char *reason;             /* NULL on success */
    char *errmsg;             /* NULL when the server sent none */
    int nfailed;
    char **failed;
} PMI2X_Group_result;

typedef enum PMI2X_Group_event_kind {
    PMI2X_EVENT_OTHER = 0,         /* an event this library does not know (name in `event`) */
    PMI2X_EVENT_INVITED = 1,       /* grp, leader: answer with PMI2X_Group_join */
    PMI2X_EVENT_INVITE_FAILED = 2, /* to the leader: grp, proc, reason (declined, exited,
                                    * unreachable, timeout) */
    PMI2X_EVENT_COMPLETE = 3,      /* to an invitee that accepted: grp, result (rc 0, or
                                    * reason "exited" when the leader ended) */
} PMI2X_Group_event_kind;

typedef struct PMI2X_Group_event {
    PMI2X_Group_event_kind kind;
    char *event;                 /* the wire's event= value */
    char *grp;
    char *leader;                /* INVITED */
    char *proc;                  /* INVITE_FAILED */
    char *reason;                /* INVITE_FAILED; COMPLETE when it failed */
    PMI2X_Group_result *result;  /* COMPLETE */
} PMI2X_Group_event;

/* *flag = 1 when the server offers the groups profile (PMI_ext_groups is
 * found with a version >= 1: GROUP-2), 0 otherwise.  Asked once, then
 * cached.  A singleton has no server: 0. */
int PMI2X_Group_supported(int *flag);

/* This process's id, "<jobid>:<rank>", into buf of len bytes. */
int PMI2X_Group_procid(char buf[], int len);
/* The id of rank `rank` of job `jobid`. */
int PMI2X_Group_make_procid(const char jobid[], int rank, char buf[], int len);

/* Ask the server for group events (group-subscribe, GROUP-8); once per
 * process, later calls return at once. */
int PMI2X_Group_subscribe(void);

/* Constructs (GROUP-12..17).  They return when the group completed or
 * failed.  members/nmembers: processes to add to the group (add-members,
 * may be NULL/0); info/ninfo: pairs this process contributes (may be
 * NULL/0); timeout_ms: 0 for no limit of its own, else the server fails the
 * construct with "timeout" after it (GROUP-24).  *result (result may be
 * NULL) receives the result also on PMI2_FAIL. */

/* A leader that knows every leader (itself included, any order). */
int PMI2X_Group_construct_collective(const char grp[], const char *const leaders[], int nleaders,
                                     const char *const members[], int nmembers,
                                     const PMI2_keyval_t info[], int ninfo, int timeout_ms,
                                     PMI2X_Group_result **result);
/* A leader that knows only how many leaders there are (nleaders >= 1). */
int PMI2X_Group_construct_bootstrap(const char grp[], int nleaders, const char *const members[],
                                    int nmembers, const PMI2_keyval_t info[], int ninfo,
                                    int timeout_ms, PMI2X_Group_result **result);
/* A process a leader names as an added member: it knows only the name. */
int PMI2X_Group_construct_member(const char grp[], const PMI2_keyval_t info[], int ninfo,
                                 int timeout_ms, PMI2X_Group_result **result);

/* Invite (GROUP-18..21), as the leader: invitees (not itself) are asked to
 * join grp; returns when every invitee accepted or failed.  The group is
 * the leader and those that accepted; result->failed lists the others
 * (their invite-failed events are also queued for PMI2X_Group_next_event).
 * Subscribes first. */
int PMI2X_Group_invite(const char grp[], const char *const invitees[], int ninvitees,
                       const PMI2_keyval_t info[], int ninfo, int timeout_ms,
                       PMI2X_Group_result **result);
/* Answer an invitation (an INVITED event): accept != 0 joins and may
 * contribute info; the group's result then comes as a COMPLETE event.
 * PMI2_FAIL with reason "unknown": no invitation to grp is outstanding. */
int PMI2X_Group_join(const char grp[], int accept, const PMI2_keyval_t info[], int ninfo);

/* The next queued event into *event (free it with PMI2X_Group_event_free).
 * timeout_ms < 0 waits for ever, 0 only looks, > 0 waits at most that long:
 * PMI2_FAIL with reason "timeout" when nothing came.  A thread waiting here
 * reads the connection itself when no other thread does.  Do not call
 * PMI2_Finalize while a thread waits here.  Subscribes first. */
int PMI2X_Group_next_event(int timeout_ms, PMI2X_Group_event **event);

/* Read one contribution of a completed group (GROUP-23): *found = 1 and
 * the value (truncated to maxvalue-1 bytes: PMI2_ERR_INVALID_VAL_LENGTH),
 * or *found = 0.  PMI2_FAIL (reason "unknown") when this process is not a
 * member of a completed group of that name. */
int PMI2X_Group_get(const char grp[], const char proc[], const char key[], char value[],
                    int maxvalue, int *found);

/* Leave and dissolve the group (GROUP-27), collective over its members;
 * timeout_ms as for a construct.  result (may be NULL) as above. */
int PMI2X_Group_destruct(const char grp[], int timeout_ms, PMI2X_Group_result **result);

/* The value `proc` contributed under `key` in a result, or NULL. */
const char *PMI2X_Group_info_get(const PMI2X_Group_result *result, const char proc[],
                                 const char key[]);

void PMI2X_Group_result_free(PMI2X_Group_result *result);
void PMI2X_Group_event_free(PMI2X_Group_event *event);

/* Why this thread's last PMI2X_Group_* call failed: the server's reason, or
 * "timeout", "unsupported", "invalid", "connection", "protocol"; "" after a
 * success.  Valid until the thread's next PMI2X_Group_* call. */
const char *PMI2X_Group_last_reason(void);
/* The server's errmsg (or the library's explanation) for that failure. */
const char *PMI2X_Group_last_errmsg(void);

#ifdef __cplusplus
}
#endif
#endif
