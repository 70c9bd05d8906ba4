/* pmi2/group with a spawned job (SPEC.md §12.1 GROUP-6, §12.4, §12.6): the
 * other participant is a process of a job rank 0 spawns, pmi2-conform
 * itself in a hidden helper mode (pmi2-conform --group-helper MODE ...,
 * dispatched by main.c): it fullinits through pmisession like any rank
 * and takes part in a group, or ends at a chosen moment (a participant
 * that exits, an invitee that exits, a leader that exits).  A two-process
 * bootstrap group ("sync", nleaders=2) tells the parent and the helper
 * that both got this far; the helper ends by itself when its work is done
 * and never outlives HELPER_S seconds (alarm), parent or not.
 * Every case reads PMI_ext_groups first (GROUP-3); a server that refuses
 * to spawn makes the case UNSUPPORTED. */
#include "pmi2_group.h"

#include <signal.h>

int pcf_group_helper_main(int argc, char **argv);

enum { HELPER_S = 20, SYNC_TMO = 5000 };

/* ---- the helper process ----------------------------------------------------- */

static int env_num(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : -1;
}

/* init, fullinit and job-getid through pmisession, as a rank of the
 * spawned job; 0 or -1 (x->why says why). */
static int helper_init(gx *x)
{
    char err[256];
    if (pws_open_env(&x->s, "group-helper", err, sizeof err) != 0)
        return g_fail(x, "harness-error", "no PMI connection: %s", err);
    pmc_enc e;
    gm *r = NULL;
    pmc_enc_begin(&e, PMC_WIRE_V1, "init");
    pmc_enc_int(&e, "pmi_version", 2);
    pmc_enc_int(&e, "pmi_subversion", 0);
    if (g_call(x, &e, "response_to_init", NULL, &r))
        return -1;
    bool ok = gm_ok(r);
    gm_free(r);
    if (!ok)
        return g_fail(x, "harness-error", "PMI-2 refused in response_to_init");
    int id = env_num("PMI_RANK");
    if (id < 0)
        id = env_num("PMI_ID");
    pmc_enc_begin(&e, PMC_WIRE_V2, "fullinit");
    if (id >= 0)
        pmc_enc_int(&e, "pmirank", id);
    const char *jid = getenv("PMI_JOBID");
    if (jid && *jid)
        pmc_enc_str(&e, "pmijobid", jid);
    pmc_enc_bool(&e, "threaded", false);
    if (g_call(x, &e, "fullinit-response", NULL, &r))
        return -1;
    long long rank = -1;
    ok = gm_ok(r) && gm_int(r, "rank", &rank) == 1;
    gm_free(r);
    if (!ok)
        return g_fail(x, "harness-error", "fullinit refused or without rank");
    x->rank = (int)rank;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    if (g_call(x, &e, "job-getid-response", NULL, &r))
        return -1;
    snprintf(x->jobid, sizeof x->jobid, "%s", gm_get(r, "jobid") ? gm_get(r, "jobid") : "");
    gm_free(r);
    g_id(x, x->rank, x->me, sizeof x->me);
    return 0;
}

static void helper_finalize(gx *x)
{
    pmc_enc e;
    gm *r = NULL;
    pmc_enc_begin(&e, PMC_WIRE_V2, "finalize");
    if (g_call(x, &e, "finalize-response", NULL, &r) == 0)
        gm_free(r);
}

/* A participant that ends: finalize (a server may end the whole job when
 * a process exits without it), then the connection closes. */
static void helper_end(gx *x)
{
    helper_finalize(x);
    pws_close(x->s);
    _exit(0);
}

/* The meeting point of the parent and the helper: bootstrap, nleaders=2. */
static int sync_with(gx *x, const char *sync)
{
    char tmo[16];
    snprintf(tmo, sizeof tmo, "%d", SYNC_TMO);
    gcons q = { .grp = sync, .method = "bootstrap", .nleaders = "2", .timeout = tmo };
    gm *r = NULL;
    if (g_construct(x, &q, &r))
        return -1;
    int rc = gm_ok(r) ? 0 : g_fail(x, "sync-failed", "the bootstrap group %s (nleaders=2) of the "
                                                     "parent and the spawned helper: %s", sync, r->show);
    gm_free(r);
    return rc;
}

/* The helper's requests whose answer it does not grade (its report, the
 * destructs at its end): sent, answered, dropped. */
static void helper_construct(gx *x, const gcons *q)
{
    gm *r = NULL;
    if (g_construct(x, q, &r) == 0)
        gm_free(r);
}

static void helper_destruct(gx *x, const char *grp)
{
    gm *r = NULL;
    if (g_destruct(x, grp, &r) == 0)
        gm_free(r);
}

/* What the helper saw, for its parent: "ok" or the first finding (which
 * it then forgets, so that the report itself goes out). */
static void helper_verdict(gx *x, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s", x->failed ? x->outcome : "ok", x->failed ? ": " : "",
             x->failed ? x->why : "");
    x->failed = false;
}

/* member GRP REPORT P0 P1: an added member of GRP (led by P0 and P1) with a
 * pair c=child; then a group REPORT with P0 carrying its verdict on what
 * it got; both destructed; finalize. */
static void helper_member(gx *x, char **a, int n)
{
    if (n < 4) {
        g_fail(x, "harness-error", "member needs GRP REPORT P0 P1");
        return;
    }
    const char *grp = a[0], *report = a[1], *p0 = a[2], *p1 = a[3];
    const char *ik[] = { "c" }, *iv[] = { "child" };
    gcons q = { .grp = grp, .method = "member", .ninfo = 1, .ik = ik, .iv = iv };
    gm *r = NULL;
    char members[G_LIST], two[G_LIST];
    const char *ids[] = { p0, p1, x->me };
    g_list(members, sizeof members, ids, 3);
    const char *pair[] = { p0, x->me };
    g_list(two, sizeof two, pair, 2);
    ginfo want[] = { { p0, "p", "parent0" }, { p1, "p", "parent1" }, { x->me, "c", "child" } };
    g_sort_info(want, 3);
    if (g_construct(x, &q, &r) == 0)
        g_result(x, r, "the helper's group-construct", members, want, 3, NULL);
    gm_free(r);
    char verdict[700];
    helper_verdict(x, verdict, sizeof verdict);
    const char *rk[] = { "verdict" }, *rv[] = { verdict };
    gcons rq = { .grp = report, .method = "collective", .leaders = two, .ninfo = 1, .ik = rk,
                 .iv = rv, .timeout = "5000" };
    helper_construct(x, &rq);
    helper_destruct(x, grp);
    helper_destruct(x, report);
    helper_finalize(x);
}

/* unsub S1 S2 GRPI GRPC GRPL PARENT: a process that never subscribes.
 * After meeting (S1) the parent invites it to GRPI (unreachable, GROUP-18);
 * it builds GRPC with the parent (collective: a response, no event), then
 * invites the parent to GRPL, who declines: its own invite's response
 * says so, and no group-event reaches it (GROUP-8).  Its verdict goes to
 * the parent as its contribution to S2. */
static void helper_unsub(gx *x, char **a)
{
    const char *s1 = a[0], *s2 = a[1], *gi = a[2], *gc = a[3], *gl = a[4], *parent = a[5];
    (void)gi;
    char pair[G_LIST];
    const char *two[] = { parent, x->me };
    g_list(pair, sizeof pair, two, 2);
    gm *r = NULL;
    if (sync_with(x, s1) == 0) {
        gcons q = { .grp = gc, .method = "collective", .leaders = pair, .timeout = "5000" };
        if (g_construct(x, &q, &r) == 0)
            g_result(x, r, "the unsubscribed process's collective construct", pair, NULL, 0, NULL);
        gm_free(r);
        r = NULL;
    }
    if (!x->failed && g_invite(x, gl, parent, "5000", 0, NULL, NULL, &r) == 0 &&
        g_result(x, r, "the unsubscribed leader's invite", x->me, NULL, 0, NULL) == 0 &&
        !gm_is(r, "failed", parent))
        g_fail(x, "wrong-failed", "the unsubscribed leader's invite: failed should be %s: %s",
               parent, r->show);
    gm_free(r);
    r = NULL;
    if (!x->failed) {
        const gm *ev = g_kept(x, "group-event");
        if (!ev && g_nothing_yet(x, "group-event", "never: this process never subscribed") == 0)
            ev = g_kept(x, "group-event");
        if (ev)
            g_fail(x, "event-unsubscribed", "a group-event reached the process that never "
                                            "subscribed: %s", ev->show);
    }
    char verdict[700];
    helper_verdict(x, verdict, sizeof verdict);
    const char *vk[] = { "verdict" }, *vv[] = { verdict };
    gcons q2 = { .grp = s2, .method = "bootstrap", .nleaders = "2", .timeout = "5000",
                 .ninfo = 1, .ik = vk, .iv = vv };
    helper_construct(x, &q2);
    const char *const ends[] = { gc, gl, s1, s2 };
    for (int i = 0; i < 4; i++)
        helper_destruct(x, ends[i]);
    helper_finalize(x);
}

int pcf_group_helper_main(int argc, char **argv)
{
    alarm(HELPER_S); /* never outlives the case, whatever the parent does */
    if (argc < 3) {
        fprintf(stderr, "pmi2-conform --group-helper: MODE GRP ... (internal: spawned by "
                        "the pmi2/group cases)\n");
        return 2;
    }
    gx x;
    memset(&x, 0, sizeof x);
    x.deadline = pws_deadline_ms((HELPER_S - 5) * 1000);
    x.begun = true;
    snprintf(x.tag, sizeof x.tag, "h%ld", (long)getpid());
    const char *mode = argv[1];
    char **a = argv + 2;
    int n = argc - 2;
    if (helper_init(&x)) {
        fprintf(stderr, "pmi2-conform --group-helper: %s\n", x.why);
        pws_close(x.s);
        return 1;
    }
    if (strcmp(mode, "member") == 0) {
        helper_member(&x, a, n);
    } else if (strcmp(mode, "exit-after") == 0 && n >= 2) {
        /* GRP SYNC: meet, then arrive as an added member of GRP and end */
        gcons q = { .grp = a[0], .method = "member" };
        char t[64];
        if (sync_with(&x, a[1]) == 0 && g_construct_send(&x, &q, t) == 0)
            helper_end(&x);
    } else if (strcmp(mode, "exit-before") == 0 && n >= 2) {
        /* GRP SYNC: meet, then end without arriving */
        if (sync_with(&x, a[1]) == 0)
            helper_end(&x);
    } else if (strcmp(mode, "invitee-exit") == 0 && n >= 2) {
        /* GRP SYNC: subscribe, meet, end when invited */
        gm *ev = NULL;
        if (g_subscribe(&x) == 0 && sync_with(&x, a[1]) == 0 && g_event(&x, "invited", a[0], &ev) == 0)
            helper_end(&x);
    } else if (strcmp(mode, "lead-exit") == 0 && n >= 3) {
        /* GRP SYNC INVITEES: invite, meet (the first invitee accepted), end */
        char t[64];
        if (g_invite_send(&x, a[0], a[2], NULL, 0, NULL, NULL, t) == 0 && sync_with(&x, a[1]) == 0)
            helper_end(&x);
    } else if (strcmp(mode, "unsub") == 0 && n >= 6) {
        helper_unsub(&x, a);
    } else {
        g_fail(&x, "harness-error", "unknown helper mode %s", mode);
    }
    if (x.failed)
        fprintf(stderr, "pmi2-conform --group-helper %s: %s: %s\n", mode, x.outcome, x.why);
    g_free(&x);
    pws_close(x.s);
    return x.failed ? 1 : 0;
}

/* ---- the parent's side ------------------------------------------------------- */

/* Spawn one helper: pmi2-conform --group-helper ARGS.  0 with the child's
 * id, or -1 ("spawn-refused": the server does not spawn, UNSUPPORTED). */
static int spawn_helper(gx *x, const char *const *args, int nargs, char *child, size_t n)
{
    char exe[1024];
    ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (l <= 0)
        return g_fail(x, "harness-error", "cannot find this executable (/proc/self/exe)");
    exe[l] = 0;
    char keys[16][16];
    pmc_enc e;
    gm *r = NULL;
    pmc_enc_begin(&e, PMC_WIRE_V2, "spawn");
    pmc_enc_int(&e, "ncmds", 1);
    pmc_enc_int(&e, "preputcount", 0);
    pmc_enc_str(&e, "subcmd", exe);
    pmc_enc_int(&e, "maxprocs", 1);
    pmc_enc_int(&e, "argc", nargs + 1);
    pmc_enc_str(&e, "argv0", "--group-helper");
    for (int i = 0; i < nargs && i < 15; i++) {
        snprintf(keys[i], sizeof keys[i], "argv%d", i + 1);
        pmc_enc_str(&e, keys[i], args[i]);
    }
    pmc_enc_int(&e, "infokeycount", 0);
    if (g_call(x, &e, "spawn-response", NULL, &r))
        return -1;
    const char *j = gm_get(r, "jobid");
    int rc = 0;
    if (!gm_ok(r) || !j || !*j)
        rc = g_fail(x, "spawn-refused", "spawn of the group helper: %s", r->show);
    else
        snprintf(child, n, "%s:0", j);
    gm_free(r);
    return rc;
}

/* Rank 0 spawns the helper with these args; ranks 0 and 1 learn its id
 * (through the KVS, after step `seq`).  0, or -1 observed. */
static int share_child(gx *x, int seq, const char *const *args, int nargs, char *child, size_t n)
{
    char key[64];
    snprintf(key, sizeof key, "%s-child", x->tag);
    if (x->rank == 0 && (spawn_helper(x, args, nargs, child, n) || g_kvs_put(x, key, child)))
        return -1;
    if (g_step(x, seq, 1u))
        return -1;
    if (x->rank == 1 && g_kvs_get(x, key, child, n) != 1)
        return g_fail(x, "harness-error", "rank 0's child id is not in the KVS");
    return 0;
}

/* GROUP-6: leaders rank 0 and rank 1, rank 0 adds the spawned helper; all
 * three get one result; the helper's verdict comes back in a second group. */
static void run_cross_job(pcf_ctx *c)
{
    gx x;
    if (g_begin(c, &x))
        return;
    char grp[96], rep[96], p0[G_ID], p1[G_ID], child[G_ID] = "", pair[G_LIST];
    g_name(&x, "xjob", grp, sizeof grp);
    g_name(&x, "xrep", rep, sizeof rep);
    g_id(&x, 0, p0, sizeof p0);
    g_id(&x, 1, p1, sizeof p1);
    g_ranks(&x, pair, sizeof pair, 3u);
    gm *r = NULL, *rr = NULL;
    const char *args[] = { "member", grp, rep, p0, p1 };
    if (share_child(&x, 1, args, 5, child, sizeof child))
        goto out;
    if (x.rank < 2) {
        char val[24];
        snprintf(val, sizeof val, "parent%d", x.rank);
        const char *ik[] = { "p" }, *iv[] = { val };
        gcons q = { .grp = grp, .method = "collective", .leaders = pair,
                    .members = x.rank == 0 ? child : NULL, .ninfo = 1, .ik = ik, .iv = iv };
        const char *ids[] = { p0, p1, child };
        char members[G_LIST];
        g_list(members, sizeof members, ids, 3);
        ginfo want[] = { { p0, "p", "parent0" }, { p1, "p", "parent1" }, { child, "c", "child" } };
        g_sort_info(want, 3);
        unsigned long long cx = 0, crep = 0;
        if (g_construct(&x, &q, &r) || g_result(&x, r, "group-construct", members, want, 3, &cx))
            goto out;
        if (x.rank == 0) {
            /* the helper's own view of the result */
            const char *two[] = { p0, child };
            char lead2[G_LIST];
            g_list(lead2, sizeof lead2, two, 2);
            gcons rq = { .grp = rep, .method = "collective", .leaders = lead2 };
            if (g_construct(&x, &rq, &rr))
                goto out;
            if (!gm_ok(rr) || g_ctxid(rr, &crep)) {
                g_fail(&x, "failed", "the report group with the helper: %s", rr->show);
                goto out;
            }
            const char *verdict = g_info_of(rr, "verdict");
            if (!verdict || strcmp(verdict, "ok") != 0) {
                g_fail(&x, "child-saw", "the spawned helper's result: %s",
                       verdict ? verdict : rr->show);
                goto out;
            }
            if (crep == cx) {
                g_fail(&x, "same-ctxid", "two groups got ctxid %llu (GROUP-15)", cx);
                goto out;
            }
            if (g_get_is(&x, grp, child, "c", "child"))
                goto out;
        }
        if (g_destruct_ok(&x, grp) || (x.rank == 0 && g_destruct_ok(&x, rep)))
            goto out;
    }
    g_done(&x, "%s", x.rank < 2 ? "a group of ranks 0, 1 and the spawned job's rank 0; the "
                                  "helper saw the same"
                                : "no part");
out:
    gm_free(r);
    gm_free(rr);
    g_free(&x);
}

/* GROUP-25: the construct waits for rank 1 (never comes) and the helper,
 * which arrives as an added member and ends: rank 0 is answered at once
 * with reason=exited;failed=<helper>. */
static void exits(pcf_ctx *c, bool arrived)
{
    gx x;
    if (g_begin_only(c, &x, 1u, NULL))
        return;
    char grp[96], sync[96], child[G_ID], members[G_LIST], r1[G_ID], t[64];
    g_name(&x, arrived ? "exa" : "exb", grp, sizeof grp);
    g_name(&x, arrived ? "exas" : "exbs", sync, sizeof sync);
    g_id(&x, 1, r1, sizeof r1);
    gm *r = NULL;
    const char *args[] = { arrived ? "exit-after" : "exit-before", grp, sync };
    if (spawn_helper(&x, args, 3, child, sizeof child))
        goto out;
    if (arrived) {
        const char *two[] = { r1, child };
        g_list(members, sizeof members, two, 2);
    } else
        snprintf(members, sizeof members, "%s", child);
    /* a deadline far off for a server that sees the end, within the case's
     * for one that misses it: it answers reason=timeout (FAIL), not nothing */
    gcons q = { .grp = grp, .method = "collective", .leaders = x.me, .members = members,
                .timeout = "3000" };
    if (g_construct_send(&x, &q, t) || sync_with(&x, sync))
        goto out;
    uint64_t t0 = pws_now_usec();
    if (g_wait(&x, "group-construct-response", t, &r) ||
        g_failure(&x, r, arrived ? "the helper arrived, then ended" : "the helper ended before "
                                                                       "it arrived",
                  1, "exited", child))
        goto out;
    unsigned ms = (unsigned)((pws_now_usec() - t0) / 1000);
    if (g_destruct_ok_tmo(&x, sync, "3000"))
        goto out;
    g_done(&x, "reason=exited;failed=%s, %u ms after the meeting", child, ms);
out:
    gm_free(r);
    g_free(&x);
}

static void run_exits_arrived(pcf_ctx *c) { exits(c, true); }
static void run_exits_expected(pcf_ctx *c) { exits(c, false); }

/* The invite-failed event of grp, due before the invite's response r
 * (GROUP-20): 0 with *ev, or -1 after observing "no-event". */
static int invite_failed_first(gx *x, const char *grp, const gm *r, gm **ev)
{
    *ev = g_take_kept(x, "invite-failed", grp, NULL);
    if (*ev)
        return 0;
    return g_fail(x, "no-event", "no event=invite-failed before the invite's response: %s", r->show);
}

/* GROUP-20: the invited helper ends instead of answering. */
static void run_invitee_exits(pcf_ctx *c)
{
    gx x;
    if (g_begin_only(c, &x, 1u, NULL))
        return;
    char grp[96], sync[96], child[G_ID];
    g_name(&x, "iex", grp, sizeof grp);
    g_name(&x, "iexs", sync, sizeof sync);
    gm *r = NULL, *ev = NULL;
    const char *args[] = { "invitee-exit", grp, sync };
    if (g_subscribe(&x) || spawn_helper(&x, args, 3, child, sizeof child) ||
        sync_with(&x, sync))
        goto out;
    if (g_invite(&x, grp, child, "5000", 0, NULL, NULL, &r) ||
        invite_failed_first(&x, grp, r, &ev))
        goto out;
    if (!gm_is(ev, "proc", child) || !gm_is(ev, "reason", "exited")) {
        g_fail(&x, "wrong-reason", "expected proc=%s;reason=exited: %s", child, ev->show);
        goto out;
    }
    if (g_result(&x, r, "group-invite", x.me, NULL, 0, NULL) || g_failed_is(&x, r, child))
        goto out;
    if (g_destruct_ok(&x, grp) || g_destruct_ok_tmo(&x, sync, "3000"))
        goto out;
    g_done(&x, "invite-failed reason=exited, then the leader's group alone with failed=%s", child);
out:
    gm_free(r);
    gm_free(ev);
    g_free(&x);
}

/* GROUP-21: the spawned helper invites ranks 0 and 1; rank 0 accepts,
 * rank 1 does not answer, the helper ends: rank 0 gets event=complete
 * with rc=1;reason=exited;failed=<helper>. */
static void run_leader_exits(pcf_ctx *c)
{
    gx x;
    if (g_begin(c, &x))
        return;
    char grp[96], sync[96], child[G_ID] = "", pair[G_LIST];
    g_name(&x, "lex", grp, sizeof grp);
    g_name(&x, "lexs", sync, sizeof sync);
    g_ranks(&x, pair, sizeof pair, 3u);
    gm *r = NULL, *ev = NULL;
    const char *args[] = { "lead-exit", grp, sync, pair };
    if ((x.rank < 2 && g_subscribe(&x)) || g_step(&x, 1, 3u) ||
        share_child(&x, 2, args, 4, child, sizeof child))
        goto out;
    if (x.rank < 2) {
        if (g_event(&x, "invited", grp, &ev))
            goto out;
        if (!gm_is(ev, "leader", child)) {
            g_fail(&x, "wrong-leader", "event=invited should name leader=%s: %s", child, ev->show);
            goto out;
        }
    }
    if (x.rank == 0) {
        if (g_join_ok(&x, grp, true, 0, NULL, NULL, &r) || sync_with(&x, sync))
            goto out;
        gm_free(ev);
        ev = NULL;
        /* the helper ends right after the sync: its end is news the server
         * passes on, so the event has 5 s, not the case deadline (a server
         * that never sends it FAILs here instead of timing out) */
        int w = g_wait_until(&x, "group-event", NULL, "complete", grp,
                             pws_now_usec() + 5000ull * 1000, true, &ev);
        if (w == 1)
            g_fail(&x, "no-complete", "no event=complete within 5 s of the leader's end (it "
                                      "accepted, GROUP-21)");
        if (w || g_failure(&x, ev, "event=complete after the leader ended", 1, "exited", child))
            goto out;
        if (g_destruct_ok_tmo(&x, sync, "3000"))
            goto out;
    }
    if (g_step(&x, 3, 1u)) /* the helper has ended */
        goto out;
    if (x.rank == 1) { /* GROUP-25: an invitee that had not answered is told nothing */
        gm_free(r);
        r = NULL;
        if (g_join(&x, grp, true, 0, NULL, NULL, &r) ||
            g_failure(&x, r, "a join after the leader ended", 1, "unknown", NULL))
            goto out;
    }
    g_done(&x, "%s", x.rank == 0 ? "event=complete;rc=1;reason=exited;failed=<the helper>"
                     : x.rank == 1 ? "invited, nothing more; a late join: reason=unknown"
                                   : "no part");
out:
    gm_free(r);
    gm_free(ev);
    g_free(&x);
}

/* GROUP-18 and GROUP-8 with a process that never subscribed (the spawned
 * helper, mode unsub; a rank of this job may have subscribed in an earlier
 * case, and a subscription lasts as long as its connection).  Rank 0
 * invites it (unreachable at once, reported to the subscribed leader),
 * builds a collective group with it, and declines its invitation; the
 * helper's verdict on what reached it comes back in the S2 group. */
static void unsub_flow(pcf_ctx *c, bool grade_helper)
{
    gx x;
    if (g_begin_only(c, &x, 1u, NULL))
        return;
    char s1[96], s2[96], gi[96], gc[96], gl[96], child[G_ID], pair[G_LIST];
    g_name(&x, "us1", s1, sizeof s1);
    g_name(&x, "us2", s2, sizeof s2);
    g_name(&x, "usi", gi, sizeof gi);
    g_name(&x, "usc", gc, sizeof gc);
    g_name(&x, "usl", gl, sizeof gl);
    gm *r = NULL, *ev = NULL;
    const char *args[] = { "unsub", s1, s2, gi, gc, gl, x.me };
    if (g_subscribe(&x) || spawn_helper(&x, args, 7, child, sizeof child) || sync_with(&x, s1))
        goto out;
    const char *two[] = { x.me, child };
    g_list(pair, sizeof pair, two, 2);
    /* GROUP-18: unreachable at once, as an event to the subscribed leader
     * before the invite's response */
    if (g_invite(&x, gi, child, "5000", 0, NULL, NULL, &r) || invite_failed_first(&x, gi, r, &ev))
        goto out;
    if (ev->has_thrid || !gm_is(ev, "proc", child) || !gm_is(ev, "reason", "unreachable")) {
        g_fail(&x, "wrong-reason", "expected proc=%s;reason=unreachable (no thrid): %s", child,
               ev->show);
        goto out;
    }
    if (g_result(&x, r, "group-invite", x.me, NULL, 0, NULL) || g_failed_is(&x, r, child))
        goto out;
    gm_free(r);
    r = NULL;
    gm_free(ev);
    ev = NULL;
    /* the helper's part: a collective group, then its invitation, declined */
    gcons q = { .grp = gc, .method = "collective", .leaders = pair, .timeout = "5000" };
    if (g_construct(&x, &q, &r) || g_result(&x, r, "group-construct with the helper", pair, NULL,
                                            0, NULL))
        goto out;
    gm_free(r);
    r = NULL;
    if (g_event(&x, "invited", gl, &ev))
        goto out;
    if (!gm_is(ev, "leader", child)) {
        g_fail(&x, "wrong-leader", "event=invited should name leader=%s: %s", child, ev->show);
        goto out;
    }
    if (g_join_ok(&x, gl, false, 0, NULL, NULL, &r))
        goto out;
    gm_free(r);
    r = NULL;
    gcons q2 = { .grp = s2, .method = "bootstrap", .nleaders = "2", .timeout = "5000" };
    if (g_construct(&x, &q2, &r))
        goto out;
    const char *verdict = g_info_of(r, "verdict");
    if (!gm_ok(r) || !verdict) {
        g_fail(&x, "sync-failed", "the helper's verdict did not come back: %s", r->show);
        goto out;
    }
    if (strcmp(verdict, "ok") != 0) {
        if (grade_helper) {
            g_fail(&x, "child-saw", "the process that never subscribed: %s", verdict);
            goto out;
        }
        pcf_note(c, "the helper saw: %s (graded by pmi2/group/events-unsubscribed)", verdict);
    }
    if (g_destruct_ok(&x, gi) || g_destruct_ok(&x, gc) || g_destruct_ok(&x, s1) ||
        g_destruct_ok(&x, s2))
        goto out;
    if (grade_helper)
        g_done(&x, "no group-event reached the process that never subscribed (invited, built a "
                   "group, led an invite that was declined)");
    else
        g_done(&x, "invite-failed reason=unreachable, then the leader's group alone with failed=%s",
               child);
out:
    gm_free(r);
    gm_free(ev);
    g_free(&x);
}

static void run_unreachable(pcf_ctx *c) { unsub_flow(c, false); }
static void run_unsubscribed(pcf_ctx *c) { unsub_flow(c, true); }

#define JOB_OUTCOMES                                                                             \
    G_OUTCOMES,                                                                                  \
    { "spawn-refused", PCF_UNSUPPORTED, "SPAWN-8", "the server does not spawn: no other job to take part" }, \
    { "sync-failed", PCF_DEVIATES, "GROUP-6", "a bootstrap group with the spawned job failed" }

static const pcf_case cases[] = {
    { .id = "pmi2/group/cross-job",
      .desc = "ranks 0 and 1 lead, the spawned job's rank 0 is an added member: one group of both jobs",
      .clause = "GROUP-6",
      .expected = "rc=0 with the three processes in canonical order for all three; the child's pair readable",
      .flags = PCF_V2, .min_ranks = 2, .run = run_cross_job,
      .outcomes = { JOB_OUTCOMES,
                    { "child-saw", PCF_DEVIATES, NULL, "the spawned process got another result" },
                    { "same-ctxid", PCF_DEVIATES, "GROUP-15", "two groups share a ctxid" },
                    G_DESTRUCT } },
    { .id = "pmi2/group/participant-exits",
      .desc = "an added member that arrived ends before the construct completes",
      .clause = "GROUP-25",
      .expected = "rank 0 at once: rc=1;reason=exited;errmsg=...;failed=<the spawned process>",
      .flags = PCF_V2, .min_ranks = 2, .run = run_exits_arrived,
      .outcomes = { JOB_OUTCOMES,
                    { "destruct-failed", PCF_DEVIATES, "GROUP-27", "destruct with an ended member refused" } } },
    { .id = "pmi2/group/expected-exits",
      .desc = "an added member that was only expected ends before it arrives",
      .clause = "GROUP-25",
      .expected = "rank 0 at once: rc=1;reason=exited;errmsg=...;failed=<the spawned process>",
      .flags = PCF_V2, .run = run_exits_expected,
      .outcomes = { JOB_OUTCOMES,
                    { "destruct-failed", PCF_DEVIATES, "GROUP-27", "destruct with an ended member refused" } } },
    { .id = "pmi2/group/invitee-exits",
      .desc = "an invited process (the spawned helper) ends instead of answering",
      .clause = "GROUP-20",
      .expected = "event=invite-failed;proc=<helper>;reason=exited, then rc=0 with the leader alone, failed=<helper>",
      .flags = PCF_V2, .run = run_invitee_exits,
      .outcomes = { JOB_OUTCOMES, G_DESTRUCT } },
    { .id = "pmi2/group/leader-exits",
      .desc = "the inviting leader (the spawned helper) ends after rank 0 accepted",
      .clause = "GROUP-21",
      .expected = "rank 0: event=complete;rc=1;reason=exited;errmsg=...;failed=<helper>",
      .flags = PCF_V2, .min_ranks = 2, .run = run_leader_exits,
      .outcomes = { JOB_OUTCOMES,
                    { "wrong-leader", PCF_DEVIATES, "GROUP-18", "event=invited names another leader" },
                    G_DESTRUCT } },
    { .id = "pmi2/group/unreachable",
      .desc = "an invitee that never subscribed (a spawned process) is reported unreachable at once",
      .clause = "GROUP-18",
      .expected = "event=invite-failed;reason=unreachable; then rc=0, members=<leader>, failed=<helper>",
      .flags = PCF_V2, .run = run_unreachable,
      .outcomes = { JOB_OUTCOMES,
                    { "wrong-reason", PCF_DEVIATES, "GROUP-20", "invite-failed with another proc or reason" },
                    G_DESTRUCT } },
    { .id = "pmi2/group/events-unsubscribed",
      .desc = "no group-event reaches a process that never subscribed: invited, in a construct, leading an invite",
      .clause = "GROUP-8",
      .expected = "the helper's collective result comes as a response, its invite's as one with failed=<rank 0>; no event",
      .flags = PCF_V2, .run = run_unsubscribed,
      .outcomes = { JOB_OUTCOMES,
                    { "child-saw", PCF_DEVIATES, NULL, "the process that never subscribed saw an event or a wrong result" },
                    G_DESTRUCT } },
};
PCF_CASES(cases)
