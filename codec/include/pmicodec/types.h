/* Basic value types shared by every part of the PMI codec. */
#ifndef PMICODEC_TYPES_H
#define PMICODEC_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PMC_API __attribute__((visibility("default")))
#else
#define PMC_API
#endif

/* A view of bytes owned by someone else (the decoder's buffer, the caller's
 * input, a string literal).  Never NUL-terminated by contract. */
typedef struct pmc_slice {
    const char *ptr;
    size_t len;
} pmc_slice;

#define PMC_SLICE_LIT(s) ((pmc_slice){ (s), sizeof(s) - 1 })

static inline pmc_slice pmc_slice_cstr(const char *s)
{
    pmc_slice r = { s, s ? strlen(s) : 0 };
    return r;
}

static inline bool pmc_slice_eq(pmc_slice a, const char *s)
{
    size_t n = strlen(s);
    return a.len == n && (n == 0 || memcmp(a.ptr, s, n) == 0);
}

static inline bool pmc_slice_eqs(pmc_slice a, pmc_slice b)
{
    return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

/* How a message is carried on the wire. */
typedef enum pmc_wire {
    PMC_WIRE_NONE = 0,
    PMC_WIRE_V1 = 1,      /* "cmd=name key=value ...\n" */
    PMC_WIRE_V1_MCMD = 2, /* "mcmd=spawn\nkey=value\n...endcmd\n" */
    PMC_WIRE_V2 = 3,      /* 6-byte length + "cmd=name;key=value;...;" */
} pmc_wire;

PMC_API const char *pmc_wire_name(pmc_wire w); /* "v1", "v1-mcmd", "v2" */

/* One key=value argument of a decoded message. */
enum pmc_pair_flags {
    PMC_PAIR_BARE = 1u << 0,      /* token had no '=' at all; val is empty */
    PMC_PAIR_UNESCAPED = 1u << 1, /* value had escapes; val points into the decoder's arena */
};

typedef struct pmc_pair {
    pmc_slice key;
    pmc_slice val;
    uint32_t flags;
} pmc_pair;

/* Non-canonical forms that the decoder accepted.  They are facts about the
 * input, reported so that a conformance grader or `pmi-trace decode` can name
 * them; a decoder configured as strict turns selected notes into errors. */
enum pmc_note {
    PMC_NOTE_LEN_LEFT = 1u << 0,       /* length field left-justified ("26    "): Slurm, MPICH 4.0.2 client */
    PMC_NOTE_LEN_ZERO = 1u << 1,       /* length field zero-padded ("000026") */
    PMC_NOTE_TRAILING_JUNK = 1u << 2,  /* bytes after the last ';' inside a frame (MPICH 4.0.2 client bug) */
    PMC_NOTE_ESCAPED_SEMI = 1u << 3,   /* a ";;" was decoded to ';' in a v2 value */
    PMC_NOTE_EMPTY_VALUE = 1u << 4,    /* "key=" with nothing after the '=' */
    PMC_NOTE_BARE_KEY = 1u << 5,       /* a token without '=' ("flag;" or "flag ") */
    PMC_NOTE_EMPTY_TOKEN = 1u << 6,    /* an empty v2 token (";;" outside a value, escaping off) */
    PMC_NOTE_DUP_KEY = 1u << 7,        /* the same key twice; the first one wins */
    PMC_NOTE_KEY_CHARS = 1u << 8,      /* a key outside [-_A-Za-z0-9] */
    PMC_NOTE_NUL_IN_VALUE = 1u << 9,   /* a NUL byte inside a value */
    PMC_NOTE_V1_SPACES = 1u << 10,     /* v1: runs of spaces, or leading/trailing spaces */
    PMC_NOTE_V1_CR = 1u << 11,         /* v1: CR before the LF */
    PMC_NOTE_V1_BACKSLASH = 1u << 12,  /* v1: a backslash escape was decoded */
    PMC_NOTE_CONTINUED = 1u << 13,     /* v2: reassembled from concat continuation frames */
    PMC_NOTE_MCMD_SPACES = 1u << 14,   /* mcmd: spaces around '=' or at line ends */
    PMC_NOTE_EMPTY_KEY = 1u << 15,     /* v2: "=value" pair with no key, dropped (PMC_DEC_EMPTY_KEYS) */
    PMC_NOTE_LEN_ATOI = 1u << 16,      /* length field read by atoi: a '+' or bytes after the digits (PMC_DEC_LEN_ATOI) */
};
#define PMC_NOTE_COUNT 17

PMC_API const char *pmc_note_name(uint32_t single_note); /* "len-left", ... */
/* Writes "len-left,trailing-junk" style text; returns the length it needed. */
PMC_API size_t pmc_notes_format(uint32_t notes, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
