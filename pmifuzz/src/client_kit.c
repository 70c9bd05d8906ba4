/* The client kit: responses on one end of a socket pair, the library on the
 * other.  The library's end keeps one descriptor number across runs, so
 * PMI_FD is the same string every time and runs are reproducible. */
#define _GNU_SOURCE /* MSG_DONTWAIT, MSG_NOSIGNAL */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "answers.h"
#include "child_cov.h"
#include "pmifuzz/harness.h"

static int lib_fd = -1;   /* the number the library's end always gets */
static int fork_mode;     /* pmifuzz_client_fork(1) */
static char *reqs;        /* what the library wrote in the last run */
static size_t nreqs, creqs;

static void drain(int fd)
{
    for (;;) {
        if (creqs - nreqs < 4096) {
            size_t cap = creqs ? 2 * creqs : 8192;
            char *p = realloc(reqs, cap);
            if (!p)
                return;
            reqs = p;
            creqs = cap;
        }
        ssize_t n = recv(fd, reqs + nreqs, creqs - nreqs, MSG_DONTWAIT);
        if (n <= 0)
            return;
        nreqs += (size_t)n;
    }
}

/* bytes to the file at path (none: nothing), as they are */
static void save(const char *path, const void *data, size_t size)
{
    FILE *f = path ? fopen(path, "wb") : NULL;
    if (!f)
        return;
    fwrite(data, 1, size, f);
    fclose(f);
}

static void setup_env(void)
{
    char fd[16];
    snprintf(fd, sizeof fd, "%d", lib_fd);
    setenv("PMI_FD", fd, 1);
    setenv("PMI_RANK", "0", 0);
    setenv("PMI_SIZE", "1", 0);
    signal(SIGPIPE, SIG_IGN); /* a library writing after the responses ended */
}

/* ASan's death callback, when the harness has ASan: a report in the child
 * must read as a crash to the parent, not as an ordinary exit status. */
extern void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

static void died_of_report(void)
{
    signal(SIGUSR2, SIG_DFL);
    raise(SIGUSR2);
}

/* The library ends the child with exit(): that is its refusal, and the
 * child ends there, without the handlers the parent registered (libFuzzer's
 * would report "fuzz target exited" and write a crash file from the child). */
static void child_exit(void)
{
    pf_child_cov_send();
    _exit(0);
}

/* abort() in the child: its coverage goes back too, then the signal ends it */
static void child_abort(int sig)
{
    pf_child_cov_send();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* The library in a child: for libraries that exit, abort or keep global
 * state on errors (MPI_Init runs once per process), and to save what the
 * library wrote before it died (PMIFUZZ_REQUESTS_OUT, for pmifuzz-trace).
 * A crash of the child (a fault, or a sanitizer report) becomes a crash of
 * the parent, so libFuzzer keeps the input; an exit or abort() the library
 * chose is its way of refusing the input, not a finding.  A child still
 * running after 10 s is killed (a hang, not reported). */
static void run_forked(pmifuzz_api_fn api, int srv, const char *path)
{
    fflush(NULL);
    pf_child_cov_init();
    pid_t pid = fork();
    if (pid == 0) {
        if (__sanitizer_set_death_callback)
            __sanitizer_set_death_callback(died_of_report);
        atexit(child_exit); /* runs before every handler registered earlier */
        /* abort() (an assertion) and the 10 s alarm end the child by their
         * signal, not through the parent's handlers (libFuzzer's would
         * report a crash or a timeout from the child) */
        signal(SIGABRT, child_abort);
        signal(SIGALRM, SIG_DFL);
        alarm(10);
        api();
        pf_child_cov_send();
        _exit(0);
    }
    int st = 0;
    /* libFuzzer's -timeout alarm interrupts the wait: wait again, or the
     * child is never reaped and its crash never seen */
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    drain(srv);
    save(path, reqs, nreqs);
    if (pid > 0 && (WIFEXITED(st) || (WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT)))
        pf_child_cov_take(); /* what the child's run reached counts */
    if (pid > 0 && WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        if (sig == SIGABRT || sig == SIGALRM || sig == SIGKILL || sig == SIGTERM)
            return;
        if (sig == SIGUSR2) /* died_of_report: the sanitizer's report is above */
            fprintf(stderr, "pmifuzz: the library died: the sanitizer report above%s%s\n",
                    path ? "; its requests are in " : "", path ? path : "");
        else
            fprintf(stderr, "pmifuzz: the library died of signal %d (%s)%s%s\n", sig,
                    strsignal(sig), path ? "; its requests are in " : "", path ? path : "");
        abort();
    }
}

void pmifuzz_client_live(pmifuzz_api_fn api)
{
    /* Live: a real server (pmi-trace replay --client) gave us PMI_FD; the
     * API runs against it once and the process ends, before libFuzzer reads
     * its arguments (none are needed). */
    if (getenv("PMIFUZZ_LIVE")) {
        api();
        exit(0);
    }
}

long pmifuzz_client_run(const uint8_t *data, size_t size, pmifuzz_api_fn api)
{
    /* Live: a real server (pmi-trace replay --client) gave us PMI_FD; the
     * input is ignored and the API runs against it once. */
    if (getenv("PMIFUZZ_LIVE")) {
        api();
        return 0;
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return -1;
    if (lib_fd < 0) {
        lib_fd = fcntl(sv[1], F_DUPFD, 500);
        if (lib_fd < 0) {
            close(sv[0]);
            close(sv[1]);
            return -1;
        }
        setup_env();
    } else if (dup2(sv[1], lib_fd) < 0) {
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    close(sv[1]);
    /* the whole input fits the socket buffer for libFuzzer's sizes; beyond
     * it the rest is dropped, as a peer that stops writing would */
    int big = (int)(size + 65536);
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
    size_t off = 0;
    while (off < size) {
        ssize_t n = send(sv[0], data + off, size - off, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    shutdown(sv[0], SHUT_WR);
    nreqs = 0;
    /* PMIFUZZ_LAST_INPUT: a library that writes through a wild pointer can
     * corrupt the sanitizer's own state, and the process then dies with no
     * report or crash file; this file still holds the input that killed it
     * (kit/smoke.sh replays it to tell whose fault it was) */
    save(getenv("PMIFUZZ_LAST_INPUT"), data, size);
    const char *save = getenv("PMIFUZZ_REQUESTS_OUT");
    if (save || fork_mode || getenv("PMIFUZZ_FORK"))
        run_forked(api, sv[0], save);
    else
        api();
    drain(sv[0]);
    pf_answer_record(data, size, reqs, nreqs);
    close(sv[0]);
    close(lib_fd); /* EBADF when the library closed it already: harmless */
    return (long)nreqs;
}

const char *pmifuzz_client_requests(size_t *len)
{
    *len = nreqs;
    return reqs;
}

void pmifuzz_client_fork(int on)
{
    fork_mode = on;
}
