/* Values of the attributes SPEC.md predefines (§9.10's table: the process
 * mapping, universeSize, localRanks, the name-service flag ...) and of the
 * keys whose value has a form of its own (a spawn's errcodes list), in
 * their form and bent around it.  A client library parses these values beyond
 * the wire syntax (MPICH's and Slurm's clients derive a process's node
 * mates from PMI_process_mapping), and a string typed at random never
 * gets into those parsers. */
#ifndef PMIFUZZ_ATTRS_H
#define PMIFUZZ_ATTRS_H

#include "model.h"

/* A value for the attribute or key called name, written in its form most
 * of the time and damaged the rest; {NULL, 0} when name is not one the
 * specification defines. */
pmc_slice pf_attr_value(pf_arena *a, pf_rng *r, pmc_slice name);

#endif
