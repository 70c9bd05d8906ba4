/* The groups profile's state machine (SPEC.md §12).  Everything a waiting
 * request needs is copied here (the decoder's buffer moves on), nothing
 * blocks: a construct, invite or destruct waits as data and is answered
 * when the last participant arrives, when one ends (pms_groups_proc_gone)
 * or when its deadline passes (pms_groups_service, called by the loop).
 *
 * Only this header, the codec and the port (groups.h says why). */
#include "groups.h"
#include "strutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* GROUP-28: what this server accepts (exactly the minimum). */
enum {
    G_NAME_MAX = 64,
    G_PROCS_MAX = 1024,
    G_GROUPS_MAX = 64,
    G_PAIRS_MAX = 16,
    G_KEY_MAX = 64,
    G_VAL_MAX = 1024,
};
/* a timeout beyond this many ms is taken as this (about 31 years) */
#define G_TIMEOUT_CAP 1000000000000LL

enum { M_NONE = 0, M_COLLECTIVE, M_BOOTSTRAP, M_MEMBER };
enum { K_CONSTRUCT = 1, K_INVITE };
enum { I_WAITING = 0, I_ACCEPTED, I_FAILED };

typedef struct gproc {
    pms_job *job;
    int rank;
} gproc;

typedef struct gplist {
    gproc *p;
    size_t n, cap;
} gplist;

typedef struct gpair {
    gproc who;
    char *key, *val;
    size_t klen, vlen;
} gpair;

typedef struct ginfo {
    gpair *p;
    size_t n;
} ginfo;

/* A request that waits for its answer: who asked and its thrid. */
typedef struct gpart {
    gproc who;
    char *thrid; /* NULL: none */
    size_t tlen;
    int method;
    gplist leaders;      /* collective */
    long long nleaders;  /* bootstrap */
    gplist members;
    ginfo info;
    struct gpart *next;
} gpart;

typedef struct ginvitee {
    gproc who;
    int state;
    const char *why; /* I_FAILED: declined, exited, unreachable, timeout */
    ginfo info;
} ginvitee;

/* A group being formed: a construct (its arrivals) or an invite. */
typedef struct gpend {
    char name[G_NAME_MAX + 1];
    int kind;
    int method;          /* the leaders' method; M_NONE while only members came */
    gpart *parts;        /* arrival order; an invite: its leader only */
    long long deadline;  /* 0: none */
    ginvitee *inv;
    size_t ninv;
    struct gpend *next;
} gpend;

/* A completed group, until destructed. */
typedef struct ggroup {
    char name[G_NAME_MAX + 1];
    long long ctxid;
    gplist members;
    ginfo info;          /* contributors in GROUP-7 order */
    gpart *dparts;       /* waiting group-destruct requests */
    long long deadline;
    struct ggroup *next;
} ggroup;

struct pms_groups {
    pms_group_port port;
    gpend *pend;
    ggroup *groups;
    long long next_ctxid;
    int depth;           /* inside an entry point: a process that ends waits in `gone` */
    gplist gone;
};

/* A mutant of the strict persona (mutants_groups.c): one clause broken,
 * switched on by name where it acts, as PMS_MUTANT() does in the handlers. */
#define GMUT(g, nm) ((g)->port.mutant && strcmp((g)->port.mutant, (nm)) == 0)

/* Strings the encoder points into until the message is sent. */
typedef struct gscratch {
    char **s;
    size_t n, cap;
} gscratch;

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void glog(pms_groups *g, const char *fmt, ...)
{
    if (!g->port.log)
        return;
    char b[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    g->port.log(g->port.ctx, b);
}


static const char *keep(gscratch *s, char *str)
{
    if (!str)
        return "";
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 16;
        char **ns = realloc(s->s, nc * sizeof *ns);
        if (!ns) {
            free(str);
            return "";
        }
        s->s = ns;
        s->cap = nc;
    }
    s->s[s->n++] = str;
    return str;
}

static void scratch_free(gscratch *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->s[i]);
    free(s->s);
    memset(s, 0, sizeof *s);
}

/* ---- processes and lists ------------------------------------------------ */

static bool same(gproc a, gproc b)
{
    return a.job == b.job && a.rank == b.rank;
}

static const char *jid(pms_groups *g, const pms_job *j)
{
    return g->port.job_id(g->port.ctx, j);
}

/* GROUP-7: job id in byte order, then rank */
static int cmp_proc(pms_groups *g, gproc a, gproc b)
{
    if (a.job != b.job) {
        int d = strcmp(jid(g, a.job), jid(g, b.job)); /* ids hold no NUL: byte order */
        if (d)
            return d;
    }
    return (a.rank > b.rank) - (a.rank < b.rank);
}

static bool pl_has(const gplist *l, gproc p)
{
    for (size_t i = 0; i < l->n; i++)
        if (same(l->p[i], p))
            return true;
    return false;
}

/* Insert in GROUP-7 order, without duplicates; -1 out of memory. */
static int pl_add(pms_groups *g, gplist *l, gproc p)
{
    size_t i = 0;
    while (i < l->n && cmp_proc(g, l->p[i], p) < 0)
        i++;
    if (i < l->n && same(l->p[i], p))
        return 0;
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 8;
        gproc *np = realloc(l->p, nc * sizeof *np);
        if (!np)
            return -1;
        l->p = np;
        l->cap = nc;
    }
    memmove(l->p + i + 1, l->p + i, (l->n - i) * sizeof *l->p);
    l->p[i] = p;
    l->n++;
    return 0;
}

static void pl_free(gplist *l)
{
    free(l->p);
    memset(l, 0, sizeof *l);
}

static bool pl_equal(const gplist *a, const gplist *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (!same(a->p[i], b->p[i])) /* both sorted */
            return false;
    return true;
}

/* "job:rank,job:rank" */
static char *pl_text(pms_groups *g, const gplist *l)
{
    size_t n = 1;
    for (size_t i = 0; i < l->n; i++)
        n += strlen(jid(g, l->p[i].job)) + 14;
    char *b = malloc(n), *w = b;
    if (!b)
        return NULL;
    *w = 0;
    for (size_t i = 0; i < l->n; i++)
        w += snprintf(w, n - (size_t)(w - b), i ? ",%s:%d" : "%s:%d", jid(g, l->p[i].job),
                      l->p[i].rank);
    return b;
}

/* group-members-unsorted: the list backwards */
static char *pl_text_rev(pms_groups *g, const gplist *l)
{
    gplist r = { malloc((l->n ? l->n : 1) * sizeof *r.p), l->n, l->n };
    if (!r.p)
        return NULL;
    for (size_t i = 0; i < l->n; i++)
        r.p[i] = l->p[l->n - 1 - i];
    char *t = pl_text(g, &r);
    free(r.p);
    return t;
}

static char *proc_text(pms_groups *g, gproc p)
{
    gplist one = { &p, 1, 1 };
    return pl_text(g, &one);
}

static void info_free(ginfo *in)
{
    for (size_t i = 0; i < in->n; i++) {
        free(in->p[i].key);
        free(in->p[i].val);
    }
    free(in->p);
    memset(in, 0, sizeof *in);
}

/* Append a copy of src's pairs; -1 out of memory. */
static int info_append(ginfo *dst, const ginfo *src)
{
    if (!src->n)
        return 0;
    gpair *np = realloc(dst->p, (dst->n + src->n) * sizeof *np);
    if (!np)
        return -1;
    dst->p = np;
    for (size_t i = 0; i < src->n; i++) {
        gpair q = src->p[i];
        q.key = pms_strndup(q.key, q.klen);
        q.val = pms_strndup(q.val, q.vlen);
        if (!q.key || !q.val) {
            free(q.key);
            free(q.val);
            return -1;
        }
        dst->p[dst->n++] = q;
    }
    return 0;
}

static void part_free(gpart *p)
{
    free(p->thrid);
    pl_free(&p->leaders);
    pl_free(&p->members);
    info_free(&p->info);
    free(p);
}

static void pend_free(gpend *p)
{
    for (gpart *x = p->parts, *n; x; x = n) {
        n = x->next;
        part_free(x);
    }
    for (size_t i = 0; i < p->ninv; i++)
        info_free(&p->inv[i].info);
    free(p->inv);
    free(p);
}

static void group_free(ggroup *gr)
{
    pl_free(&gr->members);
    info_free(&gr->info);
    for (gpart *x = gr->dparts, *n; x; x = n) {
        n = x->next;
        part_free(x);
    }
    free(gr);
}

/* ---- parsing ------------------------------------------------------------ */

typedef struct gerr {
    int rc;              /* 0: none */
    const char *reason;
    char msg[160];
} gerr;

static void set_err(gerr *e, int rc, const char *reason, const char *fmt, ...)
{
    if (e->rc)
        return; /* the first one found */
    e->rc = rc;
    e->reason = reason;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
}

static int clip(size_t n)
{
    return n > 64 ? 64 : (int)n;
}

/* grpname (§12.9); fills name */
static bool parse_name(const pmc_msg *m, char *name, gerr *e)
{
    pmc_slice v;
    if (!pmc_msg_get(m, "grp", &v)) {
        set_err(e, 3, "invalid", "grp is required");
        return false;
    }
    if (v.len > G_NAME_MAX) {
        set_err(e, 3, "limit", "group names are limited to %d bytes", G_NAME_MAX);
        return false;
    }
    if (!v.len) {
        set_err(e, 3, "invalid", "grp is empty");
        return false;
    }
    for (size_t i = 0; i < v.len; i++) {
        char c = v.ptr[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-' || c == ':')) {
            set_err(e, 3, "invalid", "grp holds a byte outside ALPHA DIGIT . _ - :");
            return false;
        }
    }
    memcpy(name, v.ptr, v.len);
    name[v.len] = 0;
    return true;
}

static bool digits(pmc_slice s)
{
    if (!s.len)
        return false;
    for (size_t i = 0; i < s.len; i++)
        if (s.ptr[i] < '0' || s.ptr[i] > '9')
            return false;
    return true;
}

/* procid syntax (GROUP-5): the rank is the digits after the last ':' */
static bool split_proc(pmc_slice s, pmc_slice *job, long long *rank)
{
    const char *colon = NULL;
    for (size_t i = s.len; i-- > 0;)
        if (s.ptr[i] == ':') {
            colon = s.ptr + i;
            break;
        }
    if (!colon)
        return false;
    *job = (pmc_slice){ s.ptr, (size_t)(colon - s.ptr) };
    pmc_slice rk = { colon + 1, s.len - job->len - 1 };
    return job->len && digits(rk) && rk.len <= 9 && pmc_parse_int(rk, rank) == 0;
}

/* A procid of a job the caller's job may group with (GROUP-5, GROUP-6). */
static bool parse_proc(pms_groups *g, const pms_job *caller, pmc_slice s, gproc *out, gerr *e)
{
    pmc_slice job;
    long long r = -1;
    if (!split_proc(s, &job, &r)) {
        set_err(e, 3, "invalid", "'%.*s' is no process id (jobid:rank)", clip(s.len), s.ptr);
        return false;
    }
    pms_job *j = g->port.find_job(g->port.ctx, job.ptr, job.len);
    if (!j || (r >= g->port.job_size(g->port.ctx, j) && !GMUT(g, "group-procid-unchecked")) ||
        !g->port.accepts(g->port.ctx, caller, j) ||
        (j != caller && GMUT(g, "group-cross-job-refused"))) {
        set_err(e, 3, "invalid", "'%.*s' names no process of a job this one can group with",
                clip(s.len), s.ptr);
        return false;
    }
    out->job = j;
    out->rank = (int)r;
    return true;
}

/* proclist; absent: false without an error */
static bool parse_list(pms_groups *g, const pms_job *caller, const pmc_msg *m, const char *key,
                       gplist *out, gerr *e)
{
    pmc_slice v;
    if (!pmc_msg_get(m, key, &v))
        return false;
    size_t at = 0, count = 0;
    while (at <= v.len && !e->rc) {
        const char *c = memchr(v.ptr + at, ',', v.len - at);
        size_t end = c ? (size_t)(c - v.ptr) : v.len;
        gproc p;
        if (++count > G_PROCS_MAX) {
            set_err(e, 3, "limit", "%s: a group holds at most %d processes", key, G_PROCS_MAX);
            break;
        }
        if (parse_proc(g, caller, (pmc_slice){ v.ptr + at, end - at }, &p, e) &&
            pl_add(g, out, p) < 0)
            set_err(e, 1, "limit", "out of memory");
        if (!c)
            break;
        at = end + 1;
    }
    return true;
}

/* timeout (GROUP-24): 0 when absent */
static long long parse_timeout(const pmc_msg *m, gerr *e)
{
    pmc_slice v;
    long long t = 0;
    if (!pmc_msg_get(m, "timeout", &v))
        return 0;
    if (!digits(v) || (v.len < 19 && pmc_parse_int(v, &t) < 0)) {
        set_err(e, 3, "invalid", "timeout is not a number of milliseconds");
        return 0;
    }
    if (v.len >= 19 || t > G_TIMEOUT_CAP)
        t = G_TIMEOUT_CAP;
    return t;
}

/* infocount, infokey<i>, infoval<i> (GROUP-22, GROUP-28) */
static void parse_info(pms_groups *g, const pmc_msg *m, gproc who, ginfo *out, gerr *e)
{
    long long n = 0;
    int have = pmc_msg_get_int(m, "infocount", &n);
    if (have == 0)
        return;
    if (have < 0 || n < 0) {
        set_err(e, 3, "invalid", "infocount is not a count");
        return;
    }
    if (n > G_PAIRS_MAX && GMUT(g, "group-limit-silent"))
        n = G_PAIRS_MAX; /* the rest dropped, rc=0 */
    if (n > G_PAIRS_MAX) {
        set_err(e, 3, "limit", "a participant contributes at most %d pairs", G_PAIRS_MAX);
        return;
    }
    out->p = n ? calloc((size_t)n, sizeof *out->p) : NULL;
    if (n && !out->p) {
        set_err(e, 1, "limit", "out of memory");
        return;
    }
    for (long long i = 0; i < n; i++) {
        char kk[32], vk[32];
        pmc_slice k, v;
        snprintf(kk, sizeof kk, "infokey%lld", i);
        snprintf(vk, sizeof vk, "infoval%lld", i);
        if (!pmc_msg_get(m, kk, &k) || !pmc_msg_get(m, vk, &v)) {
            set_err(e, 3, "invalid", "infocount is %lld but %s or %s is missing", n, kk, vk);
            return;
        }
        if (k.len > G_KEY_MAX || v.len > G_VAL_MAX) {
            set_err(e, 3, "limit", "contributed keys are limited to %d bytes and values to %d",
                    G_KEY_MAX, G_VAL_MAX);
            return;
        }
        gpair *q = &out->p[out->n];
        q->who = who;
        q->key = pms_strndup(k.ptr, k.len);
        q->val = pms_strndup(v.ptr, v.len);
        q->klen = k.len;
        q->vlen = v.len;
        out->n++;
        if (!q->key || !q->val) {
            set_err(e, 1, "limit", "out of memory");
            return;
        }
    }
}

/* ---- sending ------------------------------------------------------------ */

static pmc_enc *begin(pms_groups *g, gproc to, const char *cmd, const char *thrid, size_t tlen)
{
    pmc_slice t = { thrid, thrid ? tlen : 0 };
    if (GMUT(g, "group-thrid-dropped"))
        t = (pmc_slice){ NULL, 0 };
    return g->port.begin(g->port.ctx, to.job, to.rank, cmd, t);
}

static void send(pms_groups *g, gproc to)
{
    g->port.send(g->port.ctx, to.job, to.rank);
}

static void put_failure(pms_groups *g, pmc_enc *e, gscratch *s, int rc, const char *reason,
                        const char *errmsg, const gplist *failed)
{
    if (rc == 3 && GMUT(g, "group-invalid-rc1"))
        rc = 1;
    if (!strcmp(reason, "limit") && GMUT(g, "group-limit-reason"))
        reason = "invalid";
    pmc_enc_int(e, "rc", rc);
    pmc_enc_str(e, "reason", reason);
    if (!GMUT(g, "group-errmsg-missing"))
        pmc_enc_str(e, "errmsg", errmsg);
    if (failed && failed->n)
        pmc_enc_str(e, "failed", keep(s, pl_text(g, failed)));
}

static void put_result(pms_groups *g, pmc_enc *e, gscratch *s, const ggroup *gr)
{
    pmc_enc_int(e, "rc", 0);
    pmc_enc_int(e, "ctxid", gr->ctxid);
    bool rev = GMUT(g, "group-members-unsorted");
    pmc_enc_str(e, "members",
                keep(s, rev ? pl_text_rev(g, &gr->members) : pl_text(g, &gr->members)));
    pmc_enc_int(e, "infocount", (long long)gr->info.n);
    for (size_t i = 0; i < gr->info.n; i++) {
        const gpair *q = &gr->info.p[i];
        char k[32];
        snprintf(k, sizeof k, "infoproc%zu", i);
        pmc_enc_str(e, keep(s, pms_strndup(k, strlen(k))), keep(s, proc_text(g, q->who)));
        snprintf(k, sizeof k, "infokey%zu", i);
        pmc_enc_slice(e, pmc_slice_cstr(keep(s, pms_strndup(k, strlen(k)))),
                      (pmc_slice){ q->key, q->klen });
        snprintf(k, sizeof k, "infoval%zu", i);
        pmc_enc_slice(e, pmc_slice_cstr(keep(s, pms_strndup(k, strlen(k)))),
                      (pmc_slice){ q->val, q->vlen });
    }
}

/* An error answer to a request being served now. */
static void reply_err(pms_groups *g, gproc to, const char *resp, const pmc_msg *m, const gerr *e,
                      const gplist *failed)
{
    glog(g, "%s:%d: %s rc=%d reason=%s: %s", jid(g, to.job), to.rank, resp, e->rc, e->reason,
         e->msg);
    pmc_enc *enc = begin(g, to, resp, m->thrid.ptr, m->thrid.len);
    if (!enc)
        return;
    gscratch s = { 0 };
    put_failure(g, enc, &s, e->rc, e->reason, e->msg, failed);
    send(g, to);
    scratch_free(&s);
}

/* An error answer to a request that waited. */
static void fail_part(pms_groups *g, const gpart *p, const char *resp, int rc, const char *reason,
                      const gplist *failed, const char *errmsg)
{
    pmc_enc *enc = begin(g, p->who, resp, p->thrid, p->tlen);
    if (!enc)
        return;
    gscratch s = { 0 };
    put_failure(g, enc, &s, rc, reason, errmsg, failed);
    send(g, p->who);
    scratch_free(&s);
}

static void reply_rc0(pms_groups *g, gproc to, const char *resp, const char *thrid, size_t tlen)
{
    pmc_enc *enc = begin(g, to, resp, thrid, tlen);
    if (!enc)
        return;
    pmc_enc_int(enc, "rc", 0);
    send(g, to);
}

/* group-event frames go to subscribed processes only (GROUP-8), without
 * thrid (GROUP-9); begin_event returns NULL for anyone else. */
static pmc_enc *begin_event(pms_groups *g, gproc to, const char *event, const char *grp)
{
    pms_gproc_state st = g->port.state(g->port.ctx, to.job, to.rank);
    if (st != PMS_GPROC_SUBSCRIBED &&
        !(st == PMS_GPROC_LIVE && GMUT(g, "group-event-unsubscribed")))
        return NULL;
    pmc_enc *e = begin(g, to, "group-event", GMUT(g, "group-event-thrid") ? "1" : NULL, 1);
    if (e) {
        pmc_enc_str(e, "event", event);
        pmc_enc_str(e, "grp", grp);
    }
    return e;
}

/* ---- lifecycle ---------------------------------------------------------- */

pms_groups *pms_groups_new(const pms_group_port *port)
{
    pms_groups *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->port = *port;
    g->next_ctxid = 1;
    return g;
}

void pms_groups_free(pms_groups *g)
{
    if (!g)
        return;
    for (gpend *p = g->pend, *n; p; p = n) {
        n = p->next;
        pend_free(p);
    }
    for (ggroup *x = g->groups, *n; x; x = n) {
        n = x->next;
        group_free(x);
    }
    pl_free(&g->gone);
    free(g);
}

static void handle_gone(pms_groups *g, gproc p);

static void enter(pms_groups *g)
{
    g->depth++;
}

/* Leaving the outermost entry point: the processes that ended meanwhile
 * (a send that failed closes a connection) are handled now, one by one. */
static void leave(pms_groups *g)
{
    if (g->depth == 1)
        while (g->gone.n) {
            gproc p = g->gone.p[0];
            memmove(g->gone.p, g->gone.p + 1, --g->gone.n * sizeof *g->gone.p);
            handle_gone(g, p);
        }
    g->depth--;
}

static gpend *find_pend(pms_groups *g, const char *name)
{
    for (gpend *p = g->pend; p; p = p->next)
        if (strcmp(p->name, name) == 0)
            return p;
    return NULL;
}

static ggroup *find_group(pms_groups *g, const char *name)
{
    for (ggroup *x = g->groups; x; x = x->next)
        if (strcmp(x->name, name) == 0)
            return x;
    return NULL;
}

static size_t names_in_use(pms_groups *g)
{
    size_t n = 0;
    for (gpend *p = g->pend; p; p = p->next)
        n++;
    for (ggroup *x = g->groups; x; x = x->next)
        n++;
    return n;
}

static void unlink_pend(pms_groups *g, gpend *p)
{
    for (gpend **pp = &g->pend; *pp; pp = &(*pp)->next)
        if (*pp == p) {
            *pp = p->next;
            return;
        }
}

static void unlink_group(pms_groups *g, ggroup *x)
{
    if (GMUT(g, "group-ctxid-reused") && x->ctxid == g->next_ctxid - 1)
        g->next_ctxid--; /* the newest group's ctxid is handed out again */
    for (ggroup **pp = &g->groups; *pp; pp = &(*pp)->next)
        if (*pp == x) {
            *pp = x->next;
            return;
        }
}

static bool ended(pms_groups *g, gproc p)
{
    return g->port.state(g->port.ctx, p.job, p.rank) == PMS_GPROC_ENDED;
}

/* A new completed group (the caller links it); NULL out of memory. */
static ggroup *group_new(pms_groups *g, const char *name)
{
    ggroup *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    snprintf(x->name, sizeof x->name, "%s", name);
    x->ctxid = g->next_ctxid++; /* GROUP-15: never again */
    return x;
}

/* ---- subscribe ---------------------------------------------------------- */

void pms_groups_subscribe(pms_groups *g, pms_job *j, int rank, const pmc_msg *m)
{
    enter(g);
    g->port.subscribe(g->port.ctx, j, rank);
    reply_rc0(g, (gproc){ j, rank }, "group-subscribe-response", m->thrid.ptr, m->thrid.len);
    leave(g);
}

/* ---- construct ---------------------------------------------------------- */

static const char *const RESP_CONSTRUCT = "group-construct-response";

static gpart *part_of(gpart *list, gproc p)
{
    for (gpart *x = list; x; x = x->next)
        if (same(x->who, p))
            return x;
    return NULL;
}

/* Processes the arrived leaders named as added members. */
static int named_members(pms_groups *g, const gpend *c, gplist *out)
{
    for (gpart *x = c->parts; x; x = x->next)
        if (x->method != M_MEMBER)
            for (size_t i = 0; i < x->members.n; i++)
                if (pl_add(g, out, x->members.p[i]) < 0)
                    return -1;
    return 0;
}

static size_t leaders_arrived(const gpend *c)
{
    size_t n = 0;
    for (gpart *x = c->parts; x; x = x->next)
        n += x->method != M_MEMBER;
    return n;
}

static const gpart *first_leader(const gpend *c)
{
    for (gpart *x = c->parts; x; x = x->next)
        if (x->method != M_MEMBER)
            return x;
    return NULL;
}

/* Every leader is here (and so the set of named members is final). */
static bool leaders_complete(pms_groups *g, const gpend *c)
{
    const gpart *l = first_leader(c);
    if (!l)
        return false;
    if (l->method == M_BOOTSTRAP && GMUT(g, "group-bootstrap-count-off"))
        return (long long)leaders_arrived(c) + 1 >= l->nleaders;
    if (l->method == M_BOOTSTRAP)
        return (long long)leaders_arrived(c) == l->nleaders;
    for (size_t i = 0; i < l->leaders.n; i++) {
        const gpart *x = part_of(c->parts, l->leaders.p[i]);
        if (!x || x->method == M_MEMBER)
            return false;
    }
    return true;
}

/* The expected participants that have not arrived: the collective's
 * leaders and every named member (a bootstrap's missing leaders have no
 * names to give). */
static int missing(pms_groups *g, const gpend *c, gplist *out)
{
    const gpart *l = first_leader(c);
    gplist named = { 0 };
    if (named_members(g, c, &named) < 0)
        return -1;
    if (l && l->method == M_COLLECTIVE)
        for (size_t i = 0; i < l->leaders.n; i++)
            if (!part_of(c->parts, l->leaders.p[i]) && pl_add(g, out, l->leaders.p[i]) < 0)
                goto oom;
    for (size_t i = 0; i < named.n; i++)
        if (!part_of(c->parts, named.p[i]) && pl_add(g, out, named.p[i]) < 0)
            goto oom;
    pl_free(&named);
    return 0;
oom:
    pl_free(&named);
    return -1;
}

/* Answer every waiting participant of c with the same failure and forget c. */
static void construct_fail(pms_groups *g, gpend *c, const char *reason, const gplist *failed,
                           const char *errmsg)
{
    unlink_pend(g, c);
    glog(g, "group %s: construct fails: %s", c->name, errmsg);
    for (gpart *x = c->parts; x; x = x->next)
        fail_part(g, x, RESP_CONSTRUCT, 1, reason, failed, errmsg);
    pend_free(c);
}

static void construct_fail_by(pms_groups *g, gpend *c, const char *reason, gproc culprit,
                              const char *errmsg)
{
    gplist f = { 0 };
    pl_add(g, &f, culprit);
    construct_fail(g, c, reason, &f, errmsg);
    pl_free(&f);
}

/* GROUP-13/14: everyone is here. */
static void construct_complete(pms_groups *g, gpend *c)
{
    ggroup *x = group_new(g, c->name);
    bool oom = !x;
    for (gpart *p = c->parts; x && p && !oom; p = p->next)
        oom = pl_add(g, &x->members, p->who) < 0;
    for (size_t i = 0; x && !oom && i < x->members.n; i++) {
        const gpart *p = part_of(c->parts, x->members.p[i]);
        if (!(p->method == M_MEMBER && GMUT(g, "group-info-dropped")))
            oom = info_append(&x->info, &p->info) < 0;
    }
    if (oom) {
        if (x)
            group_free(x);
        construct_fail(g, c, "exited", NULL, "the server ran out of memory");
        return;
    }
    unlink_pend(g, c);
    x->next = g->groups;
    g->groups = x;
    glog(g, "group %s: complete, ctxid %lld, %zu members", x->name, x->ctxid, x->members.n);
    for (gpart *p = c->parts; p; p = p->next) {
        pmc_enc *e = begin(g, p->who, RESP_CONSTRUCT, p->thrid, p->tlen);
        if (!e)
            continue;
        gscratch s = { 0 };
        put_result(g, e, &s, x);
        send(g, p->who);
        scratch_free(&s);
    }
    pend_free(c);
}

/* Members waiting unnamed once every leader is here get not-member
 * (GROUP-16); then complete when every named member came too. */
static void construct_check(pms_groups *g, gpend *c)
{
    if (!leaders_complete(g, c))
        return;
    gplist named = { 0 };
    if (named_members(g, c, &named) < 0) {
        construct_fail(g, c, "exited", NULL, "the server ran out of memory");
        return;
    }
    for (gpart **pp = &c->parts; *pp;) {
        gpart *x = *pp;
        if (x->method == M_MEMBER && !pl_has(&named, x->who) &&
            !GMUT(g, "group-not-member-joined")) {
            *pp = x->next;
            fail_part(g, x, RESP_CONSTRUCT, 1, "not-member", NULL,
                      "no leader of this group named this process");
            part_free(x);
        } else {
            pp = &x->next;
        }
    }
    bool all = true;
    for (size_t i = 0; i < named.n && all && !GMUT(g, "group-complete-early"); i++)
        all = part_of(c->parts, named.p[i]) != NULL;
    pl_free(&named);
    if (all)
        construct_complete(g, c);
}

/* GROUP-16: does the arrival x contradict what c already holds?  Returns
 * the reason text, or NULL. */
static const char *contradiction(pms_groups *g, const gpend *c, const gpart *x)
{
    gplist named = { 0 };
    const char *why = NULL;
    if (named_members(g, c, &named) < 0)
        return "the server ran out of memory";
    const gpart *l = first_leader(c);
    if (x->method == M_MEMBER) {
        if (l && l->method == M_COLLECTIVE && pl_has(&l->leaders, x->who))
            why = "a process named as a leader arrived as an added member";
        goto out;
    }
    if (pl_has(&named, x->who)) {
        why = "a process named as an added member arrived as a leader";
        goto out;
    }
    for (const gpart *o = c->parts; o; o = o->next) {
        if (o->method == M_MEMBER) {
            if (x->method == M_COLLECTIVE && pl_has(&x->leaders, o->who)) {
                why = "a process that arrived as an added member is named as a leader";
                goto out;
            }
            continue;
        }
        if (pl_has(&x->members, o->who)) {
            why = "a leader names another leader as an added member";
            goto out;
        }
    }
    if (!l)
        goto out;
    if (l->method != x->method)
        why = "leaders disagree on the method";
    else if (x->method == M_COLLECTIVE && !pl_equal(&l->leaders, &x->leaders))
        why = "leaders disagree on the leaders";
    else if (x->method == M_BOOTSTRAP && l->nleaders != x->nleaders &&
             !GMUT(g, "group-mismatch-accepted"))
        why = "leaders disagree on nleaders";
    else if (x->method == M_BOOTSTRAP && (long long)leaders_arrived(c) >= l->nleaders)
        why = "more leaders arrived than nleaders";
out:
    pl_free(&named);
    return why;
}

void pms_groups_construct(pms_groups *g, pms_job *j, int rank, const pmc_msg *m)
{
    enter(g);
    gproc me = { j, rank };
    gerr e = { 0 };
    char name[G_NAME_MAX + 1];
    gpart *x = calloc(1, sizeof *x);
    if (!x) {
        set_err(&e, 1, "limit", "out of memory");
        goto answer;
    }
    x->who = me;
    if (!parse_name(m, name, &e))
        goto answer;
    pmc_slice meth = { NULL, 0 };
    pmc_msg_get(m, "method", &meth);
    x->method = pmc_slice_eq(meth, "collective") ? M_COLLECTIVE
              : pmc_slice_eq(meth, "bootstrap")  ? M_BOOTSTRAP
              : pmc_slice_eq(meth, "member")     ? M_MEMBER
                                                 : M_NONE;
    if (x->method == M_NONE) {
        set_err(&e, 3, "invalid", "method '%.*s' is not collective, bootstrap or member",
                clip(meth.len), meth.ptr ? meth.ptr : "");
        goto answer;
    }
    long long timeout = parse_timeout(m, &e);
    bool has_leaders = parse_list(g, j, m, "leaders", &x->leaders, &e);
    bool has_members = parse_list(g, j, m, "members", &x->members, &e);
    int has_n = pmc_msg_get_int(m, "nleaders", &x->nleaders);
    parse_info(g, m, me, &x->info, &e);
    if (e.rc)
        goto answer;
    if (has_n < 0 || (has_n > 0 && x->method == M_BOOTSTRAP && x->nleaders < 1))
        set_err(&e, 3, "invalid", "nleaders must be a number of at least 1");
    else if (x->method == M_COLLECTIVE && (!has_leaders || has_n))
        set_err(&e, 3, "invalid", "a collective leader sends leaders and no nleaders");
    else if (x->method == M_BOOTSTRAP && (has_n == 0 || has_leaders))
        set_err(&e, 3, "invalid", "a bootstrap leader sends nleaders and no leaders");
    else if (x->method == M_MEMBER && (has_leaders || has_n || has_members))
        set_err(&e, 3, "invalid", "an added member sends neither leaders, nleaders nor members");
    else if (x->method == M_BOOTSTRAP && x->nleaders > G_PROCS_MAX)
        set_err(&e, 3, "limit", "a group holds at most %d processes", G_PROCS_MAX);
    else if (x->method == M_COLLECTIVE && !pl_has(&x->leaders, me))
        set_err(&e, 3, "invalid", "a collective leader names itself in leaders");
    else if (pl_has(&x->members, me))
        set_err(&e, 3, "invalid", "a leader names itself in members");
    else if (x->method == M_COLLECTIVE)
        for (size_t i = 0; i < x->members.n && !e.rc; i++)
            if (pl_has(&x->leaders, x->members.p[i]))
                set_err(&e, 3, "invalid", "a leader names another leader in members");
    if (!e.rc && x->leaders.n + x->members.n > G_PROCS_MAX)
        set_err(&e, 3, "limit", "a group holds at most %d processes", G_PROCS_MAX);
    if (e.rc)
        goto answer;
    if (find_group(g, name) && !GMUT(g, "group-exists-allowed")) {
        set_err(&e, 1, "exists", "group %s exists (destruct it first)", name);
        goto answer;
    }
    gpend *c = find_pend(g, name);
    if (c && c->kind != K_CONSTRUCT) {
        set_err(&e, 1, "mismatch", "group %s is being formed by an invite", name);
        goto answer;
    }
    if (c && part_of(c->parts, me)) {
        set_err(&e, 1, "busy", "this process already waits in a construct of %s", name);
        goto answer;
    }
    if (!c && names_in_use(g) >= G_GROUPS_MAX) {
        set_err(&e, 3, "limit", "at most %d groups exist at once", G_GROUPS_MAX);
        goto answer;
    }
    if (m->thrid.ptr && !(x->thrid = pms_strndup(m->thrid.ptr, m->thrid.len))) {
        set_err(&e, 1, "limit", "out of memory");
        goto answer;
    }
    x->tlen = m->thrid.len;
    if (!c) {
        c = calloc(1, sizeof *c);
        if (!c) {
            set_err(&e, 1, "limit", "out of memory");
            goto answer;
        }
        snprintf(c->name, sizeof c->name, "%s", name);
        c->kind = K_CONSTRUCT;
        c->next = g->pend;
        g->pend = c;
    }
    const char *why = contradiction(g, c, x);
    /* arrivals append: answers go out in arrival order */
    gpart **tail = &c->parts;
    while (*tail)
        tail = &(*tail)->next;
    gpart *mine = *tail = x;
    x = NULL;
    if (timeout > 0 && !GMUT(g, "group-timeout-ignored")) {
        long long d = now_ms() + timeout;
        if (!c->deadline || d < c->deadline)
            c->deadline = d;
    }
    if (why) {
        construct_fail_by(g, c, "mismatch", me, why);
        goto done;
    }
    /* GROUP-25: a named participant that already ended fails it at once */
    for (int pass = 0; pass < 2; pass++) {
        const gplist *l = pass ? &mine->members : &mine->leaders;
        for (size_t i = 0; i < l->n; i++)
            if (ended(g, l->p[i])) {
                construct_fail_by(g, c, "exited", l->p[i], "a participant ended");
                goto done;
            }
    }
    /* an added member that arrives after every leader, unnamed, gets
     * not-member here; then complete when every one is here */
    construct_check(g, c);
    goto done;
answer:
    reply_err(g, me, RESP_CONSTRUCT, m, &e, NULL);
done:
    if (x)
        part_free(x);
    leave(g);
}

/* ---- invite and join ---------------------------------------------------- */

static const char *const RESP_INVITE = "group-invite-response";

static ginvitee *invitee_of(gpend *c, gproc p)
{
    for (size_t i = 0; i < c->ninv; i++)
        if (same(c->inv[i].who, p))
            return &c->inv[i];
    return NULL;
}

/* GROUP-20: tell the leader (when subscribed) */
static void invitee_failed(pms_groups *g, gpend *c, ginvitee *v, const char *why)
{
    v->state = I_FAILED;
    v->why = why;
    info_free(&v->info);
    pmc_enc *e = GMUT(g, "group-invite-failed-silent") ? NULL
               : begin_event(g, c->parts->who, "invite-failed", c->name);
    if (!e)
        return;
    gscratch s = { 0 };
    pmc_enc_str(e, "proc", keep(&s, proc_text(g, v->who)));
    pmc_enc_str(e, "reason", why);
    send(g, c->parts->who);
    scratch_free(&s);
}

/* GROUP-21: everyone answered or failed: the leader and the acceptors. */
static void invite_check(pms_groups *g, gpend *c)
{
    gplist failed = { 0 };
    for (size_t i = 0; i < c->ninv; i++)
        if (c->inv[i].state == I_WAITING)
            return;
    ggroup *x = group_new(g, c->name);
    bool oom = !x || pl_add(g, &x->members, c->parts->who) < 0;
    for (size_t i = 0; i < c->ninv && !oom; i++)
        oom = pl_add(g, c->inv[i].state == I_ACCEPTED ? &x->members : &failed, c->inv[i].who) < 0;
    for (size_t i = 0; x && !oom && i < x->members.n; i++) {
        ginvitee *v = invitee_of(c, x->members.p[i]);
        oom = info_append(&x->info, v ? &v->info : &c->parts->info) < 0;
    }
    unlink_pend(g, c);
    if (oom) {
        if (x)
            group_free(x);
        fail_part(g, c->parts, RESP_INVITE, 1, "exited", NULL, "the server ran out of memory");
        pl_free(&failed);
        pend_free(c);
        return;
    }
    x->next = g->groups;
    g->groups = x;
    glog(g, "group %s: invite complete, ctxid %lld, %zu members, %zu failed", x->name, x->ctxid,
         x->members.n, failed.n);
    gpart *l = c->parts;
    pmc_enc *e = begin(g, l->who, RESP_INVITE, l->thrid, l->tlen);
    if (e) {
        gscratch s = { 0 };
        put_result(g, e, &s, x);
        if (failed.n)
            pmc_enc_str(e, "failed", keep(&s, pl_text(g, &failed)));
        send(g, l->who);
        scratch_free(&s);
    }
    for (size_t i = 0; i < c->ninv; i++) {
        if (c->inv[i].state != I_ACCEPTED)
            continue;
        e = begin_event(g, c->inv[i].who, "complete", c->name);
        if (!e)
            continue;
        gscratch s = { 0 };
        put_result(g, e, &s, x);
        send(g, c->inv[i].who);
        scratch_free(&s);
    }
    pl_free(&failed);
    pend_free(c);
}

void pms_groups_invite(pms_groups *g, pms_job *j, int rank, const pmc_msg *m)
{
    enter(g);
    gproc me = { j, rank };
    gerr e = { 0 };
    char name[G_NAME_MAX + 1];
    gpend *c = NULL;
    gpart *l = calloc(1, sizeof *l);
    gplist inv = { 0 };
    if (!l) {
        set_err(&e, 1, "limit", "out of memory");
        goto answer;
    }
    l->who = me;
    if (!parse_name(m, name, &e))
        goto answer;
    long long timeout = parse_timeout(m, &e);
    if (!parse_list(g, j, m, "members", &inv, &e) && !e.rc)
        set_err(&e, 3, "invalid", "members is required");
    parse_info(g, m, me, &l->info, &e);
    if (!e.rc && pl_has(&inv, me))
        set_err(&e, 3, "invalid", "the leader invites itself");
    if (e.rc)
        goto answer;
    if (find_group(g, name)) {
        set_err(&e, 1, "exists", "group %s exists (destruct it first)", name);
        goto answer;
    }
    gpend *o = find_pend(g, name);
    if (o && part_of(o->parts, me)) {
        set_err(&e, 1, "busy", "this process already waits to form %s", name);
        goto answer;
    }
    if (o) {
        set_err(&e, 1, "mismatch", "group %s is being formed by %s", name,
                o->kind == K_INVITE ? "another invite" : "a construct");
        goto answer;
    }
    if (names_in_use(g) >= G_GROUPS_MAX) {
        set_err(&e, 3, "limit", "at most %d groups exist at once", G_GROUPS_MAX);
        goto answer;
    }
    c = calloc(1, sizeof *c);
    if (c)
        c->inv = calloc(inv.n ? inv.n : 1, sizeof *c->inv);
    if (!c || !c->inv || (m->thrid.ptr && !(l->thrid = pms_strndup(m->thrid.ptr, m->thrid.len)))) {
        if (c)
            free(c->inv);
        free(c);
        set_err(&e, 1, "limit", "out of memory");
        goto answer;
    }
    l->tlen = m->thrid.len;
    snprintf(c->name, sizeof c->name, "%s", name);
    c->kind = K_INVITE;
    c->parts = l;
    l = NULL;
    if (timeout > 0)
        c->deadline = now_ms() + timeout;
    c->next = g->pend;
    g->pend = c;
    c->ninv = inv.n;
    for (size_t i = 0; i < inv.n; i++)
        c->inv[i].who = inv.p[i];
    /* GROUP-18: the invitation, or unreachable at once */
    char *leader = proc_text(g, me);
    for (size_t i = 0; i < c->ninv; i++) {
        pmc_enc *ev = leader ? begin_event(g, c->inv[i].who, "invited", c->name) : NULL;
        if (!ev) {
            invitee_failed(g, c, &c->inv[i], "unreachable");
            continue;
        }
        pmc_enc_str(ev, "leader", leader);
        send(g, c->inv[i].who);
    }
    free(leader);
    invite_check(g, c);
    goto done;
answer:
    reply_err(g, me, RESP_INVITE, m, &e, NULL);
done:
    if (l)
        part_free(l);
    pl_free(&inv);
    leave(g);
}

void pms_groups_join(pms_groups *g, pms_job *j, int rank, const pmc_msg *m)
{
    enter(g);
    gproc me = { j, rank };
    gerr e = { 0 };
    char name[G_NAME_MAX + 1];
    ginfo info = { 0 };
    pmc_slice a;
    bool accept = false;
    if (!parse_name(m, name, &e))
        goto answer;
    if (!pmc_msg_get(m, "accept", &a) || pmc_parse_bool(a, &accept, NULL) < 0) {
        set_err(&e, 3, "invalid", "accept is neither TRUE nor FALSE");
        goto answer;
    }
    gpend *c = find_pend(g, name);
    ginvitee *v = c && c->kind == K_INVITE ? invitee_of(c, me) : NULL;
    if ((!v || v->state != I_WAITING) && GMUT(g, "group-join-unknown-ok")) {
        reply_rc0(g, me, "group-join-response", m->thrid.ptr, m->thrid.len);
        goto done;
    }
    if (!v || v->state != I_WAITING) {
        set_err(&e, 1, "unknown", "no invitation to %s is outstanding for this process", name);
        goto answer;
    }
    if (accept)
        parse_info(g, m, me, &info, &e);
    if (e.rc)
        goto answer; /* the invitation stays outstanding */
    /* a connection this answer closes is handled on leave: c stays intact */
    reply_rc0(g, me, "group-join-response", m->thrid.ptr, m->thrid.len);
    if (accept || GMUT(g, "group-decline-joined")) {
        v->state = I_ACCEPTED;
        v->info = info;
        info = (ginfo){ 0 };
    } else {
        invitee_failed(g, c, v, "declined");
    }
    invite_check(g, c);
    goto done;
answer:
    reply_err(g, me, "group-join-response", m, &e, NULL);
done:
    info_free(&info);
    leave(g);
}

/* ---- destruct and get --------------------------------------------------- */

static const char *const RESP_DESTRUCT = "group-destruct-response";

static void group_gone(pms_groups *g, ggroup *x)
{
    unlink_group(g, x);
    glog(g, "group %s (ctxid %lld) is gone", x->name, x->ctxid);
    group_free(x);
}

/* GROUP-27: every member still open sent it (a member that ended counts) */
static void destruct_check(pms_groups *g, ggroup *x)
{
    if (!x->dparts)
        return;
    for (size_t i = 0; i < x->members.n && !GMUT(g, "group-destruct-early"); i++)
        if (!part_of(x->dparts, x->members.p[i]) && !ended(g, x->members.p[i]))
            return;
    unlink_group(g, x);
    for (gpart *p = x->dparts; p; p = p->next)
        reply_rc0(g, p->who, RESP_DESTRUCT, p->thrid, p->tlen);
    glog(g, "group %s (ctxid %lld) destructed", x->name, x->ctxid);
    group_free(x);
}

static ggroup *group_of_member(pms_groups *g, const char *name, gproc p)
{
    ggroup *x = find_group(g, name);
    return x && pl_has(&x->members, p) ? x : NULL;
}

void pms_groups_destruct(pms_groups *g, pms_job *j, int rank, const pmc_msg *m)
{
    enter(g);
    gproc me = { j, rank };
    gerr e = { 0 };
    char name[G_NAME_MAX + 1];
    if (!parse_name(m, name, &e))
        goto answer;
    long long timeout = parse_timeout(m, &e);
    if (e.rc)
        goto answer;
    ggroup *x = group_of_member(g, name, me);
    if (!x) {
        set_err(&e, 1, "unknown", "this process is not a member of a group %s", name);
        goto answer;
    }
    if (part_of(x->dparts, me)) {
        set_err(&e, 1, "busy", "this process already waits in a destruct of %s", name);
        goto answer;
    }
    gpart *p = calloc(1, sizeof *p);
    if (!p || (m->thrid.ptr && !(p->thrid = pms_strndup(m->thrid.ptr, m->thrid.len)))) {
        free(p);
        set_err(&e, 1, "limit", "out of memory");
        goto answer;
    }
    p->who = me;
    p->tlen = m->thrid.len;
    gpart **tail = &x->dparts;
    while (*tail)
        tail = &(*tail)->next;
    *tail = p;
    if (timeout > 0) {
        long long d = now_ms() + timeout;
        if (!x->deadline || d < x->deadline)
            x->deadline = d;
    }
    destruct_check(g, x);
    goto done;
answer:
    reply_err(g, me, RESP_DESTRUCT, m, &e, NULL);
done:
    leave(g);
}

void pms_groups_get(pms_groups *g, pms_job *j, int rank, const pmc_msg *m)
{
    enter(g);
    gproc me = { j, rank }, who;
    gerr e = { 0 };
    char name[G_NAME_MAX + 1];
    pmc_slice ps = { NULL, 0 }, k = { NULL, 0 };
    if (!parse_name(m, name, &e))
        goto answer;
    ggroup *x = GMUT(g, "group-get-nonmember") ? find_group(g, name)
                                                : group_of_member(g, name, me);
    if (!x) {
        set_err(&e, 1, "unknown", "this process is not a member of a group %s", name);
        goto answer;
    }
    if (!pmc_msg_get(m, "proc", &ps) || !pmc_msg_get(m, "key", &k)) {
        set_err(&e, 3, "invalid", "proc and key are required");
        goto answer;
    }
    pmc_slice job;
    long long r = -1;
    if (!split_proc(ps, &job, &r)) {
        set_err(&e, 3, "invalid", "'%.*s' is no process id (jobid:rank)", clip(ps.len), ps.ptr);
        goto answer;
    }
    /* any well-formed id may be asked for: only the group's contributors are found */
    const gpair *hit = NULL;
    who.job = g->port.find_job(g->port.ctx, job.ptr, job.len);
    who.rank = (int)r;
    for (size_t i = 0; who.job && i < x->info.n && !hit; i++)
        if (same(x->info.p[i].who, who) && x->info.p[i].klen == k.len &&
            memcmp(x->info.p[i].key, k.ptr, k.len) == 0)
            hit = &x->info.p[i];
    pmc_enc *enc = begin(g, me, "group-get-response", m->thrid.ptr, m->thrid.len);
    if (enc) {
        pmc_enc_int(enc, "rc", 0);
        pmc_enc_bool(enc, "found", hit != NULL);
        if (hit)
            pmc_enc_slice(enc, PMC_SLICE_LIT("value"), (pmc_slice){ hit->val, hit->vlen });
        send(g, me);
    }
    goto done;
answer:
    reply_err(g, me, "group-get-response", m, &e, NULL);
done:
    leave(g);
}

/* ---- processes that end, deadlines -------------------------------------- */

/* Answers sent from here cannot come back into groups.c (a connection they
 * close waits in g->gone), so only what this code unlinks leaves the lists:
 * walking them with the next pointer taken first is safe. */
static void handle_gone(pms_groups *g, gproc p)
{
    for (gpend *c = g->pend, *next; c; c = next) {
        next = c->next;
        if (c->kind == K_CONSTRUCT) {
            gplist named = { 0 };
            named_members(g, c, &named);
            const gpart *l = first_leader(c);
            bool involved = part_of(c->parts, p) || pl_has(&named, p) ||
                            (l && l->method == M_COLLECTIVE && pl_has(&l->leaders, p));
            pl_free(&named);
            if (involved && !GMUT(g, "group-exit-unnoticed")) /* GROUP-25 */
                construct_fail_by(g, c, "exited", p, "a participant ended");
            continue;
        }
        if (same(c->parts->who, p)) {
            /* GROUP-21: the leader ended first */
            unlink_pend(g, c);
            gplist f = { 0 };
            pl_add(g, &f, p);
            for (size_t i = 0; i < c->ninv && !GMUT(g, "group-leader-exit-silent"); i++) {
                if (c->inv[i].state != I_ACCEPTED)
                    continue;
                pmc_enc *e = begin_event(g, c->inv[i].who, "complete", c->name);
                if (!e)
                    continue;
                gscratch s = { 0 };
                put_failure(g, e, &s, 1, "exited", "the leader ended", &f);
                send(g, c->inv[i].who);
                scratch_free(&s);
            }
            pl_free(&f);
            pend_free(c);
            continue;
        }
        ginvitee *v = invitee_of(c, p);
        if (v && v->state != I_FAILED) { /* GROUP-20, also after accepting */
            invitee_failed(g, c, v, "exited");
            invite_check(g, c);
        }
    }
    for (ggroup *x = g->groups, *next; x; x = next) {
        next = x->next;
        if (!pl_has(&x->members, p))
            continue;
        bool any = false;
        for (size_t i = 0; i < x->members.n && !any; i++)
            any = !ended(g, x->members.p[i]);
        if (!any) /* nobody is left to destruct it: waiting destructs have no one to answer */
            group_gone(g, x);
        else
            destruct_check(g, x); /* GROUP-27: an ended member counts as done */
    }
}

void pms_groups_proc_gone(pms_groups *g, pms_job *j, int rank)
{
    if (!g)
        return;
    enter(g);
    pl_add(g, &g->gone, (gproc){ j, rank }); /* handled on leave, in order */
    leave(g);
}

static void expire_construct(pms_groups *g, gpend *c)
{
    gplist f = { 0 };
    if (!GMUT(g, "group-timeout-no-failed"))
        missing(g, c, &f);
    construct_fail(g, c, "timeout", &f, "the construct timed out");
    pl_free(&f);
}

static void expire_invite(pms_groups *g, gpend *c)
{
    c->deadline = 0;
    for (size_t i = 0; i < c->ninv; i++)
        if (c->inv[i].state == I_WAITING)
            invitee_failed(g, c, &c->inv[i], "timeout");
    invite_check(g, c);
}

static void expire_destruct(pms_groups *g, ggroup *x)
{
    gplist f = { 0 };
    for (size_t i = 0; i < x->members.n; i++)
        if (!part_of(x->dparts, x->members.p[i]) && !ended(g, x->members.p[i]))
            pl_add(g, &f, x->members.p[i]);
    unlink_group(g, x);
    for (gpart *p = x->dparts; p; p = p->next)
        fail_part(g, p, RESP_DESTRUCT, 1, "timeout", &f, "the destruct timed out");
    glog(g, "group %s (ctxid %lld) destructed after a timeout", x->name, x->ctxid);
    group_free(x);
    pl_free(&f);
}

int pms_groups_service(pms_groups *g, long long now)
{
    if (!g || (!g->pend && !g->groups))
        return -1;
    enter(g);
    long long next = -1;
    /* as in handle_gone: only what is expired here leaves the lists */
    for (gpend *c = g->pend, *n; c; c = n) {
        n = c->next;
        if (!c->deadline)
            continue;
        if (c->deadline <= now) {
            if (c->kind == K_CONSTRUCT)
                expire_construct(g, c);
            else
                expire_invite(g, c);
        } else if (next < 0 || c->deadline - now < next) {
            next = c->deadline - now;
        }
    }
    for (ggroup *x = g->groups, *n; x; x = n) {
        n = x->next;
        if (!x->dparts || !x->deadline)
            continue;
        if (x->deadline <= now)
            expire_destruct(g, x);
        else if (next < 0 || x->deadline - now < next)
            next = x->deadline - now;
    }
    leave(g);
    return next < 0 ? -1 : next > 1000000 ? 1000000 : (int)next;
}
