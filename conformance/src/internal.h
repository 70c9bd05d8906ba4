/* pmi2-conform internals shared by the core files (not by cases). */
#ifndef PCF_INTERNAL_H
#define PCF_INTERNAL_H

#include "pcf.h"

#include <stdio.h>

#define PCF_TOOL_VERSION "0.1.0"

enum { PCF_EXIT_OK = 0, PCF_EXIT_NONCONFORMANT = 1, PCF_EXIT_USAGE = 2 };

/* A whole file, malloc'd (NULL with errno set); *len its size. */
char *pcf_slurp(const char *path, size_t *len);

/* pmi2-conform mutate (mutate.c): its own options from argv[1] on. */
int pcf_mutate_main(int argc, char **argv);
/* pmi2-conform explain CASE... (explain.c): argv[0] is the mode word. */
int pcf_explain_main(int argc, char **argv);
/* pmi2-conform --group-helper MODE ... (cases/pmi2_group_job.c): the process
 * the pmi2/group cases spawn to take part in a group from another job. */
int pcf_group_helper_main(int argc, char **argv);

/* ---- registry ------------------------------------------------------------ */

typedef struct pcf_entry {
    const pcf_case *c;
    const char *file;
    char section[64]; /* id up to the last '/': "pmi2/kvs" */
    size_t order;     /* registration order, the tie-break */
} pcf_entry;

/* All cases in run order (family, section, file order). */
const pcf_entry *pcf_cases(size_t *n);
const pcf_entry *pcf_case_find(const char *id);
bool pcf_glob(const char *pat, const char *s);
/* Selection: globs, "!glob" excludes; no include glob = everything. */
bool pcf_selected(const char *id, char *const *globs, size_t nglobs);
/* Registry checks (ids unique and well-formed, clauses known); 0 or -1 with text on f. */
int pcf_registry_check(FILE *f);

/* ---- grading ------------------------------------------------------------- */

typedef struct pcf_obs {
    int verdict;        /* after the case's table */
    char outcome[48];
    char clause[24];    /* clause that graded it */
    char detail[600];
} pcf_obs;

/* Grade one outcome of a case; strict turns NON-STRICT into FAIL. */
void pcf_grade(const pcf_case *c, const char *outcome, bool strict, pcf_obs *o);
const pcf_outcome *pcf_outcome_find(const pcf_case *c, const char *name);

/* ---- results --------------------------------------------------------------- */

typedef struct pcf_result {
    const pcf_entry *e;
    int verdict;
    char outcome[48];
    char clause[24];
    char *actual;       /* per-rank details, "r1: ..." lines */
    uint64_t usec;      /* duration of the last run */
    int runs;           /* times it ran (repeat) */
    unsigned seen;      /* bit per verdict seen over repeats */
    int worst;          /* worst verdict over the runs (shown with FLAKY) */
    char *trace;        /* path of its merged trace, when written */
    bool baseline_listed;
    int baseline_verdict;
    unsigned baseline_also; /* bit per verdict: others the baseline accepts ("also") */
    bool deviation;
    bool printed;       /* already on the console (run as the job: printed as it goes) */
    int reruns;         /* --rerun-deviations: times it ran again for deviating */
    int first_verdict;  /* ... and its verdict and outcome the first time */
    char first_outcome[48];
    int nodes;          /* hosts of the launch its verdict came from (0: unknown) */
} pcf_result;

typedef struct pcf_results {
    pcf_result *r;
    size_t n;
    double seconds;
    char target[256]; /* what was tested: "mpiexec.hydra -n {n}", "run as job" */
    char tracedir[512]; /* where the per-rank case traces are ("" when none) */
    /* Why this run is no whole verdict on its target (interrupted, the
     * launcher or the harness's start-up failed, the control channel lost):
     * exit status 2 whatever the verdicts say.  "" when it is whole. */
    char incomplete[400];
    char date[32]; /* when the run started, UTC ISO 8601 (pcf_run_date), "" until asked */
    /* The shape the ranks ran in (the node map): hosts, 0 unknown; hosts:
     * "node0: 0,1; node1: 2,3".  Orchestrated: the launches' shapes, the
     * widest one (shapes: every count seen, a bit per count up to 31). */
    int nodes;
    unsigned shapes;
    char hosts[256];
    int nodes_asked;  /* orchestrated: {nodes} of this run's launches (0: not orchestrated) */
    /* --nodes 1,2: the placement-dependent cases run again under each
     * further shape ({nodes} = nodes_asked there); reported beside. */
    struct pcf_results *alt;
    size_t nalt;
} pcf_results;

pcf_result *pcf_results_get(pcf_results *rs, const pcf_entry *e); /* adds when new */
void pcf_result_add_run(pcf_result *r, int verdict, const char *outcome, const char *clause,
                        const char *actual, uint64_t usec);
void pcf_result_skip(pcf_result *r, const char *why);
/* Forget what a case's runs said: it will run again (not graded). */
void pcf_result_forget(pcf_result *r);
/* Replace what the case's runs said by one verdict found afterwards (the
 * launch ended it, the server kept its job). */
void pcf_result_regrade(pcf_result *r, int verdict, const char *outcome, const char *clause,
                        const char *actual);
void pcf_results_free(pcf_results *rs);
/* Results file of one launch: "start" lines (every rank), "result" and
 * "skip" lines and a final "done" (rank 0); escaped fields. */
int pcf_resfile_start(FILE *f, const char *id, int iter, int rank);
int pcf_resfile_done(FILE *f);
int pcf_resfile_result(FILE *f, const char *id, int iter, int verdict, const char *outcome,
                       const char *clause, uint64_t usec, const char *actual);
int pcf_resfile_skip(FILE *f, const char *id, const char *why);
/* Rank 0 of a child launch: the node map it learned (hosts, "h: 0,1; ..."). */
int pcf_resfile_nodes(FILE *f, int nodes, const char *hosts);
/* The node map as text: "host: ranks; host: ranks" (cut to n). */
void pcf_nodes_text(const pcf_ctx *c, char *buf, size_t n);
/* Every rank of a child launch, before its handshake: it runs, as pid. */
int pcf_resfile_alive(FILE *f, int rank, long pid);
/* Rank 0: the control channel failed after case `after_id` ("-": before
 * any case); the cases not yet run were not run for that reason. */
int pcf_resfile_lost(FILE *f, const char *after_id, const char *why);
/* A rank other than 0 whose control exchange failed after case `id` before
 * its observation was published: what it saw, for the parent to merge into
 * rank 0's result of that case (the worst verdict wins, as in the exchange). */
int pcf_resfile_obs(FILE *f, const char *id, int iter, int rank, int verdict,
                    const char *outcome, const char *clause, const char *detail);
/* The results format's escaping of text fields (a trace's escaping). */
void pcf_put_escaped(FILE *f, const char *s, size_t n);
char *pcf_unescape(const char *s);

enum { PCF_RES_MAXPIDS = 256 };
typedef struct pcf_resinfo {
    char open_id[160];    /* the last case some rank started without a result, "" if none */
    char last_started[160]; /* the last case some rank started, "" if none */
    bool done;            /* rank 0 finished its run */
    bool lost;            /* rank 0 lost its control channel (a "lost" line) */
    char lost_after[160]; /* ... after this case ("-": before any) */
    char lost_why[256];
    int alive;            /* "alive" lines: ranks that started */
    long pids[PCF_RES_MAXPIDS];
    int npids;
    int nodes;            /* the launch's node map: hosts (0: not said) */
    char hosts[256];
} pcf_resinfo;
/* Read a results file into rs (NULL: only the info). */
int pcf_resfile_read(const char *path, pcf_results *rs, pcf_resinfo *info);

/* ---- options --------------------------------------------------------------- */

typedef struct pcf_opts {
    char **globs;
    size_t nglobs;
    bool strict;
    int repeat;
    unsigned timeout_ms;    /* per case */
    int pmi;                /* control protocol of this run: 1 or 2 */
    bool pmi_given;         /* --pmi was given: orchestrated, only that protocol's launches */
    const char *launch;     /* orchestrated: the launch template */
    int np;                 /* ranks per launch (orchestrated) */
    const char *junit, *json_dir, *html, *baseline, *write_baseline;
    bool tap, list, quiet, verbose, child, progress;
    const char *argv0;
    const char *cmdline;    /* this run's command line, quoted for a shell (the reports) */
    const char *report;     /* child: the orchestrator's report channel, "host:port:token" */
    const char *report_addr; /* orchestrated: the address ranks reach it at (127.0.0.1) */
    const char *recover;    /* orchestrated: command run when the server wedged */
    unsigned start_ms;      /* orchestrated: a launch that starts no rank by then is stuck (0: adaptive) */
    unsigned deadline_ms;   /* orchestrated: the whole run (0: none) */
    int jobs;               /* orchestrated: launches at once (0: from the machine and launcher) */
    int nodes;              /* orchestrated: {nodes} of the template (0: 1) */
    int shape[8];           /* --nodes 1,2: every shape asked for (shape[0] == nodes) */
    int nshapes;
    int rerun_deviations;   /* orchestrated with a baseline: runs again of a deviating case */
    bool isolate;           /* orchestrated: every case in a launch of its own */
    bool progress_plain;    /* progress as plain lines (stderr is not a terminal) */
} pcf_opts;

/* ---- processes ------------------------------------------------------------- */

/* The report channel (relay.c: the orchestrator's end).  open: listen on
 * addr (NULL: 127.0.0.1); add: a launch whose ranks' lines go to resfile
 * and traces to tracedir (NULL: none), its --report spec into spec;
 * connected: its ranks' connections still open; drop: read what they sent,
 * close them (the ranks exit), forget the launch. */
int pcf_relay_open(const char *addr);
int pcf_relay_add(char *spec, size_t n, const char *resfile, const char *tracedir);
int pcf_relay_connected(const char *spec);
void pcf_relay_drop(const char *spec);
/* A rank's end (watchdog.c): its one stream to the orchestrator named by
 * spec "HOST:PORT:TOKEN" (NULL when spec is); the rank exits when the
 * orchestrator closes it.  done_seen: rank 0 said done; trace: a per-rank
 * case trace, sent instead of written to a file. */
FILE *pcf_report_stream(const char *spec);
bool pcf_report_done_seen(void);
void pcf_report_trace(const char *name, const char *text, size_t n);

/* ---- running ---------------------------------------------------------------- */

int pcf_run_job(const pcf_opts *o);         /* server mode as a rank of the job */
int pcf_run_orchestrated(const pcf_opts *o); /* --launch */

/* strays.c: processes a launch leaves outside its process group (Hydra's
 * proxies run in sessions of their own).  adopt: orphans of launches become
 * the orchestrator's children; tag/mark: a launch's environment tag (mark in
 * the forked child); reap: kill and reap the children that carry the tag
 * (NULL: any tag of this run; what --recover started is not tagged and
 * stays), returns how many were killed. */
void pcf_strays_adopt(void);
void pcf_strays_tag(char *tag, size_t n, unsigned serial);
void pcf_strays_mark(const char *tag);
int pcf_strays_reap(const char *tag);
/* pid is a process of this host that has not ended (a zombie has ended). */
bool pcf_proc_running(long pid);
/* Which cases this run may execute, and why not (NULL: runnable). */
const char *pcf_unrunnable(const pcf_case *c, int pmi, int size);
/* Can the case's verdict depend on where the ranks run (PCF_PLACED, min_nodes > 1)? */
bool pcf_placed(const pcf_case *c);
/* Per-rank trace file of one case run ("DIR/<safe>.r<rank>.trace"). */
void pcf_safe_name(const char *id, char *out, size_t n);

/* pmi-trace: $PMI2_CONFORM_PMI_TRACE, next to `self` (NULL: this program) in
 * a build tree or installed, else "pmi-trace" on PATH (pmitrace_path.c). */
const char *pcf_pmitrace_path(const char *self, char *buf, size_t n);

/* ---- preconditions (probe.c) ---------------------------------------------- */

enum { PCF_NEED_BITS = 8 };
typedef struct pcf_probed {
    unsigned absent;     /* pcf_case_needs found absent */
    unsigned unanswered; /* ... of them, because the probe got no answer (ERR-3) */
    char why[PCF_NEED_BITS][300]; /* by bit: what the probe saw */
} pcf_probed;
/* Probe the needs (rank 0, before the first case), each bounded by tmo ms. */
void pcf_probe(pcf_ctx *c, unsigned needs, unsigned tmo, pcf_probed *p);
/* The clause that makes a need optional ("NAME-8"). */
const char *pcf_need_clause(unsigned need);

/* ---- reports ---------------------------------------------------------------- */

int pcf_baseline_apply(pcf_results *rs, const char *path, bool strict, FILE *err); /* err NULL: quiet */
int pcf_baseline_write(const pcf_results *rs, const char *path);
/* Console (grouped by section) to f; returns the exit code of the run. */
int pcf_report(pcf_results *rs, const pcf_opts *o, FILE *f);
int pcf_exit_code(const pcf_results *rs, const pcf_opts *o);
/* Why the run must exit 2 although the report is written (an empty
 * selection, nothing graded, rs->incomplete); NULL when its verdicts stand. */
const char *pcf_run_unusable(const pcf_results *rs, char *buf, size_t n);
/* src on one line (a launcher's quoted lines joined by spaces), cut to n. */
void pcf_one_line(char *dst, size_t n, const char *src);
/* Before a run: create --json DIR (with parents) and check that every
 * report file's directory is writable; -1 (said on stderr) when not. */
int pcf_report_paths_check(const pcf_opts *o);
/* The report files only (JUnit, JSON, HTML), e.g. provisionally. */
void pcf_report_files(pcf_results *rs, const pcf_opts *o);
/* Console mode only: print the results not printed yet (grouped by section),
 * then `then` on a line of its own when given; pcf_report later prints the
 * rest and the summary.  For runs that may not live to report (run as the
 * job, before destructive cases). */
void pcf_report_so_far(pcf_results *rs, const pcf_opts *o, FILE *f, const char *then);
void pcf_summary_line(const pcf_results *rs, char *buf, size_t n);

/* ---- text (utf8.c) ------------------------------------------------------------ */

/* The length (1-4) of the well-formed UTF-8 sequence that starts s (n bytes
 * left), its code point in *cp; 0 when none starts there (a stray or missing
 * continuation byte, an overlong form, a surrogate, past U+10FFFF). */
size_t pcf_utf8_seq(const char *s, size_t n, unsigned *cp);

/* ---- JSON -------------------------------------------------------------------- */

/* A JSON string of len bytes: well-formed UTF-8 as itself (C0/C1 controls,
 * DEL, U+2028/9 as \u escapes of their code points); each byte that is not
 * part of well-formed UTF-8 as the lone surrogate \udcXX (XX the byte, as
 * Python's surrogateescape), which no text holds, so the bytes read back
 * exactly (pcf_json_parse does). */
void pcf_json_str(FILE *f, const char *s, size_t len);
void pcf_json_cstr(FILE *f, const char *s);
typedef struct pcf_jv pcf_jv; /* parsed JSON value */
pcf_jv *pcf_json_parse(const char *text, size_t len, char *err, size_t errlen);
void pcf_json_free(pcf_jv *v);
const pcf_jv *pcf_json_get(const pcf_jv *obj, const char *key);
size_t pcf_json_count(const pcf_jv *obj);                        /* members / elements */
const pcf_jv *pcf_json_member(const pcf_jv *obj, size_t i, const char **key);
const char *pcf_json_string(const pcf_jv *v); /* NULL unless a string */
double pcf_json_number(const pcf_jv *v);      /* 0 unless a number */

/* ---- progress --------------------------------------------------------------- */

void pcf_progress(const pcf_opts *o, size_t done, size_t total, const char *id);
/* A line on stderr ("pmi2-conform: ..."); on a terminal the progress line
 * gives way to it and is drawn again below. */
void pcf_notice(const pcf_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* What the run waits for, on the progress line (a terminal only). */
void pcf_progress_note(const pcf_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void pcf_progress_end(const pcf_opts *o);

/* ---- the context a case runs in --------------------------------------------- */

struct pcf_ctx {
    int rank, size, pmi;
    pws_session *s;
    pcf_handshake hs;
    char jobid[256];
    char kvsname[256];
    char tag[32];
    uint64_t deadline;
    const pcf_case *cur;
    const pcf_opts *o;
    bool observed;
    pcf_obs obs;       /* worst so far on this rank */
    unsigned absent;   /* pcf_case_needs the start-up probe found absent */
    pmc_decoder *scratch;
    /* The node map (pcf_ctl_nodemap): each rank's host, learned over PMI at
     * start-up; nnodes 0 while unknown (client mode, before the exchange). */
    int nnodes;
    int *node;          /* by rank: 0-based index of its host, by first rank */
    char (*host)[64];   /* by rank: its host name */
    /* What the harness's own exchange saw the server do wrong (PMI-1: a key
     * put before barrier_in missing after barrier_out), told with the
     * channel's loss: it names the clause when no case could. */
    char ctl_anomaly[320];
};

void pcf_ctx_begin_case(pcf_ctx *c, const pcf_case *k, const char *tag, unsigned timeout_ms);

#endif
