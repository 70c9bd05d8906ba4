/* pmi2/nodeattr: info-putnodeattr / info-getnodeattr: the found and
 * not-found forms, wait=TRUE answered by a later put (the caller's own or
 * another process's on the same node), waiting that does not block other
 * requests, the wait default, node scope, and the draft's predefined
 * localRanksCount / localRanks checked against the ranks' hosts.  Which
 * ranks share a node is the harness's node map (pcf_node_of: each rank's
 * host), not the server's word. */
#include "pmi2_util.h"

static int putattr(pcf_ctx *c, const char *thrid, const char *key, const char *val, p2r *r)
{
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "info-putnodeattr");
    if (thrid)
        pmc_enc_str(&e, "thrid", thrid);
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", val);
    return thrid ? pcf_send(c, &e) : p2_call(c, &e, "info-putnodeattr-response", r);
}

/* wait: 0 FALSE, 1 TRUE, -1 absent, 2 the lower-case "true" */
static void getattr_begin(pmc_enc *e, const char *thrid, const char *key, int wait)
{
    pmc_enc_begin(e, PMC_WIRE_V2, "info-getnodeattr");
    if (thrid)
        pmc_enc_str(e, "thrid", thrid);
    pmc_enc_str(e, "key", key);
    if (wait == 2)
        pmc_enc_str(e, "wait", "true"); /* BOOL-2: any case is a boolean */
    else if (wait >= 0)
        pmc_enc_bool(e, "wait", wait == 1);
}

static int getattr(pcf_ctx *c, const char *key, int wait, p2r *r)
{
    pmc_enc e;
    getattr_begin(&e, NULL, key, wait);
    return p2_call(c, &e, "info-getnodeattr-response", r);
}

static void run_put(pcf_ctx *c)
{
    char key[64];
    p2r r;
    snprintf(key, sizeof key, "%s-na-r%d", pcf_tag(c), pcf_rank(c));
    if (putattr(c, NULL, key, "v", &r))
        return;
    if (p2_ok(&r))
        pcf_observe(c, "ok", "%s", r.show);
    else
        pcf_observe(c, "refused", "%s", r.show);
}

static void run_get_own(pcf_ctx *c)
{
    char key[64], val[64];
    p2r r;
    snprintf(key, sizeof key, "%s-nao-r%d", pcf_tag(c), pcf_rank(c));
    snprintf(val, sizeof val, "own-%d", pcf_rank(c));
    if (putattr(c, NULL, key, val, &r) || getattr(c, key, 0, &r))
        return;
    if (p2_hit(&r) && p2_value_is(&r, val, strlen(val)))
        pcf_observe(c, "ok", "%s", r.show);
    else
        pcf_observe(c, "not-found", "put %s, then: %s", key, r.show);
}

static void missing(pcf_ctx *c, int wait)
{
    char key[64];
    p2r r;
    snprintf(key, sizeof key, "%s-nomiss-r%d", pcf_tag(c), pcf_rank(c));
    /* NODEATTR-6: without wait=TRUE the answer comes at once; 3 s is plenty */
    uint64_t dl = pcf_deadline(c), soon = pws_deadline_ms(3000);
    pmc_enc e;
    getattr_begin(&e, NULL, key, wait);
    if (pcf_send(c, &e))
        return;
    pmc_msg m;
    pmc_error err;
    pws_result w = pws_recv(pcf_session(c), soon < dl ? soon : dl, &m, &err);
    if (w == PWS_TIMEOUT) {
        pcf_observe(c, "held", "a get of a missing attribute %s was held like wait=TRUE",
                    wait < 0 ? "without wait" : "with wait=FALSE");
        return;
    }
    if (w != PWS_MSG) {
        pcf_observe(c, w == PWS_EOF ? "closed" : "bad-response", "%s", pws_result_name(w));
        return;
    }
    if (!pmc_slice_eq(m.name, "info-getnodeattr-response")) {
        char b[300];
        pcf_observe(c, "wrong-response", "%s", pcf_show(&m, b, sizeof b));
        return;
    }
    p2_take(&m, &r);
    if (p2_miss(&r))
        pcf_observe(c, "ok", "%s", r.show);
    else if (p2_fail(&r))
        pcf_observe(c, "rc-nonzero", "%s", r.show);
    else
        pcf_observe(c, "found-wrong", "%s", r.show);
}

static void run_not_found(pcf_ctx *c) { missing(c, 0); }
static void run_wait_default(pcf_ctx *c) { missing(c, -1); }

/* wait=TRUE, then the caller itself puts the attribute (thrids on both):
 * the held get is answered with the value, and the put is answered although
 * the get is still waiting (NODEATTR-5).  `other` adds a job-getid in
 * between, `lower` spells wait as "true". */
static void wait_then_put(pcf_ctx *c, bool other, bool lower, bool check_thrids)
{
    char key[64], tw[48], tp[48], to[48];
    snprintf(key, sizeof key, "%s-naw-r%d", pcf_tag(c), pcf_rank(c));
    snprintf(tw, sizeof tw, "%s-w", pcf_tag(c));
    snprintf(tp, sizeof tp, "%s-p", pcf_tag(c));
    snprintf(to, sizeof to, "%s-o", pcf_tag(c));
    pmc_enc e;
    getattr_begin(&e, tw, key, lower ? 2 : 1);
    if (pcf_send(c, &e))
        return;
    p2r r[3];
    if (other) {
        pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
        pmc_enc_str(&e, "thrid", to);
        if (pcf_send(c, &e))
            return;
        /* the waiting get must not hold this one up: it is the next answer */
        pmc_msg m;
        if (pcf_expect(c, "job-getid-response", &m)) {
            pcf_observe(c, "blocked", "job-getid was not answered while a get waited");
            return;
        }
    }
    if (putattr(c, tp, key, "arrived", NULL))
        return;
    const char *names[] = { "info-getnodeattr-response", "info-putnodeattr-response" };
    const char *thrids[] = { tw, tp };
    int order[2];
    bool got[2];
    int rc = p2_collect_got(c, 2, names, thrids, r, order, got);
    if (rc == 1) {
        /* Which answer is missing says which clause broke: neither means
         * the get was held (so wait was read as TRUE, BOOL-2 holds) and the
         * put queued behind it was never served (NODEATTR-5); the put alone
         * answered means the put did not release the held get (NODEATTR-4). */
        if (!got[0] && !got[1])
            pcf_observe(c, "blocked",
                        "neither the get (wait=%s, held: read as TRUE) nor the info-putnodeattr "
                        "sent behind it was answered: the server stopped serving this "
                        "connection while the get waited",
                        lower ? "true" : "TRUE");
        else if (got[1])
            pcf_observe(c, "not-released", "the put was answered (%s) but the held get never was",
                        r[1].show);
        else
            pcf_observe(c, "no-answer", "the get was answered (%s), the put sent after it never was",
                        r[0].show);
        return;
    }
    if (rc)
        return;
    if (!p2_ok(&r[1])) {
        pcf_observe(c, "put-refused", "%s", r[1].show);
        return;
    }
    if (!p2_hit(&r[0]) || !p2_value_is(&r[0], "arrived", 7)) {
        pcf_observe(c, lower ? "read-as-false" : "not-waited",
                    "wait=%s for a missing attribute was answered %s", lower ? "true" : "TRUE",
                    r[0].show);
        return;
    }
    if (check_thrids && (!r[0].has_thrid || strcmp(r[0].thrid, tw) != 0)) {
        pcf_observe(c, "thrid-missing", "the held response lost its thrid: %s", r[0].show);
        return;
    }
    pcf_observe(c, "ok", "the waiting get was answered %s the put: %s",
                order[0] == 0 ? "before the answer to" : "after", r[0].show);
}

static void run_wait_own(pcf_ctx *c) { wait_then_put(c, false, false, false); }
static void run_wait_nonblocking(pcf_ctx *c) { wait_then_put(c, true, false, false); }
static void run_wait_lower(pcf_ctx *c) { wait_then_put(c, false, true, false); }
static void run_wait_thrid(pcf_ctx *c) { wait_then_put(c, true, false, true); }

static void run_wait_existing(pcf_ctx *c)
{
    char key[64];
    p2r r;
    snprintf(key, sizeof key, "%s-nae-r%d", pcf_tag(c), pcf_rank(c));
    if (putattr(c, NULL, key, "here", &r) || getattr(c, key, 1, &r))
        return;
    if (p2_value_is(&r, "here", 4))
        pcf_observe(c, "ok", "%s", r.show);
    else
        pcf_observe(c, "not-found", "%s", r.show);
}

/* The lowest rank sharing this rank's node, other than itself; -1 none. */
static int node_peer(const int *node, int size, int me)
{
    for (int r = 0; r < size; r++)
        if (r != me && node[r] == node[me])
            return r;
    return -1;
}

/* Rank 0 waits on an attribute that a same-node peer puts after a fence. */
static void run_wait_peer(pcf_ctx *c)
{
    int size = pcf_size(c), me = pcf_rank(c);
    int *node = calloc((size_t)size, sizeof *node);
    if (!node) {
        pcf_observe(c, "harness-error", "out of memory");
        return;
    }
    int got = p2_host_nodes(c, node);
    int peer = got == 0 ? node_peer(node, size, 0) : -1;
    char key[64], ready[64], tw[48], tp[48], tf[48];
    snprintf(key, sizeof key, "%s-nap", pcf_tag(c));
    snprintf(ready, sizeof ready, "%s-nap-ready", pcf_tag(c));
    snprintf(tw, sizeof tw, "%s-w", pcf_tag(c));
    snprintf(tp, sizeof tp, "%s-p", pcf_tag(c));
    snprintf(tf, sizeof tf, "%s-f", pcf_tag(c));
    if (got < 0) {
        pcf_kvs_fence(c);
        goto out;
    }
    if (me == 0 && peer > 0) {
        /* the waiting get goes first; then "ready" and the fence (tagged,
         * since the get is still outstanding) */
        pmc_enc e;
        getattr_begin(&e, tw, key, 1);
        if (pcf_send(c, &e))
            goto out;
        pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
        pmc_enc_str(&e, "thrid", tp);
        pmc_enc_str(&e, "key", ready);
        pmc_enc_str(&e, "value", "1");
        if (pcf_send(c, &e))
            goto out;
        pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-fence");
        pmc_enc_str(&e, "thrid", tf);
        if (pcf_send(c, &e))
            goto out;
        const char *names[] = { "info-getnodeattr-response", "kvs-put-response",
                                "kvs-fence-response" };
        const char *thrids[] = { tw, tp, tf };
        p2r r[3];
        bool got[3];
        int rc = p2_collect_got(c, 3, names, thrids, r, NULL, got);
        if (rc == 1) {
            /* the kvs-put behind the held get needs nobody else: unanswered,
             * the server stopped serving this connection (NODEATTR-5), and
             * the fence behind it never reached the others either */
            if (!got[1])
                pcf_observe(c, "blocked",
                            "the kvs-put sent behind the waiting get was not answered%s: the "
                            "server stopped serving this connection while the get waited (so "
                            "its kvs-fence never reached the other ranks either)",
                            got[0] ? "" : ", nor the get");
            else if (!got[2])
                pcf_observe(c, "no-answer", "the kvs-fence was not answered (get %s, put %s)",
                            got[0] ? "answered" : "held", r[1].show);
            else
                pcf_observe(c, "not-released",
                            "the put and the fence were answered, the peer's put did not release "
                            "the held get");
            goto out;
        }
        if (rc)
            goto out;
        if (p2_value_is(&r[0], "from-peer", 9))
            pcf_observe(c, "ok", "rank %d's put answered the waiting get", peer);
        else
            pcf_observe(c, "not-waited", "wait=TRUE answered %s", r[0].show);
        goto out;
    }
    if (pcf_kvs_fence(c))
        goto out;
    if (me == peer) {
        p2r r;
        if (p2_kvs_get(c, ready, &r))
            goto out;
        if (!p2_hit(&r)) {
            pcf_observe(c, "harness-error", "rank 0's ready key is not visible: %s", r.show);
            goto out;
        }
        if (putattr(c, NULL, key, "from-peer", &r))
            goto out;
        pcf_observe(c, p2_ok(&r) ? "ok" : "put-refused", "%s", r.show);
    } else if (peer < 0 && me == 0) {
        pcf_observe(c, "no-peer", "no other rank on rank 0's node: nothing to test");
    }
out:
    free(node);
}

/* A same-node peer sees the attribute; a rank on another node does not. */
static void scope(pcf_ctx *c, bool same)
{
    int size = pcf_size(c), me = pcf_rank(c);
    int *node = calloc((size_t)size, sizeof *node);
    if (!node) {
        pcf_observe(c, "harness-error", "out of memory");
        return;
    }
    int got = p2_host_nodes(c, node);
    char key[64];
    snprintf(key, sizeof key, "%s-nas-r0", pcf_tag(c));
    p2r r;
    if (got < 0) {
        pcf_kvs_fence(c);
        goto out;
    }
    if (me == 0 && putattr(c, NULL, key, "rank0", &r)) {
        pcf_kvs_fence(c);
        goto out;
    }
    if (p2_step(c, 0, 1)) /* rank 0's put happens before the others look */
        goto out;
    if (got == 1) {
        if (me == 0)
            pcf_observe(c, "undetermined", "no node map and PMI_process_mapping gives none");
        goto out;
    }
    if (me == 0 || (node[me] == node[0]) != same)
        goto out;
    if (getattr(c, key, 0, &r))
        goto out;
    if (same) {
        if (p2_value_is(&r, "rank0", 5))
            pcf_observe(c, "ok", "rank %d on node %d sees rank 0's attribute", me, node[me]);
        else
            pcf_observe(c, "not-found", "same node as rank 0, yet: %s", r.show);
    } else {
        if (p2_hit(&r))
            pcf_observe(c, "leaked", "rank %d on node %d sees node %d's attribute: %s", me,
                        node[me], node[0], r.show);
        else
            pcf_observe(c, "ok", "rank %d on node %d does not see node %d's attribute", me,
                        node[me], node[0]);
    }
out:
    if (me == 0 && got == 0 && !pcf_observed(c)) {
        int others = 0;
        for (int q = 1; q < size; q++)
            others += (node[q] == node[0]) == same;
        if (!others)
            pcf_observe(c, "undetermined", "no rank %s rank 0's node",
                        same ? "shares" : "is off");
        else
            pcf_observe(c, "ok", "put the attribute; %d ranks check it", others);
    }
    free(node);
}

static void run_same_node(pcf_ctx *c) { scope(c, true); }
static void run_other_node(pcf_ctx *c) { scope(c, false); }

/* localRanksCount / localRanks, when provided (NODEATTR-9). */
static void local_ranks(pcf_ctx *c, bool list)
{
    int size = pcf_size(c), me = pcf_rank(c);
    int *node = calloc((size_t)size, sizeof *node);
    if (!node) {
        pcf_observe(c, "harness-error", "out of memory");
        return;
    }
    p2r r;
    int got = p2_host_nodes(c, node);
    if (got < 0 || getattr(c, list ? "localRanks" : "localRanksCount", 0, &r))
        goto out;
    if (!p2_hit(&r)) {
        pcf_observe(c, "not-provided", "%s", r.show);
        goto out;
    }
    char expect[4096] = "";
    size_t w = 0;
    int count = 0;
    for (int q = 0; q < size && got == 0; q++)
        if (node[q] == node[me]) {
            count++;
            if (w < sizeof expect)
                w += (size_t)snprintf(expect + w, sizeof expect - w, w ? ",%d" : "%d", q);
        }
    if (!list) {
        char *end;
        long v = strtol(r.value, &end, 10);
        const char *ln = getenv("MPI_LOCALNRANKS");
        if (!r.value[0] || *end || v < 1)
            pcf_observe(c, "malformed", "localRanksCount=%s is not a count", r.value);
        else if (got == 0 && v != count)
            pcf_observe(c, "inconsistent", "localRanksCount=%ld, this host has %d ranks", v,
                        count);
        else if (ln && *ln && atol(ln) != v)
            pcf_observe(c, "inconsistent", "localRanksCount=%ld, MPI_LOCALNRANKS=%s", v, ln);
        else
            pcf_observe(c, "ok", "localRanksCount=%ld", v);
        goto out;
    }
    /* comma-separated ascending decimals that include this rank */
    const char *p = r.value;
    long prev = -1;
    bool mine = false, ok = *p != 0;
    while (ok && *p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || (*end && *end != ',') || v <= prev || v >= size)
            ok = false;
        mine |= v == me;
        prev = v;
        p = *end ? end + 1 : end;
    }
    if (!ok || !mine)
        pcf_observe(c, "malformed", "localRanks=%s (not ascending ranks including %d)", r.value,
                    me);
    else if (got == 0 && strcmp(expect, r.value) != 0)
        pcf_observe(c, "inconsistent", "localRanks=%s, this host has %s", r.value, expect);
    else
        pcf_observe(c, "ok", "localRanks=%s", r.value);
out:
    free(node);
}

static void run_local_count(pcf_ctx *c) { local_ranks(c, false); }
static void run_local_list(pcf_ctx *c) { local_ranks(c, true); }

static const pcf_case cases[] = {
    { .id = "pmi2/nodeattr/put", .desc = "info-putnodeattr is answered rc=0",
      .clause = "NODEATTR-1", .expected = "cmd=info-putnodeattr-response;rc=0;",
      .steps = "Every rank sends info-putnodeattr with key=<tag>-na-r<rank> and value=v.\n"
               "rc=0 passes; rc != 0 for this ordinary attribute is \"refused\".",
      .flags = PCF_V2, .run = run_put,
      .outcomes = { { "refused", PCF_DEVIATES, NULL, "rc != 0 for an ordinary attribute" } } },
    { .id = "pmi2/nodeattr/get-own",
      .desc = "an attribute the caller put is returned with rc=0;found=TRUE;value=",
      .clause = "NODEATTR-2", .expected = "found=TRUE with the value put",
      .steps = "Every rank puts the node attribute <tag>-nao-r<rank> = own-<rank> "
               "(info-putnodeattr).\n"
               "It sends info-getnodeattr for that key with wait=FALSE: "
               "rc=0;found=TRUE;value=own-<rank> passes, anything else is \"not-found\".",
      .flags = PCF_V2, .run = run_get_own },
    { .id = "pmi2/nodeattr/not-found",
      .desc = "a missing attribute with wait=FALSE is answered rc=0;found=FALSE at once",
      .clause = "NODEATTR-3", .expected = "cmd=info-getnodeattr-response;rc=0;found=FALSE;",
      .steps = "Every rank sends info-getnodeattr with wait=FALSE for <tag>-nomiss-r<rank>, an "
               "attribute nobody put.\n"
               "The answer must come at once (within 3 s; else \"held\", NODEATTR-6: FAIL).\n"
               "rc=0;found=FALSE passes; rc != 0 is \"rc-nonzero\" (NODEATTR-3 asks for rc=0: "
               "NON-STRICT); found=TRUE or no found is \"found-wrong\" (FAIL).",
      .flags = PCF_V2, .run = run_not_found,
      .outcomes = { { "rc-nonzero", PCF_DEVIATES, NULL, "not found reported with rc != 0 (H3)" },
                    { "held", PCF_FAIL, "NODEATTR-6", "held although wait=FALSE" },
                    { "found-wrong", PCF_FAIL, "NODEATTR-2", "found=TRUE or no found" } } },
    { .id = "pmi2/nodeattr/wait-default",
      .desc = "a get without wait is not held: a missing attribute is answered at once",
      .clause = "NODEATTR-6", .expected = "a not-found answer within 3 s",
      .steps = "Every rank sends info-getnodeattr without any wait key for <tag>-nomiss-r<rank>, "
               "an attribute nobody put.\n"
               "An absent wait is wait=FALSE (NODEATTR-6): any not-found answer within 3 s passes "
               "(rc != 0 included; its form is graded by pmi2/nodeattr/not-found); no answer by "
               "then is \"held\".",
      .flags = PCF_V2, .run = run_wait_default,
      .outcomes = { { "rc-nonzero", PCF_PASS, NULL, "answered at once (rc != 0: see not-found)" },
                    { "held", PCF_DEVIATES, NULL, "held as if wait=TRUE" },
                    { "found-wrong", PCF_FAIL, "NODEATTR-2", "found=TRUE or no found" } } },
    { .id = "pmi2/nodeattr/wait-own-put",
      .desc = "wait=TRUE on a missing attribute is answered by the caller's own later put",
      .clause = "NODEATTR-4", .expected = "found=TRUE;value=arrived after the put",
      .steps = "Every rank sends info-getnodeattr with wait=TRUE and thrid=<tag>-w for "
               "<tag>-naw-r<rank>, an attribute that does not exist yet, and does not wait for "
               "the answer.\n"
               "It then puts that attribute itself (info-putnodeattr, thrid=<tag>-p, "
               "value=arrived).\n"
               "It collects both answers in any order: the put must be rc=0 (else "
               "\"put-refused\") and the held get must answer found=TRUE;value=arrived (else "
               "\"not-waited\": answered before the attribute existed).\n"
               "Neither answer by the deadline is \"blocked\" (NODEATTR-5: the put sent behind "
               "the held get was not served); the put's answer alone is \"not-released\" "
               "(NODEATTR-4, TIMEOUT).",
      .flags = PCF_V2, .run = run_wait_own,
      .outcomes = { { "not-waited", PCF_DEVIATES, NULL, "answered before the attribute existed" },
                    { "blocked", PCF_FAIL, "NODEATTR-5", "requests sent behind the waiting get went unanswered" },
                    { "not-released", PCF_TIMEOUT, "NODEATTR-4", "the put did not release the held get" } } },
    { .id = "pmi2/nodeattr/wait-not-blocking",
      .desc = "while a get waits, job-getid and the satisfying put are still answered",
      .clause = "NODEATTR-5", .expected = "job-getid answered first, then the put and the get",
      .steps = "Every rank sends info-getnodeattr with wait=TRUE for an attribute that does not "
               "exist yet.\n"
               "While that get waits it sends job-getid: its answer must be the next message "
               "(else \"blocked\", NODEATTR-5; nothing at all is \"no-answer\", also graded by "
               "NODEATTR-5).\n"
               "It then puts the attribute (value=arrived) and collects the put's answer and the "
               "held get's: found=TRUE;value=arrived passes (else \"not-waited\", NODEATTR-4).",
      .flags = PCF_V2, .run = run_wait_nonblocking,
      .outcomes = { { "blocked", PCF_DEVIATES, NULL, "the waiting get held up other requests" },
                    { "no-answer", PCF_DEVIATES, NULL, "requests after the waiting get went unanswered" },
                    { "not-waited", PCF_DEVIATES, "NODEATTR-4", "wait=TRUE answered at once" },
                    { "not-released", PCF_TIMEOUT, "NODEATTR-4", "the put did not release the held get" } } },
    { .id = "pmi2/nodeattr/wait-lowercase",
      .desc = "wait=true (lower case) is a boolean TRUE: the get waits for the put",
      .clause = "BOOL-2", .expected = "found=TRUE;value=arrived, answered after the put",
      .steps = "Every rank sends info-getnodeattr with wait=true, in lower case (BOOL-2: any case "
               "is a boolean), for an attribute that does not exist yet.\n"
               "It then puts the attribute (value=arrived) and collects both answers.\n"
               "found=TRUE;value=arrived passes; an answer without the value is \"read-as-false\" "
               "(the server read true as FALSE, M9).\n"
               "Neither answer by the deadline is \"blocked\": the get was held, so true was read "
               "as TRUE, but the put behind it was not served (NODEATTR-5, not BOOL-2); the put's "
               "answer alone is \"not-released\" (NODEATTR-4, TIMEOUT).",
      .flags = PCF_V2, .run = run_wait_lower,
      .outcomes = { { "read-as-false", PCF_DEVIATES, NULL, "wait=true read as FALSE (M9)" },
                    { "blocked", PCF_FAIL, "NODEATTR-5", "requests sent behind the waiting get went unanswered" },
                    { "not-released", PCF_TIMEOUT, "NODEATTR-4", "the put did not release the held get" } } },
    { .id = "pmi2/nodeattr/wait-existing",
      .desc = "wait=TRUE on an existing attribute is answered at once",
      .clause = "NODEATTR-2", .expected = "found=TRUE with the value",
      .steps = "Every rank puts <tag>-nae-r<rank> = here, then sends info-getnodeattr for it with "
               "wait=TRUE.\n"
               "The attribute exists, so the answer comes at once: found=TRUE;value=here passes, "
               "anything else is \"not-found\".",
      .flags = PCF_V2, .run = run_wait_existing },
    { .id = "pmi2/nodeattr/wait-peer-put",
      .desc = "rank 0's wait=TRUE is answered when a rank on the same node puts the attribute",
      .clause = "NODEATTR-4", .expected = "found=TRUE;value=from-peer",
      .steps = "The ranks on rank 0's host come from the node map (each rank's host, learned at "
               "start-up; PMI_process_mapping when there is none); the lowest one other than rank "
               "0 is the peer (none: \"no-peer\", INFO).\n"
               "Rank 0 sends info-getnodeattr with wait=TRUE for <tag>-nap, then, without waiting "
               "for it, kvs-put of a ready key and kvs-fence (each with a thrid).\n"
               "The other ranks fence; the peer reads the ready key (so rank 0's get is already "
               "held) and puts <tag>-nap = from-peer.\n"
               "Rank 0's held get must answer found=TRUE;value=from-peer (else \"not-waited\"); a "
               "refused put on the peer is \"put-refused\" (NODEATTR-1).\n"
               "Rank 0's kvs-put unanswered by the deadline is \"blocked\" (NODEATTR-5: the "
               "requests behind the held get were not served, so its fence never reached the "
               "others); put and fence answered but not the get is \"not-released\" (NODEATTR-4, "
               "TIMEOUT).",
      .flags = PCF_V2 | PCF_PLACED, .min_ranks = 2, .run = run_wait_peer,
      .outcomes = { { "no-peer", PCF_INFO, NULL, "no second rank on rank 0's node" },
                    { "not-waited", PCF_DEVIATES, NULL, "answered before the peer's put" },
                    { "put-refused", PCF_FAIL, "NODEATTR-1", "the peer's put was refused" },
                    { "blocked", PCF_FAIL, "NODEATTR-5", "requests sent behind the waiting get went unanswered" },
                    { "not-released", PCF_TIMEOUT, "NODEATTR-4", "the put did not release the held get" } } },
    { .id = "pmi2/nodeattr/same-node",
      .desc = "an attribute put by rank 0 is visible to the other ranks on its node",
      .clause = "NODEATTR-2", .expected = "found=TRUE on every rank on rank 0's host",
      .steps = "The ranks' nodes are the node map (each rank's host, learned at start-up); "
               "without one, PMI_process_mapping, and without a usable mapping the case is "
               "\"undetermined\" (INFO).\n"
               "Rank 0 puts the node attribute <tag>-nas-r0 = rank0; a put and a fence through "
               "the KVS make sure it happened before the others look.\n"
               "Every other rank on rank 0's host gets it with wait=FALSE: "
               "found=TRUE;value=rank0 passes, anything else is \"not-found\".",
      .flags = PCF_V2 | PCF_PLACED, .min_ranks = 2, .run = run_same_node,
      .outcomes = { { "undetermined", PCF_INFO, NULL, "the node layout is unknown" } } },
    { .id = "pmi2/nodeattr/other-node",
      .desc = "an attribute put on one node is not visible on another node",
      .clause = "NODEATTR-7", .expected = "not found on every rank on another host",
      .min_nodes = 2,
      .steps = "Needs ranks on 2 hosts (the node map learned at start-up); SKIPPED \"needs 2 "
               "nodes\" on one.\n"
               "Rank 0 puts the node attribute <tag>-nas-r0 = rank0; a put and a fence through "
               "the KVS order it before the others look.\n"
               "Every rank on another host gets it with wait=FALSE: not found "
               "passes; found is \"leaked\" (NODEATTR-7).",
      .flags = PCF_V2, .min_ranks = 2, .run = run_other_node,
      .outcomes = { { "undetermined", PCF_INFO, NULL, "no rank is off rank 0's node: nothing to compare" },
                    { "leaked", PCF_DEVIATES, NULL, "another node's attribute was returned" } } },
    { .id = "pmi2/nodeattr/local-ranks-count",
      .desc = "localRanksCount, when provided, is the number of the job's ranks on this node",
      .clause = "NODEATTR-9",
      .expected = "a decimal count matching the ranks on this host and MPI_LOCALNRANKS",
      .steps = "Every rank sends info-getnodeattr for localRanksCount (wait=FALSE); not provided "
               "is INFO, nothing more to check.\n"
               "When provided, it must be a decimal count of 1 or more (else \"malformed\") equal "
               "to the number of ranks on this host (the node map; PMI_process_mapping when "
               "there is none) and to "
               "MPI_LOCALNRANKS when that is set (else \"inconsistent\").",
      .flags = PCF_V2 | PCF_PLACED, .run = run_local_count,
      .outcomes = { { "not-provided", PCF_INFO, NULL, "not provided (no implementation predefines it)" } } },
    { .id = "pmi2/nodeattr/local-ranks",
      .desc = "localRanks, when provided, lists this node's ranks ascending",
      .clause = "NODEATTR-9", .expected = "comma-separated ranks: those on this host",
      .steps = "Every rank sends info-getnodeattr for localRanks (wait=FALSE); not provided is "
               "INFO, nothing more to check.\n"
               "When provided, it must be comma-separated ranks in ascending order that include "
               "the caller (else \"malformed\") and equal the ranks on this host (the node "
               "map; PMI_process_mapping when there is none; else \"inconsistent\").",
      .flags = PCF_V2 | PCF_PLACED, .run = run_local_list,
      .outcomes = { { "not-provided", PCF_INFO, NULL, "not provided (no implementation predefines it)" } } },
    { .id = "pmi2/thrid/held-request",
      .desc = "a held info-getnodeattr keeps its thrid when it is finally answered",
      .clause = "THRID-4", .expected = "the late found=TRUE response carries the wait's thrid",
      .flags = PCF_V2, .run = run_wait_thrid,
      .outcomes = { { "thrid-missing", PCF_DEVIATES, NULL, "the held response has another or no thrid" },
                    { "not-waited", PCF_DEVIATES, "NODEATTR-4", "wait=TRUE answered at once" },
                    { "blocked", PCF_DEVIATES, "NODEATTR-5", "the waiting get held up job-getid" },
                    { "not-released", PCF_TIMEOUT, "NODEATTR-4", "the put did not release the held get" } } },
};
PCF_CASES(cases)
