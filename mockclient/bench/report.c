/* Reports: an h2load-style table, JSON, and a one-line summary of
 * key=value fields for scripts (bench/server). */
#include "bench.h"

#include <inttypes.h>
#include <string.h>

const char *bench_op_name(bench_op op)
{
    static const char *n[OP__COUNT] = { "put", "fence", "get", "get-random" };
    return op < OP__COUNT ? n[op] : "?";
}

typedef struct tput {
    uint64_t gets;
    double secs;
    double per_s;
    double cpu_us; /* server CPU per get; < 0 unknown */
    double client_us; /* load generator CPU per get */
} tput;

static tput tput_of(const bench_phase *p, size_t n)
{
    tput t = { 0, 0, 0, -1, 0 };
    int64_t cpu = 0;
    uint64_t ccpu = 0;
    bool cpu_ok = n > 0;
    for (size_t i = 0; i < n; i++) {
        t.gets += p[i].gets;
        t.secs += (double)(p[i].end_ns - p[i].start_ns) / 1e9;
        ccpu += p[i].client_cpu_ns;
        if (p[i].cpu0_ns < 0 || p[i].cpu1_ns < 0)
            cpu_ok = false;
        else
            cpu += p[i].cpu1_ns - p[i].cpu0_ns;
    }
    if (t.secs > 0)
        t.per_s = (double)t.gets / t.secs;
    if (cpu_ok && t.gets)
        t.cpu_us = (double)cpu / 1e3 / (double)t.gets;
    if (t.gets)
        t.client_us = (double)ccpu / 1e3 / (double)t.gets;
    return t;
}

/* The steady-state figure: random gets when there were any. */
static tput headline(const bench_result *r, tput *all, tput *rnd)
{
    *all = tput_of(r->getall, (size_t)r->rounds);
    *rnd = tput_of(&r->random, r->random.gets ? 1 : 0);
    return rnd->gets ? *rnd : *all;
}

static uint64_t total_failures(const bench_result *r)
{
    uint64_t f = r->other_failures;
    for (int i = 0; i < OP__COUNT; i++)
        f += r->failures[i];
    return f;
}

static void cpu_text(char *buf, size_t n, double us)
{
    if (us < 0)
        snprintf(buf, n, "n/a");
    else
        snprintf(buf, n, "%.2f", us);
}

void bench_report_text(FILE *f, bench_result *r, const char *where)
{
    tput all, rnd;
    headline(r, &all, &rnd);
    uint64_t req = 0;
    for (int i = 0; i < OP__COUNT; i++)
        req += r->requests[i];
    double wall = (double)(r->t_end - r->t_begin) / 1e9;
    fprintf(f, "pmi-mockclient bench: %d ranks (%s), PMI-%d, %s\n", r->size,
            r->mode == MODE_VIRTUAL ? "virtual" : "processes", r->proto, where);
    fprintf(f, "  %d rounds (+%d warm-up) of put, fence, %d gets; %ld random gets per rank; "
               "values %zu B; pipeline %d\n",
            r->rounds, r->warmup, r->size > 0 ? r->size - 1 : 0, r->random_gets, r->value_size,
            r->pipeline);
    if (r->nreported != r->size && r->mode == MODE_PROCESS)
        fprintf(f, "  figures from %d of %d ranks\n", r->nreported, r->size);
    fprintf(f, "\nfinished in %.3fs, %" PRIu64 " requests measured, %" PRIu64 " failed\n", wall,
            req, total_failures(r));
    if (r->incomplete)
        fprintf(f, "INCOMPLETE: %s\n", r->note);
    fprintf(f, "traffic: %" PRIu64 " B sent, %" PRIu64 " B received; per rank %.0f B sent, %.0f B "
               "received\n",
            r->bytes_out, r->bytes_in, r->size ? (double)r->bytes_out / r->size : 0,
            r->size ? (double)r->bytes_in / r->size : 0);

    char c1[32], c2[32];
    cpu_text(c1, sizeof c1, all.cpu_us);
    cpu_text(c2, sizeof c2, rnd.cpu_us);
    fprintf(f, "\n%-16s %10s %10s %12s %16s %16s\n", "throughput", "gets", "time(s)", "gets/s",
            "server us/get", "client us/get");
    fprintf(f, "%-16s %10" PRIu64 " %10.4f %12.0f %16s %16.2f\n", "get-all", all.gets, all.secs,
            all.per_s, c1, all.client_us);
    if (rnd.gets)
        fprintf(f, "%-16s %10" PRIu64 " %10.4f %12.0f %16s %16.2f\n", "get-random", rnd.gets,
                rnd.secs, rnd.per_s, c2, rnd.client_us);

    fprintf(f, "\n%-12s %10s %8s %9s %9s %9s %9s %9s %9s\n", "latency(us)", "requests",
            "failed", "min", "mean", "sd", "p50", "p99", "max");
    for (int i = 0; i < OP__COUNT; i++) {
        bench_lat l;
        bench_lat_compute(&r->samples[i], &l);
        if (!l.n && !r->failures[i])
            continue;
        fprintf(f, "%-12s %10" PRIu64 " %8" PRIu64 " %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n",
                bench_op_name((bench_op)i), r->requests[i], r->failures[i], l.min / 1e3,
                l.mean / 1e3, l.sd / 1e3, l.p50 / 1e3, l.p99 / 1e3, l.max / 1e3);
    }
}

static void json_tput(FILE *f, const char *name, const tput *t, bool comma)
{
    fprintf(f, "    \"%s\": {\"gets\": %" PRIu64 ", \"seconds\": %.6f, \"gets_per_s\": %.1f, ", name,
            t->gets, t->secs, t->per_s);
    fprintf(f, "\"client_cpu_us_per_get\": %.3f, ", t->client_us);
    if (t->cpu_us < 0)
        fprintf(f, "\"server_cpu_us_per_get\": null}%s\n", comma ? "," : "");
    else
        fprintf(f, "\"server_cpu_us_per_get\": %.3f}%s\n", t->cpu_us, comma ? "," : "");
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void bench_report_json(FILE *f, bench_result *r, const char *where)
{
    tput all, rnd;
    headline(r, &all, &rnd);
    fprintf(f, "{\n  \"tool\": \"pmi-mockclient bench\",\n  \"mode\": \"%s\",\n  \"server\": ",
            r->mode == MODE_VIRTUAL ? "virtual" : "process");
    json_str(f, where);
    fprintf(f, ",\n  \"protocol\": %d,\n  \"ranks\": %d,\n  \"ranks_reported\": %d,\n"
               "  \"rounds\": %d,\n  \"warmup\": %d,\n  \"random_gets_per_rank\": %ld,\n"
               "  \"value_size\": %zu,\n  \"pipeline\": %d,\n",
            r->proto, r->size, r->nreported, r->rounds, r->warmup, r->random_gets, r->value_size,
            r->pipeline);
    fprintf(f, "  \"wall_seconds\": %.6f,\n  \"failures\": %" PRIu64 ",\n  \"complete\": %s,\n",
            (double)(r->t_end - r->t_begin) / 1e9, total_failures(r),
            r->incomplete ? "false" : "true");
    fprintf(f, "  \"note\": ");
    json_str(f, r->note);
    fprintf(f, ",\n  \"bytes_sent\": %" PRIu64 ",\n  \"bytes_received\": %" PRIu64 ",\n",
            r->bytes_out, r->bytes_in);
    fprintf(f, "  \"throughput\": {\n");
    json_tput(f, "get_all", &all, rnd.gets > 0);
    if (rnd.gets)
        json_tput(f, "get_random", &rnd, false);
    fprintf(f, "  },\n  \"latency_us\": {\n");
    bool first = true;
    for (int i = 0; i < OP__COUNT; i++) {
        bench_lat l;
        bench_lat_compute(&r->samples[i], &l);
        fprintf(f, "%s    \"%s\": {\"requests\": %" PRIu64 ", \"failures\": %" PRIu64
                   ", \"min\": %.3f, \"mean\": %.3f, \"sd\": %.3f, \"p50\": %.3f, \"p99\": %.3f, "
                   "\"max\": %.3f}",
                first ? "" : ",\n", bench_op_name((bench_op)i), r->requests[i], r->failures[i],
                l.min / 1e3, l.mean / 1e3, l.sd / 1e3, l.p50 / 1e3, l.p99 / 1e3, l.max / 1e3);
        first = false;
    }
    fprintf(f, "\n  }\n}\n");
}

void bench_report_summary(FILE *f, bench_result *r)
{
    tput all, rnd;
    tput h = headline(r, &all, &rnd);
    bench_lat fl, gl;
    bench_lat_compute(&r->samples[OP_FENCE], &fl);
    bench_lat_compute(&r->samples[rnd.gets ? OP_RGET : OP_GET], &gl);
    char cpu[32];
    cpu_text(cpu, sizeof cpu, h.cpu_us);
    fprintf(f,
            "summary: mode=%s proto=%d ranks=%d complete=%d failures=%" PRIu64
            " gets=%" PRIu64 " gets_per_s=%.0f server_us_per_get=%s client_us_per_get=%.2f getall_per_s=%.0f"
            " fence_p50_us=%.1f fence_p99_us=%.1f get_p50_us=%.1f get_p99_us=%.1f"
            " wall_s=%.3f\n",
            r->mode == MODE_VIRTUAL ? "virtual" : "process", r->proto, r->size, !r->incomplete,
            total_failures(r), h.gets, h.per_s, cpu, h.client_us, all.per_s, fl.p50 / 1e3, fl.p99 / 1e3,
            gl.p50 / 1e3, gl.p99 / 1e3, (double)(r->t_end - r->t_begin) / 1e9);
}
