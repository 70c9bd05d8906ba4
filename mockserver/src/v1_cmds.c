/* PMI-1 command handlers (also the init line of PMI-2 clients). */
#include "internal.h"
#include "mutant.h"

#include <stdlib.h>
#include <string.h>

static pmc_slice val_of(const pmc_msg *m, const char *key)
{
    pmc_slice v = { NULL, 0 };
    pmc_msg_get(m, key, &v);
    return v;
}

static const pmc_slice no_thrid = { NULL, 0 };

/* A behaviour mutant (mutants_v1.c) is switched on for this server. */
#define MUT(c, nm) PMS_MUTANT((c)->port.srv->persona, nm)

/* Begin a v1 reply; personas that put rc first get it here. */
static pmc_enc *begin(pms_peer *c, const char *cmd, bool rc_first)
{
    pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V1, cmd, no_thrid);
    if (rc_first && c->port.srv->persona->v1_rc_first)
        pmc_enc_int(e, "rc", 0);
    return e;
}

/* Hydra 4.0.2 reads init's arguments by position, with atoi (B2). */
static long long positional_int(const pmc_msg *m, size_t i)
{
    long long v = 0;
    if (i >= m->npairs || pmc_parse_int(m->pairs[i].val, &v) != 0)
        return 0;
    return v;
}

static void do_init(pms_peer *c, const pmc_msg *m)
{
    const pms_persona *p = c->port.srv->persona;
    long long v = -1, sv = -1;
    if (p->v1_init_positional) {
        v = positional_int(m, 0);
        sv = positional_int(m, 1);
    } else if (pmc_msg_get_int(m, "pmi_version", &v) != 1 ||
               pmc_msg_get_int(m, "pmi_subversion", &sv) != 1) {
        pms_reply_error(&c->port, PMC_WIRE_V1, m->name, no_thrid, PMS_RC_KEY,
                        "init needs integer pmi_version and pmi_subversion");
        return;
    }
    int rv = -1, rs = -1;
    if (MUT(c, "v1-init-1-2-refused") && v == 1 && sv == 2)
        v = 99; /* INIT-7 broken: 1.2 is refused */
    if (MUT(c, "v1-init-2x-refused") && v == 2 && sv > 0)
        v = 99; /* INIT-10 broken: 2.s with s > 0 is refused */
    if (v == 2 && p->v2_refused) {
        v = 99; /* INIT-8: a PMI-1-only server refuses 2 (below: with the version it speaks) */
    } else if (MUT(c, "v1-init-accept-any") && v != 1 && v != 2) {
        rv = (int)v; /* INIT-8 broken: any major is accepted */
        rs = (int)sv;
    } else if (p->v1_strict_init && (v == 1 || v == 2)) {
        /* INIT-7, INIT-10: same major, the server's highest subversion */
        rv = (int)v;
        rs = v == 1 ? p->v1_max_subversion : 0;
        if (MUT(c, "v1-init-echo-subversion") && v == 1)
            rs = (int)sv; /* INIT-7 broken: the client's subversion, not the server's */
    } else if (v == 2 && sv == 0) {
        rv = 2, rs = 0;
    } else if (v == 1 && sv >= 0 && sv <= p->v1_max_subversion) {
        rv = 1;
        rs = p->v1_max_subversion >= 2 ? (int)(sv < 1 ? 1 : sv) : 1;
        if (p->v1_rc_first && !p->fullinit_versions)
            rs = 2; /* Hydra 4.1+ announces 1.2 to any 1.x */
    }
    if (rv < 0 && MUT(c, "v1-init-refusal-closes")) {
        pms_port_close(&c->port, "init of a version this server does not speak"); /* INIT-8 broken */
        return;
    }
    if (rv < 0 && p->on_error == PMS_ERR_KILL_JOB) {
        /* mpich-wire.md §4.2: "PMI version mismatch", the job dies unanswered */
        pms_protocol_fatal(&c->port, "PMI version mismatch");
        return;
    }
    c->version = rv < 0 ? 0 : rv;
    c->subversion = rs < 0 ? 0 : rs;
    int answers = MUT(c, "v1-init-answered-twice") && c->port.job ? 2 : 1; /* INIT-13 broken */
    for (int a = 0; a < answers; a++) {
        pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V1, "response_to_init", no_thrid);
        /* INIT-8: a refusal is rc!=0 with the version this server speaks */
        int rc = rv < 0 ? (p->on_error == PMS_ERR_REPLY ? PMS_RC_FAIL : -1) : 0;
        bool no_rc = MUT(c, "v1-init-no-rc"); /* INIT-5 broken */
        if (p->v1_rc_first && !no_rc)
            pmc_enc_int(e, "rc", rc);
        /* a refusal names the version this server speaks */
        bool as_v1 = (v == 1 && !p->v1_strict_init) || p->v2_refused;
        if (rv < 0 && MUT(c, "v1-init-refusal-bad-version")) /* INIT-8 broken: the asked one */
            pmc_enc_int(e, "pmi_version", v), pmc_enc_int(e, "pmi_subversion", sv);
        else {
            pmc_enc_int(e, "pmi_version", rv < 0 ? (as_v1 ? 1 : 2) : rv);
            if (!MUT(c, "v1-init-no-subversion")) /* INIT-5 broken */
                pmc_enc_int(e, "pmi_subversion", rv < 0 ? (as_v1 ? p->v1_max_subversion : 0) : rs);
        }
        if (!p->v1_rc_first && !no_rc)
            pmc_enc_int(e, "rc", rc);
        pms_reply_send(&c->port);
    }
}

/* PMI_PORT mode: the client identifies itself; the server answers with its
 * rank and size in one write (four lines for Hydra 4.0). */
static void do_initack(pms_peer *c, const pmc_msg *m)
{
    const pms_persona *p = c->port.srv->persona;
    long long id = -1;
    bool ok = pmc_msg_get_int(m, "pmiid", &id) == 1 && c->port.job && pms_job_bind(c->port.job, &c->port, (int)id);
    /* V1CMD-30 broken (a mutant, or persona v1_initack_regrants): a pmiid another
     * connection holds is answered as granted */
    bool taken = !ok && c->port.job && c->port.rank < 0 && id >= 0 && id < c->port.job->size &&
                 c->port.job->ranks[id].port && !c->port.job->ranks[id].port->dead;
    bool fake = taken && (MUT(c, "v1-pmiid-taken-accepted") || p->v1_initack_regrants);
    if (!ok && !fake) {
        pms_reply_error(&c->port, PMC_WIRE_V1, m->name, no_thrid, PMS_RC_FAIL,
                        "initack needs the pmiid of a free rank");
        pms_conn_refused_identity(&c->port);
        return;
    }
    pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V1, "initack", no_thrid);
    if (p->v1_rc_first) {
        pmc_enc_int(e, "rc", 0);
        pmc_enc_int(e, "rank", ok ? c->port.rank : (int)id);
        pmc_enc_int(e, "size", c->port.job->size);
        pmc_enc_int(e, "appnum", c->port.srv->cfg.appnum);
        pmc_enc_int(e, "debug", 0);
    }
    /* collect the lines, then write them together */
    pmc_error err;
    const pmc_dialect *d = pmc_dialect_get(p->dialect);
    pmc_out *o = c->port.ops->out(&c->port);
    pmc_enc_end(e, d, o, &err);
    pmc_enc_begin(e, PMC_WIRE_V1, "set");
    pmc_enc_int(e, "size", c->port.job->size);
    pmc_enc_end(e, d, o, &err);
    pmc_enc_begin(e, PMC_WIRE_V1, "set");
    pmc_enc_int(e, "rank", ok ? c->port.rank : (int)id);
    pmc_enc_end(e, d, o, &err);
    pmc_enc_begin(e, PMC_WIRE_V1, "set");
    pmc_enc_int(e, "debug", 0);
    pmc_enc_end(e, d, o, &err);
    if (!c->port.dead)
        c->port.ops->raw(&c->port, NULL, 0); /* written as they are: no filter */
}

static bool need_rank(pms_peer *c, const pmc_msg *m)
{
    if (c->port.job && c->port.rank >= 0)
        return true;
    if (MUT(c, "v1-before-initack-silent"))
        return false; /* V1CMD-4 broken: the client waits for ever */
    pms_reply_error(&c->port, PMC_WIRE_V1, m->name, no_thrid, PMS_RC_FAIL,
                    "connection not identified: send initack pmiid= first");
    return false;
}

static void do_get_maxes(pms_peer *c)
{
    pmc_enc *e = MUT(c, "v1-maxes-no-rc") ? pms_reply_begin(&c->port, PMC_WIRE_V1, "maxes", no_thrid)
                                          : begin(c, "maxes", true);
    pmc_enc_int(e, "kvsname_max", MUT(c, "v1-maxes-kvsname-small") ? 4 : 256);
    pmc_enc_int(e, "keylen_max", c->port.srv->cfg.limits.max_key);
    if (!MUT(c, "v1-maxes-no-vallen"))
        pmc_enc_int(e, "vallen_max", c->port.srv->cfg.limits.max_val *
                                         (MUT(c, "v1-maxes-vallen-overstated") ? 2 : 1));
    pms_reply_send(&c->port);
}

static void do_simple_int(pms_peer *c, const char *resp, const char *key, long long v, bool omit)
{
    pmc_enc *e = begin(c, resp, true);
    if (!omit)
        pmc_enc_int(e, key, v);
    pms_reply_send(&c->port);
}

static void do_my_kvsname(pms_peer *c)
{
    char name[128];
    static _Thread_local unsigned calls, asked[1024]; /* mutant only: one job per run of the suite */
    const char *n = c->port.job->id;
    if (MUT(c, "v1-kvsname-per-rank")) { /* V1CMD-7 broken: one name per process */
        snprintf(name, sizeof name, "%s_r%d", c->port.job->id, c->port.rank);
        n = name;
    } else if (MUT(c, "v1-kvsname-unstable") && c->port.rank >= 0 && c->port.rank < 1024 &&
               asked[c->port.rank]++ > 0) {
        snprintf(name, sizeof name, "%s_%u", c->port.job->id, ++calls); /* V1CMD-7 broken */
        n = name;
    }
    pmc_enc *e = begin(c, "my_kvsname", true);
    pmc_enc_str(e, "kvsname", n);
    pms_reply_send(&c->port);
}

static void put_result(pms_peer *c, int rc)
{
    pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V1, "put_result", no_thrid);
    pmc_enc_int(e, "rc", rc);
    if (c->port.srv->persona->v1_msg)
        pmc_enc_str(e, "msg", rc ? "failure" : "success");
    pms_reply_send(&c->port);
}

/* V1CMD-11: a put or get naming a key-value space the caller may not use
 * fails (strict); the real servers use the caller's own (but see
 * kvsname_must_match in do_get). */
static pms_job *kvs_of(pms_peer *c, const pmc_msg *m, bool for_put)
{
    pmc_slice n = val_of(m, "kvsname");
    if (c->port.srv->persona->on_error != PMS_ERR_REPLY || !n.ptr || pmc_slice_eq(n, c->port.job->id))
        return c->port.job;
    if (MUT(c, for_put ? "v1-put-ignores-kvsname" : "v1-get-ignores-kvsname"))
        return c->port.job; /* V1CMD-11 broken: the kvsname is never looked at */
    size_t idl = strlen(c->port.job->id);
    if (MUT(c, "v1-kvsname-per-rank") && n.len > idl + 2 && memcmp(n.ptr, c->port.job->id, idl) == 0 &&
        memcmp(n.ptr + idl, "_r", 2) == 0)
        return c->port.job; /* the per-process names all lead to the job's space */
    pms_job *o = pms_job_find(c->port.srv, n.ptr, n.len);
    return o && !for_put && pms_job_may_read(c->port.job, o) ? o : NULL;
}

static void do_put(pms_peer *c, const pmc_msg *m)
{
    pms_job *j = kvs_of(c, m, true);
    const pms_persona *p = c->port.srv->persona;
    pmc_slice k = val_of(m, "key"), v = val_of(m, "value");
    if (MUT(c, "v1-put-positional") && m->npairs >= 3) {
        k = m->pairs[1].val; /* PAIR-1 broken: "kvsname key value" by position */
        v = m->pairs[2].val;
    }
    if (MUT(c, "v1-put-unknown-key-refused")) {
        for (size_t i = 0; i < m->npairs; i++) /* PAIR-5 broken */
            if (!pmc_slice_eq(m->pairs[i].key, "kvsname") && !pmc_slice_eq(m->pairs[i].key, "key") &&
                !pmc_slice_eq(m->pairs[i].key, "value")) {
                put_result(c, PMS_RC_KEY);
                return;
            }
    }
    if (MUT(c, "v1-line-limit-512") && m->raw.len > 512) {
        put_result(c, PMS_RC_FAIL); /* LIMIT-8 broken: lines above 512 bytes refused */
        return;
    }
    if (!j) {
        put_result(c, PMS_RC_FAIL);
        return;
    }
    if (v.ptr && MUT(c, "v1-value-keeps-spaces")) {
        /* V1-5 broken: the value runs to the end of the line, the bare
         * words after it included */
        size_t i = 0;
        while (i < m->npairs && m->pairs[i].val.ptr != v.ptr)
            i++;
        bool bare_after = i + 1 < m->npairs;
        for (size_t q = i + 1; q < m->npairs; q++)
            bare_after = bare_after && (m->pairs[q].flags & PMC_PAIR_BARE);
        const char *end = m->raw.ptr + m->raw.len;
        if (bare_after && v.ptr >= m->raw.ptr && v.ptr < end) {
            while (end > v.ptr && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
                end--;
            v.len = (size_t)(end - v.ptr);
        }
    }
    if (v.ptr && MUT(c, "v1-value-cut-at-equals")) {
        const char *eq = memchr(v.ptr, '=', v.len); /* V1-5 broken */
        if (eq)
            v.len = (size_t)(eq - v.ptr);
    }
    if (k.len > 64 && MUT(c, "v1-key-cut-64"))
        k.len = 63; /* LIMIT-3 broken: a shortened key stored, rc=0 (B9) */
    if (v.ptr && v.len == 0 && MUT(c, "v1-empty-value-lost")) {
        put_result(c, 0); /* V1-6 broken: answered, nothing stored */
        return;
    }
    if (MUT(c, "v1-put-keeps-last-only") && j == c->port.job && c->port.rank >= 0)
        pms_kvs_clear(&j->ranks[c->port.rank].pending); /* V1CMD-9 broken: earlier puts lost */
    bool again = k.ptr && (pms_kvs_get(&j->kvs, k.ptr, k.len) ||
                           (c->port.rank >= 0 && pms_kvs_get(&j->ranks[c->port.rank].pending, k.ptr, k.len)));
    if ((!k.ptr || !v.ptr) && p->missing_key_null) {
        put_result(c, 0); /* Slurm: nothing stored, rc=0 (observed) */
        return;
    }
    if (!v.ptr) /* persona put_novalue: Hydra 4.0.2 stores the empty string */
        v = (pmc_slice){ "", 0 };
    int rc;
    (void)p;
    pms_kvs_store(j, &c->port, PMC_WIRE_V1, k, v, &rc);
    if (again && !rc && MUT(c, "v1-put-again-rc-nonzero"))
        rc = PMS_RC_FAIL; /* V1CMD-9 broken: replaced, yet answered as a failure */
    put_result(c, rc);
}

static void do_get(pms_peer *c, const pmc_msg *m)
{
    char msg[160]; /* lives until pms_reply_send: the encoder points into it */
    pms_job *j = kvs_of(c, m, false);
    const pms_persona *p = c->port.srv->persona;
    pmc_slice k = val_of(m, "key");
    pmc_slice n = val_of(m, "kvsname");
    if (p->kvsname_must_match && n.ptr && !pmc_slice_eq(n, c->port.job->id) &&
        !pms_kvs_lookup(c->port.job, &c->port, k) &&
        !(p->getjobattr_kvs && pmc_slice_eq(k, "PMI_dead_processes"))) {
        /* Hydra's proxy answers the keys it holds whatever the kvsname; a
         * miss goes to mpiexec, which ends the job on a foreign kvsname
         * (mpich-wire.md §4.3, M3; the reference transcripts' kvsname=x) */
        pms_protocol_fatal(&c->port, "get of a key not held, naming another job's kvsname");
        return;
    }
    if (!j) {
        pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V1, "get_result", no_thrid);
        pmc_enc_int(e, "rc", PMS_RC_FAIL);
        pmc_enc_str(e, "msg", "kvsname_not_accessible");
        pms_reply_send(&c->port);
        return;
    }
    /* persona v1_put_hidden: PMI-1 puts wait for the barrier, the putter's own too */
    const pms_kv *kv = p->v1_put_hidden ? pms_kvs_get(&j->kvs, k.ptr, k.len) : pms_kvs_lookup(j, &c->port, k);
    if (!kv && p->getjobattr_kvs && pmc_slice_eq(k, "PMI_dead_processes")) {
        /* Hydra answers this one in the proxy: an empty list */
        char buf[4096];
        pms_dead_processes(j, buf, sizeof buf);
        pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V1, "get_result", no_thrid);
        pmc_enc_int(e, "rc", 0);
        if (p->v1_msg)
            pmc_enc_str(e, "msg", "success");
        pmc_enc_str(e, "value", buf);
        pms_reply_send(&c->port);
        return;
    }
    if (!kv && pmc_slice_eq(k, "PMI_process_mapping")) {
        char buf[8192];
        if (pms_process_mapping(j, buf, sizeof buf) < sizeof buf)
            pms_kvs_put(&j->kvs, k.ptr, k.len, buf, strlen(buf), false);
        kv = pms_kvs_get(&j->kvs, k.ptr, k.len);
    }
    pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V1, "get_result", no_thrid);
    if (kv) {
        pmc_enc_int(e, "rc", 0);
        if (p->v1_msg)
            pmc_enc_str(e, "msg", "success");
        if (!MUT(c, "v1-get-no-value")) /* V1CMD-12 broken: no value */
            pmc_enc_slice(e, PMC_SLICE_LIT("value"), (pmc_slice){ kv->val, kv->vlen });
    } else if (MUT(c, "v1-get-miss-rc0")) {
        pmc_enc_int(e, "rc", 0); /* V1CMD-13 broken: a miss is a success with no value */
        pmc_enc_str(e, "value", "");
    } else {
        pmc_enc_int(e, "rc", p->v1_get_notfound_rc);
        if (p->v1_msg) {
            snprintf(msg, sizeof msg, "key_%.*s_not_found", (int)(k.len > 100 ? 100 : k.len), k.ptr);
            pmc_enc_str(e, "msg", msg);
            pmc_enc_str(e, "value", "unknown");
        }
    }
    pms_reply_send(&c->port);
}

static void do_finalize(pms_peer *c)
{
    if (MUT(c, "v1-finalize-closes")) {
        pms_port_close(&c->port, "finalize"); /* V1CMD-17 broken: closed, never answered */
        return;
    }
    if (!MUT(c, "v1-finalize-unanswered")) { /* V1CMD-17 broken: no answer */
        pmc_enc *e = begin(c, MUT(c, "v1-finalize-wrong-name") ? "finalize_result" : "finalize_ack",
                           true);
        (void)e;
        pms_reply_send(&c->port);
    }
    pms_port_finalize(&c->port);
}

static void do_abort(pms_peer *c, const pmc_msg *m)
{
    long long code = 1;
    int got = pmc_msg_get_int(m, "exitcode", &code);
    if (got == 0 && (MUT(c, "v1-abort-no-exitcode-fatal") || c->port.srv->persona->v1_abort_needs_exitcode)) {
        pms_protocol_fatal(&c->port, "abort without exitcode: a NULL read"); /* V1CMD-21 broken */
        return;
    }
    if (got < 0) /* V1CMD-21: 1 when malformed; the mutant reads it as atoi does */
        code = MUT(c, "v1-abort-exitcode-atoi") || c->port.srv->persona->v1_abort_atoi
                   ? strtoll(val_of(m, "exitcode").ptr, NULL, 10)
                   : 1;
    pms_job *j = c->port.job;
    if (MUT(c, "v1-abort-ignored"))
        return; /* V1CMD-21 broken: the job goes on */
    j->aborted = true;
    j->exit_code = (int)code;
    pms_log(c->port.srv, 0, "rank %d of %s aborts with exit code %lld", c->port.rank, j->id, code);
    if (c->port.srv->ev.abort)
        c->port.srv->ev.abort(c->port.srv->ev.ctx, j, c->port.rank, true, (int)code, "");
}

/* publish/unpublish/lookup: Hydra 4.0 adds info=ok (even on failure, except
 * for a lookup miss) and msg=; Slurm answers info=ok|fail without rc; the
 * others rc only. */
static void name_reply(pms_peer *c, const char *resp, bool ok, const char *port, const char *fail)
{
    const pms_persona *p = c->port.srv->persona;
    bool slurm_style = !p->v1_msg && p->nameserv_replace;
    bool lookup = port != NULL || strcmp(resp, "lookup_result") == 0;
    pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V1, resp, no_thrid);
    if (MUT(c, "v1-publish-no-rc") && strcmp(resp, "publish_result") == 0)
        slurm_style = true; /* RC-2 broken: info only */
    if (slurm_style)
        pmc_enc_str(e, "info", ok ? "ok" : "fail");
    if (port && ok && !MUT(c, "v1-lookup-no-port")) /* V1CMD-22 broken: no port */
        pmc_enc_str(e, "port", port);
    if (p->v1_msg && (ok || !lookup))
        pmc_enc_str(e, "info", "ok");
    if (!slurm_style) {
        pmc_enc_int(e, "rc", ok ? 0 : 1);
        if (p->v1_msg)
            pmc_enc_str(e, "msg", ok ? "success" : fail);
    }
    pms_reply_send(&c->port);
}

static void do_publish(pms_peer *c, const pmc_msg *m)
{
    pmc_slice n = val_of(m, "service"), port = val_of(m, "port");
    if ((!n.ptr || !port.ptr) && c->port.srv->persona->missing_key_null) {
        name_reply(c, "publish_result", true, NULL, NULL); /* Slurm: info=ok (observed) */
        return;
    }
    int r = pms_kvs_put(&c->port.srv->names, n.ptr, n.len, port.ptr, port.len,
                        c->port.srv->persona->nameserv_replace);
    name_reply(c, "publish_result", r > 0 || (r == 0 && c->port.srv->persona->nameserv_replace), NULL,
               "key_already_present");
}

/* Without `service` (persona lookup_noname_miss) both are misses. */
static void do_unpublish(pms_peer *c, const pmc_msg *m)
{
    pmc_slice n = val_of(m, "service");
    bool ok = n.ptr && (MUT(c, "v1-unpublish-keeps") /* NAME-6 broken: nothing removed */
                            ? pms_kvs_get(&c->port.srv->names, n.ptr, n.len) != NULL
                            : pms_kvs_del(&c->port.srv->names, n.ptr, n.len));
    name_reply(c, "unpublish_result", ok || c->port.srv->persona->unpublish_always_ok, NULL,
               "service_not_found");
}

static void do_lookup(pms_peer *c, const pmc_msg *m)
{
    pmc_slice n = val_of(m, "service");
    const pms_kv *kv = n.ptr ? pms_kvs_get(&c->port.srv->names, n.ptr, n.len) : NULL;
    if (!kv && MUT(c, "v1-lookup-miss-found")) {
        name_reply(c, "lookup_result", true, "", NULL); /* NAME-5 broken: rc=0 port= */
        return;
    }
    name_reply(c, "lookup_result", kv != NULL, kv ? kv->val : NULL, "service_not_found");
}

void pms_handle_v1(pms_peer *c, const pmc_msg *m)
{
    switch (m->cmd) {
    case PMC_V1_INIT:
        if (c->port.srv->persona->v1_init_once && c->version) {
            pms_unknown_command(&c->port, m); /* the init line is read only as the first message */
            return;
        }
        do_init(c, m);
        return;
    case PMC_V1_INITACK: do_initack(c, m); return;
    default: break;
    }
    if (!need_rank(c, m))
        return;
    if (c->version == 2 && MUT(c, "v1-on-v2-refused")) {
        pms_unknown_command(&c->port, m); /* CLASS-2 broken: PMI-1 only on a 1.x connection */
        return;
    }
    const pms_persona *p = c->port.srv->persona;
    switch (m->cmd) {
    case PMC_V1_GET_MAXES: do_get_maxes(c); break;
    case PMC_V1_GET_APPNUM: /* V1CMD-6 broken by two mutants: no appnum, or a wrong one */
        do_simple_int(c, "appnum", "appnum",
                      MUT(c, "v1-appnum-wrong") ? 3 : p->appnum ? p->appnum : c->port.srv->cfg.appnum,
                      MUT(c, "v1-appnum-missing"));
        break;
    case PMC_V1_GET_UNIVERSE_SIZE: /* V1CMD-8 broken by two mutants: no size, or 0 */
        do_simple_int(c, "universe_size", "size",
                      MUT(c, "v1-universe-zero") ? 0
                      : c->port.srv->cfg.universe_size ? c->port.srv->cfg.universe_size
                      : p->getjobattr_kvs ? -1 : c->port.job->size,
                      MUT(c, "v1-universe-missing"));
        break;
    case PMC_V1_GET_MY_KVSNAME: do_my_kvsname(c); break;
    case PMC_V1_PUT: do_put(c, m); break;
    case PMC_V1_GET: do_get(c, m); break;
    case PMC_V1_BARRIER_IN:
        if (m->npairs && MUT(c, "v1-group-refused")) { /* V1CMD-16 broken: 1.2 announced */
            pms_reply_error(&c->port, PMC_WIRE_V1, m->name, no_thrid, PMS_RC_FAIL, "no group barriers");
            break;
        }
        pms_barrier_enter(&c->port, m);
        break;
    case PMC_V1_FINALIZE: do_finalize(c); break;
    case PMC_V1_ABORT: do_abort(c, m); break;
    case PMC_V1_PUBLISH_NAME: do_publish(c, m); break;
    case PMC_V1_UNPUBLISH_NAME: do_unpublish(c, m); break;
    case PMC_V1_LOOKUP_NAME: do_lookup(c, m); break;
    case PMC_V1_SPAWN:
        pms_spawn_v1(&c->port, m);
        if (!c->port.pmi1_spawn && MUT(c, "v1-spawn-two-results")) {
            pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V1, "spawn_result", no_thrid);
            pmc_enc_int(e, "rc", 0); /* V1CMD-20 broken: a second spawn_result */
            pms_reply_send(&c->port);
        }
        break;
    default:
        pms_unknown_command(&c->port, m); /* V1CMD-25 */
        break;
    }
}
