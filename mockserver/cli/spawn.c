/* Starting spawned jobs.  The server creates the child job and calls back
 * once per command, in order; the ranks of command i follow those of the
 * commands before it.  Info keys honoured: wdir (the children's working
 * directory) and path (where the executable is looked up); host and the
 * others mean nothing on one machine and are ignored (SPAWN-14). */
#include "spawn.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct spawn_state {
    launcher *L;
    pms_job *job;   /* child job being started */
    int next_rank;  /* first rank of the next command */
} S;

static const char *info(char **keys, char **vals, int n, const char *k)
{
    for (int i = 0; i < n; i++)
        if (keys[i] && strcmp(keys[i], k) == 0)
            return vals[i];
    return NULL;
}

static int on_spawn(void *ctx, pms_job *child, int cmd_index, const char *exe, char **argv,
                    int nprocs, char **ikeys, char **ivals, int ninfo)
{
    struct spawn_state *st = ctx;
    (void)exe;
    if (child != st->job || cmd_index == 0) {
        st->job = child;
        st->next_rank = 0;
    }
    int first = st->next_rank;
    st->next_rank += nprocs;
    const char *wdir = info(ikeys, ivals, ninfo, "wdir");
    const char *path = info(ikeys, ivals, ninfo, "path");
    /* the children inherit the working directory and PATH at fork: set
     * them around the start and put them back */
    int here = -1;
    if (wdir) {
        here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (here < 0 || chdir(wdir) < 0) {
            fprintf(stderr, "pmi-mockserver: spawn: cannot use wdir %s\n", wdir);
            if (here >= 0)
                close(here);
            return -1;
        }
    }
    char *oldpath = NULL;
    bool had_path = false;
    if (path) {
        const char *p = getenv("PATH");
        had_path = p != NULL;
        oldpath = p ? strdup(p) : NULL;
        setenv("PATH", path, 1);
    }
    int rc = launcher_start(st->L, child, first, nprocs, argv);
    if (path) {
        if (had_path && oldpath)
            setenv("PATH", oldpath, 1);
        else
            unsetenv("PATH");
        free(oldpath);
    }
    if (here >= 0) {
        if (fchdir(here) < 0)
            perror("pmi-mockserver: spawn: cannot return to the working directory");
        close(here);
    }
    return rc;
}

/* ABORT-7: show the message.  A world abort ends the job through the main
 * loop (pms_job_aborted); isworld=FALSE is reported only (ABORT-5): the
 * caller goes on or exits by itself. */
static void on_abort(void *ctx, pms_job *j, int rank, bool world, int code, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "pmi-mockserver: rank %d of %s called abort (%s, exit code %d)%s%s\n", rank,
            pms_job_id(j), world ? "world" : "self", code, msg && msg[0] ? ": " : "",
            msg ? msg : "");
}

int spawn_setup(launcher *L)
{
    S.L = L;
    S.job = NULL;
    S.next_rank = 0;
    pms_events ev = { .ctx = &S, .spawn = on_spawn, .abort = on_abort };
    pms_set_events(L->srv, &ev);
    return 0;
}
