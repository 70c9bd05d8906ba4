/* bench-codec: decode, validate and encode speed of the PMI codec, each
 * beside a memcpy of the same bytes measured in the same run.
 *
 * Exit status: 0 when the figures were produced (whether or not they meet
 * the targets: speed is reported, never a test failure), 1 when the codec
 * mis-decoded or rejected a benchmark message or memory ran out, 2 on a
 * usage error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { MAX_INPUTS = 8 };

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench-codec [--quick] [--json] [--time=SECONDS] [--reps=N] [--case=NAME]\n"
            "\n"
            "Measures the PMI codec on streams of messages built by its own encoder:\n"
            "  decode           pmc_decode_buffer over the caller's buffer (zero copy)\n"
            "  decode+validate  the same plus pmc_validate(PMC_VAL_REQUEST)\n"
            "  stream           pmc_decoder_feed in 64 KiB chunks + pmc_decoder_next\n"
            "  encode           pmc_enc_begin/str/end into a reused pmc_out\n"
            "each beside a memcpy of the same bytes in the same pieces, timed in the same run.\n"
            "Cases: v2-kvs-get, v2-kvs-put-1k, v2-kvs-put-1k-esc, v1-get.\n"
            "Targets (decode+validate rows): short messages <= 50 ns, 1 KB values >= 5 GB/s.\n"
            "\n"
            "  --quick        short timings (smoke test; figures are rough)\n"
            "  --json         print the results as JSON\n"
            "  --time=S       seconds per repetition (default 0.2)\n"
            "  --reps=N       repetitions, median reported (default 5)\n"
            "  --case=NAME    only this case (repeatable)\n"
            "  --help, --version\n"
            "\n"
            "Exit status: 0 figures printed (targets met or not), 1 the codec failed on a\n"
            "benchmark message, 2 usage error.\n");
}

static int parse_double(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v > 0) || v > 60)
        return -1;
    *out = v;
    return 0;
}

static int parse_int(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < 1 || v > 64)
        return -1;
    *out = (int)v;
    return 0;
}

static void report_failure(const bench_input *in, bench_op op, const bench_kctx *k)
{
    char text[512];
    pmc_error_format(&k->err, text, sizeof text);
    fprintf(stderr, "bench-codec: %s %s: message %zu: %s\n", in->name, bench_op_name(op),
            k->fail_index, text);
}

static bool selected(const char *name, const char *const *only, size_t n)
{
    if (n == 0)
        return true;
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, only[i]) == 0)
            return true;
    return false;
}

int main(int argc, char **argv)
{
    bench_cfg cfg = { .min_time = 0.2, .warm_time = 0.05, .reps = 5 };
    bool quick = false, json = false, time_set = false, reps_set = false;
    const char *only[MAX_INPUTS];
    size_t nonly = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("bench-codec %s (pmicodec %s)\n", BENCH_VERSION, pmc_version());
            return 0;
        } else if (strcmp(a, "--quick") == 0) {
            quick = true;
        } else if (strcmp(a, "--json") == 0) {
            json = true;
        } else if (strncmp(a, "--time=", 7) == 0) {
            if (parse_double(a + 7, &cfg.min_time) != 0) {
                fprintf(stderr, "bench-codec: --time wants seconds in (0, 60]\n");
                return 2;
            }
            time_set = true;
        } else if (strncmp(a, "--reps=", 7) == 0) {
            if (parse_int(a + 7, &cfg.reps) != 0) {
                fprintf(stderr, "bench-codec: --reps wants 1..64\n");
                return 2;
            }
            reps_set = true;
        } else if (strncmp(a, "--case=", 7) == 0) {
            if (nonly == MAX_INPUTS) {
                fprintf(stderr, "bench-codec: too many --case options\n");
                return 2;
            }
            only[nonly++] = a + 7;
        } else {
            fprintf(stderr, "bench-codec: unknown argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (quick) {
        if (!time_set)
            cfg.min_time = 0.005;
        if (!reps_set)
            cfg.reps = 3;
        cfg.warm_time = 0.002;
    }

    bench_input inputs[MAX_INPUTS];
    int ninputs = bench_inputs_build(inputs, MAX_INPUTS, quick);
    if (ninputs < 0)
        return 1;

    bench_row rows[MAX_INPUTS * BENCH_OP_COUNT];
    size_t nrows = 0;
    int status = 0;
    for (int c = 0; c < ninputs && status == 0; c++) {
        const bench_input *in = &inputs[c];
        if (!selected(in->name, only, nonly))
            continue;
        if (bench_input_verify(in) != 0) {
            status = 1;
            break;
        }
        for (int op = 0; op < BENCH_OP_COUNT; op++) {
            bench_kctx k;
            bench_stats s, mc;
            if (bench_kctx_init(&k, in, (bench_op)op) != 0) {
                fprintf(stderr, "bench-codec: out of memory\n");
                bench_kctx_free(&k);
                status = 1;
                break;
            }
            bench_measure_pair(&cfg, &k.failed, bench_op_kernel((bench_op)op), &k, &s,
                               bench_memcpy_kernel, &k, &mc);
            if (k.failed) {
                report_failure(in, (bench_op)op, &k);
                bench_kctx_free(&k);
                status = 1;
                break;
            }
            bench_row_fill(&rows[nrows++], in, (bench_op)op, &s, &mc);
            bench_kctx_free(&k);
        }
    }
    if (status == 0) {
        if (nrows == 0) {
            fprintf(stderr, "bench-codec: no such case: %s\n", nonly ? only[0] : "");
            status = 2;
        } else if (json) {
            bench_report_json(stdout, rows, nrows, &cfg, quick);
        } else {
            bench_report_table(stdout, rows, nrows, &cfg);
        }
    }
    bench_inputs_free(inputs, (size_t)ninputs);
    return status;
}
