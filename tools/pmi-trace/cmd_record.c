/* pmi-trace record: a transparent relay between a real PMI client and a
 * real server.  It takes over the connection the launcher gave this process
 * (PMI_FD, or PMI_PORT: it listens on a port of its own and connects
 * upstream for each connection the application opens), gives the
 * application its own socket, relays every byte both ways unchanged, one
 * write per read, and writes the trace when the application is done.  The
 * application's exit status is ours; signals we receive are forwarded. */
#define _GNU_SOURCE
#include "tool.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

typedef struct relay {
    int app, up;           /* the application's end and the upstream server */
    bool app_eof, up_eof;
    char conn[PMT_CONN_MAX];
} relay;

static int sigpipe_w = -1;
static volatile sig_atomic_t child_pid;

static void on_signal(int sig)
{
    if (sig == SIGCHLD) {
        int e = errno;
        if (sigpipe_w >= 0 && write(sigpipe_w, "c", 1) < 0) {
            /* the loop polls with a timeout as well */
        }
        errno = e;
        return;
    }
    if (child_pid > 0)
        kill((pid_t)child_pid, sig); /* forwarded: the job behaves as without us */
}

static uint64_t now_usec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) {
            struct pollfd pf = { fd, POLLOUT, 0 };
            if (poll(&pf, 1, 30000) <= 0)
                return -1;
            continue;
        }
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* "host:port" (last colon) -> connected TCP socket, or -1. */
static int connect_port(const char *hp)
{
    const char *c = strrchr(hp, ':');
    if (!c)
        return -1;
    char host[256];
    snprintf(host, sizeof host, "%.*s", (int)(c - hp), hp);
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = 0;
    }
    struct addrinfo hints = { 0 }, *res = NULL;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, c + 1, &hints, &res) || !res)
        return -1;
    int fd = -1;
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
        if (fd < 0)
            continue;
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
            break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

static void expand_rank(const char *pat, const char *rank, char *out, size_t n)
{
    size_t o = 0;
    for (const char *p = pat; *p && o + 1 < n; p++) {
        if (p[0] == '%' && p[1] == 'r') {
            o += (size_t)snprintf(out + o, n - o, "%s", rank);
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            out[o++] = '%';
            p++;
        } else {
            out[o++] = *p;
        }
    }
    out[o < n ? o : n - 1] = 0;
}

static void record_usage(FILE *f)
{
    fputs("usage: pmi-trace record [-o FILE] [--source TEXT] -- PROGRAM [ARGS...]\n"
          "  Runs PROGRAM with its own PMI connection and relays every byte between it\n"
          "  and the launcher's server (PMI_FD, or PMI_PORT: a new port for PROGRAM).\n"
          "  -o FILE         the trace (default pmi-trace.%r.trace); %r = the rank\n"
          "                  (PMI_RANK, else PMI_ID, else 0)\n"
          "  --source TEXT   the trace's @source line (default: the command and launcher)\n"
          "exit status: PROGRAM's (128+N when killed by signal N); 2 usage error,\n"
          "125 when the relay could not be set up\n",
          f);
}

int cmd_record(int argc, char **argv)
{
    const char *out = "pmi-trace.%r.trace", *source = NULL;
    int i = 1;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            i++;
            break;
        }
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            record_usage(stdout);
            return EXIT_OK;
        }
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--source") && i + 1 < argc)
            source = argv[++i];
        else if (argv[i][0] != '-')
            break;
        else {
            fprintf(stderr, "pmi-trace record: unknown option '%s'; try 'pmi-trace record --help'\n",
                    argv[i]);
            return EXIT_USAGE;
        }
    }
    if (i >= argc) {
        record_usage(stderr);
        return EXIT_USAGE;
    }
    char **app = argv + i;
    const char *rank = getenv("PMI_RANK");
    if (!rank || !*rank)
        rank = getenv("PMI_ID");
    if (!rank || !*rank)
        rank = "0";
    char path[4096];
    expand_rank(out, rank, path, sizeof path);

    pmt_trace t;
    pmt_trace_init(&t);
    t.version = 1;
    char cmdline[1024] = "";
    for (int k = i; k < argc; k++) {
        size_t l = strlen(cmdline);
        snprintf(cmdline + l, sizeof cmdline - l, "%s%s", k > i ? " " : "", argv[k]);
    }
    const char *fdenv = getenv("PMI_FD"), *portenv = getenv("PMI_PORT");
    char src[1400];
    if (!source) {
        snprintf(src, sizeof src, "pmi-trace record (%s) of '%s', rank %s, server via %s",
                 PMI_TRACE_VERSION, cmdline, rank,
                 fdenv ? "PMI_FD" : portenv ? "PMI_PORT" : "no PMI environment");
        source = src;
    }
    pmt_add_source(&t, source);
    pmt_add_meta(&t, "cmd", cmdline);
    pmt_add_meta(&t, "rank", rank);
    uint64_t t0 = now_usec();
    char t0s[32];
    snprintf(t0s, sizeof t0s, "%llu", (unsigned long long)t0);
    pmt_add_meta(&t, "start_usec", t0s);
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, "PMI_", 4) && strchr(*e, '=')) {
            char name[128];
            const char *eq = strchr(*e, '=');
            snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
            pmt_add_env(&t, name, eq + 1);
        }

    relay rl[16];
    size_t nrl = 0;
    int lis = -1;
    char conn0[PMT_CONN_MAX];
    snprintf(conn0, sizeof conn0, "r%.20s", rank);
    for (char *c = conn0; *c; c++)
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
            *c = '_';
    int sp[2] = { -1, -1 };
    char envbuf[64];
    if (fdenv && *fdenv) {
        int up = atoi(fdenv);
        if (fcntl(up, F_GETFD) < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sp)) {
            fprintf(stderr, "pmi-trace record: PMI_FD=%s: %s\n", fdenv, strerror(errno));
            pmt_trace_free(&t);
            return 125;
        }
        fcntl(up, F_SETFD, FD_CLOEXEC); /* the application gets its own end, not this one */
        fcntl(sp[0], F_SETFD, FD_CLOEXEC);
        rl[0] = (relay){ sp[0], up, false, false, "" };
        snprintf(rl[0].conn, sizeof rl[0].conn, "%s", conn0);
        nrl = 1;
        snprintf(envbuf, sizeof envbuf, "%d", sp[1]);
        setenv("PMI_FD", envbuf, 1);
        char o[64];
        snprintf(o, sizeof o, "fd=%s", fdenv);
        pmt_add_event(&t, PMT_EV_OPEN, 0, rl[0].conn, PMT_CLIENT, o, strlen(o));
    } else if (portenv && *portenv) {
        struct sockaddr_in a = { 0 };
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t al = sizeof a;
        lis = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (lis < 0 || bind(lis, (struct sockaddr *)&a, sizeof a) || listen(lis, 16) ||
            getsockname(lis, (struct sockaddr *)&a, &al)) {
            fprintf(stderr, "pmi-trace record: listen: %s\n", strerror(errno));
            pmt_trace_free(&t);
            return 125;
        }
        snprintf(envbuf, sizeof envbuf, "127.0.0.1:%u", ntohs(a.sin_port));
        setenv("PMI_PORT", envbuf, 1);
    }

    int pp[2];
    if (pipe2(pp, O_CLOEXEC | O_NONBLOCK)) {
        pmt_trace_free(&t);
        return 125;
    }
    sigpipe_w = pp[1];
    struct sigaction sa = { 0 };
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    int fwd[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT };
    for (size_t k = 0; k < sizeof fwd / sizeof fwd[0]; k++)
        sigaction(fwd[k], &sa, NULL);

    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "pmi-trace record: fork: %s\n", strerror(errno));
        pmt_trace_free(&t);
        return 125;
    }
    if (pid == 0) {
        for (size_t k = 0; k < sizeof fwd / sizeof fwd[0]; k++)
            signal(fwd[k], SIG_DFL);
        execvp(app[0], app);
        fprintf(stderr, "pmi-trace record: %s: %s\n", app[0], strerror(errno));
        _exit(127);
    }
    child_pid = pid;
    if (sp[1] >= 0)
        close(sp[1]);
    for (size_t k = 0; k < nrl; k++) {
        fcntl(rl[k].app, F_SETFL, O_NONBLOCK);
        fcntl(rl[k].up, F_SETFL, O_NONBLOCK);
    }

    int status = 0;
    bool exited = false;
    uint64_t exit_at = 0;
    char buf[65536];
    for (;;) {
        bool open_conns = false;
        for (size_t k = 0; k < nrl; k++)
            if (!(rl[k].app_eof && rl[k].up_eof))
                open_conns = true;
        /* done when the application is gone and its connections closed, or
         * a second after it exited (a grandchild may hold the socket) */
        if (exited && (!open_conns || now_usec() - exit_at > 1000000u))
            break;
        struct pollfd pf[2 * 16 + 2];
        int np = 0;
        pf[np++] = (struct pollfd){ pp[0], POLLIN, 0 };
        if (lis >= 0 && nrl < 16)
            pf[np++] = (struct pollfd){ lis, POLLIN, 0 };
        for (size_t k = 0; k < nrl; k++) {
            pf[np++] = (struct pollfd){ rl[k].app_eof ? -1 : rl[k].app, POLLIN, 0 };
            pf[np++] = (struct pollfd){ rl[k].up_eof ? -1 : rl[k].up, POLLIN, 0 };
        }
        int rc = poll(pf, (nfds_t)np, exited ? 100 : 1000);
        if (rc < 0 && errno != EINTR)
            break;
        char dr[64];
        while (read(pp[0], dr, sizeof dr) > 0) {
        }
        if (!exited) {
            pid_t w = waitpid(pid, &status, WNOHANG);
            if (w == pid) {
                exited = true;
                exit_at = now_usec();
            }
        }
        if (rc <= 0)
            continue;
        int q = 1;
        if (lis >= 0 && nrl < 16) {
            if (pf[q].revents & POLLIN) {
                int a = accept4(lis, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
                if (a >= 0) {
                    int up = connect_port(portenv);
                    if (up < 0) {
                        fprintf(stderr, "pmi-trace record: cannot connect to PMI_PORT=%s\n",
                                portenv);
                        close(a);
                    } else {
                        fcntl(up, F_SETFL, O_NONBLOCK);
                        relay *r = &rl[nrl];
                        *r = (relay){ a, up, false, false, "" };
                        if (nrl == 0)
                            snprintf(r->conn, sizeof r->conn, "%s", conn0);
                        else
                            snprintf(r->conn, sizeof r->conn, "%.20s.%zu", conn0, nrl);
                        char o[300];
                        snprintf(o, sizeof o, "port=%.250s", portenv);
                        pmt_add_event(&t, PMT_EV_OPEN, now_usec() - t0, r->conn, PMT_CLIENT, o,
                                      strlen(o));
                        nrl++;
                    }
                }
            }
            q++;
        }
        size_t nk = (size_t)(np - q) / 2;
        for (size_t k = 0; k < nk; k++, q += 2) {
            relay *r = &rl[k];
            for (int d = 0; d < 2; d++) {
                short ev = pf[q + d].revents;
                if (!(ev & (POLLIN | POLLHUP | POLLERR)))
                    continue;
                int from = d == 0 ? r->app : r->up, to = d == 0 ? r->up : r->app;
                pmt_side side = d == 0 ? PMT_CLIENT : PMT_SERVER;
                ssize_t n = read(from, buf, sizeof buf);
                if (n < 0 && (errno == EAGAIN || errno == EINTR))
                    continue;
                if (n > 0) {
                    /* one read, one event, one write: boundaries as they came */
                    pmt_add_event(&t, PMT_EV_DATA, now_usec() - t0, r->conn, side, buf, (size_t)n);
                    if (write_all(to, buf, (size_t)n)) {
                        pmt_add_event(&t, PMT_EV_NOTE, now_usec() - t0, r->conn, side,
                                      "relay: write failed", 19);
                    }
                    continue;
                }
                /* EOF (or error): pass the half-close on */
                pmt_add_event(&t, PMT_EV_EOF, now_usec() - t0, r->conn, side, NULL, 0);
                shutdown(to, SHUT_WR);
                if (d == 0)
                    r->app_eof = true;
                else
                    r->up_eof = true;
                if (r->app_eof && r->up_eof)
                    pmt_add_event(&t, PMT_EV_CLOSE, now_usec() - t0, r->conn, PMT_CLIENT, NULL,
                                  0);
            }
        }
    }
    if (!exited)
        waitpid(pid, &status, 0);
    for (size_t k = 0; k < nrl; k++) {
        close(rl[k].app);
        close(rl[k].up);
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    char cs[16];
    snprintf(cs, sizeof cs, "%d", code);
    pmt_add_meta(&t, "exit", cs);
    /* @meta lines must precede events: move the exit header into place by
     * writing headers first (pmt_write does), nothing else to do here */
    FILE *f = fopen(path, "w");
    if (!f || pmt_write(f, &t, NULL, NULL) || fclose(f)) {
        fprintf(stderr, "pmi-trace record: %s: %s\n", path, strerror(errno));
        if (code == 0)
            code = 125;
    }
    pmt_trace_free(&t);
    if (WIFSIGNALED(status)) {
        signal(WTERMSIG(status), SIG_DFL);
        raise(WTERMSIG(status));
    }
    return code;
}
