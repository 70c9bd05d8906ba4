/* Process mode: each rank writes its figures and samples to a file in the
 * output directory before the last collective; rank 0 merges them.  The
 * files are raw structures, read back on the same machine by the same
 * program (the header carries a magic, a version and the structure size). */
#include "bench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RF_MAGIC "PMCBNCH1"

typedef struct rf_head {
    char magic[8];
    uint32_t head_size, rank, size, proto;
    uint32_t rounds, warmup, pipeline, incomplete;
    uint64_t random_gets, value_size;
    uint64_t requests[OP__COUNT], failures[OP__COUNT], nsamples[OP__COUNT];
    uint64_t other_failures, bytes_out, bytes_in, t_begin, t_end;
    char note[256];
} rf_head;

static void path_of(char *buf, size_t n, const char *dir, int rank, const char *suffix)
{
    snprintf(buf, n, "%s/rank-%d.bench%s", dir, rank, suffix);
}

int bench_rankfile_write(const char *dir, int rank, const bench_result *r, char *err, size_t n)
{
    char tmp[4096], final[4096];
    if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
        snprintf(err, n, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    path_of(tmp, sizeof tmp, dir, rank, ".tmp");
    path_of(final, sizeof final, dir, rank, "");
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        snprintf(err, n, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    rf_head h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, RF_MAGIC, 8);
    h.head_size = sizeof h;
    h.rank = (uint32_t)rank;
    h.size = (uint32_t)r->size;
    h.proto = (uint32_t)r->proto;
    h.rounds = (uint32_t)r->rounds;
    h.warmup = (uint32_t)r->warmup;
    h.pipeline = (uint32_t)r->pipeline;
    h.incomplete = r->incomplete;
    h.random_gets = (uint64_t)r->random_gets;
    h.value_size = r->value_size;
    for (int i = 0; i < OP__COUNT; i++) {
        h.requests[i] = r->requests[i];
        h.failures[i] = r->failures[i];
        h.nsamples[i] = r->samples[i].n;
    }
    h.other_failures = r->other_failures;
    h.bytes_out = r->bytes_out;
    h.bytes_in = r->bytes_in;
    h.t_begin = r->t_begin;
    h.t_end = r->t_end;
    memcpy(h.note, r->note, sizeof h.note);
    bool ok = fwrite(&h, sizeof h, 1, f) == 1 &&
              fwrite(r->getall, sizeof *r->getall, (size_t)r->rounds, f) == (size_t)r->rounds &&
              fwrite(&r->random, sizeof r->random, 1, f) == 1;
    for (int i = 0; ok && i < OP__COUNT; i++)
        ok = fwrite(r->samples[i].v, sizeof(uint64_t), r->samples[i].n, f) == r->samples[i].n;
    if (fclose(f) != 0)
        ok = false;
    /* rename: the merging rank never sees a half-written file */
    if (!ok || rename(tmp, final) < 0) {
        snprintf(err, n, "cannot write %s: %s", final, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

static int read_one(const char *path, int rank, bench_result *out, bool first, char *err, size_t n)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, n, "%s: %s", path, strerror(errno));
        return -1;
    }
    rf_head h;
    bench_phase *ph = NULL;
    int rc = -1;
    if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, RF_MAGIC, 8) != 0 ||
        h.head_size != sizeof h || (int)h.rank != rank || h.rounds > 1000000) {
        snprintf(err, n, "%s: not a statistics file of this program for rank %d", path, rank);
        goto out;
    }
    if (first) {
        bench_cfg c = { .mode = MODE_PROCESS, .proto = (int)h.proto, .rounds = (int)h.rounds,
                        .warmup = (int)h.warmup, .random_gets = (long)h.random_gets,
                        .value_size = h.value_size, .pipeline = (int)h.pipeline };
        if (bench_result_init(out, &c, (int)h.size) < 0) {
            snprintf(err, n, "out of memory");
            goto out;
        }
        out->t_begin = h.t_begin;
        out->t_end = h.t_end;
    } else if ((int)h.size != out->size || (int)h.rounds != out->rounds ||
               (int)h.proto != out->proto) {
        snprintf(err, n, "%s: ran a different load than rank 0", path);
        goto out;
    }
    ph = malloc(((size_t)h.rounds + 1) * sizeof *ph);
    if (!ph || fread(ph, sizeof *ph, h.rounds + 1u, f) != h.rounds + 1u) {
        snprintf(err, n, "%s: truncated", path);
        goto out;
    }
    for (int i = 0; i < OP__COUNT; i++) {
        bench_samples *s = &out->samples[i];
        if (bench_samples_reserve(s, s->n + h.nsamples[i]) < 0 ||
            fread(s->v + s->n, sizeof(uint64_t), h.nsamples[i], f) != h.nsamples[i]) {
            snprintf(err, n, "%s: truncated samples", path);
            goto out;
        }
        s->n += h.nsamples[i];
        out->requests[i] += h.requests[i];
        out->failures[i] += h.failures[i];
    }
    out->other_failures += h.other_failures;
    out->bytes_out += h.bytes_out;
    out->bytes_in += h.bytes_in;
    if (h.t_begin < out->t_begin)
        out->t_begin = h.t_begin;
    if (h.t_end > out->t_end)
        out->t_end = h.t_end;
    if (h.incomplete && !out->incomplete) {
        out->incomplete = true;
        h.note[sizeof h.note - 1] = 0;
        snprintf(out->note, sizeof out->note, "rank %d: %.200s", rank, h.note);
    }
    /* A phase spans the earliest start to the latest end over all ranks;
     * the server's CPU is read by the ranks that saw those two moments. */
    for (uint32_t k = 0; k <= h.rounds; k++) {
        bench_phase *d = k < h.rounds ? &out->getall[k] : &out->random;
        const bench_phase *s = &ph[k];
        if (!s->gets)
            continue;
        if (!d->gets || s->start_ns < d->start_ns) {
            d->start_ns = s->start_ns;
            d->cpu0_ns = s->cpu0_ns;
        }
        if (!d->gets || s->end_ns > d->end_ns) {
            d->end_ns = s->end_ns;
            d->cpu1_ns = s->cpu1_ns;
        }
        d->gets += s->gets;
        d->client_cpu_ns += s->client_cpu_ns;
    }
    out->nreported++;
    rc = 0;
out:
    free(ph);
    fclose(f);
    return rc;
}

/* A file of this run: complete, and finished after `not_before` (a file
 * left by an earlier job with the same parent process is older). */
static bool current(const char *path, uint64_t not_before)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    rf_head h;
    bool ok = fread(&h, sizeof h, 1, f) == 1 && memcmp(h.magic, RF_MAGIC, 8) == 0 &&
              h.t_end >= not_before;
    fclose(f);
    return ok;
}

int bench_rankfile_merge(const char *dir, int size, unsigned timeout_ms, uint64_t not_before,
                         bench_result *out, char *err, size_t n)
{
    memset(out, 0, sizeof *out);
    char path[4096];
    struct timespec nap = { 0, 20 * 1000 * 1000 };
    uint64_t deadline = bench_now_ns() + (uint64_t)timeout_ms * 1000000u;
    int have = 0;
    /* the last ranks may still be writing after rank 0 left the barrier
     * (a PMI-2 fence is not a barrier under Hydra) */
    for (;;) {
        have = 0;
        for (int r = 0; r < size; r++) {
            path_of(path, sizeof path, dir, r, "");
            if (current(path, not_before))
                have++;
        }
        if (have == size || bench_now_ns() >= deadline)
            break;
        nanosleep(&nap, NULL);
    }
    bool first = true;
    for (int r = 0; r < size; r++) {
        path_of(path, sizeof path, dir, r, "");
        if (!current(path, not_before))
            continue;
        if (read_one(path, r, out, first, err, n) < 0) {
            bench_result_free(out);
            return -1;
        }
        first = false;
    }
    if (first) {
        snprintf(err, n, "no rank wrote its figures to %s", dir);
        return -1;
    }
    if (have < size) {
        out->incomplete = true;
        snprintf(out->note, sizeof out->note, "only %d of %d ranks reported in %u ms", have, size,
                 timeout_ms);
        out->other_failures += (uint64_t)(size - have);
    }
    return 0;
}

void bench_rankfile_remove(const char *dir, int size)
{
    char path[4096];
    for (int r = 0; r < size; r++) {
        path_of(path, sizeof path, dir, r, "");
        unlink(path);
    }
    rmdir(dir); /* only when empty: the user's own files stay */
}
