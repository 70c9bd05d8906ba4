/* Orchestrated server mode (--launch TEMPLATE): the suite as several
 * launches, so a case that kills its job cannot take the others down.
 *
 *   launch 1: every non-destructive PMI-2 case      (--pmi 2)
 *   launch 2: every non-destructive PMI-1 case      (--pmi 1)
 *   launch k: up to 7 destructive cases, one victim rank each, run one at a
 *             time (rank 0 records each start, and asks the server after
 *             each: a job that ends is charged to the case that ran)
 *   launch m: one collective destructive case, every rank taking part
 *
 * Independent launches run at once (--jobs; one at a time for launchers
 * that serialise jobs on a node, and from the first launch that cannot
 * start while another runs); the report is in case order whatever the
 * order in which they end.
 *
 * Each launch runs "TEMPLATE <this program> server --child ..." through
 * /bin/sh in a process group of its own.  Every rank reports over its
 * connection to the orchestrator (--report, relay.c: nothing but the network
 * is shared with the ranks' hosts): an "alive" line when it starts, rank 0
 * "start"/"result" lines per case and "done" at the end, which land in the
 * launch's results file here.  The file is watched while the launch runs,
 * so a launch is judged by what it does, not waited out:
 *
 *   - no rank alive within the start timeout: the launch is stuck (the
 *     server did not release the previous job: that job's last case gets a
 *     FAIL, ERR-18); --recover runs, the launch is tried once more, and if it
 *     still cannot start the cases left are SKIPPED with the reason;
 *   - rank 0 "done" but the launcher does not return: killed, FAIL (ERR-18);
 *   - no line for longer than any case may take: killed, the open case TIMEOUT;
 *   - the job ended (or lost its control channel) with cases not run: they
 *     run in a new launch, so one case cannot take the rest of the run down.
 *
 * A case that started without a result was cut short: "job-killed" when the
 * launch ended by itself, TIMEOUT when it was killed.  SIGINT, SIGTERM, SIGHUP
 * and --deadline end the launch in progress (its process group, then every
 * rank that said it was alive) and print the report of what ran; ranks whose
 * orchestrator is gone, or closed their launch, exit by themselves when
 * their report channel closes (watchdog.c).  What the
 * launcher and the job print goes to a log per launch (to stderr with
 * --verbose); its first and last lines become evidence in the report. */
#include "internal.h"

#include <dirent.h>
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
    int retries; /* launches of these cases that ran none of them */
} launch;

/* EXIT_GRACE_MS: every rank has ended, the launcher has this long to
 * return (until one launcher has returned; then five times the slowest
 * return seen, at least EXIT_MIN_MS; after a clean job ten times, from
 * EXIT_GRACE_MS to EXIT_CLEAN_MS); DONE_GRACE_MS: rank 0 finished (the other
 * ranks may still be in their finalize), the launcher has this long. */
enum { EXIT_GRACE_MS = 5000, EXIT_MIN_MS = 1500, EXIT_CLEAN_MS = 15000, DONE_GRACE_MS = 45000,
       STALL_SLACK_MS = 45000, KILL_GRACE_MS = 1000 };

/* How often the launches in flight are looked at; at most this many at once. */
enum { POLL_MS = 10, MAX_JOBS = 64 };

/* The outcome of a case that was open when the job ended by itself.  A
 * case whose table names exit statuses ("exit-1": the job must end with
 * it, V1CMD-21; "exit-0": it must not, ABORT-10) is graded on the
 * launcher's status: the outcome that names it, "exit-other" when none does
 * or the launcher was killed by a signal; every other case gets
 * "job-killed". */
static const char *job_end_outcome(const pcf_case *c, int st)
{
    bool named = false; /* the table names exit statuses: one of them, or exit-other */
    for (int i = 0; i < PCF_MAX_OUTCOMES && c->outcomes[i].name; i++) {
        const char *nm = c->outcomes[i].name;
        if (strncmp(nm, "exit-", 5) != 0 || nm[5] < '0' || nm[5] > '9')
            continue;
        named = true;
        if (WIFEXITED(st) && WEXITSTATUS(st) == atoi(nm + 5))
            return nm;
    }
    return named ? "exit-other" : "job-killed";
}

/* How a launch ended. */
typedef enum {
    L_EXITED,    /* the launcher returned by itself */
    L_BUDGET,    /* killed: over its whole budget */
    L_STALLED,   /* killed: no progress for longer than a case may take */
    L_NOSTART,   /* killed: no rank started */
    L_HUNG_EXIT, /* killed: rank 0 finished, the launcher did not return */
    L_STOPPED,   /* killed: signal or --deadline */
    L_FAILED,    /* could not be started (fork) */
} launch_end;

typedef struct launch_outcome {
    launch_end how;
    int status;          /* wait status (L_EXITED) */
    unsigned waited_ms;  /* the wait that decided (start, stall, exit) */
    uint64_t start_us;   /* fork to the first alive rank, 0 when none */
    bool spoke_first;    /* the launcher had printed something by then (srun: queued) */
    uint64_t exit_lag_us; /* every rank ended to the launcher's return (L_EXITED) */
    bool all_ended;      /* L_HUNG_EXIT: every rank had ended (else rank 0 had finished) */
    pcf_resinfo info;
} launch_outcome;

static volatile sig_atomic_t stop_signal;
static void on_stop(int sig) { stop_signal = sig; }

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

/* TEMPLATE with {n} = np ranks, {nodes} = the nodes asked for (--nodes)
 * and {slot} = the slot the launch runs on. */
static char *expand(const char *tmpl, int np, int nodes, int slot)
{
    size_t cap = strlen(tmpl) + 64, k = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    for (const char *p = tmpl; *p;) {
        if (strncmp(p, "{n}", 3) == 0) {
            k += (size_t)snprintf(out + k, cap - k, "%d", np);
            p += 3;
        } else if (strncmp(p, "{nodes}", 7) == 0) {
            k += (size_t)snprintf(out + k, cap - k, "%d", nodes);
            p += 7;
        } else if (strncmp(p, "{slot}", 6) == 0) {
            k += (size_t)snprintf(out + k, cap - k, "%d", slot);
            p += 6;
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

/* Is pid a rank (on this host) of the launch whose --report is `spec`?
 * (Its command line names the launch's token: a recycled pid does not.) */
static bool is_our_rank(long pid, const char *spec)
{
    char path[64], buf[8192];
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    size_t rl = strlen(spec);
    for (size_t i = 0; i + rl <= n; i++)
        if (memcmp(buf + i, spec, rl) == 0)
            return true;
    return false;
}

/* Has every rank that said it was alive ended?  A rank's report channel
 * closes when it ends (or is a zombie), on whatever host it ran. */
static bool ranks_ended(const pcf_resinfo *in, const char *spec)
{
    return in->npids && pcf_relay_connected(spec) == 0;
}

/* End every rank of the launch still running (they may not be in the
 * launcher's process group: srun's tasks are slurmstepd's children). */
static int kill_ranks(const pcf_resinfo *in, const char *spec)
{
    int n = 0;
    for (int i = 0; i < in->npids; i++)
        if (in->pids[i] > 0 && is_our_rank(in->pids[i], spec) && kill((pid_t)in->pids[i], SIGKILL) == 0)
            n++;
    return n;
}

/* TERM the launch's process group, KILL it after a grace, reap it. */
static void kill_launch(pid_t pid)
{
    kill(-pid, SIGTERM);
    for (unsigned w = 0; w < KILL_GRACE_MS; w += 50) {
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            kill(-pid, SIGKILL);
            return;
        }
        sleep_ms(50);
    }
    kill(-pid, SIGKILL);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
}

static unsigned case_timeout(const pcf_opts *o, const char *id)
{
    const pcf_entry *e = id && *id ? pcf_case_find(id) : NULL;
    return e && e->c->timeout_ms ? e->c->timeout_ms : o->timeout_ms;
}

/* A case has its verdict: it ran, or was skipped with a reason (a result
 * just created is SKIPPED without one). */
static bool graded(const pcf_result *r)
{
    return r->runs > 0 || (r->verdict == PCF_SKIPPED && r->actual);
}

static size_t count_graded(const pcf_results *rs)
{
    size_t n = 0;
    for (size_t i = 0; i < rs->n; i++)
        n += graded(&rs->r[i]);
    return n;
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

/* One launch in flight: started by launch_begin, watched by launch_step
 * until it ends, closed by launch_finish.  Several may be in flight at once
 * (--jobs); each has its own results file and log. */
typedef struct running {
    size_t k;              /* index of its launch in the plan */
    int slot;              /* {slot}: the server it runs on (0 without {slot}) */
    pid_t pid;
    char res[1200], log[1200];
    char spec[320];        /* --report: where its ranks report, with the launch's token */
    unsigned start_ms;     /* no rank by then: stuck */
    unsigned quick_ms;     /* no rank by then and the launcher has spoken: stuck (0: none) */
    unsigned exit_ms;      /* every rank ended: the launcher returns by then, or is stuck */
    unsigned exit_clean_ms; /* the same after a clean job (rank 0 done, no case cut off) */
    uint64_t t0, budget, last_growth, done_at, ended_at, last_check;
    off_t last_size;
    off_t log_shown;       /* --verbose: how much of the log is on stderr */
    bool contended;        /* another launch ran while this one waited for its first rank */
    char tag[48];          /* marks every process of the launch (strays.c) */
    launch_outcome out;
} running;

/* Fork "TEMPLATE self server --child ..." for launch L; false when it could not. */
static bool launch_begin(const pcf_opts *o, const launch *L, const char *self, running *rn)
{
    launch_outcome *out = &rn->out;
    memset(out, 0, sizeof *out);
    out->how = L_FAILED;
    char *cmd = expand(o->launch, L->np, o->nodes > 0 ? o->nodes : 1, rn->slot);
    if (!cmd)
        return false;
    size_t len = strlen(cmd), cap = len + 1;
    shquote(&cmd, &len, &cap, self);
    char td[1100];
    if (o->json_dir)
        snprintf(td, sizeof td, "%s/traces", o->json_dir);
    if (pcf_relay_add(rn->spec, sizeof rn->spec, rn->res, o->json_dir ? td : NULL) != 0) {
        free(cmd);
        return false;
    }
    const char *fixed[] = { "server", "--child" };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        shquote(&cmd, &len, &cap, fixed[i]);
    char num[400];
    snprintf(num, sizeof num, "--report=%s", rn->spec);
    shquote(&cmd, &len, &cap, num);
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
    if (o->json_dir) {
        char jd[1024];
        snprintf(jd, sizeof jd, "--json=%s", o->json_dir);
        shquote(&cmd, &len, &cap, jd);
    }
    for (size_t i = 0; i < L->n; i++)
        shquote(&cmd, &len, &cap, L->cases[i]->c->id);
    if (!L->n)
        shquote(&cmd, &len, &cap, "!*"); /* a probe: start, handshake, finalize */
    if (o->verbose)
        fprintf(stderr, "pmi2-conform: launch: %s\n", cmd); /* verbose: no progress line */

    static unsigned serial;
    pcf_strays_tag(rn->tag, sizeof rn->tag, ++serial);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        free(cmd);
        pcf_relay_drop(rn->spec);
        return false;
    }
    if (pid == 0) {
        setpgid(0, 0); /* the whole launch can be killed as one group */
        pcf_strays_mark(rn->tag); /* ... and what leaves the group, found by this */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        /* stdout carries the report alone: what the launcher and the job
         * print (mpiexec's "BAD TERMINATION" banners, its diagnostics) goes
         * to the launch's log (copied to stderr as it grows with --verbose) */
        int lf = open(rn->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (lf >= 0)
            dup2(lf, 2);
        dup2(2, 1);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    free(cmd);
    rn->pid = pid;
    rn->t0 = pws_now_usec();
    rn->budget = pws_deadline_ms(L->budget_ms);
    rn->last_growth = rn->t0;
    rn->done_at = rn->ended_at = rn->last_check = 0;
    rn->last_size = -1;
    rn->contended = false;
    return true;
}

/* --verbose: what the launch's log gained since last time, to stderr. */
static void show_log(running *rn)
{
    int fd = open(rn->log, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[8192];
    ssize_t k;
    while ((k = pread(fd, buf, sizeof buf, rn->log_shown)) > 0) {
        fwrite(buf, 1, (size_t)k, stderr);
        rn->log_shown += k;
    }
    close(fd);
    fflush(stderr);
}

/* How long the launcher has to return once every rank has ended: longer
 * after a job whose PMI went well to its end (rank 0 done, its control
 * channel whole, no case cut off), where a slow return is most likely a
 * loaded machine, than after one the server broke, which it may keep. */
static unsigned exit_wait(const running *rn)
{
    const pcf_resinfo *in = &rn->out.info;
    return in->done && !in->lost && !in->open_id[0] ? rn->exit_clean_ms : rn->exit_ms;
}

/* Look at a launch once: true when it has ended (by itself or killed). */
static bool launch_step(const pcf_opts *o, const launch *L, running *rn, uint64_t run_deadline)
{
    if (o->verbose)
        show_log(rn);
    launch_outcome *out = &rn->out;
    int st;
    pid_t w = waitpid(rn->pid, &st, WNOHANG);
    uint64_t now = pws_now_usec();
    struct stat sb;
    if (stat(rn->res, &sb) == 0 && sb.st_size != rn->last_size) {
        rn->last_size = sb.st_size;
        rn->last_growth = now;
        pcf_resfile_read(rn->res, NULL, &out->info);
        if (out->info.alive && !out->start_us) {
            out->start_us = now - rn->t0 ? now - rn->t0 : 1;
            out->spoke_first = stat(rn->log, &sb) == 0 && sb.st_size > 0;
        }
        if ((out->info.done || out->info.lost) && !rn->done_at)
            rn->done_at = now;
    }
    if (out->info.alive && !rn->ended_at && now - rn->last_check >= 50000) {
        rn->last_check = now;
        if (ranks_ended(&out->info, rn->spec))
            rn->ended_at = now;
    }
    if (w == rn->pid) {
        out->how = L_EXITED;
        out->status = st;
        out->exit_lag_us = rn->ended_at ? now - rn->ended_at : 0;
        kill(-rn->pid, SIGKILL); /* stragglers of the job (orphaned ranks) */
        return true;
    }
    if (w < 0 && errno != EINTR && errno != ECHILD) {
        out->how = L_FAILED;
        return true;
    }
    launch_end why = L_EXITED;
    if (stop_signal || (run_deadline && now >= run_deadline)) {
        why = L_STOPPED;
    } else if (!out->info.alive && now - rn->t0 >= (uint64_t)rn->start_ms * 1000) {
        why = L_NOSTART;
        out->waited_ms = rn->start_ms;
    } else if (!out->info.alive && rn->quick_ms && now - rn->t0 >= (uint64_t)rn->quick_ms * 1000 &&
               stat(rn->log, &sb) == 0 && sb.st_size > 0) {
        /* a launcher that starts its ranks says nothing first; one that
         * says something (srun: "queued and waiting for resources") and
         * starts nothing in many times the slowest start waits for the
         * server to release the last job */
        why = L_NOSTART;
        out->waited_ms = rn->quick_ms;
    } else if (rn->ended_at && now - rn->ended_at >= (uint64_t)exit_wait(rn) * 1000) {
        why = L_HUNG_EXIT;
        out->waited_ms = exit_wait(rn);
        out->all_ended = true;
    } else if (rn->done_at && now - rn->done_at >= (uint64_t)DONE_GRACE_MS * 1000) {
        why = L_HUNG_EXIT;
        out->waited_ms = DONE_GRACE_MS;
    } else if (out->info.alive && !rn->done_at) {
        unsigned tmo = case_timeout(o, out->info.open_id);
        unsigned stall = (tmo > 15000 ? tmo : 15000) + STALL_SLACK_MS;
        if (now - rn->last_growth >= (uint64_t)stall * 1000) {
            why = L_STALLED;
            out->waited_ms = stall;
        }
    }
    if (why == L_EXITED && now >= rn->budget)
        why = L_BUDGET;
    if (why == L_EXITED)
        return false;
    out->how = why;
    if (why == L_BUDGET)
        pcf_notice(o, "launch deadline (%u s) passed: killing it", L->budget_ms / 1000);
    kill_launch(rn->pid);
    return true;
}

/* The final word of the results file into rs, and no rank of it left running. */
static void launch_finish(const pcf_opts *o, running *rn, pcf_results *rs)
{
    launch_outcome *out = &rn->out;
    if (o->verbose)
        show_log(rn);
    pcf_relay_drop(rn->spec); /* what the ranks sent, then the ranks left (any host) exit */
    pcf_resfile_read(rn->res, rs, &out->info);
    if (rs && out->info.nodes > 0) { /* the shapes the launches ran in */
        rs->shapes |= 1u << (out->info.nodes < 31 ? out->info.nodes : 31);
        if (out->info.nodes > rs->nodes) {
            rs->nodes = out->info.nodes;
            snprintf(rs->hosts, sizeof rs->hosts, "%s", out->info.hosts);
        }
    }
    if (out->info.alive && !out->start_us)
        out->start_us = 1;
    kill_ranks(&out->info, rn->spec);
    pcf_strays_reap(rn->tag);
}

/* Run one launch to its end (the final probe). */
static void run_launch(const pcf_opts *o, const launch *L, running *rn, const char *self,
                       uint64_t run_deadline, pcf_results *rs)
{
    if (!launch_begin(o, L, self, rn))
        return;
    while (!launch_step(o, L, rn, run_deadline))
        sleep_ms(POLL_MS);
    launch_finish(o, rn, rs);
}

static void remove_run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d))) {
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                continue;
            char p[1400];
            snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
            remove(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* Give case e the verdict FAIL for wedging the server (ERR-18), whatever it
 * had: what the server did after it is a finding about the server. */
static void blame_wedge(pcf_results *rs, const pcf_entry *e, const char *what)
{
    pcf_result *r = pcf_results_get(rs, e);
    char why[2400];
    snprintf(why, sizeof why, "%s%s%s", r->actual && r->runs ? r->actual : "",
             r->actual && r->runs ? "\nthen: " : "", what);
    pcf_result_regrade(r, PCF_FAIL, "server-wedged", "ERR-18", why);
}

/* Start the --recover command for the server of `slot`: its pid, or -1. */
static pid_t recover_start(const pcf_opts *o, int slot)
{
    if (!o->recover)
        return -1;
    char *cmd = expand(o->recover, 0, o->nodes > 0 ? o->nodes : 1, slot);
    if (!cmd)
        return -1;
    pcf_notice(o, "recovering the server: %s", cmd);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        dup2(2, 1);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    free(cmd);
    if (pid > 0)
        setpgid(pid, pid);
    return pid;
}

/* How long --recover may take. */
enum { RECOVER_MS = 120000 };

/* Has recovery `pid` ended (waiting for it when `wait`)?  1: it succeeded,
 * 0: it failed or was killed at `dl` or on a stop signal, -1: it runs. */
static int recover_poll(pid_t pid, uint64_t dl, bool wait)
{
    for (;;) {
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid)
            return WIFEXITED(st) && WEXITSTATUS(st) == 0;
        if (stop_signal || pws_now_usec() >= dl) {
            kill_launch(pid);
            return 0;
        }
        if (!wait)
            return -1;
        sleep_ms(50);
    }
}

/* Run the --recover command for the server of `slot`; true when it succeeded. */
static bool recover(const pcf_opts *o, int slot)
{
    pid_t pid = recover_start(o, slot);
    return pid > 0 && recover_poll(pid, pws_deadline_ms(RECOVER_MS), true) == 1;
}

static void skip_rest(pcf_results *rs, const launch *L, const char *why)
{
    for (size_t i = 0; i < L->n; i++) {
        pcf_result *r = pcf_results_get(rs, L->cases[i]);
        if (!graded(r))
            pcf_result_skip(r, why);
    }
}

/* How long a launch may take to start a rank: --start-timeout, else 60 s
 * for the first one, then five times the slowest start seen, at least 10 s
 * (a loaded machine must not pass for a server that kept the last job). */
static unsigned start_timeout(const pcf_opts *o, uint64_t slowest_start_us)
{
    if (o->start_ms)
        return o->start_ms;
    if (!slowest_start_us)
        return 60000;
    uint64_t ms = slowest_start_us / 1000 * 5;
    return ms > 10000 ? (unsigned)ms : 10000;
}

/* The start timeout once the launcher has spoken without starting a rank
 * (launch_step): ten times the slowest start seen of a launcher that said
 * nothing first (a wait it announced is the server's, not the launcher's),
 * at least 2 s, never more than the plain one; none with --start-timeout
 * or before such a start. */
static unsigned quick_start_timeout(const pcf_opts *o, uint64_t slowest_quiet_us,
                                    uint64_t slowest_start_us)
{
    if (o->start_ms || !slowest_quiet_us)
        return 0;
    uint64_t ms = slowest_quiet_us / 1000 * 10;
    unsigned plain = start_timeout(o, slowest_start_us);
    return ms < 2000 ? 2000 : ms > plain ? plain : (unsigned)ms;
}

/* Why the cases left were not run: a signal or --deadline stopped the run. */
static void stop_reason(const pcf_opts *o, char *buf, size_t n)
{
    if (stop_signal)
        snprintf(buf, n, "not run: the run was interrupted (signal %d)", (int)stop_signal);
    else
        snprintf(buf, n, "not run: the run's --deadline (%u s) passed", o->deadline_ms / 1000);
}

static const char *end_name(launch_end h)
{
    switch (h) {
    case L_BUDGET: return "deadline";
    case L_STALLED: return "no progress";
    case L_NOSTART: return "no rank started";
    case L_HUNG_EXIT: return "launcher did not return";
    case L_STOPPED: return "stopped";
    case L_FAILED: return "could not start the launcher";
    default: return "job ended";
    }
}

/* Launches at once when --jobs is not given: twice the CPUs (a launch
 * mostly waits on its server), at most 8; one for launchers that run one
 * job at a time on a node (srun, salloc, sbatch, flux), where a second
 * launch would only queue behind the first. */
static int default_jobs(const pcf_opts *o)
{
    static const char *serial[] = { "srun", "salloc", "sbatch", "flux" };
    const char *p = o->launch;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        const char *w = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        const char *base = w;
        for (const char *q = w; q < p; q++)
            if (*q == '/')
                base = q + 1;
        for (size_t i = 0; i < sizeof serial / sizeof serial[0]; i++)
            if ((size_t)(p - base) == strlen(serial[i]) && strncmp(base, serial[i], strlen(serial[i])) == 0)
                return 1;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    n = n > 0 ? 2 * n : 2;
    return n > 8 ? 8 : (int)n;
}

/* The state of an orchestrated run. */
typedef struct orch {
    const pcf_opts *o;
    pcf_results rs;
    launch *L;               /* the plan; continuations go in at `next` */
    size_t nl, lcap, next;
    size_t total;            /* cases in the plan */
    int jobs;                /* launches at once (may drop to 1) */
    int harness;             /* a launch could not be started */
    uint64_t slowest_start;
    uint64_t slowest_quiet;  /* ... of a launcher that printed nothing before its first rank */
    uint64_t slowest_exit;   /* every rank ended to the launcher's return, the most seen */
    /* per slot: the last case of the launch that ended last there (a
     * launch that then starts no rank there charges it with the wedge) */
    const pcf_entry *prev_last[MAX_JOBS];
    bool broken[MAX_JOBS];   /* ... and that launch ended broken (quick_timeout) */
    bool restored[MAX_JOBS]; /* --recover restored it; no rank started there since */
    /* the template names {slot}: each slot is a server of its own (a
     * cluster, a node), one launch at a time on each; a slot whose server
     * is being recovered runs nothing until the recovery ends, the others
     * go on */
    bool slotted;
    pid_t recovering[MAX_JOBS];
    uint64_t recover_dl[MAX_JOBS];
    char dead[1400];         /* why no launch can run any more */
    size_t unrun;            /* cases SKIPPED because their launches kept ending first */
    char unrun_why[400];     /* ... the first such reason, on one line */
    bool stopped;            /* by a signal or --deadline */
    /* launches whose job never got through the harness's start-up, by
     * protocol: after two, that protocol's launches are not tried again */
    int startup_failed[3];
    char proto_dead[3][400];
    uint64_t run_deadline;
    /* a shared launch of destructive cases ended after a case other than
     * its first: this server is one that a case can leave damaged for the
     * next, so from then on each destructive case has a launch of its own */
    bool solo;
} orch;

/* How long a launcher may take to return once every rank of its job has
 * ended: 5 s until one has returned, then five times the slowest return
 * seen (EXIT_MIN_MS to EXIT_GRACE_MS), ten times (EXIT_GRACE_MS to
 * EXIT_CLEAN_MS) after a `clean` job (exit_wait). */
static unsigned exit_timeout(const orch *S, bool clean)
{
    if (!S->slowest_exit)
        return EXIT_GRACE_MS;
    uint64_t ms = S->slowest_exit / 1000 * (clean ? 10 : 5);
    if (clean)
        return ms < EXIT_GRACE_MS ? EXIT_GRACE_MS : ms > EXIT_CLEAN_MS ? EXIT_CLEAN_MS : (unsigned)ms;
    return ms < EXIT_MIN_MS ? EXIT_MIN_MS : ms > EXIT_GRACE_MS ? EXIT_GRACE_MS : (unsigned)ms;
}

/* The quick stuck-start sign (quick_start_timeout) on `slot`: only after a
 * launch there that ended broken (its control channel lost, a case cut off,
 * the launcher killed or failing), whose job the server may keep for good.
 * After a clean one, or a recovery, a launcher that says it waits is most
 * likely seeing the server's ordinary release of the last job, which takes
 * longer on a loaded machine: the plain start timeout judges it. */
static unsigned quick_timeout(const orch *S, int slot)
{
    return S->broken[slot] ? quick_start_timeout(S->o, S->slowest_quiet, S->slowest_start) : 0;
}

/* A server --recover just restored starts its first job like a new one (its
 * daemons register again, slower on a loaded machine: Slurm under CI load
 * took over 10 s): that launch gets the first launch's 60 s, unless
 * --start-timeout says otherwise.  A server that stays stuck costs it once
 * per slot before its cases are SKIPPED. */
static unsigned slot_start_timeout(const orch *S, int slot)
{
    unsigned ms = start_timeout(S->o, S->slowest_start);
    if (!S->o->start_ms && S->restored[slot])
        ms = start_timeout(S->o, 0);
    return ms;
}

/* A launch's waits, from what the run has seen so far. */
static void arm_waits(const orch *S, running *rn)
{
    rn->start_ms = slot_start_timeout(S, rn->slot);
    rn->quick_ms = quick_timeout(S, rn->slot);
    rn->exit_ms = exit_timeout(S, false);
    rn->exit_clean_ms = exit_timeout(S, true);
}

/* Recover the server of `slot`: at once without {slot}; with it in the
 * background (true: the next launch there tells whether it worked). */
static bool orch_recover(orch *S, int slot)
{
    if (!S->slotted)
        return S->restored[slot] = recover(S->o, slot);
    pid_t pid = recover_start(S->o, slot);
    if (pid <= 0)
        return false;
    S->recovering[slot] = pid;
    S->recover_dl[slot] = pws_deadline_ms(RECOVER_MS);
    S->restored[slot] = true;
    return true;
}

/* The background recoveries that ended (all of them, waiting, with `wait`). */
static void poll_recoveries(orch *S, bool wait)
{
    for (int slot = 0; slot < MAX_JOBS; slot++) {
        if (!S->recovering[slot])
            continue;
        int r = recover_poll(S->recovering[slot], S->recover_dl[slot], wait);
        if (r < 0)
            continue;
        if (r == 0)
            pcf_notice(S->o, "the recovery of slot %d failed", slot);
        S->recovering[slot] = 0;
    }
}

/* Put a launch in the plan before every launch not yet started. */
static void insert_launch(orch *S, launch l)
{
    if (S->nl == S->lcap) {
        launch *nlp = realloc(S->L, (S->lcap *= 2) * sizeof *S->L);
        if (!nlp) {
            pcf_notice(S->o, "out of memory");
            exit(PCF_EXIT_USAGE);
        }
        S->L = nlp;
    }
    memmove(&S->L[S->next + 1], &S->L[S->next], (S->nl - S->next) * sizeof *S->L);
    S->L[S->next] = l;
    S->nl++;
}

/* --pmi N with --launch: a case the run's protocol cannot run, and why. */
static void pmi_skip(orch *S, const pcf_entry *e, const char *why)
{
    char text[300];
    size_t n = strcspn(why, ":"); /* "needs a PMI-2 session" without run-as-job advice */
    snprintf(text, sizeof text, "not run: %.*s; this run speaks PMI-%d only (--pmi %d; without "
             "--pmi, --launch runs both)", (int)n, why, S->o->pmi, S->o->pmi);
    pcf_result_skip(pcf_results_get(&S->rs, e), text);
}

/* The fewest ranks of a launch of destructive cases: rank 0 and a victim;
 * on several nodes two ranks a node, so that the victim has a rank beside
 * it whichever way the launcher places them (block or cyclic), which asks
 * its own connection after the case: a server that stops serving the
 * victim's node (a proxy) is seen as on one node (ERR-1, ERR-2, CONN-3). */
static int victim_np(const pcf_opts *o)
{
    return o->nodes > 1 ? 2 * o->nodes : 2;
}

/* A launch of destructive case e alone: rank 0 and its victim (or as many
 * ranks as the case needs). */
static launch one_case_launch(const pcf_opts *o, int pmi, const pcf_entry *e)
{
    int least = victim_np(o);
    launch one = { .pmi = pmi, .np = e->c->min_ranks > least ? e->c->min_ranks : least, .n = 1 };
    one.cases = calloc(1, sizeof *one.cases);
    if (!one.cases) {
        pcf_notice(o, "out of memory");
        exit(PCF_EXIT_USAGE);
    }
    one.cases[0] = e;
    return one;
}

static int launch_pmi(const pcf_opts *o, const pcf_case *c);

/* A launch of case e alone, with the ranks its shared launch gives it: a
 * destructive case rank 0 and its victim, the others the whole job. */
static launch alone_launch(const pcf_opts *o, const pcf_entry *e, int np)
{
    const pcf_case *c = e->c;
    launch one = one_case_launch(o, launch_pmi(o, c), e);
    if (!(c->flags & PCF_DESTRUCTIVE) || (c->flags & PCF_COLLECTIVE))
        one.np = c->min_ranks > np ? c->min_ranks : np;
    return one;
}

/* The protocol of a case's launch: --pmi when given; else a destructive
 * case PMI-2 when it speaks it, and a shared case PMI-1 only when it speaks
 * nothing else (plan's rule). */
static int launch_pmi(const pcf_opts *o, const pcf_case *c)
{
    if (o->pmi_given)
        return o->pmi;
    if (c->flags & PCF_DESTRUCTIVE)
        return (c->flags & PCF_V2) ? 2 : 1;
    return (c->flags & PCF_V1) && !(c->flags & PCF_V2) ? 1 : 2;
}

/* Cases that may end their job (destructive) run several to a launch, each
 * on a victim rank of its own, one at a time: the harness can tell which
 * one ended the job (rank 0 records its start first, and asks the server
 * after each), and the cases after it go on in a new launch.  A collective
 * one (every rank takes part) has a launch of its own. */
enum { VICTIMS_PER_LAUNCH = 7 };

/* --isolate: every case in a launch of its own, so no case can read what
 * another left (the isolation check: each verdict alone is the full run's). */
static void plan_isolated(orch *S, const pcf_entry *all, size_t nall, int np)
{
    const pcf_opts *o = S->o;
    for (size_t i = 0; i < nall; i++) {
        const pcf_case *c = all[i].c;
        if (!pcf_selected(c->id, o->globs, o->nglobs))
            continue;
        S->total++;
        const char *why = o->pmi_given ? pcf_unrunnable(c, o->pmi, 1 << 20) : NULL;
        if (why)
            pmi_skip(S, &all[i], why);
        else
            S->L[S->nl++] = alone_launch(o, &all[i], np);
    }
}

static void plan(orch *S, const pcf_entry *all, size_t nall, int np)
{
    const pcf_opts *o = S->o;
    S->lcap = nall + 8;
    S->L = calloc(S->lcap, sizeof *S->L);
    if (!S->L) {
        pcf_notice(o, "out of memory");
        exit(PCF_EXIT_USAGE);
    }
    if (o->isolate) {
        plan_isolated(S, all, nall, np);
        return;
    }
    for (int pmi = 2; pmi >= 1; pmi--) {
        if (o->pmi_given && pmi != o->pmi)
            continue;
        launch *g = &S->L[S->nl];
        g->pmi = pmi;
        g->np = np;
        g->cases = calloc(nall ? nall : 1, sizeof *g->cases);
        for (size_t i = 0; i < nall; i++) {
            const pcf_case *c = all[i].c;
            if (!pcf_selected(c->id, o->globs, o->nglobs) || (c->flags & PCF_DESTRUCTIVE))
                continue;
            if (!pcf_unrunnable(c, pmi, 1 << 20) &&
                (pmi == 2 || o->pmi_given || !(c->flags & PCF_V2))) {
                g->cases[g->n++] = &all[i];
                if (c->min_ranks > g->np)
                    g->np = c->min_ranks;
            }
        }
        if (g->n)
            S->nl++;
        else
            free(g->cases);
    }
    launch *open[3] = { NULL, NULL, NULL }; /* the shared destructive launch being filled */
    for (size_t i = 0; i < nall; i++) {
        const pcf_case *c = all[i].c;
        if (!pcf_selected(c->id, o->globs, o->nglobs) || !(c->flags & PCF_DESTRUCTIVE))
            continue;
        if (o->pmi_given) {
            const char *why = pcf_unrunnable(c, o->pmi, 1 << 20);
            if (why) { /* the server may not speak the other protocol at all */
                pmi_skip(S, &all[i], why);
                S->total++;
                continue;
            }
        }
        int pmi = launch_pmi(o, c);
        launch *g;
        bool own = c->flags & (PCF_COLLECTIVE | PCF_ALONE);
        if (!own && open[pmi] && open[pmi]->n < VICTIMS_PER_LAUNCH) {
            g = open[pmi];
        } else {
            g = &S->L[S->nl++];
            g->pmi = pmi;
            g->np = (c->flags & PCF_COLLECTIVE) ? np : victim_np(o);
            g->cases = calloc(c->flags & PCF_COLLECTIVE ? 1 : VICTIMS_PER_LAUNCH, sizeof *g->cases);
            if (!g->cases) {
                pcf_notice(o, "out of memory");
                exit(PCF_EXIT_USAGE);
            }
            open[pmi] = own ? NULL : g;
        }
        g->cases[g->n++] = &all[i];
        /* rank 0 and a victim per case; a collective case runs on the full job */
        int want = (c->flags & PCF_COLLECTIVE) ? np : (int)g->n + 1;
        if (want > g->np)
            g->np = want;
        if (c->min_ranks > g->np)
            g->np = c->min_ranks;
    }
    for (size_t k = 0; k < S->nl; k++)
        S->total += S->L[k].n;
    if (o->pmi_given) /* the other protocol's non-destructive cases: why they did not run */
        for (size_t i = 0; i < nall; i++) {
            const pcf_case *c = all[i].c;
            const char *why = pcf_unrunnable(c, o->pmi, 1 << 20);
            if (!pcf_selected(c->id, o->globs, o->nglobs) || (c->flags & PCF_DESTRUCTIVE) || !why)
                continue;
            pmi_skip(S, &all[i], why);
            S->total++;
        }
}

/* A launch has ended: grade what its end says, plan what it left. */
static void finished(orch *S, running *rn)
{
    const pcf_opts *o = S->o;
    launch *cur = &S->L[rn->k];
    launch_outcome *out = &rn->out;
    char said[1200];
    log_excerpt(rn->log, said, sizeof said);
    const pcf_resinfo *in = &out->info;
    if (o->verbose)
        pcf_notice(o, "launch %zu (%zu case(s), %d ranks): %s after %.1f s "
                   "(ranks up after %.1f s, launcher back %.2f s after the last)%s%s", rn->k,
                   cur->n, cur->np, end_name(out->how),
                   (double)(pws_now_usec() - rn->t0) / 1e6, (double)out->start_us / 1e6,
                   (double)out->exit_lag_us / 1e6,
                   in->lost ? "; control channel lost after " : "",
                   in->lost ? in->lost_after : "");
    int st = out->status;
    if (out->start_us)
        S->restored[rn->slot] = false;
    if (out->start_us > S->slowest_start)
        S->slowest_start = out->start_us;
    if (!out->spoke_first && out->start_us > S->slowest_quiet)
        S->slowest_quiet = out->start_us;
    if (out->how == L_EXITED && out->exit_lag_us > S->slowest_exit)
        S->slowest_exit = out->exit_lag_us;
    if (out->how == L_FAILED)
        S->harness = 1;

    if (out->how == L_STOPPED) {
        S->stopped = true;
        stop_reason(o, S->dead, sizeof S->dead);
        if (in->open_id[0])
            pcf_result_skip(pcf_results_get(&S->rs, pcf_case_find(in->open_id)),
                            "cut short: the run was stopped while this case ran");
        skip_rest(&S->rs, cur, S->dead);
        goto cleanup;
    }

    if (out->how == L_NOSTART && rn->contended) {
        /* it waited while another launch ran: the launcher runs one job
         * at a time here, which is no finding; the rest of the run goes
         * one launch at a time and this one is tried again */
        if (S->jobs > 1)
            pcf_notice(o, "a launch started no rank while another ran: the launcher runs one "
                          "job at a time; going on with one launch at a time");
        S->jobs = 1;
        launch again = *cur;
        cur->cases = NULL;
        cur->n = 0;
        insert_launch(S, again);
        goto cleanup;
    }

    if (out->how == L_NOSTART) {
        if (!S->slotted)
            S->jobs = 1; /* what follows is judged one launch at a time */
        /* The launcher started no rank: the server has not released the
         * job before (a step still completing, a node still busy).  That
         * is a finding about the launch before; then recover and try
         * once more, or give up on the cases left. */
        pcf_notice(o, "no rank of the launch started within %u s%s", out->waited_ms / 1000,
                   cur->retries ? " (second try)" : "");
        bool blamed = S->prev_last[rn->slot] != NULL;
        if (blamed) {
            char what[1600];
            snprintf(what, sizeof what,
                     "the server did not release the job after this case: the next launch "
                     "started no rank within %u s%s%s", out->waited_ms / 1000,
                     said[0] ? "; the launcher said:\n" : "", said);
            blame_wedge(&S->rs, S->prev_last[rn->slot], what);
            S->prev_last[rn->slot] = NULL; /* blamed once */
        }
        bool recovered = orch_recover(S, rn->slot);
        if (recovered)
            S->broken[rn->slot] = false; /* a server just restored: judged as after a clean job */
        /* one more try; two after a recovery that said it worked.  A start
         * the launch before on this slot prevented (blamed on it above), then
         * recovered, is not one of this launch's tries: with several slots
         * a launch can meet one freshly wedged slot after another, and its
         * cases (the rest of the run) must not be given up for that.  Each
         * such try follows a different launch that ran, so they end. */
        bool not_its_try = blamed && recovered;
        if (not_its_try || (cur->retries < (recovered ? 2 : 1) && (recovered || !o->recover))) {
            launch again = *cur;
            if (!not_its_try)
                again.retries++;
            cur->cases = NULL;
            cur->n = 0;
            insert_launch(S, again);
        } else {
            snprintf(S->dead, sizeof S->dead,
                     "not run: the server accepted no further launch (no rank started within "
                     "%u s%s)%s%s", out->waited_ms / 1000,
                     o->recover ? ", also after --recover" : "; --recover CMD can restore it",
                     said[0] ? "; the launcher said:\n" : "", said);
            skip_rest(&S->rs, cur, S->dead);
        }
        goto cleanup;
    }

    if (in->lost && strcmp(in->lost_after, "-") == 0 &&
        ++S->startup_failed[cur->pmi] >= 2 && !S->proto_dead[cur->pmi][0]) {
        snprintf(S->proto_dead[cur->pmi], sizeof S->proto_dead[cur->pmi],
                 "not run: two launches in a row could not start a PMI-%d session (%s)",
                 cur->pmi, in->lost_why);
        pcf_notice(o, "%s; no further PMI-%d launch is tried", S->proto_dead[cur->pmi] + 9,
                   cur->pmi);
    }
    if (!in->lost || strcmp(in->lost_after, "-") != 0)
        S->startup_failed[cur->pmi] = 0;
    bool killed = out->how != L_EXITED;
    bool exited_bad = out->how == L_EXITED && !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    const pcf_entry *last = in->last_started[0] ? pcf_case_find(in->last_started) : NULL;

    /* The case the launch's end points at.  In a shared launch of
     * destructive cases, one that was not the first may have found a
     * server that an earlier case had already damaged without a sign (a
     * corrupted heap that aborts later): it runs again in a launch of its
     * own, and that run is its verdict. */
    const pcf_entry *culprit = NULL;
    if (in->open_id[0])
        culprit = pcf_case_find(in->open_id);
    else if (in->lost && strcmp(in->lost_after, "-") != 0)
        culprit = pcf_case_find(in->lost_after);
    else if (last && ((exited_bad && !in->done) || out->how == L_HUNG_EXIT))
        culprit = last;
    const pcf_entry *alone = NULL;
    if (culprit && cur->n > 1 && culprit != cur->cases[0] &&
        (culprit->c->flags & PCF_DESTRUCTIVE)) {
        alone = culprit;
        S->solo = true;
        pcf_result_forget(pcf_results_get(&S->rs, alone));
        insert_launch(S, one_case_launch(o, cur->pmi, alone));
        if (o->verbose)
            pcf_notice(o, "the launch ended after case %s, not its first: it runs again alone",
                       alone->c->id);
        if (last == alone)
            last = NULL;
    }
    /* the case in progress when the launch ended */
    if (in->open_id[0] && !alone) {
        const pcf_entry *e = pcf_case_find(in->open_id);
        pcf_obs ob;
        const char *oc = killed ? "no-answer" : job_end_outcome(e->c, st);
        pcf_grade(e->c, oc, o->strict, &ob);
        char why[1600];
        int w;
        if (out->how == L_STALLED)
            w = snprintf(why, sizeof why, "the launch made no progress for %u s while this "
                         "case ran and was killed", out->waited_ms / 1000);
        else if (killed)
            w = snprintf(why, sizeof why, "the launch did not finish before its deadline and "
                                          "was killed while this case ran");
        else
            w = snprintf(why, sizeof why, "the job ended while this case ran (launcher %s %d)",
                         WIFSIGNALED(st) ? "killed by signal" : "exit status",
                         WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        if (in->lost && !killed && !exited_bad) {
            /* the job went on, its PMI did not: rank 0's control
             * channel failed while another rank ran this case */
            oc = "others-affected";
            ob.verdict = PCF_FAIL;
            snprintf(ob.clause, sizeof ob.clause, "ERR-2");
            w = snprintf(why, sizeof why, "while this case ran, the job's other PMI "
                         "connections stopped working: rank 0's control channel failed (%s)",
                         in->lost_why);
        }
        if (said[0] && w > 0 && (size_t)w < sizeof why)
            snprintf(why + w, sizeof why - (size_t)w, "; the launcher's last words:\n%s", said);
        pcf_result_add_run(pcf_results_get(&S->rs, e), ob.verdict, oc, ob.clause, why, 0);
    }
    /* A destructive case that "passed", then the job was taken down
     * before rank 0 had finished (asked the server, finalized): the end
     * is the server's answer to that case, the last one started (every
     * case before it was followed by another that ran).  After rank 0's
     * "done", a bad status is the launcher's answer to a victim leaving
     * without finalize (its connection may be gone), which the harness
     * caused: no verdict (mpich-wire.md §9, socket closed before
     * finalize). */
    if (last && (last->c->flags & PCF_DESTRUCTIVE) && exited_bad && !in->open_id[0] &&
        !in->done) {
        pcf_result *r = pcf_results_get(&S->rs, last);
        if (r->runs && !pcf_verdict_failing(r->verdict, o->strict)) {
            pcf_obs ob;
            pcf_grade(last->c, "job-killed", o->strict, &ob);
            char why[2400];
            snprintf(why, sizeof why, "%s\nthen the job ended (launcher %s %d)%s%s",
                     r->actual ? r->actual : "", WIFSIGNALED(st) ? "signal" : "exit status",
                     WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
                     said[0] ? "; the launcher's last words:\n" : "", said);
            pcf_result_regrade(r, ob.verdict, "job-killed", ob.clause, why);
        }
    }
    if (out->how == L_HUNG_EXIT && last) {
        char what[1600];
        snprintf(what, sizeof what, "%s, but the launcher had not returned %u s later and was "
                 "killed%s%s", out->all_ended ? "every rank of the job had ended"
                 : "the job's rank 0 had finished", out->waited_ms / 1000,
                 said[0] ? "; the launcher said:\n" : "", said);
        blame_wedge(&S->rs, last, what);
        last = NULL;
    }
    S->prev_last[rn->slot] = alone ? NULL : last; /* a wedge now is the shared launch's, run again */
    S->broken[rn->slot] = in->lost || in->open_id[0] || killed || exited_bad;
    /* the server kept the job: restore it now, not after a stuck start */
    if (out->how == L_HUNG_EXIT && orch_recover(S, rn->slot))
        S->broken[rn->slot] = false;

    /* cases that never started: a launch of their own, unless this one
     * ran none of them either (then once more, then the reason) */
    launch rest = { .pmi = cur->pmi, .np = cur->np };
    rest.cases = calloc(cur->n ? cur->n : 1, sizeof *rest.cases);
    for (size_t i = 0; i < cur->n; i++) {
        pcf_result *r = pcf_results_get(&S->rs, cur->cases[i]);
        if (!graded(r) && cur->cases[i] != alone)
            rest.cases[rest.n++] = cur->cases[i];
    }
    if (!rest.n) {
        free(rest.cases);
    } else {
        bool progress = rest.n + (alone ? 1 : 0) < cur->n;
        if (!S->proto_dead[cur->pmi][0] && (progress || cur->retries < 1)) {
            rest.retries = progress ? 0 : cur->retries + 1;
            insert_launch(S, rest);
            if (o->verbose) /* a server that ends jobs does it often: no news */
                pcf_notice(o, "the launch ended (%s) with %zu case(s) not run: "
                          "they go on in a new launch", in->lost ? "control channel lost"
                          : end_name(out->how), rest.n);
        } else {
            char why[1800];
            if (S->proto_dead[cur->pmi][0])
                snprintf(why, sizeof why, "%s", S->proto_dead[cur->pmi]);
            else if (in->lost)
                snprintf(why, sizeof why, "not run: %s", in->lost_why);
            else
                snprintf(why, sizeof why, "not run: two launches in a row ended (%s) before "
                         "this case%s%s", end_name(out->how),
                         said[0] ? "; the launcher said:\n" : "", said);
            skip_rest(&S->rs, &rest, why);
            if (!S->unrun++) /* a line for the exit status; the report has it whole */
                pcf_one_line(S->unrun_why, sizeof S->unrun_why, why);
            S->unrun += rest.n - 1;
            free(rest.cases);
        }
    }
cleanup:
    remove(rn->res);
    remove(rn->log);
}

/* The progress line: cases done, the case running (in the first launch
 * that has one) and what a launch waits for. */
static void show_progress(const orch *S, const running *act, int nact)
{
    const pcf_opts *o = S->o;
    if (!o->progress && !o->progress_plain)
        return;
    const char *id = NULL;
    char note[200] = "";
    uint64_t now = pws_now_usec();
    for (int i = 0; i < nact; i++) {
        const running *rn = &act[i];
        if (!id && rn->out.info.open_id[0])
            id = rn->out.info.open_id;
        if (!rn->out.info.alive && now - rn->t0 >= 2000000 && !note[0])
            snprintf(note, sizeof note, "waiting for a launch's ranks to start: %u s (stuck at "
                     "%u s)", (unsigned)((now - rn->t0) / 1000000), rn->start_ms / 1000);
        else if (rn->ended_at && now - rn->ended_at >= 1000000 && !note[0])
            snprintf(note, sizeof note, "every rank ended; waiting for the launcher to return: "
                     "%u s", (unsigned)((now - rn->ended_at) / 1000000));
    }
    char label[240];
    if (nact > 1)
        snprintf(label, sizeof label, "%s (%d launches)", id ? id : "starting", nact);
    else
        snprintf(label, sizeof label, "%s", id ? id : nact ? "starting a launch" : "");
    pcf_progress(o, count_graded(&S->rs), S->total, label);
    if (note[0])
        pcf_progress_note(o, "%s", note);
}

/* The lowest slot no launch in flight runs on and no recovery holds. */
static int free_slot(const orch *S, const running *act, int nact)
{
    for (int slot = 0;; slot++) {
        int used = S->recovering[slot] != 0;
        for (int i = 0; i < nact; i++)
            used |= act[i].slot == slot;
        if (!used)
            return slot;
    }
}

/* --rerun-deviations: every case that ran and deviates from the baseline
 * runs again in a launch of its own, after the plan; its first verdict is
 * kept for the report.  False when none deviates. */
static bool plan_reruns(orch *S, int np)
{
    const pcf_opts *o = S->o;
    if (!o->baseline || S->stopped || S->dead[0] || stop_signal ||
        (S->run_deadline && pws_now_usec() >= S->run_deadline))
        return false;
    if (pcf_baseline_apply(&S->rs, o->baseline, o->strict, NULL) != 0)
        return false; /* the report says why */
    size_t n = 0;
    for (size_t i = 0; i < S->rs.n; i++) {
        pcf_result *r = &S->rs.r[i];
        if (!r->deviation || r->verdict == PCF_SKIPPED)
            continue;
        if (!r->reruns) {
            r->first_verdict = r->verdict;
            snprintf(r->first_outcome, sizeof r->first_outcome, "%s", r->outcome);
        }
        r->reruns++;
        pcf_result_forget(r);
        insert_launch(S, alone_launch(o, r->e, np));
        n++;
    }
    if (n)
        pcf_notice(o, "%zu case(s) deviated from the baseline: each runs again in a launch of "
                      "its own (--rerun-deviations)", n);
    S->total += n;
    return n > 0;
}

/* Run the plan's launches, --jobs at once (or one per slot), until none is
 * left: each launch's end graded, what it left planned again. */
static void run_plan(orch *S, const char *dir, const char *self)
{
    const pcf_opts *o = S->o;
    running act[MAX_JOBS];
    int nact = 0;
    uint64_t last_shown = 0;
    for (;;) {
        /* until a launch has started a rank, one at a time: the first
         * launch tells how long a start takes (and whether one can) */
        int slots = S->slowest_start ? S->jobs : 1;
        poll_recoveries(S, false);
        int held = 0; /* slots whose server is being recovered */
        for (int slot = 0; slot < MAX_JOBS; slot++)
            held += S->recovering[slot] != 0;
        while (nact + held < slots && nact < MAX_JOBS && S->next < S->nl) {
            size_t k = S->next++;
            launch *cur = &S->L[k];
            if (!S->dead[0] && (stop_signal || (S->run_deadline && pws_now_usec() >= S->run_deadline))) {
                S->stopped = true;
                stop_reason(o, S->dead, sizeof S->dead);
            }
            if (S->dead[0]) {
                skip_rest(&S->rs, cur, S->dead);
                continue;
            }
            if (S->proto_dead[cur->pmi][0]) {
                skip_rest(&S->rs, cur, S->proto_dead[cur->pmi]);
                continue;
            }
            if (S->solo && cur->n > 1 && (cur->cases[0]->c->flags & PCF_DESTRUCTIVE)) {
                /* one case per launch from now on: the others go back in
                 * the plan right after this one, in their order */
                for (size_t i = cur->n; i-- > 1;) {
                    insert_launch(S, one_case_launch(o, cur->pmi, cur->cases[i]));
                    cur = &S->L[k]; /* the plan may have moved */
                }
                cur->n = 1;
                int least = victim_np(o);
                cur->np = cur->cases[0]->c->min_ranks > least ? cur->cases[0]->c->min_ranks : least;
            }
            unsigned per = o->timeout_ms + 5000;
            cur->budget_ms = 60000 + (unsigned)cur->n * per * (unsigned)(o->repeat > 1 ? o->repeat : 1);
            running *rn = &act[nact];
            memset(rn, 0, sizeof *rn);
            rn->k = k;
            rn->slot = S->slotted ? free_slot(S, act, nact) : 0;
            arm_waits(S, rn);
            snprintf(rn->res, sizeof rn->res, "%s/launch-%zu.results", dir, k);
            snprintf(rn->log, sizeof rn->log, "%s/launch-%zu.log", dir, k);
            if (!launch_begin(o, cur, self, rn)) {
                finished(S, rn);
                continue;
            }
            nact++;
        }
        if (!nact && S->next >= S->nl)
            break;
        for (int i = 0; i < nact;) {
            running *rn = &act[i];
            if (!rn->out.info.alive) {
                /* waiting while another launch's ranks run: a launcher
                 * that runs one job at a time, not a stuck server (with
                 * {slot}, the others run on servers of their own) */
                for (int j = 0; j < nact && !S->slotted; j++)
                    if (j != i && act[j].out.info.alive && !act[j].ended_at)
                        rn->contended = true;
                if (!o->start_ms && S->slowest_start) {
                    rn->start_ms = slot_start_timeout(S, rn->slot);
                    rn->quick_ms = quick_timeout(S, rn->slot);
                }
            }
            if (launch_step(o, &S->L[rn->k], rn, S->run_deadline)) {
                launch_finish(o, rn, &S->rs);
                finished(S, rn);
                act[i] = act[--nact];
            } else {
                i++;
            }
        }
        uint64_t now = pws_now_usec();
        if (now - last_shown >= 200000) {
            last_shown = now;
            show_progress(S, act, nact);
        }
        if (nact || held)
            sleep_ms(POLL_MS);
    }
}

/* After the plan: the end-of-run probe of every slot. */
static void probe_slots(orch *S, const char *dir, const char *self)
{
    const pcf_opts *o = S->o;
    poll_recoveries(S, true); /* the probes below, the next run, find them done */
    /* Did the server release the last job?  A launch that runs no case
     * (handshake, finalize) tells, as the next launch would have; with
     * {slot}, on every slot whose last launch ended after a case. */
    for (int slot = 0; slot < MAX_JOBS; slot++) {
        if (!S->prev_last[slot] || S->stopped || S->dead[0] ||
            (S->run_deadline && pws_now_usec() >= S->run_deadline))
            continue;
        launch probe = { .pmi = 2, .np = 1, .budget_ms = 60000 };
        static const pcf_entry *none[1];
        probe.cases = none;
        running rn = { .slot = slot };
        snprintf(rn.res, sizeof rn.res, "%s/probe.results", dir);
        snprintf(rn.log, sizeof rn.log, "%s/probe.log", dir);
        arm_waits(S, &rn);
        if (!S->slowest_start) /* no start seen: the plain floor, not the first launch's 60 s */
            rn.start_ms = start_timeout(o, 1);
        pcf_progress_note(o, "checking that the server released the last job");
        run_launch(o, &probe, &rn, self, S->run_deadline, NULL);
        char said[1200];
        log_excerpt(rn.log, said, sizeof said);
        if (rn.out.how == L_NOSTART) {
            char what[1600];
            snprintf(what, sizeof what,
                     "the server did not release the job after this case: a launch after it "
                     "started no rank within %u s%s%s", rn.out.waited_ms / 1000,
                     said[0] ? "; the launcher said:\n" : "", said);
            blame_wedge(&S->rs, S->prev_last[slot], what);
            recover(o, slot);
        }
        S->prev_last[slot] = NULL; /* probed: a later round's probe asks again only after a launch */
        remove(rn.res);
        remove(rn.log);
    }
}

/* One orchestrated run of the selected cases: their results into *out (the
 * caller reports them).  0, or PCF_EXIT_USAGE when the run could not start. */
static int orchestrate(const pcf_opts *o, pcf_results *out)
{
    size_t nall;
    const pcf_entry *all = pcf_cases(&nall);
    orch S = { .o = o };
    snprintf(S.rs.target, sizeof S.rs.target, "%s", o->launch);
    uint64_t t0 = pws_now_usec();
    S.run_deadline = o->deadline_ms ? pws_deadline_ms(o->deadline_ms) : 0;
    char dir[900];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/pmi2-conform-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        pcf_notice(o, "mkdtemp: %s", strerror(errno));
        return PCF_EXIT_USAGE;
    }
    if (pcf_relay_open(o->report_addr) != 0) {
        remove_run_dir(dir);
        return PCF_EXIT_USAGE;
    }
    if (o->json_dir) { /* the ranks' traces arrive here, from any host */
        char td[1100];
        mkdir(o->json_dir, 0777);
        snprintf(td, sizeof td, "%s/traces", o->json_dir);
        mkdir(td, 0777);
    }
    char selfbuf[1024];
    const char *self = self_path(o->argv0, selfbuf, sizeof selfbuf);
    int np = o->np > 0 ? o->np : 4;
    S.jobs = o->jobs > 0 ? o->jobs : default_jobs(o);
    S.slotted = strstr(o->launch, "{slot}") != NULL;
    if (S.slotted && o->recover && !strstr(o->recover, "{slot}"))
        pcf_notice(o, "the launch template names {slot} but --recover does not: a stuck slot's "
                      "recovery runs while the other slots' launches run");
    if (S.slotted && S.jobs == 1 && o->jobs <= 0)
        pcf_notice(o, "the launch template names {slot}, but this launcher runs one launch at a "
                      "time by default: only slot 0 is used (--jobs N: slots 0 to N-1)");

    struct sigaction sa = { .sa_handler = on_stop };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    pcf_strays_adopt();

    plan(&S, all, nall, np);

    for (int round = 0;; round++) {
        run_plan(&S, dir, self);
        probe_slots(&S, dir, self);
        if (round >= o->rerun_deviations || !plan_reruns(&S, np))
            break;
    }
    pcf_strays_reap(NULL); /* nothing of any launch outlives the run */
    pcf_progress_end(o);
    if (S.stopped && !stop_signal)
        pcf_notice(o, "the run's --deadline (%u s) passed: every launch and rank ended; the "
                      "report covers what ran", o->deadline_ms / 1000);
    if (stop_signal)
        pcf_notice(o, "interrupted (signal %d): every launch and rank ended; "
                      "the report covers what ran\n", (int)stop_signal);
    /* report in registry order */
    pcf_results sorted = { 0 };
    snprintf(sorted.target, sizeof sorted.target, "%s", S.rs.target);
    if (o->json_dir)
        snprintf(sorted.tracedir, sizeof sorted.tracedir, "%s/traces", o->json_dir);
    for (size_t i = 0; i < nall; i++)
        for (size_t k = 0; k < S.rs.n; k++)
            if (S.rs.r[k].e == &all[i]) {
                pcf_result *r = pcf_results_get(&sorted, &all[i]);
                *r = S.rs.r[k];
                S.rs.r[k].actual = NULL;
                S.rs.r[k].trace = NULL;
            }
    sorted.nodes = S.rs.nodes;
    sorted.shapes = S.rs.shapes;
    snprintf(sorted.hosts, sizeof sorted.hosts, "%s", S.rs.hosts);
    pcf_results_free(&S.rs);
    sorted.seconds = (double)(pws_now_usec() - t0) / 1e6;
    /* the exit status is decided before the report files record it */
    char *inc = sorted.incomplete;
    size_t incn = sizeof sorted.incomplete;
    if (S.stopped)
        snprintf(inc, incn, "the run did not complete (%s)",
                 stop_signal ? "interrupted" : "its --deadline passed");
    else if (S.dead[0] || S.proto_dead[1][0] || S.proto_dead[2][0]) {
        char one[300];
        pcf_one_line(one, sizeof one, S.dead[0] ? S.dead
                                      : S.proto_dead[2][0] ? S.proto_dead[2] : S.proto_dead[1]);
        snprintf(inc, incn, "the run did not complete: %s", one);
    } else if (S.unrun) {
        snprintf(inc, incn, "%zu case(s) %.300s", S.unrun, S.unrun_why);
    }
    else if (S.harness)
        snprintf(inc, incn, "a launch could not be started");
    sorted.nodes_asked = o->nodes > 0 ? o->nodes : 1;
    *out = sorted;
    for (size_t k = 0; k < S.nl; k++)
        free(S.L[k].cases);
    free(S.L);
    remove_run_dir(dir);
    return 0;
}

int pcf_run_orchestrated(const pcf_opts *o)
{
    pcf_results main_rs = { 0 };
    int rc = orchestrate(o, &main_rs);
    if (rc)
        return rc;
    /* --nodes 1,2: the placement-dependent cases again, under each further
     * shape; no report files of their own (the main report holds them) */
    for (int k = 1; k < o->nshapes && !stop_signal && !main_rs.incomplete[0]; k++) {
        size_t nall, ng = 0;
        const pcf_entry *all = pcf_cases(&nall);
        char **globs = calloc(nall + 1, sizeof *globs);
        if (!globs)
            break;
        for (size_t i = 0; i < nall; i++)
            if (pcf_placed(all[i].c) && pcf_selected(all[i].c->id, o->globs, o->nglobs))
                globs[ng++] = (char *)all[i].c->id;
        pcf_results *na = ng ? realloc(main_rs.alt, (main_rs.nalt + 1) * sizeof *na) : NULL;
        if (na) {
            main_rs.alt = na;
            pcf_opts o2 = *o;
            o2.nodes = o->shape[k];
            o2.globs = globs;
            o2.nglobs = ng;
            o2.json_dir = o2.html = o2.junit = o2.baseline = o2.write_baseline = NULL;
            o2.rerun_deviations = 0;
            o2.deadline_ms = 0; /* the run's own deadline is not restarted */
            pcf_notice(o, "--nodes %d: the %zu placement-dependent case(s) again", o2.nodes, ng);
            pcf_results *alt = &main_rs.alt[main_rs.nalt];
            memset(alt, 0, sizeof *alt);
            if (orchestrate(&o2, alt) == 0)
                main_rs.nalt++;
        }
        free(globs);
    }
    int code = pcf_report(&main_rs, o, stdout);
    pcf_results_free(&main_rs);
    return code;
}
