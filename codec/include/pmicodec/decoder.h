/* Streaming decoder: feed bytes split anywhere, pull complete messages.
 *
 *   pmc_decoder *d = pmc_decoder_new(NULL);
 *   pmc_decoder_feed(d, buf, n);              // or pmc_decoder_space()+commit() to read() in place
 *   while ((rc = pmc_decoder_next(d, &m, &err)) == PMC_MSG) handle(&m);
 *   if (rc == PMC_ERR && err.fatal) close_connection();
 *
 * Classification is per message, as real servers do it: bytes that start
 * with "cmd=" or "mcmd=" are a v1 line, anything else is a v2 frame.
 * Views in pmc_msg / pmc_error stay valid until the next call on the decoder.
 * No allocation happens per message once the buffers have grown to the
 * largest message seen. */
#ifndef PMICODEC_DECODER_H
#define PMICODEC_DECODER_H

#include "pmicodec/error.h"
#include "pmicodec/message.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { PMC_ERR = -1, PMC_AGAIN = 0, PMC_MSG = 1 };

typedef struct pmc_limits {
    uint32_t max_key;     /* bytes in a key (64) */
    uint32_t max_val;     /* bytes in a value after unescaping (1024) */
    uint32_t max_pairs;   /* pairs in one message (4096) */
    uint32_t max_frame;   /* v2 body bytes (65536; the field can express 999999) */
    uint32_t max_line;    /* v1 line bytes including '\n' (65536) */
    uint32_t max_message; /* whole message: continued v2 frames, an mcmd block (1 MiB) */
    uint32_t max_junk;    /* tolerated bytes after the last ';' of a frame (6, MPICH 4.0.2) */
} pmc_limits;

enum pmc_decoder_flags {
    PMC_DEC_SEMI_ESCAPE = 1u << 0,  /* decode ";;" as ';' inside v2 values (the wire draft) */
    PMC_DEC_V1_BACKSLASH = 1u << 1, /* decode "\ " and "\\" in v1 values (MPICH >= 4.1) */
    PMC_DEC_NO_CONCAT = 1u << 2,    /* deliver concat frames as they are, no reassembly */
    PMC_DEC_EMPTY_KEYS = 1u << 3,   /* skip a v2 "=value" pair (noted PMC_NOTE_EMPTY_KEY) instead
                                     * of rejecting the message, as Hydra 4.0.2's strtok parser
                                     * does; without it: PMC_E_KEY_EMPTY */
    PMC_DEC_LEN_ATOI = 1u << 4,     /* read a length field that the strict rules reject as C's
                                     * atoi() reads it ("   +14", "14ab  "; noted
                                     * PMC_NOTE_LEN_ATOI), as every MPICH and Slurm parser
                                     * does; a result below 6 or a '-' is still an error */
};

typedef struct pmc_decoder_opts {
    pmc_limits limits;
    uint32_t flags;  /* pmc_decoder_flags */
    uint32_t strict; /* pmc_note bits that are rejected instead of noted */
} pmc_decoder_opts;

/* Strict mask covering every non-canonical form (SPEC.md): left-justified or
 * zero-padded lengths, trailing junk, bare keys, empty tokens, duplicate
 * keys, keys outside [-_A-Za-z0-9], NUL in values, extra spaces and CR in
 * v1 lines, empty keys (when PMC_DEC_EMPTY_KEYS lets them through), atoi-read lengths
 * (PMC_DEC_LEN_ATOI).  Empty values and escapes are legal and not in it; a caller may
 * still set PMC_NOTE_EMPTY_VALUE (or any note) explicitly to reject it, as
 * Hydra 4.1+ does. */
#define PMC_STRICT_ALL                                                                           \
    (PMC_NOTE_LEN_LEFT | PMC_NOTE_LEN_ZERO | PMC_NOTE_TRAILING_JUNK | PMC_NOTE_BARE_KEY |        \
     PMC_NOTE_EMPTY_TOKEN | PMC_NOTE_DUP_KEY | PMC_NOTE_KEY_CHARS | PMC_NOTE_NUL_IN_VALUE |       \
     PMC_NOTE_V1_SPACES | PMC_NOTE_V1_CR | PMC_NOTE_MCMD_SPACES | PMC_NOTE_EMPTY_KEY | PMC_NOTE_LEN_ATOI)

PMC_API void pmc_limits_default(pmc_limits *l);
PMC_API void pmc_decoder_opts_default(pmc_decoder_opts *o); /* default limits, SEMI_ESCAPE, lenient */

typedef struct pmc_decoder pmc_decoder;

PMC_API pmc_decoder *pmc_decoder_new(const pmc_decoder_opts *o); /* NULL: defaults */
PMC_API void pmc_decoder_free(pmc_decoder *d);
PMC_API void pmc_decoder_reset(pmc_decoder *d); /* forget buffered bytes and state */
PMC_API const pmc_decoder_opts *pmc_decoder_get_opts(const pmc_decoder *d);

/* Copy bytes in.  Returns 0, or -1 when memory is exhausted. */
PMC_API int pmc_decoder_feed(pmc_decoder *d, const void *buf, size_t len);
/* Zero-copy input: get at least `want` writable bytes at the end of the
 * buffer (NULL on ENOMEM), read() into them, then commit what arrived. */
PMC_API void *pmc_decoder_space(pmc_decoder *d, size_t want, size_t *avail);
PMC_API void pmc_decoder_commit(pmc_decoder *d, size_t n);

/* PMC_MSG: *m holds a message.  PMC_AGAIN: feed more.  PMC_ERR: *err says
 * why; if err->fatal the decoder stays failed (every later call repeats the
 * error), otherwise the rejected message was skipped and decoding goes on. */
PMC_API int pmc_decoder_next(pmc_decoder *d, pmc_msg *m, pmc_error *err);
/* Call at end of stream: PMC_AGAIN (0) when nothing is left over, PMC_ERR
 * with PMC_E_TRUNCATED when a message was cut off. */
PMC_API int pmc_decoder_finish(pmc_decoder *d, pmc_error *err);

PMC_API size_t pmc_decoder_pending(const pmc_decoder *d); /* buffered, undelivered bytes */
PMC_API uint64_t pmc_decoder_offset(const pmc_decoder *d); /* stream offset of the next message */

/* Parse one message at the start of the caller's own buffer, without
 * copying it (picohttpparser style); uses d only for options and scratch.
 * Returns PMC_MSG with *consumed set, PMC_AGAIN if buf holds only part of a
 * message, PMC_ERR (with *consumed set to the bytes to skip when the error
 * is not fatal).  `base_offset` is added to every reported offset. */
PMC_API int pmc_decode_buffer(pmc_decoder *d, const char *buf, size_t len, uint64_t base_offset,
                              pmc_msg *m, pmc_error *err, size_t *consumed);

#ifdef __cplusplus
}
#endif
#endif
