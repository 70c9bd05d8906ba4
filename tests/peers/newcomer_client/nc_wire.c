/* newcomer_client: connection, line reader, frame reader, naive key lookup. */
#include "nc_wire.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

int nc_debug(void)
{
    static int dbg = -1;
    if (dbg < 0) {
        const char *e = getenv("PMI_DEBUG");
        dbg = e && atoi(e) > 0;
    }
    return dbg;
}

static int connect_port(const char *hp)
{
    char host[256];
    const char *colon = strrchr(hp, ':'); /* ENV-3: split at the last colon */
    if (!colon || colon == hp || colon[1] == 0 || colon - hp >= (int)sizeof host)
        return -1;
    memcpy(host, hp, colon - hp);
    host[colon - hp] = 0;
    if (host[0] == '[') { /* [::1]:port */
        size_t n = strlen(host);
        if (host[n - 1] != ']')
            return -1;
        memmove(host, host + 1, n - 2);
        host[n - 2] = 0;
    }
    for (const char *p = colon + 1; *p; p++)
        if (*p < '0' || *p > '9')
            return -1;

    struct addrinfo hints, *res, *ai;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0)
        return -1;
    int fd = -1;
    for (ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd < 0)
            continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

int nc_connect(int *is_port)
{
    const char *s = getenv("PMI_FD");
    *is_port = 0;
    if (s) /* ENV-2: PMI_FD wins */
        return atoi(s);
    s = getenv("PMI_PORT");
    if (s) {
        const char *st = getenv("PMI_SOCKTYPE");
        if (st && strcasecmp(st, "POSIX") != 0)
            return -1; /* ENV-11: no TLS here */
        *is_port = 1;
        return connect_port(s);
    }
    return -1;
}

int nc_write_all(int fd, const char *buf, int len)
{
    if (nc_debug())
        fprintf(stderr, "[nc] send %.*s\n", len, buf);
    while (len > 0) {
        /* MSG_NOSIGNAL: a server that closed the connection must not kill
         * the process with SIGPIPE (ERR-20); PMI_FD may also be a pipe */
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK)
            n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += n;
        len -= n;
    }
    return 0;
}

/* one byte at a time: simple, and never eats the next message */
int nc_read_line(int fd, char *buf, int size)
{
    int n = 0;
    for (;;) {
        char c;
        ssize_t r = read(fd, &c, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        if (c == '\n')
            break;
        if (n < size - 1)
            buf[n++] = c;
    }
    if (n > 0 && buf[n - 1] == '\r')
        n--;
    buf[n] = 0;
    if (nc_debug())
        fprintf(stderr, "[nc] recv %s\n", buf);
    return n;
}

static int read_n(int fd, char *buf, int n)
{
    int got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        got += r;
    }
    return 0;
}

int nc_write_frame(int fd, const char *body)
{
    static char buf[NC_FRAME_MAX + 8];
    int len = strlen(body);
    if (len > NC_FRAME_MAX - 6)
        return -1;
    snprintf(buf, sizeof buf, "%6d%s", len, body);
    return nc_write_all(fd, buf, len + 6);
}

int nc_read_frame(int fd, char *body, int size)
{
    char lenf[7];
    if (read_n(fd, lenf, 6) < 0)
        return -1;
    lenf[6] = 0;
    int len = atoi(lenf);
    if (len < 6 || len >= size)
        return -1;
    if (read_n(fd, body, len) < 0)
        return -1;
    body[len] = 0;
    if (nc_debug())
        fprintf(stderr, "[nc] recv %s%s\n", lenf, body);
    return len;
}

int nc_v1_get(const char *line, const char *key, char *out, int outsize)
{
    char pat[80];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *p = strstr(line, pat);
    if (!p)
        return 0;
    p += strlen(pat);
    int n = strcspn(p, " ");
    if (n >= outsize)
        n = outsize - 1;
    memcpy(out, p, n);
    out[n] = 0;
    return 1;
}

int nc_v2_get(const char *body, const char *key, char *out, int outsize)
{
    char pat[80];
    const char *p;
    if (strcmp(key, "cmd") == 0) {
        if (strncmp(body, "cmd=", 4) != 0)
            return 0;
        p = body + 4;
    } else {
        snprintf(pat, sizeof pat, ";%s=", key);
        p = strstr(body, pat);
        if (!p)
            return 0;
        p += strlen(pat);
    }
    int n = strcspn(p, ";");
    if (n >= outsize)
        n = outsize - 1;
    memcpy(out, p, n);
    out[n] = 0;
    return 1;
}
