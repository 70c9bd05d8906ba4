/* Settings are read once: a harness configures before fuzzing starts, and
 * the environment wins so a user can steer a built harness without
 * rebuilding it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

static pmifuzz_config cfg = { .side = PMIFUZZ_ANY, .wires = PMIFUZZ_WIRE_BOTH, .raw_damage = 4 };
static int env_read;

static void read_env(void)
{
    const char *s = getenv("PMIFUZZ_SIDE");
    if (s && strcmp(s, "requests") == 0)
        cfg.side = PMIFUZZ_REQUESTS;
    else if (s && strcmp(s, "responses") == 0)
        cfg.side = PMIFUZZ_RESPONSES;
    else if (s && strcmp(s, "any") == 0)
        cfg.side = PMIFUZZ_ANY;
    const char *w = getenv("PMIFUZZ_WIRES");
    if (w && strcmp(w, "v1") == 0)
        cfg.wires = PMIFUZZ_WIRE_V1;
    else if (w && strcmp(w, "v2") == 0)
        cfg.wires = PMIFUZZ_WIRE_V2;
    env_read = 1;
}

void pmifuzz_configure(const pmifuzz_config *c)
{
    if (c) {
        cfg = *c;
        if (!cfg.wires)
            cfg.wires = PMIFUZZ_WIRE_BOTH;
        if (cfg.raw_damage > 16)
            cfg.raw_damage = 16;
    }
    read_env();
}

const pmifuzz_config *pf_config(void)
{
    if (!env_read)
        read_env();
    return &cfg;
}
