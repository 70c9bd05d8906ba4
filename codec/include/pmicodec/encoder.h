/* Encoder: build a message pair by pair, then write it in a chosen dialect.
 *
 *   pmc_enc e;
 *   pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get-response");
 *   pmc_enc_bool(&e, "found", true);
 *   pmc_enc_str(&e, "value", v);
 *   pmc_enc_int(&e, "rc", 0);
 *   pmc_enc_end(&e, pmc_dialect_get("hydra-4.0"), &out, &err);
 *
 * Dialects let the mock peers imitate real implementations byte for byte
 * (length padding, ';;' escaping, TRUE/true, where rc and thrid go). */
#ifndef PMICODEC_ENCODER_H
#define PMICODEC_ENCODER_H

#include "pmicodec/error.h"
#include "pmicodec/message.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pmc_len_pad {
    PMC_PAD_RIGHT = 0, /* "%6u": "    26" (the draft, Hydra) */
    PMC_PAD_LEFT = 1,  /* "%-6d": "26    " (Slurm) */
    PMC_PAD_ZERO = 2,  /* "%06u": "000026" */
} pmc_len_pad;

typedef enum pmc_key_pos {
    PMC_POS_KEEP = 0,  /* where the caller added it */
    PMC_POS_FIRST = 1, /* right after cmd= */
    PMC_POS_LAST = 2,  /* at the end */
} pmc_key_pos;

typedef struct pmc_dialect {
    const char *name;
    pmc_len_pad len_pad;
    bool escape_semi;      /* double ';' in v2 values (draft, MPICH 4.0.2 client, Slurm libpmi2) */
    bool v1_backslash;     /* escape ' ' and '\' in v1 values */
    bool bool_lower;       /* "true"/"false" (the draft) instead of "TRUE"/"FALSE" (everyone) */
    pmc_key_pos rc_pos;    /* where "rc" goes in responses */
    pmc_key_pos thrid_pos; /* where "thrid" goes */
    uint32_t junk;         /* MPICH 4.0.2 client bug B1: length claims body+junk, left-justified,
                            * followed by `junk` bytes of garbage (0 = off) */
    uint32_t max_frame;    /* split into concat continuation frames above this body size;
                            * 0 = the field's limit, 999999 */
} pmc_dialect;

/* Known dialects: "strict" (SPEC.md canonical), "draft" (wiki: lower-case
 * booleans, ;; escaping), "hydra-4.0", "hydra-4.1", "slurm", "mpich-4.0-client",
 * "mpich-4.1-client", "slurm-client".  NULL when unknown. */
PMC_API const pmc_dialect *pmc_dialect_get(const char *name);
PMC_API const pmc_dialect *const *pmc_dialect_list(size_t *n);
extern PMC_API const pmc_dialect pmc_dialect_strict;

/* Growable output buffer, reused across messages: no allocation in steady state. */
typedef struct pmc_out {
    char *buf;
    size_t len;
    size_t cap;
} pmc_out;

PMC_API int pmc_out_reserve(pmc_out *o, size_t extra); /* 0, or -1 on ENOMEM */
PMC_API int pmc_out_append(pmc_out *o, const void *p, size_t n);
PMC_API void pmc_out_reset(pmc_out *o); /* len = 0, keeps the memory */
PMC_API void pmc_out_free(pmc_out *o);

enum { PMC_ENC_INLINE = 24 };
/* Longest key or command name the encoder writes (SPEC KEY-1). */
enum { PMC_ENC_MAX_NAME = 64 };

typedef struct pmc_field {
    pmc_slice key;
    pmc_slice val;
    uint8_t is_bool; /* val is "TRUE"/"FALSE"; written per dialect */
} pmc_field;

typedef struct pmc_enc {
    pmc_wire wire;
    pmc_slice cmd;
    pmc_field *fields; /* heap array beyond PMC_ENC_INLINE fields; NULL while `inl` is used */
    size_t n, cap;
    pmc_field inl[PMC_ENC_INLINE];
    char nums[PMC_ENC_INLINE][24]; /* text of integers added with pmc_enc_int */
    size_t nnums;
    char **heapnums; /* integers beyond the inline space */
    size_t nheapnums;
    bool failed;     /* out of memory while adding */
} pmc_enc;

/* `cmd` and every key/value must stay valid until pmc_enc_end. */
PMC_API void pmc_enc_begin(pmc_enc *e, pmc_wire wire, const char *cmd);
PMC_API void pmc_enc_beginn(pmc_enc *e, pmc_wire wire, pmc_slice cmd);
PMC_API void pmc_enc_str(pmc_enc *e, const char *key, const char *val);
PMC_API void pmc_enc_slice(pmc_enc *e, pmc_slice key, pmc_slice val);
PMC_API void pmc_enc_int(pmc_enc *e, const char *key, long long v);
PMC_API void pmc_enc_bool(pmc_enc *e, const char *key, bool v);
/* Append the wire bytes to `out` (NULL dialect: strict).  Returns 0, or -1
 * with *err filled (PMC_E_ENC_*, PMC_E_NOMEM) and `out` unchanged.  Releases
 * what the builder allocated.  The encoder writes only canonical forms:
 *   - command names and keys are [-_A-Za-z0-9]{1,64}; otherwise PMC_E_ENC_VALUE
 *     (command) or PMC_E_ENC_KEY (key); in v2, "concat"/"concatid" keys and
 *     the command "concat" are reserved for the continuations it writes;
 *   - v2 values: ';' is doubled when the dialect escapes, else PMC_E_ENC_VALUE;
 *   - v1 values: no ' ' (unless v1_backslash: "\ " and "\\"), '\n', '\r';
 *   - mcmd: only "spawn"; values may hold spaces but no '\n' or '\r';
 *   - NUL in any value: PMC_E_ENC_VALUE (peers cut values there);
 *   - empty values are written as "key=".
 * A v2 body above the dialect's max_frame is split at pair boundaries into
 * concat continuation frames (ids from a process-wide counter starting at 1);
 * a pair that fits no frame is PMC_E_ENC_TOO_LARGE. */
PMC_API int pmc_enc_end(pmc_enc *e, const pmc_dialect *d, pmc_out *out, pmc_error *err);
/* Discard a builder without writing. */
PMC_API void pmc_enc_abandon(pmc_enc *e);

/* Re-encode a decoded message (round trips, trace rewriting).  Values are
 * written as text: booleans keep their spelling, and a bare key
 * (PMC_PAIR_BARE) is written in canonical form, "key=". */
PMC_API int pmc_encode_msg(const pmc_msg *m, const pmc_dialect *d, pmc_out *out, pmc_error *err);

#ifdef __cplusplus
}
#endif
#endif
