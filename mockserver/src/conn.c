/* Connections: non-blocking reads into the decoder, a write queue per
 * connection, replies built with the codec's encoder.  One slow or hostile
 * peer only ever costs its own buffer: nothing here blocks. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

/* Reads per readiness event before the loop serves others (fairness). */
enum { READS_PER_EVENT = 4 };

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
    if (job && rank >= 0 && !pms_job_bind(job, c, rank)) {
        pmc_decoder_free(c->dec);
        free(c);
        return NULL;
    }
    if (fd >= 0) {
        struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = c };
        if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
            pmc_decoder_free(c->dec);
            free(c);
            return NULL;
        }
    }
    c->next = s->conns;
    s->conns = c;
    pms_log(s, 1, "conn %d: open (fd %d, rank %d)", c->id, fd, rank);
    return c;
}

void pms_conn_close(pms_conn *c, const char *why)
{
    if (c->dead)
        return;
    pms_server *s = c->srv;
    pms_log(s, 1, "conn %d: close (rank %d): %s", c->id, c->rank, why);
    c->dead = true;
    if (c->fd >= 0) {
        epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
        c->fd = -1;
    }
    if (c->job) {
        pms_waits_drop_conn(c->job, c);
        if (c->rank >= 0 && !c->finalized)
            pms_job_rank_gone(c->job, c->rank);
        else if (c->rank >= 0)
            c->job->ranks[c->rank].conn = NULL;
    }
}

static void update_interest(pms_conn *c)
{
    if (c->fd < 0)
        return;
    bool want = c->out_off < c->out.len;
    if (want == c->want_write)
        return;
    struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | (want ? EPOLLOUT : 0),
                              .data.ptr = c };
    epoll_ctl(c->srv->epfd, EPOLL_CTL_MOD, c->fd, &ev);
    c->want_write = want;
}

void pms_conn_flush(pms_conn *c)
{
    if (c->dead || c->fd < 0)
        return;
    while (c->out_off < c->out.len) {
        ssize_t n = write(c->fd, c->out.buf + c->out_off, c->out.len - c->out_off);
        if (n > 0) {
            c->out_off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        pms_conn_close(c, n < 0 ? strerror(errno) : "write returned 0");
        return;
    }
    if (c->out_off == c->out.len) {
        pmc_out_reset(&c->out);
        c->out_off = 0;
        if (c->closing) {
            pms_conn_close(c, "finished");
            return;
        }
    }
    update_interest(c);
}

void pms_send_raw(pms_conn *c, const void *buf, size_t len)
{
    if (c->dead)
        return;
    if (pmc_out_append(&c->out, buf, len) < 0) {
        pms_conn_close(c, "out of memory for output");
        return;
    }
    pms_conn_flush(c);
}

pmc_enc *pms_reply_begin(pms_conn *c, pmc_wire wire, const char *cmd, pmc_slice thrid)
{
    pmc_enc *e = &c->srv->enc;
    pmc_enc_begin(e, wire, cmd);
    if (thrid.ptr && c->srv->persona->thrid_echo && wire == PMC_WIRE_V2)
        pmc_enc_slice(e, PMC_SLICE_LIT("thrid"), thrid);
    return e;
}

void pms_reply_send(pms_conn *c)
{
    pms_server *s = c->srv;
    pmc_error err;
    size_t before = c->out.len;
    const pmc_dialect *d = pmc_dialect_get(s->persona->dialect);
    if (pmc_enc_end(&s->enc, d, &c->out, &err) < 0) {
        char b[256];
        pmc_error_format(&err, b, sizeof b);
        pms_log(s, 0, "conn %d: cannot encode reply: %s", c->id, b);
        c->out.len = before;
        return;
    }
    if (s->cfg.verbose >= 2)
        pms_log(s, 2, "conn %d: S>C %.*s", c->id, (int)(c->out.len - before), c->out.buf + before);
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
    case PMS_ERR_CLOSE:
        pms_conn_close(c, text);
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
    pmc_enc *e = pms_reply_begin(c, wire == PMC_WIRE_V2 ? PMC_WIRE_V2 : PMC_WIRE_V1, name, thrid);
    pmc_enc_int(e, "rc", rc);
    pmc_enc_str(e, wire == PMC_WIRE_V2 ? "errmsg" : "msg", text);
    pms_reply_send(c);
}

int pms_rc_for(pmc_errcode code)
{
    switch (code) {
    case PMC_E_KEY_TOO_LONG: return PMS_RC_INVALID_KEY_LENGTH;
    case PMC_E_VAL_TOO_LONG: return PMS_RC_INVALID_VAL_LENGTH;
    case PMC_E_KEY_EMPTY:
    case PMC_E_KEY_CHARS:
    case PMC_E_NUL: return PMS_RC_INVALID_KEY;
    case PMC_E_MISSING_KEY:
    case PMC_E_BAD_INT:
    case PMC_E_BAD_BOOL:
    case PMC_E_INDEX:
    case PMC_E_COUNT:
    case PMC_E_RANGE: return PMS_RC_INVALID_ARG;
    case PMC_E_UNKNOWN_CMD: return PMS_RC_OTHER;
    default: return PMS_RC_INVALID_ARGS;
    }
}

static void decode_error(pms_conn *c, const pmc_error *e)
{
    char b[320];
    pmc_error_format(e, b, sizeof b);
    if (e->fatal) {
        /* The stream cannot be resynchronised: say why once, then close. */
        pms_conn_close(c, b);
        return;
    }
    pms_reply_error(c, e->wire, e->cmd, e->thrid, pms_rc_for(e->code), "%s: %s",
                    pmc_errcode_name(e->code), e->detail);
}

/* Decode and dispatch everything complete in the buffer. */
static void process(pms_conn *c)
{
    pmc_msg m;
    pmc_error e;
    int rc;
    while (!c->dead && !c->closing && (rc = pmc_decoder_next(c->dec, &m, &e)) != PMC_AGAIN) {
        if (rc == PMC_MSG) {
            if (c->srv->cfg.verbose >= 2)
                pms_log(c->srv, 2, "conn %d: C>S %.*s", c->id, (int)m.raw.len, m.raw.ptr);
            pms_dispatch(c, &m);
        } else {
            decode_error(c, &e);
        }
    }
}

int pms_conn_input(pms_conn *c, const void *buf, size_t len)
{
    if (c->dead)
        return -1;
    if (pmc_decoder_feed(c->dec, buf, len) < 0) {
        pms_conn_close(c, "out of memory for input");
        return -1;
    }
    process(c);
    return c->dead ? -1 : 0;
}

static void at_eof(pms_conn *c)
{
    pmc_error e;
    if (pmc_decoder_finish(c->dec, &e) == PMC_ERR) {
        char b[320];
        pmc_error_format(&e, b, sizeof b);
        pms_conn_close(c, b);
        return;
    }
    pms_conn_close(c, c->finalized ? "closed after finalize" : "closed before finalize");
}

void pms_conn_readable(pms_conn *c)
{
    for (int i = 0; i < READS_PER_EVENT && !c->dead; i++) {
        size_t avail = 0;
        void *p = pmc_decoder_space(c->dec, PMS_READ_CHUNK, &avail);
        if (!p) {
            pms_conn_close(c, "out of memory for input");
            return;
        }
        ssize_t n = read(c->fd, p, avail);
        if (n > 0) {
            pmc_decoder_commit(c->dec, (size_t)n);
            process(c);
            if ((size_t)n < avail)
                return;
            continue;
        }
        if (n == 0) {
            at_eof(c);
            return;
        }
        if (errno == EINTR) {
            i--;
            continue;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            pms_conn_close(c, strerror(errno));
        return;
    }
}
