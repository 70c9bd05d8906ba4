/* Opening rank connections: a TCP "host:port" or a UNIX socket path, and
 * the descriptor a launcher hands its processes (PMI_FD). */
#include "bench.h"
#include "connect.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int set_options(int fd, bool tcp)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
        return -1;
    (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    if (tcp) {
        /* one small request in flight: Nagle would add 40 ms per reply */
        int one = 1;
        (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return 0;
}

int bench_connect(const char *addr, char *err, size_t errlen)
{
    if (strncmp(addr, "unix:", 5) == 0 || addr[0] == '/') {
        const char *path = addr[0] == '/' ? addr : addr + 5;
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        if (strlen(path) >= sizeof sa.sun_path) {
            snprintf(err, errlen, "socket path too long: %s", path);
            return -1;
        }
        strcpy(sa.sun_path, path);
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || set_options(fd, false)) {
            snprintf(err, errlen, "connect %s: %s", path, strerror(errno));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        return fd;
    }
    const char *colon = strrchr(addr, ':');
    if (!colon || colon == addr || !colon[1]) {
        snprintf(err, errlen, "address must be host:port or a socket path: %s", addr);
        return -1;
    }
    char host[256];
    size_t hl = (size_t)(colon - addr);
    if (addr[0] == '[' && hl >= 2 && addr[hl - 1] == ']') { /* [v6]:port */
        addr++;
        hl -= 2;
    }
    if (hl >= sizeof host) {
        snprintf(err, errlen, "host name too long");
        return -1;
    }
    memcpy(host, addr, hl);
    host[hl] = 0;
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai;
    int g = getaddrinfo(host, colon + 1, &hints, &ai);
    if (g) {
        snprintf(err, errlen, "%s: %s", host, gai_strerror(g));
        return -1;
    }
    int fd = -1, e = 0;
    for (struct addrinfo *p = ai; p; p = p->ai_next) {
        fd = socket(p->ai_family, p->ai_socktype, p->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        /* blocking connect: on loopback it returns once the server's
         * kernel queued us, before the server even accepts */
        if (connect(fd, p->ai_addr, p->ai_addrlen) == 0 && set_options(fd, true) == 0)
            break;
        e = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(ai);
    if (fd < 0)
        snprintf(err, errlen, "connect %s: %s", addr, strerror(e));
    return fd;
}

int bench_fd_from_env(char *err, size_t errlen)
{
    const char *s = getenv("PMI_FD");
    if (s && *s) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno || *end || v < 0 || v > 1 << 20 || fcntl((int)v, F_GETFD) < 0) {
            snprintf(err, errlen, "PMI_FD=%s is not an open descriptor", s);
            return -1;
        }
        if (set_options((int)v, false) < 0) {
            snprintf(err, errlen, "PMI_FD=%s: %s", s, strerror(errno));
            return -1;
        }
        return (int)v;
    }
    s = getenv("PMI_PORT");
    if (s && *s)
        return bench_connect(s, err, errlen);
    snprintf(err, errlen, "neither PMI_FD nor PMI_PORT is set (run under a launcher)");
    return -1;
}

void bench_raise_fd_limit(size_t need)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < need) {
        rl.rlim_cur = need < rl.rlim_max ? need : rl.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &rl);
    }
}
