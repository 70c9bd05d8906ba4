/* Client cases: every PMI-2 API call's wire form and result, through the
 * driver's report lines (pmi2-driver: "pcf <call> rc=<n> ..."). */
#include "client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const pcf_crun *ref(pcf_ctx *c)
{
    return pcf_client_run(c, &(pcf_cspec){ 0 });
}

static const pcf_crun *script(pcf_ctx *c, const char *s, int np)
{
    return pcf_client_run(c, &(pcf_cspec){ .script = s, .np = np });
}

/* The call's report on `rank`: 0 with rc set, or -1 after observing why not. */
static int rc_of(pcf_ctx *c, const pcf_crun *r, int rank, const char *call, long *rc)
{
    return pcf_crc_of(c, r, rank, call, rc, "no-answer");
}

/* x=<hex> of the call equals `want`. */
static bool value_is(const pcf_crun *r, int rank, const char *call, const char *want, char *got,
                     size_t n)
{
    char hx[2200], w[2200];
    pcf_cfield(r, rank, call, "x", hx, sizeof hx);
    size_t j = 0;
    for (const char *p = want; *p && j + 3 < sizeof w; p++)
        j += (size_t)snprintf(w + j, sizeof w - j, "%02x", (unsigned char)*p);
    w[j] = 0;
    snprintf(got, n, "%s", hx);
    return strcmp(hx, w) == 0;
}

static void run_init_values(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    if (!r)
        return;
    for (int k = 0; k < r->np; k++) {
        long rc;
        char rank[16], size[16], appnum[16];
        if (rc_of(c, r, k, "PMI2_Init", &rc))
            return;
        pcf_cfield(r, k, "PMI2_Init", "rank", rank, sizeof rank);
        pcf_cfield(r, k, "PMI2_Init", "size", size, sizeof size);
        pcf_cfield(r, k, "PMI2_Init", "appnum", appnum, sizeof appnum);
        /* what this server answered (Slurm's appnum is always -1: FULLINIT-10) */
        long long sr = k, ss = r->np, sa = 0;
        pcf_cresponse_int(r, k, "fullinit-response", "rank", &sr);
        pcf_cresponse_int(r, k, "fullinit-response", "size", &ss);
        pcf_cresponse_int(r, k, "fullinit-response", "appnum", &sa);
        if (rc != 0 || atoll(rank) != sr || atoll(size) != ss || atoll(appnum) != sa) {
            pcf_observe(c, "wrong-values", "rank %d: PMI2_Init rc=%ld rank=%s size=%s appnum=%s; "
                        "the server answered rank=%lld size=%lld appnum=%lld", k, rc, rank,
                        size, appnum, sr, ss, sa);
            return;
        }
    }
    pcf_observe(c, "ok", "PMI2_Init returned the server's rank, size and appnum");
}

static void run_fullinit_keys(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    if (!r)
        return;
    char b[300];
    for (int k = 0; k < r->np; k++) {
        const pcf_creq *q = pcf_creq_find(r, k, "fullinit", 1);
        pmc_msg m;
        if (!q || pcf_creq_msg(c, q, &m) != 0) {
            pcf_observe(c, "no-fullinit", "rank %d sent no fullinit", k);
            return;
        }
        long long pr = -1;
        pmc_slice jid;
        bool thr;
        const char *miss = pmc_msg_get_int(&m, "pmirank", &pr) != 1 ? "pmirank"
                           : pmc_msg_get_bool(&m, "threaded", &thr, NULL) != 1 ? "threaded"
                           : !pmc_msg_get(&m, "pmijobid", &jid)               ? "pmijobid"
                                                                              : NULL;
        if (miss) {
            pcf_observe(c, "missing-key", "rank %d: fullinit without %s: %s", k, miss,
                        pcf_cshow(q->raw, q->len, b, sizeof b));
            return;
        }
        if (pr != k || !pmc_slice_eq(jid, r->jobid)) {
            pcf_observe(c, "wrong-value", "rank %d (PMI_JOBID %s): %s", k, r->jobid,
                        pcf_cshow(q->raw, q->len, b, sizeof b));
            return;
        }
    }
    pcf_observe(c, "ok", "fullinit carries pmirank, threaded and pmijobid from the environment");
}

static void run_fullinit_first(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    if (!r)
        return;
    char b[200];
    for (int k = 0; k < r->np; k++) {
        int n = 0;
        for (size_t i = 0; i < r->nreq; i++) {
            if (r->req[i].rank != k)
                continue;
            if (++n == 2 && strcmp(r->req[i].name, "fullinit") != 0) {
                pcf_observe(c, "not-first", "rank %d: after init came %s", k,
                            pcf_cshow(r->req[i].raw, r->req[i].len, b, sizeof b));
                return;
            }
        }
    }
    pcf_observe(c, "ok", "fullinit directly after init");
}

static void run_fullinit_once(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    if (!r)
        return;
    for (int k = 0; k < r->np; k++)
        if (pcf_creq_count(r, k, "fullinit") != 1) {
            pcf_observe(c, "repeated", "rank %d sent fullinit %zu times", k,
                        pcf_creq_count(r, k, "fullinit"));
            return;
        }
    pcf_observe(c, "ok", "one fullinit per connection");
}

static void run_jobid(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    long rc;
    char got[300];
    if (!r || rc_of(c, r, 0, "PMI2_Job_GetId", &rc))
        return;
    if (rc == 0 && value_is(r, 0, "PMI2_Job_GetId", r->jobid, got, sizeof got))
        pcf_observe(c, "ok", "the job id is the server's, unchanged (%s)", r->jobid);
    else
        pcf_observe(c, "altered", "rc=%ld, hex %s; the server said %s", rc, got, r->jobid);
}

/* The call returned rc 0 and the value on every rank; want may use %d for the peer rank. */
static void expect_value(pcf_ctx *c, const pcf_crun *r, const char *call, const char *fmt,
                         bool peer)
{
    if (!r)
        return;
    for (int k = 0; k < r->np; k++) {
        long rc;
        char want[1100], got[2200];
        if (rc_of(c, r, k, call, &rc))
            return;
        snprintf(want, sizeof want, fmt, peer ? (k + 1) % r->np : k);
        bool same = value_is(r, k, call, want, got, sizeof got);
        if (rc != 0 || !same) {
            pcf_observe(c, "wrong-value", "rank %d: %s rc=%ld value(hex)=%s, expected \"%s\"", k,
                        call, rc, got, want);
            return;
        }
    }
    pcf_observe(c, "ok", "%s returned the expected value on every rank", call);
}

static void run_kvs_roundtrip(pcf_ctx *c)
{
    expect_value(c, ref(c), "PMI2_KVS_Get", "v%d", true);
}

/* a run of its own: a server that refuses empty values (Hydra 4.1, H1) ends
 * that job only, and the case is UNSUPPORTED (pcf_cserver_ended) */
static void run_kvs_empty(pcf_ctx *c)
{
    expect_value(c, script(c, "empty", 2), "PMI2_KVS_Get:empty", "", true);
}

/* rank's kvs-put of the value with ';' reads a;b;c as SPEC.md decodes it */
static bool put_semi_ok(pcf_ctx *c, const pcf_crun *r, int rank)
{
    for (size_t i = 0; i < r->nreq; i++) {
        const pcf_creq *q = &r->req[i];
        pmc_msg m;
        pmc_slice k, v;
        if (q->rank != rank || strcmp(q->name, "kvs-put") || pcf_creq_msg(c, q, &m) ||
            !pmc_msg_get(&m, "key", &k) || k.len < 8 || memcmp(k.ptr, "pcf-semi", 8) != 0)
            continue;
        return pmc_msg_get(&m, "value", &v) && v.len == 5 && memcmp(v.ptr, "a;b;c", 5) == 0;
    }
    return false;
}

static void run_escape_roundtrip(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    if (!r)
        return;
    for (int k = 0; k < r->np; k++) {
        long rc;
        char got[2200];
        if (rc_of(c, r, k, "PMI2_KVS_Get:semi", &rc))
            return;
        if (rc == 0 && value_is(r, k, "PMI2_KVS_Get:semi", "a;b;c", got, sizeof got))
            continue;
        /* a server that does not read ";;" (Hydra 4.1+) never gives back the
         * value the peer sent right: nothing of the client to grade */
        bool answered = pcf_cresponse_has(r, k, "kvs-get-response", "value", "a;b;c");
        if (!answered && put_semi_ok(c, r, (k + 1) % r->np)) {
            pcf_observe(c, "server-mangled", "rank %d: the %s server never answered the value "
                        "a;b;c (the peer put it escaped, a;;b;;c); the client got rc=%ld, "
                        "value(hex) %s", k, r->persona, rc, got);
            return;
        }
        /* the peer sent ';' as is: ESC-1's finding (client/api/escape-sent); the
         * value never reached the server, so there is no round trip to grade */
        int peer = (k + 1) % r->np;
        for (size_t i = 0; !answered && i < r->nreq; i++)
            if (r->req[i].rank == peer && pcf_creq_semi_unescaped(c, &r->req[i])) {
                pcf_observe(c, "not-escaped", "rank %d's put sent a;b;c with ';' as is (ESC-1, "
                            "client/api/escape-sent): the value never reached the server whole, "
                            "so the round trip is not graded", peer);
                return;
            }
        pcf_observe(c, "wrong-value", "rank %d: PMI2_KVS_Get:semi rc=%ld value(hex)=%s; %s", k,
                    rc, got, answered ? "the server answered a;b;c"
                                      : "the peer's put did not say a;b;c as SPEC.md reads it "
                                        "(';' not sent as ';;', ESC-1)");
        return;
    }
    pcf_observe(c, "ok", "PMI2_KVS_Get:semi returned a;b;c on every rank");
}

static void run_kvs_missing(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    if (!r)
        return;
    for (int k = 0; k < r->np; k++) {
        long rc;
        if (rc_of(c, r, k, "PMI2_KVS_Get:missing", &rc))
            return;
        if (rc == 0) {
            pcf_observe(c, "found", "rank %d: a missing key was reported found", k);
            return;
        }
        if (!pcf_cended(r, k)) {
            pcf_observe(c, "stopped", "rank %d did not go on after the miss", k);
            return;
        }
    }
    pcf_observe(c, "ok", "a missing key fails the call and the program goes on");
}

static void run_escape_sent(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    if (!r)
        return;
    char b[300];
    if (pcf_clacks(c, r, "PMI2_KVS_Put:semi"))
        return;
    for (size_t i = 0; i < r->nreq; i++) {
        const pcf_creq *q = &r->req[i];
        pmc_msg m;
        pmc_slice k;
        if (strcmp(q->name, "kvs-put") || pcf_creq_msg(c, q, &m) || !pmc_msg_get(&m, "key", &k) ||
            k.len < 8 || memcmp(k.ptr, "pcf-semi", 8) != 0)
            continue;
        /* the harness's decoder's notes, not the persona's (Hydra 4.1 leaves ;; as is) */
        if (m.notes & PMC_NOTE_ESCAPED_SEMI)
            pcf_observe(c, "ok", "';' doubled: %s", pcf_cshow(q->raw, q->len, b, sizeof b));
        else
            pcf_observe(c, "unescaped", "rank %d: %s", q->rank,
                        pcf_cshow(q->raw, q->len, b, sizeof b));
        return;
    }
    pcf_observe(c, "no-put", "no kvs-put of the value with ';' was sent");
}

static void all_rc0(pcf_ctx *c, const pcf_crun *r, const char *call, const char *req)
{
    if (!r)
        return;
    for (int k = 0; k < r->np; k++) {
        long rc;
        if (rc_of(c, r, k, call, &rc))
            return;
        if (rc != 0) {
            pcf_observe(c, "failed", "rank %d: %s rc=%ld", k, call, rc);
            return;
        }
        if (req && !pcf_creq_find(r, k, req, 1)) {
            pcf_observe(c, "not-sent", "rank %d: %s succeeded without sending %s", k, call, req);
            return;
        }
    }
    pcf_observe(c, "ok", "%s succeeded on every rank (%s)", call, req ? req : "");
}

static void run_fence(pcf_ctx *c) { all_rc0(c, ref(c), "PMI2_KVS_Fence", "kvs-fence"); }
static void run_put(pcf_ctx *c) { all_rc0(c, ref(c), "PMI2_KVS_Put", "kvs-put"); }
static void run_finalize(pcf_ctx *c) { all_rc0(c, ref(c), "PMI2_Finalize", "finalize"); }
static void run_unpublish(pcf_ctx *c)
{
    all_rc0(c, ref(c), "PMI2_Nameserv_unpublish", "name-unpublish");
}

static void run_nodeattr(pcf_ctx *c)
{
    expect_value(c, ref(c), "PMI2_Info_GetNodeAttr", "nv", false);
}

static void run_nodeattr_missing(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    if (!r)
        return;
    for (int k = 0; k < r->np; k++) {
        long rc;
        char f[8];
        if (rc_of(c, r, k, "PMI2_Info_GetNodeAttr:missing", &rc))
            return;
        pcf_cfield(r, k, "PMI2_Info_GetNodeAttr:missing", "found", f, sizeof f);
        if (rc != 0 || atoi(f) != 0) {
            pcf_observe(c, "wrong", "rank %d: rc=%ld found=%s for a missing attribute", k, rc, f);
            return;
        }
    }
    pcf_observe(c, "ok", "a missing node attribute is found=0 with rc 0");
}

static void run_nodeattr_wait(pcf_ctx *c)
{
    const pcf_crun *r = script(c, "nodeattr-wait", 2);
    long rc;
    if (!r || rc_of(c, r, 1, "PMI2_Info_GetNodeAttr:wait", &rc))
        return;
    const pcf_creq *q = pcf_creq_find(r, 1, "info-getnodeattr", 1);
    pmc_msg m;
    bool w = false;
    char got[200], ms[32];
    if (!q || pcf_creq_msg(c, q, &m) || pmc_msg_get_bool(&m, "wait", &w, NULL) != 1 || !w) {
        pcf_observe(c, "no-wait", "info-getnodeattr without wait=TRUE");
        return;
    }
    pcf_cfield(r, 1, "PMI2_Info_GetNodeAttr:wait", "ms", ms, sizeof ms);
    if (rc != 0 || !value_is(r, 1, "PMI2_Info_GetNodeAttr:wait", "late-value", got, sizeof got))
        pcf_observe(c, "wrong-value", "rc=%ld value(hex)=%s after %s ms", rc, got, ms);
    else
        pcf_observe(c, "ok", "waited %s ms for the attribute rank 0 put later", ms);
}

static void run_jobattr_mapping(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    long rc;
    if (!r || rc_of(c, r, 0, "PMI2_Info_GetJobAttr:PMI_process_mapping", &rc))
        return;
    char hx[600], f[8];
    pcf_cfield(r, 0, "PMI2_Info_GetJobAttr:PMI_process_mapping", "x", hx, sizeof hx);
    pcf_cfield(r, 0, "PMI2_Info_GetJobAttr:PMI_process_mapping", "found", f, sizeof f);
    /* "(vector," in hex */
    if (rc == 0 && atoi(f) == 1 && strncmp(hx, "28766563746f722c", 16) == 0)
        pcf_observe(c, "ok", "PMI_process_mapping returned (hex %.40s...)", hx);
    else
        pcf_observe(c, "wrong", "rc=%ld found=%s hex=%.60s", rc, f, hx);
}

static void run_name_lookup(pcf_ctx *c)
{
    expect_value(c, ref(c), "PMI2_Nameserv_lookup", "port-%d", false);
}

static void run_name_gone(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    long rc;
    if (!r || rc_of(c, r, 0, "PMI2_Nameserv_lookup:gone", &rc))
        return;
    if (rc == 0)
        pcf_observe(c, "success", "a lookup the server refused returned success");
    else if (!pcf_cended(r, 0))
        pcf_observe(c, "stopped", "the program did not go on after the failed lookup");
    else
        pcf_observe(c, "ok", "the refused lookup failed (rc=%ld) without needing port", rc);
}

static void run_limits(pcf_ctx *c)
{
    const pcf_crun *r = script(c, "limits", 1);
    if (!r)
        return;
    char want[1024];
    memset(want, 'v', 1023);
    want[1023] = 0;
    long rc;
    char got[2200];
    if (rc_of(c, r, 0, "PMI2_KVS_Put:long", &rc))
        return;
    if (rc != 0) {
        pcf_observe(c, "refused", "a 63-byte key with a 1023-byte value: put rc=%ld", rc);
        return;
    }
    if (rc_of(c, r, 0, "PMI2_KVS_Get:long", &rc))
        return;
    if (rc == 0 && value_is(r, 0, "PMI2_KVS_Get:long", want, got, sizeof got))
        pcf_observe(c, "ok", "the largest key and value made the round trip");
    else
        pcf_observe(c, "truncated", "get rc=%ld, %zu hex digits back", rc, strlen(got));
}

static void run_abort_keys(pcf_ctx *c)
{
    const pcf_crun *r = script(c, "abort", 1);
    if (!r || pcf_clacks(c, r, "PMI2_Abort"))
        return;
    const pcf_creq *q = pcf_creq_find(r, 0, "abort", 1);
    pmc_msg m;
    char b[300];
    if (!q || pcf_creq_msg(c, q, &m)) {
        pcf_observe(c, "not-sent", "PMI2_Abort sent no abort request");
        return;
    }
    const char *need[] = { "isworld", "exitcode", "msg", "message" };
    for (int i = 0; i < 4; i++)
        if (!pmc_msg_find(&m, need[i])) {
            pcf_observe(c, "one-spelling", "abort without %s: %s", need[i],
                        pcf_cshow(q->raw, q->len, b, sizeof b));
            return;
        }
    pcf_observe(c, "ok", "%s", pcf_cshow(q->raw, q->len, b, sizeof b));
}

static void run_abort_nowait(pcf_ctx *c)
{
    /* the server neither answers nor kills: the process must end by itself */
    const pcf_crun *r = pcf_client_run(c, &(pcf_cspec){ .script = "abort", .np = 1,
                                                         .abort_ignored = true });
    if (!r || pcf_clacks(c, r, "PMI2_Abort"))
        return;
    char b[100];
    if (r->timed_out)
        pcf_observe(c, "waited", "the process still ran at the deadline after sending abort");
    else if (pcf_cline(r, 0, "PMI2_Abort:returned"))
        pcf_observe(c, "returned", "PMI2_Abort returned to the program (%s)",
                    pcf_cstatus(r, 0, b, sizeof b));
    else
        pcf_observe(c, "ok", "the process ended without an answer (%s)",
                    pcf_cstatus(r, 0, b, sizeof b));
}

static void run_spawn_single(pcf_ctx *c)
{
    const pcf_crun *r = script(c, "spawn", 1);
    if (!r || pcf_clacks(c, r, "PMI2_Job_Spawn"))
        return;
    if (pcf_creq_count(r, 0, "spawn-cmd")) {
        pcf_observe(c, "spawn-cmd", "the draft's spawn-cmd messages were sent");
        return;
    }
    size_t n = pcf_creq_count(r, 0, "spawn");
    if (n == 1)
        pcf_observe(c, "ok", "one spawn message");
    else
        pcf_observe(c, "not-single", "%zu spawn messages", n);
}

static void run_spawn_counts(pcf_ctx *c)
{
    const pcf_crun *r = script(c, "spawn", 1);
    if (!r || pcf_clacks(c, r, "PMI2_Job_Spawn"))
        return;
    const pcf_creq *q = pcf_creq_find(r, 0, "spawn", 1);
    pmc_msg m;
    char b[400];
    if (!q || pcf_creq_msg(c, q, &m)) {
        pcf_observe(c, "not-sent", "PMI2_Job_Spawn sent no spawn request");
        return;
    }
    if (!pmc_msg_find(&m, "preputcount") || !pmc_msg_find(&m, "infokeycount") ||
        !pmc_msg_find(&m, "ncmds"))
        pcf_observe(c, "missing-count", "%s", pcf_cshow(q->raw, q->len, b, sizeof b));
    else if (!q->valid)
        pcf_observe(c, "invalid", "%s", q->findings);
    else
        pcf_observe(c, "ok", "ncmds, preputcount and infokeycount sent");
}

static void run_spawn_error(pcf_ctx *c)
{
    const pcf_crun *r = script(c, "spawn", 1);
    long rc;
    if (!r || rc_of(c, r, 0, "PMI2_Job_Spawn", &rc))
        return;
    if (rc == 0)
        pcf_observe(c, "success", "a spawn the server refused returned success");
    else if (!pcf_cended(r, 0))
        pcf_observe(c, "stopped", "the program did not go on after the refused spawn");
    else
        pcf_observe(c, "ok", "the refused spawn failed the call (rc=%ld)", rc);
}

/* SPAWN-2: within a segment, subcmd, maxprocs, argc, argv0.., infokeycount,
 * infokey0, infoval0, ...: each key's place in that order. -1: not a segment key. */
static long seg_place(pmc_slice k)
{
    char b[64];
    pmc_slice_copy(k, b, sizeof b);
    long n;
    if (!strcmp(b, "subcmd"))
        return 0;
    if (!strcmp(b, "maxprocs"))
        return 1;
    if (!strcmp(b, "argc"))
        return 2;
    if (sscanf(b, "argv%ld", &n) == 1)
        return 3 + n;
    if (!strcmp(b, "infokeycount"))
        return 1000000;
    if (sscanf(b, "infokey%ld", &n) == 1)
        return 1000001 + 2 * n;
    if (sscanf(b, "infoval%ld", &n) == 1)
        return 1000002 + 2 * n;
    return -1;
}

static void run_spawn_order(pcf_ctx *c)
{
    const pcf_crun *r = script(c, "spawn", 1);
    if (!r || pcf_clacks(c, r, "PMI2_Job_Spawn"))
        return;
    const pcf_creq *q = pcf_creq_find(r, 0, "spawn", 1);
    pmc_msg m;
    char b[300];
    if (!q || pcf_creq_msg(c, q, &m)) {
        pcf_observe(c, "not-sent", "PMI2_Job_Spawn sent no spawn request");
        return;
    }
    long last = -1;
    for (size_t i = 0; i < m.npairs; i++) {
        long p = seg_place(m.pairs[i].key);
        if (p < 0)
            continue;
        if (p == 0)
            last = -1; /* a new segment */
        if (p <= last) {
            pcf_observe(c, "out-of-order", "%.*s out of place: %s", (int)m.pairs[i].key.len,
                        m.pairs[i].key.ptr, pcf_cshow(q->raw, q->len, b, sizeof b));
            return;
        }
        last = p;
    }
    pcf_observe(c, "ok", "segment keys in order: %s", pcf_cshow(q->raw, q->len, b, sizeof b));
}

/* KVS-7: a server that answers kvs-get with the draft's flag= instead of found=
 * (the mock server's mutant persona kvs-get-flag). */
static void run_kvs_flag(pcf_ctx *c)
{
    const pcf_crun *r = pcf_client_run(c, &(pcf_cspec){ .persona = "mutant:kvs-get-flag" });
    if (!r)
        return;
    for (int k = 0; k < r->np; k++) {
        long rc;
        if (rc_of(c, r, k, "PMI2_KVS_Get:missing", &rc))
            return;
        if (rc == 0) {
            pcf_observe(c, "found", "rank %d: a miss answered flag=FALSE was reported found", k);
            return;
        }
    }
    expect_value(c, r, "PMI2_KVS_Get", "v%d", true);
}

/* NODEATTR-8: each node attribute put at most once by a process. */
static void run_nodeattr_once(pcf_ctx *c)
{
    const pcf_crun *r = ref(c);
    if (!r)
        return;
    for (size_t i = 0; i < r->nreq; i++) {
        const pcf_creq *q = &r->req[i];
        pmc_msg m;
        pmc_slice k;
        char key[128];
        if (strcmp(q->name, "info-putnodeattr") || pcf_creq_msg(c, q, &m) ||
            !pmc_msg_get(&m, "key", &k))
            continue;
        pmc_slice_copy(k, key, sizeof key);
        size_t n = 0;
        for (size_t j = 0; j < r->nreq; j++) {
            const pcf_creq *o = &r->req[j];
            pmc_msg m2;
            pmc_slice k2;
            if (o->rank == q->rank && !strcmp(o->name, "info-putnodeattr") &&
                pcf_creq_msg(c, o, &m2) == 0 && pmc_msg_get(&m2, "key", &k2) &&
                pmc_slice_eq(k2, key))
                n++;
        }
        if (n > 1) {
            pcf_observe(c, "repeated", "rank %d put node attribute %s %zu times", q->rank, key,
                        n);
            return;
        }
    }
    pcf_observe(c, "ok", "each node attribute put at most once per process");
}

#define CASE(ID, CL, DESC, EXP, FN, ...)                                                         \
    { .c = { .id = ID, .clause = CL, .flags = PCF_V2 | PCF_CDRIVER, .desc = DESC,               \
             .expected = EXP, .outcomes = { __VA_ARGS__ } },                                      \
      .run = FN }

/* graded from the bytes alone: any PMI-2 program */
#define WIRE(ID, CL, DESC, EXP, FN)                                                              \
    { .c = { .id = ID, .clause = CL, .flags = PCF_V2, .desc = DESC, .expected = EXP }, .run = FN }

static const pcf_ccase cases[] = {
    CASE("client/fullinit/values", "FULLINIT-9", "PMI2_Init reports the server's answer",
         "rank, size and appnum from fullinit-response", run_init_values),
    WIRE("client/fullinit/keys", "FULLINIT-3", "fullinit keys",
         "pmirank, threaded and pmijobid, from PMI_RANK and PMI_JOBID", run_fullinit_keys),
    WIRE("client/fullinit/first", "FULLINIT-13", "fullinit right after init",
         "the first framed message is fullinit", run_fullinit_first),
    WIRE("client/fullinit/once", "FULLINIT-11", "one fullinit", "fullinit once per connection",
         run_fullinit_once),
    CASE("client/api/job-getid", "JOB-2", "PMI2_Job_GetId", "the server's job id unchanged",
         run_jobid),
    CASE("client/api/kvs-put", "KVS-1", "PMI2_KVS_Put", "rc 0 after a kvs-put request",
         run_put),
    CASE("client/api/kvs-fence", "FENCE-1", "PMI2_KVS_Fence", "rc 0 after a kvs-fence",
         run_fence),
    CASE("client/api/kvs-get", "KVS-3", "PMI2_KVS_Get of a peer's key",
         "the value the peer put before the fence", run_kvs_roundtrip),
    CASE("client/api/kvs-get-empty", "KVS-11", "PMI2_KVS_Get of an empty value",
         "rc 0 and an empty value", run_kvs_empty),
    CASE("client/api/kvs-get-missing", "KVS-5", "PMI2_KVS_Get of a missing key",
         "the call fails and the program goes on", run_kvs_missing),
    CASE("client/api/escape-sent", "ESC-1", "';' in a value is sent as ';;'",
         "kvs-put of a;b;c carries a;;b;;c", run_escape_sent),
    CASE("client/api/escape-roundtrip", "ESC-3", "a value with ';' comes back intact",
         "PMI2_KVS_Get returns a;b;c", run_escape_roundtrip,
         { "wrong-value", PCF_DEVIATES, NULL, "the value was cut or altered" },
         { "server-mangled", PCF_UNSUPPORTED, NULL,
           "the server never sent a;b;c back (it does not decode ;;): not the client's" },
         { "not-escaped", PCF_UNSUPPORTED, "ESC-1",
           "the put sent ';' as is: client/api/escape-sent grades that, not this case" }),
    CASE("client/api/nodeattr", "NODEATTR-2", "PMI2_Info_GetNodeAttr",
         "the attribute rank 0 put", run_nodeattr),
    CASE("client/api/nodeattr-missing", "NODEATTR-3", "PMI2_Info_GetNodeAttr of a missing name",
         "found=0 and rc 0", run_nodeattr_missing),
    CASE("client/api/nodeattr-wait", "NODEATTR-4", "PMI2_Info_GetNodeAttr with waitfor",
         "wait=TRUE sent; the call returns the value put later", run_nodeattr_wait),
    CASE("client/api/jobattr-mapping", "JOBATTR-7", "PMI2_Info_GetJobAttr PMI_process_mapping",
         "found, a (vector,...) value", run_jobattr_mapping),
    CASE("client/api/name-lookup", "NAME-4", "PMI2_Nameserv_publish and lookup",
         "lookup returns the published port", run_name_lookup),
    CASE("client/api/name-unpublish", "NAME-1", "PMI2_Nameserv_unpublish",
         "rc 0 after name-unpublish", run_unpublish),
    CASE("client/api/name-lookup-refused", "RC-9", "a refused lookup",
         "the call fails without requiring port; the program goes on", run_name_gone),
    CASE("client/api/finalize", "FINALIZE-3", "PMI2_Finalize", "rc 0 after finalize",
         run_finalize),
    CASE("client/api/limits", "LIMIT-2", "the largest key and value",
         "a 63-byte key and a 1023-byte value make the round trip", run_limits),
    CASE("client/api/abort-keys", "ABORT-1", "abort spellings",
         "isworld, exitcode, msg and message", run_abort_keys),
    CASE("client/api/abort-no-wait", "ABORT-8", "PMI2_Abort does not wait",
         "the process ends without a response to abort", run_abort_nowait,
         { "returned", PCF_FAIL, NULL, "PMI2_Abort returned to its caller" }),
    CASE("client/api/spawn-single", "SPAWN-1", "PMI2_Job_Spawn is one message",
         "one spawn request, no spawn-cmd", run_spawn_single),
    CASE("client/api/spawn-counts", "SPAWN-3", "spawn counts",
         "ncmds, preputcount and infokeycount always sent", run_spawn_counts),
    CASE("client/api/spawn-refused", "SPAWN-11", "a refused spawn",
         "the call fails, the program goes on", run_spawn_error),
    CASE("client/api/spawn-order", "SPAWN-2", "spawn segment key order",
         "subcmd, maxprocs, argc, argv0.., infokeycount, infokey0, infoval0, ...",
         run_spawn_order),
    CASE("client/api/kvs-get-flag", "KVS-7", "PMI2_KVS_Get from a server that answers flag=",
         "a miss answered flag=FALSE fails the call; hits return the value",
         run_kvs_flag),
    WIRE("client/api/nodeattr-once", "NODEATTR-8", "a node attribute put once",
         "no info-putnodeattr of the same name twice from one process", run_nodeattr_once),
};
PCF_CLIENT_CASES(cases)
