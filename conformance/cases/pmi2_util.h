/* Helpers shared by the PMI-2 command-level case files (pmi2_*.c): a
 * response copied out of the session buffer, calls with a thrid, collecting
 * several outstanding responses, and the PMI_process_mapping reader.
 * Header-only (static inline) so each case file stays self-contained. */
#ifndef PCF_PMI2_UTIL_H
#define PCF_PMI2_UTIL_H

#include "pcf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* explain (pcf_case.steps): the start-up exchange the PCF_LOCAL handshake
 * cases grade, made by the harness before the first case (control.c). */
#define P2_STEPS_HANDSHAKE                                                                       \
    "At start-up, before any case, each rank sent cmd=init pmi_version=2 pmi_subversion=0 "     \
    "and, when accepted, fullinit (pmirank from PMI_RANK or PMI_ID, pmijobid from PMI_JOBID "  \
    "when set, threaded=FALSE); the answers were recorded.\n"

/* One response, copied: pmc_msg views die with the next receive. */
typedef struct p2r {
    char name[64];
    int hrc;          /* pcf_rc: 1 valid, 0 absent, -1 malformed */
    long long rc;
    int hfound;       /* pmc_msg_get_bool("found"): 1, 0 absent, -1 malformed */
    bool found;
    bool has_value;
    size_t vlen;      /* bytes of value (may hold NUL) */
    char value[4200];
    bool has_thrid;
    char thrid[128];
    bool first_is_thrid; /* thrid is the first pair after cmd */
    char errmsg[200];
    char show[400];
} p2r;

static inline void p2_take(const pmc_msg *m, p2r *r)
{
    r->name[0] = 0;
    pmc_slice_copy(m->name, r->name, sizeof r->name);
    r->rc = -1;
    r->hrc = pcf_rc(m, &r->rc);
    r->found = false;
    r->hfound = pmc_msg_get_bool(m, "found", &r->found, NULL);
    pmc_slice v = { NULL, 0 };
    r->has_value = pmc_msg_get(m, "value", &v);
    r->vlen = r->has_value ? (v.len < sizeof r->value - 1 ? v.len : sizeof r->value - 1) : 0;
    if (r->vlen)
        memcpy(r->value, v.ptr, r->vlen);
    r->value[r->vlen] = 0;
    r->has_thrid = m->thrid.ptr != NULL;
    r->thrid[0] = 0;
    if (r->has_thrid)
        pmc_slice_copy(m->thrid, r->thrid, sizeof r->thrid);
    r->first_is_thrid = m->npairs > 0 && pmc_slice_eq(m->pairs[0].key, "thrid");
    if (!pcf_get(m, "errmsg", r->errmsg, sizeof r->errmsg))
        pcf_get(m, "msg", r->errmsg, sizeof r->errmsg);
    pcf_show(m, r->show, sizeof r->show);
}

static inline bool p2_ok(const p2r *r) { return r->hrc == 1 && r->rc == 0; }
/* rc=0;found=TRUE;value=... */
static inline bool p2_hit(const p2r *r) { return p2_ok(r) && r->hfound == 1 && r->found && r->has_value; }
/* rc=0;found=FALSE; (the canonical miss) */
static inline bool p2_miss(const p2r *r) { return p2_ok(r) && r->hfound == 1 && !r->found; }
/* rc != 0 (the other miss form, and every refusal) */
static inline bool p2_fail(const p2r *r) { return r->hrc == 1 && r->rc != 0; }
/* a miss in either form KVS-5 accepts */
static inline bool p2_any_miss(const p2r *r) { return p2_miss(r) || p2_fail(r); }

static inline bool p2_value_is(const p2r *r, const char *v, size_t n)
{
    return r->has_value && r->vlen == n && memcmp(r->value, v, n) == 0;
}

static inline int p2_call(pcf_ctx *c, pmc_enc *e, const char *reply, p2r *r)
{
    pmc_msg m;
    if (pcf_call(c, e, reply, &m))
        return -1;
    p2_take(&m, r);
    return 0;
}

static inline int p2_expect(pcf_ctx *c, const char *reply, p2r *r)
{
    pmc_msg m;
    if (pcf_expect(c, reply, &m))
        return -1;
    p2_take(&m, r);
    return 0;
}

/* The usual one-key requests. */
static inline int p2_kvs_get(pcf_ctx *c, const char *key, p2r *r)
{
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(&e, "key", key);
    return p2_call(c, &e, "kvs-get-response", r);
}

static inline int p2_jobattr(pcf_ctx *c, const char *key, p2r *r)
{
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "info-getjobattr");
    pmc_enc_str(&e, "key", key);
    return p2_call(c, &e, "info-getjobattr-response", r);
}

/* Order ranks through the KVS, which FENCE-2 orders even on lazy-fence
 * servers (a get after the fence waits for the putter's fence): rank `who`
 * (or, with who = -1, every rank but 0) puts a marker and fences; the
 * others fence and read the marker(s).  Every rank fences once.  Name
 * service and node attributes are not ordered by the fence itself. */
static inline int p2_step(pcf_ctx *c, int who, int seq)
{
    char key[64];
    int me = pcf_rank(c);
    bool signals = who < 0 ? me != 0 : me == who;
    snprintf(key, sizeof key, "%s-step%d-r%d", pcf_tag(c), seq, me);
    if (signals && pcf_kvs_put(c, key, "1"))
        return -1;
    if (pcf_kvs_fence(c))
        return -1;
    if (signals || (who < 0 && me != 0))
        return 0;
    for (int r = 0; r < pcf_size(c); r++) {
        if (who < 0 ? r == 0 : r != who)
            continue;
        bool found = false;
        char v[8];
        snprintf(key, sizeof key, "%s-step%d-r%d", pcf_tag(c), seq, r);
        if (pcf_kvs_get(c, key, &found, v, sizeof v, NULL))
            return -1;
        if (!found) {
            pcf_observe(c, "harness-error", "rank %d's marker %s is not visible after the fence",
                        r, key);
            return -1;
        }
    }
    return 0;
}

/* Every rank, rank 0 included, has entered the case (so rank 0 has
 * recorded its start) before anything that may end the job. */
static inline int p2_together(pcf_ctx *c) { return p2_step(c, 0, 99); }

/* Several requests outstanding: wait until every expected response arrived,
 * in any order (THRID-7).  A response is matched to a slot with the same
 * name and, when it carries one, the same thrid; a server that does not
 * echo thrid (Slurm) is matched by name in request order.  order[k] gets the
 * slot of the k-th arrival (may be NULL).  Returns 0, or -1 after observing
 * a standard outcome, or "altered" for a thrid that matches no request. */
static inline int p2_collect_got(pcf_ctx *c, size_t n, const char *const *names,
                                 const char *const *thrids, p2r *out, int *order, bool *got);

static inline int p2_collect(pcf_ctx *c, size_t n, const char *const *names,
                             const char *const *thrids, p2r *out, int *order)
{
    bool *got = calloc(n ? n : 1, sizeof *got);
    if (!got) {
        pcf_observe(c, "harness-error", "out of memory");
        return -1;
    }
    int rc = p2_collect_got(c, n, names, thrids, out, order, got);
    if (rc == 1) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            k += got[i];
        pcf_observe(c, "no-answer", "%zu of %zu responses arrived before the deadline", k, n);
        rc = -1;
    }
    free(got);
    return rc;
}

/* p2_collect that leaves a timeout to the caller: returns 1 without
 * observing anything, got[i] telling which responses did arrive, so that a
 * case can say *which* request went unanswered (a held get, or the requests
 * queued behind it: NODEATTR-5).  got has n entries, cleared here. */
static inline int p2_collect_got(pcf_ctx *c, size_t n, const char *const *names,
                                 const char *const *thrids, p2r *out, int *order, bool *got)
{
    for (size_t i = 0; i < n; i++)
        got[i] = false;
    for (size_t k = 0; k < n; k++) {
        pmc_msg m;
        pmc_error err;
        char b[300];
        pws_result r = pcf_recv(c, &m, &err);
        if (r != PWS_MSG) {
            if (r == PWS_TIMEOUT)
                return 1;
            if (r == PWS_EOF)
                pcf_observe(c, "closed", "the server closed the connection after %zu of %zu responses",
                            k, n);
            else if (r == PWS_BAD) {
                pmc_error_format(&err, b, sizeof b);
                pcf_observe(c, "bad-response", "a response does not decode: %s", b);
            } else
                pcf_observe(c, "io-error", "reading failed (%s)", pws_result_name(r));
            return -1;
        }
        size_t slot = n;
        for (size_t i = 0; i < n && slot == n; i++)
            if (!got[i] && pmc_slice_eq(m.name, names[i]) &&
                (!m.thrid.ptr || !thrids || !thrids[i] || pmc_slice_eq(m.thrid, thrids[i])))
                slot = i;
        if (slot == n) {
            bool named = false;
            for (size_t i = 0; i < n; i++)
                named |= !got[i] && pmc_slice_eq(m.name, names[i]);
            pcf_observe(c, named ? "altered" : "wrong-response",
                        named ? "thrid matches no outstanding request: %s"
                              : "unexpected response: %s",
                        pcf_show(&m, b, sizeof b));
            return -1;
        }
        got[slot] = true;
        p2_take(&m, &out[slot]);
        if (order)
            order[k] = (int)slot;
    }
    return 0;
}

/* PMI_process_mapping (SPEC 9.11): parse the ABNF strictly and give each of
 * the `size` ranks its node.  0, or -1 with the reason. */
static inline int p2_mapping_nodes(const char *v, int size, int *node, char *why, size_t wn)
{
    typedef struct { long id, count, ppn; } blk;
    blk b[256];
    int nb = 0;
    const char *p = v;
    if (strncmp(p, "(vector", 7) != 0) {
        snprintf(why, wn, "does not start with \"(vector\"");
        return -1;
    }
    p += 7;
    while (*p == ',') {
        long x[3];
        p++;
        if (*p != '(') {
            snprintf(why, wn, "a block does not start with '(' at \"%.30s\"", p);
            return -1;
        }
        p++;
        for (int i = 0; i < 3; i++) {
            if (*p < '0' || *p > '9') {
                snprintf(why, wn, "expected a decimal number at \"%.30s\"", p);
                return -1;
            }
            long a = 0;
            while (*p >= '0' && *p <= '9' && a < 100000000)
                a = a * 10 + (*p++ - '0');
            x[i] = a;
            if (*p != (i < 2 ? ',' : ')')) {
                snprintf(why, wn, "expected '%c' at \"%.30s\"", i < 2 ? ',' : ')', p);
                return -1;
            }
            p++;
        }
        if (x[1] < 1 || x[2] < 1) {
            snprintf(why, wn, "node-count and ppn must be 1 or more");
            return -1;
        }
        if (nb == 256) {
            snprintf(why, wn, "more than 256 blocks");
            return -1;
        }
        b[nb++] = (blk){ x[0], x[1], x[2] };
    }
    if (nb == 0 || strcmp(p, ")") != 0) {
        snprintf(why, wn, "%s", nb ? "does not end with ')' after the blocks" : "no block");
        return -1;
    }
    int r = 0;
    while (r < size)
        for (int i = 0; i < nb && r < size; i++)
            for (long nd = 0; nd < b[i].count && r < size; nd++)
                for (long k = 0; k < b[i].ppn && r < size; k++)
                    node[r++] = (int)(b[i].id + nd);
    return 0;
}

/* This job's mapping, per rank.  0; 1 when the server gives none or an empty
 * one (nothing can be said); -1 after observing (a call failed or it is
 * malformed: "malformed"). */
static inline int p2_job_nodes(pcf_ctx *c, int *node)
{
    p2r *r = malloc(sizeof *r);
    if (!r) {
        pcf_observe(c, "harness-error", "out of memory");
        return -1;
    }
    int rc = 1;
    char why[160];
    if (p2_jobattr(c, "PMI_process_mapping", r))
        rc = -1;
    else if (p2_hit(r) && r->vlen) {
        if (p2_mapping_nodes(r->value, pcf_size(c), node, why, sizeof why) == 0)
            rc = 0;
        else {
            pcf_observe(c, "malformed", "PMI_process_mapping %s: %s", r->value, why);
            rc = -1;
        }
    }
    free(r);
    return rc;
}

/* Which node each rank is on, for cases that choose ranks by node: the
 * node map the harness learned from the ranks' hosts (pcf_node_of) when
 * known, else the server's PMI_process_mapping (p2_job_nodes' returns). */
static inline int p2_host_nodes(pcf_ctx *c, int *node)
{
    if (pcf_nodes(c) < 1)
        return p2_job_nodes(c, node);
    for (int r = 0; r < pcf_size(c); r++)
        node[r] = pcf_node_of(c, r);
    return 0;
}

#endif
