/* Orchestrated server mode (--launch TEMPLATE): the suite as several
 * launches, so a case that kills its job cannot take the others down.
 *
 *   launch 1: every non-destructive PMI-2 case      (--pmi 2)
 *   launch 2: every non-destructive PMI-1 case      (--pmi 1)
 *   launch k: one destructive case, 2 ranks          (rank 1 is the victim)
 *
 * Each launch runs "TEMPLATE <this program> server --child ..." through
 * /bin/sh in a process group of its own, with a deadline; on expiry the
 * group is killed.  Rank 0 of the child job appends "start"/"result" lines to
 * a results file per launch; a case that started without a result was cut
 * short: "job-killed" when the launch ended by itself, TIMEOUT when the
 * deadline killed it.  What the launcher and the job print goes to a log per
 * launch (to stderr with --verbose); the last lines of it become part of the
 * evidence of a case that ended its job. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct launch {
    int pmi;
    int np;
    const pcf_entry **cases;
    size_t n;
    unsigned budget_ms;
} launch;

static void shquote(char **buf, size_t *len, size_t *cap, const char *s)
{
    size_t need = *len + strlen(s) * 4 + 4;
    if (need > *cap) {
        *cap = need * 2;
        char *nb = realloc(*buf, *cap);
        if (!nb) {
            fprintf(stderr, "pmi2-conform: out of memory\n");
            exit(PCF_EXIT_USAGE);
        }
        *buf = nb;
    }
    char *w = *buf + *len;
    *w++ = ' ';
    *w++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            memcpy(w, "'\\''", 4);
            w += 4;
        } else {
            *w++ = *p;
        }
    }
    *w++ = '\'';
    *w = 0;
    *len = (size_t)(w - *buf);
}

/* The template with {n} replaced. */
static char *expand(const char *tmpl, int np)
{
    size_t cap = strlen(tmpl) + 64, k = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    for (const char *p = tmpl; *p;) {
        if (strncmp(p, "{n}", 3) == 0) {
            k += (size_t)snprintf(out + k, cap - k, "%d", np);
            p += 3;
        } else {
            out[k++] = *p++;
        }
        if (k + 16 >= cap) {
            char *n = realloc(out, cap *= 2);
            if (!n) {
                free(out);
                return NULL;
            }
            out = n;
        }
    }
    out[k] = 0;
    return out;
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

static void sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* An excerpt of a launch log for the report: its first three non-empty
 * lines (where launchers name the cause: Hydra's "PMI version mismatch",
 * an assert, a segfault) and, when there are more, "..." and the last one;
 * each line prefixed "| ".  Empty when the log is. */
static void log_excerpt(const char *path, char *buf, size_t n)
{
    enum { HEAD = 3 };
    buf[0] = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    static char text[65536];
    size_t got = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[got] = 0;
    const char *line[HEAD + 1];
    size_t len[HEAD + 1], nlines = 0;
    for (size_t i = 0; i < got;) {
        size_t j = i;
        while (j < got && text[j] != '\n')
            j++;
        size_t e = j;
        while (e > i && (text[e - 1] == '\r' || text[e - 1] == ' '))
            e--;
        if (e > i) {
            size_t slot = nlines < HEAD ? nlines : HEAD; /* the last line overwrites slot HEAD */
            line[slot] = text + i;
            len[slot] = e - i;
            nlines++;
        }
        i = j + 1;
    }
    size_t w = 0;
    for (size_t k = 0; k < nlines && k <= HEAD && w + 1 < n; k++) {
        const char *gap = k == HEAD && nlines > HEAD + 1 ? "| ...\n" : "";
        int m = snprintf(buf + w, n - w, "%s%s| %.*s", k ? "\n" : "", gap,
                         (int)(len[k] > 200 ? 200 : len[k]), line[k]);
        w = m > 0 && w + (size_t)m < n ? w + (size_t)m : n - 1;
    }
    for (char *c = buf; *c; c++) /* the report is text: no control bytes from the log */
        if ((unsigned char)*c < 0x20 && *c != '\n')
            *c = '?';
}

/* Run one launch; returns its wait status, or -1 when the deadline killed it.
 * Its output goes to `logfile` (inherited with --verbose). */
static int run_launch(const pcf_opts *o, const launch *L, const char *resfile, const char *self,
                      const char *logfile)
{
    char *cmd = expand(o->launch, L->np);
    if (!cmd)
        return -2;
    size_t len = strlen(cmd), cap = len + 1;
    shquote(&cmd, &len, &cap, self);
    const char *fixed[] = { "server", "--child", "--results", resfile };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        shquote(&cmd, &len, &cap, fixed[i]);
    char num[32];
    snprintf(num, sizeof num, "--pmi=%d", L->pmi);
    shquote(&cmd, &len, &cap, num);
    snprintf(num, sizeof num, "--timeout=%u", o->timeout_ms / 1000 ? o->timeout_ms / 1000 : 1);
    shquote(&cmd, &len, &cap, num);
    if (o->strict)
        shquote(&cmd, &len, &cap, "--strict");
    if (o->repeat > 1) {
        snprintf(num, sizeof num, "--repeat=%d", o->repeat);
        shquote(&cmd, &len, &cap, num);
    }
    if (o->json_dir || o->html) {
        char jd[1024];
        snprintf(jd, sizeof jd, "--json=%s", o->json_dir ? o->json_dir : "");
        if (o->json_dir)
            shquote(&cmd, &len, &cap, jd);
    }
    for (size_t i = 0; i < L->n; i++)
        shquote(&cmd, &len, &cap, L->cases[i]->c->id);
    if (o->verbose)
        fprintf(stderr, "pmi2-conform: launch: %s\n", cmd);

    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        free(cmd);
        return -2;
    }
    if (pid == 0) {
        setpgid(0, 0); /* the whole launch can be killed as one group */
        /* stdout carries the report alone: what the launcher and the job
         * print (mpiexec's "BAD TERMINATION" banners, its diagnostics) goes
         * to the launch's log, or to stderr with --verbose */
        int lf = o->verbose ? -1 : open(logfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (lf >= 0)
            dup2(lf, 2);
        dup2(2, 1);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    free(cmd);
    uint64_t deadline = pws_deadline_ms(L->budget_ms);
    for (;;) {
        int st;
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) {
            kill(-pid, SIGKILL); /* stragglers of the job (orphaned ranks) */
            return st;
        }
        if (w < 0 && errno != EINTR)
            return -2;
        if (pws_now_usec() >= deadline) {
            fprintf(stderr, "pmi2-conform: launch deadline (%u s) passed: killing it\n",
                    L->budget_ms / 1000);
            kill(-pid, SIGTERM);
            sleep_ms(1000);
            kill(-pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        sleep_ms(50);
    }
}

int pcf_run_orchestrated(const pcf_opts *o)
{
    size_t nall;
    const pcf_entry *all = pcf_cases(&nall);
    pcf_results rs = { 0 };
    snprintf(rs.target, sizeof rs.target, "%s", o->launch);
    uint64_t t0 = pws_now_usec();
    char dir[] = "/tmp/pmi2-conform-run-XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "pmi2-conform: mkdtemp: %s\n", strerror(errno));
        return PCF_EXIT_USAGE;
    }
    char selfbuf[1024];
    const char *self = self_path(o->argv0, selfbuf, sizeof selfbuf);
    int np = o->np > 0 ? o->np : 4;

    /* plan the launches */
    launch *L = calloc(nall + 2, sizeof *L);
    size_t nl = 0;
    for (int pmi = 2; pmi >= 1; pmi--) {
        launch *g = &L[nl];
        g->pmi = pmi;
        g->np = np;
        g->cases = calloc(nall ? nall : 1, sizeof *g->cases);
        for (size_t i = 0; i < nall; i++) {
            const pcf_case *c = all[i].c;
            if (!pcf_selected(c->id, o->globs, o->nglobs) || (c->flags & PCF_DESTRUCTIVE))
                continue;
            if (!pcf_unrunnable(c, pmi, 1 << 20) && (pmi == 2 || !(c->flags & PCF_V2))) {
                g->cases[g->n++] = &all[i];
                if (c->min_ranks > g->np)
                    g->np = c->min_ranks;
            }
        }
        if (g->n)
            nl++;
        else
            free(g->cases);
    }
    for (size_t i = 0; i < nall; i++) {
        const pcf_case *c = all[i].c;
        if (!pcf_selected(c->id, o->globs, o->nglobs) || !(c->flags & PCF_DESTRUCTIVE))
            continue;
        launch *g = &L[nl]; /* capacity nall + 2: two groups plus one per case */
        g->pmi = (c->flags & PCF_V2) ? 2 : 1;
        /* a victim beside rank 0; a collective case runs on the full job */
        int want = (c->flags & PCF_COLLECTIVE) ? np : 2;
        g->np = c->min_ranks > want ? c->min_ranks : want;
        g->cases = calloc(1, sizeof *g->cases);
        g->cases[0] = &all[i];
        g->n = 1;
        nl++;
    }
    for (size_t k = 0; k < nl; k++) {
        unsigned per = o->timeout_ms + 5000;
        L[k].budget_ms = 60000 + (unsigned)L[k].n * per * (unsigned)(o->repeat > 1 ? o->repeat : 1);
    }

    size_t total = 0;
    for (size_t k = 0; k < nl; k++)
        total += L[k].n;
    size_t done = 0;
    int harness = 0;
    for (size_t k = 0; k < nl; k++) {
        char res[1200], logfile[1200], said[1200];
        snprintf(res, sizeof res, "%s/launch-%zu.results", dir, k);
        snprintf(logfile, sizeof logfile, "%s/launch-%zu.log", dir, k);
        pcf_progress(o, done, total, L[k].n == 1 ? L[k].cases[0]->c->id
                                                  : L[k].pmi == 1 ? "(PMI-1 launch)"
                                                                  : "(PMI-2 launch)");
        int st = run_launch(o, &L[k], res, self, logfile);
        log_excerpt(logfile, said, sizeof said);
        char open_id[160];
        bool finished = false;
        pcf_resfile_read(res, &rs, open_id, sizeof open_id, &finished);
        bool killed_by_deadline = st == -1;
        bool exited_bad = st >= 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        if (st == -2)
            harness = 1;
        /* the case in progress when the launch ended */
        if (open_id[0]) {
            const pcf_entry *e = pcf_case_find(open_id);
            pcf_obs ob;
            const char *out = killed_by_deadline ? "no-answer" : "job-killed";
            pcf_grade(e->c, out, o->strict, &ob);
            char why[1600];
            int w;
            if (killed_by_deadline)
                w = snprintf(why, sizeof why, "the launch did not finish before its deadline and "
                                              "was killed while this case ran");
            else
                w = snprintf(why, sizeof why, "the job ended while this case ran (launcher %s %d)",
                             WIFSIGNALED(st) ? "killed by signal" : "exit status",
                             WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            if (said[0] && w > 0 && (size_t)w < sizeof why)
                snprintf(why + w, sizeof why - (size_t)w, "; the launcher's last words:\n%s", said);
            pcf_result_add_run(pcf_results_get(&rs, e), ob.verdict, out, ob.clause, why, 0);
        }
        /* A destructive launch that ended badly although its case "passed":
         * the job was taken down after the victim reported, before rank 0
         * had checked its own connection and finalized.  After rank 0's
         * "done", a bad status is the launcher's answer to the victim
         * leaving without finalize (its connection may be gone), which the
         * harness caused: no verdict (mpich-wire.md §9, socket closed
         * before finalize). */
        if (L[k].n == 1 && (L[k].cases[0]->c->flags & PCF_DESTRUCTIVE) && exited_bad &&
            !open_id[0] && !finished) {
            pcf_result *r = pcf_results_get(&rs, L[k].cases[0]);
            if (r->runs && !pcf_verdict_failing(r->verdict, o->strict)) {
                pcf_obs ob;
                pcf_grade(L[k].cases[0]->c, "job-killed", o->strict, &ob);
                char why[2400];
                snprintf(why, sizeof why, "%s\nthen the job ended (launcher %s %d)%s%s",
                         r->actual ? r->actual : "", WIFSIGNALED(st) ? "signal" : "exit status",
                         WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
                         said[0] ? "; the launcher's last words:\n" : "", said);
                r->runs = 0;
                r->seen = 0;
                pcf_result_add_run(r, ob.verdict, "job-killed", ob.clause, why, r->usec);
            }
        }
        /* cases that never started */
        for (size_t i = 0; i < L[k].n; i++) {
            pcf_result *r = pcf_results_get(&rs, L[k].cases[i]);
            if (r->runs || (r->verdict == PCF_SKIPPED && r->actual))
                continue;
            char why[200];
            snprintf(why, sizeof why, "not run: the launch ended before this case (%s)",
                     killed_by_deadline ? "deadline" : exited_bad ? "job ended" : "no result");
            pcf_result_add_run(r, PCF_ERROR, "harness-error", L[k].cases[i]->c->clause, why, 0);
        }
        done += L[k].n;
        remove(res);
        remove(logfile);
    }
    pcf_progress_end(o);
    /* report in registry order */
    pcf_results sorted = { 0 };
    snprintf(sorted.target, sizeof sorted.target, "%s", rs.target);
    if (o->json_dir)
        snprintf(sorted.tracedir, sizeof sorted.tracedir, "%s/traces", o->json_dir);
    for (size_t i = 0; i < nall; i++)
        for (size_t k = 0; k < rs.n; k++)
            if (rs.r[k].e == &all[i]) {
                pcf_result *r = pcf_results_get(&sorted, &all[i]);
                *r = rs.r[k];
                rs.r[k].actual = NULL;
                rs.r[k].trace = NULL;
            }
    pcf_results_free(&rs);
    sorted.seconds = (double)(pws_now_usec() - t0) / 1e6;
    int code = pcf_report(&sorted, o, stdout);
    pcf_results_free(&sorted);
    for (size_t k = 0; k < nl; k++)
        free(L[k].cases);
    free(L);
    rmdir(dir);
    return harness && code == 0 ? PCF_EXIT_USAGE : code;
}
