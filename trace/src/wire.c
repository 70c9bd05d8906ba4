/* Which wire a connection speaks: what a player needs to add a message of
 * its own (a judged replay's finalize, a reproducer's question). */
#include "pmitrace/steps.h"

#include <string.h>

pmc_wire pmt_conn_wire(const pmt_trace *t, const char *conn, pmt_side side)
{
    pmc_wire w = PMC_WIRE_V1; /* every session starts with a v1 init line */
    pmc_decoder *d = pmc_decoder_new(NULL);
    if (!d)
        return w;
    for (size_t i = 0; i < t->nevents; i++) {
        const pmt_event *e = &t->events[i];
        if (e->kind != PMT_EV_DATA || e->side != side || strcmp(e->conn, conn) ||
            e->form == PMT_FORM_MSG)
            continue;
        pmc_decoder_feed(d, e->data, e->len);
        pmc_msg m;
        pmc_error err;
        int rc;
        while ((rc = pmc_decoder_next(d, &m, &err)) == PMC_MSG)
            w = m.wire;
        if (rc == PMC_ERR && err.fatal)
            break; /* junk a case sent on purpose: the wire before it stands */
    }
    pmc_decoder_free(d);
    return w;
}
