/* Behaviour mutants (v2): the handlers test PMS_MUTANT(persona, name). */
#include "mutant.h"

const pms_mutant pms_mutants_v2[] = {
    { NULL, NULL, NULL, NULL, NULL },
};
