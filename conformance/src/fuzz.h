/* pmi2-conform fuzz: wire fuzzing of a PMI server under test.
 *
 *   fuzz_gen.c       the inputs: grammar-aware frames and lines built with the
 *                    codec's encoder, then damaged; a pure function of
 *                    (seed, index), so a campaign is reproducible and can be
 *                    resumed at any index in a fresh launch
 *   fuzz_job.c       one launch of the job: rank 1 (rank 0 in a job of one)
 *                    sends inputs, the other ranks check the server after each
 *   fuzz_campaign.c  the campaign: launches (--launch), classification of
 *                    what happened, minimization, reproducer traces, summary
 *   fuzz_cli.c       options
 *
 * Calls go one way: cli -> campaign -> job -> gen.  The job knows the
 * finding classes and the sync dir; a job run without --launch reports its
 * own campaign through the hook fz_opts.report, not by calling up.
 *
 * The ranks of one launch coordinate through a directory (the sync dir):
 * the fuzzing rank's log, a "go" file naming the input just sent, one
 * "ok.R" file per honest rank with its verdict, per-rank transcripts.  Only
 * the bytes under test go through the server; coordination must survive the
 * server misbehaving, so it does not use PMI. */
#ifndef PCF_FUZZ_H
#define PCF_FUZZ_H

#include "internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { FZ_MAX_CUTS = 8, FZ_MAX_LIST = 64 };

/* One input: bytes written on the fuzzing connection, possibly in pieces. */
typedef struct fz_input {
    uint64_t index;
    char *buf;
    size_t len;
    size_t cuts[FZ_MAX_CUTS]; /* increasing offsets: write in ncuts+1 pieces */
    size_t ncuts;
    unsigned delay_ms;        /* between the pieces */
    bool close_after;         /* then shut the writing half: the stream ends there */
    char family[24];          /* "length", "escape", "kv", "unknown", "v1", "split", ...;
                                 PMI-1: "pairs", "long", "bare", "abort", "spawn", ...;
                                 a correct server may end the job on an "abort", "eos"
                                 or "spawn" input, so there only a crash is a finding */
    char desc[200];           /* what was damaged, for reports */
} fz_input;

/* What the generator may fill in from the live job. */
typedef struct fz_env {
    const char *kvsname; /* the job's kvsname/jobid (v1 commands name it) */
    int rank, size;
    int pmi;             /* the protocol the server speaks: 1 (PMI-1 lines only) or 2 */
} fz_env;

/* Input number `index` of campaign `seed` (0 with *in filled, -1 on ENOMEM). */
int fz_generate(uint64_t seed, uint64_t index, const fz_env *env, fz_input *in);
void fz_input_free(fz_input *in);

/* Finding classes, in order of severity. */
typedef enum fz_class {
    FZ_NONE = 0,
    FZ_HONEST_ERROR, /* an honest request was refused or its connection closed */
    FZ_LOST_DATA,    /* an honest value changed or vanished */
    FZ_HANG,         /* the server stopped answering honest ranks */
    FZ_JOB_KILLED,   /* the job ended while an input was being handled */
    FZ_CRASH,        /* ... and the launcher says a process died of a signal */
    FZ_CLASS_COUNT,
} fz_class;

const char *fz_class_name(int c);
int fz_class_parse(const char *s); /* -1 when unknown */

typedef struct fz_opts {
    uint64_t seed;
    uint64_t count;        /* inputs in the campaign */
    unsigned time_s;       /* wall-time bound of the campaign (0: none) */
    uint64_t from;         /* first input index (child launches resume) */
    int pmi;               /* 1 or 2; 0: what the server speaks (PMI-2, else PMI-1) */
    const char *launch;    /* --launch template */
    int np;                /* ranks per campaign launch */
    const char *out;       /* directory for reproducers and the summary */
    const char *sync;      /* child: the launch's sync dir */
    uint64_t list[FZ_MAX_LIST]; /* child: play exactly these inputs (minimization) */
    size_t nlist;
    bool child, record, quiet, verbose, progress, no_minimize, no_replay;
    unsigned check_ms;     /* honest check deadline */
    unsigned reply_ms;     /* how long the fuzzer listens after an input */
    unsigned min_attempts; /* launches spent minimizing one finding */
    const char *argv0;
    /* run as the job (no --launch, no --child): rank 0 reports the campaign
     * with this when its launch is done (fz_run_campaign; NULL: no report) */
    int (*report)(const struct fz_opts *o);
} fz_opts;

/* Entry point of "pmi2-conform fuzz ..." (argv[0] is "fuzz"). */
int pcf_fuzz_main(int argc, char **argv);
/* One launch, run as a rank of the job. */
int fz_run_job(const fz_opts *o);
/* The campaign: orchestrated (--launch) or, as the job, the report of rank 0. */
int fz_run_campaign(const fz_opts *o);

/* ---- sync dir helpers (fuzz_job.c) ------------------------------------------ */

/* Write a small file atomically (temp + rename).  0 or -1. */
int fz_write_file(const char *dir, const char *name, const char *text);
/* Read a small file into buf (NUL-terminated); -1 when missing. */
int fz_read_file(const char *dir, const char *name, char *buf, size_t n);

/* Transcript files: "trace.r<rank>" in the sync dir, pmi-trace format. */
void fz_trace_name(int rank, char *buf, size_t n);

#endif
