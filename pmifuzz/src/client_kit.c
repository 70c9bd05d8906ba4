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
#include "pmifuzz/harness.h"

static int lib_fd = -1;   /* the number the library's end always gets */
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

static void setup_env(void)
{
    char fd[16];
    snprintf(fd, sizeof fd, "%d", lib_fd);
    setenv("PMI_FD", fd, 1);
    setenv("PMI_RANK", "0", 0);
    setenv("PMI_SIZE", "1", 0);
    signal(SIGPIPE, SIG_IGN); /* a library writing after the responses ended */
}

/* Reproducing a crash: the library runs in a child, so that what it wrote
 * before it died can still be read and saved (for pmifuzz-trace); then the
 * parent dies the same way, so the harness still reports the crash. */
static void run_forked(pmifuzz_api_fn api, int srv, const char *path)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        api();
        _exit(0);
    }
    int st = 0;
    if (pid > 0)
        waitpid(pid, &st, 0);
    drain(srv);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(reqs, 1, nreqs, f);
        fclose(f);
    }
    if (pid > 0 && WIFSIGNALED(st)) {
        fprintf(stderr, "pmifuzz: the library died of signal %d; its requests are in %s\n",
                WTERMSIG(st), path);
        abort();
    }
    if (pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) != 0) {
        fprintf(stderr, "pmifuzz: the library exited with %d (a sanitizer report above); its "
                        "requests are in %s\n", WEXITSTATUS(st), path);
        abort();
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
    const char *save = getenv("PMIFUZZ_REQUESTS_OUT");
    if (save)
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
