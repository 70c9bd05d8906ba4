/* pmi-mockclient run: play the client side of a scenario (pmi-trace v1/v2,
 * traces/README.md) against a real server and report every step.
 *
 *   script.c  a trace connection -> a list of client steps (send / expect)
 *   engine.c  connections stepping independently in one poll loop
 *   report.c  step lines, side-by-side mismatches, summary, --trace output
 *   cli.c     options, launcher mode (one rank) and virtual ranks (--port)
 *
 * Matching, captures and rendering are the trace library's (pmitrace/match.h);
 * what is added here is per-step results, tolerance of unsolicited messages,
 * personas and the I/O. */
#ifndef PMC_MOCKCLIENT_RUN_H
#define PMC_MOCKCLIENT_RUN_H

#include "persona.h"
#include "pmitrace/match.h"
#include "pmitrace/trace.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum pmr_skind {
    PMR_S_SEND = 1,   /* write a message (pattern, recorded messages) or raw bytes */
    PMR_S_EXPECT,     /* one message matching a pattern (possibly in an unordered group) */
    PMR_S_EXPECT_RAW, /* exact bytes */
    PMR_S_EXPECT_EOF, /* the server closes */
    PMR_S_SHUTDOWN,   /* eof C: close our writing half */
    PMR_S_CLOSE,      /* close the connection */
    PMR_S_SILENCE,    /* nothing may arrive for timeout_ms */
} pmr_skind;

typedef enum pmr_sform {
    PMR_F_PATTERN = 1, /* msg <pattern> */
    PMR_F_RECORDED,    /* recorded bytes that decode to messages */
    PMR_F_RAW,         /* raw bytes (never rewritten) */
} pmr_sform;

typedef enum pmr_result {
    PMR_R_PENDING = 0,
    PMR_R_OK,
    PMR_R_SKIPPED,    /* optional and absent */
    PMR_R_MISMATCH,   /* an answer arrived and differs */
    PMR_R_TIMEOUT,    /* nothing matching within the wait */
    PMR_R_EOF,        /* the server closed first */
    PMR_R_ERROR,      /* cannot send (unbound variable, encoder refusal, write error) */
    PMR_R_NOTRUN,     /* an earlier step failed */
} pmr_result;

typedef struct pmr_step {
    pmr_skind kind;
    pmr_sform form;
    uint32_t line; /* scenario line; 0 for steps the runner adds (PMI-1 initack) */
    uint32_t flags, timeout_ms, delay_ms;
    uint64_t usec;
    pmt_pattern pat;   /* SEND pattern, EXPECT */
    pmt_pattern *pats; /* SEND recorded */
    size_t npats;
    char *bytes; /* SEND raw/recorded, EXPECT_RAW */
    size_t len;
    size_t cuts[PMT_MAX_CUTS];
    size_t ncuts;
    char key[80]; /* SEND: the KVS key it is about (context for recorded answers) */
    /* outcome */
    pmr_result result;
    bool matched; /* EXPECT inside an unordered group */
    char *text;   /* what was sent / what matched (malloc'd) */
    char *actual; /* MISMATCH / TIMEOUT: what arrived instead */
    char why[256];
    uint64_t t_done;
} pmr_step;

typedef struct pmr_script {
    pmr_step *st;
    size_t n, cap;
} pmr_script;

/* Client steps of connection `conn` of t. initack_id >= 0: a PMI-1
 * connection over PMI_PORT whose scenario does not identify itself gets
 * the initack exchange real clients make (mpich-wire.md §4.2) first.
 * Returns 0, or -1 with err. */
int pmr_script_build(const pmt_trace *t, const char *conn, int initack_id, pmr_script *s,
                     char *err, size_t errlen);
void pmr_script_free(pmr_script *s);
/* Does connection conn start with a PMI-1 init (pmi_version=1) and never send initack? */
bool pmr_script_wants_initack(const pmt_trace *t, const char *conn);
/* Labels of the connections with events, in order of first appearance. */
size_t pmr_trace_conns(const pmt_trace *t, char (*labels)[PMT_CONN_MAX], size_t max);

typedef enum pmr_unexpected {
    PMR_UNEXP_WARN = 0, /* report an unsolicited message and keep waiting (default) */
    PMR_UNEXP_FAIL,     /* an unsolicited message fails the step */
} pmr_unexpected;

typedef struct pmr_opts {
    const pmr_persona *persona; /* NULL: patterns in the strict dialect, recorded bytes as recorded */
    unsigned timeout_ms;        /* default wait for an answer (10000) */
    unsigned optional_ms;       /* wait for an optional answer (200) */
    unsigned silence_ms;        /* a timeout event without a duration (300) */
    pmr_unexpected unexpected;
    bool keep_going;  /* a failed connection does not stop the others */
    bool order;       /* cross-connection order from recorded times (virtual ranks) */
    int quiet;        /* 1: failures and summary only; 2: summary only */
    int width;        /* columns of the side-by-side diff */
    const char *jobid;/* PMI_JOBID for personas */
    FILE *out;        /* report */
    pmt_trace *rec;   /* --trace: what happened, or NULL */
    uint64_t rec_t0;  /* monotonic microseconds of the recording's time 0 */
} pmr_opts;

typedef struct pmr_conn pmr_conn;
typedef struct pmr_run pmr_run;

pmr_run *pmr_run_new(const pmt_trace *t, const pmr_opts *o);
void pmr_run_free(pmr_run *r);
/* A connection playing `label` on connected descriptor fd (owned by the
 * run from now on).  rank / id: for personas and the report (id >= 0 when
 * the connection came through PMI_PORT).  Returns 0, or -1 with err. */
int pmr_run_add(pmr_run *r, const char *label, int fd, int rank, int id, bool auto_initack,
                char *err, size_t errlen);
/* Play every connection to the end.  Returns 0 when every step passed, 1
 * when one failed. */
int pmr_run_play(pmr_run *r);

/* Counters for the summary. */
typedef struct pmr_totals {
    size_t conns, steps, ok, skipped, failed, notrun, unexpected;
} pmr_totals;
void pmr_run_totals(const pmr_run *r, pmr_totals *t);

/* report.c */
const char *pmr_result_name(pmr_result r);
void pmr_report_step(const pmr_opts *o, const char *conn, const pmr_step *s);
void pmr_report_unexpected(const pmr_opts *o, const char *conn, uint32_t line, const char *text,
                           bool fatal);
void pmr_report_summary(const pmr_opts *o, const pmr_totals *t);
/* Record a note event in o->rec (no-op without --trace). */
void pmr_rec_note(const pmr_opts *o, uint64_t usec, const char *conn, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
void pmr_rec_event(const pmr_opts *o, pmt_kind k, uint64_t usec, const char *conn, pmt_side side,
                   const void *data, size_t len);

int run_main(int argc, char **argv); /* cli.c */

#endif
