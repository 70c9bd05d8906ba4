/* Client personas: how real PMI clients shape their requests on the wire.
 *
 * A persona is an encoder dialect (length padding, ';;' escaping, where
 * thrid goes, MPICH 4.0.2's trailing junk) plus the request shapes of one
 * client library: which keys its fullinit carries, whether kvs-get sends
 * srcid=-1, whether info-getnodeattr always has wait=, how it spells abort.
 * pmi-mockclient run --persona rewrites a scenario's requests with it, so a
 * server implementer sees how the server treats that client.
 *
 *   const pmr_persona *p = pmr_persona_get("mpich-4.0-pmi2");
 *   pmr_persona_ctx c = { .rank = 0, .id = -1, .jobid = getenv("PMI_JOBID") };
 *   pmr_persona_rewrite(p, &msg, &c, &out, &err);   // msg: a decoded request
 *
 * Facts: mpich-wire.md §2-§7 (MPICH 4.0.2 simple PMI-1/PMI-2 clients, the
 * MPICH >= 4.1 pmi_wire.c client), slurm-pmi2.md §13 (Slurm's libpmi2). */
#ifndef PMC_MOCKCLIENT_PERSONA_H
#define PMC_MOCKCLIENT_PERSONA_H

#include "pmicodec/pmicodec.h"

#include <stdbool.h>
#include <stdio.h>

typedef enum pmr_persona_id {
    PMR_P_MPICH40_PMI2 = 1, /* MPICH 3.3..4.0.x simple2pmi.c */
    PMR_P_MPICH5_PMI2,      /* MPICH >= 4.1 / 5.x pmi_v2.c + pmi_wire.c */
    PMR_P_SLURM_PMI2,       /* Slurm contribs/pmi2 libpmi2 */
    PMR_P_MPICH40_PMI1,     /* MPICH 4.0.2 libmpich simple_pmi.c (PMI-1 lines) */
} pmr_persona_id;

typedef struct pmr_persona {
    const char *name;
    const char *alias;   /* the codec dialect name it is also known by, or NULL */
    pmr_persona_id id;
    const char *dialect; /* pmc_dialect_get() name */
    pmc_wire wire;       /* the protocol it speaks: requests of the other one go out unchanged */
    const char *what;    /* one line for --persona list */
} pmr_persona;

/* Facts about the rank being imitated (what the client reads from its
 * environment). */
typedef struct pmr_persona_ctx {
    int rank;          /* PMI_RANK, or the scenario's pmirank */
    int id;            /* PMI_ID in PMI_PORT mode, -1 otherwise */
    const char *jobid; /* PMI_JOBID, or NULL when unset */
} pmr_persona_ctx;

/* By name or alias; NULL when unknown. */
const pmr_persona *pmr_persona_get(const char *name);
const pmr_persona *const *pmr_persona_list(size_t *n);
void pmr_persona_print_list(FILE *f);
const pmc_dialect *pmr_persona_dialect(const pmr_persona *p);

/* Append the persona's wire form of request m to out.  Messages of the
 * other protocol keep their pairs and are written in the persona's dialect.
 * Returns 0, or -1 with err (the encoder refused: e.g. a ';' in a value
 * for a client that does not escape). */
int pmr_persona_rewrite(const pmr_persona *p, const pmc_msg *m, const pmr_persona_ctx *c,
                        pmc_out *out, pmc_error *err);

#endif
