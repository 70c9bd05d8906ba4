/* Server mode, run as the job: every rank connects through its launcher's
 * environment, the ranks run the same ordered case list and meet after each
 * case through PMI itself; rank 0 grades and reports.
 *
 * Destructive cases (they may break a connection or end the job) run last,
 * one at a time, each on its own victim rank (ranks 1..n-1), because a
 * victim's PMI connection may not survive.  Victims report to rank 0 over a
 * plain TCP side channel, and rank 0 checks after each one that its own
 * connection still works (ERR-2).  Before a destructive case starts, rank 0
 * has already written "start" to the results file, so if the job dies the
 * case is graded "job-killed" by whoever reads the file (--launch). */
#include "control.h"
#include "pmitrace/trace.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The exchange after a case waits for the slowest rank to finish the case
 * (each is bounded by the case deadline) and then for the fence: the slack
 * covers skew and a loaded machine, not a server that stopped answering. */
enum { OBS_LEN = 700, CTL_SLACK_MS = 10000 };

/* After a destructive case rank 0 asks the server on its own connection
 * (ERR-2).  When that connection was closed too, the server may be ending
 * the job: it gets this long to finish before the case is graded
 * others-affected. */
enum { JOB_END_MS = 1500 };

/* The least deadline of the harness's PMI start-up on every rank. */
enum { HS_MIN_MS = 8000 };

typedef struct plan_item {
    const pcf_entry *e;
    const char *skip; /* reason, or NULL */
    bool destructive;
} plan_item;

/* ---------------------------------------------------------------- traces */


/* Under a launcher, rank 0's stdout is a pipe to a forwarder (Hydra's
 * proxy) that dies with the job: before a case that may end the job, give
 * it time to pass on what was written, or the report is lost with it. */
static void let_launcher_forward(void)
{
    struct stat st;
    if (fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
        poll(NULL, 0, 500);
}
/* This rank's PMI start-up (handshake), kept for every case trace: a
 * reproducer replays a session from its first byte. */
static pws_event *startup_ev;
static size_t startup_n;

static void add_events(pmt_trace *t, const char *conn, const pws_event *ev, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        /* monotonic time shared by the ranks of one host: the merge orders
         * them and keeps a late rank late */
        uint64_t us = ev[i].usec + pws_epoch_usec();
        switch (ev[i].kind) {
        case PWS_EV_SENT:
            pmt_add_event(t, PMT_EV_DATA, us, conn, PMT_CLIENT, ev[i].data, ev[i].len);
            break;
        case PWS_EV_RECV:
            pmt_add_event(t, PMT_EV_DATA, us, conn, PMT_SERVER, ev[i].data, ev[i].len);
            break;
        case PWS_EV_EOF:
            pmt_add_event(t, PMT_EV_EOF, us, conn, PMT_SERVER, NULL, 0);
            break;
        case PWS_EV_CLOSE:
            pmt_add_event(t, PMT_EV_CLOSE, us, conn, PMT_CLIENT, NULL, 0);
            break;
        case PWS_EV_TIMEOUT:
            pmt_add_event(t, PMT_EV_TIMEOUT, us, conn, PMT_CLIENT, NULL, 0);
            break;
        case PWS_EV_NOTE:
            pmt_add_event(t, PMT_EV_NOTE, us, conn, PMT_CLIENT, ev[i].data, ev[i].len);
            break;
        }
    }
}

/* DIR/NAME (path): sent over the report channel by a rank of an
 * orchestrated run, whose orchestrator's directory may be on another host,
 * else written here whole and renamed in, so that a rank killed mid-write
 * leaves the last whole one. */
static void store_trace(const pcf_ctx *c, const char *dir, const char *path, const pmt_trace *t)
{
    if (c->o->child && c->o->report) {
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        if (m) {
            pmt_write(m, t, NULL, NULL);
            fclose(m);
            pcf_report_trace(path + strlen(dir) + 1, text, len);
        }
        free(text);
        return;
    }
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f) {
        if (pmt_write(f, t, NULL, NULL) == 0 && fclose(f) == 0)
            rename(tmp, path);
        else
            unlink(tmp);
    }
}

/* The launch a trace belongs to: its job id (kvsname for PMI-1), as a
 * file name part. */
static void job_name(const pcf_ctx *c, char *out, size_t n)
{
    pcf_safe_name(c->jobid[0] ? c->jobid : c->kvsname[0] ? c->kvsname : "job", out, n);
}

static void trace_headers(const pcf_ctx *c, pmt_trace *t, const char *id)
{
    char src[200], b[160];
    snprintf(src, sizeof src, "pmi2-conform %s, %s %s, rank %d (client side: the harness)",
             PCF_TOOL_VERSION, id ? "case" : "start-up", id ? id : "only", c->rank);
    pmt_add_source(t, src);
    if (id)
        pmt_add_meta(t, "case", id);
    job_name(c, b, sizeof b);
    pmt_add_meta(t, "job", b);
    snprintf(b, sizeof b, "%d", c->size);
    pmt_add_meta(t, "ranks", b);
}

/* DIR/startup.<job>.r<rank>.trace: this rank's start-up alone, for the
 * reproducers of cases this rank took no part in (every rank of a job
 * starts up, or the job does not run). */
static void write_startup(const pcf_ctx *c, const char *dir)
{
    static bool written;
    if (!dir || !startup_n || written)
        return;
    written = true;
    char job[160], path[1024], conn[16];
    job_name(c, job, sizeof job);
    snprintf(path, sizeof path, "%s/startup.%s.r%d.trace", dir, job, c->rank);
    snprintf(conn, sizeof conn, "r%d", c->rank);
    pmt_trace t;
    pmt_trace_init(&t);
    trace_headers(c, &t, NULL);
    add_events(&t, conn, startup_ev, startup_n);
    store_trace(c, dir, path, &t);
    pmt_trace_free(&t);
}

/* DIR/<safe>.i<iter>.r<rank>.trace: the start-up, then the case's events
 * from its "case ..." note on. */
static void write_trace(const pcf_ctx *c, const char *dir, const char *id, int iter,
                        const pws_event *ev, size_t n)
{
    if (!dir)
        return;
    char safe[160], path[1024], conn[16];
    pcf_safe_name(id, safe, sizeof safe);
    snprintf(path, sizeof path, "%s/%s.i%d.r%d.trace", dir, safe, iter, c->rank);
    snprintf(conn, sizeof conn, "r%d", c->rank);
    pmt_trace t;
    pmt_trace_init(&t);
    trace_headers(c, &t, id);
    add_events(&t, conn, startup_ev, startup_n);
    add_events(&t, conn, ev, n);
    store_trace(c, dir, path, &t);
    pmt_trace_free(&t);
}

/* A case that may end the job: its trace is saved after every write, since
 * the server may kill this rank before the case returns. */
typedef struct live_trace {
    const pcf_ctx *c;
    const char *dir, *id;
    int iter;
} live_trace;

static void save_live(pws_session *s, const pws_event *ev, bool before, void *arg)
{
    if (!before && ev->kind != PWS_EV_EOF)
        return;
    const live_trace *lt = arg;
    size_t n;
    const pws_event *all = pws_transcript(s, &n);
    pws_event *with = malloc((n + 1) * sizeof *with);
    if (!with)
        return;
    memcpy(with, all, n * sizeof *with);
    if (before) /* the bytes about to go out, which may end this process */
        with[n++] = *ev;
    write_trace(lt->c, lt->dir, lt->id, lt->iter, with, n);
    free(with);
}

static void discard_transcript(pcf_ctx *c)
{
    if (!c->s)
        return;
    size_t n;
    pws_event *ev = pws_transcript_take(c->s, &n);
    pws_events_free(ev, n);
}

/* ---------------------------------------------------------------- one case */

/* Observation text sent to rank 0: "verdict\toutcome\tclause\tdetail". */
static void obs_text(const pcf_ctx *c, char *buf, size_t n)
{
    if (!c->observed)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%d\t%s\t%s\t%s", c->obs.verdict, c->obs.outcome, c->obs.clause,
                 c->obs.detail);
}

/* The exchange after case e failed.  A fence or barrier the server refused
 * means a process of the job ended during the case (FENCE-9 answers so):
 * the case cost the job a process, so rank 0's own success does not stand
 * for it ("job-killed", as when the job ends with the case open). */
static void lost_obs(pcf_ctx *c, const pcf_entry *e, const char *why, char *mine, size_t n)
{
    if (!strstr(why, "fence refused") && !strstr(why, "barrier refused"))
        return;
    if (c->observed && c->obs.verdict != PCF_PASS)
        return; /* rank 0's own finding is worse already */
    pcf_grade(e->c, "job-killed", c->o->strict, &c->obs);
    snprintf(c->obs.detail, sizeof c->obs.detail,
             "a process of the job ended during this case: the server refused the fence "
             "after it (%s), so the other ranks' observations did not come through it "
             "(under --launch each rank sends its own)", why);
    c->observed = true;
    obs_text(c, mine, n);
}

static int parse_obs(const char *s, pcf_obs *o)
{
    if (s[0] == '-' && !s[1])
        return 0;
    const char *t1 = strchr(s, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL,
               *t3 = t2 ? strchr(t2 + 1, '\t') : NULL;
    if (!t3)
        return -1;
    o->verdict = atoi(s);
    snprintf(o->outcome, sizeof o->outcome, "%.*s", (int)(t2 - t1 - 1), t1 + 1);
    snprintf(o->clause, sizeof o->clause, "%.*s", (int)(t3 - t2 - 1), t2 + 1);
    snprintf(o->detail, sizeof o->detail, "%s", t3 + 1);
    if (o->verdict < 0 || o->verdict >= PCF_V_COUNT)
        return -1;
    return 1;
}

/* Rank 0: the worst observation over the ranks decides; details of every
 * rank that saw something other than "ok" are kept. */
static void aggregate(pcf_results *rs, const pcf_entry *e, char **all, int size, uint64_t usec,
                      FILE *resf, int iter)
{
    pcf_obs worst = { .verdict = -1 };
    char actual[4096] = "";
    size_t al = 0;
    int nobs = 0;
    for (int r = 0; r < size; r++) {
        pcf_obs o;
        int p = parse_obs(all[r], &o);
        if (p < 0) {
            snprintf(o.outcome, sizeof o.outcome, "harness-error");
            o.verdict = PCF_ERROR;
            snprintf(o.clause, sizeof o.clause, "%s", e->c->clause);
            snprintf(o.detail, sizeof o.detail, "rank %d sent an unreadable observation", r);
        } else if (p == 0) {
            continue;
        }
        nobs++;
        if (worst.verdict < 0 || pcf_verdict_severity(o.verdict) > pcf_verdict_severity(worst.verdict))
            worst = o;
        if (al < sizeof actual - 1)
            al += (size_t)snprintf(actual + al, sizeof actual - al, "%sr%d %s: %s",
                                   al ? "\n" : "", r, o.outcome, o.detail);
    }
    if (!nobs) {
        worst.verdict = PCF_ERROR;
        snprintf(worst.outcome, sizeof worst.outcome, "harness-error");
        snprintf(worst.clause, sizeof worst.clause, "%s", e->c->clause);
        snprintf(actual, sizeof actual, "no rank reported an observation");
    }
    pcf_result_add_run(pcf_results_get(rs, e), worst.verdict, worst.outcome, worst.clause,
                       actual, usec);
    if (resf) {
        pcf_resfile_result(resf, e->c->id, iter, worst.verdict, worst.outcome, worst.clause, usec,
                           actual);
        fflush(resf);
    }
}

static void run_case_local(pcf_ctx *c, const pcf_entry *e, int idx, int iter, const char *tdir,
                           uint64_t *usec)
{
    char tag[32];
    snprintf(tag, sizeof tag, "c%di%d", idx, iter);
    unsigned tmo = e->c->timeout_ms ? e->c->timeout_ms : c->o->timeout_ms;
    discard_transcript(c);
    uint64_t t0 = pws_now_usec();
    pcf_ctx_begin_case(c, e->c, tag, tmo);
    live_trace lt = { c, tdir, e->c->id, iter };
    if (c->s && tdir && (e->c->flags & PCF_DESTRUCTIVE))
        pws_set_observer(c->s, save_live, &lt);
    if (c->s)
        pws_note(c->s, "case %s (rank %d of %d)", e->c->id, c->rank, c->size);
    e->c->run(c);
    *usec = pws_now_usec() - t0;
    if (c->s) {
        pws_set_observer(c->s, NULL, NULL);
        size_t n;
        pws_event *ev = pws_transcript_take(c->s, &n);
        write_trace(c, tdir, e->c->id, iter, ev, n);
        pws_events_free(ev, n);
    }
}

/* ---------------------------------------------------------------- side channel */

static int side_listen(char *addr, size_t n)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
    socklen_t al = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 64) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &al) < 0) {
        close(fd);
        return -1;
    }
    char host[200];
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "127.0.0.1");
    host[sizeof host - 1] = 0;
    snprintf(addr, n, "%s:%u", host, (unsigned)ntohs(a.sin_port));
    return fd;
}

/* Read one line from fd until the deadline: 1 line, 0 EOF, -1 timeout/error. */
static int side_line(int fd, char *buf, size_t n, uint64_t deadline)
{
    size_t j = 0;
    for (;;) {
        uint64_t now = pws_now_usec();
        if (now >= deadline)
            return -1;
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r = poll(&p, 1, (int)((deadline - now) / 1000 + 1));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            continue;
        char ch;
        ssize_t k = read(fd, &ch, 1);
        if (k == 0)
            return 0;
        if (k < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            return 0; /* reset: the peer is gone */
        }
        if (ch == '\n') {
            buf[j] = 0;
            return 1;
        }
        if (j + 1 < n)
            buf[j++] = ch;
    }
}

static void side_say(int fd, const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
        if (w <= 0) {
            if (w < 0 && errno == EINTR)
                continue;
            return;
        }
        s += w;
        n -= (size_t)w;
    }
}

/* A rank's answer to "ask": whether the server still serves its own
 * connection ("served", or "lost <why>"). */
static void side_answer(pcf_ctx *c, int fd, unsigned ms)
{
    char say[160];
    pws_result r = pcf_ask_served(c, ms);
    if (r == PWS_MSG)
        snprintf(say, sizeof say, "served\n");
    else if (r == PWS_EOF)
        snprintf(say, sizeof say, "lost the server closed its connection\n");
    else if (r == PWS_TIMEOUT)
        snprintf(say, sizeof say, "lost no answer to %s within %u ms\n",
                 c->pmi == 1 ? "get_maxes" : "job-getid", ms);
    else
        snprintf(say, sizeof say, "lost an answer it could not decode\n");
    side_say(fd, say);
    discard_transcript(c);
}

/* Has the rank at the other end of a side channel gone (end of stream, or
 * reset)?  Looked at now, without waiting; what it sent stays unread. */
static bool side_gone(int fd)
{
    char b;
    ssize_t k = recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    return k == 0 || (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

static int side_connect(const char *addr, unsigned timeout_ms)
{
    /* The side channel is not PMI: reuse the session's connect for its
     * deadline handling, then take the descriptor. */
    char err[200];
    const char *colon = strrchr(addr, ':');
    pws_session *s = NULL;
    if (pws_connect(&s, addr, "side", timeout_ms, err, sizeof err) != 0) {
        char local[64];
        snprintf(local, sizeof local, "127.0.0.1%s", colon ? colon : ":0");
        if (pws_connect(&s, local, "side", timeout_ms, err, sizeof err) != 0)
            return -1;
    }
    int fd = dup(pws_fd(s));
    pws_close(s);
    if (fd >= 0) { /* blocking reads through poll() in side_line */
    }
    return fd;
}

/* ---------------------------------------------------------------- the run */

static const char *tdir_make(const pcf_opts *o, char *buf, size_t n)
{
    if (o->json_dir && o->child) /* traces go over the report channel */
        return snprintf(buf, n, "%s/traces", o->json_dir), buf;
    if (o->json_dir) {
        mkdir(o->json_dir, 0777);
        snprintf(buf, n, "%s/traces", o->json_dir);
        mkdir(buf, 0777);
        return buf;
    }
    if (o->html) {
        snprintf(buf, n, "/tmp/pmi2-conform-XXXXXX");
        return mkdtemp(buf);
    }
    return NULL;
}

static void report_and_free(pcf_results *rs, const pcf_opts *o, int *code)
{
    if (rs->nodes > 0) {
        rs->shapes = 1u << (rs->nodes < 31 ? rs->nodes : 31);
        for (size_t i = 0; i < rs->n; i++)
            rs->r[i].nodes = rs->nodes;
    }
    *code = pcf_report(rs, o, stdout);
    pcf_results_free(rs);
}

/* Wait until the orchestrator passed on rank 0's "done" (at most ms). */
static void await_done(unsigned ms)
{
    uint64_t dl = pws_deadline_ms(ms);
    while (pws_now_usec() < dl && !pcf_report_done_seen())
        poll(NULL, 0, 20);
}

/* Rank 0: case `it` is not run, for a need the start-up found absent
 * (pcf_case.needs): UNSUPPORTED with what the probe saw.  A probe left
 * unanswered is also a finding (ERR-3): the first such case that is not
 * destructive carries it, once per launch. */
static void grade_absent(pcf_results *rs, const plan_item *it, const pcf_probed *p,
                         unsigned miss, FILE *resf, bool *charged)
{
    int bit = __builtin_ctz(miss);
    unsigned need = 1u << bit;
    int v = PCF_UNSUPPORTED;
    const char *oc = "needs-absent", *cl = pcf_need_clause(need);
    char why[600];
    if ((p->unanswered & need) && !*charged && !it->destructive) {
        v = PCF_FAIL;
        oc = "probe-unanswered";
        cl = "ERR-3";
        *charged = true;
        snprintf(why, sizeof why, "%s: the server leaves the client waiting (graded once, "
                 "here; the other cases that need it are UNSUPPORTED)", p->why[bit]);
    } else {
        snprintf(why, sizeof why, "not run: %s", p->why[bit]);
    }
    pcf_result_add_run(pcf_results_get(rs, it->e), v, oc, cl, why, 0);
    if (resf)
        pcf_resfile_result(resf, it->e->c->id, 0, v, oc, cl, 0, why);
}

int pcf_run_job(const pcf_opts *o)
{
    signal(SIGPIPE, SIG_IGN);
    /* a child's one stream to the orchestrator (NULL run as the job) */
    FILE *chan = o->child ? pcf_report_stream(o->report) : NULL;
    if (chan) { /* the parent learns that this rank started, and its pid */
        const char *r = getenv("PMI_RANK");
        pcf_resfile_alive(chan, r && *r ? atoi(r) : -1, (long)getpid());
        fflush(chan);
    }
    pcf_ctx c = { .pmi = o->pmi, .o = o };
    /* the start-up exchange gets the case deadline, and at least HS_MIN_MS
     * (a loaded machine, a launcher still starting the other ranks) */
    unsigned hs_ms = o->timeout_ms > HS_MIN_MS ? o->timeout_ms : HS_MIN_MS;
    bool hs_ok = pcf_ctl_handshake(&c, hs_ms) == 0;
    bool rank0 = c.rank == 0;
    if (hs_ok && c.s)
        startup_ev = pws_transcript_take(c.s, &startup_n);
    if (hs_ok && o->json_dir) {
        /* now: a case of the first ranks to start may end the job before
         * the slower ones learn the trace directory from rank 0 */
        char sdir[600];
        snprintf(sdir, sizeof sdir, "%s/traces", o->json_dir);
        mkdir(o->json_dir, 0777);
        mkdir(sdir, 0777);
        write_startup(&c, sdir);
    }

    size_t nall;
    const pcf_entry *all = pcf_cases(&nall);
    plan_item *plan = calloc(nall ? nall : 1, sizeof *plan);
    size_t np = 0;
    for (size_t i = 0; i < nall; i++) {
        if (!pcf_selected(all[i].c->id, o->globs, o->nglobs))
            continue;
        plan[np].e = &all[i];
        plan[np].skip = pcf_unrunnable(all[i].c, o->pmi, c.size);
        plan[np].destructive = (all[i].c->flags & PCF_DESTRUCTIVE) != 0;
        if (plan[np].destructive && (all[i].c->flags & PCF_COLLECTIVE)) {
            /* in a launch of its own it runs like any case; as part of a
             * whole-suite job it could take every other case down */
            if (o->child)
                plan[np].destructive = false;
            else if (!plan[np].skip)
                plan[np].skip = "needs --launch: a destructive case in which every rank takes part";
        }
        np++;
    }
    pcf_results rs = { 0 };
    snprintf(rs.target, sizeof rs.target, "run as the job (PMI-%d, %d ranks)", o->pmi, c.size);
    FILE *resf = rank0 ? chan : NULL;
    uint64_t t_start = pws_now_usec();
    int code = PCF_EXIT_USAGE;

    if (!hs_ok) {
        /* No usable session: grade the handshake locally, report the rest. */
        fprintf(stderr, "pmi2-conform: rank %d: PMI start-up failed: %s\n", c.rank, c.hs.error);
        if (chan && !rank0 && !c.hs.refused) {
            /* every rank says why: rank 0 may not live to (a launcher may end
             * the job as soon as one rank exits) */
            char why[400];
            snprintf(why, sizeof why, "the harness's PMI-%d start-up failed: %s", o->pmi,
                     c.hs.error);
            pcf_resfile_lost(chan, "-", why);
            fflush(chan);
        }
        if (!rank0 && c.hs.env_rank > 0) {
            /* a launcher may end the job as this rank exits: after a
             * refusal, rank 0 is grading, not lost; let it finish */
            if (c.hs.refused && chan)
                await_done(hs_ms);
            free(plan);
            return PCF_EXIT_USAGE;
        }
        for (size_t i = 0; i < np; i++) {
            pcf_result *r = pcf_results_get(&rs, plan[i].e);
            if (plan[i].skip) {
                pcf_result_skip(r, plan[i].skip);
            } else if (c.hs.refused && (!(plan[i].e->c->flags & PCF_LOCAL) ||
                                        (plan[i].e->c->needs & PCF_NEED_ACCEPTED))) {
                /* INIT-8 lets a server refuse a major version: the cases
                 * that need it are not graded (the init cases grade how) */
                char why[400];
                const char *ln = c.hs.init_raw ? c.hs.init_raw : "";
                snprintf(why, sizeof why, "not run: the server refused PMI-%d at init (%.*s)",
                         o->pmi, (int)strcspn(ln, "\n"), ln);
                pcf_result_add_run(r, PCF_UNSUPPORTED, "protocol-refused", "INIT-8", why, 0);
                if (resf)
                    pcf_resfile_result(resf, plan[i].e->c->id, 0, PCF_UNSUPPORTED,
                                       "protocol-refused", "INIT-8", 0, why);
            } else if (plan[i].e->c->flags & PCF_LOCAL) {
                uint64_t us;
                run_case_local(&c, plan[i].e, (int)i, 0, NULL, &us);
                char *one[1];
                char buf[OBS_LEN];
                obs_text(&c, buf, sizeof buf);
                one[0] = buf;
                aggregate(&rs, plan[i].e, one, 1, us, resf, 0);
            } else {
                pcf_result_add_run(r, PCF_ERROR, "harness-error", plan[i].e->c->clause,
                                   c.hs.error, 0);
            }
        }
        rs.seconds = (double)(pws_now_usec() - t_start) / 1e6;
        if (resf) {
            char why[400];
            snprintf(why, sizeof why, "the harness's PMI-%d start-up failed: %s", o->pmi,
                     c.hs.error);
            if (c.hs.refused) /* graded whole: a refusal is no lost session */
                pcf_resfile_done(resf);
            else
                pcf_resfile_lost(resf, "-", why);
            fflush(resf);
        }
        report_and_free(&rs, o, &code);
        free(plan);
        pws_close(c.s);
        return code;
    }

    /* The other ranks of a child job write their own "start" lines: a rank
     * may begin a case while rank 0 is still reading the exchange that
     * closed the previous one, and if that rank's case ends the job the
     * case must be on record (see pcf_resfile_start). */
    FILE *startf = chan;

    /* Start-up exchange: rank 0 hands out the trace directory. */
    char tbuf[512] = "";
    const char *tdir = rank0 ? tdir_make(o, tbuf, sizeof tbuf) : NULL;
    char **vals = calloc((size_t)c.size, sizeof *vals);
    for (int r = 0; r < c.size; r++)
        vals[r] = calloc(1, OBS_LEN);
    int seq = 0;
    char err[600] = "";
    const char *lost_after = "-"; /* the case after which the control channel failed */
    const char *last_run = "-";
    const char *lost_next = NULL; /* the case the other ranks may have begun then */
    char mine[OBS_LEN];
    /* Preconditions: rank 0 probes what the planned cases need, and says
     * after "hello" which needs are absent, so no rank runs those cases. */
    pcf_probed probed = { 0 };
    if (rank0) {
        unsigned needs = 0;
        for (size_t i = 0; i < np; i++)
            if (!plan[i].skip)
                needs |= plan[i].e->c->needs | plan[i].e->c->soft_needs;
        pcf_probe(&c, needs & ~PCF_NEED_ACCEPTED, o->timeout_ms, &probed);
    }
    /* "hello": rank 0 hands out the absent needs and the trace directory;
     * every rank says its host (the node map: its own word on where it
     * runs, never the server's), which rank 0 gathers ... */
    char host[64];
    pcf_host_name(host, sizeof host);
    for (char *h = host; *h; h++)
        if (*h == ' ' || *h == ',' || (unsigned char)*h < 0x21)
            *h = '_';
    snprintf(mine, sizeof mine, "hello %x %s %s", probed.absent, host, tdir ? tdir : "");
    if (tdir)
        snprintf(rs.tracedir, sizeof rs.tracedir, "%s", tdir);
    bool lost = pcf_ctl_exchange(&c, seq++, mine, vals, OBS_LEN, hs_ms + CTL_SLACK_MS, 0, err,
                                 sizeof err) != 0;
    unsigned absent = probed.absent;
    int hoff = 0;
    if (!lost && !rank0 && sscanf(vals[0], "hello %x %*s %n", &absent, &hoff) == 1 &&
        vals[0][hoff]) {
        snprintf(tbuf, sizeof tbuf, "%s", vals[0] + hoff);
        tdir = tbuf;
    }
    /* ... and hands out as a map in the next words, MAP_PART bytes each
     * ("map <parts> <text>", then "map+ <text>"), as many as it takes (the
     * other ranks read only rank 0's words: the exchange every server
     * already serves) */
    if (!lost) {
        enum { MAP_PART = 440 };
        char *text = NULL, *got = NULL;
        size_t tlen = 0, glen = 0;
        int parts = 1;
        if (rank0) {
            char **hosts = calloc((size_t)c.size, sizeof *hosts);
            for (int r = 0; hosts && r < c.size; r++) {
                static char none[] = "?";
                char *w = vals[r], *sp = strchr(w, ' ');
                sp = sp ? strchr(sp + 1, ' ') : NULL; /* after "hello <x> " */
                if (sp) {
                    sp++;
                    sp[strcspn(sp, " ")] = 0;
                }
                hosts[r] = sp && *sp ? sp : none;
            }
            if (hosts && pcf_nodemap_from_hosts(&c, hosts) == 0)
                text = pcf_nodemap_text(&c);
            free(hosts);
            tlen = text ? strlen(text) : 0;
            parts = text ? (int)((tlen + MAP_PART - 1) / MAP_PART) : 1;
        }
        for (int part = 0; part < parts && !lost; part++) {
            if (!rank0)
                snprintf(mine, sizeof mine, "-");
            else if (!text)
                snprintf(mine, sizeof mine, "map -");
            else if (part == 0)
                snprintf(mine, sizeof mine, "map %d %.*s", parts, (int)MAP_PART, text);
            else
                snprintf(mine, sizeof mine, "map+ %.*s", (int)MAP_PART,
                         text + (size_t)part * MAP_PART);
            lost = pcf_ctl_exchange(&c, seq++, mine, vals, OBS_LEN, hs_ms + CTL_SLACK_MS, 0, err,
                                    sizeof err) != 0;
            if (lost || rank0)
                continue;
            const char *v = vals[0];
            int off = 0;
            if (part == 0 && sscanf(v, "map %d %n", &parts, &off) == 1 && off > 0 && parts > 0)
                v += off;
            else if (part > 0 && strncmp(v, "map+ ", 5) == 0)
                v += 5;
            else {
                parts = 0; /* "map -", or a word out of step: no map */
                break;
            }
            size_t vl = strlen(v);
            char *g = realloc(got, glen + vl + 1);
            if (!g)
                break;
            got = g;
            memcpy(got + glen, v, vl + 1);
            glen += vl;
        }
        if (!lost && !rank0 && got && parts > 0)
            pcf_nodemap_parse(&c, got);
        free(text);
        free(got);
    }
    char nodes_why[200] = "";
    if (!lost && pcf_nodes(&c) == 1)
        snprintf(nodes_why, sizeof nodes_why,
                 "needs 2 nodes: every rank of this launch runs on host %.64s", c.host[0]);
    else if (!lost && pcf_nodes(&c) == 0)
        snprintf(nodes_why, sizeof nodes_why,
                 "needs 2 nodes: no node map (rank 0 could not build it)");
    for (size_t i = 0; i < np && !lost; i++)
        if (!plan[i].skip && plan[i].e->c->min_nodes > pcf_nodes(&c))
            plan[i].skip = nodes_why;
    if (!lost && rank0 && pcf_nodes(&c) > 0) {
        pcf_nodes_text(&c, rs.hosts, sizeof rs.hosts);
        rs.nodes = c.nnodes;
        if (resf) {
            pcf_resfile_nodes(resf, rs.nodes, rs.hosts);
            fflush(resf);
        }
    }
    c.absent = absent;
    if (!lost)
        write_startup(&c, tdir);
    bool charged = false;
    for (size_t i = 0; i < np && !lost; i++) {
        unsigned miss = plan[i].skip ? 0 : plan[i].e->c->needs & absent;
        if (!miss)
            continue;
        if (rank0)
            grade_absent(&rs, &plan[i], &probed, miss, resf, &charged);
        plan[i].skip = "a need found absent"; /* graded above: no rank runs it */
    }
    size_t done = 0, total = 0;
    for (size_t i = 0; i < np; i++)
        total += plan[i].skip ? 0 : 1;

    /* Normal phase. */
    for (size_t i = 0; i < np && !lost; i++) {
        const pcf_entry *e = plan[i].e;
        if (plan[i].skip || plan[i].destructive)
            continue;
        for (int it = 0; it < (o->repeat > 0 ? o->repeat : 1) && !lost; it++) {
            if (rank0)
                pcf_progress(o, done, total, e->c->id);
            if (startf) {
                pcf_resfile_start(startf, e->c->id, it, c.rank);
                fflush(startf);
            }
            uint64_t us;
            run_case_local(&c, e, (int)i, it, tdir, &us);
            if (!rank0 && pcf_report_done_seen()) {
                /* rank 0 has finished (it closed its record after this
                 * case, which this rank stayed in): nothing more to do */
                lost = true;
                break;
            }
            obs_text(&c, mine, sizeof mine);
            unsigned tmo = e->c->timeout_ms ? e->c->timeout_ms : o->timeout_ms;
            /* the put after a case waits for no other rank: a server that
             * does not answer it within the case deadline has stopped serving
             * this connection (a held request blocks it); nor does a key
             * missing after the fence, whose rank ended during the case.
             * Either way the next launch goes on sooner than the exchange's
             * slack would let it */
            int xr = pcf_ctl_exchange(&c, seq++, mine, vals, OBS_LEN, tmo + CTL_SLACK_MS, tmo,
                                      err, sizeof err);
            if (xr != 0) {
                lost = true;
                if (!rank0 && chan && c.observed) {
                    /* rank 0 may never have got this rank's word (its own
                     * fence may have failed where this one passed): it goes
                     * to the parent on this rank's own channel, to be
                     * merged unless rank 0's result has it already */
                    pcf_resfile_obs(chan, e->c->id, it, c.rank, c.obs.verdict, c.obs.outcome,
                                    c.obs.clause, c.obs.detail);
                    fflush(chan);
                }
                lost_after = e->c->id;
                /* the other ranks may have passed this exchange and begun
                 * the next case, which rank 0 cannot see: name it too */
                for (size_t j = i + 1; j < np && !lost_next; j++)
                    if (!plan[j].skip && !plan[j].destructive)
                        lost_next = plan[j].e->c->id;
                if (rank0) { /* what rank 0 saw still counts; say why the others are missing */
                    lost_obs(&c, e, err, mine, sizeof mine);
                    char *one[1] = { mine };
                    aggregate(&rs, e, one, 1, us, resf, it);
                }
                break;
            }
            if (rank0)
                aggregate(&rs, e, vals, c.size, us, resf, it);
        }
        if (!lost)
            last_run = e->c->id;
        done++;
    }

    /* Destructive phase. */
    size_t nd = 0;
    for (size_t i = 0; i < np; i++)
        nd += plan[i].destructive && !plan[i].skip;
    int sfd = -1;
    int *vfd = NULL; /* rank 0: side channels to the victims (and watchers), by rank */
    bool *gone_before = NULL; /* rank 0: ranks whose side channel closed before a case */
    bool *ran = NULL;         /* rank 0: ranks that ran their destructive case */
    char saddr[256] = "";
    if (!lost && nd && c.size > 1) {
        /* rank 0's word: side-channel address and the plan index per victim */
        char word[OBS_LEN];
        size_t wl = 0;
        if (rank0) {
            sfd = side_listen(saddr, sizeof saddr);
            wl = (size_t)snprintf(word, sizeof word, "D %s", sfd >= 0 ? saddr : "-");
            int v = 1;
            for (size_t i = 0; i < np && v < c.size; i++)
                if (plan[i].destructive && !plan[i].skip) {
                    wl += (size_t)snprintf(word + wl, sizeof word - wl, " %zu", i);
                    v++;
                }
        } else {
            snprintf(word, sizeof word, "-");
        }
        if (pcf_ctl_exchange(&c, seq++, word, vals, OBS_LEN, hs_ms + CTL_SLACK_MS, 0, err,
                             sizeof err) != 0) {
            lost = true;
            lost_after = last_run;
        }
        else if (!rank0) {
            /* victim k (rank k) runs the k-th listed case */
            char addr[256];
            int off = 0;
            if (sscanf(vals[0], "D %255s %n", addr, &off) == 1 && strcmp(addr, "-") != 0) {
                const char *p = vals[0] + off;
                long pick = -1;
                for (int k = 1; k <= c.rank && *p; k++) {
                    char *end;
                    long x = strtol(p, &end, 10);
                    if (end == p)
                        break;
                    if (k == c.rank)
                        pick = x;
                    p = end;
                }
                /* every rank connects: a victim runs its case on "go"; the
                 * others watch, so that rank 0 sees any rank the server
                 * ends during a case (on several nodes a server may end
                 * the victim's node, not the job: ERR-1) */
                bool victim = pick >= 0 && (size_t)pick < np;
                int fd = side_connect(addr, 10000);
                if (fd >= 0) {
                    char line[64];
                    snprintf(line, sizeof line, "%s %d\n", victim ? "ready" : "watch", c.rank);
                    side_say(fd, line);
                    uint64_t wait = pws_deadline_ms(
                        (unsigned)(nd * (o->timeout_ms + 20000u) + 60000u));
                    int sl;
                    /* "ask": is this rank's own connection still served
                     * after another rank's case (ERR-2, CONN-3)? */
                    unsigned ask_ms;
                    while ((sl = side_line(fd, line, sizeof line, wait)) == 1 &&
                           sscanf(line, "ask %u", &ask_ms) == 1)
                        side_answer(&c, fd, ask_ms < 60000 ? ask_ms : 60000);
                    if (!victim) {
                        ; /* "bye" or EOF */
                    } else {
                        if (sl == 1 && strcmp(line, "go") == 0) {
                            uint64_t us;
                            run_case_local(&c, plan[pick].e, (int)pick, 0, tdir, &us);
                            obs_text(&c, mine, sizeof mine);
                            char hex[2 * OBS_LEN + 32];
                            size_t hl = (size_t)snprintf(hex, sizeof hex, "result %llu ",
                                                         (unsigned long long)us);
                            pcf_hex(mine, strlen(mine), hex + hl, sizeof hex - hl - 2);
                            strcat(hex, "\n");
                            side_say(fd, hex);
                            side_line(fd, line, sizeof line, wait); /* "bye" or EOF */
                        }
                    }
                    close(fd);
                }
            }
        } else if (sfd >= 0) {
            /* rank 0: accept the victims, then run their cases one by one */
            int nv = 0;
            for (size_t i = 0; i < np; i++)
                nv += plan[i].destructive && !plan[i].skip && nv + 1 < c.size;
            vfd = calloc((size_t)c.size, sizeof *vfd);
            gone_before = calloc((size_t)c.size, sizeof *gone_before);
            ran = calloc((size_t)c.size, sizeof *ran);
            if (!gone_before || !ran) {
                free(vfd);
                vfd = NULL;
            }
            for (int r = 0; r < c.size && vfd; r++)
                vfd[r] = -1;
            uint64_t acc_dl = pws_deadline_ms(20000);
            for (int got = 0; got < c.size - 1 && pws_now_usec() < acc_dl;) {
                struct pollfd p = { .fd = sfd, .events = POLLIN };
                if (poll(&p, 1, 200) <= 0)
                    continue;
                int fd = accept(sfd, NULL, NULL);
                if (fd < 0)
                    continue;
                char line[64];
                int who = -1;
                if (side_line(fd, line, sizeof line, pws_deadline_ms(5000)) == 1 &&
                    (sscanf(line, "ready %d", &who) == 1 || sscanf(line, "watch %d", &who) == 1) &&
                    who > 0 && who < c.size && vfd[who] < 0) {
                    vfd[who] = fd;
                    got++;
                } else {
                    close(fd);
                }
            }
            /* The server may end the job with any of these, and rank 0
             * with it: the report of the rest goes out first, then each
             * destructive case's as it completes. */
            if (!o->child) {
                pcf_progress_end(o);
                rs.seconds = (double)(pws_now_usec() - t_start) / 1e6;
                pcf_report_so_far(&rs, o, stdout,
                                  "Destructive cases, one at a time: each may end the job, and "
                                  "its verdict follows when it completes (--launch runs each in "
                                  "a launch of its own):");
            }
            int v = 1;
            for (size_t i = 0; i < np; i++) {
                if (!plan[i].destructive || plan[i].skip)
                    continue;
                const pcf_entry *e = plan[i].e;
                if (v >= c.size) {
                    pcf_result_skip(pcf_results_get(&rs, e),
                                    "needs --launch: more destructive cases than victim ranks");
                    continue;
                }
                int fd = vfd[v++];
                pcf_progress(o, done++, total, e->c->id);
                if (fd < 0) {
                    pcf_result_add_run(pcf_results_get(&rs, e), PCF_ERROR, "harness-error",
                                       e->c->clause, "the victim rank never reached rank 0", 0);
                    continue;
                }
                if (resf) { /* on the victim's behalf: it starts on "go" */
                    pcf_resfile_start(resf, e->c->id, 0, v - 1);
                    fflush(resf);
                }
                /* If the server ends the job now, rank 0 dies with it: say so
                 * first, and leave report files that already grade the case
                 * "job-killed" (rewritten when it completes). */
                if (!o->child) {
                    pcf_obs pk;
                    pcf_grade(e->c, "job-killed", o->strict, &pk);
                    printf("pmi2-conform: destructive case %s runs on rank %d; if the job ends "
                           "now, its verdict is %s (%s)\n", e->c->id, v - 1,
                           pcf_verdict_name(pk.verdict), pk.clause);
                    fflush(stdout);
                    let_launcher_forward();
                    if (o->junit || o->json_dir || o->html) {
                        pcf_result *pr = pcf_results_get(&rs, e);
                        pcf_result_add_run(pr, pk.verdict, "job-killed", pk.clause,
                                           "the job ended while this case ran", 0);
                        rs.seconds = (double)(pws_now_usec() - t_start) / 1e6;
                        pcf_report_files(&rs, o);
                        pr = pcf_results_get(&rs, e);
                        pr->runs = 0;
                        pr->seen = 0;
                        pr->verdict = PCF_SKIPPED;
                        free(pr->actual);
                        pr->actual = NULL;
                    }
                }
                unsigned tmo = e->c->timeout_ms ? e->c->timeout_ms : o->timeout_ms;
                for (int r = 1; r < c.size; r++) /* ranks already gone are not this case's */
                    if (vfd[r] >= 0 && side_gone(vfd[r]))
                        gone_before[r] = true;
                side_say(fd, "go\n");
                char line[2 * OBS_LEN + 64];
                int got = side_line(fd, line, sizeof line, pws_deadline_ms(tmo + 10000));
                char obs[OBS_LEN];
                unsigned long long us = 0;
                int off = 0;
                char *one[1] = { obs };
                pcf_ctx_begin_case(&c, e->c, "d", 1000);
                if (got == 1 && sscanf(line, "result %llu %n", &us, &off) == 1) {
                    const char *h = line + off;
                    size_t j = 0;
                    for (size_t k = 0; h[k] && h[k + 1] && j + 1 < sizeof obs; k += 2) {
                        char b[3] = { h[k], h[k + 1], 0 };
                        obs[j++] = (char)strtol(b, NULL, 16);
                    }
                    obs[j] = 0;
                } else if (got == 0) {
                    pcf_observe(&c, "sender-killed",
                                "the victim rank %d died during the case (its process ended)",
                                v - 1);
                    obs_text(&c, obs, sizeof obs);
                } else {
                    pcf_observe(&c, "no-answer", "the victim rank %d did not finish in time",
                                v - 1);
                    obs_text(&c, obs, sizeof obs);
                }
                /* ERR-1 on several nodes: a server may end every rank of the
                 * victim's node (Hydra's proxy does) and leave the job, rank
                 * 0 with it, alive: the other ranks' side connections say
                 * which ranks lived through the case.  After the victim died
                 * they get a moment to go too (only a failing server waits). */
                int ended = -1;
                uint64_t gdl = got == 0 ? pws_deadline_ms(JOB_END_MS) : 0;
                do {
                    for (int r = 1; r < c.size && ended < 0; r++)
                        if (r != v - 1 && vfd[r] >= 0 && !gone_before[r] && side_gone(vfd[r]))
                            ended = r;
                    if (ended < 0 && pws_now_usec() < gdl) {
                        struct timespec ts = { 0, 50 * 1000000L };
                        nanosleep(&ts, NULL);
                    }
                } while (ended < 0 && pws_now_usec() < gdl);
                /* ERR-2: the other connections must still be served */
                /* as long as a case may wait for an answer, at most 5 s */
                pcf_ctx_begin_case(&c, e->c, "d", tmo < 5000 ? tmo : 5000);
                pmc_enc q;
                pmc_msg m;
                if (c.pmi == 1) {
                    pmc_enc_begin(&q, PMC_WIRE_V1, "get_appnum");
                    pcf_call(&c, &q, "appnum", &m);
                } else {
                    pmc_enc_begin(&q, PMC_WIRE_V2, "job-getid");
                    pcf_call(&c, &q, "job-getid-response", &m);
                }
                /* ERR-2 and CONN-3 on several nodes: a server may stop
                 * serving the ranks beside the victim (a proxy that crashed
                 * or stalls), not rank 0's: each other rank that has not
                 * run a case of its own asks its own connection */
                int stalled = -1;
                char stalled_why[200] = "";
                for (int r = 1; r < c.size && !c.observed && ended < 0 && stalled < 0; r++) {
                    if (r == v - 1 || vfd[r] < 0 || gone_before[r] || ran[r])
                        continue;
                    /* as long as a case may wait for an answer, at most 5 s */
                    char ans[200];
                    unsigned ask_ms = tmo < 5000 ? tmo : 5000;
                    snprintf(ans, sizeof ans, "ask %u\n", ask_ms);
                    side_say(vfd[r], ans);
                    int g = side_line(vfd[r], ans, sizeof ans, pws_deadline_ms(ask_ms + 3000));
                    if (g == 1 && strcmp(ans, "served") == 0)
                        continue;
                    if (g == 0) {
                        ended = r;
                        break;
                    }
                    stalled = r;
                    snprintf(stalled_why, sizeof stalled_why, "%s",
                             g == 1 && strncmp(ans, "lost ", 5) == 0 ? ans + 5
                                                                     : "it did not answer rank 0");
                }
                ran[v - 1] = true;
                /* per-rank slots so the report names the victim's rank */
                int victim = v - 1;
                int nslots = (ended > victim ? ended : victim) + 1;
                if (stalled >= nslots)
                    nslots = stalled + 1;
                char none[2] = "-", o2[OBS_LEN], o3[OBS_LEN];
                char **slots = calloc((size_t)nslots, sizeof *slots);
                for (int r = 0; slots && r < nslots; r++)
                    slots[r] = none;
                if (c.observed && strcmp(c.obs.outcome, "closed") == 0) {
                    /* a server that ends the job closes this connection
                     * first: let it finish (this rank then dies inside the
                     * case, graded job-killed); only the failing server
                     * waits here */
                    struct timespec ts = { JOB_END_MS / 1000, (JOB_END_MS % 1000) * 1000000L };
                    nanosleep(&ts, NULL);
                }
                if (c.observed) {
                    pcf_obs r0 = c.obs;
                    pcf_ctx_begin_case(&c, e->c, "d", 1000);
                    pcf_observe(&c, "others-affected",
                                "after the case, rank 0's own connection failed: %s", r0.detail);
                    obs_text(&c, o2, sizeof o2);
                    lost = true;
                    lost_after = e->c->id;
                    snprintf(err, sizeof err, "rank 0's own connection failed: %.200s", r0.detail);
                    if (slots)
                        slots[0] = o2;
                }
                if (ended > 0) {
                    /* graded as the job ending (the case's own table: ERR-1
                     * for most); the rest of the launch's cases go on in a
                     * new launch, as after a lost channel */
                    pcf_ctx_begin_case(&c, e->c, "d", 1000);
                    pcf_observe(&c, "job-killed",
                                "rank %d (host %s) was ended while rank %d (host %s) ran the "
                                "case: the server ended a process other than the sender",
                                ended, pcf_host_of(&c, ended), victim, pcf_host_of(&c, victim));
                    obs_text(&c, o3, sizeof o3);
                    if (slots)
                        slots[ended] = o3;
                    if (!lost) {
                        lost = true;
                        lost_after = e->c->id;
                        snprintf(err, sizeof err, "rank %d was ended during %s", ended,
                                 e->c->id);
                    }
                }
                if (stalled > 0) {
                    char o4[OBS_LEN];
                    pcf_ctx_begin_case(&c, e->c, "d", 1000);
                    pcf_observe(&c, "others-affected",
                                "after the case, rank %d's own connection (host %s; the victim, "
                                "rank %d, on %s) failed: %s", stalled, pcf_host_of(&c, stalled),
                                victim, pcf_host_of(&c, victim), stalled_why);
                    obs_text(&c, o4, sizeof o4);
                    if (slots)
                        slots[stalled] = strdup(o4);
                    if (!lost) {
                        lost = true;
                        lost_after = e->c->id;
                        snprintf(err, sizeof err, "rank %d's own connection failed during %s",
                                 stalled, e->c->id);
                    }
                }
                if (slots) {
                    slots[victim] = obs;
                    aggregate(&rs, e, slots, nslots, us, resf, 0);
                    if (stalled > 0 && slots[stalled] != none)
                        free(slots[stalled]);
                    free(slots);
                } else {
                    aggregate(&rs, e, one, 1, us, resf, 0);
                }
                discard_transcript(&c);
                if (!o->child)
                    pcf_report_so_far(&rs, o, stdout, NULL);
                /* the victim stays until the report is out: a server may end the
                 * job when a rank leaves without finalize */
                if (lost)
                    break;
            }
        }
    }
    if (sfd >= 0)
        close(sfd);

    if (rank0) {
        pcf_progress_end(o);
        char lost_text[900] = "";
        if (lost && c.ctl_anomaly[0]) {
            size_t el = strlen(err);
            snprintf(err + el, sizeof err - el, "; before that, %s", c.ctl_anomaly);
        }
        if (lost) {
            if (strcmp(lost_after, "-") == 0)
                snprintf(lost_text, sizeof lost_text,
                         "not run: the PMI control channel failed before the first case (%s)", err);
            else if (lost_next)
                snprintf(lost_text, sizeof lost_text,
                         "not run: the PMI control channel failed after case %s, as the other "
                         "ranks began %s (%s); --launch grades every case", lost_after,
                         lost_next, err);
            else
                snprintf(lost_text, sizeof lost_text,
                         "not run: the PMI control channel failed after case %s (%s); "
                         "--launch grades every case", lost_after, err);
            fprintf(stderr, "pmi2-conform: the control channel failed after case %s%s%s: %s\n",
                    lost_after, lost_next ? ", as the other ranks began " : "",
                    lost_next ? lost_next : "", err);
        }
        for (size_t i = 0; i < np; i++) {
            const pcf_entry *e = plan[i].e;
            pcf_result *r = pcf_results_get(&rs, e);
            if (r->runs || r->actual)
                continue;
            if (plan[i].skip)
                pcf_result_skip(r, plan[i].skip);
            else if (plan[i].destructive && c.size < 2)
                pcf_result_skip(r, "needs --launch: destructive cases need a victim rank "
                                   "besides rank 0 (run with more ranks)");
            else if (lost)
                pcf_result_skip(r, lost_text);
            else
                pcf_result_skip(r, "needs --launch: more destructive cases than victim ranks");
            /* a child's unrun cases after a lost channel go back to the
             * parent unrecorded: it runs them in a launch of their own */
            if (resf && r->verdict == PCF_SKIPPED && !(lost && o->child && !plan[i].skip))
                pcf_resfile_skip(resf, e->c->id, r->actual ? r->actual : "");
        }
        /* last: after a case, it tells the orchestrator (relay.c) that this
         * record is whole, and the other ranks that they may go */
        if (resf && lost)
            pcf_resfile_lost(resf, lost_after, err);
        if (resf)
            fflush(resf);
        rs.seconds = (double)(pws_now_usec() - t_start) / 1e6;
        if (o->child) { /* the parent merges and reports */
            pcf_results_free(&rs);
            code = 0;
        } else {
            if (lost) /* the report is whole, the run is not */
                snprintf(rs.incomplete, sizeof rs.incomplete,
                         "the run did not complete: the control channel was lost");
            report_and_free(&rs, o, &code);
        }
    } else {
        code = 0;
    }
    bool finalized = !lost && c.s && !pws_eof(c.s) && pcf_ctl_finalize(&c, 10000) == 0;
    if (resf) {
        /* Written before any victim is released: a victim's connection
         * may be gone, and a launcher may end the job when it exits
         * without finalize ("done" tells the parent that this came after
         * the grading, so the launcher's status is no verdict). */
        if (finalized)
            pcf_resfile_done(resf);
    }
    if (chan)
        fflush(chan); /* closed at exit: the orchestrator reads it to the end */
    if (vfd) { /* now the victims may go */
        for (int r = 0; r < c.size; r++)
            if (vfd[r] >= 0) {
                side_say(vfd[r], "bye\n");
                close(vfd[r]);
            }
        free(vfd);
    }
    free(gone_before);
    free(ran);
    for (int r = 0; r < c.size; r++)
        free(vals[r]);
    free(vals);
    free(plan);
    pws_close(c.s);
    pmc_decoder_free(c.scratch);
    free(c.node);
    free(c.host);
    free(c.hs.init_raw);
    free(c.hs.fullinit_raw);
    free(c.hs.maxes_raw);
    return code;
}
