/* Shared declarations of the pmi-trace subcommands. */
#ifndef PMI_TRACE_TOOL_H
#define PMI_TRACE_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pmicodec/pmicodec.h"
#include "pmitrace/trace.h"

#define PMI_TRACE_VERSION "pmi-trace (pmi2-conform) 0.1.0"

/* Exit codes, documented in pmi-trace(1). */
enum { EXIT_OK = 0, EXIT_FINDINGS = 1, EXIT_USAGE = 2 };

int cmd_import(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_survey(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_scrub(int argc, char **argv);

/* SPEC.md clause of a decoder note / error / validation code (clauses.c). */
const char *clause_of_note(uint32_t note);
const char *clause_of_code(pmc_errcode code);

/* Whole file (or stdin for "-") into a malloc'd buffer; NULL and a message on stderr. */
char *read_all(const char *path, size_t *len);

/* Print bytes escaped as in trace strings; at most `max` input bytes (0 = all),
 * then "...(N bytes)". */
void print_escaped(FILE *f, const char *p, size_t len, size_t max);

/* One decoded message: "v2  kvs-put  key=k0 value=v0  [len-left]". */
void print_msg(FILE *f, const pmc_msg *m, size_t maxval);

/* Recursively collect *.trace under path (or path itself when a file), sorted.
 * Returns 0, or -1 with a message on stderr. */
int collect_traces(const char *path, char ***list, size_t *n);
void free_list(char **list, size_t n);

/* Known defects: a human name for a set of findings (see defects.c). */
typedef struct defect_item {
    pmt_side from;
    pmt_expect_kind kind;
    const char *name;
} defect_item;

typedef struct defect {
    const char *id;        /* "B1" */
    const char *name;      /* "MPICH 4.0.2 PMI-2 client: ..." */
    const char *ref;       /* "mpich-wire.md §11 B1" */
    const char *source;    /* substring the trace's @source must contain, or NULL */
    defect_item items[3];  /* all must be found; unused entries have name NULL */
} defect;

const defect *defects_all(size_t *n);

#endif
