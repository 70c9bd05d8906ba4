/* The PMI-2 behaviour mutants (mutants_v2.c) that act on whole messages
 * rather than inside one handler: the bytes of a reply, a request before it
 * is routed, a decoding error.  They are filters (pms_mutant_filters,
 * internal.h) the registry puts in the persona of every mutant of the
 * table pms_mutants_v2 (mutant.c); each does nothing unless the persona
 * runs as one of its mutants. */
#ifndef PMISERVER_MUTANTS_V2_H
#define PMISERVER_MUTANTS_V2_H

#include "internal.h"

extern const pms_mutant_filters pms_mutant_v2_filters;

#endif
