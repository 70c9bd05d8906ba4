/* A case that did not pass, as a bug report: DIR/repro/<case id, / as _>/
 * holds every rank's session from its first byte (repro.trace, v2, run
 * through pmi-trace scrub), replay.sh and README.
 *
 * The trace is played by `pmi-trace replay --server --judge` under the
 * user's launcher, one process per rank.  Values the server chooses
 * (kvsname, jobid, ports) are learnt from its answers at replay (the
 * replay's tolerated keys); a rank that waited in the recording waits
 * again (pause=MS before its write); the answers the case failed on are
 * failure marks, and only they decide whether the failure came back. */
#define _GNU_SOURCE /* memmem */
#include "report.h"
#include "pmitrace/steps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A gap this long before a write, inside the case, is the harness waiting
 * on purpose (a late rank, a pause), not the machine being slow. */
enum { PAUSE_MIN_US = 50000, MAX_CONNS = 64 };

typedef struct conn_state {
    char label[PMT_CONN_MAX];
    bool in_case;  /* past its "case ..." note */
    uint64_t prev; /* time of its previous event */
    bool marked, sent;
    uint32_t paused; /* its pauses, in ms: how long its replay waits in all */
} conn_state;

static conn_state *conn_get(conn_state *cs, size_t *n, const char *label)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(cs[i].label, label))
            return &cs[i];
    if (*n == MAX_CONNS)
        return NULL;
    conn_state *c = &cs[(*n)++];
    memset(c, 0, sizeof *c);
    snprintf(c->label, sizeof c->label, "%s", label);
    return c;
}

/* "observed <outcome>: ..." (ctx.c's note for each observation). */
static bool observed(const pmt_event *e, const char *outcome)
{
    size_t k = strlen(outcome);
    return e->kind == PMT_EV_NOTE && e->len > 9 + k && !strncmp(e->data, "observed ", 9) &&
           !strncmp(e->data + 9, outcome, k) && e->data[9 + k] == ':';
}

static bool is_answer(const pmt_event *e)
{
    return e->side == PMT_SERVER && (e->kind == PMT_EV_DATA || e->kind == PMT_EV_EOF);
}

/* The answer `note` (an "observed" note) is about: among its case's answers
 * on its connection, the one whose message the note quotes (a case that sent
 * two requests at once may read both answers before it notes the first; only
 * a message counts, with a '=': a length field written on its own is no
 * quote), else the last one, unless the case saw silence after it (a
 * timeout: no answer to mark, NULL). */
static pmt_event *observed_answer(pmt_trace *out, const pmt_event *note)
{
    pmt_event *last = NULL;
    bool silent = false;
    for (size_t j = out->nevents - 1; j-- > 0;) {
        pmt_event *a = &out->events[j];
        if (strcmp(a->conn, note->conn))
            continue;
        if (a->kind == PMT_EV_NOTE && !strncmp(a->data, "case ", 5))
            break;
        if (a->kind == PMT_EV_TIMEOUT && !last)
            silent = true;
        if (!is_answer(a))
            continue;
        if (!last && !silent)
            last = a;
        size_t n = a->len;
        while (n && (a->data[n - 1] == '\n' || a->data[n - 1] == '\r'))
            n--;
        if (a->kind == PMT_EV_DATA && n >= 8 && memchr(a->data, '=', n) &&
            memmem(note->data, note->len, a->data, n))
            return a;
    }
    return last;
}

/* The server's close of conn in the recording (NULL: never closed). */
static pmt_event *server_eof(pmt_trace *out, const char *conn)
{
    for (size_t j = out->nevents; j-- > 0;)
        if (out->events[j].kind == PMT_EV_EOF && out->events[j].side == PMT_SERVER &&
            !strcmp(out->events[j].conn, conn))
            return &out->events[j];
    return NULL;
}

/* No answer was the failure: the job ended, or the other ranks lost their
 * service (the orchestrator graded it; ERR-2).  So a rank that is still
 * there after the case's writes asks the server, as rank 0 did after the
 * case (job-getid, or get_maxes on PMI-1), and its connection ending (or
 * no answer, for others-affected) is the failure: a server that closes
 * only the offending connection conforms.  The probe goes on a rank whose
 * connection the recording never saw closed (rank 0 first): asking after a
 * close would diverge at the close against a conforming server, which
 * answers there.  When every rank's was closed, the close rank 0 (or the
 * first rank) met is where the job's end met it: the failure, and no probe
 * (false). */
static bool probe_after(pmt_trace *out, const pcf_result *r, conn_state *cs, size_t ncs)
{
    if (!ncs)
        return false;
    conn_state *probe = NULL, *first = &cs[0];
    uint32_t wait = 0; /* the writers' pauses: the probe asks after them */
    for (size_t k = 0; k < ncs; k++) {
        bool r0 = !strcmp(cs[k].label, "r0");
        first = r0 ? &cs[k] : first;
        if (!server_eof(out, cs[k].label) && (!probe || r0))
            probe = &cs[k];
        if (cs[k].paused > wait)
            wait = cs[k].paused;
    }
    if (!probe) {
        pmt_event *eof = server_eof(out, first->label);
        if (eof) {
            eof->flags |= PMT_F_FAILURE;
            first->marked = true;
        }
        return false;
    }
    bool v1 = pmt_conn_wire(out, probe->label, PMT_CLIENT) == PMC_WIRE_V1;
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_error err;
    pmc_enc_begin(&e, v1 ? PMC_WIRE_V1 : PMC_WIRE_V2, v1 ? "get_maxes" : "job-getid");
    uint64_t last = 0;
    for (size_t j = 0; j < out->nevents; j++)
        last = out->events[j].usec > last ? out->events[j].usec : last;
    if (pmc_enc_end(&e, NULL, &o, &err) == 0 &&
        pmt_add_event(out, PMT_EV_DATA, last, probe->label, PMT_CLIENT, o.buf, o.len) == 0) {
        out->events[out->nevents - 1].pause_ms = wait + 1000;
        probe->paused = wait + 1000;
        bool silent = !strcmp(r->outcome, "others-affected") && r->actual &&
                      strstr(r->actual, "within");
        if (pmt_add_event(out, silent ? PMT_EV_TIMEOUT : PMT_EV_EOF, last, probe->label,
                          silent ? PMT_CLIENT : PMT_SERVER, NULL, 0) == 0) {
            out->events[out->nevents - 1].flags = PMT_F_FAILURE;
            out->events[out->nevents - 1].timeout_ms = silent ? 1000 : 0;
            probe->marked = true;
        }
    }
    pmc_out_free(&o);
    return true;
}

/* The sessions as a reproducer: pauses kept, failure marks set.  *jobend:
 * no answer was the failure (then probe_after adds one). */
static void build(const pmt_trace *in, const pcf_result *r, pmt_trace *out, conn_state *cs,
                  size_t *ncs, bool *jobend)
{
    *ncs = 0;
    for (size_t i = 0; i < in->nevents; i++) {
        const pmt_event *e = &in->events[i];
        conn_state *c = conn_get(cs, ncs, e->conn);
        pmt_add_event(out, e->kind, e->usec, e->conn, e->side, e->data, e->len);
        if (!c)
            continue;
        pmt_event *o = &out->events[out->nevents - 1];
        if (e->kind == PMT_EV_NOTE && !strncmp(e->data, "case ", 5))
            c->in_case = true;
        if (c->in_case && e->kind == PMT_EV_DATA && e->side == PMT_CLIENT) {
            if (e->usec - c->prev >= PAUSE_MIN_US)
                o->pause_ms = (uint32_t)((e->usec - c->prev) / 1000);
            c->paused += o->pause_ms;
            c->sent = true;
        }
        c->prev = e->usec;
        if (c->in_case && observed(e, r->outcome)) {
            pmt_event *a = observed_answer(out, e);
            if (a) {
                a->flags |= PMT_F_FAILURE;
                c->marked = true;
            }
        }
    }
    /* no answer to mark, and the orchestrator saw the job end or the other
     * ranks lose their service: the failure is that end (probe_after).
     * Other outcomes without a mark (one graded on the start-up's answers,
     * or on key order, which a replay does not compare) stay unjudged. */
    *jobend = !strcmp(r->outcome, "job-killed") || !strcmp(r->outcome, "others-affected");
    for (size_t k = 0; k < *ncs; k++)
        if (cs[k].marked)
            *jobend = false;
}

/* One write of a start-up as rank `rank` would have written it: a message
 * naming its rank (PMI-2 fullinit pmirank) re-encoded by the codec. */
static void add_as_rank(pmt_trace *out, const pmt_event *e, const char *conn, int rank)
{
    pmc_out o = { 0 };
    pmc_decoder *d = e->side == PMT_CLIENT ? pmc_decoder_new(NULL) : NULL;
    pmt_vars *v = pmt_vars_new();
    bool ok = d && v;
    char rk[16];
    snprintf(rk, sizeof rk, "%d", rank);
    if (ok) {
        pmt_vars_set(v, "rank", rk, strlen(rk));
        pmc_decoder_feed(d, e->data, e->len);
        pmc_msg m;
        pmc_error err;
        int rc;
        size_t used = 0;
        while (ok && (rc = pmc_decoder_next(d, &m, &err)) == PMC_MSG) {
            pmt_pattern p;
            if (pmt_pattern_from_msg(&m, &p)) {
                ok = false;
                break;
            }
            for (size_t i = 0; i < p.n; i++)
                if (!strcmp(p.pairs[i].key, "pmirank")) { /* rendered from ${rank} */
                    char *nv = strdup("rank");
                    if (nv) {
                        free(p.pairs[i].val);
                        p.pairs[i].val = nv;
                        p.pairs[i].vlen = 4;
                        p.pairs[i].kind = PMT_PV_VAR;
                    }
                }
            char eb[200];
            ok = pmt_pattern_render(&p, v, NULL, &o, eb, sizeof eb) == 0;
            used += m.raw.len;
            pmt_pattern_free(&p);
        }
        ok = ok && used == e->len;
    }
    if (ok)
        pmt_add_event(out, e->kind, e->usec, conn, e->side, o.buf, o.len);
    else
        pmt_add_event(out, e->kind, e->usec, conn, e->side, e->data, e->len);
    pmc_out_free(&o);
    pmc_decoder_free(d);
    pmt_vars_free(v);
}

/* Ranks whose session was not recorded (the job ended before they could
 * write it): the start-up of the first rank that has one, as that rank,
 * since a launcher's job needs every rank. */
static void clone_missing(pmt_trace *out, conn_state *cs, size_t *ncs, int nranks)
{
    const char *tmpl = NULL;
    for (int k = 0; k < nranks && !tmpl; k++)
        for (size_t j = 0; j < *ncs && !tmpl; j++)
            if (cs[j].label[0] == 'r' && atoi(cs[j].label + 1) == k)
                tmpl = cs[j].label;
    if (!tmpl)
        return;
    size_t n0 = out->nevents;
    for (int k = 0; k < nranks; k++) {
        char conn[16];
        snprintf(conn, sizeof conn, "r%d", k);
        bool have = false;
        for (size_t j = 0; j < *ncs; j++)
            have |= !strcmp(cs[j].label, conn);
        if (have || !conn_get(cs, ncs, conn))
            continue;
        for (size_t i = 0; i < n0; i++) {
            const pmt_event *e = &out->events[i];
            if (strcmp(e->conn, tmpl))
                continue;
            if (e->kind == PMT_EV_NOTE && !strncmp(e->data, "case ", 5))
                break;
            if (e->kind == PMT_EV_DATA) {
                pmt_event copy = *e; /* out->events may move as it grows */
                char *data = malloc(e->len + 1);
                if (!data)
                    break;
                memcpy(data, e->data, e->len);
                copy.data = data;
                add_as_rank(out, &copy, conn, k);
                free(data);
            }
        }
        char note[160];
        snprintf(note, sizeof note, "rank %d: not recorded; the start-up of %s stands for it", k,
                 tmpl);
        pmt_add_event(out, PMT_EV_NOTE, 0, conn, PMT_CLIENT, note, strlen(note));
    }
}

static int cmp_conn_order(const void *a, const void *b)
{
    const pmt_event *x = a, *y = b;
    int c = strcmp(x->conn, y->conn);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Each connection's events together, in their order (the times stay): a
 * message whose writes another rank's events came between is one piece of
 * text for scrub, which then keeps its length field right. */
static void group_by_conn(pmt_trace *t)
{
    for (size_t i = 0; i < t->nevents; i++)
        t->events[i].line = (uint32_t)i;
    qsort(t->events, t->nevents, sizeof *t->events, cmp_conn_order);
    for (size_t i = 0; i < t->nevents; i++)
        t->events[i].line = 0;
}

/* 'text' for sh, on one line. */
static void sh_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; s && *s; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else if (*s == '\n')
            fputs("; ", f);
        else
            fputc(*s, f);
    }
    fputc('\'', f);
}

static int run_scrub(const char *pt, const char *in, const char *out)
{
    pid_t pid = fork();
    if (pid == 0) {
        int nul = open("/dev/null", O_WRONLY);
        if (nul >= 0) {
            dup2(nul, STDOUT_FILENO);
            dup2(nul, STDERR_FILENO);
        }
        /* a spawn the replay repeats must still name a program that runs */
        execlp(pt, pt, "scrub", "--keep", "subcmd", "-o", out, in, (char *)NULL);
        _exit(127);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static void write_script(const char *path, const pcf_result *r, const char *tmpl, int nranks,
                         const conn_state *cs, size_t ncs, bool jobend, const char *pt,
                         const char *expected)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "#!/bin/sh\n"
               "# Reproducer of pmi2-conform case %s (see README).\n"
               "# usage: replay.sh 'LAUNCH TEMPLATE'   ({n}: the ranks), e.g. 'mpiexec.hydra -n {n}'\n"
               "# exit 1: the failure reproduces; 0: it does not (the server now answers\n"
               "# otherwise where it failed); 2: the replay cannot run or cannot tell.\n"
               "# PMI_TRACE names pmi-trace; REPLAY_TIMEOUT_MS bounds each wait.\n",
            r->e->c->id);
    fputs("tmpl=${1:-", f);
    sh_quote(f, tmpl ? tmpl : "");
    fputs("}\ncase_id=", f);
    sh_quote(f, r->e->c->id);
    fputs("\nexpected=", f);
    sh_quote(f, expected);
    fputs("\nrecorded=", f);
    char one[2048];
    pcf_one_line(one, sizeof one, r->actual ? r->actual : "");
    sh_quote(f, one);
    /* a job end is waited for: shorter, as a conforming server never closes */
    uint32_t paused = 0;
    for (size_t k = 0; k < ncs; k++)
        paused = cs[k].paused > paused ? cs[k].paused : paused;
    fprintf(f, "\nranks=%d\njobend=%d\ntmo=${REPLAY_TIMEOUT_MS:-%d}\nmarked='", nranks,
            jobend ? 1 : 0, jobend ? 1500 : 3000);
    for (size_t k = 0, w = 0; k < ncs; k++)
        if (cs[k].marked)
            fprintf(f, "%s%s", w++ ? " " : "", cs[k].label);
    /* a case graded on the job's exit status ("exit-1", V1CMD-21, ABORT-10):
     * the launcher's status decides, the statuses its table passes */
    fputs("'\nexitok='", f);
    if (strncmp(r->outcome, "exit-", 5) == 0)
        for (int i = 0, w = 0; i < PCF_MAX_OUTCOMES && r->e->c->outcomes[i].name; i++) {
            const pcf_outcome *oc = &r->e->c->outcomes[i];
            if (strncmp(oc->name, "exit-", 5) == 0 && oc->name[5] >= '0' && oc->name[5] <= '9' &&
                oc->verdict == PCF_PASS)
                fprintf(f, "%s%s", w++ ? " " : "", oc->name + 5);
        }
    /* a rank the server closed outlives the slowest rank's pauses and wait,
     * and the skew of the ranks' starts: a launcher that ends the job when
     * a rank exits unfinalized must not end it before the marked rank has
     * judged (on a loaded machine the ranks start up to seconds apart; with
     * half a second of margin a conforming server's replay once read as
     * reproduced in CI) */
    fprintf(f, "'\nlinger=$((%u + tmo + 3000))", paused);
    fputs("\npt=${PMI_TRACE:-", f);
    sh_quote(f, pt);
    fputs("}\n", f);
    fputs("command -v \"$pt\" >/dev/null 2>&1 || pt=pmi-trace\n"
          "here=$(cd \"$(dirname \"$0\")\" && pwd) || exit 2\n"
          "if [ -z \"$tmpl\" ]; then echo \"usage: $0 'LAUNCH TEMPLATE'\" >&2; exit 2; fi\n"
          "launch=$(printf '%s\\n' \"$tmpl\" | sed \"s/{n}/$ranks/g\")\n"
          "out=$(mktemp) || exit 2\n"
          "# what a launch leaves behind (Hydra's proxies, when its job ended badly)\n"
          "# carries this mark in its environment and is ended after each launch\n"
          "mark=\"$$.$(date +%s%N)\"\n"
          "# (one grep reads every process's environment: a grep per process cost\n"
          "# a quarter of a CPU second per scan on a busy machine)\n"
          "reap() {\n"
          "    [ -d /proc/self ] || return 0\n"
          "    for e in $(grep -lzx \"PMI2_CONFORM_REPLAY=$mark\" /proc/[0-9]*/environ 2>/dev/null); do\n"
          "        p=${e#/proc/}; kill -9 \"${p%/environ}\" 2>/dev/null\n"
          "    done\n"
          "}\n"
          "trap 'reap; rm -f \"$out\"' EXIT\n"
          "# the launcher starts one replay per rank; each plays connection r<PMI_RANK>\n"
          "# (once more when no replay got to say anything: a launch that failed, or\n"
          "# a job that ended at once, which the second launch confirms)\n"
          "for try in 1 2; do\n"
          "    PMI2_CONFORM_REPLAY=$mark timeout 120 sh -c \"$launch \\\"\\$0\\\" replay --server "
          "--judge --timeout $tmo --linger $linger \\\"\\$1\\\"\" \"$pt\" \"$here/repro.trace\" "
          ">\"$out\" 2>&1\n"
          "    st=$?\n"
          "    reap\n"
          "    grep -q '^judge \\|^replay: \\|^divergence on' \"$out\" && break\n"
          "done\n"
          "echo \"case:     $case_id\"\n"
          "echo \"expected: $expected\"\n"
          "echo \"recorded: $recorded\"\n"
          "grep '^judge ' \"$out\" | sed 's/^/actual:   /'\n"
          "if [ -n \"$exitok\" ]; then\n"
          "    echo \"actual:   the job ended with exit status $st\"\n"
          "    for w in $exitok; do\n"
          "        [ \"$st\" = \"$w\" ] || continue\n"
          "        echo 'result:   not reproduced: the job ends with the status the clause asks'\n"
          "        exit 0\n"
          "    done\n"
          "    echo 'result:   reproduced'\n"
          "    exit 1\n"
          "fi\n"
          "# one rank that meets the failure again is enough (the others may be\n"
          "# cut short by it); a rank that never reported was ended with its job\n"
          "if grep -q '^judge [^:]*: reproduced' \"$out\"; then\n"
          "    echo 'result:   reproduced'\n"
          "    exit 1\n"
          "fi\n"
          "gone=''\n"
          "for r in $marked; do grep -q \"^judge $r:\" \"$out\" || gone=\"$gone $r\"; done\n"
          "if [ \"$jobend\" = 1 ] && [ -n \"$gone\" ] && ! grep -q 'no connection\\|cannot connect' \"$out\"; then\n"
          "    echo \"actual:   the job ended before$gone could report (launcher status $st)\"\n"
          "    echo 'result:   reproduced'\n"
          "    exit 1\n"
          "fi\n"
          "if grep -q '^judge [^:]*: not-reproduced' \"$out\"; then\n"
          "    echo 'result:   not reproduced: the server now answers otherwise where it failed'\n"
          "    exit 0\n"
          "fi\n"
          "echo \"result:   cannot tell (launcher status $st); its output:\"\n"
          "sed 's/^/  /' \"$out\"\n"
          "exit 2\n",
          f);
    fclose(f);
    chmod(path, 0755);
}

static void write_readme(const char *path, const pcf_results *rs, const pcf_result *r,
                         const char *tmpl, const char *expected, bool jobend, bool asked,
                         bool scrubbed, bool have, bool judged)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    const pcf_case *c = r->e->c;
    const pcf_clause *cl = pcf_grading_clause(r);
    fprintf(f, "%s: %s (%s)\n\n", c->id, pcf_verdict_name(r->verdict), r->outcome);
    fprintf(f, "Case:      %s: %s\n", c->id, c->desc);
    if (cl)
        fprintf(f, "Clause:    %s (%s, %s): \"%s\"\n", cl->id, cl->level_text, cl->title, cl->text);
    fprintf(f, "Expected:  %s\n", expected);
    fprintf(f, "Actual:    %s (%s)\n", pcf_verdict_name(r->verdict), r->outcome);
    if (r->actual && *r->actual) {
        const char *p = r->actual;
        while (*p) {
            size_t k = strcspn(p, "\n");
            fprintf(f, "           %.*s\n", (int)k, p);
            p += k + (p[k] == '\n');
        }
    }
    fprintf(f, "Server:    %s\n", rs->target);
    fprintf(f, "Tool:      pmi2-conform %s\n\n", PCF_TOOL_VERSION);
    if (!have) {
        fprintf(f, "No rank's session of this case was recorded, so there is nothing to replay\n"
                   "(replay.sh exits 2).  Run the case alone: pmi2-conform server --launch "
                   "'%s' '%s'\n",
                tmpl ? tmpl : "LAUNCH TEMPLATE", c->id);
        fclose(f);
        return;
    }
    fprintf(f, "Replay:    ./replay.sh '%s'\n\n", tmpl ? tmpl : "LAUNCH TEMPLATE");
    fprintf(f,
            "repro.trace holds every rank's PMI session of the case from its first byte (start-up\n"
            "included), as the harness sent and received it%s.  replay.sh starts one\n"
            "`pmi-trace replay --server --judge` per rank under the launch template; each plays\n"
            "its rank's writes, learning what the server chooses (kvsname, jobid, ports) from the\n"
            "server's answers, and waits where the recording waited (pause=MS).  The answers the\n"
            "case failed on are marked `failure` in the trace%s; only they decide:\n"
            "exit 1 when they come back as recorded, 0 when the server answers otherwise there,\n"
            "2 when the replay cannot run or diverges before reaching them.\n\n"
            "%s"
            "See the sessions: pmi-trace show repro.trace\n",
            scrubbed ? " (scrubbed by pmi-trace scrub: hosts, users, paths, ports)" : "",
            !jobend ? ""
            : asked ? " (here: the job ended, so a rank asks the server after the case's\n"
                      "writes, as the harness did, and its connection ending, or no answer, is the\n"
                      "failure)"
                    : " (here: the job ended, and every rank's connection closed in the case:\n"
                      "the close rank 0 met is the failure)",
            judged ? "" : "This outcome has no answer in the case to mark (it was graded on the\n"
                          "start-up's answers, or on the order of keys, which a replay does not\n"
                          "compare): replay.sh replays it but cannot judge it (exit 2).\n\n");
    fclose(f);
}

int pcf_repro_write(const pcf_results *rs, const pcf_opts *o, const pcf_result *r, char *rel,
                    size_t reln)
{
    const pcf_case *c = r->e->c;
    char safe[160], dir[1024], path[1100], raw[1100];
    pcf_safe_name(c->id, safe, sizeof safe);
    snprintf(dir, sizeof dir, "%s/repro", o->json_dir);
    mkdir(dir, 0777);
    snprintf(dir, sizeof dir, "%s/repro/%s", o->json_dir, safe);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return -1;
    snprintf(rel, reln, "repro/%s", safe);
    /* a template the user can run again: the one this run launched with */
    const char *tmpl = o->launch;
    char expected[1500];
    pcf_expected_text(r, expected, sizeof expected);
    char pb[1100];
    const char *pt = pcf_pmitrace_path(NULL, pb, sizeof pb);

    pcf_merged m;
    pcf_merge_sessions(rs, c, &m);
    pmt_trace t;
    pmt_trace_init(&t);
    conn_state cs[MAX_CONNS];
    size_t ncs = 0;
    bool jobend = false, asked = false, scrubbed = false;
    int nranks = 0;
    if (m.have) {
        char b[600];
        snprintf(b, sizeof b, "pmi2-conform %s reproducer: case %s, %s (%s), every rank's session",
                 PCF_TOOL_VERSION, c->id, pcf_verdict_name(r->verdict), r->outcome);
        pmt_add_source(&t, b);
        pmt_add_meta(&t, "case", c->id);
        pmt_add_meta(&t, "clause", r->clause[0] ? r->clause : c->clause);
        pmt_add_meta(&t, "verdict", pcf_verdict_name(r->verdict));
        pmt_add_meta(&t, "outcome", r->outcome);
        build(&m.t, r, &t, cs, &ncs, &jobend);
        for (size_t k = 0; k < ncs; k++)
            if (cs[k].label[0] == 'r' && atoi(cs[k].label + 1) + 1 > nranks)
                nranks = atoi(cs[k].label + 1) + 1;
        clone_missing(&t, cs, &ncs, nranks);
        asked = jobend && probe_after(&t, r, cs, ncs);
        snprintf(b, sizeof b, "%d", nranks);
        pmt_add_meta(&t, "ranks", b);
        t.version = 2;
        group_by_conn(&t);
        snprintf(raw, sizeof raw, "%s/repro.unscrubbed.trace", dir);
        snprintf(path, sizeof path, "%s/repro.trace", dir);
        FILE *f = fopen(raw, "w");
        if (f) {
            pmt_write(f, &t, NULL, NULL);
            fclose(f);
            /* by default a reproducer is fit to publish: scrubbed */
            scrubbed = run_scrub(pt, raw, path) == 0;
            if (scrubbed)
                unlink(raw);
            else
                rename(raw, path);
        }
    }
    snprintf(path, sizeof path, "%s/replay.sh", dir);
    if (m.have) {
        write_script(path, r, tmpl, nranks, cs, ncs, jobend, pt, expected);
    } else {
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "#!/bin/sh\necho 'no session of %s was recorded: nothing to replay' >&2\n"
                       "exit 2\n",
                    c->id);
            fclose(f);
            chmod(path, 0755);
        }
    }
    snprintf(path, sizeof path, "%s/README", dir);
    bool judged = false;
    for (size_t k = 0; k < ncs; k++)
        judged |= cs[k].marked;
    write_readme(path, rs, r, tmpl, expected, jobend, asked, scrubbed, m.have, judged);
    pmt_trace_free(&t);
    pmt_trace_free(&m.t);
    return 0;
}
