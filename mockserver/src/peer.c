/* Peers: the protocol side of a connection.  peer.c is where the bytes
 * layer meets the protocol: it takes what a connection hands up (decoded
 * messages, decoding errors, the end of the stream, its close) and passes
 * requests to the dispatcher, and it implements the reply port
 * (pms_port_ops) over the connection, with the fault and mutant filters a
 * reply passes on its way down.  The handlers and the job state see the
 * peer and its port only. */
#include "internal.h"
#include "mutants_v1_robust.h"
#include "mutants_v2.h"
#include "v1_lenient.h"

#include <stdlib.h>
#include <string.h>

static pms_conn *conn_of(const pms_peer *p)
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
    const pms_persona *pe = p->srv->persona;
    c->hol = pe->hol_blocking || pms_mutant_v1r_holds(p);
    c->line_reads = pe->v1_one_read && p->version == 1;
    c->write_blocks = pe->blocking_writes || pms_mutant_v1r_write_blocks(p);
    p->synced_version = p->version + 1;
}

/* ---- the port over a connection ----------------------------------------- */

static void port_begin(pms_peer *p, const char *cmd, pmc_slice thrid)
{
    pms_fault_reply_begin(p, cmd, thrid);
}

static pmc_out *port_out(pms_peer *p)
{
    return pms_conn_out(conn_of(p));
}

static void port_send(pms_peer *p, pmc_out *o, size_t before)
{
    pms_mutant_v2_reply(p, o, before); /* --mutant: rewritten, held or added to */
    if (pms_fault_outgoing(p, o, before)) /* delayed, split or held (faults.c) */
        return;
    pms_conn_flush(conn_of(p));
}

static void port_raw(pms_peer *p, const void *buf, size_t len)
{
    pms_conn_write(conn_of(p), buf, len);
}

static void port_close(pms_peer *p, const char *why)
{
    pms_conn_close(conn_of(p), why);
}

static void port_close_after(pms_peer *p, bool flush)
{
    pms_conn_close_after(conn_of(p));
    if (flush)
        pms_conn_flush(conn_of(p));
}

static void port_stop_reading(pms_peer *p, const char *why)
{
    pms_conn_deafen(conn_of(p), why);
    p->deaf = conn_of(p)->deaf;
}

static void port_shut_reads(pms_peer *p)
{
    pms_conn_shut_reads(conn_of(p));
}

static void port_drop_input(pms_peer *p)
{
    pmc_decoder_reset(pms_conn_decoder(conn_of(p)));
}

static size_t port_pending_input(const pms_peer *p)
{
    return pmc_decoder_pending(pms_conn_decoder(conn_of(p)));
}

static void port_fatal(pms_peer *p, const char *why)
{
    pms_protocol_fatal(p, why);
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
    .error_sent = pms_mutant_v1r_error_sent,
};

/* ---- what the connection hands up ---------------------------------------- */

/* --require-auth: until the challenge succeeded a connection may send only
 * fullinit and auth-response-complete.  Anything else (a PMI-1 init, a
 * kvs-put before fullinit) gets an error and the connection closes, so no
 * request of an unauthenticated peer is ever served. */
static bool auth_gate(pms_peer *c, const pmc_msg *m)
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
    pms_port_close_after(c, true);
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

static void decode_error(pms_peer *c, const pmc_error *e)
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
            pms_conn_fail(conn_of(c), b);
        return;
    }
    /* CONCAT-10: the refused message had its one answer */
    if (e->code == PMC_E_CONCAT_DROPPED)
        return;
    /* ERR-6: no usable command name, no way to name a reply: close */
    if ((e->code == PMC_E_NO_CMD || e->code == PMC_E_CMD_EMPTY) &&
        c->srv->persona->on_error == PMS_ERR_REPLY) {
        pms_conn_fail(conn_of(c), b);
        return;
    }
    pms_reply_error(c, e->wire, e->cmd, e->thrid, pms_rc_of(e->code), "%s: %s",
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
    if (p->srv->persona->eof_unnoticed && c->fd >= 0 && p->version && !p->finalized) {
        /* slurmstepd holds the task's end too: no end of stream reaches it */
        pms_port_stop_reading(p, "end of stream (not noticed: the server keeps the connection)");
        return;
    }
    const char *tail = pms_mutant_v1r_eof_tail(p); /* --mutant: complete what is pending */
    if (tail && pmc_decoder_pending(pms_conn_decoder(c)) > 0)
        pms_conn_feed(c, tail, strlen(tail));
    if (c->dead)
        return;
    if (pms_conn_finish(c, &e) == PMC_ERR) {
        char b[320];
        pms_observe_decode_error(p, &e);
        pmc_error_format(&e, b, sizeof b);
        pms_rank_lost(p, b);
        pms_conn_fail(c, b); /* a message cut off by the peer's close */
        return;
    }
    pms_rank_lost(p, "connection closed before finalize");
    pms_conn_close(c, p->finalized ? "closed after finalize" : "closed before finalize");
}

static void up_lost(void *up, const char *why)
{
    pms_rank_lost(up, why);
}

static void up_fatal(void *up, const char *why)
{
    pms_protocol_fatal(up, why);
}

static void up_closed(void *up, const char *why)
{
    pms_peer *c = up;
    (void)why;
    c->dead = true;
    if (c->job) {
        pms_spawn_conn_gone(c); /* a half-received PMI-1 spawn or kvs-putall */
        pms_waits_drop_peer(c->job, c);
        if (c->rank >= 0 && !c->finalized) {
            pms_job_rank_gone(c->job, c->rank);
        } else if (c->rank >= 0) {
            c->job->ranks[c->rank].peer = NULL;
            pms_group_rank_gone(c->job, c->rank); /* GROUP-25: a closed connection ends it */
        }
    }
}

static void up_event(void *up, const char *what, const char *why)
{
    pms_peer *p = up;
    if (!strcmp(what, "close"))
        p->dead = true; /* as the connection is: the observer sees it closed */
    pms_observe_event(p, what, why);
}

static void up_bytes(void *up, bool from_client, const void *p, size_t n)
{
    pms_observe_bytes(up, from_client, p, n);
}

static bool up_read_filter(void *up, const void *p, size_t n, size_t pending)
{
    return pms_mutant_v1r_read(up, p, n, pending);
}

static bool up_holding(void *up)
{
    return pms_fault_holding(up);
}

static int up_rank(const void *up)
{
    return ((const pms_peer *)up)->rank;
}

/* the head-of-line group: same job, same node (mpich-wire.md B7) */
static void up_hol_key(const void *up, const void **group, int *node)
{
    const pms_peer *p = up;
    *group = p->job;
    *node = p->job && p->rank >= 0 ? p->job->ranks[p->rank].node : 0;
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
        const pms_peer *o = job->ranks[rank].peer;
        if (o && !o->dead)
            return NULL;
    }
    pms_peer *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->ops = &conn_port;
    p->srv = s;
    p->job = job;
    p->rank = -1;
    p->claim = -1;
    pms_conn *c = pms_conn_new(s, fd, &peer_up, p, rank);
    if (!c) {
        free(p);
        return NULL;
    }
    p->ctx = c;
    p->id = c->id;
    p->gen = c->gen;
    if (job && rank >= 0)
        pms_job_bind(job, p, rank);
    p->next = s->peers;
    if (s->peers)
        s->peers->prev = p;
    s->peers = p;
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
    pms_server *s = p->srv;
    if (p->prev)
        p->prev->next = p->next;
    else if (s->peers == p)
        s->peers = p->next;
    if (p->next)
        p->next->prev = p->prev;
    pms_faults_conn_free(p);
    free(p);
}
