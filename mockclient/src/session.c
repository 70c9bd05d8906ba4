/* pmisession: connection set-up, deadline-bounded I/O through the codec, and
 * the per-session transcript.  See include/pmisession/session.h. */
#define _GNU_SOURCE /* MSG_NOSIGNAL, vasprintf-free printf helpers */
#include "pmisession/session.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct pws_session {
    int fd;
    char label[32];
    pmc_decoder *dec;
    pmc_out out;
    pws_event *ev;
    size_t nev, cap;
    bool recording;
    bool eof;      /* the peer's end of stream was read */
    bool finished; /* pmc_decoder_finish was called after eof */
    int err_no;
    pws_observer_fn observer;
    void *observer_arg;
    /* the last PWS_TAIL bytes received, for showing where a decode error is */
    char tail[PWS_TAIL];
    uint64_t rx_total; /* bytes received so far */
    uint64_t dec_base; /* rx_total when the current decoder began */
};

static uint64_t epoch;

uint64_t pws_now_usec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
    if (!epoch)
        epoch = now ? now : 1;
    return now;
}

uint64_t pws_epoch_usec(void)
{
    if (!epoch)
        (void)pws_now_usec();
    return epoch;
}

uint64_t pws_deadline_ms(unsigned ms)
{
    return pws_now_usec() + (uint64_t)ms * 1000u;
}

const char *pws_result_name(int r)
{
    switch (r) {
    case 0: return "ok";
    case PWS_MSG: return "message";
    case PWS_BAD: return "decode-error";
    case PWS_EOF: return "eof";
    case PWS_TIMEOUT: return "timeout";
    case PWS_IOERR: return "io-error";
    case PWS_CLOSED: return "closed";
    default: return "unknown";
    }
}

/* ---------------------------------------------------------------- transcript */

static void record(pws_session *s, pws_ev_kind kind, const void *data, size_t len)
{
    if (!s->recording)
        return;
    if (s->nev == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 32;
        pws_event *ne = realloc(s->ev, nc * sizeof *ne);
        if (!ne)
            return; /* a transcript gap is better than failing the I/O */
        s->ev = ne;
        s->cap = nc;
    }
    pws_event *e = &s->ev[s->nev];
    e->kind = kind;
    e->usec = pws_now_usec() - pws_epoch_usec();
    e->data = NULL;
    e->len = 0;
    if (data) {
        e->data = malloc(len + 1);
        if (!e->data)
            return;
        memcpy(e->data, data, len);
        e->data[len] = 0;
        e->len = len;
    }
    s->nev++;
    if (s->observer)
        s->observer(s, e, false, s->observer_arg);
}

void pws_set_observer(pws_session *s, pws_observer_fn fn, void *arg)
{
    s->observer = fn;
    s->observer_arg = arg;
}

void pws_note(pws_session *s, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    record(s, PWS_EV_NOTE, buf, strlen(buf));
}

size_t pws_transcript_len(const pws_session *s)
{
    return s->nev;
}

const pws_event *pws_transcript(const pws_session *s, size_t *n)
{
    *n = s->nev;
    return s->ev;
}

pws_event *pws_transcript_take(pws_session *s, size_t *n)
{
    pws_event *ev = s->ev;
    *n = s->nev;
    s->ev = NULL;
    s->nev = s->cap = 0;
    return ev;
}

void pws_events_free(pws_event *ev, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(ev[i].data);
    free(ev);
}

void pws_set_recording(pws_session *s, bool on)
{
    s->recording = on;
}

/* ---------------------------------------------------------------- open/close */

static int errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int pws_open_fd(pws_session **out, int fd, const char *label, char *err, size_t errlen)
{
    *out = NULL;
    if (fd < 0)
        return errf(err, errlen, "invalid descriptor %d", fd);
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0)
        return errf(err, errlen, "descriptor %d: %s", fd, strerror(errno));
    /* Non-blocking: every wait is a poll() with a deadline, never a read(). */
    if (!(fl & O_NONBLOCK) && fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
        return errf(err, errlen, "descriptor %d: %s", fd, strerror(errno));
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    pws_session *s = calloc(1, sizeof *s);
    if (!s)
        return errf(err, errlen, "out of memory");
    s->dec = pmc_decoder_new(NULL);
    if (!s->dec) {
        free(s);
        return errf(err, errlen, "out of memory");
    }
    s->fd = fd;
    s->recording = true;
    snprintf(s->label, sizeof s->label, "%s", label ? label : "c0");
    (void)pws_epoch_usec();
    *out = s;
    return 0;
}

static int parse_fd(const char *v, int *fd)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < 0 || x > 1 << 20)
        return -1;
    *fd = (int)x;
    return 0;
}

int pws_open_env(pws_session **out, const char *label, char *err, size_t errlen)
{
    *out = NULL;
    const char *v = getenv("PMI_FD");
    if (v && *v) { /* ENV-2: PMI_FD wins */
        int fd;
        if (parse_fd(v, &fd) != 0)
            return errf(err, errlen, "PMI_FD=%s is not a descriptor number", v);
        return pws_open_fd(out, fd, label, err, errlen);
    }
    v = getenv("PMI_PORT");
    if (v && *v)
        return pws_connect(out, v, label, 10000, err, errlen);
    return errf(err, errlen, "neither PMI_FD nor PMI_PORT is set: not started by a PMI launcher");
}

/* Wait for a non-blocking connect() to finish. */
static int finish_connect(int fd, uint64_t deadline)
{
    for (;;) {
        uint64_t now = pws_now_usec();
        if (now >= deadline) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd p = { .fd = fd, .events = POLLOUT };
        int r = poll(&p, 1, (int)((deadline - now + 999) / 1000));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            continue;
        int e = 0;
        socklen_t el = sizeof e;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
            return -1;
        if (e) {
            errno = e;
            return -1;
        }
        return 0;
    }
}

static int connect_unix(const char *path, uint64_t deadline, char *err, size_t errlen)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof a.sun_path)
        return errf(err, errlen, "socket path too long: %s", path);
    memcpy(a.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return errf(err, errlen, "socket: %s", strerror(errno));
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0 &&
        (errno != EINPROGRESS && errno != EAGAIN)) {
        int e = errno;
        close(fd);
        return errf(err, errlen, "connect %s: %s", path, strerror(e));
    }
    if (finish_connect(fd, deadline) < 0) {
        int e = errno;
        close(fd);
        return errf(err, errlen, "connect %s: %s", path, strerror(e));
    }
    return fd;
}

static int connect_tcp(const char *addr, uint64_t deadline, char *err, size_t errlen)
{
    /* ENV-3: host, a colon, a decimal port; split at the last colon. */
    const char *colon = strrchr(addr, ':');
    if (!colon || colon == addr || !colon[1])
        return errf(err, errlen, "PMI_PORT '%s' is not host:port", addr);
    for (const char *p = colon + 1; *p; p++)
        if (*p < '0' || *p > '9')
            return errf(err, errlen, "PMI_PORT '%s': port is not a decimal number", addr);
    char host[256];
    size_t hl = (size_t)(colon - addr);
    if (addr[0] == '[' && hl >= 2 && addr[hl - 1] == ']') {
        addr++;
        hl -= 2;
    }
    if (hl >= sizeof host)
        return errf(err, errlen, "PMI_PORT host too long");
    memcpy(host, addr, hl);
    host[hl] = 0;
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
    struct addrinfo *res = NULL;
    int g = getaddrinfo(host, colon + 1, &hints, &res);
    if (g != 0)
        return errf(err, errlen, "PMI_PORT host '%s': %s", host, gai_strerror(g));
    int fd = -1, last = 0;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                    ai->ai_protocol);
        if (fd < 0) {
            last = errno;
            continue;
        }
        if ((connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 || errno == EINPROGRESS) &&
            finish_connect(fd, deadline) == 0)
            break;
        last = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0)
        return errf(err, errlen, "connect %s: %s", addr, strerror(last));
    int one = 1; /* small request/response messages: no Nagle delay */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

int pws_connect(pws_session **out, const char *addr, const char *label, unsigned timeout_ms,
                char *err, size_t errlen)
{
    *out = NULL;
    uint64_t deadline = pws_deadline_ms(timeout_ms);
    int fd;
    if (strncmp(addr, "unix:", 5) == 0)
        fd = connect_unix(addr + 5, deadline, err, errlen);
    else if (addr[0] == '/')
        fd = connect_unix(addr, deadline, err, errlen);
    else
        fd = connect_tcp(addr, deadline, err, errlen);
    if (fd < 0)
        return -1;
    if (pws_open_fd(out, fd, label, err, errlen) != 0) {
        close(fd);
        return -1;
    }
    return 0;
}

void pws_close(pws_session *s)
{
    if (!s)
        return;
    if (s->fd >= 0) {
        record(s, PWS_EV_CLOSE, NULL, 0);
        close(s->fd);
    }
    pmc_decoder_free(s->dec);
    pmc_out_free(&s->out);
    pws_events_free(s->ev, s->nev);
    free(s);
}

int pws_shutdown_write(pws_session *s)
{
    if (s->fd < 0)
        return PWS_CLOSED;
    if (shutdown(s->fd, SHUT_WR) < 0) {
        s->err_no = errno;
        return PWS_IOERR;
    }
    pws_note(s, "shutdown(SHUT_WR)");
    return 0;
}

const char *pws_label(const pws_session *s)
{
    return s->label;
}

int pws_fd(const pws_session *s)
{
    return s->fd;
}

int pws_errno(const pws_session *s)
{
    return s->err_no;
}

bool pws_eof(const pws_session *s)
{
    return s->eof;
}

int pws_set_decoder_opts(pws_session *s, const pmc_decoder_opts *o)
{
    pmc_decoder *d = pmc_decoder_new(o);
    if (!d)
        return -1;
    pmc_decoder_free(s->dec);
    s->dec = d;
    s->dec_base = s->rx_total;
    return 0;
}

/* ---------------------------------------------------------------- send */

static int wait_fd(int fd, short events, uint64_t deadline)
{
    for (;;) {
        uint64_t now = pws_now_usec();
        if (now >= deadline)
            return 0;
        struct pollfd p = { .fd = fd, .events = events };
        int r = poll(&p, 1, (int)((deadline - now + 999) / 1000));
        if (r < 0 && errno == EINTR)
            continue;
        return r < 0 ? -1 : r;
    }
}

/* One logical write: as few write() calls as the kernel allows, each recorded. */
static int write_all(pws_session *s, const char *p, size_t len, uint64_t deadline)
{
    if (s->fd < 0)
        return PWS_CLOSED;
    while (len) {
        if (s->observer) {
            pws_event next = { PWS_EV_SENT, pws_now_usec() - pws_epoch_usec(), (char *)p, len };
            s->observer(s, &next, true, s->observer_arg);
        }
        /* MSG_NOSIGNAL: a server that closed must not kill the harness with SIGPIPE */
        ssize_t w = send(s->fd, p, len, MSG_NOSIGNAL);
        if (w < 0 && errno == ENOTSOCK)
            w = write(s->fd, p, len);
        if (w > 0) {
            record(s, PWS_EV_SENT, p, (size_t)w);
            p += w;
            len -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int r = wait_fd(s->fd, POLLOUT, deadline);
            if (r == 0) {
                pws_note(s, "write blocked until the deadline (%zu bytes unsent)", len);
                return PWS_TIMEOUT;
            }
            if (r < 0) {
                s->err_no = errno;
                return PWS_IOERR;
            }
            continue;
        }
        s->err_no = w < 0 ? errno : EIO;
        pws_note(s, "write failed: %s", strerror(s->err_no));
        return PWS_IOERR;
    }
    return 0;
}

int pws_send_raw(pws_session *s, const void *buf, size_t len, uint64_t deadline)
{
    return write_all(s, buf, len, deadline);
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

int pws_send_split(pws_session *s, const void *buf, size_t len, const size_t *cuts, size_t ncuts,
                   unsigned delay_ms, uint64_t deadline)
{
    const char *p = buf;
    size_t at = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t end = i < ncuts ? cuts[i] : len;
        if (end > len)
            end = len;
        if (end <= at)
            continue;
        int rc = write_all(s, p + at, end - at, deadline);
        if (rc)
            return rc;
        at = end;
        if (i < ncuts && delay_ms)
            sleep_ms(delay_ms);
    }
    return 0;
}

int pws_send_enc(pws_session *s, pmc_enc *e, const pmc_dialect *d, uint64_t deadline,
                 pmc_error *err)
{
    pmc_error local;
    pmc_error *pe = err ? err : &local;
    pmc_out_reset(&s->out);
    if (pmc_enc_end(e, d, &s->out, pe) != 0) {
        pws_note(s, "encoder refused the message: %s", pmc_errcode_name(pe->code));
        return PWS_BAD;
    }
    return write_all(s, s->out.buf, s->out.len, deadline);
}

/* ---------------------------------------------------------------- receive */

size_t pws_received_at(const pws_session *s, uint64_t offset, size_t before, size_t after,
                       char *out, size_t outn, uint64_t *first)
{
    uint64_t at = s->dec_base + offset, lo = at > before ? at - before : 0, hi = at + after;
    if (s->rx_total > PWS_TAIL && lo < s->rx_total - PWS_TAIL)
        lo = s->rx_total - PWS_TAIL;
    if (lo < s->dec_base)
        lo = s->dec_base;
    if (hi > s->rx_total)
        hi = s->rx_total;
    if (first)
        *first = lo - s->dec_base;
    size_t n = 0;
    for (uint64_t i = lo; i < hi && n < outn; i++)
        out[n++] = s->tail[i % PWS_TAIL];
    return n;
}

/* Read once what is available; 1 bytes, 0 EOF, -1 error, -2 nothing yet. */
static int read_some(pws_session *s)
{
    size_t avail = 0;
    char *space = pmc_decoder_space(s->dec, 4096, &avail);
    if (!space) {
        s->err_no = ENOMEM;
        return -1;
    }
    for (;;) {
        ssize_t r = read(s->fd, space, avail);
        if (r > 0) {
            record(s, PWS_EV_RECV, space, (size_t)r);
            for (ssize_t i = 0; i < r; i++)
                s->tail[(s->rx_total + (uint64_t)i) % PWS_TAIL] = space[i];
            s->rx_total += (uint64_t)r;
            pmc_decoder_commit(s->dec, (size_t)r);
            return 1;
        }
        if (r == 0) {
            s->eof = true;
            record(s, PWS_EV_EOF, NULL, 0);
            return 0;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return -2;
        if (errno == ECONNRESET) { /* the peer went away: the same as EOF for a grader */
            s->eof = true;
            record(s, PWS_EV_EOF, NULL, 0);
            pws_note(s, "connection reset by peer");
            return 0;
        }
        s->err_no = errno;
        return -1;
    }
}

pws_result pws_recv(pws_session *s, uint64_t deadline, pmc_msg *m, pmc_error *err)
{
    pmc_error local;
    pmc_error *pe = err ? err : &local;
    pmc_error_clear(pe);
    if (s->fd < 0)
        return PWS_CLOSED;
    for (;;) {
        int rc = pmc_decoder_next(s->dec, m, pe);
        if (rc == PMC_MSG)
            return PWS_MSG;
        if (rc == PMC_ERR)
            return PWS_BAD;
        if (s->eof) {
            if (!s->finished) {
                s->finished = true;
                if (pmc_decoder_finish(s->dec, pe) == PMC_ERR)
                    pws_note(s, "end of stream inside a message");
            }
            return PWS_EOF;
        }
        int r = read_some(s);
        if (r == 1 || r == 0)
            continue;
        if (r == -1) {
            pws_note(s, "read failed: %s", strerror(s->err_no));
            return PWS_IOERR;
        }
        int w = wait_fd(s->fd, POLLIN, deadline);
        if (w == 0) {
            record(s, PWS_EV_TIMEOUT, NULL, 0);
            return PWS_TIMEOUT;
        }
        if (w < 0) {
            s->err_no = errno;
            return PWS_IOERR;
        }
    }
}

pws_result pws_wait_eof(pws_session *s, uint64_t deadline)
{
    if (s->fd < 0)
        return PWS_CLOSED;
    for (;;) {
        if (s->eof)
            return PWS_EOF;
        if (pmc_decoder_pending(s->dec))
            return PWS_MSG;
        int r = read_some(s);
        if (r == 1)
            return PWS_MSG;
        if (r == 0)
            return PWS_EOF;
        if (r == -1)
            return PWS_IOERR;
        int w = wait_fd(s->fd, POLLIN, deadline);
        if (w == 0) {
            record(s, PWS_EV_TIMEOUT, NULL, 0);
            return PWS_TIMEOUT;
        }
        if (w < 0) {
            s->err_no = errno;
            return PWS_IOERR;
        }
    }
}
