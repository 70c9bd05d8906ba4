/* Harness: the mock server's whole request path, in process.
 *
 * A job of four ranks on socketpairs: ranks 0-2 send what the input says,
 * rank 3 is an honest client that speaks only after the hostile ones are
 * done.  Input: [config byte] then records [h][n][n bytes]:
 *   config bits 0-1  persona: strict, hydra-4.0, hydra-4.1, slurm
 *          bit 2     a shared secret is configured (the auth challenge is live)
 *          bit 3     two simulated nodes (cyclic mapping)
 *          bit 4     small decoder limits (limit errors on short inputs)
 *          bit 5     PMI_PORT mode: connections start unbound (pms_attach_fd) and
 *                    become a rank by initack or fullinit, as over PMI_PORT
 *   record h         connection h % 3; (h >> 2) & 3: 0 write only (coalesces
 *                    with the next record), 1 write and let the server run,
 *                    2 write then half-close (EOF mid-command), 3 write then
 *                    close the connection
 *
 * Invariants beyond "no crash, no UB, no leak":
 *   - everything the server writes to any connection decodes without an
 *     error (and, in the strict persona, without a non-canonical form);
 *   - the honest rank is never starved: each of its requests (fullinit,
 *     with the auth challenge when a secret is set, then job-getid and a
 *     kvs-put) gets its response, unless a hostile rank took the job down
 *     (abort, or a persona that kills the job on bad input), in which case
 *     the server closes the honest connection instead of leaving it waiting,
 *     or, over PMI_PORT, a hostile connection claimed the honest rank first
 *     (the honest fullinit is then refused: an error response, or EOF; a
 *     claim still waiting for its authentication does not count),
 *     or the persona imitates Hydra's head-of-line blocking and a hostile
 *     rank holds part of a message (pms_server_hol_blocked), or Slurm's
 *     step-wide failure: after one failure nothing of the job is served
 *     (pms_job_unserved);
 *   - the event loop settles once the input stops (no busy loop);
 *   - the server frees everything (LeakSanitizer). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "pmiserver/server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { HOSTILE = 3, RANKS = HOSTILE + 1, HONEST = HOSTILE };

static const char *const personas[] = { "strict", "hydra-4.0", "hydra-4.1", "slurm" };
static const char secret[] = "fuzz-secret";

/* The client's end of one connection: raw fd plus a decoder for what the
 * server sends back. */
typedef struct peer {
    int fd;
    bool eof;
    pmc_decoder *dec;
} peer;

/* Run the server until it has nothing left to do right now.  A loop that
 * keeps reporting events with no new input is spinning: a bug. */
static void settle(pms_server *s)
{
    int quiet = 0, i = 0;
    for (; quiet < 2 && i < 10000; i++)
        quiet = pms_server_run(s, 0) > 0 ? 0 : quiet + 1;
    FZ_CHECK(quiet == 2, "the server's event loop does not settle: %d waits in a row reported "
             "events with no new input (a busy loop)", i);
}

/* Read what the server sent to p into its decoder. */
static void pull(peer *p)
{
    while (!p->eof && p->fd >= 0) {
        size_t avail;
        void *buf = pmc_decoder_space(p->dec, 65536, &avail);
        FZ_CHECK(buf != NULL, "decoder space");
        ssize_t n = read(p->fd, buf, avail);
        if (n > 0) {
            pmc_decoder_commit(p->dec, (size_t)n);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            break;
        p->eof = true; /* EOF, or ECONNRESET after the server closed on unread input */
    }
}

/* Read and decode what the server sent to a hostile rank: it must decode. */
static void drain(peer *p, bool strict_persona)
{
    pull(p);
    pmc_msg m;
    pmc_error e;
    int rc;
    while ((rc = pmc_decoder_next(p->dec, &m, &e)) == PMC_MSG)
        FZ_CHECK(!strict_persona || !(m.notes & FZ_NOTES_NONCANONICAL),
                 "the strict persona wrote a non-canonical message (notes 0x%x): %.*s",
                 (unsigned)m.notes, (int)m.raw.len, m.raw.ptr);
    if (rc == PMC_ERR) {
        fz_dump("server output", e.raw.ptr, e.raw.len);
        fz_fail(__FILE__, __LINE__, "the server wrote bytes its own codec rejects: %s at %llu: %s",
                pmc_errcode_name(e.code), (unsigned long long)e.offset, e.detail);
    }
    if (p->eof)
        FZ_CHECK(pmc_decoder_finish(p->dec, &e) == PMC_AGAIN,
                 "the server closed the connection in the middle of a message: %s", e.detail);
}

static void write_all(pms_server *s, peer *p, const uint8_t *b, size_t n)
{
    while (n && p->fd >= 0) {
        ssize_t w = send(p->fd, b, n, MSG_NOSIGNAL);
        if (w > 0) {
            b += w;
            n -= (size_t)w;
        } else if (w < 0 && errno == EAGAIN) {
            settle(s); /* the server reads; its replies may fill our side */
            pull(p);
        } else {
            return; /* the server closed the connection: the rest is lost, as on a real socket */
        }
    }
}

/* PMI_PORT mode: a hostile connection claimed the honest rank's rank before
 * it did, so the honest fullinit is refused, by an error response or (in a
 * persona that answers errors with silence) by closing the connection. */
static bool identity_stolen;

/* The honest rank: one request (built in `enc`), one response named `want`,
 * or an EOF when (and only when) the job was taken down or its rank was
 * claimed by another connection.  False on EOF. */
static bool honest_exchange(pms_server *s, pms_job *j, peer *p, pmc_enc *enc, const char *want,
                            pmc_msg *m)
{
    pmc_out out = { 0 };
    pmc_error e;
    FZ_CHECK(pmc_enc_end(enc, &pmc_dialect_strict, &out, &e) == 0,
             "encoding the honest request: %s", e.detail);
    write_all(s, p, (const uint8_t *)out.buf, out.len);
    pmc_out_free(&out);
    for (int round = 0; round < 1000; round++) {
        settle(s);
        pull(p);
        int rc;
        while ((rc = pmc_decoder_next(p->dec, m, &e)) == PMC_MSG) {
            if (pmc_slice_eq(m->name, want))
                return true; /* anything else before it is an unsolicited message */
            long long frc = 0;
            if (identity_stolen && pmc_slice_eq(m->name, "fullinit-response") &&
                pmc_msg_get_int(m, "rc", &frc) > 0 && frc != 0)
                return false; /* refused in place of the auth challenge */
        }
        FZ_CHECK(rc == PMC_AGAIN, "honest rank: undecodable reply: %s", e.detail);
        if (p->eof) {
            FZ_CHECK(pms_job_aborted(j) || identity_stolen || pms_job_unserved(j),
                     "the server closed the honest rank's connection while it waited for %s, "
                     "and the job was not taken down", want);
            return false;
        }
        /* the hydra personas stall a node behind a hostile rank's partial
         * message, as Hydra does (the honest rank writes whole messages);
         * the slurm persona stops serving the whole job after a failure,
         * as Slurm's agent does for the step */
        if (pms_server_hol_blocked(s) || pms_job_unserved(j))
            return false;
        pms_server_run(s, 1); /* nothing yet: give the loop a moment */
    }
    fz_fail(__FILE__, __LINE__, "the honest rank was starved: no %s after its request", want);
}

/* PMI-1 init line, fullinit (with the challenge when a secret is set),
 * job-getid, kvs-put. */
static void honest_session(pms_server *s, pms_job *j, peer *p, bool auth, bool port_mode)
{
    pmc_enc enc;
    pmc_msg m;
    identity_stolen = false;
    pmc_enc_begin(&enc, PMC_WIRE_V1, "init");
    pmc_enc_int(&enc, "pmi_version", 2);
    pmc_enc_int(&enc, "pmi_subversion", 0);
    if (!honest_exchange(s, j, p, &enc, "response_to_init", &m))
        return;

    identity_stolen = port_mode && pms_rank_bound(j, HONEST);
    pmc_enc_begin(&enc, PMC_WIRE_V2, "fullinit");
    pmc_enc_int(&enc, "pmirank", HONEST);
    if (auth)
        pmc_enc_str(&enc, "authtype", PMC_AUTH_TYPE);
    if (!honest_exchange(s, j, p, &enc, auth ? "auth-response" : "fullinit-response", &m))
        return;
    if (auth) {
        pmc_slice nonce = { 0 };
        FZ_CHECK(pmc_msg_get(&m, "authinfo", &nonce), "auth-response without authinfo");
        char digest[PMC_AUTH_DIGEST_HEX + 1];
        FZ_CHECK(pmc_auth_digest(secret, sizeof secret - 1, nonce.ptr, nonce.len, digest) == 0,
                 "digest");
        pmc_enc_begin(&enc, PMC_WIRE_V2, "auth-response-complete");
        pmc_enc_str(&enc, "authinfo", digest);
        if (!honest_exchange(s, j, p, &enc, "fullinit-response", &m))
            return;
    }
    pmc_enc_begin(&enc, PMC_WIRE_V2, "job-getid");
    if (!honest_exchange(s, j, p, &enc, "job-getid-response", &m))
        return;
    pmc_enc_begin(&enc, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&enc, "key", "honest");
    pmc_enc_str(&enc, "value", "3");
    honest_exchange(s, j, p, &enc, "kvs-put-response", &m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t cfg = data[0];
    const char *persona = personas[cfg & 3];
    bool strict_persona = (cfg & 3) == 0, auth = cfg & 4;

    pms_config c;
    pms_config_default(&c);
    c.persona = persona;
    c.log = fopen(getenv("FUZZ_SERVER_LOG") ? getenv("FUZZ_SERVER_LOG") : "/dev/null", "w");
    c.verbose = getenv("FUZZ_SERVER_LOG") ? 2 : 0;
    if (auth) {
        c.secret = secret;
        c.secret_len = sizeof secret - 1;
    }
    if (cfg & 8) {
        c.nodes = 2;
        c.mapping = PMS_MAP_CYCLIC;
    }
    if (cfg & 16) {
        /* small, yet room for the honest rank's requests (a 64-digit digest) */
        c.limits.max_key = 16;
        c.limits.max_val = 64;
        c.limits.max_pairs = 4;
        c.limits.max_frame = 128;
        c.limits.max_line = 128;
        c.limits.max_message = 512;
    }
    pms_server *s = pms_server_new(&c);
    FZ_CHECK(s != NULL, "server: %s", s ? "" : "setup failed");
    pms_job *j = pms_job_create(s, RANKS, NULL);
    FZ_CHECK(j != NULL, "job");

    /* the client side decodes leniently with limits large enough for every
     * persona (some store keys and values far beyond the defaults) */
    pmc_decoder_opts o;
    pmc_decoder_opts_default(&o);
    o.limits.max_key = o.limits.max_val = 65536;
    o.limits.max_line = o.limits.max_frame = 999999;
    o.limits.max_message = 4u << 20;
    if (!strict_persona)
        o.flags &= ~(uint32_t)PMC_DEC_SEMI_ESCAPE; /* Hydra and Slurm send ';' unescaped */
    peer P[RANKS];
    for (int r = 0; r < RANKS; r++) {
        if (cfg & 32) {
            int sv[2];
            FZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0, "socketpair");
            FZ_CHECK(pms_attach_fd(s, sv[0], j) != NULL, "attach an unbound connection");
            P[r].fd = sv[1];
        } else {
            P[r].fd = pms_attach_rank(s, j, r);
        }
        FZ_CHECK(P[r].fd >= 0, "attach rank %d", r);
        fcntl(P[r].fd, F_SETFL, fcntl(P[r].fd, F_GETFL) | O_NONBLOCK);
        P[r].eof = false;
        P[r].dec = pmc_decoder_new(&o);
        FZ_CHECK(P[r].dec != NULL, "decoder");
    }

    size_t pos = 1;
    while (pos + 2 <= size) {
        uint8_t h = data[pos], n = data[pos + 1];
        pos += 2;
        size_t len = n < size - pos ? n : size - pos;
        peer *p = &P[h % HOSTILE];
        int op = (h >> 2) & 3;
        write_all(s, p, data + pos, len);
        pos += len;
        if (op == 2 && p->fd >= 0)
            shutdown(p->fd, SHUT_WR);
        if (op == 3 && p->fd >= 0) {
            close(p->fd);
            p->fd = -1;
        }
        if (op != 0)
            settle(s);
        for (int r = 0; r < HOSTILE; r++)
            drain(&P[r], strict_persona);
    }
    settle(s);
    for (int r = 0; r < HOSTILE; r++)
        drain(&P[r], strict_persona);

    honest_session(s, j, &P[HONEST], auth, cfg & 32);

    for (int r = 0; r < RANKS; r++) {
        if (P[r].fd >= 0)
            close(P[r].fd);
        pmc_decoder_free(P[r].dec);
    }
    pms_server_free(s);
    fclose(c.log);
    return 0;
}
