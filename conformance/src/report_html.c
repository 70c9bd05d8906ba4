/* One self-contained HTML page. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

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

int pcf_report_html(pcf_results *rs, const pcf_opts *o, const char *path)
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
        const pcf_clause *cl = pcf_grading_clause(r);
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
            pcf_rerun_note(r, note, sizeof note);
            fprintf(f, "<br><b>Ran again:</b> ");
            html_text(f, note);
        }
        fprintf(f, "</p>\n");
        pcf_merged m;
        pcf_merge_traces(rs, c, &m);
        if (m.have) {
            fprintf(f, "<pre>");
            for (size_t k = 0; k < m.t.nevents; k++) {
                const pmt_event *e = &m.t.events[k];
                fprintf(f, "%10.6f %-4s %-7s ", (double)e->usec / 1e6, e->conn, pcf_ev_name(e));
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

