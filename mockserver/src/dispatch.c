/* Route one decoded request: validate it against the schema, answer a
 * malformed one with a specific error, hand the rest to the handlers. */
#include "internal.h"

static void reject_invalid(pms_conn *c, const pmc_msg *m, const pmc_vreport *rep)
{
    const pmc_finding *f = NULL;
    for (size_t i = 0; i < rep->n && !f; i++)
        if (rep->f[i].fatal)
            f = &rep->f[i];
    pmc_errcode code = f ? f->code : PMC_E_INTERNAL;
    pms_reply_error(c, m->wire, m->name, m->thrid, pms_rc_for(code), "%s: %s",
                    pmc_errcode_name(code), f ? f->detail : "invalid request");
}

void pms_dispatch(pms_conn *c, const pmc_msg *m)
{
    pmc_vreport rep;
    if (!pmc_validate(m, PMC_VAL_REQUEST, &rep))
        reject_invalid(c, m, &rep);
    else if (m->wire == PMC_WIRE_V2)
        pms_handle_v2(c, m);
    else
        pms_handle_v1(c, m);
    /* the launcher tells PMI programs from plain ones by this */
    if (c->job && c->rank >= 0)
        c->job->ranks[c->rank].spoke = true;
}
