/* PMI_SOCKTYPE=OpenSSL: the PMI bytes inside TLS on a PMI_PORT TCP
 * connection (SPEC.md ENV-11).  After the handshake the socket is
 * non-blocking so that one thread can wait in a read while another writes:
 * every SSL call happens under io->ssl_mu and waiting happens outside it. */
#include "internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void ssl_reason(char *err, size_t errlen, const char *what)
{
    unsigned long e = ERR_get_error();
    char buf[256] = "unknown error";
    if (e)
        ERR_error_string_n(e, buf, sizeof buf);
    snprintf(err, errlen, "TLS %s: %s", what, buf);
    ERR_clear_error();
}

static bool is_ip(const char *host)
{
    unsigned char b[16];
    return inet_pton(AF_INET, host, b) == 1 || inet_pton(AF_INET6, host, b) == 1;
}

/* OpenSSL writes with write(2): a peer that went away must not kill the
 * process with SIGPIPE.  Block it in this thread and discard one that the
 * write raised. */
typedef struct sigpipe_guard {
    sigset_t old;
    bool pending_before;
} sigpipe_guard;

static void sigpipe_block(sigpipe_guard *g)
{
    sigset_t set, pend;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    sigpending(&pend);
    g->pending_before = sigismember(&pend, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, &g->old);
}

static void sigpipe_restore(sigpipe_guard *g)
{
    sigset_t set, pend;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    sigpending(&pend);
    if (!g->pending_before && sigismember(&pend, SIGPIPE)) {
        struct timespec zero = { 0, 0 };
        while (sigtimedwait(&set, NULL, &zero) < 0 && errno == EINTR)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

int pmic_tls_start(pmic_io *io, const char *host, const char *ca, char *err, size_t errlen)
{
    ERR_clear_error();
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) {
        ssl_reason(err, errlen, "context");
        return -1;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    int ok = ca ? SSL_CTX_load_verify_locations(ctx, ca, NULL)
                : SSL_CTX_set_default_verify_paths(ctx);
    if (!ok) {
        ssl_reason(err, errlen, ca ? "PMI_TLS_CA" : "default CA store");
        SSL_CTX_free(ctx);
        return -1;
    }
    /* The server must prove who it is: the secret of the auth challenge and
     * every key-value pair travel inside this session. */
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_mode(ctx, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL *ssl = SSL_new(ctx);
    if (!ssl || !SSL_set_fd(ssl, io->fd)) {
        ssl_reason(err, errlen, "session");
        SSL_free(ssl);
        SSL_CTX_free(ctx);
        return -1;
    }
    if (is_ip(host)) {
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host);
    } else {
        SSL_set_tlsext_host_name(ssl, host);
        SSL_set1_host(ssl, host);
    }
    sigpipe_guard g;
    sigpipe_block(&g);
    int r = SSL_connect(ssl);
    sigpipe_restore(&g);
    if (r != 1) {
        long v = SSL_get_verify_result(ssl);
        if (v != X509_V_OK)
            snprintf(err, errlen, "TLS handshake with %s: certificate: %s", host,
                     X509_verify_cert_error_string(v));
        else
            ssl_reason(err, errlen, "handshake");
        ERR_clear_error();
        SSL_free(ssl);
        SSL_CTX_free(ctx);
        return -1;
    }
    int fl = fcntl(io->fd, F_GETFL);
    if (fl >= 0)
        fcntl(io->fd, F_SETFL, fl | O_NONBLOCK);
    io->ssl = ssl;
    io->ssl_ctx = ctx;
    return 0;
}

static int wait_fd(int fd, short ev)
{
    struct pollfd p = { .fd = fd, .events = ev };
    int r;
    while ((r = poll(&p, 1, -1)) < 0 && errno == EINTR)
        ;
    return r < 0 ? -1 : 0;
}

ssize_t pmic_tls_read(pmic_io *io, void *buf, size_t n)
{
    for (;;) {
        size_t got = 0;
        pthread_mutex_lock(&io->ssl_mu);
        ERR_clear_error();
        sigpipe_guard g;
        sigpipe_block(&g); /* a read may write (key update) */
        int ok = SSL_read_ex(io->ssl, buf, n, &got);
        int e = ok ? SSL_ERROR_NONE : SSL_get_error(io->ssl, 0);
        sigpipe_restore(&g);
        ERR_clear_error();
        pthread_mutex_unlock(&io->ssl_mu);
        if (ok)
            return (ssize_t)got;
        if (e == SSL_ERROR_WANT_READ) {
            if (wait_fd(io->fd, POLLIN) < 0)
                return -1;
        } else if (e == SSL_ERROR_WANT_WRITE) {
            if (wait_fd(io->fd, POLLOUT) < 0)
                return -1;
        } else if (e == SSL_ERROR_ZERO_RETURN) {
            return 0;
        } else {
            return -1;
        }
    }
}

bool pmic_tls_pending(pmic_io *io)
{
    pthread_mutex_lock(&io->ssl_mu);
    bool p = SSL_pending(io->ssl) > 0;
    pthread_mutex_unlock(&io->ssl_mu);
    return p;
}

int pmic_tls_write_all(pmic_io *io, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        size_t put = 0;
        pthread_mutex_lock(&io->ssl_mu);
        ERR_clear_error();
        sigpipe_guard g;
        sigpipe_block(&g);
        int ok = SSL_write_ex(io->ssl, p, n, &put);
        int e = ok ? SSL_ERROR_NONE : SSL_get_error(io->ssl, 0);
        sigpipe_restore(&g);
        ERR_clear_error();
        pthread_mutex_unlock(&io->ssl_mu);
        if (ok) {
            p += put;
            n -= put;
        } else if (e == SSL_ERROR_WANT_WRITE) {
            if (wait_fd(io->fd, POLLOUT) < 0)
                return -1;
        } else if (e == SSL_ERROR_WANT_READ) {
            if (wait_fd(io->fd, POLLIN) < 0)
                return -1;
        } else {
            return -1;
        }
    }
    return 0;
}

void pmic_tls_close(pmic_io *io)
{
    pthread_mutex_lock(&io->ssl_mu);
    sigpipe_guard g;
    sigpipe_block(&g);
    SSL_shutdown(io->ssl); /* best effort close_notify; non-blocking */
    sigpipe_restore(&g);
    ERR_clear_error();
    SSL_free(io->ssl);
    SSL_CTX_free(io->ssl_ctx);
    io->ssl = NULL;
    io->ssl_ctx = NULL;
    pthread_mutex_unlock(&io->ssl_mu);
}
