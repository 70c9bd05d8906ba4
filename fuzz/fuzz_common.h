/* Shared pieces of the codec fuzz harnesses: invariant checks that every
 * decoded message and every error must satisfy, decoder options chosen by a
 * fuzz byte, and an outcome log used to compare two decodings of the same
 * bytes (whole vs chunked, streaming vs pmc_decode_buffer).
 *
 * A violated invariant prints what was expected and aborts, which libFuzzer
 * and the replay driver both report as a failure with the input that did it. */
#ifndef PMC_FUZZ_COMMON_H
#define PMC_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "pmicodec/pmicodec.h"

#if defined(__GNUC__)
__attribute__((noreturn, format(printf, 3, 4)))
#endif
void fz_fail(const char *file, int line, const char *fmt, ...);

#define FZ_CHECK(cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fz_fail(__FILE__, __LINE__, "check failed: " #cond ": " __VA_ARGS__);                  \
    } while (0)

/* Notes a strict decoder must never let through (mirrors the codec's list of
 * non-canonical forms; a note outside it is informational). */
#define FZ_NOTES_NONCANONICAL                                                                     \
    (PMC_NOTE_LEN_LEFT | PMC_NOTE_LEN_ZERO | PMC_NOTE_TRAILING_JUNK | PMC_NOTE_BARE_KEY |        \
     PMC_NOTE_EMPTY_TOKEN | PMC_NOTE_DUP_KEY | PMC_NOTE_KEY_CHARS | PMC_NOTE_NUL_IN_VALUE |       \
     PMC_NOTE_V1_SPACES | PMC_NOTE_V1_CR | PMC_NOTE_MCMD_SPACES | PMC_NOTE_EMPTY_KEY | PMC_NOTE_LEN_ATOI)

/* Decoder options from one fuzz byte:
 *   bit 0 SEMI_ESCAPE, bit 1 V1_BACKSLASH, bit 2 NO_CONCAT, bit 3 strict (all notes),
 *   bits 4-5 limits: default, small, tiny, default without junk tolerance,
 *   bit 6 EMPTY_KEYS, bit 7 LEN_ATOI.
 * Small and tiny limits let short inputs reach every limit check. */
void fz_opts_from_byte(uint8_t b, pmc_decoder_opts *o);

/* A decoded message that pmc_decode_buffer / pmc_decoder_next returned from
 * buf[0..len) (stream offset `base`), having consumed `consumed` bytes. */
void fz_check_msg(const pmc_decoder_opts *o, const char *buf, size_t len, uint64_t base,
                  const pmc_msg *m, size_t consumed);
/* An error returned for buf[0..len); `consumed` as pmc_decode_buffer set it
 * (pass SIZE_MAX when the API does not report it). */
void fz_check_err(const char *buf, size_t len, uint64_t base, const pmc_error *e,
                  size_t consumed);
/* Code, fatality and detail text only (errors without a stream position). */
void fz_check_err_record(const pmc_error *e);

/* Growable byte log of outcomes. */
typedef struct fz_log {
    unsigned char *p;
    size_t len, cap;
    size_t events;
} fz_log;

void fz_log_msg(fz_log *l, const pmc_msg *m);
void fz_log_err(fz_log *l, const pmc_error *e);
void fz_log_again(fz_log *l, int finish_rc, const pmc_error *e); /* end of input */
void fz_log_free(fz_log *l);
/* Abort with the first differing event when a and b differ. */
void fz_log_expect_equal(const fz_log *a, const fz_log *b, const char *what_a,
                         const char *what_b);

/* Pairs equal (key, value) for (key, value), flags ignored. */
bool fz_pairs_equal(const pmc_pair *a, size_t na, const pmc_pair *b, size_t nb);

/* Printable dump of bytes to stderr (for failure messages). */
void fz_dump(const char *label, const void *p, size_t n);

#endif

/* ---- whole-input decoding --------------------------------------------------- */

typedef void (*fz_msg_fn)(const pmc_decoder_opts *o, const pmc_msg *m, void *ctx);

/* pmc_decode_buffer over buf until PMC_AGAIN or a fatal error, checking every
 * result; each message goes to fn (may be NULL) and to log (may be NULL).
 * Returns the bytes consumed. */
size_t fz_decode_buffer_all(pmc_decoder *d, const char *buf, size_t len, uint64_t base,
                            fz_log *log, fz_msg_fn fn, void *ctx);

/* Streaming decoder: every pmc_decoder_next result until PMC_AGAIN or a fatal
 * error, checked and logged.  Returns false once the decoder has failed (and
 * checks that it stays failed). */
bool fz_stream_drain(pmc_decoder *d, fz_log *log);
/* pmc_decoder_finish, checked against the bytes left over, and logged. */
void fz_stream_finish(pmc_decoder *d, fz_log *log);

/* The standard single-input workout: pmc_decode_buffer twice with one
 * decoder (scratch reuse must not change results) and the streaming decoder
 * fed everything at once; all three must agree.  fn sees each message of the
 * first pass. */
void fz_decode_workout(const pmc_decoder_opts *o, const char *buf, size_t len, fz_msg_fn fn,
                       void *ctx);

/* ---- encoder ----------------------------------------------------------------- */

/* The order a dialect writes pairs in: perm[k] = index of the k-th pair
 * written.  The first "thrid" and the first "rc" move to the front or the back
 * as the dialect says (both first: thrid, rc; both last: rc, thrid). */
void fz_dialect_order(const pmc_slice *keys, size_t n, const pmc_dialect *d, size_t *perm);

/* Decoder options that read what dialect d writes, with limits large enough
 * for anything the encoder produces. */
void fz_opts_for_dialect(const pmc_dialect *d, pmc_decoder_opts *o);

/* Decode bytes an encoder wrote: exactly one message spanning all of buf,
 * checked; returns it through *m (views valid until d is used again). */
void fz_decode_encoded(pmc_decoder *d, const char *buf, size_t len, pmc_msg *m);

/* Checks a failed encoding: an encoder error code and nothing appended. */
void fz_check_enc_failure(int rc, const pmc_error *err, size_t out_len_before,
                          size_t out_len_after);
