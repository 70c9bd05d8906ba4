/* The load engine: one epoll loop driving every local rank through the
 * handshake, the rounds (put, fence, get of every other rank's key), the
 * random gets and finalize.  A rank keeps one request outstanding (lock
 * step, as real PMI clients do), or up to --pipeline gets.  Phases are
 * synchronised among the local ranks so that each get phase has exact
 * boundaries for its throughput and for the server CPU it cost. */
#define _DEFAULT_SOURCE
#include "bench.h"
#include "connect.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

typedef enum step {
    ST_V1_INITACK, /* PMI_PORT, PMI-1: identify with initack pmiid= */
    ST_V1_SETS,    /* ... then three `set` lines */
    ST_INIT,       /* cmd=init (PMI-1 line for both protocols) */
    ST_V1_MAXES,
    ST_V1_KVSNAME,
    ST_V2_FULLINIT,
    ST_IDLE, /* between phases */
    ST_PUT,
    ST_FENCE,
    ST_GET,     /* get-all or random gets */
    ST_BARRIER, /* process mode: last collective before finalize */
    ST_FINALIZE,
    ST_CLOSED,
} step;

typedef enum gphase {
    G_HANDSHAKE,
    G_PUTFENCE,
    G_GETALL,
    G_RANDOM,
    G_BARRIER,
    G_FINALIZE,
    G_DONE
} gphase;

static const char *gphase_name[] = {"handshake",     "put/fence", "get-all", "random gets",
                                    "final barrier", "finalize",  "done"};

typedef struct brank {
    int fd;
    int rank; /* job rank */
    pmc_decoder *dec;
    pmc_out out;
    size_t out_off;
    bool pollout;
    step st;
    int sets_left;
    /* outstanding gets, oldest first */
    uint64_t sent_ns[BENCH_MAX_PIPELINE];
    int target[BENCH_MAX_PIPELINE];
    long seq[BENCH_MAX_PIPELINE]; /* PMI-2 thrid when pipelined */
    unsigned qhead, qlen;
    uint64_t single_sent; /* put, fence: one at a time */
    long issued, answered, total;
    uint64_t rng;
} brank;

typedef struct bench {
    const bench_cfg *cfg;
    bench_result *res;
    brank *r;
    int nr; /* local ranks */
    int size;
    int ep;
    bool port_mode; /* connections identify themselves (initack / pmirank) */
    gphase g;
    int round;   /* 0 .. warmup+rounds-1 */
    int pending; /* local ranks not done with the phase */
    bool stop;   /* fatal error or finished */
    int exit_code;
    char *vals; /* this round's value of every rank */
    char kvsname[256];
    pid_t spids[BENCH_MAX_SERVER_PIDS];
    int nspids;
    uint64_t phase_t0;
    int64_t phase_cpu0;
    uint64_t phase_self0;
} bench;

static void fatal(bench *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void fatal(bench *b, const char *fmt, ...)
{
    if (b->stop && b->exit_code)
        return; /* keep the first reason */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->res->note, sizeof b->res->note, fmt, ap);
    va_end(ap);
    b->res->incomplete = true;
    b->res->other_failures++;
    b->stop = true;
    b->exit_code = BENCH_EXIT_FAIL;
}

static bool measured(const bench *b)
{
    return b->round >= b->cfg->warmup;
}

/* Values look like MPI business cards: printable, no ';' (no escaping in v2)
 * and no space (PMI-1 forbids it), different for every rank and round. */
static void make_value(char *dst, size_t n, int round, int rank, uint64_t seed)
{
    static const char cs[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789#$.:-_/";
    uint64_t x =
        seed ^ ((uint64_t)(round + 1) << 32) ^ (uint64_t)(rank + 1) * 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        dst[i] = cs[x % (sizeof cs - 1)];
    }
}

static void key_of(char *buf, size_t n, int round, int rank)
{
    snprintf(buf, n, "bench-%d-%d", round, rank);
}

/* ------------------------------------------------------------------ I/O */

static void set_pollout(bench *b, brank *r, bool on)
{
    if (r->pollout == on)
        return;
    struct epoll_event ev = {.events = EPOLLIN | (on ? EPOLLOUT : 0),
                             .data.u32 = (uint32_t)(r - b->r)};
    if (epoll_ctl(b->ep, EPOLL_CTL_MOD, r->fd, &ev) == 0)
        r->pollout = on;
}

static void flush(bench *b, brank *r)
{
    while (r->out_off < r->out.len) {
        ssize_t n = write(r->fd, r->out.buf + r->out_off, r->out.len - r->out_off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                set_pollout(b, r, true);
                return;
            }
            fatal(b, "rank %d: write: %s", r->rank, strerror(errno));
            return;
        }
        r->out_off += (size_t)n;
    }
    pmc_out_reset(&r->out);
    r->out_off = 0;
    set_pollout(b, r, false);
}

static void send_enc(bench *b, brank *r, pmc_enc *e)
{
    pmc_error err;
    size_t before = r->out.len;
    if (pmc_enc_end(e, b->cfg->dialect, &r->out, &err) < 0) {
        fatal(b, "rank %d: cannot encode a request: %s", r->rank, err.detail);
        return;
    }
    b->res->bytes_out += r->out.len - before;
    flush(b, r);
}

/* ------------------------------------------------------------ requests */

static void send_simple(bench *b, brank *r, pmc_wire w, const char *cmd)
{
    pmc_enc e;
    pmc_enc_begin(&e, w, cmd);
    send_enc(b, r, &e);
}

static void send_init(bench *b, brank *r)
{
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V1, "init"); /* PMI-2 clients open with a PMI-1 line too */
    pmc_enc_int(&e, "pmi_version", b->cfg->proto == 2 ? 2 : 1);
    pmc_enc_int(&e, "pmi_subversion", b->cfg->proto == 2 ? 0 : 1);
    r->st = ST_INIT;
    send_enc(b, r, &e);
}

static void send_put(bench *b, brank *r)
{
    char key[64];
    key_of(key, sizeof key, b->round, r->rank);
    const char *v = b->vals + (size_t)r->rank * b->cfg->value_size;
    pmc_enc e;
    pmc_enc_begin(&e, b->cfg->proto == 2 ? PMC_WIRE_V2 : PMC_WIRE_V1,
                  b->cfg->proto == 2 ? "kvs-put" : "put");
    if (b->cfg->proto == 1)
        pmc_enc_str(&e, "kvsname", b->kvsname);
    pmc_enc_str(&e, "key", key);
    pmc_enc_slice(&e, PMC_SLICE_LIT("value"), (pmc_slice){v, b->cfg->value_size});
    r->st = ST_PUT;
    r->single_sent = bench_now_ns();
    send_enc(b, r, &e);
}

static void send_fence(bench *b, brank *r, step st)
{
    r->st = st;
    r->single_sent = bench_now_ns();
    if (b->cfg->proto == 2)
        send_simple(b, r, PMC_WIRE_V2, "kvs-fence");
    else
        send_simple(b, r, PMC_WIRE_V1, "barrier_in");
}

static int next_target(bench *b, brank *r)
{
    if (b->g == G_GETALL) /* staggered, so ranks do not all ask for one key at once */
        return (int)((r->rank + 1 + r->issued) % b->size);
    uint64_t x = r->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    r->rng = x;
    int t = (int)(x % (uint64_t)(b->size - 1));
    return t >= r->rank ? t + 1 : t;
}

static void send_get(bench *b, brank *r)
{
    int t = next_target(b, r);
    char key[64];
    /* random gets read the last round's keys */
    key_of(key, sizeof key, b->round, t);
    pmc_enc e;
    if (b->cfg->proto == 2) {
        pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    } else {
        pmc_enc_begin(&e, PMC_WIRE_V1, "get");
        pmc_enc_str(&e, "kvsname", b->kvsname);
    }
    pmc_enc_str(&e, "key", key);
    /* Several PMI-2 requests in flight: name each with a thrid, as threaded
     * clients do; a server may answer them out of order (Hydra does: the
     * proxy and mpiexec answer different gets). */
    if (b->cfg->proto == 2 && b->cfg->pipeline > 1)
        pmc_enc_int(&e, "thrid", r->issued);
    unsigned slot = (r->qhead + r->qlen) % BENCH_MAX_PIPELINE;
    r->seq[slot] = r->issued;
    r->target[slot] = t;
    r->sent_ns[slot] = bench_now_ns();
    r->qlen++;
    r->issued++;
    send_enc(b, r, &e);
}

/* ------------------------------------------------------------- phases */

static void advance(bench *b);

static void phase_done(bench *b)
{
    if (--b->pending == 0)
        advance(b);
}

static void start_phase(bench *b, gphase g)
{
    b->g = g;
    b->pending = b->nr;
    if (g == G_GETALL || g == G_RANDOM) {
        b->phase_t0 = bench_now_ns();
        b->phase_cpu0 = bench_cpu_ns(b->spids, b->nspids);
        b->phase_self0 = bench_self_cpu_ns();
    }
    for (int i = 0; i < b->nr && !b->stop; i++) {
        brank *r = &b->r[i];
        switch (g) {
        case G_PUTFENCE: send_put(b, r); break;
        case G_GETALL:
        case G_RANDOM:
            r->st = ST_GET;
            r->issued = r->answered = 0;
            r->total = g == G_GETALL ? b->size - 1 : b->cfg->random_gets;
            for (int k = 0; k < b->cfg->pipeline && r->issued < r->total && !b->stop; k++)
                send_get(b, r);
            break;
        case G_BARRIER: send_fence(b, r, ST_BARRIER); break;
        case G_FINALIZE:
            r->st = ST_FINALIZE;
            send_simple(b, r, b->cfg->proto == 2 ? PMC_WIRE_V2 : PMC_WIRE_V1, "finalize");
            break;
        default: break;
        }
    }
}

static void end_get_phase(bench *b)
{
    bench_phase *p =
        b->g == G_RANDOM ? &b->res->random : &b->res->getall[b->round - b->cfg->warmup];
    p->start_ns = b->phase_t0;
    p->end_ns = bench_now_ns();
    p->cpu0_ns = b->phase_cpu0;
    p->cpu1_ns = bench_cpu_ns(b->spids, b->nspids);
    p->client_cpu_ns = bench_self_cpu_ns() - b->phase_self0;
    p->gets = (uint64_t)b->nr * (uint64_t)(b->g == G_RANDOM ? b->cfg->random_gets : b->size - 1);
}

static void start_round(bench *b)
{
    for (int k = 0; k < b->size; k++)
        make_value(b->vals + (size_t)k * b->cfg->value_size, b->cfg->value_size, b->round, k,
                   b->cfg->seed);
    start_phase(b, G_PUTFENCE);
}

static void after_rounds(bench *b)
{
    if (b->cfg->mode == MODE_PROCESS) {
        char err[256];
        b->res->t_end = bench_now_ns();
        /* the file must exist before the barrier: rank 0 merges after it */
        if (bench_rankfile_write(b->cfg->out_dir, b->r[0].rank, b->res, err, sizeof err) < 0) {
            fatal(b, "%s", err);
            return;
        }
        start_phase(b, G_BARRIER);
    } else {
        start_phase(b, G_FINALIZE);
    }
}

static void next_round(bench *b)
{
    if (++b->round < b->cfg->warmup + b->cfg->rounds) {
        start_round(b);
        return;
    }
    b->round--; /* random gets read the last round's keys */
    if (b->cfg->random_gets > 0 && b->size > 1)
        start_phase(b, G_RANDOM);
    else
        after_rounds(b);
}

static void advance(bench *b)
{
    switch (b->g) {
    case G_HANDSHAKE:
        b->res->size = b->size;
        b->vals = malloc((size_t)b->size * b->cfg->value_size + 1);
        if (!b->vals) {
            fatal(b, "out of memory");
            return;
        }
        if (b->cfg->warmup + b->cfg->rounds == 0) {
            after_rounds(b);
            return;
        }
        b->round = 0;
        start_round(b);
        return;
    case G_PUTFENCE:
        if (b->size > 1)
            start_phase(b, G_GETALL);
        else
            next_round(b); /* a job of one: nobody else to read */
        return;
    case G_GETALL:
        if (measured(b))
            end_get_phase(b);
        next_round(b);
        return;
    case G_RANDOM:
        end_get_phase(b);
        after_rounds(b);
        return;
    case G_BARRIER: start_phase(b, G_FINALIZE); return;
    case G_FINALIZE:
        b->g = G_DONE;
        b->stop = true;
        return;
    case G_DONE: return;
    }
}

/* The handshake of one rank is done; phases start when all are. */
static void rank_ready(bench *b, brank *r)
{
    r->st = ST_IDLE;
    phase_done(b);
}

/* ----------------------------------------------------------- replies */

static bool is(const pmc_msg *m, const char *name)
{
    return pmc_slice_eq(m->name, name);
}

/* rc: absent is success for PMI-1 lines that carry none (Hydra 4.0.2). */
static bool rc_ok(const pmc_msg *m, bool required)
{
    long long rc;
    int have = pmc_msg_get_int(m, "rc", &rc);
    return have == 1 ? rc == 0 : have == 0 && !required;
}

/* Per-operation counts cover the measured requests; a warm-up failure
 * still fails the run through the total. */
static void count_fail(bench *b, bench_op op)
{
    if (measured(b))
        b->res->failures[op]++;
    else
        b->res->other_failures++;
}

static void sample(bench *b, bench_op op, uint64_t lat)
{
    if (!measured(b))
        return;
    b->res->requests[op]++;
    if (bench_samples_push(&b->res->samples[op], lat) < 0)
        fatal(b, "out of memory for samples");
}

static void on_get_reply(bench *b, brank *r, const pmc_msg *m, uint64_t now)
{
    if (r->qlen == 0) {
        fatal(b, "rank %d: a reply nobody asked for: %.*s", r->rank, (int)m->name.len, m->name.ptr);
        return;
    }
    long long id;
    if (m->thrid.ptr && pmc_parse_int(m->thrid, &id) == 0 && id != r->seq[r->qhead]) {
        /* out of order: swap the named request to the head */
        unsigned k = 1, at = 0;
        for (; k < r->qlen; k++) {
            at = (r->qhead + k) % BENCH_MAX_PIPELINE;
            if (r->seq[at] == id)
                break;
        }
        if (k == r->qlen) {
            fatal(b, "rank %d: a reply with thrid=%lld nobody asked for", r->rank, id);
            return;
        }
        unsigned h = r->qhead;
        long sq = r->seq[h];
        int tg = r->target[h];
        uint64_t sn = r->sent_ns[h];
        r->seq[h] = r->seq[at], r->target[h] = r->target[at], r->sent_ns[h] = r->sent_ns[at];
        r->seq[at] = sq, r->target[at] = tg, r->sent_ns[at] = sn;
    }
    int t = r->target[r->qhead];
    uint64_t sent = r->sent_ns[r->qhead];
    r->qhead = (r->qhead + 1) % BENCH_MAX_PIPELINE;
    r->qlen--;
    bench_op op = b->g == G_RANDOM ? OP_RGET : OP_GET;
    bool ok = rc_ok(m, b->cfg->proto == 2);
    if (ok && b->cfg->proto == 2) {
        bool found = false;
        ok = pmc_msg_get_bool(m, "found", &found, NULL) == 1 && found;
    }
    pmc_slice v;
    if (ok &&
        (!pmc_msg_get(m, "value", &v) || v.len != b->cfg->value_size ||
         (b->cfg->verify && memcmp(v.ptr, b->vals + (size_t)t * b->cfg->value_size, v.len) != 0)))
        ok = false;
    if (!ok)
        count_fail(b, op);
    sample(b, op, now - sent);
    r->answered++;
    if (r->issued < r->total)
        send_get(b, r);
    else if (r->answered == r->total) {
        r->st = ST_IDLE;
        phase_done(b);
    }
}

static void expect_fail(bench *b, brank *r, const pmc_msg *m, const char *want)
{
    fatal(b, "rank %d: expected %s, got %.*s", r->rank, want, (int)m->name.len, m->name.ptr);
}

static void handle(bench *b, brank *r, const pmc_msg *m, uint64_t now)
{
    const bool v2 = b->cfg->proto == 2;
    long long x;
    switch (r->st) {
    case ST_V1_INITACK:
        if (!is(m, "initack") || !rc_ok(m, false)) {
            expect_fail(b, r, m, "initack");
            return;
        }
        r->st = ST_V1_SETS;
        r->sets_left = 3; /* size, rank, debug */
        return;
    case ST_V1_SETS:
        if (!is(m, "set")) {
            expect_fail(b, r, m, "set");
            return;
        }
        if (pmc_msg_get_int(m, "rank", &x) == 1 && x != r->rank) {
            fatal(b, "rank %d: initack assigned rank %lld", r->rank, x);
            return;
        }
        if (pmc_msg_get_int(m, "size", &x) == 1 && b->cfg->mode == MODE_PROCESS)
            b->size = (int)x;
        if (--r->sets_left == 0)
            send_init(b, r);
        return;
    case ST_INIT:
        if (!is(m, "response_to_init") || !rc_ok(m, false)) {
            expect_fail(b, r, m, "response_to_init with rc=0");
            return;
        }
        if (v2) {
            pmc_enc e;
            pmc_enc_begin(&e, PMC_WIRE_V2, "fullinit");
            pmc_enc_int(&e, "pmirank", r->rank);
            /* the wire draft's fullinit carries the job id; Slurm refuses one without */
            const char *jid = getenv("PMI_JOBID");
            if (jid && *jid)
                pmc_enc_str(&e, "pmijobid", jid);
            pmc_enc_bool(&e, "threaded", false);
            r->st = ST_V2_FULLINIT;
            send_enc(b, r, &e);
        } else {
            r->st = ST_V1_MAXES;
            send_simple(b, r, PMC_WIRE_V1, "get_maxes");
        }
        return;
    case ST_V1_MAXES:
        if (!is(m, "maxes") || !rc_ok(m, false)) {
            expect_fail(b, r, m, "maxes");
            return;
        }
        if (pmc_msg_get_int(m, "vallen_max", &x) == 1 && (size_t)x < b->cfg->value_size) {
            fatal(b, "the server's vallen_max is %lld, below --value-size %zu", x,
                  b->cfg->value_size);
            return;
        }
        r->st = ST_V1_KVSNAME;
        send_simple(b, r, PMC_WIRE_V1, "get_my_kvsname");
        return;
    case ST_V1_KVSNAME: {
        pmc_slice k;
        if (!is(m, "my_kvsname") || !rc_ok(m, false) || !pmc_msg_get(m, "kvsname", &k)) {
            expect_fail(b, r, m, "my_kvsname");
            return;
        }
        if (k.len >= sizeof b->kvsname) {
            fatal(b, "kvsname longer than %zu bytes", sizeof b->kvsname - 1);
            return;
        }
        if (!b->kvsname[0])
            pmc_slice_copy(k, b->kvsname, sizeof b->kvsname);
        else if (!pmc_slice_eq(k, b->kvsname)) {
            fatal(b, "rank %d: kvsname %.*s differs from %s", r->rank, (int)k.len, k.ptr,
                  b->kvsname);
            return;
        }
        if (b->cfg->mode == MODE_PROCESS && b->size <= 0) {
            fatal(b, "job size unknown: PMI_SIZE is not set");
            return;
        }
        rank_ready(b, r);
        return;
    }
    case ST_V2_FULLINIT:
        if (!is(m, "fullinit-response") || !rc_ok(m, true)) {
            expect_fail(b, r, m, "fullinit-response with rc=0");
            return;
        }
        if (pmc_msg_get_int(m, "rank", &x) == 1 && x != r->rank) {
            fatal(b, "rank %d: fullinit-response says rank %lld", r->rank, x);
            return;
        }
        if (pmc_msg_get_int(m, "size", &x) != 1 || x < 1) {
            fatal(b, "rank %d: fullinit-response without a size", r->rank);
            return;
        }
        if (b->cfg->mode == MODE_PROCESS)
            b->size = (int)x;
        else if (x != b->size) {
            fatal(b, "the job has %lld ranks, the load %d", x, b->size);
            return;
        }
        rank_ready(b, r);
        return;
    case ST_PUT:
        if (!is(m, v2 ? "kvs-put-response" : "put_result")) {
            expect_fail(b, r, m, v2 ? "kvs-put-response" : "put_result");
            return;
        }
        if (!rc_ok(m, true))
            count_fail(b, OP_PUT);
        sample(b, OP_PUT, now - r->single_sent);
        send_fence(b, r, ST_FENCE);
        return;
    case ST_FENCE:
    case ST_BARRIER:
        if (!is(m, v2 ? "kvs-fence-response" : "barrier_out")) {
            expect_fail(b, r, m, v2 ? "kvs-fence-response" : "barrier_out");
            return;
        }
        if (!rc_ok(m, v2)) {
            if (r->st == ST_FENCE)
                count_fail(b, OP_FENCE);
            else
                b->res->other_failures++;
        }
        if (r->st == ST_FENCE)
            sample(b, OP_FENCE, now - r->single_sent);
        r->st = ST_IDLE;
        phase_done(b);
        return;
    case ST_GET:
        if (!is(m, v2 ? "kvs-get-response" : "get_result")) {
            expect_fail(b, r, m, v2 ? "kvs-get-response" : "get_result");
            return;
        }
        on_get_reply(b, r, m, now);
        return;
    case ST_FINALIZE:
        if (!is(m, v2 ? "finalize-response" : "finalize_ack")) {
            expect_fail(b, r, m, v2 ? "finalize-response" : "finalize_ack");
            return;
        }
        if (!rc_ok(m, false))
            b->res->other_failures++;
        epoll_ctl(b->ep, EPOLL_CTL_DEL, r->fd, NULL);
        close(r->fd);
        r->fd = -1;
        r->st = ST_CLOSED;
        phase_done(b);
        return;
    case ST_IDLE:
    case ST_CLOSED:
        fatal(b, "rank %d: unexpected %.*s between phases", r->rank, (int)m->name.len, m->name.ptr);
        return;
    }
}

static void on_readable(bench *b, brank *r)
{
    size_t avail;
    void *sp = pmc_decoder_space(r->dec, 4096, &avail);
    if (!sp) {
        fatal(b, "out of memory");
        return;
    }
    ssize_t n = read(r->fd, sp, avail);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            return;
        fatal(b, "rank %d: read: %s (%s)", r->rank, strerror(errno), gphase_name[b->g]);
        return;
    }
    if (n == 0) {
        fatal(b, "rank %d: the server closed the connection during %s", r->rank, gphase_name[b->g]);
        return;
    }
    uint64_t now = bench_now_ns();
    pmc_decoder_commit(r->dec, (size_t)n);
    b->res->bytes_in += (uint64_t)n;
    pmc_msg m;
    pmc_error e;
    int rc = PMC_AGAIN;
    while (r->fd >= 0 && !b->stop && (rc = pmc_decoder_next(r->dec, &m, &e)) == PMC_MSG)
        handle(b, r, &m, now);
    if (r->fd >= 0 && !b->stop && rc == PMC_ERR)
        fatal(b, "rank %d: undecodable reply at byte %" PRIu64 ": %s", r->rank, e.offset, e.detail);
}

/* ---------------------------------------------------------------- run */

static int open_ranks(bench *b, char *err, size_t n)
{
    const bench_cfg *c = b->cfg;
    if (c->mode == MODE_VIRTUAL) {
        bench_raise_fd_limit((size_t)c->nranks + 64);
        for (int i = 0; i < b->nr; i++) {
            b->r[i].rank = i;
            b->r[i].fd = bench_connect(c->addr, err, n);
            if (b->r[i].fd < 0)
                return -1;
        }
        b->port_mode = true;
        b->size = c->nranks;
        return 0;
    }
    /* process mode: the launcher's environment names rank and transport */
    const char *fd = getenv("PMI_FD");
    b->port_mode = !(fd && *fd);
    const char *rk = getenv(b->port_mode ? "PMI_ID" : "PMI_RANK");
    if (!rk || !*rk)
        rk = getenv("PMI_RANK");
    const char *sz = getenv("PMI_SIZE");
    b->r[0].rank = rk ? atoi(rk) : 0;
    b->size = sz ? atoi(sz) : 0;
    b->r[0].fd = bench_fd_from_env(err, n);
    return b->r[0].fd < 0 ? -1 : 0;
}

int bench_run(const bench_cfg *cfg, bench_result *res)
{
    bench b = {.cfg = cfg, .res = res, .ep = -1, .exit_code = BENCH_EXIT_OK};
    char err[512];
    int code = BENCH_EXIT_OK;
    signal(SIGPIPE, SIG_IGN);
    b.nr = cfg->mode == MODE_VIRTUAL ? cfg->nranks : 1;
    b.r = calloc((size_t)b.nr, sizeof *b.r);
    if (!b.r) {
        fprintf(stderr, "pmi-mockclient bench: out of memory\n");
        return BENCH_EXIT_USAGE;
    }
    for (int i = 0; i < b.nr; i++)
        b.r[i].fd = -1;
    memcpy(b.spids, cfg->server_pids, sizeof b.spids);
    b.nspids = cfg->nserver_pids;
    if (cfg->server_auto)
        b.nspids = bench_server_pids_auto(b.spids, BENCH_MAX_SERVER_PIDS);

    res->t_begin = bench_now_ns();
    if (open_ranks(&b, err, sizeof err) < 0) {
        fprintf(stderr, "pmi-mockclient bench: %s\n", err);
        code = BENCH_EXIT_USAGE;
        goto out;
    }
    res->rank = b.r[0].rank;
    res->nreported = b.nr;
    b.ep = epoll_create1(EPOLL_CLOEXEC);
    if (b.ep < 0) {
        fprintf(stderr, "pmi-mockclient bench: epoll: %s\n", strerror(errno));
        code = BENCH_EXIT_USAGE;
        goto out;
    }
    pmc_decoder_opts dopts;
    pmc_decoder_opts_default(&dopts);
    for (int i = 0; i < b.nr; i++) {
        brank *r = &b.r[i];
        r->dec = pmc_decoder_new(&dopts);
        r->rng = cfg->seed ^ (uint64_t)(r->rank + 1) * 0xD1B54A32D192ED03ull;
        if (!r->rng)
            r->rng = 1;
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        if (!r->dec || epoll_ctl(b.ep, EPOLL_CTL_ADD, r->fd, &ev) < 0) {
            fprintf(stderr, "pmi-mockclient bench: cannot watch rank %d\n", r->rank);
            code = BENCH_EXIT_USAGE;
            goto out;
        }
    }

    b.g = G_HANDSHAKE;
    b.pending = b.nr;
    for (int i = 0; i < b.nr && !b.stop; i++) {
        brank *r = &b.r[i];
        if (cfg->proto == 1 && b.port_mode) {
            pmc_enc e;
            pmc_enc_begin(&e, PMC_WIRE_V1, "initack");
            pmc_enc_int(&e, "pmiid", r->rank);
            r->st = ST_V1_INITACK;
            send_enc(&b, r, &e);
        } else {
            send_init(&b, r);
        }
    }

    uint64_t deadline = res->t_begin + (uint64_t)cfg->timeout_s * 1000000000ull;
    struct epoll_event evs[256];
    while (!b.stop) {
        uint64_t now = bench_now_ns();
        if (cfg->timeout_s && now >= deadline) {
            fatal(&b, "timed out after %us in %s (round %d): %d of %d ranks not done",
                  cfg->timeout_s, gphase_name[b.g], b.round, b.pending, b.nr);
            break;
        }
        int ms = cfg->timeout_s ? (int)((deadline - now) / 1000000u) + 1 : -1;
        if (ms > 1000 || ms < 0)
            ms = 1000;
        int k = epoll_wait(b.ep, evs, (int)(sizeof evs / sizeof evs[0]), ms);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            fatal(&b, "epoll_wait: %s", strerror(errno));
            break;
        }
        for (int i = 0; i < k && !b.stop; i++) {
            brank *r = &b.r[evs[i].data.u32];
            if (r->fd < 0)
                continue;
            if (evs[i].events & EPOLLOUT)
                flush(&b, r);
            if (!b.stop && r->fd >= 0 && (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
                on_readable(&b, r);
        }
    }
    res->t_end = bench_now_ns();
    code = b.exit_code;

out:
    for (int i = 0; i < b.nr; i++) {
        if (b.r[i].fd >= 0)
            close(b.r[i].fd);
        pmc_decoder_free(b.r[i].dec);
        pmc_out_free(&b.r[i].out);
    }
    if (b.ep >= 0)
        close(b.ep);
    free(b.r);
    free(b.vals);
    if (code == BENCH_EXIT_OK) {
        uint64_t f = res->other_failures;
        for (int i = 0; i < OP__COUNT; i++)
            f += res->failures[i];
        if (f)
            code = BENCH_EXIT_FAIL;
    }
    return code;
}
