/* The console report: grouped by section, h2spec style. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

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

/* The verdicts whose every case is shown in full: what a server author acts on. */
static bool detailed(const pcf_result *r, const pcf_opts *o)
{
    if (o->baseline)
        return r->deviation;
    return pcf_verdict_failing(r->verdict, o->strict) || r->verdict == PCF_NON_STRICT ||
           r->verdict == PCF_ERROR || r->verdict == PCF_INFO;
}

static void case_line(const pcf_result *r, FILE *f)
{
    char mark[80];
    pcf_baseline_mark(r, mark, sizeof mark);
    fprintf(f, "  %-11s %s  %s", pcf_verdict_name(r->verdict), r->e->c->id, r->e->c->desc);
    if ((r->verdict == PCF_SKIPPED || r->verdict == PCF_UNSUPPORTED) && r->actual)
        fprintf(f, " (%s)", r->actual);
    if (mark[0])
        fprintf(f, " %s", mark);
    else if (r->baseline_listed && r->verdict != PCF_PASS)
        fprintf(f, " [as in the baseline]");
    fputc('\n', f);
    if (r->reruns) {
        char note[200];
        pcf_rerun_note(r, note, sizeof note);
        fprintf(f, "      %s\n", note);
    }
}

static void case_detail(const pcf_result *r, FILE *f)
{
    if (r->verdict == PCF_INFO && !r->deviation) { /* a MAY: what happened is enough */
        print_indented(f, "        Actual: ", r->actual);
        return;
    }
    const pcf_clause *cl = pcf_grading_clause(r);
    char exp[1200];
    if (cl)
        fprintf(f, "      -> [%s %s] %s\n", cl->id, cl->level_text, cl->text);
    pcf_expected_text(r, exp, sizeof exp);
    fprintf(f, "      Expected: %s\n", exp);
    print_indented(f, "        Actual: ", r->actual);
    if (r->verdict == PCF_FLAKY)
        fprintf(f, "      (verdicts differed over %d runs; worst %s)\n", r->runs,
                pcf_verdict_name(r->worst));
    char b[80];
    if (r->baseline_listed)
        fprintf(f, "      Baseline expected %s\n", pcf_baseline_text(r, b, sizeof b));
}

/* UNSUPPORTED or SKIPPED cases of a section not shown one by one: one line,
 * with the reason when they share one. */
static void collapsed_line(pcf_result *const *v, size_t n, int verdict, FILE *f)
{
    const char *why = v[0]->actual ? v[0]->actual : "";
    bool same = true;
    for (size_t k = 1; k < n && same; k++)
        same = strcmp(why, v[k]->actual ? v[k]->actual : "") == 0;
    char one[300];
    pcf_one_line(one, sizeof one, why);
    fprintf(f, "  %-11s %zu cases%s%s%s\n", pcf_verdict_name(verdict), n,
            *one ? (same ? " (" : " (the first: ") : "", one, *one ? ")" : "");
}

/* Every result not printed yet, grouped by section.  By default a section
 * is one line of counts, then each case a person must act on in full
 * (FAIL, TIMEOUT, ERROR, NON-STRICT, INFO; with a baseline: the
 * deviations), UNSUPPORTED and SKIPPED collapsed; -v lists every case. */
void pcf_report_console_results(pcf_results *rs, const pcf_opts *o, FILE *f)
{
    pcf_result **sect = calloc(rs->n ? rs->n : 1, sizeof *sect);
    const char *gap = "\n"; /* the first section comes after a blank line */
    if (!sect)
        return;
    for (size_t i = 0; i < rs->n;) {
        const char *name = rs->r[i].e->section;
        size_t n = 0, c[PCF_V_COUNT] = { 0 };
        for (; i < rs->n && strcmp(rs->r[i].e->section, name) == 0; i++)
            if (!rs->r[i].printed) {
                rs->r[i].printed = true;
                sect[n++] = &rs->r[i];
                c[rs->r[i].verdict]++;
            }
        if (!n)
            continue;
        /* a section of one line stands among the others; one with cases
         * below it gets a blank line before and after */
        bool alone = !o->verbose && c[PCF_PASS] + c[PCF_UNSUPPORTED] + c[PCF_SKIPPED] == n &&
                     !c[PCF_UNSUPPORTED] + !c[PCF_SKIPPED] == 2;
        for (size_t k = 0; k < n && alone; k++)
            alone = !detailed(sect[k], o);
        fprintf(f, o->verbose ? "%s%s" : "%s%-16s", alone && !*gap ? "" : "\n", name);
        gap = alone ? "" : "\n";
        if (!o->verbose) {
            fprintf(f, " %zu case%s:", n, n == 1 ? "" : "s");
            const char *sep = " ";
            for (int v = 0; v < PCF_V_COUNT; v++)
                if (c[v]) {
                    fprintf(f, "%s%zu %s", sep, c[v], pcf_verdict_name(v));
                    sep = ", ";
                }
        }
        fputc('\n', f);
        for (int pass = 0; pass < 2; pass++) /* UNSUPPORTED, then SKIPPED */
            if (!o->verbose) {
                int v = pass ? PCF_SKIPPED : PCF_UNSUPPORTED;
                pcf_result *quiet[n];
                size_t nq = 0;
                for (size_t k = 0; k < n; k++)
                    if (sect[k]->verdict == v && !detailed(sect[k], o))
                        quiet[nq++] = sect[k];
                if (nq == 1)
                    case_line(quiet[0], f);
                else if (nq > 1)
                    collapsed_line(quiet, nq, v, f);
            }
        for (size_t k = 0; k < n; k++) {
            pcf_result *r = sect[k];
            bool full = detailed(r, o) || (o->verbose && r->verdict != PCF_SKIPPED &&
                                           r->verdict != PCF_PASS);
            bool listed = o->verbose || full || r->reruns ||
                          (r->verdict != PCF_PASS && r->verdict != PCF_UNSUPPORTED &&
                           r->verdict != PCF_SKIPPED);
            if (!listed)
                continue;
            case_line(r, f);
            if (full)
                case_detail(r, f);
        }
    }
    free(sect);
}

/* What a reader of a long log looks for first. */
static void recap(const pcf_results *rs, const pcf_opts *o, FILE *f)
{
    size_t nf = 0, nd = 0;
    for (size_t i = 0; i < rs->n; i++) {
        nf += pcf_verdict_failing(rs->r[i].verdict, o->strict) || rs->r[i].verdict == PCF_ERROR;
        nd += rs->r[i].deviation;
    }
    if (nf) {
        fprintf(f, "\nFailures (%zu):\n", nf);
        for (size_t i = 0; i < rs->n; i++) {
            const pcf_result *r = &rs->r[i];
            if (!pcf_verdict_failing(r->verdict, o->strict) && r->verdict != PCF_ERROR)
                continue;
            /* id first: these lines are no case lines to grep for */
            fprintf(f, "  %-44s %-11s %s\n", r->e->c->id, pcf_verdict_name(r->verdict),
                    r->clause[0] ? r->clause : r->e->c->clause);
        }
    }
    if (o->baseline && nd)
        pcf_report_deviations(rs, o, f);
}

void pcf_report_deviations(const pcf_results *rs, const pcf_opts *o, FILE *f)
{
    size_t nd = 0;
    for (size_t i = 0; i < rs->n; i++)
        nd += rs->r[i].deviation;
    if (!nd)
        return;
    fprintf(f, "\nDeviations from the baseline %s (%zu):\n", o->baseline, nd);
    for (size_t i = 0; i < rs->n; i++) {
        const pcf_result *r = &rs->r[i];
        if (!r->deviation)
            continue;
        char b[80];
        fprintf(f, "  %-44s %s -> %s\n", r->e->c->id,
                r->baseline_listed ? pcf_baseline_text(r, b, sizeof b) : "(not listed)",
                pcf_verdict_name(r->verdict));
    }
}

/* The verdict a case had under the first shape, NULL when it did not run there. */
static const pcf_result *first_shape(const pcf_results *rs, const pcf_entry *e)
{
    for (size_t i = 0; i < rs->n; i++)
        if (rs->r[i].e == e)
            return &rs->r[i];
    return NULL;
}

/* --nodes 1,2: each further shape's placement-dependent cases, every one
 * shown, with its verdict under the first shape when that differs. */
static void other_shapes(const pcf_results *rs, const pcf_opts *o, FILE *f)
{
    for (size_t k = 0; k < rs->nalt; k++) {
        const pcf_results *a = &rs->alt[k];
        fprintf(f, "\nShape --nodes %d (%s): the placement-dependent cases\n", a->nodes_asked,
                a->nodes > 0 ? a->hosts : "no node map");
        for (size_t i = 0; i < a->n; i++) {
            const pcf_result *r = &a->r[i];
            const pcf_result *m = first_shape(rs, r->e);
            fprintf(f, "  %-11s %s", pcf_verdict_name(r->verdict), r->e->c->id);
            if (m && m->verdict != r->verdict)
                fprintf(f, "  [--nodes %d: %s]", rs->nodes_asked, pcf_verdict_name(m->verdict));
            if ((r->verdict == PCF_SKIPPED || r->verdict == PCF_UNSUPPORTED) && r->actual)
                fprintf(f, " (%s)", r->actual);
            fputc('\n', f);
            if (!o->verbose && (r->verdict == PCF_PASS || r->verdict == PCF_SKIPPED ||
                                r->verdict == PCF_UNSUPPORTED))
                continue;
            if (r->verdict != PCF_PASS && r->verdict != PCF_SKIPPED)
                case_detail(r, f);
        }
        char line[400];
        pcf_summary_line(a, line, sizeof line);
        fprintf(f, "  --nodes %d: %s\n", a->nodes_asked, line);
    }
}

void pcf_report_console(pcf_results *rs, const pcf_opts *o, FILE *f)
{
    pcf_report_console_results(rs, o, f);
    other_shapes(rs, o, f);
    recap(rs, o, f);
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
    if (rs->nodes > 0) {
        char shapes[120] = "";
        size_t w = 0;
        int k = 0;
        for (int b = 1; b < 32; b++)
            if (rs->shapes & (1u << b))
                w += (size_t)snprintf(shapes + w, sizeof shapes - w, "%s%d", k++ ? ", " : "", b);
        if (k > 1)
            fprintf(f, "\nNodes: launches on %s hosts; the widest: %s\n", shapes, rs->hosts);
        else
            fprintf(f, "\nNodes: %d (%s)\n", rs->nodes, rs->hosts);
    }
    fprintf(f, "\nFinished in %.2f seconds\n%s\n", rs->seconds, line);
}
