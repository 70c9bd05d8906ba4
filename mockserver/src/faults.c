/* Observation and fault injection: an observer sees every request, byte and
 * connection event; faults change what the server does for chosen requests
 * (server.h documents each action).  Output of a connection with a delayed,
 * split or held response goes through a queue of chunks, released by the
 * event loop (pms_faults_service), so two messages never interleave. */
#include "internal.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

typedef struct fx_fault {
    pms_fault f;  /* strings and data point into owned copies */
    char *cmd, *errmsg;
    void *data;
    int seen;     /* selected requests so far */
    int fired;
} fx_fault;

struct pms_faults {
    pms_observer obs;
    bool has_obs;
    fx_fault *f;
    size_t n, cap;
    pms_kill_cb killer;
    void *kctx;
};

/* A response-side fault waiting for its response. */
typedef struct fx_arm {
    size_t fault;
    char reply[96];   /* response name; "" = the next response */
    char *thrid;      /* NULL: any */
    size_t thridlen;
    struct fx_arm *next;
} fx_arm;

typedef struct fx_chunk {
    char *buf;
    size_t len;
    int gap_ms;         /* wait after the previous chunk was released */
    long long due_ms;   /* set when the chunk reaches the head */
    bool held;          /* REORDER: released after the next response */
    struct fx_chunk *next;
} fx_chunk;

struct pms_fconn {
    fx_arm *arms;
    fx_chunk *q;
    char cur[96];       /* the response being built (pms_fault_reply_begin) */
    char *cur_thrid;
    size_t cur_thridlen;
    bool cur_has_thrid;
};

static const char *const kind_names[] = {
    [PMS_FAULT_DELAY] = "delay",   [PMS_FAULT_SPLIT] = "split", [PMS_FAULT_UNSOLICITED] = "unsolicited",
    [PMS_FAULT_ERROR] = "error",   [PMS_FAULT_REORDER] = "reorder", [PMS_FAULT_DROP] = "drop",
    [PMS_FAULT_KILL] = "kill",     [PMS_FAULT_FAIL_FENCE] = "fail-fence", [PMS_FAULT_PAD] = "pad",
};

const char *pms_fault_kind_name(pms_fault_kind k)
{
    return k >= PMS_FAULT_DELAY && k <= PMS_FAULT_PAD ? kind_names[k] : "?";
}

int pms_fault_kind_parse(const char *name)
{
    for (int k = PMS_FAULT_DELAY; k <= PMS_FAULT_PAD; k++)
        if (strcmp(kind_names[k], name) == 0)
            return k;
    return -1;
}

static struct pms_faults *faults(pms_server *s)
{
    if (!s->faults)
        s->faults = calloc(1, sizeof *s->faults);
    return s->faults;
}

static struct pms_fconn *fconn(pms_peer *c)
{
    if (!c->fx)
        c->fx = calloc(1, sizeof *c->fx);
    return c->fx;
}

void pms_set_observer(pms_server *s, const pms_observer *o)
{
    struct pms_faults *F = faults(s);
    if (!F)
        return;
    F->has_obs = o != NULL;
    if (o)
        F->obs = *o;
}

void pms_set_killer(pms_server *s, pms_kill_cb cb, void *ctx)
{
    struct pms_faults *F = faults(s);
    if (F) {
        F->killer = cb;
        F->kctx = ctx;
    }
}

int pms_fault_add(pms_server *s, const pms_fault *f)
{
    struct pms_faults *F = faults(s);
    if (!F || !f || f->kind < PMS_FAULT_DELAY || f->kind > PMS_FAULT_PAD || f->nth < 0 ||
        f->delay_ms < 0)
        return -1;
    if (F->n == F->cap) {
        size_t nc = F->cap ? F->cap * 2 : 8;
        fx_fault *nf = realloc(F->f, nc * sizeof *nf);
        if (!nf)
            return -1;
        F->f = nf;
        F->cap = nc;
    }
    fx_fault *x = &F->f[F->n];
    memset(x, 0, sizeof *x);
    x->f = *f;
    if (f->cmd && strcmp(f->cmd, "*") != 0 && !(x->cmd = strdup(f->cmd)))
        return -1;
    if (f->errmsg && !(x->errmsg = strdup(f->errmsg))) {
        free(x->cmd);
        return -1;
    }
    if (f->data && f->len) {
        if (!(x->data = malloc(f->len))) {
            free(x->cmd);
            free(x->errmsg);
            return -1;
        }
        memcpy(x->data, f->data, f->len);
    }
    x->f.cmd = x->cmd;
    x->f.errmsg = x->errmsg;
    x->f.data = x->data;
    x->f.len = x->data ? f->len : 0;
    return (int)F->n++;
}

void pms_fault_clear(pms_server *s)
{
    struct pms_faults *F = s->faults;
    if (!F)
        return;
    for (size_t i = 0; i < F->n; i++) {
        free(F->f[i].cmd);
        free(F->f[i].errmsg);
        free(F->f[i].data);
    }
    F->n = 0;
    for (pms_port *q = s->ports; q; q = q->next) {
        pms_peer *c = pms_peer_of(q);
        if (c->fx) {
            for (fx_arm *a = c->fx->arms, *n; a; a = n) {
                n = a->next;
                free(a->thrid);
                free(a);
            }
            c->fx->arms = NULL;
        }
    }
}

int pms_fault_fired(const pms_server *s, int id)
{
    if (!s->faults || id < 0 || (size_t)id >= s->faults->n)
        return -1;
    return s->faults->f[id].fired;
}

/* ---------------------------------------------------------------- observer */

void pms_observe_bytes(pms_peer *c, bool from_client, const void *p, size_t n)
{
    struct pms_faults *F = c->port.srv->faults;
    if (F && F->has_obs && F->obs.bytes)
        F->obs.bytes(F->obs.ctx, c->port.id, c->port.rank, from_client, p, n);
}

void pms_observe_event(pms_peer *c, const char *what, const char *why)
{
    struct pms_faults *F = c->port.srv->faults;
    if (F && F->has_obs && F->obs.event)
        F->obs.event(F->obs.ctx, c->port.id, c->port.rank, what, why ? why : "");
}

void pms_observe_decode_error(pms_peer *c, const pmc_error *e)
{
    struct pms_faults *F = c->port.srv->faults;
    if (F && F->has_obs && F->obs.decode_error)
        F->obs.decode_error(F->obs.ctx, c->port.id, c->port.rank, e);
}

/* ---------------------------------------------------------------- requests */

static bool is_fence(const pmc_msg *m)
{
    return pmc_slice_eq(m->name, m->wire == PMC_WIRE_V2 ? "kvs-fence" : "barrier_in");
}

static bool selects(const fx_fault *x, const pms_peer *c, const pmc_msg *m)
{
    if (x->f.rank >= 0 && x->f.rank != c->port.rank)
        return false;
    if (x->f.cmd ? !pmc_slice_eq(m->name, x->f.cmd)
                 : x->f.kind == PMS_FAULT_FAIL_FENCE && !is_fence(m))
        return false;
    return !x->f.accept || x->f.accept(x->f.accept_ctx, c->port.id, c->port.rank, m);
}

/* The schema's response name for a request ("" when it has none). */
static void reply_name(const pmc_msg *m, char *buf, size_t n)
{
    const pmc_cmdspec *sp = m->name.ptr ? pmc_schema_lookup(m->wire, m->name.ptr, m->name.len)
                                        : NULL;
    const pmc_cmdspec *r = sp && sp->reply ? pmc_schema_get(sp->reply) : NULL;
    if (r)
        snprintf(buf, n, "%s", r->name);
    else if (m->name.ptr && m->name.len)
        snprintf(buf, n, m->wire == PMC_WIRE_V2 ? "%.*s-response" : "%.*s_result",
                 (int)(m->name.len > 80 ? 80 : m->name.len), m->name.ptr);
    else
        buf[0] = 0;
}

static void answer_error(pms_peer *c, const pmc_msg *m, const fx_fault *x)
{
    char name[96], text[256];
    reply_name(m, name, sizeof name);
    bool fence = x->f.kind == PMS_FAULT_FAIL_FENCE;
    snprintf(text, sizeof text, "%s",
             x->f.errmsg ? x->f.errmsg : fence ? "fence failed" : "injected error");
    bool v2 = m->wire == PMC_WIRE_V2;
    if (!v2)
        for (char *t = text; *t; t++)
            if (*t == ' ' || *t == '\n' || *t == '\r')
                *t = '_';
    pmc_enc *e = pms_reply_begin(&c->port, v2 ? PMC_WIRE_V2 : PMC_WIRE_V1, name[0] ? name : "error",
                                 v2 ? m->thrid : (pmc_slice){ NULL, 0 });
    pmc_enc_int(e, "rc", x->f.rc ? x->f.rc : 1);
    pmc_enc_str(e, v2 ? "errmsg" : "msg", text);
    pms_reply_send(&c->port);
}

static void arm(pms_peer *c, const pmc_msg *m, size_t idx)
{
    struct pms_fconn *X = fconn(c);
    fx_arm *a = X ? calloc(1, sizeof *a) : NULL;
    if (!a)
        return;
    a->fault = idx;
    reply_name(m, a->reply, sizeof a->reply);
    if (m->thrid.ptr && (a->thrid = malloc(m->thrid.len + 1))) {
        memcpy(a->thrid, m->thrid.ptr, m->thrid.len);
        a->thridlen = m->thrid.len;
    }
    fx_arm **t = &X->arms; /* FIFO: responses come in request order unless tagged */
    while (*t)
        t = &(*t)->next;
    *t = a;
}

void pms_fault_observe(pms_peer *c, const pmc_msg *m)
{
    struct pms_faults *F = c->port.srv->faults;
    if (F && F->has_obs && F->obs.request) {
        pmc_vreport rep;
        pmc_validate(m, PMC_VAL_REQUEST | PMC_VAL_UNKNOWN_KEYS, &rep);
        F->obs.request(F->obs.ctx, c->port.id, c->port.rank, m, &rep);
    }
}

bool pms_fault_request(pms_peer *c, const pmc_msg *m)
{
    struct pms_faults *F = c->port.srv->faults;
    if (!F)
        return false;
    pms_fault_observe(c, m);
    for (size_t i = 0; i < F->n && !c->port.dead; i++) {
        fx_fault *x = &F->f[i];
        if (!selects(x, c, m))
            continue;
        x->seen++;
        if (x->f.nth && x->seen != x->f.nth)
            continue;
        x->fired++;
        pms_log(c->port.srv, 1, "conn %d (rank %d): fault %s on '%.*s'", c->port.id, c->port.rank,
                pms_fault_kind_name(x->f.kind), (int)(m->name.len > 64 ? 64 : m->name.len),
                m->name.ptr ? m->name.ptr : "");
        switch (x->f.kind) {
        case PMS_FAULT_ERROR:
        case PMS_FAULT_FAIL_FENCE:
            answer_error(c, m, x);
            return true;
        case PMS_FAULT_DROP:
            if (x->f.after) { /* served and answered, then closed (closing flushes first) */
                pms_port_close_after(&c->port, false);
                /* and nothing more is read: on a socketpair the client's next
                 * write fails (EPIPE) however soon it comes after the answer */
                c->port.ops->shut_reads(&c->port);
                break;
            }
            pms_port_close(&c->port, "fault: connection dropped");
            return true;
        case PMS_FAULT_KILL:
            if (F->killer && c->port.job && c->port.rank >= 0)
                F->killer(F->kctx, c->port.job, c->port.rank, x->f.signo ? x->f.signo : SIGKILL);
            else
                pms_port_close(&c->port, "fault: rank killed (no killer: connection closed)");
            return true;
        default:
            arm(c, m, i);
            break;
        }
    }
    return false;
}

/* ---------------------------------------------------------------- responses */

void pms_fault_reply_begin(pms_peer *c, const char *cmd, pmc_slice thrid)
{
    if (!c->port.srv->faults || !c->port.srv->faults->n || !fconn(c))
        return;
    struct pms_fconn *X = c->fx;
    snprintf(X->cur, sizeof X->cur, "%s", cmd ? cmd : "");
    free(X->cur_thrid);
    X->cur_thrid = NULL;
    X->cur_has_thrid = thrid.ptr != NULL;
    if (thrid.ptr && (X->cur_thrid = malloc(thrid.len + 1))) {
        memcpy(X->cur_thrid, thrid.ptr, thrid.len);
        X->cur_thridlen = thrid.len;
    }
}

static fx_chunk *chunk(const char *p, size_t n, int gap)
{
    fx_chunk *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->buf = malloc(n ? n : 1);
    if (!k->buf) {
        free(k);
        return NULL;
    }
    memcpy(k->buf, p, n);
    k->len = n;
    k->gap_ms = gap;
    k->due_ms = -1;
    return k;
}

static void push(struct pms_fconn *X, fx_chunk *k)
{
    fx_chunk **t = &X->q;
    while (*t)
        t = &(*t)->next;
    *t = k;
}

/* Write every chunk that is due; returns ms until the next one (-1: none). */
static int release(pms_peer *c, long long now)
{
    struct pms_fconn *X = c->fx;
    while (X && X->q && !c->port.dead) {
        fx_chunk *k = X->q;
        if (k->due_ms < 0)
            k->due_ms = now + k->gap_ms;
        if (now < k->due_ms) {
            long long w = k->due_ms - now;
            return w > 1000000 ? 1000000 : (int)w;
        }
        X->q = k->next;
        c->port.ops->raw(&c->port, k->buf, k->len); /* queued and written */
        free(k->buf);
        free(k);
        if (X->q)
            X->q->due_ms = -1; /* its gap counts from now */
    }
    return -1;
}

static fx_arm *take_arm(struct pms_fconn *X)
{
    for (fx_arm **pp = &X->arms; *pp; pp = &(*pp)->next) {
        fx_arm *a = *pp;
        if (a->reply[0] && strcmp(a->reply, X->cur) != 0)
            continue;
        /* a tagged request's response: the same tag, when the response carries one */
        if (a->thrid && X->cur_has_thrid &&
            (a->thridlen != X->cur_thridlen || memcmp(a->thrid, X->cur_thrid, a->thridlen) != 0))
            continue;
        *pp = a->next;
        return a;
    }
    return NULL;
}

/* PAD: the frame p[0..n) with pairs d[0..dl) after its command pair, in a
 * new buffer (*nn its length); NULL when it is no PMI-2 frame or would not fit. */
static char *pad_frame(const char *p, size_t n, const char *d, size_t dl, size_t *nn)
{
    if (n < 6 + 4 || memcmp(p + 6, "cmd=", 4) != 0)
        return NULL;
    const char *semi = memchr(p + 6, ';', n - 6);
    size_t body = n - 6 + dl;
    if (!semi || body > 999999)
        return NULL;
    char *b = malloc(n + dl + 1);
    if (!b)
        return NULL;
    size_t head = (size_t)(semi + 1 - p); /* length field and command pair */
    snprintf(b, 7, "%6zu", body);
    memcpy(b + 6, p + 6, head - 6);
    memcpy(b + head, d, dl);
    memcpy(b + head + dl, semi + 1, n - head);
    *nn = n + dl;
    return b;
}

bool pms_fault_outgoing(pms_peer *c, pmc_out *o, size_t before)
{
    struct pms_fconn *X = c->fx;
    if (!X || c->port.dead || o->len <= before)
        return false;
    fx_arm *a = c->port.srv->faults && c->port.srv->faults->n ? take_arm(X) : NULL;
    bool held_waiting = false;
    for (fx_chunk *k = X->q; k; k = k->next)
        held_waiting |= k->held;
    if (!a && !X->q)
        return false;
    const char *p = o->buf + before;
    size_t n = o->len - before;
    fx_chunk *k = NULL, *k2 = NULL, *u = NULL;
    const pms_fault *f = a ? &c->port.srv->faults->f[a->fault].f : NULL;
    int kind = f ? (int)f->kind : 0;
    char *padded = NULL;
    if (kind == PMS_FAULT_PAD && f->len && (padded = pad_frame(p, n, f->data, f->len, &n)))
        p = padded;
    if (kind == PMS_FAULT_SPLIT) {
        size_t off = f->offset < n ? f->offset : n;
        k = chunk(p, off, 0);
        k2 = chunk(p + off, n - off, f->delay_ms);
    } else {
        k = chunk(p, n, kind == PMS_FAULT_DELAY ? f->delay_ms : 0);
    }
    if (kind == PMS_FAULT_UNSOLICITED && f->len)
        u = chunk(f->data, f->len, 0);
    free(padded);
    o->len = before; /* the bytes now live in the queue */
    if (a) {
        free(a->thrid);
        free(a);
    }
    if (!k || (kind == PMS_FAULT_SPLIT && !k2) || (kind == PMS_FAULT_UNSOLICITED && f->len && !u)) {
        free(k ? k->buf : NULL), free(k);
        free(k2 ? k2->buf : NULL), free(k2);
        free(u ? u->buf : NULL), free(u);
        pms_port_close(&c->port, "out of memory for a fault");
        return true;
    }
    if (kind == PMS_FAULT_REORDER) {
        k->held = true;
        k->gap_ms = f->delay_ms ? f->delay_ms : 2000; /* the longest hold */
        push(X, k);
    } else if (held_waiting && !kind) {
        /* the next response overtakes the held one, which follows at once */
        fx_chunk **pp = &X->q;
        while (*pp && !(*pp)->held)
            pp = &(*pp)->next;
        fx_chunk *h = *pp;
        k->next = h;
        *pp = k;
        h->held = false;
        h->gap_ms = 0;
        h->due_ms = -1;
    } else {
        if (u && !f->after)
            push(X, u);
        push(X, k);
        if (k2)
            push(X, k2);
        if (u && f->after)
            push(X, u);
    }
    release(c, pms_now_ms());
    return true;
}

bool pms_fault_holding(const pms_peer *c)
{
    return c->fx && c->fx->q;
}

int pms_faults_service(pms_server *s, long long now_ms, int timeout_ms)
{
    if (!s->faults)
        return timeout_ms;
    for (pms_port *q = s->ports; q; q = q->next) {
        pms_peer *c = pms_peer_of(q);
        if (c->port.dead || !c->fx || !c->fx->q)
            continue;
        int w = release(c, now_ms);
        if (w >= 0 && (timeout_ms < 0 || w < timeout_ms))
            timeout_ms = w;
    }
    return timeout_ms;
}

void pms_faults_conn_free(pms_peer *c)
{
    struct pms_fconn *X = c->fx;
    if (!X)
        return;
    for (fx_arm *a = X->arms, *n; a; a = n) {
        n = a->next;
        free(a->thrid);
        free(a);
    }
    for (fx_chunk *k = X->q, *n; k; k = n) {
        n = k->next;
        free(k->buf);
        free(k);
    }
    free(X->cur_thrid);
    free(X);
    c->fx = NULL;
}

void pms_faults_free(pms_server *s)
{
    if (!s->faults)
        return;
    pms_fault_clear(s);
    free(s->faults->f);
    free(s->faults);
    s->faults = NULL;
}
