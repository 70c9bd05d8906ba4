/* pmi2/spawn, pmi2/ring, pmi2/jobconn/connect-spawned: PMI-2 spawn of
 * /bin/true (one response after the launch, counts checked, keys by name,
 * preput pairs for the children), job-connect to the spawned job, and
 * Slurm's ring collective.  A server that refuses every spawn is graded
 * UNSUPPORTED: each case that needs a refusal to mean something first
 * spawns the plain way. */
#include "pmi2_util.h"

typedef struct spawn_opts {
    int ncmds;              /* 0: 1 */
    const char *thrid;      /* a thrid after ncmds (THRID-3: accepted anywhere) */
    bool no_preputcount;    /* leave preputcount out (SPAWN-6) */
    const char *ppkey, *ppval;
    const char *info_key;   /* one info key of this name */
    bool reorder;           /* segment keys in another order than SPAWN-2's */
} spawn_opts;

static int spawn_call(pcf_ctx *c, const spawn_opts *o, p2r *r, char *jobid, size_t n)
{
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "spawn");
    pmc_enc_int(&e, "ncmds", o->ncmds ? o->ncmds : 1);
    if (o->thrid)
        pmc_enc_str(&e, "thrid", o->thrid);
    if (!o->no_preputcount)
        pmc_enc_int(&e, "preputcount", o->ppkey ? 1 : 0);
    if (o->ppkey) {
        pmc_enc_str(&e, "ppkey0", o->ppkey);
        pmc_enc_str(&e, "ppval0", o->ppval);
    }
    pmc_enc_str(&e, "subcmd", "/bin/true");
    if (o->reorder) {
        pmc_enc_int(&e, "infokeycount", 0);
        pmc_enc_int(&e, "argc", 0);
        pmc_enc_int(&e, "maxprocs", 1);
    } else {
        pmc_enc_int(&e, "maxprocs", 1);
        pmc_enc_int(&e, "argc", 0);
        pmc_enc_int(&e, "infokeycount", o->info_key ? 1 : 0);
        if (o->info_key) {
            pmc_enc_str(&e, "infokey0", o->info_key);
            pmc_enc_str(&e, "infoval0", "1");
        }
    }
    pmc_msg m;
    if (pcf_call(c, &e, "spawn-response", &m))
        return -1;
    p2_take(&m, r);
    if (jobid && n)
        pcf_get(&m, "jobid", jobid, n);
    return 0;
}

/* A plain spawn; 0 when it succeeded (jobid copied when asked), 1 when the
 * server refuses spawns ("refused" observed), -1 after another outcome. */
static int spawn_plain(pcf_ctx *c, const spawn_opts *o, char *jobid, size_t n)
{
    p2r r;
    if (spawn_call(c, o, &r, jobid, n))
        return -1;
    if (!p2_ok(&r)) {
        pcf_observe(c, "refused", "spawn of /bin/true: %s", r.show);
        return 1;
    }
    if (jobid && !jobid[0]) {
        pcf_observe(c, "no-jobid", "spawn-response without jobid: %s", r.show);
        return -1;
    }
    return 0;
}

/* SPAWN-8: one spawn-response, after which the next request's answer comes. */
static void run_once(pcf_ctx *c)
{
    spawn_opts o = { 0 };
    char jobid[128];
    if (spawn_plain(c, &o, jobid, sizeof jobid))
        return;
    pmc_enc e;
    p2r r;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    if (p2_call(c, &e, "job-getid-response", &r)) /* a second spawn-response would be here */
        return;
    if (strcmp(jobid, pcf_jobid(c)) == 0)
        pcf_observe(c, "same-jobid", "the child's jobid is the caller's: %s", jobid);
    else
        pcf_observe(c, "ok", "one spawn-response (jobid %s), then the next answer", jobid);
}

/* A refusal must mean the request, not the server: spawn the plain way first. */
static bool spawns(pcf_ctx *c)
{
    spawn_opts o = { 0 };
    return spawn_plain(c, &o, NULL, 0) == 0;
}

/* SPAWN-5: ncmds=2 with one segment is refused. */
static void run_ncmds(pcf_ctx *c)
{
    if (!spawns(c))
        return;
    spawn_opts o = { .ncmds = 2 };
    p2r r;
    if (spawn_call(c, &o, &r, NULL, 0))
        return;
    pcf_observe(c, p2_fail(&r) ? "ok" : "carried-out", "ncmds=2 with one segment: %s", r.show);
}

/* SPAWN-6: no preputcount reads as 0. */
static void run_no_preputcount(pcf_ctx *c)
{
    if (!spawns(c))
        return;
    spawn_opts o = { .no_preputcount = true };
    p2r r;
    if (spawn_call(c, &o, &r, NULL, 0))
        return;
    pcf_observe(c, p2_ok(&r) ? "ok" : "refused-missing", "spawn without preputcount: %s", r.show);
}

/* SPAWN-14: an info key the server does not know is ignored. */
static void run_unknown_info(pcf_ctx *c)
{
    if (!spawns(c))
        return;
    char key[64];
    snprintf(key, sizeof key, "pcfNoSuchInfo%s", pcf_tag(c));
    spawn_opts o = { .info_key = key };
    p2r r;
    if (spawn_call(c, &o, &r, NULL, 0))
        return;
    pcf_observe(c, p2_ok(&r) ? "ok" : "refused-info", "info key %s: %s", key, r.show);
}

/* SPAWN-4: the segment's keys are read by name, in any order. */
static void run_reordered(pcf_ctx *c)
{
    if (!spawns(c))
        return;
    spawn_opts o = { .reorder = true };
    p2r r;
    if (spawn_call(c, &o, &r, NULL, 0))
        return;
    pcf_observe(c, p2_ok(&r) ? "ok" : "by-position",
                "subcmd;infokeycount;argc;maxprocs: %s", r.show);
}

/* THRID-3: a spawn carrying thrid (S10: Slurm's parser refuses it). */
static void run_thrid(pcf_ctx *c)
{
    if (!spawns(c))
        return;
    char t[48];
    snprintf(t, sizeof t, "%s-sp", pcf_tag(c));
    spawn_opts o = { .thrid = t };
    p2r r;
    if (spawn_call(c, &o, &r, NULL, 0))
        return;
    if (!p2_ok(&r))
        pcf_observe(c, "refused-thrid", "a spawn with thrid: %s", r.show);
    else if (r.has_thrid && strcmp(r.thrid, t) != 0)
        pcf_observe(c, "altered", "thrid %s came back as %s", t, r.thrid);
    else
        pcf_observe(c, "ok", "%s", r.show);
}

/* SPAWN-13: the preput pair is in the child job's key-value space.  The
 * parent reads it with kvs-get jobid=<child> (KVS-8: a job the caller
 * spawned is readable); a key of the parent's own, put and fenced before,
 * tells a server that ignores jobid (Hydra, Slurm), where nothing can be
 * seen from here. */
static void run_preput(pcf_ctx *c)
{
    char own[64], pp[64], ppv[64], jobid[128];
    snprintf(own, sizeof own, "%s-own-r%d", pcf_tag(c), pcf_rank(c));
    snprintf(pp, sizeof pp, "%s-pp-r%d", pcf_tag(c), pcf_rank(c));
    snprintf(ppv, sizeof ppv, "preput-%d", pcf_rank(c));
    spawn_opts o = { .ppkey = pp, .ppval = ppv };
    /* destructive and collective: a fence first, so that rank 0 has recorded
     * the case as started should the server end the job in it */
    if (pcf_kvs_fence(c) || pcf_kvs_put(c, own, "parent"))
        return;
    int s = spawn_plain(c, &o, jobid, sizeof jobid);
    if (pcf_kvs_fence(c) || s) /* every rank fences once, whatever its spawn did */
        return;
    pmc_enc e;
    p2r r;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(&e, "jobid", jobid);
    pmc_enc_str(&e, "key", own);
    if (p2_call(c, &e, "kvs-get-response", &r))
        return;
    if (p2_hit(&r)) {
        pcf_observe(c, "jobid-ignored", "kvs-get jobid=%s reads the caller's own job: %s", jobid,
                    r.show);
        return;
    }
    if (p2_fail(&r)) {
        pcf_observe(c, "child-unreadable", "kvs-get jobid=%s refused: %s", jobid, r.show);
        return;
    }
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(&e, "jobid", jobid);
    pmc_enc_str(&e, "key", pp);
    if (p2_call(c, &e, "kvs-get-response", &r))
        return;
    if (p2_value_is(&r, ppv, strlen(ppv)))
        pcf_observe(c, "ok", "the child job holds the preput pair: %s", r.show);
    else
        pcf_observe(c, "preput-missing", "the child job %s lacks %s=%s: %s", jobid, pp, ppv, r.show);
}

/* JOB-3: job-connect to the spawned job answers kvscopy; disconnect works. */
static void run_connect_spawned(pcf_ctx *c)
{
    char jobid[128];
    spawn_opts o = { 0 };
    if (spawn_plain(c, &o, jobid, sizeof jobid))
        return;
    pmc_enc e;
    p2r r;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-connect");
    pmc_enc_str(&e, "jobid", jobid);
    if (p2_call(c, &e, "job-connect-response", &r))
        return;
    if (p2_fail(&r)) {
        pcf_observe(c, strstr(r.errmsg, "unknown") ? "unsupported" : "refused-connect", "%s",
                    r.show);
        return;
    }
    bool kv = strstr(r.show, "kvscopy=TRUE") || strstr(r.show, "kvscopy=FALSE");
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-disconnect");
    pmc_enc_str(&e, "jobid", jobid);
    p2r d;
    if (p2_call(c, &e, "job-disconnect-response", &d))
        return;
    if (!kv)
        pcf_observe(c, "no-kvscopy", "job-connect-response without kvscopy: %s", r.show);
    else if (!p2_ok(&d))
        pcf_observe(c, "disconnect-refused", "job-disconnect of a connected job: %s", d.show);
    else
        pcf_observe(c, "ok", "connect (%s), then disconnect", r.show);
}

/* RING-1: every rank sends ring-count=1, ring-left=L<r>, ring-right=R<r>.
 * The ring's order is the server's (Slurm: its stepd tree, node by node, so
 * under cyclic placement 0,2,1,3): each answer's ring-count is the process's
 * position, and its neighbours are the processes one position before and
 * after it.  Rank order is the special case one node (or block placement)
 * gives.  To see the whole ring every rank shares its answer through the
 * KVS after the collective; when that exchange fails, rank order is what
 * is checked. */
static bool ring_index(const char *v, char tag, int n, int *r)
{
    char *end;
    if (v[0] != tag || !v[1])
        return false;
    long x = strtol(v + 1, &end, 10);
    if (*end || x < 0 || x >= n)
        return false;
    *r = (int)x;
    return true;
}

static void run_ring(pcf_ctx *c)
{
    int r0 = pcf_rank(c), n = pcf_size(c);
    char l[32], rt[32], want_l[32], want_r[32];
    snprintf(l, sizeof l, "L%d", r0);
    snprintf(rt, sizeof rt, "R%d", r0);
    snprintf(want_l, sizeof want_l, "R%d", (r0 + n - 1) % n);
    snprintf(want_r, sizeof want_r, "L%d", (r0 + 1) % n);
    pmc_enc e;
    pmc_msg m;
    pmc_enc_begin(&e, PMC_WIRE_V2, "ring");
    pmc_enc_int(&e, "ring-count", 1);
    pmc_enc_str(&e, "ring-left", l);
    pmc_enc_str(&e, "ring-right", rt);
    if (pcf_call(c, &e, "ring-response", &m))
        return;
    char b[300], gl[64], gr[64];
    long long rc = -1, count = -1;
    pcf_show(&m, b, sizeof b);
    if (pcf_rc(&m, &rc) != 1 || rc != 0) {
        /* An error answer to the first ring request is how a server shows it
         * lacks the optional feature (SPEC.md 1.3, RING-2): the errmsg text is
         * free (ERR-8), so "ring not supported" is as much a refusal as
         * "unknown command". */
        char em[160];
        pcf_get(&m, "errmsg", em, sizeof em);
        pcf_observe(c, strstr(em, "unknown") ? "unsupported" : "refused", "%s", b);
        return;
    }
    pmc_msg_get_int(&m, "ring-count", &count);
    pcf_get(&m, "ring-left", gl, sizeof gl);
    pcf_get(&m, "ring-right", gr, sizeof gr);
    bool rank_order = count == r0 && !strcmp(gl, want_l) && !strcmp(gr, want_r);
    /* every rank takes part in the exchange (a fence), whatever it got */
    if (n > 64) {
        if (rank_order)
            pcf_observe(c, "ok", "%s", b);
        else
            pcf_observe(c, "wrong-ring", "rank %d expected ring-count=%d;ring-left=%s;"
                        "ring-right=%s, got %s", r0, r0, want_l, want_r, b);
        return;
    }
    /* every rank's answer, through the KVS */
    char key[32], mine[200];
    snprintf(key, sizeof key, "pcf-ring-%d", r0);
    snprintf(mine, sizeof mine, "%lld %.60s %.60s", count < -1 || count > 1000000 ? -1 : count,
             gl[0] ? gl : "-", gr[0] ? gr : "-");
    int pos[64], left[64], right[64];
    bool shared = pcf_kvs_put(c, key, mine) == 0 && pcf_kvs_fence(c) == 0;
    for (int r = 0; shared && r < n; r++) {
        char v[200], a[64], z[64];
        bool found = false;
        long long p;
        snprintf(key, sizeof key, "pcf-ring-%d", r);
        if (pcf_kvs_get(c, key, &found, v, sizeof v, NULL) != 0 || !found ||
            sscanf(v, "%lld %63s %63s", &p, a, z) != 3)
            shared = false;
        else {
            pos[r] = (int)p;
            if (!ring_index(a, 'R', n, &left[r]))
                left[r] = -1;
            if (!ring_index(z, 'L', n, &right[r]))
                right[r] = -1;
        }
    }
    if (!shared) {
        if (rank_order)
            pcf_observe(c, "ok", "%s", b);
        else
            pcf_observe(c, "wrong-ring", "rank %d expected ring-count=%d;ring-left=%s;"
                        "ring-right=%s, got %s (the ranks' answers could not be shared through "
                        "the KVS, so no other ring order was considered)", r0, r0, want_l,
                        want_r, b);
        return;
    }
    /* the ring in the server's order: at[p] is the rank at position p */
    int at[64];
    for (int p = 0; p < n; p++)
        at[p] = -1;
    char order[400] = "";
    size_t ol = 0;
    bool perm = true;
    for (int r = 0; r < n; r++) {
        if (pos[r] < 0 || pos[r] >= n || at[pos[r]] >= 0)
            perm = false;
        else
            at[pos[r]] = r;
    }
    for (int p = 0; perm && p < n; p++)
        ol += (size_t)snprintf(order + ol, ol < sizeof order ? sizeof order - ol : 0, "%s%d",
                               p ? "," : "", at[p]);
    if (!perm) {
        pcf_observe(c, "wrong-ring", "the ring-counts of the %d ranks (each sent 1) are not "
                    "their positions 0 to %d in any order; rank %d got %s", n, n - 1, r0, b);
        return;
    }
    int me = pos[r0], prev = at[(me + n - 1) % n], next = at[(me + 1) % n];
    if (left[r0] != prev || right[r0] != next) {
        pcf_observe(c, "wrong-ring", "rank %d is at position %d of the server's ring (order %s): "
                    "expected ring-left=R%d;ring-right=L%d (the values its neighbours in that "
                    "order sent), got %s", r0, me, order, prev, next, b);
        return;
    }
    if (rank_order)
        pcf_observe(c, "ok", "%s", b);
    else
        pcf_observe(c, "ok", "%s (the server's ring order %s: positions and neighbours agree)", b,
                    order);
}

#define SPAWN_OUTCOMES                                                                           \
    { "refused", PCF_UNSUPPORTED, NULL, "the server refuses to spawn /bin/true" },              \
    { "no-jobid", PCF_DEVIATES, "SPAWN-9", "spawn-response without jobid" },                     \
    { "job-killed", PCF_FAIL, "ERR-1", "the server ended the job" },                             \
    { "sender-killed", PCF_FAIL, "ERR-1", "the server ended the process" },                     \
    { "closed", PCF_DEVIATES, "ERR-4", "closed the connection" }

#define FEATURE_OUTCOMES                                                                         \
    { "unsupported", PCF_UNSUPPORTED, NULL, "answered as an unknown command" },                 \
    { "closed", PCF_DEVIATES, "ERR-7", "closed the connection instead of an unknown-command answer" }, \
    { "no-answer", PCF_FAIL, "ERR-3", "never answered" },                                        \
    { "job-killed", PCF_FAIL, "ERR-1", "the server ended the job" },                            \
    { "sender-killed", PCF_FAIL, "ERR-1", "the server ended the process" },                     \
    { "others-affected", PCF_FAIL, "ERR-2", "other connections stopped being served" }

/* Every spawn case is destructive: a real server may end the job over a
 * spawn it cannot parse (Hydra 4.0.2 asserts on a segment count, fn_spawn),
 * and run as the job that would take every other case's report with it. */
static const pcf_case cases[] = {
    { .id = "pmi2/spawn/once",
      .desc = "a spawn of /bin/true gets one spawn-response with the child's jobid",
      .clause = "SPAWN-8", .expected = "one cmd=spawn-response;rc=0;jobid=...; then the next answer",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_once,
      .outcomes = { SPAWN_OUTCOMES,
                    { "wrong-response", PCF_DEVIATES, NULL, "a second spawn-response" },
                    { "same-jobid", PCF_DEVIATES, "JOB-1", "the child has the parent's jobid" } } },
    { .id = "pmi2/spawn/ncmds-mismatch",
      .desc = "a spawn announcing ncmds=2 with one segment is refused",
      .clause = "SPAWN-5", .expected = "cmd=spawn-response;rc!=0;...",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_ncmds,
      .outcomes = { SPAWN_OUTCOMES,
                    { "carried-out", PCF_DEVIATES, NULL, "rc=0 although the counts disagree" } } },
    { .id = "pmi2/spawn/no-preputcount",
      .desc = "a spawn without preputcount is carried out (an absent count is 0)",
      .clause = "SPAWN-6", .expected = "cmd=spawn-response;rc=0;...",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_no_preputcount,
      .outcomes = { SPAWN_OUTCOMES,
                    { "refused-missing", PCF_DEVIATES, NULL, "refused for the missing count" } } },
    { .id = "pmi2/spawn/unknown-info-key",
      .desc = "a spawn with an info key the server does not know is carried out",
      .clause = "SPAWN-14", .expected = "cmd=spawn-response;rc=0;...",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_unknown_info,
      .outcomes = { SPAWN_OUTCOMES,
                    { "refused-info", PCF_DEVIATES, NULL, "refused for the unknown info key" } } },
    { .id = "pmi2/spawn/keys-reordered",
      .desc = "a segment written subcmd, infokeycount, argc, maxprocs is read by name",
      .clause = "SPAWN-4", .expected = "cmd=spawn-response;rc=0;...",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_reordered,
      .outcomes = { SPAWN_OUTCOMES,
                    { "by-position", PCF_DEVIATES, NULL, "refused: the keys are read by position" } } },
    { .id = "pmi2/spawn/thrid",
      .desc = "a spawn with thrid (after ncmds) is carried out like any request",
      .clause = "THRID-3", .expected = "cmd=spawn-response;thrid=<t>;rc=0;...",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_thrid,
      .outcomes = { SPAWN_OUTCOMES,
                    { "refused-thrid", PCF_DEVIATES, NULL, "refused because of thrid (S10)" },
                    { "altered", PCF_DEVIATES, "THRID-4", "the echoed thrid differs" } } },
    { .id = "pmi2/spawn/preput-visible",
      .desc = "the preput pair of a spawn is in the child job's key-value space",
      .clause = "SPAWN-13", .expected = "kvs-get jobid=<child> of the preput key: found=TRUE, its value",
      .flags = PCF_V2 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_preput,
      .outcomes = { { "refused", PCF_UNSUPPORTED, NULL, "the server refuses to spawn /bin/true" },
                    { "no-jobid", PCF_INFO, "SPAWN-9", "no jobid names the child job (graded by pmi2/spawn/once)" },
                    { "job-killed", PCF_FAIL, "ERR-1", "the server ended the job" },
                    { "sender-killed", PCF_FAIL, "ERR-1", "the server ended the process" },
                    { "closed", PCF_DEVIATES, "ERR-4", "closed the connection" },
                    { "jobid-ignored", PCF_INFO, "KVS-9", "kvs-get ignores jobid: the child's space cannot be read from here" },
                    { "child-unreadable", PCF_INFO, "KVS-8", "the spawned job's space is not readable by its parent" },
                    { "preput-missing", PCF_DEVIATES, NULL, "the child job lacks the preput pair" } } },
    { .id = "pmi2/jobconn/connect-spawned",
      .desc = "job-connect to a spawned job answers kvscopy, job-disconnect then succeeds",
      .clause = "JOB-3", .expected = "cmd=job-connect-response;rc=0;kvscopy=TRUE|FALSE; then rc=0",
      .flags = PCF_V2 | PCF_DESTRUCTIVE, .run = run_connect_spawned,
      .outcomes = { { "unsupported", PCF_UNSUPPORTED, NULL, "answered as an unknown command" },
                    { "closed", PCF_DEVIATES, "ERR-7", "closed the connection instead of an unknown-command answer" },
                    { "job-killed", PCF_FAIL, "ERR-1", "the server ended the job" },
                    { "sender-killed", PCF_FAIL, "ERR-1", "the server ended the process" },
                    { "refused", PCF_UNSUPPORTED, NULL, "the server refuses to spawn /bin/true" },
                    { "no-jobid", PCF_UNSUPPORTED, "SPAWN-9", "no jobid to connect to (graded by pmi2/spawn/once)" },
                    { "refused-connect", PCF_DEVIATES, "ERR-11", "job-connect to a live job refused" },
                    { "no-kvscopy", PCF_DEVIATES, NULL, "job-connect-response without kvscopy" },
                    { "disconnect-refused", PCF_DEVIATES, "JOB-4", "job-disconnect of a connected job refused" } } },
    { .id = "pmi2/ring/collective",
      .desc = "ring over the job: each process's position in the ring, its neighbours' values",
      .clause = "RING-1",
      .expected = "each rank sent 1, L<r>, R<r>: the counts are the positions 0..n-1 of a ring (rank order, or the server's), ring-left the R of the one before, ring-right the L of the one after (rank r: ring-count=r;ring-left=R<r-1>;ring-right=L<r+1> in rank order)",
      .flags = PCF_V2 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_ring,
      .outcomes = { FEATURE_OUTCOMES,
                    { "refused", PCF_UNSUPPORTED, NULL, "ring refused with rc!=0 (an error answer, whatever its errmsg: the optional feature is absent)" },
                    { "wrong-ring", PCF_DEVIATES, NULL, "the counts or the neighbours' values are wrong" },
                    /* the answers shared afterwards through the KVS (to see the
                     * server's ring order): a KVS that refuses is graded by the
                     * KVS cases; here rank order is checked instead */
                    { "put-refused", PCF_INFO, "KVS-1", "the ranks' ring answers could not be shared (kvs-put refused): rank order checked" },
                    { "fence-refused", PCF_INFO, "FENCE-1", "the ranks' ring answers could not be shared (kvs-fence refused): rank order checked" } } },
};
PCF_CASES(cases)
