/* What the report writers share: a case's merged transcript, its grading
 * clause, the expected text and the rerun note (report_common.c); one
 * writer per file: console, TAP, JUnit, the JSON directory, HTML. */
#ifndef PCF_REPORT_H
#define PCF_REPORT_H

#include "internal.h"
#include "pmitrace/trace.h"

#include <stdio.h>

/* Cases per verdict: c[PCF_V_COUNT]. */
void pcf_count_verdicts(const pcf_results *rs, size_t *c);
/* The per-rank traces of a case's first run joined into one (have: any). */
typedef struct pcf_merged {
    pmt_trace t;
    bool have;
} pcf_merged;
void pcf_merge_traces(const pcf_results *rs, const pcf_case *c, pcf_merged *m);
/* ... each rank's whole session: its start-up, then the case (reproducers). */
void pcf_merge_sessions(const pcf_results *rs, const pcf_case *c, pcf_merged *m);
const char *pcf_ev_name(const pmt_event *e); /* "C>S", "eof", ... */
/* The clause an outcome was graded under, else the case's. */
const pcf_clause *pcf_grading_clause(const pcf_result *r);
/* The expectation plus the other passing outcomes, each said once. */
void pcf_expected_text(const pcf_result *r, char *buf, size_t n);
/* --rerun-deviations: how a case that ran again went the first time. */
void pcf_rerun_note(const pcf_result *r, char *buf, size_t n);
/* When the run started (now less its seconds), fixed at the first call so
 * that every report of the run says the same. */
const char *pcf_run_date(pcf_results *rs);
/* The run in one word, "conformant", "non-conformant" (a failing verdict)
 * or "incomplete" (pcf_run_unusable, or a harness ERROR: no verdict on
 * those cases), and why in why; the exit status says the same in a number
 * (pcf_exit_code, which with a baseline counts deviations instead). */
const char *pcf_run_verdict(const pcf_results *rs, const pcf_opts *o, char *why, size_t n);
/* What pcf_exit_code's status means for this run, in a few words. */
void pcf_exit_meaning(const pcf_results *rs, const pcf_opts *o, char *buf, size_t n);

/* "[baseline: PASS -> NON-STRICT]" for a deviation, else "". */
/* The verdicts a baseline entry accepts: "FAIL", or "FAIL or TIMEOUT". */
const char *pcf_baseline_text(const pcf_result *r, char *buf, size_t n);
void pcf_baseline_mark(const pcf_result *r, char *buf, size_t n);
/* "Deviations from the baseline" with old -> new, one case a line (-q too). */
void pcf_report_deviations(const pcf_results *rs, const pcf_opts *o, FILE *f);
void pcf_report_console_results(pcf_results *rs, const pcf_opts *o, FILE *f);
void pcf_report_console(pcf_results *rs, const pcf_opts *o, FILE *f);
void pcf_report_tap(const pcf_results *rs, const pcf_opts *o, FILE *f);
int pcf_report_junit(const pcf_results *rs, const pcf_opts *o, const char *path);
int pcf_report_json_dir(pcf_results *rs, const pcf_opts *o);
/* A case that did not pass: its reproducer in JSON_DIR/repro/<safe>/
 * (repro.c); rel gets "repro/<safe>".  0, or -1. */
int pcf_repro_write(const pcf_results *rs, const pcf_opts *o, const pcf_result *r, char *rel,
                    size_t reln);
int pcf_report_html(pcf_results *rs, const pcf_opts *o, const char *path);

#endif
