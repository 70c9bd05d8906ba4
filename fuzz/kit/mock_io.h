/* A rank's socket to the mock server, as its two kit harnesses drive it
 * (kit_mockserver.c, kit_mockserver_conns.c): the server runs in the
 * harness's own thread, so a send that fills the socket lets it read. */
#ifndef KIT_MOCK_IO_H
#define KIT_MOCK_IO_H

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pmiserver/server.h"

/* Serve until two rounds in a row find nothing to do. */
static inline void mock_settle(pms_server *s)
{
    for (int quiet = 0, i = 0; quiet < 2 && i < 10000; i++)
        quiet = pms_server_run(s, 0) > 0 ? 0 : quiet + 1;
}

/* Read and drop what the server wrote to fd (non-blocking). */
static inline void mock_discard(int fd)
{
    char buf[65536];
    while (read(fd, buf, sizeof buf) > 0)
        ;
}

/* All of buf to fd (non-blocking); while the socket is full the server
 * reads and drain(arg) drops its answers. */
static inline void mock_send(pms_server *s, int fd, const char *buf, size_t len,
                             void (*drain)(void *), void *arg)
{
    while (len) {
        ssize_t w = send(fd, buf, len, MSG_NOSIGNAL);
        if (w > 0) {
            buf += w;
            len -= (size_t)w;
        } else if (w < 0 && errno == EAGAIN) {
            mock_settle(s);
            drain(arg);
        } else {
            break;
        }
    }
}

#endif
