/* The SPEC.md clause table (generated at build time by tools/gen_clauses.c). */
#ifndef PCF_CLAUSES_H
#define PCF_CLAUSES_H

#include <stddef.h>

typedef enum pcf_level { PCF_L_MUST = 0, PCF_L_SHOULD, PCF_L_MAY } pcf_level;

typedef struct pcf_clause {
    const char *id;        /* "KVS-11" */
    pcf_level level;
    const char *level_text; /* "MUST NOT" */
    const char *role;      /* "server", "receiver", ... */
    const char *title;     /* "Empty value round trip" */
    const char *text;      /* the requirement, quoted from SPEC.md */
    int graded_nonstrict;  /* SPEC.md 1.3 refinement 2 */
} pcf_clause;

extern const pcf_clause pcf_clauses[];
extern const size_t pcf_nclauses;

const pcf_clause *pcf_clause_get(const char *id); /* NULL when unknown */

#endif
