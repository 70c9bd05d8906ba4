/* Deliberate raw damage to one encoded message: the only place the mutator
 * writes wire bytes itself, because the encoder only writes canonical forms. */
#ifndef PMIFUZZ_DAMAGE_H
#define PMIFUZZ_DAMAGE_H

#include "model.h"

/* Length-field damage kinds (pf_item.arg for PF_DMG_LENFIELD): every way the
 * decoder's length checks can be reached. */
enum {
    PF_LEN_OVER, PF_LEN_UNDER, PF_LEN_LEFT, PF_LEN_ZERO, PF_LEN_PLUS, PF_LEN_MINUS,
    PF_LEN_SPACES, PF_LEN_EMPTY, PF_LEN_SHORT, PF_LEN_LARGE, PF_LEN_NONDIGIT, PF_LEN_ATOI,
    PF_LEN_NUL, PF_LEN_FIELD_CUT, PF_LEN__COUNT
};

/* Damage tmp (it's encoded bytes) in place as it->dmg says.  0, or -1 on ENOMEM. */
int pf_damage_apply(const pf_item *it, pmc_out *tmp);

#endif
