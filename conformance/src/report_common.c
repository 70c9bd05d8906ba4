/* What the report writers share (report.h). */
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
    return strcmp(x->conn, y->conn);
}

/* Join the per-rank traces of a case's first run into one trace. */
void pcf_merge_traces(const pcf_results *rs, const pcf_case *c, pcf_merged *m)
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
    snprintf(src, sizeof src, "pmi2-conform %s, case %s (client side: the harness)",
             PCF_TOOL_VERSION, c->id);
    pmt_add_source(&m->t, src);
    pmt_add_meta(&m->t, "case", c->id);
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, prefix, strlen(prefix)) != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", rs->tracedir, de->d_name);
        pmt_trace one;
        pmt_error e;
        if (pmt_read_file(path, &one, &e) != 0)
            continue;
        for (size_t i = 0; i < one.nevents; i++) {
            pmt_event *ev = &one.events[i];
            pmt_add_event(&m->t, ev->kind, ev->usec, ev->conn, ev->side, ev->data, ev->len);
        }
        pmt_trace_free(&one);
        m->have = true;
    }
    closedir(d);
    if (m->t.nevents > 1)
        qsort(m->t.events, m->t.nevents, sizeof *m->t.events, cmp_ev);
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
