/* What the report writers share (report.h): the run's counts, summary line
 * and exit status, the baseline mark, merged traces, texts.  It calls no
 * writer and not report.c. */
#include "report.h"

#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <time.h>

static int cmp_ev(const void *a, const void *b)
{
    const pmt_event *x = a, *y = b;
    if (x->usec != y->usec)
        return x->usec < y->usec ? -1 : 1;
    int c = strcmp(x->conn, y->conn);
    if (c)
        return c;
    return x->line < y->line ? -1 : x->line > y->line; /* one rank's file: its order */
}

static void add_from(pcf_merged *m, const pmt_trace *one, size_t from)
{
    for (size_t i = from; i < one->nevents; i++) {
        const pmt_event *ev = &one->events[i];
        if (pmt_add_event(&m->t, ev->kind, ev->usec, ev->conn, ev->side, ev->data, ev->len) == 0)
            m->t.events[m->t.nevents - 1].line = ev->line; /* the sort's tie-break */
    }
}

/* Join the per-rank traces of a case's first run into one trace; without
 * the start-up, each rank's events begin at its "case ..." note.  Times
 * start at 0. */
static void merge(const pcf_results *rs, const pcf_case *c, bool startup, pcf_merged *m)
{
    pmt_trace_init(&m->t);
    m->have = false;
    if (!rs->tracedir[0])
        return;
    char safe[160], prefix[200];
    pcf_safe_name(c->id, safe, sizeof safe);
    snprintf(prefix, sizeof prefix, "%s.i0.r", safe);
    DIR *d = opendir(rs->tracedir);
    if (!d)
        return;
    char src[200];
    snprintf(src, sizeof src, "pmi2-conform %s, case %s (%s)", PCF_TOOL_VERSION, c->id,
             strncmp(c->id, "client/", 7) == 0
                 ? "client mode: the program's session as the embedded mock server saw it"
                 : "client side: the harness");
    pmt_add_source(&m->t, src);
    pmt_add_meta(&m->t, "case", c->id);
    struct dirent *de;
    char job[160] = "";
    int ranks = 0;
    bool seen[256] = { false };
    while ((de = readdir(d))) {
        size_t nl = strlen(de->d_name);
        if (strncmp(de->d_name, prefix, strlen(prefix)) != 0 || nl < 6 ||
            strcmp(de->d_name + nl - 6, ".trace") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", rs->tracedir, de->d_name);
        pmt_trace one;
        pmt_error e;
        if (pmt_read_file(path, &one, &e) != 0)
            continue;
        const pmt_header *h = pmt_find_header(&one, PMT_H_META, "job");
        if (h && !job[0])
            snprintf(job, sizeof job, "%s", h->value);
        h = pmt_find_header(&one, PMT_H_META, "ranks");
        if (h && atoi(h->value) > ranks)
            ranks = atoi(h->value);
        const char *rk = de->d_name + strlen(prefix);
        if (atoi(rk) >= 0 && atoi(rk) < 256)
            seen[atoi(rk)] = true;
        size_t from = 0;
        if (!startup) {
            from = one.nevents; /* no case note: nothing of the case */
            for (size_t i = 0; i < one.nevents; i++)
                if (one.events[i].kind == PMT_EV_NOTE && !strncmp(one.events[i].data, "case ", 5)) {
                    from = i;
                    break;
                }
        }
        add_from(m, &one, from);
        pmt_trace_free(&one);
        m->have = true;
    }
    closedir(d);
    /* the ranks that took no part in the case: their start-up (the job
     * needs every rank to start) */
    for (int k = 0; startup && job[0] && k < ranks && k < 256; k++) {
        if (seen[k])
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/startup.%s.r%d.trace", rs->tracedir, job, k);
        pmt_trace one;
        pmt_error e;
        if (pmt_read_file(path, &one, &e) != 0)
            continue;
        add_from(m, &one, 0);
        pmt_trace_free(&one);
    }
    if (m->t.nevents > 1)
        qsort(m->t.events, m->t.nevents, sizeof *m->t.events, cmp_ev);
    uint64_t t0 = m->t.nevents ? m->t.events[0].usec : 0;
    for (size_t i = 0; i < m->t.nevents; i++)
        m->t.events[i].usec -= t0;
}

void pcf_merge_traces(const pcf_results *rs, const pcf_case *c, pcf_merged *m)
{
    merge(rs, c, false, m);
}

void pcf_merge_sessions(const pcf_results *rs, const pcf_case *c, pcf_merged *m)
{
    merge(rs, c, true, m);
}

const char *pcf_ev_name(const pmt_event *e)
{
    switch (e->kind) {
    case PMT_EV_DATA: return e->side == PMT_CLIENT ? "C>S" : "S>C";
    case PMT_EV_EOF: return "eof";
    case PMT_EV_CLOSE: return "close";
    case PMT_EV_TIMEOUT: return "timeout";
    case PMT_EV_NOTE: return "note";
    default: return "open";
    }
}

const pcf_clause *pcf_grading_clause(const pcf_result *r)
{
    const pcf_clause *cl = pcf_clause_get(r->clause);
    return cl ? cl : pcf_clause_get(r->e->c->clause);
}

void pcf_expected_text(const pcf_result *r, char *buf, size_t n)
{
    /* the expectation, plus the other accepted outcomes of the case */
    size_t k = (size_t)snprintf(buf, n, "%s", r->e->c->expected);
    for (int i = 0; i < PCF_MAX_OUTCOMES && r->e->c->outcomes[i].name && k < n; i++) {
        const pcf_outcome *oc = &r->e->c->outcomes[i];
        if (oc->verdict == PCF_PASS && oc->text && !strstr(buf, oc->text)) /* said once */
            k += (size_t)snprintf(buf + k, n - k, "; or %s", oc->text);
    }
}

/* --rerun-deviations: how a case that ran again went the first time. */
void pcf_rerun_note(const pcf_result *r, char *buf, size_t n)
{
    snprintf(buf, n, "ran again %d time%s (--rerun-deviations): %s (%s) the first time",
             r->reruns, r->reruns == 1 ? "" : "s", pcf_verdict_name(r->first_verdict),
             r->first_outcome);
}


const char *pcf_run_date(pcf_results *rs)
{
    if (!rs->date[0]) {
        time_t t = time(NULL) - (time_t)rs->seconds;
        struct tm tm;
        if (gmtime_r(&t, &tm))
            strftime(rs->date, sizeof rs->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    }
    return rs->date;
}

const char *pcf_run_verdict(const pcf_results *rs, const pcf_opts *o, char *why, size_t n)
{
    if (pcf_run_unusable(rs, why, n))
        return "incomplete";
    size_t c[PCF_V_COUNT], failing = 0;
    pcf_count_verdicts(rs, c);
    char list[300] = "";
    size_t k = 0;
    for (int v = 0; v < PCF_V_COUNT; v++)
        if (c[v] && pcf_verdict_failing(v, o->strict)) {
            failing += c[v];
            k += (size_t)snprintf(list + k, k < sizeof list ? sizeof list - k : 0, "%s%zu %s",
                                  k ? ", " : "", c[v], pcf_verdict_name(v));
        }
    if (c[PCF_ERROR]) {
        snprintf(why, n, "%zu harness error%s (ERROR): %s say%s nothing of the server",
                 c[PCF_ERROR], c[PCF_ERROR] == 1 ? "" : "s", c[PCF_ERROR] == 1 ? "that case" :
                 "those cases", c[PCF_ERROR] == 1 ? "s" : "");
        return "incomplete";
    }
    if (failing) {
        snprintf(why, n, "%zu failing case%s: %s", failing, failing == 1 ? "" : "s", list);
        return "non-conformant";
    }
    if (c[PCF_NON_STRICT])
        snprintf(why, n, "no case failed; %zu SHOULD-level deviation%s (NON-STRICT: failing "
                         "with --strict)", c[PCF_NON_STRICT], c[PCF_NON_STRICT] == 1 ? "" : "s");
    else
        snprintf(why, n, "no case failed%s", o->strict ? " (--strict)" : "");
    return "conformant";
}

void pcf_exit_meaning(const pcf_results *rs, const pcf_opts *o, char *buf, size_t n)
{
    int st = pcf_exit_code(rs, o);
    size_t dev = 0;
    for (size_t i = 0; i < rs->n; i++)
        dev += rs->r[i].deviation;
    if (st == PCF_EXIT_OK)
        snprintf(buf, n, "%s", o->baseline ? "every verdict as in the baseline" : "conformant");
    else if (st == PCF_EXIT_NONCONFORMANT && o->baseline)
        snprintf(buf, n, "%zu verdict%s deviate%s from the baseline", dev, dev == 1 ? "" : "s",
                 dev == 1 ? "s" : "");
    else if (st == PCF_EXIT_NONCONFORMANT)
        snprintf(buf, n, "non-conformant");
    else if (pcf_run_unusable(rs, buf, n))
        snprintf(buf, n, "the run is incomplete, no verdict on its target"); /* why: the verdict's */
    else
        snprintf(buf, n, "harness errors (ERROR)");
}

/* ---------------------------------------------------------------- counts */

void pcf_count_verdicts(const pcf_results *rs, size_t *c)
{
    memset(c, 0, PCF_V_COUNT * sizeof *c);
    for (size_t i = 0; i < rs->n; i++)
        c[rs->r[i].verdict]++;
}

void pcf_summary_line(const pcf_results *rs, char *buf, size_t n)
{
    size_t c[PCF_V_COUNT];
    pcf_count_verdicts(rs, c);
    snprintf(buf, n,
             "%zu tests, %zu passed, %zu failed, %zu non-strict, %zu unsupported, %zu info, "
             "%zu errors, %zu timeouts, %zu skipped, %zu flaky",
             rs->n, c[PCF_PASS], c[PCF_FAIL], c[PCF_NON_STRICT], c[PCF_UNSUPPORTED], c[PCF_INFO],
             c[PCF_ERROR], c[PCF_TIMEOUT], c[PCF_SKIPPED], c[PCF_FLAKY]);
}

const char *pcf_run_unusable(const pcf_results *rs, char *buf, size_t n)
{
    if (rs->incomplete[0]) {
        snprintf(buf, n, "%s", rs->incomplete);
        return buf;
    }
    if (rs->n == 0) {
        snprintf(buf, n, "no case matches the selection: nothing was tested");
        return buf;
    }
    for (size_t i = 0; i < rs->n; i++)
        if (rs->r[i].verdict != PCF_SKIPPED)
            return NULL;
    /* every case skipped: a launcher that cannot start, a program that does
     * not run; the first case's reason is the run's */
    char one[400];
    pcf_one_line(one, sizeof one, rs->r[0].actual ? rs->r[0].actual : "");
    snprintf(buf, n, "nothing was tested: all %zu cases SKIPPED%s%s%s", rs->n, *one ? " (" : "",
             one, *one ? ")" : "");
    return buf;
}

void pcf_one_line(char *dst, size_t n, const char *src)
{
    size_t k = 0;
    for (; *src && k + 1 < n; src++) {
        if (*src == '\n') { /* a quoted launcher's "\n| " becomes one space */
            if (k && dst[k - 1] != ' ')
                dst[k++] = ' ';
            if (src[1] == '|' && src[2] == ' ')
                src += 2;
        } else {
            dst[k++] = *src;
        }
    }
    if (n)
        dst[k] = 0;
}

int pcf_exit_code(const pcf_results *rs, const pcf_opts *o)
{
    bool fail = false, err = false, baseline = o->baseline != NULL;
    char why[8];
    if (pcf_run_unusable(rs, why, sizeof why))
        return PCF_EXIT_USAGE;
    for (size_t i = 0; i < rs->n; i++) {
        const pcf_result *r = &rs->r[i];
        if (baseline) {
            fail |= r->deviation;
            continue;
        }
        if (r->verdict == PCF_ERROR)
            err = true;
        else if (pcf_verdict_failing(r->verdict, o->strict))
            fail = true;
    }
    /* --nodes 1,2 without a baseline: a failing verdict under another
     * shape fails the run as one under the first does */
    for (size_t k = 0; k < rs->nalt && !baseline; k++)
        for (size_t i = 0; i < rs->alt[k].n; i++) {
            const pcf_result *r = &rs->alt[k].r[i];
            if (r->verdict == PCF_ERROR)
                err = true;
            else if (pcf_verdict_failing(r->verdict, o->strict))
                fail = true;
        }
    return err ? PCF_EXIT_USAGE : fail ? PCF_EXIT_NONCONFORMANT : PCF_EXIT_OK;
}

const char *pcf_baseline_text(const pcf_result *r, char *buf, size_t n)
{
    size_t w = (size_t)snprintf(buf, n, "%s", pcf_verdict_name(r->baseline_verdict));
    for (int v = 0; v < 32 && w < n; v++)
        if (r->baseline_also & 1u << v)
            w += (size_t)snprintf(buf + w, n - w, " or %s", pcf_verdict_name(v));
    return buf;
}

/* "[baseline: PASS -> NON-STRICT]" for a deviation; "" otherwise. */
void pcf_baseline_mark(const pcf_result *r, char *buf, size_t n)
{
    if (!r->deviation)
        buf[0] = 0;
    else if (r->baseline_listed) {
        char b[80];
        snprintf(buf, n, "[baseline: %s -> %s]", pcf_baseline_text(r, b, sizeof b),
                 pcf_verdict_name(r->verdict));
    }
    else
        snprintf(buf, n, "[baseline: not listed -> %s]", pcf_verdict_name(r->verdict));
}
