/* The client persona table and the request rewriting of each persona.
 * Every shape here is one observed on the wire or read from the client's
 * source; the reference section is cited where the rule is applied. */
#include "persona.h"

#include <stdlib.h>
#include <string.h>

static const pmr_persona personas[] = {
    { "mpich-4.0-pmi2", "mpich-4.0-client", PMR_P_MPICH40_PMI2, "mpich-4.0-client", PMC_WIRE_V2,
      "MPICH 4.0.2 simple PMI-2 client: left-justified length + 6 junk bytes, ';;', thrid first" },
    { "mpich-5-pmi2", "mpich-4.1-client", PMR_P_MPICH5_PMI2, "mpich-4.1-client", PMC_WIRE_V2,
      "MPICH >= 4.1 / 5.x PMI-2 client: fullinit with pmirank only, thrid last, no escaping" },
    { "slurm-pmi2", "slurm-client", PMR_P_SLURM_PMI2, "slurm-client", PMC_WIRE_V2,
      "Slurm libpmi2: pmijobid+pmirank|srcid fullinit, kvs-get srcid=-1, infokeycount=0" },
    { "mpich-4.0-pmi1", NULL, PMR_P_MPICH40_PMI1, "mpich-4.0-client", PMC_WIRE_V1,
      "MPICH 4.0.2 libmpich PMI-1 lines: init 1.1, kvsname first in put/get" },
};
#define NPERSONAS (sizeof personas / sizeof personas[0])

const pmr_persona *pmr_persona_get(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < NPERSONAS; i++)
        if (!strcmp(personas[i].name, name) || (personas[i].alias && !strcmp(personas[i].alias, name)))
            return &personas[i];
    return NULL;
}

const pmr_persona *const *pmr_persona_list(size_t *n)
{
    static const pmr_persona *list[NPERSONAS];
    for (size_t i = 0; i < NPERSONAS; i++)
        list[i] = &personas[i];
    if (n)
        *n = NPERSONAS;
    return list;
}

void pmr_persona_print_list(FILE *f)
{
    for (size_t i = 0; i < NPERSONAS; i++)
        fprintf(f, "  %-15s %-17s %s\n", personas[i].name,
                personas[i].alias ? personas[i].alias : "", personas[i].what);
}

const pmc_dialect *pmr_persona_dialect(const pmr_persona *p)
{
    return p ? pmc_dialect_get(p->dialect) : &pmc_dialect_strict;
}

/* ------------------------------------------------------ pair list editing */

typedef struct kvl {
    pmc_slice *k, *v;
    size_t n, cap;
} kvl;

static int kv_init(kvl *l, const pmc_msg *m)
{
    l->cap = m->npairs + 8;
    l->n = 0;
    l->k = malloc(l->cap * sizeof *l->k);
    l->v = malloc(l->cap * sizeof *l->v);
    if (!l->k || !l->v)
        return -1;
    for (size_t i = 0; i < m->npairs; i++) {
        l->k[l->n] = m->pairs[i].key;
        l->v[l->n++] = m->pairs[i].val;
    }
    return 0;
}

static void kv_free(kvl *l)
{
    free(l->k);
    free(l->v);
}

static long kv_find(const kvl *l, const char *key)
{
    for (size_t i = 0; i < l->n; i++)
        if (pmc_slice_eq(l->k[i], key))
            return (long)i;
    return -1;
}

static bool kv_get(const kvl *l, const char *key, pmc_slice *v)
{
    long i = kv_find(l, key);
    if (i >= 0 && v)
        *v = l->v[i];
    return i >= 0;
}

static void kv_del(kvl *l, const char *key)
{
    long i;
    while ((i = kv_find(l, key)) >= 0) {
        memmove(&l->k[i], &l->k[i + 1], (l->n - (size_t)i - 1) * sizeof *l->k);
        memmove(&l->v[i], &l->v[i + 1], (l->n - (size_t)i - 1) * sizeof *l->v);
        l->n--;
    }
}

/* Set (replacing the first occurrence) or append.  cap has room: the
 * rules add at most a handful of keys and kv_init reserved 8. */
static void kv_set(kvl *l, const char *key, pmc_slice val)
{
    long i = kv_find(l, key);
    if (i >= 0) {
        l->v[i] = val;
        return;
    }
    if (l->n < l->cap) {
        l->k[l->n] = pmc_slice_cstr(key);
        l->v[l->n++] = val;
    }
}

static void kv_ensure(kvl *l, const char *key, const char *val)
{
    if (kv_find(l, key) < 0)
        kv_set(l, key, pmc_slice_cstr(val));
}

/* Move the named keys, in this order, in front of the others. */
static void kv_front(kvl *l, const char *const *keys)
{
    size_t at = 0;
    for (size_t q = 0; keys[q]; q++) {
        long i = kv_find(l, keys[q]);
        if (i < 0 || (size_t)i < at)
            continue;
        pmc_slice k = l->k[i], v = l->v[i];
        memmove(&l->k[at + 1], &l->k[at], ((size_t)i - at) * sizeof *l->k);
        memmove(&l->v[at + 1], &l->v[at], ((size_t)i - at) * sizeof *l->v);
        l->k[at] = k;
        l->v[at] = v;
        at++;
    }
}

/* Keep only the named keys, in this order. */
static void kv_only(kvl *l, const char *const *keys)
{
    kv_front(l, keys);
    size_t keep = 0;
    for (size_t q = 0; keys[q]; q++)
        if (kv_find(l, keys[q]) >= 0)
            keep++;
    l->n = keep;
}

/* --------------------------------------------------------------- rules */

/* Rank text for fullinit: the scenario's pmirank/srcid, else the context. */
static pmc_slice rank_of(const kvl *l, const pmr_persona_ctx *c, char *buf, size_t n)
{
    pmc_slice v;
    if (kv_get(l, "pmirank", &v) || kv_get(l, "srcid", &v))
        return v;
    snprintf(buf, n, "%d", c->rank);
    return pmc_slice_cstr(buf);
}

static void rule_mpich40_v2(kvl *l, pmc_slice cmd, const pmr_persona_ctx *c, char *rbuf, size_t rn)
{
    if (pmc_slice_eq(cmd, "fullinit")) {
        /* simple2pmi.c PMI2_Init: [pmijobid=$PMI_JOBID;]pmirank=;threaded=FALSE; (§7.1) */
        pmc_slice r = rank_of(l, c, rbuf, rn), t = pmc_slice_cstr("FALSE"), j;
        kv_get(l, "threaded", &t);
        bool hj = kv_get(l, "pmijobid", &j);
        if (!hj && c->jobid) {
            j = pmc_slice_cstr(c->jobid);
            hj = true;
        }
        kv_del(l, "srcid");
        kv_set(l, "pmirank", r);
        kv_set(l, "threaded", t);
        if (hj)
            kv_set(l, "pmijobid", j);
        static const char *const order[] = { "thrid", "pmijobid", "pmirank", "threaded", NULL };
        kv_only(l, order);
    } else if (pmc_slice_eq(cmd, "kvs-get")) {
        static const char *const order[] = { "jobid", "srcid", "key", NULL };
        kv_front(l, order);
    } else if (pmc_slice_eq(cmd, "info-getnodeattr")) {
        kv_ensure(l, "wait", "FALSE"); /* the 4.0.2 client always sends wait= (§7.1) */
        static const char *const order[] = { "key", "wait", NULL };
        kv_front(l, order);
    } else if (pmc_slice_eq(cmd, "name-publish")) {
        kv_ensure(l, "infokeycount", "0");
    } else if (pmc_slice_eq(cmd, "abort")) {
        /* the wiki form isworld/msg (§7.1: hydra 4.0.2 does not know it) */
        pmc_slice msg;
        if (!kv_get(l, "msg", &msg) && kv_get(l, "message", &msg))
            kv_set(l, "msg", msg);
        kv_ensure(l, "isworld", "TRUE");
        static const char *const order[] = { "isworld", "msg", NULL };
        kv_only(l, order);
    }
}

static void rule_mpich5_v2(kvl *l, pmc_slice cmd, const pmr_persona_ctx *c, char *rbuf, size_t rn)
{
    pmc_slice v;
    if (pmc_slice_eq(cmd, "fullinit")) {
        /* pmi_v2.c: cmd=fullinit;pmirank=N; and nothing else (§7.1) */
        kv_set(l, "pmirank", rank_of(l, c, rbuf, rn));
        static const char *const order[] = { "pmirank", "thrid", NULL };
        kv_only(l, order);
    } else if (pmc_slice_eq(cmd, "kvs-get")) {
        if (kv_get(l, "srcid", &v) && pmc_slice_eq(v, "-1"))
            kv_del(l, "srcid");
    } else if (pmc_slice_eq(cmd, "info-getnodeattr")) {
        if (kv_get(l, "wait", &v) && !pmc_slice_eq(v, "TRUE"))
            kv_del(l, "wait"); /* wait= only when true (§7.1) */
    } else if (pmc_slice_eq(cmd, "name-publish")) {
        if (kv_get(l, "infokeycount", &v) && pmc_slice_eq(v, "0"))
            kv_del(l, "infokeycount");
    } else if (pmc_slice_eq(cmd, "abort")) {
        /* HEAD: exitcode (always -1 from MPICH) and message (§7.1) */
        pmc_slice msg;
        if (!kv_get(l, "message", &msg) && kv_get(l, "msg", &msg))
            kv_set(l, "message", msg);
        kv_ensure(l, "exitcode", "-1");
        static const char *const order[] = { "exitcode", "message", NULL };
        kv_only(l, order);
    }
}

static void rule_slurm_v2(kvl *l, pmc_slice cmd, const pmr_persona_ctx *c, char *rbuf, size_t rn)
{
    if (pmc_slice_eq(cmd, "fullinit")) {
        /* pmi2_api.c:261-284: pmijobid; srcid=$PMI_ID or pmirank=$PMI_RANK; threaded (§13) */
        pmc_slice r = rank_of(l, c, rbuf, rn), t = pmc_slice_cstr("FALSE"), j;
        kv_get(l, "threaded", &t);
        bool hj = kv_get(l, "pmijobid", &j);
        if (!hj && c->jobid) {
            j = pmc_slice_cstr(c->jobid);
            hj = true;
        }
        kv_del(l, "pmirank");
        kv_del(l, "srcid");
        kv_set(l, c->id >= 0 ? "srcid" : "pmirank", r);
        kv_set(l, "threaded", t);
        if (hj)
            kv_set(l, "pmijobid", j);
        static const char *const order[] = { "pmijobid", "srcid", "pmirank", "threaded", "thrid",
                                             NULL };
        kv_only(l, order);
    } else if (pmc_slice_eq(cmd, "kvs-get")) {
        /* jobid=<jobid>;srcid=-1;key=...; (§13) */
        if (kv_find(l, "jobid") < 0 && c->jobid)
            kv_set(l, "jobid", pmc_slice_cstr(c->jobid));
        kv_set(l, "srcid", pmc_slice_cstr("-1"));
        static const char *const order[] = { "jobid", "srcid", "key", NULL };
        kv_front(l, order);
    } else if (pmc_slice_eq(cmd, "name-publish") || pmc_slice_eq(cmd, "name-lookup") ||
               pmc_slice_eq(cmd, "name-unpublish")) {
        kv_ensure(l, "infokeycount", "0");
    } else if (pmc_slice_eq(cmd, "abort")) {
        pmc_slice msg;
        if (!kv_get(l, "msg", &msg) && kv_get(l, "message", &msg))
            kv_set(l, "msg", msg);
        kv_ensure(l, "isworld", "TRUE");
        static const char *const order[] = { "isworld", "msg", NULL };
        kv_only(l, order);
    }
}

static void rule_mpich40_v1(kvl *l, pmc_slice cmd)
{
    pmc_slice v;
    if (pmc_slice_eq(cmd, "init")) {
        /* simple_pmi.c announces 1.1 (§3.2); a PMI-2 init line stays as it is */
        if (kv_get(l, "pmi_version", &v) && pmc_slice_eq(v, "1"))
            kv_set(l, "pmi_subversion", pmc_slice_cstr("1"));
        static const char *const order[] = { "pmi_version", "pmi_subversion", NULL };
        kv_front(l, order);
    } else if (pmc_slice_eq(cmd, "put") || pmc_slice_eq(cmd, "get")) {
        static const char *const order[] = { "kvsname", "key", "value", NULL };
        kv_front(l, order);
    }
}

int pmr_persona_rewrite(const pmr_persona *p, const pmc_msg *m, const pmr_persona_ctx *c,
                        pmc_out *out, pmc_error *err)
{
    bool same_wire = p->wire == PMC_WIRE_V2 ? m->wire == PMC_WIRE_V2
                                            : (m->wire == PMC_WIRE_V1 || m->wire == PMC_WIRE_V1_MCMD);
    if (!same_wire)
        return pmc_encode_msg(m, &pmc_dialect_strict, out, err);
    kvl l;
    if (kv_init(&l, m)) {
        kv_free(&l);
        memset(err, 0, sizeof *err);
        err->code = PMC_E_NOMEM;
        snprintf(err->detail, sizeof err->detail, "out of memory");
        return -1;
    }
    char rbuf[24];
    switch (p->id) {
    case PMR_P_MPICH40_PMI2: rule_mpich40_v2(&l, m->name, c, rbuf, sizeof rbuf); break;
    case PMR_P_MPICH5_PMI2: rule_mpich5_v2(&l, m->name, c, rbuf, sizeof rbuf); break;
    case PMR_P_SLURM_PMI2: rule_slurm_v2(&l, m->name, c, rbuf, sizeof rbuf); break;
    case PMR_P_MPICH40_PMI1: rule_mpich40_v1(&l, m->name); break;
    }
    pmc_enc e;
    pmc_enc_beginn(&e, m->wire, m->name);
    for (size_t i = 0; i < l.n; i++)
        pmc_enc_slice(&e, l.k[i], l.v[i]);
    int rc = pmc_enc_end(&e, pmr_persona_dialect(p), out, err);
    kv_free(&l);
    return rc;
}
