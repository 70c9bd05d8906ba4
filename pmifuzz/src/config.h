/* Process-wide mutator settings (pmifuzz_configure, environment). */
#ifndef PMIFUZZ_CONFIG_H
#define PMIFUZZ_CONFIG_H

#include "pmifuzz/pmifuzz.h"

const pmifuzz_config *pf_config(void);

#endif
