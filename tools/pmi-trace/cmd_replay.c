/* pmi-trace replay: play one side of a trace against a live peer and check
 * the other side message by message (pmitrace/match.h does the checking).
 *
 *   --server: we are the client(s).  Under a launcher (PMI_FD / PMI_PORT in
 *             the environment) this process plays connection r<PMI_RANK>;
 *             with --port HOST:PORT it plays every connection of the trace.
 *   --client -- PROGRAM: we are the server.  One PROGRAM per rank of the
 *             trace, each with its own PMI_FD (or PMI_PORT and PMI_ID when
 *             the rank's first request is initack); requests are checked,
 *             the recorded responses sent (with live values substituted). */
#define _GNU_SOURCE
#include "tool.h"

#include "pmitrace/match.h"
#include "pmitrace/steps.h"

#ifdef PMT_HAVE_PMISESSION
#include "pmisession/session.h"
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_CONNECT = 3 };
/* --client: every message matched, and a program then died or exited
 * non-zero: a crash reproduced (a CI job sees it in the status). */
enum { EXIT_PROGRAM = 4 };

typedef struct rconn {
    char label[PMT_CONN_MAX];
    int fd;
    pmt_runner *r;
    bool active, waiting;
    bool judged; /* --judge: its line is printed */
    size_t sent; /* messages of the trace sent whole */
    uint64_t deadline;
    pid_t pid;
#ifdef PMT_HAVE_PMISESSION
    pws_session *s;
#endif
} rconn;

static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int write_piece(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) {
            struct pollfd pf = { fd, POLLOUT, 0 };
            if (poll(&pf, 1, 10000) <= 0)
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

static int do_send(rconn *c, const pmt_action *a)
{
    if (a->pause_ms) /* a late rank: the recording waited here (pause=MS) */
        usleep(a->pause_ms * 1000u);
#ifdef PMT_HAVE_PMISESSION
    if (c->s)
        return pws_send_split(c->s, a->buf, a->len, a->cuts, a->ncuts, a->delay_ms,
                              pws_deadline_ms(10000 + a->delay_ms * (unsigned)(a->ncuts + 1))) == 0
                   ? 0
                   : -1;
#endif
    size_t at = 0;
    for (size_t k = 0; k <= a->ncuts; k++) {
        size_t end = k < a->ncuts ? a->cuts[k] : a->len;
        if (end <= at)
            continue;
        if (k && a->delay_ms)
            usleep(a->delay_ms * 1000u);
        if (write_piece(c->fd, a->buf + at, end - at))
            return -1;
        at = end;
    }
    return 0;
}

/* --judge: does the failure the trace marks come back on this connection?
 * One line per connection that has failure marks: reproduced, not
 * reproduced (a mark diverged: the server now answers otherwise), or
 * undecided (the replay diverged before reaching the marks). */
static void judge(rconn *c)
{
    size_t got = 0, n = pmt_runner_failures(c->r, &got);
    const pmt_divergence *d = pmt_runner_divergence(c->r);
    if (!n || c->judged)
        return;
    c->judged = true;
    if (d && d->failure) {
        printf("judge %s: not-reproduced: expected %.300s; actual %.300s\n", c->label, d->expected,
               d->actual);
        return;
    }
    if (got == n) {
        printf("judge %s: reproduced: %zu failure mark%s as recorded\n", c->label, n,
               n == 1 ? "" : "s");
        return;
    }
    printf("judge %s: undecided: diverged before the failure (line %u): expected %.300s; actual "
           "%.300s\n",
           c->label, d ? d->line : 0, d ? d->expected : "?", d ? d->actual : "?");
}

/* --judge, while the replay runs: the line as soon as the marks are decided
 * (all arrived as recorded, or one diverged), before the rest of the trace
 * is sent; what follows may make the server end the job, and a launcher
 * that kills this rank then must not take the result with it. */
static bool judging;
static void judge_early(rconn *c)
{
    if (!judging || c->judged)
        return;
    size_t got = 0, n = pmt_runner_failures(c->r, &got);
    const pmt_divergence *d = pmt_runner_divergence(c->r);
    if (n && (got == n || (d && d->failure))) {
        judge(c);
        fflush(stdout);
    }
}

/* The next message on fd through d, reading until `until` (mono_ms):
 * true with *m, false at a decode error, end of stream or the deadline. */
static bool next_msg(int fd, pmc_decoder *d, uint64_t until, pmc_msg *m)
{
    for (;;) {
        pmc_error err;
        int rc = pmc_decoder_next(d, m, &err);
        if (rc == PMC_MSG)
            return true;
        if (rc == PMC_ERR || mono_ms() >= until)
            return false;
        struct pollfd pf = { fd, POLLIN, 0 };
        if (poll(&pf, 1, (int)(until - mono_ms())) <= 0)
            return false;
        char buf[4096];
        ssize_t r = read(fd, buf, sizeof buf);
        if (r <= 0)
            return false;
        pmc_decoder_feed(d, buf, (size_t)r);
    }
}

/* --judge: leave the job as a rank does, with finalize (in the wire the
 * connection speaks), so that a server does not end the job for a
 * rank that only stopped early.  Waits at most ms for the answer. */
static bool leave(rconn *c, const pmt_trace *t, unsigned ms)
{
    bool acked = false;
    if (c->fd < 0)
        return false;
    pmc_wire w = pmt_conn_wire(t, c->label, PMT_CLIENT);
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_error err;
    pmc_enc_begin(&e, w, "finalize");
    if (pmc_enc_end(&e, NULL, &o, &err) == 0 && write_piece(c->fd, o.buf, o.len) == 0) {
        pmc_decoder *d = pmc_decoder_new(NULL);
        uint64_t until = mono_ms() + ms;
        pmc_msg m;
        while (d && next_msg(c->fd, d, until, &m))
            if (pmc_slice_eq(m.name, "finalize_ack") || pmc_slice_eq(m.name, "finalize-response")) {
                acked = true;
                break;
            }
        pmc_decoder_free(d);
    }
    pmc_out_free(&o);
    return acked;
}

/* Run every connection's runner until each is done or diverged.  Returns
 * the number of connections that diverged. */
static int run_all(rconn *c, size_t n, bool verbose)
{
    for (;;) {
        bool any = false, progress = false;
        for (size_t k = 0; k < n; k++) {
            if (!c[k].active)
                continue;
            for (;;) {
                pmt_action a;
                pmt_runner_next(c[k].r, &a);
                judge_early(&c[k]);
                if (a.kind == PMT_ACT_DONE || a.kind == PMT_ACT_FAILED) {
                    c[k].active = false;
                    progress = true;
                    break;
                }
                if (a.kind == PMT_ACT_WAIT) {
                    if (!c[k].waiting) {
                        c[k].waiting = true;
                        c[k].deadline = mono_ms() + a.timeout_ms;
                    }
                    break;
                }
                /* a send recorded after another connection's next step
                 * waits until that connection got there (a get answered
                 * with a value another rank put, barriers); the connection
                 * with the earliest step is never held, so this ends */
                uint64_t t = pmt_runner_usec(c[k].r);
                bool blocked = false;
                for (size_t j = 0; j < n; j++)
                    if (j != k && c[j].active && pmt_runner_usec(c[j].r) < t)
                        blocked = true;
                if (blocked)
                    break;
                c[k].waiting = false;
                if (a.kind == PMT_ACT_SEND) {
                    if (verbose)
                        fprintf(stderr, "replay: %s: send %zu bytes\n", c[k].label, a.len);
                    if (do_send(&c[k], &a)) {
                        /* the peer is gone: what it says next (eof) is checked */
                        pmt_runner_done_action(c[k].r);
                        pmt_runner_eof(c[k].r);
                    } else {
                        c[k].sent++;
                        pmt_runner_done_action(c[k].r);
                    }
                } else if (a.kind == PMT_ACT_SHUTDOWN) {
                    shutdown(c[k].fd, SHUT_WR);
                    pmt_runner_done_action(c[k].r);
                } else if (a.kind == PMT_ACT_CLOSE) {
                    shutdown(c[k].fd, SHUT_RDWR);
                    pmt_runner_done_action(c[k].r);
                }
                progress = true;
            }
            if (c[k].active)
                any = true;
        }
        if (!any)
            break;
        if (progress)
            continue;
        struct pollfd pf[256];
        size_t idx[256];
        nfds_t np = 0;
        uint64_t now = mono_ms(), next = now + 1000;
        for (size_t k = 0; k < n && np < 256; k++)
            if (c[k].active && c[k].waiting) {
                pf[np] = (struct pollfd){ c[k].fd, POLLIN, 0 };
                idx[np++] = k;
                if (c[k].deadline < next)
                    next = c[k].deadline;
            }
        int rc = poll(pf, np, next > now ? (int)(next - now) : 0);
        if (rc < 0 && errno != EINTR)
            break;
        now = mono_ms();
        for (nfds_t q = 0; q < np; q++) {
            rconn *x = &c[idx[q]];
            if (pf[q].revents & (POLLIN | POLLHUP | POLLERR)) {
                char buf[65536];
                ssize_t r = read(x->fd, buf, sizeof buf);
                if (r < 0 && (errno == EAGAIN || errno == EINTR))
                    continue;
                x->waiting = false;
                if (r > 0)
                    pmt_runner_feed(x->r, buf, (size_t)r);
                else
                    pmt_runner_eof(x->r);
            } else if (x->deadline <= now) {
                x->waiting = false;
                pmt_runner_timeout(x->r);
            }
        }
    }
    int bad = 0;
    for (size_t k = 0; k < n; k++) {
        const pmt_divergence *d = pmt_runner_divergence(c[k].r);
        if (d) {
            bad++;
            pmt_divergence_print(stdout, d, 120);
        } else {
            /* a requests-only trace (a server crash reproducer) checks
             * nothing: say so rather than let "0 matched" pass for a result */
            printf("replay: %s: %zu messages matched, %zu sent%s\n", c[k].label,
                   pmt_runner_matched(c[k].r), c[k].sent,
                   pmt_runner_checks(c[k].r)
                       ? ""
                       : " (the trace holds no answer for this connection: nothing was checked)");
        }
    }
    fflush(stdout);
    return bad;
}

/* PMI_PORT mode identifies a PMI-1 connection before init (initack
 * pmiid=N, answered by initack and set size/rank/debug lines); a trace
 * recorded over PMI_FD has no such exchange, so do it here.  Returns 0, or
 * -1 with a message on stderr. */
static int identify(rconn *c, const pmt_trace *t)
{
    const pmt_event *first = NULL;
    for (size_t i = 0; i < t->nevents && !first; i++)
        if (!strcmp(t->events[i].conn, c->label) && t->events[i].kind == PMT_EV_DATA &&
            t->events[i].side == PMT_CLIENT)
            first = &t->events[i];
    if (!first || first->form == PMT_FORM_MSG || first->len < 4 || memcmp(first->data, "cmd=", 4) ||
        (first->len >= 11 && !memcmp(first->data, "cmd=initack", 11)))
        return 0; /* a pattern, or the trace identifies itself */
    for (size_t i = 0; i < t->nevents; i++)
        if (!strcmp(t->events[i].conn, c->label) && t->events[i].kind == PMT_EV_DATA &&
            t->events[i].side == PMT_CLIENT && memmem(t->events[i].data, t->events[i].len, "cmd=fullinit", 12))
            return 0; /* PMI-2: fullinit names the rank */
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_error err;
    pmc_enc_begin(&e, PMC_WIRE_V1, "initack");
    pmc_enc_str(&e, "pmiid", c->label + 1);
    if (pmc_enc_end(&e, NULL, &o, &err) || write_piece(c->fd, o.buf, o.len)) {
        pmc_out_free(&o);
        fprintf(stderr, "pmi-trace replay: %s: cannot send initack\n", c->label);
        return -1;
    }
    pmc_out_free(&o);
    pmc_decoder *d = pmc_decoder_new(NULL);
    uint64_t until = mono_ms() + 5000;
    int got = 0;
    pmc_msg m;
    while (d && next_msg(c->fd, d, until, &m)) {
        pmc_slice v;
        if (pmc_slice_eq(m.name, "initack") && pmc_msg_get(&m, "rc", &v) && !pmc_slice_eq(v, "0"))
            break;
        if (pmc_slice_eq(m.name, "set") && pmc_msg_get(&m, "debug", &v)) {
            got = 1; /* the last line of the answer */
            break;
        }
    }
    pmc_decoder_free(d);
    if (!got)
        fprintf(stderr, "pmi-trace replay: %s: the server did not accept initack pmiid=%s\n", c->label,
                c->label + 1);
    return got ? 0 : -1;
}

/* --client: whether connection c of the trace began in PMI_PORT mode (its
 * first request is PMI-1's initack, which a client sends only there:
 * V1CMD-1); the program is then given PMI_PORT and PMI_ID, not PMI_FD. */
static bool starts_with_initack(const pmt_trace *t, const char *conn)
{
    for (size_t i = 0; i < t->nevents; i++) {
        const pmt_event *ev = &t->events[i];
        if (!strcmp(ev->conn, conn) && ev->kind == PMT_EV_DATA && ev->side == PMT_CLIENT)
            return ev->len >= 11 && !memcmp(ev->data, "cmd=initack", 11);
    }
    return false;
}

/* A listener on 127.0.0.1 for PMI_PORT mode: its fd, and "127.0.0.1:PORT"
 * in addr; -1 when it cannot be made. */
static int listen_loopback(char *addr, size_t n)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t alen = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 64) ||
        getsockname(fd, (struct sockaddr *)&a, &alen)) {
        close(fd);
        return -1;
    }
    snprintf(addr, n, "127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
    return fd;
}

/* The connection program pid makes to the listener, within ms; -1 when it
 * ends or does not connect by then. */
static int accept_from(int lfd, pid_t pid, unsigned ms)
{
    uint64_t until = mono_ms() + ms;
    while (mono_ms() < until) {
        struct pollfd p = { lfd, POLLIN, 0 };
        if (poll(&p, 1, 100) > 0)
            return accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) /* it ended before connecting */
            return -2 - (WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    }
    return -1;
}

static void replay_usage(FILE *f)
{
    fputs("usage: pmi-trace replay --server [--port HOST:PORT] [--conn LABEL] [options] TRACE\n"
          "       pmi-trace replay --client [options] TRACE -- PROGRAM [ARGS...]\n"
          "  --server   play the client side (C>S) against a server: under a launcher this\n"
          "             process plays connection r<PMI_RANK>; with --port every connection\n"
          "  --client   play the server side (S>C): start PROGRAM once per rank of the\n"
          "             trace with PMI_FD, PMI_RANK, PMI_SIZE (PMI_PORT and PMI_ID for a\n"
          "             rank whose first request is initack) and check what it sends\n"
          "  --tolerate-key KEY   values of KEY may differ (default: kvsname jobid port\n"
          "                       hostname host)\n"
          "  --tolerate-kvs TEXT  values of KVS keys containing TEXT may differ (default:\n"
          "                       businesscard -bcast- -allgather-shm- PMI_hostname hwloc)\n"
          "  --timeout MS         wait at most MS for each message (10000)\n"
          "  --judge              (--server) judge the failure marks (S>C failure, eof S\n"
          "                       failure): other answers need only the same command;\n"
          "                       prints 'judge CONN: reproduced|not-reproduced|undecided'\n"
          "                       for each connection with marks, then finalizes and\n"
          "                       exits 0 (a launcher must not end the job for it)\n"
          "  --linger MS          (--judge) when the server closed the connection, stay\n"
          "                       MS before exiting (the other ranks may not be done)\n"
          "  -v                   log what is sent\n"
          "exit status: 0 every message matched, 1 a divergence (printed side by side),\n"
          "2 usage or trace error, 3 cannot connect or start PROGRAM, 4 (--client) every\n"
          "message matched and then a PROGRAM died or exited non-zero (a crash reproduced)\n",
          f);
}

int cmd_replay(int argc, char **argv)
{
    int mode = 0;
    const char *port = NULL, *path = NULL, *only = NULL;
    const char *keys[40], *kvs[40];
    size_t nkeys = 0, nkvs = 0;
    const pmt_match_opts *d = pmt_match_opts_default();
    for (size_t k = 0; d->keys[k] && nkeys < 20; k++)
        keys[nkeys++] = d->keys[k];
    for (size_t k = 0; d->kvskeys[k] && nkvs < 20; k++)
        kvs[nkvs++] = d->kvskeys[k];
    unsigned timeout = 10000;
    bool verbose = false, judged = false;
    unsigned linger = 0;
    char **prog = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            replay_usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "--server")) {
            mode = 's';
        } else if (!strcmp(a, "--client")) {
            mode = 'c';
        } else if (!strcmp(a, "--port") && i + 1 < argc) {
            port = argv[++i];
        } else if (!strcmp(a, "--conn") && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(a, "--tolerate-key") && i + 1 < argc && nkeys < 39) {
            keys[nkeys++] = argv[++i];
        } else if (!strcmp(a, "--tolerate-kvs") && i + 1 < argc && nkvs < 39) {
            kvs[nkvs++] = argv[++i];
        } else if (!strcmp(a, "--timeout") && i + 1 < argc) {
            timeout = (unsigned)strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(a, "-v")) {
            verbose = true;
        } else if (!strcmp(a, "--judge")) {
            judged = true;
        } else if (!strcmp(a, "--linger") && i + 1 < argc) {
            linger = (unsigned)strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(a, "--")) {
            prog = argv + i + 1;
            if (!*prog)
                prog = NULL;
            break;
        } else if (a[0] != '-' && !path) {
            path = a;
        } else {
            fprintf(stderr, "pmi-trace replay: %s '%s'; try 'pmi-trace replay --help'\n",
                    a[0] == '-' ? "unknown option" : "a second trace", a);
            return EXIT_USAGE;
        }
    }
    if (!mode || !path || (mode == 'c' && !prog) || (mode == 's' && prog)) {
        replay_usage(stderr);
        return EXIT_USAGE;
    }
    keys[nkeys] = NULL;
    kvs[nkvs] = NULL;
    pmt_match_opts mo = { keys, kvs };

    pmt_trace t;
    pmt_error e;
    if (pmt_read_file(path, &t, &e)) {
        char eb[600];
        pmt_error_format(&e, path, eb, sizeof eb);
        fprintf(stderr, "pmi-trace replay: %s\n", eb);
        return EXIT_USAGE;
    }
    /* connections in order of appearance */
    char labels[64][PMT_CONN_MAX];
    size_t nl = 0;
    for (size_t i = 0; i < t.nevents && nl < 64; i++) {
        size_t k = 0;
        while (k < nl && strcmp(labels[k], t.events[i].conn))
            k++;
        if (k == nl)
            snprintf(labels[nl++], PMT_CONN_MAX, "%s", t.events[i].conn);
    }
    if (mode == 's' && !port && !only) {
        const char *rk = getenv("PMI_RANK");
        if (!rk || !*rk)
            rk = getenv("PMI_ID");
        static char lb[PMT_CONN_MAX];
        snprintf(lb, sizeof lb, "r%.20s", rk && *rk ? rk : "0");
        only = lb;
    }
    if (only) {
        size_t k = 0;
        while (k < nl && strcmp(labels[k], only))
            k++;
        if (k == nl) {
            fprintf(stderr, "pmi-trace replay: %s: no connection %s in the trace\n", path, only);
            pmt_trace_free(&t);
            return EXIT_USAGE;
        }
        snprintf(labels[0], PMT_CONN_MAX, "%s", only);
        nl = 1;
    }

    pmt_vars *v = pmt_vars_new();
    rconn *c = calloc(nl + 1, sizeof *c);
    int status = EXIT_OK;
    if (!v || !c) {
        status = EXIT_USAGE;
        goto out;
    }
    pmt_runner_opts ro = { &mo, NULL, timeout, 0, 0, judged };
    for (size_t k = 0; k < nl; k++) {
        char err[300];
        memcpy(c[k].label, labels[k], PMT_CONN_MAX);
        c[k].fd = -1;
        c[k].r = pmt_runner_new(&t, labels[k], mode == 's' ? PMT_CLIENT : PMT_SERVER, v, &ro, err,
                                sizeof err);
        if (!c[k].r) {
            fprintf(stderr, "pmi-trace replay: %s: %s: %s\n", path, labels[k], err);
            status = EXIT_USAGE;
            goto out;
        }
        c[k].active = true;
    }
    signal(SIGPIPE, SIG_IGN);

    if (mode == 's') {
        for (size_t k = 0; k < nl; k++) {
            char err[300] = "";
#ifdef PMT_HAVE_PMISESSION
            int rc = port ? pws_connect(&c[k].s, port, c[k].label, 10000, err, sizeof err)
                          : pws_open_env(&c[k].s, c[k].label, err, sizeof err);
            c[k].fd = rc ? -1 : pws_fd(c[k].s);
#else
            (void)port;
            snprintf(err, sizeof err, "built without the pmisession library");
#endif
            if (c[k].fd < 0) {
                fprintf(stderr, "pmi-trace replay: %s: %s\n", c[k].label, err);
                status = EXIT_CONNECT;
                goto out;
            }
            bool portmode = port || (!getenv("PMI_FD") && getenv("PMI_PORT"));
            if (portmode && c[k].label[0] == 'r' && identify(&c[k], &t)) {
                status = EXIT_CONNECT;
                goto out;
            }
        }
        judging = judged;
        status = run_all(c, nl, verbose) ? EXIT_FINDINGS : EXIT_OK;
        if (judged) {
            for (size_t k = 0; k < nl; k++)
                judge(&c[k]);
            fflush(stdout);
            bool gone = false;
            for (size_t k = 0; k < nl; k++)
                gone |= !leave(&c[k], &t, timeout);
            /* the server closed on us: stay while the other ranks finish, as
             * a server may end the job for a rank that exits unfinalized */
            if (gone && linger)
                usleep(linger * 1000u);
            status = EXIT_OK; /* the judge lines are the result */
        }
    } else {
        size_t nranks = 0;
        for (size_t k = 0; k < nl; k++)
            if (c[k].label[0] == 'r' && strspn(c[k].label + 1, "0123456789") == strlen(c[k].label + 1))
                nranks++;
        if (nranks != nl || nl == 0) {
            fprintf(stderr, "pmi-trace replay: --client needs connections named r<rank> only "
                            "(one PMI_FD per rank)\n");
            status = EXIT_USAGE;
            goto out;
        }
        char sz[16], addr[32] = "";
        snprintf(sz, sizeof sz, "%zu", nl);
        int lfd = -1; /* PMI_PORT mode's listener, made for the first rank that needs it */
        for (size_t k = 0; k < nl; k++) {
            bool portmode = starts_with_initack(&t, c[k].label);
            if (portmode && lfd < 0 && (lfd = listen_loopback(addr, sizeof addr)) < 0) {
                fprintf(stderr, "pmi-trace replay: cannot listen on 127.0.0.1: %s\n", strerror(errno));
                status = EXIT_CONNECT;
                goto out;
            }
            int sp[2] = { -1, -1 };
            if (!portmode && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp)) {
                status = EXIT_CONNECT;
                goto out;
            }
            pid_t pid = fork();
            if (pid == 0) {
                if (portmode) { /* as launchers do: rank and size come in the set lines */
                    unsetenv("PMI_FD");
                    unsetenv("PMI_RANK");
                    unsetenv("PMI_SIZE");
                    setenv("PMI_PORT", addr, 1);
                    setenv("PMI_ID", c[k].label + 1, 1);
                } else {
                    int cfd = dup(sp[1]); /* without close-on-exec: the program's PMI_FD */
                    char fds[16];
                    snprintf(fds, sizeof fds, "%d", cfd);
                    setenv("PMI_FD", fds, 1);
                    setenv("PMI_RANK", c[k].label + 1, 1);
                    setenv("PMI_SIZE", sz, 1);
                    unsetenv("PMI_PORT");
                    unsetenv("PMI_ID");
                }
                signal(SIGPIPE, SIG_DFL);
                execvp(prog[0], prog);
                fprintf(stderr, "pmi-trace replay: %s: %s\n", prog[0], strerror(errno));
                _exit(127);
            }
            if (!portmode)
                close(sp[1]);
            if (pid < 0) {
                if (!portmode)
                    close(sp[0]);
                status = EXIT_CONNECT;
                goto out;
            }
            c[k].pid = pid;
            if (portmode) {
                /* one rank at a time: the connection that comes is this rank's */
                int fd = accept_from(lfd, pid, timeout);
                if (fd < 0) {
                    if (fd <= -2)
                        printf("replay: %s: the program exited with status %d before it connected "
                               "to PMI_PORT=%s\n", c[k].label, -2 - fd, addr);
                    else
                        printf("replay: %s: the program did not connect to PMI_PORT=%s within %u ms\n",
                               c[k].label, addr, timeout);
                    fflush(stdout);
                    /* no program is left behind: this one, if it still runs, and the ranks before */
                    for (size_t j = 0; j <= k; j++) {
                        kill(c[j].pid, SIGKILL);
                        waitpid(c[j].pid, NULL, 0);
                    }
                    status = EXIT_FINDINGS;
                    close(lfd);
                    goto out;
                }
                c[k].fd = fd;
            } else {
                c[k].fd = sp[0];
            }
        }
        if (lfd >= 0)
            close(lfd);
        int bad = run_all(c, nl, verbose), died = 0;
        for (size_t k = 0; k < nl; k++) {
            /* the server side is done: the program sees EOF like after a real job */
            shutdown(c[k].fd, SHUT_RDWR);
            int st = 0;
            uint64_t until = mono_ms() + 10000;
            pid_t w;
            while ((w = waitpid(c[k].pid, &st, WNOHANG)) == 0 && mono_ms() < until)
                usleep(10000);
            if (w == 0) {
                kill(c[k].pid, SIGKILL);
                waitpid(c[k].pid, &st, 0);
                printf("replay: %s: the program did not exit within 10 s after the trace ended\n",
                       c[k].label);
                bad++;
            } else if (!bad && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
                printf("replay: %s: the program exited with status %d\n", c[k].label,
                       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
                died++;
            }
        }
        status = bad ? EXIT_FINDINGS : died ? EXIT_PROGRAM : EXIT_OK;
    }
out:
    for (size_t k = 0; c && k < nl; k++) {
#ifdef PMT_HAVE_PMISESSION
        if (c[k].s)
            pws_close(c[k].s);
        else
#endif
            if (c[k].fd >= 0)
            close(c[k].fd);
        pmt_runner_free(c[k].r);
    }
    free(c);
    pmt_vars_free(v);
    pmt_trace_free(&t);
    return status;
}
