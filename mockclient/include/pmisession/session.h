/* pmisession: one client-side PMI wire session, as a test harness needs it.
 *
 *   pws_session *s;
 *   char err[256];
 *   if (pws_open_env(&s, "r0", err, sizeof err) != 0) fail(err);   // PMI_FD, else PMI_PORT
 *   pmc_enc e;
 *   pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
 *   pws_send_enc(s, &e, NULL, deadline);                             // strict dialect
 *   pmc_msg m; pmc_error de;
 *   switch (pws_recv(s, deadline, &m, &de)) { case PWS_MSG: ... }
 *   pws_close(s);
 *
 * Every byte sent and received is kept in the session's transcript with a
 * timestamp (microseconds since the process-wide epoch), so a conformance
 * report can show exactly what happened.  Wire text is never formatted by
 * hand: messages go through the codec's encoder, replies through its decoder;
 * raw byte sends exist for framing and robustness cases.  Several sessions
 * may exist in one process (PMI_PORT mode lets a rank open extra
 * connections).  Nothing here blocks past the caller's deadline. */
#ifndef PMISESSION_SESSION_H
#define PMISESSION_SESSION_H

#include "pmicodec/pmicodec.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What pws_recv (and the send calls, negated into PWS_IOERR) report. */
typedef enum pws_result {
    PWS_MSG = 1,     /* a decoded message */
    PWS_BAD = 2,     /* the decoder rejected the bytes (err filled; err->fatal: stream lost) */
    PWS_EOF = 3,     /* the peer closed its end (err holds E_TRUNCATED if bytes were left over) */
    PWS_TIMEOUT = 4, /* nothing complete arrived before the deadline */
    PWS_IOERR = 5,   /* read/write failed (reset, EBADF, ...); pws_errno says why */
    PWS_CLOSED = 6,  /* the session was closed by this side */
} pws_result;

typedef enum pws_ev_kind {
    PWS_EV_SENT = 1, /* one write(): bytes this side wrote */
    PWS_EV_RECV,     /* one read(): bytes that arrived */
    PWS_EV_EOF,      /* the peer closed */
    PWS_EV_CLOSE,    /* this side closed */
    PWS_EV_TIMEOUT,  /* a receive deadline passed */
    PWS_EV_NOTE,     /* free text (what the harness was doing) */
} pws_ev_kind;

typedef struct pws_event {
    pws_ev_kind kind;
    uint64_t usec; /* since pws_epoch_usec() */
    char *data;    /* bytes (SENT/RECV) or text (NOTE); NUL-terminated copy; NULL otherwise */
    size_t len;
} pws_event;

typedef struct pws_session pws_session;

/* Monotonic microseconds; the first call fixes the epoch of every transcript. */
uint64_t pws_now_usec(void);
uint64_t pws_epoch_usec(void);
/* Deadline helpers: absolute monotonic microseconds. */
uint64_t pws_deadline_ms(unsigned ms);

/* Open the connection the launcher gave this process: PMI_FD when set,
 * else PMI_PORT ("host:port", or a path for a UNIX socket).  Returns 0, or -1
 * with a message in err. */
int pws_open_env(pws_session **out, const char *label, char *err, size_t errlen);
/* Adopt an already connected descriptor (the session owns it from now on). */
int pws_open_fd(pws_session **out, int fd, const char *label, char *err, size_t errlen);
/* Connect to "host:port" (split at the last colon; "[v6]:port" works) or to a
 * UNIX socket path ("/path" or "unix:/path"), waiting at most timeout_ms. */
int pws_connect(pws_session **out, const char *addr, const char *label, unsigned timeout_ms,
                char *err, size_t errlen);
/* Close (records a CLOSE event) and free. NULL is fine. */
void pws_close(pws_session *s);
/* Shut down the writing half only: the peer sees end of stream. */
int pws_shutdown_write(pws_session *s);

const char *pws_label(const pws_session *s);
int pws_fd(const pws_session *s);
int pws_errno(const pws_session *s); /* errno of the last PWS_IOERR */
bool pws_eof(const pws_session *s);  /* end of stream seen */

/* Decoder options for what arrives (default: pmc_decoder_opts_default). */
int pws_set_decoder_opts(pws_session *s, const pmc_decoder_opts *o);

/* Write a built message in dialect d (NULL: strict).  Consumes the builder.
 * Returns PWS_MSG-free results: 0 on success, PWS_IOERR, PWS_TIMEOUT, or
 * PWS_BAD when the encoder refused the message (err filled when not NULL). */
int pws_send_enc(pws_session *s, pmc_enc *e, const pmc_dialect *d, uint64_t deadline,
                 pmc_error *err);
/* Write exact bytes in one write() (as far as the kernel allows). */
int pws_send_raw(pws_session *s, const void *buf, size_t len, uint64_t deadline);
/* Write bytes as several writes: cut at the given increasing offsets, with
 * delay_ms between pieces (framing cases: a message split anywhere). */
int pws_send_split(pws_session *s, const void *buf, size_t len, const size_t *cuts, size_t ncuts,
                   unsigned delay_ms, uint64_t deadline);

/* Next message, waiting until `deadline` (absolute, pws_now_usec clock).
 * Views in *m / *err stay valid until the next call on this session. */
pws_result pws_recv(pws_session *s, uint64_t deadline, pmc_msg *m, pmc_error *err);
/* The received bytes around decoder offset `offset` (pmc_error.offset):
 * up to `before` bytes before it and `after` from it on, of the last
 * PWS_TAIL received, copied to out (at most outn); returns how many, and
 * the decoder offset of out[0] in *first.  For showing a decode error. */
enum { PWS_TAIL = 4096 };
size_t pws_received_at(const pws_session *s, uint64_t offset, size_t before, size_t after,
                       char *out, size_t outn, uint64_t *first);
/* Wait for end of stream only (discarding nothing: bytes that arrive are
 * recorded).  PWS_EOF, PWS_TIMEOUT, PWS_MSG when a message arrived first
 * (it stays queued for pws_recv). */
pws_result pws_wait_eof(pws_session *s, uint64_t deadline);

/* Transcript. */
void pws_note(pws_session *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
size_t pws_transcript_len(const pws_session *s);
const pws_event *pws_transcript(const pws_session *s, size_t *n);
/* Hand the events recorded so far to the caller (free with pws_events_free)
 * and start an empty transcript. */
pws_event *pws_transcript_take(pws_session *s, size_t *n);
void pws_events_free(pws_event *ev, size_t n);
/* Called after each event is recorded, and before each write() with the
 * bytes about to go out (before = true; not yet in the transcript), NULL:
 * none.  A harness whose process the server may kill for what it writes
 * saves the transcript before the write. */
typedef void (*pws_observer_fn)(pws_session *s, const pws_event *ev, bool before, void *arg);
void pws_set_observer(pws_session *s, pws_observer_fn fn, void *arg);
/* Keep recording (default on); off drops events as they happen. */
void pws_set_recording(pws_session *s, bool on);

/* Human-readable name of a result ("timeout"). */
const char *pws_result_name(int r);

#ifdef __cplusplus
}
#endif
#endif
