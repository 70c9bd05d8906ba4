/* PMI-2 command handlers. */
#include "internal.h"
#include "groups.h"
#include "mutant.h"

#include <stdlib.h>
#include <string.h>

static pmc_slice val_of(const pmc_msg *m, const char *key)
{
    pmc_slice v = { NULL, 0 };
    pmc_msg_get(m, key, &v);
    return v;
}

static void reply_rc(pms_peer *c, const pmc_msg *m, const char *resp, int rc)
{
    pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V2, resp, m->thrid);
    pmc_enc_int(e, "rc", rc);
    pms_reply_send(&c->port);
}

/* Requests other than fullinit need a rank: PMI_FD connections have one from
 * the start, PMI_PORT connections get it from fullinit or initack. */
static bool need_rank(pms_peer *c, const pmc_msg *m)
{
    if (c->port.job && c->port.rank >= 0)
        return true;
    pms_reply_error(&c->port, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL,
                    "connection not identified: send fullinit with pmirank first");
    return false;
}

/* `rank` is what the answer says (Hydra 4.1+ echoes the client's pmirank:
 * H8); rc=3 is Slurm's answer to a fullinit that lacks a key (§6). */
static void send_fullinit_response(pms_peer *c, pmc_slice thrid, long long rank, int rc)
{
    const pms_persona *p = c->port.srv->persona;
    pms_job *j = c->port.job;
    pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V2, "fullinit-response", thrid);
    if (p->fullinit_versions) {
        pmc_enc_int(e, "pmi-version", 2);
        pmc_enc_int(e, "pmi-subversion", 0);
    }
    pmc_enc_int(e, "rank", rank);
    pmc_enc_int(e, "size", j->size);
    pmc_enc_int(e, "appnum", p->appnum ? p->appnum : c->port.srv->cfg.appnum);
    /* FULLINIT-7; Slurm writes it last */
    if (j->spawner && !p->spawner_last)
        pmc_enc_str(e, "spawner-jobid", j->spawner->id);
    else if (!j->spawner && PMS_MUTANT(p, "fullinit-spawner-always"))
        pmc_enc_str(e, "spawner-jobid", j->id);
    if (p->fullinit_versions)
        pmc_enc_bool(e, "debugged", false);
    if (p->pmiverbose_int)
        pmc_enc_int(e, "pmiverbose", 0);
    else
        pmc_enc_bool(e, "pmiverbose", false);
    if (j->spawner && p->spawner_last)
        pmc_enc_str(e, "spawner-jobid", j->spawner->id);
    pmc_enc_int(e, "rc", rc);
    pms_reply_send(&c->port);
    c->fullinit = true;
}

/* PMI_PORT: the connection named no rank, or one that is not free. */
static void refuse_claim(pms_peer *c, const pmc_msg *m, int have, long long rank)
{
    pms_reply_error(&c->port, PMC_WIRE_V2, m->name, m->thrid, have <= 0 ? PMS_RC_KEY : PMS_RC_FAIL,
                    have <= 0 ? "pmirank is required on this connection"
                              : "pmirank %lld is not a free rank of the job", rank);
    pms_conn_refused_identity(&c->port);
}

static void do_fullinit(pms_peer *c, const pmc_msg *m)
{
    pms_server *s = c->port.srv;
    const pms_persona *p = s->persona;
    long long rank = -1;
    if (c->fullinit && p->on_error == PMS_ERR_REPLY && !PMS_MUTANT(p, "fullinit-again-ok")) {
        pms_reply_error(&c->port, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL,
                        "fullinit was already answered on this connection"); /* FULLINIT-12 */
        return;
    }
    int have = pmc_msg_get_int(m, "pmirank", &rank);
    if (have <= 0 && p->fullinit_needs_rank) {
        /* mpich-wire.md §9: "unable to find pmirank token" (4.0.2), an assert (HEAD) */
        pms_reply_error(&c->port, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_KEY, "fullinit without pmirank");
        return;
    }
    if (have == 0)
        have = pmc_msg_get_int(m, "srcid", &rank); /* Slurm's libpmi2 in PMI_PORT mode */
    /* Slurm §6: pmijobid, pmirank and threaded are all required: rc=3, the
     * answer otherwise complete (srcid stands for pmirank here: the mock's
     * PMI_PORT mode gives libpmi2 a PMI_ID) */
    int rc = p->fullinit_all_keys && (have <= 0 || !pmc_msg_find(m, "pmijobid") ||
                                      !pmc_msg_find(m, "threaded"))
                 ? PMS_RC_INVALID_ARG
                 : 0;
    long long answer;
    int claim = -1; /* PMI_PORT: the rank asked for, bound once authenticated */
    if (c->port.rank < 0) {
        /* PMI_PORT: one listener serves every job; spawned ranks name
         * theirs with pmijobid (their PMI_JOBID) */
        pmc_slice jid = val_of(m, "pmijobid");
        pms_job *named = jid.len ? pms_job_find(s, jid.ptr, jid.len) : NULL;
        if (named)
            c->port.job = named;
        if (have <= 0 || !c->port.job || !pms_job_rank_free(c->port.job, rank)) {
            refuse_claim(c, m, have, rank);
            return;
        }
        answer = claim = (int)rank;
    } else if (have > 0 && rank != c->port.rank && p->rank_from_client) {
        answer = rank; /* H8: Hydra 4.1+ echoes whatever the client says */
    } else if (have > 0 && rank != c->port.rank && p->on_error == PMS_ERR_REPLY) {
        pms_reply_error(&c->port, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL,
                        "pmirank %lld does not match this connection's rank %d", rank, c->port.rank);
        return;
    } else if (have > 0 && (rank < 0 || rank >= c->port.job->size) &&
               p->on_error == PMS_ERR_KILL_JOB) {
        /* mpich-wire.md §9: Hydra 4.0.2's proxy asserts on an unknown rank */
        pms_reply_error(&c->port, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL,
                        "pmirank %lld is not a rank of the job", rank);
        return;
    } else {
        answer = c->port.rank; /* Slurm: its own task id, the client's pmirank ignored (§6) */
    }
    if (s->cfg.secret) {
        pmc_slice at = val_of(m, "authtype");
        if (at.ptr && pmc_slice_eq(at, PMC_AUTH_TYPE)) {
            pmc_error err;
            if (pmc_auth_challenge(&c->auth, &err) < 0) {
                pms_reply_error(&c->port, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL, "%s", err.detail);
                return;
            }
            pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V2, "auth-response", m->thrid);
            pmc_enc_str(e, "authinfo", c->auth.nonce);
            pms_reply_send(&c->port);
            c->auth_wait = true;
            c->claim = claim;
            return;
        }
        if (s->cfg.require_auth) {
            pms_reply_error(&c->port, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL,
                            "this server requires authtype=" PMC_AUTH_TYPE);
            pms_port_close_after(&c->port, true);
            return;
        }
    }
    if (claim >= 0 && !pms_job_bind(c->port.job, &c->port, claim)) {
        refuse_claim(c, m, have, rank);
        return;
    }
    send_fullinit_response(c, m->thrid, answer, rc);
}

static void do_auth_complete(pms_peer *c, const pmc_msg *m)
{
    pmc_slice d = val_of(m, "authinfo");
    pmc_error err;
    if (!c->auth_wait) {
        pms_reply_error(&c->port, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL,
                        "auth-response-complete without a challenge");
        return;
    }
    c->auth_wait = false;
    if (pmc_auth_verify(&c->auth, c->port.srv->cfg.secret, c->port.srv->cfg.secret_len, d.ptr, d.len,
                        &err) < 0) {
        /* The draft: the server closes the connection (and logs it). */
        pms_log(c->port.srv, 0, "conn %d: authentication failed: %s", c->port.id, err.detail);
        pms_port_close(&c->port, "authentication failed");
        return;
    }
    if (c->port.rank < 0) { /* PMI_PORT: the rank is taken only now, and only if still free */
        int claim = c->claim;
        c->claim = -1;
        if (claim < 0 || !pms_job_bind(c->port.job, &c->port, claim)) {
            refuse_claim(c, m, 1, claim);
            return;
        }
    }
    send_fullinit_response(c, m->thrid, c->port.rank, 0);
}

static bool reserved_key(const pms_persona *p, pmc_slice k)
{
    /* Hydra 4.1+ refuses puts of PMI_* keys, which it reserves */
    return p->v1_rc_first && !p->fullinit_versions && k.len >= 4 && memcmp(k.ptr, "PMI_", 4) == 0;
}

static void do_kvs_put(pms_peer *c, const pmc_msg *m)
{
    pms_job *j = c->port.job;
    const pms_persona *p = c->port.srv->persona;
    pmc_slice k = val_of(m, "key"), v = val_of(m, "value");
    if (reserved_key(p, k)) {
        reply_rc(c, m, "kvs-put-response", 1);
        return;
    }
    if (!k.ptr || (!v.ptr && p->put_novalue == PMS_PUT_IGNORED)) {
        /* Slurm (S3, kvs.c:149-150): rc=0, nothing stored; strict never gets here */
        reply_rc(c, m, "kvs-put-response", 0);
        return;
    }
    if (!v.ptr) /* Hydra 4.0.2: a missing value is the empty string (mpich-wire.md §9) */
        v = (pmc_slice){ "", 0 };
    if (PMS_MUTANT(p, "kvs-put-long-key-dropped") && k.len > 32) {
        reply_rc(c, m, "kvs-put-response", 0);
        return;
    }
    int rc;
    pms_kvs_store(j, &c->port, PMC_WIRE_V2, k, v, &rc);
    if (rc) {
        pms_reply_error(&c->port, PMC_WIRE_V2, m->name, m->thrid, rc, "out of memory");
        return;
    }
    reply_rc(c, m, "kvs-put-response", 0);
}

static void do_kvs_get(pms_peer *c, const pmc_msg *m)
{
    pms_job *j = c->port.job;
    pmc_slice k = val_of(m, "key"), jid = val_of(m, "jobid");
    pms_job *from = j;
    const pms_persona *p = c->port.srv->persona;
    if (jid.ptr && pmc_slice_eq(jid, j->id) && PMS_MUTANT(p, "kvs-get-own-jobid-refused")) {
        pms_reply_error(&c->port, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL, "jobid is not readable");
        return;
    }
    if (jid.ptr && jid.len && !pmc_slice_eq(jid, j->id) && !p->kvs_jobid_ignored &&
        !PMS_MUTANT(p, "kvs-get-ignores-jobid")) {
        /* KVS-8/KVS-9: jobid names the caller's job or one connected to it.
         * Hydra and Slurm ignore it (their clients send anything); there an
         * id that names no readable job falls back to the caller's own. */
        pms_job *o = pms_job_find(c->port.srv, jid.ptr, jid.len);
        if (o && pms_job_may_read(j, o)) {
            from = o;
        } else if (c->port.srv->persona->on_error == PMS_ERR_REPLY) {
            pms_reply_error(&c->port, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL,
                            "jobid %.*s is not this job nor connected to it",
                            (int)(jid.len > 80 ? 80 : jid.len), jid.ptr);
            return;
        }
    }
    const pms_kv *kv = pms_kvs_lookup(from, &c->port, k);
    long long srcid = -1;
    if (PMS_MUTANT(p, "kvs-srcid-filter") && pmc_msg_get_int(m, "srcid", &srcid) == 1 &&
        srcid >= 0 && srcid != c->port.rank)
        kv = NULL; /* KVS-10 broken: srcid taken as a filter */
    if (!kv && PMS_MUTANT(p, "get-before-fence-closes") && j->ranks[c->port.rank].pending.live > 0) {
        pms_port_close(&c->port, "kvs-get of a missing key before kvs-fence"); /* FENCE-4 broken */
        return;
    }
    /* Lazy fence (Hydra): a missing key is waited for while some rank has
     * not yet reached the asker's fence. */
    if (!kv && !c->port.srv->persona->fence_barrier && from == j) {
        int mine = j->ranks[c->port.rank].fence_epoch;
        for (int r = 0; mine > 0 && r < j->size; r++)
            if ((j->ranks[r].state == PMS_RANK_NEW || j->ranks[r].state == PMS_RANK_LIVE) &&
                j->ranks[r].fence_epoch < mine) {
                if (!pms_wait_add(j, PMS_WAIT_KVS_GET, &c->port, m))
                    break;
                return;
            }
    }
    pms_kvs_get_reply(&c->port, m->thrid, kv);
}

static void do_putnodeattr(pms_peer *c, const pmc_msg *m)
{
    pms_job *j = c->port.job;
    pmc_slice k = val_of(m, "key"), v = val_of(m, "value");
    const pms_persona *p = c->port.srv->persona;
    if (reserved_key(p, k)) {
        reply_rc(c, m, "info-putnodeattr-response", 1);
        return;
    }
    v = pms_stored_value(p, v);
    if (PMS_MUTANT(p, "nodeattr-put-dropped")) {
        reply_rc(c, m, "info-putnodeattr-response", 0);
        return;
    }
    /* Slurm keeps the first value of a node attribute; the others replace it */
    if (pms_kvs_put(&j->nodeattr[j->ranks[c->port.rank].node], k.ptr, k.len, v.ptr, v.len,
                    !p->nameserv_replace) < 0) {
        pms_reply_error(&c->port, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL, "out of memory");
        return;
    }
    reply_rc(c, m, "info-putnodeattr-response", 0);
    pms_waits_recheck(j);
}

/* Node attributes the server defines itself (the seed API's predefined names). */
static bool builtin_nodeattr(pms_peer *c, pmc_slice k, char *buf, size_t n)
{
    pms_job *j = c->port.job;
    int node = j->ranks[c->port.rank].node;
    if (pmc_slice_eq(k, "localRanksCount")) {
        snprintf(buf, n, "%d", pms_job_local_ranks(j, node, NULL, 0) +
                                   PMS_MUTANT(c->port.srv->persona, "nodeattr-local-count-wrong"));
        return true;
    }
    if (pmc_slice_eq(k, "localRanks")) {
        size_t w = 0;
        buf[0] = 0;
        for (int r = 0; r < j->size && w < n; r++)
            if (j->ranks[r].node == node)
                w += (size_t)snprintf(buf + w, n - w, w ? ",%d" : "%d", r);
        return w < n;
    }
    return false;
}

static void do_getnodeattr(pms_peer *c, const pmc_msg *m)
{
    pms_job *j = c->port.job;
    pmc_slice k = val_of(m, "key");
    bool wait = false;
    if (pms_persona_bool(c->port.srv->persona, m, "wait",
                         PMS_MUTANT(c->port.srv->persona, "nodeattr-wait-default-true"), &wait) < 0) {
        pms_reply_error(&c->port, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_INVALID_ARG,
                        "wait is neither TRUE nor FALSE"); /* BOOL-3 */
        return;
    }
    const pms_kv *kv = pms_kvs_get(&j->nodeattr[j->ranks[c->port.rank].node], k.ptr, k.len);
    if (kv) {
        pms_nodeattr_reply(&c->port, m->thrid, kv);
        return;
    }
    char buf[4096];
    if (c->port.srv->persona->fullinit_versions && c->port.srv->persona->on_error == PMS_ERR_REPLY &&
        builtin_nodeattr(c, k, buf, sizeof buf)) {
        pms_reply_found(&c->port, m->thrid, "info-getnodeattr-response", buf, strlen(buf), true);
        return;
    }
    if (wait && !PMS_MUTANT(c->port.srv->persona, "nodeattr-wait-ignored")) {
        if (!pms_wait_add(j, PMS_WAIT_NODEATTR, &c->port, m))
            pms_reply_error(&c->port, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL, "out of memory");
        return;
    }
    pms_nodeattr_reply(&c->port, m->thrid, NULL);
}

static void do_getjobattr(pms_peer *c, const pmc_msg *m)
{
    pms_job *j = c->port.job;
    const pms_persona *p = c->port.srv->persona;
    pmc_slice k = val_of(m, "key");
    char buf[8192];
    const char *v = NULL;
    if (pmc_slice_eq(k, "PMI_process_mapping") && PMS_MUTANT(p, "jobattr-no-mapping")) {
        v = NULL;
    } else if (pmc_slice_eq(k, "PMI_process_mapping")) {
        if (pms_process_mapping(j, buf, sizeof buf) < sizeof buf)
            v = buf;
        else
            v = ""; /* RFC 13: an empty value when the mapping does not fit */
    } else if (pmc_slice_eq(k, "universeSize") && p->universe_attr) {
        /* JOBATTR-8: Hydra 4.1+ says -1 unless told; the others the job size */
        snprintf(buf, sizeof buf, "%d",
                 c->port.srv->cfg.universe_size ? c->port.srv->cfg.universe_size
                 : p->getjobattr_kvs       ? -1
                                           : j->size);
        v = PMS_MUTANT(p, "jobattr-universe-word") ? "unknown" : buf;
    } else if (p->on_error == PMS_ERR_REPLY && pmc_slice_eq(k, "hasNameServ")) {
        v = PMS_MUTANT(p, "jobattr-nameserv-false") || p->no_nameserv ? "FALSE" : "TRUE";
    } else if (c->port.srv->groups && pmc_slice_eq(k, "PMI_ext_groups") &&
               !PMS_MUTANT(p, "group-profile-hidden")) {
        v = "1"; /* GROUP-2: the profile's version; without it the attribute is unknown */
    } else if (p->on_error == PMS_ERR_REPLY && pmc_slice_eq(k, "isHeterogeneous")) {
        v = "FALSE"; /* every rank runs on this machine */
    } else if (pmc_slice_eq(k, "PMI_dead_processes") &&
               (p->getjobattr_kvs || p->on_error == PMS_ERR_REPLY)) {
        pms_dead_processes(j, buf, sizeof buf);
        v = buf;
    } else if (p->netinfo_attr && k.ptr && !pmc_slice_eq(k, "mpi_reserved_ports") &&
               pms_netinfo_sorts_after(k)) {
        pms_netinfo(buf, sizeof buf); /* info.c:217: strcmp(key, "PMI_netinfo_of_task") >= 0 */
        v = buf;
    }
    /* physTopology, physTopologyLevels, cartDims: nothing is known about a
     * network here, so they are not found (JOBATTR-2, JOBATTR-3). */
    if (v) {
        pms_reply_found(&c->port, m->thrid, "info-getjobattr-response", v, strlen(v), true);
        return;
    }
    const pms_kv *kv = p->getjobattr_kvs ? pms_kvs_get(&j->kvs, k.ptr, k.len) : NULL;
    pms_reply_found(&c->port, m->thrid, "info-getjobattr-response", kv ? kv->val : NULL, kv ? kv->vlen : 0,
                kv != NULL);
}

static void do_name_publish(pms_peer *c, const pmc_msg *m)
{
    pmc_slice n = val_of(m, "name"), port = val_of(m, "port");
    char msg[160]; /* lives until pms_reply_send: the encoder points into it */
    bool replace = c->port.srv->persona->nameserv_replace;
    if ((!n.ptr || !port.ptr) && c->port.srv->persona->missing_key_null) {
        reply_rc(c, m, "name-publish-response", 0); /* Slurm: rc=0, nothing stored (observed) */
        return;
    }
    int r = PMS_MUTANT(c->port.srv->persona, "name-publish-not-stored")
                ? 1
                : pms_kvs_put(&c->port.srv->names, n.ptr, n.len, port.ptr, port.len, replace);
    if (r < 0) {
        pms_reply_error(&c->port, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL, "out of memory");
        return;
    }
    if (r == 0 && !replace) {
        pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V2, "name-publish-response", m->thrid);
        pmc_enc_int(e, "rc", 1);
        if (c->port.srv->persona->on_error == PMS_ERR_REPLY || c->port.srv->persona->v1_msg) {
            snprintf(msg, sizeof msg, "duplicate_service_%.*s", (int)(n.len > 100 ? 100 : n.len), n.ptr);
            pmc_enc_str(e, "errmsg", msg);
        }
        pms_reply_send(&c->port);
        return;
    }
    reply_rc(c, m, "name-publish-response", 0);
}

static void do_name_lookup(pms_peer *c, const pmc_msg *m)
{
    const pms_persona *p = c->port.srv->persona;
    pmc_slice n = val_of(m, "name");
    /* no name at all: a miss (persona lookup_noname_miss; others refuse it earlier) */
    const pms_kv *kv = n.ptr ? pms_kvs_get(&c->port.srv->names, n.ptr, n.len) : NULL;
    pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V2, "name-lookup-response", m->thrid);
    if (!kv) {
        if (p->lookup_found)
            pmc_enc_bool(e, "found", false);
        pmc_enc_int(e, "rc", !PMS_MUTANT(p, "name-lookup-miss-rc0"));
        pms_reply_send(&c->port);
        return;
    }
    pmc_enc_slice(e, pmc_slice_cstr(p->lookup_key), (pmc_slice){ kv->val, kv->vlen });
    if (p->lookup_both) /* NAME-3: port= and value=, for the clients of every dialect */
        pmc_enc_slice(e, pmc_slice_cstr(strcmp(p->lookup_key, "port") ? "port" : "value"),
                      (pmc_slice){ kv->val, kv->vlen });
    if (p->lookup_found)
        pmc_enc_bool(e, "found", true);
    pmc_enc_int(e, "rc", 0);
    pms_reply_send(&c->port);
}

static void do_name_unpublish(pms_peer *c, const pmc_msg *m)
{
    char msg[160]; /* lives until pms_reply_send: the encoder points into it */
    pmc_slice n = val_of(m, "name");
    bool ok = pms_kvs_del(&c->port.srv->names, n.ptr, n.len) || c->port.srv->persona->unpublish_always_ok;
    pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V2, "name-unpublish-response", m->thrid);
    pmc_enc_int(e, "rc", ok ? 0 : 1);
    if (!ok && c->port.srv->persona->v1_msg) {
        snprintf(msg, sizeof msg, "service_%.*s_not_found", (int)(n.len > 100 ? 100 : n.len), n.ptr);
        pmc_enc_str(e, "errmsg", msg);
    }
    pms_reply_send(&c->port);
}

static void do_finalize(pms_peer *c, const pmc_msg *m)
{
    if (!PMS_MUTANT(c->port.srv->persona, "finalize-no-response"))
        reply_rc(c, m, "finalize-response", 0);
    pms_port_finalize(&c->port);
}

static void do_abort(pms_peer *c, const pmc_msg *m)
{
    pms_job *j = c->port.job;
    bool world = true;
    long long code = 1;
    if (c->port.srv->persona->abort_always_world)
        ; /* isworld is not read: every abort ends the job */
    else if (pms_persona_bool(c->port.srv->persona, m, "isworld", true, &world) < 0) {
        pms_reply_error(&c->port, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_INVALID_ARG,
                        "isworld is neither TRUE nor FALSE"); /* BOOL-3 */
        return;
    }
    if (c->port.srv->persona->abort_needs_isworld && !pmc_msg_find(m, "isworld")) {
        /* pmi2.c:180-194: only isworld=TRUE kills the step; without it nothing happens
         * (observed: pmi2/abort/exitcode-only) */
        pms_log(c->port.srv, 0, "rank %d of %s: abort without isworld: ignored", c->port.rank, j->id);
        return;
    }
    if (pmc_msg_get_int(m, "exitcode", &code) < 0) /* ABORT-6: 1 when malformed */
        code = PMS_MUTANT(c->port.srv->persona, "v2-abort-exitcode-atoi")
                   ? strtoll(val_of(m, "exitcode").ptr, NULL, 10) /* ABORT-10 broken */
                   : 1;
    if (PMS_MUTANT(c->port.srv->persona, "abort-answered"))
        reply_rc(c, m, "abort-response", 0);
    pmc_slice msg = val_of(m, "msg");
    if (!msg.ptr)
        msg = val_of(m, "message");
    char text[512];
    pmc_slice_copy(msg, text, sizeof text);
    pms_log(c->port.srv, 0, "rank %d of %s aborts (%s): %s", c->port.rank, j->id, world ? "world" : "self",
            text);
    if (world) {
        j->aborted = true;
        j->exit_code = (int)code;
    }
    if (c->port.srv->ev.abort)
        c->port.srv->ev.abort(c->port.srv->ev.ctx, j, c->port.rank, world, (int)code, text);
}

static void do_job_getid(pms_peer *c, const pmc_msg *m)
{
    char id[128]; /* lives until pms_reply_send */
    if (PMS_MUTANT(c->port.srv->persona, "job-getid-per-rank"))
        snprintf(id, sizeof id, "%s-%d", c->port.job->id, c->port.rank);
    else
        snprintf(id, sizeof id, "%s", c->port.job->id);
    pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V2, "job-getid-response", m->thrid);
    pmc_enc_str(e, "jobid", id);
    pmc_enc_int(e, "rc", 0);
    pms_reply_send(&c->port);
}

static void do_job_connect(pms_peer *c, const pmc_msg *m, bool connect)
{
    pms_job *j = c->port.job;
    pmc_slice jid = val_of(m, "jobid");
    pms_job *o = pms_job_find(c->port.srv, jid.ptr, jid.len);
    const char *resp = connect ? "job-connect-response" : "job-disconnect-response";
    if (!o && PMS_MUTANT(c->port.srv->persona, connect ? "job-connect-unknown-ok" : "job-disconnect-always-ok")) {
        reply_rc(c, m, resp, 0);
        return;
    }
    if (!o || o == j) {
        /* ERR-11: a well-formed request that cannot be carried out */
        pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V2, resp, m->thrid);
        pmc_enc_int(e, "rc", PMS_RC_FAIL);
        pmc_enc_str(e, "errmsg", o ? "a job cannot connect to itself" : "no job with this id");
        pms_reply_send(&c->port);
        return;
    }
    size_t i;
    for (i = 0; i < j->nconnected && j->connected[i] != o; i++)
        ;
    if (connect && i == j->nconnected) {
        pms_job **nc = realloc(j->connected, (j->nconnected + 1) * sizeof *nc);
        if (!nc) {
            pms_reply_error(&c->port, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL, "out of memory");
            return;
        }
        j->connected = nc;
        j->connected[j->nconnected++] = o;
    } else if (!connect && i < j->nconnected) {
        j->connected[i] = j->connected[--j->nconnected];
    } else if (!connect && !PMS_MUTANT(c->port.srv->persona, "job-disconnect-always-ok")) {
        /* JOB-4: nothing to disconnect from */
        pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V2, resp, m->thrid);
        pmc_enc_int(e, "rc", PMS_RC_FAIL);
        pmc_enc_str(e, "errmsg", "job not connected");
        pms_reply_send(&c->port);
        return;
    }
    pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V2, resp, m->thrid);
    if (connect && !PMS_MUTANT(c->port.srv->persona, "job-connect-no-kvscopy"))
        pmc_enc_bool(e, "kvscopy", false); /* one server holds every KVS: no copy needed */
    pmc_enc_int(e, "rc", 0);
    pms_reply_send(&c->port);
}

void pms_handle_v2(pms_peer *c, const pmc_msg *m)
{
    switch (m->cmd) {
    case PMC_V2_FULLINIT:
        do_fullinit(c, m);
        return;
    case PMC_V2_AUTH_RESPONSE_COMPLETE:
        do_auth_complete(c, m);
        return;
    default:
        break;
    }
    if (c->auth_wait) {
        pms_reply_error(&c->port, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL,
                        "authentication in progress: expected auth-response-complete");
        return;
    }
    if (!need_rank(c, m))
        return;
    const pms_persona *p = c->port.srv->persona;
    if (PMS_MUTANT(p, "name-info-keys-rejected") && pmc_msg_find(m, "infokeycount") &&
        (m->cmd == PMC_V2_NAME_PUBLISH || m->cmd == PMC_V2_NAME_LOOKUP ||
         m->cmd == PMC_V2_NAME_UNPUBLISH)) {
        pms_reply_error(&c->port, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_KEY, "info keys are not supported");
        return;
    }
    switch (m->cmd) {
    case PMC_V2_JOB_CONNECT:
    case PMC_V2_JOB_DISCONNECT:
    case PMC_V2_KVS_GETALL:
    case PMC_V2_KVS_PUTALL:
    case PMC_V2_KVS_PUTALL_PAIR:
    case PMC_V2_SPAWN_CMD:
        if (!p->draft_cmds) { /* JOB-7: no real server has them */
            pms_unknown_command(&c->port, m);
            return;
        }
        break;
    case PMC_V2_ABORT:
        if (!p->v2_abort) { /* Hydra 4.0.2 has no PMI-2 abort (B4): unknown, exit 255 */
            pms_unknown_command(&c->port, m);
            return;
        }
        break;
    case PMC_V2_RING:
        if (!p->ring) { /* RING-2 */
            pms_unknown_command(&c->port, m);
            return;
        }
        break;
    default:
        break;
    }
    switch (m->cmd) {
    case PMC_V2_JOB_GETID: do_job_getid(c, m); break;
    case PMC_V2_KVS_PUT: do_kvs_put(c, m); break;
    case PMC_V2_KVS_GET: do_kvs_get(c, m); break;
    case PMC_V2_KVS_FENCE: pms_fence_enter(&c->port, m); break;
    case PMC_V2_INFO_PUTNODEATTR: do_putnodeattr(c, m); break;
    case PMC_V2_INFO_GETNODEATTR: do_getnodeattr(c, m); break;
    case PMC_V2_INFO_GETJOBATTR: do_getjobattr(c, m); break;
    case PMC_V2_NAME_PUBLISH: do_name_publish(c, m); break;
    case PMC_V2_NAME_LOOKUP: do_name_lookup(c, m); break;
    case PMC_V2_NAME_UNPUBLISH: do_name_unpublish(c, m); break;
    case PMC_V2_FINALIZE: do_finalize(c, m); break;
    case PMC_V2_ABORT: do_abort(c, m); break;
    case PMC_V2_JOB_CONNECT: do_job_connect(c, m, true); break;
    case PMC_V2_JOB_DISCONNECT: do_job_connect(c, m, false); break;
    case PMC_V2_SPAWN: pms_spawn_v2(&c->port, m); break;
    case PMC_V2_SPAWN_CMD: pms_spawn_v2_cmd(&c->port, m); break;
    case PMC_V2_KVS_GETALL: pms_kvs_getall(&c->port, m); break;
    case PMC_V2_KVS_PUTALL: pms_kvs_putall(&c->port, m); break;
    case PMC_V2_KVS_PUTALL_PAIR: pms_kvs_putall_pair(&c->port, m); break;
    case PMC_V2_RING: pms_ring_enter(&c->port, m); break;
    /* the groups profile (groups.c); dispatch.c sends them to
     * pms_unknown_command under a persona without it (GROUP-4) */
    case PMC_V2_GROUP_SUBSCRIBE: pms_groups_subscribe(c->port.srv->groups, c->port.job, c->port.rank, m); break;
    case PMC_V2_GROUP_CONSTRUCT: pms_groups_construct(c->port.srv->groups, c->port.job, c->port.rank, m); break;
    case PMC_V2_GROUP_INVITE: pms_groups_invite(c->port.srv->groups, c->port.job, c->port.rank, m); break;
    case PMC_V2_GROUP_JOIN: pms_groups_join(c->port.srv->groups, c->port.job, c->port.rank, m); break;
    case PMC_V2_GROUP_DESTRUCT: pms_groups_destruct(c->port.srv->groups, c->port.job, c->port.rank, m); break;
    case PMC_V2_GROUP_GET: pms_groups_get(c->port.srv->groups, c->port.job, c->port.rank, m); break;
    default: pms_unknown_command(&c->port, m); break;
    }
}
