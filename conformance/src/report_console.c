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

/* Every result not printed yet, grouped by section. */
void pcf_report_console_results(pcf_results *rs, const pcf_opts *o, FILE *f)
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
            pcf_rerun_note(r, note, sizeof note);
            fprintf(f, "      %s\n", note);
        }
        bool show = pcf_verdict_failing(r->verdict, o->strict) || r->verdict == PCF_NON_STRICT ||
                    r->verdict == PCF_UNSUPPORTED || (o->verbose && r->verdict != PCF_SKIPPED);
        if (o->baseline)
            show = show && r->deviation;
        if (!show)
            continue;
        const pcf_clause *cl = pcf_grading_clause(r);
        char lead[64], exp[1200];
        if (cl) {
            snprintf(lead, sizeof lead, "      -> [%s %s] ", cl->id, cl->level_text);
            fprintf(f, "%s%s\n", lead, cl->text);
        }
        pcf_expected_text(r, exp, sizeof exp);
        fprintf(f, "      Expected: %s\n", exp);
        print_indented(f, "        Actual: ", r->actual);
        if (r->verdict == PCF_FLAKY)
            fprintf(f, "      (verdicts differed over %d runs; worst %s)\n", r->runs,
                    pcf_verdict_name(r->worst));
        if (r->baseline_listed)
            fprintf(f, "      Baseline expected %s\n", pcf_verdict_name(r->baseline_verdict));
    }
}

void pcf_report_console(pcf_results *rs, const pcf_opts *o, FILE *f)
{
    pcf_report_console_results(rs, o, f);
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

