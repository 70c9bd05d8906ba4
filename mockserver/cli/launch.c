/* Starting, watching and stopping the ranks of a job. */
#include "launch.h"
#include "nodes.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A partial output line longer than this is forwarded without waiting for
 * its newline (a rank printing megabytes without one must not grow us). */
enum { LINE_MAX_HOLD = 65536 };

long long launcher_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int launcher_init(launcher *L, pms_server *s, const launch_opts *o)
{
    memset(L, 0, sizeof *L);
    L->srv = s;
    L->o = *o;
    if (L->o.kill_grace_ms <= 0)
        L->o.kill_grace_ms = 2000;
    /* Processes a rank leaves behind become our children when the rank
     * exits, so they are reaped and can be found and killed at the end. */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    if (o->mode == LAUNCH_PORT_UNIX) {
        char tmpl[] = "/tmp/pmi-mockserver.XXXXXX";
        char *d = mkdtemp(tmpl);
        if (!d)
            return -1;
        L->sockdir = strdup(d);
        if (!L->sockdir)
            return -1;
    }
    return 0;
}

static void flush_line(launch_proc *p, int stream, const char *line, size_t n)
{
    FILE *f = stream ? stderr : stdout;
    fprintf(f, "[%d] %.*s", p->rank, (int)n, line);
    fflush(f);
}

/* Forward a rank's output; in label mode whole lines get a "[rank] " prefix. */
static void on_output(void *ctx, int fd, uint32_t events)
{
    launch_proc *p = ctx;
    int stream = fd == p->err_fd ? 1 : 0;
    char buf[8192];
    (void)events;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        /* end of stream: emit a partial last line, stop watching */
        if (p->outlen[stream]) {
            flush_line(p, stream, p->outbuf[stream], p->outlen[stream]);
            fputc('\n', stream ? stderr : stdout);
            p->outlen[stream] = 0;
        }
        free(p->outbuf[stream]);
        p->outbuf[stream] = NULL;
        pms_unwatch_fd(p->srv, fd);
        close(fd);
        if (stream)
            p->err_fd = -1;
        else
            p->out_fd = -1;
        return;
    }
    size_t have = p->outlen[stream];
    char *nb = realloc(p->outbuf[stream], have + (size_t)n);
    if (!nb) {
        /* no memory to hold the line: forward what we have as it is */
        if (have)
            flush_line(p, stream, p->outbuf[stream], have);
        p->outlen[stream] = 0;
        flush_line(p, stream, buf, (size_t)n);
        return;
    }
    memcpy(nb + have, buf, (size_t)n);
    p->outbuf[stream] = nb;
    have += (size_t)n;
    size_t start = 0;
    for (size_t i = 0; i < have; i++)
        if (nb[i] == '\n') {
            flush_line(p, stream, nb + start, i + 1 - start);
            start = i + 1;
        }
    if (have - start > LINE_MAX_HOLD) {
        flush_line(p, stream, nb + start, have - start);
        fputc('\n', stream ? stderr : stdout);
        start = have;
    }
    memmove(nb, nb + start, have - start);
    p->outlen[stream] = have - start;
}

static int set_env_int(const char *k, long v)
{
    char b[32];
    snprintf(b, sizeof b, "%ld", v);
    return setenv(k, b, 1);
}

/* The PMI_PORT value for job j, listening on first use. */
static const char *port_for(launcher *L, pms_job *j)
{
    for (size_t i = 0; i < L->nports; i++)
        if (L->ports[i].job == j)
            return L->ports[i].portbuf;
    launch_port *np = realloc(L->ports, (L->nports + 1) * sizeof *np);
    if (!np)
        return NULL;
    L->ports = np;
    launch_port *lp = &L->ports[L->nports];
    memset(lp, 0, sizeof *lp);
    lp->job = j;
    int rc;
    if (L->o.mode == LAUNCH_PORT_TCP) {
        rc = pms_listen_tcp(L->srv, j, 0, lp->portbuf, sizeof lp->portbuf);
    } else {
        char path[512];
        snprintf(path, sizeof path, "%s/pmi-%zu.sock", L->sockdir, L->nports);
        rc = pms_listen_unix(L->srv, j, path, lp->portbuf, sizeof lp->portbuf);
    }
    if (rc < 0) {
        fprintf(stderr, "pmi-mockserver: %s\n", pms_server_error(L->srv));
        return NULL;
    }
    L->nports++;
    return lp->portbuf;
}

/* In the child, before exec: the rank's environment and signal state. */
static void child_setup(launcher *L, pms_job *j, int rank, int pmifd, const char *port,
                        pid_t parent)
{
    setpgid(0, 0); /* its own process group, so teardown reaches its children */
    /* If the launcher dies (even by SIGKILL), the rank goes too. */
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != parent)
        _exit(128 + SIGKILL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    const int sigs[] = { SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
    /* the hook's edits first: the launcher's own variables always win */
    for (char **e = L->o.extra_env; e && *e; e++)
        putenv(*e);
    for (char **u = L->o.unset_env; u && *u; u++)
        unsetenv(*u);
    /* nothing inherited may contradict what this launcher says */
    const char *ours[] = { "PMI_SOCKTYPE", "PMI_TLS_CA", "PMI_AUTH_SECRET_FILE",
                           "PMI_AUTH_SECRET", NULL };
    for (const char **u = ours; *u; u++)
        unsetenv(*u);
    if (pmifd >= 0) {
        int fl = fcntl(pmifd, F_GETFD);
        fcntl(pmifd, F_SETFD, fl & ~FD_CLOEXEC);
        set_env_int("PMI_FD", pmifd);
        set_env_int("PMI_RANK", rank);
        set_env_int("PMI_SIZE", pms_job_size(j));
        unsetenv("PMI_PORT");
        unsetenv("PMI_ID");
    } else {
        setenv("PMI_PORT", port, 1);
        set_env_int("PMI_ID", rank);
        unsetenv("PMI_FD");
        unsetenv("PMI_RANK");
        unsetenv("PMI_SIZE");
    }
    setenv("PMI_JOBID", pms_job_id(j), 1);
    int node = pms_rank_node(j, rank), lid = 0;
    for (int r = 0; r < rank; r++)
        lid += pms_rank_node(j, r) == node;
    if (pms_server_local_env(L->srv)) {
        set_env_int("MPI_LOCALNRANKS", pms_job_local_count(j, node));
        set_env_int("MPI_LOCALRANKID", lid);
    } else { /* srun sets neither (observed: pmi2/jobattr/mapping-local-env) */
        unsetenv("MPI_LOCALNRANKS");
        unsetenv("MPI_LOCALRANKID");
    }
    node_identity(node, L->o.nodes);
    if (pms_job_count(L->srv) && pms_job_at(L->srv, 0) != j)
        setenv("PMI_SPAWNED", "1", 1);
    else
        unsetenv("PMI_SPAWNED");
    for (char **e = L->o.pm_env; e && *e; e++) {
        if (pmifd >= 0 && (strncmp(*e, "PMI_SOCKTYPE=", 13) == 0 ||
                           strncmp(*e, "PMI_TLS_CA=", 11) == 0))
            continue; /* TLS is for the TCP port only */
        putenv(*e);
    }
}

int launcher_start(launcher *L, pms_job *j, int first_rank, int nprocs, char *const argv[])
{
    if (L->nprocs + (size_t)nprocs > L->cap) {
        size_t ncap = L->cap ? L->cap : 8;
        while (ncap < L->nprocs + (size_t)nprocs)
            ncap *= 2;
        launch_proc **np = realloc(L->procs, ncap * sizeof *np);
        if (!np)
            return -1;
        L->procs = np;
        L->cap = ncap;
    }
    const char *port = NULL;
    if (L->o.mode != LAUNCH_FD && !(port = port_for(L, j)))
        return -1;
    pid_t parent = getpid();
    for (int i = 0; i < nprocs; i++) {
        int rank = first_rank + i;
        launch_proc *p = calloc(1, sizeof *p);
        if (!p) {
            fprintf(stderr, "pmi-mockserver: out of memory\n");
            return -1;
        }
        int pmifd = -1;
        if (L->o.mode == LAUNCH_FD) {
            pmifd = pms_attach_rank(L->srv, j, rank);
            if (pmifd < 0) {
                fprintf(stderr, "pmi-mockserver: %s\n", pms_server_error(L->srv));
                free(p);
                return -1;
            }
        }
        int out[2] = { -1, -1 }, err[2] = { -1, -1 };
        if (L->o.label && (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)) {
            perror("pmi-mockserver: pipe");
            for (int k = 0; k < 2; k++) {
                if (out[k] >= 0)
                    close(out[k]);
                if (err[k] >= 0)
                    close(err[k]);
            }
            if (pmifd >= 0)
                close(pmifd);
            free(p);
            return -1;
        }
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) {
            perror("pmi-mockserver: fork");
            if (pmifd >= 0)
                close(pmifd);
            free(p);
            return -1;
        }
        if (pid == 0) {
            if (L->o.label) {
                dup2(out[1], 1);
                dup2(err[1], 2);
            }
            child_setup(L, j, rank, pmifd, port, parent);
            execvp(argv[0], argv);
            fprintf(stderr, "pmi-mockserver: cannot run %s: %s\n", argv[0], strerror(errno));
            _exit(127);
        }
        setpgid(pid, pid);
        if (pmifd >= 0)
            close(pmifd);
        p->srv = L->srv;
        p->job = j;
        p->rank = rank;
        p->pid = pid;
        p->out_fd = p->err_fd = -1;
        L->procs[L->nprocs++] = p;
        if (L->o.label) {
            close(out[1]);
            close(err[1]);
            p->out_fd = out[0];
            p->err_fd = err[0];
            if (pms_watch_fd(L->srv, out[0], on_output, p) < 0 ||
                pms_watch_fd(L->srv, err[0], on_output, p) < 0) {
                fprintf(stderr, "pmi-mockserver: cannot watch rank %d's output\n", rank);
                return -1;
            }
        }
    }
    return 0;
}

static int status_code(int st)
{
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return 1;
}

void launcher_kill_all(launcher *L, const char *why)
{
    if (!L->killing && why)
        fprintf(stderr, "pmi-mockserver: terminating the job: %s\n", why);
    if (!L->killing)
        L->kill_at_ms = launcher_now_ms() + L->o.kill_grace_ms;
    L->killing = true;
    for (size_t i = 0; i < L->nprocs; i++)
        if (!L->procs[i]->exited)
            kill(-L->procs[i]->pid, SIGTERM);
}

void launcher_kill_now(launcher *L)
{
    if (!L->killing)
        launcher_kill_all(L, "interrupted");
    L->kill_at_ms = launcher_now_ms();
    launcher_tick(L);
}

bool launcher_kill_rank(launcher *L, pms_job *j, int rank, int signo)
{
    for (size_t i = 0; i < L->nprocs; i++) {
        launch_proc *p = L->procs[i];
        if (p->job == j && p->rank == rank && !p->exited) {
            fprintf(stderr, "pmi-mockserver: script: killing rank %d of %s with signal %d\n", rank,
                    pms_job_id(j), signo);
            return kill(-p->pid, signo) == 0; /* its group: what it started goes too */
        }
    }
    return false;
}

static bool all_exited(const launcher *L)
{
    for (size_t i = 0; i < L->nprocs; i++)
        if (!L->procs[i]->exited)
            return false;
    return true;
}

/* Signal what is left of every rank's process group (a daemon a rank
 * started, still holding the output pipe).  ESRCH: nothing left. */
static bool signal_leftovers(launcher *L, int sig)
{
    bool any = false;
    for (size_t i = 0; i < L->nprocs; i++)
        if (kill(-L->procs[i]->pid, sig) == 0)
            any = true;
    return any;
}

void launcher_tick(launcher *L)
{
    long long now = launcher_now_ms();
    if (L->killing && now >= L->kill_at_ms)
        for (size_t i = 0; i < L->nprocs; i++)
            if (!L->procs[i]->exited)
                kill(-L->procs[i]->pid, SIGKILL);
    /* Every rank is gone but output is still open: something the ranks
     * left behind holds it.  The job is over; end them like Hydra does. */
    if (L->nprocs && all_exited(L) && !launcher_done(L)) {
        if (!L->leftovers_killed) {
            L->leftovers_killed = true;
            L->leftovers_at_ms = now + L->o.kill_grace_ms;
            if (signal_leftovers(L, SIGTERM))
                fprintf(stderr, "pmi-mockserver: terminating processes the ranks left behind\n");
        } else if (now >= L->leftovers_at_ms) {
            signal_leftovers(L, SIGKILL);
            L->leftovers_at_ms = now + L->o.kill_grace_ms;
        }
    }
}

static launch_proc *find_proc(launcher *L, pid_t pid)
{
    for (size_t i = 0; i < L->nprocs; i++)
        if (L->procs[i]->pid == pid && !L->procs[i]->exited)
            return L->procs[i];
    return NULL;
}

void launcher_reap(launcher *L)
{
    for (;;) {
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid <= 0)
            return;
        launch_proc *p = find_proc(L, pid);
        if (!p) {
            /* a hook, or an orphan reparented to us (subreaper) */
            hooks_reaped(L->o.hooks, pid, st);
            continue;
        }
        p->exited = true;
        p->status = st;
        int code = status_code(st);
        bool finalized = pms_rank_finalized(p->job, p->rank);
        bool used = pms_rank_used(p->job, p->rank);
        pms_rank_exited(p->job, p->rank);
        hooks_rank_exit(L->o.hooks, pms_job_id(p->job), p->rank, code, finalized);
        if (pms_job_aborted(p->job)) {
            if (!L->have_exit) {
                L->exit_code = pms_job_exit_code(p->job);
                L->have_exit = true;
            }
        } else if (code != 0 && !L->have_exit) {
            L->exit_code = code;
            L->have_exit = true;
        }
        if (!L->killing && (code != 0 || !finalized)) {
            char why[160];
            snprintf(why, sizeof why, "rank %d of %s exited with %s %d%s", p->rank,
                     pms_job_id(p->job), WIFSIGNALED(st) ? "signal" : "code",
                     WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
                     finalized ? "" : " before finalize");
            /* Like Hydra: a failed rank, or one that used PMI and left
             * without finalize, takes the job down.  A program that never
             * spoke PMI and exits 0 is just a program. */
            if (code != 0 || used)
                launcher_kill_all(L, why);
        }
    }
}

bool launcher_done(const launcher *L)
{
    for (size_t i = 0; i < L->nprocs; i++) {
        const launch_proc *p = L->procs[i];
        if (!p->exited || p->out_fd >= 0 || p->err_fd >= 0)
            return false;
    }
    return true;
}

/* SIGKILL and reap whatever children we still have: descendants of the
 * ranks reparented to us that left the ranks' process groups (setsid). */
static void kill_remaining_children(void)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
    for (int round = 0; round < 8; round++) {
        FILE *f = fopen(path, "re");
        if (!f)
            return;
        int n = 0;
        long pid;
        while (fscanf(f, "%ld", &pid) == 1) {
            kill((pid_t)pid, SIGKILL);
            n++;
        }
        fclose(f);
        while (waitpid(-1, NULL, n ? 0 : WNOHANG) > 0 && --n > 0)
            ;
        if (!n)
            return;
    }
}

void launcher_cleanup(launcher *L)
{
    for (size_t i = 0; i < L->nprocs; i++) {
        launch_proc *p = L->procs[i];
        if (!p->exited) {
            kill(-p->pid, SIGKILL);
            /* it dies asynchronously: wait for it, no zombie left */
            while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
                ;
            p->exited = true;
        }
        kill(-p->pid, SIGKILL); /* anything left in its group */
    }
    kill_remaining_children();
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    for (size_t i = 0; i < L->nprocs; i++) {
        launch_proc *p = L->procs[i];
        if (p->out_fd >= 0) {
            pms_unwatch_fd(L->srv, p->out_fd);
            close(p->out_fd);
        }
        if (p->err_fd >= 0) {
            pms_unwatch_fd(L->srv, p->err_fd);
            close(p->err_fd);
        }
        free(p->outbuf[0]);
        free(p->outbuf[1]);
        free(p);
    }
    free(L->procs);
    if (L->sockdir) {
        for (size_t i = 0; i < L->nports; i++)
            unlink(L->ports[i].portbuf);
        rmdir(L->sockdir);
        free(L->sockdir);
    }
    free(L->ports);
    memset(L, 0, sizeof *L);
}

/* ---------------------------------------------------------------- crash guard */

static launcher *guarded;

static void on_fatal(int sig)
{
    /* async-signal-safe: kill() only, over memory that is not being freed */
    launcher *L = guarded;
    if (L)
        for (size_t i = 0; i < L->nprocs; i++)
            if (L->procs && L->procs[i])
                kill(-L->procs[i]->pid, SIGKILL);
    signal(sig, SIG_DFL);
    raise(sig);
}

void launcher_crash_guard(launcher *L)
{
    guarded = L;
    struct sigaction sa = { .sa_handler = on_fatal, .sa_flags = SA_RESETHAND };
    sigemptyset(&sa.sa_mask);
    const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}
