/* Reports: the run's counts, summary line and exit status, and the writers
 * called in order (console, TAP, JUnit, JSON directory, HTML: one file each,
 * report_*.c). */
#include "report.h"

#include <stdlib.h>
#include <string.h>

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

