/* pmi2srv.c - PMI-2 server protocol engine, first version.
 *
 * Shortcuts of this version:
 *  - fixed-size tables (KVS, node attributes, names, clients) and buffers
 *  - one node: every client shares the node attributes
 *  - kvs-put is visible at once to everybody (simpler than per-epoch KVS)
 *  - no continuation frames (cmd=concat answered as unknown), no auth challenge,
 *    no job-connect/kvs-getall/kvs-putall/ring (unknown commands)
 *  - PMI-1: only the init line; other PMI-1 lines get an "unknown" answer,
 *    an mcmd= block closes the connection
 *  - spawn is parsed and checked, nothing is started (callback decides)
 *  - one held info-getnodeattr(wait=TRUE) per client
 */
#include "pmi2srv.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define INBUF      16384      /* per-client input buffer */
#define MAX_BODY   8192       /* largest PMI-2 body accepted */
#define V1_MAX     1024       /* largest PMI-1 line, LF included */
#define MAX_PAIRS  512
#define KEYMAX     64
#define VALMAX     1024
#define THRIDMAX   1024
#define KVS_MAX    1024
#define NATTR_MAX  256
#define NAMES_MAX  128
#define OUTBUF     8192
#define JOBIDMAX   128

/* While fuzzing (-DPMI2SRV_FUZZ_ALLOC), the per-client string buffers get an
 * allocation of their own, so that AddressSanitizer sees their ends (an
 * overflow inside struct client is invisible to it). */
#ifdef PMI2SRV_FUZZ_ALLOC
#define FBUF(name, size) char *name
#else
#define FBUF(name, size) char name[size]
#endif

struct kv {
    char key[KEYMAX + 1];
    char val[VALMAX + 1];
};

struct name {
    int used;
    char name[KEYMAX + 1];
    char port[VALMAX + 1];
};

struct client {
    int open;                 /* slot in use */
    int fullinit;             /* fullinit done */
    int rank;
    int finalized;
    char in[INBUF];
    size_t inlen;
    /* fence */
    int in_fence;
    int fence_has_thrid;
    FBUF(fence_thrid, THRIDMAX + 1);
    /* held info-getnodeattr */
    int waiting;
    FBUF(wait_key, KEYMAX + 1);
    int wait_has_thrid;
    FBUF(wait_thrid, THRIDMAX + 1);
};

struct pmi2srv {
    struct pmi2srv_callbacks cb;
    int nranks;
    char jobid[JOBIDMAX + 1];
    int failed;               /* a rank was lost before finalize */
    int nspawn;
    struct client cl[PMI2SRV_MAX_CLIENTS];
    struct kv kvs[KVS_MAX];
    int nkvs;
    struct kv nattr[NATTR_MAX];
    int nnattr;
    struct name names[NAMES_MAX];
};

/* ------------------------------------------------------------------ */
/* parsed message */

struct pair {
    char *key;
    char *val;
    size_t vlen;
};

struct msg {
    char buf[MAX_BODY + 1];
    struct pair p[MAX_PAIRS];
    int n;
    const char *cmd;
    const char *thrid;        /* NULL when the request had none */
    size_t thridlen;
};

static const char *get(const struct msg *m, const char *key)
{
    for (int i = 1; i < m->n; i++)
        if (strcmp(m->p[i].key, key) == 0)
            return m->p[i].val;          /* first occurrence wins (PAIR-4) */
    return NULL;
}

static size_t getlen(const struct msg *m, const char *key)
{
    for (int i = 1; i < m->n; i++)
        if (strcmp(m->p[i].key, key) == 0)
            return m->p[i].vlen;
    return 0;
}

/* parse errors */
enum { P_OK = 0, P_NOCMD = -1, P_BAD = -2 };

/* parse a PMI-2 body of len bytes into m.  On P_BAD, *why says why and the
 * command (when readable) is in m->cmd. */
static int parse_body(struct msg *m, const char *body, size_t len, const char **why)
{
    memcpy(m->buf, body, len);
    m->buf[len] = 0;
    m->n = 0;
    m->cmd = NULL;
    m->thrid = NULL;
    m->thridlen = 0;
    *why = NULL;
    int bad = 0;

    char *b = m->buf;
    size_t pos = 0;
    while (pos < len) {
        size_t start = pos;
        size_t i = pos;
        while (i < len && b[i] != '=' && b[i] != ';')
            i++;
        if (i == len) {
            /* no '=' and no ';' before the end: trailing junk (BODY-6) */
            if (len - start <= 6 && m->n > 0)
                break;
            if (!*why) *why = "unterminated pair";
            bad = 1;
            break;
        }
        if (b[i] == ';') {
            /* bare key or empty pair: ignored (BODY-9) */
            if (m->n == 0) {
                return P_NOCMD;
            }
            pos = i + 1;
            continue;
        }
        /* b[i] == '=' */
        char *key = b + start;
        b[i] = 0;
        size_t keylen = i - start;
        size_t r = i + 1, w = i + 1;
        int terminated = 0;
        while (r < len) {
            if (b[r] == ';') {
                if (r + 1 < len && b[r + 1] == ';') {
                    b[w++] = ';';
                    r += 2;
                    continue;
                }
                terminated = 1;
                break;
            }
            b[w++] = b[r++];
        }
        if (!terminated) {
            /* unterminated last pair: junk if short and without ';' */
            size_t jl = len - start;
            if (m->n > 0 && jl <= 6 && memchr(body + start, ';', jl) == NULL)
                break;
            if (!*why) *why = "unterminated pair";
            bad = 1;
            if (m->n == 0)
                return P_NOCMD;
            break;
        }
        b[w] = 0;
        pos = r + 1;
        if (m->n == 0) {
            if (strcmp(key, "cmd") != 0 || w == i + 1)
                return P_NOCMD;
        } else if (keylen == 0) {
            if (!*why) *why = "empty key";
            bad = 1;
            continue;
        }
        if (m->n >= MAX_PAIRS) {
            if (!*why) *why = "too many pairs";
            bad = 1;
            continue;
        }
        m->p[m->n].key = key;
        m->p[m->n].val = b + i + 1;
        m->p[m->n].vlen = w - (i + 1);
        if (m->n > 0 && !m->thrid && strcmp(key, "thrid") == 0) {
            m->thrid = m->p[m->n].val;
            m->thridlen = m->p[m->n].vlen;
        }
        m->n++;
    }
    if (m->n == 0)
        return P_NOCMD;
    m->cmd = m->p[0].val;
    return bad ? P_BAD : P_OK;
}

/* ------------------------------------------------------------------ */
/* responses */

struct out {
    char b[OUTBUF];
    size_t n;
    int overflow;
};

static void out_raw(struct out *o, const char *s, size_t len)
{
    if (o->n + len > sizeof o->b) {
        o->overflow = 1;
        return;
    }
    memcpy(o->b + o->n, s, len);
    o->n += len;
}

static void out_str(struct out *o, const char *s)
{
    out_raw(o, s, strlen(s));
}

/* key=value; with ';' escaped as ';;' */
static void out_pairn(struct out *o, const char *key, const char *val, size_t vlen)
{
    out_str(o, key);
    out_raw(o, "=", 1);
    for (size_t i = 0; i < vlen; i++) {
        if (val[i] == ';')
            out_raw(o, ";;", 2);
        else
            out_raw(o, &val[i], 1);
    }
    out_raw(o, ";", 1);
}

static void out_pair(struct out *o, const char *key, const char *val)
{
    out_pairn(o, key, val, strlen(val));
}

static void out_int(struct out *o, const char *key, long v)
{
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%ld", v);
    out_pair(o, key, tmp);
}

static void out_begin(struct out *o, const char *cmd, const char *suffix,
                      const char *thrid, size_t thridlen)
{
    o->n = 6;
    o->overflow = 0;
    out_str(o, "cmd=");
    out_str(o, cmd);
    out_str(o, suffix);
    out_raw(o, ";", 1);
    if (thrid)
        out_pairn(o, "thrid", thrid, thridlen);
}

static void out_send(pmi2srv *s, int client, struct out *o)
{
    size_t body = o->n - 6;
    char len[8];
    snprintf(len, sizeof len, "%6zu", body);
    memcpy(o->b, len, 6);
    s->cb.send(s->cb.ctx, client, o->b, o->n);
}

/* error response for the request's command */
static void send_err(pmi2srv *s, int client, const struct msg *m, int rc, const char *errmsg)
{
    struct out o;
    out_begin(&o, m->cmd, "-response", m->thrid, m->thridlen);
    out_int(&o, "rc", rc);
    out_pair(&o, "errmsg", errmsg);
    if (o.overflow) {
        /* command name or thrid too long to answer: answer without them */
        out_begin(&o, "error", "-response", NULL, 0);
        out_int(&o, "rc", rc);
        out_pair(&o, "errmsg", "response too long");
    }
    out_send(s, client, &o);
}

/* send a finished success response; if it overflowed, an error instead */
static void finish(pmi2srv *s, int client, const struct msg *m, struct out *o)
{
    if (o->overflow) {
        send_err(s, client, m, 1, "response too long");
        return;
    }
    out_send(s, client, o);
}

static void send_ok(pmi2srv *s, int client, const struct msg *m)
{
    struct out o;
    out_begin(&o, m->cmd, "-response", m->thrid, m->thridlen);
    out_int(&o, "rc", 0);
    finish(s, client, m, &o);
}

/* ------------------------------------------------------------------ */
/* helpers */

static int parse_int(const char *v, long *out)
{
    if (!v || !*v)
        return -1;
    const char *p = v;
    if (*p == '-')
        p++;
    if (!isdigit((unsigned char)*p))
        return -1;
    for (const char *q = p; *q; q++)
        if (!isdigit((unsigned char)*q))
            return -1;
    errno = 0;
    long x = strtol(v, NULL, 10);
    if (errno == ERANGE || x > INT_MAX || x < INT_MIN)
        return -1;
    *out = x;
    return 0;
}

/* 1 TRUE, 0 FALSE, -1 neither */
static int parse_bool(const char *v)
{
    if (strcasecmp(v, "TRUE") == 0)
        return 1;
    if (strcasecmp(v, "FALSE") == 0)
        return 0;
    return -1;
}

static struct kv *kv_find(struct kv *t, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (strcmp(t[i].key, key) == 0)
            return &t[i];
    return NULL;
}

static void mapping(const pmi2srv *s, char *buf, size_t sz)
{
    snprintf(buf, sz, "(vector,(0,1,%d))", s->nranks);
}

/* requires key; returns value or NULL after sending rc=3 */
static const char *need(pmi2srv *s, int client, const struct msg *m, const char *key)
{
    const char *v = get(m, key);
    if (!v) {
        char em[128];
        snprintf(em, sizeof em, "missing required key: %s", key);
        send_err(s, client, m, 3, em);
    }
    return v;
}

/* ------------------------------------------------------------------ */
/* fence */

static void fence_answer_all(pmi2srv *s, int rc, const char *errmsg)
{
    for (int i = 0; i < PMI2SRV_MAX_CLIENTS; i++) {
        struct client *c = &s->cl[i];
        if (!c->open || !c->in_fence)
            continue;
        struct out o;
        out_begin(&o, "kvs-fence", "-response",
                  c->fence_has_thrid ? c->fence_thrid : NULL,
                  c->fence_has_thrid ? strlen(c->fence_thrid) : 0);
        out_int(&o, "rc", rc);
        if (rc)
            out_pair(&o, "errmsg", errmsg);
        c->in_fence = 0;
        out_send(s, i, &o);
    }
}

static void fence_check(pmi2srv *s)
{
    int n = 0;
    for (int i = 0; i < PMI2SRV_MAX_CLIENTS; i++)
        if (s->cl[i].open && s->cl[i].fullinit && s->cl[i].in_fence)
            n++;
    if (n == s->nranks)
        fence_answer_all(s, 0, NULL);
}

static void do_fence(pmi2srv *s, int client, const struct msg *m)
{
    struct client *c = &s->cl[client];
    if (c->in_fence) {
        send_err(s, client, m, 1, "already in a fence");
        return;
    }
    if (s->failed) {
        send_err(s, client, m, 1, "a process of the job was lost");
        return;
    }
    for (int i = 0; i < PMI2SRV_MAX_CLIENTS; i++) {
        if (s->cl[i].open && s->cl[i].finalized) {
            send_err(s, client, m, 1, "a process of the job has finalized");
            return;
        }
    }
    c->in_fence = 1;
    c->fence_has_thrid = m->thrid != NULL;
    if (m->thrid)
        strcpy(c->fence_thrid, m->thrid);
    fence_check(s);
}

/* ------------------------------------------------------------------ */
/* commands */

static void do_fullinit(pmi2srv *s, int client, const struct msg *m)
{
    struct client *c = &s->cl[client];
    if (c->fullinit) {
        send_err(s, client, m, 1, "fullinit already done");
        return;
    }
    const char *at = get(m, "authtype");
    if (at && *at) {
        char em[128];
        snprintf(em, sizeof em, "unsupported authtype: %.64s", at);
        send_err(s, client, m, 1, em);
        return;
    }
    long rank = client;
    const char *pr = get(m, "pmirank");
    if (pr && parse_int(pr, &rank) != 0) {
        send_err(s, client, m, 3, "malformed pmirank");
        return;
    }
    const char *th = get(m, "threaded");
    if (th && parse_bool(th) < 0) {
        send_err(s, client, m, 3, "malformed threaded");
        return;
    }
    if (rank < 0 || rank >= s->nranks) {
        send_err(s, client, m, 1, "rank out of range");
        return;
    }
    for (int i = 0; i < PMI2SRV_MAX_CLIENTS; i++) {
        if (i != client && s->cl[i].open && s->cl[i].fullinit && s->cl[i].rank == rank) {
            send_err(s, client, m, 1, "rank already claimed");
            return;
        }
    }
    c->rank = (int)rank;
    c->fullinit = 1;

    struct out o;
    out_begin(&o, "fullinit", "-response", m->thrid, m->thridlen);
    out_int(&o, "rc", 0);
    out_int(&o, "pmi-version", 2);
    out_int(&o, "pmi-subversion", 0);
    out_int(&o, "rank", c->rank);
    out_int(&o, "size", s->nranks);
    out_int(&o, "appnum", 0);
    out_pair(&o, "debugged", "FALSE");
    out_pair(&o, "pmiverbose", "FALSE");
    finish(s, client, m, &o);
}

static void do_kvs_put(pmi2srv *s, int client, const struct msg *m)
{
    const char *key = need(s, client, m, "key");
    if (!key)
        return;
    const char *val = need(s, client, m, "value");
    if (!val)
        return;
    if (strlen(key) == 0 || strlen(key) > KEYMAX) {
        send_err(s, client, m, 1, "key too long or empty");
        return;
    }
    if (getlen(m, "value") > VALMAX) {
        send_err(s, client, m, 1, "value too long");
        return;
    }
    struct kv *e = kv_find(s->kvs, s->nkvs, key);
    if (!e) {
        if (s->nkvs >= KVS_MAX) {
            send_err(s, client, m, 1, "key-value space full");
            return;
        }
        e = &s->kvs[s->nkvs++];
        strcpy(e->key, key);
    }
    strcpy(e->val, val);
    send_ok(s, client, m);
}

static void do_kvs_get(pmi2srv *s, int client, const struct msg *m)
{
    const char *key = need(s, client, m, "key");
    if (!key)
        return;
    const char *jobid = get(m, "jobid");
    if (jobid && *jobid && strcmp(jobid, s->jobid) != 0) {
        send_err(s, client, m, 1, "unknown job");
        return;
    }
    const char *srcid = get(m, "srcid");
    long sid;
    if (srcid && parse_int(srcid, &sid) != 0) {
        send_err(s, client, m, 3, "malformed srcid");
        return;
    }
    char map[128];
    const char *val = NULL;
    struct kv *e = kv_find(s->kvs, s->nkvs, key);
    if (e) {
        val = e->val;
    } else if (strcmp(key, "PMI_process_mapping") == 0) {
        mapping(s, map, sizeof map);
        val = map;
    }
    struct out o;
    out_begin(&o, m->cmd, "-response", m->thrid, m->thridlen);
    out_int(&o, "rc", 0);
    if (val) {
        out_pair(&o, "found", "TRUE");
        out_pair(&o, "value", val);
    } else {
        out_pair(&o, "found", "FALSE");
    }
    finish(s, client, m, &o);
}

static void send_nodeattr(pmi2srv *s, int client, const char *cmd, const char *thrid,
                          size_t thridlen, const char *val)
{
    struct out o;
    out_begin(&o, cmd, "-response", thrid, thridlen);
    out_int(&o, "rc", 0);
    if (val) {
        out_pair(&o, "found", "TRUE");
        out_pair(&o, "value", val);
    } else {
        out_pair(&o, "found", "FALSE");
    }
    out_send(s, client, &o);
}

static void do_putnodeattr(pmi2srv *s, int client, const struct msg *m)
{
    const char *key = need(s, client, m, "key");
    if (!key)
        return;
    const char *val = need(s, client, m, "value");
    if (!val)
        return;
    if (strlen(key) == 0 || strlen(key) > KEYMAX) {
        send_err(s, client, m, 1, "key too long or empty");
        return;
    }
    if (getlen(m, "value") > VALMAX) {
        send_err(s, client, m, 1, "value too long");
        return;
    }
    struct kv *e = kv_find(s->nattr, s->nnattr, key);
    if (!e) {
        if (s->nnattr >= NATTR_MAX) {
            send_err(s, client, m, 1, "node attribute table full");
            return;
        }
        e = &s->nattr[s->nnattr++];
        strcpy(e->key, key);
    }
    strcpy(e->val, val);
    send_ok(s, client, m);

    /* wake the waiters */
    for (int i = 0; i < PMI2SRV_MAX_CLIENTS; i++) {
        struct client *c = &s->cl[i];
        if (c->open && c->waiting && strcmp(c->wait_key, key) == 0) {
            c->waiting = 0;
            send_nodeattr(s, i, "info-getnodeattr",
                          c->wait_has_thrid ? c->wait_thrid : NULL,
                          c->wait_has_thrid ? strlen(c->wait_thrid) : 0, e->val);
        }
    }
}

static void do_getnodeattr(pmi2srv *s, int client, const struct msg *m)
{
    struct client *c = &s->cl[client];
    const char *key = need(s, client, m, "key");
    if (!key)
        return;
    int wait = 0;
    const char *w = get(m, "wait");
    if (w) {
        wait = parse_bool(w);
        if (wait < 0) {
            send_err(s, client, m, 3, "malformed wait");
            return;
        }
    }
    struct kv *e = kv_find(s->nattr, s->nnattr, key);
    if (e || !wait) {
        send_nodeattr(s, client, m->cmd, m->thrid, m->thridlen, e ? e->val : NULL);
        return;
    }
    if (c->waiting) {
        send_err(s, client, m, 1, "already waiting for a node attribute");
        return;
    }
    if (strlen(key) > KEYMAX) {
        send_err(s, client, m, 1, "key too long");
        return;
    }
    c->waiting = 1;
    strcpy(c->wait_key, key);
    c->wait_has_thrid = m->thrid != NULL;
    if (m->thrid)
        memcpy(c->wait_thrid, m->thrid, m->thridlen + 1);
}

static void do_getjobattr(pmi2srv *s, int client, const struct msg *m)
{
    const char *key = need(s, client, m, "key");
    if (!key)
        return;
    char buf[128];
    const char *val = NULL;
    if (strcmp(key, "PMI_process_mapping") == 0) {
        mapping(s, buf, sizeof buf);
        val = buf;
    } else if (strcmp(key, "universeSize") == 0) {
        snprintf(buf, sizeof buf, "%d", s->nranks);
        val = buf;
    } else if (strcmp(key, "PMI_dead_processes") == 0) {
        val = "";
    } else if (strcmp(key, "hasNameServ") == 0) {
        val = "TRUE";
    } else if (strcmp(key, "isHeterogeneous") == 0) {
        val = "FALSE";
    }
    struct out o;
    out_begin(&o, m->cmd, "-response", m->thrid, m->thridlen);
    out_int(&o, "rc", 0);
    if (val) {
        out_pair(&o, "found", "TRUE");
        out_pair(&o, "value", val);
    } else {
        out_pair(&o, "found", "FALSE");
    }
    finish(s, client, m, &o);
}

static struct name *name_find(pmi2srv *s, const char *name)
{
    for (int i = 0; i < NAMES_MAX; i++)
        if (s->names[i].used && strcmp(s->names[i].name, name) == 0)
            return &s->names[i];
    return NULL;
}

static void do_publish(pmi2srv *s, int client, const struct msg *m)
{
    const char *name = need(s, client, m, "name");
    if (!name)
        return;
    const char *port = need(s, client, m, "port");
    if (!port)
        return;
    if (strlen(name) > KEYMAX || strlen(port) > VALMAX) {
        send_err(s, client, m, 1, "name or port too long");
        return;
    }
    if (name_find(s, name)) {
        send_err(s, client, m, 1, "name already published");
        return;
    }
    for (int i = 0; i < NAMES_MAX; i++) {
        if (!s->names[i].used) {
            s->names[i].used = 1;
            strcpy(s->names[i].name, name);
            strcpy(s->names[i].port, port);
            send_ok(s, client, m);
            return;
        }
    }
    send_err(s, client, m, 1, "name table full");
}

static void do_lookup(pmi2srv *s, int client, const struct msg *m)
{
    const char *name = need(s, client, m, "name");
    if (!name)
        return;
    struct name *n = name_find(s, name);
    struct out o;
    out_begin(&o, m->cmd, "-response", m->thrid, m->thridlen);
    if (!n) {
        out_int(&o, "rc", 1);
        out_pair(&o, "errmsg", "name not published");
        out_pair(&o, "found", "FALSE");
    } else {
        out_int(&o, "rc", 0);
        out_pair(&o, "found", "TRUE");
        out_pair(&o, "port", n->port);
        out_pair(&o, "value", n->port);
    }
    finish(s, client, m, &o);
}

static void do_unpublish(pmi2srv *s, int client, const struct msg *m)
{
    const char *name = need(s, client, m, "name");
    if (!name)
        return;
    struct name *n = name_find(s, name);
    if (!n) {
        send_err(s, client, m, 1, "name not published");
        return;
    }
    n->used = 0;
    send_ok(s, client, m);
}

/* count keys "<prefix><digits>" among pairs [from, to) and check that every
 * index below count is present */
static int check_family(const struct msg *m, int from, int to, const char *prefix, long count)
{
    size_t pl = strlen(prefix);
    int n = 0;
    char seen[MAX_PAIRS];
    memset(seen, 0, sizeof seen);
    for (int i = from; i < to; i++) {
        const char *k = m->p[i].key;
        if (strncmp(k, prefix, pl) != 0 || !isdigit((unsigned char)k[pl]))
            continue;
        long idx;
        if (parse_int(k + pl, &idx) != 0)
            continue;
        if (idx < 0 || idx >= count)
            return -1;
        if (!seen[idx]) {
            seen[idx] = 1;
            n++;
        }
    }
    return n == count ? 0 : -1;
}

static void do_spawn(pmi2srv *s, int client, const struct msg *m)
{
    long ncmds, preput = 0;
    const char *v = need(s, client, m, "ncmds");
    if (!v)
        return;
    if (parse_int(v, &ncmds) != 0 || ncmds < 1) {
        send_err(s, client, m, 3, "malformed ncmds");
        return;
    }
    /* global part: pairs before the first subcmd */
    int first = m->n;
    for (int i = 1; i < m->n; i++)
        if (strcmp(m->p[i].key, "subcmd") == 0) {
            first = i;
            break;
        }
    for (int i = 1; i < first; i++)
        if (strcmp(m->p[i].key, "preputcount") == 0) {
            if (parse_int(m->p[i].val, &preput) != 0 || preput < 0) {
                send_err(s, client, m, 3, "malformed preputcount");
                return;
            }
            break;
        }
    if (check_family(m, 1, first, "ppkey", preput) || check_family(m, 1, first, "ppval", preput)) {
        send_err(s, client, m, 3, "ppkey/ppval do not match preputcount");
        return;
    }
    int nseg = 0;
    long total = 0;
    int i = first;
    while (i < m->n) {
        int end = i + 1;
        while (end < m->n && strcmp(m->p[end].key, "subcmd") != 0)
            end++;
        long maxprocs = -1, argc = 0, infokeys = 0;
        for (int j = i + 1; j < end; j++) {
            const char *k = m->p[j].key;
            long *dst = NULL;
            if (strcmp(k, "maxprocs") == 0) dst = &maxprocs;
            else if (strcmp(k, "argc") == 0) dst = &argc;
            else if (strcmp(k, "infokeycount") == 0) dst = &infokeys;
            if (dst && parse_int(m->p[j].val, dst) != 0) {
                send_err(s, client, m, 3, "malformed count in spawn segment");
                return;
            }
        }
        if (maxprocs < 1 || argc < 0 || infokeys < 0) {
            send_err(s, client, m, 3, "bad maxprocs, argc or infokeycount");
            return;
        }
        if (check_family(m, i + 1, end, "argv", argc) ||
            check_family(m, i + 1, end, "infokey", infokeys) ||
            check_family(m, i + 1, end, "infoval", infokeys)) {
            send_err(s, client, m, 3, "indexed keys do not match their count");
            return;
        }
        total += maxprocs;
        nseg++;
        i = end;
    }
    if (nseg != ncmds) {
        send_err(s, client, m, 3, "number of segments differs from ncmds");
        return;
    }
    int rc = 0;
    if (s->cb.spawn)
        rc = s->cb.spawn(s->cb.ctx, client, nseg, (int)total);
    if (rc) {
        send_err(s, client, m, 1, "spawn failed");
        return;
    }
    char jobid[JOBIDMAX + 32];
    snprintf(jobid, sizeof jobid, "%s-%d", s->jobid, ++s->nspawn);
    struct out o;
    out_begin(&o, m->cmd, "-response", m->thrid, m->thridlen);
    out_int(&o, "rc", 0);
    out_pair(&o, "jobid", jobid);
    finish(s, client, m, &o);
}

static void do_abort(pmi2srv *s, int client, const struct msg *m)
{
    int isworld = 1;
    const char *v = get(m, "isworld");
    if (v && parse_bool(v) == 0)
        isworld = 0;
    long code = 1;
    v = get(m, "exitcode");
    if (v && parse_int(v, &code) != 0)
        code = 1;
    const char *text = get(m, "msg");
    if (!text)
        text = get(m, "message");
    if (!text)
        text = "";
    if (s->cb.abort)
        s->cb.abort(s->cb.ctx, client, isworld, (int)code, text);
}

static void do_finalize(pmi2srv *s, int client, const struct msg *m)
{
    struct client *c = &s->cl[client];
    c->finalized = 1;
    send_ok(s, client, m);
    /* a fence can no longer complete */
    int others = 0;
    for (int i = 0; i < PMI2SRV_MAX_CLIENTS; i++)
        if (s->cl[i].open && s->cl[i].in_fence)
            others = 1;
    if (others && c->fullinit)
        fence_answer_all(s, 1, "a process of the job finalized during the fence");
}

static void handle_v2(pmi2srv *s, int client, const char *body, size_t len)
{
    static struct msg m;           /* large: not on the stack */
    const char *why;
    int r = parse_body(&m, body, len, &why);
    if (r == P_NOCMD)
        return;                   /* caller closes: see frame() */
    if (r == P_BAD) {
        send_err(s, client, &m, 3, why);
        return;
    }
    const char *cmd = m.cmd;
    struct client *c = &s->cl[client];

    if (strcmp(cmd, "fullinit") == 0) {
        do_fullinit(s, client, &m);
        return;
    }
    if (strcmp(cmd, "abort") == 0) {
        do_abort(s, client, &m);
        return;
    }
    if (strcmp(cmd, "finalize") == 0) {
        do_finalize(s, client, &m);
        return;
    }

    static const char *const known[] = {
        "job-getid", "kvs-put", "kvs-get", "kvs-fence", "info-putnodeattr",
        "info-getnodeattr", "info-getjobattr", "name-publish", "name-lookup",
        "name-unpublish", "spawn", NULL
    };
    int k;
    for (k = 0; known[k]; k++)
        if (strcmp(cmd, known[k]) == 0)
            break;
    if (!known[k]) {
        send_err(s, client, &m, 10, "unknown command");
        return;
    }
    if (!c->fullinit) {
        send_err(s, client, &m, 1, "fullinit first");
        return;
    }
    switch (k) {
    case 0: {
        struct out o;
        out_begin(&o, cmd, "-response", m.thrid, m.thridlen);
        out_int(&o, "rc", 0);
        out_pair(&o, "jobid", s->jobid);
        finish(s, client, &m, &o);
        break;
    }
    case 1: do_kvs_put(s, client, &m); break;
    case 2: do_kvs_get(s, client, &m); break;
    case 3: do_fence(s, client, &m); break;
    case 4: do_putnodeattr(s, client, &m); break;
    case 5: do_getnodeattr(s, client, &m); break;
    case 6: do_getjobattr(s, client, &m); break;
    case 7: do_publish(s, client, &m); break;
    case 8: do_lookup(s, client, &m); break;
    case 9: do_unpublish(s, client, &m); break;
    case 10: do_spawn(s, client, &m); break;
    }
}

/* ------------------------------------------------------------------ */
/* PMI-1 lines: the init line only */

static void handle_v1(pmi2srv *s, int client, char *line, size_t len)
{
    /* line is NUL-terminated in place of its LF */
    char cmd[64] = "";
    long ver = -1, sub = -1;
    int badver = 0;
    char *save = NULL;
    (void)len;
    for (char *tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = 0;
        const char *k = tok, *v = eq + 1;
        if (strcmp(k, "cmd") == 0 && !cmd[0])
            snprintf(cmd, sizeof cmd, "%s", v);
        else if (strcmp(k, "pmi_version") == 0 && ver < 0)
            badver |= parse_int(v, &ver) != 0 || ver < 0;
        else if (strcmp(k, "pmi_subversion") == 0 && sub < 0)
            badver |= parse_int(v, &sub) != 0 || sub < 0;
    }
    char out[256];
    int n;
    if (strcmp(cmd, "init") == 0) {
        int rc = (badver || ver != 2 || sub < 0) ? 1 : 0;
        n = snprintf(out, sizeof out,
                     "cmd=response_to_init rc=%d pmi_version=2 pmi_subversion=0\n", rc);
    } else {
        n = snprintf(out, sizeof out, "cmd=%s_result rc=10 msg=unknown_command\n",
                     cmd[0] ? cmd : "unknown");
    }
    if (n >= (int)sizeof out)
        n = sizeof out - 1;
    s->cb.send(s->cb.ctx, client, out, (size_t)n);
}

/* ------------------------------------------------------------------ */
/* input */

static int is_prefix_of(const char *b, size_t n, const char *p)
{
    size_t pl = strlen(p);
    return n < pl && memcmp(b, p, n) == 0;
}

/* handle every complete message in the client's buffer.
 * returns 0, or -1 to close the connection. */
static int drain(pmi2srv *s, int client)
{
    struct client *c = &s->cl[client];
    for (;;) {
        char *b = c->in;
        size_t n = c->inlen;
        if (n == 0)
            return 0;
        if (is_prefix_of(b, n, "cmd=") || is_prefix_of(b, n, "mcmd="))
            return 0;                               /* not enough to classify */
        if (n >= 5 && memcmp(b, "mcmd=", 5) == 0)
            return -1;                              /* PMI-1 block: unsupported */
        size_t used;
        if (n >= 4 && memcmp(b, "cmd=", 4) == 0) {
            char *lf = memchr(b, '\n', n);
            if (!lf) {
                if (n >= V1_MAX)
                    return -1;
                return 0;
            }
            used = (size_t)(lf - b) + 1;
            if (used > V1_MAX)
                return -1;
            *lf = 0;
            handle_v1(s, client, b, used - 1);
        } else {
            if (n < 6)
                return 0;
            /* length field: spaces, digits, spaces */
            size_t i = 0, len = 0;
            int digits = 0;
            while (i < 6 && b[i] == ' ')
                i++;
            while (i < 6 && isdigit((unsigned char)b[i])) {
                len = len * 10 + (size_t)(b[i] - '0');
                digits++;
                i++;
            }
            while (i < 6 && b[i] == ' ')
                i++;
            if (i != 6 || digits == 0)
                return -1;                          /* FRAME-5 */
            if (len < 6 || len > MAX_BODY)
                return -1;                          /* FRAME-6, FRAME-7 */
            if (n < 6 + len)
                return 0;
            used = 6 + len;
            if (len < 4 || memcmp(b + 6, "cmd=", 4) != 0)
                return -1;                          /* ERR-6 */
            struct msg *dummy = NULL;
            (void)dummy;
            /* check the command pair before handing over */
            {
                const char *semi = memchr(b + 10, ';', len - 4);
                if (!semi || semi == b + 10)
                    return -1;                      /* no usable command name */
            }
            handle_v2(s, client, b + 6, len);
        }
        if (!c->open)
            return 0;
        memmove(c->in, c->in + used, c->inlen - used);
        c->inlen -= used;
    }
}

int pmi2srv_input(pmi2srv *s, int client, const char *bytes, size_t len)
{
    if (!s || client < 0 || client >= PMI2SRV_MAX_CLIENTS)
        return -1;
    struct client *c = &s->cl[client];
    if (!c->open) {
#ifdef PMI2SRV_FUZZ_ALLOC
        char *ft = c->fence_thrid, *wk = c->wait_key, *wt = c->wait_thrid;
        memset(c, 0, sizeof *c);
        c->fence_thrid = ft;
        c->wait_key = wk;
        c->wait_thrid = wt;
#else
        memset(c, 0, sizeof *c);
#endif
        c->open = 1;
        c->rank = -1;
    }
    while (len > 0) {
        size_t room = sizeof c->in - c->inlen;
        size_t n = len < room ? len : room;
        if (n == 0)
            return -1;                              /* cannot happen: drain empties or fails */
        memcpy(c->in + c->inlen, bytes, n);
        c->inlen += n;
        bytes += n;
        len -= n;
        if (drain(s, client) < 0) {
            c->inlen = 0;
            return -1;
        }
    }
    return 0;
}

void pmi2srv_close(pmi2srv *s, int client)
{
    if (!s || client < 0 || client >= PMI2SRV_MAX_CLIENTS)
        return;
    struct client *c = &s->cl[client];
    if (!c->open)
        return;
    int lost = c->fullinit && !c->finalized;
    c->open = 0;
    c->in_fence = 0;
    c->waiting = 0;
    c->fullinit = 0;
    c->inlen = 0;
    if (lost) {
        s->failed = 1;                              /* FENCE-9 */
        fence_answer_all(s, 1, "a process of the job was lost");
    }
}

int pmi2srv_failed(const pmi2srv *s)
{
    return s->failed;
}

pmi2srv *pmi2srv_new(int nranks, const struct pmi2srv_callbacks *cb)
{
    if (nranks < 1 || nranks > PMI2SRV_MAX_CLIENTS || !cb || !cb->send)
        return NULL;
    pmi2srv *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->cb = *cb;
    s->nranks = nranks;
#ifdef PMI2SRV_FUZZ_ALLOC
    for (int i = 0; i < PMI2SRV_MAX_CLIENTS; i++) {
        s->cl[i].fence_thrid = malloc(THRIDMAX + 1);
        s->cl[i].wait_key = malloc(KEYMAX + 1);
        s->cl[i].wait_thrid = malloc(THRIDMAX + 1);
    }
#endif
    strcpy(s->jobid, "pmi2srv-job");
    return s;
}

int pmi2srv_set_jobid(pmi2srv *s, const char *jobid)
{
    if (strlen(jobid) > JOBIDMAX)
        return -1;
    strcpy(s->jobid, jobid);
    return 0;
}

void pmi2srv_free(pmi2srv *s)
{
#ifdef PMI2SRV_FUZZ_ALLOC
    for (int i = 0; s && i < PMI2SRV_MAX_CLIENTS; i++) {
        free(s->cl[i].fence_thrid);
        free(s->cl[i].wait_key);
        free(s->cl[i].wait_thrid);
    }
#endif
    free(s);
}
