/* The mock server with several clients (the several-client server kit): the
 * input is dealt to a job's ranks as they interleave (each init after the
 * first opens the next rank), so what only a whole job reaches is reached:
 * a fence or barrier that completes, a get of another rank's put, a node
 * attribute one rank waits for and another puts, a rank that leaves while
 * the others wait in a collective, a group across ranks.  The job has as
 * many ranks as the input has clients; every message is served before the
 * next is sent (the server's order is the input's), and every client
 * closes at the end, client 0 first.  Served twice, as kit_mockserver.c:
 * hydra-4.1 (lenient) and strict (the draft commands, the ring, groups);
 * KIT_PERSONA serves it by that persona only; KIT_VERBOSE=1 logs what the
 * server did. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

#include "mock_io.h"
#include "pmifuzz/harness.h"

static FILE *devnull;
static pms_server *srv;
static pms_job *job;
static int fds[PMIFUZZ_MAX_CONNS];
static int nclients;

/* the answers are the server's business, not the harness's */
static void discard_all(void *unused)
{
    (void)unused;
    for (int i = 0; i < PMIFUZZ_MAX_CONNS; i++)
        if (fds[i] >= 0)
            mock_discard(fds[i]);
}

static void handle(int conn, const char *buf, size_t len)
{
    if (conn < 0 || conn >= nclients)
        return;
    int fd = fds[conn];
    if (!buf) { /* the client closes */
        if (fd >= 0) {
            shutdown(fd, SHUT_WR);
            mock_settle(srv);
            discard_all(NULL);
            close(fd);
            fds[conn] = -1;
            mock_settle(srv);
        }
        return;
    }
    if (fd < 0) {
        fd = fds[conn] = pms_attach_rank(srv, job, conn);
        if (fd < 0)
            return;
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    }
    mock_send(srv, fd, buf, len, discard_all, NULL);
    mock_settle(srv);
    discard_all(NULL);
}

static void serve(const char *persona, const uint8_t *data, size_t size)
{
    pms_config c;
    pms_config_default(&c);
    c.persona = persona;
    /* the seeds' job name: recorded from a mock server that was process 1
     * in a PID namespace (unshare -pf; fuzz/README.md) */
    c.job_prefix = "kvs_1";
    if (getenv("KIT_VERBOSE")) { /* what the server did, to check a seed */
        c.verbose = 2;
        c.log = stderr;
    } else {
        c.log = devnull ? devnull : (devnull = fopen("/dev/null", "w"));
    }
    srv = pms_server_new(&c);
    job = srv ? pms_job_create(srv, nclients, NULL) : NULL;
    for (int i = 0; i < PMIFUZZ_MAX_CONNS; i++)
        fds[i] = -1;
    if (job)
        pmifuzz_server_feed_conns(data, size, handle, PMIFUZZ_CLOSE);
    for (int i = 0; i < PMIFUZZ_MAX_CONNS; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    pms_server_free(srv);
    srv = NULL;
    job = NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    pmifuzz_harness_init(PMIFUZZ_REQUESTS);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nclients = pmifuzz_server_clients(data, size); /* the job's size */
    const char *only = getenv("KIT_PERSONA");
    if (only) {
        serve(only, data, size);
        return 0;
    }
    serve("hydra-4.1", data, size);
    serve("strict", data, size);
    return 0;
}
