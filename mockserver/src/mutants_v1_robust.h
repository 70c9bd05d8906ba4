/* The PMI-1 robustness mutants (mutants_v1_robust.c): how a server reads
 * PMI-1 lines and blocks that are too long, cut short, full of pairs or odd
 * bytes.  They are filters (pms_mutant_filters, internal.h) on requests,
 * reads, the end of the stream, error answers and the connection's flags,
 * which the registry puts in the persona of every mutant of the table
 * pms_mutants_v1_robust (mutant.c); each does nothing unless the persona
 * runs as one of its mutants. */
#ifndef PMISERVER_MUTANTS_V1_ROBUST_H
#define PMISERVER_MUTANTS_V1_ROBUST_H

#include "internal.h"

extern const pms_mutant_filters pms_mutant_v1r_filters;

#endif
