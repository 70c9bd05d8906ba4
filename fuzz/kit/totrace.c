/* pmifuzz-trace: a kit harness's crash input as a trace that
 * `pmi-trace replay` plays against the parser again.
 *
 *   pmifuzz-trace --server [--conns] INPUT > crash.trace
 *       the input is what a client sent: C>S events, for
 *       `pmi-trace replay --server crash.trace` against the server; with
 *       --conns, what several clients sent (a PMIFUZZ_SERVER_HARNESS_CONNS
 *       harness's input), dealt to r0, r1, ... as the kit deals it;
 *   pmifuzz-trace --client INPUT REQUESTS > crash.trace
 *       the input is what the server answered, REQUESTS what the library
 *       wrote (PMIFUZZ_REQUESTS_OUT=REQUESTS ./harness INPUT saves it):
 *       each request followed by the next answer and the frames a server
 *       sends unasked around it, for
 *       `pmi-trace replay --client crash.trace -- ./driver`;
 *   pmifuzz-trace --seed server|client [--conn LABEL] TRACE > seed
 *       the other way: one connection's bytes of a recorded session as a
 *       seed for a harness (a server harness takes what the client sent,
 *       a client harness what the server answered); --conn all: a job's
 *       clients in the order the several-client kit deals them.
 * Messages are framed by the codec; bytes it cannot frame go as raw events,
 * sent exactly as they are. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmicodec/pmicodec.h"
#include "pmifuzz/harness.h"
#include "pmitrace/trace.h"
#include "turns.h"

typedef struct chunk {
    const char *p;
    size_t n;
    int raw;     /* not a message the codec accepts */
    int unasked; /* a frame a server sends unasked (set lines after initack, group-event) */
    int cmd;     /* pmc_cmd when it decoded, PMC_CMD_UNKNOWN otherwise */
} chunk;

/* Split bytes into messages (and unframeable rest) with a lenient decoder. */
static size_t frame(const char *buf, size_t len, chunk *out, size_t max)
{
    pmc_decoder_opts o;
    pmc_decoder_opts_default(&o);
    o.flags |= PMC_DEC_NO_CONCAT | PMC_DEC_LEN_ATOI | PMC_DEC_EMPTY_KEYS;
    o.limits.max_line = o.limits.max_frame = 999999;
    o.limits.max_pairs = o.limits.max_key = o.limits.max_val = 1u << 20;
    o.limits.max_message = 1u << 24;
    pmc_decoder *d = pmc_decoder_new(&o);
    size_t pos = 0, n = 0;
    while (d && pos < len && n < max) {
        pmc_msg m;
        pmc_error e;
        size_t used = 0;
        int rc = pmc_decode_buffer(d, buf + pos, len - pos, pos, &m, &e, &used);
        int raw = rc != PMC_MSG;
        if (rc == PMC_AGAIN || (rc == PMC_ERR && (e.fatal || !used)))
            used = len - pos;
        out[n++] = (chunk){ buf + pos, used, raw, !raw && pmc_schema_unsolicited(m.cmd),
                            raw ? PMC_CMD_UNKNOWN : (int)m.cmd };
        pos += used;
    }
    pmc_decoder_free(d);
    return n;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    size_t r;
    while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap)
            b = realloc(b, cap *= 2);
    }
    fclose(f);
    if (!b)
        exit(2);
    *len = n;
    return b;
}

static void event(pmt_trace *t, pmt_side side, const chunk *c)
{
    static uint64_t usec;
    if (pmt_add_event(t, PMT_EV_DATA, usec += 1000, "r0", side, c->p, c->n) != 0)
        exit(2);
    if (c->raw)
        t->events[t->nevents - 1].form = PMT_FORM_RAW;
}

/* --server --conns: each message on the connection the kit gave it, each
 * close an end of stream on that connection */
static pmt_trace *conns_trace;
static int conns_open;
static void conns_event(int conn, const char *buf, size_t len)
{
    static uint64_t usec;
    char label[8];
    snprintf(label, sizeof label, "r%d", conn);
    usec += 1000;
    if (!buf) {
        if (pmt_add_event(conns_trace, PMT_EV_EOF, usec, label, PMT_CLIENT, NULL, 0) != 0)
            exit(2);
        return;
    }
    conns_open = conn + 1 > conns_open ? conn + 1 : conns_open;
    chunk c;
    size_t n = frame(buf, len, &c, 1);
    if (!n || pmt_add_event(conns_trace, PMT_EV_DATA, usec, label, PMT_CLIENT, buf, len) != 0)
        exit(2);
    if (c.raw || c.n != len)
        conns_trace->events[conns_trace->nevents - 1].form = PMT_FORM_RAW;
}

#define PMIFUZZ_TRACE_VERSION "pmifuzz-trace (pmi2-conform) 0.1.0"

static void usage(FILE *f)
{
    fputs("usage: pmifuzz-trace --server [--conns] INPUT > crash.trace\n"
          "       pmifuzz-trace --client INPUT REQUESTS > crash.trace\n"
          "       pmifuzz-trace --seed server|client [--conn LABEL] TRACE > seed\n"
          "  --server  INPUT is a server harness's input (what a client sent): a trace\n"
          "            for `pmi-trace replay --server`; --conns: several clients'\n"
          "            (a PMIFUZZ_SERVER_HARNESS_CONNS harness), one connection each\n"
          "  --client  INPUT is a client harness's input (the server's answers) and\n"
          "            REQUESTS what the library wrote (PMIFUZZ_REQUESTS_OUT): a trace for\n"
          "            `pmi-trace replay --client TRACE -- env PMIFUZZ_LIVE=1 ./harness`\n"
          "  --seed    the other way: the bytes of one connection of a recorded TRACE\n"
          "            (pmi-mockserver --trace, pmi-trace record) as a harness seed:\n"
          "            `server` writes what the client sent (C>S), `client` what the\n"
          "            server answered (S>C); --conn picks the connection (the first);\n"
          "            --conn all: a job's clients for a PMIFUZZ_SERVER_HARNESS_CONNS\n"
          "            harness, in the order it deals them (each up to its next fence,\n"
          "            barrier or finalize, in turn)\n"
          "  -h, --help     this text\n"
          "  -V, --version  print the version\n"
          "exit status: 0 written, 1 the trace has no such connection or no bytes on\n"
          "that side, 2 usage error or a file that cannot be read\n",
          f);
}

static int first_of_conn(const pmt_trace *t, pmt_side side, size_t i);

/* The bytes side sent on conn, in order, to f; how many. */
static size_t write_conn(FILE *f, const pmt_trace *t, pmt_side side, const char *conn)
{
    size_t bytes = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const pmt_event *ev = &t->events[i];
        if (ev->kind == PMT_EV_DATA && ev->side == side && strcmp(ev->conn, conn) == 0) {
            fwrite(ev->data, 1, ev->len, f);
            bytes += ev->len;
        }
    }
    return bytes;
}

/* What a job's clients sent, in the order the several-client kit deals
 * it back (pmifuzz_server_feed_conns): every connection's requests up to
 * the first that passes the turn (a fence, a barrier, finalize), one
 * connection after another, then every connection's next such part, and
 * so on; so the first part of each opens its client with its init, and
 * each client waits in its collective while the others reach theirs, as
 * the ranks of a job do.  Bytes to stdout; how many. */
static size_t write_dealt(const pmt_trace *t)
{
    enum { MAXCONN = 64, MAXCHUNK = 65536 };
    struct stream {
        char *buf;
        size_t len, next, nch;
        chunk *ch;
    } s[MAXCONN] = { 0 }; /* a stream whose bytes could not be gathered stays empty */
    size_t n = 0, bytes = 0;
    for (size_t i = 0; i < t->nevents && n < MAXCONN; i++) {
        if (!first_of_conn(t, PMT_CLIENT, i))
            continue;
        struct stream *c = &s[n++];
        FILE *f = open_memstream(&c->buf, &c->len);
        if (f) {
            write_conn(f, t, PMT_CLIENT, t->events[i].conn);
            fclose(f);
        }
        c->ch = calloc(MAXCHUNK, sizeof *c->ch);
        c->nch = c->buf && c->ch ? frame(c->buf, c->len, c->ch, MAXCHUNK) : 0;
    }
    for (int more = 1; more;) {
        more = 0;
        for (size_t k = 0; k < n; k++) {
            struct stream *c = &s[k];
            while (c->next < c->nch) {
                const chunk *m = &c->ch[c->next++];
                fwrite(m->p, 1, m->n, stdout);
                bytes += m->n;
                if (pf_passes_turn((pmc_cmd)m->cmd))
                    break;
            }
            more |= c->next < c->nch;
        }
    }
    for (size_t k = 0; k < n; k++) {
        free(s[k].buf);
        free(s[k].ch);
    }
    return bytes;
}

/* Whether event i is its connection's first data on side. */
static int first_of_conn(const pmt_trace *t, pmt_side side, size_t i)
{
    const pmt_event *ev = &t->events[i];
    if (ev->kind != PMT_EV_DATA || ev->side != side)
        return 0;
    for (size_t k = 0; k < i; k++)
        if (t->events[k].kind == PMT_EV_DATA && t->events[k].side == side &&
            strcmp(t->events[k].conn, ev->conn) == 0)
            return 0;
    return 1;
}

/* One side of one connection of a trace, its bytes in order, to stdout. */
static int seed(const char *what, const char *conn, const char *path)
{
    pmt_side side;
    if (strcmp(what, "server") == 0)
        side = PMT_CLIENT; /* a server harness is fed what clients send */
    else if (strcmp(what, "client") == 0)
        side = PMT_SERVER;
    else {
        fprintf(stderr, "pmifuzz-trace: --seed takes server or client, not \"%s\"\n", what);
        return 2;
    }
    pmt_trace t;
    pmt_error e;
    if (pmt_read_file(path, &t, &e) != 0) {
        char msg[400];
        pmt_error_format(&e, path, msg, sizeof msg);
        fprintf(stderr, "pmifuzz-trace: %s\n", msg);
        return 2;
    }
    size_t bytes = 0;
    if (conn && strcmp(conn, "all") == 0 && side == PMT_CLIENT) {
        /* a job's clients for a several-client harness, in the order it
         * deals them back */
        bytes = write_dealt(&t);
    } else if (conn && strcmp(conn, "all") == 0) {
        /* every connection's answers, one connection after another */
        for (size_t i = 0; i < t.nevents; i++)
            if (first_of_conn(&t, side, i))
                bytes += write_conn(stdout, &t, side, t.events[i].conn);
    } else {
        for (size_t i = 0; !conn && i < t.nevents; i++)
            if (t.events[i].kind == PMT_EV_DATA)
                conn = t.events[i].conn; /* the first connection with data */
        bytes = conn ? write_conn(stdout, &t, side, conn) : 0;
    }
    int rc = 0;
    if (!bytes) {
        fprintf(stderr, "pmifuzz-trace: %s: no %s bytes on connection %s\n", path,
                side == PMT_CLIENT ? "C>S" : "S>C", conn ? conn : "(none: the trace has no data)");
        rc = 1;
    }
    pmt_trace_free(&t);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc == 2 && (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0)) {
        puts(PMIFUZZ_TRACE_VERSION);
        return 0;
    }
    if (argc >= 4 && strcmp(argv[1], "--seed") == 0) {
        if (argc == 4)
            return seed(argv[2], NULL, argv[3]);
        if (argc == 6 && strcmp(argv[3], "--conn") == 0)
            return seed(argv[2], argv[4], argv[5]);
    }
    if (argc == 4 && strcmp(argv[1], "--server") == 0 && strcmp(argv[2], "--conns") == 0) {
        size_t n;
        char *b = slurp(argv[3], &n);
        pmt_trace t;
        pmt_trace_init(&t);
        pmt_add_source(&t, "pmifuzz crash reproducer: several clients' requests (C>S) to a "
                           "server, dealt as the kit's several-client harness deals them");
        pmt_add_meta(&t, "input", argv[3]);
        conns_trace = &t;
        pmifuzz_server_feed_conns((const uint8_t *)b, n, conns_event, 0);
        char ranks[16];
        snprintf(ranks, sizeof ranks, "%d", conns_open ? conns_open : 1);
        pmt_add_meta(&t, "ranks", ranks);
        int rc = pmt_write(stdout, &t, NULL, NULL);
        pmt_trace_free(&t);
        free(b);
        return rc != 0;
    }
    int client = argc == 4 && strcmp(argv[1], "--client") == 0;
    if (!client && !(argc == 3 && strcmp(argv[1], "--server") == 0)) {
        fprintf(stderr, "pmifuzz-trace: %s; try 'pmifuzz-trace --help'\n",
                argc < 2 ? "nothing to do" : "bad arguments");
        return 2;
    }
    enum { MAXC = 65536 };
    static chunk in[MAXC], rq[MAXC];
    size_t nin_b, nrq_b = 0;
    char *inb = slurp(argv[2], &nin_b);
    char *rqb = client ? slurp(argv[3], &nrq_b) : NULL;
    size_t nin = frame(inb, nin_b, in, MAXC), nrq = client ? frame(rqb, nrq_b, rq, MAXC) : 0;

    pmt_trace t;
    pmt_trace_init(&t);
    pmt_add_source(&t, client ? "pmifuzz crash reproducer: the server's answers (S>C) to a client "
                                "library, after each request it wrote (C>S)"
                              : "pmifuzz crash reproducer: a client's requests (C>S) to a server");
    pmt_add_meta(&t, "input", argv[2]);
    if (client && nrq && rq[0].n >= 11 && memcmp(rq[0].p, "cmd=initack", 11) == 0) {
        pmt_add_env(&t, "PMI_ID", "0"); /* served through PMI_PORT */
    } else {
        pmt_add_env(&t, "PMI_RANK", "0");
        pmt_add_env(&t, "PMI_SIZE", "1");
    }
    if (client && nrq) {
        /* where the library was: the last request it wrote (a crash ends
         * the run in or after reading that request's answer) */
        const pmc_cmdspec *cs = rq[nrq - 1].raw ? NULL : pmc_schema_get((pmc_cmd)rq[nrq - 1].cmd);
        char note[200];
        snprintf(note, sizeof note,
                 "the library wrote %zu request%s; the last, %s, is where it was when the run "
                 "ended (it died reading or after reading its answer)",
                 nrq, nrq == 1 ? "" : "s", cs ? cs->name : "bytes the codec does not frame");
        pmt_add_comment(&t, note);
    }
    if (client) {
        size_t i = 0, j = 0;
        for (; j < nrq; j++) {
            /* request, then the answer the library read next, with the
             * frames sent unasked before it (queued) and after it (read
             * before the next request: set lines after initack) */
            event(&t, PMT_CLIENT, &rq[j]);
            while (i < nin && in[i].unasked)
                event(&t, PMT_SERVER, &in[i++]);
            if (i < nin)
                event(&t, PMT_SERVER, &in[i++]);
            while (i < nin && in[i].unasked)
                event(&t, PMT_SERVER, &in[i++]);
        }
        for (; i < nin; i++)
            event(&t, PMT_SERVER, &in[i]);
        pmt_add_event(&t, PMT_EV_EOF, 1000 * (nin + nrq + 1), "r0", PMT_SERVER, NULL, 0);
    } else {
        for (size_t i = 0; i < nin; i++)
            event(&t, PMT_CLIENT, &in[i]);
        pmt_add_event(&t, PMT_EV_EOF, 1000 * (nin + 1), "r0", PMT_CLIENT, NULL, 0);
    }
    int rc = pmt_write(stdout, &t, NULL, NULL);
    pmt_trace_free(&t);
    free(inb);
    free(rqb);
    return rc != 0;
}
