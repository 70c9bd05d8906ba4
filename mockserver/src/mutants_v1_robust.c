/* PMI-1 robustness mutants (issue 21): the strict persona with one clause
 * broken in how it reads PMI-1 lines and blocks, the way real PMI-1 servers
 * break: a fixed pair table, a line cut at a buffer size, a C string that
 * ends at NUL, a message run at the end of the stream, a reader that gives
 * up after an error.  Most act here, behind the hooks of
 * mutants_v1_robust.h; the abort and put ones are in v1_cmds.c, the spawn
 * one in spawn.c, the read and hold ones behind the connection's
 * callbacks (peer.c), the PMI_PORT ones in
 * v1_cmds.c too. */
#include "mutant.h"
#include "mutants_v1_robust.h"
#include "v1_lenient.h"

#include <stdlib.h>
#include <string.h>

/* What only port mode shows: the mutant's ranks get PMI_PORT by default. */
static void port_mode(pms_persona *p)
{
    p->port_mode = true;
}

const pms_mutant pms_mutants_v1_robust[] = {
    /* §4 framing, §2.2 connections */
    { "v1-pairs-table-64", "LIMIT-10", "a PMI-1 line of more than 66 pairs ends the job (a fixed pair table overflows)", NULL, NULL },
    { "v1-many-pairs-silent", "ERR-3", "a PMI-1 line above the pair limit is dropped without an answer", NULL, NULL },
    { "v1-partial-line-holds", "CONN-3", "part of a PMI-1 line on one connection stops the server reading the others", NULL, NULL },
    { "v1-eof-runs-line", "ERR-5", "at the end of the stream an unterminated PMI-1 line is run as if its LF had come", NULL, NULL },
    { "v1-eof-runs-block", "ERR-5", "at the end of the stream an mcmd block without endcmd is run", NULL, NULL },
    { "v1-line-cut-1024", "CONN-2", "a PMI-1 line above 1024 bytes is cut there; the rest is read as the next line", NULL, NULL },
    { "v1-short-first-read", "CONN-1", "a read of fewer than 4 bytes that starts a PMI-1 line is taken for a bad frame and the connection closed", NULL, NULL },
    { "v1-coalesced-64", "CONN-1", "of the PMI-1 lines that arrive in one read only the first 64 are served", NULL, NULL },
    { "v1-error-drops-rest", "ERR-4", "after a PMI-1 error answer the rest of that read is thrown away", NULL, NULL },
    { "v1-empty-cmd-answered", "ERR-6", "a PMI-1 line with an empty command name is answered cmd=error and the connection kept", NULL, NULL },
    { "v1-cmd-prefix-match", "ERR-7", "an unknown PMI-1 command that starts with a known one's name is run as that one", NULL, NULL },
    { "v1-cmd-cut-at-nul", "ERR-7", "a PMI-1 command name ends at a NUL byte (\"get_maxes\\0x\" is get_maxes)", NULL, NULL },
    { "v1-control-bytes-fatal", "ERR-1", "a PMI-1 line with a byte 0x01-0x08 ends the job", NULL, NULL },
    /* §4, §5.5, §5.6, §6 pairs and values */
    { "v1-bare-word-drops-rest", "V1-7", "the pairs after a bare word in a PMI-1 line are dropped", NULL, NULL },
    { "v1-empty-key-skipped", "KEY-5", "a PMI-1 pair with an empty key (\"=x\") is skipped, the line carried out", NULL, NULL },
    { "v1-last-dup-wins", "PAIR-4", "of a key repeated in a PMI-1 line the last occurrence is used", NULL, NULL },
    { "v1-value-cut-at-nul", "VAL-3", "a PMI-1 value is cut at a NUL byte and stored (\"a\\0b\" stores \"a\")", NULL, NULL },
    { "v1-key-cut-64", "LIMIT-3", "a put of a KVS key above 64 bytes stores it cut to 63 (B9), rc=0", NULL, NULL },
    { "v1-long-value-dropped", "LIMIT-3", "a put of a value above the limit answers rc=0 and stores nothing", NULL, NULL },
    /* §9.1 commands */
    { "v1-abort-no-exitcode-fatal", "V1CMD-21", "abort without exitcode crashes the server: the job ends with status 255, not 1", NULL, NULL },
    { "v1-abort-exitcode-atoi", "V1CMD-21", "abort reads exitcode with atoi: exitcode=junk ends the job with status 0", NULL, NULL },
    { "spawn-exec-unchecked", "ERR-11", "a spawn of a program that cannot run is answered rc=0", NULL, NULL },
    { "v1-spawn-bad-block-silent", "PAIR-6", "a malformed mcmd=spawn block is never answered", NULL, NULL },
    { "v1-spawn-no-execname-ok", "PAIR-6", "an mcmd=spawn block without execname is answered rc=0, nothing started", NULL, NULL },
    /* §9.1 PMI_PORT mode */
    { "v1-before-initack-silent", "V1CMD-4", "in PMI_PORT mode a command before initack is never answered", port_mode, NULL },
    { "v1-pmiid-taken-accepted", "V1CMD-30", "an initack naming a pmiid another live connection holds is answered as granted", port_mode, NULL },
    { "v1-mcmd-any-as-spawn", "ERR-7", "an mcmd block of any name is run as spawn", NULL, NULL },
    /* what the newcomer servers' audits found no case for */
    { "v1-error-echoes-cr", "V1-9", "the error answer to a PMI-1 command name holding a CR names it with the CR (\"cmd=get_maxes\\rx_result\")", NULL, NULL },
    { "v1-pairs-past-64-dropped", "LIMIT-10", "the pairs of a PMI-1 line after its 64th are dropped (a 64-entry pair table)", NULL, NULL },
    { "v1-no-cmd-silent", "ERR-3", "a PMI-1 line that does not start with cmd= is dropped without an answer, the connection kept", NULL, NULL },
    { "v1-line-1024-closed", "LIMIT-8", "a PMI-1 line of exactly 1024 bytes, LF included, closes the connection (a 1024-byte buffer that keeps a byte for the NUL)", NULL, NULL },
    { "v1-blocking-write", "CONN-9", "answers are written with blocking writes: a client that does not read its answers stops the server serving every other connection", NULL, NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

#define MUT(c, nm) PMS_MUTANT((c)->port.srv->persona, nm)

static const pmc_slice no_thrid = { NULL, 0 };

/* A copy of m with other pairs, served in its place. */
static void serve_pairs(pms_peer *c, const pmc_msg *m, const pmc_pair *pairs, size_t n)
{
    pmc_msg copy = *m;
    copy.pairs = pairs;
    copy.npairs = n;
    c->port.srv->serve(c, &copy);
}

static bool drop_earlier_dups(pms_peer *c, const pmc_msg *m)
{
    pmc_pair *keep = malloc((m->npairs + 1) * sizeof *keep);
    size_t n = 0;
    bool dup = false;
    if (!keep)
        return false;
    for (size_t i = 0; i < m->npairs; i++) {
        bool later = false;
        for (size_t j = i + 1; j < m->npairs; j++)
            later = later || pmc_slice_eqs(m->pairs[i].key, m->pairs[j].key);
        if (later)
            dup = true; /* PAIR-4 broken: a later occurrence replaces this one */
        else
            keep[n++] = m->pairs[i];
    }
    if (dup)
        serve_pairs(c, m, keep, n);
    free(keep);
    return dup;
}

/* Longer names first: "get" is a prefix of the others. */
static const char *const known[] = { "get_universe_size", "get_my_kvsname", "get_appnum",
                                     "get_maxes", "barrier_in", "finalize", "get", "put" };

static bool prefix_match(pms_peer *c, const pmc_msg *m)
{
    if (m->cmd != PMC_CMD_UNKNOWN)
        return false;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        size_t n = strlen(known[i]);
        if (m->name.len > n && memcmp(m->name.ptr, known[i], n) == 0) {
            pmc_msg copy = *m;
            copy.name = (pmc_slice){ known[i], n };
            copy.cmd = pmc_cmd_lookup(PMC_WIRE_V1, known[i], n);
            c->port.srv->serve(c, &copy);
            return true;
        }
    }
    return false;
}

static void spawn_ok(pms_peer *c)
{
    pmc_enc *e = pms_reply_begin(&c->port, PMC_WIRE_V1, "spawn_result", no_thrid);
    pmc_enc_int(e, "rc", 0);
    pms_reply_send(&c->port);
}

/* v1-error-echoes-cr: the unknown-command answer names the command as it
 * came, CR included.  The encoder writes no such name: it writes one with
 * every byte it refuses replaced, and the bytes are put back. */
static bool echo_raw_name(pms_peer *c, pmc_slice cmd)
{
    if (!cmd.ptr || !memchr(cmd.ptr, '\r', cmd.len) || cmd.len > 200)
        return false;
    char name[216];
    for (size_t i = 0; i < cmd.len; i++) {
        char ch = cmd.ptr[i];
        bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                     (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
        name[i] = plain ? ch : '_';
    }
    memcpy(name + cmd.len, "_result", 8);
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_error err;
    pmc_enc_begin(&e, PMC_WIRE_V1, name);
    pmc_enc_int(&e, "rc", PMS_RC_INVALID_ARGS);
    pmc_enc_str(&e, "msg", "unknown_command");
    bool ok = pmc_enc_end(&e, NULL, &o, &err) == 0 && o.len > 4 + cmd.len &&
              memcmp(o.buf, "cmd=", 4) == 0;
    if (ok) {
        memcpy(o.buf + 4, cmd.ptr, cmd.len);
        pms_send_raw(&c->port, o.buf, o.len);
    }
    pmc_out_free(&o);
    return ok;
}

static bool v1r_request(pms_peer *c, const pmc_msg *m)
{
    if (!c->port.srv->persona->mutant || m->wire == PMC_WIRE_V2)
        return false;
    if (MUT(c, "v1-error-echoes-cr") && m->cmd == PMC_CMD_UNKNOWN && echo_raw_name(c, m->name))
        return true;
    if (MUT(c, "v1-pairs-past-64-dropped") && m->npairs > 64) {
        serve_pairs(c, m, m->pairs, 64);
        return true;
    }
    if (MUT(c, "v1-line-1024-closed") && m->wire == PMC_WIRE_V1 && m->raw.len == 1024) {
        pms_port_close(&c->port, "a 1024-byte line fills the 1024-byte buffer: no room for its NUL");
        return true;
    }
    if (MUT(c, "v1-pairs-table-64") && m->npairs > 66) {
        pms_protocol_fatal(&c->port, "more pairs than the pair table holds");
        return true;
    }
    if (MUT(c, "v1-control-bytes-fatal"))
        for (size_t i = 0; i < m->raw.len; i++)
            if (m->raw.ptr[i] >= 1 && m->raw.ptr[i] <= 8) {
                pms_protocol_fatal(&c->port, "a control byte in a PMI-1 line");
                return true;
            }
    if (MUT(c, "v1-line-cut-1024") && m->wire == PMC_WIRE_V1 && m->raw.len > 1024) {
        char *b = malloc(m->raw.len + 1);
        if (!b)
            return false;
        memcpy(b, m->raw.ptr, 1024);
        b[1024] = '\n'; /* the buffer is full: what it holds is a line */
        memcpy(b + 1025, m->raw.ptr + 1024, m->raw.len - 1024);
        pms_v1_serve_bytes(c, b, m->raw.len + 1);
        free(b);
        return true;
    }
    if (MUT(c, "v1-bare-word-drops-rest"))
        for (size_t i = 0; i < m->npairs; i++)
            if (m->pairs[i].flags & PMC_PAIR_BARE) {
                serve_pairs(c, m, m->pairs, i);
                return true;
            }
    if (MUT(c, "v1-last-dup-wins") && drop_earlier_dups(c, m))
        return true;
    if (MUT(c, "v1-cmd-prefix-match") && prefix_match(c, m))
        return true;
    if (m->cmd == PMC_V1_SPAWN && MUT(c, "v1-spawn-bad-block-silent")) {
        pmc_vreport rep;
        return !pmc_validate(m, PMC_VAL_REQUEST, &rep); /* dropped unanswered */
    }
    if (m->cmd == PMC_V1_SPAWN && MUT(c, "v1-spawn-no-execname-ok") &&
        !pmc_msg_find(m, "execname")) {
        spawn_ok(c);
        return true;
    }
    if (m->wire == PMC_WIRE_V1_MCMD && m->cmd != PMC_V1_SPAWN && MUT(c, "v1-mcmd-any-as-spawn")) {
        pmc_msg copy = *m;
        copy.name = (pmc_slice){ "spawn", 5 };
        copy.cmd = PMC_V1_SPAWN;
        c->port.srv->serve(c, &copy);
        return true;
    }
    return false;
}

/* v1-error-drops-rest and v1-coalesced-64: what this thread's server saw. */
static _Thread_local pms_peer *err_conn, *read_conn;
static _Thread_local int served_in_read;

static void v1r_error_sent(pms_peer *c, pmc_wire wire)
{
    if (wire != PMC_WIRE_V2 && MUT(c, "v1-error-drops-rest"))
        err_conn = c;
}

static void v1r_after(pms_peer *c, const pmc_msg *m)
{
    if (!c->port.srv->persona->mutant || c->port.dead)
        return;
    if (err_conn == c && MUT(c, "v1-error-drops-rest")) {
        err_conn = NULL;
        pms_port_drop_input(&c->port); /* ERR-4 broken: the lines after the bad one are lost */
    }
    if (m->wire != PMC_WIRE_V2 && read_conn == c && MUT(c, "v1-coalesced-64") &&
        ++served_in_read >= 64)
        pms_port_drop_input(&c->port); /* CONN-1 broken: the rest of the read is lost */
}

static bool v1r_read(pms_peer *c, const char *p, size_t n, size_t before)
{
    if (!c->port.srv->persona->mutant)
        return false;
    read_conn = c;
    served_in_read = 0;
    return MUT(c, "v1-short-first-read") && c->version == 1 && before == 0 && n < 4 &&
           memcmp(p, "cmd=", n) == 0;
}

static bool v1r_holds(const pms_peer *c)
{
    return MUT(c, "v1-partial-line-holds") && c->version == 1;
}

static const char *v1r_eof_tail(const pms_peer *c)
{
    if (MUT(c, "v1-eof-runs-line"))
        return "\n";
    if (MUT(c, "v1-eof-runs-block"))
        return "endcmd\n";
    return NULL;
}

static bool v1r_write_blocks(const pms_peer *c)
{
    return MUT(c, "v1-blocking-write");
}

static bool v1r_decode_error(pms_peer *c, const pmc_error *e)
{
    if (!c->port.srv->persona->mutant)
        return false;
    if (MUT(c, "v1-no-cmd-silent") && e->fatal && e->wire == PMC_WIRE_V2 && c->version == 1) {
        /* ERR-3 broken: what is not a PMI-1 line is thrown away unanswered */
        pms_port_drop_input(&c->port);
        return true;
    }
    if (e->wire == PMC_WIRE_V2)
        return false;
    if (MUT(c, "v1-error-echoes-cr") && e->code == PMC_E_V1_CR && e->raw.len > 4 &&
        memcmp(e->raw.ptr, "cmd=", 4) == 0) {
        /* the name as a reader that splits at spaces and LF only sees it */
        size_t n = 4;
        while (n < e->raw.len && e->raw.ptr[n] != ' ' && e->raw.ptr[n] != '\n')
            n++;
        if (echo_raw_name(c, (pmc_slice){ e->raw.ptr + 4, n - 4 }))
            return true;
    }
    if (MUT(c, "v1-many-pairs-silent") && e->code == PMC_E_TOO_MANY_PAIRS)
        return true; /* ERR-3 broken: the client waits */
    if (MUT(c, "v1-empty-cmd-answered") && e->code == PMC_E_CMD_EMPTY) {
        pms_reply_error(&c->port, PMC_WIRE_V1, no_thrid, no_thrid, PMS_RC_UNKNOWN, "empty command name");
        return true;
    }
    if (MUT(c, "v1-long-value-dropped") && e->code == PMC_E_VAL_TOO_LONG &&
        pmc_slice_eq(e->cmd, "put")) {
        pmc_enc *enc = pms_reply_begin(&c->port, PMC_WIRE_V1, "put_result", no_thrid);
        pmc_enc_int(enc, "rc", 0);
        pms_reply_send(&c->port);
        return true;
    }
    if (MUT(c, "v1-cmd-cut-at-nul") && pms_v1_cmd_cut_at_nul(c, e))
        return true;
    if (MUT(c, "v1-value-cut-at-nul") && pms_v1_value_cut_at_nul(c, e))
        return true;
    return MUT(c, "v1-empty-key-skipped") && pms_v1_skip_empty_key(c, e);
}

/* the request filter's form: this family never rewrites *m */
static bool v1r_request_filter(pms_peer *c, const pmc_msg **m)
{
    return v1r_request(c, *m);
}

const pms_mutant_filters pms_mutant_v1r_filters = {
    .request = v1r_request_filter,
    .after = v1r_after,
    .decode_error = v1r_decode_error,
    .read = v1r_read,
    .eof_tail = v1r_eof_tail,
    .error_sent = v1r_error_sent,
    .write_blocks = v1r_write_blocks,
    .holds = v1r_holds,
};
