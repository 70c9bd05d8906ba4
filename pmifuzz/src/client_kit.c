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
#include "port_feed.h"
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

/* How the library reaches this run's input: PMI_FD (our socket pair's end)
 * or PMI_PORT with PMI_ID (port_feed.c); the other's variables are taken
 * away, so a library that would use either takes the one meant. */
static int env_mode = -1; /* 0 fd, 1 port, -1 not yet set */
/* PMI_ID, PMI_RANK, PMI_SIZE are the kit's (the harness did not set them) */
static int own_id, own_rank, own_size;

static int setup_env(int port)
{
    if (env_mode == port)
        return 0;
    if (env_mode < 0) {
        own_id = !getenv("PMI_ID");
        own_rank = !getenv("PMI_RANK");
        own_size = !getenv("PMI_SIZE");
        signal(SIGPIPE, SIG_IGN); /* a library writing after the responses ended */
    }
    /* As launchers do: PMI_ID with PMI_PORT (SPEC ENV-4), PMI_RANK and
     * PMI_SIZE with PMI_FD (ENV-5); each only where meant, or a library
     * takes it from the environment instead of reading the answer (the set
     * lines after initack), and some read PMI_ID with PMI_FD too (Slurm's) */
    if (own_id && port)
        setenv("PMI_ID", "0", 1);
    else if (own_id)
        unsetenv("PMI_ID");
    if (own_rank && !port)
        setenv("PMI_RANK", "0", 1);
    else if (own_rank)
        unsetenv("PMI_RANK");
    if (own_size && !port)
        setenv("PMI_SIZE", "1", 1);
    else if (own_size)
        unsetenv("PMI_SIZE");
    if (port) {
        const char *a = pf_port_address();
        if (!a) {
            fprintf(stderr, "pmifuzz: cannot listen on 127.0.0.1 for PMI_PORT: %s\n", strerror(errno));
            return -1;
        }
        unsetenv("PMI_FD");
        setenv("PMI_PORT", a, 1);
    } else {
        char fd[16];
        snprintf(fd, sizeof fd, "%d", lib_fd);
        unsetenv("PMI_PORT");
        setenv("PMI_FD", fd, 1);
    }
    env_mode = port;
    return 0;
}

/* A harness whose library never writes a byte tests nothing: it does not
 * reach the kit (another variable than PMI_FD, a harness that never calls
 * init), and the run would look clean.  After this many runs it stops. */
enum { SILENT_RUNS = 64 };

static void check_spoke(void)
{
    static unsigned runs;
    static int spoke;
    spoke |= nreqs > 0;
    if (spoke || ++runs < SILENT_RUNS)
        return;
    fprintf(stderr,
            "pmifuzz: the library wrote nothing in %d runs: it never talked to the kit, so the "
            "harness tests nothing.\n"
            "  Does api() call the library's init (PMI_Init, PMI2_Init)?  Does the library take "
            "its connection from PMI_FD (the kit's default), or only from PMI_PORT (run with "
            "PMIFUZZ_CONNECT=port)?  Does it need other variables set (PMI_RANK, PMI_SIZE, "
            "PMI_JOBID...)?\n",
            SILENT_RUNS);
    _exit(1); /* not exit(): libFuzzer would take it for a crash of the target */
}

/* PMIFUZZ_CONNECT=auto serves an input that begins with initack's answer
 * through PMI_PORT; a library that reads only PMI_FD then runs with no PMI
 * connection (a singleton), which passes clean.  Say so once, when it has
 * never connected in this many such runs. */
enum { UNCONNECTED_RUNS = 16 };

static void check_connected(int connected)
{
    static unsigned runs;
    static int ever, said;
    ever |= connected;
    if (ever || said || ++runs < UNCONNECTED_RUNS)
        return;
    said = 1;
    fprintf(stderr,
            "pmifuzz: note: inputs that begin with PMI-1's initack answer go through PMI_PORT "
            "(PMIFUZZ_CONNECT=auto), and the library has not connected to it in %d of them: "
            "those runs test it without a PMI connection.  If it reads only PMI_FD, run with "
            "PMIFUZZ_CONNECT=fd (and replay its crash files the same way).\n",
            UNCONNECTED_RUNS);
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
static void run_forked(pmifuzz_api_fn api, void (*collect)(void), const char *path)
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
    collect(); /* what it wrote is saved before a crash ends this process */
    if (pid > 0 && (WIFEXITED(st) || (WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT)))
        pf_child_cov_take(); /* what the child's run reached counts */
    if (pid > 0 && WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        if (sig == SIGALRM && path) {
            /* saving the requests of a timeout input: the hang reproduced */
            fprintf(stderr,
                    "pmifuzz: the library did not return within 10 s: the hang reproduced; its "
                    "requests are in %s (exit status 1)\n",
                    path);
            _exit(1);
        }
        if (sig == SIGABRT || sig == SIGALRM || sig == SIGKILL || sig == SIGTERM)
            return;
        if (sig == SIGUSR2) /* died_of_report: the sanitizer's report is above */
            fprintf(stderr, "pmifuzz: the library died: the sanitizer report above%s%s\n",
                    path ? "; its requests are in " : "", path ? path : "");
        else
            fprintf(stderr, "pmifuzz: the library died of signal %d (%s)%s%s\n", sig,
                    strsignal(sig), path ? "; its requests are in " : "", path ? path : "");
        /* saving the requests of a crash input: the crash reproduced, and
         * that is all (libFuzzer's own report would read as the kit's
         * crash, and write another crash file) */
        if (path) {
            fprintf(stderr, "pmifuzz: the crash reproduced (exit status 1)\n");
            _exit(1);
        }
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

/* One run's connection: the socket pair's kit end (PMI_FD) or, with
 * PMI_PORT, the connection the library made (known once the run ends). */
static struct {
    int port, srv, collected;
} run_;

/* The run is over: take the library's connection (PMI_PORT), read what it
 * wrote, save it when asked (PMIFUZZ_REQUESTS_OUT).  Once per run. */
static void collect(void)
{
    if (run_.collected)
        return;
    run_.collected = 1;
    if (run_.port)
        run_.srv = pf_port_end();
    if (run_.srv >= 0)
        drain(run_.srv);
    save(getenv("PMIFUZZ_REQUESTS_OUT"), reqs, nreqs);
}

/* The socket pair: the input on the kit's end, ended there; the library's
 * end on lib_fd.  The kit's end, or -1. */
static int pair_begin(const uint8_t *data, size_t size)
{
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
    return sv[0];
}

long pmifuzz_client_run(const uint8_t *data, size_t size, pmifuzz_api_fn api)
{
    /* Live: a real server (pmi-trace replay --client) gave us PMI_FD; the
     * input is ignored and the API runs against it once. */
    if (getenv("PMIFUZZ_LIVE")) {
        api();
        return 0;
    }
    static int mode = -1;
    if (mode < 0)
        mode = (int)pf_connect_mode();
    /* PMI_PORT when asked, or when the input begins with initack's answer:
     * a PMI-1 client sends initack only in that mode (V1CMD-1) */
    run_.port = mode == PF_CONNECT_PORT ||
                (mode == PF_CONNECT_AUTO && pf_starts_with_initack(data, size));
    run_.srv = -1;
    run_.collected = 0;
    if (!run_.port && (run_.srv = pair_begin(data, size)) < 0)
        return -1;
    if (setup_env(run_.port) < 0 || (run_.port && pf_port_begin(data, size) < 0)) {
        if (run_.srv >= 0)
            close(run_.srv);
        return -1;
    }
    nreqs = 0;
    /* PMIFUZZ_LAST_INPUT: a library that writes through a wild pointer can
     * corrupt the sanitizer's own state, and the process then dies with no
     * report or crash file; this file still holds the input that killed it
     * (kit/smoke.sh replays it to tell whose fault it was) */
    save(getenv("PMIFUZZ_LAST_INPUT"), data, size);
    const char *out = getenv("PMIFUZZ_REQUESTS_OUT");
    if (out || fork_mode || getenv("PMIFUZZ_FORK"))
        run_forked(api, collect, out);
    else
        api();
    collect();
    pf_answer_record(data, size, reqs, nreqs);
    if (run_.port && mode == PF_CONNECT_AUTO)
        check_connected(run_.srv >= 0);
    if (run_.port) {
        pf_port_close(run_.srv);
    } else {
        close(run_.srv);
        close(lib_fd); /* EBADF when the library closed it already: harmless */
    }
    check_spoke();
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
