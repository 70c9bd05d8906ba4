/* Which requests pass the turn in the several-client kit's dealing
 * (pmifuzz_server_feed_conns), shared with pmifuzz-trace's seeds, which
 * order a recorded job's connections the way the kit deals them back. */
#ifndef PMIFUZZ_TURNS_H
#define PMIFUZZ_TURNS_H

#include <stdbool.h>

#include "pmicodec/pmicodec.h"

/* A request after which a rank waits for the others (or is done): the
 * turn passes to the next client. */
static inline bool pf_passes_turn(pmc_cmd c)
{
    switch (c) {
    case PMC_V1_BARRIER_IN:
    case PMC_V1_FINALIZE:
    case PMC_V2_KVS_FENCE:
    case PMC_V2_FINALIZE:
    case PMC_V2_RING:
    case PMC_V2_GROUP_CONSTRUCT:
    case PMC_V2_GROUP_JOIN:
    case PMC_V2_GROUP_DESTRUCT:
        return true;
    default:
        return false;
    }
}

#endif
