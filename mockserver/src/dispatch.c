/* Route one decoded request: validate it against the schema, answer a
 * malformed one with a specific error, hand the rest to the handlers. */
#include "internal.h"
#include "mutant.h"

#include <stdlib.h>
#include <string.h>

/* Slots of the fixed pair table mutant v1-pair-table-crash overruns. */
enum { V1_PAIR_TABLE = 67 };

static const pmc_finding *first_fatal(const pmc_vreport *rep)
{
    for (size_t i = 0; i < rep->n; i++)
        if (rep->f[i].fatal)
            return &rep->f[i];
    return NULL;
}

static void reject_invalid(pms_peer *c, const pmc_msg *m, const pmc_finding *f)
{
    pmc_errcode code = f ? f->code : PMC_E_INTERNAL;
    if (code == PMC_E_UNKNOWN_CMD || code == PMC_E_WRONG_DIRECTION) {
        pms_unknown_command(&c->port, m);
        return;
    }
    if (m->wire == PMC_WIRE_V1 && PMS_MUTANT(c->port.srv->persona, "v1-error-closes")) {
        pms_port_close(&c->port, "malformed PMI-1 request"); /* ERR-4 broken (mutants_v1.c) */
        return;
    }
    if (code == PMC_E_MISSING_KEY && PMS_MUTANT(c->port.srv->persona, "v1-name-missing-ok") &&
        (m->cmd == PMC_V1_PUBLISH_NAME || m->cmd == PMC_V1_UNPUBLISH_NAME ||
         m->cmd == PMC_V1_LOOKUP_NAME)) {
        /* V1CMD-26 broken (mutants_v1.c): answered rc=0 without service or port */
        char name[64];
        snprintf(name, sizeof name, "%s_result",
                 m->cmd == PMC_V1_PUBLISH_NAME ? "publish" : m->cmd == PMC_V1_LOOKUP_NAME ? "lookup" : "unpublish");
        pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V1, name, m->thrid);
        pmc_enc_int(e, "rc", 0);
        pms_reply_send(&c->port);
        return;
    }
    /* ERR-4 / ERR-8: say which key or rule was broken */
    if (code == PMC_E_MISSING_KEY && f->key.ptr)
        pms_reply_error(&c->port, m->wire, m->name, m->thrid, pms_rc_of(code),
                        "missing required key: %.*s", (int)(f->key.len > 64 ? 64 : f->key.len),
                        f->key.ptr);
    else
        pms_reply_error(&c->port, m->wire, m->name, m->thrid, pms_rc_of(code), "%s: %s",
                        pmc_errcode_name(code), f ? f->detail : "invalid request");
}

/* Missing keys a real server does not mind, so the persona acts on the
 * request instead of refusing it: a kvs-put without value (Hydra 4.0.2
 * stores "", mpich-wire.md §9; Slurm answers rc=0 and stores nothing, S3) or
 * without key (Slurm, slurm-pmi2.md §6), a PMI-1 get without kvsname (Hydra
 * HEAD answers it, §9). */
static bool tolerated(const pms_persona *p, const pmc_msg *m, pmc_slice key)
{
    if (m->cmd == PMC_V1_PUT) /* Hydra 4.0.2 takes it too (observed: robust/v1-put-no-value) */
        return pmc_slice_eq(key, "value") && p->put_novalue == PMS_PUT_EMPTY;
    if (m->cmd == PMC_V2_KVS_PUT)
        return (pmc_slice_eq(key, "value") && p->put_novalue != PMS_PUT_INVALID) ||
               (pmc_slice_eq(key, "key") && p->put_novalue == PMS_PUT_IGNORED);
    if (m->cmd == PMC_V1_GET)
        return pmc_slice_eq(key, "kvsname") && p->v1_get_kvsname_optional;
    /* Hydra 4.0.2 answers these as misses (observed; mpich-wire.md's B3
     * crash holds for publish only) */
    if (m->cmd == PMC_V1_LOOKUP_NAME || m->cmd == PMC_V1_UNPUBLISH_NAME)
        return pmc_slice_eq(key, "service") && p->lookup_noname_miss;
    if (m->cmd == PMC_V2_NAME_LOOKUP)
        return pmc_slice_eq(key, "name") && p->lookup_noname_miss;
    return false;
}

/* persona missing_key_null: Slurm passes a missing key on as NULL.  The
 * stores and publishes take it (rc=0, nothing stored); the reads crash
 * slurmstepd, as does a PMI-2 request that carries no pair at all (its pair
 * list is NULL); info-getjobattr with other pairs is a miss (observed:
 * robust/kvs-get-no-key and the other -no- cases, pmi2/concat/reassembly). */
typedef enum { MK_NONE = 0, MK_ACCEPT, MK_CRASH } missing_action;

static missing_action slurm_missing(const pmc_msg *m, pmc_slice key)
{
    switch (m->cmd) {
    case PMC_V2_KVS_PUT:
    case PMC_V2_NAME_PUBLISH:
    case PMC_V1_PUT:
    case PMC_V1_PUBLISH_NAME:
        return MK_ACCEPT;
    case PMC_V1_GET:
        return pmc_slice_eq(key, "kvsname") ? MK_ACCEPT : MK_CRASH;
    case PMC_V2_INFO_GETJOBATTR:
        return m->npairs ? MK_ACCEPT : MK_CRASH;
    case PMC_V2_KVS_GET:
    case PMC_V2_INFO_GETNODEATTR:
    case PMC_V2_INFO_PUTNODEATTR:
    case PMC_V2_NAME_LOOKUP:
    case PMC_V2_NAME_UNPUBLISH:
    case PMC_V1_LOOKUP_NAME:
    case PMC_V1_UNPUBLISH_NAME:
        return MK_CRASH;
    default:
        return MK_NONE;
    }
}

static missing_action missing_keys(const pms_peer *c, const pmc_msg *m, const pmc_vreport *rep)
{
    if (!c->port.srv->persona->missing_key_null || rep->n != rep->total)
        return MK_NONE;
    missing_action a = MK_NONE;
    for (size_t i = 0; i < rep->n; i++) {
        if (!rep->f[i].fatal)
            continue;
        if (rep->f[i].code != PMC_E_MISSING_KEY)
            return MK_NONE;
        missing_action k = slurm_missing(m, rep->f[i].key);
        if (k == MK_NONE)
            return MK_NONE;
        if (k == MK_CRASH)
            a = MK_CRASH;
        else if (a == MK_NONE)
            a = MK_ACCEPT;
    }
    return a;
}

static bool persona_accepts(const pms_peer *c, const pmc_msg *m, const pmc_vreport *rep)
{
    for (size_t i = 0; i < rep->n; i++)
        if (rep->f[i].fatal && !(rep->f[i].code == PMC_E_MISSING_KEY &&
                                 tolerated(c->port.srv->persona, m, rep->f[i].key)))
            return false;
    return rep->n == rep->total; /* a finding not recorded could be fatal */
}

/* Hydra 4.0.2 cuts one '\n' off the end of a PMI-2 body (its line parser
 * serves both wires): the frame's last value loses a trailing LF.  Returns
 * m, or `copy` with the last pair shortened (pairs copied into *owned). */
static const pmc_msg *strip_last_lf(const pms_persona *p, const pmc_msg *m, pmc_msg *copy,
                                    pmc_pair **owned)
{
    if (!p->v2_strip_last_lf || m->wire != PMC_WIRE_V2 || !m->npairs)
        return m;
    const pmc_pair *last = &m->pairs[m->npairs - 1];
    if (!last->val.len || last->val.ptr[last->val.len - 1] != '\n')
        return m;
    pmc_pair *pairs = malloc(m->npairs * sizeof *pairs);
    if (!pairs)
        return m;
    memcpy(pairs, m->pairs, m->npairs * sizeof *pairs);
    pairs[m->npairs - 1].val.len--;
    *copy = *m;
    copy->pairs = pairs;
    *owned = pairs;
    return copy;
}

/* MPICH 4.1+/5.x's and Slurm's PMI-2 parsers take every byte up to '=' as
 * the key, ';' included: a bare token ("flag;") and the key after it are one
 * key (pmc_msg_join_bare_keys).  Returns m, or `copy` with the pairs so read
 * (copied into *owned). */
static const pmc_msg *join_bare_keys(const pms_persona *p, const pmc_msg *m, pmc_msg *copy,
                                     pmc_pair **owned)
{
    if (!p->v2_bare_key_joins || m->wire != PMC_WIRE_V2 || !(m->notes & PMC_NOTE_BARE_KEY))
        return m;
    pmc_pair *pairs = malloc(m->npairs * sizeof *pairs);
    if (!pairs)
        return m;
    *copy = *m;
    copy->pairs = pairs;
    copy->npairs = pmc_msg_join_bare_keys(m, pairs);
    *owned = pairs;
    return copy;
}

static bool name_cmd(const pmc_msg *m)
{
    switch (m->cmd) {
    case PMC_V1_PUBLISH_NAME:
    case PMC_V1_UNPUBLISH_NAME:
    case PMC_V1_LOOKUP_NAME:
    case PMC_V2_NAME_PUBLISH:
    case PMC_V2_NAME_UNPUBLISH:
    case PMC_V2_NAME_LOOKUP:
        return true;
    default:
        return false;
    }
}

void pms_dispatch(pms_peer *c, const pmc_msg *msg)
{
    pmc_msg copy, joined;
    pmc_pair *owned = NULL, *owned_joined = NULL;
    const pmc_msg *m = strip_last_lf(c->port.srv->persona, msg, &copy, &owned);
    m = join_bare_keys(c->port.srv->persona, m, &joined, &owned_joined);
    pmc_vreport rep;
    bool valid = true;
    missing_action mk = MK_NONE;
    const pms_mutant_filters *mf = pms_filters(c);
    if (c->port.job && c->port.job->wedged)
        ; /* persona job_wide_failures: nothing of this job is served any more */
    else if (m->wire == PMC_WIRE_V1 && (m->notes & PMC_NOTE_V1_SPACES) &&
             c->port.srv->persona->crash_on_v1_spaces)
        /* runs of spaces the decoder tolerated (a persona that does not also
         * reject them, as Slurm's does, in decode_error) */
        pms_job_crash(&c->port, "runs of spaces in a PMI-1 line");
    else if (m->wire == PMC_WIRE_V1 && c->version == 2 && c->port.srv->persona->bad_len_finalize)
        /* "cmd=ge" where a length field belongs: atoi gives 0 (slurm-pmi2.md §2, §3) */
        pms_conn_drop_finalize(&c->port, "a PMI-1 line on a PMI-2 connection");
    else if (m->wire == PMC_WIRE_V1 && m->npairs >= V1_PAIR_TABLE &&
             PMS_MUTANT(c->port.srv->persona, "v1-pair-table-crash"))
        abort(); /* ERR-1 broken (mutants_v1.c): a fixed pair table overrun kills the server */
    else if (c->port.finalized && c->port.srv->cfg.finalize_linger)
        pms_fault_observe(c, m); /* after finalize: recorded, never answered */
    else if (mf && mf->request && mf->request(c, &m))
        ; /* --mutant: answered, dropped or served rewritten by the mutant's filter */
    else if (pms_fault_request(c, m))
        ; /* observed; a fault answered it instead (faults.c) */
    else if (m->wire == PMC_WIRE_V2 && c->port.srv->persona->v2_refused)
        /* a PMI-1-only server has no reader for frames: no command it can
         * read (ERR-6) */
        pms_port_close(&c->port, "a PMI-2 frame to a PMI-1-only server");
    else if (c->port.srv->persona->no_nameserv && name_cmd(m))
        pms_unknown_command(&c->port, m); /* NAME-8 through ERR-7: commands it does not have */
    else if (!c->port.srv->groups && pms_group_cmd(m))
        pms_unknown_command(&c->port, m); /* GROUP-4: as before the schema knew them */
    else if (!(valid = pmc_validate(m, PMC_VAL_REQUEST, &rep)) &&
             (mk = missing_keys(c, m, &rep)) == MK_CRASH)
        pms_job_crash(&c->port, "a required key is missing (a NULL dereference in slurmstepd)");
    else if (!valid && mk == MK_NONE && !persona_accepts(c, m, &rep))
        reject_invalid(c, m, first_fatal(&rep));
    else if (m->wire == PMC_WIRE_V2)
        pms_handle_v2(c, m);
    else
        pms_handle_v1(c, m);
    /* the launcher tells PMI programs from plain ones by this */
    if (c->port.job && c->port.rank >= 0)
        c->port.job->ranks[c->port.rank].spoke = true;
    if (mf && mf->after)
        mf->after(c, m);
    free(owned);
    free(owned_joined);
}
