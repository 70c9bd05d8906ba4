/* Error codes: stable names and short texts, and formatting. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>

typedef struct {
    pmc_errcode code;
    const char *name;
    const char *text;
} errinfo;

static const errinfo table[] = {
    { PMC_E_NONE, "E_NONE", "no error" },
    { PMC_E_LEN_SYNTAX, "E_LEN_SYNTAX", "invalid byte in the length field" },
    { PMC_E_LEN_SIGN, "E_LEN_SIGN", "sign in the length field" },
    { PMC_E_LEN_EMPTY, "E_LEN_EMPTY", "length field without digits" },
    { PMC_E_LEN_SHORT, "E_LEN_SHORT", "length below the shortest body" },
    { PMC_E_LEN_LARGE, "E_LEN_LARGE", "length above the maximum frame" },
    { PMC_E_LEN_NONCANONICAL, "E_LEN_NONCANONICAL", "non-canonical length field" },
    { PMC_E_LEN_SPACES, "E_LEN_SPACES", "spaces between the digits of the length" },
    { PMC_E_LINE_TOO_LONG, "E_LINE_TOO_LONG", "v1 line too long" },
    { PMC_E_MCMD_TOO_LONG, "E_MCMD_TOO_LONG", "mcmd block too long" },
    { PMC_E_TRUNCATED, "E_TRUNCATED", "stream ended inside a message" },
    { PMC_E_NO_CMD, "E_NO_CMD", "message does not start with cmd=" },
    { PMC_E_CMD_EMPTY, "E_CMD_EMPTY", "empty command name" },
    { PMC_E_CMD_CHARS, "E_CMD_CHARS", "invalid byte in the command name" },
    { PMC_E_UNTERMINATED, "E_UNTERMINATED", "body not terminated by ';'" },
    { PMC_E_KEY_EMPTY, "E_KEY_EMPTY", "empty key" },
    { PMC_E_KEY_CHARS, "E_KEY_CHARS", "invalid byte in a key" },
    { PMC_E_KEY_TOO_LONG, "E_KEY_TOO_LONG", "key longer than the limit" },
    { PMC_E_VAL_TOO_LONG, "E_VAL_TOO_LONG", "value longer than the limit" },
    { PMC_E_TOO_MANY_PAIRS, "E_TOO_MANY_PAIRS", "too many pairs in one message" },
    { PMC_E_BARE_KEY, "E_BARE_KEY", "key without '='" },
    { PMC_E_EMPTY_TOKEN, "E_EMPTY_TOKEN", "empty token" },
    { PMC_E_DUP_KEY, "E_DUP_KEY", "duplicate key" },
    { PMC_E_NUL, "E_NUL", "NUL byte" },
    { PMC_E_V1_CR, "E_V1_CR", "CR in a v1 line" },
    { PMC_E_V1_SPACES, "E_V1_SPACES", "extra spaces in a v1 line" },
    { PMC_E_TRAILING_JUNK, "E_TRAILING_JUNK", "bytes after the final ';' of a frame" },
    { PMC_E_EMPTY_VALUE, "E_EMPTY_VALUE", "empty value" },
    { PMC_E_MCMD_SYNTAX, "E_MCMD_SYNTAX", "malformed mcmd block" },
    { PMC_E_BAD_ESCAPE, "E_BAD_ESCAPE", "incomplete escape" },
    { PMC_E_CONCAT_ID, "E_CONCAT_ID", "continuation id mismatch" },
    { PMC_E_CONCAT_BROKEN, "E_CONCAT_BROKEN", "continuation interrupted by another message" },
    { PMC_E_CONCAT_UNEXPECTED, "E_CONCAT_UNEXPECTED", "continuation frame without a message to continue" },
    { PMC_E_CONCAT_TOO_LARGE, "E_CONCAT_TOO_LARGE", "continued message too large" },
    { PMC_E_CONCAT_DROPPED, "E_CONCAT_DROPPED", "frame of a message refused as too large, dropped unanswered" },
    { PMC_E_UNKNOWN_CMD, "E_UNKNOWN_CMD", "unknown command" },
    { PMC_E_MISSING_KEY, "E_MISSING_KEY", "required key missing" },
    { PMC_E_BAD_INT, "E_BAD_INT", "value is not an integer" },
    { PMC_E_BAD_BOOL, "E_BAD_BOOL", "value is not TRUE or FALSE" },
    { PMC_E_UNKNOWN_KEY, "E_UNKNOWN_KEY", "key not defined for this command" },
    { PMC_E_INDEX, "E_INDEX", "indexed keys do not match their count" },
    { PMC_E_COUNT, "E_COUNT", "count disagrees with the message" },
    { PMC_E_RANGE, "E_RANGE", "integer out of range" },
    { PMC_E_WRONG_DIRECTION, "E_WRONG_DIRECTION", "request and response confused" },
    { PMC_E_KEY_ORDER, "E_KEY_ORDER", "key out of its required position" },
    { PMC_E_VALUE_CHARS, "E_VALUE_CHARS", "value holds characters its type forbids" },
    { PMC_E_ENC_KEY, "E_ENC_KEY", "key cannot be encoded" },
    { PMC_E_ENC_VALUE, "E_ENC_VALUE", "value cannot be encoded" },
    { PMC_E_ENC_TOO_LARGE, "E_ENC_TOO_LARGE", "message too large to encode" },
    { PMC_E_ENC_STATE, "E_ENC_STATE", "encoder misuse" },
    { PMC_E_AUTH_FORMAT, "E_AUTH_FORMAT", "malformed auth digest" },
    { PMC_E_AUTH_MISMATCH, "E_AUTH_MISMATCH", "auth digest does not match" },
    { PMC_E_AUTH_REPLAY, "E_AUTH_REPLAY", "no outstanding auth challenge" },
    { PMC_E_AUTH_RANDOM, "E_AUTH_RANDOM", "random number generator failed" },
    { PMC_E_NOMEM, "E_NOMEM", "out of memory" },
    { PMC_E_INTERNAL, "E_INTERNAL", "internal error" },
};

static const errinfo *lookup(pmc_errcode c)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].code == c)
            return &table[i];
    return NULL;
}

const char *pmc_errcode_name(pmc_errcode c)
{
    const errinfo *e = lookup(c);
    return e ? e->name : "E_UNKNOWN";
}

const char *pmc_errcode_text(pmc_errcode c)
{
    const errinfo *e = lookup(c);
    return e ? e->text : "unknown error code";
}

void pmc_error_clear(pmc_error *e)
{
    memset(e, 0, sizeof *e);
}

void pmc_error_set(pmc_error *e, pmc_errcode code, uint64_t offset, const char *fmt, ...)
{
    /* Every error path starts here, so this is where the record is reset
     * (the decoder's hot path never touches it). */
    e->code = code;
    e->fatal = false;
    e->offset = offset;
    e->msg_offset = offset;
    e->wire = PMC_WIRE_NONE;
    e->raw = e->cmd = e->thrid = (pmc_slice){ NULL, 0 };
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->detail, sizeof e->detail, fmt, ap);
    va_end(ap);
}

size_t pmc_error_format(const pmc_error *e, char *buf, size_t n)
{
    int w = snprintf(buf, n, "offset %llu: %s: %s%s%s", (unsigned long long)e->offset,
                     pmc_errcode_name(e->code), pmc_errcode_text(e->code),
                     e->detail[0] ? ": " : "", e->detail);
    return w > 0 ? (size_t)w : 0;
}
