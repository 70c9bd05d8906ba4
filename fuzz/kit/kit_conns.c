/* The several-client server kit (PMIFUZZ_SERVER_HARNESS_CONNS) on a stand-in
 * PMI-1 server with a bug only several clients reach: a client that leaves
 * while it waits at the barrier is freed but stays on the waiting list, and
 * the barrier, completed by the clients left, answers it (a heap
 * use-after-free, as a server that frees a connection without leaving its
 * collective has).  One client cannot reach it: alone, its leaving ends the
 * job.  fuzz.kit.conns must find it from a one-rank seed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmifuzz/harness.h"

typedef struct client {
    int inited, answered;
    char last[64];
} client;

static client *clients[PMIFUZZ_MAX_CONNS];
static client *waiting[PMIFUZZ_MAX_CONNS];
static int nwaiting, live;

static void answer(client *c, const char *line)
{
    snprintf(c->last, sizeof c->last, "%s", line);
    c->answered++;
}

/* every live client has entered: barrier_out to each waiter */
static void barrier_check(void)
{
    if (!nwaiting || nwaiting < live)
        return;
    for (int i = 0; i < nwaiting; i++)
        answer(waiting[i], "cmd=barrier_out\n");
    nwaiting = 0;
}

static void request(int conn, const char *line)
{
    client *c = clients[conn];
    if (!strncmp(line, "cmd=init ", 9)) {
        if (!c) {
            c = clients[conn] = calloc(1, sizeof *c);
            live++;
        }
        c->inited = 1;
        answer(c, "cmd=response_to_init rc=0\n");
    } else if (!c || !c->inited) {
        return;
    } else if (!strncmp(line, "cmd=barrier_in", 14)) {
        if (nwaiting < PMIFUZZ_MAX_CONNS)
            waiting[nwaiting++] = c;
        barrier_check();
    } else {
        answer(c, "cmd=ok rc=0\n");
    }
}

static void gone(int conn)
{
    client *c = clients[conn];
    if (!c)
        return;
    clients[conn] = NULL;
    free(c); /* the bug: c may still be in waiting[] */
    live--;
    barrier_check();
}

static void handle(int conn, const char *buf, size_t len)
{
    if (!buf) {
        gone(conn);
        if (!live) /* the job is over: a new one for the next input */
            nwaiting = 0;
        return;
    }
    request(conn, buf);
    (void)len;
}

PMIFUZZ_SERVER_HARNESS_CONNS(handle, PMIFUZZ_LINES | PMIFUZZ_CSTRING)
