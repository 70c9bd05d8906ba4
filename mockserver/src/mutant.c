/* The mutant registry: lookup over the tables, the patched persona. */
#include "mutant.h"
#include "mutants_v1_robust.h"
#include "mutants_v2.h"

static const pms_mutant *const tables[] = { pms_mutants_flags, pms_mutants_v1, pms_mutants_v2,
                                             pms_mutants_groups, pms_mutants_v1_robust };
/* what the dispatcher and peer.c run for a mutant of each table: the
 * filters of the families that act on whole messages (NULL: inside the
 * handlers alone, by PMS_MUTANT) */
static const pms_mutant_filters *const filters[] = { NULL, NULL, &pms_mutant_v2_filters, NULL,
                                                     &pms_mutant_v1r_filters };

static const pms_mutant_filters *filters_of(const pms_mutant *m)
{
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (const pms_mutant *e = tables[t]; e->name; e++)
            if (e == m)
                return filters[t];
    return NULL;
}

const pms_mutant *pms_mutant_get(const char *name)
{
    if (!name)
        return NULL;
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (const pms_mutant *m = tables[t]; m->name; m++)
            if (strcmp(m->name, name) == 0)
                return m;
    return NULL;
}

const pms_persona *pms_mutant_persona(const pms_mutant *m)
{
    static _Thread_local pms_persona p; /* the server copies it (server.c) */
    p = *pms_persona_get("strict");
    p.mutant = m->name;
    p.filters = filters_of(m);
    if (m->patch)
        m->patch(&p);
    return &p;
}

const pms_persona *pms_persona_resolve(const char *name)
{
    if (name && strncmp(name, "mutant:", 7) == 0) {
        const pms_mutant *m = pms_mutant_get(name + 7);
        return m ? pms_mutant_persona(m) : NULL;
    }
    return pms_persona_get(name);
}

void pms_mutant_print_list(FILE *f)
{
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (const pms_mutant *m = tables[t]; m->name; m++) {
            fprintf(f, "%s\t%s\t%s", m->name, m->clause, m->what);
            if (m->unobservable)
                fprintf(f, "\tunobservable: %s", m->unobservable);
            fputc('\n', f);
        }
}
