/* `pmi-mockclient bench`: options, then the run, then the report. */
#define _DEFAULT_SOURCE
#include "bench.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MERGE_TIMEOUT_MS = 30000 };

static void usage(FILE *f)
{
    fputs("usage: pmi-mockclient bench [options]                 (N virtual ranks over PMI_PORT)\n"
          "       mpiexec -n N pmi-mockclient bench --mode=process [options]\n"
          "       pmi-mockclient bench --merge DIR -n N [--json|--summary]\n"
          "\n"
          "A PMI load generator.  Each rank runs rounds of put (its own key), fence and a\n"
          "get of every other rank's key, then random gets of other ranks' keys, and\n"
          "finalizes.  The first rounds are a warm-up and are not measured.  Reports\n"
          "requests, failures, gets/s, latency per operation and traffic.\n"
          "\n"
          "load:\n"
          "  -n, --ranks N          virtual ranks to open (virtual mode; default PMI_SIZE)\n"
          "      --mode MODE        virtual (default): this process opens N connections to\n"
          "                         the server at --port; process: one rank per process,\n"
          "                         on the launcher's PMI_FD or PMI_PORT\n"
          "      --port ADDR        host:port or a UNIX socket path (default $PMI_PORT)\n"
          "  -p, --proto 1|2        PMI-1 lines or PMI-2 frames (default 2)\n"
          "      --rounds R         measured rounds of put, fence, get-all (default 3)\n"
          "      --warmup W         rounds before them (default 1)\n"
          "      --random-gets M    random gets per rank after the rounds (default 100)\n"
          "      --value-size B     bytes per value (default 100)\n"
          "      --pipeline K       outstanding gets per rank (default 1: lock step)\n"
          "      --dialect NAME     encoder dialect of the requests (default strict)\n"
          "      --seed S           values and random targets (default 1)\n"
          "      --no-verify        do not compare the values read with those put\n"
          "      --timeout SEC      give up after SEC seconds (default 300, 0 = never)\n"
          "measurement:\n"
          "      --server-pid PID   add the server's CPU time per get (repeatable); in\n"
          "                         process mode `auto` (default) means the launcher, and\n"
          "                         mpiexec too above Hydra's proxy; `none` turns it off\n"
          "      --out-dir DIR      process mode: where ranks leave their figures for rank 0\n"
          "                         (default $TMPDIR/pmi-mockclient-bench.UID.PPID, removed)\n"
          "      --merge DIR        only merge the files a process-mode run left in DIR\n"
          "output:\n"
          "      --json             JSON instead of the table\n"
          "      --summary          add a line `summary: key=value ...` after the table\n"
          "  -h, --help             this text\n"
          "  -V, --version          version\n"
          "\n"
          "exit status: 0 the run completed with no failure; 1 a request failed (rc != 0,\n"
          "not found, wrong value), the server misbehaved or the run timed out; 2 usage\n"
          "error or no connection to the server.\n",
          f);
}

static bool num(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static int bad(const char *what, const char *val)
{
    fprintf(stderr, "pmi-mockclient bench: bad %s: %s\n", what, val);
    return BENCH_EXIT_USAGE;
}

static void describe(char *buf, size_t n, const bench_cfg *c)
{
    if (c->mode == MODE_VIRTUAL)
        snprintf(buf, n, "server %s", c->addr);
    else
        snprintf(buf, n, "under a launcher (%s)", getenv("PMI_FD") ? "PMI_FD" : "PMI_PORT");
}

static void emit(const bench_cfg *c, bench_result *r, const char *where)
{
    if (c->json)
        bench_report_json(stdout, r, where);
    else {
        bench_report_text(stdout, r, where);
        if (c->summary)
            bench_report_summary(stdout, r);
    }
    fflush(stdout);
}

static uint64_t total_failures(const bench_result *r)
{
    uint64_t f = r->other_failures;
    for (int i = 0; i < OP__COUNT; i++)
        f += r->failures[i];
    return f;
}

int bench_main(int argc, char **argv)
{
    bench_cfg c = { .mode = MODE_VIRTUAL, .proto = 2, .rounds = 3, .warmup = 1,
                    .random_gets = 100, .value_size = 100, .pipeline = 1, .timeout_s = 300,
                    .verify = true, .server_auto = true, .dialect = &pmc_dialect_strict,
                    .seed = 1 };
    const char *merge_dir = NULL;
    bool pid_none = false, pid_given = false;
    long long v;
    enum { O_MODE = 256, O_PORT, O_ROUNDS, O_WARMUP, O_RANDOM, O_VSIZE, O_PIPE, O_DIALECT,
           O_SEED, O_NOVERIFY, O_TIMEOUT, O_SPID, O_OUTDIR, O_MERGE, O_JSON, O_SUMMARY };
    static const struct option lo[] = {
        { "ranks", required_argument, 0, 'n' },       { "mode", required_argument, 0, O_MODE },
        { "port", required_argument, 0, O_PORT },     { "proto", required_argument, 0, 'p' },
        { "rounds", required_argument, 0, O_ROUNDS }, { "warmup", required_argument, 0, O_WARMUP },
        { "random-gets", required_argument, 0, O_RANDOM },
        { "value-size", required_argument, 0, O_VSIZE },
        { "pipeline", required_argument, 0, O_PIPE }, { "dialect", required_argument, 0, O_DIALECT },
        { "seed", required_argument, 0, O_SEED },     { "no-verify", no_argument, 0, O_NOVERIFY },
        { "timeout", required_argument, 0, O_TIMEOUT },
        { "server-pid", required_argument, 0, O_SPID },
        { "out-dir", required_argument, 0, O_OUTDIR }, { "merge", required_argument, 0, O_MERGE },
        { "json", no_argument, 0, O_JSON },           { "summary", no_argument, 0, O_SUMMARY },
        { "help", no_argument, 0, 'h' },              { "version", no_argument, 0, 'V' },
        { 0, 0, 0, 0 },
    };
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "n:p:hV", lo, NULL)) != -1) {
        switch (ch) {
        case 'n':
            if (!num(optarg, 1, 1 << 20, &v))
                return bad("rank count", optarg);
            c.nranks = (int)v;
            break;
        case O_MODE:
            if (strcmp(optarg, "virtual") == 0)
                c.mode = MODE_VIRTUAL;
            else if (strcmp(optarg, "process") == 0)
                c.mode = MODE_PROCESS;
            else
                return bad("mode (virtual or process)", optarg);
            break;
        case O_PORT: c.addr = optarg; break;
        case 'p':
            if (strcmp(optarg, "1") && strcmp(optarg, "2"))
                return bad("protocol (1 or 2)", optarg);
            c.proto = optarg[0] - '0';
            break;
        case O_ROUNDS:
            if (!num(optarg, 0, 1000000, &v))
                return bad("round count", optarg);
            c.rounds = (int)v;
            break;
        case O_WARMUP:
            if (!num(optarg, 0, 1000000, &v))
                return bad("warm-up round count", optarg);
            c.warmup = (int)v;
            break;
        case O_RANDOM:
            if (!num(optarg, 0, 1000000000, &v))
                return bad("random get count", optarg);
            c.random_gets = (long)v;
            break;
        case O_VSIZE:
            if (!num(optarg, 1, 65536, &v))
                return bad("value size", optarg);
            c.value_size = (size_t)v;
            break;
        case O_PIPE:
            if (!num(optarg, 1, BENCH_MAX_PIPELINE, &v))
                return bad("pipeline depth (1..64)", optarg);
            c.pipeline = (int)v;
            break;
        case O_DIALECT:
            if (!(c.dialect = pmc_dialect_get(optarg)))
                return bad("dialect", optarg);
            break;
        case O_SEED:
            if (!num(optarg, 0, LLONG_MAX, &v))
                return bad("seed", optarg);
            c.seed = (uint64_t)v;
            break;
        case O_NOVERIFY: c.verify = false; break;
        case O_TIMEOUT:
            if (!num(optarg, 0, 86400 * 7, &v))
                return bad("timeout", optarg);
            c.timeout_s = (unsigned)v;
            break;
        case O_SPID:
            if (strcmp(optarg, "auto") == 0) {
                c.server_auto = true;
                pid_none = false;
            } else if (strcmp(optarg, "none") == 0) {
                pid_none = true;
            } else {
                if (!num(optarg, 1, INT_MAX, &v))
                    return bad("server pid", optarg);
                if (c.nserver_pids == BENCH_MAX_SERVER_PIDS)
                    return bad("server pid (too many)", optarg);
                c.server_pids[c.nserver_pids++] = (pid_t)v;
                pid_given = true;
            }
            break;
        case O_OUTDIR:
            c.out_dir = optarg;
            c.out_dir_given = true;
            break;
        case O_MERGE: merge_dir = optarg; break;
        case O_JSON: c.json = true; break;
        case O_SUMMARY: c.summary = true; break;
        case 'h': usage(stdout); return BENCH_EXIT_OK;
        case 'V': printf("pmi-mockclient bench (pmi2-conform) %s\n", PMICODEC_VERSION); return 0;
        default: /* getopt named the option */
            fprintf(stderr, "Try 'pmi-mockclient bench --help'.\n");
            return BENCH_EXIT_USAGE;
        }
    }
    if (optind < argc)
        return bad("argument", argv[optind]);
    if (c.json && c.summary) {
        fprintf(stderr, "pmi-mockclient bench: --json and --summary exclude each other\n");
        return BENCH_EXIT_USAGE;
    }
    /* explicit pids replace the automatic guess; virtual mode has no launcher */
    c.server_auto = c.mode == MODE_PROCESS && !pid_given && !pid_none;
    if (pid_none)
        c.nserver_pids = 0;
    /* PMI-1 lines cannot carry a space or '\n' in a value, and the values
     * are made of neither; a v2 frame of this size must fit the field */
    if (c.proto == 1 && c.value_size > 1024)
        fprintf(stderr, "pmi-mockclient bench: warning: PMI-1 servers limit values to "
                        "vallen_max (1024 for Hydra)\n");

    if (merge_dir) {
        if (c.nranks <= 0)
            return bad("merge: -n N (ranks whose files to merge) is", "missing");
        bench_result r;
        char err[512];
        if (bench_rankfile_merge(merge_dir, c.nranks, 0, 0, &r, err, sizeof err) < 0) {
            fprintf(stderr, "pmi-mockclient bench: %s\n", err);
            return BENCH_EXIT_USAGE;
        }
        char where[600];
        snprintf(where, sizeof where, "merged from %s", merge_dir);
        emit(&c, &r, where);
        int code = r.incomplete || total_failures(&r) ? BENCH_EXIT_FAIL : BENCH_EXIT_OK;
        bench_result_free(&r);
        return code;
    }

    if (c.mode == MODE_VIRTUAL) {
        if (!c.addr)
            c.addr = getenv("PMI_PORT");
        if (!c.addr || !*c.addr) {
            fprintf(stderr, "pmi-mockclient bench: no server: give --port or set PMI_PORT\n");
            return BENCH_EXIT_USAGE;
        }
        if (c.nranks <= 0) {
            const char *s = getenv("PMI_SIZE");
            if (!s || !num(s, 1, 1 << 20, &v)) {
                fprintf(stderr, "pmi-mockclient bench: how many ranks? give -n or set PMI_SIZE\n");
                return BENCH_EXIT_USAGE;
            }
            c.nranks = (int)v;
        }
    }
    char defdir[512];
    if (c.mode == MODE_PROCESS && !c.out_dir) {
        const char *t = getenv("TMPDIR");
        /* every rank of a one-node job has the same parent: the launcher
         * (pmi-mockserver) or Hydra's proxy */
        snprintf(defdir, sizeof defdir, "%s/pmi-mockclient-bench.%u.%d", t && *t ? t : "/tmp",
                 (unsigned)getuid(), (int)getppid());
        c.out_dir = defdir;
    }

    bench_result r;
    if (bench_result_init(&r, &c, c.nranks) < 0) {
        fprintf(stderr, "pmi-mockclient bench: out of memory\n");
        return BENCH_EXIT_USAGE;
    }
    if (c.mode == MODE_VIRTUAL) {
        size_t per = (size_t)c.nranks;
        for (int i = 0; i < OP__COUNT; i++)
            bench_samples_reserve(&r.samples[i], i == OP_GET   ? per * (per - 1) * (size_t)c.rounds
                                                 : i == OP_RGET ? per * (size_t)c.random_gets
                                                                : per * (size_t)c.rounds);
    }
    int code = bench_run(&c, &r);
    char where[600];
    describe(where, sizeof where, &c);
    if (code == BENCH_EXIT_USAGE) {
        bench_result_free(&r);
        return code;
    }
    if (c.mode == MODE_VIRTUAL) {
        if (r.incomplete)
            fprintf(stderr, "pmi-mockclient bench: %s\n", r.note);
        emit(&c, &r, where);
        bench_result_free(&r);
        return code;
    }
    /* process mode: every rank left its file before the last collective;
     * rank 0 speaks for the job */
    if (r.incomplete)
        fprintf(stderr, "pmi-mockclient bench: rank %d: %s\n", r.rank, r.note);
    if (r.rank != 0 || r.size <= 0) {
        bench_result_free(&r);
        return code;
    }
    bench_result m;
    char err[512];
    uint64_t begin = r.t_begin;
    int size = r.size;
    bench_result_free(&r);
    if (bench_rankfile_merge(c.out_dir, size, MERGE_TIMEOUT_MS, begin, &m, err, sizeof err) < 0) {
        fprintf(stderr, "pmi-mockclient bench: %s\n", err);
        return BENCH_EXIT_FAIL;
    }
    emit(&c, &m, where);
    if (m.incomplete || total_failures(&m))
        code = BENCH_EXIT_FAIL;
    bench_result_free(&m);
    if (!c.out_dir_given)
        bench_rankfile_remove(c.out_dir, size);
    return code;
}
