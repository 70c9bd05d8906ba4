/* Values and commands the mutator invents, taken from the schema table and
 * from the limits the decoder and real peers enforce. */
#ifndef PMIFUZZ_VALUES_H
#define PMIFUZZ_VALUES_H

#include "model.h"
#include "pmifuzz/pmifuzz.h"

/* A random command of the schema for this side and these wires; NULL if none. */
const pmc_cmdspec *pf_pick_cmd(pf_rng *r, pmifuzz_side side, unsigned wires);
/* A value for a key of this type: usually well-formed, often at a boundary. */
pmc_slice pf_typed_value(pf_arena *a, pf_rng *r, uint8_t type);
/* A value a server following the schema would send: small counts, TRUE,
 * a short word (a version, a rank below a size, a jobid, a procid). */
pmc_slice pf_plausible_value(pf_arena *a, pf_rng *r, uint8_t type);
/* A value whose length sits at or around a limit, at most budget bytes. */
pmc_slice pf_limit_value(pf_arena *a, pf_rng *r, size_t budget);
/* A key name: from the command's schema, from any command's, or bent. */
pmc_slice pf_key_name(pf_arena *a, pf_rng *r, const pmc_cmdspec *cs);
/* A key of a schema entry, written out (an indexed key gets an index). */
pmc_slice pf_spec_key(pf_arena *a, pf_rng *r, const pmc_keyspec *k);
/* Pair counts past every table size seen in peers (64, 128, 4096 ...). */
size_t pf_flood_count(pf_rng *r);

#endif
