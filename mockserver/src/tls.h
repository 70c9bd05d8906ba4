/* TLS for the mock server's TCP listeners (PMI_SOCKTYPE=OpenSSL): one
 * server context, one non-blocking session per connection.  The session is
 * driven entirely from the epoll loop: every call returns at once and says
 * which readiness (read or write) it is waiting for. */
#ifndef PMISERVER_TLS_H
#define PMISERVER_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct pms_tls_ctx pms_tls_ctx;
typedef struct pms_tls pms_tls;

/* Result of pms_tls_read / pms_tls_write besides a byte count (> 0). */
enum {
    PMS_TLS_EOF = 0,    /* the peer closed the session (read only) */
    PMS_TLS_AGAIN = -1, /* would block: see pms_tls_wants_* for which event */
    PMS_TLS_FAIL = -2,  /* handshake or record error: the reason is in err */
};

/* TLS 1.2 or later, certificate and key loaded and checked against each
 * other.  With verify_client, clients must present a certificate signed by
 * `ca` (required then).  NULL with a reason in err on failure. */
pms_tls_ctx *pms_tls_ctx_new(const char *cert, const char *key, const char *ca,
                             bool verify_client, char *err, size_t errlen);
void pms_tls_ctx_free(pms_tls_ctx *x);

/* A server-side session on a connected non-blocking socket; the handshake
 * happens inside the first reads and writes. */
pms_tls *pms_tls_new(pms_tls_ctx *x, int fd);
/* Sends close_notify if it can without blocking, then frees. */
void pms_tls_free(pms_tls *t);

ssize_t pms_tls_read(pms_tls *t, void *buf, size_t n, char *err, size_t errlen);
ssize_t pms_tls_write(pms_tls *t, const void *buf, size_t n, char *err, size_t errlen);

/* Decrypted bytes buffered inside the session: epoll will not report them. */
bool pms_tls_pending(const pms_tls *t);
/* The last read / write stopped for the opposite readiness (handshake,
 * key update): the loop must watch for it even when it would not otherwise. */
bool pms_tls_read_wants_write(const pms_tls *t);
bool pms_tls_write_wants_read(const pms_tls *t);
bool pms_tls_handshake_done(const pms_tls *t);
/* "TLSv1.3 TLS_AES_256_GCM_SHA384" once the handshake is done. */
const char *pms_tls_describe(const pms_tls *t, char *buf, size_t n);

#endif
