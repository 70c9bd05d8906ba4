/* Names of wire forms and notes, for reports and tools. */
#include "internal.h"

#include <stdio.h>

const char *pmc_version(void)
{
    return PMICODEC_VERSION;
}

const char *pmc_wire_name(pmc_wire w)
{
    switch (w) {
    case PMC_WIRE_V1: return "v1";
    case PMC_WIRE_V1_MCMD: return "v1-mcmd";
    case PMC_WIRE_V2: return "v2";
    default: return "none";
    }
}

static const char *const note_names[PMC_NOTE_COUNT] = {
    "len-left",     "len-zero",      "trailing-junk", "escaped-semi", "empty-value",
    "bare-key",     "empty-token",   "dup-key",       "key-chars",    "nul-in-value",
    "v1-spaces",    "v1-cr",         "v1-backslash",  "continued",    "mcmd-spaces",
    "empty-key",    "len-atoi",
};

const char *pmc_note_name(uint32_t note)
{
    for (int i = 0; i < PMC_NOTE_COUNT; i++)
        if (note == (1u << i))
            return note_names[i];
    return "unknown-note";
}

size_t pmc_notes_format(uint32_t notes, char *buf, size_t n)
{
    size_t need = 0;
    if (n)
        buf[0] = 0;
    for (int i = 0; i < PMC_NOTE_COUNT; i++) {
        if (!(notes & (1u << i)))
            continue;
        int w = snprintf(n > need ? buf + need : NULL, n > need ? n - need : 0, "%s%s",
                         need ? "," : "", note_names[i]);
        need += (size_t)(w > 0 ? w : 0);
    }
    return need;
}

pmc_errcode pmc_note_errcode(uint32_t note)
{
    switch (note) {
    case PMC_NOTE_LEN_LEFT:
    case PMC_NOTE_LEN_ZERO: return PMC_E_LEN_NONCANONICAL;
    case PMC_NOTE_LEN_ATOI: return PMC_E_LEN_SYNTAX;
    case PMC_NOTE_TRAILING_JUNK: return PMC_E_TRAILING_JUNK;
    case PMC_NOTE_EMPTY_VALUE: return PMC_E_EMPTY_VALUE;
    case PMC_NOTE_BARE_KEY: return PMC_E_BARE_KEY;
    case PMC_NOTE_EMPTY_TOKEN: return PMC_E_EMPTY_TOKEN;
    case PMC_NOTE_DUP_KEY: return PMC_E_DUP_KEY;
    case PMC_NOTE_KEY_CHARS: return PMC_E_KEY_CHARS;
    case PMC_NOTE_NUL_IN_VALUE: return PMC_E_NUL;
    case PMC_NOTE_V1_SPACES:
    case PMC_NOTE_MCMD_SPACES: return PMC_E_V1_SPACES;
    case PMC_NOTE_V1_CR: return PMC_E_V1_CR;
    case PMC_NOTE_EMPTY_KEY: return PMC_E_KEY_EMPTY;
    case PMC_NOTE_ESCAPED_SEMI:
    case PMC_NOTE_V1_BACKSLASH: return PMC_E_VALUE_CHARS;
    default: return PMC_E_INTERNAL;
    }
}
