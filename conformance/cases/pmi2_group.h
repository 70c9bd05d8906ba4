/* Helpers of the pmi2/group section (SPEC.md §12, the groups extension
 * profile), shared by pmi2_group*.c and by the helper process the
 * cross-job cases spawn (pmi2-conform --group-helper, pmi2_group_job.c).
 * Declared here, defined once in pmi2_group_lib.c.
 *
 * A rank that takes part in a group has requests outstanding while it
 * does other things (GROUP-26), and subscribed connections get events
 * nobody asked for (GROUP-10): every message is read through a mailbox
 * (gx) that hands out the one asked for (by name, thrid, event and grp)
 * and keeps the others for later.  Every group request carries a thrid
 * of its own ("<tag>-<n>") so that two outstanding requests of one name
 * are told apart; a thrid this rank never sent is "altered" (GROUP-11).
 *
 * GROUP-3: every case reads PMI_ext_groups first (g_begin) and, when the
 * server does not offer the profile, observes "unsupported" and sends no
 * group- command (Hydra ends the job on an unknown command). */
#ifndef PCF_PMI2_GROUP_H
#define PCF_PMI2_GROUP_H

#include "pmi2_util.h"

#include <unistd.h>

enum { G_STASH = 64, G_ID = 300, G_LIST = 4096 };

/* One received message, owned (pmc_msg views die with the next receive). */
typedef struct gm {
    char name[64];
    size_t n;
    char **k, **v;
    size_t *vl;
    bool has_thrid;
    char thrid[128];
    char show[600];
} gm;

void gm_free(gm *g);

/* First value of key, or NULL. */
const char *gm_get(const gm *g, const char *key);

bool gm_is(const gm *g, const char *key, const char *val);

/* 1 with *out set, 0 absent, -1 not a decimal integer. */
int gm_int(const gm *g, const char *key, long long *out);

/* rc=0 */
bool gm_ok(const gm *g);

/* ---- the mailbox ---------------------------------------------------------- */

typedef struct gx {
    pcf_ctx *c;          /* NULL in the helper process */
    pws_session *s;
    uint64_t deadline;
    int seq;             /* thrids sent: <tag>-1 .. <tag>-seq */
    char tag[48];
    gm *stash[G_STASH];
    int nstash;
    int rank, size;
    char jobid[256];
    char me[G_ID];       /* this process: <jobid>:<rank> (GROUP-5) */
    /* Cases citing a clause whose first keyword is MAY (GROUP-19, -22, -23,
     * -24: a client MAY ..., the server MUST ...) would grade a deviation
     * INFO: their deviations are observed under this one outcome, graded
     * FAIL in their tables, the original name leading the detail. */
    const char *funnel;
    bool begun;          /* g_begin done: strays from earlier cases dropped */
    /* the helper: the first thing that went wrong */
    bool failed;
    char outcome[48];
    char why[600];
} gx;

int g_fail(gx *x, const char *outcome, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

void g_free(gx *x);

void g_id(const gx *x, int rank, char *buf, size_t n);

/* A group name unique to this run of this case (GROUP-28's characters). */
void g_name(const gx *x, const char *what, char *buf, size_t n);

void g_thrid(gx *x, char *buf, size_t n);

int g_send(gx *x, pmc_enc *e);

/* name, and when given: thrid (a message without thrid matches too: the
 * thrid cases grade its absence), event and grp. */
bool g_match(const gm *g, const char *name, const char *thrid, const char *event,
             const char *grp);

/* Wait for a message until `deadline`: 0 with *out (the caller frees it);
 * 1 when quiet is set and nothing matching came (nothing observed); -1
 * after observing what went wrong.  Other messages are kept. */
int g_wait_until(gx *x, const char *name, const char *thrid, const char *event,
                 const char *grp, uint64_t deadline, bool quiet, gm **out);

int g_wait(gx *x, const char *name, const char *thrid, gm **out);

int g_event(gx *x, const char *event, const char *grp, gm **out);

int g_call(gx *x, pmc_enc *e, const char *reply, const char *thrid, gm **out);

/* Is a message of this name (any, when NULL) kept that nobody took? */
const gm *g_kept(const gx *x, const char *name);

/* The end of a case that went well: "ok", unless a group message came that
 * nothing asked for (a second response, an event to the wrong process). */
void g_done(gx *x, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- the KVS as the ranks' meeting point, through the mailbox ------------- */

int g_kvs_put(gx *x, const char *key, const char *val);

/* 1 found (value copied), 0 not found, -1 observed */
int g_kvs_get(gx *x, const char *key, char *val, size_t n);

static inline unsigned g_all(const gx *x) { return x->size >= 32 ? ~0u : (1u << x->size) - 1; }
static inline bool g_in(const gx *x, unsigned mask) { return x->rank < 32 && (mask >> x->rank & 1); }

/* Every rank fences once; the ranks in `who` put a marker before, and
 * every rank reads the others' markers after (FENCE-2 orders that on a
 * lazy fence too): whatever a rank in `who` sent before the step, the
 * server has read when any rank leaves it. */
int g_step(gx *x, int seq, unsigned who);

/* The ranks in `who` tell each other `val` (a ctxid): 0 when every one of
 * them had the same, -1 after observing "differs" (or a harness error). */
int g_same(gx *x, int seq, unsigned who, const char *what, const char *val);

/* ---- process lists (GROUP-5, GROUP-7) ----------------------------------- */

/* The canonical list of ids (sorted, without duplicates) into out. */
void g_list(char *out, size_t n, const char *const *ids, int k);

/* The ids of these ranks of this job, canonical. */
void g_ranks(const gx *x, char *out, size_t n, unsigned mask);

/* ---- results and failures (GROUP-14, GROUP-22, GROUP-29) ----------------- */

typedef struct ginfo {
    const char *proc, *key, *val;
} ginfo;

/* ctxid: 1*19DIGIT, 1 .. 2^63-1 (GROUP-15).  0 ok (*v set), -1 not. */
int g_ctxid(const gm *g, unsigned long long *v);

/* The expected contributions in canonical order: contributors sorted
 * (GROUP-7), each one's pairs in the order given (stable). */
void g_sort_info(ginfo *in, int n);

/* A successful result (GROUP-14): rc=0, ctxid, members exactly `members`,
 * the contributions exactly `info` (already in canonical order).  Returns
 * 0, or -1 after observing: "failed" (rc != 0), "bad-ctxid", "not-canonical"
 * (the right processes in another order, GROUP-7), "wrong-members",
 * "info-order" (the right pairs in another order), "wrong-info". */
int g_result(gx *x, const gm *g, const char *what, const char *members,
             const ginfo *info, int ninfo, unsigned long long *ctx);

/* A failure answer: rc, reason and failed as expected (failed NULL: not
 * checked), errmsg present (GROUP-29).  0, or -1 after observing: "answer"
 * (not the expected failure), "no-errmsg", "wrong-failed". */
int g_failure(gx *x, const gm *g, const char *what, long long rc,
              const char *reason, const char *failed);

/* ---- requests ------------------------------------------------------------- */

typedef struct gcons {
    const char *grp, *method;
    const char *leaders;   /* NULL: not sent */
    const char *nleaders;  /* text, NULL: not sent */
    const char *members;   /* NULL: not sent */
    const char *timeout;   /* text, NULL: not sent */
    int ninfo;
    const char *const *ik, *const *iv;
} gcons;

enum { G_MAXINFO = 40 };

/* Send group-construct; its thrid into thrid (64 bytes). */
int g_construct_send(gx *x, const gcons *o, char *thrid);

int g_construct(gx *x, const gcons *o, gm **out);

int g_invite_send(gx *x, const char *grp, const char *members, const char *timeout,
                  int ninfo, const char *const *ik, const char *const *iv,
                  char *thrid);

int g_join(gx *x, const char *grp, bool accept, int ninfo, const char *const *ik,
           const char *const *iv, gm **out);

/* group-subscribe, rc=0 expected ("subscribe-refused" otherwise). */
int g_subscribe(gx *x);

int g_destruct_send(gx *x, const char *grp, const char *timeout, char *thrid);

int g_destruct(gx *x, const char *grp, gm **out);

/* The answer to the destruct sent with this thrid: rc=0 expected
 * ("destruct-failed" otherwise, GROUP-27). */
int g_destruct_done(gx *x, const char *grp, const char *thrid);

/* Destruct, rc=0 expected ("destruct-failed" otherwise, GROUP-27). */
int g_destruct_ok(gx *x, const char *grp);

/* The same with a destruct timeout: for a group one of whose members
 * ended (it counts as done, GROUP-27); a server that waits for it anyway
 * answers reason=timeout, a finding rather than a hang. */
int g_destruct_ok_tmo(gx *x, const char *grp, const char *timeout);

int g_get(gx *x, const char *grp, const char *proc, const char *key, gm **out);

/* The thrid of the last request sent. */
void g_last_thrid(const gx *x, char *buf, size_t n);

/* Nothing named `name` (a construct's answer) has come yet: asked, not
 * waited for: a job-getid goes out, and whatever the server wrote before
 * its answer is read first.  0, or -1 after observing "early". */
int g_nothing_yet(gx *x, const char *name, const char *why);

/* ---- the start of every case ----------------------------------------------- */

/* Set up the mailbox and read PMI_ext_groups (GROUP-2): 0 with *attr
 * (the caller frees it), or -1 when the read itself failed (observed). */
int g_open(pcf_ctx *c, gx *x, gm **attr);

/* g_open, then (GROUP-3) 0: the profile is offered; 1: it is not
 * ("unsupported" observed: the case sends no group- command); -1: the read
 * itself failed (observed). */
int g_begin(pcf_ctx *c, gx *x);

/* ---- what several cases do alike ------------------------------------------- */

/* g_begin for a case in which only the ranks in `who` take part: 0 for
 * them (funnel set, see gx), nonzero when the case is over for this rank
 * (the others observe "ok" through G_IDLE, or the profile is absent). */
int g_begin_only(pcf_ctx *c, gx *x, unsigned who, const char *funnel);

/* The contributions a case expects: one pair `key`=val(rank) from each
 * rank in `who`, kept in canonical order (stable, so a second key added
 * for the same ranks follows the first within each contributor). */
typedef void (*g_valfn)(int rank, char *buf, size_t n);
typedef struct gwant {
    ginfo w[64];
    int n;
    char ids[32][G_ID];
    char vals[64][64];
} gwant;
void g_want_add(const gx *x, gwant *w, unsigned who, const char *key, g_valfn val);

/* Every rank got the same ctxid (g_same, GROUP-14), then the group is
 * destructed.  Steps seq. */
int g_agree_destruct(gx *x, int seq, const char *grp, unsigned long long cx);

/* The ranks in `early` send q and check that no answer came before the
 * others send theirs (steps 1 and 2; `why`: what the answer waits for);
 * every rank then waits for its answer into *res. */
int g_late_arrival(gx *x, const gcons *q, unsigned early, const char *why, gm **res);

/* group-invite and its response into *res. */
int g_invite(gx *x, const char *grp, const char *members, const char *timeout, int ninfo,
             const char *const *ik, const char *const *iv, gm **res);

/* group-join, rc=0 expected ("join-refused" otherwise); *res set either way. */
int g_join_ok(gx *x, const char *grp, bool accept, int ninfo, const char *const *ik,
              const char *const *iv, gm **res);

/* The invite's response names proc in failed ("wrong-failed" otherwise). */
int g_failed_is(gx *x, const gm *r, const char *proc);

/* The group-event of this event and grp (and proc, when given) already
 * kept in the mailbox, taken out of it (the caller frees it); NULL when
 * none came yet: events due before a response are there once it is. */
gm *g_take_kept(gx *x, const char *event, const char *grp, const char *proc);

/* group-get of proc's key: rc=0;found=TRUE;value=want, or found=FALSE
 * when want is NULL ("wrong-get" otherwise). */
int g_get_is(gx *x, const char *grp, const char *proc, const char *key, const char *want);

/* The value contributed under key in a result (infokey<i>=key), or NULL. */
const char *g_info_of(const gm *g, const char *key);

/* Outcomes every case of the section shares (at most 10 per case). */
#define G_OUTCOMES                                                                               \
    { "unsupported", PCF_UNSUPPORTED, "GROUP-2", "the server does not offer the groups profile" }, \
    { "altered", PCF_DEVIATES, "GROUP-11", "a response's thrid is not the request's" },         \
    { "no-errmsg", PCF_DEVIATES, "GROUP-29", "a failed group- response without errmsg" },       \
    { "not-canonical", PCF_DEVIATES, "GROUP-7", "a list of processes not in canonical order" }

/* The table entry of a case that sets x.funnel = "deviates". */
#define G_FUNNEL                                                                                 \
    { "deviates", PCF_FAIL, NULL, "the server's MUST in this clause was not met (the detail names how)" }

/* The table entry of a case that destructs its groups. */
#define G_DESTRUCT                                                                               \
    { "destruct-failed", PCF_DEVIATES, "GROUP-27", "group-destruct refused" }

/* A rank that takes no part in a case still runs it (every rank fences in
 * the steps); what it sees is nothing to grade. */
#define G_IDLE(x) g_done((x), "rank %d takes no part", (x)->rank)

#endif
