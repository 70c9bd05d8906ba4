/* Peers: the protocol side of a connection.  peer.c is where the bytes
 * layer meets the protocol: it takes what a connection hands up (decoded
 * messages, decoding errors, the end of the stream, its close) and passes
 * requests to the dispatcher, and it implements the reply port
 * (pms_port_ops) over the connection, with the fault and mutant filters a
 * reply passes on its way down.  The handlers see the peer (its port and
 * its PMI session), the job state the port alone. */
#include "internal.h"
#include "v1_lenient.h"

#include <stdlib.h>
#include <string.h>

static pms_conn *conn_of(const pms_peer *p)
{
    return p->port.ctx;
}

static pms_conn *port_conn(const pms_port *p)
{
    return p->ctx;
}

/* What the connection must know of the session above it, set after each
 * request: whether it can hold its node (head-of-line blocking), and
 * whether it reads PMI-1 the way Slurm's agent does.  Its rank and node it
 * asks for when it needs them (up_rank, up_hol_key). */
static void sync_conn(pms_peer *p)
{
    if (p->synced_version == p->version + 1)
        return; /* both follow from the persona and the PMI version alone */
    pms_conn *c = conn_of(p);
    const pms_persona *pe = p->port.srv->persona;
    const pms_mutant_filters *mf = pms_filters(p);
    c->hol = pe->hol_blocking || (mf && mf->holds && mf->holds(p));
    c->line_reads = pe->v1_one_read && p->version == 1;
    c->write_blocks = pe->blocking_writes || (mf && mf->write_blocks && mf->write_blocks(p));
    p->synced_version = p->version + 1;
}

/* ---- the port over a connection ----------------------------------------- */

static void port_begin(pms_port *p, const char *cmd, pmc_slice thrid)
{
    pms_fault_reply_begin(pms_peer_of(p), cmd, thrid);
}

static pmc_out *port_out(pms_port *p)
{
    return pms_conn_out(port_conn(p));
}

static void port_send(pms_port *p, pmc_out *o, size_t before)
{
    const pms_mutant_filters *mf = pms_filters(pms_peer_of(p));
    if (mf && mf->reply)
        mf->reply(pms_peer_of(p), o, before); /* --mutant: rewritten, held or added to */
    if (pms_fault_outgoing(pms_peer_of(p), o, before)) /* delayed, split or held (faults.c) */
        return;
    pms_conn_flush(port_conn(p));
}

static void port_raw(pms_port *p, const void *buf, size_t len)
{
    pms_conn_write(port_conn(p), buf, len);
}

static void port_close(pms_port *p, const char *why)
{
    pms_conn_close(port_conn(p), why);
}

static void port_close_after(pms_port *p, bool flush)
{
    pms_conn_close_after(port_conn(p));
    if (flush)
        pms_conn_flush(port_conn(p));
}

static void port_stop_reading(pms_port *p, const char *why)
{
    pms_conn_deafen(port_conn(p), why);
    p->deaf = port_conn(p)->deaf;
}

static void port_shut_reads(pms_port *p)
{
    pms_conn_shut_reads(port_conn(p));
}

static void port_drop_input(pms_port *p)
{
    pmc_decoder_reset(pms_conn_decoder(port_conn(p)));
}

static size_t port_pending_input(const pms_port *p)
{
    return pmc_decoder_pending(pms_conn_decoder(port_conn(p)));
}

static void port_fatal(pms_port *p, const char *why)
{
    pms_protocol_fatal(p, why);
}

static void port_error_sent(pms_port *p, pmc_wire w)
{
    const pms_mutant_filters *mf = pms_filters(pms_peer_of(p));
    if (mf && mf->error_sent)
        mf->error_sent(pms_peer_of(p), w);
}

static const pms_port_ops conn_port = {
    .begin = port_begin,
    .out = port_out,
    .send = port_send,
    .raw = port_raw,
    .close = port_close,
    .close_after = port_close_after,
    .stop_reading = port_stop_reading,
    .shut_reads = port_shut_reads,
    .drop_input = port_drop_input,
    .pending_input = port_pending_input,
    .fatal = port_fatal,
    .error_sent = port_error_sent,
};

/* ---- what the connection hands up ---------------------------------------- */

/* --require-auth: until the challenge succeeded a connection may send only
 * fullinit and auth-response-complete.  Anything else (a PMI-1 init, a
 * kvs-put before fullinit) gets an error and the connection closes, so no
 * request of an unauthenticated peer is ever served. */
static bool auth_gate(pms_peer *c, const pmc_msg *m)
{
    const pms_server *s = c->port.srv;
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
    pms_log(c->port.srv, 0, "conn %d (rank %d): refused: %s", c->port.id, c->port.rank, why);
    pms_reply_error(&c->port, m->wire, m->name, m->thrid, PMS_RC_INIT, "%s", why);
    pms_port_close_after(&c->port, true);
    return false;
}

static void up_message(void *up, const pmc_msg *m)
{
    pms_peer *p = up;
    if (auth_gate(p, m))
        pms_dispatch(p, m);
    sync_conn(p);
}

/* Slurm's reading of a bad length field or a PMI-1 line where a frame
 * belongs: atoi of "cmd=ge" is 0, taken as a second PMI2_Init (pmi2.c:600). */
static bool slurm_drop(const pms_peer *c, const pmc_error *e)
{
    if (!c->port.srv->persona->bad_len_finalize)
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

static void decode_error(pms_peer *c, const pmc_error *e)
{
    char b[320];
    pmc_error_format(e, b, sizeof b);
    pms_observe_decode_error(c, e);
    const pms_mutant_filters *mf = pms_filters(c);
    if (mf && mf->decode_error && mf->decode_error(c, e))
        return; /* --mutant: dealt with by the mutant's filter */
    /* C string readers of PMI-1 lines (personas v1_cmd_nul_ends, v1_empty_key_skipped) */
    if (e->wire != PMC_WIRE_V2 && ((c->port.srv->persona->v1_cmd_nul_ends && pms_v1_cmd_cut_at_nul(c, e)) ||
                                   (c->port.srv->persona->v1_empty_key_skipped && pms_v1_skip_empty_key(c, e))))
        return;
    if (slurm_drop(c, e)) {
        pms_conn_drop_finalize(&c->port, b);
        return;
    }
    if ((e->code == PMC_E_LEN_LARGE && c->port.srv->persona->crash_on_big_frame) ||
        (e->code == PMC_E_V1_SPACES && c->port.srv->persona->crash_on_v1_spaces)) {
        pms_job_crash(&c->port, b);
        return;
    }
    if (e->fatal) {
        /* The stream cannot be resynchronised: say why once, then close
         * (Hydra: a framing error kills the job, mpich-wire.md §9). */
        if (c->port.srv->persona->on_error == PMS_ERR_KILL_JOB)
            pms_protocol_fatal(&c->port, b);
        else
            pms_conn_fail(conn_of(c), b);
        return;
    }
    /* CONCAT-10: the refused message had its one answer */
    if (e->code == PMC_E_CONCAT_DROPPED)
        return;
    /* ERR-6: no usable command name, no way to name a reply: close */
    if ((e->code == PMC_E_NO_CMD || e->code == PMC_E_CMD_EMPTY) &&
        c->port.srv->persona->on_error == PMS_ERR_REPLY) {
        pms_conn_fail(conn_of(c), b);
        return;
    }
    pms_reply_error(&c->port, e->wire, e->cmd, e->thrid, pms_rc_of(e->code), "%s: %s",
                    pmc_errcode_name(e->code), e->detail);
}

static void up_decode_error(void *up, const pmc_error *e)
{
    decode_error(up, e);
    sync_conn(up);
}

static void up_eof(void *up)
{
    pms_peer *p = up;
    pms_conn *c = conn_of(p);
    pmc_error e;
    if (p->port.srv->persona->eof_unnoticed && c->fd >= 0 && p->version && !p->port.finalized) {
        /* slurmstepd holds the task's end too: no end of stream reaches it */
        pms_port_stop_reading(&p->port, "end of stream (not noticed: the server keeps the connection)");
        return;
    }
    const pms_mutant_filters *mf = pms_filters(p);
    /* --mutant: complete what is pending */
    const char *tail = mf && mf->eof_tail ? mf->eof_tail(p) : NULL;
    if (tail && pmc_decoder_pending(pms_conn_decoder(c)) > 0)
        pms_conn_feed(c, tail, strlen(tail));
    if (c->dead)
        return;
    if (pms_conn_finish(c, &e) == PMC_ERR) {
        char b[320];
        pms_observe_decode_error(p, &e);
        pmc_error_format(&e, b, sizeof b);
        pms_rank_lost(&p->port, b);
        pms_conn_fail(c, b); /* a message cut off by the peer's close */
        return;
    }
    pms_rank_lost(&p->port, "connection closed before finalize");
    pms_conn_close(c, p->port.finalized ? "closed after finalize" : "closed before finalize");
}

static void up_lost(void *up, const char *why)
{
    pms_peer *p = up;
    pms_rank_lost(&p->port, why);
}

static void up_fatal(void *up, const char *why)
{
    pms_peer *p = up;
    pms_protocol_fatal(&p->port, why);
}

static void up_closed(void *up, const char *why)
{
    pms_port *c = &((pms_peer *)up)->port;
    (void)why;
    c->dead = true;
    if (c->job) {
        pms_spawn_conn_gone(c); /* a half-received PMI-1 spawn or kvs-putall */
        pms_waits_drop_port(c->job, c);
        if (c->rank >= 0 && !c->finalized) {
            pms_job_rank_gone(c->job, c->rank);
        } else if (c->rank >= 0) {
            c->job->ranks[c->rank].port = NULL;
            pms_group_rank_gone(c->job, c->rank); /* GROUP-25: a closed connection ends it */
        }
    }
}

static void up_event(void *up, const char *what, const char *why)
{
    pms_peer *p = up;
    if (!strcmp(what, "close"))
        p->port.dead = true; /* as the connection is: the observer sees it closed */
    pms_observe_event(p, what, why);
}

static void up_bytes(void *up, bool from_client, const void *p, size_t n)
{
    pms_observe_bytes(up, from_client, p, n);
}

static bool up_read_filter(void *up, const void *p, size_t n, size_t pending)
{
    const pms_mutant_filters *mf = pms_filters(up);
    return mf && mf->read && mf->read(up, p, n, pending);
}

static bool up_holding(void *up)
{
    return pms_fault_holding(up);
}

static int up_rank(const void *up)
{
    return ((const pms_peer *)up)->port.rank;
}

/* the head-of-line group: same job, same node (mpich-wire.md B7) */
static void up_hol_key(const void *up, const void **group, int *node)
{
    const pms_peer *p = up;
    *group = p->port.job;
    *node = p->port.job && p->port.rank >= 0 ? p->port.job->ranks[p->port.rank].node : 0;
}

static const pms_conn_up peer_up = {
    .message = up_message,
    .decode_error = up_decode_error,
    .eof = up_eof,
    .lost = up_lost,
    .fatal = up_fatal,
    .closed = up_closed,
    .event = up_event,
    .bytes = up_bytes,
    .read_filter = up_read_filter,
    .holding = up_holding,
    .rank = up_rank,
    .hol_key = up_hol_key,
};

/* ---- life ------------------------------------------------------------------ */

pms_conn *pms_open_conn(pms_server *s, int fd, pms_job *job, int rank)
{
    if (job && rank >= 0) { /* what pms_job_bind will accept */
        if (rank >= job->size)
            return NULL;
        const pms_port *o = job->ranks[rank].port;
        if (o && !o->dead)
            return NULL;
    }
    pms_peer *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->port.ops = &conn_port;
    p->port.srv = s;
    p->port.job = job;
    p->port.rank = -1;
    p->claim = -1;
    pms_conn *c = pms_conn_new(s, fd, &peer_up, p, rank);
    if (!c) {
        free(p);
        return NULL;
    }
    p->port.ctx = c;
    p->port.id = c->id;
    p->port.gen = c->gen;
    if (job && rank >= 0)
        pms_job_bind(job, &p->port, rank);
    p->port.next = s->ports;
    if (s->ports)
        s->ports->prev = &p->port;
    s->ports = &p->port;
    sync_conn(p);
    pms_observe_event(p, "open", "");
    return c;
}

pms_peer *pms_conn_peer(pms_conn *c)
{
    return c->up;
}

void pms_peer_free(pms_peer *p)
{
    pms_server *s = p->port.srv;
    pms_port *q = &p->port;
    if (q->prev)
        q->prev->next = q->next;
    else if (s->ports == q)
        s->ports = q->next;
    if (q->next)
        q->next->prev = q->prev;
    pms_faults_conn_free(p);
    free(p);
}
