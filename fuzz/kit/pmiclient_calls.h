/* The calls of libpmiclient's two harnesses, each a whole job's use of one
 * API: kit_pmiclient.c (pmi2.h and the groups extension) and
 * kit_pmiclient_v1.c (pmi.h).  kit_pmiclient_all.c runs the one the input's
 * first answer asks for. */
#ifndef PMICLIENT_CALLS_H
#define PMICLIENT_CALLS_H

void pmiclient_v2_calls(void);
void pmiclient_v1_calls(void);

#endif
