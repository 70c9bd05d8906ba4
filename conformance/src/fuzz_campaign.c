/* The fuzz campaign: launches, what each one shows, minimization of every
 * finding, reproducer traces, the summary.
 *
 * With --launch the campaign is a series of launches of "TEMPLATE <self>
 * fuzz --child ...", each resuming at the input after the last one the
 * previous launch finished; a launch ends when the job dies, when an honest
 * rank saw the server fail, or when the fuzzing rank lost its connection
 * and could not open another (PMI_FD).  A finding is minimized by replaying
 * sub-sequences of the inputs its fuzzing connection had received, each in
 * a fresh launch, until the shortest one that shows the same class is
 * known; that launch records the reproducer. */
#include "fuzz.h"
#include "pmitrace/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


static bool kill_family(int c)
{
    return c == FZ_JOB_KILLED || c == FZ_CRASH;
}

static bool same_class(int a, int b)
{
    return a == b || (kill_family(a) && kill_family(b));
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* ---------------------------------------------------------------- the log */

typedef struct rec {
    long long idx;
    long long conn; /* first input of the connection it was sent on */
    bool done, lost;
    int cls;        /* from the honest ranks */
    char honest[400];
    char family[24];
    char desc[220];
} rec;

typedef struct llog {
    rec *r;
    size_t n;
    bool ended;
    char end_reason[32];
    int pmi; /* the protocol the launch spoke (0: not said) */
} llog;

static void llog_free(llog *l)
{
    free(l->r);
    memset(l, 0, sizeof *l);
}

static rec *find_rec(llog *l, long long idx)
{
    for (size_t i = l->n; i-- > 0;)
        if (l->r[i].idx == idx)
            return &l->r[i];
    return NULL;
}

static int read_log(const char *dir, llog *l)
{
    memset(l, 0, sizeof *l);
    char path[1200];
    snprintf(path, sizeof path, "%s/log.fuzzer", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[1200];
    long long conn = -1;
    size_t cap = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *sp = strchr(line, ' ');
        if (!sp)
            continue;
        *sp++ = 0;
        char *rest;
        long long idx = strtoll(sp, &rest, 10);
        if (*rest == ' ')
            rest++;
        if (!strcmp(line, "proto")) {
            l->pmi = (int)idx;
        } else if (!strcmp(line, "conn")) {
            conn = idx;
        } else if (!strcmp(line, "send")) {
            if (l->n == cap) {
                cap = cap ? cap * 2 : 64;
                rec *nr = realloc(l->r, cap * sizeof *nr);
                if (!nr)
                    break;
                l->r = nr;
            }
            rec *r = &l->r[l->n++];
            memset(r, 0, sizeof *r);
            r->idx = idx;
            r->conn = conn < 0 ? idx : conn;
            char *d = strchr(rest, ' ');
            snprintf(r->family, sizeof r->family, "%.*s", d ? (int)(d - rest) : (int)strlen(rest),
                     rest);
            snprintf(r->desc, sizeof r->desc, "%s", d ? d + 1 : "");
        } else if (!strcmp(line, "done")) {
            rec *r = find_rec(l, idx);
            if (!r)
                continue;
            r->done = true;
            r->lost = strstr(rest, "probe=lost") != NULL;
            char *h = strstr(rest, "honest=");
            if (h && strncmp(h + 7, "ok", 2) != 0) {
                snprintf(r->honest, sizeof r->honest, "%s", h + 7);
                /* "r0:hang detail | r2:..." or "hang:...": the worst class named */
                r->cls = FZ_HONEST_ERROR;
                for (const char *p = h + 7; *p; p++) {
                    if (p != h + 7 && p[-1] != ':')
                        continue;
                    int c = fz_class_parse(p);
                    if (c > r->cls)
                        r->cls = c;
                }
            }
        } else if (!strcmp(line, "end")) {
            l->ended = true;
            snprintf(l->end_reason, sizeof l->end_reason, "%s", rest);
        }
    }
    fclose(f);
    return 0;
}

/* ---------------------------------------------------------------- launches */

typedef struct lres {
    int status;       /* wait status; -1 deadline; -2 could not start */
    bool all_fin;     /* every honest rank finalized before the job ended */
    int np;
    bool crash_text;  /* the launcher's output names a crash */
    char unfinished[80]; /* honest ranks that never finalized: "r0 r2" */
    char tail[400];   /* last lines of the launcher's output */
} lres;

static void shq(pmc_out *b, const char *s)
{
    pmc_out_append(b, " '", 2);
    for (; *s; s++) {
        if (*s == '\'')
            pmc_out_append(b, "'\\''", 4);
        else
            pmc_out_append(b, s, 1);
    }
    pmc_out_append(b, "'", 1);
}

static char *expand(const char *tmpl, int np)
{
    pmc_out b = { 0 };
    char num[16];
    snprintf(num, sizeof num, "%d", np);
    for (const char *p = tmpl; *p;) {
        if (strncmp(p, "{n}", 3) == 0) {
            pmc_out_append(&b, num, strlen(num));
            p += 3;
        } else {
            pmc_out_append(&b, p++, 1);
        }
    }
    pmc_out_append(&b, "", 1);
    return b.buf;
}

static const char *self_path(const char *argv0, char *buf, size_t n)
{
    ssize_t k = readlink("/proc/self/exe", buf, n - 1);
    if (k > 0) {
        buf[k] = 0;
        return buf;
    }
    return argv0;
}

static bool crash_words(const char *t)
{
    static const char *const w[] = { "Segmentation fault", "signal 11", "SIGSEGV", "double free",
                                     "Aborted", "signal 6", "core dumped", "free(): ",
                                     "malloc(): ", "stack smashing" };
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (strstr(t, w[i]))
            return true;
    return false;
}

/* Run `cmd` (a shell command line) in a process group of its own, output
 * to dir/launcher.out, killed at the deadline or `grace_ms` after the
 * fuzzing rank logged "end" (its honest ranks may be stuck in a server
 * that stopped answering). */
static void run_cmd(const char *cmd, const char *dir, unsigned budget_ms, bool watch_end,
                    int np, lres *res)
{
    memset(res, 0, sizeof *res);
    char outp[1200];
    snprintf(outp, sizeof outp, "%s/launcher.out", dir);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        res->status = -2;
        return;
    }
    if (pid == 0) {
        setpgid(0, 0);
        FILE *o = freopen(outp, "w", stdout);
        (void)o;
        dup2(1, 2);
        int nul = open("/dev/null", 0);
        if (nul >= 0)
            dup2(nul, 0);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    uint64_t dl = pws_deadline_ms(budget_ms), end_seen = 0;
    int st = 0;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            res->status = -2;
            return;
        }
        uint64_t now = pws_now_usec();
        if (watch_end && !end_seen) {
            char g[16];
            if (fz_read_file(dir, "go", g, sizeof g) == 0 && !strncmp(g, "end", 3))
                end_seen = now;
        }
        if (now >= dl || (end_seen && now - end_seen > 25000000ull)) {
            kill(-pid, SIGTERM);
            sleep_ms(500);
            kill(-pid, SIGKILL);
            waitpid(pid, &st, 0);
            st = now >= dl ? -1 : st;
            break;
        }
        sleep_ms(20);
    }
    kill(-pid, SIGKILL); /* stragglers */
    res->status = st;
    /* only a finalized honest rank counts: a job of one rank has none, so
     * there the fuzzing rank's "end" line tells a normal ending */
    res->np = np;
    res->all_fin = np > 1;
    for (int r = 0; r < np; r++) {
        char name[32], line[64];
        snprintf(name, sizeof name, "ok.%d", r);
        if (r == (np > 1 ? 1 : 0))
            continue;
        if (fz_read_file(dir, name, line, sizeof line) != 0 || strcmp(line, "fin") != 0) {
            res->all_fin = false;
            size_t k = strlen(res->unfinished);
            if (k + 8 < sizeof res->unfinished)
                snprintf(res->unfinished + k, sizeof res->unfinished - k, "%sr%d", k ? " " : "", r);
        }
    }
    FILE *f = fopen(outp, "r");
    if (f) {
        static char big[1 << 16];
        size_t k = fread(big, 1, sizeof big - 1, f);
        big[k] = 0;
        fclose(f);
        res->crash_text = crash_words(big);
        size_t from = k > sizeof res->tail - 1 ? k - (sizeof res->tail - 1) : 0;
        snprintf(res->tail, sizeof res->tail, "%s", big + from);
    }
}

static bool status_signal(int st)
{
    return st >= 0 && (WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) >= 128 &&
                                           WEXITSTATUS(st) < 255));
}

static void status_text(int st, char *b, size_t n)
{
    if (st == -1)
        snprintf(b, n, "killed at the launch deadline");
    else if (st < 0)
        snprintf(b, n, "could not start");
    else if (WIFSIGNALED(st))
        snprintf(b, n, "launcher killed by signal %d", WTERMSIG(st));
    else
        snprintf(b, n, "launcher exit status %d", WEXITSTATUS(st));
}

/* One child launch.  list == NULL: inputs from..count; else exactly list. */
static void launch_child(const fz_opts *o, int pmi, const char *dir, int np, uint64_t from,
                         const uint64_t *list, size_t nlist, bool record, unsigned time_s,
                         lres *res)
{
    char selfb[1024];
    const char *self = self_path(o->argv0, selfb, sizeof selfb);
    char *base = expand(o->launch, np);
    pmc_out b = { 0 };
    pmc_out_append(&b, base, strlen(base));
    free(base);
    char a[64];
    shq(&b, self);
    shq(&b, "fuzz");
    shq(&b, "--child");
    char syncarg[1100];
    snprintf(syncarg, sizeof syncarg, "--sync=%s", dir);
    shq(&b, syncarg);
    snprintf(a, sizeof a, "--seed=%llu", (unsigned long long)o->seed);
    shq(&b, a);
    snprintf(a, sizeof a, "--check-timeout=%u", o->check_ms);
    shq(&b, a);
    snprintf(a, sizeof a, "--reply-ms=%u", o->reply_ms);
    shq(&b, a);
    if (pmi) {
        snprintf(a, sizeof a, "--pmi=%d", pmi);
        shq(&b, a);
    }
    if (record)
        shq(&b, "--record");
    if (list) {
        pmc_out l = { 0 };
        pmc_out_append(&l, "--inputs=", 9);
        for (size_t i = 0; i < nlist; i++) {
            snprintf(a, sizeof a, "%s%llu", i ? "," : "", (unsigned long long)list[i]);
            pmc_out_append(&l, a, strlen(a));
        }
        pmc_out_append(&l, "", 1);
        shq(&b, l.buf);
        pmc_out_free(&l);
    } else {
        snprintf(a, sizeof a, "--from=%llu", (unsigned long long)from);
        shq(&b, a);
        snprintf(a, sizeof a, "--count=%llu", (unsigned long long)o->count);
        shq(&b, a);
        if (time_s) {
            snprintf(a, sizeof a, "--time=%u", time_s);
            shq(&b, a);
        }
    }
    pmc_out_append(&b, "", 1);
    if (o->verbose)
        fprintf(stderr, "pmi2-conform fuzz: launch: %s\n", b.buf);
    unsigned budget = (list ? (unsigned)nlist * (o->check_ms + 6000) + 30000
                            : (time_s ? time_s * 1000u : 600000u) + 60000u);
    run_cmd(b.buf, dir, budget, true, np, res);
    pmc_out_free(&b);
}

/* A fresh sync dir under the campaign's work dir. */
static int fresh_dir(const char *work, unsigned n, char *out, size_t on)
{
    snprintf(out, on, "%s/l%u", work, n);
    return mkdir(out, 0700) == 0 || errno == EEXIST ? 0 : -1;
}

static void rm_dir(const char *dir)
{
    static const char *const names[] = { "log.fuzzer", "go", "reported", "launcher.out" };
    char p[1200];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        remove(p);
    }
    for (int r = 0; r < 4096; r++) {
        snprintf(p, sizeof p, "%s/ok.%d", dir, r);
        bool a = remove(p) == 0;
        snprintf(p, sizeof p, "%s/trace.r%d", dir, r);
        bool b = remove(p) == 0;
        if (!a && !b && r > 8)
            break;
    }
    rmdir(dir);
}

/* What a launch showed: the first finding and its input, or FZ_NONE. */
typedef struct verdict {
    int cls;
    long long idx;
    char detail[600];
} verdict;

/* Inputs on which a correct server may end the job: abort (V1CMD-21), the
 * end of the fuzzing rank's stream (CONN-6), a spawn whose program cannot
 * run (the launcher's process-failure policy).  Only a crash is a finding
 * there. */
static bool may_end_job(const rec *r)
{
    return !strcmp(r->family, "abort") || !strcmp(r->family, "eos") ||
           !strcmp(r->family, "spawn");
}

/* The failure itself decides: the job ended while an honest rank had not
 * finalized, or an honest rank's check failed.  The launcher's exit status
 * only tells a crash (a signal) from another ending: launchers differ in
 * what they return for a job that died (Hydra: below 4). */
static void judge(const llog *l, const lres *res, verdict *v)
{
    memset(v, 0, sizeof *v);
    v->idx = -1;
    bool normal_end = res->all_fin || (res->np <= 1 && l->ended);
    bool died = res->status != -2 && !normal_end;
    bool crashed = died && res->status != -1 && (status_signal(res->status) || res->crash_text);
    const rec *last = l->n ? &l->r[l->n - 1] : NULL;
    bool excused = died && !crashed && res->status != -1 && last && may_end_job(last);
    for (size_t i = 0; i < l->n; i++)
        if (l->r[i].cls && !(excused && &l->r[i] == last)) {
            v->cls = l->r[i].cls;
            v->idx = l->r[i].idx;
            snprintf(v->detail, sizeof v->detail, "%s", l->r[i].honest);
            break;
        }
    if (excused)
        return; /* the job ended as the input asked (no crash) */
    if (res->status == -1 && v->cls == FZ_NONE && l->n) {
        v->cls = FZ_HANG;
        v->idx = l->r[l->n - 1].idx;
        snprintf(v->detail, sizeof v->detail, "the launch did not end before its deadline");
        return;
    }
    if (!died || (v->cls != FZ_NONE && v->cls != FZ_HONEST_ERROR))
        return;
    if (!l->n)
        return; /* it died before any input: the caller reports a harness error */
    if (v->cls == FZ_NONE)
        v->idx = last->idx;
    v->cls = crashed ? FZ_CRASH : FZ_JOB_KILLED;
    char st[80];
    status_text(res->status, st, sizeof st);
    snprintf(v->detail, sizeof v->detail, "the job ended before %s finalized (%s)%s%s",
             res->unfinished[0] ? res->unfinished : "the fuzzing rank", st,
             res->crash_text ? "; the launcher's output reports a crash" : "",
             last->done ? "" : "; the input's round never finished");
}

/* ---------------------------------------------------------------- reproducers */

typedef struct finding {
    int cls;
    long long idx;
    char family[24];
    char desc[220];
    char detail[600];
    uint64_t *hist; /* inputs of its connection, up to idx */
    size_t nhist;
    uint64_t min[FZ_MAX_LIST];
    size_t nmin;
    int min_np;
    bool minimized, reproduced, replayed, replay_tried;
    char trace[1100];
} finding;

typedef struct tev {
    pmt_event *e;
    size_t order;
} tev;

static int cmp_tev(const void *a, const void *b)
{
    const tev *x = a, *y = b;
    if (x->e->usec != y->e->usec)
        return x->e->usec < y->e->usec ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* True when the bytes of e decode to a message named `name`. */
static bool event_is(const pmt_event *e, const char *name)
{
    if (e->kind != PMT_EV_DATA || !e->len)
        return false;
    pmc_decoder *d = pmc_decoder_new(NULL);
    pmc_msg m;
    pmc_error err;
    bool yes = d && pmc_decoder_feed(d, e->data, e->len) == 0 &&
               pmc_decoder_next(d, &m, &err) == PMC_MSG && pmc_slice_eq(m.name, name);
    pmc_decoder_free(d);
    return yes;
}

/* For each honest rank's transcript: its start-up probe (job-getid, or
 * get_maxes under PMI-1) and the answer, once more after a pause at the end
 * of t. */
static void add_probes(pmt_trace *t, const pmt_trace *in, int nin, const char *fzconn,
                       unsigned wait_ms)
{
    uint64_t end = t->nevents ? t->events[t->nevents - 1].usec : 0;
    for (int i = 0; i < nin; i++) {
        const pmt_event *ask = NULL, *ans = NULL;
        for (size_t j = 0; j < in[i].nevents && !ans; j++) {
            const pmt_event *e = &in[i].events[j];
            if (!strcmp(e->conn, fzconn))
                break;
            if (!ask && e->side == PMT_CLIENT &&
                (event_is(e, "job-getid") || event_is(e, "get_maxes")))
                ask = e;
            else if (ask && e->side == PMT_SERVER && e->kind == PMT_EV_DATA)
                ans = e;
        }
        if (!ans)
            continue;
        pmt_add_event(t, PMT_EV_TIMEOUT, end + 1, ask->conn, PMT_CLIENT, NULL, 0);
        t->events[t->nevents - 1].timeout_ms = wait_ms < 1000 ? wait_ms : 1000;
        static const char q[] = "is the server still there?";
        pmt_add_event(t, PMT_EV_NOTE, end + 2, ask->conn, PMT_CLIENT, q, sizeof q - 1);
        pmt_add_event(t, PMT_EV_DATA, end + 3, ask->conn, PMT_CLIENT, ask->data, ask->len);
        pmt_add_event(t, PMT_EV_DATA, end + 4, ask->conn, PMT_SERVER, ans->data, ans->len);
    }
}

/* Merge the ranks' transcripts of a launch into one reproducer trace. */
static int write_repro(const fz_opts *o, const char *dir, int np, finding *fd, const char *path)
{
    pmt_trace in[64];
    int nin = 0;
    int fzr = np > 1 ? 1 : 0;
    for (int r = 0; r < np && nin < 64; r++) {
        char name[32], p[1200];
        fz_trace_name(r, name, sizeof name);
        snprintf(p, sizeof p, "%s/%s", dir, name);
        pmt_error e;
        if (pmt_read_file(p, &in[nin], &e) == 0)
            nin++;
        else if (r == fzr)
            return -1;
    }
    size_t tot = 0;
    for (int i = 0; i < nin; i++)
        tot += in[i].nevents;
    tev *all = calloc(tot ? tot : 1, sizeof *all);
    if (!all)
        return -1;
    size_t k = 0;
    uint64_t t0 = UINT64_MAX;
    for (int i = 0; i < nin; i++)
        for (size_t j = 0; j < in[i].nevents; j++) {
            all[k].e = &in[i].events[j];
            all[k].order = k;
            if (all[k].e->usec < t0)
                t0 = all[k].e->usec;
            k++;
        }
    qsort(all, tot, sizeof *all, cmp_tev);
    pmt_trace t;
    pmt_trace_init(&t);
    char b[900];
    snprintf(b, sizeof b, "pmi2-conform %s fuzz reproducer: seed %llu, input %lld, %s (%d rank%s)",
             PCF_TOOL_VERSION, (unsigned long long)o->seed, fd->idx, o->launch ? o->launch : "",
             np, np > 1 ? "s" : "");
    pmt_add_source(&t, b);
    pmt_add_meta(&t, "finding", fz_class_name(fd->cls));
    snprintf(b, sizeof b, "%d", np);
    pmt_add_meta(&t, "ranks", b);
    snprintf(b, sizeof b, "%llu", (unsigned long long)o->seed);
    pmt_add_meta(&t, "seed", b);
    pmc_out l = { 0 };
    for (size_t i = 0; i < fd->nmin; i++) {
        snprintf(b, sizeof b, "%s%llu", i ? "," : "", (unsigned long long)fd->min[i]);
        pmc_out_append(&l, b, strlen(b));
    }
    pmc_out_append(&l, "", 1);
    pmt_add_meta(&t, "inputs", l.buf);
    pmc_out_free(&l);
    pmt_add_meta(&t, "input", fd->desc);
    pmt_add_meta(&t, "observed", fd->detail);
    snprintf(b, sizeof b, "%s pmi-trace replay --server %s", o->launch ? o->launch : "LAUNCHER -n {n}",
             path);
    char *rep = expand(b, np);
    pmt_add_meta(&t, "replay", rep ? rep : b);
    free(rep);
    pmt_add_meta(&t, "fuzz-connection", fzr ? "r1" : "r0");
    snprintf(b, sizeof b, "the job %s: replaying r%d's writes reproduces it (%s)",
             kill_family(fd->cls) ? "is killed" : fd->cls == FZ_HANG ? "stops answering" : "misbehaves",
             fzr, fz_class_name(fd->cls));
    pmt_add_comment(&t, b);
    char fzconn[8];
    snprintf(fzconn, sizeof fzconn, "r%d", fzr);
    /* a killed job: the fuzzing connection keeps what it saw, ending in the
     * end of stream; the honest ones end where the input went out, then
     * each asks once more what it asked at start-up and expects the answer
     * it had then.  Against the server that died the fuzzing connection
     * sees the end again and the honest ones lose their answers; a fixed
     * server answers the input instead (replay_repro) */
    bool kill = kill_family(fd->cls), fz_eof = false;
    uint64_t t_in = UINT64_MAX;
    for (size_t i = 0; kill && i < tot; i++)
        if (all[i].e->kind == PMT_EV_NOTE && all[i].e->len && !strcmp(all[i].e->conn, fzconn) &&
            strstr(all[i].e->data, "fuzz input"))
            t_in = all[i].e->usec;
    bool first_input = true;
    for (size_t i = 0; i < tot; i++) {
        pmt_event *e = all[i].e;
        bool mine = !strcmp(e->conn, fzconn);
        if (kill && t_in != UINT64_MAX && e->usec > t_in && !mine)
            continue;
        if (kill && mine && e->kind == PMT_EV_EOF && e->side == PMT_SERVER)
            fz_eof = true;
        if (first_input && np > 1 && e->kind == PMT_EV_NOTE && e->len &&
            strstr(e->data, "fuzz input") && !strcmp(e->conn, fzconn)) {
            /* the recorded launch sent the first input once every honest
             * rank was past its start-up (fuzz_job.c); a replay's ranks do
             * not wait for each other, so the fuzzing connection waits here
             * (silent) while the others finish theirs */
            first_input = false;
            pmt_add_event(&t, PMT_EV_TIMEOUT, e->usec - t0, fzconn, PMT_CLIENT, NULL, 0);
            t.events[t.nevents - 1].timeout_ms = 500;
        }
        if (e->kind == PMT_EV_NOTE && e->len && strstr(e->data, "check after input") && np > 1) {
            /* an honest rank's check: in a replay the ranks do not wait for
             * each other, so give the fuzzing rank's bytes time to arrive */
            pmt_add_event(&t, e->kind, e->usec - t0, e->conn, e->side, e->data, e->len);
            pmt_add_event(&t, PMT_EV_TIMEOUT, e->usec - t0, e->conn, PMT_CLIENT, NULL, 0);
            t.events[t.nevents - 1].timeout_ms = 1000;
            continue;
        }
        pmt_add_event(&t, e->kind, e->usec - t0, e->conn, e->side, e->data, e->len);
    }
    if (kill && !fz_eof) /* killed before it saw the end: the end is what it would see */
        pmt_add_event(&t, PMT_EV_EOF, t.nevents ? t.events[t.nevents - 1].usec : 0, fzconn,
                      PMT_SERVER, NULL, 0);
    if (kill && np > 1)
        add_probes(&t, in, nin, fzconn, o->check_ms);
    if (fd->cls == FZ_HANG && np > 1) {
        /* keep the fuzzing connection open while the others find the server stuck */
        char conn[8];
        snprintf(conn, sizeof conn, "r%d", fzr);
        uint64_t last = t.nevents ? t.events[t.nevents - 1].usec : 0;
        pmt_add_event(&t, PMT_EV_TIMEOUT, last, conn, PMT_CLIENT, NULL, 0);
        t.events[t.nevents - 1].timeout_ms = o->check_ms + 3000;
    }
    free(all);
    FILE *f = fopen(path, "w");
    int rc = f ? pmt_write(f, &t, NULL, NULL) : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    pmt_trace_free(&t);
    for (int i = 0; i < nin; i++)
        pmt_trace_free(&in[i]);
    return rc;
}

/* After a replay of a killed job's reproducer: the fuzzing connection saw
 * the end of the stream where the recording did (or its rank was killed
 * before it could say), and with honest ranks, one of them lost the answer
 * its trace ends with (a divergence, or no report: its rank was killed).
 * A fixed server answers the input: the fuzzing connection diverges. */
static bool kill_replayed(const char *dir, int np, const lres *res)
{
    char p[1300];
    snprintf(p, sizeof p, "%s/launcher.out", dir);
    FILE *f = fopen(p, "r");
    if (!f)
        return false;
    char line[512];
    bool matched[64] = { false }, diverged[64] = { false }, ran = false, cannot = false;
    while (fgets(line, sizeof line, f)) {
        int r;
        if (!strncmp(line, "pmi-trace replay: ", 18) || strstr(line, "command not found"))
            cannot = true; /* a bad trace, no pmi-trace: nothing was replayed */
        if (sscanf(line, "replay: r%d:", &r) == 1 && r >= 0 && r < 64 &&
            strstr(line, "messages matched"))
            matched[r] = ran = true;
        if (sscanf(line, "divergence on r%d", &r) == 1 && r >= 0 && r < 64)
            diverged[r] = ran = true;
    }
    fclose(f);
    int fzr = np > 1 ? 1 : 0;
    if (diverged[fzr])
        return false; /* answered where the recording saw the end */
    if (cannot)
        return false;
    if (!ran) /* no rank lived to say anything: the job died (a clean one says) */
        return res->status != 0;
    if (np == 1)
        return matched[0] || status_signal(res->status) || res->crash_text;
    for (int r = 0; r < np && r < 64; r++)
        if (r != fzr && !matched[r])
            return true;
    return false;
}

/* Replay a reproducer under the launcher: does the finding come back? */
static bool replay_repro(const fz_opts *o, const char *work, finding *fd)
{
    char selfb[1024], pb[1200], dir[1200];
    const char *self = self_path(o->argv0, selfb, sizeof selfb);
    const char *pt = pcf_pmitrace_path(self, pb, sizeof pb);
    static unsigned seq = 9000;
    if (fresh_dir(work, seq++, dir, sizeof dir))
        return false;
    char *base = expand(o->launch, fd->min_np);
    pmc_out b = { 0 };
    pmc_out_append(&b, base, strlen(base));
    free(base);
    shq(&b, pt);
    shq(&b, "replay");
    shq(&b, "--server");
    shq(&b, "--timeout");
    char t[16];
    snprintf(t, sizeof t, "%u", o->check_ms + 2000);
    shq(&b, t);
    shq(&b, fd->trace);
    pmc_out_append(&b, "", 1);
    lres res;
    run_cmd(b.buf, dir, 60000 + o->check_ms * 4, false, 0, &res);
    pmc_out_free(&b);
    fd->replay_tried = true;
    bool ok;
    if (kill_family(fd->cls))
        ok = res.status >= 0 && kill_replayed(dir, fd->min_np, &res);
    else
        ok = strstr(res.tail, "diverge") == NULL && strstr(res.tail, "matched") != NULL &&
             strstr(res.tail, "No such file") == NULL;
    if (o->verbose)
        fprintf(stderr, "pmi2-conform fuzz: replay of %s: %s\n%s\n", fd->trace,
                ok ? "reproduced" : "not reproduced", res.tail);
    rm_dir(dir);
    return ok;
}

/* ---------------------------------------------------------------- minimization */

typedef struct camp {
    const fz_opts *o;
    char work[600];
    unsigned nlaunch;
    size_t nsent;
    uint64_t next;
    finding *f;
    size_t nf;
    uint64_t stop;
    int pmi; /* the protocol of every launch once the first one showed it */
} camp;

/* Play `list` in a fresh launch of np ranks: the class it shows. */
static int try_list(camp *C, const uint64_t *list, size_t n, int np, bool record, char *keep,
                    size_t kn, char *detail, size_t dn)
{
    char dir[1200];
    if (fresh_dir(C->work, C->nlaunch++, dir, sizeof dir))
        return -1;
    lres res;
    launch_child(C->o, C->pmi, dir, np, 0, list, n, record, 0, &res);
    llog l;
    verdict v = { 0 };
    if (read_log(dir, &l) == 0) {
        judge(&l, &res, &v);
        /* the finding must come from the last input of the list */
        if (v.cls && v.idx != (long long)list[n - 1])
            v.cls = FZ_NONE;
        llog_free(&l);
    }
    if (detail && v.cls)
        snprintf(detail, dn, "%s", v.detail);
    if (keep && v.cls)
        snprintf(keep, kn, "%s", dir);
    else
        rm_dir(dir);
    return v.cls;
}

static void minimize(camp *C, finding *fd)
{
    const fz_opts *o = C->o;
    unsigned budget = o->min_attempts;
    char keep[1200] = "", detail[600];
    /* two ranks: an honest one shows what the input did to the others (a
     * killed job's reproducer is confirmed by its lost answers) */
    int np_first = 2;
    if (np_first > o->np)
        np_first = o->np;
    uint64_t cand[FZ_MAX_LIST];
    size_t nc = 0;
    int np = np_first;
    int got = FZ_NONE;
    /* the input alone, then longer suffixes of its connection's history */
    size_t len = 1;
    while (budget && len <= fd->nhist) {
        size_t take = len > FZ_MAX_LIST ? FZ_MAX_LIST : len;
        nc = take;
        memcpy(cand, fd->hist + fd->nhist - take, take * sizeof *cand);
        budget--;
        got = try_list(C, cand, nc, np, true, keep, sizeof keep, detail, sizeof detail);
        if (same_class(got, fd->cls))
            break;
        if (keep[0]) {
            rm_dir(keep);
            keep[0] = 0;
        }
        if (len >= fd->nhist || take == FZ_MAX_LIST)
            break;
        len *= 2;
        if (len > fd->nhist)
            len = fd->nhist;
    }
    if (!same_class(got, fd->cls)) {
        fd->reproduced = false;
        return;
    }
    fd->reproduced = true;
    /* drop earlier inputs one at a time while the finding stays */
    for (size_t i = 0; budget && nc > 1 && i + 1 < nc;) {
        uint64_t t[FZ_MAX_LIST];
        size_t m = 0;
        for (size_t j = 0; j < nc; j++)
            if (j != i)
                t[m++] = cand[j];
        char k2[1200] = "", d2[600];
        budget--;
        int g = try_list(C, t, m, np, true, k2, sizeof k2, d2, sizeof d2);
        if (same_class(g, fd->cls)) {
            memcpy(cand, t, m * sizeof *t);
            nc = m;
            if (keep[0])
                rm_dir(keep);
            snprintf(keep, sizeof keep, "%s", k2);
            snprintf(detail, sizeof detail, "%s", d2);
            got = g;
        } else {
            if (k2[0])
                rm_dir(k2);
            i++;
        }
    }
    memcpy(fd->min, cand, nc * sizeof *cand);
    fd->nmin = nc;
    fd->min_np = np;
    fd->minimized = true;
    fd->cls = got; /* the class the recorded reproducer shows */
    snprintf(fd->detail, sizeof fd->detail, "%s", detail);
    size_t fi = (size_t)(fd - C->f) + 1;
    snprintf(fd->trace, sizeof fd->trace, "%s/finding-%02zu-%s-input%lld.trace", o->out, fi,
             fz_class_name(fd->cls), fd->idx);
    if (write_repro(o, keep, np, fd, fd->trace) != 0)
        fd->trace[0] = 0;
    rm_dir(keep);
}

/* ---------------------------------------------------------------- reporting */

static void progress(const camp *C)
{
    if (!C->o->progress)
        return;
    fprintf(stderr, "\r\033[K[fuzz] input %llu/%llu, %u launches, %zu finding%s",
            (unsigned long long)C->next, (unsigned long long)C->o->count, C->nlaunch, C->nf,
            C->nf == 1 ? "" : "s");
    fflush(stderr);
}

static int summary(camp *C, double secs, bool harness)
{
    const fz_opts *o = C->o;
    if (o->progress)
        fprintf(stderr, "\r\033[K");
    size_t by[FZ_CLASS_COUNT] = { 0 }, written = 0, replayed = 0;
    for (size_t i = 0; i < C->nf; i++) {
        by[C->f[i].cls]++;
        written += C->f[i].trace[0] != 0;
        replayed += C->f[i].replayed;
    }
    if (!o->quiet) {
        printf("pmi2-conform fuzz: seed %llu, target: %s%s\n", (unsigned long long)o->seed,
               o->launch ? o->launch : "run as the job",
               C->pmi == 1 ? ", PMI-1" : C->pmi == 2 ? ", PMI-2" : "");
        for (size_t i = 0; i < C->nf; i++) {
            finding *f = &C->f[i];
            printf("\n#%zu %s at input %lld (%s): %s\n", i + 1, fz_class_name(f->cls), f->idx,
                   f->family, f->desc);
            printf("    observed: %s\n", f->detail);
            if (f->minimized) {
                printf("    minimal: %zu input%s (", f->nmin, f->nmin == 1 ? "" : "s");
                for (size_t k = 0; k < f->nmin; k++)
                    printf("%s%llu", k ? "," : "", (unsigned long long)f->min[k]);
                printf(") on %d rank%s\n", f->min_np, f->min_np == 1 ? "" : "s");
            } else if (o->launch && !o->no_minimize) {
                printf("    not reproduced in a fresh launch (flaky or timing-dependent)\n");
            }
            if (f->trace[0])
                printf("    reproducer: %s%s\n", f->trace,
                       !f->replay_tried ? "" : f->replayed ? " (pmi-trace replay reproduces it)"
                                                           : " (pmi-trace replay did NOT reproduce it)");
        }
        printf("\nsummary\n");
        printf("  %-20s %8zu\n", "inputs sent", C->nsent);
        printf("  %-20s %8u\n", "launches", C->nlaunch);
        for (int c = FZ_CLASS_COUNT - 1; c > 0; c--)
            printf("  %-20s %8zu\n", fz_class_name(c), by[c]);
        printf("  %-20s %8zu\n", "reproducers", written);
        printf("  %-20s %8zu\n", "replays confirmed", replayed);
        printf("  %-20s %8.1f\n", "seconds", secs);
    }
    printf("pmi2-conform fuzz: %zu input%s, %zu finding%s%s\n", C->nsent, C->nsent == 1 ? "" : "s",
           C->nf, C->nf == 1 ? "" : "s", harness ? " (harness errors)" : "");
    fflush(stdout);
    if (o->out) {
        char p[1200];
        snprintf(p, sizeof p, "%s/findings.txt", o->out);
        FILE *f = fopen(p, "w");
        if (f) {
            for (size_t i = 0; i < C->nf; i++)
                fprintf(f, "%s\t%lld\t%s\t%s\t%s\n", fz_class_name(C->f[i].cls), C->f[i].idx,
                        C->f[i].trace[0] ? C->f[i].trace : "-",
                        C->f[i].replayed ? "replays" : C->f[i].replay_tried ? "no-replay" : "-",
                        C->f[i].desc);
            fclose(f);
        }
    }
    if (C->nf)
        return PCF_EXIT_NONCONFORMANT;
    return harness ? PCF_EXIT_USAGE : PCF_EXIT_OK;
}

static finding *add_finding(camp *C, const llog *l, const verdict *v)
{
    finding *nf = realloc(C->f, (C->nf + 1) * sizeof *nf);
    if (!nf)
        return NULL;
    C->f = nf;
    finding *f = &C->f[C->nf++];
    memset(f, 0, sizeof *f);
    f->cls = v->cls;
    f->idx = v->idx;
    snprintf(f->detail, sizeof f->detail, "%s", v->detail);
    const rec *r = find_rec((llog *)l, v->idx);
    if (r) {
        snprintf(f->family, sizeof f->family, "%s", r->family);
        snprintf(f->desc, sizeof f->desc, "%s", r->desc);
        size_t n = 0;
        for (size_t i = 0; i < l->n; i++)
            if (l->r[i].conn == r->conn && l->r[i].idx <= r->idx)
                n++;
        f->hist = calloc(n ? n : 1, sizeof *f->hist);
        for (size_t i = 0; f->hist && i < l->n; i++)
            if (l->r[i].conn == r->conn && l->r[i].idx <= r->idx)
                f->hist[f->nhist++] = (uint64_t)l->r[i].idx;
    }
    return f;
}

/* ---------------------------------------------------------------- campaigns */

static int run_as_job_report(camp *C)
{
    /* rank 0 of the job itself: no relaunch, so no minimization; the
     * recorded transcripts of this job are the reproducer */
    const fz_opts *o = C->o;
    llog l;
    if (read_log(o->sync, &l) != 0) {
        fprintf(stderr, "pmi2-conform fuzz: no log from the fuzzing rank in %s\n", o->sync);
        return summary(C, 0, true);
    }
    C->pmi = l.pmi;
    lres res = { .status = 0, .all_fin = true, .np = 2 };
    verdict v;
    judge(&l, &res, &v);
    C->nsent = l.n;
    C->next = l.n ? (uint64_t)l.r[l.n - 1].idx + 1 : 0;
    if (v.cls) {
        finding *f = add_finding(C, &l, &v);
        if (f && o->out) {
            f->nmin = f->nhist < FZ_MAX_LIST ? f->nhist : FZ_MAX_LIST;
            memcpy(f->min, f->hist + f->nhist - f->nmin, f->nmin * sizeof *f->min);
            snprintf(f->trace, sizeof f->trace, "%s/finding-01-%s-input%lld.trace", o->out,
                     fz_class_name(f->cls), f->idx);
            int np = 0;
            char name[32], line[8];
            for (; np < 4096; np++) {
                snprintf(name, sizeof name, "ok.%d", np);
                if (np != 1 && fz_read_file(o->sync, name, line, sizeof line) != 0)
                    break;
            }
            if (write_repro(o, o->sync, np < 2 ? 1 : np, f, f->trace) != 0)
                f->trace[0] = 0;
        }
    }
    llog_free(&l);
    return summary(C, 0, false);
}

int fz_run_campaign(const fz_opts *o)
{
    camp C = { .o = o, .pmi = o->pmi };
    if (o->out && mkdir(o->out, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "pmi2-conform fuzz: %s: %s\n", o->out, strerror(errno));
        return PCF_EXIT_USAGE;
    }
    if (!o->launch)
        return run_as_job_report(&C);
    uint64_t t0 = pws_now_usec();
    C.stop = o->time_s ? pws_deadline_ms(o->time_s * 1000u) : UINT64_MAX;
    snprintf(C.work, sizeof C.work, "/tmp/pmi2-conform-fuzz-XXXXXX");
    if (!mkdtemp(C.work)) {
        fprintf(stderr, "pmi2-conform fuzz: mkdtemp: %s\n", strerror(errno));
        return PCF_EXIT_USAGE;
    }
    bool harness = false;
    int dead_launches = 0;
    C.next = o->from;
    while (C.next < o->count && pws_now_usec() < C.stop) {
        progress(&C);
        char dir[1200];
        if (fresh_dir(C.work, C.nlaunch++, dir, sizeof dir)) {
            harness = true;
            break;
        }
        unsigned left = o->time_s ? (unsigned)((C.stop - pws_now_usec()) / 1000000u) + 1 : 0;
        lres res;
        launch_child(o, C.pmi, dir, o->np, C.next, NULL, 0, false, left, &res);
        llog l;
        if (read_log(dir, &l) != 0 || l.n == 0) {
            /* no input went out: the launch itself failed */
            fprintf(stderr, "pmi2-conform fuzz: a launch sent no input (%s)\n%s\n",
                    res.status == -2 ? "could not start" : "start-up failed", res.tail);
            if (read_log(dir, &l) == 0)
                llog_free(&l);
            rm_dir(dir);
            if (!C.pmi && !o->pmi && res.status != -2) {
                /* PMI-2 start-up failed without a refusal to fall back on (the
                 * server closed or never answered): PMI-1 from the start */
                C.pmi = 1;
                fprintf(stderr, "pmi2-conform fuzz: trying PMI-1\n");
                continue;
            }
            if (++dead_launches >= 3) {
                harness = true;
                break;
            }
            continue;
        }
        dead_launches = 0;
        if (!C.pmi && l.pmi)
            C.pmi = l.pmi; /* what the server speaks: minimization and the rest use it */
        verdict v;
        judge(&l, &res, &v);
        C.nsent += l.n;
        uint64_t last = (uint64_t)l.r[l.n - 1].idx;
        if (v.cls) {
            finding *f = add_finding(&C, &l, &v);
            if (f && !o->no_minimize && o->out)
                minimize(&C, f);
            else if (f)
                f->nmin = 0;
            if (f && f->trace[0] && !o->no_replay)
                f->replayed = replay_repro(o, C.work, f);
            if (f && f->minimized && !f->reproduced)
                f->trace[0] = 0;
            C.next = (uint64_t)v.idx + 1;
        } else {
            C.next = last + 1;
        }
        llog_free(&l);
        rm_dir(dir);
    }
    /* a finding that did not come back in any fresh launch keeps its place
     * in the report, marked so */
    int rc = summary(&C, (double)(pws_now_usec() - t0) / 1e6, harness);
    for (size_t i = 0; i < C.nf; i++)
        free(C.f[i].hist);
    free(C.f);
    rmdir(C.work);
    return rc;
}
