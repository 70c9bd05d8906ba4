/* One self-contained HTML page: the run's verdict and facts at the top, the
 * failures first, a filter by verdict and section, then every case by
 * section with its transcript. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "report.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* s as UTF-8 text (the page's charset).  A byte that is not text (a control
 * character, not well-formed UTF-8) is shown as \xNN, set apart so that it
 * is not read as those four characters: wire bytes stay exact.  nl: what a
 * newline becomes. */
static void html_put(FILE *f, const char *s, size_t n, const char *nl)
{
    bool esc = false; /* inside the span of escaped bytes */
    for (size_t i = 0; i < n;) {
        unsigned cp = 0;
        size_t k = pcf_utf8_seq(s + i, n - i, &cp);
        bool text = k && (cp == '\n' || (cp >= 0x20 && cp != 0x7f && (cp < 0x80 || cp >= 0xa0)));
        if (!text) {
            if (!esc)
                fputs("<span class=\"x\">", f);
            esc = true;
            for (size_t j = 0; j < (k ? k : 1); j++) /* a C1 control: its bytes */
                fprintf(f, "\\x%02x", (unsigned char)s[i + j]);
            i += k ? k : 1;
            continue;
        }
        if (esc)
            fputs("</span>", f);
        esc = false;
        switch (cp) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\n': fputs(nl, f); break;
        default: fwrite(s + i, 1, k, f);
        }
        i += k;
    }
    if (esc)
        fputs("</span>", f);
}

static void html_text(FILE *f, const char *s)
{
    html_put(f, s ? s : "", s ? strlen(s) : 0, "<br>");
}

/* A path as an href: every byte but [A-Za-z0-9/._~-] percent-encoded. */
static void href_put(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
            strchr("/._~-", ch))
            fputc(ch, f);
        else
            fprintf(f, "%%%02X", ch);
    }
}

/* The --json directory as seen from the page's directory: relative when both
 * resolve, else absolute (out: n bytes). */
static void json_dir_href(const pcf_opts *o, char *out, size_t n)
{
    char page_dir[PATH_MAX], from[PATH_MAX], to[PATH_MAX];
    snprintf(page_dir, sizeof page_dir, "%s", o->html);
    char *slash = strrchr(page_dir, '/');
    if (!slash)
        snprintf(page_dir, sizeof page_dir, ".");
    else if (slash == page_dir)
        slash[1] = 0; /* "/report.html" */
    else
        *slash = 0;
    if (!realpath(o->json_dir, to)) {
        snprintf(out, n, "%s", o->json_dir); /* not there: as given, the best guess */
        return;
    }
    if (!realpath(page_dir, from)) {
        snprintf(out, n, "%s", to);
        return;
    }
    if (strcmp(from, "/") == 0)
        from[0] = 0; /* its components are none, not one empty one */
    /* the longest common run of whole components, then ".." for each left in from */
    size_t common = 0;
    for (size_t i = 0;; i++) {
        bool end_from = from[i] == 0 || from[i] == '/', end_to = to[i] == 0 || to[i] == '/';
        if (end_from && end_to)
            common = i;
        if (from[i] != to[i] || !from[i])
            break;
    }
    size_t k = 0;
    out[0] = 0;
    for (const char *p = from + common; *p && k < n; p++)
        if (*p == '/')
            k += (size_t)snprintf(out + k, n - k, "%s..", k ? "/" : "");
    const char *rest = to + common + (to[common] == '/');
    if (k < n)
        snprintf(out + k, n - k, "%s%s", k && *rest ? "/" : "", *rest || k ? rest : ".");
}

/* Where a case goes in the failures list: 1 failing, 2 NON-STRICT, 3 another
 * deviation from the baseline, 0 not there. */
static int failure_rank(const pcf_result *r, const pcf_opts *o)
{
    if (r->verdict == PCF_FAIL || r->verdict == PCF_TIMEOUT || r->verdict == PCF_ERROR ||
        r->verdict == PCF_FLAKY)
        return 1;
    if (r->verdict == PCF_NON_STRICT)
        return 2;
    return o->baseline && r->deviation ? 3 : 0;
}

/* "; was PASS in the baseline" for a deviating case. */
static void baseline_note(FILE *f, const pcf_result *r, const pcf_opts *o)
{
    if (!o->baseline || !r->deviation)
        return;
    char b[80];
    if (r->baseline_listed)
        fprintf(f, " <span class=\"dev\">baseline: %s &rarr; %s</span>",
                pcf_baseline_text(r, b, sizeof b), pcf_verdict_name(r->verdict));
    else
        fprintf(f, " <span class=\"dev\">not in the baseline</span>");
}

/* Links to the case's reproducer (DIR/repro/<safe id>/ of --json). */
static void repro_links(FILE *f, const pcf_result *r, const char *json_href)
{
    if (!json_href || r->verdict == PCF_PASS || r->verdict == PCF_SKIPPED ||
        strncmp(r->e->c->id, "client/", 7) == 0) /* client cases have none yet */
        return;
    char safe[160];
    pcf_safe_name(r->e->c->id, safe, sizeof safe);
    static const char *const files[] = { "README", "replay.sh" };
    for (int i = 0; i < 2; i++) {
        fputs(i ? " &middot; <a href=\"" : "<a href=\"", f);
        href_put(f, json_href);
        fputs("/repro/", f);
        href_put(f, safe);
        fprintf(f, "/%s\">%s</a>", files[i], files[i]);
    }
}

static const char style[] =
    "body{font-family:sans-serif;margin:1.5em;color:#222}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;"
    "text-align:center}th.s,td.s,.facts td,.facts th,.fails td{text-align:left}"
    ".facts th{background:#f3f3f3}"
    ".PASS{background:#cfc}.FAIL{background:#f99}.NON-STRICT{background:#fe9}"
    ".UNSUPPORTED{background:#ddd}.INFO{background:#cdf}.ERROR{background:#f6c}"
    ".TIMEOUT{background:#fa6}.SKIPPED{background:#eee}.FLAKY{background:#c9f}"
    ".run{display:inline-block;font-size:1.4em;font-weight:bold;padding:4px 12px;"
    "border-radius:4px}.conformant{background:#9d9}.non-conformant{background:#f77}"
    ".incomplete{background:#fc6}"
    ".x{color:#a0a;background:#f0e0f0}.dev{color:#a00;font-weight:bold}"
    "#filter{background:#f3f3f3;padding:6px;margin:1em 0;position:sticky;top:0}#filter label{margin-right:8px;"
    "white-space:nowrap}[hidden]{display:none!important}"
    "details{margin:2px 0}summary{cursor:pointer}pre{background:#f7f7f7;padding:6px;"
    "overflow-x:auto;font-size:12px}.v{display:inline-block;width:8.5em;"
    "font-weight:bold;padding:0 4px}";

/* The filter: every element with data-v (verdict) and data-s (section)
 * shown when both are selected; a section with no case shown is hidden; a
 * link to a case opens it. */
static const char script[] =
    "function pcfFilter(){"
    "var on={},s=document.getElementById('fsect').value,n=0;"
    "document.querySelectorAll('#filter input[type=checkbox]').forEach(function(c){"
    "on[c.value]=c.checked});"
    "document.querySelectorAll('[data-v]').forEach(function(e){"
    "var show=on[e.dataset.v]&&(!s||e.dataset.s===s);e.hidden=!show;"
    "if(show&&e.tagName==='DETAILS')n++});"
    "document.querySelectorAll('section[data-s]').forEach(function(e){"
    "e.hidden=!e.querySelector('details:not([hidden])')});"
    "document.getElementById('fcount').textContent=n+' of '+"
    "document.querySelectorAll('details[data-v]').length+' cases shown'}"
    "function pcfOnly(vs){document.querySelectorAll('#filter input[type=checkbox]')"
    ".forEach(function(c){c.checked=!vs||vs.indexOf(c.value)>=0});pcfFilter()}"
    "function pcfOpen(){var e=location.hash&&document.getElementById("
    "decodeURIComponent(location.hash.slice(1)));if(e&&e.tagName==='DETAILS'){"
    "e.hidden=false;e.open=true;e.scrollIntoView()}}"
    "window.addEventListener('hashchange',pcfOpen);"
    "document.addEventListener('DOMContentLoaded',function(){pcfFilter();pcfOpen()});";

static void facts(FILE *f, pcf_results *rs, const pcf_opts *o)
{
    char why[600], line[400];
    const char *run = pcf_run_verdict(rs, o, why, sizeof why);
    fprintf(f, "<p><span class=\"run %s\">%s</span> ", run, run);
    html_text(f, why);
    fprintf(f, "</p>\n<table class=\"facts\">\n<tr><th>exit status</th><td>%d: ",
            pcf_exit_code(rs, o));
    pcf_exit_meaning(rs, o, why, sizeof why);
    html_text(f, why);
    fprintf(f, "</td></tr>\n<tr><th>target</th><td><code>");
    html_text(f, rs->target);
    fprintf(f, "</code></td></tr>\n<tr><th>command line</th><td><code>");
    html_text(f, o->cmdline);
    fprintf(f, "</code></td></tr>\n<tr><th>tool</th><td>pmi2-conform %s</td></tr>\n"
               "<tr><th>date</th><td>%s, %.2f s</td></tr>\n<tr><th>cases</th><td>",
            PCF_TOOL_VERSION, pcf_run_date(rs), rs->seconds);
    pcf_summary_line(rs, line, sizeof line);
    html_text(f, line);
    fprintf(f, "%s</td></tr>\n", o->strict ? " (--strict: NON-STRICT fails)" : "");
    if (rs->nodes > 0) { /* the node map the ranks learned (the widest launch) */
        fprintf(f, "<tr><th>nodes</th><td>%d: ", rs->nodes);
        html_text(f, rs->hosts);
        fprintf(f, "</td></tr>\n");
    }
    for (size_t k = 0; k < rs->nalt; k++) { /* --nodes 1,2: the further shapes */
        fprintf(f, "<tr><th>--nodes %d</th><td>", rs->alt[k].nodes_asked);
        pcf_summary_line(&rs->alt[k], line, sizeof line);
        html_text(f, line);
        fprintf(f, " (the placement-dependent cases; verdicts in the console and JSON reports)"
                   "</td></tr>\n");
    }
    if (o->baseline) {
        fprintf(f, "<tr><th>baseline</th><td><code>");
        html_text(f, o->baseline);
        fprintf(f, "</code></td></tr>\n");
    }
    fprintf(f, "</table>\n");
}

static void failures(FILE *f, const pcf_results *rs, const pcf_opts *o, const char *json_href)
{
    size_t n = 0;
    for (size_t i = 0; i < rs->n; i++)
        n += failure_rank(&rs->r[i], o) != 0;
    fprintf(f, "<h2 id=\"failures\">Failures (%zu)</h2>\n", n);
    if (!n) {
        fprintf(f, "<p>None: no case failed, none is NON-STRICT%s.</p>\n",
                o->baseline ? ", none deviates from the baseline" : "");
        return;
    }
    fprintf(f, "<table class=\"fails\"><tr><th>verdict</th><th>case</th><th>clause</th>"
               "<th>outcome</th>%s</tr>\n", json_href ? "<th>reproducer</th>" : "");
    for (int rank = 1; rank <= 3; rank++)
        for (size_t i = 0; i < rs->n; i++) {
            const pcf_result *r = &rs->r[i];
            if (failure_rank(r, o) != rank)
                continue;
            const char *v = pcf_verdict_name(r->verdict);
            const pcf_clause *cl = pcf_grading_clause(r);
            fprintf(f, "<tr data-v=\"%s\" data-s=\"", v);
            html_text(f, r->e->section);
            fprintf(f, "\"><td class=\"%s\">%s</td><td><a href=\"#c-", v, v);
            html_text(f, r->e->c->id);
            fprintf(f, "\"><code>");
            html_text(f, r->e->c->id);
            fprintf(f, "</code></a></td><td>%s %s</td><td>", cl ? cl->id : "",
                    cl ? cl->level_text : "");
            html_text(f, r->outcome);
            baseline_note(f, r, o);
            fprintf(f, "</td>");
            if (json_href) {
                fprintf(f, "<td>");
                repro_links(f, r, json_href);
                fprintf(f, "</td>");
            }
            fprintf(f, "</tr>\n");
        }
    fprintf(f, "</table>\n");
}

static void filter(FILE *f, const pcf_results *rs)
{
    size_t c[PCF_V_COUNT];
    pcf_count_verdicts(rs, c);
    fprintf(f, "<div id=\"filter\"><b>Show:</b> ");
    for (int v = 0; v < PCF_V_COUNT; v++)
        if (c[v])
            fprintf(f, "<label class=\"%s\"><input type=\"checkbox\" value=\"%s\" checked "
                       "onchange=\"pcfFilter()\">%s (%zu)</label>",
                    pcf_verdict_name(v), pcf_verdict_name(v), pcf_verdict_name(v), c[v]);
    fprintf(f, "<button onclick=\"pcfOnly(['FAIL','TIMEOUT','ERROR','FLAKY','NON-STRICT'])\">"
               "failures only</button> <button onclick=\"pcfOnly(null)\">all</button> "
               "<label>section <select id=\"fsect\" onchange=\"pcfFilter()\">"
               "<option value=\"\">all</option>");
    for (size_t i = 0; i < rs->n; i++)
        if (i == 0 || strcmp(rs->r[i].e->section, rs->r[i - 1].e->section) != 0) {
            fprintf(f, "<option>");
            html_text(f, rs->r[i].e->section);
            fprintf(f, "</option>");
        }
    fprintf(f, "</select></label> <span id=\"fcount\"></span></div>\n");
}

static void matrix(FILE *f, const pcf_results *rs)
{
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
        html_text(f, sect);
        fprintf(f, "\">");
        html_text(f, sect);
        fprintf(f, "</a></td>");
        for (int v = 0; v < PCF_V_COUNT; v++)
            fprintf(f, "<td class=\"%s\">%zu</td>", cnt[v] ? pcf_verdict_name(v) : "", cnt[v]);
        fprintf(f, "</tr>\n");
        i = j;
    }
    fprintf(f, "</table>\n");
}

static void one_case(FILE *f, const pcf_results *rs, const pcf_result *r, const pcf_opts *o,
                     const char *json_href)
{
    const pcf_case *c = r->e->c;
    const char *v = pcf_verdict_name(r->verdict);
    fprintf(f, "<details id=\"c-");
    html_text(f, c->id);
    fprintf(f, "\" data-v=\"%s\" data-s=\"", v);
    html_text(f, r->e->section);
    fprintf(f, "\"><summary><span class=\"v %s\">%s</span> <code>", v, v);
    html_text(f, c->id);
    fprintf(f, "</code> &mdash; ");
    html_text(f, c->desc);
    baseline_note(f, r, o);
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
    if (json_href && failure_rank(r, o) && r->verdict != PCF_PASS) { /* as in the list */
        fprintf(f, "<br><b>Reproducer:</b> ");
        repro_links(f, r, json_href);
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
                html_put(f, e->data, e->len > HTML_EVENT_MAX ? HTML_EVENT_MAX : e->len,
                         "<span class=\"x\">\\n</span>");
            if (e->data && e->len > HTML_EVENT_MAX)
                fprintf(f, " ... (%zu bytes in all; the case's trace has them)", (size_t)e->len);
            fputc('\n', f);
        }
        fprintf(f, "</pre>\n");
    }
    pmt_trace_free(&m.t);
    fprintf(f, "</details>\n");
}

int pcf_report_html(pcf_results *rs, const pcf_opts *o, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    char json_href[PATH_MAX * 2];
    if (o->json_dir)
        json_dir_href(o, json_href, sizeof json_href);
    const char *jh = o->json_dir ? json_href : NULL;
    fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>pmi2-conform "
               "report</title>\n<style>\n%s\n</style>\n<script>\n%s\n</script></head><body>\n"
               "<h1>pmi2-conform report</h1>\n", style, script);
    facts(f, rs, o);
    filter(f, rs); /* above both lists: it filters both */
    failures(f, rs, o, jh);
    fprintf(f, "<h2>All cases, by section</h2>\n");
    matrix(f, rs);
    for (size_t i = 0; i < rs->n; i++) {
        const char *sect = rs->r[i].e->section;
        if (i == 0 || strcmp(sect, rs->r[i - 1].e->section) != 0) {
            fprintf(f, "%s<section data-s=\"", i ? "</section>\n" : "");
            html_text(f, sect);
            fprintf(f, "\"><h2 id=\"s-");
            html_text(f, sect);
            fprintf(f, "\">");
            html_text(f, sect);
            fprintf(f, "</h2>\n");
        }
        one_case(f, rs, &rs->r[i], o, jh);
    }
    fprintf(f, "%s</body></html>\n", rs->n ? "</section>\n" : "");
    return fclose(f) == 0 ? 0 : -1;
}
