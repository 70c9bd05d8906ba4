/* Error codes and the error record every codec entry point fills in.
 * Rule: no input ever aborts or asserts; every rejection gets a code, a byte
 * offset and a short text naming what was expected. */
#ifndef PMICODEC_ERROR_H
#define PMICODEC_ERROR_H

#include "pmicodec/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Stable numbers: they appear in reports and traces.  Append only. */
typedef enum pmc_errcode {
    PMC_E_NONE = 0,

    /* framing: v2 length field (fatal: the stream cannot be resynchronised) */
    PMC_E_LEN_SYNTAX = 1,      /* a byte other than a digit or a space in the length field */
    PMC_E_LEN_SIGN = 2,        /* '+' or '-' in the length field */
    PMC_E_LEN_EMPTY = 3,       /* six spaces, no digit */
    PMC_E_LEN_SHORT = 4,       /* below the shortest legal body ("cmd=x;" = 6) */
    PMC_E_LEN_LARGE = 5,       /* above the configured maximum frame */
    PMC_E_LEN_NONCANONICAL = 6, /* strict: left-justified or zero-padded length */
    PMC_E_LEN_SPACES = 7,      /* spaces between digits ("1 4   ") */

    /* framing: v1 */
    PMC_E_LINE_TOO_LONG = 10,  /* no '\n' within the configured maximum line (fatal) */
    PMC_E_MCMD_TOO_LONG = 11,  /* no "endcmd\n" within the maximum message (fatal) */
    PMC_E_TRUNCATED = 12,      /* end of stream inside a message */

    /* body syntax (recoverable: the message was delimited) */
    PMC_E_NO_CMD = 20,         /* body does not start with "cmd=" (v2) / "cmd=" or "mcmd=" (v1) */
    PMC_E_CMD_EMPTY = 21,      /* "cmd=;" */
    PMC_E_CMD_CHARS = 22,      /* command name outside [-_A-Za-z0-9] */
    PMC_E_UNTERMINATED = 23,   /* v2 body does not end with ';' (and no tolerated junk) */
    PMC_E_KEY_EMPTY = 24,      /* "=value" with no key */
    PMC_E_KEY_CHARS = 25,      /* strict: key outside [-_A-Za-z0-9] */
    PMC_E_KEY_TOO_LONG = 26,
    PMC_E_VAL_TOO_LONG = 27,
    PMC_E_TOO_MANY_PAIRS = 28,
    PMC_E_BARE_KEY = 29,       /* strict: token without '=' */
    PMC_E_EMPTY_TOKEN = 30,    /* strict: empty v2 token */
    PMC_E_DUP_KEY = 31,        /* strict: the same key twice */
    PMC_E_NUL = 32,            /* strict: NUL in a value; always an error in a key */
    PMC_E_V1_CR = 33,          /* strict: CR before LF */
    PMC_E_V1_SPACES = 34,      /* strict: extra spaces in a v1 line */
    PMC_E_TRAILING_JUNK = 35,  /* strict: bytes after the final ';' */
    PMC_E_EMPTY_VALUE = 36,    /* strict: "key=" */
    PMC_E_MCMD_SYNTAX = 37,    /* an mcmd line that is not key=value */
    PMC_E_BAD_ESCAPE = 38,     /* v1 backslash escape at the end of a value */

    /* continuations */
    PMC_E_CONCAT_ID = 40,      /* continuation frame's concatid differs */
    PMC_E_CONCAT_BROKEN = 41,  /* a continuation was announced but another message came */
    PMC_E_CONCAT_UNEXPECTED = 42, /* "cmd=concat" with nothing to continue */
    PMC_E_CONCAT_TOO_LARGE = 43,  /* reassembled message above the configured total */
    PMC_E_CONCAT_DROPPED = 44,    /* a later frame of a message refused as too large: a
                                   * receiver drops it without an answer (CONCAT-10) */

    /* schema validation */
    PMC_E_UNKNOWN_CMD = 50,
    PMC_E_MISSING_KEY = 51,
    PMC_E_BAD_INT = 52,
    PMC_E_BAD_BOOL = 53,
    PMC_E_UNKNOWN_KEY = 54,    /* reported, not fatal, unless validation is strict */
    PMC_E_INDEX = 55,          /* indexed family (argv<i>, ppkey<i>) does not match its count */
    PMC_E_COUNT = 56,          /* a count key disagrees with the message (ncmds vs subcmd segments) */
    PMC_E_RANGE = 57,          /* an integer outside its allowed range */
    PMC_E_WRONG_DIRECTION = 58, /* a response where a request was expected, or the reverse */
    PMC_E_KEY_ORDER = 59,      /* strict: thrid not right after cmd= */
    PMC_E_VALUE_CHARS = 39,    /* a value that must be one word holds whitespace */

    /* encoding */
    PMC_E_ENC_KEY = 60,        /* key cannot be written in this wire form */
    PMC_E_ENC_VALUE = 61,      /* value cannot be written (';' without escaping, ' ' or '\n' in v1) */
    PMC_E_ENC_TOO_LARGE = 62,  /* does not fit a frame and cannot be split */
    PMC_E_ENC_STATE = 63,      /* builder misuse (too many pairs, no begin) */

    /* auth challenge */
    PMC_E_AUTH_FORMAT = 70,    /* digest is not 64 hex characters */
    PMC_E_AUTH_MISMATCH = 71,  /* wrong secret */
    PMC_E_AUTH_REPLAY = 72,    /* no outstanding challenge (used or never issued) */
    PMC_E_AUTH_RANDOM = 73,    /* RAND_bytes failed */

    PMC_E_NOMEM = 90,
    PMC_E_INTERNAL = 99,
} pmc_errcode;

typedef struct pmc_error {
    pmc_errcode code;
    bool fatal;          /* the byte stream cannot be resynchronised: close the connection */
    uint64_t offset;     /* stream offset of the offending byte */
    uint64_t msg_offset; /* stream offset where the rejected message began */
    pmc_wire wire;       /* what the rejected message was classified as */
    pmc_slice raw;       /* the rejected message's bytes, when it could be delimited */
    pmc_slice cmd;       /* its command name, when parsing got that far (for an error reply) */
    pmc_slice thrid;     /* its thrid, when seen (so an error reply can echo it) */
    char detail[192];    /* "expected ..., found ..." */
} pmc_error;

PMC_API const char *pmc_errcode_name(pmc_errcode c); /* "E_LEN_SIGN" */
PMC_API const char *pmc_errcode_text(pmc_errcode c); /* "sign in the length field" */
/* "offset 12: E_LEN_SIGN: sign in the length field: expected ..." ; returns needed length */
PMC_API size_t pmc_error_format(const pmc_error *e, char *buf, size_t n);
PMC_API void pmc_error_clear(pmc_error *e);
/* Fills code, offsets and a printf-style detail; used inside the codec. */
PMC_API void pmc_error_set(pmc_error *e, pmc_errcode code, uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
