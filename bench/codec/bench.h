/* bench-codec: shared declarations.  One workload (bench_input) is a stream of
 * messages built with the codec's own encoder; each measured operation runs
 * over the whole stream, and a memcpy of the same bytes with the same
 * chunking is timed alongside it in the same run. */
#ifndef PMC_BENCH_CODEC_H
#define PMC_BENCH_CODEC_H

#include <stdio.h>

#include "pmicodec/pmicodec.h"

#define BENCH_VERSION "0.1.0"
#define BENCH_CHUNK (64u * 1024u) /* feed size of the streaming path */

/* ---- workloads (inputs.c) ---- */

typedef struct bench_input bench_input;
/* Append message i of the workload to `out` with the codec's encoder. */
typedef int (*bench_emit_fn)(const bench_input *in, size_t i, pmc_out *out, pmc_error *err);

typedef enum bench_target {
    BENCH_T_NONE = 0,
    BENCH_T_MAX_NS,   /* ns per message must be <= target */
    BENCH_T_MIN_GBPS, /* GB/s must be >= target */
} bench_target;

struct bench_input {
    const char *name;           /* "v2-kvs-get" */
    const char *what;           /* one line for the README / --help */
    pmc_wire wire;
    int cmd;                    /* pmc_cmd every message must decode to */
    const pmc_dialect *dialect; /* what the encoder writes */
    bench_emit_fn emit;
    size_t nmsgs;
    size_t vlen;                /* unescaped value length, 0 when no value */
    char *vals;                 /* nmsgs NUL-terminated values, stride vlen + 1 */
    uint32_t expect_notes;      /* notes every message must carry */
    bench_target target;        /* applies to the decode + validate figure */
    double target_value;
    /* the stream */
    char *buf;
    size_t len;
    size_t *ends;               /* ends[i]: offset just past message i */
};

/* Build the workloads; returns how many (at most `max`), or -1 after
 * printing why on stderr. */
int bench_inputs_build(bench_input *in, size_t max, bool quick);
void bench_inputs_free(bench_input *in, size_t n);
/* Check that the stream decodes back to what was encoded, by both decode
 * paths, and validates.  0, or -1 after printing the first mismatch. */
int bench_input_verify(const bench_input *in);

/* ---- timing (clock.c) ---- */

typedef struct bench_cfg {
    double min_time;  /* seconds per repetition */
    double warm_time; /* seconds of warm-up */
    int reps;
} bench_cfg;

/* Runs `passes` passes over a workload; returns a value derived from the
 * results (summed into a volatile so nothing is optimised away).  Sets
 * *failed on an unexpected codec result. */
typedef uint64_t (*bench_kernel)(void *ctx, uint64_t passes);

typedef struct bench_stats {
    double med_ns; /* per pass */
    double min_ns;
    uint64_t passes; /* per repetition */
} bench_stats;

uint64_t bench_now_ns(void);
/* Time `a` and `b` in alternating repetitions after warming both up.
 * Stops early once *failed is set by a kernel. */
void bench_measure_pair(const bench_cfg *cfg, const bool *failed, bench_kernel a, void *actx,
                        bench_stats *sa, bench_kernel b, void *bctx, bench_stats *sb);

/* ---- measured loops (kernels.c) ---- */

typedef enum bench_op {
    BENCH_DECODE = 0,   /* pmc_decode_buffer over the caller's buffer */
    BENCH_VALIDATE = 1, /* the same + pmc_validate(PMC_VAL_REQUEST) */
    BENCH_STREAM = 2,   /* pmc_decoder_feed in 64 KiB chunks + pmc_decoder_next */
    BENCH_ENCODE = 3,   /* pmc_enc_begin/str/end into a reused pmc_out */
    BENCH_OP_COUNT
} bench_op;

const char *bench_op_name(bench_op op);

typedef struct bench_kctx {
    const bench_input *in;
    pmc_decoder *dec;
    pmc_out out;
    /* memcpy baseline */
    char *dst;
    const size_t *ends; /* chunk boundaries */
    size_t nends;
    size_t *chunk_ends; /* owned: 64 KiB boundaries for the streaming baseline */
    /* first unexpected result */
    bool failed;
    pmc_error err;
    size_t fail_index;
} bench_kctx;

int bench_kctx_init(bench_kctx *k, const bench_input *in, bench_op op);
void bench_kctx_free(bench_kctx *k);
bench_kernel bench_op_kernel(bench_op op);
uint64_t bench_memcpy_kernel(void *ctx, uint64_t passes);

/* ---- results (report.c) ---- */

typedef struct bench_row {
    const bench_input *in;
    bench_op op;
    double bytes_msg;
    double ns_msg_med, ns_msg_min;
    double gbps, memcpy_gbps, ratio;
    uint64_t passes;
    bench_target target;
    double target_value;
    int verdict; /* -1: no target, 0: MISS, 1: PASS */
} bench_row;

void bench_row_fill(bench_row *r, const bench_input *in, bench_op op, const bench_stats *s,
                    const bench_stats *mc);
void bench_report_table(FILE *f, const bench_row *rows, size_t n, const bench_cfg *cfg);
void bench_report_json(FILE *f, const bench_row *rows, size_t n, const bench_cfg *cfg,
                       bool quick);

#endif
