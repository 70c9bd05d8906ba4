/* The state layer of pmi-mockserver driven without a socket (issue 23):
 * jobs, ranks, the KVS, fences and spawn know processes as (job, rank) and
 * answer through their reply port (pms_port).  Here the port is a buffer
 * per rank: no connection, no peer, no event loop, no dispatcher.
 *
 *   fence   1,000 ranks put a key each and enter kvs-fence; nobody is
 *           answered before the last one enters, then every rank gets one
 *           kvs-fence-response rc=0 and sees every other rank's key.
 *   spawn   a spawn request (two commands, a preput key, an info key)
 *           answered through the port: the launcher hook sees both
 *           commands, the child job exists with the spawner, its size and
 *           the preput key, and the answer is spawn-response rc=0.
 *   closed  a port that closes while the others wait in the next
 *           fence: each of them is answered once, rc=1 (FENCE-9), through
 *           the state layer's close path.
 *
 * Exit status 0 when every check holds. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "test_state:%d: ", __LINE__);                                \
            fprintf(stderr, __VA_ARGS__);                                                \
            fputc('\n', stderr);                                                         \
            failures++;                                                                  \
        }                                                                                \
    } while (0)

/* ---- a port that keeps what it is given --------------------------------- */

typedef struct box {
    pmc_out got;    /* every reply, as encoded */
    int replies;    /* sends */
    bool closed;
    char why[128];
} box;

static box *box_of(pms_port *p)
{
    return p->ctx;
}

static pmc_out *t_out(pms_port *p)
{
    return &box_of(p)->got;
}

static void t_send(pms_port *p, pmc_out *o, size_t before)
{
    (void)p, (void)o, (void)before; /* encoded in place: kept */
    box_of(p)->replies++;
}

static void t_raw(pms_port *p, const void *buf, size_t len)
{
    pmc_out_append(&box_of(p)->got, buf, len);
}

static void t_close(pms_port *p, const char *why)
{
    box *b = box_of(p);
    b->closed = true;
    snprintf(b->why, sizeof b->why, "%s", why);
    p->dead = true;
    /* what peer.c does when its connection closes */
    if (p->job) {
        pms_waits_drop_port(p->job, p);
        if (p->rank >= 0 && !p->finalized)
            pms_job_rank_gone(p->job, p->rank);
    }
}

static void t_close_after(pms_port *p, bool flush)
{
    (void)flush;
    t_close(p, "close after");
}

static void t_stop_reading(pms_port *p, const char *why)
{
    (void)why;
    p->deaf = true;
}

static void t_shut_reads(pms_port *p)
{
    (void)p;
}

static void t_drop_input(pms_port *p)
{
    (void)p;
}

static size_t t_pending(const pms_port *p)
{
    (void)p;
    return 0;
}

static void t_fatal(pms_port *p, const char *why)
{
    t_close(p, why);
}

static const pms_port_ops test_port = {
    .out = t_out, .send = t_send, .raw = t_raw, .close = t_close, .close_after = t_close_after,
    .stop_reading = t_stop_reading, .shut_reads = t_shut_reads, .drop_input = t_drop_input,
    .pending_input = t_pending, .fatal = t_fatal,
};

static pms_port *port_new(pms_server *s, pms_job *j, int rank, box *b)
{
    pms_port *p = calloc(1, sizeof *p);
    p->ops = &test_port;
    p->ctx = b;
    p->srv = s;
    p->id = 100000 + rank;
    p->rank = -1;
    if (!pms_job_bind(j, p, rank)) {
        free(p);
        return NULL;
    }
    return p;
}

/* ---- requests, written and read with the codec ---------------------------- */

typedef struct req {
    pmc_enc enc;
    pmc_out out;
    pmc_decoder *dec;
    pmc_msg m;
} req;

static pmc_enc *req_begin(req *r, const char *cmd)
{
    pmc_enc_begin(&r->enc, PMC_WIRE_V2, cmd);
    return &r->enc;
}

static const pmc_msg *req_end(req *r)
{
    pmc_error e;
    size_t used;
    pmc_out_reset(&r->out);
    if (pmc_enc_end(&r->enc, &pmc_dialect_strict, &r->out, &e) < 0) {
        fprintf(stderr, "test_state: cannot encode: %s\n", e.detail);
        exit(2);
    }
    if (!r->dec)
        r->dec = pmc_decoder_new(NULL);
    if (pmc_decode_buffer(r->dec, r->out.buf, r->out.len, 0, &r->m, &e, &used) != PMC_MSG) {
        fprintf(stderr, "test_state: cannot decode what was encoded: %s\n", e.detail);
        exit(2);
    }
    return &r->m;
}

/* How many replies in b are `cmd` with rc=rc; *others: how many are not. */
static int replies_named(const box *b, const char *cmd, int rc, int *others)
{
    pmc_decoder *d = pmc_decoder_new(NULL);
    pmc_decoder_feed(d, b->got.buf, b->got.len);
    pmc_msg m;
    pmc_error e;
    int n = 0;
    *others = 0;
    int got;
    while ((got = pmc_decoder_next(d, &m, &e)) != PMC_AGAIN) {
        long long v = -1;
        if (got == PMC_MSG && pmc_slice_eq(m.name, cmd) && pmc_msg_get_int(&m, "rc", &v) == 1 &&
            v == rc)
            n++;
        else
            (*others)++;
    }
    pmc_decoder_free(d);
    return n;
}

/* ---- fence ------------------------------------------------------------------ */

enum { RANKS = 1000 };

static void fence_1000(void)
{
    pms_config cfg;
    pms_config_default(&cfg);
    cfg.persona = "strict";
    cfg.log = NULL;
    pms_server *s = pms_server_new(&cfg);
    CHECK(s, "server");
    CHECK(s->persona->fence_barrier, "strict's kvs-fence is a barrier (the test relies on it)");
    pms_job *j = pms_job_create(s, RANKS, NULL);
    static box b[RANKS];
    static pms_port *p[RANKS];
    for (int r = 0; r < RANKS; r++) {
        memset(&b[r], 0, sizeof b[r]);
        p[r] = port_new(s, j, r, &b[r]);
        CHECK(p[r], "bind rank %d", r);
    }
    CHECK(!port_new(s, j, 7, &b[7]), "a rank bound twice");
    req q = { 0 };
    for (int r = 0; r < RANKS; r++) {
        char k[32], v[32];
        snprintf(k, sizeof k, "key-%d", r);
        snprintf(v, sizeof v, "value-%d", r);
        int rc = -1;
        pms_kvs_store(j, p[r], PMC_WIRE_V2, pmc_slice_cstr(k), pmc_slice_cstr(v), &rc);
        CHECK(rc == 0, "put of rank %d: rc=%d", r, rc);
        pmc_enc *e = req_begin(&q, "kvs-fence");
        char t[16];
        snprintf(t, sizeof t, "f%d", r);
        pmc_enc_str(e, "thrid", t);
        pms_fence_enter(p[r], req_end(&q));
        if (r < RANKS - 1 && (r % 97 == 0 || r == RANKS - 2))
            for (int o = 0; o <= r; o++)
                CHECK(b[o].replies == 0, "rank %d answered before rank %d entered", o, RANKS - 1);
    }
    for (int r = 0; r < RANKS; r++) {
        int others = 0;
        CHECK(replies_named(&b[r], "kvs-fence-response", 0, &others) == 1 && others == 0,
              "rank %d: %d replies, not one kvs-fence-response rc=0", r, b[r].replies);
    }
    /* after the fence every rank sees every key */
    for (int r = 0; r < RANKS; r += 111) {
        for (int o = 0; o < RANKS; o += 37) {
            char k[32], v[32];
            snprintf(k, sizeof k, "key-%d", o);
            snprintf(v, sizeof v, "value-%d", o);
            const pms_kv *kv = pms_kvs_lookup(j, p[r], pmc_slice_cstr(k));
            CHECK(kv && kv->vlen == strlen(v) && memcmp(kv->val, v, kv->vlen) == 0,
                  "rank %d does not see %s after the fence", r, k);
        }
    }
    /* and the answer to a get goes through the port too */
    pmc_out_reset(&b[5].got);
    pms_kvs_get_reply(p[5], (pmc_slice){ NULL, 0 },
                      pms_kvs_lookup(j, p[5], pmc_slice_cstr("key-999")));
    CHECK(b[5].got.len && strstr(b[5].got.buf, "cmd=kvs-get-response;") &&
              strstr(b[5].got.buf, ";found=TRUE;value=value-999;"),
          "kvs-get-response: %.*s", (int)b[5].got.len, b[5].got.buf);

    /* closed: the next round waits for rank 0, whose port closes */
    for (int r = 1; r < RANKS; r++) {
        pmc_out_reset(&b[r].got);
        b[r].replies = 0;
        req_begin(&q, "kvs-fence");
        pms_fence_enter(p[r], req_end(&q));
    }
    for (int r = 1; r < RANKS; r++)
        CHECK(b[r].replies == 0, "rank %d answered while rank 0 has not fenced", r);
    pms_port_close(p[0], "the test closes rank 0");
    CHECK(b[0].closed, "rank 0's port was not closed");
    /* FENCE-9: the round cannot complete; each of the others is told so once */
    int told = 0;
    for (int r = 1; r < RANKS; r++) {
        int others = 0;
        told += replies_named(&b[r], "kvs-fence-response", PMS_RC_FAIL, &others) == 1 && !others;
    }
    CHECK(told == RANKS - 1, "%d of %d ranks were answered rc=%d once when rank 0 ended", told,
          RANKS - 1, PMS_RC_FAIL);

    for (int r = 0; r < RANKS; r++) {
        pmc_out_free(&b[r].got);
        free(p[r]);
        j->ranks[r].port = NULL;
    }
    pmc_out_free(&q.out);
    pmc_decoder_free(q.dec);
    pms_server_free(s);
}

/* ---- spawn ------------------------------------------------------------------ */

typedef struct launched {
    int calls;
    pms_job *child[2];
    char exe[2][64];
    int nprocs[2];
    int argc[2];
    char info[64];
} launched;

static int on_spawn(void *ctx, pms_job *child, int cmd_index, const char *exe, char **argv,
                    int nprocs, char **info_keys, char **info_vals, int ninfo)
{
    launched *L = ctx;
    if (cmd_index < 0 || cmd_index > 1)
        return -1;
    L->calls++;
    L->child[cmd_index] = child;
    snprintf(L->exe[cmd_index], sizeof L->exe[cmd_index], "%s", exe);
    L->nprocs[cmd_index] = nprocs;
    int n = 0;
    while (argv && argv[n])
        n++;
    L->argc[cmd_index] = n; /* argv[0] is the executable */
    if (cmd_index == 0 && (n != 3 || strcmp(argv[1], "-a") || strcmp(argv[2], "b")))
        L->argc[cmd_index] = -1;
    for (int i = 0; i < ninfo; i++)
        if (!strcmp(info_keys[i], "wdir"))
            snprintf(L->info, sizeof L->info, "%s", info_vals[i]);
    return 0;
}

static void spawn_through_port(void)
{
    pms_config cfg;
    pms_config_default(&cfg);
    cfg.persona = "strict";
    cfg.log = NULL;
    pms_server *s = pms_server_new(&cfg);
    launched L = { 0 };
    pms_events ev = { .ctx = &L, .spawn = on_spawn };
    pms_set_events(s, &ev);
    pms_job *j = pms_job_create(s, 2, NULL);
    box b = { 0 };
    pms_port *p = port_new(s, j, 1, &b);
    CHECK(p, "bind rank 1");
    req q = { 0 };
    pmc_enc *e = req_begin(&q, "spawn");
    pmc_enc_str(e, "thrid", "sp1");
    pmc_enc_int(e, "ncmds", 2);
    pmc_enc_int(e, "preputcount", 1);
    pmc_enc_str(e, "ppkey0", "parent-says");
    pmc_enc_str(e, "ppval0", "hello");
    pmc_enc_str(e, "subcmd", "/bin/true");
    pmc_enc_int(e, "maxprocs", 3);
    pmc_enc_int(e, "argc", 2);
    pmc_enc_str(e, "argv0", "-a");
    pmc_enc_str(e, "argv1", "b");
    pmc_enc_int(e, "infokeycount", 1);
    pmc_enc_str(e, "infokey0", "wdir");
    pmc_enc_str(e, "infoval0", "/tmp");
    pmc_enc_str(e, "subcmd", "/bin/echo");
    pmc_enc_int(e, "maxprocs", 1);
    pmc_enc_int(e, "argc", 0);
    pmc_enc_int(e, "infokeycount", 0);
    size_t jobs = pms_job_count(s);
    pms_spawn_v2(p, req_end(&q));
    int others = 0;
    CHECK(replies_named(&b, "spawn-response", 0, &others) == 1 && others == 0,
          "no spawn-response rc=0: %.*s", (int)b.got.len, b.got.buf ? b.got.buf : "");
    CHECK(b.got.len && strstr(b.got.buf, "thrid=sp1;"), "the answer lacks the request's thrid");
    CHECK(L.calls == 2, "the launcher hook was called %d times, not 2", L.calls);
    CHECK(!strcmp(L.exe[0], "/bin/true") && L.nprocs[0] == 3 && L.argc[0] == 3,
          "first command: %s x%d, %d words of argv (-1: not exe -a b)", L.exe[0], L.nprocs[0], L.argc[0]);
    CHECK(!strcmp(L.exe[1], "/bin/echo") && L.nprocs[1] == 1 && L.argc[1] == 1,
          "second command: %s x%d, %d words of argv", L.exe[1], L.nprocs[1], L.argc[1]);
    CHECK(!strcmp(L.info, "/tmp"), "info key wdir: '%s'", L.info);
    CHECK(pms_job_count(s) == jobs + 1, "%zu jobs after the spawn, expected %zu",
          pms_job_count(s), jobs + 1);
    pms_job *child = L.child[0];
    CHECK(child && child == L.child[1], "the two commands are not one child job");
    if (child) {
        CHECK(pms_job_size(child) == 4, "child size %d, expected 4", pms_job_size(child));
        CHECK(child->spawner == j, "the child's spawner is not the parent job");
        const pms_kv *kv = pms_kvs_get(&child->kvs, "parent-says", 11);
        CHECK(kv && kv->vlen == 5 && !memcmp(kv->val, "hello", 5),
              "the preput key is not in the child's KVS");
    }
    pmc_out_free(&b.got);
    free(p);
    j->ranks[1].port = NULL;
    pmc_out_free(&q.out);
    pmc_decoder_free(q.dec);
    pms_server_free(s);
}

int main(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: test_state\nDrives pmi-mockserver's job state through the reply port "
               "alone: a fence of %d ranks, a spawn.\n", RANKS);
        return 0;
    }
    fence_1000();
    spawn_through_port();
    if (failures)
        fprintf(stderr, "test_state: %d checks failed\n", failures);
    else
        printf("test_state: a fence of %d ranks and a spawn through the port: ok\n", RANKS);
    return failures ? 1 : 0;
}
