/* Turning timings into rows, and printing them as a table or as JSON. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

void bench_row_fill(bench_row *r, const bench_input *in, bench_op op, const bench_stats *s,
                    const bench_stats *mc)
{
    memset(r, 0, sizeof *r);
    r->in = in;
    r->op = op;
    r->bytes_msg = (double)in->len / (double)in->nmsgs;
    r->ns_msg_med = s->med_ns / (double)in->nmsgs;
    r->ns_msg_min = s->min_ns / (double)in->nmsgs;
    r->gbps = (double)in->len / s->med_ns; /* bytes per ns = GB/s */
    r->memcpy_gbps = (double)in->len / mc->med_ns;
    r->ratio = s->med_ns / mc->med_ns;
    r->passes = s->passes;
    r->verdict = -1;
    if (op == BENCH_VALIDATE && in->target != BENCH_T_NONE) {
        r->target = in->target;
        r->target_value = in->target_value;
        r->verdict = in->target == BENCH_T_MAX_NS ? r->ns_msg_med <= in->target_value
                                                  : r->gbps >= in->target_value;
    }
}

static void cpu_model(char *buf, size_t n)
{
    snprintf(buf, n, "unknown cpu");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            const char *p = strchr(line, ':');
            if (p) {
                p++;
                while (*p == ' ' || *p == '\t')
                    p++;
                snprintf(buf, n, "%s", p);
                buf[strcspn(buf, "\n")] = '\0';
            }
            break;
        }
    }
    fclose(f);
}

static long cpu_count(void)
{
    return sysconf(_SC_NPROCESSORS_ONLN);
}

#if defined(__OPTIMIZE__)
#define BENCH_OPTIMIZED 1
#else
#define BENCH_OPTIMIZED 0
#endif

static void target_text(const bench_row *r, char *buf, size_t n)
{
    if (r->verdict < 0)
        snprintf(buf, n, "-");
    else if (r->target == BENCH_T_MAX_NS)
        snprintf(buf, n, "<= %g ns: %s", r->target_value, r->verdict ? "PASS" : "MISS");
    else
        snprintf(buf, n, ">= %g GB/s: %s", r->target_value, r->verdict ? "PASS" : "MISS");
}

void bench_report_table(FILE *f, const bench_row *rows, size_t n, const bench_cfg *cfg)
{
    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    fprintf(f, "bench-codec %s, pmicodec %s; %s, %ld cpus online; compiler %s%s\n",
            BENCH_VERSION, pmc_version(), cpu, cpu_count(), __VERSION__,
            BENCH_OPTIMIZED ? "" : " (NOT OPTIMISED: build the release preset)");
    fprintf(f, "each figure: median of %d repetitions of >= %g s; memcpy copies the same "
            "bytes in the same pieces in the same run; ratio = time / memcpy time\n\n",
            cfg->reps, cfg->min_time);
    fprintf(f, "%-18s %-16s %9s %9s %9s %8s %12s %7s  %s\n", "case", "op", "bytes/msg",
            "ns/msg", "(min)", "GB/s", "memcpy GB/s", "ratio", "target");
    for (size_t i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        char t[64];
        target_text(r, t, sizeof t);
        fprintf(f, "%-18s %-16s %9.1f %9.2f %9.2f %8.3f %12.2f %7.1f  %s\n", r->in->name,
                bench_op_name(r->op), r->bytes_msg, r->ns_msg_med, r->ns_msg_min, r->gbps,
                r->memcpy_gbps, r->ratio, t);
    }
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

void bench_report_json(FILE *f, const bench_row *rows, size_t n, const bench_cfg *cfg,
                       bool quick)
{
    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    fprintf(f, "{\n  \"bench\": \"codec\",\n  \"version\": \"%s\",\n  \"pmicodec\": ",
            BENCH_VERSION);
    json_str(f, pmc_version());
    fprintf(f, ",\n  \"machine\": {\"cpu\": ");
    json_str(f, cpu);
    fprintf(f, ", \"cpus\": %ld, \"compiler\": ", cpu_count());
    json_str(f, __VERSION__);
    fprintf(f, ", \"optimised\": %s},\n", BENCH_OPTIMIZED ? "true" : "false");
    fprintf(f, "  \"config\": {\"min_time_s\": %g, \"reps\": %d, \"quick\": %s, "
            "\"chunk_bytes\": %u},\n", cfg->min_time, cfg->reps, quick ? "true" : "false",
            BENCH_CHUNK);
    fprintf(f, "  \"rows\": [\n");
    for (size_t i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        fprintf(f, "    {\"case\": ");
        json_str(f, r->in->name);
        fprintf(f, ", \"op\": ");
        json_str(f, bench_op_name(r->op));
        fprintf(f, ", \"msgs\": %zu, \"bytes_per_msg\": %.1f, \"ns_per_msg_median\": %.3f, "
                "\"ns_per_msg_min\": %.3f, \"gbps\": %.4f, \"memcpy_gbps\": %.4f, "
                "\"ratio_vs_memcpy\": %.3f, \"passes_per_rep\": %llu",
                r->in->nmsgs, r->bytes_msg, r->ns_msg_med, r->ns_msg_min, r->gbps,
                r->memcpy_gbps, r->ratio, (unsigned long long)r->passes);
        if (r->verdict >= 0)
            fprintf(f, ", \"target\": {\"%s\": %g, \"verdict\": \"%s\"}",
                    r->target == BENCH_T_MAX_NS ? "max_ns_per_msg" : "min_gbps",
                    r->target_value, r->verdict ? "PASS" : "MISS");
        fprintf(f, "}%s\n", i + 1 < n ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
}
