/* Non-blocking OpenSSL sessions for the TCP listeners. */
#include "tls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

struct pms_tls_ctx {
    SSL_CTX *ctx;
};

struct pms_tls {
    SSL *ssl;
    bool read_wants_write;
    bool write_wants_read;
};

/* The most specific OpenSSL reason queued, or `fallback`. */
static void ssl_reason(char *err, size_t n, const char *what, const char *fallback)
{
    unsigned long e = ERR_peek_last_error();
    char b[200];
    if (e)
        ERR_error_string_n(e, b, sizeof b);
    else
        snprintf(b, sizeof b, "%s", fallback);
    snprintf(err, n, "%s: %s", what, b);
    ERR_clear_error();
}

pms_tls_ctx *pms_tls_ctx_new(const char *cert, const char *key, const char *ca,
                             bool verify_client, char *err, size_t errlen)
{
    if (!cert || !key) {
        snprintf(err, errlen, "TLS needs both a certificate and a key");
        return NULL;
    }
    if (verify_client && !ca) {
        snprintf(err, errlen, "client verification needs a CA file");
        return NULL;
    }
    ERR_clear_error();
    pms_tls_ctx *x = calloc(1, sizeof *x);
    if (!x) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    x->ctx = SSL_CTX_new(TLS_server_method());
    if (!x->ctx) {
        ssl_reason(err, errlen, "SSL_CTX_new", "failed");
        goto fail;
    }
    SSL_CTX_set_min_proto_version(x->ctx, TLS1_2_VERSION);
    /* Replies are appended to a growing buffer between retries of a write,
     * and a peer that vanishes without close_notify is an ordinary EOF. */
    SSL_CTX_set_mode(x->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_options(x->ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
    if (SSL_CTX_use_certificate_chain_file(x->ctx, cert) != 1) {
        ssl_reason(err, errlen, cert, "cannot load the certificate");
        goto fail;
    }
    if (SSL_CTX_use_PrivateKey_file(x->ctx, key, SSL_FILETYPE_PEM) != 1) {
        ssl_reason(err, errlen, key, "cannot load the private key");
        goto fail;
    }
    if (SSL_CTX_check_private_key(x->ctx) != 1) {
        ssl_reason(err, errlen, key, "the key does not match the certificate");
        goto fail;
    }
    if (ca) {
        if (SSL_CTX_load_verify_locations(x->ctx, ca, NULL) != 1) {
            ssl_reason(err, errlen, ca, "cannot load the CA certificates");
            goto fail;
        }
        if (verify_client) {
            STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(ca);
            if (names)
                SSL_CTX_set_client_CA_list(x->ctx, names);
            SSL_CTX_set_verify(x->ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
        }
    }
    return x;
fail:
    pms_tls_ctx_free(x);
    return NULL;
}

void pms_tls_ctx_free(pms_tls_ctx *x)
{
    if (!x)
        return;
    SSL_CTX_free(x->ctx);
    free(x);
}

pms_tls *pms_tls_new(pms_tls_ctx *x, int fd)
{
    pms_tls *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->ssl = SSL_new(x->ctx);
    if (!t->ssl || SSL_set_fd(t->ssl, fd) != 1) {
        SSL_free(t->ssl);
        free(t);
        ERR_clear_error();
        return NULL;
    }
    SSL_set_accept_state(t->ssl);
    return t;
}

void pms_tls_free(pms_tls *t)
{
    if (!t)
        return;
    if (SSL_is_init_finished(t->ssl))
        SSL_shutdown(t->ssl); /* one non-blocking attempt; the socket closes next */
    SSL_free(t->ssl);
    ERR_clear_error();
    free(t);
}

/* Map an SSL_get_error result; sets the want flags of the operation. */
static ssize_t outcome(pms_tls *t, int rc, bool *wants_other, int want_other_code,
                       char *err, size_t errlen, const char *what)
{
    int e = SSL_get_error(t->ssl, rc);
    *wants_other = false;
    switch (e) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
        *wants_other = e == want_other_code;
        return PMS_TLS_AGAIN;
    case SSL_ERROR_ZERO_RETURN:
        return PMS_TLS_EOF;
    case SSL_ERROR_SYSCALL:
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            return PMS_TLS_AGAIN;
        if (errno == 0 && !ERR_peek_error())
            return PMS_TLS_EOF;
        snprintf(err, errlen, "%s: %s", what, errno ? strerror(errno) : "I/O error");
        ERR_clear_error();
        return PMS_TLS_FAIL;
    default:
        ssl_reason(err, errlen, SSL_is_init_finished(t->ssl) ? what : "TLS handshake failed",
                   "protocol error");
        return PMS_TLS_FAIL;
    }
}

ssize_t pms_tls_read(pms_tls *t, void *buf, size_t n, char *err, size_t errlen)
{
    size_t got = 0;
    ERR_clear_error();
    errno = 0;
    int rc = SSL_read_ex(t->ssl, buf, n, &got);
    if (rc == 1) {
        t->read_wants_write = false;
        return (ssize_t)got;
    }
    return outcome(t, rc, &t->read_wants_write, SSL_ERROR_WANT_WRITE, err, errlen, "TLS read");
}

ssize_t pms_tls_write(pms_tls *t, const void *buf, size_t n, char *err, size_t errlen)
{
    size_t put = 0;
    ERR_clear_error();
    errno = 0;
    int rc = SSL_write_ex(t->ssl, buf, n, &put);
    if (rc == 1) {
        t->write_wants_read = false;
        return (ssize_t)put;
    }
    ssize_t r = outcome(t, rc, &t->write_wants_read, SSL_ERROR_WANT_READ, err, errlen,
                        "TLS write");
    if (r == PMS_TLS_EOF) {
        snprintf(err, errlen, "TLS write: the peer closed the session");
        return PMS_TLS_FAIL;
    }
    return r;
}

bool pms_tls_pending(const pms_tls *t)
{
    return SSL_pending(t->ssl) > 0;
}

bool pms_tls_read_wants_write(const pms_tls *t)
{
    return t->read_wants_write;
}

bool pms_tls_write_wants_read(const pms_tls *t)
{
    return t->write_wants_read;
}

bool pms_tls_handshake_done(const pms_tls *t)
{
    return SSL_is_init_finished(t->ssl);
}

const char *pms_tls_describe(const pms_tls *t, char *buf, size_t n)
{
    snprintf(buf, n, "%s %s", SSL_get_version(t->ssl), SSL_get_cipher_name(t->ssl));
    return buf;
}
