/* The mock server's request path through the server kit: each input is one
 * rank's whole request stream to a fresh job of two ranks, served twice:
 * by the hydra-4.1 persona (lenient, what MPICH's launcher answers) and by
 * the strict one (canonical forms only, with the draft commands, the ring
 * and the groups profile), so the server's whole command set is reachable.
 * KIT_PERSONA serves it by that persona only. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

#include "mock_io.h"
#include "pmifuzz/harness.h"

static FILE *devnull;

static void drain(void *fd)
{
    mock_discard(*(int *)fd);
}

static void serve(const char *persona, const char *buf, size_t len)
{
    pms_config c;
    pms_config_default(&c);
    c.persona = persona;
    c.log = devnull ? devnull : (devnull = fopen("/dev/null", "w"));
    pms_server *s = pms_server_new(&c);
    pms_job *j = s ? pms_job_create(s, 2, NULL) : NULL;
    int fd = j ? pms_attach_rank(s, j, 0) : -1;
    if (fd >= 0) {
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        mock_send(s, fd, buf, len, drain, &fd);
        shutdown(fd, SHUT_WR);
        mock_settle(s);
        mock_discard(fd);
        close(fd);
        mock_settle(s);
    }
    pms_server_free(s);
}

static void handle(const char *buf, size_t len)
{
    if (getenv("KIT_PERSONA")) {
        serve(getenv("KIT_PERSONA"), buf, len);
        return;
    }
    serve("hydra-4.1", buf, len);
    serve("strict", buf, len);
}

PMIFUZZ_SERVER_HARNESS_FLAGS(handle, PMIFUZZ_WHOLE)
