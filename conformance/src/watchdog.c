/* A rank of a child launch outlives nothing: when the orchestrator that
 * started the launch is gone (killed, crashed), the rank exits by itself, so
 * no launcher that loses track of its tasks (srun after SIGKILL) leaves them
 * behind.  The orchestrator is named by host, pid and its start time (field
 * 22 of /proc/PID/stat), so a reused pid is not mistaken for it; on another
 * host (a multi-node launch) the rank cannot see it and does not watch. */
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Start time of pid in clock ticks since boot, 0 when there is no such process. */
unsigned long long pcf_proc_starttime(long pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    if (!p)
        return 0;
    /* after ") ": field 3 (state) ... field 22 (starttime) */
    for (int field = 2; field < 22 && p; field++)
        p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

void pcf_parent_spec(char *buf, size_t n)
{
    char host[256];
    if (gethostname(host, sizeof host) != 0)
        host[0] = 0;
    host[sizeof host - 1] = 0;
    long pid = (long)getpid();
    snprintf(buf, n, "%s:%ld:%llu", host, pid, pcf_proc_starttime(pid));
}

static long watched_pid;
static unsigned long long watched_start;

static void *watch(void *arg)
{
    (void)arg;
    for (;;) {
        struct timespec ts = { 0, 250 * 1000000L };
        nanosleep(&ts, NULL);
        if (pcf_proc_starttime(watched_pid) != watched_start) {
            fprintf(stderr, "pmi2-conform: the orchestrator (pid %ld) is gone: this rank exits\n",
                    watched_pid);
            _exit(PCF_EXIT_USAGE);
        }
    }
    return NULL;
}

void pcf_watch_parent(const char *spec)
{
    if (!spec || !*spec)
        return;
    const char *c2 = strrchr(spec, ':');
    if (!c2 || c2 == spec)
        return;
    const char *c1 = c2 - 1;
    while (c1 > spec && *c1 != ':')
        c1--;
    if (*c1 != ':')
        return;
    char host[256], mine[256];
    snprintf(host, sizeof host, "%.*s", (int)(c1 - spec), spec);
    if (gethostname(mine, sizeof mine) != 0 || strcmp(host, mine) != 0)
        return; /* another node: nothing to see from here */
    watched_pid = strtol(c1 + 1, NULL, 10);
    watched_start = strtoull(c2 + 1, NULL, 10);
    if (watched_pid <= 0 || !watched_start)
        return;
    if (pcf_proc_starttime(watched_pid) != watched_start)
        _exit(PCF_EXIT_USAGE); /* gone before this rank started */
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_create(&t, &a, watch, NULL);
    pthread_attr_destroy(&a);
}
