/* Starting, watching and stopping the ranks of a job. */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

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
    if (o->mode == LAUNCH_PORT_UNIX) {
        char tmpl[] = "/tmp/pmi-mockserver.XXXXXX";
        char *d = mkdtemp(tmpl);
        if (!d)
            return -1;
        L->sockdir = strdup(d);
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
    if (!nb)
        return;
    memcpy(nb + have, buf, (size_t)n);
    p->outbuf[stream] = nb;
    have += (size_t)n;
    size_t start = 0;
    for (size_t i = 0; i < have; i++)
        if (nb[i] == '\n') {
            flush_line(p, stream, nb + start, i + 1 - start);
            start = i + 1;
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

int launcher_start(launcher *L, pms_job *j, int first_rank, int nprocs, char *const argv[])
{
    if (L->nprocs + (size_t)nprocs > L->cap) {
        size_t ncap = L->cap ? L->cap : 8;
        while (ncap < L->nprocs + (size_t)nprocs)
            ncap *= 2;
        launch_proc *np = realloc(L->procs, ncap * sizeof *np);
        if (!np)
            return -1;
        L->procs = np;
        L->cap = ncap;
    }
    if (L->o.mode != LAUNCH_FD && !L->portbuf[0]) {
        int rc;
        if (L->o.mode == LAUNCH_PORT_TCP) {
            rc = pms_listen_tcp(L->srv, j, 0, L->portbuf, sizeof L->portbuf);
        } else {
            char path[512];
            snprintf(path, sizeof path, "%s/pmi.sock", L->sockdir);
            rc = pms_listen_unix(L->srv, j, path, L->portbuf, sizeof L->portbuf);
        }
        if (rc < 0) {
            fprintf(stderr, "pmi-mockserver: %s\n", pms_server_error(L->srv));
            return -1;
        }
    }
    for (int i = 0; i < nprocs; i++) {
        int rank = first_rank + i;
        int pmifd = -1;
        if (L->o.mode == LAUNCH_FD) {
            pmifd = pms_attach_rank(L->srv, j, rank);
            if (pmifd < 0) {
                fprintf(stderr, "pmi-mockserver: %s\n", pms_server_error(L->srv));
                return -1;
            }
        }
        int out[2] = { -1, -1 }, err[2] = { -1, -1 };
        if (L->o.label && (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)) {
            perror("pmi-mockserver: pipe");
            return -1;
        }
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) {
            perror("pmi-mockserver: fork");
            return -1;
        }
        if (pid == 0) {
            /* the child: its own process group, so teardown reaches its children */
            setpgid(0, 0);
            signal(SIGPIPE, SIG_DFL);
            if (L->o.label) {
                dup2(out[1], 1);
                dup2(err[1], 2);
            }
            if (pmifd >= 0) {
                int fl = fcntl(pmifd, F_GETFD);
                fcntl(pmifd, F_SETFD, fl & ~FD_CLOEXEC);
                set_env_int("PMI_FD", pmifd);
                set_env_int("PMI_RANK", rank);
                set_env_int("PMI_SIZE", pms_job_size(j));
                unsetenv("PMI_PORT");
                unsetenv("PMI_ID");
            } else {
                setenv("PMI_PORT", L->portbuf, 1);
                set_env_int("PMI_ID", rank);
                unsetenv("PMI_FD");
                unsetenv("PMI_RANK");
                unsetenv("PMI_SIZE");
            }
            setenv("PMI_JOBID", pms_job_id(j), 1);
            int node = pms_rank_node(j, rank), lid = 0;
            for (int r = 0; r < rank; r++)
                lid += pms_rank_node(j, r) == node;
            set_env_int("MPI_LOCALNRANKS", pms_job_local_count(j, node));
            set_env_int("MPI_LOCALRANKID", lid);
            if (pms_job_count(L->srv) && pms_job_at(L->srv, 0) != j)
                setenv("PMI_SPAWNED", "1", 1);
            else
                unsetenv("PMI_SPAWNED");
            for (char **e = L->o.extra_env; e && *e; e++)
                putenv(*e);
            for (char **u = L->o.unset_env; u && *u; u++)
                unsetenv(*u);
            execvp(argv[0], argv);
            fprintf(stderr, "pmi-mockserver: cannot run %s: %s\n", argv[0], strerror(errno));
            _exit(127);
        }
        setpgid(pid, pid);
        if (pmifd >= 0)
            close(pmifd);
        launch_proc *p = &L->procs[L->nprocs++];
        memset(p, 0, sizeof *p);
        p->srv = L->srv;
        p->job = j;
        p->rank = rank;
        p->pid = pid;
        p->out_fd = p->err_fd = -1;
        if (L->o.label) {
            close(out[1]);
            close(err[1]);
            p->out_fd = out[0];
            p->err_fd = err[0];
            pms_watch_fd(L->srv, out[0], on_output, p);
            pms_watch_fd(L->srv, err[0], on_output, p);
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
        if (!L->procs[i].exited)
            kill(-L->procs[i].pid, SIGTERM);
}

void launcher_tick(launcher *L)
{
    if (L->killing && launcher_now_ms() >= L->kill_at_ms)
        for (size_t i = 0; i < L->nprocs; i++)
            if (!L->procs[i].exited)
                kill(-L->procs[i].pid, SIGKILL);
}

void launcher_reap(launcher *L)
{
    for (;;) {
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid <= 0)
            return;
        for (size_t i = 0; i < L->nprocs; i++) {
            launch_proc *p = &L->procs[i];
            if (p->pid != pid)
                continue;
            p->exited = true;
            p->status = st;
            int code = status_code(st);
            bool finalized = pms_rank_finalized(p->job, p->rank);
            bool used = pms_rank_used(p->job, p->rank);
            pms_rank_exited(p->job, p->rank);
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
}

bool launcher_done(const launcher *L)
{
    for (size_t i = 0; i < L->nprocs; i++) {
        const launch_proc *p = &L->procs[i];
        if (!p->exited || p->out_fd >= 0 || p->err_fd >= 0)
            return false;
    }
    return true;
}

void launcher_cleanup(launcher *L)
{
    for (size_t i = 0; i < L->nprocs; i++)
        if (!L->procs[i].exited)
            kill(-L->procs[i].pid, SIGKILL);
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    for (size_t i = 0; i < L->nprocs; i++) {
        free(L->procs[i].outbuf[0]);
        free(L->procs[i].outbuf[1]);
    }
    free(L->procs);
    if (L->sockdir) {
        char path[512];
        snprintf(path, sizeof path, "%s/pmi.sock", L->sockdir);
        unlink(path);
        rmdir(L->sockdir);
        free(L->sockdir);
    }
    memset(L, 0, sizeof *L);
}
