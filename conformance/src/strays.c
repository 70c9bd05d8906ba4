/* Processes a launch leaves behind outside its process group.
 *
 * A launcher may start helpers in sessions of their own: Hydra's mpiexec
 * starts every hydra_pmi_proxy with setsid, and when mpiexec ends badly (a
 * spawn it cannot serve, a kill at a deadline) the proxies of the job and of
 * the jobs it spawned live on, orphaned, out of reach of the launch's
 * process group.  The orchestrator makes itself their subreaper, so orphans
 * of its launches become its children instead of init's, and marks each
 * launch's environment with a tag every descendant inherits; after a launch
 * ends, its tagged children are killed and reaped (their own children come
 * back to us in turn), and at the end of the run every tagged one left is.
 * What --recover starts (a cluster's daemons, meant to outlive the run) has
 * no tag and is left alone. */
#define _GNU_SOURCE
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TAG_VAR "PMI2_CONFORM_LAUNCH"

void pcf_strays_adopt(void)
{
    prctl(PR_SET_CHILD_SUBREAPER, 1L, 0L, 0L, 0L);
}

void pcf_strays_tag(char *tag, size_t n, unsigned serial)
{
    snprintf(tag, n, "%ld.%u", (long)getpid(), serial);
}

void pcf_strays_mark(const char *tag)
{
    setenv(TAG_VAR, tag, 1);
}

/* ppid and state of pid from /proc/pid/stat; false when gone. */
static bool stat_of(long pid, long *ppid, char *state)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
    if (!p || sscanf(p + 1, " %c %ld", state, ppid) != 2)
        return false;
    return true;
}

bool pcf_proc_running(long pid)
{
    long ppid;
    char st;
    return stat_of(pid, &ppid, &st) && st != 'Z' && st != 'X';
}

/* Does pid carry launch tag `tag`, or with tag NULL any tag of this run? */
static bool has_tag(long pid, const char *tag)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/environ", pid);
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    char want[128];
    int wl = tag ? snprintf(want, sizeof want, TAG_VAR "=%s", tag)
                 : snprintf(want, sizeof want, TAG_VAR "=%ld.", (long)getpid());
    bool found = false;
    /* entries are NUL-separated; read them one by one */
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while (!found && (len = getdelim(&line, &cap, '\0', f)) > 0)
        found = tag ? len - 1 == wl && memcmp(line, want, (size_t)wl) == 0
                    : len - 1 > wl && memcmp(line, want, (size_t)wl) == 0;
    free(line);
    fclose(f);
    return found;
}

int pcf_strays_reap(const char *tag)
{
    long self = (long)getpid();
    int killed = 0;
    for (int round = 0; round < 50; round++) {
        DIR *d = opendir("/proc");
        if (!d)
            return killed;
        int acted = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
            char *end;
            long pid = strtol(de->d_name, &end, 10);
            long ppid = 0;
            char st = 0;
            if (*end || pid <= 0 || !stat_of(pid, &ppid, &st) || ppid != self)
                continue;
            if (st == 'Z') { /* an orphan that ended: ours to reap, if it is a stray */
                if (!tag || has_tag(pid, tag)) {
                    int ws;
                    waitpid((pid_t)pid, &ws, WNOHANG);
                }
                continue;
            }
            if (!has_tag(pid, tag))
                continue; /* another launch's, or no launch's (--recover's daemons) */
            if (kill((pid_t)pid, SIGKILL) == 0) {
                int ws;
                while (waitpid((pid_t)pid, &ws, 0) < 0 && errno == EINTR) {
                }
                killed++;
                acted++;
            }
        }
        closedir(d);
        if (!acted)
            break;
    }
    return killed;
}
