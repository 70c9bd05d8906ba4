/* Test-side PMI client over a socket or a TLS session, built on the codec
 * (messages are encoded and decoded by pmicodec, never by hand).  When
 * `srv` is set the server runs in this process and is pumped while the
 * client waits. */
#ifndef TEST_SECURITY_WIRE_H
#define TEST_SECURITY_WIRE_H

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/ssl.h>

#include "pmicodec/pmicodec.h"
#include "pmiserver/server.h"

typedef struct tw {
    int fd;
    SSL *ssl;           /* NULL: plain socket */
    pms_server *srv;    /* in-process server to pump, or NULL */
    pmc_decoder *dec;
    bool eof;
} tw;

static int tw_failures;
#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                 \
            fputc('\n', stderr);                                                          \
            tw_failures++;                                                                \
        }                                                                                 \
    } while (0)

static long long tw_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void tw_init(tw *t, int fd, SSL *ssl, pms_server *srv)
{
    memset(t, 0, sizeof *t);
    t->fd = fd;
    t->ssl = ssl;
    t->srv = srv;
    t->dec = pmc_decoder_new(NULL);
}

static void tw_free(tw *t)
{
    if (t->ssl) {
        SSL_shutdown(t->ssl);
        SSL_free(t->ssl);
    }
    if (t->fd >= 0)
        close(t->fd);
    pmc_decoder_free(t->dec);
    t->fd = -1;
    t->ssl = NULL;
}

/* Raw bytes (fault injection); pumps the server while the socket is full. */
static int tw_write(tw *t, const void *p, size_t n)
{
    const char *b = p;
    while (n) {
        ssize_t w = t->ssl ? SSL_write(t->ssl, b, (int)n) : write(t->fd, b, n);
        if (w > 0) {
            b += w;
            n -= (size_t)w;
            continue;
        }
        if (!t->ssl && w < 0 && (errno == EAGAIN || errno == EINTR) && t->srv) {
            pms_server_run(t->srv, 10);
            continue;
        }
        return -1;
    }
    return 0;
}

/* tw_send(t, PMC_WIRE_V2, "kvs-put", "key", "a", "value", "1", NULL) */
static int tw_send(tw *t, pmc_wire wire, const char *cmd, ...)
{
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_error err;
    pmc_enc_begin(&e, wire, cmd);
    va_list ap;
    va_start(ap, cmd);
    const char *k;
    while ((k = va_arg(ap, const char *)) != NULL)
        pmc_enc_str(&e, k, va_arg(ap, const char *));
    va_end(ap);
    if (pmc_enc_end(&e, NULL, &o, &err) < 0)
        return -1;
    int rc = tw_write(t, o.buf, o.len);
    pmc_out_free(&o);
    return rc;
}

/* Next message: 1, 0 on EOF, -1 on timeout or error. */
static int tw_recv(tw *t, pmc_msg *m, int timeout_ms)
{
    long long end = tw_now_ms() + timeout_ms;
    pmc_error err;
    for (;;) {
        int rc = pmc_decoder_next(t->dec, m, &err);
        if (rc == PMC_MSG)
            return 1;
        if (rc == PMC_ERR)
            return -1;
        if (t->eof)
            return 0;
        if (tw_now_ms() >= end)
            return -1;
        if (t->srv)
            pms_server_run(t->srv, 5);
        if (!t->ssl || !SSL_pending(t->ssl)) {
            struct pollfd pf = { .fd = t->fd, .events = POLLIN };
            if (poll(&pf, 1, t->srv ? 0 : 50) <= 0)
                continue;
        }
        size_t avail;
        void *p = pmc_decoder_space(t->dec, 65536, &avail);
        ssize_t n = t->ssl ? SSL_read(t->ssl, p, (int)avail) : read(t->fd, p, avail);
        if (n > 0)
            pmc_decoder_commit(t->dec, (size_t)n);
        else if (n == 0 || (!t->ssl && errno != EAGAIN && errno != EINTR))
            t->eof = true;
        else if (t->ssl) {
            int e = SSL_get_error(t->ssl, (int)n);
            if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
                t->eof = true;
        }
    }
}

/* Value of key in m as a C string (static buffer), "" when absent. */
static const char *tw_val(const pmc_msg *m, const char *key)
{
    static char b[4][256];
    static int i;
    pmc_slice s;
    char *o = b[i++ & 3];
    if (!pmc_msg_get(m, key, &s))
        return "";
    snprintf(o, 256, "%.*s", (int)s.len, s.ptr);
    return o;
}

static bool tw_is(const pmc_msg *m, const char *name)
{
    return pmc_slice_eq(m->name, name);
}

#endif
