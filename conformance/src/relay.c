/* The report channel, orchestrator side: ranks report over TCP, never
 * through the orchestrator's filesystem (a cluster's nodes share no /tmp).
 *
 * One listener for the run (127.0.0.1 unless --report-addr names the
 * address ranks on other hosts reach); each launch has a random token, and
 * its ranks are started with --report=HOST:PORT:TOKEN.  A rank connects once
 * and sends
 *
 *   hello <token>\n
 *   <results lines>          alive/start/result/skip/lost/done (results.c)
 *   trace\t<name>\t<esc>\n   a per-rank case trace (--json), escaped text
 *
 * Results lines are appended, whole, to the launch's results file on the
 * orchestrator's side, which orchestrate.c watches as before; traces go to
 * the launch's trace directory.  The orchestrator sends "done\n" to every
 * rank of a launch once one said done (a rank waiting for rank 0), or
 * rank 0 closed its record with "lost" after a case (a rank staying in a
 * case, pcf_stay_ms, or about to begin the next one), and
 * closes the connections when the launch is finished or it dies: a rank
 * exits when its connection closes (watchdog.c), on whatever host. */
#define _GNU_SOURCE /* accept4 */
#include "internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { MAX_CONNS = 512, MAX_SINKS = 64, TOKEN_LEN = 32 };

typedef struct sink {
    char token[TOKEN_LEN + 1];
    char resfile[1200];
    char tracedir[1024]; /* "" when no traces are wanted */
    int resfd;
    bool done_sent;
} sink;

typedef struct conn {
    int fd;
    int sink; /* index in sinks, -1 before its hello */
    char *buf;
    size_t len, cap;
} conn;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int lfd = -1;
static char addr_shown[64];
static int port;
static sink sinks[MAX_SINKS];
static conn conns[MAX_CONNS];
static size_t nconns;

static void conn_close(size_t i)
{
    close(conns[i].fd);
    free(conns[i].buf);
    conns[i] = conns[--nconns];
}

/* The trace of a rank, into the launch's trace directory: a bare name only. */
static void put_trace(const sink *s, char *rest)
{
    char *tab = strchr(rest, '\t');
    if (!s->tracedir[0] || !tab)
        return;
    *tab = 0;
    if (!*rest || strchr(rest, '/') || strcmp(rest, "..") == 0 || strcmp(rest, ".") == 0)
        return;
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", s->tracedir, rest);
    char *text = pcf_unescape(tab + 1);
    FILE *f = text ? fopen(path, "w") : NULL;
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    free(text);
}

/* One whole line from connection i (without its newline). */
static void conn_line(size_t i, char *line, size_t len)
{
    conn *c = &conns[i];
    if (c->sink < 0) {
        int k = -1;
        if (strncmp(line, "hello ", 6) == 0)
            for (int j = 0; j < MAX_SINKS; j++)
                if (sinks[j].token[0] && strcmp(sinks[j].token, line + 6) == 0)
                    k = j;
        c->sink = k;
        if (k < 0)
            c->sink = -2; /* a launch already finished, or a stranger: closed */
        return;
    }
    sink *s = &sinks[c->sink];
    if (strncmp(line, "trace\t", 6) == 0) {
        put_trace(s, line + 6);
        return;
    }
    line[len] = '\n'; /* one write() of the whole line: lines of ranks do not mix */
    if (s->resfd >= 0 && write(s->resfd, line, len + 1) < 0) {
    }
    line[len] = 0;
    /* rank 0 finished: its "done", or the "lost" line that closes its record
     * after a case (rank 0 writes it last; a rank whose start-up failed
     * writes "lost" before any case, "-") */
    bool over = strcmp(line, "done") == 0 ||
                (strncmp(line, "lost\t", 5) == 0 && strncmp(line + 5, "-\t", 2) != 0);
    if (over && !s->done_sent) {
        s->done_sent = true;
        for (size_t j = 0; j < nconns; j++)
            if (conns[j].sink == c->sink && send(conns[j].fd, "done\n", 5, MSG_NOSIGNAL) < 0) {
            }
    }
}

/* Read what connection i has: false when it closed (or is to be closed). */
static bool conn_read(size_t i)
{
    conn *c = &conns[i];
    if (c->cap - c->len < 65536) {
        size_t nc = c->cap ? c->cap * 2 : 131072;
        char *nb = realloc(c->buf, nc);
        if (!nb)
            return false;
        c->buf = nb;
        c->cap = nc;
    }
    ssize_t k = recv(c->fd, c->buf + c->len, c->cap - c->len - 1, 0);
    if (k <= 0)
        return k < 0 && (errno == EINTR || errno == EAGAIN);
    c->len += (size_t)k;
    size_t off = 0;
    for (char *nl; (nl = memchr(c->buf + off, '\n', c->len - off));) {
        *nl = 0;
        conn_line(i, c->buf + off, (size_t)(nl - (c->buf + off)));
        off = (size_t)(nl - c->buf) + 1;
        if (c->sink == -2)
            return false;
    }
    memmove(c->buf, c->buf + off, c->len - off);
    c->len -= off;
    return true;
}

/* Every connection waiting in the listen queue (mu held).  One accept per
 * wake-up fell behind when many launches' ranks connected at once under
 * load: a short launch could end, and be dropped, before its ranks'
 * connections were even accepted, and their lines (rank 0's results
 * included) were then thrown away as strangers'. */
static void accept_all(void)
{
    for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            return; /* EAGAIN: the queue is empty (the listener does not block) */
        if (nconns < MAX_CONNS)
            conns[nconns++] = (conn){ .fd = fd, .sink = -1 };
        else
            close(fd);
    }
}

static void *relay_loop(void *arg)
{
    (void)arg;
    struct pollfd pf[MAX_CONNS + 1];
    for (;;) {
        pthread_mutex_lock(&mu);
        size_t n = nconns;
        pf[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
        for (size_t i = 0; i < n; i++)
            pf[i + 1] = (struct pollfd){ .fd = conns[i].fd, .events = POLLIN };
        pthread_mutex_unlock(&mu);
        /* a short poll: connections dropped meanwhile are picked up */
        if (poll(pf, n + 1, 50) <= 0)
            continue;
        pthread_mutex_lock(&mu);
        for (size_t i = n; i-- > 0;) {
            if (i >= nconns || conns[i].fd != pf[i + 1].fd || !pf[i + 1].revents)
                continue;
            if (!conn_read(i))
                conn_close(i);
        }
        if (pf[0].revents & POLLIN)
            accept_all();
        pthread_mutex_unlock(&mu);
    }
    return NULL;
}

int pcf_relay_open(const char *addr)
{
    if (lfd >= 0)
        return 0;
    const char *a = addr && *addr ? addr : "127.0.0.1";
    struct sockaddr_in sa = { .sin_family = AF_INET };
    if (inet_pton(AF_INET, a, &sa.sin_addr) != 1) {
        fprintf(stderr, "pmi2-conform: --report-addr %s: not an IPv4 address\n", a);
        return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    socklen_t sl = sizeof sa;
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 128) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
        fprintf(stderr, "pmi2-conform: the report channel (%s): %s\n", a, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    lfd = fd;
    port = ntohs(sa.sin_port);
    snprintf(addr_shown, sizeof addr_shown, "%s", a);
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &at, relay_loop, NULL);
    pthread_attr_destroy(&at);
    return rc == 0 ? 0 : -1;
}

int pcf_relay_add(char *spec, size_t n, const char *resfile, const char *tracedir)
{
    char token[TOKEN_LEN + 1];
    unsigned char raw[TOKEN_LEN / 2];
    int rf = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (rf < 0 || read(rf, raw, sizeof raw) != (ssize_t)sizeof raw) {
        if (rf >= 0)
            close(rf);
        return -1;
    }
    close(rf);
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(token + 2 * i, 3, "%02x", raw[i]);
    int fd = open(resfile, O_WRONLY | O_CREAT | O_APPEND | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    pthread_mutex_lock(&mu);
    int k = -1;
    for (int j = 0; j < MAX_SINKS && k < 0; j++)
        if (!sinks[j].token[0])
            k = j;
    if (k >= 0) {
        sink *s = &sinks[k];
        snprintf(s->token, sizeof s->token, "%s", token);
        snprintf(s->resfile, sizeof s->resfile, "%s", resfile);
        snprintf(s->tracedir, sizeof s->tracedir, "%s", tracedir ? tracedir : "");
        s->resfd = fd;
        s->done_sent = false;
        snprintf(spec, n, "%s:%d:%s", addr_shown, port, token);
    }
    pthread_mutex_unlock(&mu);
    if (k < 0)
        close(fd);
    return k < 0 ? -1 : 0;
}

/* The sink a spec names, or -1 (mu held). */
static int sink_of(const char *spec)
{
    const char *t = strrchr(spec, ':');
    for (int j = 0; t && j < MAX_SINKS; j++)
        if (sinks[j].token[0] && strcmp(sinks[j].token, t + 1) == 0)
            return j;
    return -1;
}

int pcf_relay_connected(const char *spec)
{
    int n = 0;
    pthread_mutex_lock(&mu);
    int k = sink_of(spec);
    for (size_t i = 0; k >= 0 && i < nconns; i++)
        n += conns[i].sink == k;
    pthread_mutex_unlock(&mu);
    return n;
}

void pcf_relay_drop(const char *spec)
{
    pthread_mutex_lock(&mu);
    int k = sink_of(spec);
    if (k >= 0) {
        /* what the ranks sent before they ended is read first (a rank
         * still running gets a moment, then its connection is closed) */
        uint64_t dl = pws_deadline_ms(200);
        /* connections not yet accepted, or not yet identified, may be this
         * launch's ranks': their hello is read before anything is dropped */
        accept_all();
        for (size_t i = nconns; i-- > 0;) {
            if (conns[i].sink != -1)
                continue;
            struct pollfd p = { .fd = conns[i].fd, .events = POLLIN };
            while (conns[i].sink == -1) {
                int w = (int)((dl > pws_now_usec() ? dl - pws_now_usec() : 0) / 1000);
                if (poll(&p, 1, w) <= 0)
                    break;
                if (!conn_read(i)) {
                    conn_close(i);
                    break;
                }
            }
        }
        for (size_t i = nconns; i-- > 0;) {
            if (conns[i].sink != k)
                continue;
            struct pollfd p = { .fd = conns[i].fd, .events = POLLIN };
            while (pws_now_usec() < dl || poll(&p, 1, 0) > 0) {
                int w = (int)((dl > pws_now_usec() ? dl - pws_now_usec() : 0) / 1000);
                if (poll(&p, 1, w) <= 0 || !conn_read(i))
                    break;
            }
            conn_close(i);
        }
        close(sinks[k].resfd);
        memset(&sinks[k], 0, sizeof sinks[k]);
        sinks[k].resfd = -1;
    }
    pthread_mutex_unlock(&mu);
}
