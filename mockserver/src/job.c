/* Jobs: ranks, their nodes, PMI_process_mapping, and the requests that wait
 * (fences, barriers, node attributes, lazy gets). */
#include "internal.h"
#include "groups.h"
#include "mutant.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

pms_job *pms_job_create(pms_server *s, int size, pms_job *spawner)
{
    if (size < 1)
        return NULL;
    pms_job *j = calloc(1, sizeof *j);
    pms_job **nj = realloc(s->jobs, (s->njobs + 1) * sizeof *nj);
    if (!j || !nj) {
        free(j);
        if (nj)
            s->jobs = nj;
        return NULL;
    }
    s->jobs = nj;
    j->srv = s;
    j->seq = (int)s->njobs;
    j->size = size;
    j->spawner = spawner;
    j->ranks = calloc((size_t)size, sizeof *j->ranks);
    j->nodeattr = calloc((size_t)s->cfg.nodes, sizeof *j->nodeattr);
    if (!j->ranks || !j->nodeattr) {
        free(j->ranks);
        free(j->nodeattr);
        free(j);
        return NULL;
    }
    if (s->cfg.job_prefix)
        snprintf(j->id, sizeof j->id, "%s_%d", s->cfg.job_prefix, j->seq);
    else
        snprintf(j->id, sizeof j->id, "kvs_%ld_%d", (long)getpid(), j->seq);
    for (int r = 0; r < size; r++)
        j->ranks[r].node = pms_job_node_of(j, r);
    if (s->persona->mapping_in_kvs) { /* KVS-14 */
        char map[8192];
        if (pms_process_mapping(j, map, sizeof map) < sizeof map)
            pms_kvs_put(&j->kvs, "PMI_process_mapping", 19, map, strlen(map), true);
    }
    s->jobs[s->njobs++] = j;
    return j;
}

void pms_job_free(pms_job *j)
{
    for (pms_wait *w = j->waits, *n; w; w = n) {
        n = w->next;
        pms_wait_free(w);
    }
    pms_kvs_free(&j->kvs);
    pms_kvs_free(&j->pending);
    for (int r = 0; r < j->size; r++)
        pms_kvs_free(&j->ranks[r].pending);
    for (int i = 0; i < j->srv->cfg.nodes; i++)
        pms_kvs_free(&j->nodeattr[i]);
    free(j->nodeattr);
    free(j->ranks);
    free(j->connected);
    free(j);
}

const char *pms_job_id(const pms_job *j)
{
    return j->id;
}

int pms_job_size(const pms_job *j)
{
    return j->size;
}

bool pms_job_aborted(const pms_job *j)
{
    return j->aborted;
}

bool pms_job_unserved(const pms_job *j)
{
    return j->wedged;
}

int pms_job_exit_code(const pms_job *j)
{
    return j->exit_code;
}

bool pms_job_finished(const pms_job *j)
{
    if (j->aborted)
        return true;
    for (int r = 0; r < j->size; r++)
        if (j->ranks[r].state == PMS_RANK_NEW || j->ranks[r].state == PMS_RANK_LIVE)
            return false;
    return true;
}

pms_job *pms_job_find(pms_server *s, const char *id, size_t len)
{
    for (size_t i = 0; i < s->njobs; i++)
        if (strlen(s->jobs[i]->id) == len && memcmp(s->jobs[i]->id, id, len) == 0)
            return s->jobs[i];
    return NULL;
}

int pms_job_node_of(const pms_job *j, int rank)
{
    int k = j->srv->cfg.nodes, n = j->size;
    if (k > n)
        k = n;
    if (j->srv->cfg.mapping == PMS_MAP_CYCLIC)
        return rank % k;
    /* block: the first n % k nodes take one rank more */
    int base = n / k, extra = n % k;
    int big = extra * (base + 1);
    if (rank < big)
        return rank / (base + 1);
    return extra + (rank - big) / base;
}

int pms_job_local_ranks(const pms_job *j, int node, int *out, int max)
{
    int c = 0;
    for (int r = 0; r < j->size; r++)
        if (j->ranks[r].node == node) {
            if (c < max)
                out[c] = r;
            c++;
        }
    return c;
}

/* One run of ranks: `nodes` consecutive nodes from `node`, `ppn` consecutive
 * ranks on each. */
typedef struct map_block {
    int node, nodes, ppn;
    int first;        /* first rank */
    int repeat_from;  /* MPL: this block opens a repeated group */
    int repeats;      /* node -1: the end of a group, repeated this many times */
} map_block;

static void map_put(char *buf, size_t n, size_t *w, const char *fmt, int a, int b, int c)
{
    size_t at = *w < n ? *w : n;
    *w += (size_t)snprintf(buf + at, n - at, fmt, a, b, c);
}

/* The ANL mapping (Hydra 4.0, Slurm, strict): (vector,(start_node,nnodes,ppn),...)
 * describing consecutive runs of ranks; a run of equal blocks on consecutive
 * nodes is one triple. */
static size_t mapping_triples(const pms_job *j, char *buf, size_t n)
{
    map_block *b = malloc((size_t)(j->size > 0 ? j->size : 1) * sizeof *b);
    int nb = 0;
    size_t w = 0;
    if (!b)
        return n; /* "does not fit": the caller answers an empty mapping */
    int r = 0;
    while (r < j->size) {
        int node = j->ranks[r].node, len = 0;
        while (r + len < j->size && j->ranks[r + len].node == node)
            len++;
        /* extend over following nodes with the same block length */
        int nnodes = 1, q = r + len;
        for (;;) {
            int l2 = 0;
            if (q >= j->size || j->ranks[q].node != node + nnodes)
                break;
            while (q + l2 < j->size && j->ranks[q + l2].node == node + nnodes)
                l2++;
            if (l2 != len)
                break;
            nnodes++;
            q += l2;
        }
        b[nb++] = (map_block){ .node = node, .nodes = nnodes, .ppn = len, .first = r };
        r = q;
    }
    /* wrap_mapping: the fewest leading blocks that, applied again and again,
     * place every rank where it is ((0,2,1) for 0,1,0,1,0) */
    int use = nb;
    for (int k = 1; j->srv->cfg.wrap_mapping && k < nb; k++) {
        bool same = true;
        for (int i = 0, rr = 0; same && rr < j->size; i = (i + 1) % k)
            for (int d = 0; same && d < b[i].nodes; d++)
                for (int p = 0; same && p < b[i].ppn && rr < j->size; p++, rr++)
                    same = j->ranks[rr].node == b[i].node + d;
        if (same) {
            use = k;
            break;
        }
    }
    map_put(buf, n, &w, "(vector", 0, 0, 0);
    for (int i = 0; i < use; i++)
        map_put(buf, n, &w, ",(%d,%d,%d)", b[i].node, b[i].nodes, b[i].ppn);
    map_put(buf, n, &w, ")", 0, 0, 0);
    free(b);
    return w;
}

/* How many times ranks [from, at) repeat from `from` on (at least 1). */
static int map_repeats(const pms_job *j, int from, int at)
{
    int len = at - from, k = 1;
    for (int s = at; s + len <= j->size; s += len, k++)
        for (int i = 0; i < len; i++)
            if (j->ranks[from + i].node != j->ranks[s + i].node)
                return k;
    return k;
}

/* MPL's rankmap (Hydra 4.1+, mpich-wire.md §7.2): the same runs, but a run
 * of one rank on one node is written as the bare node id ("(vector,0)" for a
 * singleton job), and when the node sequence starts over at a node that
 * opened an earlier block, the blocks since then are written once as
 * "[...]xN" (cyclic placement: "(vector,[(0,2,1)]x2)" for 4 ranks on 2 nodes). */
static size_t mapping_mpl(const pms_job *j, char *buf, size_t n)
{
    map_block *b = calloc((size_t)j->size + 1, sizeof *b); /* markers replace skipped ranks */
    int *opened = calloc((size_t)j->srv->cfg.nodes, sizeof *opened); /* block index + 1 */
    size_t w = 0;
    if (!b || !opened) {
        free(b);
        free(opened);
        return n; /* "does not fit": the caller answers an empty mapping */
    }
    int nb = 0;
    for (int r = 0; r <= j->size;) {
        if (r > 0 && r < j->size && j->ranks[r].node == j->ranks[r - 1].node) {
            b[nb - 1].ppn++;
            r++;
            continue;
        }
        /* a new run starts: merge the last two blocks when they continue each other */
        if (nb > 1 && b[nb - 1].node >= 0 && b[nb - 2].node >= 0 &&
            b[nb - 2].ppn == b[nb - 1].ppn &&
            b[nb - 2].node + b[nb - 2].nodes == b[nb - 1].node) {
            b[nb - 2].nodes++;
            opened[b[nb - 1].node] = 0;
            nb--;
        }
        if (r == j->size)
            break;
        int node = j->ranks[r].node;
        if (opened[node]) {
            map_block *o = &b[opened[node] - 1];
            int k = map_repeats(j, o->first, r);
            if (k > 1) {
                /* "[" before the block, a "]xk" marker after the last one;
                 * the repeated ranks are skipped, every node may open again */
                o->repeat_from = 1;
                b[nb++] = (map_block){ .node = -1, .repeats = k };
                memset(opened, 0, (size_t)j->srv->cfg.nodes * sizeof *opened);
                r = o->first + (r - o->first) * k;
                continue;
            }
        }
        b[nb] = (map_block){ .node = node, .nodes = 1, .ppn = 1, .first = r };
        opened[node] = nb + 1;
        nb++;
        r++;
    }
    map_put(buf, n, &w, "(vector", 0, 0, 0);
    for (int i = 0; i < nb; i++) {
        if (b[i].node < 0) {
            map_put(buf, n, &w, "]x%d", b[i].repeats, 0, 0);
            continue;
        }
        map_put(buf, n, &w, b[i].repeat_from ? ",[" : ",", 0, 0, 0);
        if (b[i].nodes == 1 && b[i].ppn == 1)
            map_put(buf, n, &w, "%d", b[i].node, 0, 0);
        else
            map_put(buf, n, &w, "(%d,%d,%d)", b[i].node, b[i].nodes, b[i].ppn);
    }
    map_put(buf, n, &w, ")", 0, 0, 0);
    free(b);
    free(opened);
    return w;
}

/* PMI_process_mapping as the persona's server writes it; returns the length
 * it needs (>= n: did not fit). */
size_t pms_process_mapping(const pms_job *j, char *buf, size_t n)
{
    if (n)
        buf[0] = 0;
    return j->srv->persona->mapping == PMS_MAP_MPL ? mapping_mpl(j, buf, n)
                                                   : mapping_triples(j, buf, n);
}

bool pms_job_rank_free(const pms_job *j, long long rank)
{
    return rank >= 0 && rank < j->size && !pms_rank_bound(j, (int)rank);
}

bool pms_job_bind(pms_job *j, pms_port *c, int rank)
{
    if (rank < 0 || rank >= j->size)
        return false;
    /* a connection has one identity: a second initack naming another rank
     * would leave the first rank pointing at this connection after it is gone */
    if (c->rank >= 0)
        return c->job == j && c->rank == rank;
    pms_rank *r = &j->ranks[rank];
    if (r->port && r->port != c && !r->port->dead)
        return false;
    r->port = c;
    if (r->state == PMS_RANK_NEW)
        r->state = PMS_RANK_LIVE;
    c->job = j;
    c->rank = rank;
    return true;
}

void pms_job_rank_gone(pms_job *j, int rank)
{
    pms_rank *r = &j->ranks[rank];
    r->port = NULL;
    if (r->state != PMS_RANK_FINALIZED)
        r->state = PMS_RANK_GONE;
    /* fewer participants: a fence or barrier may now be complete */
    pms_waits_recheck(j);
    if (j->srv->groups) /* GROUP-25, GROUP-20, GROUP-27 */
        pms_groups_proc_gone(j->srv->groups, j, rank);
}

/* mpich-wire.md §9: Hydra answers no protocol error.  mpiexec prints a
 * diagnostic, kills every process of the job and exits 255; here the job is
 * marked aborted with 255 (the launcher then kills its ranks) and the
 * offending connection is closed without an answer. */
static void take_job_down(pms_port *c, int code, const char *why)
{
    pms_job *j = c->job;
    pms_log(c->srv, 0, "conn %d (rank %d): %s: tearing the job down (exit code %d)", c->id,
            c->rank, why, code);
    if (j && !j->aborted) {
        j->aborted = true;
        j->exit_code = code;
        if (c->srv->ev.abort)
            c->srv->ev.abort(c->srv->ev.ctx, j, c->rank, true, code, why);
    }
}

/* Slurm: slurmstepd dies (a NULL key dereferenced, an oversized frame):
 * every connection of the job ends at once, unanswered. */
void pms_job_crash(pms_port *c, const char *why)
{
    pms_log(c->srv, 0, "conn %d (rank %d): %s: the server crashes", c->id, c->rank, why);
    if (!c->job || !c->srv->persona->job_wide_failures) {
        pms_port_close(c, why); /* only the connection that caused it */
        return;
    }
    c->job->wedged = true; /* the agent is gone: nothing of the step is served again */
    for (pms_port *o = c->srv->ports; o; o = o->next)
        if (o->job == c->job && !o->dead)
            pms_port_close(o, why);
}

/* Slurm's agent stops serving the job after it dropped one connection
 * (persona job_wide_failures; observed: every such case is others-affected). */
void pms_job_wedge(pms_port *c, const char *why)
{
    if (!c->job || c->job->wedged || !c->srv->persona->job_wide_failures)
        return;
    pms_log(c->srv, 0, "conn %d (rank %d): %s: no connection of job %s is served any more",
            c->id, c->rank, why, c->job->id);
    c->job->wedged = true;
}

/* Slurm: answer finalize-response and never read the connection again
 * (persona bad_len_finalize): what its agent does with a task it gave up on. */
void pms_conn_drop_finalize(pms_port *c, const char *why)
{
    if (c->dead || c->deaf)
        return;
    pms_log(c->srv, 0, "conn %d (rank %d): %s: finalize-response, then the connection is "
            "dropped", c->id, c->rank, why);
    pmc_enc *e = pms_reply_begin(c, PMC_WIRE_V2, "finalize-response", (pmc_slice){ NULL, 0 });
    pmc_enc_int(e, "rc", 0);
    pms_reply_send(c);
    pms_port_stop_reading(c, why);
    pms_job_wedge(c, why);
}

void pms_protocol_fatal(pms_port *c, const char *why)
{
    if (c->dead)
        return;
    take_job_down(c, 255, why);
    pms_port_close(c, why);
}

/* The process closed (or broke) its connection.  Hydra's proxy takes the PMI
 * socket of a rank that spoke PMI and has not finalized for the death of
 * the process and SIGKILLs the job: mpiexec's status is 9 (mpich-wire.md
 * §9).  A program that never spoke PMI (a spawned /bin/true) just ends. */
void pms_rank_lost(pms_port *c, const char *why)
{
    if (c->dead || !c->srv->persona->eof_kills_job || !c->job || c->rank < 0 || c->finalized ||
        !c->job->ranks[c->rank].spoke)
        return;
    take_job_down(c, 9, why);
}

/* ---- waits --------------------------------------------------------------- */

pms_wait *pms_wait_add(pms_job *j, pms_wait_kind kind, pms_port *c, const pmc_msg *m)
{
    pms_wait *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->kind = kind;
    w->port = c;
    w->port_gen = c->gen;
    w->wire = m->wire;
    w->node = c->rank >= 0 ? j->ranks[c->rank].node : 0;
    if (m->thrid.ptr)
        w->thrid = pms_strndup(m->thrid.ptr, m->thrid.len);
    pmc_slice v;
    if (pmc_msg_get(m, "key", &v))
        w->key = pms_strndup(v.ptr, v.len);
    if (pmc_msg_get(m, "group", &v))
        w->group = pms_strndup(v.ptr, v.len);
    /* append: answers go out in arrival order */
    pms_wait **pp = &j->waits;
    while (*pp)
        pp = &(*pp)->next;
    *pp = w;
    return w;
}

void pms_wait_free(pms_wait *w)
{
    free(w->thrid);
    free(w->key);
    free(w->group);
    free(w);
}

void pms_waits_drop_port(pms_job *j, pms_port *c)
{
    pms_wait **pp = &j->waits;
    while (*pp) {
        pms_wait *w = *pp;
        if (w->port == c) {
            *pp = w->next;
            pms_wait_free(w);
        } else {
            pp = &w->next;
        }
    }
}

static void pms_waits_drop_conn_wait(pms_job *j, pms_wait *x)
{
    for (pms_wait **pp = &j->waits; *pp; pp = &(*pp)->next)
        if (*pp == x) {
            *pp = x->next;
            pms_wait_free(x);
            return;
        }
}

static pmc_slice thrid_of(const pms_wait *w)
{
    return w->thrid ? pmc_slice_cstr(w->thrid) : (pmc_slice){ NULL, 0 };
}

/* Ranks that take part in a collective: connected or still to come. */
static bool participates(const pms_rank *r)
{
    return r->state == PMS_RANK_NEW || r->state == PMS_RANK_LIVE;
}

/* Members of a PMI-1.2 barrier group: NULL or "WORLD:<tag>" is everyone,
 * "NODE:<tag>" the caller's node, "r1,r2,...:<tag>" a list. */
static bool in_group(const pms_job *j, const char *group, int node, int rank)
{
    if (!group || strncmp(group, "WORLD", 5) == 0)
        return true;
    if (PMS_MUTANT(j->srv->persona, "v1-group-list-as-world"))
        return true; /* V1CMD-16 broken: every group is the whole job */
    if (strncmp(group, "NODE", 4) == 0)
        return j->ranks[rank].node == node;
    const char *p = group;
    while (*p && *p != ':') {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            return false;
        if (v == rank)
            return true;
        p = *end == ',' ? end + 1 : end;
    }
    return false;
}

static const char *group_tag(const char *group)
{
    const char *c = group ? strrchr(group, ':') : NULL;
    return c ? c + 1 : "0";
}

static bool same_group(const pms_wait *a, const pms_wait *b)
{
    if (!a->group || !b->group)
        return !a->group && !b->group;
    /* "NODE:<tag>" is one group per node: the same text on two nodes names
     * two barriers (--nodes K) */
    if (strncmp(a->group, "NODE", 4) == 0 && a->node != b->node)
        return false;
    return strcmp(a->group, b->group) == 0;
}

static void reply_fence(pms_port *c, const pms_wait *w)
{
    pmc_enc *e = pms_reply_begin(c, PMC_WIRE_V2, "kvs-fence-response", thrid_of(w));
    pmc_enc_int(e, "rc", 0);
    pms_reply_send(c);
}

static void reply_barrier(pms_port *c, const pms_wait *w)
{
    const pms_persona *p = c->srv->persona;
    pmc_enc *e = pms_reply_begin(c, PMC_WIRE_V1, "barrier_out", (pmc_slice){ NULL, 0 });
    if (p->v1_barrier_rc)
        pmc_enc_int(e, "rc", 0);
    if (p->v1_max_subversion >= 2)
        pmc_enc_str(e, "tag", PMS_MUTANT(p, "v1-group-tag-wrong") ? "0" : group_tag(w->group));
    pms_reply_send(c);
}

static bool is_world(const pms_wait *w)
{
    return !w->group || strncmp(w->group, "WORLD", 5) == 0;
}

/* Personas whose PMI-1 barrier counts barrier_in lines, not processes: the
 * legacy Hydra proxy (Hydra 4.0.x: the only persona without a fence barrier
 * that puts rc last) and Slurm (barrier_in shares the kvs-fence counters);
 * Hydra HEAD's proxy keeps one epoch per process (proxy/pmip_barrier.c). */
static bool barrier_counts_lines(const pms_persona *p)
{
    return PMS_MUTANT(p, "v1-barrier-counts-lines") || p->fence_counts_calls ||
           (!p->fence_barrier && !p->v1_rc_first);
}

/* A PMI-1 barrier publishes the puts made before it; a key put again
 * replaces its old value, even on Hydra 4.0.2 (kvs_keep_first is its PMI-2
 * KVS: observed pmi1/kvs/put-again, rc=0 and the second value). */
static void commit_barrier(pms_job *j)
{
    bool replace = !PMS_MUTANT(j->srv->persona, "v1-barrier-keeps-old"); /* V1CMD-15 broken */
    for (int r = 0; r < j->size; r++)
        pms_kvs_commit(&j->kvs, &j->ranks[r].pending, replace);
    pms_kvs_commit(&j->kvs, &j->pending, replace);
}

/* Release every wait of `kind` in the same group as `proto`. */
static void release(pms_job *j, pms_wait_kind kind, const pms_wait *proto)
{
    pms_wait **pp = &j->waits;
    pms_wait *released = NULL, **rt = &released;
    bool world = is_world(proto);
    while (*pp) {
        pms_wait *x = *pp;
        if (x->kind == kind && (world ? is_world(x) : same_group(x, proto))) {
            *pp = x->next;
            x->next = NULL;
            *rt = x;
            rt = &x->next;
        } else {
            pp = &x->next;
        }
    }
    for (pms_wait *x = released, *n; x; x = n) {
        n = x->next;
        if (!x->port->dead) {
            if (kind == PMS_WAIT_FENCE)
                reply_fence(x->port, x);
            else
                reply_barrier(x->port, x);
        }
        pms_wait_free(x);
    }
}

/* Release the first WORLD wait of `kind` of every process marked in `in`. */
static void release_round(pms_job *j, pms_wait_kind kind, unsigned char *in)
{
    pms_wait **pp = &j->waits;
    pms_wait *released = NULL, **rt = &released;
    while (*pp) {
        pms_wait *x = *pp;
        int r = x->port->rank;
        if (x->kind == kind && is_world(x) && r >= 0 && in[r]) {
            in[r] = 0; /* only its first one */
            *pp = x->next;
            x->next = NULL;
            *rt = x;
            rt = &x->next;
        } else {
            pp = &x->next;
        }
    }
    for (pms_wait *x = released, *n; x; x = n) {
        n = x->next;
        if (!x->port->dead) {
            if (kind == PMS_WAIT_FENCE)
                reply_fence(x->port, x);
            else
                reply_barrier(x->port, x);
        }
        pms_wait_free(x);
    }
}

/* FENCE-9: a process that ended before finalize can never join the round,
 * so every process waiting in a WORLD fence or barrier is told it failed
 * (FENCE-8: rc!=0 and why), neither left waiting nor answered as if the
 * round had completed without it.  The persona's error policy applies
 * (Hydra's ends the job, as the real one does). */
static void fail_round(pms_job *j, pms_wait_kind kind, const char *who)
{
    pms_wait *failed = NULL, **ft = &failed;
    for (pms_wait **pp = &j->waits; *pp;) {
        pms_wait *x = *pp;
        if (x->kind == kind && is_world(x)) {
            *pp = x->next;
            x->next = NULL;
            *ft = x;
            ft = &x->next;
        } else {
            pp = &x->next;
        }
    }
    bool fence = kind == PMS_WAIT_FENCE;
    pmc_slice cmd = { fence ? "kvs-fence" : "barrier_in", fence ? 9 : 10 };
    for (pms_wait *x = failed, *n; x; x = n) {
        n = x->next;
        if (!x->port->dead)
            pms_reply_error(x->port, fence ? PMC_WIRE_V2 : PMC_WIRE_V1, cmd, thrid_of(x),
                            PMS_RC_FAIL, "process %s ended before finalize: the %s cannot complete",
                            who, fence ? "fence" : "barrier");
        pms_wait_free(x);
    }
}

/* Complete a collective (fence or barrier) when every member is waiting in
 * it.  WORLD collectives are counted in one pass (jobs of thousands of
 * ranks); PMI-1.2 sub-groups, which are small and rare, are checked member
 * by member.  Returns true when something completed. */
static bool try_collective(pms_job *j, pms_wait_kind kind)
{
    int waiting = 0;
    const pms_wait *first = NULL, *grouped = NULL;
    for (pms_wait *w = j->waits; w; w = w->next) {
        if (w->kind != kind)
            continue;
        if (is_world(w)) {
            waiting++;
            if (!first)
                first = w;
        } else if (!grouped) {
            grouped = w;
        }
    }
    char lost[64];
    if (first && !j->aborted && (pms_dead_processes(j, lost, sizeof lost), lost[0]) &&
        !PMS_MUTANT(j->srv->persona, "fence-lost-rank-completes")) {
        if (PMS_MUTANT(j->srv->persona, "fence-lost-rank-waits"))
            return false; /* FENCE-9 broken (mutants_v2.c): the others wait for ever */
        fail_round(j, kind, lost);
        return true;
    }
    if (first && kind == PMS_WAIT_FENCE && j->srv->persona->fence_counts_calls) {
        /* Slurm counts kvs-fence calls, not processes: `size` calls end the
         * round, and every process gets one response, whether it fenced or
         * not (pmi2.c:286-317; observed: pmi2/fence/duplicate-fence) */
        int need = 0;
        for (int r = 0; r < j->size; r++)
            need += participates(&j->ranks[r]);
        if (waiting < need)
            return false;
        pms_kvs_commit_all(j);
        for (pms_wait **pp = &j->waits; *pp;) {
            pms_wait *x = *pp;
            if (x->kind == kind && is_world(x)) {
                *pp = x->next;
                pms_wait_free(x);
            } else {
                pp = &x->next;
            }
        }
        const pms_wait none = { .kind = PMS_WAIT_FENCE };
        for (int r = 0; r < j->size; r++) {
            pms_port *rc = j->ranks[r].port;
            if (participates(&j->ranks[r]) && rc && !rc->dead && !rc->deaf)
                reply_fence(rc, &none);
        }
        return true;
    }
    if (first && kind == PMS_WAIT_BARRIER && barrier_counts_lines(j->srv->persona)) {
        /* PMI-1 barrier_in lines counted, not processes: Hydra 4.0's proxy
         * (pmip_pmi_v1.c fn_barrier_in, a static barrier_count) and Slurm
         * (the fence counters, slurm-pmi2.md §11) complete the barrier at
         * the size-th line and send barrier_out to every process */
        int need = 0;
        for (int r = 0; r < j->size; r++)
            need += participates(&j->ranks[r]);
        if (waiting < need)
            return false;
        commit_barrier(j);
        int taken = 0;
        for (pms_wait **pp = &j->waits; *pp && taken < need;) {
            pms_wait *x = *pp;
            if (x->kind == kind && is_world(x)) {
                *pp = x->next;
                pms_wait_free(x);
                taken++;
            } else {
                pp = &x->next;
            }
        }
        const pms_wait none = { .kind = PMS_WAIT_BARRIER };
        for (int r = 0; r < j->size; r++) {
            pms_port *rc = j->ranks[r].port;
            if (participates(&j->ranks[r]) && rc && !rc->dead && !rc->deaf)
                reply_barrier(rc, &none);
        }
        return true;
    }
    if (first) {
        /* FENCE-5: a round completes when every process is in it; a second
         * fence from one process waits for the next round */
        unsigned char *in = calloc((size_t)j->size, 1);
        int need = 0, have = 0;
        for (int r = 0; r < j->size; r++)
            need += participates(&j->ranks[r]);
        for (pms_wait *w = j->waits; in && w; w = w->next)
            if (w->kind == kind && is_world(w) && w->port->rank >= 0 && !in[w->port->rank]) {
                in[w->port->rank] = 1;
                have++;
            }
        if (in && kind == PMS_WAIT_BARRIER && need > 1 &&
            PMS_MUTANT(j->srv->persona, "v1-barrier-early"))
            need--; /* V1CMD-14 broken: the last process is not waited for */
        if (in && have >= need) {
            /* everyone is here: make the puts visible, then release one wait
             * per process */
            if (kind == PMS_WAIT_BARRIER)
                commit_barrier(j);
            else
                pms_kvs_commit_all(j);
            release_round(j, kind, in);
            free(in);
            return true;
        }
        free(in);
        (void)waiting;
    }
    for (pms_wait *w = j->waits; w && grouped; w = w->next) {
        if (w->kind != kind || is_world(w))
            continue;
        int need = 0, have = 0;
        for (int r = 0; r < j->size; r++) {
            if (!participates(&j->ranks[r]) || !in_group(j, w->group, w->node, r))
                continue;
            need++;
            for (pms_wait *x = j->waits; x; x = x->next)
                if (x->kind == kind && x->port->rank == r && same_group(x, w)) {
                    have++;
                    break;
                }
        }
        if (have >= need) {
            release(j, kind, w);
            return true;
        }
    }
    return false;
}

void pms_fence_enter(pms_port *c, const pmc_msg *m)
{
    pms_job *j = c->job;
    pms_rank *r = &j->ranks[c->rank];
    r->fence_epoch++;
    if (!c->srv->persona->fence_barrier) {
        /* Hydra: answer at once; gets of missing keys wait for the others */
        pms_wait w = { .thrid = m->thrid.ptr ? pms_strndup(m->thrid.ptr, m->thrid.len) : NULL };
        reply_fence(c, &w);
        free(w.thrid);
        pms_waits_recheck(j);
        return;
    }
    if (!pms_wait_add(j, PMS_WAIT_FENCE, c, m)) {
        pms_reply_error(c, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL, "out of memory");
        return;
    }
    pms_waits_recheck(j);
}

void pms_barrier_enter(pms_port *c, const pmc_msg *m)
{
    pms_job *j = c->job;
    j->ranks[c->rank].barrier_epoch++;
    if (!pms_wait_add(j, PMS_WAIT_BARRIER, c, m)) {
        pms_reply_error(c, PMC_WIRE_V1, m->name, m->thrid, PMS_RC_FAIL, "out of memory");
        return;
    }
    pms_waits_recheck(j);
}

/* Lazy-fence gets (Hydra): a missing key is worth waiting for while some
 * rank has not reached the asker's fence epoch. */
static bool lazy_get_pending(const pms_job *j, const pms_wait *w)
{
    int epoch = j->ranks[w->port->rank].fence_epoch;
    for (int r = 0; r < j->size; r++)
        if (participates(&j->ranks[r]) && j->ranks[r].fence_epoch < epoch)
            return true;
    return false;
}


/* RING-1: once every rank has sent ring, rank r gets the sum of the counts
 * of ranks below it, the ring-right of r-1 and the ring-left of r+1. */
static bool try_ring(pms_job *j)
{
    int waiting = 0, need = 0;
    for (pms_wait *w = j->waits; w; w = w->next)
        waiting += w->kind == PMS_WAIT_RING;
    if (!waiting)
        return false;
    for (int r = 0; r < j->size; r++)
        need += participates(&j->ranks[r]);
    if (waiting < need)
        return false;
    pms_wait **by = calloc((size_t)j->size, sizeof *by);
    if (!by)
        return false;
    for (pms_wait *w = j->waits; w; w = w->next)
        if (w->kind == PMS_WAIT_RING && !by[w->port->rank])
            by[w->port->rank] = w;
    long long sum = 0;
    for (int r = 0; r < j->size; r++) {
        pms_wait *w = by[r];
        if (!w)
            continue; /* a rank that is gone */
        pms_wait *l = by[(r + j->size - 1) % j->size], *rt = by[(r + 1) % j->size];
        if (!w->port->dead) {
            pmc_enc *e = pms_reply_begin(w->port, PMC_WIRE_V2, "ring-response", thrid_of(w));
            pmc_enc_int(e, "rc", 0);
            pmc_enc_int(e, "ring-count", sum);
            pmc_enc_str(e, "ring-left", l && l->group ? l->group : "");
            pmc_enc_str(e, "ring-right", rt && rt->key ? rt->key : "");
            pms_reply_send(w->port);
        }
        sum += w->epoch;
    }
    free(by);
    pms_wait **pp = &j->waits;
    while (*pp) {
        pms_wait *w = *pp;
        if (w->kind == PMS_WAIT_RING) {
            *pp = w->next;
            pms_wait_free(w);
        } else {
            pp = &w->next;
        }
    }
    return true;
}

void pms_ring_enter(pms_port *c, const pmc_msg *m)
{
    pms_job *j = c->job;
    for (pms_wait *w = j->waits; w; w = w->next)
        if (w->kind == PMS_WAIT_RING && w->port->rank == c->rank) {
            pms_reply_error(c, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL,
                            "this rank is already in the ring");
            return;
        }
    long long count = 0;
    pmc_msg_get_int(m, "ring-count", &count);
    pmc_slice l = { NULL, 0 }, r = { NULL, 0 };
    pmc_msg_get(m, "ring-left", &l);
    pmc_msg_get(m, "ring-right", &r);
    pms_wait *w = pms_wait_add(j, PMS_WAIT_RING, c, m);
    if (w) {
        /* the ring's neighbours, in place of what a stray key= or group=
         * pair of the request put there */
        free(w->key);
        free(w->group);
        w->key = pms_strndup(l.ptr ? l.ptr : "", l.len);
        w->group = pms_strndup(r.ptr ? r.ptr : "", r.len);
        w->epoch = (int)count;
    }
    if (!w || !w->key || !w->group) {
        if (w) {
            pms_waits_drop_conn_wait(j, w);
        }
        pms_reply_error(c, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL, "out of memory");
        return;
    }
    pms_waits_recheck(j);
}

bool pms_job_may_read(const pms_job *j, const pms_job *o)
{
    if (o == j || o == j->spawner || o->spawner == j)
        return true;
    for (size_t i = 0; i < j->nconnected; i++)
        if (j->connected[i] == o)
            return true;
    for (size_t i = 0; i < o->nconnected; i++) /* connect is symmetric */
        if (o->connected[i] == j)
            return true;
    return false;
}

void pms_dead_processes(const pms_job *j, char *buf, size_t n)
{
    size_t w = 0;
    buf[0] = 0;
    for (int r = 0; r < j->size && w < n; r++) {
        if (j->ranks[r].state != PMS_RANK_GONE)
            continue;
        int e = r;
        while (e + 1 < j->size && j->ranks[e + 1].state == PMS_RANK_GONE)
            e++;
        w += (size_t)(e > r ? snprintf(buf + w, n - w, w ? ",%d-%d" : "%d-%d", r, e)
                            : snprintf(buf + w, n - w, w ? ",%d" : "%d", r));
        r = e;
    }
    if (w >= n)
        buf[0] = 0; /* does not fit: say nothing rather than something cut */
}

void pms_waits_recheck(pms_job *j)
{
    /* A reply can close a connection (a send that fails), which drops that
     * connection's waits, marks its rank gone and comes back here: so the
     * wait is unlinked before it is answered, a nested call only asks for
     * another pass, and every pass after an answer starts from the head. */
    if (j->rechecking) {
        j->recheck_again = true;
        return;
    }
    j->rechecking = true;
    do {
        j->recheck_again = false;
        while (try_collective(j, PMS_WAIT_FENCE) || try_collective(j, PMS_WAIT_BARRIER) ||
               try_ring(j))
            ;
        for (pms_wait **pp = &j->waits; *pp;) {
            pms_wait *w = *pp;
            const pms_kv *kv = NULL;
            bool done = false;
            if (w->kind == PMS_WAIT_NODEATTR && w->key) {
                kv = pms_kvs_get(&j->nodeattr[w->node], w->key, strlen(w->key));
                done = kv != NULL;
            } else if (w->kind == PMS_WAIT_KVS_GET && w->key) {
                kv = pms_kvs_get(&j->kvs, w->key, strlen(w->key));
                done = kv || !lazy_get_pending(j, w);
            }
            if (!done) {
                pp = &w->next;
                continue;
            }
            *pp = w->next;
            if (w->kind == PMS_WAIT_NODEATTR)
                pms_nodeattr_reply(w->port, thrid_of(w), kv);
            else
                pms_kvs_get_reply(w->port, thrid_of(w), kv);
            pms_wait_free(w);
            j->recheck_again = true; /* the list may have changed under the reply */
            break;
        }
    } while (j->recheck_again);
    j->rechecking = false;
}

size_t pms_job_count(const pms_server *s)
{
    return s->njobs;
}

pms_job *pms_job_at(const pms_server *s, size_t i)
{
    return i < s->njobs ? s->jobs[i] : NULL;
}

void pms_port_finalize(pms_port *p)
{
    p->finalized = true;
    if (p->job && p->rank >= 0)
        p->job->ranks[p->rank].state = PMS_RANK_FINALIZED;
    /* every real server closes the connection after finalize */
    if (!p->srv->cfg.finalize_linger) /* linger: see pms_config */
        pms_port_close_after(p, true);
    if (p->job)
        pms_waits_recheck(p->job);
}

bool pms_rank_finalized(const pms_job *j, int rank)
{
    return rank >= 0 && rank < j->size && j->ranks[rank].state == PMS_RANK_FINALIZED;
}

int pms_rank_node(const pms_job *j, int rank)
{
    return rank >= 0 && rank < j->size ? j->ranks[rank].node : -1;
}

int pms_job_local_count(const pms_job *j, int node)
{
    return pms_job_local_ranks(j, node, NULL, 0);
}

void pms_rank_exited(pms_job *j, int rank)
{
    if (rank < 0 || rank >= j->size)
        return;
    pms_rank *r = &j->ranks[rank];
    if (r->state == PMS_RANK_NEW || r->state == PMS_RANK_LIVE) {
        if (r->port && !r->port->dead && r->port->deaf) {
            /* a connection the server stopped reading (persona eof_unnoticed,
             * bad_len_finalize) ends with its process */
            pms_port_close(r->port, "the process ended");
            return;
        }
        if (r->port && !r->port->dead)
            return; /* its connection will report when it closes */
        pms_job_rank_gone(j, rank);
    }
}

bool pms_rank_used(const pms_job *j, int rank)
{
    return rank >= 0 && rank < j->size && j->ranks[rank].spoke;
}

bool pms_rank_bound(const pms_job *j, int rank)
{
    return rank >= 0 && rank < j->size && j->ranks[rank].port && !j->ranks[rank].port->dead;
}

/* ---- KVS visibility ------------------------------------------------------ */

/* Where a put goes: straight into the job's KVS for personas that show puts
 * at once (Hydra), else into the putter's pending set until the next fence or
 * barrier (FENCE-2).  *rc: 0, or a PMS_RC_* on failure. */
/* The bytes of a value a persona's server keeps: C strings end at a NUL
 * (mpich-wire.md §6.2, slurm-pmi2.md §3), Hydra 4.0.2 keeps at most 1023
 * bytes (B9). */
pmc_slice pms_stored_value(const pms_persona *p, pmc_slice v)
{
    const char *z = p->nul_truncates && v.len ? memchr(v.ptr, 0, v.len) : NULL;
    if (z)
        v.len = (size_t)(z - v.ptr);
    if (p->trunc_val && v.len > p->trunc_val)
        v.len = p->trunc_val;
    return v;
}

void pms_kvs_store(pms_job *j, pms_port *c, pmc_wire w, pmc_slice k, pmc_slice v, int *rc)
{
    const pms_persona *p = c->srv->persona;
    v = pms_stored_value(p, v);
    if (p->trunc_key && k.len > p->trunc_key)
        k.len = p->trunc_key; /* B9: char key[64] in Hydra 4.0.2, rc=0 */
    bool now = p->put_visible_now && !(w != PMC_WIRE_V2 && p->v1_put_hidden);
    pms_kvs *into = now ? &j->kvs
                  : (c->job == j && c->rank >= 0) ? &j->ranks[c->rank].pending
                                                  : &j->pending;
    /* kvs_keep_first: Hydra 4.0.2 answers rc=0 and keeps the first value */
    *rc = pms_kvs_put(into, k.ptr, k.len, v.ptr, v.len, !p->kvs_keep_first) < 0 ? PMS_RC_FAIL : 0;
    if (now && !*rc)
        pms_waits_recheck(j);
}

/* What a get sees: the caller's own pending puts first when the persona
 * shows them to their putter (FENCE-6), then the committed KVS. */
const pms_kv *pms_kvs_lookup(pms_job *j, const pms_port *c, pmc_slice k)
{
    if (c->srv->persona->own_put_visible && c->job == j && c->rank >= 0) {
        const pms_kv *own = pms_kvs_get(&j->ranks[c->rank].pending, k.ptr, k.len);
        if (own)
            return own;
    }
    return pms_kvs_get(&j->kvs, k.ptr, k.len);
}

/* A fence or barrier completed: every pending put becomes visible. */
void pms_kvs_commit_all(pms_job *j)
{
    bool replace = !j->srv->persona->kvs_keep_first;
    for (int r = 0; r < j->size; r++)
        pms_kvs_commit(&j->kvs, &j->ranks[r].pending, replace);
    pms_kvs_commit(&j->kvs, &j->pending, replace);
}

/* ---- Slurm's netinfo job attribute (persona netinfo_attr) --------------- */

/* strcmp(key, "PMI_netinfo_of_task") >= 0: Slurm's info.c:217 answers every
 * such key with the netinfo (slurm-pmi2.md §8). */
bool pms_netinfo_sorts_after(pmc_slice k)
{
    static const char ni[] = "PMI_netinfo_of_task";
    size_t n = sizeof ni - 1, m = k.len < n ? k.len : n;
    int d = memcmp(k.ptr, ni, m);
    return d > 0 || (d == 0 && k.len >= n);
}

/* "(<host>,(<if>,IP_V4|IP_V6,<addr>),...)", loopback skipped, cut at 1023
 * bytes (info.c:175-189, 231-305). */
void pms_netinfo(char *buf, size_t n)
{
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    host[strcspn(host, ".")] = 0;
    size_t lim = n < 1024 ? n : 1024, k = 0;
    k += (size_t)snprintf(buf + k, lim - k, "(%s", host);
    struct ifaddrs *ifs = NULL;
    if (getifaddrs(&ifs) == 0) {
        for (struct ifaddrs *a = ifs; a && k + 1 < lim; a = a->ifa_next) {
            if (!a->ifa_addr || (a->ifa_flags & IFF_LOOPBACK))
                continue;
            int fam = a->ifa_addr->sa_family;
            if (fam != AF_INET && fam != AF_INET6)
                continue;
            char addr[INET6_ADDRSTRLEN] = "";
            const void *src = fam == AF_INET
                                  ? (const void *)&((struct sockaddr_in *)a->ifa_addr)->sin_addr
                                  : (const void *)&((struct sockaddr_in6 *)a->ifa_addr)->sin6_addr;
            inet_ntop(fam, src, addr, sizeof addr);
            int w = snprintf(buf + k, lim - k, ",(%s,%s,%s)", a->ifa_name,
                             fam == AF_INET ? "IP_V4" : "IP_V6", addr);
            k = w < 0 || (size_t)w >= lim - k ? lim - 1 : k + (size_t)w;
        }
        freeifaddrs(ifs);
    }
    if (k + 1 < lim)
        buf[k++] = ')';
    buf[k < lim ? k : lim - 1] = 0;
}
