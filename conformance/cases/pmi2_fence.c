/* pmi2/fence: kvs-fence as a collective: one response per fence, visibility
 * across epochs and for a late putter (lazy fences must hold the get,
 * FENCE-3), a get of another rank's key without a fence, and fences counted
 * per process (S5: a duplicate fence must not complete the round). */
#include "pmi2_util.h"

/* Exactly one response per fence: the next request's answer is next. */
static void run_one_response(pcf_ctx *c)
{
    for (int i = 0; i < 3; i++) {
        pmc_enc e;
        p2r r;
        pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-fence");
        if (p2_call(c, &e, "kvs-fence-response", &r))
            return;
        if (!p2_ok(&r)) {
            pcf_observe(c, "fence-refused", "fence %d of 3: %s", i + 1, r.show);
            return;
        }
        pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
        if (p2_call(c, &e, "job-getid-response", &r)) /* a second fence response would be here */
            return;
    }
    pcf_observe(c, "ok", "three fences without puts, one rc=0 response each");
}

/* Keys of two epochs, both visible to every other rank afterwards. */
static void run_two_epochs(pcf_ctx *c)
{
    char key[64], val[64];
    for (int ep = 1; ep <= 2; ep++) {
        snprintf(key, sizeof key, "%s-e%d-r%d", pcf_tag(c), ep, pcf_rank(c));
        snprintf(val, sizeof val, "e%d-%d", ep, pcf_rank(c));
        if (pcf_kvs_put(c, key, val) || pcf_kvs_fence(c))
            return;
    }
    int n = pcf_size(c) < 16 ? pcf_size(c) : 16;
    for (int k = 0; k < n; k++) {
        int r = (pcf_rank(c) + k) % pcf_size(c);
        for (int ep = 1; ep <= 2; ep++) {
            p2r g;
            snprintf(key, sizeof key, "%s-e%d-r%d", pcf_tag(c), ep, r);
            snprintf(val, sizeof val, "e%d-%d", ep, r);
            if (p2_kvs_get(c, key, &g))
                return;
            if (!p2_value_is(&g, val, strlen(val))) {
                pcf_observe(c, "not-visible", "rank %d's epoch-%d key: %s", r, ep, g.show);
                return;
            }
        }
    }
    pcf_observe(c, "ok", "both epochs' keys of %d ranks visible", n);
}

/* Rank 0 puts late; the others fence and read at once.  A barrier fence
 * waits for rank 0; a lazy one must hold the get (FENCE-2, FENCE-3). */
static void run_late_putter(pcf_ctx *c)
{
    char key[64];
    snprintf(key, sizeof key, "%s-late", pcf_tag(c));
    if (pcf_rank(c) == 0) {
        pcf_pause_ms(c, 1000);
        if (pcf_kvs_put(c, key, "late-value") || pcf_kvs_fence(c))
            return;
        pcf_observe(c, "ok", "put after a 1 s delay, then fenced");
        return;
    }
    p2r r;
    if (pcf_kvs_fence(c) || p2_kvs_get(c, key, &r))
        return;
    if (p2_value_is(&r, "late-value", 10))
        pcf_observe(c, "ok", "the late put was visible after the fence");
    else
        pcf_observe(c, "not-visible", "rank 0 put before its fence, yet: %s", r.show);
}

/* A get of another rank's key in the same epoch, with no fence between:
 * any answer (found or not) is fine, an error or a hang is not. */
static void run_unfenced_get(pcf_ctx *c)
{
    char key[64];
    snprintf(key, sizeof key, "%s-uf-r%d", pcf_tag(c), pcf_rank(c));
    if (pcf_kvs_put(c, key, "unfenced"))
        return;
    int peer = (pcf_rank(c) + 1) % pcf_size(c);
    snprintf(key, sizeof key, "%s-uf-r%d", pcf_tag(c), peer);
    p2r r;
    if (p2_kvs_get(c, key, &r))
        return;
    if (p2_hit(&r) && p2_value_is(&r, "unfenced", 8))
        pcf_observe(c, "ok", "visible before the fence");
    else if (p2_any_miss(&r))
        pcf_observe(c, "ok", "not yet visible: %s", r.show);
    else
        pcf_observe(c, "bad-answer", "%s", r.show);
    pcf_kvs_fence(c);
}

/* FENCE-5 (S5): one rank (the double sender) sends two fences back to
 * back; another (the late rank) fences only after a pause, having put a key
 * first.  Whatever the fence style, the key must be visible to the double
 * sender once its first fence is answered: a server that counts fence calls
 * completes the round without the late rank.  The pause only decides
 * whether a counting server is caught, never the verdict of a correct one.
 * Every rank fences twice.  A server that counts per node (Slurm: each
 * stepd counts its own tasks' fences, then one message upstream) shows the
 * defect only when the two share a node; on another node the late rank's
 * node holds the round until it comes.  So the roles are chosen by the
 * node map: the first two ranks of a node that has two (ranks 0 and 1 when
 * every rank is on one host). */
static void dupf_roles(pcf_ctx *c, int *late, int *dbl)
{
    int n = pcf_size(c);
    *late = 0;
    *dbl = 1;
    for (int k = 0; k < pcf_nodes(c); k++) {
        int a = -1;
        for (int q = 0; q < n; q++)
            if (pcf_node_of(c, q) == k) {
                if (a < 0)
                    a = q;
                else {
                    *late = a;
                    *dbl = q;
                    return;
                }
            }
    }
}

static void run_duplicate_fence(pcf_ctx *c)
{
    char key[64], ta[48], tb[48], tg[48];
    snprintf(key, sizeof key, "%s-dupf", pcf_tag(c));
    int late, dbl;
    dupf_roles(c, &late, &dbl);
    if (pcf_rank(c) == late) {
        pcf_pause_ms(c, 1500);
        if (pcf_kvs_put(c, key, "from-rank-0") || pcf_kvs_fence(c) || pcf_kvs_fence(c))
            return;
        pcf_observe(c, "ok", "put, then fenced twice after a pause");
        return;
    }
    if (pcf_rank(c) != dbl) {
        if (pcf_kvs_fence(c) == 0 && pcf_kvs_fence(c) == 0)
            pcf_observe(c, "ok", "fenced twice");
        return;
    }
    snprintf(ta, sizeof ta, "%s-fa", pcf_tag(c));
    snprintf(tb, sizeof tb, "%s-fb", pcf_tag(c));
    snprintf(tg, sizeof tg, "%s-g", pcf_tag(c));
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-fence");
    pmc_enc_str(&e, "thrid", ta);
    if (pcf_send(c, &e))
        return;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-fence");
    pmc_enc_str(&e, "thrid", tb);
    if (pcf_send(c, &e))
        return;
    p2r first;
    if (p2_expect(c, "kvs-fence-response", &first))
        return;
    /* the first round is over for the double sender: the late key must be visible */
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(&e, "thrid", tg);
    pmc_enc_str(&e, "key", key);
    if (pcf_send(c, &e))
        return;
    const char *names[] = { "kvs-fence-response", "kvs-get-response" };
    const char *thrids[] = { first.has_thrid && strcmp(first.thrid, ta) == 0 ? tb : ta, tg };
    p2r rest[2];
    if (p2_collect(c, 2, names, thrids, rest, NULL))
        return;
    if (p2_value_is(&rest[1], "from-rank-0", 11))
        pcf_observe(c, "ok", "rank %d's key was visible after the first fence response%s", late,
                    pcf_nodes(c) > 1 ? " (both ranks on one node)" : "");
    else
        pcf_observe(c, "round-completed-early",
                    "two fences from rank %d completed a round rank %d had not joined%s: %s",
                    dbl, late, pcf_nodes(c) > 1 ? " (both on one node)" : "", rest[1].show);
}

static const pcf_case cases[] = {
    { .id = "pmi2/fence/one-response",
      .desc = "each of three fences (no puts) gets exactly one rc=0 response",
      .clause = "FENCE-1", .expected = "one cmd=kvs-fence-response;rc=0; per kvs-fence",
      .steps = "Every rank, three times: sends kvs-fence (nothing put), which must be answered "
               "rc=0 (else \"fence-refused\"), then job-getid.\n"
               "The answer to each job-getid must be job-getid-response: a second answer to one "
               "fence arriving there instead is \"wrong-response\" (FAIL).",
      .flags = PCF_V2, .run = run_one_response,
      .outcomes = { { "wrong-response", PCF_FAIL, NULL, "a second response to one fence" } } },
    { .id = "pmi2/fence/two-epochs",
      .desc = "keys put in two successive epochs are all visible after the second fence",
      .clause = "FENCE-2", .expected = "found=TRUE for both keys of every other rank",
      .steps = "Every rank puts <tag>-e1-r<rank> = e1-<rank> and fences, then puts "
               "<tag>-e2-r<rank> = e2-<rank> and fences again.\n"
               "Each rank gets both keys of every rank (at most 16, itself included): every value "
               "must come back (else \"not-visible\").",
      .flags = PCF_V2, .run = run_two_epochs },
    { .id = "pmi2/fence/late-putter",
      .desc = "a put by a rank that fences 1 s late is visible to the others after their fence",
      .clause = "FENCE-3",
      .expected = "the get returns the late value (a lazy fence holds the get until rank 0 fenced)",
      .steps = "Rank 0 waits 1 s, then puts <tag>-late = late-value and fences.\n"
               "The other ranks fence at once, then get <tag>-late.\n"
               "The value must be there: a server that answers fences before everyone fenced "
               "(FENCE-3 allows it) must hold that get until rank 0's put is known. Not found is "
               "\"not-visible\" (FENCE-2: FAIL).",
      .flags = PCF_V2, .min_ranks = 2, .run = run_late_putter,
      .outcomes = { { "not-visible", PCF_FAIL, "FENCE-2", "the get missed a key put before its owner's fence" } } },
    { .id = "pmi2/fence/unfenced-get",
      .desc = "a get of another rank's key in the same epoch is answered (found or not)",
      .clause = "FENCE-4", .expected = "found=TRUE or a not-found answer, never an error or a hang",
      .steps = "Every rank puts <tag>-uf-r<rank> = unfenced and, with no fence in between, gets "
               "the next rank's key.\n"
               "Either answer passes: the value (already visible) or a not-found answer; anything "
               "else (an error, no found) is \"bad-answer\"; no answer is a TIMEOUT.\n"
               "Every rank then sends one kvs-fence to leave the case together.",
      .flags = PCF_V2, .run = run_unfenced_get,
      .outcomes = { { "bad-answer", PCF_DEVIATES, NULL, "neither a value nor a not-found answer" } } },
    { .id = "pmi2/fence/duplicate-fence",
      .desc = "two fences from one rank do not complete a round another rank has not joined (S5)",
      .clause = "FENCE-5",
      .expected = "the late rank's key, put before its late fence, is visible to the double sender after its first fence (the two on one node)",
      .steps = "In a launch of its own, two ranks on one node (ranks 0 and 1 on one host; on "
               "several, the first two ranks of the first node that has two): the late rank "
               "waits 1.5 s, puts <tag>-dupf = from-rank-0 and fences twice; every other rank "
               "but the double sender fences twice.\n"
               "The double sender sends two kvs-fence requests back to back (thrids <tag>-fa, "
               "<tag>-fb) and, once the first fence answer comes, kvs-get of <tag>-dupf.\n"
               "The late rank's key must be found: a server that counts fence requests instead "
               "of processes (in the job, or per node) completes the round without it (S5) and "
               "answers not found: \"round-completed-early\".\n"
               "A fence never answered (the rounds out of step) is \"no-answer\", also a FAIL.",
      .flags = PCF_V2 | PCF_DESTRUCTIVE | PCF_COLLECTIVE | PCF_PLACED, .min_ranks = 2,
      .run = run_duplicate_fence,
      /* on a server that counts fence calls, how the rounds go out of step
       * depends on which rank's fences arrive first: one rank may be told
       * of a round it never joined, see it complete early, or wait for a
       * round that cannot complete.  Each is the same finding. */
      .outcomes = { { "job-killed", PCF_FAIL, "ERR-1", "the job ended" },
                    { "sender-killed", PCF_FAIL, "ERR-1", "a rank was killed" },
                    { "no-answer", PCF_FAIL, NULL,
                      "a fence was never answered: the rounds went out of step" } } },
};
PCF_CASES(cases)
