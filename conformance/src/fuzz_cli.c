/* "pmi2-conform fuzz": options and modes.
 *
 *   LAUNCHER -n 4 pmi2-conform fuzz [options]            run as the job
 *   pmi2-conform fuzz --launch 'LAUNCHER -n {n}' [...]   orchestrated: relaunch after kills
 *   pmi2-conform fuzz --dump [--seed S] [--count N]      print the inputs, no server */
#include "fuzz.h"
#include "pmitrace/trace.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fputs("usage: LAUNCHER -n N pmi2-conform fuzz [options]\n"
          "       pmi2-conform fuzz --launch 'LAUNCHER -n {n}' [options]\n"
          "       pmi2-conform fuzz --dump [--seed S] [--from I] [--count N]\n"
          "\n"
          "Wire fuzzing of a PMI server: rank 1 sends mutated and generated PMI-1/PMI-2\n"
          "input (length fields, ;; escapes, keys, values, unknown commands, PMI-1 line\n"
          "damage, splits, coalesced writes, sequences with one bad command) while the\n"
          "other ranks check after every input that the server still answers them and\n"
          "still holds their data.  A crash, a killed job, a hang or lost data is a\n"
          "finding; with --launch each finding is minimized in fresh launches and written\n"
          "as a reproducer trace for 'pmi-trace replay --server'.\n"
          "\n"
          "options:\n"
          "      --seed S            campaign seed (default 1): same seed, same inputs\n"
          "      --count N           inputs in the campaign (default 100)\n"
          "      --time SEC          stop after SEC seconds of wall time (default 600)\n"
          "      --from I            first input index (default 0)\n"
          "      --pmi 1|2           the protocol to fuzz (default: PMI-2 when the server\n"
          "                          accepts it, else PMI-1 lines)\n"
          "      --out DIR           reproducers and findings.txt (default fuzz-findings)\n"
          "      --launch TEMPLATE   orchestrate: launches of TEMPLATE with {n} = ranks;\n"
          "                          a launch the server kills is followed by the next\n"
          "  -n, --np N              ranks per launch (default 4)\n"
          "      --check-timeout MS  deadline of an honest rank's check (default 3000)\n"
          "      --reply-ms MS       how long the fuzzing rank listens after an input (200)\n"
          "      --min-attempts N    launches spent minimizing one finding (default 8)\n"
          "      --no-minimize       report findings without minimizing or reproducers\n"
          "      --no-replay         do not confirm reproducers with pmi-trace replay\n"
          "      --dump              print the inputs (escaped) and exit; needs no server\n"
          "                          (the PMI-2 campaign's unless --pmi 1)\n"
          "  -q, --quiet             print only the summary line\n"
          "  -v, --verbose           show launch commands and replay output\n"
          "  -h, --help              this text\n"
          "  -V, --version           version\n"
          "\n"
          "exit status: 0 nothing found, 1 findings, 2 usage or harness error.\n",
          f);
}

static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || *s == '-' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_list(const char *s, fz_opts *o)
{
    o->nlist = 0;
    while (*s) {
        char *end;
        unsigned long long v = strtoull(s, &end, 10);
        if (end == s || o->nlist >= FZ_MAX_LIST || (*end && *end != ','))
            return -1;
        o->list[o->nlist++] = v;
        s = *end ? end + 1 : end;
    }
    return o->nlist ? 0 : -1;
}

static int dump(const fz_opts *o)
{
    fz_env env = { "kvs_dump_0", 1, 4, o->pmi ? o->pmi : 2 };
    for (uint64_t i = o->from; i < o->count; i++) {
        fz_input in;
        if (fz_generate(o->seed, i, &env, &in) != 0)
            return PCF_EXIT_USAGE;
        size_t n = pmt_escaped_len(in.buf, in.len) + 1;
        char *e = malloc(n);
        if (!e) {
            fz_input_free(&in);
            return PCF_EXIT_USAGE;
        }
        pmt_escape(in.buf, in.len, e, n);
        printf("%llu\t%s\t", (unsigned long long)i, in.family);
        for (size_t k = 0; k < in.ncuts; k++)
            printf("%s%zu", k ? "," : "cuts=", in.cuts[k]);
        printf("%s\"%s\"\t%s\n", in.ncuts ? " " : "", e, in.desc);
        free(e);
        fz_input_free(&in);
    }
    return 0;
}

enum {
    O_SEED = 256, O_COUNT, O_TIME, O_FROM, O_OUT, O_LAUNCH, O_CHECK, O_REPLY, O_MINATT,
    O_NOMIN, O_NOREPLAY, O_DUMP, O_CHILD, O_SYNC, O_INPUTS, O_RECORD, O_PMI,
};

int pcf_fuzz_main(int argc, char **argv)
{
    static const struct option lo[] = {
        { "seed", required_argument, NULL, O_SEED },
        { "count", required_argument, NULL, O_COUNT },
        { "time", required_argument, NULL, O_TIME },
        { "from", required_argument, NULL, O_FROM },
        { "out", required_argument, NULL, O_OUT },
        { "launch", required_argument, NULL, O_LAUNCH },
        { "np", required_argument, NULL, 'n' },
        { "check-timeout", required_argument, NULL, O_CHECK },
        { "reply-ms", required_argument, NULL, O_REPLY },
        { "min-attempts", required_argument, NULL, O_MINATT },
        { "no-minimize", no_argument, NULL, O_NOMIN },
        { "no-replay", no_argument, NULL, O_NOREPLAY },
        { "dump", no_argument, NULL, O_DUMP },
        { "child", no_argument, NULL, O_CHILD },
        { "sync", required_argument, NULL, O_SYNC },
        { "inputs", required_argument, NULL, O_INPUTS },
        { "record", no_argument, NULL, O_RECORD },
        { "pmi", required_argument, NULL, O_PMI },
        { "quiet", no_argument, NULL, 'q' },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    fz_opts o = { .seed = 1, .count = 100, .time_s = 600, .np = 4, .out = "fuzz-findings",
                  .check_ms = 3000, .reply_ms = 200, .min_attempts = 8, .argv0 = argv[0] };
    bool dumpit = false;
    uint64_t v;
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "n:qvhV", lo, NULL)) != -1) {
        switch (ch) {
        case O_SEED:
            if (parse_u64(optarg, 0, UINT64_MAX, &o.seed))
                goto bad;
            break;
        case O_COUNT:
            if (parse_u64(optarg, 1, 100000000, &o.count))
                goto bad;
            break;
        case O_TIME:
            if (parse_u64(optarg, 0, 30 * 86400, &v))
                goto bad;
            o.time_s = (unsigned)v;
            break;
        case O_FROM:
            if (parse_u64(optarg, 0, 100000000, &o.from))
                goto bad;
            break;
        case O_OUT: o.out = optarg; break;
        case O_LAUNCH: o.launch = optarg; break;
        case 'n':
            if (parse_u64(optarg, 1, 4096, &v))
                goto bad;
            o.np = (int)v;
            break;
        case O_CHECK:
            if (parse_u64(optarg, 100, 600000, &v))
                goto bad;
            o.check_ms = (unsigned)v;
            break;
        case O_REPLY:
            if (parse_u64(optarg, 0, 60000, &v))
                goto bad;
            o.reply_ms = (unsigned)v;
            break;
        case O_MINATT:
            if (parse_u64(optarg, 1, 1000, &v))
                goto bad;
            o.min_attempts = (unsigned)v;
            break;
        case O_NOMIN: o.no_minimize = true; break;
        case O_NOREPLAY: o.no_replay = true; break;
        case O_DUMP: dumpit = true; break;
        case O_CHILD: o.child = true; break;
        case O_SYNC: o.sync = optarg; break;
        case O_INPUTS:
            if (parse_list(optarg, &o))
                goto bad;
            break;
        case O_RECORD: o.record = true; break;
        case O_PMI:
            if (parse_u64(optarg, 1, 2, &v))
                goto bad;
            o.pmi = (int)v;
            break;
        case 'q': o.quiet = true; break;
        case 'v': o.verbose = true; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("pmi2-conform %s (pmicodec %s)\n", PCF_TOOL_VERSION, pmc_version()); return 0;
        default: /* getopt named the option */
            fprintf(stderr, "Try 'pmi2-conform fuzz --help'.\n");
            return PCF_EXIT_USAGE;
        }
        continue;
    bad:
        {
            const char *name = "?";
            for (size_t k = 0; lo[k].name; k++)
                if (lo[k].val == ch)
                    name = lo[k].name;
            fprintf(stderr, "pmi2-conform fuzz: bad value for --%s: '%s'\n", name, optarg);
        }
        return PCF_EXIT_USAGE;
    }
    if (optind < argc) {
        fprintf(stderr, "pmi2-conform fuzz: unexpected argument '%s'; try 'pmi2-conform fuzz --help'\n",
                argv[optind]);
        return PCF_EXIT_USAGE;
    }
    if (o.from >= o.count && !o.nlist && !dumpit) {
        fprintf(stderr, "pmi2-conform fuzz: --from must be below --count\n");
        return PCF_EXIT_USAGE;
    }
    if (dumpit)
        return dump(&o);
    if (o.child) {
        if (!o.sync) {
            fprintf(stderr, "pmi2-conform fuzz: --child needs --sync\n");
            return PCF_EXIT_USAGE;
        }
        return fz_run_job(&o);
    }
    o.progress = !o.quiet && isatty(2);
    if (o.launch) {
        if (!strstr(o.launch, "{n}")) {
            fprintf(stderr, "pmi2-conform fuzz: --launch needs {n} where the rank count goes\n");
            return PCF_EXIT_USAGE;
        }
        return fz_run_campaign(&o);
    }
    o.report = fz_run_campaign; /* the job reports its own campaign (rank 0) */
    return fz_run_job(&o);
}
