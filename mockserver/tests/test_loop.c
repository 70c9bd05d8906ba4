/* The event loop under slow and hostile peers, in process:
 *   - a client that does not read its replies: the server stops reading it
 *     (its queue stays bounded), others are served, it resumes when the
 *     client reads, and every reply arrives in order;
 *   - one that never reads is closed after the stall timeout, logged;
 *   - half a frame held forever blocks nobody;
 *   - a malformed but delimited request gets rc + errmsg and the
 *     connection goes on; an undelimitable stream is closed, logged;
 *   - --trace records open, both directions and close in pmi-trace v1. */
#include "internal.h"
#include "test_security_wire.h"
#include "pmitrace/trace.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>

enum { LIMIT = 16384, JOBSIZE = 8 };

typedef struct env {
    pms_server *srv;
    pms_job *job;
    FILE *log;
    char logpath[64], tracepath[64];
} env;

/* stall_ms: how long a client that reads nothing is kept (the stall test
 * wants it short; the backpressure test must never meet it, also on a
 * loaded machine under valgrind, or the server frees the connection the
 * test is looking at) */
static void env_new(env *E, bool trace, int stall_ms)
{
    pms_config c;
    pms_config_default(&c);
    c.out_limit = LIMIT;
    c.stall_timeout_ms = stall_ms;
    snprintf(E->logpath, sizeof E->logpath, "/tmp/test_loop.%d.log", (int)getpid());
    snprintf(E->tracepath, sizeof E->tracepath, "/tmp/test_loop.%d.trace", (int)getpid());
    E->log = fopen(E->logpath, "w+");
    c.log = E->log;
    c.trace_path = trace ? E->tracepath : NULL;
    E->srv = pms_server_new(&c);
    E->job = pms_job_create(E->srv, JOBSIZE, NULL);
}

static void env_free(env *E)
{
    pms_server_free(E->srv);
    fclose(E->log);
    unlink(E->logpath);
    unlink(E->tracepath);
}

static bool log_has(env *E, const char *text)
{
    fflush(E->log);
    FILE *f = fopen(E->logpath, "r");
    char line[1024];
    bool found = false;
    while (f && fgets(line, sizeof line, f))
        found |= strstr(line, text) != NULL;
    if (f)
        fclose(f);
    return found;
}

static void client(env *E, tw *t, int rank)
{
    int fd = pms_attach_rank(E->srv, E->job, rank);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    tw_init(t, fd, NULL, E->srv);
}

static bool fullinit(tw *t, int rank)
{
    char r[16];
    pmc_msg m;
    snprintf(r, sizeof r, "%d", rank);
    tw_send(t, PMC_WIRE_V2, "fullinit", "pmi-version", "2", "pmi-subversion", "0", "pmirank", r,
            NULL);
    return tw_recv(t, &m, 2000) == 1 && strcmp(tw_val(&m, "rc"), "0") == 0;
}

static bool put_get(tw *t, const char *k, const char *v)
{
    /* served: a put is accepted and a query answered (a get of one's own
     * put may wait for a fence in the strict persona) */
    pmc_msg m;
    tw_send(t, PMC_WIRE_V2, "kvs-put", "key", k, "value", v, NULL);
    if (tw_recv(t, &m, 2000) != 1 || strcmp(tw_val(&m, "rc"), "0") != 0)
        return false;
    tw_send(t, PMC_WIRE_V2, "job-getid", NULL);
    return tw_recv(t, &m, 2000) == 1 && tw_is(&m, "job-getid-response") &&
           strcmp(tw_val(&m, "rc"), "0") == 0;
}

/* One encoded request, reused for the flood. */
static pmc_out request(const char *cmd)
{
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_error err;
    pmc_enc_begin(&e, PMC_WIRE_V2, cmd);
    pmc_enc_str(&e, "thrid", "flood");
    pmc_enc_end(&e, NULL, &o, &err);
    return o;
}

/* Write what the socket takes without blocking; returns bytes written. */
static size_t push(int fd, const char *p, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, p + done, n - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    return done;
}

static void backpressure(void)
{
    env E;
    env_new(&E, false, 600000);
    tw a, b;
    client(&E, &a, 0);
    client(&E, &b, 1);
    CHECK(fullinit(&a, 0) && fullinit(&b, 1), "fullinit");
    pms_conn *ca = E.job->ranks[0].port->ctx; /* the port over its connection (peer.c) */

    enum { N = 20000 };
    pmc_out req = request("job-getid");
    size_t total = req.len * N, sent = 0, maxq = 0;
    char *all = malloc(total);
    for (int i = 0; i < N; i++)
        memcpy(all + (size_t)i * req.len, req.buf, req.len);
    /* flood without reading: the server must stop reading this client */
    for (int round = 0; round < 400 && sent < total; round++) {
        sent += push(a.fd, all + sent, total - sent);
        pms_server_run(E.srv, 1);
        size_t q = ca->out.len - ca->out_off;
        if (q > maxq)
            maxq = q;
    }
    CHECK(sent < total, "the server kept reading a client that reads no replies");
    CHECK(ca->paused, "connection not paused");
    CHECK(maxq <= 2 * LIMIT, "reply queue grew to %zu bytes (limit %d)", maxq, LIMIT);
    /* another client is served meanwhile */
    CHECK(put_get(&b, "other", "fine"), "second client stalled by the first");

    /* now read: replies flow, the server resumes, every request is answered */
    size_t got = 0;
    /* every reply must come; valgrind on a loaded machine runs the loop
     * many times slower (scripts/valgrind.sh) */
    long long end = tw_now_ms() + (getenv("PMC_UNDER_VALGRIND") ? 100000 : 20000);
    pmc_msg m;
    while (got < N && tw_now_ms() < end) {
        if (sent < total)
            sent += push(a.fd, all + sent, total - sent);
        int r = tw_recv(&a, &m, 50);
        if (r == 1) {
            CHECK(tw_is(&m, "job-getid-response") && strcmp(tw_val(&m, "rc"), "0") == 0,
                  "reply %zu", got);
            got++;
        } else if (r == 0) {
            break;
        }
        size_t q = ca->out.len - ca->out_off;
        if (q > maxq)
            maxq = q;
    }
    CHECK(got == N, "%zu of %d replies", got, N);
    CHECK(maxq <= 2 * LIMIT, "reply queue grew to %zu bytes", maxq);
    free(all);
    pmc_out_free(&req);
    tw_free(&a);
    tw_free(&b);
    env_free(&E);
}

static void stall_and_garbage(void)
{
    env E;
    env_new(&E, false, 1500);
    tw a, b, h, g;
    client(&E, &a, 0);
    client(&E, &b, 1);
    client(&E, &h, 2);
    client(&E, &g, 3);
    CHECK(fullinit(&a, 0) && fullinit(&b, 1), "fullinit");

    /* half a frame, held */
    static const char half[] = "    60cmd=kvs-put;key=";
    tw_write(&h, half, sizeof half - 1);
    /* a malformed but delimited request: an answer with rc and errmsg */
    static const char nokey[] = "    16cmd=kvs-put;v=1;";
    tw_write(&b, nokey, sizeof nokey - 1);
    pmc_msg m;
    CHECK(tw_recv(&b, &m, 2000) == 1 && strcmp(tw_val(&m, "rc"), "0") != 0 &&
              tw_val(&m, "errmsg")[0], "malformed request: no error response");
    CHECK(put_get(&b, "after-error", "ok"), "connection unusable after an error response");
    /* an undelimitable stream: closed with the reason logged */
    static const char junk[] = "  -12cmd=fullinit;";
    tw_write(&g, junk, sizeof junk - 1);
    CHECK(tw_recv(&g, &m, 2000) == 0, "bad length field: connection not closed");
    CHECK(log_has(&E, "conn 3 (rank 3)"), "the close was not logged with conn id and rank");

    /* a flood that never reads: closed after the stall timeout */
    pmc_out req = request("job-getid");
    long long start = tw_now_ms();
    while (E.job->ranks[0].state != PMS_RANK_GONE) {
        for (int i = 0; i < 64; i++)
            if (push(a.fd, req.buf, req.len) < req.len)
                break;
        pms_server_run(E.srv, 5);
        if (tw_now_ms() - start > 10000)
            break;
        /* others keep being served while it is stuck */
        if ((tw_now_ms() - start) % 500 < 10)
            CHECK(put_get(&b, "during-stall", "ok"), "second client stalled");
    }
    long long took = tw_now_ms() - start;
    CHECK(took >= 1000 && took < 8000, "stalled client closed after %lld ms", took);
    CHECK(log_has(&E, "does not read its replies"), "stall not logged");

    /* the half frame completes later and is answered */
    static const char rest[] = "x;value=yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy;";
    CHECK(sizeof half - 1 - 6 + sizeof rest - 1 == 60, "test frame length");
    tw_write(&h, rest, sizeof rest - 1);
    CHECK(tw_recv(&h, &m, 2000) == 1 && tw_is(&m, "kvs-put-response"), "held frame not answered");
    pmc_out_free(&req);
    tw_free(&a);
    tw_free(&b);
    tw_free(&h);
    tw_free(&g);
    env_free(&E);
}

static void trace(void)
{
    env E;
    env_new(&E, true, 1500);
    tw a;
    client(&E, &a, 0);
    CHECK(fullinit(&a, 0), "fullinit");
    CHECK(put_get(&a, "traced", "v"), "kvs");
    tw_free(&a);
    for (int i = 0; i < 20; i++)
        pms_server_run(E.srv, 5);
    char path[64];
    snprintf(path, sizeof path, "%s", E.tracepath);
    pms_server_free(E.srv);
    E.srv = NULL;
    pmt_trace t;
    pmt_error e;
    pmt_trace_init(&t);
    int rc = pmt_read_file(path, &t, &e);
    CHECK(rc == 0, "trace does not parse: line %u: %s", e.line, e.msg);
    bool open = false, cs = false, sc = false, eof = false, closed = false;
    for (size_t i = 0; i < t.nevents; i++) {
        const pmt_event *ev = &t.events[i];
        CHECK(strcmp(ev->conn, "c0") == 0, "unexpected connection %s", ev->conn);
        open |= ev->kind == PMT_EV_OPEN && strstr(ev->data, "rank=0");
        cs |= ev->kind == PMT_EV_DATA && ev->side == PMT_CLIENT && strstr(ev->data, "cmd=fullinit;");
        sc |= ev->kind == PMT_EV_DATA && ev->side == PMT_SERVER &&
              strstr(ev->data, "cmd=job-getid-response;");
        eof |= ev->kind == PMT_EV_EOF && ev->side == PMT_CLIENT;
        closed |= ev->kind == PMT_EV_CLOSE;
    }
    CHECK(open && cs && sc && eof && closed, "trace events: open %d C>S %d S>C %d eof %d close %d",
          open, cs, sc, eof, closed);
    pmt_trace_free(&t);
    fclose(E.log);
    unlink(E.logpath);
    unlink(path);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* writes to a connection the server closed */
    backpressure();
    stall_and_garbage();
    trace();
    if (tw_failures)
        fprintf(stderr, "%d check(s) failed\n", tw_failures);
    return tw_failures ? 1 : 0;
}
