/* The groups profile (SPEC.md §12) for show and the diagram: pairing of
 * group- requests and responses, events, constructions (see groups.h). */
#include "groups.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* A group- request waiting for its response. */
typedef struct gt_pending {
    char conn[PMT_CONN_MAX];
    pmc_cmd req, reply;
    bool has_thrid;
    char thrid[64];
    char grp[GT_NAME];
    double secs;
    long cons;
} gt_pending;

struct gt_tracker {
    gt_cons *cons;
    size_t ncons, capcons;
    gt_pending *pend;
    size_t npend, cappend;
    char (*subscribed)[PMT_CONN_MAX];
    size_t nsub, capsub;
};

const char *gt_role_name(gt_role r)
{
    switch (r) {
    case GT_LEADER: return "leader";
    case GT_MEMBER: return "added member";
    case GT_INVITER: return "invite leader";
    case GT_INVITED: return "invited";
    case GT_JOINED: return "joined";
    case GT_DECLINED: return "declined";
    default: return "";
    }
}

static void cat(char *buf, size_t n, const char *fmt, ...)
{
    size_t l = strlen(buf);
    if (l + 1 >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + l, n - l, fmt, ap);
    va_end(ap);
}

/* A value as printable text (trace escapes), cut with "..." to fit. */
static void text_of(pmc_slice s, char *buf, size_t n)
{
    size_t w = 0;
    buf[0] = 0;
    for (size_t i = 0; i < s.len; i++) {
        char e[8];
        size_t k = pmt_escape(s.ptr + i, 1, e, sizeof e);
        if (w + k + 4 > n) {
            memcpy(buf + w, "...", 4);
            return;
        }
        memcpy(buf + w, e, k);
        w += k;
        buf[w] = 0;
    }
}

/* The value of key as text, "" when absent. */
static bool val(const pmc_msg *m, const char *key, char *buf, size_t n)
{
    pmc_slice s;
    if (!pmc_msg_get(m, key, &s)) {
        buf[0] = 0;
        return false;
    }
    text_of(s, buf, n);
    return true;
}

gt_tracker *gt_new(void)
{
    return calloc(1, sizeof(gt_tracker));
}

void gt_free(gt_tracker *t)
{
    if (!t)
        return;
    free(t->cons);
    free(t->pend);
    free(t->subscribed);
    free(t);
}

size_t gt_ncons(const gt_tracker *t)
{
    return t->ncons;
}

const gt_cons *gt_cons_get(const gt_tracker *t, size_t i)
{
    return i < t->ncons ? &t->cons[i] : NULL;
}

static bool is_group_cmd(int cmd)
{
    return cmd >= PMC_V2_GROUP_SUBSCRIBE && cmd <= PMC_V2_GROUP_EVENT;
}

static long latest(const gt_tracker *t, const char *grp)
{
    for (size_t i = t->ncons; i-- > 0;)
        if (!strcmp(t->cons[i].grp, grp))
            return (long)i;
    return -1;
}

static gt_part *part_of(gt_cons *c, const char *conn)
{
    for (size_t i = 0; i < c->nparts; i++)
        if (!strcmp(c->parts[i].conn, conn))
            return &c->parts[i];
    return NULL;
}

/* conn's part in construction c, added at seq when new; NULL when full */
static gt_part *join_part(gt_cons *c, const char *conn, size_t seq)
{
    gt_part *p = part_of(c, conn);
    if (p || c->nparts == GT_PARTS)
        return p;
    p = &c->parts[c->nparts++];
    memset(p, 0, sizeof *p);
    snprintf(p->conn, sizeof p->conn, "%s", conn);
    p->seq = seq;
    return p;
}

static void touch(gt_cons *c, size_t seq, double secs)
{
    if (seq > c->last) {
        c->last = seq;
        c->t1 = secs;
    }
}

/* The construction a request of conn for grp belongs to: the latest one of
 * that name, unless it has ended (completed, failed or destructed) and conn
 * already took part in it: then this is a new construction of the name
 * (GROUP-27 frees it for reuse).  -1 when out of memory. */
static long cons_for(gt_tracker *t, const char *grp, const char *conn, const char *method,
                     bool opens, size_t seq, double secs)
{
    long i = latest(t, grp);
    if (i >= 0) {
        gt_cons *c = &t->cons[i];
        bool ended = c->state != GT_PENDING || c->destructed;
        if (!opens || !ended || (!part_of(c, conn) && !c->destructed))
            goto found;
    }
    if (t->ncons == t->capcons) {
        size_t nc = t->capcons ? t->capcons * 2 : 8;
        gt_cons *n = realloc(t->cons, nc * sizeof *n);
        if (!n)
            return -1;
        t->cons = n;
        t->capcons = nc;
    }
    i = (long)t->ncons++;
    memset(&t->cons[i], 0, sizeof t->cons[i]);
    snprintf(t->cons[i].grp, sizeof t->cons[i].grp, "%s", grp);
    snprintf(t->cons[i].method, sizeof t->cons[i].method, "%s", method);
    t->cons[i].first = t->cons[i].last = seq;
    t->cons[i].t0 = t->cons[i].t1 = secs;
found:;
    gt_cons *c = &t->cons[i];
    /* a leader's method names the construction; added members do not know it */
    if (strcmp(method, "member") && !strcmp(c->method, "member"))
        snprintf(c->method, sizeof c->method, "%s", method);
    touch(c, seq, secs);
    return i;
}

/* ", adds a,b, timeout 500 ms, contributes 2 pairs" */
static void extras(const pmc_msg *m, char *text, size_t n, bool adds)
{
    char v[GT_LIST];
    if (adds && val(m, "members", v, sizeof v))
        cat(text, n, ", adds %s", v);
    if (val(m, "timeout", v, sizeof v))
        cat(text, n, ", timeout %s ms", v);
    long long ic;
    if (pmc_msg_get_int(m, "infocount", &ic) == 1 && ic > 0)
        cat(text, n, ", contributes %lld pair%s", ic, ic == 1 ? "" : "s");
}

/* "complete: ctxid 3, members a,b" or "failed: timeout, failed a" for a
 * construct/invite answer or event=complete; updates c and conn's part. */
static void result(const pmc_msg *m, gt_cons *c, const char *conn, size_t seq, double secs,
                   char *text, size_t n)
{
    long long rc = -1;
    pmc_msg_get_int(m, "rc", &rc);
    char ctx[24], mem[GT_LIST], fl[GT_LIST], rs[32];
    val(m, "ctxid", ctx, sizeof ctx);
    val(m, "members", mem, sizeof mem);
    val(m, "failed", fl, sizeof fl);
    val(m, "reason", rs, sizeof rs);
    gt_part *p = c ? join_part(c, conn, seq) : NULL;
    if (rc == 0) {
        cat(text, n, "complete: ctxid %s, members %s", ctx[0] ? ctx : "?", mem[0] ? mem : "?");
        if (fl[0])
            cat(text, n, ", failed %s", fl);
        long long ic;
        if (pmc_msg_get_int(m, "infocount", &ic) == 1)
            cat(text, n, ", %lld contribution%s", ic, ic == 1 ? "" : "s");
    } else {
        cat(text, n, "failed: rc=%lld %s", rc, rs[0] ? rs : "(no reason)");
        if (fl[0])
            cat(text, n, ", failed %s", fl);
    }
    if (!c)
        return;
    touch(c, seq, secs);
    if (p) {
        p->answered = true;
        p->ok = rc == 0;
        p->done_seq = seq;
        if (rc == 0)
            snprintf(p->done_text, sizeof p->done_text, "ctxid %s", ctx[0] ? ctx : "?");
        else
            snprintf(p->done_text, sizeof p->done_text, "%.30s%s%.50s", rs[0] ? rs : "failed",
                     fl[0] ? ", failed " : "", fl);
    }
    if (rc == 0) {
        c->state = GT_COMPLETE;
        snprintf(c->ctxid, sizeof c->ctxid, "%s", ctx);
        snprintf(c->members, sizeof c->members, "%s", mem);
        if (fl[0])
            snprintf(c->failed, sizeof c->failed, "%s", fl);
    } else if (c->state != GT_COMPLETE) {
        c->state = GT_FAILED;
        snprintf(c->reason, sizeof c->reason, "%s", rs);
        snprintf(c->failed, sizeof c->failed, "%s", fl);
    }
}

static int add_pending(gt_tracker *t, const gt_pending *p)
{
    if (t->npend == t->cappend) {
        size_t nc = t->cappend ? t->cappend * 2 : 16;
        gt_pending *n = realloc(t->pend, nc * sizeof *n);
        if (!n)
            return -1;
        t->pend = n;
        t->cappend = nc;
    }
    t->pend[t->npend++] = *p;
    return 0;
}

static bool subscribed(const gt_tracker *t, const char *conn)
{
    for (size_t i = 0; i < t->nsub; i++)
        if (!strcmp(t->subscribed[i], conn))
            return true;
    return false;
}

static int request(gt_tracker *t, const char *conn, const pmc_msg *m, size_t seq, double secs,
                   gt_msg *g)
{
    char v[GT_LIST], w[GT_LIST];
    const pmc_cmdspec *sp = pmc_schema_get((pmc_cmd)m->cmd);
    gt_pending p = { .req = (pmc_cmd)m->cmd, .reply = sp ? sp->reply : PMC_CMD_UNKNOWN,
                     .secs = secs, .cons = -1 };
    snprintf(p.conn, sizeof p.conn, "%s", conn);
    if (m->thrid.ptr) {
        p.has_thrid = true;
        text_of(m->thrid, p.thrid, sizeof p.thrid);
    }
    val(m, "grp", g->grp, sizeof g->grp);
    snprintf(p.grp, sizeof p.grp, "%s", g->grp);
    char *text = g->text;
    size_t n = sizeof g->text;
    switch (m->cmd) {
    case PMC_V2_GROUP_SUBSCRIBE:
        cat(text, n, "subscribes to group events");
        break;
    case PMC_V2_GROUP_CONSTRUCT: {
        val(m, "method", w, sizeof w);
        gt_role role = !strcmp(w, "member") ? GT_MEMBER : GT_LEADER;
        cat(text, n, "group %s: ", g->grp);
        if (!strcmp(w, "collective"))
            cat(text, n, "collective leader, leaders %s", val(m, "leaders", v, sizeof v) ? v : "?");
        else if (!strcmp(w, "bootstrap"))
            cat(text, n, "bootstrap leader of %s", val(m, "nleaders", v, sizeof v) ? v : "?");
        else if (role == GT_MEMBER)
            cat(text, n, "added member");
        else
            cat(text, n, "method %s", w[0] ? w : "(none)");
        extras(m, text, n, true);
        if ((p.cons = g->cons = cons_for(t, g->grp, conn, w, true, seq, secs)) < 0)
            return -1;
        gt_part *pt = join_part(&t->cons[g->cons], conn, seq);
        if (pt && !pt->role)
            pt->role = role;
        break;
    }
    case PMC_V2_GROUP_INVITE: {
        cat(text, n, "group %s: invite leader, invites %s", g->grp,
            val(m, "members", v, sizeof v) ? v : "?");
        extras(m, text, n, false);
        if ((p.cons = g->cons = cons_for(t, g->grp, conn, "invite", true, seq, secs)) < 0)
            return -1;
        gt_part *pt = join_part(&t->cons[g->cons], conn, seq);
        if (pt)
            pt->role = GT_INVITER;
        break;
    }
    case PMC_V2_GROUP_JOIN: {
        bool acc = false;
        pmc_msg_get_bool(m, "accept", &acc, NULL);
        cat(text, n, "group %s: %s the invitation", g->grp, acc ? "accepts" : "declines");
        extras(m, text, n, false);
        if ((p.cons = g->cons = cons_for(t, g->grp, conn, "invite", false, seq, secs)) < 0)
            return -1;
        gt_part *pt = join_part(&t->cons[g->cons], conn, seq);
        if (pt)
            pt->role = acc ? GT_JOINED : GT_DECLINED;
        break;
    }
    case PMC_V2_GROUP_DESTRUCT:
        cat(text, n, "group %s: destruct", g->grp);
        extras(m, text, n, false);
        p.cons = g->cons = latest(t, g->grp);
        break;
    case PMC_V2_GROUP_GET:
        val(m, "proc", v, sizeof v);
        val(m, "key", w, sizeof w);
        cat(text, n, "group %s: reads %s's %s", g->grp, v, w);
        p.cons = g->cons = latest(t, g->grp);
        break;
    default:
        cat(text, n, "group request");
    }
    return add_pending(t, &p);
}

static int response(gt_tracker *t, const char *conn, const pmc_msg *m, size_t seq, double secs,
                    gt_msg *g)
{
    char thrid[64] = "", v[GT_LIST];
    if (m->thrid.ptr)
        text_of(m->thrid, thrid, sizeof thrid);
    /* the oldest request of this connection this response can answer, with
     * the same thrid or, when neither has one, in order (GROUP-11, THRID-4) */
    size_t k = 0;
    for (; k < t->npend; k++) {
        gt_pending *p = &t->pend[k];
        if (!strcmp(p->conn, conn) && (int)p->reply == m->cmd && p->has_thrid == (m->thrid.ptr != NULL) &&
            !strcmp(p->thrid, thrid))
            break;
    }
    char *text = g->text;
    size_t n = sizeof g->text;
    long long rc = -1;
    pmc_msg_get_int(m, "rc", &rc);
    gt_pending p = { .cons = -1 };
    bool matched = k < t->npend;
    if (matched) {
        p = t->pend[k];
        memmove(&t->pend[k], &t->pend[k + 1], (t->npend - k - 1) * sizeof p);
        t->npend--;
    } else {
        snprintf(g->problem, sizeof g->problem,
                 "answers no pending request of %s%s%s (GROUP-11: a response echoes its request's thrid)",
                 conn, m->thrid.ptr ? " with thrid=" : "", thrid);
    }
    snprintf(g->grp, sizeof g->grp, "%s", p.grp);
    g->cons = p.cons;
    gt_cons *c = p.cons >= 0 ? &t->cons[p.cons] : NULL;
    const char *grp = p.grp[0] ? p.grp : "?";
    switch (m->cmd) {
    case PMC_V2_GROUP_CONSTRUCT_RESPONSE:
    case PMC_V2_GROUP_INVITE_RESPONSE:
        cat(text, n, "group %s ", grp);
        result(m, c, conn, seq, secs, text, n);
        break;
    case PMC_V2_GROUP_SUBSCRIBE_RESPONSE:
        if (rc == 0) {
            cat(text, n, "subscribed: group-event frames may come from now on");
            if (!subscribed(t, conn)) {
                if (t->nsub == t->capsub) {
                    size_t nc = t->capsub ? t->capsub * 2 : 8;
                    void *ns = realloc(t->subscribed, nc * sizeof t->subscribed[0]);
                    if (!ns)
                        return -1;
                    t->subscribed = ns;
                    t->capsub = nc;
                }
                snprintf(t->subscribed[t->nsub++], PMT_CONN_MAX, "%s", conn);
            }
        } else {
            cat(text, n, "subscription refused: %s", val(m, "reason", v, sizeof v) ? v : "?");
        }
        break;
    case PMC_V2_GROUP_JOIN_RESPONSE:
        if (rc == 0)
            cat(text, n, "group %s: join acknowledged", grp);
        else
            cat(text, n, "group %s: join refused: %s", grp, val(m, "reason", v, sizeof v) ? v : "?");
        if (c)
            touch(c, seq, secs);
        break;
    case PMC_V2_GROUP_DESTRUCT_RESPONSE:
        if (rc == 0) {
            cat(text, n, "group %s destructed", grp);
            if (c)
                c->destructed = true;
        } else {
            cat(text, n, "group %s: destruct failed: %s", grp, val(m, "reason", v, sizeof v) ? v : "?");
            if (val(m, "failed", v, sizeof v))
                cat(text, n, ", failed %s", v);
        }
        break;
    case PMC_V2_GROUP_GET_RESPONSE: {
        bool found = false;
        pmc_msg_get_bool(m, "found", &found, NULL);
        if (rc != 0)
            cat(text, n, "group %s: get failed: %s", grp, val(m, "reason", v, sizeof v) ? v : "?");
        else if (found)
            cat(text, n, "group %s: found %s", grp, val(m, "value", v, sizeof v) ? v : "");
        else
            cat(text, n, "group %s: not found", grp);
        break;
    }
    default:
        break;
    }
    if (matched) {
        const pmc_cmdspec *rq = pmc_schema_get(p.req);
        cat(text, n, "  (answers %s%s%s of %.6f)", rq ? rq->name : "?", p.has_thrid ? " thrid=" : "",
            p.thrid, p.secs);
    }
    return 0;
}

static int event(gt_tracker *t, const char *conn, const pmc_msg *m, size_t seq, double secs,
                 gt_msg *g)
{
    char ev[32], v[GT_LIST], w[GT_LIST];
    val(m, "event", ev, sizeof ev);
    val(m, "grp", g->grp, sizeof g->grp);
    char *text = g->text;
    size_t n = sizeof g->text;
    cat(text, n, "server-initiated event %s (answers no request): ", ev[0] ? ev : "(none)");
    if (m->thrid.ptr)
        snprintf(g->problem, sizeof g->problem, "an event carries thrid (GROUP-9: it answers no request)");
    else if (!subscribed(t, conn))
        snprintf(g->problem, sizeof g->problem,
                 "an event on a connection that has not subscribed (GROUP-8)");
    if (!strcmp(ev, "invited")) {
        g->clause = "GROUP-18";
        cat(text, n, "group %s, invited by %s", g->grp, val(m, "leader", v, sizeof v) ? v : "?");
        if ((g->cons = cons_for(t, g->grp, conn, "invite", false, seq, secs)) < 0)
            return -1;
        gt_part *pt = join_part(&t->cons[g->cons], conn, seq);
        if (pt && !pt->role)
            pt->role = GT_INVITED;
    } else if (!strcmp(ev, "invite-failed")) {
        g->clause = "GROUP-20";
        val(m, "proc", v, sizeof v);
        val(m, "reason", w, sizeof w);
        cat(text, n, "group %s, invitee %s failed: %s", g->grp, v[0] ? v : "?", w[0] ? w : "?");
        if ((g->cons = cons_for(t, g->grp, conn, "invite", false, seq, secs)) < 0)
            return -1;
        gt_cons *c = &t->cons[g->cons];
        if (c->nmarks < GT_MARKS) {
            gt_mark *mk = &c->marks[c->nmarks++];
            mk->seq = seq;
            snprintf(mk->conn, sizeof mk->conn, "%s", conn);
            snprintf(mk->text, sizeof mk->text, "%.60s %.30s", v[0] ? v : "?", w[0] ? w : "failed");
        }
    } else if (!strcmp(ev, "complete")) {
        g->clause = "GROUP-21";
        cat(text, n, "group %s ", g->grp);
        if ((g->cons = cons_for(t, g->grp, conn, "invite", false, seq, secs)) < 0)
            return -1;
        result(m, &t->cons[g->cons], conn, seq, secs, text, n);
    } else {
        g->clause = "GROUP-9";
        cat(text, n, "group %s", g->grp);
    }
    return 0;
}

int gt_msg_read(gt_tracker *t, const char *conn, pmt_side side, const pmc_msg *m, size_t seq,
                double secs, gt_msg *g)
{
    memset(g, 0, sizeof *g);
    g->cons = -1;
    if (m->wire != PMC_WIRE_V2 || !is_group_cmd(m->cmd))
        return 0;
    const pmc_cmdspec *sp = pmc_schema_get((pmc_cmd)m->cmd);
    g->clause = sp ? sp->clause : NULL;
    if (m->cmd == PMC_V2_GROUP_EVENT) {
        g->kind = GT_EVENT;
        if (side == PMT_CLIENT)
            snprintf(g->problem, sizeof g->problem, "a client sent a group-event (GROUP-9: the server's)");
        return event(t, conn, m, seq, secs, g);
    }
    if (sp && sp->dir == PMC_DIR_REQUEST) {
        g->kind = GT_REQUEST;
        return request(t, conn, m, seq, secs, g);
    }
    g->kind = GT_RESPONSE;
    return response(t, conn, m, seq, secs, g);
}

bool gt_unanswered(const gt_tracker *t, size_t i, char *buf, size_t n)
{
    if (i >= t->npend)
        return false;
    const gt_pending *p = &t->pend[i];
    const pmc_cmdspec *sp = pmc_schema_get(p->req);
    snprintf(buf, n, "%s %s%s%s%s%s%s at %.6f", p->conn, sp ? sp->name : "?", p->has_thrid ? " thrid=" : "",
             p->thrid, p->grp[0] ? " (group " : "", p->grp, p->grp[0] ? ")" : "", p->secs);
    return true;
}

void gt_cons_text(const gt_cons *c, char *buf, size_t n)
{
    buf[0] = 0;
    cat(buf, n, "%s (%s): ", c->grp, c->method);
    if (c->state == GT_COMPLETE)
        cat(buf, n, "complete, ctxid %s, members %s", c->ctxid, c->members);
    else if (c->state == GT_FAILED)
        cat(buf, n, "failed, %s", c->reason[0] ? c->reason : "?");
    else
        cat(buf, n, "not completed");
    if (c->failed[0])
        cat(buf, n, ", failed %s", c->failed);
    if (c->destructed)
        cat(buf, n, ", destructed");
    for (size_t i = 0; i < c->nparts; i++)
        cat(buf, n, "%s%s %s", i ? ", " : "; ", c->parts[i].conn,
            c->parts[i].role ? gt_role_name(c->parts[i].role) : "participant");
    for (size_t i = 0; i < c->nmarks; i++)
        cat(buf, n, "%s%s", i ? ", " : "; invite failures: ", c->marks[i].text);
}
