/* pmi1/...: the PMI-1 commands beyond the basics: advertised limits, the
 * barrier as a real barrier, PMI-1.2 group barriers, the name service,
 * values at the edges of the line grammar, line framing, abort, finalize,
 * spawn.  Run with --pmi 1 (or --launch). */
#include "damage.h"

#include <stdlib.h>

/* ---- maxes and limits --------------------------------------------------- */

static int maxes(pcf_ctx *c, long long *kv, long long *k, long long *v)
{
    const pcf_handshake *h = pcf_hs(c);
    pmc_msg m;
    pmc_error err;
    if (pcf_decode(c, h->maxes_raw, h->maxes_len, &m, &err) != 0 ||
        pmc_msg_get_int(&m, "kvsname_max", kv) != 1 || pmc_msg_get_int(&m, "keylen_max", k) != 1 ||
        pmc_msg_get_int(&m, "vallen_max", v) != 1) {
        pcf_observe(c, "no-maxes", "no usable maxes line at start-up");
        return -1;
    }
    return 0;
}

static void run_kvsname_fits(pcf_ctx *c)
{
    long long kv, k, v;
    if (maxes(c, &kv, &k, &v))
        return;
    size_t n = strlen(pcf_kvsname(c));
    if (n == 0 || (long long)n >= kv)
        pcf_observe(c, "too-long", "kvsname of %zu bytes, kvsname_max=%lld", n, kv);
    else
        pcf_observe(c, "ok", "kvsname of %zu bytes fits kvsname_max=%lld", n, kv);
}

/* Put a key of klen bytes and a value of vlen bytes, barrier, get it back. */
static void put_barrier_get(pcf_ctx *c, size_t klen, size_t vlen)
{
    char *key = malloc(klen + 1), *val = malloc(vlen + 1), *got = malloc(vlen + 64);
    if (!key || !val || !got) {
        pcf_observe(c, "harness-error", "out of memory");
        goto out;
    }
    snprintf(key, klen + 1, "%s-r%d-", pcf_tag(c), pcf_rank(c));
    size_t k0 = strlen(key);
    if (klen > k0)
        memset(key + k0, 'K', klen - k0);
    key[klen] = 0;
    memset(val, 'V', vlen);
    val[vlen] = 0;
    bool found = false;
    if (pcf_kvs_put(c, key, val) == 0 && pcf_kvs_fence(c) == 0 &&
        pcf_kvs_get(c, key, &found, got, vlen + 64, NULL) == 0) {
        if (found && strlen(got) == vlen)
            pcf_observe(c, "ok", "%zu-byte key and %zu-byte value stored whole", klen, vlen);
        else if (found)
            pcf_observe(c, "truncated", "put a %zu-byte value with rc=0, got %zu bytes", vlen,
                        strlen(got));
        else
            pcf_observe(c, "truncated", "put a %zu-byte key with rc=0, not found after the "
                                        "barrier (stored under a shortened key)", klen);
    }
out:
    free(key);
    free(val);
    free(got);
}

static void run_limits_honoured(pcf_ctx *c)
{
    long long kv, k, v;
    if (maxes(c, &kv, &k, &v))
        return;
    if (k < 2 || v < 2 || k > 4096 || v > 1 << 20) {
        pcf_observe(c, "no-maxes", "keylen_max=%lld vallen_max=%lld out of range", k, v);
        pcf_kvs_fence(c);
        return;
    }
    put_barrier_get(c, (size_t)k - 1, (size_t)v - 1);
}

static void run_value_1024(pcf_ctx *c) { put_barrier_get(c, 24, 1024); }
static void run_key_64(pcf_ctx *c) { put_barrier_get(c, 64, 8); }

static void run_put_rc(pcf_ctx *c)
{
    char key[64];
    snprintf(key, sizeof key, "%s-put-r%d", pcf_tag(c), pcf_rank(c));
    pmc_enc e;
    pmc_msg m;
    char b[200];
    long long rc = -1;
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    pmc_enc_str(&e, "kvsname", pcf_kvsname(c));
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", "v");
    if (pcf_call(c, &e, "put_result", &m) == 0) {
        if (pcf_rc(&m, &rc) == 1 && rc == 0)
            pcf_observe(c, "ok", "%s", pcf_show(&m, b, sizeof b));
        else
            pcf_observe(c, "bad-rc", "%s", pcf_show(&m, b, sizeof b));
    }
}

/* A put whose pairs come in another order (PAIR-1) or with a key the
 * server does not know (PAIR-5); the key must be stored all the same. */
static void put_variant(pcf_ctx *c, bool reorder)
{
    char key[64], got[64], b[300];
    snprintf(key, sizeof key, "%s-%s-r%d", pcf_tag(c), reorder ? "ord" : "unk", pcf_rank(c));
    pmc_enc e;
    pmc_msg m;
    long long rc = -1;
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    if (reorder) {
        pmc_enc_str(&e, "value", "v-ord");
        pmc_enc_str(&e, "key", key);
        pmc_enc_str(&e, "kvsname", pcf_kvsname(c));
    } else {
        pmc_enc_str(&e, "kvsname", pcf_kvsname(c));
        pmc_enc_str(&e, "pcf_extra", "1");
        pmc_enc_str(&e, "key", key);
        pmc_enc_str(&e, "value", "v-unk");
    }
    if (pcf_call(c, &e, "put_result", &m) != 0)
        return;
    if (pcf_rc(&m, &rc) == 1 && rc != 0) {
        pcf_observe(c, "refused", "%s", pcf_show(&m, b, sizeof b));
        pcf_kvs_fence(c);
        return;
    }
    bool found = false;
    if (pcf_kvs_fence(c) || pcf_kvs_get(c, key, &found, got, sizeof got, &m))
        return;
    if (found && strcmp(got, reorder ? "v-ord" : "v-unk") == 0)
        pcf_observe(c, "ok", "stored under %s", key);
    else
        pcf_observe(c, "lost", "after the barrier, %s: %s", key, pcf_show(&m, b, sizeof b));
}

static void run_put_order(pcf_ctx *c) { put_variant(c, true); }
static void run_put_unknown(pcf_ctx *c) { put_variant(c, false); }

static void run_value_last(pcf_ctx *c)
{
    char key[64], got[64];
    snprintf(key, sizeof key, "%s-last-r%d", pcf_tag(c), pcf_rank(c));
    pmc_msg m;
    bool found;
    char b[300];
    if (pcf_kvs_put(c, key, "lastval") || pcf_kvs_fence(c) ||
        pcf_kvs_get(c, key, &found, got, sizeof got, &m))
        return;
    if (!found)
        pcf_observe(c, "not-visible", "%s", pcf_show(&m, b, sizeof b));
    else if (!pmc_slice_eq(m.pairs[m.npairs - 1].key, "value"))
        pcf_observe(c, "value-not-last", "%s", pcf_show(&m, b, sizeof b));
    else
        pcf_observe(c, "ok", "%s", pcf_show(&m, b, sizeof b));
}

/* V1CMD-11: every rank puts a key in its own space and passes a barrier,
 * so the key is there for everyone; then a get of that key naming a
 * kvsname that does not exist must be refused (a server that never looks
 * at kvsname finds it), and so must a get of a key nobody put (Hydra ends
 * the job on that one, M3). */
static void run_foreign_kvsname(pcf_ctx *c)
{
    char key[64];
    snprintf(key, sizeof key, "%s-fk-r%d", pcf_tag(c), pcf_rank(c));
    if (pcf_kvs_put(c, key, "mine") == 0 && pcfd_collective_start(c) == 0) {
        for (int i = 0; i < 2 && !pws_eof(pcf_session(c)); i++) {
            pmc_enc e;
            pmc_enc_begin(&e, PMC_WIRE_V1, "get");
            pmc_enc_str(&e, "kvsname", "pcf-no-such-kvs");
            pmc_enc_str(&e, "key", i == 0 ? key : "pcf-never");
            if (pcf_send(c, &e) != 0)
                break;
            pcf_note(c, "get of %s naming kvsname=pcf-no-such-kvs", i == 0 ? key : "pcf-never");
            pcfd_grade(c, "get_result", NULL);
        }
    }
    pcfd_collective_end(c);
}

/* V1CMD-11: a put naming a kvsname that does not exist is refused. */
static void run_foreign_kvsname_put(pcf_ctx *c)
{
    char key[64];
    snprintf(key, sizeof key, "%s-fkp-r%d", pcf_tag(c), pcf_rank(c));
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    pmc_enc_str(&e, "kvsname", "pcf-no-such-kvs");
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", "v");
    if (pcf_send(c, &e) == 0)
        pcfd_grade(c, "put_result", NULL);
}

/* ---- barriers ------------------------------------------------------------ */

/* Rank 0 puts a key half a second late, just before its barrier_in; every
 * other rank must find it after barrier_out.  A server that answered the
 * barrier before rank 0 arrived is caught; a true barrier always passes. */
static void run_true_barrier(pcf_ctx *c)
{
    char key[64], got[64];
    snprintf(key, sizeof key, "%s-late", pcf_tag(c));
    if (pcf_rank(c) == 0) {
        pcf_pause_ms(c, 500);
        if (pcf_kvs_put(c, key, "late") || pcf_kvs_fence(c))
            return;
        pcf_observe(c, "ok", "entered the barrier 500 ms late");
        return;
    }
    bool found;
    if (pcf_kvs_fence(c) || pcf_kvs_get(c, key, &found, got, sizeof got, NULL))
        return;
    if (found && strcmp(got, "late") == 0)
        pcf_observe(c, "ok", "barrier_out came after rank 0's late barrier_in");
    else
        pcf_observe(c, "early", "after barrier_out, rank 0's key put just before its "
                                "barrier_in is not there: barrier_out came early");
}

/* RC-2: barrier_out carries rc (every rank takes part). */
static void run_barrier_rc(pcf_ctx *c)
{
    pmc_enc e;
    pmc_msg m;
    char b[200];
    long long rc;
    pmc_enc_begin(&e, PMC_WIRE_V1, "barrier_in");
    if (pcf_call(c, &e, "barrier_out", &m) != 0)
        return;
    pcf_show(&m, b, sizeof b);
    int h = pcf_rc(&m, &rc);
    if (h != 1)
        pcf_observe(c, "no-rc", "%s", b);
    else if (rc != 0)
        pcf_observe(c, "refused", "%s", b);
    else
        pcf_observe(c, "ok", "%s", b);
}

/* Receive the answer named `want`; a barrier_out that comes instead was
 * sent to a rank that had not (yet) entered that barrier: counted in
 * *early (the rank's next barrier wait takes it) and observed once.  0, or
 * -1 after observing. */
static int recv_counting_outs(pcf_ctx *c, const char *want, pmc_msg *m, int *early)
{
    pmc_error err;
    char b[200];
    for (;;) {
        pws_result r = pcf_recv(c, m, &err);
        if (r != PWS_MSG) {
            pcf_observe(c, r == PWS_EOF ? "closed" : r == PWS_TIMEOUT ? "no-answer" : "bad-response",
                        "waiting for %s: %s", want, pws_result_name(r));
            return -1;
        }
        if (pmc_slice_eq(m->name, want))
            return 0;
        if (!pmc_slice_eq(m->name, "barrier_out")) {
            pcf_observe(c, "wrong-response", "expected %s, got %s", want, pcf_show(m, b, sizeof b));
            return -1;
        }
        if (!(*early)++)
            pcf_observe(c, "early", "a barrier_out came while this rank was not in a barrier "
                                    "(waiting for %s): the barrier completed without it", want);
    }
}

/* This rank's next barrier_out (one that came early counts). */
static int barrier_out(pcf_ctx *c, int *early)
{
    pmc_msg m;
    char b[200];
    long long rc = 0;
    if (*early) {
        (*early)--;
        return 0;
    }
    if (recv_counting_outs(c, "barrier_out", &m, early) != 0)
        return -1;
    if (pcf_rc(&m, &rc) == 1 && rc != 0) {
        pcf_observe(c, "refused", "%s", pcf_show(&m, b, sizeof b));
        return -1;
    }
    return 0;
}

static int barrier_in(pcf_ctx *c, int times)
{
    pmc_enc e;
    pmc_out o = { 0 };
    int rc = 0;
    for (int i = 0; i < times && rc == 0; i++) {
        pmc_enc_begin(&e, PMC_WIRE_V1, "barrier_in");
        rc = pcfd_encode(c, &e, NULL, &o);
    }
    if (rc == 0)
        rc = pcfd_send(c, &o);
    pmc_out_free(&o);
    return rc;
}

/* V1CMD-14 counts processes, not barrier_in lines.  The double sender sends
 * two barrier_in lines without waiting for barrier_out (its second is for
 * the next barrier), rank 0 enters at once, the late ranks put a key and
 * enter later (the last one last).  A server that counts lines completes the
 * first barrier before the last rank has come: after barrier_out the last
 * rank's key is missing, and ranks that had not entered get a barrier_out
 * (Hydra 4.0 and Slurm send it to every process).  Then every rank but the
 * double sender enters the second barrier, in which its extra line already
 * waits; a server that counts lines is then even again, so the launch ends
 * cleanly.
 *
 * Placement: a server that counts per node (Hydra counts barrier_in lines in
 * each proxy, then one line per proxy upstream) shows the defect only when
 * the double sender and the last rank share a node; on another node the
 * last rank's proxy holds the barrier until it comes.  So the roles are
 * chosen by the node map: the double sender and the last rank are two ranks
 * other than 0 on one host (rank 1 and the last rank when every rank is on
 * one host). */
static int twice_roles(pcf_ctx *c, int *byrole)
{
    int n = pcf_size(c), dbl = 1, last = n - 1;
    if (pcf_nodes(c) > 1) {
        dbl = last = -1;
        /* the host with the most ranks other than 0 */
        int best = -1, bestn = 1;
        for (int k = 0; k < pcf_nodes(c); k++) {
            int cnt = 0;
            for (int q = 1; q < n; q++)
                cnt += pcf_node_of(c, q) == k;
            if (cnt > bestn) {
                best = k;
                bestn = cnt;
            }
        }
        for (int q = 1; q < n && best >= 0; q++)
            if (pcf_node_of(c, q) == best) {
                if (dbl < 0)
                    dbl = q;
                last = q;
            }
        if (best < 0) { /* no host has two ranks besides 0: nothing to count per node */
            dbl = 1;
            last = n - 1;
        }
    }
    byrole[0] = 0;
    byrole[1] = dbl;
    byrole[n - 1] = last;
    int v = 2;
    for (int q = 1; q < n; q++)
        if (q != dbl && q != last)
            byrole[v++] = q;
    return pcf_nodes(c) > 1 && pcf_node_of(c, dbl) != pcf_node_of(c, last) ? -1 : 0;
}

static void run_barrier_twice(pcf_ctx *c)
{
    int n = pcf_size(c), early = 0, me = pcf_rank(c);
    int *byrole = calloc((size_t)n, sizeof *byrole);
    if (!byrole) {
        pcf_observe(c, "harness-error", "out of memory");
        return;
    }
    bool apart = twice_roles(c, byrole) != 0;
    int r = 0; /* this rank's role */
    while (byrole[r] != me)
        r++;
    int last = n - 1, dbl = byrole[1];
    unsigned step = 1600u / (unsigned)(n - 2);
    char key[64], got[64];
    pmc_msg m;
    if (pcfd_collective_start(c) != 0)
        goto out;
    if (r >= 2) {
        pcf_pause_ms(c, (step > 400 ? 400 : step) * (unsigned)(r - 1));
        snprintf(key, sizeof key, "%s-twice-r%d", pcf_tag(c), me);
        pmc_enc e;
        long long rc = 0;
        pmc_enc_begin(&e, PMC_WIRE_V1, "put");
        pmc_enc_str(&e, "kvsname", pcf_kvsname(c));
        pmc_enc_str(&e, "key", key);
        pmc_enc_str(&e, "value", "late");
        if (pcf_send(c, &e) != 0 || recv_counting_outs(c, "put_result", &m, &early) != 0)
            goto out;
        if (pcf_rc(&m, &rc) == 1 && rc != 0) {
            pcf_observe(c, "refused", "the put was refused");
            goto out;
        }
    }
    /* the double sender's two lines in two writes, the second once the
     * server has read the first: a server that reads one line per read()
     * (Slurm) sees both */
    if (barrier_in(c, 1) != 0 ||
        (r == 1 && (pcf_wait_consumed(c, 1000), barrier_in(c, 1) != 0)) ||
        barrier_out(c, &early) != 0)
        goto out;
    /* the key of the last rank (the last rank looks for the one before);
     * not the double sender, whose second barrier_out may come at any time */
    int want = r == last ? last - 1 : last;
    bool found = false;
    if (want >= 2 && r != 1) {
        snprintf(key, sizeof key, "%s-twice-r%d", pcf_tag(c), byrole[want]);
        if (pcf_kvs_get(c, key, &found, got, sizeof got, NULL))
            goto out;
        if (!found || strcmp(got, "late") != 0)
            pcf_observe(c, "early", "barrier_out came before rank %d entered (its key %s is "
                                    "not there): rank %d's second barrier_in was counted",
                        byrole[want], key, dbl);
    }
    if (r == 1 ? barrier_out(c, &early) != 0 : (barrier_in(c, 1) != 0 || barrier_out(c, &early) != 0))
        goto out;
    if (!pcf_observed(c)) {
        if (pcf_nodes(c) > 1)
            pcf_observe(c, "ok", "the first barrier waited for rank %d; rank %d's second "
                                 "barrier_in waited for the second (both on %s%s)",
                        byrole[last], dbl, pcf_host_of(c, dbl),
                        apart ? "; no host has two ranks besides 0, so a count per node "
                                "cannot show" : "");
        else
            pcf_observe(c, "ok", "the first barrier waited for rank %d; rank %d's second "
                                 "barrier_in waited for the second", byrole[last], dbl);
    }
out:
    free(byrole);
    pcfd_collective_end(c);
}

/* PMI-1.2 group barriers, only when the server announced subversion >= 2. */
static int announced_subversion(pcf_ctx *c)
{
    const pcf_handshake *h = pcf_hs(c);
    pmc_msg m;
    pmc_error err;
    long long s = -1;
    if (pcf_decode(c, h->init_raw, h->init_len, &m, &err) == 0)
        pmc_msg_get_int(&m, "pmi_subversion", &s);
    return (int)s;
}

static void group_barrier(pcf_ctx *c, const char *scope, bool member)
{
    int sv = announced_subversion(c);
    if (sv < 2) {
        pcf_observe(c, "not-1.2", "the server announced 1.%d: no group barriers", sv);
        return;
    }
    if (!member) {
        pcf_observe(c, "ok", "not in the group");
        return;
    }
    char group[80], tag[40];
    /* a decimal tag, the same on every rank and unique to the case run: MPICH's
     * client sends integers and Hydra reads them with atoi (pmip_barrier.c) */
    unsigned h = 0;
    for (const char *t = pcf_tag(c); *t; t++)
        h = h * 31u + (unsigned char)*t;
    snprintf(tag, sizeof tag, "%u", 100000000u + h % 900000000u);
    snprintf(group, sizeof group, "%s:%s", scope, tag);
    pmc_enc e;
    pmc_msg m;
    char b[200];
    long long rc = 0;
    pmc_enc_begin(&e, PMC_WIRE_V1, "barrier_in");
    pmc_enc_str(&e, "group", group);
    if (pcf_call(c, &e, "barrier_out", &m) != 0)
        return;
    pcf_show(&m, b, sizeof b);
    if (pcf_rc(&m, &rc) == 1 && rc != 0)
        pcf_observe(c, "refused", "group=%s: %s", group, b);
    else {
        pmc_slice t;
        if (pmc_msg_get(&m, "tag", &t) && pmc_slice_eq(t, tag))
            pcf_observe(c, "ok", "group=%s: %s", group, b);
        else
            pcf_observe(c, "wrong-tag", "group=%s: %s", group, b);
    }
}

static void run_group_world(pcf_ctx *c) { group_barrier(c, "WORLD", true); }
static void run_group_node(pcf_ctx *c) { group_barrier(c, "NODE", true); }
static void run_group_list(pcf_ctx *c) { group_barrier(c, "0,1", pcf_rank(c) < 2); }

/* ---- name service ------------------------------------------------------- */

/* 1 success, 0 failure (rc, else info: V1CMD-22), -1 after observing.
 * An unknown-command answer (ERR-7: cmd=<cmd>_result rc!=0) is a failure. */
static int name_call(pcf_ctx *c, const char *cmd, const char *reply, const char *svc,
                     const char *port, pmc_msg *m)
{
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V1, cmd);
    pmc_enc_str(&e, "service", svc);
    if (port)
        pmc_enc_str(&e, "port", port);
    if (pcf_send(c, &e) != 0)
        return -1;
    pmc_error err;
    char b[200];
    pws_result r = pcf_recv(c, m, &err);
    if (r == PWS_EOF) {
        pcf_observe(c, "closed", "the server closed the connection instead of answering %s", cmd);
        return -1;
    }
    if (r == PWS_TIMEOUT) {
        pcf_observe(c, "no-answer", "no answer to %s", cmd);
        return -1;
    }
    if (r != PWS_MSG) {
        char eb[PCF_ERR_TEXT];
        pcf_observe(c, "bad-response", "%s: %s", pws_result_name(r),
                    pcf_decode_error(c, &err, eb, sizeof eb));
        return -1;
    }
    long long rc;
    char unknown[80];
    snprintf(unknown, sizeof unknown, "%s_result", cmd);
    if (!pmc_slice_eq(m->name, reply)) {
        if (pmc_slice_eq(m->name, unknown) && pcf_rc(m, &rc) == 1 && rc != 0)
            return 0; /* "not a command here" */
        pcf_observe(c, "wrong-response", "%s answered: %s", cmd, pcf_show(m, b, sizeof b));
        return -1;
    }
    int h = pcf_rc(m, &rc);
    if (h == 1)
        return rc == 0;
    pmc_slice info;
    if (pmc_msg_get(m, "info", &info))
        return pmc_slice_eq(info, "ok");
    pcf_observe(c, "no-outcome", "neither rc nor info: %s", pcf_show(m, b, sizeof b));
    return -1;
}

static void svc_name(pcf_ctx *c, const char *what, char *out, size_t n)
{
    snprintf(out, n, "%s-%s-r%d", pcf_tag(c), what, pcf_rank(c));
}

/* The first publish_name of a case failed: the server says it has no name
 * service (SPEC 1.3: UNSUPPORTED), provided it keeps saying so (NAME-8): a
 * lookup of the name must fail too.  A server whose lookup then finds it
 * claims the service and misbehaves. */
static void publish_refused(pcf_ctx *c, const char *svc, const pmc_msg *pub)
{
    char b[200], b2[200];
    pcf_show(pub, b, sizeof b);
    pmc_msg m;
    int r = name_call(c, "lookup_name", "lookup_result", svc, NULL, &m);
    if (r == 0)
        pcf_observe(c, "unsupported", "no name service: publish_name answered %s, and a lookup "
                                      "of the name fails", b);
    else if (r == 1)
        pcf_observe(c, "publish-failed", "publish_name answered %s, yet the name is found: %s",
                    b, pcf_show(&m, b2, sizeof b2));
}

static void run_publish_lookup(pcf_ctx *c)
{
    char svc[64], port[64], b[200];
    svc_name(c, "svc", svc, sizeof svc);
    snprintf(port, sizeof port, "port-%d", pcf_rank(c));
    pmc_msg m;
    int r = name_call(c, "publish_name", "publish_result", svc, port, &m);
    if (r < 0)
        return;
    if (!r) {
        publish_refused(c, svc, &m);
        return;
    }
    r = name_call(c, "lookup_name", "lookup_result", svc, NULL, &m);
    pmc_slice p;
    if (r == 1 && pmc_msg_get(&m, "port", &p) && pmc_slice_eq(p, port))
        pcf_observe(c, "ok", "lookup gave the port back: %s", pcf_show(&m, b, sizeof b));
    else if (r >= 0)
        pcf_observe(c, "lookup-wrong", "%s", pcf_show(&m, b, sizeof b));
    name_call(c, "unpublish_name", "unpublish_result", svc, NULL, &m);
}

static void run_publish_rc(pcf_ctx *c)
{
    char svc[64], b[200];
    svc_name(c, "rc", svc, sizeof svc);
    pmc_msg m;
    long long rc;
    int r = name_call(c, "publish_name", "publish_result", svc, "p", &m);
    if (r < 0)
        return;
    if (r == 0 && !pmc_slice_eq(m.name, "publish_result")) {
        publish_refused(c, svc, &m); /* an unknown-command answer, with rc */
        return;
    }
    if (pcf_rc(&m, &rc) != 1)
        pcf_observe(c, "no-rc", "%s", pcf_show(&m, b, sizeof b));
    else
        pcf_observe(c, "ok", "%s", pcf_show(&m, b, sizeof b));
    name_call(c, "unpublish_name", "unpublish_result", svc, NULL, &m);
}

static void run_lookup_miss(pcf_ctx *c)
{
    char svc[64], b[200];
    svc_name(c, "never", svc, sizeof svc);
    pmc_msg m;
    int r = name_call(c, "lookup_name", "lookup_result", svc, NULL, &m);
    if (r == 0)
        pcf_observe(c, "ok", "%s", pcf_show(&m, b, sizeof b));
    else if (r == 1)
        pcf_observe(c, "found", "a name nobody published: %s", pcf_show(&m, b, sizeof b));
}

static void run_unpublish(pcf_ctx *c)
{
    char svc[64], b[200];
    svc_name(c, "unp", svc, sizeof svc);
    pmc_msg m;
    int r0 = name_call(c, "publish_name", "publish_result", svc, "p", &m);
    if (r0 != 1) {
        if (r0 == 0)
            publish_refused(c, svc, &m);
        return;
    }
    int r1 = name_call(c, "unpublish_name", "unpublish_result", svc, NULL, &m);
    if (r1 < 0)
        return;
    if (r1 != 1) {
        pcf_observe(c, "unpublish-failed", "%s", pcf_show(&m, b, sizeof b));
        return;
    }
    int r2 = name_call(c, "unpublish_name", "unpublish_result", svc, NULL, &m);
    if (r2 == 0)
        pcf_observe(c, "ok", "removed once, then 'not published': %s", pcf_show(&m, b, sizeof b));
    else if (r2 == 1)
        pcf_observe(c, "unpublish-twice", "a second unpublish succeeded: %s",
                    pcf_show(&m, b, sizeof b));
}

static void run_duplicate(pcf_ctx *c)
{
    char svc[64], b[200];
    svc_name(c, "dup", svc, sizeof svc);
    pmc_msg m;
    int r0 = name_call(c, "publish_name", "publish_result", svc, "first", &m);
    if (r0 != 1) {
        if (r0 == 0)
            publish_refused(c, svc, &m);
        return;
    }
    int r = name_call(c, "publish_name", "publish_result", svc, "second", &m);
    if (r == 0)
        pcf_observe(c, "ok", "the duplicate was refused: %s", pcf_show(&m, b, sizeof b));
    else if (r == 1)
        pcf_observe(c, "replaced", "the duplicate was accepted: %s", pcf_show(&m, b, sizeof b));
    name_call(c, "unpublish_name", "unpublish_result", svc, NULL, &m);
}

/* ---- values --------------------------------------------------------------- */

static void round_trip(pcf_ctx *c, const char *what, const char *val)
{
    char key[64], got[128];
    snprintf(key, sizeof key, "%s-%s-r%d", pcf_tag(c), what, pcf_rank(c));
    bool found;
    pmc_msg m;
    char b[200];
    if (pcf_kvs_put(c, key, val) || pcf_kvs_fence(c) ||
        pcf_kvs_get(c, key, &found, got, sizeof got, &m))
        return;
    if (found && strcmp(got, val) == 0)
        pcf_observe(c, "ok", "\"%s\" came back unchanged", val);
    else if (found)
        pcf_observe(c, "altered", "put \"%s\", got \"%s\"", val, got);
    else
        pcf_observe(c, "lost", "not found after the barrier: %s", pcf_show(&m, b, sizeof b));
}

static void run_backslash(pcf_ctx *c) { round_trip(c, "bs", "a\\\\b\\c"); }
static void run_equals(pcf_ctx *c) { round_trip(c, "eq", "a=b=c"); }
static void run_empty(pcf_ctx *c)
{
    if (pcfd_collective_start(c) == 0)
        round_trip(c, "empty", "");
    pcfd_collective_end(c);
}

/* "value=a b c": the encoder cannot write it (V1-9); write "aXbXc" and
 * damage it.  V1-5: the value ends at the first space; V1-7: "b" and "c"
 * are bare words to ignore. */
static void run_space(pcf_ctx *c)
{
    char key[64], got[64];
    snprintf(key, sizeof key, "%s-sp-r%d", pcf_tag(c), pcf_rank(c));
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_msg m;
    char b[200];
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    pmc_enc_str(&e, "kvsname", pcf_kvsname(c));
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", "aXbXc");
    if (pcfd_encode(c, &e, NULL, &o) != 0)
        return;
    long at = pcfd_find(&o, 0, "=aXbXc");
    if (at < 0) {
        pcf_observe(c, "harness-error", "value not found in the encoded line");
        pmc_out_free(&o);
        return;
    }
    o.buf[at + 2] = ' ';
    o.buf[at + 4] = ' ';
    long long rc = -1;
    if (pcfd_collective_start(c) == 0 && pcfd_send(c, &o) == 0 &&
        pcf_expect(c, "put_result", &m) == 0) {
        bool refused = pcf_rc(&m, &rc) == 1 && rc != 0;
        pcf_show(&m, b, sizeof b);
        bool found = false;
        pmc_msg g;
        if (pcf_kvs_fence(c) == 0) {
            if (refused)
                pcf_observe(c, "refused", "%s", b);
            else if (pcf_kvs_get(c, key, &found, got, sizeof got, &g) == 0) {
                /* V1-5 on the way back too: the whole get_result line, not
                 * just its value pair, so "value=a b c" is not read as "a" */
                size_t bare = 0;
                for (size_t i = 0; i < g.npairs; i++)
                    bare += (g.pairs[i].flags & PMC_PAIR_BARE) != 0;
                if (found && strcmp(got, "a") == 0 && !bare)
                    pcf_observe(c, "ok", "stored \"a\", the bare words ignored");
                else if (found && bare)
                    pcf_observe(c, "altered", "stored more than \"a\": the get_result line has "
                                              "%zu token(s) after value=: %.*s", bare,
                                (int)(g.raw.len > 150 ? 150 : g.raw.len), g.raw.ptr);
                else
                    pcf_observe(c, "altered", "stored \"%s\"%s", got, found ? "" : " (not found)");
            }
        }
    }
    pmc_out_free(&o);
    pcfd_collective_end(c);
}

/* ---- line framing ------------------------------------------------------- */

/* get_maxes, damaged by `how`; the answer must equal the start-up maxes. */
static void maxes_variant(pcf_ctx *c, int how)
{
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_maxes");
    if (how == 3)
        pmc_enc_str(&e, "pcfbare", "Z");
    if (pcfd_encode(c, &e, NULL, &o) != 0)
        return;
    const char *reply = "maxes";
    if (how == 1) { /* CRLF */
        pcfd_insert(&o, o.len - 1, "\r", 1);
    } else if (how == 3) { /* a bare word */
        long at = pcfd_find(&o, 0, "=Z");
        if (at >= 0)
            pcfd_cut(&o, (size_t)at, 2);
    }
    pmc_msg m;
    char b[300];
    long long rc = 0;
    if (pcfd_send(c, &o) == 0 && pcf_expect(c, reply, &m) == 0) {
        pcf_show(&m, b, sizeof b);
        if (pcf_rc(&m, &rc) == 1 && rc != 0)
            pcf_observe(c, "rejected", "%s", b);
        else
            pcf_observe(c, "ok", "%s", b);
    }
    pmc_out_free(&o);
}

static void run_crlf(pcf_ctx *c) { maxes_variant(c, 1); }
/* V1-4 alone: the same get, first with single spaces, then with runs of
 * spaces and a trailing space, must get the same answer, whatever the key
 * holds (a server without PMI_process_mapping answers both as a miss). */
static void run_spaces(pcf_ctx *c)
{
    pmc_out plain = { 0 }, spaced = { 0 };
    for (int i = 0; i < 2; i++) { /* an encoder is spent by one encoding */
        pmc_enc e;
        pmc_enc_begin(&e, PMC_WIRE_V1, "get");
        pmc_enc_str(&e, "kvsname", pcf_kvsname(c));
        pmc_enc_str(&e, "key", "PMI_process_mapping");
        if (pcfd_encode(c, &e, NULL, i ? &spaced : &plain) != 0)
            goto out;
    }
    long sp;
    size_t from = 0;
    while ((sp = pcfd_find(&spaced, from, " ")) >= 0) {
        pcfd_insert(&spaced, (size_t)sp, "  ", 2);
        from = (size_t)sp + 3;
    }
    pcfd_insert(&spaced, spaced.len - 1, " ", 1);
    pmc_msg m;
    char ref[300], got[300];
    long long rc_ref = 0, rc = 0;
    if (pcfd_send(c, &plain) != 0 || pcf_expect(c, "get_result", &m) != 0)
        goto out;
    pcf_show(&m, ref, sizeof ref);
    bool had_ref = pcf_rc(&m, &rc_ref) == 1;
    if (pcfd_send(c, &spaced) != 0 || pcf_expect(c, "get_result", &m) != 0)
        goto out;
    pcf_show(&m, got, sizeof got);
    bool had = pcf_rc(&m, &rc) == 1;
    if (strcmp(ref, got) == 0)
        pcf_observe(c, "ok", "the same answer as with single spaces: %s", got);
    else if (had && rc != 0 && (!had_ref || rc_ref == 0))
        pcf_observe(c, "rejected", "with single spaces: %s; with runs of spaces: %s", ref, got);
    else
        pcf_observe(c, "differs", "with single spaces: %s; with runs of spaces: %s", ref, got);
out:
    pmc_out_free(&plain);
    pmc_out_free(&spaced);
}
static void run_bare_word(pcf_ctx *c) { maxes_variant(c, 3); }

static void run_line_split(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_msg m;
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_universe_size");
    if (pcfd_encode(c, &e, NULL, &o) != 0)
        return;
    size_t cuts[] = { 5, 11, o.len - 1 }; /* inside the name, and before the LF */
    int rc = pws_send_split(pcf_session(c), o.buf, o.len, cuts, 3, pcf_wait_ms(c, 30), pcf_deadline(c));
    if (rc)
        pcf_observe(c, "closed", "write failed: %s", pws_result_name(rc));
    else if (pcf_expect(c, "universe_size", &m) == 0)
        pcf_observe(c, "ok", "a line in four writes was answered");
    pmc_out_free(&o);
}

static void run_line_coalesced(pcf_ctx *c)
{
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_msg m;
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_appnum");
    if (pcfd_encode(c, &e, NULL, &o) != 0)
        return;
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_universe_size");
    if (pcfd_encode(c, &e, NULL, &o) == 0 && pcfd_send(c, &o) == 0 &&
        pcf_expect(c, "appnum", &m) == 0 && pcf_expect(c, "universe_size", &m) == 0)
        pcf_observe(c, "ok", "two lines in one write, two answers in order");
    pmc_out_free(&o);
}

/* ---- abort, finalize, spawn ------------------------------------------------- */

/* Rank 1 aborts with exit code 7; every rank then waits for the job to end
 * (rank 0's results file marks the case, the launcher's status is in the
 * report).  Nobody may get an answer to abort. */
static void run_abort(pcf_ctx *c)
{
    /* rank 0 has marked the case started before it fences: after this
     * barrier the end of the job is charged to this case */
    if (pcfd_collective_start(c) != 0)
        return;
    if (pcf_rank(c) == 1) {
        pmc_enc e;
        pmc_enc_begin(&e, PMC_WIRE_V1, "abort");
        pmc_enc_int(&e, "exitcode", 7);
        if (pcf_send(c, &e) != 0)
            return;
    }
    pmc_msg m;
    pmc_error err;
    char b[200];
    pws_result r = pws_wait_eof(pcf_session(c), pcf_deadline(c));
    if (r == PWS_MSG && pcf_recv(c, &m, &err) == PWS_MSG)
        pcf_observe(c, "answered", "abort was answered: %s", pcf_show(&m, b, sizeof b));
    else if (r == PWS_EOF) {
        pcf_pause_ms(c, 3000); /* the job should end now */
        pcf_observe(c, "closed", "the connection closed but the job kept running");
    } else
        pcf_observe(c, "not-ended", "the job still runs after abort");
}

static void run_finalize(pcf_ctx *c)
{
    pmc_enc e;
    pmc_msg m;
    char b[200];
    long long rc = 0;
    pmc_enc_begin(&e, PMC_WIRE_V1, "finalize");
    if (pcf_call(c, &e, "finalize_ack", &m) != 0)
        return;
    pcf_show(&m, b, sizeof b);
    if (pcf_rc(&m, &rc) == 1 && rc != 0) {
        pcf_observe(c, "rejected", "%s", b);
        return;
    }
    /* a note only (CONN-5): a server that closes does it as it answers */
    pws_result r = pws_wait_eof(pcf_session(c), pws_deadline_ms(300));
    pcf_observe(c, "ok", "%s%s", b, r == PWS_EOF ? ", then the server closed (CONN-5)" : "");
}

static void run_spawn(pcf_ctx *c)
{
    pmc_enc e;
    pmc_msg m;
    char b[200];
    long long rc = -1;
    pmc_enc_begin(&e, PMC_WIRE_V1_MCMD, "spawn");
    pmc_enc_int(&e, "nprocs", 1);
    pmc_enc_str(&e, "execname", "/bin/true");
    pmc_enc_int(&e, "totspawns", 1);
    pmc_enc_int(&e, "spawnssofar", 1);
    pmc_enc_int(&e, "argcnt", 0);
    pmc_enc_int(&e, "preput_num", 0);
    pmc_enc_int(&e, "info_num", 0);
    if (pcf_call(c, &e, "spawn_result", &m) != 0)
        return;
    pcf_show(&m, b, sizeof b);
    if (pcf_rc(&m, &rc) != 1 || rc != 0) {
        pcf_observe(c, "refused", "%s", b);
        return;
    }
    /* V1CMD-20: one spawn_result; the next line must answer the next request */
    char b2[200];
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_maxes");
    if (pcf_send(c, &e) != 0)
        return;
    pmc_error err;
    pws_result r = pcf_recv(c, &m, &err);
    if (r == PWS_MSG && pmc_slice_eq(m.name, "spawn_result"))
        pcf_observe(c, "second-result", "%s, then another: %s", b, pcf_show(&m, b2, sizeof b2));
    else if (r == PWS_MSG && pmc_slice_eq(m.name, "maxes"))
        pcf_observe(c, "ok", "%s", b);
    else if (r == PWS_MSG)
        pcf_observe(c, "wrong-response", "get_maxes after the spawn: %s", pcf_show(&m, b2, sizeof b2));
    else
        pcf_observe(c, r == PWS_EOF ? "closed" : "no-answer", "get_maxes after the spawn: %s",
                    pws_result_name(r));
}

#define LOST_V1                                                                                  \
    { "job-killed", PCF_FAIL, "ERR-1", "the server ended the job" },                             \
    { "sender-killed", PCF_NON_STRICT, "ERR-4", "the server ended the process" },                \
    { "closed", PCF_DEVIATES, "ERR-4", "closed the connection without an answer" },              \
    { "others-affected", PCF_FAIL, "ERR-2", "other connections stopped being served" }

/* SPEC 1.3: a server that refuses the first publish (an error answer, or
 * the unknown-command answer of ERR-7) and keeps refusing (NAME-8) has no
 * name service: UNSUPPORTED, as hasNameServ=FALSE is for PMI-2. */
#define NAME_ABSENT                                                                              \
    { "unsupported", PCF_UNSUPPORTED, "NAME-8", "no name service (publish_name refused)" },       \
    { "publish-failed", PCF_FAIL, "NAME-8", "publish_name refused, yet the name was found" }

static const pcf_case cases[] = {
    { .id = "pmi1/maxes/kvsname-fits", .desc = "the kvsname fits the announced kvsname_max",
      .clause = "V1CMD-5", .expected = "strlen(kvsname) < kvsname_max",
      .flags = PCF_V1, .run = run_kvsname_fits,
      .outcomes = { { "no-maxes", PCF_DEVIATES, NULL, "no usable maxes" } } },
    { .id = "pmi1/maxes/limits-honoured",
      .desc = "a key of keylen_max-1 and a value of vallen_max-1 bytes round-trip",
      .clause = "LIMIT-4", .expected = "the whole key and value after the barrier",
      .flags = PCF_V1 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, /* a line over 1024 bytes: Slurm desyncs */ .run = run_limits_honoured,
      .outcomes = { { "no-maxes", PCF_DEVIATES, "V1CMD-5", "no usable maxes" } } },
    { .id = "pmi1/kvs/value-1024", .desc = "a 1024-byte value is stored whole (B9: cut to 1023)",
      .clause = "LIMIT-1", .expected = "get_result rc=0 with the 1024 bytes",
      .flags = PCF_V1 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, /* Slurm reads 1024 bytes: the rest desyncs the line stream */ .run = run_value_1024,
      .outcomes = { { "truncated", PCF_DEVIATES, "LIMIT-3", "stored shortened with rc=0" } } },
    { .id = "pmi1/kvs/key-64", .desc = "a 64-byte key is stored whole (B9: cut to 63)",
      .clause = "LIMIT-1", .expected = "get_result rc=0 for the 64-byte key",
      .flags = PCF_V1, .run = run_key_64,
      .outcomes = { { "truncated", PCF_DEVIATES, "LIMIT-3", "stored shortened with rc=0" } } },
    { .id = "pmi1/kvs/put", .desc = "put is answered put_result rc=0",
      .clause = "V1CMD-9", .expected = "cmd=put_result rc=0",
      .flags = PCF_V1, .run = run_put_rc },
    { .id = "pmi1/kvs/put-pair-order",
      .desc = "a put written value, key, kvsname is stored like any other",
      .clause = "PAIR-1", .expected = "put_result rc=0, then the value after the barrier",
      .flags = PCF_V1, .run = run_put_order },
    { .id = "pmi1/kvs/put-unknown-key",
      .desc = "a put with a key the server does not know (pcf_extra=1) is stored, the key ignored",
      .clause = "PAIR-5", .expected = "put_result rc=0, then the value after the barrier",
      .flags = PCF_V1, .run = run_put_unknown },
    { .id = "pmi1/kvs/value-last", .desc = "get_result puts value last (Flux needs it; M5)",
      .clause = "PAIR-2", .expected = "cmd=get_result rc=0 ... value=<v> with value last",
      .flags = PCF_V1, .run = run_value_last,
      .outcomes = { { "not-visible", PCF_FAIL, "V1CMD-15", "not found after the barrier" } } },
    { .id = "pmi1/kvs/foreign-kvsname",
      .desc = "a get naming another kvsname is refused, for a key the caller's own space "
              "holds and for a missing one; never fatal (M3)",
      .clause = "V1CMD-11", .expected = "cmd=get_result rc!=0 twice, and the job goes on",
      .flags = PCF_V1 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_foreign_kvsname,
      .outcomes = { PCFD_DELIMITED("V1CMD-11") } },
    { .id = "pmi1/kvs/foreign-kvsname-put",
      .desc = "a put naming a kvsname that does not exist is refused, not fatal",
      .clause = "V1CMD-11", .expected = "cmd=put_result rc!=0 and the job goes on",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_foreign_kvsname_put,
      .outcomes = { PCFD_DELIMITED("V1CMD-11") } },
    { .id = "pmi1/barrier/true-barrier",
      .desc = "barrier_out waits for every rank's barrier_in (rank 0 comes 500 ms late)",
      .clause = "V1CMD-14", .expected = "after barrier_out, rank 0's late put is visible",
      .flags = PCF_V1, .min_ranks = 2, .run = run_true_barrier },
    { .id = "pmi1/barrier/rc", .desc = "barrier_out carries rc",
      .clause = "RC-2", .expected = "cmd=barrier_out rc=0",
      .flags = PCF_V1, .run = run_barrier_rc,
      .outcomes = { { "refused", PCF_FAIL, "V1CMD-14", "the barrier failed" } } },
    { .id = "pmi1/barrier/one-rank-twice",
      .desc = "one rank sends two barrier_in lines in a row: the barrier still waits for every "
              "rank (the last comes late; both on one host)",
      .clause = "V1CMD-14",
      .expected = "after the first barrier_out the last rank's key is there; the double "
                  "sender's second line is answered by the next barrier",
      .steps = "The roles are chosen by the node map: the double sender and the last rank are "
               "two ranks other than 0 on one host (a server that counts barrier_in lines per "
               "node, as Hydra's proxies do, shows the defect only then); on one host, rank 1 "
               "and the last rank.\n"
               "Every rank fences; rank 0 enters the barrier at once; the double sender sends "
               "barrier_in, waits until the server has read it, and sends a second; the other "
               "ranks put <tag>-twice-r<rank> = late and enter later, one after another, the "
               "last rank last.\n"
               "After barrier_out each rank but the double sender gets the last rank's key "
               "(the last rank the key of the one before): missing is \"early\", the "
               "barrier counted the second line (V1CMD-14).\n"
               "Then every rank but the double sender enters the second barrier, which its "
               "extra line completes.",
      .flags = PCF_V1 | PCF_DESTRUCTIVE | PCF_COLLECTIVE | PCF_PLACED, .min_ranks = 3, .run = run_barrier_twice,
      .outcomes = { { "refused", PCF_FAIL, NULL, "a barrier failed" } } },
    { .id = "pmi1/barrier/group-world",
      .desc = "1.2: barrier_in group=WORLD:<tag> is answered barrier_out tag=<tag>",
      .clause = "V1CMD-16", .expected = "cmd=barrier_out tag=<tag> (UNSUPPORTED on a 1.1 server)",
      .flags = PCF_V1, .run = run_group_world,
      .outcomes = { { "not-1.2", PCF_UNSUPPORTED, NULL, "a PMI-1.1 server" } } },
    { .id = "pmi1/barrier/group-node",
      .desc = "1.2: barrier_in group=NODE:<tag> is answered barrier_out tag=<tag>",
      .clause = "V1CMD-16", .expected = "cmd=barrier_out tag=<tag> (UNSUPPORTED on a 1.1 server)",
      .flags = PCF_V1 | PCF_PLACED, .run = run_group_node,
      .outcomes = { { "not-1.2", PCF_UNSUPPORTED, NULL, "a PMI-1.1 server" } } },
    { .id = "pmi1/barrier/group-list",
      .desc = "1.2: a barrier of ranks 0 and 1 (group=0,1:<tag>) completes without the others",
      .clause = "V1CMD-16", .expected = "cmd=barrier_out tag=<tag> to ranks 0 and 1",
      .flags = PCF_V1, .min_ranks = 2, .run = run_group_list,
      .outcomes = { { "not-1.2", PCF_UNSUPPORTED, NULL, "a PMI-1.1 server" } } },
    { .id = "pmi1/name/publish-lookup", .needs = PCF_NEED_NAMESERV,
      .desc = "publish_name, then lookup_name gives the port back",
      .clause = "V1CMD-22", .expected = "publish success; lookup_result with port=<the port>",
      .flags = PCF_V1, .run = run_publish_lookup,
      .outcomes = { NAME_ABSENT,
                    { "lookup-wrong", PCF_DEVIATES, "NAME-1", "lookup did not give the port" } } },
    { .id = "pmi1/name/result-rc", .needs = PCF_NEED_NAMESERV, .desc = "publish_result carries rc (S16: info only)",
      .clause = "RC-2", .expected = "cmd=publish_result rc=0 ...",
      .flags = PCF_V1, .run = run_publish_rc, .outcomes = { NAME_ABSENT } },
    { .id = "pmi1/name/lookup-miss", .needs = PCF_NEED_NAMESERV, .desc = "lookup_name of a name nobody published fails",
      .clause = "NAME-5", .expected = "lookup_result with rc!=0 (or info=fail)",
      .flags = PCF_V1, .run = run_lookup_miss },
    { .id = "pmi1/name/unpublish", .needs = PCF_NEED_NAMESERV,
      .desc = "unpublish_name succeeds once, then fails for the removed name",
      .clause = "NAME-6", .expected = "unpublish_result success, then failure",
      .flags = PCF_V1, .run = run_unpublish, .outcomes = { NAME_ABSENT } },
    { .id = "pmi1/name/duplicate", .needs = PCF_NEED_NAMESERV, .desc = "a second publish_name of the same name is refused (S19)",
      .clause = "NAME-2", .expected = "the second publish_result fails",
      .flags = PCF_V1, .run = run_duplicate, .outcomes = { NAME_ABSENT } },
    { .id = "pmi1/value/backslash", .desc = "backslashes in a value are taken literally (H10)",
      .clause = "V1-10", .expected = "a\\\\b\\c comes back byte for byte",
      .flags = PCF_V1, .run = run_backslash },
    { .id = "pmi1/value/equals", .desc = "a value with '=' (\"a=b=c\") round-trips",
      .clause = "V1-5", .expected = "a=b=c back",
      .flags = PCF_V1, .run = run_equals },
    { .id = "pmi1/value/empty", .desc = "an empty value (\"value=\") is stored and returned (H1)",
      .clause = "V1-6", .expected = "cmd=get_result rc=0 value=",
      .flags = PCF_V1 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_empty,
      .outcomes = { { "job-killed", PCF_FAIL, "ERR-1", "the job ended" },
                    { "closed", PCF_FAIL, "V1-6", "the connection was closed" } } },
    { .id = "pmi1/value/space",
      .desc = "\"value=a b c\": the value ends at the first space, the rest are bare words",
      .clause = "V1-5", .expected = "put_result rc=0 and \"a\" stored, or rc!=0",
      .flags = PCF_V1 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .run = run_space,
      .outcomes = { { "refused", PCF_NON_STRICT, "V1-7", "rejected the line for its bare words" },
                    { "job-killed", PCF_FAIL, "ERR-1", "the job ended" },
                    { "closed", PCF_NON_STRICT, "ERR-4", "the connection was closed" } } },
    { .id = "pmi1/line/crlf", .desc = "\"cmd=get_maxes\\r\\n\" is answered like get_maxes (H7)",
      .clause = "V1-3", .expected = "cmd=maxes ... (the CR ignored)",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_crlf,
      .outcomes = { { "rejected", PCF_DEVIATES, NULL, "answered with an error" },
                    { "wrong-response", PCF_DEVIATES, NULL, "answered another command" }, LOST_V1 } },
    { .id = "pmi1/line/extra-spaces",
      .desc = "runs of spaces between pairs and a space before the LF are accepted",
      .clause = "V1-4",
      .expected = "the answer the same get with single spaces gets (of PMI_process_mapping)",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_spaces,
      .outcomes = { { "rejected", PCF_DEVIATES, NULL, "answered with an error" },
                    { "differs", PCF_DEVIATES, NULL, "read the line otherwise" }, LOST_V1 } },
    { .id = "pmi1/line/bare-word", .desc = "a token without '=' is ignored (\"cmd=get_maxes pcfbare\")",
      .clause = "V1-7", .expected = "cmd=maxes ...",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_bare_word,
      .outcomes = { { "rejected", PCF_DEVIATES, NULL, "answered with an error" }, LOST_V1 } },
    { .id = "pmi1/line/split", .desc = "a PMI-1 line written in four pieces is reassembled (S2)",
      .clause = "CONN-1", .expected = "cmd=universe_size ...",
      .flags = PCF_V1, .run = run_line_split },
    { .id = "pmi1/line/coalesced", .desc = "two PMI-1 lines in one write get two answers (S2)",
      .clause = "CONN-1", .expected = "cmd=appnum ..., then cmd=universe_size ...",
      .flags = PCF_V1, .run = run_line_coalesced },
    { .id = "pmi1/abort/exitcode",
      .desc = "abort exitcode=7 from rank 1 ends the job without an answer",
      .clause = "V1CMD-21", .expected = "no answer; the job ends (exit status 7 in the report)",
      .flags = PCF_V1 | PCF_DESTRUCTIVE | PCF_COLLECTIVE, .min_ranks = 2, .run = run_abort,
      .outcomes = { { "job-killed", PCF_PASS, NULL, "the job ended" },
                    { "answered", PCF_FAIL, NULL, "abort was answered" },
                    { "closed", PCF_FAIL, NULL, "a connection closed but the job went on" },
                    { "not-ended", PCF_FAIL, NULL, "the job went on after abort" } } },
    { .id = "pmi1/finalize/ack", .desc = "finalize is answered finalize_ack",
      .clause = "V1CMD-17", .expected = "cmd=finalize_ack (rc=0 or no rc); the server may close",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_finalize },
    { .id = "pmi1/spawn/result",
      .desc = "an mcmd=spawn block of /bin/true gets one spawn_result",
      .clause = "V1CMD-20", .expected = "cmd=spawn_result rc=0 (UNSUPPORTED when refused)",
      .flags = PCF_V1 | PCF_DESTRUCTIVE, .run = run_spawn,
      .outcomes = { { "refused", PCF_UNSUPPORTED, NULL, "spawn refused" },
                    { "second-result", PCF_FAIL, NULL, "a second spawn_result" }, LOST_V1 } },
};
PCF_CASES(cases)
