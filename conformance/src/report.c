/* Reports: the writers called in order (console, TAP, JUnit, JSON
 * directory, HTML: one file each, report_*.c).  The run's counts, summary
 * line and exit status are in report_common.c, which the writers share:
 * they never call back into this file. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

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
        pcf_report_junit(rs, o, o->junit);
    if (o->json_dir)
        pcf_report_json_dir(rs, o);
    if (o->html)
        pcf_report_html(rs, o, o->html);
}

void pcf_report_so_far(pcf_results *rs, const pcf_opts *o, FILE *f, const char *then)
{
    if (o->tap || o->quiet)
        return;
    if (rs->n)
        qsort(rs->r, rs->n, sizeof *rs->r, cmp_result);
    if (o->baseline) /* deviations decide what is shown; pcf_report says them */
        pcf_baseline_apply(rs, o->baseline, o->strict, NULL);
    pcf_report_console_results(rs, o, f);
    if (then)
        fprintf(f, "\n%s\n", then);
    fflush(f);
}

int pcf_report(pcf_results *rs, const pcf_opts *o, FILE *f)
{
    int bad = 0;
    if (rs->n)
        qsort(rs->r, rs->n, sizeof *rs->r, cmp_result);
    for (size_t k = 0; k < rs->nalt; k++)
        if (rs->alt[k].n)
            qsort(rs->alt[k].r, rs->alt[k].n, sizeof *rs->alt[k].r, cmp_result);
    if (o->baseline && pcf_baseline_apply(rs, o->baseline, o->strict, stderr) != 0)
        bad = 1;
    if (o->tap)
        pcf_report_tap(rs, o, f);
    else if (!o->quiet)
        pcf_report_console(rs, o, f);
    else {
        char line[400];
        pcf_summary_line(rs, line, sizeof line);
        if (o->baseline) /* -q still names what changed */
            pcf_report_deviations(rs, o, f);
        fprintf(f, "%s\n", line);
    }
    fflush(f);
    if (o->junit && pcf_report_junit(rs, o, o->junit) != 0) {
        fprintf(stderr, "pmi2-conform: cannot write %s\n", o->junit);
        bad = 1;
    }
    if (o->json_dir && pcf_report_json_dir(rs, o) != 0) {
        fprintf(stderr, "pmi2-conform: cannot write the JSON report in %s\n", o->json_dir);
        bad = 1;
    }
    if (o->html && pcf_report_html(rs, o, o->html) != 0) {
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

