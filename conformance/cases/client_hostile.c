/* Client cases: what a real client library, run here for the first time,
 * got wrong (issue 21): values a PMI-1 line cannot carry, the server's
 * announced value limit, misnamed and stray answers, abort without a
 * message, a malformed PMI_FD, one tag shared by threads, the not-found
 * forms of node attributes, a wrapped process mapping, a write after the
 * server closed. */
#include "client.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static int rc_of(pcf_ctx *c, const pcf_crun *r, int rank, const char *call, long *rc)
{
    return pcf_crc_of(c, r, rank, call, rc, "hang");
}

static const pcf_crun *run1(pcf_ctx *c, const char *persona, const char *scr, int np,
                            pms_fault f)
{
    pcf_cspec s = { .persona = persona, .script = scr, .np = np, .nfaults = f.kind ? 1 : 0 };
    s.faults[0] = f;
    return pcf_client_run(c, &s);
}

/* A rank killed by a signal it did not get from us (the deadline kills with 9). */
static bool crashed(const pcf_crun *r, int k)
{
    return WIFSIGNALED(r->ranks[k].status) && WTERMSIG(r->ranks[k].status) != SIGKILL;
}

/* ---------------------------------------------------------------- INIT-9 */

static void run_subversion(pcf_ctx *c)
{
    /* the strict server answers a 1.x init with 1.2, its highest (INIT-7) */
    const pcf_crun *r = pcf_client_run(c, &(pcf_cspec){ .persona = "strict" });
    if (!r)
        return;
    char names[200];
    for (int k = 0; k < r->np; k++) {
        long long v, sv;
        pcf_creq_init_version(r, k, &v, &sv);
        if (v != 1 || sv >= 2) {
            pcf_observe(c, "ok", "the program asked for PMI %lld.%lld: no higher subversion to "
                        "accept", v, sv);
            return;
        }
        if (pcf_creq_count(r, k, NULL) <= 1) {
            pcf_observe(c, "stopped", "rank %d asked for PMI 1.%lld, was answered "
                        "pmi_subversion=2 (INIT-7), and stopped (%s; stderr: %.200s): a "
                        "1.%lld-only library must accept that answer and use 1.%lld", k, sv,
                        pcf_creq_names(r, k, names, sizeof names), r->ranks[k].err, sv, sv);
            return;
        }
    }
    pcf_observe(c, "ok", "asked for PMI 1.1, answered 1.2, and went on (%s)",
                pcf_creq_names(r, 0, names, sizeof names));
}

/* ---------------------------------------------------------------- V1-9 */

static void run_value_unrepresentable(pcf_ctx *c)
{
    const pcf_crun *r = pcf_client_run(c, &(pcf_cspec){ .script = "values" });
    if (!r)
        return;
    char b[300];
    for (size_t i = 0; i < r->nreq; i++) {
        const pcf_creq *q = &r->req[i];
        pmc_msg m;
        pmc_slice k;
        if (strcmp(q->name, "put") || pcf_creq_msg(c, q, &m) || !pmc_msg_get(&m, "key", &k))
            continue;
        if (pmc_slice_eq(k, "pcf-injected")) {
            pcf_observe(c, "injected", "rank %d: the LF of a value ended its put, and the rest "
                        "ran as a command of its own: %s", q->rank,
                        pcf_cshow(q->raw, q->len, b, sizeof b));
            return;
        }
        pmc_slice v = { 0 };
        pmc_msg_get(&m, "value", &v);
        /* "value=a b" reads as the value a and a bare word b */
        if (pmc_slice_eq(k, "pcf-sp") && (pmc_slice_eq(v, "a b") || pmc_slice_eq(v, "a"))) {
            pcf_observe(c, "sent-as-is", "rank %d: a value with a space sent as it is: %s",
                        q->rank, pcf_cshow(q->raw, q->len, b, sizeof b));
            return;
        }
    }
    for (int k = 0; k < r->np; k++) {
        long rc;
        char want[16];
        snprintf(want, sizeof want, "v%d", (k + 1) % r->np);
        if (rc_of(c, r, k, "PMI_KVS_Get", &rc))
            return;
        if (rc != 0 || !pcf_chex_is(r, k, "PMI_KVS_Get", want)) {
            pcf_observe(c, "broken", "rank %d: after the refused values, put/barrier/get gave "
                        "rc=%ld and not the peer's value", k, rc);
            return;
        }
    }
    long a = -1, s = -1;
    pcf_crc(r, 0, "PMI_KVS_Put:newline", &a);
    pcf_crc(r, 0, "PMI_KVS_Put:space", &s);
    pcf_observe(c, "ok", "no line carried the LF or the space (PMI_KVS_Put rc=%ld and rc=%ld); "
                "put/barrier/get went on", a, s);
}

/* ---------------------------------------------------------------- KEY-1 (PMI-1) */

static void run_key_space(pcf_ctx *c)
{
    /* the values script's PMI_KVS_Put of the key "pcf ks" */
    const pcf_crun *r = pcf_client_run(c, &(pcf_cspec){ .script = "values" });
    if (!r || pcf_clacks(c, r, "PMI_KVS_Put:keyspace"))
        return;
    char b[300];
    for (size_t i = 0; i < r->nreq; i++) {
        const pcf_creq *q = &r->req[i];
        pmc_msg m;
        pmc_slice k;
        if (strcmp(q->name, "put") || pcf_creq_msg(c, q, &m) || !pmc_msg_get(&m, "key", &k))
            continue;
        /* "key=pcf ks" reads as the key pcf and a bare word ks */
        if (pmc_slice_eq(k, "pcf ks") || pmc_slice_eq(k, "pcf")) {
            pcf_observe(c, "sent-as-is", "rank %d: PMI_KVS_Put of the key \"pcf ks\" was sent "
                        "as it is: %s", q->rank, pcf_cshow(q->raw, q->len, b, sizeof b));
            return;
        }
    }
    long rc;
    if (rc_of(c, r, 0, "PMI_KVS_Put:keyspace", &rc))
        return;
    pcf_observe(c, "ok", "no line carried the key \"pcf ks\" (PMI_KVS_Put rc=%ld)", rc);
}

/* ---------------------------------------------------------------- LIMIT-12 */

enum { SMALL_VALLEN = 256 };

static void run_vallen_max(pcf_ctx *c)
{
    const pcf_crun *r = pcf_client_run(c, &(pcf_cspec){ .script = "limits", .np = 1,
                                                         .max_val = SMALL_VALLEN });
    if (!r)
        return;
    for (size_t i = 0; i < r->nreq; i++) {
        const pcf_creq *q = &r->req[i];
        pmc_msg m;
        pmc_slice v;
        if (strcmp(q->name, "put") || pcf_creq_msg(c, q, &m) || !pmc_msg_get(&m, "value", &v))
            continue;
        if (v.len >= SMALL_VALLEN) {
            pcf_observe(c, "sent-over", "a put with a %zu-byte value after maxes said "
                        "vallen_max=%d", v.len, SMALL_VALLEN);
            return;
        }
    }
    if (r->ranks[0].decode_err[0]) {
        pcf_observe(c, "sent-over", "the server could not read a put: %s",
                    r->ranks[0].decode_err);
        return;
    }
    long rc;
    if (rc_of(c, r, 0, "PMI_KVS_Put:300", &rc))
        return;
    if (rc == 0) {
        pcf_observe(c, "claimed", "PMI_KVS_Put of 300 bytes returned success without sending "
                    "it (vallen_max=%d)", SMALL_VALLEN);
        return;
    }
    pcf_observe(c, "ok", "no value of vallen_max bytes or more sent; the 300-byte put failed "
                "(rc=%ld)", rc);
}

/* ---------------------------------------------------------------- V1CMD-29 */

static void run_value_max_back(pcf_ctx *c)
{
    /* the default server: vallen_max=1024, so 1023 bytes fit (LIMIT-4) */
    const pcf_crun *r = pcf_client_run(c, &(pcf_cspec){ .script = "limits", .np = 1 });
    long rc, put;
    char len[16] = "", same[8] = "", mx[16] = "";
    if (!r || rc_of(c, r, 0, "PMI_KVS_Put:fits", &put))
        return;
    pcf_cfield(r, 0, "PMI_KVS_Get_value_length_max", "max", mx, sizeof mx);
    if (put != 0) {
        pcf_observe(c, "not-stored", "PMI_KVS_Put of vallen_max-1 bytes (vallen_max %s) failed "
                    "(rc=%ld): nothing to read back", mx, put);
        return;
    }
    if (rc_of(c, r, 0, "PMI_KVS_Get:fits", &rc))
        return;
    pcf_cfield(r, 0, "PMI_KVS_Get:fits", "len", len, sizeof len);
    pcf_cfield(r, 0, "PMI_KVS_Get:fits", "same", same, sizeof same);
    if (rc == 0 && atoi(same) != 1) {
        pcf_observe(c, "truncated", "PMI_KVS_Get rc=0 of the value of vallen_max-1 bytes "
                    "(vallen_max %s) it had put returned %s bytes, not that value", mx, len);
        return;
    }
    if (rc == 0)
        pcf_observe(c, "ok", "the value of vallen_max-1 bytes (vallen_max %s) came back whole "
                    "(%s bytes)", mx, len);
    else
        pcf_observe(c, "ok", "the get of the value of vallen_max-1 bytes (vallen_max %s) failed "
                    "(rc=%ld): no cut value passed off as the value", mx, rc);
}

/* ---------------------------------------------------------------- ERR-14, ERR-19 */

/* A PMI-1 line the server writes unasked, before or after the answer to
 * the first `cmd` request: `name` with one integer pair. */
static pms_fault stray(pcf_ctx *c, const char *name, const char *key, long long v,
                       const char *cmd, bool after)
{
    pmc_enc e;
    size_t n = 0;
    pmc_enc_begin(&e, PMC_WIRE_V1, name);
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_int(&e, key, v);
    const char *p = pcf_cencode(&e, &n);
    if (!p)
        pcf_observe(c, "harness-error", "cannot encode cmd=%s", name);
    return (pms_fault){ .kind = p ? PMS_FAULT_UNSOLICITED : 0, .rank = -1, .cmd = cmd, .nth = 1,
                        .data = p, .len = n, .after = after };
}

static void run_name_prefix(pcf_ctx *c)
{
    pms_fault f = stray(c, "universe_sizeX", "size", 77, "get_universe_size", false);
    const pcf_crun *r = f.kind ? run1(c, NULL, NULL, 1, f) : NULL;
    if (!r)
        return;
    long rc;
    char n[16];
    if (r->fired[0] <= 0) {
        pcf_observe(c, "no-request", "the program never sent get_universe_size: nothing to "
                    "misread");
        return;
    }
    if (pcf_crc(r, 0, "PMI_Init", &rc) && rc != 0) { /* it asked during init: ERR-15 */
        pcf_observe(c, "ok", "the stray line failed PMI_Init (rc=%ld), a protocol error", rc);
        return;
    }
    if (rc_of(c, r, 0, "PMI_Get_universe_size", &rc))
        return;
    pcf_cfield(r, 0, "PMI_Get_universe_size", "size", n, sizeof n);
    if (rc == 0 && atoi(n) == 77)
        pcf_observe(c, "prefix", "cmd=universe_sizeX was taken for cmd=universe_size (size=77)");
    else
        pcf_observe(c, "ok", "cmd=universe_sizeX was not taken for universe_size "
                    "(PMI_Get_universe_size rc=%ld size=%s)", rc, n);
}

/* In out: which request of rank k read the stray line (its first after
 * get_universe_size) and how many requests later its `name key=want` went
 * out; "" when rank k never sent that request. */
static void stray_reader(pcf_ctx *c, const pcf_crun *r, int k, const char *name,
                         const char *want, char *out, size_t cap)
{
    const pcf_creq *first = NULL;
    int after = -1, seen = 0, found = 0;
    out[0] = 0;
    for (size_t i = 0; i < r->nreq; i++) {
        const pcf_creq *q = &r->req[i];
        if (q->rank != k)
            continue;
        if (!seen) {
            seen = strcmp(q->name, "get_universe_size") == 0;
            continue;
        }
        if (!first)
            first = q;
        after++;
        pmc_msg m;
        pmc_slice v;
        if (strcmp(q->name, name) == 0 && pcf_creq_msg(c, q, &m) == 0 &&
            pmc_msg_get(&m, "key", &v) && pmc_slice_eq(v, want)) {
            found = 1;
            break;
        }
    }
    if (!first || !found)
        return;
    char b[160];
    if (after <= 0)
        snprintf(out, cap, " (the stray was read as the answer to this very %s)", name);
    else
        snprintf(out, cap, " (the stray was read as the answer to %s, %d request%s before this "
                 "get: a client that keeps the answer that request was owed reads every later "
                 "answer one request late)",
                 pcf_cshow(first->raw, first->len, b, sizeof b), after, after == 1 ? "" : "s");
}

static void run_resync(pcf_ctx *c)
{
    /* a second answer to get_universe_size, read during the next call.
     * Always the strict server: Slurm's persona takes one read() as one
     * PMI-1 line, so a client that fails a call and sends its next request
     * at once loses one of the two, and the server's missing answer puts a
     * client that never resynchronises back in step (a client one answer
     * behind passed under --persona slurm). */
    pms_fault f = stray(c, "universe_size", "size", 99, "get_universe_size", true);
    const pcf_crun *r = f.kind ? run1(c, "strict", NULL, 2, f) : NULL;
    if (!r)
        return;
    if (r->fired[0] <= 0) {
        pcf_observe(c, "no-request", "the program never sent get_universe_size");
        return;
    }
    char where[400];
    for (int k = 0; k < r->np; k++) {
        long rc;
        char want[16], key[16];
        snprintf(want, sizeof want, "v%d", (k + 1) % r->np);
        snprintf(key, sizeof key, "pcf-k%d", (k + 1) % r->np);
        if (rc_of(c, r, k, "PMI_KVS_Get", &rc))
            return;
        if (rc != 0 || !pcf_chex_is(r, k, "PMI_KVS_Get", want)) {
            stray_reader(c, r, k, "get", key, where, sizeof where);
            pcf_observe(c, "shifted", "rank %d: after a stray line, PMI_KVS_Get of %s gave "
                        "rc=%ld and not the peer's value%s", k, key, rc, where);
            return;
        }
        snprintf(want, sizeof want, "port-%d", k);
        if (rc_of(c, r, k, "PMI_Lookup_name", &rc))
            return;
        if (rc != 0 || !pcf_chex_is(r, k, "PMI_Lookup_name", want)) {
            pcf_observe(c, "shifted", "rank %d: after a stray line, PMI_Lookup_name gave rc=%ld "
                        "and not the published port", k, rc);
            return;
        }
    }
    pcf_observe(c, "ok", "every call after the stray line got its own answer");
}

/* ---------------------------------------------------------------- ERR-14, VAL-5, BOOL-2 (PMI-2) */

/* A kvs-get-response-like frame NAME with rc=RC, found=FOUND and the value
 * "forged", written unasked before the answer to the program's first
 * kvs-get (PMI2_KVS_Get of its own key: np=1, the value v0). */
static const pcf_crun *forged_before_get(pcf_ctx *c, const char *name, const char *rcv,
                                         const char *found)
{
    pmc_enc e;
    size_t n = 0;
    pmc_enc_begin(&e, PMC_WIRE_V2, name);
    pmc_enc_str(&e, "rc", rcv);
    pmc_enc_str(&e, "found", found);
    pmc_enc_str(&e, "value", "forged");
    const char *p = pcf_cencode(&e, &n);
    if (!p) {
        pcf_observe(c, "harness-error", "cannot encode cmd=%s", name);
        return NULL;
    }
    return run1(c, NULL, NULL, 1,
                (pms_fault){ .kind = PMS_FAULT_UNSOLICITED, .rank = -1, .cmd = "kvs-get",
                             .nth = 1, .data = p, .len = n });
}

static void run_v2_name_prefix(pcf_ctx *c)
{
    const pcf_crun *r = forged_before_get(c, "kvs-get-responsex", "0", "TRUE");
    long rc;
    if (!r || rc_of(c, r, 0, "PMI2_KVS_Get", &rc))
        return;
    if (rc == 0 && pcf_chex_is(r, 0, "PMI2_KVS_Get", "forged"))
        pcf_observe(c, "prefix", "PMI2_KVS_Get rc=0 returned \"forged\", the value of "
                    "cmd=kvs-get-responsex: the response name compared as a prefix");
    else
        pcf_observe(c, "ok", "cmd=kvs-get-responsex was not taken for kvs-get-response "
                    "(PMI2_KVS_Get rc=%ld%s)", rc,
                    rc == 0 ? ", the value the server stored" : "");
}

static void run_rc_malformed(pcf_ctx *c)
{
    const pcf_crun *r = forged_before_get(c, "kvs-get-response", "abc", "TRUE");
    long rc;
    if (!r || rc_of(c, r, 0, "PMI2_KVS_Get", &rc))
        return;
    if (rc == 0 && pcf_chex_is(r, 0, "PMI2_KVS_Get", "forged"))
        pcf_observe(c, "atoi", "PMI2_KVS_Get rc=0 returned \"forged\", the value of the "
                    "kvs-get-response with rc=abc: rc=abc read as 0, the way atoi() reads it");
    else
        pcf_observe(c, "ok", "rc=abc was not read as success (PMI2_KVS_Get rc=%ld%s)", rc,
                    rc == 0 ? ", the value the server stored" : "");
}

static void run_bool_case(pcf_ctx *c)
{
    /* SPEC.md's server, but every boolean it writes is in lower case */
    const pcf_crun *r = run1(c, "mutant:v2-bool-lower", NULL, 1, (pms_fault){ 0 });
    long rc;
    if (!r || rc_of(c, r, 0, "PMI2_KVS_Get", &rc))
        return;
    if (rc != 0 || !pcf_chex_is(r, 0, "PMI2_KVS_Get", "v0")) {
        pcf_observe(c, "misread", "kvs-get-response rc=0;found=true;value=v0: PMI2_KVS_Get "
                    "rc=%ld%s", rc,
                    rc == 0 ? " with another value" : " (found=true read as not found)");
        return;
    }
    long r2;
    if (pcf_crc(r, 0, "PMI2_KVS_Get:missing", &r2) && r2 == 0) {
        pcf_observe(c, "misread", "kvs-get-response rc=0;found=false: PMI2_KVS_Get of a key "
                    "nobody put returned rc=0");
        return;
    }
    pcf_observe(c, "ok", "found=true read as found (the value v0), found=false as a miss");
}

/* ---------------------------------------------------------------- ABORT-9 */

static void run_abort_null(pcf_ctx *c)
{
    const pcf_crun *r = pcf_client_run(c, &(pcf_cspec){ .script = "abort-null", .np = 1 });
    const char *call = r && r->driver_api == 1 ? "PMI_Abort" : "PMI2_Abort";
    if (!r || pcf_clacks(c, r, call))
        return;
    char b[100], s[300];
    const pcf_creq *q = pcf_creq_find(r, 0, "abort", 1);
    if (!q && !crashed(r, 0) && pcf_cinit_failed(c, r, 0, call))
        return; /* never called */
    if (!q) {
        pcf_observe(c, crashed(r, 0) ? "crashed" : "not-sent", "%s(1, NULL) sent no abort "
                    "(%s; stderr: %.200s)", call, pcf_cstatus(r, 0, b, sizeof b),
                    r->ranks[0].err);
        return;
    }
    pcf_observe(c, "ok", "%s(1, NULL) sent %s", call, pcf_cshow(q->raw, q->len, s, sizeof s));
}

/* ---------------------------------------------------------------- ENV-8 */

static void run_fd_junk(pcf_ctx *c)
{
    const pcf_crun *r = pcf_client_run(c, &(pcf_cspec){ .script = "init", .np = 1,
                                                         .fd_junk = "abc" });
    if (!r)
        return;
    char b[100], names[200];
    if (pcf_creq_count(r, 0, NULL)) {
        pcf_observe(c, "accepted", "PMI_FD=<fd>abc was read as <fd>: the program sent %s",
                    pcf_creq_names(r, 0, names, sizeof names));
        return;
    }
    if (r->timed_out) {
        pcf_observe(c, "hang", "with PMI_FD=<fd>abc the program neither failed nor ended");
        return;
    }
    pcf_observe(c, "ok", "PMI_FD=<fd>abc refused: nothing sent (%s)",
                pcf_cstatus(r, 0, b, sizeof b));
}

/* ---------------------------------------------------------------- THRID-8 */

enum { GET_DELAY_MS = 300 };

static void run_thrid_distinct(pcf_ctx *c)
{
    /* every kvs-get answered 300 ms late (client/thrid/tagged's run): two
     * requests sent less than that apart were outstanding together */
    const pcf_crun *r = run1(c, NULL, "threads", 1,
                             (pms_fault){ .kind = PMS_FAULT_DELAY, .rank = -1, .cmd = "kvs-get",
                                          .delay_ms = GET_DELAY_MS });
    if (!r)
        return;
    for (size_t i = 0; i < r->nreq; i++) {
        const pcf_creq *q = &r->req[i];
        pmc_msg m;
        char t1[64];
        if (strcmp(q->name, "kvs-get") || !q->thrid || pcf_creq_msg(c, q, &m))
            continue;
        pmc_slice_copy(m.thrid, t1, sizeof t1);
        for (size_t j = i + 1; j < r->nreq; j++) {
            const pcf_creq *o = &r->req[j];
            pmc_msg m2;
            if (o->rank != q->rank || strcmp(o->name, "kvs-get") || !o->thrid ||
                o->usec - q->usec >= (uint64_t)GET_DELAY_MS * 1000 || pcf_creq_msg(c, o, &m2))
                continue;
            if (pmc_slice_eq(m2.thrid, t1)) {
                pcf_observe(c, "shared", "two kvs-get outstanding together with thrid=%s", t1);
                return;
            }
        }
    }
    for (int i = 0; i < 4; i++) {
        char call[32], want[16];
        long rc;
        snprintf(call, sizeof call, "PMI2_KVS_Get:t%d", i);
        snprintf(want, sizeof want, "tv%d", i);
        if (rc_of(c, r, 0, call, &rc))
            return;
        if (rc != 0 || !pcf_chex_is(r, 0, call, want)) {
            pcf_observe(c, "mismatched", "thread %d got rc=%ld and not its value", i, rc);
            return;
        }
    }
    pcf_observe(c, "ok", "overlapping requests carried distinct thrids; each thread got its "
                "value");
}

/* ---------------------------------------------------------------- NODEATTR-10 */

static void run_nodeattr_rc1(pcf_ctx *c)
{
    /* the strict server but for this one answer: Hydra 4.1's rc=1 without
     * found, so that a library Hydra 4.1's other quirks stop is graded too */
    const pcf_crun *r = run1(c, "mutant:nodeattr-miss-rc1", "basic", 1, (pms_fault){ 0 });
    long rc;
    char f[8];
    if (!r || rc_of(c, r, 0, "PMI2_Info_GetNodeAttr:missing", &rc))
        return;
    pcf_cfield(r, 0, "PMI2_Info_GetNodeAttr:missing", "found", f, sizeof f);
    if (atoi(f) == 1)
        pcf_observe(c, "misread", "info-getnodeattr-response rc=1 (no found) read as found "
                    "(rc=%ld)", rc);
    else if (!pcf_cended(r, 0))
        pcf_observe(c, "stopped", "the program did not go on after rc=1 (not found)");
    else
        pcf_observe(c, "ok", "rc=1 without found read as not available (rc=%ld found=%s)", rc, f);
}

/* ---------------------------------------------------------------- JOBATTR-11 */

static void run_clique_wrapped(pcf_ctx *c)
{
    /* 3 ranks dealt over 2 nodes: (vector,(0,2,1)) applied twice.  Always
     * the strict server: the hydra-4.1 persona writes MPICH 4.1's form
     * (vector,(0,2,1),0), with nothing to wrap and a bare node id that only
     * JOBATTR-7 (a SHOULD) asks a client to read, and a client that cannot
     * read it was charged a FAIL here, quoting a mapping it never got. */
    const pcf_crun *r = pcf_client_run(c, &(pcf_cspec){ .persona = "strict", .script = "clique",
                                                         .np = 3, .nodes = 2, .cyclic = true });
    if (!r || pcf_clacks(c, r, "PMI_Get_clique_size"))
        return;
    for (int k = 0; k < r->np; k++) {
        long rc;
        char size[16], ranks[200], want[200];
        size_t n = 0;
        int cnt = 0;
        for (int i = k % 2; i < r->np; i += 2, cnt++)
            n += (size_t)snprintf(want + n, sizeof want - n, "%s%d", n ? "," : "", i);
        if (rc_of(c, r, k, "PMI_Get_clique_size", &rc))
            return;
        pcf_cfield(r, k, "PMI_Get_clique_size", "size", size, sizeof size);
        if (rc != 0 || atoi(size) != cnt) {
            pcf_observe(c, "wrong-clique", "rank %d: PMI_Get_clique_size rc=%ld size=%s, the "
                        "mapping (vector,(0,2,1)) gives %d (ranks %s)", k, rc, size, cnt, want);
            return;
        }
        if (pcf_clacks(c, r, "PMI_Get_clique_ranks") ||
            rc_of(c, r, k, "PMI_Get_clique_ranks", &rc))
            return;
        pcf_cfield(r, k, "PMI_Get_clique_ranks", "ranks", ranks, sizeof ranks);
        if (rc != 0 || strcmp(ranks, want)) {
            pcf_observe(c, "wrong-clique", "rank %d: PMI_Get_clique_ranks rc=%ld ranks=%s, "
                        "expected %s", k, rc, ranks, want);
            return;
        }
    }
    pcf_observe(c, "ok", "cliques {0,2} and {1} from a mapping applied twice");
}

/* ---------------------------------------------------------------- LIMIT-10, LIMIT-5, LIMIT-6 */

enum { PAD_PAIRS = 250, PAD_MAX = 66000 };

/* The answer to the program's first kvs-get (np=1: its own key, v0), the
 * real one (thrid included), with pad[0..n) after its command pair. */
static const pcf_crun *padded_get(pcf_ctx *c, const char *pad, size_t n)
{
    return run1(c, NULL, NULL, 1,
                (pms_fault){ .kind = PMS_FAULT_PAD, .rank = -1, .cmd = "kvs-get", .nth = 1,
                             .data = pad, .len = n });
}

/* PMI2_KVS_Get of v0 through an answer padded as `what` says. */
static void grade_padded(pcf_ctx *c, const pcf_crun *r, const char *what)
{
    long rc;
    char got[120] = "";
    if (!r || rc_of(c, r, 0, "PMI2_KVS_Get", &rc))
        return;
    if (rc == 0 && pcf_chex_is(r, 0, "PMI2_KVS_Get", "v0")) {
        pcf_observe(c, "ok", "PMI2_KVS_Get returned v0 from %s", what);
        return;
    }
    pcf_cfield(r, 0, "PMI2_KVS_Get", "x", got, sizeof got);
    pcf_observe(c, "refused", "PMI2_KVS_Get rc=%ld%s%s%s from %s, which carried found=TRUE and "
                "value=v0", rc, got[0] ? " value(hex) " : "", got, rc == 0 ? "" : " (failed)",
                what);
}

static void run_pairs_256(pcf_ctx *c)
{
    /* 250 unknown pairs between cmd and rc, found, value: at most 256 in all */
    static char pad[PAD_PAIRS * 24];
    size_t n = 0;
    for (int i = 0; i < PAD_PAIRS; i++)
        n += (size_t)snprintf(pad + n, sizeof pad - n, "pcf-pad%d=%d;", i, i);
    char what[120];
    snprintf(what, sizeof what, "a kvs-get-response of at most 256 pairs (%d unknown ones "
             "before rc, found and value)", PAD_PAIRS);
    grade_padded(c, padded_get(c, pad, n), what);
}

/* Unknown pairs (values under 1000 bytes, LIMIT-2's sizes: a frame's size
 * is graded, not a value's) that bring the answer's body to about `body`
 * bytes. */
static void run_frame_of(pcf_ctx *c, size_t body)
{
    static char pad[PAD_MAX];
    /* the real answer is 46 to 80 bytes (cmd, thrid, rc, found, value=v0) */
    size_t n = body - 80, k = 0;
    int i = 0;
    if (n > sizeof pad)
        n = sizeof pad;
    while (k < n) {
        size_t left = n - k, len = left > 1000 ? 1000 : left;
        if (left > len && left - len < 32)
            len = left - 32; /* the last pair has room for its key */
        int h = snprintf(pad + k, sizeof pad - k, "pcf-pad%d=", i++);
        memset(pad + k + h, 'x', len - (size_t)h - 1);
        pad[k + len - 1] = ';';
        k += len;
    }
    char what[160];
    snprintf(what, sizeof what, "a kvs-get-response frame of %zu to %zu bytes (%d unknown pairs "
             "of at most 1000 bytes)", n + 46, n + 80, i);
    grade_padded(c, padded_get(c, pad, n), what);
}

static void run_frame_4096(pcf_ctx *c)
{
    run_frame_of(c, 4096);
}

static void run_frame_65530(pcf_ctx *c)
{
    run_frame_of(c, 65530);
}

/* ---------------------------------------------------------------- ERR-20 */

/* Any request but init: the program's first after the handshake's first
 * answer (get_maxes, fullinit), which every client sends. */
static bool not_init(void *ctx, int conn, int rank, const pmc_msg *m)
{
    (void)ctx;
    (void)conn;
    (void)rank;
    return !pmc_slice_eq(m->name, "init");
}

static void run_closed_write(pcf_ctx *c)
{
    pcf_cspec s = { .np = 1, .nfaults = 1 };
    s.faults[0] = (pms_fault){ .kind = PMS_FAULT_DROP, .rank = -1, .nth = 1, .after = true,
                               .accept = not_init };
    const pcf_crun *r = pcf_client_run(c, &s);
    if (!r)
        return;
    char b[100];
    if (r->fired[0] <= 0) {
        pcf_observe(c, "no-request", "the program sent nothing after init: nothing to close "
                    "after");
        return;
    }
    if (crashed(r, 0)) {
        pcf_observe(c, "killed", "the program died (%s) after the server answered its %s and "
                    "closed the connection, which the program then wrote to",
                    pcf_cstatus(r, 0, b, sizeof b),
                    pcf_creq_find(r, 0, "fullinit", 1) ? "fullinit" : "first request after init");
        return;
    }
    if (r->timed_out) {
        pcf_observe(c, "hang", "the program was still running at the deadline after the server "
                    "closed the connection");
        return;
    }
    pcf_observe(c, "ok", "the program ended by itself (%s) after the server closed",
                pcf_cstatus(r, 0, b, sizeof b));
}

#define CASE(ID, CL, FL, DESC, EXP, FN, ...)                                                     \
    { .c = { .id = ID, .clause = CL, .flags = FL, .desc = DESC, .expected = EXP,                \
             .outcomes = { __VA_ARGS__ } },                                                       \
      .run = FN }
/* a case that calls from 4 threads: not run against a library that said
 * threaded=FALSE in its fullinit (UNSUPPORTED, needs-absent) */
#define TCASE(ID, CL, FL, DESC, EXP, FN, ...)                                                    \
    { .c = { .id = ID, .clause = CL, .flags = FL, .desc = DESC, .expected = EXP,                \
             .needs = PCF_NEED_THREADED, .outcomes = { __VA_ARGS__ } },                           \
      .run = FN }
#define ANY (PCF_V1 | PCF_V2)
#define V2D (PCF_V2 | PCF_CDRIVER)
#define V1D (PCF_V1 | PCF_CDRIVER)
#define DRV (PCF_V1 | PCF_V2 | PCF_CDRIVER)
#define HANG { "hang", PCF_FAIL, "ERR-13", "the client waited for ever" }
#define NOREQ { "no-request", PCF_UNSUPPORTED, NULL, "the program never sends what the case needs" }

static const pcf_ccase cases[] = {
    CASE("client/init/subversion", "INIT-9", PCF_V1, "PMI 1.1 asked, 1.2 answered (strict server)",
         "the client goes on with 1.1", run_subversion),
    CASE("client/pmi1/value-unrepresentable", "V1-9", V1D,
         "PMI_KVS_Put of a value with a space, and with an LF before a command",
         "neither value sent as it is (refused or encoded); the next put/barrier/get works",
         run_value_unrepresentable),
    CASE("client/pmi1/key-space", "KEY-1", V1D, "PMI_KVS_Put of the key \"pcf ks\"",
         "no line carries that key (the call fails)", run_key_space),
    CASE("client/pmi1/vallen-max", "LIMIT-12", V1D, "a server that announces vallen_max=256",
         "no value of 256 bytes or more sent; PMI_KVS_Put of 300 bytes fails", run_vallen_max),
    CASE("client/pmi1/value-max-back", "V1CMD-29", V1D,
         "PMI_KVS_Put of vallen_max-1 bytes (1023 under the default server), then PMI_KVS_Get",
         "the value comes back whole, or the get fails: never rc=0 with a cut value",
         run_value_max_back,
         { "not-stored", PCF_INFO, NULL, "the client refused a value the server's maxes allow" }),
    CASE("client/pmi1/response-name-prefix", "ERR-14", V1D,
         "cmd=universe_sizeX before the answer to get_universe_size",
         "universe_sizeX is not taken for universe_size", run_name_prefix, NOREQ),
    CASE("client/pmi1/stray-line", "ERR-19", V1D,
         "a second universe_size answer, read during the next call (strict server)",
         "every later call gets its own answer (the one that read the stray may fail)",
         run_resync, HANG, NOREQ),
    CASE("client/fault/response-name-prefix", "ERR-14", V2D,
         "cmd=kvs-get-responsex (rc=0, found=TRUE, value=forged) before the answer to kvs-get",
         "kvs-get-responsex is not taken for kvs-get-response: PMI2_KVS_Get never returns "
         "\"forged\"", run_v2_name_prefix),
    CASE("client/fault/rc-malformed", "VAL-5", V2D,
         "kvs-get-response rc=abc (found=TRUE, value=forged) before the real answer",
         "rc=abc is not read as success: PMI2_KVS_Get never returns \"forged\"",
         run_rc_malformed,
         { "atoi", PCF_NON_STRICT, "VAL-5", "rc=abc read as 0 (VAL-5 is a SHOULD; RC-4 names "
           "only integers)" }),
    CASE("client/api/bool-case", "BOOL-2", V2D,
         "a server that writes its booleans in lower case (found=true, found=false)",
         "found=true is a hit (PMI2_KVS_Get returns the value), found=false a miss",
         run_bool_case,
         { "init-failed", PCF_FAIL, "BOOL-2", "PMI2_Init failed on a fullinit-response whose "
           "booleans (debugged, pmiverbose) are in lower case" }),
    CASE("client/api/abort-null", "ABORT-9", DRV, "the abort call without a message (NULL)",
         "an abort request is sent; no crash", run_abort_null,
         { "crashed", PCF_FAIL, NULL, "the process died in the abort call" }),
    CASE("client/init/fd-malformed", "ENV-8", ANY, "PMI_FD=<fd>abc",
         "initialisation fails: nothing is sent on <fd>", run_fd_junk, HANG),
    TCASE("client/thrid/distinct", "THRID-8", V2D, "4 threads' gets, each answered 300 ms late",
         "requests outstanding together carry distinct thrids; each thread gets its value",
         run_thrid_distinct),
    CASE("client/api/nodeattr-missing-rc1", "NODEATTR-10", V2D,
         "info-getnodeattr-response rc=1 without found (Hydra 4.1's form), from a server "
         "otherwise strict", "read as not available; the program goes on", run_nodeattr_rc1),
    CASE("client/pmi1/clique-wrapped", "JOBATTR-11", V1D,
         "3 ranks on 2 nodes: PMI_process_mapping (vector,(0,2,1)) (strict server)",
         "clique {0,2} on node 0, {1} on node 1", run_clique_wrapped),
    CASE("client/limits/pairs-256", "LIMIT-10", V2D,
         "kvs-get-response with 250 unknown pairs before rc, found and value",
         "PMI2_KVS_Get returns the value (v0)", run_pairs_256, HANG,
         { "refused", PCF_FAIL, NULL, "the answer's value did not reach the caller" }),
    CASE("client/limits/frame-4096", "LIMIT-5", V2D,
         "kvs-get-response frame of up to 4096 bytes (unknown pairs pad it)",
         "PMI2_KVS_Get returns the value (v0)", run_frame_4096, HANG,
         { "refused", PCF_FAIL, NULL, "the answer's value did not reach the caller" }),
    CASE("client/limits/frame-65530", "LIMIT-6", V2D,
         "kvs-get-response frame of up to 65530 bytes (unknown pairs pad it)",
         "PMI2_KVS_Get returns the value (v0)", run_frame_65530, HANG,
         { "refused", PCF_NON_STRICT, NULL, "a frame within 65530 bytes was not read (LIMIT-6 "
           "is a SHOULD)" }),
    CASE("client/fault/write-after-close", "ERR-20", ANY,
         "the first request after init answered, then the connection closed",
         "the next call fails; the process is not killed (SIGPIPE)", run_closed_write, HANG,
         NOREQ),
};
PCF_CLIENT_CASES(cases)
