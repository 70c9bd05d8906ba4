/* fuzz_srv.c - libFuzzer harness for pmi2srv with libpmifuzz's several-client
 * server kit: clients 0..7, bytes in the pieces a read() may return
 * (PMIFUZZ_CHUNKS), every client closes at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmifuzz/harness.h>

#include "pmi2srv.h"

#ifndef FUZZ_NRANKS
#define FUZZ_NRANKS 2          /* the seeds are 2-rank jobs */
#endif
#ifndef FUZZ_JOBID
#define FUZZ_JOBID "pmi2srv-job"
#endif

static pmi2srv *srv;
/* per kit connection: 0 never spoke, 1 open, 2 closed by us (framing error),
 * 3 the kit closed it */
static int state[PMIFUZZ_MAX_CONNS];
static char sink[1 << 16];

static void send_cb(void *ctx, int client, const char *bytes, size_t len)
{
    (void)ctx;
    (void)client;
#ifdef FUZZ_TRACE
    fprintf(stderr, "  S>C[%d] %.*s\n", client, (int)(len > 150 ? 150 : len), bytes);
#endif
    /* touch every byte the engine hands out, so ASan checks the range */
    memcpy(sink, bytes, len < sizeof sink ? len : sizeof sink);
}

static void abort_cb(void *ctx, int client, int isworld, int exitcode, const char *msg)
{
    (void)ctx; (void)client; (void)isworld; (void)exitcode;
    (void)strlen(msg);
}

static void job_over_if_done(void)
{
    for (int i = 0; i < PMIFUZZ_MAX_CONNS; i++)
        if (state[i] == 1 || state[i] == 2)
            return;                  /* someone the kit has not closed yet */
    pmi2srv_free(srv);
    srv = NULL;
    memset(state, 0, sizeof state);
}

static void handle(int conn, const char *buf, size_t len)
{
#ifdef FUZZ_TRACE
    fprintf(stderr, "handle(conn=%d, %s%zu)%s%.*s\n", conn, buf ? "len=" : "NULL, ", len,
            buf ? " " : "", buf ? (int)(len > 60 ? 60 : len) : 0, buf ? buf : "");
#endif
    if (!buf) {                      /* the kit closed client conn */
        if (state[conn] == 1)
            pmi2srv_close(srv, conn);
        if (state[conn] != 0)
            state[conn] = 3;
        if (srv)
            job_over_if_done();
        return;
    }
    if (!srv) {
        struct pmi2srv_callbacks cb = { .send = send_cb, .abort = abort_cb };
        srv = pmi2srv_new(FUZZ_NRANKS, &cb);
        pmi2srv_set_jobid(srv, FUZZ_JOBID);
    }
    if (state[conn] == 2 || state[conn] == 3)
        return;                      /* the launcher closed this connection */
    state[conn] = 1;
    if (pmi2srv_input(srv, conn, buf, len) < 0) {
        pmi2srv_close(srv, conn);    /* framing error: the launcher closes it */
        state[conn] = 2;
    }
}

PMIFUZZ_SERVER_HARNESS_CONNS(handle, PMIFUZZ_CHUNKS)
