/* Spawn: PMI-2 "spawn" (one message with subcmd segments, SPAWN-1..14, or
 * the draft's header followed by spawn-cmd messages) and PMI-1 "mcmd=spawn"
 * blocks (V1CMD-18..20).  Every form becomes one request: a child job with
 * the sum of the commands' process counts, the preput pairs in its KVS, one
 * launcher callback per command, then one answer.  The launcher callback
 * only starts processes, so the event loop goes on serving everyone else
 * (the children connect later, like any rank). */
#include "internal.h"
#include "mutant.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { SPAWN_MAX_PROCS = 1 << 16, SPAWN_MAX_CMDS = 1024 };

typedef struct pms_spawn_cmd {
    char *exe;
    int maxprocs;
    int argc;      /* arguments after the executable */
    char **argv;   /* exe, arguments, NULL */
    int ninfo;
    char **ikeys, **ivals;
} pms_spawn_cmd;

struct pms_spawn_req {
    pmc_wire wire;
    char *thrid;        /* PMI-2: the request's thrid, for the answer */
    int ncmds;          /* commands announced (ncmds, totspawns) */
    int ngot;           /* commands received */
    pms_spawn_cmd *cmds;
    int npp;
    char **ppkeys, **ppvals;
};

static void free_strv(char **v, int n)
{
    for (int i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

static void req_free(struct pms_spawn_req *rq)
{
    if (!rq)
        return;
    for (int i = 0; i < rq->ngot; i++) {
        pms_spawn_cmd *sc = &rq->cmds[i];
        free(sc->exe);
        free_strv(sc->argv, sc->argc + 2);
        free_strv(sc->ikeys, sc->ninfo);
        free_strv(sc->ivals, sc->ninfo);
    }
    free(rq->cmds);
    free_strv(rq->ppkeys, rq->npp);
    free_strv(rq->ppvals, rq->npp);
    free(rq->thrid);
    free(rq);
}

void pms_putall_free(pms_port *c); /* kvsall.c */

/* The connection closes: drop what it had half sent. */
void pms_spawn_conn_gone(pms_port *c)
{
    pms_putall_free(c);
    req_free(c->pmi1_spawn);
    c->pmi1_spawn = NULL;
    c->pmi1_spawn_segments = 0;
}

static char *dup_slice(pmc_slice s)
{
    return pms_strndup(s.ptr ? s.ptr : "", s.len);
}

/* "<prefix><decimal>" -> the index, -1 when the key is something else. */
static long index_of(pmc_slice key, const char *prefix)
{
    size_t pl = strlen(prefix);
    if (key.len <= pl || key.len > pl + 9 || memcmp(key.ptr, prefix, pl) != 0)
        return -1;
    long v = 0;
    for (size_t i = pl; i < key.len; i++) {
        if (key.ptr[i] < '0' || key.ptr[i] > '9')
            return -1;
        v = v * 10 + (key.ptr[i] - '0');
    }
    return v;
}

static int count_of(pmc_slice v, int max)
{
    long long n;
    if (pmc_parse_int(v, &n) < 0 || n < 0 || n > max)
        return -1;
    return (int)n;
}

static char **strv_new(int n)
{
    return n > 0 ? calloc((size_t)n, sizeof(char *)) : NULL;
}

/* Add a command slot; returns NULL without memory. */
static pms_spawn_cmd *add_cmd(struct pms_spawn_req *rq)
{
    pms_spawn_cmd *nc = realloc(rq->cmds, (size_t)(rq->ngot + 1) * sizeof *nc);
    if (!nc)
        return NULL;
    rq->cmds = nc;
    pms_spawn_cmd *sc = &nc[rq->ngot++];
    memset(sc, 0, sizeof *sc);
    return sc;
}

/* Size a command's argument and info arrays once its counts are known. */
static int cmd_alloc(pms_spawn_cmd *sc, int argc, int ninfo)
{
    sc->argc = argc;
    sc->ninfo = ninfo;
    sc->argv = calloc((size_t)argc + 2, sizeof(char *));
    sc->ikeys = strv_new(ninfo);
    sc->ivals = strv_new(ninfo);
    return sc->argv && (!ninfo || (sc->ikeys && sc->ivals)) ? 0 : -1;
}

/* Every indexed slot must have been filled (SPAWN-5, V1CMD-18). */
static const char *cmd_complete(const pms_spawn_cmd *sc)
{
    if (!sc->exe || !sc->exe[0])
        return "a command has no executable";
    if (sc->maxprocs < 1)
        return "a command asks for fewer than 1 process";
    for (int i = 1; i <= sc->argc; i++)
        if (!sc->argv[i])
            return "an argument is missing";
    for (int i = 0; i < sc->ninfo; i++)
        if (!sc->ikeys[i] || !sc->ivals[i])
            return "an info key or value is missing";
    return NULL;
}

static int set_preput(struct pms_spawn_req *rq, int n)
{
    rq->npp = n;
    rq->ppkeys = strv_new(n);
    rq->ppvals = strv_new(n);
    return !n || (rq->ppkeys && rq->ppvals) ? 0 : -1;
}

static const char *preput_complete(const struct pms_spawn_req *rq)
{
    for (int i = 0; i < rq->npp; i++)
        if (!rq->ppkeys[i] || !rq->ppvals[i])
            return "a preput key or value is missing";
    return NULL;
}

/* ---- answers --------------------------------------------------------------- */

static void answer(pms_port *c, const struct pms_spawn_req *rq, pms_job *child, int rc,
                   const char *why, const char *errcodes)
{
    const pms_persona *p = c->srv->persona;
    pmc_slice thrid = rq->thrid ? pmc_slice_cstr(rq->thrid) : (pmc_slice){ NULL, 0 };
    if (rq->wire == PMC_WIRE_V2) {
        pmc_enc *e = pms_reply_begin(c, PMC_WIRE_V2, "spawn-response", thrid);
        pmc_enc_int(e, "rc", rc);
        if (rc == 0 && child && p->spawn_jobid)
            pmc_enc_str(e, "jobid", child->id); /* SPAWN-9 (not Hydra 4.1+, H9) */
        if (rc == 0 && p->spawn_nerrs)
            pmc_enc_int(e, "nerrs", 0);
        if (errcodes && errcodes[0])
            pmc_enc_str(e, "errcodes", errcodes); /* SPAWN-10 */
        if (rc)
            pmc_enc_str(e, "errmsg", why);
        pms_reply_send(c);
        if (PMS_MUTANT(p, "spawn-answered-twice")) { /* SPAWN-8 broken */
            e = pms_reply_begin(c, PMC_WIRE_V2, "spawn-response", thrid);
            pmc_enc_int(e, "rc", rc);
            if (rc == 0 && child)
                pmc_enc_str(e, "jobid", child->id);
            pms_reply_send(c);
        }
        return;
    }
    char w[128]; /* lives until pms_reply_send: the encoder points into it */
    pmc_enc *e = pms_reply_begin(c, PMC_WIRE_V1, "spawn_result", (pmc_slice){ NULL, 0 });
    pmc_enc_int(e, "rc", rc);
    if (rc == 0 && child && p->v1_spawn_jobid)
        pmc_enc_str(e, "jobid", child->id);
    if (errcodes && errcodes[0])
        pmc_enc_str(e, "errcodes", errcodes);
    if (rc && p->on_error == PMS_ERR_REPLY) {
        snprintf(w, sizeof w, "%s", why);
        for (char *t = w; *t; t++)
            if (*t == ' ')
                *t = '_';
        pmc_enc_str(e, "msg", w);
    }
    pms_reply_send(c);
}

/* A request that cannot be carried out: its normal answer with rc!=0
 * (ERR-11), whatever the persona does with malformed input. */
static void fail(pms_port *c, struct pms_spawn_req *rq, int rc, const char *why)
{
    pms_log(c->srv, 0, "conn %d: spawn refused: %s", c->id, why);
    answer(c, rq, NULL, rc, why, NULL);
}

/* persona spawn_checks_exe: is exe a program this server could start?
 * Only what can be known before the start: an info key that moves the
 * working directory or PATH makes the answer the launch's own. */
static bool file_runs(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static bool runnable(const pms_spawn_cmd *sc)
{
    for (int i = 0; i < sc->ninfo; i++)
        if (sc->ikeys[i] && (strcmp(sc->ikeys[i], "wdir") == 0 || strcmp(sc->ikeys[i], "path") == 0))
            return true;
    if (strchr(sc->exe, '/'))
        return file_runs(sc->exe);
    const char *path = getenv("PATH");
    char buf[4096];
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t n = strcspn(p, ":");
        if (snprintf(buf, sizeof buf, "%.*s/%s", (int)n, n ? p : ".", sc->exe) < (int)sizeof buf &&
            file_runs(buf))
            return true;
        p += n + (p[n] == ':');
    }
    return false;
}

/* Create the child job, pre-put, launch each command, answer once. */
static void run(pms_port *c, struct pms_spawn_req *rq)
{
    pms_server *s = c->srv;
    long total = 0;
    for (int i = 0; i < rq->ngot; i++)
        total += rq->cmds[i].maxprocs;
    if (total < 1 || total > SPAWN_MAX_PROCS) {
        fail(c, rq, PMS_RC_KEY, "the process count is out of range");
        return;
    }
    if (!s->ev.spawn) {
        fail(c, rq, PMS_RC_FAIL, "this server cannot start processes");
        return;
    }
    /* ERR-11: a program that cannot run fails the request, not the children later */
    for (int i = 0; i < rq->ngot && s->persona->spawn_checks_exe &&
                    !PMS_MUTANT(s->persona, "spawn-exec-unchecked"); i++)
        if (!runnable(&rq->cmds[i])) {
            fail(c, rq, PMS_RC_FAIL, "the executable cannot be run");
            return;
        }
    pms_job *child = pms_job_create(s, (int)total, c->job);
    if (!child) {
        fail(c, rq, PMS_RC_FAIL, "cannot create the child job");
        return;
    }
    /* SPAWN-13: visible before the children's first fence */
    for (int i = 0; i < rq->npp && !PMS_MUTANT(s->persona, "spawn-preput-dropped"); i++)
        pms_kvs_put(&child->kvs, rq->ppkeys[i], strlen(rq->ppkeys[i]), rq->ppvals[i],
                    strlen(rq->ppvals[i]), true);
    size_t eclen = (size_t)total * 4 + 16;
    char *errcodes = calloc(1, eclen);
    size_t ew = 0;
    bool any_failed = false;
    int first = 0;
    for (int i = 0; i < rq->ngot; i++) {
        pms_spawn_cmd *sc = &rq->cmds[i];
        int r = s->ev.spawn(s->ev.ctx, child, i, sc->exe, sc->argv, sc->maxprocs, sc->ikeys,
                            sc->ivals, sc->ninfo);
        if (r < 0) {
            any_failed = true;
            pms_log(s, 0, "spawn of %s for %s failed", sc->exe, child->id);
            /* nobody will connect for these ranks: collectives must not wait */
            for (int k = 0; k < sc->maxprocs; k++)
                pms_rank_exited(child, first + k);
        }
        for (int k = 0; errcodes && k < sc->maxprocs && ew < eclen; k++)
            ew += (size_t)snprintf(errcodes + ew, eclen - ew, ew ? ",%d" : "%d",
                                   r < 0 ? PMS_RC_FAIL : 0);
        first += sc->maxprocs;
    }
    pms_log(s, 1, "spawned %s: %ld process%s", child->id, total, total == 1 ? "" : "es");
    answer(c, rq, child, any_failed ? PMS_RC_FAIL : 0, "spawn failed",
           any_failed ? errcodes : NULL);
    free(errcodes);
}

/* ---- PMI-2 ------------------------------------------------------------------ */

static struct pms_spawn_req *req_new(pmc_wire wire, pmc_slice thrid)
{
    struct pms_spawn_req *rq = calloc(1, sizeof *rq);
    if (rq) {
        rq->wire = wire;
        if (thrid.ptr)
            rq->thrid = dup_slice(thrid);
    }
    return rq;
}

/* The keys of one command segment (SPAWN-4: by name, not position). */
static const char *segment_pair(pms_spawn_cmd *sc, const pmc_pair *p, const pmc_msg *m,
                                size_t seg_start, size_t seg_end)
{
    long i;
    if (pmc_slice_eq(p->key, "maxprocs")) {
        sc->maxprocs = count_of(p->val, SPAWN_MAX_PROCS);
        return sc->maxprocs < 0 ? "maxprocs is not a count" : NULL;
    }
    if ((i = index_of(p->key, "argv")) >= 0) {
        if (i >= sc->argc)
            return "argv index beyond argc";
        if (!sc->argv[i + 1])
            sc->argv[i + 1] = dup_slice(p->val);
        return NULL;
    }
    if ((i = index_of(p->key, "infokey")) >= 0 || (i = index_of(p->key, "infoval")) >= 0) {
        if (i >= sc->ninfo)
            return "info index beyond infokeycount";
        char **slot = p->key.ptr[4] == 'k' ? &sc->ikeys[i] : &sc->ivals[i];
        if (!*slot)
            *slot = dup_slice(p->val);
        return NULL;
    }
    (void)m, (void)seg_start, (void)seg_end;
    return NULL; /* argc/infokeycount read before; thrid and unknown keys ignored */
}

/* Read a segment's counts first, wherever they are in the segment. */
static const char *segment_counts(pms_spawn_cmd *sc, const pmc_msg *m, size_t from, size_t to)
{
    int argc = 0, ninfo = 0;
    bool have_argc = false, have_ninfo = false;
    for (size_t k = from; k < to; k++) {
        const pmc_pair *p = &m->pairs[k];
        if (!have_argc && pmc_slice_eq(p->key, "argc")) {
            argc = count_of(p->val, 4096);
            have_argc = true;
        } else if (!have_ninfo && pmc_slice_eq(p->key, "infokeycount")) {
            ninfo = count_of(p->val, 1024);
            have_ninfo = true;
        }
    }
    if (argc < 0 || ninfo < 0)
        return "argc or infokeycount is not a count";
    return cmd_alloc(sc, argc, ninfo) < 0 ? "out of memory" : NULL;
}

/* The draft's form: the header names ncmds, the commands follow as
 * spawn-cmd messages (strict persona only). */
static void header_only(pms_port *c, struct pms_spawn_req *rq)
{
    if (c->pmi1_spawn) {
        fail(c, rq, PMS_RC_FAIL, "another spawn is still being received");
        req_free(rq);
        return;
    }
    c->pmi1_spawn = rq;
}

void pms_spawn_v2(pms_port *c, const pmc_msg *m)
{
    const pms_persona *p = c->srv->persona;
    struct pms_spawn_req *rq = req_new(PMC_WIRE_V2, m->thrid);
    if (!rq) {
        pms_reply_error(c, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL, "out of memory");
        return;
    }
    if (m->thrid.ptr && p->spawn_rejects_thrid) {
        /* Slurm's parser stops at a key it does not expect (S10) */
        fail(c, rq, PMS_RC_UNKNOWN, "invalid command");
        req_free(rq);
        return;
    }
    const char *why = NULL;
    size_t k = 0;
    int npp = 0;
    /* global keys: up to the first subcmd */
    size_t first_seg = m->npairs;
    for (size_t i = 0; i < m->npairs; i++)
        if (pmc_slice_eq(m->pairs[i].key, "subcmd")) {
            first_seg = i;
            break;
        }
    for (k = 0; k < first_seg && !why; k++) {
        const pmc_pair *pp = &m->pairs[k];
        if (pmc_slice_eq(pp->key, "ncmds"))
            rq->ncmds = count_of(pp->val, SPAWN_MAX_CMDS);
        else if (pmc_slice_eq(pp->key, "preputcount") && !rq->ppkeys)
            npp = count_of(pp->val, 4096);
    }
    if (rq->ncmds < 1)
        why = "ncmds must be at least 1";
    else if ((PMS_MUTANT(p, "spawn-needs-preputcount") || p->spawn_needs_preputcount) &&
             !pmc_msg_find(m, "preputcount")) /* SPEC SPAWN-3: Hydra 4.0.x fails it */
        why = "preputcount is required";
    else if (npp < 0)
        why = "preputcount is not a count";
    else if (set_preput(rq, npp) < 0)
        why = "out of memory";
    for (k = 0; k < first_seg && !why; k++) {
        const pmc_pair *pp = &m->pairs[k];
        long i;
        char **slot = NULL;
        if ((i = index_of(pp->key, "ppkey")) >= 0)
            slot = i < npp ? &rq->ppkeys[i] : NULL;
        else if ((i = index_of(pp->key, "ppval")) >= 0)
            slot = i < npp ? &rq->ppvals[i] : NULL;
        else
            continue;
        if (!slot)
            why = "preput index beyond preputcount";
        else if (!*slot)
            *slot = dup_slice(pp->val);
    }
    if (!why)
        why = preput_complete(rq);
    if (!why && first_seg == m->npairs) {
        if (p->draft_cmds) {
            header_only(c, rq);
            return;
        }
        why = "no subcmd segment";
    }
    /* segments */
    for (size_t s0 = first_seg; s0 < m->npairs && !why;) {
        size_t s1 = s0 + 1;
        while (s1 < m->npairs && !pmc_slice_eq(m->pairs[s1].key, "subcmd"))
            s1++;
        pms_spawn_cmd *sc = add_cmd(rq);
        if (!sc) {
            why = "out of memory";
            break;
        }
        sc->exe = dup_slice(m->pairs[s0].val);
        if ((PMS_MUTANT(p, "spawn-positional") || p->spawn_positional) && /* SPAWN-2 */
            (s0 + 2 >= s1 || !pmc_slice_eq(m->pairs[s0 + 1].key, "maxprocs") ||
             !pmc_slice_eq(m->pairs[s0 + 2].key, "argc")))
            why = "maxprocs and argc must follow subcmd"; /* SPAWN-4 broken */
        if (!why)
            why = segment_counts(sc, m, s0 + 1, s1);
        for (size_t q = s0 + 1; q < s1 && !why; q++)
            why = segment_pair(sc, &m->pairs[q], m, s0, s1);
        if (!why) {
            sc->argv[0] = pms_strndup(sc->exe, strlen(sc->exe));
            why = cmd_complete(sc);
        }
        s0 = s1;
    }
    if (!why && rq->ngot != rq->ncmds)
        why = "the number of subcmd segments differs from ncmds"; /* SPAWN-5 */
    for (int i = 0; !why && PMS_MUTANT(p, "spawn-info-key-refused") && i < rq->ngot; i++)
        for (int k = 0; k < rq->cmds[i].ninfo && !why; k++)
            if (strcmp(rq->cmds[i].ikeys[k], "wdir") && strcmp(rq->cmds[i].ikeys[k], "path"))
                why = "unknown info key"; /* SPAWN-14 broken */
    if (why && c->srv->persona->on_error == PMS_ERR_KILL_JOB)
        pms_protocol_fatal(c, why); /* Hydra: fn_spawn's error ends mpiexec (observed: no
                                     * preputcount, a segment count that disagrees) */
    else if (why)
        fail(c, rq, PMS_RC_KEY, why);
    else
        run(c, rq);
    req_free(rq);
}

void pms_spawn_v2_cmd(pms_port *c, const pmc_msg *m)
{
    struct pms_spawn_req *rq = c->pmi1_spawn;
    if (!rq || rq->wire != PMC_WIRE_V2) {
        pms_reply_error(c, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL,
                        "spawn-cmd without a spawn header");
        return;
    }
    const char *why = NULL;
    pms_spawn_cmd *sc = add_cmd(rq);
    if (!sc)
        why = "out of memory";
    if (!why)
        why = segment_counts(sc, m, 0, m->npairs);
    for (size_t q = 0; q < m->npairs && !why; q++)
        why = segment_pair(sc, &m->pairs[q], m, 0, m->npairs);
    if (!why) {
        /* the draft's spawn-cmd names the executable as argv0 */
        if (sc->argc < 1) {
            why = "spawn-cmd needs the executable in argv0";
        } else {
            sc->exe = pms_strndup(sc->argv[1], strlen(sc->argv[1]));
            free(sc->argv[1]);
            memmove(&sc->argv[1], &sc->argv[2], (size_t)sc->argc * sizeof(char *));
            sc->argc--;
            sc->argv[0] = pms_strndup(sc->exe, strlen(sc->exe));
            why = cmd_complete(sc);
        }
    }
    if (why) {
        c->pmi1_spawn = NULL;
        fail(c, rq, PMS_RC_KEY, why);
        req_free(rq);
        return;
    }
    if (rq->ngot < rq->ncmds)
        return; /* more spawn-cmd messages to come; the header's answer waits */
    c->pmi1_spawn = NULL;
    run(c, rq);
    req_free(rq);
}

/* ---- PMI-1 ------------------------------------------------------------------ */

void pms_spawn_v1(pms_port *c, const pmc_msg *m)
{
    long long tot = 0, sofar = 0, nprocs = 0, argcnt = 0, npp = 0, ninfo = 0;
    pmc_msg_get_int(m, "totspawns", &tot);
    pmc_msg_get_int(m, "spawnssofar", &sofar);
    pmc_msg_get_int(m, "nprocs", &nprocs);
    pmc_msg_get_int(m, "argcnt", &argcnt);
    pmc_msg_get_int(m, "preput_num", &npp);
    pmc_msg_get_int(m, "info_num", &ninfo);
    struct pms_spawn_req *rq = c->pmi1_spawn;
    const char *why = NULL;
    if (!rq) {
        rq = req_new(PMC_WIRE_V1, (pmc_slice){ NULL, 0 });
        if (!rq) {
            pms_reply_error(c, PMC_WIRE_V1, m->name, (pmc_slice){ NULL, 0 }, PMS_RC_FAIL,
                            "out of memory");
            return;
        }
        rq->ncmds = (int)(tot > 0 && tot <= SPAWN_MAX_CMDS ? tot : 0);
        c->pmi1_spawn = rq;
        if (!rq->ncmds)
            why = "totspawns must be between 1 and 1024";
    } else if (rq->wire != PMC_WIRE_V1) {
        why = "a PMI-2 spawn is still being received";
    } else if (tot != rq->ncmds) {
        why = "totspawns changed between blocks";
    }
    /* V1CMD-19: blocks numbered 1..totspawns */
    if (!why && sofar != rq->ngot + 1)
        why = "spawnssofar out of sequence";
    if (!why && (nprocs < 1 || nprocs > SPAWN_MAX_PROCS || argcnt < 0 || argcnt > 4096 ||
                 npp < 0 || npp > 4096 || ninfo < 0 || ninfo > 1024))
        why = "a count is out of range";
    pms_spawn_cmd *sc = why ? NULL : add_cmd(rq);
    if (!why && (!sc || cmd_alloc(sc, (int)argcnt, (int)ninfo) < 0))
        why = "out of memory";
    /* MPICH sends the preput block with the first block only */
    if (!why && npp > 0 && !rq->ppkeys && set_preput(rq, (int)npp) < 0)
        why = "out of memory";
    for (size_t q = 0; q < m->npairs && !why; q++) {
        const pmc_pair *p = &m->pairs[q];
        long i;
        char **slot = NULL;
        if (pmc_slice_eq(p->key, "execname")) {
            if (!sc->exe)
                sc->exe = dup_slice(p->val);
            continue;
        }
        if ((i = index_of(p->key, "arg")) >= 0) /* 1-based */
            slot = i >= 1 && i <= sc->argc ? &sc->argv[i] : NULL;
        else if ((i = index_of(p->key, "preput_key_")) >= 0)
            slot = i < rq->npp && rq->ppkeys ? &rq->ppkeys[i] : NULL;
        else if ((i = index_of(p->key, "preput_val_")) >= 0)
            slot = i < rq->npp && rq->ppvals ? &rq->ppvals[i] : NULL;
        else if ((i = index_of(p->key, "info_key_")) >= 0)
            slot = i < sc->ninfo ? &sc->ikeys[i] : NULL;
        else if ((i = index_of(p->key, "info_val_")) >= 0)
            slot = i < sc->ninfo ? &sc->ivals[i] : NULL;
        else
            continue;
        if (!slot)
            why = "an indexed key is beyond its count";
        else if (!*slot)
            *slot = dup_slice(p->val);
    }
    if (!why) {
        sc->maxprocs = (int)nprocs;
        sc->argv[0] = sc->exe ? pms_strndup(sc->exe, strlen(sc->exe)) : NULL;
        why = cmd_complete(sc);
    }
    if (!why && rq->ngot == rq->ncmds)
        why = preput_complete(rq);
    if (why) {
        /* one answer for the whole request (V1CMD-20): the rest is dropped */
        c->pmi1_spawn = NULL;
        fail(c, rq, PMS_RC_KEY, why);
        req_free(rq);
        return;
    }
    c->pmi1_spawn_segments = rq->ngot;
    if (rq->ngot < rq->ncmds)
        return;
    c->pmi1_spawn = NULL;
    c->pmi1_spawn_segments = 0;
    run(c, rq);
    req_free(rq);
}
