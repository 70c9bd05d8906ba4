/* Launch hooks: pre-launch environment, rank exit, job end. */
#include "hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The pre-launch hook's output is an environment, not a data stream. */
enum { PRELAUNCH_MAX_OUTPUT = 1 << 20 };

static const char *const reserved[] = {
    "PMI_FD", "PMI_PORT", "PMI_ID", "PMI_RANK", "PMI_SIZE", "PMI_JOBID", "PMI_SPAWNED",
    "MPI_LOCALNRANKS", "MPI_LOCALRANKID", "PMI_SOCKTYPE", "PMI_TLS_CA",
    "PMI_AUTH_SECRET_FILE", "PMI_AUTH_SECRET", NULL,
};

bool hooks_reserved(const char *name, size_t len)
{
    for (const char *const *r = reserved; *r; r++)
        if (strlen(*r) == len && memcmp(*r, name, len) == 0)
            return true;
    return false;
}

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* In a forked child: default signal handling (the launcher ignores SIGPIPE
 * and catches others), then the shell.  Never returns. */
static void exec_shell(const char *cmd)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    const int sigs[] = { SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull >= 0)
        dup2(devnull, 0);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    fprintf(stderr, "pmi-mockserver: cannot run /bin/sh: %s\n", strerror(errno));
    _exit(127);
}

static void set_int(const char *k, long v)
{
    char b[32];
    snprintf(b, sizeof b, "%ld", v);
    setenv(k, b, 1);
}

static void describe_status(int st, char *b, size_t n)
{
    if (WIFEXITED(st))
        snprintf(b, n, "exit status %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        snprintf(b, n, "signal %d", WTERMSIG(st));
    else
        snprintf(b, n, "status %d", st);
}

static bool valid_name(const char *p, size_t n)
{
    if (!n || !(p[0] == '_' || (p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!(p[i] == '_' || (p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= 'a' && p[i] <= 'z') ||
              (p[i] >= '0' && p[i] <= '9')))
            return false;
    return true;
}

static int push(char ***v, size_t *n, const char *p, size_t len)
{
    char **nv = realloc(*v, (*n + 2) * sizeof *nv);
    if (!nv)
        return -1;
    *v = nv;
    nv[*n] = malloc(len + 1);
    if (!nv[*n])
        return -1;
    memcpy(nv[*n], p, len);
    nv[*n][len] = 0;
    nv[++*n] = NULL;
    return 0;
}

/* One line of hook output (without its newline). */
static int parse_line(const char *p, size_t n, size_t lineno, hook_env *out, char *err,
                      size_t errlen)
{
    if (n && p[n - 1] == '\r')
        n--;
    if (!n)
        return 0;
    if (memchr(p, 0, n)) {
        snprintf(err, errlen, "pre-launch hook output line %zu: contains a NUL byte", lineno);
        return -1;
    }
    if (p[0] == '-') {
        if (!valid_name(p + 1, n - 1)) {
            snprintf(err, errlen, "pre-launch hook output line %zu: '%.*s' is not -NAME", lineno,
                     (int)(n > 60 ? 60 : n), p);
            return -1;
        }
        if (hooks_reserved(p + 1, n - 1)) {
            snprintf(err, errlen, "pre-launch hook output line %zu: %.*s is set by the launcher",
                     lineno, (int)(n - 1), p + 1);
            return -1;
        }
        return push(&out->unset, &out->nunset, p + 1, n - 1);
    }
    const char *eq = memchr(p, '=', n);
    if (!eq || !valid_name(p, (size_t)(eq - p))) {
        snprintf(err, errlen, "pre-launch hook output line %zu: '%.*s' is neither KEY=VALUE nor "
                 "-KEY", lineno, (int)(n > 60 ? 60 : n), p);
        return -1;
    }
    if (hooks_reserved(p, (size_t)(eq - p))) {
        snprintf(err, errlen, "pre-launch hook output line %zu: %.*s is set by the launcher",
                 lineno, (int)(eq - p), p);
        return -1;
    }
    return push(&out->set, &out->nset, p, n);
}

int hook_pre_launch(const char *cmd, const char *jobid, int size, hook_env *out, char *err,
                    size_t errlen)
{
    memset(out, 0, sizeof *out);
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0) {
        snprintf(err, errlen, "pre-launch hook: pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "pre-launch hook: fork: %s", strerror(errno));
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(pfd[1], 1);
        setenv("PMI_HOOK_JOBID", jobid, 1);
        set_int("PMI_HOOK_SIZE", size);
        exec_shell(cmd);
    }
    close(pfd[1]);
    char *buf = NULL;
    size_t len = 0, cap = 0;
    bool too_much = false;
    for (;;) {
        if (cap - len < 4096) {
            char *nb = realloc(buf, cap ? cap * 2 : 8192);
            if (!nb)
                break;
            buf = nb;
            cap = cap ? cap * 2 : 8192;
        }
        ssize_t n = read(pfd[0], buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
        if (len > PRELAUNCH_MAX_OUTPUT) {
            too_much = true;
            kill(pid, SIGKILL);
            break;
        }
    }
    close(pfd[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    int rc = 0;
    char how[48];
    describe_status(st, how, sizeof how);
    if (too_much) {
        snprintf(err, errlen, "pre-launch hook: more than %d bytes of output",
                 PRELAUNCH_MAX_OUTPUT);
        rc = -1;
    } else if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
        snprintf(err, errlen, "pre-launch hook failed (%s)", how);
        rc = -1;
    } else {
        size_t start = 0, lineno = 1;
        for (size_t i = 0; i <= len && rc == 0; i++) {
            if (i == len || buf[i] == '\n') {
                if (i > start || i < len)
                    rc = parse_line(buf + start, i - start, lineno, out, err, errlen);
                start = i + 1;
                lineno++;
            }
        }
    }
    free(buf);
    if (rc < 0)
        hook_env_free(out);
    return rc;
}

void hook_env_free(hook_env *e)
{
    for (size_t i = 0; i < e->nset; i++)
        free(e->set[i]);
    for (size_t i = 0; i < e->nunset; i++)
        free(e->unset[i]);
    free(e->set);
    free(e->unset);
    memset(e, 0, sizeof *e);
}

/* Fork `cmd` in its own process group with the hook variables set. */
static pid_t start_hook(const char *cmd, const char *const *kv)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        for (; kv[0]; kv += 2)
            setenv(kv[0], kv[1], 1);
        exec_shell(cmd);
    }
    if (pid > 0)
        setpgid(pid, pid); /* both sides: no race with an early kill */
    else
        fprintf(stderr, "pmi-mockserver: cannot start hook: %s\n", strerror(errno));
    return pid;
}

void hooks_rank_exit(hooks *h, const char *jobid, int rank, int status, bool finalized)
{
    if (!h || !h->on_rank_exit)
        return;
    if (h->nrunning == h->cap) {
        size_t ncap = h->cap ? h->cap * 2 : 16;
        pid_t *np = realloc(h->running, ncap * sizeof *np);
        if (!np) {
            fprintf(stderr, "pmi-mockserver: out of memory: rank-exit hook for rank %d skipped\n",
                    rank);
            return;
        }
        h->running = np;
        h->cap = ncap;
    }
    char r[16], s[16];
    snprintf(r, sizeof r, "%d", rank);
    snprintf(s, sizeof s, "%d", status);
    const char *kv[] = { "PMI_HOOK_RANK", r, "PMI_HOOK_JOBID", jobid, "PMI_HOOK_STATUS", s,
                         "PMI_HOOK_FINALIZED", finalized ? "1" : "0", NULL };
    pid_t pid = start_hook(h->on_rank_exit, kv);
    if (pid > 0)
        h->running[h->nrunning++] = pid;
}

static void report(const char *which, int st)
{
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return;
    char how[48];
    describe_status(st, how, sizeof how);
    fprintf(stderr, "pmi-mockserver: %s hook failed (%s)\n", which, how);
}

bool hooks_reaped(hooks *h, pid_t pid, int status)
{
    if (!h)
        return false;
    for (size_t i = 0; i < h->nrunning; i++)
        if (h->running[i] == pid) {
            h->running[i] = h->running[--h->nrunning];
            report("rank-exit", status);
            return true;
        }
    return false;
}

/* Wait for `pid` until the deadline; kill its group after that. */
static void wait_bounded(pid_t pid, long long deadline, const char *which)
{
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) {
            report(which, st);
            return;
        }
        if (r < 0 && errno != EINTR)
            return;
        if (now_ms() >= deadline) {
            fprintf(stderr, "pmi-mockserver: %s hook still running: killed\n", which);
            kill(-pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
            return;
        }
        struct timespec ts = { 0, 10 * 1000000 };
        nanosleep(&ts, NULL);
    }
}

void hooks_finish(hooks *h, const char *jobid, int exit_code, int timeout_ms)
{
    if (!h)
        return;
    long long deadline = now_ms() + timeout_ms;
    while (h->nrunning)
        wait_bounded(h->running[--h->nrunning], deadline, "rank-exit");
    if (!h->on_job_end)
        return;
    char e[16];
    snprintf(e, sizeof e, "%d", exit_code);
    const char *kv[] = { "PMI_HOOK_JOBID", jobid, "PMI_HOOK_EXIT", e, NULL };
    pid_t pid = start_hook(h->on_job_end, kv);
    if (pid > 0)
        wait_bounded(pid, now_ms() + timeout_ms, "job-end");
}

void hooks_free(hooks *h)
{
    if (!h)
        return;
    free(h->running);
    h->running = NULL;
    h->nrunning = h->cap = 0;
}
