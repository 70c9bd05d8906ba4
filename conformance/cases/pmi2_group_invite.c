/* pmi2/group, the invite method (SPEC.md §12.4) and the events it brings
 * (§12.2): invitations and completion delivered to subscribed invitees,
 * declines reported to the leader before the invite completes, events
 * without thrid, the invite's timeout, a join without invitation.
 * Rank 0 leads; the invitees are the other ranks.  A subscription lasts
 * as long as the connection: the cases that need a process that never
 * subscribed use a spawned one (pmi2_group_job.c).  Every case reads
 * PMI_ext_groups first (GROUP-3). */
#include "pmi2_group.h"

/* Leader: send the invite, collect the invite-failed events expected
 * (procs listed in `fails`, each with its reason) and the response; every
 * event must arrive before the response (GROUP-20).  0 with *res, or -1. */
static int lead_invite(gx *x, const char *grp, const char *members, const char *timeout,
                       int nfail, const char *const *fprocs, const char *const *freasons,
                       int ninfo, const char *const *ik, const char *const *iv, gm **res)
{
    if (g_invite(x, grp, members, timeout, ninfo, ik, iv, res))
        return -1;
    /* the events came before the response: they are kept in the mailbox */
    for (int i = 0; i < nfail; i++) {
        gm *ev = g_take_kept(x, "invite-failed", grp, fprocs[i]);
        if (!ev) {
            gm *late = NULL;
            uint64_t dl = pws_now_usec() + 300000;
            int w = g_wait_until(x, "group-event", NULL, "invite-failed", grp, dl, true, &late);
            if (w < 0)
                return -1;
            int rc = g_fail(x, w == 0 ? "late-event" : "no-event",
                            "no event=invite-failed for %s before the invite's response%s%s",
                            fprocs[i], w == 0 ? "; it came after: " : "",
                            w == 0 ? late->show : "");
            gm_free(late);
            return rc;
        }
        int rc = 0;
        if (ev->has_thrid)
            rc = g_fail(x, "event-form", "an event with thrid (GROUP-9): %s", ev->show);
        else if (!gm_is(ev, "reason", freasons[i]))
            rc = g_fail(x, "wrong-reason", "invite-failed for %s: reason should be %s: %s",
                        fprocs[i], freasons[i], ev->show);
        gm_free(ev);
        if (rc)
            return rc;
    }
    return 0;
}

/* Invitee: the invitation from `leader`, checked (GROUP-18, GROUP-9). */
static int await_invite(gx *x, const char *grp, const char *leader)
{
    gm *ev;
    if (g_event(x, "invited", grp, &ev))
        return -1;
    int rc = 0;
    if (ev->has_thrid)
        rc = g_fail(x, "event-form", "an event with thrid (GROUP-9): %s", ev->show);
    else if (!gm_is(ev, "leader", leader))
        rc = g_fail(x, "wrong-leader", "event=invited should name leader=%s: %s", leader, ev->show);
    gm_free(ev);
    return rc;
}

/* Invitee that accepted: event=complete with the result (GROUP-21). */
static int await_complete(gx *x, const char *grp, const char *members, const ginfo *info,
                          int ninfo, unsigned long long *cx)
{
    gm *ev;
    if (g_event(x, "complete", grp, &ev))
        return -1;
    int rc = 0;
    if (ev->has_thrid)
        rc = g_fail(x, "event-form", "an event with thrid (GROUP-9): %s", ev->show);
    else
        rc = g_result(x, ev, "event=complete", members, info, ninfo, cx);
    gm_free(ev);
    return rc;
}

/* The ranks in `mask` subscribe; every rank then knows they did. */
static int subscribed(gx *x, unsigned mask, int seq)
{
    if (g_in(x, mask) && g_subscribe(x))
        return -1;
    return g_step(x, seq, mask);
}

static void who_of(int r, char *buf, size_t n) { snprintf(buf, n, "%s-%d", r ? "joined" : "leader", r); }

/* GROUP-21: rank 0 invites every other rank, each accepts with a pair. */
static void run_invite(pcf_ctx *c)
{
    gx x;
    if (g_begin(c, &x))
        return;
    char grp[96], lead[G_ID], invitees[G_LIST], canon[G_LIST], val[32];
    g_name(&x, "inv", grp, sizeof grp);
    g_id(&x, 0, lead, sizeof lead);
    g_ranks(&x, invitees, sizeof invitees, g_all(&x) & ~1u);
    g_ranks(&x, canon, sizeof canon, g_all(&x));
    who_of(x.rank, val, sizeof val);
    const char *ik[] = { "who" }, *iv[] = { val };
    gwant want = { .n = 0 };
    g_want_add(&x, &want, g_all(&x), "who", who_of);
    gm *res = NULL;
    unsigned long long cx = 0;
    if (subscribed(&x, g_all(&x), 1))
        goto out;
    if (x.rank == 0) {
        if (lead_invite(&x, grp, invitees, NULL, 0, NULL, NULL, 1, ik, iv, &res) ||
            g_result(&x, res, "group-invite", canon, want.w, want.n, &cx))
            goto out;
        if (gm_get(res, "failed")) {
            g_fail(&x, "wrong-failed", "every invitee accepted, yet: %s", res->show);
            goto out;
        }
    } else if (await_invite(&x, grp, lead) || g_join_ok(&x, grp, true, 1, ik, iv, &res) ||
               await_complete(&x, grp, canon, want.w, want.n, &cx))
        goto out;
    if (g_agree_destruct(&x, 2, grp, cx))
        goto out;
    g_done(&x, "%s: ctxid=%llu, members=%s", x.rank ? "event=complete" : "group-invite-response",
           cx, canon);
out:
    gm_free(res);
    g_free(&x);
}

/* Rank 0 invites ranks 1 and 2; rank 1 accepts, rank 2 declines.  `decline`
 * (GROUP-20) grades what the decline brings: failed=<rank 2> in the
 * leader's result, both joins rc=0, no event to rank 2 afterwards; without
 * it (GROUP-9) only the three events' form and course are graded. */
static void decline_flow(pcf_ctx *c, bool decline)
{
    gx x;
    if (g_begin(c, &x))
        return;
    char grp[96], lead[G_ID], invitees[G_LIST], canon[G_LIST], r2[G_ID];
    g_name(&x, decline ? "decl" : "evf", grp, sizeof grp);
    g_id(&x, 0, lead, sizeof lead);
    g_id(&x, 2, r2, sizeof r2);
    g_ranks(&x, invitees, sizeof invitees, 6u);
    g_ranks(&x, canon, sizeof canon, 3u);
    gm *res = NULL;
    const char *fp[] = { r2 }, *fr[] = { "declined" };
    if (subscribed(&x, 7u, 1))
        goto out;
    if (x.rank == 0) {
        /* lead_invite checks the invite-failed event's form */
        if (lead_invite(&x, grp, invitees, NULL, 1, fp, fr, 0, NULL, NULL, &res) ||
            g_result(&x, res, "group-invite", canon, NULL, 0, NULL) ||
            (decline && g_failed_is(&x, res, r2)))
            goto out;
    } else if (x.rank < 3) {
        bool accept = x.rank == 1;
        if (await_invite(&x, grp, lead) ||
            (decline ? g_join_ok(&x, grp, accept, 0, NULL, NULL, &res)
                     : g_join(&x, grp, accept, 0, NULL, NULL, &res)) ||
            (accept && await_complete(&x, grp, canon, NULL, 0, NULL)))
            goto out;
    }
    if (g_step(&x, 2, 3u)) /* the invite is over */
        goto out;
    if (decline && x.rank == 2 && g_nothing_yet(&x, "group-event", "never: it declined"))
        goto out;
    if (x.rank < 2 && g_destruct_ok(&x, grp))
        goto out;
    if (decline)
        g_done(&x, "%s", x.rank == 0 ? "invite-failed reason=declined, then the result with failed"
                         : x.rank == 1 ? "accepted, event=complete"
                         : x.rank == 2 ? "declined, no event=complete" : "no part");
    else
        g_done(&x, "%s", x.rank == 0 ? "event=invite-failed without thrid"
                         : x.rank == 1 ? "event=invited and event=complete without thrid"
                         : x.rank == 2 ? "event=invited without thrid" : "no part");
out:
    gm_free(res);
    g_free(&x);
}

/* GROUP-20: the leader hears of rank 2's decline before its invite
 * completes with rank 1. */
static void run_decline(pcf_ctx *c) { decline_flow(c, true); }

/* GROUP-9: the three kinds of event carry no thrid and name event first. */
static void run_event_form(pcf_ctx *c) { decline_flow(c, false); }

/* GROUP-24 for an invite (GROUP-20): rank 1 is invited with timeout=300
 * and does not answer; the leader hears reason=timeout and its invite
 * completes without rank 1, whose late join is then refused (GROUP-19). */
enum { INV_TMO_MS = 300, LATE_SLACK_MS = 500 };

static void run_invite_timeout(pcf_ctx *c)
{
    gx x;
    if (g_begin(c, &x))
        return;
    x.funnel = "deviates"; /* GROUP-24 reads as MAY */
    char grp[96], lead[G_ID], r1[G_ID], tmo[16];
    g_name(&x, "itmo", grp, sizeof grp);
    g_id(&x, 0, lead, sizeof lead);
    g_id(&x, 1, r1, sizeof r1);
    snprintf(tmo, sizeof tmo, "%d", INV_TMO_MS);
    gm *res = NULL;
    const char *fp[] = { r1 }, *fr[] = { "timeout" };
    if (subscribed(&x, 3u, 1))
        goto out;
    if (x.rank == 0) {
        uint64_t t0 = pws_now_usec();
        if (lead_invite(&x, grp, r1, tmo, 1, fp, fr, 0, NULL, NULL, &res))
            goto out;
        unsigned ms = (unsigned)((pws_now_usec() - t0) / 1000);
        if (g_result(&x, res, "group-invite", x.me, NULL, 0, NULL))
            goto out;
        if (g_failed_is(&x, res, r1))
            goto out;
        if (ms + 5 < INV_TMO_MS) {
            g_fail(&x, "early", "timeout=%d, yet the invite completed after %u ms", INV_TMO_MS, ms);
            goto out;
        }
        if (ms > INV_TMO_MS + 100 + LATE_SLACK_MS) {
            g_fail(&x, "late", "timeout=%d: completed after %u ms (100 ms allowed, %d for load)",
                   INV_TMO_MS, ms, LATE_SLACK_MS);
            goto out;
        }
    } else if (x.rank == 1 && await_invite(&x, grp, lead))
        goto out;
    if (g_step(&x, 2, 1u)) /* the invite is over */
        goto out;
    if (x.rank == 1) {
        if (g_join(&x, grp, true, 0, NULL, NULL, &res) ||
            g_failure(&x, res, "group-join after the invite timed out", 1, "unknown", NULL))
            goto out;
        if (g_nothing_yet(&x, "group-event", "never: this invitee timed out"))
            goto out;
    }
    if (x.rank == 0 && g_destruct_ok(&x, grp))
        goto out;
    g_done(&x, "%s", x.rank == 0 ? "invite-failed reason=timeout, then the leader's group alone"
                     : x.rank == 1 ? "a join after the timeout: reason=unknown" : "no part");
out:
    gm_free(res);
    g_free(&x);
}

/* GROUP-19: a join without invitation is refused with reason=unknown. */
static void run_join_unknown(pcf_ctx *c)
{
    gx x;
    if (g_begin(c, &x))
        return;
    x.funnel = "deviates"; /* GROUP-19 reads as MAY */
    char grp[96];
    snprintf(grp, sizeof grp, "pcf-%s-nojoin-r%d", x.tag, x.rank);
    gm *res = NULL;
    if (g_subscribe(&x) || g_join(&x, grp, true, 0, NULL, NULL, &res) ||
        g_failure(&x, res, "group-join without invitation", 1, "unknown", NULL))
        goto out;
    g_done(&x, "%s", res->show);
out:
    gm_free(res);
    g_free(&x);
}

static const pcf_case cases[] = {
    { .id = "pmi2/group/invite",
      .desc = "rank 0 invites every other rank, each accepts with a pair: one group for all",
      .clause = "GROUP-21",
      .expected = "event=invited (leader=rank 0), join rc=0, the leader's response and event=complete alike",
      .flags = PCF_V2, .min_ranks = 2, .run = run_invite,
      .outcomes = { G_OUTCOMES,
                    { "wrong-leader", PCF_DEVIATES, "GROUP-18", "event=invited names another leader" },
                    { "event-form", PCF_DEVIATES, "GROUP-9", "an event with thrid" },
                    { "differs", PCF_DEVIATES, "GROUP-14", "the members got different results" },
                    G_DESTRUCT } },
    { .id = "pmi2/group/decline",
      .desc = "of two invitees one declines: invite-failed reason=declined before the result",
      .clause = "GROUP-20",
      .expected = "event=invite-failed;proc=<r2>;reason=declined, then rc=0 with the leader, rank 1 and failed=<r2>",
      .flags = PCF_V2, .min_ranks = 3, .run = run_decline,
      .outcomes = { G_OUTCOMES,
                    { "early", PCF_DEVIATES, "GROUP-21", "an event to the invitee that declined" },
                    { "event-form", PCF_DEVIATES, "GROUP-9", "an event with thrid" },
                    G_DESTRUCT } },
    { .id = "pmi2/group/event-form",
      .desc = "invited, invite-failed and complete events carry no thrid",
      .clause = "GROUP-9",
      .expected = "cmd=group-event with event=..., without thrid, each where the invite's course puts it",
      .flags = PCF_V2, .min_ranks = 3, .run = run_event_form,
      .outcomes = { G_OUTCOMES, G_DESTRUCT } },
    { .id = "pmi2/group/invite-timeout",
      .desc = "an invitee that does not answer within the invite's timeout (300 ms) fails with reason=timeout",
      .clause = "GROUP-24",
      .expected = "invite-failed reason=timeout, rc=0 with the leader alone after 300-400 ms; a late join: unknown",
      .flags = PCF_V2, .min_ranks = 2, .run = run_invite_timeout,
      .outcomes = { G_OUTCOMES, G_FUNNEL } },
    { .id = "pmi2/group/join-unknown",
      .desc = "group-join with no invitation to that group outstanding is refused",
      .clause = "GROUP-19",
      .expected = "cmd=group-join-response;rc=1;reason=unknown;errmsg=...",
      .flags = PCF_V2, .run = run_join_unknown,
      .outcomes = { G_OUTCOMES, G_FUNNEL } },
};
PCF_CASES(cases)
