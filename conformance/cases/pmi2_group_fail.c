/* pmi2/group: constructs that cannot complete or must not be carried out
 * (SPEC.md §12.3, §12.6, §12.8): timeouts, requests that are invalid as
 * written, participants that contradict each other, a member nobody
 * named, a name that exists or is already waited on, the isolation of a
 * waiting construct and what lies beyond the server's limits.  Every
 * refusal must come at once and carry reason and errmsg (GROUP-29).
 * Every case reads PMI_ext_groups first (GROUP-3). */
#include "pmi2_group.h"

/* Short, so that the section stays fast; the answer is due within 100 ms
 * of the deadline, LATE_SLACK_MS more is granted to a loaded machine. */
enum { TMO_MS = 300, LATE_SLACK_MS = 500 };

/* How long a refusal "at once" may take before the case calls it waiting. */
enum { AT_ONCE_MS = 2000 };

/* GROUP-24: rank 0 leads a collective construct with rank 1, which never
 * comes: after 300 ms, rc=1;reason=timeout;failed=<rank 1>. */
static void run_timeout(pcf_ctx *c)
{
    gx x;
    if (g_begin_only(c, &x, 1u, "deviates")) /* GROUP-24 reads as MAY */
        return;
    char grp[96], pair[G_LIST], r1[G_ID], tmo[16];
    g_name(&x, "tmo", grp, sizeof grp);
    g_ranks(&x, pair, sizeof pair, 3u);
    g_id(&x, 1, r1, sizeof r1);
    snprintf(tmo, sizeof tmo, "%d", TMO_MS);
    gcons q = { .grp = grp, .method = "collective", .leaders = pair, .timeout = tmo };
    gm *res = NULL;
    uint64_t t0 = pws_now_usec();
    if (g_construct(&x, &q, &res))
        goto out;
    unsigned ms = (unsigned)((pws_now_usec() - t0) / 1000);
    if (g_failure(&x, res, "a construct rank 1 never joins", 1, "timeout", r1))
        goto out;
    if (ms + 5 < TMO_MS) {
        g_fail(&x, "early", "timeout=%d, answered after %u ms", TMO_MS, ms);
        goto out;
    }
    if (ms > TMO_MS + 100 + LATE_SLACK_MS) {
        g_fail(&x, "late", "timeout=%d, answered after %u ms (100 ms allowed, %d for load)", TMO_MS,
               ms, LATE_SLACK_MS);
        goto out;
    }
    g_done(&x, "reason=timeout;failed=%s after %u ms", r1, ms);
out:
    gm_free(res);
    g_free(&x);
}

/* GROUP-26 (and GROUP-24's earliest deadline): leaders 0, 1 and 2; rank 0
 * sends timeout=300, rank 1 no timeout, rank 2 never comes.  Rank 1 must
 * not wait past rank 0's deadline: both get reason=timeout;failed=<rank 2>. */
static void run_earliest(pcf_ctx *c)
{
    gx x;
    if (g_begin(c, &x))
        return;
    char grp[96], three[G_LIST], r2[G_ID], tmo[16], t[64];
    g_name(&x, "early", grp, sizeof grp);
    g_ranks(&x, three, sizeof three, 7u);
    g_id(&x, 2, r2, sizeof r2);
    snprintf(tmo, sizeof tmo, "%d", TMO_MS);
    gcons q = { .grp = grp, .method = "collective", .leaders = three,
                .timeout = x.rank == 0 ? tmo : NULL };
    gm *res = NULL;
    uint64_t t0 = pws_now_usec();
    if (x.rank < 2) {
        if (g_construct_send(&x, &q, t))
            goto out;
        /* rank 1 has no deadline of its own: without rank 0's it would wait
         * for the case's; a wait well past rank 0's is the finding */
        uint64_t dl = t0 + (uint64_t)(TMO_MS + 100 + LATE_SLACK_MS + 1000) * 1000;
        int w = g_wait_until(&x, "group-construct-response", t, NULL, NULL, dl, true, &res);
        if (w < 0)
            goto out;
        unsigned ms = (unsigned)((pws_now_usec() - t0) / 1000);
        if (w == 1) {
            g_fail(&x, "kept-waiting", "no answer %u ms after the construct (rank 0's timeout=%d)",
                   ms, TMO_MS);
            goto out;
        }
        if (g_failure(&x, res, "a construct rank 2 never joins", 1, "timeout", r2))
            goto out;
        if (ms > TMO_MS + 100 + LATE_SLACK_MS) {
            g_fail(&x, "late", "rank 0's timeout=%d, answered after %u ms", TMO_MS, ms);
            goto out;
        }
    }
    g_done(&x, "%s", x.rank < 2 ? "reason=timeout at rank 0's deadline" : "no part");
out:
    gm_free(res);
    g_free(&x);
}

/* One request that must be refused at once with rc and reason (and
 * errmsg).  0, or -1 observed ("waited" when nothing came in AT_ONCE_MS). */
static int refused(gx *x, const gcons *q, long long rc, const char *reason, const char *what)
{
    char t[64];
    gm *r = NULL;
    if (g_construct_send(x, q, t))
        return -1;
    int w = g_wait_until(x, "group-construct-response", t, NULL, NULL,
                         pws_now_usec() + (uint64_t)AT_ONCE_MS * 1000, true, &r);
    if (w < 0)
        return -1;
    if (w == 1)
        return g_fail(x, "waited", "%s: no answer within %d ms (GROUP-17: without waiting)", what,
                      AT_ONCE_MS);
    int f = g_failure(x, r, what, rc, reason, NULL);
    gm_free(r);
    return f;
}

/* GROUP-17: requests that cannot be carried out as written.  Each carries
 * timeout=500 but the one about timeout itself, so that a server that
 * waits instead leaves nothing behind. */
static void run_invalid_args(pcf_ctx *c)
{
    gx x;
    if (g_begin_only(c, &x, 1u, NULL))
        return;
    char g[12][96], r1[G_ID], pair[G_LIST];
    for (int i = 0; i < 12; i++) {
        char w[16];
        snprintf(w, sizeof w, "inv%d", i);
        g_name(&x, w, g[i], sizeof g[i]);
    }
    g_id(&x, 1, r1, sizeof r1);
    g_ranks(&x, pair, sizeof pair, 3u);
    const char *T = "500";
    struct {
        gcons q;
        const char *what;
    } v[] = {
        { { .grp = g[0], .method = "pcf-unknown", .leaders = x.me, .timeout = T }, "method unknown" },
        { { .grp = g[1], .method = "collective", .leaders = r1, .timeout = T },
          "a collective leader missing from its own leaders" },
        { { .grp = g[2], .method = "bootstrap", .nleaders = "0", .timeout = T }, "nleaders=0" },
        { { .grp = g[3], .method = "bootstrap", .nleaders = "1", .leaders = x.me, .timeout = T },
          "leaders with method=bootstrap" },
        { { .grp = g[4], .method = "collective", .leaders = x.me, .nleaders = "1", .timeout = T },
          "nleaders with method=collective" },
        { { .grp = g[5], .method = "member", .leaders = x.me, .timeout = T },
          "leaders with method=member" },
        { { .grp = g[6], .method = "member", .nleaders = "1", .timeout = T },
          "nleaders with method=member" },
        { { .grp = g[7], .method = "collective", .leaders = x.me, .members = x.me, .timeout = T },
          "a leader naming itself in members" },
        { { .grp = g[8], .method = "collective", .leaders = pair, .members = r1, .timeout = T },
          "a leader naming another leader in members" },
        { { .grp = g[9], .method = "collective", .leaders = x.me, .timeout = "soon" },
          "timeout=soon" },
        { { .grp = g[10], .method = "bootstrap", .nleaders = "1", .timeout = "-5" }, "timeout=-5" },
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (refused(&x, &v[i].q, 3, "invalid", v[i].what))
            goto out;
    g_done(&x, "%zu invalid constructs answered rc=3;reason=invalid at once",
           sizeof v / sizeof v[0]);
out:
    g_free(&x);
}

/* GROUP-17 with GROUP-5: process ids that are malformed or name no
 * process of a job the server accepts. */
static void run_invalid_procid(pcf_ctx *c)
{
    gx x;
    if (g_begin_only(c, &x, 1u, NULL))
        return;
    char bad[8][G_ID + 8], grp[96], lead[G_LIST];
    snprintf(bad[0], sizeof bad[0], "pcf-no-colon");
    snprintf(bad[1], sizeof bad[1], "%s:", x.jobid);
    snprintf(bad[2], sizeof bad[2], "%s:x1", x.jobid);
    snprintf(bad[3], sizeof bad[3], "%s:-1", x.jobid);
    snprintf(bad[4], sizeof bad[4], "%s:%d", x.jobid, x.size + 1000);
    snprintf(bad[5], sizeof bad[5], "pcf-%s-nosuchjob:0", x.tag);
    snprintf(bad[6], sizeof bad[6], "%s,", x.me);
    for (int i = 0; i < 7; i++) {
        char w[16];
        snprintf(w, sizeof w, "pid%d", i);
        g_name(&x, w, grp, sizeof grp);
        gcons q = { .grp = grp, .method = "collective", .leaders = x.me, .members = bad[i],
                    .timeout = "500" };
        char what[G_LIST + 32];
        snprintf(what, sizeof what, "members=%s", bad[i]);
        if (refused(&x, &q, 3, "invalid", what))
            goto out;
        /* the same id in leaders (with the leader itself) */
        snprintf(w, sizeof w, "pidl%d", i);
        g_name(&x, w, grp, sizeof grp);
        snprintf(lead, sizeof lead, "%s,%s", x.me, bad[i]);
        gcons l = { .grp = grp, .method = "collective", .leaders = lead, .timeout = "500" };
        snprintf(what, sizeof what, "leaders=%s", lead);
        if (refused(&x, &l, 3, "invalid", what))
            goto out;
    }
    g_done(&x, "7 malformed or unknown process ids, in members and in leaders: reason=invalid");
out:
    g_free(&x);
}

/* Ranks 0 and 1 send the two sides of a contradiction (rank 0 first when
 * ordered): both must get rc=1;reason=mismatch. */
static int contradiction(gx *x, int seq, const gcons *q0, const gcons *q1, bool ordered,
                         const char *what)
{
    char t[64];
    gm *r = NULL;
    if (x->rank == 0 && g_construct_send(x, q0, t))
        return -1;
    if (ordered && g_step(x, seq, 1u))
        return -1;
    if (x->rank == 1 && g_construct_send(x, q1, t))
        return -1;
    if (x->rank < 2) {
        if (g_wait(x, "group-construct-response", t, &r))
            return -1;
        int f = g_failure(x, r, what, 1, "mismatch", NULL);
        gm_free(r);
        if (f)
            return -1;
    }
    return g_step(x, seq + 1, 3u);
}

/* GROUP-16: leaders that disagree on the leaders, on nleaders, on the method. */
static void run_mismatch(pcf_ctx *c)
{
    gx x;
    if (g_begin(c, &x))
        return;
    char ga[96], gb[96], gc[96], pair3[G_LIST];
    g_name(&x, "mma", ga, sizeof ga);
    g_name(&x, "mmb", gb, sizeof gb);
    g_name(&x, "mmc", gc, sizeof gc);
    g_ranks(&x, pair3, sizeof pair3, 7u);
    char pair[G_LIST];
    g_ranks(&x, pair, sizeof pair, 3u);
    const char *T = "3000"; /* a server that misses the contradiction ends it itself */
    gcons a0 = { .grp = ga, .method = "collective", .leaders = pair3, .timeout = T };
    gcons a1 = { .grp = ga, .method = "collective", .leaders = pair, .timeout = T };
    gcons b0 = { .grp = gb, .method = "bootstrap", .nleaders = "3", .timeout = T };
    gcons b1 = { .grp = gb, .method = "bootstrap", .nleaders = "4", .timeout = T };
    gcons c0 = { .grp = gc, .method = "collective", .leaders = pair3, .timeout = T };
    gcons c1 = { .grp = gc, .method = "bootstrap", .nleaders = "3", .timeout = T };
    if (contradiction(&x, 1, &a0, &a1, false, "leaders {0,1,2} against {0,1}") ||
        contradiction(&x, 3, &b0, &b1, false, "nleaders=3 against nleaders=4") ||
        contradiction(&x, 5, &c0, &c1, false, "collective against bootstrap"))
        goto out;
    g_done(&x, "%s", x.rank < 2 ? "three contradictions: reason=mismatch for both sides"
                                : "no part");
out:
    g_free(&x);
}

/* GROUP-16: more leaders than nleaders, and a leader another leader named
 * as an added member. */
static void run_mismatch_roles(pcf_ctx *c)
{
    gx x;
    if (g_begin(c, &x))
        return;
    char ga[96], gb[96], r1[G_ID];
    g_name(&x, "mmd", ga, sizeof ga);
    g_name(&x, "mme", gb, sizeof gb);
    g_id(&x, 1, r1, sizeof r1);
    char r2[G_ID];
    g_id(&x, 2, r2, sizeof r2);
    const char *T = "3000";
    /* rank 0: bootstrap nleaders=1 adding rank 2 (waits for it); rank 1
     * then arrives as a second bootstrap leader of nleaders=1 */
    gcons a0 = { .grp = ga, .method = "bootstrap", .nleaders = "1", .members = r2, .timeout = T };
    gcons a1 = { .grp = ga, .method = "bootstrap", .nleaders = "1", .timeout = T };
    /* rank 0 names rank 1 as an added member; rank 1 arrives as a leader */
    gcons b0 = { .grp = gb, .method = "bootstrap", .nleaders = "2", .members = r1, .timeout = T };
    gcons b1 = { .grp = gb, .method = "bootstrap", .nleaders = "2", .timeout = T };
    if (contradiction(&x, 1, &a0, &a1, true, "a second leader of nleaders=1") ||
        contradiction(&x, 3, &b0, &b1, true, "a leader named as an added member"))
        goto out;
    g_done(&x, "%s", x.rank < 2 ? "too many leaders, a member as leader: reason=mismatch"
                                : "no part");
out:
    g_free(&x);
}

/* GROUP-16: rank 0 leads with rank 1 as added member; rank 2 arrives as a
 * member nobody named and is refused (not-member) while the others go on. */
static void run_not_member(pcf_ctx *c)
{
    gx x;
    if (g_begin(c, &x))
        return;
    char grp[96], r1[G_ID], pair[G_LIST], t[64];
    g_name(&x, "nm", grp, sizeof grp);
    g_id(&x, 1, r1, sizeof r1);
    g_ranks(&x, pair, sizeof pair, 3u);
    gcons lead = { .grp = grp, .method = "collective", .leaders = x.me, .members = r1 };
    gcons mem = { .grp = grp, .method = "member" };
    gm *r = NULL;
    if (x.rank == 0 && g_construct_send(&x, &lead, t))
        goto out;
    if (g_step(&x, 1, 1u))
        goto out;
    if (x.rank == 2) {
        mem.timeout = "3000";
        if (refused(&x, &mem, 1, "not-member", "a member no leader named"))
            goto out;
    }
    if (g_step(&x, 2, 4u))
        goto out;
    if (x.rank == 1 && g_construct_send(&x, &mem, t))
        goto out;
    if (x.rank < 2) {
        if (g_wait(&x, "group-construct-response", t, &r) ||
            g_result(&x, r, "group-construct", pair, NULL, 0, NULL) || g_destruct_ok(&x, grp))
            goto out;
    }
    g_done(&x, "%s", x.rank == 2 ? "reason=not-member" : x.rank < 2 ? "completed without rank 2"
                                                                    : "no part");
out:
    gm_free(r);
    g_free(&x);
}

/* GROUP-17: the name of a completed group is refused (exists) to its
 * member and to anyone else until destructed. */
static void run_exists(pcf_ctx *c)
{
    gx x;
    if (g_begin(c, &x))
        return;
    char grp[96], r0[G_ID];
    g_name(&x, "ex", grp, sizeof grp);
    g_id(&x, 0, r0, sizeof r0);
    gcons q = { .grp = grp, .method = "collective", .leaders = x.me, .timeout = "3000" };
    gm *r = NULL;
    if (x.rank == 0 && (g_construct(&x, &q, &r) || g_result(&x, r, "construct", x.me, NULL, 0, NULL)))
        goto out;
    if (x.rank == 0 && refused(&x, &q, 1, "exists", "the same construct again"))
        goto out;
    if (g_step(&x, 1, 1u))
        goto out;
    if (x.rank == 1 && refused(&x, &q, 1, "exists", "another process's construct of the name"))
        goto out;
    if (g_step(&x, 2, 2u) || (x.rank == 0 && g_destruct_ok(&x, grp)))
        goto out;
    g_done(&x, "%s", x.rank < 2 ? "reason=exists" : "no part");
out:
    gm_free(r);
    g_free(&x);
}

/* GROUP-17: a second construct of a name the caller already waits on is
 * refused (busy) at once; the first goes on and completes. */
static void run_busy(pcf_ctx *c)
{
    gx x;
    if (g_begin(c, &x))
        return;
    char grp[96], pair[G_LIST], t[64];
    g_name(&x, "busy", grp, sizeof grp);
    g_ranks(&x, pair, sizeof pair, 3u);
    gcons q = { .grp = grp, .method = "collective", .leaders = pair };
    gm *r = NULL;
    if (x.rank == 0) {
        if (g_construct_send(&x, &q, t))
            goto out;
        gcons again = q;
        again.timeout = "3000";
        if (refused(&x, &again, 1, "busy", "a second construct while the first waits"))
            goto out;
    }
    if (g_step(&x, 1, 1u))
        goto out;
    if (x.rank == 1 && g_construct_send(&x, &q, t))
        goto out;
    if (x.rank < 2 && (g_wait(&x, "group-construct-response", t, &r) ||
                       g_result(&x, r, "the first construct", pair, NULL, 0, NULL) ||
                       g_destruct_ok(&x, grp)))
        goto out;
    g_done(&x, "%s", x.rank == 0 ? "reason=busy, then the first construct completed"
                     : x.rank == 1 ? "completed" : "no part");
out:
    gm_free(r);
    g_free(&x);
}

/* GROUP-26: while rank 0's construct waits for rank 1, its other requests
 * are answered (kvs, job attributes, group-get, a fence with every rank);
 * the same while its destruct waits. */
static void run_isolation(pcf_ctx *c)
{
    gx x;
    if (g_begin(c, &x))
        return;
    char grp[96], pair[G_LIST], t[64], key[64], v[16];
    g_name(&x, "iso", grp, sizeof grp);
    g_ranks(&x, pair, sizeof pair, 3u);
    snprintf(key, sizeof key, "%s-iso-r%d", x.tag, x.rank);
    gcons q = { .grp = grp, .method = "collective", .leaders = pair };
    gm *r = NULL;
    if (x.rank == 0) {
        if (g_construct_send(&x, &q, t))
            goto out;
        uint64_t keep = x.deadline;
        x.deadline = pws_now_usec() + (uint64_t)AT_ONCE_MS * 1000; /* "blocked", not a timeout */
        pmc_enc e;
        gm *a = NULL;
        pmc_enc_begin(&e, PMC_WIRE_V2, "info-getjobattr");
        pmc_enc_str(&e, "key", "PMI_process_mapping");
        int bad = g_kvs_put(&x, key, "1") || g_kvs_get(&x, key, v, sizeof v) != 1 ||
                  g_call(&x, &e, "info-getjobattr-response", NULL, &a);
        gm_free(a);
        a = NULL;
        if (!bad)
            bad = g_get(&x, grp, x.me, "k", &a); /* not complete: any answer */
        gm_free(a);
        x.deadline = keep;
        if (bad) {
            if (pcf_observed(c))
                goto out;
            g_fail(&x, "blocked", "a request behind the waiting construct was not answered");
            goto out;
        }
        if (g_kept(&x, "group-construct-response")) {
            g_fail(&x, "early", "the construct completed without rank 1: %s",
                   g_kept(&x, "group-construct-response")->show);
            goto out;
        }
    }
    /* a fence of every rank while rank 0's construct waits */
    if (g_step(&x, 1, 1u))
        goto out;
    if (x.rank == 1 && g_construct_send(&x, &q, t))
        goto out;
    if (x.rank < 2 && (g_wait(&x, "group-construct-response", t, &r) ||
                       g_result(&x, r, "group-construct", pair, NULL, 0, NULL)))
        goto out;
    /* the destruct: rank 0 first, it waits, rank 0 goes on meanwhile */
    if (x.rank == 0) {
        if (g_destruct_send(&x, grp, NULL, t))
            goto out;
        pmc_enc e;
        gm *a = NULL;
        pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
        uint64_t keep = x.deadline;
        x.deadline = pws_now_usec() + (uint64_t)AT_ONCE_MS * 1000;
        int bad = g_call(&x, &e, "job-getid-response", NULL, &a);
        x.deadline = keep;
        gm_free(a);
        if (bad) {
            if (!pcf_observed(c))
                g_fail(&x, "blocked", "job-getid behind the waiting destruct was not answered");
            goto out;
        }
    }
    if (g_step(&x, 2, 1u))
        goto out;
    if (x.rank == 1 && g_destruct_send(&x, grp, NULL, t))
        goto out;
    if (x.rank < 2 && g_destruct_done(&x, grp, t))
        goto out;
    g_done(&x, "%s", x.rank == 0 ? "kvs, job attributes, group-get and fences answered while "
                                   "the construct and the destruct waited"
                                 : "took part");
out:
    gm_free(r);
    g_free(&x);
}

/* A refusal beyond a limit: rc=3;reason=limit and an errmsg that is not
 * empty (it must name the limit).  0, or -1 observed. */
static int limit_refusal(gx *x, const gm *r, const char *what)
{
    if (g_failure(x, r, what, 3, "limit", NULL))
        return -1;
    const char *em = gm_get(r, "errmsg");
    if (!em || !*em)
        return g_fail(x, "no-errmsg", "%s: reason=limit with an empty errmsg (it must name the "
                                      "limit): %s", what, r->show);
    return 0;
}

/* GROUP-28: requests beyond the server's limits are refused at once with
 * reason=limit and an errmsg.  17 contributed pairs (one more than the
 * minimum): refused, or carried whole, never cut.  nleaders=10^12: a
 * server without such a limit lets it time out (300 ms). */
static void run_limit_beyond(pcf_ctx *c)
{
    gx x;
    if (g_begin_only(c, &x, 1u, NULL))
        return;
    enum { NP = 17 };
    char grp[96], many[96], t[64], keys[NP][16], vals[NP][16];
    const char *ik[NP], *iv[NP];
    ginfo want[NP];
    for (int i = 0; i < NP; i++) {
        snprintf(keys[i], sizeof keys[i], "k%02d", i);
        snprintf(vals[i], sizeof vals[i], "v%02d", i);
        ik[i] = keys[i];
        iv[i] = vals[i];
        want[i] = (ginfo){ x.me, ik[i], iv[i] };
    }
    g_name(&x, "pairs", many, sizeof many);
    gcons p = { .grp = many, .method = "collective", .leaders = x.me, .ninfo = NP, .ik = ik,
                .iv = iv };
    gm *r = NULL;
    if (g_construct(&x, &p, &r))
        goto out;
    bool whole = gm_ok(r);
    if (whole ? g_result(&x, r, "17 contributed pairs accepted", x.me, want, NP, NULL) ||
                    g_destruct_ok(&x, many)
              : limit_refusal(&x, r, "17 contributed pairs"))
        goto out;
    gm_free(r);
    r = NULL;
    g_name(&x, "huge", grp, sizeof grp);
    gcons q = { .grp = grp, .method = "bootstrap", .nleaders = "1000000000000", .timeout = "300" };
    if (g_construct_send(&x, &q, t) || g_wait(&x, "group-construct-response", t, &r))
        goto out;
    if (gm_is(r, "reason", "timeout")) {
        pcf_observe(c, "no-limit", "nleaders=10^12 waited for its timeout: %s", r->show);
        goto out;
    }
    if (limit_refusal(&x, r, "nleaders=10^12"))
        goto out;
    g_done(&x, "17 pairs %s; nleaders=10^12: %s", whole ? "carried whole" : "refused reason=limit",
           r->show);
out:
    gm_free(r);
    g_free(&x);
}

static const pcf_case cases[] = {
    { .id = "pmi2/group/timeout",
      .desc = "a construct with timeout=300 that rank 1 never joins fails with reason=timeout",
      .clause = "GROUP-24",
      .expected = "after 300-400 ms: rc=1;reason=timeout;errmsg=...;failed=<rank 1>",
      .flags = PCF_V2, .min_ranks = 2, .run = run_timeout,
      .outcomes = { G_OUTCOMES, G_FUNNEL } },
    { .id = "pmi2/group/earliest-deadline",
      .desc = "a participant without timeout is answered at another's deadline (rank 2 never comes)",
      .clause = "GROUP-26",
      .expected = "ranks 0 and 1: rc=1;reason=timeout;failed=<rank 2> about 300 ms after rank 0 arrived",
      .flags = PCF_V2, .min_ranks = 3, .run = run_earliest,
      .outcomes = { G_OUTCOMES,
                    { "answer", PCF_DEVIATES, NULL, "not the timeout answer at the earliest deadline" },
                    { "late", PCF_DEVIATES, NULL, "answered long after the earliest deadline" } } },
    { .id = "pmi2/group/invalid",
      .desc = "11 constructs that cannot be carried out as written (method, leaders, nleaders, members, timeout)",
      .clause = "GROUP-17",
      .expected = "each: rc=3;reason=invalid;errmsg=... at once",
      .flags = PCF_V2, .min_ranks = 2, .run = run_invalid_args,
      .outcomes = { G_OUTCOMES } },
    { .id = "pmi2/group/invalid-procid",
      .desc = "malformed process ids and ids of no process, in members and in leaders",
      .clause = "GROUP-17",
      .expected = "each: rc=3;reason=invalid;errmsg=... at once",
      .flags = PCF_V2, .run = run_invalid_procid,
      .outcomes = { G_OUTCOMES,
                    { "answer", PCF_DEVIATES, "GROUP-5", "an id that is not <jobid>:<rank> of a process was accepted" } } },
    { .id = "pmi2/group/mismatch",
      .desc = "leaders that disagree on the leaders, on nleaders, on the method",
      .clause = "GROUP-16",
      .expected = "both sides of each: rc=1;reason=mismatch;errmsg=...",
      .flags = PCF_V2, .min_ranks = 3, .run = run_mismatch,
      .outcomes = { G_OUTCOMES } },
    { .id = "pmi2/group/mismatch-roles",
      .desc = "more leaders than nleaders, and a process named as added member arriving as a leader",
      .clause = "GROUP-16",
      .expected = "both sides of each: rc=1;reason=mismatch;errmsg=...",
      .flags = PCF_V2, .min_ranks = 3, .run = run_mismatch_roles,
      .outcomes = { G_OUTCOMES } },
    { .id = "pmi2/group/not-member",
      .desc = "an added member nobody named is refused; the construct goes on and completes",
      .clause = "GROUP-16",
      .expected = "rank 2: rc=1;reason=not-member at once; ranks 0 and 1 complete",
      .flags = PCF_V2, .min_ranks = 3, .run = run_not_member,
      .outcomes = { G_OUTCOMES, G_DESTRUCT } },
    { .id = "pmi2/group/exists",
      .desc = "a construct of a completed group's name is refused until it is destructed",
      .clause = "GROUP-17",
      .expected = "rc=1;reason=exists;errmsg=... to the member and to another process",
      .flags = PCF_V2, .min_ranks = 2, .run = run_exists,
      .outcomes = { G_OUTCOMES, G_DESTRUCT } },
    { .id = "pmi2/group/busy",
      .desc = "a second construct of a name the caller waits on is refused; the first completes",
      .clause = "GROUP-17",
      .expected = "rc=1;reason=busy at once, then the first construct rc=0",
      .flags = PCF_V2, .min_ranks = 2, .run = run_busy,
      .outcomes = { G_OUTCOMES, G_DESTRUCT } },
    { .id = "pmi2/group/not-blocking",
      .desc = "requests behind a waiting construct or destruct are answered, fences included",
      .clause = "GROUP-26",
      .expected = "kvs-put/get, info-getjobattr, group-get, job-getid and the fence answered while it waits",
      .flags = PCF_V2, .min_ranks = 2, .run = run_isolation,
      .outcomes = { G_OUTCOMES,
                    { "early", PCF_DEVIATES, "GROUP-13", "completed without every leader" },
                    { "no-answer", PCF_DEVIATES, NULL, "a request behind the waiting construct or destruct was not answered" },
                    G_DESTRUCT } },
    { .id = "pmi2/group/limit-beyond",
      .desc = "17 contributed pairs are refused with reason=limit or carried whole; nleaders=10^12 is refused",
      .clause = "GROUP-28",
      .expected = "17 pairs: rc=3;reason=limit;errmsg=<the limit> or rc=0 with all 17; nleaders=10^12: the same refusal",
      .flags = PCF_V2, .run = run_limit_beyond,
      .outcomes = { G_OUTCOMES,
                    { "no-limit", PCF_INFO, NULL, "nleaders=10^12 accepted and timed out: no limit below it" } } },
};
PCF_CASES(cases)
