/* The reply port: how the protocol handlers and the job state answer a
 * process (pms_port: its (job, rank) and ops).  A reply is built with the
 * codec's encoder (pmc_enc_* on the server's builder), encoded here in the
 * persona's dialect, and handed to the port's ops, which write it (peer.c: to its
 * connection, through the fault and mutant filters) or keeps it (a unit
 * test).  Nothing here knows a connection, and nothing here calls a layer
 * above: what a persona does with a protocol error beyond the answer goes
 * through the port too (ops->fatal). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* persona job_wide_failures: nothing of the job goes out any more */
static bool wedged(const pms_port *c)
{
    return c->job && c->job->wedged;
}

void pms_send_raw(pms_port *c, const void *buf, size_t len)
{
    if (c->dead || wedged(c))
        return;
    c->ops->raw(c, buf, len);
}

pmc_enc *pms_reply_begin(pms_port *c, pmc_wire wire, const char *cmd, pmc_slice thrid)
{
    pmc_enc *e = &c->srv->enc;
    pmc_enc_begin(e, wire, cmd);
    if (c->ops->begin)
        c->ops->begin(c, cmd, thrid);
    if (thrid.ptr && c->srv->persona->thrid_echo && wire == PMC_WIRE_V2)
        pmc_enc_slice(e, PMC_SLICE_LIT("thrid"), thrid);
    return e;
}

/* A reply the encoder refused (a value it cannot write in this dialect) is
 * answered with an error of the same name, never dropped: the client would
 * wait forever.  Returns false when even that cannot be written. */
static bool reply_unencodable(pms_port *c, pmc_out *o, pmc_wire wire, pmc_slice cmd,
                              pmc_slice thrid)
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
    return pmc_enc_end(e, pmc_dialect_get(s->persona->dialect), o, &err) == 0;
}

void pms_reply_send(pms_port *c)
{
    pms_server *s = c->srv;
    pmc_error err;
    pmc_out *o = c->ops->out(c);
    size_t before = o->len;
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
        pmc_enc_end(&s->enc, d, o, &err);
        o->len = before;
        return;
    }
    if (pmc_enc_end(&s->enc, d, o, &err) < 0) {
        char b[256];
        pmc_error_format(&err, b, sizeof b);
        pms_log(s, 0, "conn %d: cannot encode reply: %s; answering rc=%d instead", c->id, b,
                PMS_RC_FAIL);
        o->len = before;
        if (!reply_unencodable(c, o, wire, cmd, thrid)) {
            o->len = before;
            pms_log(s, 0, "conn %d (rank %d): cannot encode a reply, nor an error reply", c->id,
                    c->rank);
            c->ops->close(c, "cannot encode a reply, nor an error reply");
            return;
        }
    }
    if (s->cfg.verbose >= 2)
        pms_log(s, 2, "conn %d: S>C %.*s", c->id, (int)(o->len - before), o->buf + before);
    c->ops->send(c, o, before);
}

/* v1 values cannot hold spaces: error text becomes word_word. */
static void v1_words(char *t)
{
    for (; *t; t++)
        if (*t == ' ' || *t == '\n' || *t == '\r' || *t == ';')
            *t = '_';
}

/* GROUP-29: the reason an error answer to a group- request carries (NULL: not one) */
static const char *group_error_reason(const pms_port *c, pmc_wire wire, pmc_slice cmd,
                                      const char *text)
{
    if (!c->srv->groups || wire != PMC_WIRE_V2 || cmd.len < 6 || memcmp(cmd.ptr, "group-", 6))
        return NULL;
    /* GROUP-28: a request beyond the decoder's limits; else GROUP-17 */
    return strstr(text, "TOO_LONG") || strstr(text, "TOO_MANY") ? "limit" : "invalid";
}

void pms_reply_error(pms_port *c, pmc_wire wire, pmc_slice cmd, pmc_slice thrid, int rc,
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
        c->ops->fatal(c, text);
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
    const char *reason = group_error_reason(c, wire, cmd, text);
    pmc_enc *e = pms_reply_begin(c, wire == PMC_WIRE_V2 ? PMC_WIRE_V2 : PMC_WIRE_V1, name, thrid);
    pmc_enc_int(e, "rc", rc);
    if (reason)
        pmc_enc_str(e, "reason", reason); /* GROUP-29 */
    pmc_enc_str(e, wire == PMC_WIRE_V2 ? "errmsg" : "msg", text);
    pms_reply_send(c);
    if (c->ops->error_sent)
        c->ops->error_sent(c, wire);
}

void pms_port_close(pms_port *c, const char *why)
{
    if (!c->dead)
        c->ops->close(c, why);
}

void pms_port_close_after(pms_port *c, bool flush)
{
    if (!c->dead)
        c->ops->close_after(c, flush);
}

void pms_port_stop_reading(pms_port *c, const char *why)
{
    if (!c->dead && !c->deaf)
        c->ops->stop_reading(c, why);
}

void pms_port_drop_input(pms_port *c)
{
    if (!c->dead)
        c->ops->drop_input(c);
}

size_t pms_port_pending_input(const pms_port *c)
{
    return c->dead ? 0 : c->ops->pending_input(c);
}
