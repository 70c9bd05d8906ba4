/* The listener lives as long as the process; each run starts a thread that
 * takes the library's connection, writes the input and ends its side, as
 * the socket pair path does.  The library connects from inside api(), on
 * the harness's thread (or in the forked child), so the serving side has
 * to be another thread. */
#define _GNU_SOURCE /* accept4, MSG_DONTWAIT */
#include "port_feed.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "model.h"

pf_connect pf_connect_mode(void)
{
    const char *v = getenv("PMIFUZZ_CONNECT");
    if (!v || !*v || !strcmp(v, "auto"))
        return PF_CONNECT_AUTO;
    if (!strcmp(v, "fd"))
        return PF_CONNECT_FD;
    if (!strcmp(v, "port"))
        return PF_CONNECT_PORT;
    fprintf(stderr, "pmifuzz: PMIFUZZ_CONNECT=%s: expected auto, fd or port\n", v);
    exit(2);
}

int pf_starts_with_initack(const uint8_t *data, size_t size)
{
    pmc_decoder_opts o;
    pf_decoder_opts(&o);
    pmc_decoder *d = pmc_decoder_new(&o);
    if (!d)
        return 0;
    pmc_msg m;
    pmc_error err;
    size_t used = 0;
    int yes = pmc_decode_buffer(d, (const char *)data, size, 0, &m, &err, &used) == PMC_MSG &&
              m.wire == PMC_WIRE_V1 && pmc_slice_eq(m.name, "initack");
    pmc_decoder_free(d);
    return yes;
}

static int lfd = -1;          /* the listener, non-blocking */
static int stop_pipe[2] = { -1, -1 };
static char address[32];

const char *pf_port_address(void)
{
    if (lfd >= 0)
        return address;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t alen = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return NULL;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 16) ||
        getsockname(fd, (struct sockaddr *)&a, &alen) || pipe2(stop_pipe, O_CLOEXEC)) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    snprintf(address, sizeof address, "127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
    lfd = fd;
    return address;
}

enum { MAX_EXTRA = 16 };

static struct {
    pthread_t th;
    const uint8_t *data;
    size_t size;
    int conn; /* set by the thread */
    int extra[MAX_EXTRA]; /* later connections, ended, closed with the run */
    int nextra;
    int running;
} feed = { .conn = -1 };

/* Closed with a reset, not a FIN: one connection per run would otherwise
 * leave thousands of ports in TIME_WAIT a minute. */
static void drop(int fd)
{
    struct linger l = { 1, 0 };
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    close(fd);
}

/* Until the run ends: the first connection gets the input, any later one
 * (a library that reconnects after the input ran out) is ended at once, so
 * it reads end of file rather than wait in the backlog for the timeout. */
static void *serve(void *arg)
{
    (void)arg;
    struct pollfd p[2] = { { lfd, POLLIN, 0 }, { stop_pipe[0], POLLIN, 0 } };
    for (;;) {
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return NULL;
        }
        int c = p[0].revents ? accept4(lfd, NULL, NULL, SOCK_CLOEXEC) : -1;
        if (c < 0 && p[1].revents)
            return NULL; /* the run is over */
        if (c < 0)
            continue;
        if (feed.conn >= 0) {
            /* ended (end of file to the library), closed when the run is:
             * closing now, with its request unread, would reset it */
            shutdown(c, SHUT_WR);
            if (feed.nextra < MAX_EXTRA)
                feed.extra[feed.nextra++] = c;
            else
                drop(c);
            continue;
        }
        /* the whole input fits the send buffer for libFuzzer's sizes; the
         * rest is dropped, as on the socket pair */
        int big = (int)(feed.size + 65536);
        setsockopt(c, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
        size_t off = 0;
        while (off < feed.size) {
            ssize_t n = send(c, feed.data + off, feed.size - off, MSG_DONTWAIT | MSG_NOSIGNAL);
            if (n <= 0)
                break;
            off += (size_t)n;
        }
        shutdown(c, SHUT_WR);
        feed.conn = c;
    }
}

int pf_port_begin(const uint8_t *data, size_t size)
{
    if (!pf_port_address())
        return -1;
    feed.data = data;
    feed.size = size;
    feed.conn = -1;
    feed.nextra = 0;
    if (pthread_create(&feed.th, NULL, serve, NULL))
        return -1;
    feed.running = 1;
    return 0;
}

int pf_port_end(void)
{
    if (!feed.running)
        return -1;
    char b = 0;
    while (write(stop_pipe[1], &b, 1) < 0 && errno == EINTR)
        ;
    pthread_join(feed.th, NULL);
    feed.running = 0;
    while (read(stop_pipe[0], &b, 1) < 0 && errno == EINTR)
        ;
    while (feed.nextra > 0)
        drop(feed.extra[--feed.nextra]);
    /* connections that came as the run ended */
    int extra;
    while ((extra = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0)
        drop(extra);
    return feed.conn;
}

void pf_port_close(int fd)
{
    if (fd >= 0)
        drop(fd);
}
