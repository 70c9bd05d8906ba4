#define _GNU_SOURCE /* readlink of /proc/self/exe, mkdtemp */
/* pmi2-conform mutate: the suite's grading power, measured (issue 15).
 *
 * A mutant is a server (pmi-mockserver --mutant NAME: the strict persona
 * with one SPEC.md clause broken) or a client (pcf-mutant-client NAME
 * DRIVER: the driver's requests or its reading of the answers changed in
 * one clause).  The suite runs once against the unmutated peer (the
 * reference) and once per mutant, each run a child pmi2-conform with its own
 * JSON report; a case catches a mutant when its verdict fails (FAIL,
 * TIMEOUT, NON-STRICT) where the reference's did not.  Output: per mutant
 * the cases that caught it, per case the mutants it catches, the survivors
 * with their reason, and `mutation score: K/M killed`; the exit status says
 * whether the score reached --threshold.
 *
 * --expect REPORT re-checks a published mutation report quickly: each
 * mutant it lists as killed runs only the cases that killed it there and
 * must be killed again (the ctest guard against a case losing its power). */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAX_KILLERS_EXPECT = 2, LINE = 1024 };

typedef struct mkill {
    char *id;
    int verdict;
} mkill;

typedef struct mutant {
    char *name, *clause, *proto, *what, *unobservable;
    char **globs;     /* --expect: the cases that killed it in the published run */
    size_t nglobs;
    bool expect_survived; /* --expect: listed there as a survivor (not rerun) */
    pid_t pid;
    uint64_t started_ms;
    double seconds;   /* its run's wall time */
    double expect_seconds; /* --expect: its run's wall time there (the longest start first) */
    int state;        /* 0 queued, 1 running, 2 done */
    int status;       /* the child's exit status, -1 killed at the deadline */
    mkill *kills;
    size_t nkills;
    size_t nerrors;   /* cases the child reported ERROR (not a kill) */
    char note[200];   /* why it has no result */
} mutant;

typedef struct mopts {
    bool client;
    const char *mock, *relay, *driver1, *driver2;
    const char *out;
    const char *expect;
    const char **only;
    size_t nonly;
    double threshold;
    int jobs;
    int timeout_s;
    int deadline_s;
    int np;
    int nodes;       /* the mock's emulated nodes (--nodes; 1: one) */
    const char *map; /* and its placement (--map block|cyclic) */
    bool quiet, keep;
    char *const *globs;
    size_t nglobs;
} mopts;

/* ---------------------------------------------------------------- helpers */

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d) {
        fputs("pmi2-conform mutate: out of memory\n", stderr);
        exit(PCF_EXIT_USAGE);
    }
    return d;
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("pmi2-conform mutate: out of memory\n", stderr);
        exit(PCF_EXIT_USAGE);
    }
    return q;
}

/* The directory this executable lives in, for the default peers beside it. */
static void self_dir(char *dir, size_t n)
{
    char p[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", p, sizeof p - 1);
    if (k <= 0) {
        snprintf(dir, n, ".");
        return;
    }
    p[k] = 0;
    char *slash = strrchr(p, '/');
    if (slash)
        *slash = 0;
    snprintf(dir, n, "%s", p);
}

/* `given`, else the first of two places relative to this executable that
 * holds an executable: the build tree's, then the installed layout's. */
static const char *beside(const char *given, const char *rel, const char *installed, char *buf,
                          size_t n)
{
    if (given)
        return given;
    char d[PATH_MAX];
    self_dir(d, sizeof d);
    if (snprintf(buf, n, "%s/%s", d, rel) < (int)n && access(buf, X_OK) == 0)
        return buf;
    if (snprintf(buf, n, "%s/%s", d, installed) < (int)n && access(buf, X_OK) == 0)
        return buf;
    return NULL;
}

/* A failing verdict: what counts as the suite telling the mutant apart. */
static bool catches(int v)
{
    return v == PCF_FAIL || v == PCF_TIMEOUT || v == PCF_NON_STRICT || v == PCF_FLAKY;
}

static bool name_selected(const mopts *o, const char *name)
{
    if (!o->nonly)
        return true;
    bool any_include = false, in = false;
    for (size_t i = 0; i < o->nonly; i++) {
        const char *g = o->only[i];
        if (g[0] == '!') {
            if (pcf_glob(g + 1, name))
                return false;
        } else {
            any_include = true;
            in |= pcf_glob(g, name);
        }
    }
    return !any_include || in;
}

/* ---------------------------------------------------------------- mutant list */

/* Lines "NAME\tCLAUSE\t[PROTO\t]WHAT[\tunobservable: WHY]" from `cmd --list`. */
static mutant *load_mutants(const mopts *o, const char *const *argv, size_t *n)
{
    int pfd[2];
    if (pipe(pfd) != 0)
        return NULL;
    pid_t pid = fork();
    if (pid < 0)
        return NULL;
    if (pid == 0) {
        dup2(pfd[1], 1);
        close(pfd[0]);
        close(pfd[1]);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(pfd[1]);
    FILE *f = fdopen(pfd[0], "r");
    mutant *ms = NULL;
    size_t nm = 0;
    char line[LINE * 2];
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *field[5] = { 0 };
        int nf = 0;
        for (char *p = line; nf < 5;) {
            field[nf++] = p;
            char *t = strchr(p, '\t');
            if (!t)
                break;
            *t = 0;
            p = t + 1;
        }
        if (nf < 3 || !*field[0])
            continue;
        mutant m = { 0 };
        m.name = xstrdup(field[0]);
        m.clause = xstrdup(field[1]);
        int k = 2;
        if (o->client) { /* the client relay says which driver a mutant needs */
            m.proto = xstrdup(field[k++]);
        } else {
            m.proto = xstrdup("server");
        }
        m.what = xstrdup(k < nf ? field[k++] : "");
        if (k < nf && strncmp(field[k], "unobservable: ", 14) == 0)
            m.unobservable = xstrdup(field[k] + 14);
        if (!name_selected(o, m.name) || strcmp(m.name, "none") == 0) {
            free(m.name);
            free(m.clause);
            free(m.proto);
            free(m.what);
            free(m.unobservable);
            continue;
        }
        ms = xrealloc(ms, (nm + 1) * sizeof *ms);
        ms[nm++] = m;
    }
    if (f)
        fclose(f);
    int st;
    waitpid(pid, &st, 0);
    *n = nm;
    return ms;
}

/* ---------------------------------------------------------------- child runs */

typedef struct run {
    const char *tag;       /* mutant name or "reference-pmi2" */
    char dir[PATH_MAX];
    char **argv;
    size_t argc;
} run;

static void argv_add(run *r, const char *s)
{
    r->argv = xrealloc(r->argv, (r->argc + 2) * sizeof *r->argv);
    r->argv[r->argc++] = xstrdup(s);
    r->argv[r->argc] = NULL;
}

static void argv_free(run *r)
{
    for (size_t i = 0; i < r->argc; i++)
        free(r->argv[i]);
    free(r->argv);
    r->argv = NULL;
    r->argc = 0;
}

/* The child pmi2-conform run for mutant `name` ("none" = the reference). */
static void build_run(const mopts *o, const char *self, const char *outdir, const char *name,
                      const char *proto, char *const *globs, size_t nglobs, run *r)
{
    char buf[PATH_MAX * 2];
    memset(r, 0, sizeof *r);
    snprintf(r->dir, sizeof r->dir, "%s/%s%s%s", outdir, name, o->client ? "-" : "",
             o->client ? proto : "");
    argv_add(r, self);
    if (o->client) {
        argv_add(r, "client");
    } else {
        argv_add(r, "server");
        char shape[64] = "";
        if (o->nodes > 1)
            snprintf(shape, sizeof shape, " --nodes %d --map %s", o->nodes, o->map);
        if (strcmp(name, "none") == 0)
            snprintf(buf, sizeof buf, "%s -n {n}%s --timeout 120 --", o->mock, shape);
        else
            snprintf(buf, sizeof buf, "%s -n {n}%s --mutant %s --timeout 120 --", o->mock, shape,
                     name);
        argv_add(r, "--launch");
        argv_add(r, buf);
        snprintf(buf, sizeof buf, "%d", o->np);
        argv_add(r, "-n");
        argv_add(r, buf);
    }
    snprintf(buf, sizeof buf, "%d", o->timeout_s);
    argv_add(r, "--timeout");
    argv_add(r, buf);
    if (!o->client) {
        snprintf(buf, sizeof buf, "%d", o->deadline_s);
        argv_add(r, "--deadline");
        argv_add(r, buf);
    }
    argv_add(r, "--json");
    argv_add(r, r->dir);
    argv_add(r, "-q");
    for (size_t i = 0; i < nglobs; i++)
        argv_add(r, globs[i]);
    if (o->client) {
        argv_add(r, "--");
        argv_add(r, o->relay);
        argv_add(r, name);
        argv_add(r, strcmp(proto, "pmi1") == 0 ? o->driver1 : o->driver2);
    }
}

static pid_t start_run(run *r)
{
    mkdir(r->dir, 0777);
    char log[PATH_MAX + 16];
    snprintf(log, sizeof log, "%s.log", r->dir);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        setpgid(0, 0); /* its launches with it: one group to end at the deadline */
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, 0);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execv(r->argv[0], r->argv);
        _exit(127);
    }
    setpgid(pid, pid);
    return pid;
}

/* id -> verdict of a child's report; NULL when it wrote none. */
static pcf_jv *read_report(const char *dir, char *err, size_t errlen)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/index.json", dir);
    size_t len;
    char *text = pcf_slurp(path, &len);
    if (!text) {
        snprintf(err, errlen, "no index.json: %s", strerror(errno));
        return NULL;
    }
    pcf_jv *root = pcf_json_parse(text, len, err, errlen);
    free(text);
    return root;
}

static int verdict_of(const pcf_jv *cases, const char *id)
{
    const pcf_jv *e = pcf_json_get(cases, id);
    const char *v = e ? pcf_json_string(pcf_json_get(e, "verdict")) : NULL;
    return v ? pcf_verdict_parse(v) : -1;
}

/* ---------------------------------------------------------------- signals */

static mutant *g_ms;
static size_t g_nm;
static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
    g_stop = sig;
}

static void end_children(void)
{
    for (size_t i = 0; i < g_nm; i++)
        if (g_ms[i].state == 1 && g_ms[i].pid > 0)
            kill(-g_ms[i].pid, SIGTERM);
    uint64_t until = now_ms() + 5000;
    for (size_t i = 0; i < g_nm; i++) {
        if (g_ms[i].state != 1 || g_ms[i].pid <= 0)
            continue;
        int st;
        while (waitpid(g_ms[i].pid, &st, WNOHANG) == 0) {
            if (now_ms() > until) {
                kill(-g_ms[i].pid, SIGKILL);
                waitpid(g_ms[i].pid, &st, 0);
                break;
            }
            usleep(20000);
        }
        g_ms[i].state = 2;
    }
}

/* ---------------------------------------------------------------- the runs */

typedef struct refset {
    pcf_jv *pmi1, *pmi2, *server;
} refset;

static const pcf_jv *ref_cases(const refset *rs, const mopts *o, const mutant *m)
{
    const pcf_jv *root = !o->client ? rs->server : strcmp(m->proto, "pmi1") == 0 ? rs->pmi1 : rs->pmi2;
    return pcf_json_get(root, "cases");
}

static void grade_mutant(const mopts *o, const refset *rs, mutant *m, const char *dir)
{
    char err[300] = "";
    pcf_jv *root = read_report(dir, err, sizeof err);
    if (!root) {
        snprintf(m->note, sizeof m->note, "the run left no report: %s", err);
        return;
    }
    const pcf_jv *cases = pcf_json_get(root, "cases");
    const pcf_jv *ref = ref_cases(rs, o, m);
    for (size_t i = 0; i < pcf_json_count(cases); i++) {
        const char *id;
        const pcf_jv *e = pcf_json_member(cases, i, &id);
        const char *vs = pcf_json_string(pcf_json_get(e, "verdict"));
        int v = vs ? pcf_verdict_parse(vs) : -1;
        if (v == PCF_ERROR)
            m->nerrors++;
        int rv = verdict_of(ref, id);
        if (rv < 0 || catches(rv) || !catches(v))
            continue;
        m->kills = xrealloc(m->kills, (m->nkills + 1) * sizeof *m->kills);
        m->kills[m->nkills].id = xstrdup(id);
        m->kills[m->nkills].verdict = v;
        m->nkills++;
    }
    pcf_json_free(root);
}

static void progress(const mopts *o, size_t done, size_t total, const char *last, uint64_t t0)
{
    if (o->quiet)
        return;
    unsigned s = (unsigned)((now_ms() - t0) / 1000);
    if (isatty(2))
        fprintf(stderr, "\r\033[K[%zu/%zu mutants %u s] %s done", done, total, s, last);
    else
        fprintf(stderr, "pmi2-conform mutate: progress: %zu/%zu mutants, %u s, last done: %s\n",
                done, total, s, last);
}

/* Run one child to its end (the references); 0 when it left a report. */
static pcf_jv *run_reference(const mopts *o, const char *self, const char *outdir, const char *proto,
                             char *const *globs, size_t nglobs)
{
    run r;
    build_run(o, self, outdir, "none", proto, globs, nglobs, &r);
    pid_t pid = start_run(&r);
    int st = 0;
    if (pid > 0) {
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
            if (g_stop) {
                kill(-pid, SIGTERM);
            }
        }
    }
    char err[300] = "";
    pcf_jv *root = read_report(r.dir, err, sizeof err);
    if (!root)
        fprintf(stderr, "pmi2-conform mutate: the reference run (%s) failed: %s; see %s.log\n",
                proto, err, r.dir);
    argv_free(&r);
    return root;
}

static int cmp_longest(const void *a, const void *b)
{
    double x = g_ms[*(const size_t *)a].expect_seconds, y = g_ms[*(const size_t *)b].expect_seconds;
    return x < y ? 1 : x > y ? -1 : 0;
}

static void run_all(const mopts *o, const char *self, const char *outdir, const refset *rs)
{
    size_t next = 0, running = 0, done = 0;
    uint64_t t0 = now_ms();
    run *runs = calloc(g_nm, sizeof *runs);
    size_t *order = calloc(g_nm, sizeof *order);
    if (!runs || !order) {
        fputs("pmi2-conform mutate: out of memory\n", stderr);
        exit(PCF_EXIT_USAGE);
    }
    for (size_t i = 0; i < g_nm; i++)
        order[i] = i;
    qsort(order, g_nm, sizeof *order, cmp_longest);
    while ((next < g_nm || running) && !g_stop) {
        while (running < (size_t)o->jobs && next < g_nm) {
            size_t mi = order[next];
            mutant *m = &g_ms[mi];
            if (m->state == 2) { /* settled in an earlier pass */
                next++;
                continue;
            }
            if (m->expect_survived) {
                m->state = 2;
                snprintf(m->note, sizeof m->note, "survived in the expected report (not rerun)");
                next++;
                done++;
                continue;
            }
            char *const *globs = m->nglobs ? m->globs : o->globs;
            size_t ng = m->nglobs ? m->nglobs : o->nglobs;
            build_run(o, self, outdir, m->name, m->proto, globs, ng, &runs[mi]);
            m->pid = start_run(&runs[mi]);
            m->started_ms = now_ms();
            if (m->pid < 0) {
                snprintf(m->note, sizeof m->note, "could not start: %s", strerror(errno));
                m->state = 2;
                done++;
            } else {
                m->state = 1;
                running++;
            }
            next++;
        }
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid > 0) {
            for (size_t i = 0; i < g_nm; i++)
                if (g_ms[i].state == 1 && g_ms[i].pid == pid) {
                    g_ms[i].state = 2;
                    g_ms[i].status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
                    g_ms[i].seconds = (double)(now_ms() - g_ms[i].started_ms) / 1000.0;
                    grade_mutant(o, rs, &g_ms[i], runs[i].dir);
                    argv_free(&runs[i]);
                    running--;
                    done++;
                    progress(o, done, g_nm, g_ms[i].name, t0);
                }
            continue;
        }
        /* a child past its deadline (it has its own --deadline: this is the backstop) */
        uint64_t t = now_ms();
        for (size_t i = 0; i < g_nm; i++) {
            mutant *m = &g_ms[i];
            if (m->state == 1 && t - m->started_ms > (uint64_t)(o->deadline_s + 60) * 1000u) {
                kill(-m->pid, SIGKILL);
                snprintf(m->note, sizeof m->note, "killed: the run passed its deadline (%d s)",
                         o->deadline_s + 60);
            }
        }
        usleep(20000);
    }
    if (!o->quiet && isatty(2))
        fputs("\r\033[K", stderr);
    free(runs);
    free(order);
}

/* ---------------------------------------------------------------- expect */

static int load_expect(const mopts *o)
{
    size_t len;
    char *text = pcf_slurp(o->expect, &len);
    if (!text) {
        fprintf(stderr, "pmi2-conform mutate: %s: %s\n", o->expect, strerror(errno));
        return -1;
    }
    char err[200];
    pcf_jv *root = pcf_json_parse(text, len, err, sizeof err);
    free(text);
    const pcf_jv *ms = root ? pcf_json_get(root, "mutants") : NULL;
    if (!ms) {
        fprintf(stderr, "pmi2-conform mutate: %s: %s\n", o->expect, root ? "no \"mutants\"" : err);
        pcf_json_free(root);
        return -1;
    }
    for (size_t i = 0; i < g_nm; i++) {
        mutant *m = &g_ms[i];
        const pcf_jv *e = pcf_json_get(ms, m->name);
        if (!e)
            continue; /* new since the report: a full run */
        const pcf_jv *k = pcf_json_get(e, "killers");
        size_t nk = pcf_json_count(k);
        if (!nk) {
            m->expect_survived = true;
            continue;
        }
        m->expect_seconds = pcf_json_number(pcf_json_get(e, "seconds"));
        /* FAILs first; a TIMEOUT kill costs the whole case deadline, so one
         * is rerun only when nothing else caught the mutant.  Within each
         * verdict the cases that grade the mutant's own clause come first:
         * in a full run a case may fail only because the case before it in
         * the same launch left the job broken (a barrier that lets ranks
         * through early upsets every PMI-1 case after it), and alone it
         * would not catch the mutant. */
        static const char *const order[] = { "FAIL", "NON-STRICT", "FLAKY", "TIMEOUT" };
        for (size_t pass = 0; pass < 2 * (sizeof order / sizeof order[0]); pass++) {
            bool own = pass % 2 == 0;
            for (size_t j = 0; j < nk && m->nglobs < MAX_KILLERS_EXPECT &&
                               !(pass / 2 == 3 && m->nglobs); j++) {
                const char *id;
                const pcf_jv *v = pcf_json_member(k, j, &id);
                const char *vs = pcf_json_string(v);
                if (!id || !vs || strcmp(vs, order[pass / 2]) != 0)
                    continue;
                const pcf_entry *ce = pcf_case_find(id);
                bool grades = ce && ce->c->clause && strcmp(ce->c->clause, m->clause) == 0;
                if (grades != own)
                    continue;
                m->globs = xrealloc(m->globs, (m->nglobs + 1) * sizeof *m->globs);
                m->globs[m->nglobs++] = xstrdup(id);
            }
        }
    }
    pcf_json_free(root);
    return 0;
}

/* ---------------------------------------------------------------- report */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void write_report(FILE *f, const mopts *o, size_t killed, size_t total, bool verbose)
{
    const char *kind = o->client ? "client" : "server";
    char shape[64] = "";
    if (o->nodes > 1)
        snprintf(shape, sizeof shape, ", on %d emulated nodes (--map %s)", o->nodes, o->map);
    fprintf(f, "Mutants (%s%s): %zu; each named with the SPEC.md clause it breaks\n\n", kind,
            shape, total);
    for (size_t i = 0; i < g_nm; i++) {
        mutant *m = &g_ms[i];
        if (m->nkills) {
            fprintf(f, "  KILLED    %-34s %-11s by %zu:", m->name, m->clause, m->nkills);
            size_t show = verbose ? m->nkills : (m->nkills < 4 ? m->nkills : 4);
            for (size_t k = 0; k < show; k++)
                fprintf(f, " %s%s", m->kills[k].id, k + 1 < show ? "," : "");
            if (show < m->nkills)
                fprintf(f, " ...");
            fputc('\n', f);
        } else {
            fprintf(f, "  SURVIVED  %-34s %-11s %s\n", m->name, m->clause, m->what);
            if (m->unobservable)
                fprintf(f, "            reason: unobservable: %s\n", m->unobservable);
            else if (m->note[0])
                fprintf(f, "            reason: %s\n", m->note);
            else
                fprintf(f, "            reason: no case tells it apart (a missing case)\n");
        }
    }
    /* per case: the mutants it catches */
    char **ids = NULL;
    size_t nids = 0;
    for (size_t i = 0; i < g_nm; i++)
        for (size_t k = 0; k < g_ms[i].nkills; k++) {
            ids = xrealloc(ids, (nids + 1) * sizeof *ids);
            ids[nids++] = g_ms[i].kills[k].id;
        }
    if (nids) /* none killed: ids is NULL, which qsort must not get */
        qsort(ids, nids, sizeof *ids, cmp_str);
    {
        fprintf(f, "\nCases and the mutants they catch\n\n");
        for (size_t j = 0; j < nids; j++) {
            if (j && strcmp(ids[j], ids[j - 1]) == 0)
                continue;
            fprintf(f, "  %-44s", ids[j]);
            for (size_t i = 0; i < g_nm; i++)
                for (size_t k = 0; k < g_ms[i].nkills; k++)
                    if (strcmp(g_ms[i].kills[k].id, ids[j]) == 0)
                        fprintf(f, " %s", g_ms[i].name);
            fputc('\n', f);
        }
    }
    free(ids);
    fprintf(f, "\nmutation score: %zu/%zu killed\n", killed, total);
}

static void write_json(const char *path, const mopts *o, size_t killed, size_t total)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "pmi2-conform mutate: %s: %s\n", path, strerror(errno));
        return;
    }
    fprintf(f, "{\n  \"tool\": \"pmi2-conform mutate\",\n  \"version\": \"%s\",\n  \"kind\": \"%s\",\n",
            PCF_TOOL_VERSION, o->client ? "client" : "server");
    if (o->nodes > 1)
        fprintf(f, "  \"nodes\": %d,\n  \"map\": \"%s\",\n", o->nodes, o->map);
    fprintf(f, "  \"killed\": %zu,\n  \"total\": %zu,\n  \"mutants\": {\n", killed, total);
    for (size_t i = 0; i < g_nm; i++) {
        mutant *m = &g_ms[i];
        fputs("    ", f);
        pcf_json_cstr(f, m->name);
        fputs(": { \"clause\": ", f);
        pcf_json_cstr(f, m->clause);
        fputs(", \"proto\": ", f);
        pcf_json_cstr(f, m->proto);
        fputs(", \"what\": ", f);
        pcf_json_cstr(f, m->what);
        if (m->unobservable) {
            fputs(", \"unobservable\": ", f);
            pcf_json_cstr(f, m->unobservable);
        }
        if (!m->nkills && m->note[0]) {
            fputs(", \"note\": ", f);
            pcf_json_cstr(f, m->note);
        }
        fprintf(f, ", \"seconds\": %.1f, \"errors\": %zu, \"killers\": {", m->seconds, m->nerrors);
        for (size_t k = 0; k < m->nkills; k++) {
            fputs(k ? ", " : " ", f);
            pcf_json_cstr(f, m->kills[k].id);
            fputs(": ", f);
            pcf_json_cstr(f, pcf_verdict_name(m->kills[k].verdict));
        }
        fprintf(f, "%s} }%s\n", m->nkills ? " " : "", i + 1 < g_nm ? "," : "");
    }
    fputs("  }\n}\n", f);
    fclose(f);
}

/* ---------------------------------------------------------------- main */

static void usage(FILE *f)
{
    fputs("usage: pmi2-conform mutate [options] [GLOB...]\n"
          "       pmi2-conform mutate --client [options] [GLOB...]\n"
          "\n"
          "Measures the suite's grading power: runs the server cases against every\n"
          "mutant of the mock server (pmi-mockserver --mutant: the strict persona with one\n"
          "SPEC.md clause broken), or with --client the client cases against every mutant\n"
          "client (pcf-mutant-client: the project's drivers with one client clause\n"
          "broken on the wire), and reports which cases catch which mutant.  A case\n"
          "catches a mutant when its verdict is FAIL, TIMEOUT or NON-STRICT where the\n"
          "unmutated reference run's was not.  GLOBs select cases.\n"
          "\n"
          "options:\n"
          "      --mock PATH         pmi-mockserver (default: the one built or installed beside\n"
          "                          pmi2-conform)\n"
          "      --client            client mutants\n"
          "      --relay PATH        pcf-mutant-client (default: beside pmi2-conform, or in\n"
          "                          ../libexec/pmi2-conform when installed)\n"
          "      --driver-pmi2 PATH  the PMI-2 driver (default: drivers/pmi2-driver beside it)\n"
          "      --driver-pmi1 PATH  the PMI-1 driver (default: drivers/pmi1-driver beside it)\n"
          "  -m, --mutants GLOB      only mutants whose name matches (repeatable; !GLOB excludes)\n"
          "      --threshold PCT     exit 1 when the score is below PCT percent (default 0)\n"
          "      --expect REPORT     a published mutation.json: every mutant it lists as killed\n"
          "                          runs only the cases that killed it there (up to 2) and must\n"
          "                          be killed again (a mutant not killed is run up to three\n"
          "                          more times: timing may decide a kill); its survivors are\n"
          "                          not rerun\n"
          "  -j, --jobs N            mutant runs at once (default 3)\n"
          "  -t, --timeout S         per-case deadline of every run (default 5)\n"
          "      --deadline S        bound on one mutant's run (default 300)\n"
          "  -n, --np N              ranks per launch (default 4)\n"
          "      --nodes K           server mutants on K emulated nodes (pmi-mockserver\n"
          "                          --nodes: each node's ranks under a host of their own), so\n"
          "                          the cases that need several nodes grade (default 1)\n"
          "      --map block|cyclic  how the mock places ranks on them (default block)\n"
          "      --out DIR           keep every run's report under DIR, with mutation.json and\n"
          "                          mutation.txt (default: a temporary directory, removed)\n"
          "  -v, --verbose           every case that caught a mutant (default: the first four)\n"
          "  -q, --quiet             no progress\n"
          "  -h, --help, -V, --version\n"
          "\n"
          "The last line is 'mutation score: K/M killed'.  Exit status: 0 the score reached\n"
          "the threshold (and, with --expect, every mutant killed there was killed again);\n"
          "1 below it; 2 usage error, or a reference run that left no report.\n",
          f);
}

static void rm_tree(const char *dir)
{
    pid_t pid = fork();
    if (pid == 0) {
        execlp("rm", "rm", "-rf", dir, (char *)NULL);
        _exit(127);
    }
    int st;
    if (pid > 0)
        waitpid(pid, &st, 0);
}

int pcf_mutate_main(int argc, char **argv)
{
    enum { O_MOCK = 256, O_CLIENT, O_RELAY, O_D1, O_D2, O_THRESH, O_EXPECT, O_OUT, O_DEADLINE,
           O_NODES, O_MAP };
    static const struct option lo[] = {
        { "mock", required_argument, NULL, O_MOCK },
        { "client", no_argument, NULL, O_CLIENT },
        { "relay", required_argument, NULL, O_RELAY },
        { "driver-pmi1", required_argument, NULL, O_D1 },
        { "driver-pmi2", required_argument, NULL, O_D2 },
        { "mutants", required_argument, NULL, 'm' },
        { "threshold", required_argument, NULL, O_THRESH },
        { "expect", required_argument, NULL, O_EXPECT },
        { "jobs", required_argument, NULL, 'j' },
        { "timeout", required_argument, NULL, 't' },
        { "deadline", required_argument, NULL, O_DEADLINE },
        { "np", required_argument, NULL, 'n' },
        { "nodes", required_argument, NULL, O_NODES },
        { "map", required_argument, NULL, O_MAP },
        { "out", required_argument, NULL, O_OUT },
        { "verbose", no_argument, NULL, 'v' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    mopts o = { .jobs = 3, .timeout_s = 5, .deadline_s = 300, .np = 4, .nodes = 1,
                .map = "block" };
    bool verbose = false;
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "+m:j:t:n:vqhV", lo, NULL)) != -1) {
        char *end;
        switch (ch) {
        case O_MOCK: o.mock = optarg; break;
        case O_CLIENT: o.client = true; break;
        case O_RELAY: o.relay = optarg; break;
        case O_D1: o.driver1 = optarg; break;
        case O_D2: o.driver2 = optarg; break;
        case 'm':
            o.only = xrealloc(o.only, (o.nonly + 1) * sizeof *o.only);
            o.only[o.nonly++] = optarg;
            break;
        case O_THRESH:
            o.threshold = strtod(optarg, &end);
            if (*end || o.threshold < 0 || o.threshold > 100) {
                fprintf(stderr, "pmi2-conform mutate: --threshold wants a percentage 0-100\n");
                return PCF_EXIT_USAGE;
            }
            break;
        case O_EXPECT: o.expect = optarg; break;
        case O_NODES:
            o.nodes = (int)strtol(optarg, &end, 10);
            if (*end || o.nodes < 1 || o.nodes > 64) {
                fprintf(stderr, "pmi2-conform mutate: --nodes wants 1 to 64\n");
                return PCF_EXIT_USAGE;
            }
            break;
        case O_MAP:
            if (strcmp(optarg, "block") != 0 && strcmp(optarg, "cyclic") != 0) {
                fprintf(stderr, "pmi2-conform mutate: --map wants block or cyclic\n");
                return PCF_EXIT_USAGE;
            }
            o.map = optarg;
            break;
        case O_OUT: o.out = optarg; break;
        case 'j': case 't': case 'n': case O_DEADLINE: {
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 100000) {
                fprintf(stderr, "pmi2-conform mutate: bad number '%s'\n", optarg);
                return PCF_EXIT_USAGE;
            }
            if (ch == 'j') o.jobs = (int)v;
            else if (ch == 't') o.timeout_s = (int)v;
            else if (ch == 'n') o.np = (int)v;
            else o.deadline_s = (int)v;
            break;
        }
        case 'v': verbose = true; break;
        case 'q': o.quiet = true; break;
        case 'h': usage(stdout); return PCF_EXIT_OK;
        case 'V': printf("pmi2-conform mutate %s\n", PCF_TOOL_VERSION); return PCF_EXIT_OK;
        default: /* getopt named the option */
            fprintf(stderr, "Try 'pmi2-conform mutate --help'.\n");
            return PCF_EXIT_USAGE;
        }
    }
    if (o.client && o.nodes > 1) {
        fprintf(stderr, "pmi2-conform mutate: --nodes is for server mutants (the client cases "
                        "run one client)\n");
        return PCF_EXIT_USAGE;
    }
    o.globs = argv + optind;
    o.nglobs = (size_t)(argc - optind);

    char self[PATH_MAX], b1[PATH_MAX], b2[PATH_MAX], b3[PATH_MAX], b4[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0) {
        fprintf(stderr, "pmi2-conform mutate: cannot find its own executable\n");
        return PCF_EXIT_USAGE;
    }
    self[k] = 0;
    const char *list_argv[4] = { 0 };
    if (o.client) {
        o.relay = beside(o.relay, "pcf-mutant-client", "../libexec/pmi2-conform/pcf-mutant-client",
                         b1, sizeof b1);
        o.driver2 = beside(o.driver2, "drivers/pmi2-driver", "../libexec/pmi2-conform/pmi2-driver",
                           b2, sizeof b2);
        o.driver1 = beside(o.driver1, "drivers/pmi1-driver", "../libexec/pmi2-conform/pmi1-driver",
                           b3, sizeof b3);
        if (!o.relay || !o.driver1 || !o.driver2) {
            fprintf(stderr, "pmi2-conform mutate: --client needs pcf-mutant-client and both "
                            "drivers (--relay, --driver-pmi1, --driver-pmi2)\n");
            return PCF_EXIT_USAGE;
        }
        list_argv[0] = o.relay;
        list_argv[1] = "--list";
    } else {
        o.mock = beside(o.mock, "../mockserver/pmi-mockserver", "pmi-mockserver", b4, sizeof b4);
        if (!o.mock) {
            fprintf(stderr, "pmi2-conform mutate: no pmi-mockserver beside it; give --mock PATH\n");
            return PCF_EXIT_USAGE;
        }
        list_argv[0] = o.mock;
        list_argv[1] = "--mutant";
        list_argv[2] = "list";
    }
    g_ms = load_mutants(&o, list_argv, &g_nm);
    if (!g_ms || !g_nm) {
        fprintf(stderr, "pmi2-conform mutate: %s lists no mutant%s\n", list_argv[0],
                o.nonly ? " matching --mutants" : "");
        return PCF_EXIT_USAGE;
    }
    if (o.expect && load_expect(&o) != 0)
        return PCF_EXIT_USAGE;

    char tmpl[PATH_MAX];
    const char *outdir = o.out;
    if (outdir) {
        mkdir(outdir, 0777);
    } else {
        const char *td = getenv("TMPDIR");
        snprintf(tmpl, sizeof tmpl, "%s/pcf-mutate.XXXXXX", td && *td ? td : "/tmp");
        outdir = mkdtemp(tmpl);
        if (!outdir) {
            fprintf(stderr, "pmi2-conform mutate: mkdtemp: %s\n", strerror(errno));
            return PCF_EXIT_USAGE;
        }
    }
    struct sigaction sa = { .sa_handler = on_signal };
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    /* The references: every case the mutants' runs will select, unmutated. */
    char **rglobs = (char **)o.globs;
    size_t nrg = o.nglobs;
    if (o.expect) { /* only the cases the mutants will run */
        rglobs = NULL;
        nrg = 0;
        for (size_t i = 0; i < g_nm; i++)
            for (size_t j = 0; j < g_ms[i].nglobs; j++) {
                bool dup = false;
                for (size_t q = 0; q < nrg && !dup; q++)
                    dup = strcmp(rglobs[q], g_ms[i].globs[j]) == 0;
                if (!dup) {
                    rglobs = xrealloc(rglobs, (nrg + 1) * sizeof *rglobs);
                    rglobs[nrg++] = g_ms[i].globs[j];
                }
            }
        bool full = false; /* a mutant new since the report runs everything */
        for (size_t i = 0; i < g_nm; i++)
            full |= !g_ms[i].nglobs && !g_ms[i].expect_survived;
        if (full)
            nrg = 0;
    }
    refset rs = { 0 };
    if (!o.quiet)
        fprintf(stderr, "pmi2-conform mutate: %zu %s mutants; reference run first\n", g_nm,
                o.client ? "client" : "server");
    bool need1 = false, need2 = false;
    for (size_t i = 0; i < g_nm; i++) {
        need1 |= o.client && strcmp(g_ms[i].proto, "pmi1") == 0;
        need2 |= o.client && strcmp(g_ms[i].proto, "pmi1") != 0;
    }
    int rc = PCF_EXIT_OK;
    if (o.client) {
        if (need2 && !(rs.pmi2 = run_reference(&o, self, outdir, "pmi2", rglobs, nrg)))
            rc = PCF_EXIT_USAGE;
        if (need1 && !(rs.pmi1 = run_reference(&o, self, outdir, "pmi1", rglobs, nrg)))
            rc = PCF_EXIT_USAGE;
    } else if (!(rs.server = run_reference(&o, self, outdir, "server", rglobs, nrg))) {
        rc = PCF_EXIT_USAGE;
    }
    if (rc == PCF_EXIT_OK && !g_stop)
        run_all(&o, self, outdir, &rs);
    /* a kill that timing decided is tried again (up to three more runs)
     * before it counts as lost: under v1-barrier-early, say, the harness's
     * own control barrier may break before any case runs (exit status 2,
     * never green), one run in three on a loaded machine */
    for (int round = 0; round < 3 && rc == PCF_EXIT_OK && !g_stop && o.expect; round++) {
        size_t again = 0;
        for (size_t i = 0; i < g_nm; i++)
            if (g_ms[i].nglobs && !g_ms[i].nkills) {
                g_ms[i].state = 0;
                g_ms[i].note[0] = 0;
                again++;
            }
        if (!again)
            break;
        run_all(&o, self, outdir, &rs);
    }
    if (g_stop)
        end_children();
    pcf_json_free(rs.pmi1);
    pcf_json_free(rs.pmi2);
    pcf_json_free(rs.server);
    if (rglobs != (char **)o.globs)
        free(rglobs); /* --expect's list: the strings are the mutants' */
    if (rc != PCF_EXIT_OK) {
        if (!o.out)
            fprintf(stderr, "pmi2-conform mutate: the runs are kept in %s\n", outdir);
        free(o.only);
        return rc;
    }

    size_t killed = 0;
    bool lost = false; /* --expect: a mutant killed there that nothing killed now */
    for (size_t i = 0; i < g_nm; i++) {
        killed += g_ms[i].nkills > 0;
        if (g_ms[i].nglobs && !g_ms[i].nkills)
            lost = true;
    }
    write_report(stdout, &o, killed, g_nm, verbose);
    if (g_stop) {
        printf("(interrupted: the mutants not run count as survivors)\n");
        rc = PCF_EXIT_USAGE;
    }
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/mutation.json", outdir);
    write_json(path, &o, killed, g_nm);
    snprintf(path, sizeof path, "%s/mutation.txt", outdir);
    FILE *tf = fopen(path, "w");
    if (tf) {
        write_report(tf, &o, killed, g_nm, true);
        fclose(tf);
    }
    if (!o.out && !o.keep)
        rm_tree(outdir);
    if (rc == PCF_EXIT_OK) {
        double score = 100.0 * (double)killed / (double)g_nm;
        if (score + 1e-9 < o.threshold || lost) {
            if (lost)
                printf("a mutant the expected report lists as killed survived\n");
            rc = PCF_EXIT_NONCONFORMANT;
        }
    }
    free(o.only);
    return rc;
}
