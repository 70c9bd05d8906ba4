/* Mutants: the strict persona with exactly one clause broken, so that
 * `pmi2-conform mutate` can measure which conformance cases tell a server
 * that breaks the clause from one that keeps it (issue 15).
 *
 * A mutant is persona data: it changes persona flags (patch), or switches
 * on a behaviour that the handler it changes tests by name with
 * PMS_MUTANT(), or, acting on whole messages, brings filters
 * (persona->filters, internal.h) that the dispatcher and peer.c run without
 * naming it; each leaves every other clause as strict keeps it.  Selected with --mutant NAME (persona
 * "mutant:NAME").  Tables: mutants_flags.c (persona flags), mutants_v1.c
 * (PMI-1), mutants_v2.c (PMI-2, framing), mutants_groups.c (SPEC.md §12),
 * mutants_v1_robust.c (PMI-1 robustness). */
#ifndef PMISERVER_MUTANT_H
#define PMISERVER_MUTANT_H

#include "persona.h"

#include <stdio.h>
#include <string.h>

typedef struct pms_mutant {
    const char *name;        /* stable id: "v1-get-ignores-kvsname" */
    const char *clause;      /* the SPEC.md clause it breaks: "V1CMD-12" */
    const char *what;        /* one line: what the server does wrong */
    void (*patch)(pms_persona *p); /* persona flags it changes; NULL: by name only */
    const char *unobservable;/* why no black-box case can see it (SPEC.md says so beside
                              * the clause), or NULL */
} pms_mutant;

/* Each table ends with an entry whose name is NULL. */
extern const pms_mutant pms_mutants_flags[];
extern const pms_mutant pms_mutants_v1[];
extern const pms_mutant pms_mutants_v2[];
extern const pms_mutant pms_mutants_groups[];
extern const pms_mutant pms_mutants_v1_robust[];

const pms_mutant *pms_mutant_get(const char *name);
/* The strict persona with m applied (per-thread storage, valid until the
 * next call: a server keeps its own copy). */
const pms_persona *pms_mutant_persona(const pms_mutant *m);
/* A persona by name, "mutant:NAME" included (pms_persona_get knows the
 * personas only: the registry sits above them and the mutant tables). */
const pms_persona *pms_persona_resolve(const char *name);
/* One line per mutant: name TAB clause TAB what [TAB unobservable: why]. */
void pms_mutant_print_list(FILE *f);

/* True when the server runs as the named behaviour mutant. */
#define PMS_MUTANT(p, nm) ((p)->mutant && strcmp((p)->mutant, (nm)) == 0)

#endif
