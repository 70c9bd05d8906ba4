/* Connections: non-blocking reads into the decoder, a write queue per
 * connection, replies built with the codec's encoder, TLS when the listener
 * asks for it.  One slow or hostile peer only ever costs its own buffer:
 * nothing here blocks, a peer that does not read its replies stops being
 * read (backpressure) and is closed when it stays stuck. */
#include "internal.h"
#include "mutants_v1_robust.h"
#include "mutants_v2.h"
#include "v1_lenient.h"

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

static void trace_data(pms_conn *c, int side, const void *p, size_t n)
{
    pms_observe_bytes(c, side == PMT_CLIENT, p, n); /* faults.c */
    if (c->srv->trace)
        pms_trace_event(c->srv, c, PMT_EV_DATA, side, p, n);
}

/* An abnormal end: always logged (with the rank), whatever the verbosity. */
static void conn_fail(pms_conn *c, const char *why)
{
    if (c->dead)
        return;
    pms_log(c->srv, 0, "conn %d (rank %d%s): %s", c->id, c->rank, c->tls ? ", tls" : "", why);
    pms_conn_close(c, why);
}

pms_conn *pms_conn_new(pms_server *s, int fd, pms_job *job, int rank)
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
    c->job = job;
    c->rank = -1;
    c->claim = -1;
    if (job && rank >= 0 && !pms_job_bind(job, c, rank)) {
        pmc_decoder_free(c->dec);
        free(c);
        return NULL;
    }
    if (fd >= 0) {
        c->ev_mask = EPOLLIN | EPOLLRDHUP;
        struct epoll_event ev = { .events = c->ev_mask, .data.ptr = c };
        if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
            if (job && rank >= 0)
                job->ranks[rank].conn = NULL;
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
        pms_trace_event(s, c, PMT_EV_OPEN, PMT_SERVER, info, strlen(info));
    }
    pms_observe_event(c, "open", "");
    return c;
}

/* ---- head-of-line blocking (persona hol_blocking, mpich-wire.md B7) ------
 * Hydra's proxy reads a client with blocking reads until its message is
 * whole; meanwhile no other client of that proxy (same job, same node) is
 * read or served.  s->hol is the connection holding part of a message. */

static int node_of(const pms_conn *c)
{
    return c->job && c->rank >= 0 ? c->job->ranks[c->rank].node : 0;
}

static bool held(const pms_conn *c)
{
    const pms_conn *h = c->srv->hol;
    return h && h != c && !h->dead && h->job == c->job && node_of(h) == node_of(c);
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
    if (!s->persona->hol_blocking && !pms_mutant_v1r_holds(c))
        return;
    bool partial = !c->dead && !c->deaf && !c->paused && !c->closing && pmc_decoder_pending(c->dec) > 0;
    if (partial && !s->hol) {
        s->hol = c;
        pms_log(s, 1, "conn %d (rank %d): part of a message buffered: its node waits", c->id,
                c->rank);
    } else if (!partial && s->hol == c) {
        hol_release(s);
    }
}

void pms_conn_refused_identity(pms_conn *c)
{
    if (c->srv->persona->on_error == PMS_ERR_SILENT && c->rank < 0)
        pms_conn_close(c, "no free rank named on a PMI_PORT connection");
}

void pms_conn_close(pms_conn *c, const char *why)
{
    if (c->dead)
        return;
    pms_server *s = c->srv;
    pms_log(s, 1, "conn %d: close (rank %d): %s", c->id, c->rank, why);
    c->dead = true;
    if (s->hol == c)
        hol_release(s);
    pms_observe_event(c, "close", why);
    if (s->trace) {
        pms_trace_event(s, c, PMT_EV_NOTE, PMT_SERVER, why, strcspn(why, "\n"));
        pms_trace_event(s, c, PMT_EV_CLOSE, PMT_SERVER, NULL, 0);
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
    if (c->job) {
        pms_waits_drop_conn(c->job, c);
        if (c->rank >= 0 && !c->finalized) {
            pms_job_rank_gone(c->job, c->rank);
        } else if (c->rank >= 0) {
            c->job->ranks[c->rank].conn = NULL;
            pms_group_rank_gone(c->job, c->rank); /* GROUP-25: a closed connection ends it */
        }
    }
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
        conn_fail(c, "epoll_ctl failed");
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
            if ((c->srv->persona->blocking_writes || pms_mutant_v1r_write_blocks(c)) &&
                !c->tls) { /* wait for the peer, the whole server with it */
                struct pollfd pw = { .fd = c->fd, .events = POLLOUT };
                if (poll(&pw, 1, -1) >= 0 || errno == EINTR)
                    continue;
            }
            break;
        }
        conn_fail(c, why);
        return;
    }
    if (!unsent(c)) {
        pmc_out_reset(&c->out);
        c->out_off = 0;
        if (c->closing && !pms_fault_holding(c)) { /* held replies go out first */
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

/* persona job_wide_failures: nothing of the job goes out any more */
static bool wedged(const pms_conn *c)
{
    return c->job && c->job->wedged;
}

void pms_send_raw(pms_conn *c, const void *buf, size_t len)
{
    if (c->dead || wedged(c))
        return;
    if (pmc_out_append(&c->out, buf, len) < 0) {
        conn_fail(c, "out of memory for output");
        return;
    }
    pms_conn_flush(c);
}

pmc_enc *pms_reply_begin(pms_conn *c, pmc_wire wire, const char *cmd, pmc_slice thrid)
{
    pmc_enc *e = &c->srv->enc;
    pmc_enc_begin(e, wire, cmd);
    pms_fault_reply_begin(c, cmd, thrid);
    if (thrid.ptr && c->srv->persona->thrid_echo && wire == PMC_WIRE_V2)
        pmc_enc_slice(e, PMC_SLICE_LIT("thrid"), thrid);
    return e;
}

/* A reply the encoder refused (a value it cannot write in this dialect) is
 * answered with an error of the same name, never dropped: the client would
 * wait forever.  Returns false when even that cannot be written. */
static bool reply_unencodable(pms_conn *c, pmc_wire wire, pmc_slice cmd, pmc_slice thrid)
{
    pms_server *s = c->srv;
    pmc_enc *e = &s->enc;
    pmc_error err;
    pmc_enc_beginn(e, wire, cmd);
    if (thrid.ptr && s->persona->thrid_echo && wire == PMC_WIRE_V2)
        pmc_enc_slice(e, PMC_SLICE_LIT("thrid"), thrid);
    pmc_enc_int(e, "rc", PMS_RC_FAIL);
    pmc_enc_str(e, wire == PMC_WIRE_V2 ? "errmsg" : "msg",
                wire == PMC_WIRE_V2 ? "the server cannot encode this reply"
                                    : "the_server_cannot_encode_this_reply");
    return pmc_enc_end(e, pmc_dialect_get(s->persona->dialect), &c->out, &err) == 0;
}

void pms_reply_send(pms_conn *c)
{
    pms_server *s = c->srv;
    pmc_error err;
    size_t before = c->out.len;
    const pmc_dialect *d = pmc_dialect_get(s->persona->dialect);
    /* what an error answer needs, taken before pmc_enc_end releases the builder */
    pmc_wire wire = s->enc.wire;
    pmc_slice cmd = s->enc.cmd, thrid = { NULL, 0 };
    const pmc_field *f = s->enc.fields ? s->enc.fields : s->enc.inl;
    for (size_t i = 0; i < s->enc.n; i++)
        if (pmc_slice_eq(f[i].key, "thrid")) {
            thrid = f[i].val;
            break;
        }
    if (wedged(c)) { /* encoded and thrown away: the builder is released either way */
        pmc_enc_end(&s->enc, d, &c->out, &err);
        c->out.len = before;
        return;
    }
    if (pmc_enc_end(&s->enc, d, &c->out, &err) < 0) {
        char b[256];
        pmc_error_format(&err, b, sizeof b);
        pms_log(s, 0, "conn %d: cannot encode reply: %s; answering rc=%d instead", c->id, b,
                PMS_RC_FAIL);
        c->out.len = before;
        if (!reply_unencodable(c, wire, cmd, thrid)) {
            c->out.len = before;
            conn_fail(c, "cannot encode a reply, nor an error reply");
            return;
        }
    }
    if (s->cfg.verbose >= 2)
        pms_log(s, 2, "conn %d: S>C %.*s", c->id, (int)(c->out.len - before), c->out.buf + before);
    pms_mutant_v2_reply(c, before); /* --mutant: rewritten, held or added to */
    if (pms_fault_outgoing(c, before)) /* delayed, split or held (faults.c) */
        return;
    pms_conn_flush(c);
}

/* v1 values cannot hold spaces: error text becomes word_word. */
static void v1_words(char *t)
{
    for (; *t; t++)
        if (*t == ' ' || *t == '\n' || *t == '\r' || *t == ';')
            *t = '_';
}

void pms_reply_error(pms_conn *c, pmc_wire wire, pmc_slice cmd, pmc_slice thrid, int rc,
                     const char *fmt, ...)
{
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    pms_log(c->srv, 1, "conn %d: error rc=%d for '%.*s': %s", c->id, rc, (int)cmd.len,
            cmd.ptr ? cmd.ptr : "", text);
    switch (c->srv->persona->on_error) {
    case PMS_ERR_KILL_JOB:
        pms_protocol_fatal(c, text);
        return;
    case PMS_ERR_SILENT:
        return;
    case PMS_ERR_REPLY:
        break;
    }
    /* The reply names the request: "<cmd>-response" (v2), the schema's
     * reply for a known v1 command, "<cmd>_result" otherwise. */
    char name[96];
    const pmc_cmdspec *spec = cmd.ptr ? pmc_schema_lookup(wire == PMC_WIRE_V2 ? PMC_WIRE_V2 : PMC_WIRE_V1, cmd.ptr, cmd.len) : NULL;
    const pmc_cmdspec *reply = spec && spec->reply ? pmc_schema_get(spec->reply) : NULL;
    if (reply)
        snprintf(name, sizeof name, "%s", reply->name);
    else if (!cmd.ptr || !cmd.len)
        snprintf(name, sizeof name, "%s", wire == PMC_WIRE_V2 ? "error-response" : "error");
    else
        snprintf(name, sizeof name, wire == PMC_WIRE_V2 ? "%.*s-response" : "%.*s_result",
                 (int)(cmd.len > 80 ? 80 : cmd.len), cmd.ptr);
    if (wire != PMC_WIRE_V2)
        v1_words(text);
    else /* error text holds no ';': readable by clients that do not unescape */
        for (char *t = text; *t; t++)
            if (*t == ';')
                *t = ',';
    const char *reason = pms_group_error_reason(c, wire, cmd, text);
    pmc_enc *e = pms_reply_begin(c, wire == PMC_WIRE_V2 ? PMC_WIRE_V2 : PMC_WIRE_V1, name, thrid);
    pmc_enc_int(e, "rc", rc);
    if (reason)
        pmc_enc_str(e, "reason", reason); /* GROUP-29 */
    pmc_enc_str(e, wire == PMC_WIRE_V2 ? "errmsg" : "msg", text);
    pms_reply_send(c);
    pms_mutant_v1r_error_sent(c, wire);
}

/* Never read again, but kept open: what Slurm's agent does with a task it
 * gave up on (it holds both ends of the socketpair, setup.c:364). */
static void conn_deafen(pms_conn *c, const char *why)
{
    if (c->dead || c->deaf)
        return;
    pms_log(c->srv, 1, "conn %d (rank %d): not read any more: %s", c->id, c->rank, why);
    c->deaf = true;
    pmc_decoder_reset(c->dec);
    if (c->srv->hol == c)
        hol_release(c->srv);
    update_interest(c);
}

void pms_conn_drop_finalize(pms_conn *c, const char *why)
{
    if (c->dead || c->deaf)
        return;
    pms_log(c->srv, 0, "conn %d (rank %d): %s: finalize-response, then the connection is "
            "dropped", c->id, c->rank, why);
    pmc_enc *e = pms_reply_begin(c, PMC_WIRE_V2, "finalize-response", (pmc_slice){ NULL, 0 });
    pmc_enc_int(e, "rc", 0);
    pms_reply_send(c);
    conn_deafen(c, why);
    pms_job_wedge(c, why);
}

/* Slurm's reading of a bad length field or a PMI-1 line where a frame
 * belongs: atoi of "cmd=ge" is 0, taken as a second PMI2_Init (pmi2.c:600). */
static bool slurm_drop(const pms_conn *c, const pmc_error *e)
{
    if (!c->srv->persona->bad_len_finalize)
        return false;
    if (e->wire == PMC_WIRE_V1 && c->version == 2)
        return true;
    switch (e->code) {
    case PMC_E_LEN_SYNTAX:
    case PMC_E_LEN_SIGN:
    case PMC_E_LEN_EMPTY:
    case PMC_E_LEN_SHORT:
    case PMC_E_LEN_SPACES:
        return true;
    default:
        return false;
    }
}

static void decode_error(pms_conn *c, const pmc_error *e)
{
    char b[320];
    pmc_error_format(e, b, sizeof b);
    pms_observe_decode_error(c, e);
    if (pms_mutant_v2_decode_error(c, e) || pms_mutant_v1r_decode_error(c, e))
        return;
    /* C string readers of PMI-1 lines (personas v1_cmd_nul_ends, v1_empty_key_skipped) */
    if (e->wire != PMC_WIRE_V2 && ((c->srv->persona->v1_cmd_nul_ends && pms_v1_cmd_cut_at_nul(c, e)) ||
                                   (c->srv->persona->v1_empty_key_skipped && pms_v1_skip_empty_key(c, e))))
        return;
    if (slurm_drop(c, e)) {
        pms_conn_drop_finalize(c, b);
        return;
    }
    if ((e->code == PMC_E_LEN_LARGE && c->srv->persona->crash_on_big_frame) ||
        (e->code == PMC_E_V1_SPACES && c->srv->persona->crash_on_v1_spaces)) {
        pms_job_crash(c, b);
        return;
    }
    if (e->fatal) {
        /* The stream cannot be resynchronised: say why once, then close
         * (Hydra: a framing error kills the job, mpich-wire.md §9). */
        if (c->srv->persona->on_error == PMS_ERR_KILL_JOB)
            pms_protocol_fatal(c, b);
        else
            conn_fail(c, b);
        return;
    }
    /* CONCAT-10: the refused message had its one answer */
    if (e->code == PMC_E_CONCAT_DROPPED)
        return;
    /* ERR-6: no usable command name, no way to name a reply: close */
    if ((e->code == PMC_E_NO_CMD || e->code == PMC_E_CMD_EMPTY) &&
        c->srv->persona->on_error == PMS_ERR_REPLY) {
        conn_fail(c, b);
        return;
    }
    pms_reply_error(c, e->wire, e->cmd, e->thrid, pms_rc_of(e->code), "%s: %s",
                    pmc_errcode_name(e->code), e->detail);
}

/* --require-auth: until the challenge succeeded a connection may send only
 * fullinit and auth-response-complete.  Anything else (a PMI-1 init, a
 * kvs-put before fullinit) gets an error and the connection closes, so no
 * request of an unauthenticated peer is ever served. */
static bool auth_gate(pms_conn *c, const pmc_msg *m)
{
    const pms_server *s = c->srv;
    if (!s->cfg.require_auth || !s->cfg.secret || c->auth.state == PMC_AUTH_ACCEPTED)
        return true;
    if (m->wire == PMC_WIRE_V2 &&
        (m->cmd == PMC_V2_FULLINIT || m->cmd == PMC_V2_AUTH_RESPONSE_COMPLETE))
        return true;
    /* INIT-1: the init line comes first and grants nothing; a PMI-1 client
     * learns the server's answer and is refused at its next request. */
    if (m->wire == PMC_WIRE_V1 && m->cmd == PMC_V1_INIT)
        return true;
    char why[160];
    snprintf(why, sizeof why, "'%.*s' before authentication (this server requires authtype=%s)",
             (int)(m->name.len > 64 ? 64 : m->name.len), m->name.ptr ? m->name.ptr : "",
             PMC_AUTH_TYPE);
    pms_log(c->srv, 0, "conn %d (rank %d): refused: %s", c->id, c->rank, why);
    pms_reply_error(c, m->wire, m->name, m->thrid, PMS_RC_INIT, "%s", why);
    if (!c->dead) {
        c->closing = true;
        pms_conn_flush(c);
    }
    return false;
}

/* Backpressure: stop serving a connection whose replies back up. */
static void check_backlog(pms_conn *c)
{
    if (c->dead || c->fd < 0 || c->paused || unsent(c) <= c->srv->cfg.out_limit)
        return;
    c->paused = true;
    pms_log(c->srv, 1, "conn %d (rank %d): %zu bytes of replies unsent: not reading until the "
            "peer catches up", c->id, c->rank, unsent(c));
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
            if (auth_gate(c, &m))
                pms_dispatch(c, &m);
        } else {
            decode_error(c, &e);
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
        conn_fail(c, "out of memory for input");
        return -1;
    }
    process(c);
    hol_update(c);
    return c->dead ? -1 : 0;
}

static void at_eof(pms_conn *c)
{
    pmc_error e;
    if (c->srv->trace)
        pms_trace_event(c->srv, c, PMT_EV_EOF, PMT_CLIENT, NULL, 0);
    pms_observe_event(c, "eof", "");
    if (c->srv->persona->eof_unnoticed && c->fd >= 0 && c->version && !c->finalized) {
        /* slurmstepd holds the task's end too: no end of stream reaches it */
        conn_deafen(c, "end of stream (not noticed: the server keeps the connection)");
        return;
    }
    const char *tail = pms_mutant_v1r_eof_tail(c); /* --mutant: complete what is pending */
    if (tail && pmc_decoder_pending(c->dec) > 0 && pmc_decoder_feed(c->dec, tail, strlen(tail)) == 0)
        process(c);
    if (c->dead)
        return;
    if (pmc_decoder_finish(c->dec, &e) == PMC_ERR) {
        char b[320];
        pms_observe_decode_error(c, &e);
        pmc_error_format(&e, b, sizeof b);
        pms_rank_lost(c, b);
        conn_fail(c, b); /* a message cut off by the peer's close */
        return;
    }
    pms_rank_lost(c, "connection closed before finalize");
    pms_conn_close(c, c->finalized ? "closed after finalize" : "closed before finalize");
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
    return c->srv->persona->v1_one_read && c->version == 1 && !c->tls && c->fd >= 0;
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
        pms_rank_lost(c, why);
        conn_fail(c, why);
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
        conn_fail(c, "out of memory for input");
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
            conn_fail(c, "out of memory for input");
            return;
        }
        ssize_t n = conn_recv(c, p, avail, why, sizeof why);
        if (n > 0) {
            trace_data(c, PMT_CLIENT, p, (size_t)n);
            if (pms_mutant_v1r_read(c, p, (size_t)n, pmc_decoder_pending(c->dec))) {
                conn_fail(c, "a short read taken for a bad frame"); /* --mutant */
                return;
            }
            char tail[5]; /* the read's last bytes: p may move while messages are served */
            size_t tn = (size_t)n < sizeof tail ? (size_t)n : sizeof tail;
            memcpy(tail, (const char *)p + n - tn, tn);
            size_t before = pmc_decoder_pending(c->dec);
            pmc_decoder_commit(c->dec, (size_t)n);
            process(c);
            if (partial_length_after_message(c, before, (size_t)n, tail, tn)) {
                pms_protocol_fatal(c, "a partial length field after a complete message");
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
        pms_rank_lost(c, why);
        conn_fail(c, why);
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
        conn_fail(c, why);
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
        conn_fail(c, why);
    }
    return !c->dead && (c->resume || (c->tls && !c->paused && !c->closing &&
                                      pms_tls_pending(c->tls)));
}
