/* Harness kits for the two shapes PMI parsers come in.
 *
 * A server parser fed requests: write handle(buf, len), then
 *
 *   #include <pmifuzz/harness.h>
 *   static void handle(const char *buf, size_t len) { my_server_parse(buf, len); }
 *   PMIFUZZ_SERVER_HARNESS(handle)
 *
 * (several clients: handle(conn, buf, len) and PMIFUZZ_SERVER_HARNESS_CONNS)
 *
 * handle is called once per message of the input (as the codec frames it,
 * each in a heap buffer of exactly its length, so an over-read is caught;
 * no NUL follows it unless PMIFUZZ_CSTRING) and once for bytes that frame
 * as no message.
 *
 * A client library fed responses: write the API calls, then
 *
 *   static void api(void) { int s, r, n, a; if (PMI2_Init(&s, &n, &r, &a) == 0) PMI2_Finalize(); }
 *   PMIFUZZ_CLIENT_HARNESS(api)
 *
 * Each run puts the input on one end of a socket pair, ends it there (the
 * library reads end of file after the last response), exports the other end
 * as PMI_FD (with PMI_RANK=0, PMI_SIZE=1 unless set), and calls api().
 * PMIFUZZ_CONNECT=port serves every run through PMI_PORT (a listener on
 * 127.0.0.1; PMI_ID=0 unless set; no PMI_RANK or PMI_SIZE, as launchers
 * do in that mode) instead: the library connects from inside
 * api() and reads the input there; the default, auto, does so for an input
 * whose first message is PMI-1's initack answer (a client sends initack only
 * in that mode); fd never does.  A library that writes nothing in its first
 * 64 runs stops the process with an error (the harness tests nothing).
 *
 * Environment: PMIFUZZ_REQUESTS_OUT=FILE runs api() in a child and saves what
 * the library wrote to FILE (for pmifuzz-trace --client; when the child
 * crashes the process says the crash reproduced and exits with status 1); PMIFUZZ_LIVE=1
 * runs api() once at start-up against the PMI_FD the environment
 * already has and exits (the harness as the program of `pmi-trace replay
 * --client`; no input file is needed);
 * PMIFUZZ_LAST_INPUT=FILE saves each input to FILE before api() runs on it
 * (a run that died without a report still names its input). */
#ifndef PMIFUZZ_HARNESS_H
#define PMIFUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "pmifuzz/pmifuzz.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*pmifuzz_handle_fn)(const char *buf, size_t len);
/* A server with several clients: conn (0 .. PMIFUZZ_MAX_CONNS-1) says which
 * client sent buf; buf NULL and len 0: that client closed. */
typedef void (*pmifuzz_conn_fn)(int conn, const char *buf, size_t len);
enum { PMIFUZZ_MAX_CONNS = 8 };
typedef void (*pmifuzz_api_fn)(void);

enum pmifuzz_server_flags {
    PMIFUZZ_WHOLE = 1u << 0,  /* one call with the whole input instead of one per message */
    PMIFUZZ_CHUNKS = 1u << 1, /* the whole input in the pieces reads may return (a message
                               * whole, a byte, part of a length field, up to a message's
                               * end), one call per piece, each in a buffer of its size,
                               * then handle(NULL, 0): the peer closed */
    PMIFUZZ_CSTRING = 1u << 2, /* with any mode: a NUL after each buffer's last
                                * byte (len leaves it out), for an entry point that takes
                                * a C string; a read past the NUL is still caught */
    PMIFUZZ_LINES = 1u << 3,   /* the input cut after every LF, one call per line, as a
                                * server that reads with getline sees it (an mcmd block
                                * line by line); the rest after the last LF in one call */
    PMIFUZZ_CLOSE = 1u << 4,   /* handle(NULL, 0) after the last piece in any mode: the
                                * run is over (reset per-run state there); CHUNKS always
                                * ends so */
};

/* Feed data to handle, per message (default) or whole. */
PMIFUZZ_API void pmifuzz_server_feed(const uint8_t *data, size_t size, pmifuzz_handle_fn handle,
                                     unsigned flags);

/* The same for a server that keeps state across clients (a barrier, the
 * key-value space, a client gone while others wait): the input is dealt to
 * clients as a job's ranks interleave.  Client 0 sends first; an init line
 * (or initack) from a client that has already spoken is a new client
 * connecting (up to PMIFUZZ_MAX_CONNS; beyond, the current one goes on); a
 * request after which a rank waits or is done (barrier_in, kvs-fence, ring,
 * group construct/join/destruct, finalize) passes the turn to the next
 * client in order.  At the end every client closes: handle(conn, NULL, 0),
 * client 0 first.  flags as above: pieces are cut within each client's
 * stream; PMIFUZZ_WHOLE gives each run of one client's messages in one call. */
PMIFUZZ_API void pmifuzz_server_feed_conns(const uint8_t *data, size_t size,
                                           pmifuzz_conn_fn handle, unsigned flags);
/* How many clients pmifuzz_server_feed_conns deals data to (at least 1):
 * the size of the job a harness makes before feeding it, so that a fence
 * the input's clients all reach completes. */
PMIFUZZ_API int pmifuzz_server_clients(const uint8_t *data, size_t size);
/* From handle: the server closed client conn (a framing error, an abort).
 * The rest of its bytes in this input, and its close, are not delivered. */
PMIFUZZ_API void pmifuzz_server_gone(int conn);

/* Run api() against data as the server's responses.  Returns the bytes the
 * library wrote (its requests), for harnesses that check them; -1 when the
 * socket pair could not be made. */
PMIFUZZ_API long pmifuzz_client_run(const uint8_t *data, size_t size, pmifuzz_api_fn api);
/* Run the library in a child process each time (also PMIFUZZ_FORK=1): for
 * libraries that exit or abort on bad input or initialise once per process
 * (MPI_Init).  A fault or sanitizer report in the child is reported as a
 * crash; exit() and abort() are the library's refusal, not findings.
 * The child's coverage counters (every instrumented module's) are handed
 * back to the parent when it ends by returning, exit() or abort(). */
PMIFUZZ_API void pmifuzz_client_fork(int on);
/* With PMIFUZZ_LIVE set in the environment: run api() once against the
 * PMI_FD the process was given (pmi-trace replay --client) and exit 0 (a
 * crash ends it otherwise); without it, return.  The client macros call it
 * from LLVMFuzzerInitialize. */
PMIFUZZ_API void pmifuzz_client_live(pmifuzz_api_fn api);
/* The requests of the last pmifuzz_client_run (valid until the next one). */
PMIFUZZ_API const char *pmifuzz_client_requests(size_t *len);

/* Configure the mutator for a side (called by the macros' initializer). */
PMIFUZZ_API void pmifuzz_harness_init(pmifuzz_side side);

/* a server harness around feed (pmifuzz_server_feed or _conns) */
#define PMIFUZZ_SERVER_HARNESS_FEED_(feed, handle, flags)                                         \
    int LLVMFuzzerInitialize(int *argc, char ***argv)                                              \
    {                                                                                              \
        (void)argc;                                                                                \
        (void)argv;                                                                                \
        pmifuzz_harness_init(PMIFUZZ_REQUESTS);                                                    \
        return 0;                                                                                  \
    }                                                                                              \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                                   \
    {                                                                                              \
        feed(data, size, (handle), (flags));                                                       \
        return 0;                                                                                  \
    }

#define PMIFUZZ_SERVER_HARNESS_FLAGS(handle, flags)                                               \
    PMIFUZZ_SERVER_HARNESS_FEED_(pmifuzz_server_feed, handle, flags)

#define PMIFUZZ_SERVER_HARNESS(handle) PMIFUZZ_SERVER_HARNESS_FLAGS(handle, 0)

/* handle(conn, buf, len): several clients (pmifuzz_server_feed_conns) */
#define PMIFUZZ_SERVER_HARNESS_CONNS(handle, flags)                                               \
    PMIFUZZ_SERVER_HARNESS_FEED_(pmifuzz_server_feed_conns, handle, flags)

#define PMIFUZZ_CLIENT_HARNESS_FORK_(api, fork)                                                   \
    int LLVMFuzzerInitialize(int *argc, char ***argv)                                              \
    {                                                                                              \
        (void)argc;                                                                                \
        (void)argv;                                                                                \
        pmifuzz_harness_init(PMIFUZZ_RESPONSES);                                                   \
        pmifuzz_client_live(api);                                                                  \
        pmifuzz_client_fork(fork);                                                                 \
        return 0;                                                                                  \
    }                                                                                              \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                                   \
    {                                                                                              \
        pmifuzz_client_run(data, size, (api));                                                     \
        return 0;                                                                                  \
    }

#define PMIFUZZ_CLIENT_HARNESS(api) PMIFUZZ_CLIENT_HARNESS_FORK_(api, 0)
/* The same with the library in a child process per input (pmifuzz_client_fork):
 * for libraries that exit on bad input or initialise once per process. */
#define PMIFUZZ_CLIENT_HARNESS_FORKED(api) PMIFUZZ_CLIENT_HARNESS_FORK_(api, 1)

#ifdef __cplusplus
}
#endif
#endif
