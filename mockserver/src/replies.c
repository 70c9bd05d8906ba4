/* Answers shared by the protocol handlers and the job state: the errors
 * a server sends for commands it lacks (ERR-7) and the RC-6 numbers, the
 * found/value answers a wait completes with.  Built on the reply port only. */
#include "internal.h"
#include "mutant.h"

#include <string.h>

/* SPEC RC-6: 1 a failed operation or missing item, 3 a missing or malformed
 * key, 10 an unknown or unparsable command.  Clients must not depend on the
 * numbers; these are what this project's servers send. */
int pms_rc_of(pmc_errcode code)
{
    switch (code) {
    case PMC_E_UNKNOWN_CMD:
    case PMC_E_WRONG_DIRECTION:
    case PMC_E_NO_CMD:
    case PMC_E_CMD_EMPTY:
    case PMC_E_CMD_CHARS:
    case PMC_E_UNTERMINATED:
    case PMC_E_MCMD_SYNTAX:
        return PMS_RC_UNKNOWN;
    case PMC_E_MISSING_KEY:
    case PMC_E_BAD_INT:
    case PMC_E_BAD_BOOL:
    case PMC_E_INDEX:
    case PMC_E_COUNT:
    case PMC_E_RANGE:
    case PMC_E_KEY_EMPTY:
    case PMC_E_KEY_CHARS:
    case PMC_E_KEY_TOO_LONG:
    case PMC_E_VAL_TOO_LONG:
    case PMC_E_VALUE_CHARS:
    case PMC_E_EMPTY_VALUE:
    case PMC_E_BARE_KEY:
    case PMC_E_DUP_KEY:
    case PMC_E_NUL:
    case PMC_E_BAD_ESCAPE:
        return PMS_RC_KEY;
    default:
        return PMS_RC_FAIL;
    }
}

/* ERR-7: "cmd=<name>-response;rc=10;errmsg=unknown command;" (PMI-2) or
 * "cmd=<name>_result rc=10 msg=unknown_command" (PMI-1); V1CMD-25 and JOB-7
 * send the commands a server lacks down the same path.  Hydra tears the job
 * down (mpich-wire.md §9), Slurm says nothing (slurm-pmi2.md §6). */
void pms_unknown_command(pms_port *c, const pmc_msg *m)
{
    const pms_persona *p = c->srv->persona;
    pms_log(c->srv, 1, "conn %d: unknown command '%.*s'", c->id,
            (int)(m->name.len > 80 ? 80 : m->name.len), m->name.ptr ? m->name.ptr : "");
    if (p->on_error == PMS_ERR_KILL_JOB) {
        char why[128];
        snprintf(why, sizeof why, "unrecognized PMI command: %.*s",
                 (int)(m->name.len > 80 ? 80 : m->name.len), m->name.ptr ? m->name.ptr : "");
        c->ops->fatal(c, why);
        return;
    }
    if (p->on_error == PMS_ERR_SILENT)
        return;
    if (m->wire != PMC_WIRE_V2 && PMS_MUTANT(p, "v1-unknown-silent"))
        return; /* V1CMD-25 broken (mutants_v1.c): the client waits for ever */
    if (!m->name.len) {
        pms_port_close(c, "no command name"); /* ERR-6 */
        return;
    }
    bool v2 = m->wire == PMC_WIRE_V2;
    char name[112];
    snprintf(name, sizeof name, v2 ? "%.*s-response" : "%.*s_result",
             (int)(m->name.len > 80 ? 80 : m->name.len), m->name.ptr);
    pmc_enc *e = pms_reply_begin(c, v2 ? PMC_WIRE_V2 : PMC_WIRE_V1, name,
                                 v2 ? m->thrid : (pmc_slice){ NULL, 0 });
    if (!v2 && PMS_MUTANT(p, "v1-unknown-rc0")) { /* V1CMD-25 broken: a success */
        pmc_enc_int(e, "rc", 0);
        pms_reply_send(c);
        return;
    }
    pmc_enc_int(e, "rc", PMS_RC_UNKNOWN);
    pmc_enc_str(e, v2 ? "errmsg" : "msg", v2 ? "unknown command" : "unknown_command");
    pms_reply_send(c);
}

/* found/value answers: "found=TRUE;value=" or the persona's not-found form. */
void pms_reply_found(pms_port *c, pmc_slice thrid, const char *resp, const char *val,
                        size_t vlen, bool found)
{
    const pms_persona *p = c->srv->persona;
    if (found && !vlen && PMS_MUTANT(p, "kvs-empty-value-miss") && !strcmp(resp, "kvs-get-response"))
        found = false;
    pmc_enc *e = pms_reply_begin(c, PMC_WIRE_V2, resp, thrid);
    if (!found && (p->notfound == PMS_NF_RC1 ||
                   (PMS_MUTANT(p, "jobattr-miss-rc1") && !strcmp(resp, "info-getjobattr-response")) ||
                   (PMS_MUTANT(p, "nodeattr-miss-rc1") && !strcmp(resp, "info-getnodeattr-response")))) {
        pmc_enc_int(e, "rc", 1);
        pms_reply_send(c);
        return;
    }
    if (!(found && PMS_MUTANT(p, "jobattr-hit-no-found") && !strcmp(resp, "info-getjobattr-response")))
        pmc_enc_bool(e, "found", found);
    if (found)
        pmc_enc_slice(e, PMC_SLICE_LIT("value"), (pmc_slice){ val, vlen });
    pmc_enc_int(e, "rc", found && vlen > 1000 && PMS_MUTANT(p, "kvs-get-hit-rc1") &&
                             !strcmp(resp, "kvs-get-response"));
    pms_reply_send(c);
}

void pms_kvs_get_reply(pms_port *c, pmc_slice thrid, const pms_kv *kv)
{
    pms_reply_found(c, thrid, "kvs-get-response", kv ? kv->val : NULL, kv ? kv->vlen : 0, kv != NULL);
}

void pms_nodeattr_reply(pms_port *c, pmc_slice thrid, const pms_kv *kv)
{
    if (kv && PMS_MUTANT(c->srv->persona, "nodeattr-wrong-value")) {
        pms_reply_found(c, thrid, "info-getnodeattr-response", kv->key, kv->klen, true);
        return;
    }
    pms_reply_found(c, thrid, "info-getnodeattr-response", kv ? kv->val : NULL, kv ? kv->vlen : 0,
                kv != NULL);
}


void pms_conn_refused_identity(pms_port *c)
{
    if (c->srv->persona->on_error == PMS_ERR_SILENT && c->rank < 0)
        pms_port_close(c, "no free rank named on a PMI_PORT connection");
}
