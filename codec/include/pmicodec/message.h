/* A decoded PMI message: an ordered list of (key, value) views. */
#ifndef PMICODEC_MESSAGE_H
#define PMICODEC_MESSAGE_H

#include "pmicodec/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pmc_msg {
    pmc_wire wire;
    int cmd;              /* pmc_cmd from schema.h; PMC_CMD_UNKNOWN when not in the table */
    pmc_slice name;       /* command name: "kvs-get", "get_maxes", "spawn" (for mcmd=spawn) */
    const pmc_pair *pairs;/* arguments in wire order, without the cmd=/mcmd= token and
                           * without continuation markers (concat / concatid) */
    size_t npairs;
    pmc_slice raw;        /* exact bytes on the wire: length field, body, junk; every frame of a
                           * continued message; a v1 line with its '\n' */
    uint64_t offset;      /* stream offset of raw.ptr[0] */
    uint32_t nframes;     /* 1, or the number of concat frames reassembled */
    uint32_t notes;       /* pmc_note bits */
    pmc_slice thrid;      /* value of the first "thrid" pair; ptr == NULL when absent */
} pmc_msg;

/* First pair with this key (the first one wins, as every real server does), or NULL. */
PMC_API const pmc_pair *pmc_msg_find(const pmc_msg *m, const char *key);
PMC_API const pmc_pair *pmc_msg_findn(const pmc_msg *m, const char *key, size_t keylen);
/* true and *out set when present */
PMC_API bool pmc_msg_get(const pmc_msg *m, const char *key, pmc_slice *out);

/* Typed reads.  Return 1 when found and well-formed, 0 when absent,
 * -1 when present but malformed. */
PMC_API int pmc_msg_get_int(const pmc_msg *m, const char *key, long long *out);
/* Booleans: TRUE/FALSE; lower case accepted and reported through *lower (may be NULL). */
PMC_API int pmc_msg_get_bool(const pmc_msg *m, const char *key, bool *out, bool *lower);

PMC_API int pmc_parse_int(pmc_slice s, long long *out);           /* 0 ok, -1 bad */
PMC_API int pmc_parse_bool(pmc_slice s, bool *out, bool *lower);  /* 0 ok, -1 bad */

/* The pairs of a PMI-2 message as a parser that takes every byte up to '='
 * as the key reads them (MPICH 4.1+/5.x, Slurm): each bare pair (PMC_PAIR_BARE)
 * joins the pair after it, "flag;key=x" becoming the key "flag;key" with the
 * value x; a bare last pair stays.  out holds m->npairs pairs; returns how
 * many it wrote.  Pairs that do not lie in m->raw (reassembled from
 * continuation frames) are left as they are. */
PMC_API size_t pmc_msg_join_bare_keys(const pmc_msg *m, pmc_pair *out);

/* Copy a slice into a NUL-terminated buffer (truncating); returns s.len. */
PMC_API size_t pmc_slice_copy(pmc_slice s, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
