/* The one table from codec findings to SPEC.md clauses: decoder notes
 * (non-canonical but accepted forms), decoder errors and pmc_validate
 * codes.  `pmi-trace show` prints the clause next to the finding. */
#include "tool.h"

static const struct {
    uint32_t note;
    const char *clause;
} notes[] = {
    { PMC_NOTE_LEN_LEFT, "FRAME-2" },       { PMC_NOTE_LEN_ZERO, "FRAME-2" },
    { PMC_NOTE_TRAILING_JUNK, "BODY-5" },   { PMC_NOTE_ESCAPED_SEMI, "ESC-1" },
    { PMC_NOTE_EMPTY_VALUE, "BODY-8" },     { PMC_NOTE_BARE_KEY, "BODY-10" },
    { PMC_NOTE_EMPTY_TOKEN, "BODY-10" },    { PMC_NOTE_DUP_KEY, "PAIR-3" },
    { PMC_NOTE_KEY_CHARS, "KEY-1" },        { PMC_NOTE_NUL_IN_VALUE, "VAL-2" },
    { PMC_NOTE_V1_SPACES, "V1-1" },         { PMC_NOTE_V1_CR, "V1-2" },
    { PMC_NOTE_V1_BACKSLASH, "V1-11" },     { PMC_NOTE_MCMD_SPACES, "V1-13" },
    { PMC_NOTE_EMPTY_KEY, "KEY-5" },        { PMC_NOTE_LEN_ATOI, "FRAME-5" },
};

static const struct {
    pmc_errcode code;
    const char *clause;
} codes[] = {
    { PMC_E_LEN_SYNTAX, "FRAME-5" },      { PMC_E_LEN_SIGN, "FRAME-5" },
    { PMC_E_LEN_EMPTY, "FRAME-5" },       { PMC_E_LEN_SHORT, "FRAME-6" },
    { PMC_E_LEN_LARGE, "FRAME-7" },       { PMC_E_LEN_NONCANONICAL, "FRAME-2" },
    { PMC_E_LEN_SPACES, "FRAME-5" },      { PMC_E_LINE_TOO_LONG, "LIMIT-5" },
    { PMC_E_MCMD_TOO_LONG, "V1-14" },     { PMC_E_TRUNCATED, "CONN-2" },
    { PMC_E_NO_CMD, "BODY-2" },           { PMC_E_CMD_EMPTY, "BODY-1" },
    { PMC_E_CMD_CHARS, "KEY-1" },         { PMC_E_UNTERMINATED, "BODY-4" },
    { PMC_E_KEY_EMPTY, "KEY-5" },         { PMC_E_KEY_CHARS, "KEY-1" },
    { PMC_E_KEY_TOO_LONG, "LIMIT-1" },    { PMC_E_VAL_TOO_LONG, "LIMIT-1" },
    { PMC_E_TOO_MANY_PAIRS, "LIMIT-10" }, { PMC_E_BARE_KEY, "BODY-9" },
    { PMC_E_EMPTY_TOKEN, "BODY-10" },     { PMC_E_DUP_KEY, "PAIR-3" },
    { PMC_E_NUL, "VAL-3" },               { PMC_E_V1_CR, "V1-2" },
    { PMC_E_V1_SPACES, "V1-4" },          { PMC_E_TRAILING_JUNK, "BODY-5" },
    { PMC_E_EMPTY_VALUE, "BODY-8" },      { PMC_E_MCMD_SYNTAX, "V1-13" },
    { PMC_E_BAD_ESCAPE, "V1-10" },        { PMC_E_CONCAT_ID, "CONCAT-8" },
    { PMC_E_CONCAT_BROKEN, "CONCAT-7" },  { PMC_E_CONCAT_UNEXPECTED, "CONCAT-9" },
    { PMC_E_CONCAT_TOO_LARGE, "CONCAT-10" }, { PMC_E_CONCAT_DROPPED, "CONCAT-10" }, { PMC_E_UNKNOWN_CMD, "PAIR-6" },
    { PMC_E_MISSING_KEY, "PAIR-6" },      { PMC_E_BAD_INT, "VAL-5" },
    { PMC_E_BAD_BOOL, "BOOL-3" },         { PMC_E_UNKNOWN_KEY, "PAIR-5" },
    { PMC_E_INDEX, "SPAWN-5" },           { PMC_E_COUNT, "SPAWN-5" },
    { PMC_E_RANGE, "VAL-4" },             { PMC_E_WRONG_DIRECTION, "PAIR-6" },
    { PMC_E_KEY_ORDER, "THRID-2" },       { PMC_E_VALUE_CHARS, "V1-9" },
};

const char *clause_of_note(uint32_t note)
{
    for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++)
        if (notes[i].note == note)
            return notes[i].clause;
    return NULL;
}

const char *clause_of_code(pmc_errcode code)
{
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (codes[i].code == code)
            return codes[i].clause;
    return NULL;
}
