/* pmi-mockclient bench: a PMI load generator.
 *
 * One process drives N ranks: either N virtual ranks, each a non-blocking
 * connection to a server that listens (PMI_PORT), or, under a launcher, one
 * rank per process on PMI_FD/PMI_PORT whose statistics are merged by rank 0.
 * Every rank runs rounds of put, fence and a get of every other rank's key,
 * then random gets; latencies and throughput are reported h2load-style. */
#ifndef PMC_BENCH_H
#define PMC_BENCH_H

#include "pmicodec/pmicodec.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

enum { BENCH_EXIT_OK = 0, BENCH_EXIT_FAIL = 1, BENCH_EXIT_USAGE = 2 };

/* Latency categories. */
typedef enum bench_op { OP_PUT, OP_FENCE, OP_GET, OP_RGET, OP__COUNT } bench_op;

typedef enum bench_mode { MODE_VIRTUAL = 0, MODE_PROCESS = 1 } bench_mode;

enum { BENCH_MAX_SERVER_PIDS = 8, BENCH_MAX_PIPELINE = 64 };

typedef struct bench_cfg {
    bench_mode mode;
    int proto;              /* 1 or 2 */
    int nranks;             /* virtual mode: ranks to open */
    const char *addr;       /* virtual mode: host:port or a UNIX path */
    int rounds;             /* measured put/fence/get-all rounds */
    int warmup;             /* rounds before them, not measured */
    long random_gets;       /* random gets per rank after the rounds */
    size_t value_size;      /* bytes per value */
    int pipeline;           /* outstanding gets per rank */
    unsigned timeout_s;     /* whole run */
    bool json, summary, verify, quiet;
    const char *out_dir;    /* process mode: per-rank statistics files */
    bool out_dir_given;
    pid_t server_pids[BENCH_MAX_SERVER_PIDS];
    int nserver_pids;
    bool server_auto;       /* process mode: the launcher (and Hydra's mpiexec) */
    const pmc_dialect *dialect;
    uint64_t seed;
} bench_cfg;

/* A growable array of latency samples in nanoseconds. */
typedef struct bench_samples {
    uint64_t *v;
    size_t n, cap;
} bench_samples;

int bench_samples_push(bench_samples *s, uint64_t x);
int bench_samples_reserve(bench_samples *s, size_t n);
void bench_samples_free(bench_samples *s);

typedef struct bench_lat {
    uint64_t n, min, max, p50, p99;
    double mean, sd;
} bench_lat;
/* Sorts the samples in place. */
void bench_lat_compute(bench_samples *s, bench_lat *out);

/* One get phase: when it ran and what the server spent meanwhile. */
typedef struct bench_phase {
    uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC, comparable across processes */
    int64_t cpu0_ns, cpu1_ns;  /* server CPU at start/end; -1 unknown */
    uint64_t client_cpu_ns;    /* CPU the load generator spent (all ranks' processes) */
    uint64_t gets;
} bench_phase;

/* Everything a report needs; one per run (virtual) or per rank, then merged
 * (process). */
typedef struct bench_result {
    bench_mode mode;
    int proto;
    int size;       /* job size */
    int rank;       /* process mode: this process's rank */
    int nreported;  /* ranks whose figures are in here */
    int rounds, warmup;
    long random_gets;
    size_t value_size;
    int pipeline;
    uint64_t requests[OP__COUNT]; /* measured requests */
    uint64_t failures[OP__COUNT]; /* of the measured requests */
    uint64_t other_failures;      /* warm-up, handshake, protocol errors, lost ranks */
    uint64_t bytes_out, bytes_in;
    uint64_t t_begin, t_end;      /* first connect to last finalize */
    bench_samples samples[OP__COUNT];
    bench_phase *getall;          /* `rounds` entries */
    bench_phase random;
    bool incomplete;              /* timed out or a rank was lost */
    char note[256];               /* why incomplete */
} bench_result;

int bench_result_init(bench_result *r, const bench_cfg *c, int size);
void bench_result_free(bench_result *r);

/* engine.c: run the configured load; fills *res.  Returns an exit code. */
int bench_run(const bench_cfg *cfg, bench_result *res);

/* report.c */
void bench_report_text(FILE *f, bench_result *r, const char *where);
void bench_report_json(FILE *f, bench_result *r, const char *where);
void bench_report_summary(FILE *f, bench_result *r);
const char *bench_op_name(bench_op op);

/* rankfile.c: process mode, one file per rank, merged by rank 0. */
int bench_rankfile_write(const char *dir, int rank, const bench_result *r, char *err, size_t n);
/* Waits up to timeout_ms for `size` files that were finished after
 * not_before (0: any), merges them into *out. */
int bench_rankfile_merge(const char *dir, int size, unsigned timeout_ms, uint64_t not_before,
                         bench_result *out, char *err, size_t n);
void bench_rankfile_remove(const char *dir, int size);

/* procstat.c: CPU time of server processes, nanoseconds; -1 when unreadable. */
int64_t bench_cpu_ns(const pid_t *pids, int n);
/* The launcher that serves this process: the parent, and Hydra's mpiexec
 * above its proxy. */
int bench_server_pids_auto(pid_t *pids, int max);

uint64_t bench_now_ns(void);
uint64_t bench_self_cpu_ns(void); /* this process's CPU time */

int bench_main(int argc, char **argv);

#endif
