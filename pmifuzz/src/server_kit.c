/* The server kit: the codec frames the input into messages; each goes to
 * the user's parser in a buffer of exactly its size (with PMIFUZZ_CSTRING,
 * its size and a NUL).  With several connections (pmifuzz_server_feed_conns)
 * the messages are dealt to clients the way a job's ranks interleave. */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "pmifuzz/harness.h"
#include "turns.h"

/* Where the pieces go: one connection's handle, or a connection's number
 * and the several-connection handle. */
typedef struct sink {
    pmifuzz_handle_fn one;
    pmifuzz_conn_fn conns;
    int conn;
    unsigned flags;
} sink;

/* Clients the server closed during this feed (pmifuzz_server_gone): their
 * further bytes and their close are not delivered. */
static bool gone_[PMIFUZZ_MAX_CONNS];

void pmifuzz_server_gone(int conn)
{
    if (conn >= 0 && conn < PMIFUZZ_MAX_CONNS)
        gone_[conn] = true;
}

static void deliver(const sink *s, const char *p, size_t n)
{
    if (s->conns && s->conn >= 0 && s->conn < PMIFUZZ_MAX_CONNS && gone_[s->conn])
        return;
    if (!p) { /* the peer closed */
        if (s->conns)
            s->conns(s->conn, NULL, 0);
        else
            s->one(NULL, 0);
        return;
    }
    size_t nul = (s->flags & PMIFUZZ_CSTRING) ? 1 : 0, sz = n + nul;
    char *copy = malloc(sz ? sz : 1); /* its own allocation: ASan sees the end */
    if (!copy)
        return;
    if (n)
        memcpy(copy, p, n);
    if (nul)
        copy[n] = '\0';
    if (s->conns)
        s->conns(s->conn, copy, n);
    else
        s->one(copy, n);
    free(copy);
}

/* The end of the message that starts at pos (the codec frames it; a
 * cut-off or unframeable rest runs to the end of the input).  *cmd: its
 * command when it decoded, PMC_CMD_UNKNOWN otherwise. */
static size_t message_end(pmc_decoder *d, const char *buf, size_t size, size_t pos, pmc_cmd *cmd)
{
    pmc_msg m;
    pmc_error err;
    size_t used = 0;
    int rc = d ? pmc_decode_buffer(d, buf + pos, size - pos, pos, &m, &err, &used) : PMC_AGAIN;
    if (cmd)
        *cmd = rc == PMC_MSG ? (pmc_cmd)m.cmd : PMC_CMD_UNKNOWN;
    if (rc == PMC_AGAIN || (rc == PMC_ERR && (err.fatal || !used)))
        used = size - pos;
    return pos + used;
}

static uint64_t input_hash(const char *buf, size_t size)
{
    uint64_t h = 0xcbf29ce484222325ull ^ size;
    for (size_t i = 0; i < size; i++)
        h = (h ^ (uint8_t)buf[i]) * 0x100000001b3ull;
    return h;
}

/* PMIFUZZ_CHUNKS: the bytes [from, to) in the pieces a socket may hand a
 * reader: a message whole, one byte, a few bytes (inside a length field),
 * all of a message but its last byte, or any run.  The cuts follow from the
 * input's own bytes (*h), so a crash file replays with the same pieces. */
static void feed_chunks(pmc_decoder *d, const char *buf, size_t from, size_t to, uint64_t *h,
                        const sink *s)
{
    size_t pos = from, end = from; /* end: of the message pos is in */
    while (pos < to) {
        *h ^= *h << 13, *h ^= *h >> 7, *h ^= *h << 17; /* xorshift64 */
        while (end <= pos)
            end = message_end(d, buf, to, end, NULL);
        size_t to_end = end - pos, n;
        switch (*h % 8) {
        case 0:
            n = 1;
            break;
        case 1:
            n = 1 + (size_t)(*h >> 8) % 7;
            break;
        case 2:
            n = 1 + (size_t)(*h >> 8) % (to - pos);
            break;
        case 3:
            n = to_end > 1 ? to_end - 1 : to_end;
            break;
        default:
            n = to_end;
            break;
        }
        if (n > to - pos)
            n = to - pos;
        deliver(s, buf + pos, n);
        pos += n;
    }
}

/* [from, to) of one connection, in the pieces flags ask for */
static void feed_run(pmc_decoder *d, const char *buf, size_t from, size_t to, uint64_t *h,
                     const sink *s)
{
    if (s->flags & PMIFUZZ_LINES) { /* as getline hands them: up to each LF */
        for (size_t pos = from, end; pos < to; pos = end) {
            const char *lf = memchr(buf + pos, '\n', to - pos);
            end = lf ? (size_t)(lf - buf) + 1 : to;
            deliver(s, buf + pos, end - pos);
        }
    } else if (s->flags & PMIFUZZ_CHUNKS)
        feed_chunks(d, buf, from, to, h, s);
    else if (s->flags & PMIFUZZ_WHOLE)
        deliver(s, buf + from, to - from);
    else
        for (size_t pos = from, end; pos < to; pos = end) {
            end = message_end(d, buf, to, pos, NULL);
            deliver(s, buf + pos, end - pos);
        }
}

void pmifuzz_server_feed(const uint8_t *data, size_t size, pmifuzz_handle_fn handle,
                         unsigned flags)
{
    const char *buf = (const char *)data;
    sink s = { .one = handle, .flags = flags };
    if (flags & PMIFUZZ_WHOLE && !(flags & (PMIFUZZ_CHUNKS | PMIFUZZ_LINES))) {
        deliver(&s, buf, size);
        if (flags & PMIFUZZ_CLOSE)
            deliver(&s, NULL, 0);
        return;
    }
    pmc_decoder_opts o;
    pf_decoder_opts(&o);
    pmc_decoder *d = pmc_decoder_new(&o); /* none: the rest as one piece */
    uint64_t h = input_hash(buf, size);
    feed_run(d, buf, 0, size, &h, &s);
    if (flags & (PMIFUZZ_CHUNKS | PMIFUZZ_CLOSE))
        deliver(&s, NULL, 0);
    pmc_decoder_free(d);
}

void pmifuzz_server_feed_conns(const uint8_t *data, size_t size, pmifuzz_conn_fn handle,
                               unsigned flags)
{
    const char *buf = (const char *)data;
    pmc_decoder_opts o;
    pf_decoder_opts(&o);
    pmc_decoder *d = pmc_decoder_new(&o);
    uint64_t h = input_hash(buf, size);
    memset(gone_, 0, sizeof gone_);
    int open = 1, cur = 0;
    bool spoke[PMIFUZZ_MAX_CONNS] = { false }; /* sent more than an initack */
    size_t run = 0; /* start of cur's run of messages */
    sink s = { .conns = handle, .flags = flags }; /* WHOLE: a call per run of messages */
    for (size_t pos = 0, end; pos < size; pos = end) {
        pmc_cmd c;
        end = message_end(d, buf, size, pos, &c);
        int next = cur;
        /* every session begins with init: a client that has spoken
         * already means a new one connected */
        if ((c == PMC_V1_INIT || c == PMC_V1_INITACK) && spoke[cur] && open < PMIFUZZ_MAX_CONNS)
            next = open++;
        if (next != cur) {
            s.conn = cur;
            feed_run(d, buf, run, pos, &h, &s);
            cur = next, run = pos;
        }
        spoke[cur] = spoke[cur] || c != PMC_V1_INITACK;
        if (pf_passes_turn(c) && open > 1) {
            s.conn = cur;
            feed_run(d, buf, run, end, &h, &s);
            cur = (cur + 1) % open, run = end;
        }
    }
    s.conn = cur;
    feed_run(d, buf, run, size, &h, &s);
    for (int k = 0; k < open; k++) { /* the job ends: every client closes */
        s.conn = k;
        deliver(&s, NULL, 0);
    }
    pmc_decoder_free(d);
}

void pmifuzz_harness_init(pmifuzz_side side)
{
    pmifuzz_config c = { .side = side, .wires = PMIFUZZ_WIRE_BOTH, .raw_damage = 4 };
    pmifuzz_configure(&c);
}

static int clients_seen_;

static void count_client(int conn, const char *buf, size_t len)
{
    (void)buf;
    (void)len;
    if (conn + 1 > clients_seen_)
        clients_seen_ = conn + 1;
}

int pmifuzz_server_clients(const uint8_t *data, size_t size)
{
    clients_seen_ = 0;
    pmifuzz_server_feed_conns(data, size, count_client, PMIFUZZ_WHOLE | PMIFUZZ_CLOSE);
    return clients_seen_ ? clients_seen_ : 1;
}
