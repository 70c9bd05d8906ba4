/* Reports: console (grouped by section, h2spec style), TAP, JUnit XML, a
 * JSON directory (index plus one file per case with its wire transcript),
 * one self-contained HTML page, and the summary line. */
#include "internal.h"
#include "pmitrace/trace.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- counts */

static void count(const pcf_results *rs, size_t *c)
{
    memset(c, 0, PCF_V_COUNT * sizeof *c);
    for (size_t i = 0; i < rs->n; i++)
        c[rs->r[i].verdict]++;
}

void pcf_summary_line(const pcf_results *rs, char *buf, size_t n)
{
    size_t c[PCF_V_COUNT];
    count(rs, c);
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
    return err ? PCF_EXIT_USAGE : fail ? PCF_EXIT_NONCONFORMANT : PCF_EXIT_OK;
}

/* ---------------------------------------------------------------- transcripts */

typedef struct merged {
    pmt_trace t;
    bool have;
} merged;

static int cmp_ev(const void *a, const void *b)
{
    const pmt_event *x = a, *y = b;
    if (x->usec != y->usec)
        return x->usec < y->usec ? -1 : 1;
    return strcmp(x->conn, y->conn);
}

/* Join the per-rank traces of a case's first run into one trace. */
static void merge_traces(const pcf_results *rs, const pcf_case *c, merged *m)
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

static const char *ev_name(const pmt_event *e)
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

/* ---------------------------------------------------------------- console */

static const pcf_clause *grading_clause(const pcf_result *r)
{
    const pcf_clause *cl = pcf_clause_get(r->clause);
    return cl ? cl : pcf_clause_get(r->e->c->clause);
}

static void print_indented(FILE *f, const char *lead, const char *text)
{
    const char *p = text ? text : "";
    bool first = true;
    while (*p || first) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(f, "%s%.*s\n", first ? lead : "              ", (int)n, p);
        first = false;
        p += n;
        if (*p == '\n')
            p++;
        if (!*p)
            break;
    }
}

static void expected_text(const pcf_result *r, char *buf, size_t n)
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
static void rerun_note(const pcf_result *r, char *buf, size_t n)
{
    snprintf(buf, n, "ran again %d time%s (--rerun-deviations): %s (%s) the first time",
             r->reruns, r->reruns == 1 ? "" : "s", pcf_verdict_name(r->first_verdict),
             r->first_outcome);
}

/* Every result not printed yet, grouped by section. */
static void console_results(pcf_results *rs, const pcf_opts *o, FILE *f)
{
    const char *sect = "";
    for (size_t i = 0; i < rs->n; i++) {
        pcf_result *r = &rs->r[i];
        if (r->printed)
            continue;
        r->printed = true;
        if (strcmp(sect, r->e->section) != 0) {
            sect = r->e->section;
            fprintf(f, "\n%s\n", sect);
        }
        fprintf(f, "  %-11s %s  %s", pcf_verdict_name(r->verdict), r->e->c->id, r->e->c->desc);
        if (r->verdict == PCF_SKIPPED && r->actual)
            fprintf(f, " (%s)", r->actual);
        if (r->baseline_listed && !r->deviation)
            fprintf(f, " [as in the baseline]");
        fputc('\n', f);
        if (r->reruns) {
            char note[200];
            rerun_note(r, note, sizeof note);
            fprintf(f, "      %s\n", note);
        }
        bool show = pcf_verdict_failing(r->verdict, o->strict) || r->verdict == PCF_NON_STRICT ||
                    r->verdict == PCF_UNSUPPORTED || (o->verbose && r->verdict != PCF_SKIPPED);
        if (o->baseline)
            show = show && r->deviation;
        if (!show)
            continue;
        const pcf_clause *cl = grading_clause(r);
        char lead[64], exp[1200];
        if (cl) {
            snprintf(lead, sizeof lead, "      -> [%s %s] ", cl->id, cl->level_text);
            fprintf(f, "%s%s\n", lead, cl->text);
        }
        expected_text(r, exp, sizeof exp);
        fprintf(f, "      Expected: %s\n", exp);
        print_indented(f, "        Actual: ", r->actual);
        if (r->verdict == PCF_FLAKY)
            fprintf(f, "      (verdicts differed over %d runs; worst %s)\n", r->runs,
                    pcf_verdict_name(r->worst));
        if (r->baseline_listed)
            fprintf(f, "      Baseline expected %s\n", pcf_verdict_name(r->baseline_verdict));
    }
}

static void console(pcf_results *rs, const pcf_opts *o, FILE *f)
{
    console_results(rs, o, f);
    char line[400];
    pcf_summary_line(rs, line, sizeof line);
    if (o->baseline) {
        size_t dev = 0, again = 0;
        for (size_t i = 0; i < rs->n; i++) {
            dev += rs->r[i].deviation;
            again += rs->r[i].reruns && !rs->r[i].deviation;
        }
        fprintf(f, "\nbaseline %s: %zu deviation%s", o->baseline, dev, dev == 1 ? "" : "s");
        if (again)
            fprintf(f, " (%zu case%s matched it only when run again: --rerun-deviations)", again,
                    again == 1 ? "" : "s");
        fputc('\n', f);
    }
    fprintf(f, "\nFinished in %.2f seconds\n%s\n", rs->seconds, line);
}

/* ---------------------------------------------------------------- TAP */

static void tap(const pcf_results *rs, const pcf_opts *o, FILE *f)
{
    fprintf(f, "TAP version 13\n1..%zu\n", rs->n);
    for (size_t i = 0; i < rs->n; i++) {
        const pcf_result *r = &rs->r[i];
        bool bad = o->baseline ? r->deviation : pcf_verdict_failing(r->verdict, o->strict);
        fprintf(f, "%s %zu - %s", bad ? "not ok" : "ok", i + 1, r->e->c->id);
        if (r->verdict == PCF_SKIPPED)
            fprintf(f, " # SKIP %s\n", r->actual ? r->actual : "");
        else if (r->reruns) {
            char note[200];
            rerun_note(r, note, sizeof note);
            fprintf(f, " # %s; %s\n", pcf_verdict_name(r->verdict), note);
        } else
            fprintf(f, " # %s\n", pcf_verdict_name(r->verdict));
        if (!bad)
            continue;
        fprintf(f, "  ---\n  verdict: %s\n  clause: %s\n  outcome: %s\n  actual: |\n",
                pcf_verdict_name(r->verdict), r->clause, r->outcome);
        const char *p = r->actual ? r->actual : "";
        while (*p) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            fprintf(f, "    %.*s\n", (int)n, p);
            p += n + (nl ? 1 : 0);
        }
        fprintf(f, "  ...\n");
    }
}

/* ---------------------------------------------------------------- JUnit */

static void xml(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if (*p < 0x20 && *p != '\n' && *p != '\t')
                fprintf(f, "\\x%02x", *p);
            else
                fputc(*p, f);
        }
    }
}

static int junit(const pcf_results *rs, const pcf_opts *o, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"pmi2-conform\">\n");
    size_t i = 0;
    while (i < rs->n) {
        const char *sect = rs->r[i].e->section;
        size_t j = i, fails = 0, errs = 0, skips = 0;
        for (; j < rs->n && strcmp(rs->r[j].e->section, sect) == 0; j++) {
            int v = rs->r[j].verdict;
            if (v == PCF_SKIPPED)
                skips++;
            else if (v == PCF_ERROR)
                errs++;
            else if (o->baseline ? rs->r[j].deviation : pcf_verdict_failing(v, o->strict))
                fails++;
        }
        fprintf(f, "  <testsuite name=\"");
        xml(f, sect);
        fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n", j - i,
                fails, errs, skips);
        for (size_t k = i; k < j; k++) {
            const pcf_result *r = &rs->r[k];
            fprintf(f, "    <testcase classname=\"");
            xml(f, sect);
            fprintf(f, "\" name=\"");
            xml(f, r->e->c->id);
            fprintf(f, "\" time=\"%.3f\">\n", (double)r->usec / 1e6);
            const pcf_clause *cl = grading_clause(r);
            if (r->verdict == PCF_SKIPPED) {
                fprintf(f, "      <skipped message=\"");
                xml(f, r->actual);
                fprintf(f, "\"/>\n");
            } else if (r->verdict == PCF_ERROR ||
                       (o->baseline ? r->deviation : pcf_verdict_failing(r->verdict, o->strict))) {
                const char *tag = r->verdict == PCF_ERROR ? "error" : "failure";
                fprintf(f, "      <%s type=\"%s\" message=\"", tag, pcf_verdict_name(r->verdict));
                xml(f, r->e->c->desc);
                fprintf(f, "\">");
                if (cl) {
                    fprintf(f, "[%s %s] ", cl->id, cl->level_text);
                    xml(f, cl->text);
                }
                fprintf(f, "\nExpect:\n");
                xml(f, r->e->c->expected);
                fprintf(f, "\nActual:\n");
                xml(f, r->actual);
                fprintf(f, "</%s>\n", tag);
            }
            fprintf(f, "      <properties><property name=\"verdict\" value=\"%s\"/>"
                       "<property name=\"clause\" value=\"",
                    pcf_verdict_name(r->verdict));
            xml(f, r->clause);
            fprintf(f, "\"/>");
            if (r->reruns) {
                char note[200];
                rerun_note(r, note, sizeof note);
                fprintf(f, "<property name=\"rerun\" value=\"");
                xml(f, note);
                fprintf(f, "\"/>");
            }
            fprintf(f, "</properties>\n    </testcase>\n");
        }
        fprintf(f, "  </testsuite>\n");
        i = j;
    }
    fprintf(f, "</testsuites>\n");
    return fclose(f) == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- JSON dir */

static void json_transcript(FILE *f, const merged *m)
{
    fprintf(f, "[");
    for (size_t i = 0; i < m->t.nevents; i++) {
        const pmt_event *e = &m->t.events[i];
        fprintf(f, "%s\n    { \"t\": %.6f, \"conn\": ", i ? "," : "", (double)e->usec / 1e6);
        pcf_json_cstr(f, e->conn);
        fprintf(f, ", \"event\": \"%s\"", ev_name(e));
        if (e->data) {
            fprintf(f, ", \"data\": ");
            pcf_json_str(f, e->data, e->len);
        }
        fprintf(f, " }");
    }
    fprintf(f, "%s]", m->t.nevents ? "\n  " : "");
}

static int json_dir(pcf_results *rs, const pcf_opts *o)
{
    mkdir(o->json_dir, 0777);
    char path[1024];
    for (size_t i = 0; i < rs->n; i++) {
        pcf_result *r = &rs->r[i];
        const pcf_case *c = r->e->c;
        char safe[160];
        pcf_safe_name(c->id, safe, sizeof safe);
        merged m;
        merge_traces(rs, c, &m);
        if (m.have) {
            snprintf(path, sizeof path, "%s/%s.trace", o->json_dir, safe);
            FILE *tf = fopen(path, "w");
            if (tf) {
                pmt_write(tf, &m.t, NULL, NULL);
                fclose(tf);
                free(r->trace);
                r->trace = strdup(path);
            }
        }
        snprintf(path, sizeof path, "%s/%s.json", o->json_dir, safe);
        FILE *f = fopen(path, "w");
        if (!f) {
            pmt_trace_free(&m.t);
            return -1;
        }
        const pcf_clause *cl = pcf_clause_get(c->clause);
        fprintf(f, "{\n  \"id\": ");
        pcf_json_cstr(f, c->id);
        fprintf(f, ",\n  \"section\": ");
        pcf_json_cstr(f, r->e->section);
        fprintf(f, ",\n  \"description\": ");
        pcf_json_cstr(f, c->desc);
        fprintf(f, ",\n  \"clause\": ");
        pcf_json_cstr(f, c->clause);
        fprintf(f, ",\n  \"level\": ");
        pcf_json_cstr(f, cl ? cl->level_text : "");
        fprintf(f, ",\n  \"requirement\": ");
        pcf_json_cstr(f, cl ? cl->text : "");
        fprintf(f, ",\n  \"expected\": ");
        pcf_json_cstr(f, c->expected);
        fprintf(f, ",\n  \"outcomes\": [");
        for (int k = 0; k < PCF_MAX_OUTCOMES && c->outcomes[k].name; k++) {
            const pcf_outcome *oc = &c->outcomes[k];
            fprintf(f, "%s{ \"outcome\": ", k ? ", " : "");
            pcf_json_cstr(f, oc->name);
            fprintf(f, ", \"verdict\": \"%s\", \"clause\": ",
                    oc->verdict == PCF_DEVIATES ? "by clause level" : pcf_verdict_name(oc->verdict));
            pcf_json_cstr(f, oc->clause ? oc->clause : c->clause);
            fprintf(f, " }");
        }
        fprintf(f, "],\n  \"verdict\": \"%s\",\n  \"outcome\": ", pcf_verdict_name(r->verdict));
        pcf_json_cstr(f, r->outcome);
        fprintf(f, ",\n  \"graded_by\": ");
        pcf_json_cstr(f, r->clause);
        fprintf(f, ",\n  \"actual\": ");
        pcf_json_cstr(f, r->actual);
        fprintf(f, ",\n  \"runs\": %d,\n  \"duration_ms\": %.3f,\n  \"trace\": ", r->runs,
                (double)r->usec / 1e3);
        if (m.have) {
            char tn[200];
            snprintf(tn, sizeof tn, "%s.trace", safe);
            pcf_json_cstr(f, tn);
        } else {
            fprintf(f, "null");
        }
        fprintf(f, ",\n  \"transcript\": ");
        json_transcript(f, &m);
        fprintf(f, "\n}\n");
        fclose(f);
        pmt_trace_free(&m.t);
    }
    snprintf(path, sizeof path, "%s/index.json", o->json_dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    char line[400];
    pcf_summary_line(rs, line, sizeof line);
    size_t c[PCF_V_COUNT];
    count(rs, c);
    fprintf(f, "{\n  \"tool\": \"pmi2-conform\",\n  \"version\": \"%s\",\n  \"target\": ",
            PCF_TOOL_VERSION);
    pcf_json_cstr(f, rs->target);
    fprintf(f, ",\n  \"strict\": %s,\n  \"seconds\": %.3f,\n  \"summary\": ",
            o->strict ? "true" : "false", rs->seconds);
    pcf_json_cstr(f, line);
    fprintf(f, ",\n  \"counts\": {");
    for (int v = 0; v < PCF_V_COUNT; v++)
        fprintf(f, "%s\"%s\": %zu", v ? ", " : " ", pcf_verdict_name(v), c[v]);
    fprintf(f, " },\n  \"exit_code\": %d,\n  \"cases\": {", pcf_exit_code(rs, o));
    for (size_t i = 0; i < rs->n; i++) {
        const pcf_result *r = &rs->r[i];
        char safe[160];
        pcf_safe_name(r->e->c->id, safe, sizeof safe);
        fprintf(f, "%s\n    ", i ? "," : "");
        pcf_json_cstr(f, r->e->c->id);
        fprintf(f, ": { \"verdict\": \"%s\", \"outcome\": ", pcf_verdict_name(r->verdict));
        pcf_json_cstr(f, r->outcome);
        fprintf(f, ", \"clause\": ");
        pcf_json_cstr(f, r->e->c->clause);
        fprintf(f, ", \"duration_ms\": %.3f, \"report\": \"%s.json\"", (double)r->usec / 1e3,
                safe);
        if (o->baseline)
            fprintf(f, ", \"deviation\": %s", r->deviation ? "true" : "false");
        if (r->reruns) {
            fprintf(f, ", \"reruns\": %d, \"first_verdict\": \"%s\", \"first_outcome\": ",
                    r->reruns, pcf_verdict_name(r->first_verdict));
            pcf_json_cstr(f, r->first_outcome);
        }
        fprintf(f, " }");
    }
    fprintf(f, "\n  }\n}\n");
    return fclose(f) == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- HTML */

static void html_esc(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '<')
            fputs("&lt;", f);
        else if (ch == '>')
            fputs("&gt;", f);
        else if (ch == '&')
            fputs("&amp;", f);
        else if (ch == '"')
            fputs("&quot;", f);
        else if (ch == '\n')
            fputs("\\n", f);
        else if (ch < 0x20 || ch >= 0x7f)
            fprintf(f, "\\x%02x", ch);
        else
            fputc(ch, f);
    }
}

static void html_text(FILE *f, const char *s)
{
    for (const char *p = s ? s : ""; *p; p++) {
        if (*p == '\n')
            fputs("<br>", f);
        else
            html_esc(f, p, 1);
    }
}

static int html(pcf_results *rs, const pcf_opts *o, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    char line[400];
    pcf_summary_line(rs, line, sizeof line);
    fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>pmi2-conform "
               "report</title>\n<style>\n"
               "body{font-family:sans-serif;margin:1.5em;color:#222}"
               "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;"
               "text-align:center}th.s,td.s{text-align:left}"
               ".PASS{background:#cfc}.FAIL{background:#f99}.NON-STRICT{background:#fe9}"
               ".UNSUPPORTED{background:#ddd}.INFO{background:#cdf}.ERROR{background:#f6c}"
               ".TIMEOUT{background:#fa6}.SKIPPED{background:#eee}.FLAKY{background:#c9f}"
               "details{margin:2px 0}summary{cursor:pointer}pre{background:#f7f7f7;padding:6px;"
               "overflow-x:auto;font-size:12px}.v{display:inline-block;width:8.5em;"
               "font-weight:bold;padding:0 4px}\n</style></head><body>\n"
               "<h1>pmi2-conform report</h1>\n<p>Target: ");
    html_text(f, rs->target);
    fprintf(f, "<br>%s (%.2f s)%s</p>\n", line, rs->seconds, o->strict ? " &mdash; strict" : "");
    /* matrix: sections x verdicts */
    fprintf(f, "<table><tr><th class=\"s\">section</th>");
    for (int v = 0; v < PCF_V_COUNT; v++)
        fprintf(f, "<th>%s</th>", pcf_verdict_name(v));
    fprintf(f, "</tr>\n");
    for (size_t i = 0; i < rs->n;) {
        const char *sect = rs->r[i].e->section;
        size_t cnt[PCF_V_COUNT] = { 0 }, j = i;
        for (; j < rs->n && strcmp(rs->r[j].e->section, sect) == 0; j++)
            cnt[rs->r[j].verdict]++;
        fprintf(f, "<tr><td class=\"s\"><a href=\"#s-");
        html_esc(f, sect, strlen(sect));
        fprintf(f, "\">");
        html_esc(f, sect, strlen(sect));
        fprintf(f, "</a></td>");
        for (int v = 0; v < PCF_V_COUNT; v++)
            fprintf(f, "<td class=\"%s\">%s%zu</td>", cnt[v] ? pcf_verdict_name(v) : "",
                    cnt[v] ? "" : "", cnt[v]);
        fprintf(f, "</tr>\n");
        i = j;
    }
    fprintf(f, "</table>\n");
    const char *sect = "";
    for (size_t i = 0; i < rs->n; i++) {
        const pcf_result *r = &rs->r[i];
        const pcf_case *c = r->e->c;
        if (strcmp(sect, r->e->section) != 0) {
            sect = r->e->section;
            fprintf(f, "<h2 id=\"s-");
            html_esc(f, sect, strlen(sect));
            fprintf(f, "\">");
            html_esc(f, sect, strlen(sect));
            fprintf(f, "</h2>\n");
        }
        fprintf(f, "<details><summary><span class=\"v %s\">%s</span> <code>",
                pcf_verdict_name(r->verdict), pcf_verdict_name(r->verdict));
        html_esc(f, c->id, strlen(c->id));
        fprintf(f, "</code> &mdash; ");
        html_text(f, c->desc);
        fprintf(f, "</summary>\n<p>");
        const pcf_clause *cl = grading_clause(r);
        if (cl) {
            fprintf(f, "<b>[%s %s]</b> ", cl->id, cl->level_text);
            html_text(f, cl->text);
        }
        fprintf(f, "<br><b>Expected:</b> ");
        html_text(f, c->expected);
        fprintf(f, "<br><b>Outcome:</b> ");
        html_text(f, r->outcome);
        fprintf(f, "<br><b>Actual:</b> ");
        html_text(f, r->actual);
        if (r->reruns) {
            char note[200];
            rerun_note(r, note, sizeof note);
            fprintf(f, "<br><b>Ran again:</b> ");
            html_text(f, note);
        }
        fprintf(f, "</p>\n");
        merged m;
        merge_traces(rs, c, &m);
        if (m.have) {
            fprintf(f, "<pre>");
            for (size_t k = 0; k < m.t.nevents; k++) {
                const pmt_event *e = &m.t.events[k];
                fprintf(f, "%10.6f %-4s %-7s ", (double)e->usec / 1e6, e->conn, ev_name(e));
                /* a 1 MB frame once per case made the page 2 MB: its head is
                 * enough here, the whole of it is in the case's trace */
                enum { HTML_EVENT_MAX = 4096 };
                if (e->data)
                    html_esc(f, e->data, e->len > HTML_EVENT_MAX ? HTML_EVENT_MAX : e->len);
                if (e->data && e->len > HTML_EVENT_MAX)
                    fprintf(f, " ... (%zu bytes in all; the case's trace has them)", (size_t)e->len);
                fputc('\n', f);
            }
            fprintf(f, "</pre>\n");
        }
        pmt_trace_free(&m.t);
        fprintf(f, "</details>\n");
    }
    fprintf(f, "</body></html>\n");
    return fclose(f) == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- all */

/* Registry order: the entries array is sorted, so entry addresses are. */
static int cmp_result(const void *a, const void *b)
{
    const pcf_result *x = a, *y = b;
    return x->e < y->e ? -1 : x->e > y->e;
}

void pcf_report_files(pcf_results *rs, const pcf_opts *o)
{
    if (rs->n)
        qsort(rs->r, rs->n, sizeof *rs->r, cmp_result);
    if (o->junit)
        junit(rs, o, o->junit);
    if (o->json_dir)
        json_dir(rs, o);
    if (o->html)
        html(rs, o, o->html);
}

void pcf_report_so_far(pcf_results *rs, const pcf_opts *o, FILE *f, const char *then)
{
    if (o->tap || o->quiet)
        return;
    if (rs->n)
        qsort(rs->r, rs->n, sizeof *rs->r, cmp_result);
    if (o->baseline) /* deviations decide what is shown; pcf_report says them */
        pcf_baseline_apply(rs, o->baseline, o->strict, NULL);
    console_results(rs, o, f);
    if (then)
        fprintf(f, "\n%s\n", then);
    fflush(f);
}

int pcf_report(pcf_results *rs, const pcf_opts *o, FILE *f)
{
    int bad = 0;
    if (rs->n)
        qsort(rs->r, rs->n, sizeof *rs->r, cmp_result);
    if (o->baseline && pcf_baseline_apply(rs, o->baseline, o->strict, stderr) != 0)
        bad = 1;
    if (o->tap)
        tap(rs, o, f);
    else if (!o->quiet)
        console(rs, o, f);
    else {
        char line[400];
        pcf_summary_line(rs, line, sizeof line);
        fprintf(f, "%s\n", line);
    }
    fflush(f);
    if (o->junit && junit(rs, o, o->junit) != 0) {
        fprintf(stderr, "pmi2-conform: cannot write %s\n", o->junit);
        bad = 1;
    }
    if (o->json_dir && json_dir(rs, o) != 0) {
        fprintf(stderr, "pmi2-conform: cannot write the JSON report in %s\n", o->json_dir);
        bad = 1;
    }
    if (o->html && html(rs, o, o->html) != 0) {
        fprintf(stderr, "pmi2-conform: cannot write %s\n", o->html);
        bad = 1;
    }
    if (o->write_baseline && pcf_baseline_write(rs, o->write_baseline) != 0) {
        fprintf(stderr, "pmi2-conform: cannot write %s\n", o->write_baseline);
        bad = 1;
    }
    char why[600];
    if (pcf_run_unusable(rs, why, sizeof why))
        fprintf(stderr, "pmi2-conform: exit status 2: %s\n", why);
    return bad ? PCF_EXIT_USAGE : pcf_exit_code(rs, o);
}

/* ---------------------------------------------------------------- progress */

static struct {
    uint64_t t0;
    size_t done, total;
    char id[240];
    uint64_t plain_at; /* when the last plain line went out */
} prog;

/* Not on a terminal: a plain line now and then (every PLAIN_EVERY_US),
 * so a log shows a long run moving without a line per case. */
enum { PLAIN_EVERY_US = 5000000 };

static void plain_progress(const char *note)
{
    uint64_t now = pws_now_usec();
    if (!prog.t0)
        prog.t0 = now;
    if (now - (prog.plain_at ? prog.plain_at : prog.t0) < PLAIN_EVERY_US)
        return;
    prog.plain_at = now;
    fprintf(stderr, "pmi2-conform: progress: %zu/%zu cases, %u s, running %s%s%s\n",
            prog.done, prog.total, (unsigned)((now - prog.t0) / 1000000),
            prog.id[0] ? prog.id : "-", note ? ": " : "", note ? note : "");
    fflush(stderr);
}

/* "[done/total elapsed] id[: note]" from the start of the line */
static void draw_progress(const char *note)
{
    if (!prog.t0)
        prog.t0 = pws_now_usec();
    fprintf(stderr, "\r\033[K[%zu/%zu %us] %s%s%s", prog.done + 1 > prog.total ? prog.total
            : prog.done + 1, prog.total, (unsigned)((pws_now_usec() - prog.t0) / 1000000),
            prog.id, note ? ": " : "", note ? note : "");
    fflush(stderr);
}

void pcf_progress(const pcf_opts *o, size_t done, size_t total, const char *id)
{
    if (!o->progress && !o->progress_plain)
        return;
    prog.done = done;
    prog.total = total;
    snprintf(prog.id, sizeof prog.id, "%s", id);
    if (o->progress)
        draw_progress(NULL);
    else
        plain_progress(NULL);
}

void pcf_notice(const pcf_opts *o, const char *fmt, ...)
{
    if (o->progress)
        fputs("\r\033[K", stderr); /* the progress line gives way, and comes back */
    fputs("pmi2-conform: ", stderr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (o->progress && prog.t0)
        draw_progress(NULL);
    fflush(stderr);
}

void pcf_progress_note(const pcf_opts *o, const char *fmt, ...)
{
    if (!o->progress && !o->progress_plain)
        return;
    char note[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note, sizeof note, fmt, ap);
    va_end(ap);
    if (o->progress)
        draw_progress(note);
    else
        plain_progress(note);
}

void pcf_progress_end(const pcf_opts *o)
{
    if (o->progress) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
}
