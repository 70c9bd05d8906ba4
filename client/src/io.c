/* The connection to the server: PMI_FD, or PMI_PORT as host:port (TCP) or
 * an absolute path (UNIX socket), optionally inside TLS (SPEC.md 2.1). */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int connect_unix(const char *path, char *err, size_t errlen)
{
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sa.sun_path) {
        snprintf(err, errlen, "PMI_PORT path too long: %s", path);
        return -1;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return -1;
    }
    while (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        if (errno == EINTR)
            continue;
        snprintf(err, errlen, "connect %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* ENV-3: host, a colon, a decimal port, split at the last colon; "[v6]"
 * brackets are removed.  No default host or port is guessed. */
static int split_host_port(const char *spec, char *host, size_t hn, char *port, size_t pn)
{
    const char *colon = strrchr(spec, ':');
    if (!colon || colon == spec || !colon[1])
        return -1;
    const char *p = colon + 1;
    long v = 0;
    for (const char *q = p; *q; q++) {
        if (*q < '0' || *q > '9' || q - p > 5)
            return -1;
        v = v * 10 + (*q - '0');
    }
    if (v < 1 || v > 65535)
        return -1;
    const char *h = spec;
    size_t hl = (size_t)(colon - spec);
    if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') {
        h++;
        hl -= 2;
    }
    if (hl == 0 || hl >= hn || strlen(p) >= pn)
        return -1;
    memcpy(host, h, hl);
    host[hl] = 0;
    memcpy(port, p, strlen(p) + 1);
    return 0;
}

static int connect_tcp(const char *host, const char *port, char *err, size_t errlen)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int g = getaddrinfo(host, port, &hints, &res);
    if (g != 0) {
        snprintf(err, errlen, "PMI_PORT %s:%s: %s", host, port, gai_strerror(g));
        return -1;
    }
    int fd = -1, last = 0;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd < 0) {
            last = errno;
            continue;
        }
        int r;
        while ((r = connect(fd, ai->ai_addr, ai->ai_addrlen)) < 0 && errno == EINTR)
            ;
        if (r == 0)
            break;
        last = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(err, errlen, "connect %s:%s: %s", host, port, strerror(last));
        return -1;
    }
    int one = 1;
    /* Requests are small and each waits for its answer. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

int pmic_io_open(pmic_io *io, const pmic_env *env, char *err, size_t errlen)
{
    memset(io, 0, sizeof *io);
    io->fd = -1;
    pthread_mutex_init(&io->ssl_mu, NULL);
    if (env->fd >= 0) {
        if (fcntl(env->fd, F_GETFD) < 0) {
            snprintf(err, errlen, "PMI_FD=%d is not an open descriptor", env->fd);
            return -1;
        }
        io->fd = env->fd;
        /* Programs this process starts must not hold the PMI connection open. */
        fcntl(io->fd, F_SETFD, FD_CLOEXEC);
        io->owns_fd = true;
        return 0;
    }
    if (!env->port) {
        snprintf(err, errlen, "neither PMI_FD nor PMI_PORT is set");
        return -1;
    }
    if (env->port[0] == '/') {
        if (env->tls) {
            /* ENV-11: never fall back to a plain connection. */
            snprintf(err, errlen, "PMI_SOCKTYPE=OpenSSL needs a host:port PMI_PORT, not a path");
            return -1;
        }
        io->fd = connect_unix(env->port, err, errlen);
    } else {
        char host[256], port[8];
        if (split_host_port(env->port, host, sizeof host, port, sizeof port) < 0) {
            snprintf(err, errlen, "PMI_PORT=\"%s\": expected host:port or an absolute path",
                     env->port);
            return -1;
        }
        io->fd = connect_tcp(host, port, err, errlen);
        if (io->fd >= 0 && env->tls) {
            if (pmic_tls_start(io, host, env->tls_ca, err, errlen) < 0) {
                close(io->fd);
                io->fd = -1;
                return -1;
            }
        }
    }
    if (io->fd < 0)
        return -1;
    fcntl(io->fd, F_SETFD, FD_CLOEXEC);
    io->owns_fd = true;
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

ssize_t pmic_io_read(pmic_io *io, void *buf, size_t n)
{
    if (io->ssl)
        return pmic_tls_read(io, buf, n);
    for (;;) {
        ssize_t r = read(io->fd, buf, n);
        if (r >= 0)
            return r;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (wait_fd(io->fd, POLLIN) < 0)
                return -1;
            continue;
        }
        return -1;
    }
}

int pmic_io_write_all(pmic_io *io, const void *buf, size_t n)
{
    if (io->ssl)
        return pmic_tls_write_all(io, buf, n);
    const char *p = buf;
    bool sock = true;
    while (n) {
        /* MSG_NOSIGNAL: a server that went away is an error, not SIGPIPE. */
        ssize_t r = sock ? send(io->fd, p, n, MSG_NOSIGNAL) : write(io->fd, p, n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == ENOTSOCK && sock) {
                sock = false;
                continue;
            }
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                if (wait_fd(io->fd, POLLOUT) < 0)
                    return -1;
                continue;
            }
            return -1;
        }
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

int pmic_io_wait(pmic_io *io, int timeout_ms)
{
    /* TLS: a record already decrypted is not visible to poll(). */
    if (io->ssl && pmic_tls_pending(io))
        return 1;
    struct pollfd p = { .fd = io->fd, .events = POLLIN };
    int r;
    while ((r = poll(&p, 1, timeout_ms)) < 0 && errno == EINTR)
        ;
    return r < 0 ? -1 : r > 0;
}

void pmic_io_close(pmic_io *io)
{
    if (io->ssl)
        pmic_tls_close(io);
    if (io->fd >= 0 && io->owns_fd)
        close(io->fd);
    io->fd = -1;
    pthread_mutex_destroy(&io->ssl_mu);
}
