#define _GNU_SOURCE /* pipe2, execvpe */
/* Client mode: the embedded mock server launches the client under test once
 * per distinct run spec (persona, ranks, driver script, faults), each run
 * bounded by the case deadline; an observer records every request and byte,
 * and the client cases grade the recordings.  Results, reports, baselines
 * and exit codes are server mode's. */
#include "client.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* ---------------------------------------------------------------- registry */

static pcf_entry *centries;
static size_t ncentries, capcentries;

void pcf_register_client(const pcf_ccase *cases, size_t n, const char *file)
{
    for (size_t i = 0; i < n; i++) {
        if (ncentries == capcentries) {
            size_t nc = capcentries ? capcentries * 2 : 64;
            pcf_entry *ne = realloc(centries, nc * sizeof *ne);
            if (!ne)
                return;
            centries = ne;
            capcentries = nc;
        }
        pcf_entry *e = &centries[ncentries];
        e->c = &cases[i].c; /* first member: the entry leads back to the pcf_ccase */
        e->file = file;
        e->order = ncentries;
        const char *slash = strrchr(cases[i].c.id, '/');
        size_t sl = slash ? (size_t)(slash - cases[i].c.id) : strlen(cases[i].c.id);
        if (sl >= sizeof e->section)
            sl = sizeof e->section - 1;
        memcpy(e->section, cases[i].c.id, sl);
        e->section[sl] = 0;
        ncentries++;
    }
}

static int cmp_centry(const void *a, const void *b)
{
    const pcf_entry *x = a, *y = b;
    bool hx = strstr(x->section, "/init") != NULL, hy = strstr(y->section, "/init") != NULL;
    if (hx != hy)
        return hx ? -1 : 1;
    int s = strcmp(x->section, y->section);
    if (s)
        return s;
    return x->order < y->order ? -1 : x->order > y->order;
}

static const pcf_entry *client_cases(size_t *n)
{
    static bool sorted;
    if (!sorted) {
        qsort(centries, ncentries, sizeof *centries, cmp_centry);
        sorted = true;
    }
    *n = ncentries;
    return centries;
}

int pcf_client_registry_check(FILE *f)
{
    size_t n;
    const pcf_entry *e = client_cases(&n);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        const pcf_case *c = e[i].c;
        const pcf_ccase *cc = (const pcf_ccase *)c;
        if (!c->id || strncmp(c->id, "client/", 7) != 0) {
            fprintf(f, "%s: client case id '%s' is not under client/\n", e[i].file,
                    c->id ? c->id : "(null)");
            bad = 1;
            continue;
        }
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(c->id, e[j].c->id) == 0) {
                fprintf(f, "%s: case id %s registered twice\n", e[i].file, c->id);
                bad = 1;
            }
        if (!pcf_clause_get(c->clause)) {
            fprintf(f, "%s: case %s cites unknown clause %s\n", e[i].file, c->id,
                    c->clause ? c->clause : "(none)");
            bad = 1;
        }
        if (!c->desc || !c->expected || !cc->run || !(c->flags & (PCF_V1 | PCF_V2))) {
            fprintf(f, "%s: case %s lacks a description, expectation, run function or "
                       "protocol flag\n", e[i].file, c->id);
            bad = 1;
        }
        for (int k = 0; k < PCF_MAX_OUTCOMES && c->outcomes[k].name; k++)
            if (c->outcomes[k].clause && !pcf_clause_get(c->outcomes[k].clause)) {
                fprintf(f, "%s: case %s outcome %s cites unknown clause %s\n", e[i].file, c->id,
                        c->outcomes[k].name, c->outcomes[k].clause);
                bad = 1;
            }
    }
    return bad ? -1 : 0;
}

int pcf_client_list(const pcf_opts *o)
{
    size_t n;
    const pcf_entry *e = client_cases(&n);
    for (size_t i = 0; i < n; i++) {
        const pcf_case *c = e[i].c;
        if (!pcf_selected(c->id, o->globs, o->nglobs))
            continue;
        const pcf_clause *cl = pcf_clause_get(c->clause);
        printf("%-44s %-12s %-9s %s%s%s\n", c->id, c->clause, cl ? cl->level_text : "?",
               c->desc,
               (c->flags & PCF_V1) && !(c->flags & PCF_V2)   ? " [PMI-1 client]"
               : (c->flags & PCF_V2) && !(c->flags & PCF_V1) ? " [PMI-2 client]"
                                                             : "",
               (c->needs & PCF_NEED_THREADED) ? " [4 threads: not threaded=FALSE]" : "");
    }
    return 0;
}

/* ---------------------------------------------------------------- one run */

/* Runs at once when --jobs does not say: a run mostly waits (the client,
 * the faults' delays), so more runs than cores. */
enum { PCF_CLIENT_JOBS = 6 };

typedef struct slot slot;

typedef struct runner {
    const pcf_opts *o;
    const char *persona; /* --persona */
    char **app;
    slot **cache;        /* every run, in the order the cases asked (main thread) */
    size_t ncache;
    bool dry;            /* learning the runs: pcf_client_run answers NULL */
    slot **queue;        /* the pool's runs, slowest first (pool_mu) */
    size_t nqueue, next;
    pthread_t *threads;
    int nthreads;
    uint64_t spent;      /* this case: time in pcf_client_run */
    uint64_t charged;    /* this case: the durations of the runs it got first */
    uint64_t t0;
    slot **used;         /* this case: the runs it got, in order (their transcripts) */
    size_t nused, capused;
} runner;

static runner R;

/* One run in progress: what the server's callbacks (ctx) fill in. */
typedef struct live {
    pcf_crun *r;
    pid_t *pid;
    int *outfd, *errfd;
    int *pidfd;          /* readable when the rank exits (-1: polled) */
    size_t *outcap;
    int *conn_ids;       /* connections the client may still send on */
    size_t nconn, capconn;
    pmc_decoder *dec;    /* SPEC.md's reading of a request (not the persona's) */
} live;

static int rank_ok(const live *L, int rank)
{
    return L->r && rank >= 0 && rank < L->r->np;
}

/* The run's transcript: connection "r<rank>" (a rank's later connections
 * "r<rank>.c<id>", one of no rank "c<id>"), times from the run's start. */
static void tr_add(live *L, pmt_kind kind, int conn, int rank, pmt_side side, const void *p,
                   size_t n)
{
    char lab[40];
    if (!L->r)
        return;
    if (!rank_ok(L, rank))
        snprintf(lab, sizeof lab, "c%d", conn);
    else if (L->r->ranks[rank].conn0 < 0 || L->r->ranks[rank].conn0 == conn)
        snprintf(lab, sizeof lab, "r%d", rank);
    else
        snprintf(lab, sizeof lab, "r%d.c%d", rank, conn);
    pmt_add_event(&L->r->trace, kind, pws_now_usec() - L->r->t0, lab, side, p, n);
}

static void obs_request(void *ctx, int conn, int rank, const pmc_msg *m, const pmc_vreport *rep)
{
    live *L = ctx;
    (void)conn;
    pcf_crun *r = L->r;
    if (!r)
        return;
    if (r->nreq == r->capreq) {
        size_t nc = r->capreq ? r->capreq * 2 : 64;
        pcf_creq *nq = realloc(r->req, nc * sizeof *nq);
        if (!nq)
            return;
        r->req = nq;
        r->capreq = nc;
    }
    pcf_creq *q = &r->req[r->nreq];
    memset(q, 0, sizeof *q);
    q->raw = malloc(m->raw.len ? m->raw.len : 1);
    if (!q->raw)
        return;
    r->nreq++;
    memcpy(q->raw, m->raw.ptr, m->raw.len);
    q->len = m->raw.len;
    q->rank = rank;
    q->wire = m->wire;
    pmc_slice_copy(m->name, q->name, sizeof q->name);
    /* the forms SPEC.md sees in it: a dialect persona's decoder reads ";;"
     * or a length field its own way (Hydra 4.1 leaves ";;" as two tokens) */
    q->notes = m->notes;
    if (L->dec) {
        pmc_msg hm;
        pmc_error he;
        size_t used = 0;
        pmc_decoder_reset(L->dec);
        if (pmc_decode_buffer(L->dec, m->raw.ptr, m->raw.len, 0, &hm, &he, &used) == PMC_MSG &&
            used == m->raw.len)
            q->notes = hm.notes | (m->notes & PMC_NOTE_CONTINUED);
    }
    q->vnotes = rep->notes;
    q->valid = rep->ok;
    size_t k = 0;
    for (size_t i = 0; i < rep->n; i++) {
        if (rep->f[i].code == PMC_E_UNKNOWN_KEY) {
            q->unknown_keys = true;
        }
        k += (size_t)snprintf(q->findings + k, k < sizeof q->findings ? sizeof q->findings - k : 0,
                              "%s%s: %s", k ? "; " : "", pmc_errcode_name(rep->f[i].code),
                              rep->f[i].detail);
        if (k >= sizeof q->findings)
            k = sizeof q->findings - 1;
    }
    q->thrid = m->thrid.ptr != NULL;
    q->thrid_first = m->npairs > 0 && pmc_slice_eq(m->pairs[0].key, "thrid");
    q->usec = pws_now_usec() - R.t0;
    if (rank_ok(L, rank)) {
        pcf_crank *k2 = &r->ranks[rank];
        q->before_reply = k2->s2c == 0;
        q->outstanding = k2->pending > 0;
        if (!pmc_slice_eq(m->name, "abort"))
            k2->pending++;
    }
    if (!r->proto && m->wire == PMC_WIRE_V1 && pmc_slice_eq(m->name, "init")) {
        long long v;
        if (pmc_msg_get_int(m, "pmi_version", &v) == 1)
            r->proto = (int)v;
    } else if (!r->proto && m->wire == PMC_WIRE_V2) {
        r->proto = 2;
    }
}

static void obs_bytes(void *ctx, int conn, int rank, bool from_client, const void *p, size_t n)
{
    live *L = ctx;
    if (L->r)
        tr_add(L, PMT_EV_DATA, conn, rank, from_client ? PMT_CLIENT : PMT_SERVER, p, n);
    if (!rank_ok(L, rank))
        return;
    pcf_crank *k = &L->r->ranks[rank];
    if (from_client) {
        if (!k->s2c)
            k->c2s_before_reply += n;
    } else {
        if (k->firstlen + 1 < sizeof k->first) { /* what the program was answered first */
            size_t take = n < sizeof k->first - 1 - k->firstlen ? n : sizeof k->first - 1 - k->firstlen;
            memcpy(k->first + k->firstlen, p, take);
            k->firstlen += take;
        }
        k->s2c += n;
        if (k->pending > 0)
            k->pending = 0; /* an answer went out: nothing of this rank is outstanding */
    }
}

static void obs_decode_error(void *ctx, int conn, int rank, const pmc_error *e)
{
    live *L = ctx;
    (void)conn;
    if (!rank_ok(L, rank) || L->r->ranks[rank].decode_err[0])
        return;
    pmc_error_format(e, L->r->ranks[rank].decode_err, sizeof L->r->ranks[rank].decode_err);
}

/* The connections whose client end may still hold bytes: open, and neither
 * at end of stream nor closed by the server. */
static void conn_track(live *L, int conn, bool open)
{
    for (size_t i = 0; i < L->nconn; i++)
        if (L->conn_ids[i] == conn) {
            if (!open)
                L->conn_ids[i] = L->conn_ids[--L->nconn];
            return;
        }
    if (!open)
        return;
    if (L->nconn == L->capconn) {
        size_t nc = L->capconn ? L->capconn * 2 : 8;
        int *ni = realloc(L->conn_ids, nc * sizeof *ni);
        if (!ni)
            return; /* untracked: the end of the run falls back to a quiet spell */
        L->conn_ids = ni;
        L->capconn = nc;
    }
    L->conn_ids[L->nconn++] = conn;
}

static void obs_event(void *ctx, int conn, int rank, const char *what, const char *why)
{
    live *L = ctx;
    if (strcmp(what, "open") == 0)
        conn_track(L, conn, true);
    else if (strcmp(what, "eof") == 0 || strcmp(what, "close") == 0)
        conn_track(L, conn, false);
    if (rank_ok(L, rank) && strcmp(what, "open") == 0 && L->r->ranks[rank].conn0 < 0)
        L->r->ranks[rank].conn0 = conn;
    if (L->r && strcmp(what, "open") == 0) {
        char info[32] = "";
        if (rank >= 0)
            snprintf(info, sizeof info, "rank=%d", rank);
        tr_add(L, PMT_EV_OPEN, conn, rank, PMT_SERVER, info, strlen(info));
    } else if (L->r && strcmp(what, "eof") == 0) {
        tr_add(L, PMT_EV_EOF, conn, rank, PMT_CLIENT, NULL, 0);
    } else if (L->r && strcmp(what, "close") == 0) {
        if (why && *why)
            tr_add(L, PMT_EV_NOTE, conn, rank, PMT_SERVER, why, strcspn(why, "\n"));
        tr_add(L, PMT_EV_CLOSE, conn, rank, PMT_SERVER, NULL, 0);
    }
    if (!rank_ok(L, rank))
        return;
    if (strcmp(what, "open") == 0)
        L->r->ranks[rank].conns++;
    else if (strcmp(what, "eof") == 0)
        L->r->ranks[rank].eof = true;
    else if (strcmp(what, "close") == 0 && !L->r->ranks[rank].close_why[0])
        snprintf(L->r->ranks[rank].close_why, sizeof L->r->ranks[rank].close_why, "%s", why);
}

static void killer(void *ctx, pms_job *j, int rank, int signo)
{
    live *L = ctx;
    (void)j;
    if (rank_ok(L, rank) && L->pid[rank] > 0)
        kill(L->pid[rank], signo);
}

/* abort: kill every rank, as a launcher does (the client may wait for it) */
static void on_abort(void *ctx, pms_job *j, int rank, bool world, int code, const char *msg)
{
    live *L = ctx;
    (void)j;
    (void)world;
    (void)code;
    if (!L->r)
        return;
    pcf_crun *r = L->r;
    /* the server's own teardown (a persona that ends the job on a request
     * it refuses), unless the rank's last request was an abort */
    long last = -1;
    for (size_t i = r->nreq; i-- > 0;)
        if (r->req[i].rank == rank) {
            last = (long)i;
            break;
        }
    if (!r->server_ended && (last < 0 || strcmp(r->req[last].name, "abort") != 0 ||
                             r->ranks[rank].decode_err[0])) {
        r->server_ended = true;
        r->ended_rank = rank;
        r->ended_usec = pws_now_usec() - r->t0;
        snprintf(r->ended_why, sizeof r->ended_why, "%s", msg ? msg : "");
        char note[260];
        snprintf(note, sizeof note, "the server ends the job: %s", r->ended_why);
        pmt_add_event(&r->trace, PMT_EV_NOTE, pws_now_usec() - r->t0, "server", PMT_SERVER,
                      note, strlen(note));
        if (!r->aborted) {
            /* the job's end, as a launcher does it: every rank killed */
            r->aborted = true;
            for (int i = 0; i < r->np; i++)
                if (L->pid[i] > 0 && !r->ranks[i].exited)
                    kill(-L->pid[i], SIGKILL);
            return;
        }
    }
    L->r->aborted = true;
    if (L->r->spec.abort_ignored)
        return;
    for (int i = 0; i < L->r->np; i++)
        if (L->pid[i] > 0 && !L->r->ranks[i].exited)
            kill(-L->pid[i], SIGKILL);
}

static void drain(int *fd, char **buf, size_t *len, size_t *cap, char *ring, size_t *rlen,
                  size_t rcap)
{
    char tmp[4096];
    for (;;) {
        ssize_t n = read(*fd, tmp, sizeof tmp);
        if (n > 0) {
            if (buf) {
                if (*len + (size_t)n + 1 > *cap) {
                    size_t nc = (*len + (size_t)n + 1) * 2;
                    char *nb = realloc(*buf, nc);
                    if (!nb)
                        return;
                    *buf = nb;
                    *cap = nc;
                }
                memcpy(*buf + *len, tmp, (size_t)n);
                *len += (size_t)n;
                (*buf)[*len] = 0;
            } else {
                size_t take = (size_t)n < rcap - 1 ? (size_t)n : rcap - 1;
                if (*rlen + take >= rcap) { /* keep the tail */
                    size_t drop = *rlen + take - (rcap - 1);
                    memmove(ring, ring + drop, *rlen - drop);
                    *rlen -= drop;
                }
                memcpy(ring + *rlen, tmp + n - take, take);
                *rlen += take;
                ring[*rlen] = 0;
            }
            continue;
        }
        if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
            close(*fd);
            *fd = -1;
        }
        return;
    }
}

static void pipes_cb(void *ctx, int fd, uint32_t events)
{
    live *L = ctx;
    (void)events;
    for (int i = 0; L->r && i < L->r->np; i++) {
        pcf_crank *k = &L->r->ranks[i];
        if (L->outfd[i] == fd) {
            drain(&L->outfd[i], &k->out, &k->outlen, &L->outcap[i], NULL, NULL, 0);
        } else if (L->errfd[i] == fd) {
            drain(&L->errfd[i], NULL, NULL, NULL, k->err, &k->errlen, sizeof k->err);
        } else {
            continue;
        }
        return;
    }
}

/* A rank's pidfd became readable: it exited (reaped by the run loop). */
static void exit_cb(void *ctx, int fd, uint32_t events)
{
    (void)ctx;
    (void)fd;
    (void)events;
}

static int pidfd_of(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0); /* close-on-exec */
#else
    (void)pid;
    return -1;
#endif
}

/* The environment of a rank, built before fork (the child only dups and execs). */
static char **rank_env(pms_job *j, const pcf_crun *r, int rank, int fd)
{
    static const char *const drop[] = { "PMI_FD", "PMI_RANK", "PMI_SIZE", "PMI_JOBID",
                                        "PCF_DRIVER_SCRIPT", "PMI_PORT", "PMI_ID",
                                        "PMI_SPAWNED", "PMI_SOCKTYPE", "PMI_AUTH_SECRET",
                                        "PMI_AUTH_SECRET_FILE", "PMI_TOTALVIEW", NULL };
    size_t n = 0;
    while (environ && environ[n])
        n++;
    char **env = calloc(n + 6, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool keep = true;
        for (const char *const *d = drop; *d && keep; d++) {
            size_t dl = strlen(*d);
            keep = !(strncmp(environ[i], *d, dl) == 0 && environ[i][dl] == '=');
        }
        if (keep)
            env[k++] = environ[i];
    }
    char *own[5] = { 0 };
    if (asprintf(&own[0], "PMI_FD=%d%s", fd, r->spec.fd_junk ? r->spec.fd_junk : "") < 0 || asprintf(&own[1], "PMI_RANK=%d", rank) < 0 ||
        asprintf(&own[2], "PMI_SIZE=%d", r->np) < 0 ||
        asprintf(&own[3], "PMI_JOBID=%s", pms_job_id(j)) < 0 ||
        asprintf(&own[4], "PCF_DRIVER_SCRIPT=%s", r->spec.script ? r->spec.script : "all") < 0) {
        for (int i = 0; i < 5; i++)
            free(own[i]);
        free(env);
        return NULL;
    }
    for (int i = 0; i < 5; i++)
        env[k++] = own[i];
    env[k] = NULL;
    return env;
}

static void rank_env_free(char **env)
{
    if (!env)
        return;
    size_t k = 0;
    while (env[k])
        k++;
    for (size_t i = k >= 5 ? k - 5 : 0; i < k; i++) /* the five of our own, at the end */
        free(env[i]);
    free(env);
}

static pid_t start_rank(live *L, pms_server *s, pms_job *j, pcf_crun *r, int rank, int *outfd,
                        int *errfd)
{
    int fd = pms_attach_rank(s, j, rank);
    int op[2], ep[2];
    if (fd < 0)
        return -1;
    char **env = rank_env(j, r, rank, fd);
    if (!env) {
        close(fd);
        return -1;
    }
    if (pipe2(op, O_CLOEXEC) < 0) {
        rank_env_free(env);
        close(fd);
        return -1;
    }
    if (pipe2(ep, O_CLOEXEC) < 0) {
        rank_env_free(env);
        close(fd);
        close(op[0]);
        close(op[1]);
        return -1;
    }
    char fail[600];
    snprintf(fail, sizeof fail, "pmi2-conform: cannot run %s: ", R.app[0]);
    pid_t pid = fork();
    if (pid == 0) {
        /* other runs' threads may hold locks: nothing here but system calls */
        setpgid(0, 0);
        /* the program gets what a launcher gives: default dispositions (our
         * SIGPIPE is ignored) and no blocked signal (ERR-20: a client that
         * dies of SIGPIPE must be seen to die) */
        struct sigaction dfl = { .sa_handler = SIG_DFL };
        for (int sig = 1; sig < NSIG; sig++)
            sigaction(sig, &dfl, NULL); /* EINVAL for SIGKILL, SIGSTOP: harmless */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        dup2(op[1], 1);
        dup2(ep[1], 2);
        int keep = fcntl(fd, F_GETFD);
        fcntl(fd, F_SETFD, keep & ~FD_CLOEXEC);
        execvpe(R.app[0], R.app, env);
        const char *why = strerrordesc_np(errno);
        if (write(2, fail, strlen(fail)) >= 0 && why && write(2, why, strlen(why)) >= 0 &&
            write(2, "\n", 1) >= 0)
            _exit(127);
        _exit(127);
    }
    rank_env_free(env);
    close(fd);
    close(op[1]);
    close(ep[1]);
    if (pid < 0) {
        close(op[0]);
        close(ep[0]);
        return -1;
    }
    setpgid(pid, pid);
    fcntl(op[0], F_SETFL, O_NONBLOCK);
    fcntl(ep[0], F_SETFL, O_NONBLOCK);
    *outfd = op[0];
    *errfd = ep[0];
    pms_watch_fd(s, op[0], pipes_cb, L);
    pms_watch_fd(s, ep[0], pipes_cb, L);
    return pid;
}

/* Everything the ranks wrote is read: their pipes at end of file, every
 * connection at end of stream or closed. */
static bool drained(const live *L)
{
    for (int i = 0; i < L->r->np; i++)
        if (L->outfd[i] >= 0 || L->errfd[i] >= 0)
            return false;
    return L->nconn == 0;
}

static void execute(pcf_crun *r, unsigned timeout_ms)
{
    uint64_t t0 = pws_now_usec();
    r->t0 = t0;
    pms_config cfg;
    pms_config_default(&cfg);
    cfg.persona = r->persona;
    cfg.finalize_linger = r->spec.linger;
    if (r->spec.nodes > 0)
        cfg.nodes = r->spec.nodes;
    if (r->spec.cyclic) { /* dealt round robin, written as Hydra does: wrapped */
        cfg.mapping = PMS_MAP_CYCLIC;
        cfg.wrap_mapping = true;
    }
    if (r->spec.max_val)
        cfg.limits.max_val = r->spec.max_val;
    cfg.log = fopen("/dev/null", "we");
    pms_server *s = pms_server_new(&cfg);
    if (!s) {
        snprintf(r->error, sizeof r->error, "mock server: cannot start (persona %s)", r->persona);
        if (cfg.log)
            fclose(cfg.log);
        return;
    }
    pid_t pid[r->np];
    int outfd[r->np], errfd[r->np], pidfd[r->np];
    size_t outcap[r->np];
    live L = { .r = r, .pid = pid, .outfd = outfd, .errfd = errfd, .pidfd = pidfd,
               .outcap = outcap };
    pmc_decoder_opts dopt;
    pcf_wire_decoder_opts(&dopt);
    L.dec = pmc_decoder_new(&dopt);
    pms_observer ob = { .ctx = &L, .request = obs_request, .bytes = obs_bytes,
                        .decode_error = obs_decode_error, .event = obs_event };
    pms_set_observer(s, &ob);
    pms_set_killer(s, killer, &L);
    pms_events ev = { .ctx = &L, .abort = on_abort };
    pms_set_events(s, &ev);
    int ids[PCF_CMAX_FAULTS];
    for (int i = 0; i < r->spec.nfaults; i++)
        ids[i] = pms_fault_add(s, &r->spec.faults[i]);
    pms_job *j = pms_job_create(s, r->np, NULL);
    if (j)
        snprintf(r->jobid, sizeof r->jobid, "%s", pms_job_id(j));
    for (int i = 0; i < r->np; i++) {
        outfd[i] = errfd[i] = pidfd[i] = -1;
        outcap[i] = 0;
        pid[i] = j ? start_rank(&L, s, j, r, i, &outfd[i], &errfd[i]) : -1;
        if (pid[i] < 0) {
            snprintf(r->error, sizeof r->error, "cannot start rank %d of %s", i, R.app[0]);
            r->ranks[i].exited = true;
        } else if ((pidfd[i] = pidfd_of(pid[i])) >= 0 &&
                   pms_watch_fd(s, pidfd[i], exit_cb, &L) < 0) {
            close(pidfd[i]);
            pidfd[i] = -1;
        }
    }
    /* Until every rank has exited: a rank's exit wakes the loop through its
     * pidfd (without one, the loop looks every 20 ms). */
    uint64_t deadline = pws_deadline_ms(timeout_ms);
    for (;;) {
        bool all = true, polled = false;
        for (int i = 0; i < r->np; i++) {
            if (pid[i] <= 0 || r->ranks[i].exited)
                continue;
            int st;
            if (waitpid(pid[i], &st, WNOHANG) == pid[i]) {
                r->ranks[i].exited = true;
                r->ranks[i].status = st;
                kill(-pid[i], SIGKILL); /* its own children */
                if (pidfd[i] >= 0) { /* readable for good now */
                    pms_unwatch_fd(s, pidfd[i]);
                    close(pidfd[i]);
                    pidfd[i] = -1;
                }
            } else {
                all = false;
                polled |= pidfd[i] < 0;
            }
        }
        if (all)
            break;
        uint64_t now = pws_now_usec();
        if (now >= deadline) {
            r->timed_out = true;
            for (int i = 0; i < r->np; i++)
                if (pid[i] > 0 && !r->ranks[i].exited) {
                    kill(-pid[i], SIGKILL);
                    waitpid(pid[i], &r->ranks[i].status, 0);
                }
            break;
        }
        uint64_t left = (deadline - now + 999) / 1000;
        pms_server_run(s, polled ? 20 : left > 1000 ? 1000 : (int)left);
    }
    for (int i = 0; i < r->np; i++)
        if (pidfd[i] >= 0) {
            pms_unwatch_fd(s, pidfd[i]);
            close(pidfd[i]);
            pidfd[i] = -1;
        }
    /* What is still in the pipes and sockets: read until every pipe is at
     * end of file and every connection at end of stream (a process the
     * group kill missed may hold them: then until 50 ms pass quietly, 1 s
     * at most). */
    uint64_t quiet = pws_now_usec(), cap = quiet + 1000000;
    while (!drained(&L) && pws_now_usec() < cap) {
        if (pms_server_run(s, 5) > 0)
            quiet = pws_now_usec();
        else if (pws_now_usec() - quiet >= 50000)
            break;
    }
    for (int i = 0; i < r->np; i++) {
        if (outfd[i] >= 0) {
            drain(&outfd[i], &r->ranks[i].out, &r->ranks[i].outlen, &outcap[i], NULL, NULL, 0);
            if (outfd[i] >= 0) {
                pms_unwatch_fd(s, outfd[i]);
                close(outfd[i]);
            }
        }
        if (errfd[i] >= 0) {
            drain(&errfd[i], NULL, NULL, NULL, r->ranks[i].err, &r->ranks[i].errlen,
                  sizeof r->ranks[i].err);
            if (errfd[i] >= 0) {
                pms_unwatch_fd(s, errfd[i]);
                close(errfd[i]);
            }
        }
    }
    for (int i = 0; i < r->spec.nfaults; i++)
        r->fired[i] = pms_fault_fired(s, ids[i]);
    pms_server_free(s);
    fclose(cfg.log);
    free(L.conn_ids);
    if (L.dec)
        pmc_decoder_free(L.dec);
    for (int i = 0; i < r->np; i++) {
        const char *d = r->ranks[i].out ? strstr(r->ranks[i].out, "pcf-driver ") : NULL;
        if (!d)
            continue;
        r->driver = true;
        const char *a = strstr(d, " api=pmi");
        if (a && a < d + strcspn(d, "\n"))
            r->driver_api = atoi(a + 8);
    }
    r->usec = pws_now_usec() - t0;
}

/* ---------------------------------------------------------------- the runs
 *
 * Runs are independent (a mock server and a job of their own each), and
 * most of a run's time is the client's and the faults' waiting, so the runs
 * the cases will ask for are learnt first (every runnable case's run
 * function is called with pcf_client_run answering NULL: its first spec)
 * and run by a pool of threads while the cases grade, in case order, on the
 * main thread; a case whose run is not done yet waits for it, one still
 * queued the main thread runs itself, and a spec learnt only while grading
 * (a second run that depends on the first) runs there and then.  The
 * report does not depend on the order in which the runs end. */

enum { SLOT_QUEUED, SLOT_RUNNING, SLOT_DONE };

typedef struct slot {
    pcf_crun *r;
    unsigned tmo;
    int state;
    bool delivered;                  /* handed to a case once */
    void *data[PCF_CMAX_FAULTS];     /* the faults' bytes, copied */
} slot;

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_cv = PTHREAD_COND_INITIALIZER;

static bool same_spec(const pcf_cspec *a, const pcf_cspec *b)
{
    if (a->np != b->np || a->nfaults != b->nfaults || a->abort_ignored != b->abort_ignored ||
        a->linger != b->linger || a->nodes != b->nodes || a->cyclic != b->cyclic ||
        a->max_val != b->max_val || strcmp(a->fd_junk ? a->fd_junk : "", b->fd_junk ? b->fd_junk : "") ||
        strcmp(a->persona, b->persona) ||
        strcmp(a->script, b->script))
        return false;
    for (int i = 0; i < a->nfaults; i++) {
        const pms_fault *x = &a->faults[i], *y = &b->faults[i];
        if (x->kind != y->kind || x->nth != y->nth || x->rank != y->rank ||
            x->delay_ms != y->delay_ms || x->offset != y->offset || x->rc != y->rc ||
            x->after != y->after || x->len != y->len || x->signo != y->signo ||
            x->accept != y->accept || x->accept_ctx != y->accept_ctx ||
            strcmp(x->cmd ? x->cmd : "", y->cmd ? y->cmd : "") ||
            strcmp(x->errmsg ? x->errmsg : "", y->errmsg ? y->errmsg : "") ||
            (x->len && memcmp(x->data, y->data, x->len)))
            return false;
    }
    return true;
}

static void free_run(pcf_crun *r)
{
    for (size_t i = 0; i < r->nreq; i++)
        free(r->req[i].raw);
    free(r->req);
    for (int i = 0; i < r->np; i++)
        free(r->ranks[i].out);
    free(r->ranks);
    pmt_trace_free(&r->trace);
    free(r);
}

static void free_slot(slot *sl)
{
    free_run(sl->r);
    for (int i = 0; i < PCF_CMAX_FAULTS; i++)
        free(sl->data[i]);
    free(sl);
}

/* A new slot for spec s (its strings are the cases' literals or --persona;
 * the faults' bytes may be a case's scratch buffer: copied). */
static slot *new_slot(const pcf_cspec *s, unsigned tmo, int state)
{
    slot *sl = calloc(1, sizeof *sl);
    pcf_crun *r = sl ? calloc(1, sizeof *r) : NULL;
    slot **nc = r ? realloc(R.cache, (R.ncache + 1) * sizeof *nc) : NULL;
    if (nc)
        R.cache = nc;
    if (!nc || !(r->ranks = calloc((size_t)s->np, sizeof *r->ranks))) {
        free(r);
        free(sl);
        return NULL;
    }
    sl->r = r;
    sl->tmo = tmo;
    sl->state = state;
    r->spec = *s;
    pmt_trace_init(&r->trace);
    for (int i = 0; i < s->np; i++)
        r->ranks[i].conn0 = -1;
    for (int i = 0; i < s->nfaults; i++)
        if (s->faults[i].len) {
            if (!(sl->data[i] = malloc(s->faults[i].len))) {
                free_slot(sl);
                return NULL;
            }
            memcpy(sl->data[i], s->faults[i].data, s->faults[i].len);
            r->spec.faults[i].data = sl->data[i];
        }
    snprintf(r->persona, sizeof r->persona, "%s", s->persona);
    r->np = s->np;
    R.cache[R.ncache++] = sl;
    return sl;
}

static void run_slot(slot *sl)
{
    execute(sl->r, sl->tmo);
    pthread_mutex_lock(&pool_mu);
    sl->state = SLOT_DONE;
    pthread_cond_broadcast(&pool_cv);
    pthread_mutex_unlock(&pool_mu);
}

static void *pool_worker(void *arg)
{
    (void)arg;
    for (;;) {
        slot *sl = NULL;
        pthread_mutex_lock(&pool_mu);
        while (R.next < R.nqueue && !sl) {
            slot *q = R.queue[R.next++];
            if (q->state == SLOT_QUEUED) {
                q->state = SLOT_RUNNING;
                sl = q;
            }
        }
        pthread_mutex_unlock(&pool_mu);
        if (!sl)
            return NULL;
        run_slot(sl);
    }
}

/* What a run may cost in waiting, for starting the slow ones first: the
 * faults' delays (a fault on every response: some twenty of them). */
static long slot_cost(const slot *sl)
{
    long c = 0;
    for (int i = 0; i < sl->r->spec.nfaults; i++) {
        const pms_fault *f = &sl->r->spec.faults[i];
        c += (long)f->delay_ms * (f->nth == 0 && !f->accept ? 20 : 1);
    }
    return c;
}

static int cmp_cost(const void *a, const void *b)
{
    const slot *x = *(slot *const *)a, *y = *(slot *const *)b;
    long cx = slot_cost(x), cy = slot_cost(y);
    if (cx != cy)
        return cx > cy ? -1 : 1;
    return x->r < y->r ? -1 : x->r > y->r; /* any fixed order: qsort is not stable */
}

/* Start the pool on the queued slots (those learnt by the dry pass). */
static void pool_start(const pcf_opts *o)
{
    size_t nq = 0;
    for (size_t i = 0; i < R.ncache; i++)
        nq += R.cache[i]->state == SLOT_QUEUED;
    if (!nq || !(R.queue = malloc(nq * sizeof *R.queue)))
        return;
    for (size_t i = 0; i < R.ncache; i++)
        if (R.cache[i]->state == SLOT_QUEUED)
            R.queue[R.nqueue++] = R.cache[i];
    qsort(R.queue, R.nqueue, sizeof *R.queue, cmp_cost);
    int want = o->jobs > 0 ? o->jobs : PCF_CLIENT_JOBS;
    if ((size_t)want > R.nqueue)
        want = (int)R.nqueue;
    if (want <= 1) /* --jobs 1: one run at a time, as the cases ask for them */
        return;
    if (!(R.threads = calloc((size_t)want, sizeof *R.threads)))
        return; /* the main thread runs them as the cases ask */
    for (int i = 0; i < want; i++) {
        if (pthread_create(&R.threads[R.nthreads], NULL, pool_worker, NULL) != 0)
            break;
        R.nthreads++;
    }
}

/* Every queued run done, the pool gone. */
static void pool_join(void)
{
    for (int i = 0; i < R.nthreads; i++)
        pthread_join(R.threads[i], NULL);
    free(R.threads);
    R.threads = NULL;
    R.nthreads = 0;
    free(R.queue);
    R.queue = NULL;
    R.nqueue = R.next = 0;
}

static void drop_runs(void)
{
    pool_join();
    for (size_t q = 0; q < R.ncache; q++)
        free_slot(R.cache[q]);
    free(R.cache);
    R.cache = NULL;
    R.ncache = 0;
}

const pcf_crun *pcf_client_run(pcf_ctx *c, const pcf_cspec *spec)
{
    uint64_t t0 = pws_now_usec();
    pcf_cspec s = *spec;
    if (!s.persona)
        s.persona = R.persona;
    if (!s.np)
        s.np = R.o->np > 0 && R.o->np <= 64 ? R.o->np : 2;
    if (!s.script)
        s.script = "all";
    unsigned tmo = c->cur && c->cur->timeout_ms ? c->cur->timeout_ms : R.o->timeout_ms;
    slot *sl = NULL;
    for (size_t i = 0; i < R.ncache && !sl; i++)
        if (same_spec(&R.cache[i]->r->spec, &s))
            sl = R.cache[i];
    if (R.dry) { /* learning which runs the cases want */
        if (!sl)
            new_slot(&s, tmo, SLOT_QUEUED);
        return NULL;
    }
    bool mine = false;
    pthread_mutex_lock(&pool_mu);
    if (!sl) {
        sl = new_slot(&s, tmo, SLOT_RUNNING);
        mine = sl != NULL;
    } else if (sl->state == SLOT_QUEUED) {
        sl->state = SLOT_RUNNING;
        mine = true;
    }
    pthread_mutex_unlock(&pool_mu);
    if (!sl) {
        pcf_observe(c, "harness-error", "out of memory");
        return NULL;
    }
    if (mine)
        run_slot(sl);
    pthread_mutex_lock(&pool_mu);
    while (sl->state != SLOT_DONE)
        pthread_cond_wait(&pool_cv, &pool_mu);
    pthread_mutex_unlock(&pool_mu);
    /* the case's duration: its run's, wherever and whenever it ran */
    R.spent += pws_now_usec() - t0;
    size_t u = 0;
    while (u < R.nused && R.used[u] != sl)
        u++;
    if (u == R.nused) {
        if (R.nused == R.capused) {
            size_t nc = R.capused ? R.capused * 2 : 4;
            slot **nu = realloc(R.used, nc * sizeof *nu);
            if (nu) {
                R.used = nu;
                R.capused = nc;
            }
        }
        if (R.nused < R.capused)
            R.used[R.nused++] = sl;
    }
    bool first = !sl->delivered;
    sl->delivered = true;
    if (first)
        R.charged += sl->r->usec;
    if (first && sl->r->error[0]) {
        pcf_observe(c, "harness-error", "%s", sl->r->error);
        return NULL;
    }
    return sl->r;
}

/* ---------------------------------------------------------------- helpers */

const pcf_creq *pcf_creq_find(const pcf_crun *r, int rank, const char *name, int nth)
{
    int seen = 0;
    for (size_t i = 0; i < r->nreq; i++)
        if ((rank < 0 || r->req[i].rank == rank) && strcmp(r->req[i].name, name) == 0 &&
            ++seen == nth)
            return &r->req[i];
    return NULL;
}

size_t pcf_creq_count(const pcf_crun *r, int rank, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nreq; i++)
        if ((rank < 0 || r->req[i].rank == rank) && (!name || strcmp(r->req[i].name, name) == 0))
            n++;
    return n;
}

const char *pcf_creq_names(const pcf_crun *r, int rank, char *buf, size_t n)
{
    size_t k = 0;
    if (n)
        buf[0] = 0;
    for (size_t i = 0; i < r->nreq && k + 1 < n; i++)
        if (r->req[i].rank == rank)
            k += (size_t)snprintf(buf + k, n - k, "%s%s", k ? ", " : "", r->req[i].name);
    return buf;
}

int pcf_creq_msg(pcf_ctx *c, const pcf_creq *q, pmc_msg *m)
{
    pmc_error err;
    return pcf_decode(c, q->raw, q->len, m, &err);
}

const char *pcf_cshow(const char *p, size_t n, char *buf, size_t bn)
{
    size_t j = 0;
    for (size_t i = 0; i < n && j + 8 < bn; i++) {
        unsigned char ch = (unsigned char)p[i];
        if (ch == '\n')
            j += (size_t)snprintf(buf + j, bn - j, "\\n");
        else if (ch < 0x20 || ch > 0x7e)
            j += (size_t)snprintf(buf + j, bn - j, "\\x%02x", ch);
        else
            buf[j++] = (char)ch;
    }
    if (bn)
        buf[j < bn ? j : bn - 1] = 0;
    return buf;
}

const char *pcf_cline(const pcf_crun *r, int rank, const char *call)
{
    if (rank < 0 || rank >= r->np || !r->ranks[rank].out)
        return NULL;
    size_t cl = strlen(call);
    for (const char *p = r->ranks[rank].out; p && *p;) {
        if (strncmp(p, "pcf ", 4) == 0 && strncmp(p + 4, call, cl) == 0 && p[4 + cl] == ' ')
            return p + 4 + cl + 1;
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return NULL;
}

bool pcf_cfield(const pcf_crun *r, int rank, const char *call, const char *key, char *buf,
                size_t n)
{
    const char *l = pcf_cline(r, rank, call);
    size_t kl = strlen(key);
    while (l && *l && *l != '\n') {
        if (strncmp(l, key, kl) == 0 && l[kl] == '=') {
            const char *v = l + kl + 1;
            size_t vl = strcspn(v, " \n");
            snprintf(buf, n, "%.*s", (int)vl, v);
            return true;
        }
        l += strcspn(l, " \n");
        if (*l == ' ')
            l++;
    }
    if (n)
        buf[0] = 0;
    return false;
}

bool pcf_crc(const pcf_crun *r, int rank, const char *call, long *rc)
{
    char b[32];
    if (!pcf_cfield(r, rank, call, "rc", b, sizeof b))
        return false;
    *rc = strtol(b, NULL, 10);
    return true;
}

bool pcf_cabsent(const pcf_crun *r, int rank, const char *call)
{
    const char *l = pcf_cline(r, rank, call);
    return l && strncmp(l, "absent", 6) == 0 && (l[6] == '\n' || l[6] == 0 || l[6] == ' ');
}

bool pcf_clacks(pcf_ctx *c, const pcf_crun *r, const char *call)
{
    for (int k = 0; r && k < r->np; k++)
        if (pcf_cabsent(r, k, call)) {
            size_t n = strcspn(call, ":");
            pcf_observe(c, "absent", "rank %d: the library has no %.*s", k, (int)n, call);
            return true;
        }
    return false;
}

bool pcf_cended(const pcf_crun *r, int rank)
{
    const pcf_crank *k = &r->ranks[rank];
    return k->out && strstr(k->out, "\npcf-end\n") && k->exited && WIFEXITED(k->status) &&
           WEXITSTATUS(k->status) == 0;
}

int pcf_crc_of(pcf_ctx *c, const pcf_crun *r, int rank, const char *call, long *rc,
               const char *hang)
{
    char b[100];
    if (pcf_crc(r, rank, call, rc))
        return 0;
    /* the job ended on another rank's request first: nothing of this rank's
     * to grade; ended on a close (an init that failed, say), the init's
     * failure is graded first */
    if (pcf_clacks(c, r, call) || pcf_cserver_ended(c, r, false) ||
        pcf_cinit_failed(c, r, rank, call) || pcf_cserver_ended(c, r, true))
        return -1;
    if (r->timed_out)
        pcf_observe(c, hang, "rank %d: %s had not returned at the deadline", rank, call);
    else
        pcf_observe(c, "no-report", "rank %d: no result of %s (%s; stderr: %.200s)", rank, call,
                    pcf_cstatus(r, rank, b, sizeof b), r->ranks[rank].err);
    return -1;
}

bool pcf_cserver_ended(pcf_ctx *c, const pcf_crun *r, bool on_close)
{
    if (!r || !r->server_ended)
        return false;
    /* the last message the rank sent before the end: the one the server
     * reacted to (its decoder may have refused it: decoded here again) */
    char lab[16], b[300] = "";
    snprintf(lab, sizeof lab, "r%d", r->ended_rank);
    pmc_decoder_opts o;
    pcf_wire_decoder_opts(&o);
    pmc_decoder *d = pmc_decoder_new(&o);
    if (!d)
        return false;
    bool ok = false, bad = false, closed = false;
    for (size_t i = 0; i < r->trace.nevents && !bad; i++) {
        const pmt_event *e = &r->trace.events[i];
        if (e->usec > r->ended_usec)
            break;
        if (e->kind == PMT_EV_EOF && strcmp(e->conn, lab) == 0) {
            closed = true; /* the program closed its connection: the end is its close's */
            break;
        }
        if (e->kind != PMT_EV_DATA || e->side != PMT_CLIENT || strcmp(e->conn, lab) != 0)
            continue;
        pmc_decoder_feed(d, e->data, e->len);
        pmc_msg m;
        pmc_error err;
        int rc;
        while ((rc = pmc_decoder_next(d, &m, &err)) == PMC_MSG) {
            /* a request SPEC.md allows: no non-canonical form, valid, and no
             * continuation (CONCAT-12: not unless the server is known to
             * implement it) */
            pmc_vreport rep;
            ok = !(m.notes & (PMC_STRICT_ALL | PMC_NOTE_CONTINUED)) &&
                 pmc_validate(&m, PMC_VAL_REQUEST | PMC_VAL_STRICT, &rep) &&
                 !pmc_slice_eq(m.name, "abort");
            pcf_cshow(m.raw.ptr, m.raw.len, b, sizeof b);
        }
        bad = rc == PMC_ERR; /* bytes no conforming client sends */
    }
    pmc_decoder_free(d);
    if (closed && on_close) {
        pcf_observe(c, "server-ended", "the %s server ended the job when rank %d closed its "
                    "connection before finalize (%s; CONN-6 allows it), before the "
                    "program reported what the case grades", r->persona, r->ended_rank,
                    r->ended_why);
        return true;
    }
    if (closed || bad || !ok)
        return false; /* the client's own doing: graded as it is */
    pcf_observe(c, "server-ended", "the %s server ended the job on rank %d's request %s (%s): "
                "a request SPEC.md allows, which this server refuses as the one it stands for "
                "does; what the program did after it was never answered, so it is not graded "
                "here", r->persona, r->ended_rank, b, r->ended_why);
    return true;
}

/* Call fn on each message the server sent to rank (its first connection),
 * decoded as SPEC.md reads them, until fn returns true; true when one did. */
static bool each_response(const pcf_crun *r, int rank, bool (*fn)(const pmc_msg *m, void *ctx),
                          void *ctx)
{
    char lab[16];
    pmc_decoder_opts o;
    snprintf(lab, sizeof lab, "r%d", rank);
    pcf_wire_decoder_opts(&o);
    pmc_decoder *d = pmc_decoder_new(&o);
    if (!d)
        return false;
    bool got = false;
    for (size_t i = 0; i < r->trace.nevents && !got; i++) {
        const pmt_event *e = &r->trace.events[i];
        if (e->kind != PMT_EV_DATA || e->side != PMT_SERVER || strcmp(e->conn, lab) != 0)
            continue;
        pmc_decoder_feed(d, e->data, e->len);
        pmc_msg m;
        pmc_error err;
        int rc = PMC_AGAIN;
        while (!got && (rc = pmc_decoder_next(d, &m, &err)) == PMC_MSG)
            got = fn(&m, ctx);
        if (!got && rc == PMC_ERR)
            break;
    }
    pmc_decoder_free(d);
    return got;
}

typedef struct rsp_q {
    const char *name, *key, *value;
    long long *v;
} rsp_q;

static bool rsp_int(const pmc_msg *m, void *ctx)
{
    rsp_q *q = ctx;
    return pmc_slice_eq(m->name, q->name) && pmc_msg_get_int(m, q->key, q->v) == 1;
}

static bool rsp_value(const pmc_msg *m, void *ctx)
{
    rsp_q *q = ctx;
    pmc_slice v;
    return pmc_slice_eq(m->name, q->name) && pmc_msg_get(m, q->key, &v) &&
           v.len == strlen(q->value) && memcmp(v.ptr, q->value, v.len) == 0;
}

bool pcf_cresponse_int(const pcf_crun *r, int rank, const char *name, const char *key,
                       long long *v)
{
    rsp_q q = { .name = name, .key = key, .v = v };
    return each_response(r, rank, rsp_int, &q);
}

bool pcf_cresponse_has(const pcf_crun *r, int rank, const char *name, const char *key,
                       const char *value)
{
    rsp_q q = { .name = name, .key = key, .value = value };
    return each_response(r, rank, rsp_value, &q);
}

bool pcf_creq_semi_unescaped(pcf_ctx *c, const pcf_creq *q)
{
    pmc_msg m;
    pmc_slice k;
    if (q->wire != PMC_WIRE_V2 || strcmp(q->name, "kvs-put") != 0 || q->len < 6 ||
        pcf_creq_msg(c, q, &m) != 0 || !pmc_msg_get(&m, "key", &k) || k.len < 8 ||
        memcmp(k.ptr, "pcf-semi", 8) != 0)
        return false;
    /* the same put, value a;b;c, from the encoder, then its ";;" made ";" */
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    for (size_t i = 0; i < m.npairs; i++) /* (the slices stay valid: m is c's scratch) */
        if (pmc_slice_eq(m.pairs[i].key, "value"))
            pmc_enc_str(&e, "value", "a;b;c");
        else if (pmc_slice_eq(m.pairs[i].key, "thrid") || pmc_slice_eq(m.pairs[i].key, "key"))
            pmc_enc_slice(&e, m.pairs[i].key, m.pairs[i].val);
    size_t n;
    const char *o = pcf_cencode(&e, &n);
    const char *at = o ? memmem(o, n, "a;;b;;c", 7) : NULL;
    if (!at || n - 2 != q->len || memcmp(q->raw + 6, o + 6, (size_t)(at - o) - 6 + 2) != 0)
        return false;
    size_t head = (size_t)(at - o) + 2; /* "a;" */
    return memcmp(q->raw + head, "b;c", 3) == 0 &&
           memcmp(q->raw + head + 3, at + 7, n - (head + 5)) == 0;
}

const char *pcf_cencode(pmc_enc *e, size_t *n)
{
    static pmc_out outs[4];
    static int k;
    pmc_out *o = &outs[k++ % 4];
    pmc_error err;
    pmc_out_reset(o);
    if (pmc_enc_end(e, &pmc_dialect_strict, o, &err) < 0)
        return NULL;
    *n = o->len;
    return o->buf;
}

bool pcf_chex_is(const pcf_crun *r, int rank, const char *call, const char *want)
{
    char hx[2200], w[2200];
    size_t j = 0;
    pcf_cfield(r, rank, call, "x", hx, sizeof hx);
    for (const char *p = want; *p && j + 3 < sizeof w; p++)
        j += (size_t)snprintf(w + j, sizeof w - j, "%02x", (unsigned char)*p);
    w[j] = 0;
    return strcmp(hx, w) == 0;
}

/* The versions rank asked for in its init line (-1 when unknown). */
/* rc (when asked for), pmi_version and pmi_subversion of one PMI-1 line
 * (-1 when absent or unreadable). */
static void line_versions(const char *p, size_t n, long long *rc, long long *v, long long *sv)
{
    pmc_msg m;
    pmc_error err;
    pmc_decoder_opts o;
    *v = *sv = -1;
    if (rc)
        *rc = -1;
    if (!n)
        return;
    /* a private decoder: this may run while a case's scratch message is live */
    pmc_decoder_opts_default(&o);
    pmc_decoder *d = pmc_decoder_new(&o);
    if (!d)
        return;
    pmc_decoder_feed(d, p, n);
    if (pmc_decoder_next(d, &m, &err) == PMC_MSG) {
        pmc_msg_get_int(&m, "pmi_version", v);
        pmc_msg_get_int(&m, "pmi_subversion", sv);
        if (rc && pmc_msg_get_int(&m, "rc", rc) != 1)
            *rc = 0; /* RC-3: an absent rc is 0 */
    }
    pmc_decoder_free(d);
}

void pcf_creq_init_version(const pcf_crun *r, int rank, long long *v, long long *sv)
{
    const pcf_creq *q = pcf_creq_find(r, rank, "init", 1);
    line_versions(q ? q->raw : NULL, q ? q->len : 0, NULL, v, sv);
}

/* A 1.1-only library's stop: it asked for 1.1 and was answered rc=0 with
 * another 1.x (INIT-7), which it must accept (INIT-9). */
static bool refused_subversion(const pcf_crun *r, int rank)
{
    long long v, sv, arc, av, asv;
    const pcf_crank *k = &r->ranks[rank];
    pcf_creq_init_version(r, rank, &v, &sv);
    line_versions(k->first, k->firstlen, &arc, &av, &asv);
    return v == 1 && sv == 1 && arc == 0 && av == 1 && asv != 1;
}

bool pcf_cinit_failed(pcf_ctx *c, const pcf_crun *r, int rank, const char *call)
{
    long irc;
    char st[100], names[200];
    const char *init = strncmp(call, "PMI2_", 5) == 0 ? "PMI2_Init" : "PMI_Init";
    if (strcmp(call, init) == 0)
        return false;
    bool reported = pcf_crc(r, rank, init, &irc);
    if (reported && irc == 0)
        return false;
    if (!reported) {
        /* no report of PMI2_Init at all: it never returned when nothing but
         * the handshake went out (a server that ends the job on the failed
         * peer's close kills the rank inside the call) */
        size_t n = pcf_creq_count(r, rank, NULL);
        if (init[3] != '2' || !n ||
            n != pcf_creq_count(r, rank, "init") + pcf_creq_count(r, rank, "fullinit"))
            return false;
        pcf_observe(c, "init-failed", "rank %d: %s did not return (the program sent only %s; "
                    "%s; stderr: %.200s), so %s was never called", rank, init,
                    pcf_creq_names(r, rank, names, sizeof names),
                    pcf_cstatus(r, rank, st, sizeof st), r->ranks[rank].err, call);
    } else {
        char hint[300] = "";
        /* stopped right after response_to_init, having asked for 1.1 */
        if (pcf_creq_count(r, rank, NULL) == 1 && refused_subversion(r, rank))
            snprintf(hint, sizeof hint, "; the program asked for PMI 1.1 and the %s server "
                     "answered its own subversion (INIT-7), which a client must accept, using "
                     "1.1 (INIT-9): --persona hydra-4.0 answers 1.1 and grades the rest",
                     r->persona);
        /* the library's own words say why (a response it could not use, ...) */
        char why[260] = "";
        if (r->ranks[rank].err[0])
            snprintf(why, sizeof why, " (its stderr: %.200s)", r->ranks[rank].err);
        pcf_observe(c, "init-failed", "rank %d: %s rc=%ld under %s%s, so %s was never called%s",
                    rank, init, irc, r->persona, why, call, hint);
    }
    if (c->cur && !pcf_outcome_find(c->cur, "init-failed") &&
        strcmp(c->obs.outcome, "init-failed") == 0) {
        /* the failure is the init call's, not the clause of the call never made */
        const char *cl = init[3] != '2'                  ? "INIT-9"
                         : strcmp(r->persona, "strict") ? "FULLINIT-8"
                                                          : "FULLINIT-9";
        const pcf_clause *k = pcf_clause_get(cl);
        snprintf(c->obs.clause, sizeof c->obs.clause, "%s", cl);
        c->obs.verdict = !k || k->level == PCF_L_MUST ? PCF_FAIL
                         : c->o && c->o->strict     ? PCF_FAIL
                                                    : PCF_NON_STRICT;
    }
    return true;
}

const char *pcf_cstatus(const pcf_crun *r, int rank, char *buf, size_t n)
{
    const pcf_crank *k = &r->ranks[rank];
    if (r->timed_out && !WIFEXITED(k->status) && !WIFSIGNALED(k->status))
        snprintf(buf, n, "still running at the deadline");
    else if (WIFEXITED(k->status))
        snprintf(buf, n, "exit %d", WEXITSTATUS(k->status));
    else if (WIFSIGNALED(k->status)) {
        const char *abbrev = sigabbrev_np(WTERMSIG(k->status)); /* "PIPE" */
        snprintf(buf, n, "signal %d%s%s%s", WTERMSIG(k->status), abbrev ? " (SIG" : "",
                 abbrev ? abbrev : "", abbrev ? ")" : "");
        if (r->timed_out)
            snprintf(buf + strlen(buf), n - strlen(buf), " (killed at the deadline)");
    }
    else
        snprintf(buf, n, "status %d", k->status);
    return buf;
}

/* ---------------------------------------------------------------- the run */

/* What the reference run told about the program (kept: --repeat frees the
 * run itself). */
typedef struct refinfo {
    bool ran;
    int proto;
    bool driver;
    int driver_api;
    const char *stopped; /* why every rank stopped after init (NULL: it went on) */
    int threaded;        /* rank 0's fullinit said threaded=TRUE (1), FALSE (0), nothing (-1) */
    char said[300];      /* ... that fullinit */
} refinfo;

/* Why case c is not run against this program (NULL: it is). */
static const char *skip_reason(const pcf_case *c, const refinfo *ref)
{
    if (!ref->ran)
        return "the program could not be run";
    if (ref->stopped && strncmp(c->id, "client/init/", 12) != 0)
        return ref->stopped;
    if (ref->proto == 1 && !(c->flags & PCF_V1))
        return "a PMI-2 client case; the program speaks PMI-1";
    if (ref->proto == 2 && !(c->flags & PCF_V2))
        return "a PMI-1 client case; the program speaks PMI-2";
    if (ref->proto == 0 && !(c->flags & PCF_V1 && c->flags & PCF_V2))
        return "the program sent no init line: its protocol is unknown";
    if ((c->flags & PCF_CDRIVER) && !ref->driver)
        return "needs a driver's report lines (pmi2-driver / pmi1-driver)";
    /* a PMI-2 API over the PMI-1 wire (Flux's libpmi2) speaks PMI-1 but
     * reports PMI2_* calls: the PMI-1 API's cases have nothing to read */
    if ((c->flags & PCF_CDRIVER) && ref->driver_api == 2 && !(c->flags & PCF_V2))
        return "a case of the PMI-1 API (pmi1-driver's PMI_* report lines); the program "
               "is a PMI-2 API driver and does not call PMI-1";
    if ((c->flags & PCF_CDRIVER) && ref->driver_api == 1 && !(c->flags & PCF_V1))
        return "a case of the PMI-2 API (pmi2-driver's PMI2_* report lines); the program "
               "is a PMI-1 API driver and does not call PMI-2";
    return NULL;
}

/* Every rank stopped after response_to_init (the server's answer to its
 * init was a refusal, or one it would not take): every case but those of
 * the init line would fail for that one reason.  Said once, on stderr and
 * as their SKIPPED reason; client/init/subversion grades the cause. */
static const char *stopped_after_init(const pcf_crun *r, const char *prog)
{
    static char why[400];
    for (int k = 0; k < r->np; k++) /* (a request the server could not read is no stop) */
        if (pcf_creq_count(r, k, NULL) != 1 || !pcf_creq_find(r, k, "init", 1) ||
            r->ranks[k].decode_err[0])
            return NULL;
    long long v, sv;
    char ans[200];
    const pcf_crank *k0 = &r->ranks[0];
    size_t al = strcspn(k0->first, "\n"); /* the response_to_init line */
    pcf_creq_init_version(r, 0, &v, &sv);
    snprintf(why, sizeof why, "the program stopped after response_to_init: it asked for PMI "
             "%lld.%lld and the %s server answered %s%s", v, sv, r->persona,
             al ? pcf_cshow(k0->first, al < k0->firstlen ? al : k0->firstlen, ans, sizeof ans)
                : "nothing",
             refused_subversion(r, 0) ? " (INIT-7: its highest 1.x); a 1.1-only library must still "
                                 "accept that and use 1.1 (INIT-9, client/init/subversion); "
                                 "--persona hydra-4.0 answers 1.1 and grades the rest"
                               : "");
    fprintf(stderr, "pmi2-conform: %s: %s\n", prog, why);
    return why;
}

/* Why case c, which would run, is UNSUPPORTED without running: a
 * precondition the reference run showed absent (NULL: none). */
static const char *needs_absent(const pcf_case *c, const refinfo *ref)
{
    static char why[600];
    if ((c->needs & PCF_NEED_THREADED) && ref->threaded == 0) {
        snprintf(why, sizeof why, "the library said threaded=FALSE at init (rank 0: %s), so it "
                 "is not graded on calls from several threads at once (FULLINIT-3: a "
                 "thread-safe library says threaded=TRUE)", ref->said);
        return why;
    }
    return NULL;
}

/* The dry pass: every runnable case's first run, queued for the pool. */
static void learn_runs(const pcf_opts *o, const pcf_entry *all, size_t n, const refinfo *ref)
{
    pcf_ctx dry = { .rank = 0, .size = 1, .o = o };
    R.dry = true;
    for (size_t i = 0; i < n; i++) {
        const pcf_case *c = all[i].c;
        if (!pcf_selected(c->id, o->globs, o->nglobs) || skip_reason(c, ref) ||
            needs_absent(c, ref))
            continue;
        pcf_ctx_begin_case(&dry, c, "dry", c->timeout_ms ? c->timeout_ms : o->timeout_ms);
        ((const pcf_ccase *)c)->run(&dry);
    }
    R.dry = false;
    if (dry.scratch)
        pmc_decoder_free(dry.scratch);
}

/* What a run was, in words: "persona strict, 2 ranks, script all, fault delay kvs-get ..." */
static void spec_text(const pcf_crun *r, char *b, size_t n)
{
    size_t k = (size_t)snprintf(b, n, "persona %s, %d rank%s, driver script %s", r->persona,
                                r->np, r->np == 1 ? "" : "s", r->spec.script);
    for (int i = 0; i < r->spec.nfaults && k < n; i++) {
        const pms_fault *f = &r->spec.faults[i];
        k += (size_t)snprintf(b + k, n - k, "; fault %s on %s%s", pms_fault_kind_name(f->kind),
                              f->cmd ? f->cmd : "every request", f->nth ? "" : " (each)");
        if (k < n && f->nth)
            k += (size_t)snprintf(b + k, n - k, " #%d", f->nth);
        if (k < n && f->delay_ms)
            k += (size_t)snprintf(b + k, n - k, ", %d ms", f->delay_ms);
        if (k < n && (f->kind == PMS_FAULT_ERROR || (f->kind == PMS_FAULT_FAIL_FENCE && f->rc)))
            k += (size_t)snprintf(b + k, n - k, ", rc=%d", f->rc);
        if (k < n && f->kind == PMS_FAULT_SPLIT)
            k += (size_t)snprintf(b + k, n - k, " after %zu bytes", f->offset);
        if (k < n && f->kind == PMS_FAULT_UNSOLICITED)
            k += (size_t)snprintf(b + k, n - k, " (%zu bytes %s the response)", f->len,
                                  f->after ? "after" : "before");
        if (k < n && f->kind == PMS_FAULT_PAD)
            k += (size_t)snprintf(b + k, n - k, " (%zu bytes of pairs after its cmd pair)",
                                  f->len);
        if (k < n && f->kind == PMS_FAULT_DROP && f->after)
            k += (size_t)snprintf(b + k, n - k, " (after the response)");
    }
    if (k < n && r->spec.fd_junk)
        k += (size_t)snprintf(b + k, n - k, "; PMI_FD with \"%s\" appended", r->spec.fd_junk);
    if (k < n && r->spec.linger)
        k += (size_t)snprintf(b + k, n - k, "; the server reads on after finalize");
    if (k < n && r->spec.abort_ignored)
        snprintf(b + k, n - k, "; abort neither answered nor acted on");
}

/* The case's transcript: each run it read, one after the other, as
 * DIR/<case>.i0.r<j>.trace (the server-mode layout the reports merge),
 * each opening with a "case ..." note that says what the run was; with
 * several runs, their connections are "run<j>.r<rank>". */
static void write_case_traces(const char *dir, const pcf_case *c)
{
    char safe[160], path[1024], what[600], note[900], lab[PMT_CONN_MAX];
    pcf_safe_name(c->id, safe, sizeof safe);
    uint64_t at = 0;
    for (size_t j = 0; j < R.nused; j++) {
        const pcf_crun *r = R.used[j]->r;
        pmt_trace t;
        pmt_trace_init(&t);
        pmt_add_source(&t, "pmi2-conform client mode: the embedded mock server's view");
        pmt_add_meta(&t, "case", c->id);
        spec_text(r, what, sizeof what);
        snprintf(note, sizeof note, "case %s: run %zu of %zu: %s", c->id, j + 1, R.nused, what);
        pmt_add_event(&t, PMT_EV_NOTE, at, R.nused > 1 ? "run" : "server", PMT_SERVER, note,
                      strlen(note));
        uint64_t last = 0;
        for (size_t i = 0; i < r->trace.nevents; i++) {
            const pmt_event *e = &r->trace.events[i];
            if (R.nused > 1)
                snprintf(lab, sizeof lab, "run%u.%.20s", (unsigned)(j + 1) % 1000, e->conn);
            else
                snprintf(lab, sizeof lab, "%s", e->conn);
            pmt_add_event(&t, e->kind, at + 1 + e->usec, lab, e->side, e->data, e->len);
            last = e->usec;
        }
        at += last + 2;
        snprintf(path, sizeof path, "%s/%s.i0.r%zu.trace", dir, safe, j);
        FILE *f = fopen(path, "w");
        if (f) {
            pmt_write(f, &t, NULL, NULL);
            fclose(f);
        }
        pmt_trace_free(&t);
    }
}

static void rm_tracedir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char path[1024];
    while (d && (de = readdir(d)))
        if (de->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* What the library said of threads in rank 0's fullinit: 1 TRUE, 0 FALSE,
 * -1 nothing (no fullinit, no threaded); the request in said. */
static int said_threaded(pcf_ctx *c, const pcf_crun *r, char *said, size_t n)
{
    const pcf_creq *q = pcf_creq_find(r, 0, "fullinit", 1);
    pmc_msg m;
    bool v;
    said[0] = 0;
    if (!q || pcf_creq_msg(c, q, &m) != 0)
        return -1;
    pcf_cshow(q->raw, q->len, said, n);
    return pmc_msg_get_bool(&m, "threaded", &v, NULL) == 1 ? v : -1;
}

int pcf_run_client(const pcf_opts *o, const char *persona, char **app)
{
    if (!app || !app[0]) {
        fprintf(stderr, "pmi2-conform: client mode needs the program: pmi2-conform client "
                        "[options] [GLOB...] -- PROGRAM [ARGS]\n");
        return PCF_EXIT_USAGE;
    }
    if (!pms_persona_exists(persona)) {
        fprintf(stderr, "pmi2-conform: unknown persona '%s' (strict, hydra-4.0, hydra-4.1, "
                        "slurm)\n", persona);
        return PCF_EXIT_USAGE;
    }
    signal(SIGPIPE, SIG_IGN);
    R = (runner){ .o = o, .persona = persona, .app = app, .t0 = pws_now_usec() };
    pcf_results rs = { 0 };
    size_t k = 0;
    for (char **a = app; *a && k + 2 < sizeof rs.target; a++)
        k += (size_t)snprintf(rs.target + k, sizeof rs.target - k, "%s%s", k ? " " : "", *a);
    size_t n;
    const pcf_entry *all = client_cases(&n);
    pcf_ctx ctx = { .rank = 0, .size = 1, .o = o };
    /* the reference run: which protocol the client speaks, whether it is a driver */
    static const pcf_case probe = { .id = "client/probe", .clause = "INIT-1", .desc = "probe",
                                    .expected = "", .flags = PCF_V1 | PCF_V2 };
    pcf_ctx_begin_case(&ctx, &probe, "probe", o->timeout_ms);
    const pcf_crun *ref = pcf_client_run(&ctx, &(pcf_cspec){ 0 });
    int harness = ref ? 0 : 1;
    if (ref && ref->nreq == 0) {
        /* not a PMI client, or it could not start: nothing to grade */
        char b[100];
        const pcf_crank *r0 = &ref->ranks[0];
        fprintf(stderr, "pmi2-conform: %s sent no PMI request (rank 0: %s)%s%s%s%.300s\n", app[0],
                pcf_cstatus(ref, 0, b, sizeof b),
                r0->decode_err[0] ? "; what it wrote is not PMI: " : "", r0->decode_err,
                r0->errlen ? "; stderr: " : "", r0->err);
        drop_runs();
        return PCF_EXIT_USAGE;
    }
    refinfo ri = { .ran = ref != NULL, .proto = ref ? ref->proto : 0,
                   .driver = ref && ref->driver, .driver_api = ref ? ref->driver_api : 0 };
    if (ref)
        ri.stopped = stopped_after_init(ref, app[0]);
    ri.threaded = ref ? said_threaded(&ctx, ref, ri.said, sizeof ri.said) : -1;
    /* the reports' transcripts: each case's runs, written as it is graded */
    char tdir[64] = "";
    if (o->json_dir || o->html) {
        snprintf(tdir, sizeof tdir, "%s", "/tmp/pcf-client-XXXXXX");
        if (mkdtemp(tdir))
            snprintf(rs.tracedir, sizeof rs.tracedir, "%s", tdir);
        else
            tdir[0] = 0;
    }
    if (ref && o->repeat == 1) { /* --repeat wants fresh runs, one after the other */
        learn_runs(o, all, n, &ri);
        pool_start(o);
    }
    size_t total = 0, done = 0;
    for (size_t i = 0; i < n; i++)
        total += pcf_selected(all[i].c->id, o->globs, o->nglobs);
    for (size_t i = 0; i < n; i++) {
        const pcf_case *c = all[i].c;
        if (!pcf_selected(c->id, o->globs, o->nglobs))
            continue;
        pcf_progress(o, done++, total, c->id);
        pcf_result *res = pcf_results_get(&rs, &all[i]);
        const char *skip = skip_reason(c, &ri);
        if (skip) {
            pcf_result_skip(res, skip);
            continue;
        }
        const char *absent = needs_absent(c, &ri);
        if (absent) {
            pcf_result_add_run(res, PCF_UNSUPPORTED, "needs-absent",
                               pcf_need_clause(PCF_NEED_THREADED), absent, 0);
            continue;
        }
        for (int it = 0; it < o->repeat; it++) {
            char tag[48];
            snprintf(tag, sizeof tag, "c%zui%d", i, it);
            pcf_ctx_begin_case(&ctx, c, tag, c->timeout_ms ? c->timeout_ms : o->timeout_ms);
            if (it > 0) /* --repeat: fresh runs */
                drop_runs();
            uint64_t t0 = pws_now_usec();
            R.spent = R.charged = 0;
            R.nused = 0;
            ((const pcf_ccase *)c)->run(&ctx);
            if (it == 0 && rs.tracedir[0])
                write_case_traces(rs.tracedir, c);
            if (!ctx.observed)
                pcf_observe(&ctx, "harness-error", "the case observed nothing");
            /* the library lacks the call the case grades (pcf_clacks) */
            if (strcmp(ctx.obs.outcome, "absent") == 0 && !pcf_outcome_find(c, "absent"))
                ctx.obs.verdict = PCF_UNSUPPORTED;
            /* the server ended the job on a request SPEC.md allows (pcf_cserver_ended):
             * nothing of the client to grade */
            if (strcmp(ctx.obs.outcome, "server-ended") == 0 &&
                !pcf_outcome_find(c, "server-ended"))
                ctx.obs.verdict = PCF_UNSUPPORTED;
            /* grading time plus the runs it got first, however long it
             * waited for them */
            pcf_result_add_run(res, ctx.obs.verdict, ctx.obs.outcome, ctx.obs.clause,
                               ctx.obs.detail, pws_now_usec() - t0 - R.spent + R.charged);
        }
    }
    pcf_progress_end(o);
    if (ctx.scratch)
        pmc_decoder_free(ctx.scratch);
    drop_runs();
    rs.seconds = (double)(pws_now_usec() - R.t0) / 1e6;
    if (harness)
        snprintf(rs.incomplete, sizeof rs.incomplete, "the program could not be run under the "
                 "mock server (the reference run failed)");
    int code = pcf_report(&rs, o, stdout);
    if (tdir[0])
        rm_tracedir(tdir);
    free(R.used);
    R.used = NULL;
    R.nused = R.capused = 0;
    pcf_results_free(&rs);
    return code;
}
