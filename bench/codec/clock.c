/* Timing: CLOCK_MONOTONIC, a warm-up that also calibrates the pass count,
 * then repetitions of at least cfg->min_time each.  The operation and its
 * memcpy baseline alternate repetition by repetition, so frequency changes
 * and noise from other processes hit both alike. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "bench.h"

/* Results are summed here so the compiler cannot drop the measured work. */
static volatile uint64_t bench_sink;

uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double timed(bench_kernel k, void *ctx, uint64_t passes)
{
    uint64_t t0 = bench_now_ns();
    bench_sink += k(ctx, passes);
    return (double)(bench_now_ns() - t0);
}

/* Run the kernel for about warm_time seconds, doubling the batch, and return
 * the number of passes that fills min_time. */
static uint64_t calibrate(const bench_cfg *cfg, bench_kernel k, void *ctx, const bool *failed)
{
    uint64_t batch = 1;
    double spent = 0, last = 0;
    for (;;) {
        last = timed(k, ctx, batch);
        spent += last;
        if ((spent >= cfg->warm_time * 1e9 && last > 0) || *failed)
            break;
        if (last < cfg->warm_time * 1e9 / 4)
            batch *= 2;
    }
    double per_pass = last / (double)batch;
    double want = ceil(cfg->min_time * 1e9 / (per_pass > 0 ? per_pass : 1));
    return want < 1 || *failed ? 1 : (uint64_t)want;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void summarise(double *ns, int n, uint64_t passes, bench_stats *s)
{
    qsort(ns, (size_t)n, sizeof *ns, cmp_double);
    double med = n % 2 ? ns[n / 2] : (ns[n / 2 - 1] + ns[n / 2]) / 2;
    s->med_ns = med / (double)passes;
    s->min_ns = ns[0] / (double)passes;
    s->passes = passes;
}

void bench_measure_pair(const bench_cfg *cfg, const bool *failed, bench_kernel a, void *actx,
                        bench_stats *sa, bench_kernel b, void *bctx, bench_stats *sb)
{
    enum { MAX_REPS = 64 };
    double ta[MAX_REPS], tb[MAX_REPS];
    int reps = cfg->reps < 1 ? 1 : cfg->reps > MAX_REPS ? MAX_REPS : cfg->reps;
    uint64_t pa = calibrate(cfg, a, actx, failed);
    uint64_t pb = calibrate(cfg, b, bctx, failed);
    for (int r = 0; r < reps; r++) {
        if (*failed) { /* a kernel stopped early: the timings are meaningless */
            reps = r ? r : 1;
            if (!r)
                ta[0] = tb[0] = 1;
            break;
        }
        ta[r] = timed(a, actx, pa);
        tb[r] = timed(b, bctx, pb);
    }
    summarise(ta, reps, pa, sa);
    summarise(tb, reps, pb, sb);
}
