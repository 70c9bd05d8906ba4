/* Latency samples and the figures computed from them. */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t bench_self_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int bench_samples_reserve(bench_samples *s, size_t n)
{
    if (n <= s->cap)
        return 0;
    uint64_t *v = realloc(s->v, n * sizeof *v);
    if (!v)
        return -1;
    s->v = v;
    s->cap = n;
    return 0;
}

int bench_samples_push(bench_samples *s, uint64_t x)
{
    if (s->n == s->cap && bench_samples_reserve(s, s->cap ? s->cap * 2 : 1024) < 0)
        return -1;
    s->v[s->n++] = x;
    return 0;
}

void bench_samples_free(bench_samples *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Nearest-rank percentile: the smallest sample with at least p% at or below. */
static uint64_t pct(const bench_samples *s, double p)
{
    size_t k = (size_t)ceil(p / 100.0 * (double)s->n);
    if (k < 1)
        k = 1;
    if (k > s->n)
        k = s->n;
    return s->v[k - 1];
}

void bench_lat_compute(bench_samples *s, bench_lat *out)
{
    memset(out, 0, sizeof *out);
    if (s->n == 0)
        return;
    qsort(s->v, s->n, sizeof *s->v, cmp_u64);
    double sum = 0, sq = 0;
    for (size_t i = 0; i < s->n; i++)
        sum += (double)s->v[i];
    double mean = sum / (double)s->n;
    for (size_t i = 0; i < s->n; i++) {
        double d = (double)s->v[i] - mean;
        sq += d * d;
    }
    out->n = s->n;
    out->min = s->v[0];
    out->max = s->v[s->n - 1];
    out->p50 = pct(s, 50);
    out->p99 = pct(s, 99);
    out->mean = mean;
    out->sd = s->n > 1 ? sqrt(sq / (double)(s->n - 1)) : 0;
}

int bench_result_init(bench_result *r, const bench_cfg *c, int size)
{
    memset(r, 0, sizeof *r);
    r->mode = c->mode;
    r->proto = c->proto;
    r->size = size;
    r->rounds = c->rounds;
    r->warmup = c->warmup;
    r->random_gets = c->random_gets;
    r->value_size = c->value_size;
    r->pipeline = c->pipeline;
    r->random.cpu0_ns = r->random.cpu1_ns = -1;
    r->getall = calloc(c->rounds ? (size_t)c->rounds : 1, sizeof *r->getall);
    if (!r->getall)
        return -1;
    for (int i = 0; i < c->rounds; i++)
        r->getall[i].cpu0_ns = r->getall[i].cpu1_ns = -1;
    return 0;
}

void bench_result_free(bench_result *r)
{
    for (int i = 0; i < OP__COUNT; i++)
        bench_samples_free(&r->samples[i]);
    free(r->getall);
    r->getall = NULL;
}
