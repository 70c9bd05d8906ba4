/* The helpers of the pmi2/group section (declared and described in
 * pmi2_group.h): the mailbox, the steps between ranks, process lists,
 * result and failure checks, the requests.  Compiled once into
 * pmi2-conform with the cases (no PCF_CASES here: it defines no case). */
#include "pmi2_group.h"

#include <stdarg.h>

void gm_free(gm *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->n; i++) {
        free(g->k[i]);
        free(g->v[i]);
    }
    free(g->k);
    free(g->v);
    free(g->vl);
    free(g);
}

static char *g_dup(pmc_slice s)
{
    char *d = malloc(s.len + 1);
    if (d) {
        if (s.len)
            memcpy(d, s.ptr, s.len);
        d[s.len] = 0;
    }
    return d;
}

static gm *gm_new(const pmc_msg *m)
{
    gm *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    size_t n = m->npairs;
    g->k = calloc(n ? n : 1, sizeof *g->k);
    g->v = calloc(n ? n : 1, sizeof *g->v);
    g->vl = calloc(n ? n : 1, sizeof *g->vl);
    if (!g->k || !g->v || !g->vl) {
        gm_free(g);
        return NULL;
    }
    g->n = n;
    for (size_t i = 0; i < n; i++) {
        g->k[i] = g_dup(m->pairs[i].key);
        g->v[i] = g_dup(m->pairs[i].val);
        g->vl[i] = m->pairs[i].val.len;
        if (!g->k[i] || !g->v[i]) {
            gm_free(g);
            return NULL;
        }
    }
    pmc_slice_copy(m->name, g->name, sizeof g->name);
    g->has_thrid = m->thrid.ptr != NULL;
    if (g->has_thrid)
        pmc_slice_copy(m->thrid, g->thrid, sizeof g->thrid);
    pcf_show(m, g->show, sizeof g->show);
    return g;
}

const char *gm_get(const gm *g, const char *key)
{
    for (size_t i = 0; g && i < g->n; i++)
        if (strcmp(g->k[i], key) == 0)
            return g->v[i];
    return NULL;
}

bool gm_is(const gm *g, const char *key, const char *val)
{
    const char *v = gm_get(g, key);
    return v && strcmp(v, val) == 0;
}

int gm_int(const gm *g, const char *key, long long *out)
{
    const char *v = gm_get(g, key);
    if (!v)
        return 0;
    pmc_slice s = { v, strlen(v) };
    return pmc_parse_int(s, out) == 0 ? 1 : -1;
}

bool gm_ok(const gm *g)
{
    long long rc = -1;
    return gm_int(g, "rc", &rc) == 1 && rc == 0;
}

int g_fail(gx *x, const char *outcome, const char *fmt, ...)
{
    char buf[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (x->c && x->funnel && strcmp(outcome, "no-answer") && strcmp(outcome, "harness-error") &&
        strcmp(outcome, "altered") && strcmp(outcome, "no-errmsg") &&
        strcmp(outcome, "not-canonical"))
        pcf_observe(x->c, x->funnel, "%s: %s", outcome, buf);
    else if (x->c)
        pcf_observe(x->c, outcome, "%s", buf);
    else if (!x->failed) {
        x->failed = true;
        snprintf(x->outcome, sizeof x->outcome, "%s", outcome);
        snprintf(x->why, sizeof x->why, "%s", buf);
    }
    return -1;
}

void g_free(gx *x)
{
    for (int i = 0; i < x->nstash; i++)
        gm_free(x->stash[i]);
    x->nstash = 0;
}

void g_id(const gx *x, int rank, char *buf, size_t n)
{
    snprintf(buf, n, "%s:%d", x->jobid, rank);
}

void g_name(const gx *x, const char *what, char *buf, size_t n)
{
    snprintf(buf, n, "pcf-%s-%s", x->tag, what);
}

void g_thrid(gx *x, char *buf, size_t n)
{
    snprintf(buf, n, "%s-%d", x->tag, ++x->seq);
}

/* Was t sent by this process (<tag>-<k>, k <= seq)? */
static bool g_sent_thrid(const gx *x, const char *t)
{
    size_t tl = strlen(x->tag);
    if (strncmp(t, x->tag, tl) != 0 || t[tl] != '-' || !t[tl + 1])
        return false;
    char *end;
    long k = strtol(t + tl + 1, &end, 10);
    return !*end && k >= 1 && k <= x->seq;
}

int g_send(gx *x, pmc_enc *e)
{
    pmc_error err;
    int rc = pws_send_enc(x->s, e, &pmc_dialect_strict, x->deadline, &err);
    if (rc == 0)
        return 0;
    if (rc == PWS_TIMEOUT)
        return g_fail(x, "no-answer", "the server stopped reading: write blocked until the deadline");
    if (rc == PWS_BAD) {
        char b[200];
        pmc_error_format(&err, b, sizeof b);
        return g_fail(x, "harness-error", "the codec refused to encode the request: %s", b);
    }
    return g_fail(x, "closed", "write failed: the server closed the connection");
}

bool g_match(const gm *g, const char *name, const char *thrid, const char *event,
             const char *grp)
{
    if (strcmp(g->name, name) != 0)
        return false;
    if (thrid && g->has_thrid && strcmp(g->thrid, thrid) != 0)
        return false;
    if (event && !gm_is(g, "event", event))
        return false;
    if (grp && !gm_is(g, "grp", grp))
        return false;
    return true;
}

int g_wait_until(gx *x, const char *name, const char *thrid, const char *event,
                 const char *grp, uint64_t deadline, bool quiet, gm **out)
{
    for (int i = 0; i < x->nstash; i++)
        if (g_match(x->stash[i], name, thrid, event, grp)) {
            *out = x->stash[i];
            memmove(&x->stash[i], &x->stash[i + 1], (size_t)(x->nstash - i - 1) * sizeof *x->stash);
            x->nstash--;
            return 0;
        }
    for (;;) {
        pmc_msg m;
        pmc_error err;
        pws_result r = pws_recv(x->s, deadline, &m, &err);
        if (r == PWS_TIMEOUT) {
            if (quiet)
                return 1;
            return g_fail(x, "no-answer", "waiting for %s%s%s%s%s: nothing before the deadline",
                          name, event ? " event=" : "", event ? event : "", grp ? " grp=" : "",
                          grp ? grp : "");
        }
        if (r == PWS_EOF)
            return g_fail(x, "closed", "the server closed the connection while this process "
                                       "waited for %s", name);
        if (r == PWS_BAD) {
            char eb[PCF_ERR_TEXT];
            return g_fail(x, "bad-response", "a message does not decode: %s",
                          pcf_decode_error_on(x->s, &err, eb, sizeof eb));
        }
        if (r != PWS_MSG)
            return g_fail(x, "io-error", "reading failed (%s)", pws_result_name(r));
        gm *g = gm_new(&m);
        if (!g)
            return g_fail(x, "harness-error", "out of memory");
        if (x->begun && strncmp(g->name, "group-", 6) == 0 &&
            strcmp(g->name, "group-event") != 0 && g->has_thrid && !g_sent_thrid(x, g->thrid)) {
            int rc = g_fail(x, "altered", "a response carries a thrid this process never sent "
                                          "(GROUP-11): %s", g->show);
            gm_free(g);
            return rc;
        }
        if (g_match(g, name, thrid, event, grp)) {
            *out = g;
            return 0;
        }
        if (x->nstash == G_STASH) {
            gm_free(g);
            return g_fail(x, "harness-error", "more than %d messages nobody waited for", G_STASH);
        }
        x->stash[x->nstash++] = g;
    }
}

int g_wait(gx *x, const char *name, const char *thrid, gm **out)
{
    return g_wait_until(x, name, thrid, NULL, NULL, x->deadline, false, out);
}

int g_event(gx *x, const char *event, const char *grp, gm **out)
{
    return g_wait_until(x, "group-event", NULL, event, grp, x->deadline, false, out);
}

int g_call(gx *x, pmc_enc *e, const char *reply, const char *thrid, gm **out)
{
    if (g_send(x, e))
        return -1;
    return g_wait(x, reply, thrid, out);
}

const gm *g_kept(const gx *x, const char *name)
{
    for (int i = 0; i < x->nstash; i++)
        if (!name || strcmp(x->stash[i]->name, name) == 0)
            return x->stash[i];
    return NULL;
}

void g_done(gx *x, const char *fmt, ...)
{
    for (int i = 0; i < x->nstash; i++)
        if (strncmp(x->stash[i]->name, "group-", 6) == 0) {
            g_fail(x, "extra-message", "a message nothing asked for: %s", x->stash[i]->show);
            return;
        }
    char buf[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (x->c)
        pcf_observe(x->c, "ok", "%s", buf);
}

int g_kvs_put(gx *x, const char *key, const char *val)
{
    pmc_enc e;
    gm *r;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", val);
    if (g_call(x, &e, "kvs-put-response", NULL, &r))
        return -1;
    bool ok = gm_ok(r);
    if (!ok)
        g_fail(x, "harness-error", "kvs-put of %s refused: %s", key, r->show);
    gm_free(r);
    return ok ? 0 : -1;
}

static int g_fence(gx *x)
{
    pmc_enc e;
    gm *r;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-fence");
    if (g_call(x, &e, "kvs-fence-response", NULL, &r))
        return -1;
    bool ok = gm_ok(r);
    if (!ok)
        g_fail(x, "harness-error", "kvs-fence refused: %s", r->show);
    gm_free(r);
    return ok ? 0 : -1;
}

int g_kvs_get(gx *x, const char *key, char *val, size_t n)
{
    pmc_enc e;
    gm *r;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(&e, "key", key);
    if (g_call(x, &e, "kvs-get-response", NULL, &r))
        return -1;
    bool found = gm_ok(r) && gm_is(r, "found", "TRUE") && gm_get(r, "value");
    if (found)
        snprintf(val, n, "%s", gm_get(r, "value"));
    gm_free(r);
    return found ? 1 : 0;
}

int g_step(gx *x, int seq, unsigned who)
{
    char key[96];
    who &= g_all(x);
    if (g_in(x, who)) {
        snprintf(key, sizeof key, "%s-gs%d-r%d", x->tag, seq, x->rank);
        if (g_kvs_put(x, key, "1"))
            return -1;
    }
    if (g_fence(x))
        return -1;
    for (int r = 0; r < x->size && r < 32; r++) {
        if (!(who >> r & 1) || r == x->rank)
            continue;
        char v[8];
        snprintf(key, sizeof key, "%s-gs%d-r%d", x->tag, seq, r);
        int f = g_kvs_get(x, key, v, sizeof v);
        if (f < 0)
            return -1;
        if (f == 0)
            return g_fail(x, "harness-error", "rank %d's marker %s is not visible after the fence",
                          r, key);
    }
    return 0;
}

int g_same(gx *x, int seq, unsigned who, const char *what, const char *val)
{
    char key[96], got[300];
    who &= g_all(x);
    if (g_in(x, who)) {
        snprintf(key, sizeof key, "%s-gv%d-r%d", x->tag, seq, x->rank);
        if (g_kvs_put(x, key, val))
            return -1;
    }
    if (g_fence(x))
        return -1;
    if (!g_in(x, who))
        return 0;
    for (int r = 0; r < x->size && r < 32; r++) {
        if (!(who >> r & 1) || r == x->rank)
            continue;
        snprintf(key, sizeof key, "%s-gv%d-r%d", x->tag, seq, r);
        int f = g_kvs_get(x, key, got, sizeof got);
        if (f < 0)
            return -1;
        if (f == 0)
            return g_fail(x, "harness-error", "rank %d's %s (%s) is not visible after the fence",
                          r, what, key);
        if (strcmp(got, val) != 0)
            return g_fail(x, "differs", "rank %d got %s %s, this rank %s (GROUP-14: every "
                                        "participant receives the same)", r, what, got, val);
    }
    return 0;
}

/* jobid byte order, then rank numeric order */
static int g_cmp_id(const char *a, size_t al, const char *b, size_t bl)
{
    const char *ca = NULL, *cb = NULL;
    for (size_t i = 0; i < al; i++)
        if (a[i] == ':')
            ca = a + i;
    for (size_t i = 0; i < bl; i++)
        if (b[i] == ':')
            cb = b + i;
    size_t ja = ca ? (size_t)(ca - a) : al, jb = cb ? (size_t)(cb - b) : bl;
    size_t m = ja < jb ? ja : jb;
    int d = memcmp(a, b, m);
    if (d)
        return d < 0 ? -1 : 1;
    if (ja != jb)
        return ja < jb ? -1 : 1;
    unsigned long long ra = ca ? strtoull(ca + 1, NULL, 10) : 0;
    unsigned long long rb = cb ? strtoull(cb + 1, NULL, 10) : 0;
    return ra < rb ? -1 : ra > rb;
}

static int g_cmp_str(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    return g_cmp_id(x, strlen(x), y, strlen(y));
}

void g_list(char *out, size_t n, const char *const *ids, int k)
{
    const char *v[64];
    int m = 0;
    for (int i = 0; i < k && m < 64; i++)
        v[m++] = ids[i];
    qsort(v, (size_t)m, sizeof *v, g_cmp_str);
    size_t o = 0;
    out[0] = 0;
    for (int i = 0; i < m; i++) {
        if (i && g_cmp_str(&v[i - 1], &v[i]) == 0)
            continue;
        int w = snprintf(out + o, o < n ? n - o : 0, "%s%s", o ? "," : "", v[i]);
        if (w > 0)
            o += (size_t)w;
    }
}

void g_ranks(const gx *x, char *out, size_t n, unsigned mask)
{
    char ids[32][G_ID];
    const char *p[32];
    int k = 0;
    for (int r = 0; r < x->size && r < 32; r++)
        if (mask >> r & 1) {
            g_id(x, r, ids[k], sizeof ids[k]);
            p[k] = ids[k];
            k++;
        }
    g_list(out, n, p, k);
}

/* Is the list (a,b,...) the same set as `want` (canonical)?  0 equal, 1 the
 * same processes in another order or with duplicates, 2 different. */
static int g_list_cmp(const char *got, const char *want)
{
    if (strcmp(got, want) == 0)
        return 0;
    char *cp = malloc(strlen(got) + 1);
    if (!cp)
        return 2;
    strcpy(cp, got);
    const char *v[64];
    int k = 0;
    for (char *t = strtok(cp, ","); t && k < 64; t = strtok(NULL, ","))
        v[k++] = t;
    char canon[G_LIST];
    g_list(canon, sizeof canon, v, k);
    free(cp);
    return strcmp(canon, want) == 0 ? 1 : 2;
}

int g_ctxid(const gm *g, unsigned long long *v)
{
    const char *s = gm_get(g, "ctxid");
    if (!s || !*s || strlen(s) > 19)
        return -1;
    unsigned long long x = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        x = x * 10 + (unsigned long long)(*p - '0');
    }
    if (x < 1 || x > 9223372036854775807ull)
        return -1;
    *v = x;
    return 0;
}

void g_sort_info(ginfo *in, int n)
{
    for (int i = 1; i < n; i++) /* insertion sort: stable */
        for (int j = i; j > 0 && g_cmp_str(&in[j - 1].proc, &in[j].proc) > 0; j--) {
            ginfo t = in[j];
            in[j] = in[j - 1];
            in[j - 1] = t;
        }
}

/* Is the result's contribution i (infoproc<i>, infokey<i>, infoval<i>) this one? */
static bool info_at(const gm *g, int i, const ginfo *want)
{
    char k[32];
    snprintf(k, sizeof k, "infoproc%d", i);
    const char *p = gm_get(g, k);
    snprintf(k, sizeof k, "infokey%d", i);
    const char *kk = gm_get(g, k);
    snprintf(k, sizeof k, "infoval%d", i);
    const char *vv = gm_get(g, k);
    return p && kk && vv && !strcmp(p, want->proc) && !strcmp(kk, want->key) &&
           !strcmp(vv, want->val);
}

int g_result(gx *x, const gm *g, const char *what, const char *members,
             const ginfo *info, int ninfo, unsigned long long *ctx)
{
    unsigned long long cx = 0;
    if (!gm_ok(g))
        return g_fail(x, "failed", "%s failed: %s", what, g->show);
    if (g_ctxid(g, &cx))
        return g_fail(x, "bad-ctxid", "%s: ctxid is not a decimal number from 1 to 2^63-1 "
                                      "(GROUP-15): %s", what, g->show);
    if (ctx)
        *ctx = cx;
    const char *mem = gm_get(g, "members");
    int d = mem ? g_list_cmp(mem, members) : 2;
    if (d == 1)
        return g_fail(x, "not-canonical", "%s: members=%s, the canonical order is %s", what, mem,
                      members);
    if (d)
        return g_fail(x, "wrong-members", "%s: members=%s, expected %s: %s", what,
                      mem ? mem : "(absent)", members, g->show);
    long long cnt = -1;
    if (gm_int(g, "infocount", &cnt) != 1 || cnt != ninfo)
        return g_fail(x, "wrong-info", "%s: infocount should be %d: %s", what, ninfo, g->show);
    /* every expected pair somewhere, then in its place */
    bool placed = true;
    for (int i = 0; i < ninfo; i++)
        if (!info_at(g, i, &info[i]))
            placed = false;
    if (placed)
        return 0;
    for (int i = 0; i < ninfo; i++) {
        bool seen = false;
        for (int j = 0; j < ninfo && !seen; j++)
            seen = info_at(g, j, &info[i]);
        if (!seen)
            return g_fail(x, "wrong-info", "%s: %s's pair %s=%.80s%s is missing or altered "
                                           "(GROUP-22): %s", what, info[i].proc, info[i].key,
                          info[i].val, strlen(info[i].val) > 80 ? "..." : "", g->show);
    }
    return g_fail(x, "info-order", "%s: the contributions are not in canonical order (GROUP-22: "
                                   "contributors in GROUP-7 order, each one's pairs as sent): %s",
                  what, g->show);
}

int g_failure(gx *x, const gm *g, const char *what, long long rc,
              const char *reason, const char *failed)
{
    long long got = -1;
    if (gm_int(g, "rc", &got) != 1 || got != rc || !gm_is(g, "reason", reason))
        return g_fail(x, "answer", "%s: expected rc=%lld;reason=%s, got %s", what, rc, reason,
                      g->show);
    if (!gm_get(g, "errmsg"))
        return g_fail(x, "no-errmsg", "%s: a failed group- response without errmsg (GROUP-29): "
                                      "%s", what, g->show);
    if (failed) {
        const char *f = gm_get(g, "failed");
        int d = f ? g_list_cmp(f, failed) : 2;
        if (d == 1)
            return g_fail(x, "not-canonical", "%s: failed=%s, the canonical order is %s", what, f,
                          failed);
        if (d)
            return g_fail(x, "wrong-failed", "%s: failed should be %s: %s", what, failed, g->show);
    }
    return 0;
}

static void g_contrib(pmc_enc *e, int n, const char *const *ik, const char *const *iv,
                      char (*keys)[2][24])
{
    if (n <= 0)
        return;
    pmc_enc_int(e, "infocount", n);
    for (int i = 0; i < n; i++) {
        snprintf(keys[i][0], sizeof keys[i][0], "infokey%d", i);
        snprintf(keys[i][1], sizeof keys[i][1], "infoval%d", i);
        pmc_enc_str(e, keys[i][0], ik[i]);
        pmc_enc_str(e, keys[i][1], iv[i]);
    }
}

int g_construct_send(gx *x, const gcons *o, char *thrid)
{
    char keys[G_MAXINFO][2][24];
    pmc_enc e;
    g_thrid(x, thrid, 64);
    pmc_enc_begin(&e, PMC_WIRE_V2, "group-construct");
    pmc_enc_str(&e, "thrid", thrid);
    pmc_enc_str(&e, "grp", o->grp);
    pmc_enc_str(&e, "method", o->method);
    if (o->leaders)
        pmc_enc_str(&e, "leaders", o->leaders);
    if (o->nleaders)
        pmc_enc_str(&e, "nleaders", o->nleaders);
    if (o->members)
        pmc_enc_str(&e, "members", o->members);
    if (o->timeout)
        pmc_enc_str(&e, "timeout", o->timeout);
    g_contrib(&e, o->ninfo < G_MAXINFO ? o->ninfo : G_MAXINFO, o->ik, o->iv, keys);
    return g_send(x, &e);
}

int g_construct(gx *x, const gcons *o, gm **out)
{
    char t[64];
    if (g_construct_send(x, o, t))
        return -1;
    return g_wait(x, "group-construct-response", t, out);
}

int g_invite_send(gx *x, const char *grp, const char *members, const char *timeout,
                  int ninfo, const char *const *ik, const char *const *iv,
                  char *thrid)
{
    char keys[G_MAXINFO][2][24];
    pmc_enc e;
    g_thrid(x, thrid, 64);
    pmc_enc_begin(&e, PMC_WIRE_V2, "group-invite");
    pmc_enc_str(&e, "thrid", thrid);
    pmc_enc_str(&e, "grp", grp);
    pmc_enc_str(&e, "members", members);
    if (timeout)
        pmc_enc_str(&e, "timeout", timeout);
    g_contrib(&e, ninfo < G_MAXINFO ? ninfo : G_MAXINFO, ik, iv, keys);
    return g_send(x, &e);
}

int g_join(gx *x, const char *grp, bool accept, int ninfo, const char *const *ik,
           const char *const *iv, gm **out)
{
    char keys[G_MAXINFO][2][24], t[64];
    pmc_enc e;
    g_thrid(x, t, sizeof t);
    pmc_enc_begin(&e, PMC_WIRE_V2, "group-join");
    pmc_enc_str(&e, "thrid", t);
    pmc_enc_str(&e, "grp", grp);
    pmc_enc_bool(&e, "accept", accept);
    g_contrib(&e, ninfo < G_MAXINFO ? ninfo : G_MAXINFO, ik, iv, keys);
    return g_call(x, &e, "group-join-response", t, out);
}

int g_subscribe(gx *x)
{
    char t[64];
    pmc_enc e;
    gm *r;
    g_thrid(x, t, sizeof t);
    pmc_enc_begin(&e, PMC_WIRE_V2, "group-subscribe");
    pmc_enc_str(&e, "thrid", t);
    if (g_call(x, &e, "group-subscribe-response", t, &r))
        return -1;
    int rc = gm_ok(r) ? 0 : g_fail(x, "subscribe-refused", "group-subscribe: %s", r->show);
    gm_free(r);
    return rc;
}

int g_destruct_send(gx *x, const char *grp, const char *timeout, char *thrid)
{
    pmc_enc e;
    g_thrid(x, thrid, 64);
    pmc_enc_begin(&e, PMC_WIRE_V2, "group-destruct");
    pmc_enc_str(&e, "thrid", thrid);
    pmc_enc_str(&e, "grp", grp);
    if (timeout)
        pmc_enc_str(&e, "timeout", timeout);
    return g_send(x, &e);
}

int g_destruct(gx *x, const char *grp, gm **out)
{
    char t[64];
    if (g_destruct_send(x, grp, NULL, t))
        return -1;
    return g_wait(x, "group-destruct-response", t, out);
}

int g_destruct_done(gx *x, const char *grp, const char *thrid)
{
    gm *r;
    if (g_wait(x, "group-destruct-response", thrid, &r))
        return -1;
    int rc = gm_ok(r) ? 0 : g_fail(x, "destruct-failed", "group-destruct of %s: %s", grp, r->show);
    gm_free(r);
    return rc;
}

int g_destruct_ok_tmo(gx *x, const char *grp, const char *timeout)
{
    char t[64];
    return g_destruct_send(x, grp, timeout, t) || g_destruct_done(x, grp, t) ? -1 : 0;
}

int g_destruct_ok(gx *x, const char *grp)
{
    return g_destruct_ok_tmo(x, grp, NULL);
}

int g_get(gx *x, const char *grp, const char *proc, const char *key, gm **out)
{
    char t[64];
    pmc_enc e;
    g_thrid(x, t, sizeof t);
    pmc_enc_begin(&e, PMC_WIRE_V2, "group-get");
    pmc_enc_str(&e, "thrid", t);
    pmc_enc_str(&e, "grp", grp);
    pmc_enc_str(&e, "proc", proc);
    pmc_enc_str(&e, "key", key);
    return g_call(x, &e, "group-get-response", t, out);
}

void g_last_thrid(const gx *x, char *buf, size_t n)
{
    snprintf(buf, n, "%s-%d", x->tag, x->seq);
}

int g_nothing_yet(gx *x, const char *name, const char *why)
{
    pmc_enc e;
    gm *r;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    if (g_call(x, &e, "job-getid-response", NULL, &r))
        return -1;
    gm_free(r);
    const gm *k = g_kept(x, name);
    if (k)
        return g_fail(x, "early", "answered before %s: %s", why, k->show);
    return 0;
}

int g_open(pcf_ctx *c, gx *x, gm **attr)
{
    memset(x, 0, sizeof *x);
    x->c = c;
    x->s = pcf_session(c);
    x->deadline = pcf_deadline(c);
    x->rank = pcf_rank(c);
    x->size = pcf_size(c);
    snprintf(x->tag, sizeof x->tag, "%s", pcf_tag(c));
    snprintf(x->jobid, sizeof x->jobid, "%s", pcf_jobid(c));
    g_id(x, x->rank, x->me, sizeof x->me);
    /* Through the mailbox: what a server still sends for an earlier case
     * that failed (a late answer, an event) is dropped here, not taken for
     * this case's.  Nothing of this case can come before: every exchange
     * between ranks starts after a step. */
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "info-getjobattr");
    pmc_enc_str(&e, "key", "PMI_ext_groups");
    if (g_call(x, &e, "info-getjobattr-response", NULL, attr))
        return -1;
    if (x->nstash)
        pcf_note(c, "%d message(s) left over from an earlier case dropped (the first: %s)",
                 x->nstash, x->stash[0]->show);
    g_free(x);
    x->begun = true;
    return 0;
}

int g_begin(pcf_ctx *c, gx *x)
{
    gm *r;
    if (g_open(c, x, &r))
        return -1;
    bool hit = gm_ok(r) && gm_is(r, "found", "TRUE") && gm_is(r, "value", "1");
    if (!hit)
        pcf_observe(c, "unsupported", "PMI_ext_groups: %s; no group- command sent (GROUP-3)",
                    r->show);
    gm_free(r);
    return hit ? 0 : 1;
}

/* ---- what several cases do alike ------------------------------------------- */

int g_begin_only(pcf_ctx *c, gx *x, unsigned who, const char *funnel)
{
    int b = g_begin(c, x);
    if (b)
        return b;
    x->funnel = funnel;
    if (g_in(x, who))
        return 0;
    G_IDLE(x);
    g_free(x);
    return 1;
}

void g_want_add(const gx *x, gwant *w, unsigned who, const char *key, g_valfn val)
{
    for (int r = 0; r < x->size && r < 32 && w->n < 64; r++)
        if (who >> r & 1) {
            g_id(x, r, w->ids[r], sizeof w->ids[r]);
            val(r, w->vals[w->n], sizeof w->vals[w->n]);
            w->w[w->n] = (ginfo){ w->ids[r], key, w->vals[w->n] };
            w->n++;
        }
    g_sort_info(w->w, w->n);
}

int g_agree_destruct(gx *x, int seq, const char *grp, unsigned long long cx)
{
    char cxs[32];
    snprintf(cxs, sizeof cxs, "%llu", cx);
    return g_same(x, seq, g_all(x), "ctxid", cxs) || g_destruct_ok(x, grp) ? -1 : 0;
}

int g_late_arrival(gx *x, const gcons *q, unsigned early, const char *why, gm **res)
{
    char t[64];
    if (g_in(x, early) && g_construct_send(x, q, t))
        return -1;
    if (g_step(x, 1, early)) /* every early construct has been read */
        return -1;
    if (g_in(x, early) && g_nothing_yet(x, "group-construct-response", why))
        return -1;
    if (g_step(x, 2, early))
        return -1;
    if (!g_in(x, early) && g_construct_send(x, q, t))
        return -1;
    return g_wait(x, "group-construct-response", t, res);
}

int g_invite(gx *x, const char *grp, const char *members, const char *timeout, int ninfo,
             const char *const *ik, const char *const *iv, gm **res)
{
    char t[64];
    if (g_invite_send(x, grp, members, timeout, ninfo, ik, iv, t))
        return -1;
    return g_wait(x, "group-invite-response", t, res);
}

int g_join_ok(gx *x, const char *grp, bool accept, int ninfo, const char *const *ik,
              const char *const *iv, gm **res)
{
    if (g_join(x, grp, accept, ninfo, ik, iv, res))
        return -1;
    if (!gm_ok(*res))
        return g_fail(x, "join-refused", "group-join accept=%s: %s", accept ? "TRUE" : "FALSE",
                      (*res)->show);
    return 0;
}

int g_failed_is(gx *x, const gm *r, const char *proc)
{
    if (gm_is(r, "failed", proc))
        return 0;
    return g_fail(x, "wrong-failed", "group-invite-response should carry failed=%s: %s", proc,
                  r->show);
}

gm *g_take_kept(gx *x, const char *event, const char *grp, const char *proc)
{
    for (int i = 0; i < x->nstash; i++) {
        gm *g = x->stash[i];
        if (g_match(g, "group-event", NULL, event, grp) && (!proc || gm_is(g, "proc", proc))) {
            memmove(&x->stash[i], &x->stash[i + 1], (size_t)(x->nstash - i - 1) * sizeof *x->stash);
            x->nstash--;
            return g;
        }
    }
    return NULL;
}

int g_get_is(gx *x, const char *grp, const char *proc, const char *key, const char *want)
{
    gm *g;
    if (g_get(x, grp, proc, key, &g))
        return -1;
    bool right = gm_ok(g) && (want ? gm_is(g, "found", "TRUE") && gm_is(g, "value", want)
                                   : gm_is(g, "found", "FALSE"));
    int rc = 0;
    if (!right)
        rc = g_fail(x, "wrong-get", "group-get of %s's %s: expected rc=0;found=%s%s, got %s", proc,
                    key, want ? "TRUE;value=" : "FALSE", want ? want : "", g->show);
    gm_free(g);
    return rc;
}

const char *g_info_of(const gm *g, const char *key)
{
    for (int i = 0; i < 64; i++) {
        char k[32];
        snprintf(k, sizeof k, "infokey%d", i);
        if (gm_is(g, k, key)) {
            snprintf(k, sizeof k, "infoval%d", i);
            return gm_get(g, k);
        }
    }
    return NULL;
}
