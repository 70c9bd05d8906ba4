/* Connections, the bytes layer: non-blocking reads into the decoder, a
 * write queue per connection, TLS when the listener asks for it.  One slow
 * or hostile peer only ever costs its own buffer: nothing here blocks, a
 * peer that does not read its replies stops being read (backpressure) and
 * is closed when it stays stuck.
 *
 * A connection calls nothing above it: decoded messages, decoding errors,
 * the end of the stream and its own close go up through the callbacks it
 * was given (pms_conn_up; peer.c is the layer above), and encoded bytes come
 * down through pms_conn_write.  It knows no persona rule but the ones about
 * reading bytes, and no job: head-of-line groups and line reads are set
 * from above. */
#include "internal.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pmitrace/trace.h"

/* Reads per readiness event before the loop serves others (fairness). */
enum { READS_PER_EVENT = 4 };
/* Drained output prefix worth compacting away (a slow reader's queue). */
enum { COMPACT_MIN = 65536 };
/* conn_recv / conn_send results besides a byte count */
enum { IO_EOF = 0, IO_AGAIN = -1, IO_FAIL = -2 };

static size_t unsent(const pms_conn *c)
{
    return c->out.len - c->out_off;
}

/* on every read and write: inlined, nothing called unless someone looks */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void trace_data(pms_conn *c, int side, const void *p, size_t n)
{
    if (c->srv->faults && c->upc->bytes) /* the observer (faults.c), when there is one */
        c->upc->bytes(c->up, side == PMT_CLIENT, p, n);
    if (c->srv->trace)
        pms_trace_event(c->srv, c->id, PMT_EV_DATA, side, p, n);
}

/* The rank the layer above bound this connection to, for the log (-1: none). */
static int rank_of(const pms_conn *c)
{
    return c->upc->rank ? c->upc->rank(c->up) : -1;
}

/* An abnormal end: always logged (with the rank), whatever the verbosity. */
void pms_conn_fail(pms_conn *c, const char *why)
{
    if (c->dead)
        return;
    pms_log(c->srv, 0, "conn %d (rank %d%s): %s", c->id, rank_of(c), c->tls ? ", tls" : "", why);
    pms_conn_close(c, why);
}

pms_conn *pms_conn_new(pms_server *s, int fd, const pms_conn_up *upc, void *up, int rank)
{
    pms_conn *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    pmc_decoder_opts o = s->dopts;
    c->dec = pmc_decoder_new(&o);
    if (!c->dec) {
        free(c);
        return NULL;
    }
    c->evkind = PMS_EV_CONN;
    c->srv = s;
    c->id = s->next_conn_id++;
    c->gen = c->id;
    c->fd = fd;
    c->upc = upc;
    c->up = up;
    if (fd >= 0) {
        c->ev_mask = EPOLLIN | EPOLLRDHUP;
        struct epoll_event ev = { .events = c->ev_mask, .data.ptr = c };
        if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
            s->next_conn_id--;
            pmc_decoder_free(c->dec);
            free(c);
            return NULL;
        }
    }
    c->next = s->conns;
    s->conns = c;
    pms_log(s, 1, "conn %d: open (fd %d, rank %d)", c->id, fd, rank);
    if (s->trace) {
        char info[64] = "";
        if (rank >= 0)
            snprintf(info, sizeof info, "rank=%d", rank);
        pms_trace_event(s, c->id, PMT_EV_OPEN, PMT_SERVER, info, strlen(info));
    }
    return c;
}

pmc_decoder *pms_conn_decoder(pms_conn *c)
{
    return c->dec;
}

/* ---- head-of-line blocking (persona hol_blocking, mpich-wire.md B7) ------
 * Hydra's proxy reads a client with blocking reads until its message is
 * whole; meanwhile no other client of that proxy (same job, same node) is
 * read or served.  s->hol is the connection holding part of a message. */

static bool held(const pms_conn *c)
{
    const pms_conn *h = c->srv->hol;
    if (!h || h == c || h->dead)
        return false;
    const void *hg, *cg;
    int hn, cn;
    h->upc->hol_key(h->up, &hg, &hn);
    c->upc->hol_key(c->up, &cg, &cn);
    return hg == cg && hn == cn;
}

static void update_interest(pms_conn *c);

static void hol_release(pms_server *s)
{
    s->hol = NULL;
    for (pms_conn *o = s->conns; o; o = o->next)
        if (!o->dead) {
            o->resume = true; /* serve what arrived meanwhile (pms_conn_service) */
            update_interest(o);
        }
}

/* After c's input was processed: it now holds part of a message, or no
 * longer does. */
static void hol_update(pms_conn *c)
{
    pms_server *s = c->srv;
    if (!c->hol)
        return;
    bool partial = !c->dead && !c->deaf && !c->paused && !c->closing && pmc_decoder_pending(c->dec) > 0;
    if (partial && !s->hol) {
        s->hol = c;
        pms_log(s, 1, "conn %d (rank %d): part of a message buffered: its node waits", c->id,
                rank_of(c));
    } else if (!partial && s->hol == c) {
        hol_release(s);
    }
}

void pms_conn_close(pms_conn *c, const char *why)
{
    if (c->dead)
        return;
    pms_server *s = c->srv;
    pms_log(s, 1, "conn %d: close (rank %d): %s", c->id, rank_of(c), why);
    c->dead = true;
    if (s->hol == c)
        hol_release(s);
    if (c->upc->event)
        c->upc->event(c->up, "close", why);
    if (s->trace) {
        pms_trace_event(s, c->id, PMT_EV_NOTE, PMT_SERVER, why, strcspn(why, "\n"));
        pms_trace_event(s, c->id, PMT_EV_CLOSE, PMT_SERVER, NULL, 0);
    }
    if (c->tls) {
        pms_tls_free(c->tls);
        c->tls = NULL;
    }
    if (c->fd >= 0) {
        epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
        c->fd = -1;
    }
    c->upc->closed(c->up, why); /* the waits, the rank, the groups (peer.c) */
}

/* Which readiness the connection waits for now.  Reading stops while the
 * replies back up (paused) or the connection is closing; a TLS write that
 * needs the peer's next record still reads, a TLS read that must send
 * (handshake) still writes. */
static void update_interest(pms_conn *c)
{
    if (c->fd < 0 || c->dead)
        return;
    bool wr_needs_rd = c->tls && pms_tls_write_wants_read(c->tls);
    bool rd_needs_wr = c->tls && pms_tls_read_wants_write(c->tls);
    uint32_t ev = 0;
    if (!c->paused && !c->closing && !held(c) && !c->deaf)
        ev |= EPOLLIN | EPOLLRDHUP;
    else if (wr_needs_rd)
        ev |= EPOLLIN;
    if ((unsent(c) && !wr_needs_rd) || rd_needs_wr)
        ev |= EPOLLOUT;
    if (!ev && (held(c) || c->deaf)) {
        /* nothing to wait for until the holder is done; EPOLLHUP would still
         * be reported (and spin the loop) if the fd stayed registered */
        if (!c->unwatched && epoll_ctl(c->srv->epfd, EPOLL_CTL_DEL, c->fd, NULL) == 0)
            c->unwatched = true;
        return;
    }
    if (ev == c->ev_mask && !c->unwatched)
        return;
    struct epoll_event e = { .events = ev, .data.ptr = c };
    if (epoll_ctl(c->srv->epfd, c->unwatched ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, c->fd, &e) < 0) {
        pms_conn_fail(c, "epoll_ctl failed");
        return;
    }
    c->unwatched = false;
    c->ev_mask = ev;
}

static ssize_t conn_send(pms_conn *c, const void *p, size_t n, char *why, size_t wn)
{
    if (c->tls)
        return pms_tls_write(c->tls, p, n, why, wn); /* same result codes */
    for (;;) {
        /* MSG_NOSIGNAL: a client that went away is this connection's error,
         * not a SIGPIPE for whatever process embeds the server */
        ssize_t r = send(c->fd, p, n, MSG_NOSIGNAL);
        if (r < 0 && errno == ENOTSOCK)
            r = write(c->fd, p, n);
        if (r > 0)
            return r;
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return IO_AGAIN;
        snprintf(why, wn, "write: %s", r < 0 ? strerror(errno) : "returned 0");
        return IO_FAIL;
    }
}

static ssize_t conn_recv(pms_conn *c, void *p, size_t n, char *why, size_t wn)
{
    if (c->tls)
        return pms_tls_read(c->tls, p, n, why, wn);
    for (;;) {
        ssize_t r = read(c->fd, p, n);
        if (r >= 0)
            return r;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return IO_AGAIN;
        snprintf(why, wn, "read: %s", strerror(errno));
        return IO_FAIL;
    }
}

void pms_conn_flush(pms_conn *c)
{
    if (c->dead || c->fd < 0)
        return;
    char why[256];
    while (unsent(c)) {
        const char *p = c->out.buf + c->out_off;
        ssize_t n = conn_send(c, p, unsent(c), why, sizeof why);
        if (n > 0) {
            trace_data(c, PMT_SERVER, p, (size_t)n);
            c->out_off += (size_t)n;
            c->blocked_ms = 0;
            continue;
        }
        if (n == IO_AGAIN) {
            if (!c->blocked_ms)
                c->blocked_ms = pms_now_ms();
            if (c->write_blocks &&
                !c->tls) { /* wait for the peer, the whole server with it */
                struct pollfd pw = { .fd = c->fd, .events = POLLOUT };
                if (poll(&pw, 1, -1) >= 0 || errno == EINTR)
                    continue;
            }
            break;
        }
        pms_conn_fail(c, why);
        return;
    }
    if (!unsent(c)) {
        pmc_out_reset(&c->out);
        c->out_off = 0;
        if (c->closing && !(c->upc->holding && c->upc->holding(c->up))) {
            /* held replies go out first */
            pms_conn_close(c, "finished");
            return;
        }
    } else if (c->out_off >= COMPACT_MIN && c->out_off * 2 >= c->out.len) {
        /* A slow reader must not make the queue grow by what it already
         * took.  TLS accepts the moved buffer (same bytes, new address). */
        memmove(c->out.buf, c->out.buf + c->out_off, unsent(c));
        c->out.len -= c->out_off;
        c->out_off = 0;
    }
    if (c->paused && unsent(c) <= c->srv->cfg.out_limit / 2) {
        c->paused = false;
        c->resume = true; /* the loop serves what was held back (pms_conn_service) */
        pms_log(c->srv, 1, "conn %d: replies drained, reading again", c->id);
    }
    update_interest(c);
}

void pms_conn_write(pms_conn *c, const void *buf, size_t len)
{
    if (c->dead)
        return;
    if (pmc_out_append(&c->out, buf, len) < 0) {
        pms_conn_fail(c, "out of memory for output");
        return;
    }
    pms_conn_flush(c);
}

pmc_out *pms_conn_out(pms_conn *c)
{
    return &c->out;
}

void pms_conn_close_after(pms_conn *c)
{
    c->closing = true;
}

void pms_conn_shut_reads(pms_conn *c)
{
    if (c->fd >= 0 && !c->tls)
        shutdown(c->fd, SHUT_RD);
}

/* Never read again, but kept open: what Slurm's agent does with a task it
 * gave up on (it holds both ends of the socketpair, setup.c:364). */
void pms_conn_deafen(pms_conn *c, const char *why)
{
    if (c->dead || c->deaf)
        return;
    pms_log(c->srv, 1, "conn %d (rank %d): not read any more: %s", c->id, rank_of(c), why);
    c->deaf = true;
    pmc_decoder_reset(c->dec);
    if (c->srv->hol == c)
        hol_release(c->srv);
    update_interest(c);
}

/* Backpressure: stop serving a connection whose replies back up. */
static void check_backlog(pms_conn *c)
{
    if (c->dead || c->fd < 0 || c->paused || unsent(c) <= c->srv->cfg.out_limit)
        return;
    c->paused = true;
    pms_log(c->srv, 1, "conn %d (rank %d): %zu bytes of replies unsent: not reading until the "
            "peer catches up", c->id, rank_of(c), unsent(c));
    update_interest(c);
}

/* Decode and dispatch everything complete in the buffer (until paused). */
static void process(pms_conn *c)
{
    pmc_msg m;
    pmc_error e;
    int rc;
    if (held(c) || c->deaf)
        return; /* served when the holder's message is whole (hol_release) */
    while (!c->dead && !c->closing && !c->paused &&
           (rc = pmc_decoder_next(c->dec, &m, &e)) != PMC_AGAIN) {
        if (rc == PMC_MSG) {
            if (c->srv->cfg.verbose >= 2)
                pms_log(c->srv, 2, "conn %d: C>S %.*s", c->id, (int)m.raw.len, m.raw.ptr);
            c->upc->message(c->up, &m);
        } else {
            c->upc->decode_error(c->up, &e);
        }
        check_backlog(c);
    }
}

int pms_conn_input(pms_conn *c, const void *buf, size_t len)
{
    if (c->dead)
        return -1;
    if (c->deaf)
        return 0;
    trace_data(c, PMT_CLIENT, buf, len);
    if (pmc_decoder_feed(c->dec, buf, len) < 0) {
        pms_conn_fail(c, "out of memory for input");
        return -1;
    }
    process(c);
    hol_update(c);
    return c->dead ? -1 : 0;
}

int pms_conn_feed(pms_conn *c, const void *buf, size_t len)
{
    if (c->dead || pmc_decoder_feed(c->dec, buf, len) < 0)
        return -1;
    process(c);
    return 0;
}

int pms_conn_finish(pms_conn *c, pmc_error *e)
{
    return pmc_decoder_finish(c->dec, e);
}

/* The end of the stream: the layer above decides what it means (a rank
 * lost, a message cut off, or nothing noticed at all). */
static void at_eof(pms_conn *c)
{
    if (c->srv->trace)
        pms_trace_event(c->srv, c->id, PMT_EV_EOF, PMT_CLIENT, NULL, 0);
    if (c->upc->event)
        c->upc->event(c->up, "eof", "");
    c->upc->eof(c->up);
}

/* persona partial_len_fatal: Hydra 4.0.2's proxy mis-parses 1-5 bytes of a
 * next length field that arrive in the same read as a complete message
 * (observed: frame/coalesced-straddle, frame/coalesced-partial-length). */
static bool partial_length_after_message(const pms_conn *c, size_t before, size_t n,
                                         const char *tail, size_t tn)
{
    size_t left = pmc_decoder_pending(c->dec);
    if (!c->srv->persona->partial_len_fatal || c->dead || left == 0 || left >= 6 ||
        left >= before + n || left > tn)
        return false; /* nothing consumed in this read, or not a short length field */
    const char *rest = tail + tn - left;
    /* the start of a PMI-1 line is no length field */
    return !(memcmp(rest, "cmd=", left < 4 ? left : 4) == 0 ||
             memcmp(rest, "mcmd=", left < 5 ? left : 5) == 0);
}

/* persona v1_one_read: Slurm's PMI-1 agent takes one read() of at most
 * 1024 bytes as one command, the text up to its first LF ("TODO: read until
 * newline", pmi1.c:608-611).  A read that does not start a command is
 * dropped; a 1024-byte read without LF is the command cut short, and the
 * rest of that line and the next line are lost (observed: the next line is
 * read together with the rest, pmi1/kvs/value-1024).  An mcmd block is
 * taken whole, as Slurm reads it. */
enum { SLURM_V1_READ = 1024 };

static bool v1_one_read(const pms_conn *c)
{
    return c->line_reads && !c->tls && c->fd >= 0;
}

static void v1_one_read_input(pms_conn *c)
{
    char buf[SLURM_V1_READ + 1], why[256];
    ssize_t n = conn_recv(c, buf, SLURM_V1_READ, why, sizeof why);
    if (n == IO_AGAIN)
        return;
    if (n == IO_EOF) {
        at_eof(c);
        return;
    }
    if (n < 0) {
        c->upc->lost(c->up, why);
        pms_conn_fail(c, why);
        return;
    }
    trace_data(c, PMT_CLIENT, buf, (size_t)n);
    const char *lf = memchr(buf, '\n', (size_t)n);
    if (c->v1_skip_lf > 0) {
        for (const char *p = buf; p < buf + n && c->v1_skip_lf > 0; p++)
            if (*p == '\n')
                c->v1_skip_lf--;
        return;
    }
    bool mcmd = n >= 5 && memcmp(buf, "mcmd=", 5) == 0;
    if (!mcmd && (n < 4 || memcmp(buf, "cmd=", 4) != 0)) {
        pms_log(c->srv, 1, "conn %d: a PMI-1 read that is no command, dropped", c->id);
        return;
    }
    size_t len = mcmd ? (size_t)n : lf ? (size_t)(lf - buf) + 1 : (size_t)n;
    if (!mcmd && !lf) {
        buf[len++] = '\n'; /* what Slurm parses ends where the read ended */
        if (n == SLURM_V1_READ)
            c->v1_skip_lf = 2;
    }
    if (pmc_decoder_feed(c->dec, buf, len) < 0) {
        pms_conn_fail(c, "out of memory for input");
        return;
    }
    process(c);
}

void pms_conn_readable(pms_conn *c)
{
    char why[256];
    if (c->deaf)
        return;
    if (v1_one_read(c)) {
        v1_one_read_input(c);
        update_interest(c);
        return;
    }
    if (held(c)) {
        update_interest(c);
        return;
    }
    for (int i = 0; i < READS_PER_EVENT && !c->dead && !c->deaf && !c->paused && !c->closing; i++) {
        size_t avail = 0;
        void *p = pmc_decoder_space(c->dec, PMS_READ_CHUNK, &avail);
        if (!p) {
            pms_conn_fail(c, "out of memory for input");
            return;
        }
        ssize_t n = conn_recv(c, p, avail, why, sizeof why);
        if (n > 0) {
            trace_data(c, PMT_CLIENT, p, (size_t)n);
            if (c->upc->read_filter &&
                c->upc->read_filter(c->up, p, (size_t)n, pmc_decoder_pending(c->dec))) {
                pms_conn_fail(c, "a short read taken for a bad frame"); /* --mutant */
                return;
            }
            char tail[5]; /* the read's last bytes: p may move while messages are served */
            size_t tn = (size_t)n < sizeof tail ? (size_t)n : sizeof tail;
            memcpy(tail, (const char *)p + n - tn, tn);
            size_t before = pmc_decoder_pending(c->dec);
            pmc_decoder_commit(c->dec, (size_t)n);
            process(c);
            if (partial_length_after_message(c, before, (size_t)n, tail, tn)) {
                c->upc->fatal(c->up, "a partial length field after a complete message");
                return;
            }
            hol_update(c);
            if ((size_t)n < avail && !(c->tls && !c->dead && pms_tls_pending(c->tls)))
                break;
            continue;
        }
        if (n == IO_EOF) {
            at_eof(c);
            return;
        }
        if (n == IO_AGAIN)
            break;
        c->upc->lost(c->up, why);
        pms_conn_fail(c, why);
        return;
    }
    update_interest(c);
}

void pms_conn_event(pms_conn *c, uint32_t events)
{
    if (c->dead)
        return;
    if (c->tls) {
        /* Either readiness can unblock either direction of a TLS session
         * (the handshake, a write waiting for a record): try both. */
        if (unsent(c))
            pms_conn_flush(c);
        if (!c->dead && !c->paused && !c->closing)
            pms_conn_readable(c);
    } else {
        if (events & EPOLLOUT)
            pms_conn_flush(c);
        if (!c->dead && !c->paused && !c->closing &&
            (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
            pms_conn_readable(c);
    }
    /* Not reading (paused or closing) and the peer is gone: nothing left
     * to deliver to. */
    if (!c->dead && (c->paused || c->closing) && (events & (EPOLLHUP | EPOLLERR))) {
        char why[96];
        snprintf(why, sizeof why, "peer hung up with %zu bytes of replies unsent", unsent(c));
        pms_conn_fail(c, why);
    }
    if (!c->dead)
        update_interest(c);
}

bool pms_conn_service(pms_conn *c, long long now_ms)
{
    if (c->dead)
        return false;
    if (c->resume && !c->paused) {
        c->resume = false;
        process(c);
        if (!c->dead)
            pms_conn_flush(c);
    }
    if (!c->dead && c->tls && !c->paused && !c->closing && pms_tls_pending(c->tls))
        pms_conn_readable(c);
    int stall = c->srv->cfg.stall_timeout_ms;
    if (!c->dead && (c->paused || c->closing) && unsent(c) && stall > 0 && c->blocked_ms &&
        now_ms - c->blocked_ms >= stall) {
        char why[160];
        snprintf(why, sizeof why, "peer does not read its replies: %zu bytes unsent, no progress "
                 "for %d ms", unsent(c), stall);
        pms_conn_fail(c, why);
    }
    return !c->dead && (c->resume || (c->tls && !c->paused && !c->closing &&
                                      pms_tls_pending(c->tls)));
}
