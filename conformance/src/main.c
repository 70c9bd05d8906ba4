/* pmi2-conform: the conformance suite for PMI-1/PMI-2 servers.
 *
 *   mpiexec -n 4 pmi2-conform server [options] [GLOB...]     run as the job
 *   pmi2-conform server --launch 'mpiexec -n {n}' [...]       orchestrated
 *   pmi2-conform --list [GLOB...]                             the cases
 *   pmi2-conform explain CASE                                 one case in words */
#include "client.h"
#include "fuzz.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fputs("usage: LAUNCHER pmi2-conform server [options] [GLOB...]\n"
          "       pmi2-conform server --launch 'LAUNCHER -n {n}' [options] [GLOB...]\n"
          "       pmi2-conform client [--persona P] [options] [GLOB...] -- PROGRAM [ARGS]\n"
          "       LAUNCHER pmi2-conform fuzz [options]   (wire fuzzing: pmi2-conform fuzz --help)\n"
          "       pmi2-conform mutate [--client] [options]  (the suite against mutants: --help)\n"
          "       pmi2-conform --list [GLOB...]\n"
          "       pmi2-conform explain CASE|GLOB...  (a case's clause, steps, outcomes)\n"
          "\n"
          "Conformance suite for PMI servers (process managers) against SPEC.md.  Run as\n"
          "the job (every rank connects through PMI_FD or PMI_PORT+PMI_ID; rank 0\n"
          "reports), or with --launch to run the suite as several launches so that a\n"
          "case that ends its job cannot take the others down.\n"
          "\n"
          "selection: GLOB matches case ids (pmi2/kvs/*); a prefix selects a section\n"
          "(pmi2/kvs); !GLOB excludes.  Default: every case.\n"
          "\n"
          "options:\n"
          "      --pmi 1|2           protocol the job's sessions speak (default 2); with\n"
          "                          --launch: only that protocol's launches (default both),\n"
          "                          the other protocol's cases SKIPPED with the reason\n"
          "      --persona NAME      client mode: the mock server's persona (default strict)\n"
          "      --launch TEMPLATE   orchestrate: run launches of TEMPLATE with {n} = ranks;\n"
          "                          {slot} (0 to --jobs - 1) names a server of its own\n"
          "                          per slot (a cluster, a node): one launch at a time on\n"
          "                          each, a stuck one charged and recovered on its slot\n"
          "      --nodes N[,M...]    {nodes} in TEMPLATE: the nodes of each launch (default 1);\n"
          "                          with several (1,2), the placement-dependent cases run\n"
          "                          again under each further shape, reported beside\n"
          "  -n, --np N              ranks per orchestrated launch (default 4; client mode:\n"
          "                          ranks of each run, default 2)\n"
          "  -t, --timeout SEC       deadline of each case (default 10)\n"
          "      --start-timeout SEC a launch that starts no rank in SEC is stuck (the\n"
          "                          server did not release the previous job); default:\n"
          "                          60 for the first launch and the first after a\n"
          "                          --recover, then 5x the slowest start, >= 10;\n"
          "                          after a launch that ended broken there, once the\n"
          "                          launcher has printed something without starting a\n"
          "                          rank (srun: queued and waiting), 10x the slowest\n"
          "                          quiet start, >= 2\n"
          "      --report-addr ADDR  IPv4 address the ranks report to (default 127.0.0.1;\n"
          "                          ranks on other hosts need one they reach)\n"
          "      --recover CMD       run CMD (sh -c) when a launch is stuck, then try again\n"
          "                          (e.g. a script that restarts a wedged test cluster);\n"
          "                          {slot}: the stuck launch's slot\n"
          "      --deadline SEC      end the whole orchestrated run after SEC: every launch\n"
          "                          and rank is ended and the report of what ran printed\n"
          "  -j, --jobs N            launches at once (default: twice the CPUs, at most 8;\n"
          "                          1 for srun, salloc and flux, which run one job at a\n"
          "                          time on a node); a launch that cannot start while\n"
          "                          another runs turns the rest of the run serial;\n"
          "                          with {slot} in TEMPLATE: the number of slots;\n"
          "                          client mode: runs of the program at once (default 6)\n"
          "      --floor             every case's requests without its waits (rank 0 late,\n"
          "                          split writes): the benchmark's floor, verdicts may differ\n"
          "      --strict            SHOULD-level deviations (NON-STRICT) fail\n"
          "      --repeat N          run each case N times; differing verdicts are FLAKY\n"
          "      --baseline FILE     expected verdicts (JSON); fail only on deviations\n"
          "      --rerun-deviations N  with --launch and --baseline: a case whose verdict\n"
          "                          deviates runs again in a launch of its own, up to N\n"
          "                          times (a server whose verdicts vary between runs);\n"
          "                          the report says which cases needed it and how they\n"
          "                          went the first time\n"
          "      --isolate           with --launch: every case in a launch of its own (no\n"
          "                          case can see what another left; slower)\n"
          "      --write-baseline FILE  record every case's verdict as a baseline\n"
          "      --junit FILE        JUnit XML report\n"
          "      --tap               TAP on standard output instead of the console report\n"
          "      --json DIR          DIR/index.json, one JSON and one trace per case\n"
          "                          (DIR made with its parents before the run)\n"
          "      --html FILE         one self-contained HTML page\n"
          "      --list              list the selected cases and exit\n"
          "  -q, --quiet             print only the summary line (and the deviations\n"
          "                          from --baseline)\n"
          "  -v, --verbose           every case on a line of its own, details for all\n"
          "                          but PASS (by default a section is a line of counts\n"
          "                          and the cases to act on in full); show launch commands\n"
          "                          and what the launcher prints\n"
          "  -h, --help              this text\n"
          "  -V, --version           version\n"
          "\n"
          "verdicts: PASS, NON-STRICT, UNSUPPORTED, INFO, FAIL, ERROR (harness), TIMEOUT,\n"
          "SKIPPED, FLAKY.\n"
          "exit status: 0 conformant, 1 non-conformant (FAIL, TIMEOUT, FLAKY; NON-STRICT\n"
          "with --strict; with --baseline: any deviation), 2 usage or harness error, a\n"
          "run that tested nothing (no case selected, every case SKIPPED) or did not\n"
          "complete (interrupted, --deadline, launches that could not start, the\n"
          "control channel lost when run as the job), with a line on stderr saying why;\n"
          "the report of what ran is printed in every case.\n",
          f);
}

static int list_cases(const pcf_opts *o)
{
    size_t n;
    const pcf_entry *e = pcf_cases(&n);
    for (size_t i = 0; i < n; i++) {
        const pcf_case *c = e[i].c;
        if (!pcf_selected(c->id, o->globs, o->nglobs))
            continue;
        const pcf_clause *cl = pcf_clause_get(c->clause);
        printf("%-44s %-12s %-9s %s%s%s\n", c->id, c->clause, cl ? cl->level_text : "?",
               c->desc, (c->flags & PCF_DESTRUCTIVE) ? " [destructive]" : "",
               (c->flags & PCF_V1) && !(c->flags & PCF_V2) ? " [PMI-1]" : "");
    }
    return 0;
}

static int parse_uint(const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

enum {
    O_PMI = 256, O_LAUNCH, O_STRICT, O_REPEAT, O_BASELINE, O_WBASELINE, O_JUNIT, O_TAP,
    O_JSON, O_HTML, O_LIST, O_REPORT, O_CHILD, O_PERSONA, O_REPORT_ADDR, O_RECOVER, O_START_TMO,
    O_DEADLINE, O_JOBS, O_NODES, O_FLOOR, O_RERUN, O_ISOLATE,
};

static const char *persona = "strict"; /* client mode */
static bool np_given_flag;

/* One option: -1 to go on, else the exit code to return at once. */
static int apply(pcf_opts *o, int ch, const char *arg)
{
    int v;
    switch (ch) {
    case O_PMI:
        if (parse_uint(arg, 1, 2, &o->pmi)) {
            fprintf(stderr, "pmi2-conform: --pmi takes 1 or 2\n");
            return PCF_EXIT_USAGE;
        }
        o->pmi_given = true;
        return -1;
    case O_LAUNCH: o->launch = arg; return -1;
    case 'n':
        np_given_flag = true;
        if (parse_uint(arg, 1, 4096, &o->np)) {
            fprintf(stderr, "pmi2-conform: -n takes a number of ranks\n");
            return PCF_EXIT_USAGE;
        }
        return -1;
    case 't':
        if (parse_uint(arg, 1, 3600, &v)) {
            fprintf(stderr, "pmi2-conform: --timeout takes seconds (1-3600)\n");
            return PCF_EXIT_USAGE;
        }
        o->timeout_ms = (unsigned)v * 1000u;
        return -1;
    case O_STRICT: o->strict = true; return -1;
    case O_REPEAT:
        if (parse_uint(arg, 1, 1000, &o->repeat)) {
            fprintf(stderr, "pmi2-conform: --repeat takes 1-1000\n");
            return PCF_EXIT_USAGE;
        }
        return -1;
    case O_BASELINE: o->baseline = arg; return -1;
    case O_ISOLATE: o->isolate = true; return -1;
    case O_RERUN:
        if (parse_uint(arg, 0, 10, &o->rerun_deviations)) {
            fprintf(stderr, "pmi2-conform: --rerun-deviations takes 0-10\n");
            return PCF_EXIT_USAGE;
        }
        return -1;
    case O_WBASELINE: o->write_baseline = arg; return -1;
    case O_JUNIT: o->junit = arg; return -1;
    case O_TAP: o->tap = true; return -1;
    case O_JSON: o->json_dir = *arg ? arg : NULL; return -1;
    case O_HTML: o->html = arg; return -1;
    case O_LIST: o->list = true; return -1;
    case O_REPORT: o->report = arg; return -1;
    case O_CHILD: o->child = true; return -1;
    case O_PERSONA: persona = arg; return -1;
    case O_REPORT_ADDR: o->report_addr = arg; return -1;
    case O_RECOVER: o->recover = arg; return -1;
    case O_START_TMO:
        if (parse_uint(arg, 1, 3600, &v)) {
            fprintf(stderr, "pmi2-conform: --start-timeout takes seconds (1-3600)\n");
            return PCF_EXIT_USAGE;
        }
        o->start_ms = (unsigned)v * 1000u;
        return -1;
    case O_DEADLINE:
        if (parse_uint(arg, 1, 7 * 86400, &v)) {
            fprintf(stderr, "pmi2-conform: --deadline takes seconds\n");
            return PCF_EXIT_USAGE;
        }
        o->deadline_ms = (unsigned)v * 1000u;
        return -1;
    case O_NODES: { /* N, or shapes "1,2" */
        o->nshapes = 0;
        char buf[128];
        snprintf(buf, sizeof buf, "%s", arg);
        for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            int x;
            if (o->nshapes == 8 || parse_uint(t, 1, 4096, &x)) {
                fprintf(stderr, "pmi2-conform: --nodes takes 1-4096, or up to 8 of them "
                                "separated by commas (1,2)\n");
                return PCF_EXIT_USAGE;
            }
            for (int k = 0; k < o->nshapes; k++)
                if (o->shape[k] == x) {
                    fprintf(stderr, "pmi2-conform: --nodes names %d twice\n", x);
                    return PCF_EXIT_USAGE;
                }
            o->shape[o->nshapes++] = x;
        }
        if (!o->nshapes) {
            fprintf(stderr, "pmi2-conform: --nodes takes 1-4096\n");
            return PCF_EXIT_USAGE;
        }
        o->nodes = o->shape[0];
        return -1;
    }
    case O_FLOOR: setenv("PCF_NO_WAITS", "1", 1); return -1; /* inherited by the ranks */
    case 'j':
    case O_JOBS:
        if (parse_uint(arg, 1, 64, &o->jobs)) {
            fprintf(stderr, "pmi2-conform: --jobs takes 1-64\n");
            return PCF_EXIT_USAGE;
        }
        return -1;
    case 'q': o->quiet = true; return -1;
    case 'v': o->verbose = true; return -1;
    case 'h': usage(stdout); return 0;
    case 'V': printf("pmi2-conform %s (pmicodec %s)\n", PCF_TOOL_VERSION, pmc_version()); return 0;
    default: /* getopt named the option */
        fprintf(stderr, "Try 'pmi2-conform --help'.\n");
        return PCF_EXIT_USAGE;
    }
}

/* argv as one line a shell takes back: a word with anything but
 * [A-Za-z0-9_@%+=:,./-] in it single-quoted (malloc'd; NULL when out of memory). */
static char *command_line(int argc, char **argv)
{
    size_t cap = 1;
    for (int i = 0; i < argc; i++)
        cap += strlen(argv[i]) * 4 + 3;
    char *out = malloc(cap), *w = out;
    if (!out)
        return NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool plain = *a && a[strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                       "0123456789_@%+=:,./-")] == 0;
        if (i)
            *w++ = ' ';
        if (!plain)
            *w++ = '\'';
        for (; *a; a++) {
            if (*a == '\'' && !plain) {
                memcpy(w, "'\\''", 4);
                w += 4;
            } else {
                *w++ = *a;
            }
        }
        if (!plain)
            *w++ = '\'';
    }
    *w = 0;
    return out;
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {
        { "pmi", required_argument, NULL, O_PMI },
        { "launch", required_argument, NULL, O_LAUNCH },
        { "np", required_argument, NULL, 'n' },
        { "timeout", required_argument, NULL, 't' },
        { "strict", no_argument, NULL, O_STRICT },
        { "repeat", required_argument, NULL, O_REPEAT },
        { "baseline", required_argument, NULL, O_BASELINE },
        { "write-baseline", required_argument, NULL, O_WBASELINE },
        { "rerun-deviations", required_argument, NULL, O_RERUN },
        { "isolate", no_argument, NULL, O_ISOLATE },
        { "junit", required_argument, NULL, O_JUNIT },
        { "tap", no_argument, NULL, O_TAP },
        { "json", required_argument, NULL, O_JSON },
        { "html", required_argument, NULL, O_HTML },
        { "list", no_argument, NULL, O_LIST },
        { "report", required_argument, NULL, O_REPORT },
        { "child", no_argument, NULL, O_CHILD },
        { "persona", required_argument, NULL, O_PERSONA },
        { "report-addr", required_argument, NULL, O_REPORT_ADDR },
        { "recover", required_argument, NULL, O_RECOVER },
        { "start-timeout", required_argument, NULL, O_START_TMO },
        { "deadline", required_argument, NULL, O_DEADLINE },
        { "jobs", required_argument, NULL, O_JOBS },
        { "nodes", required_argument, NULL, O_NODES },
        { "floor", no_argument, NULL, O_FLOOR },
        { "quiet", no_argument, NULL, 'q' },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    /* hidden: a process spawned by the pmi2/group cases (a rank of another job) */
    if (argc > 1 && strcmp(argv[1], "--group-helper") == 0)
        return pcf_group_helper_main(argc - 1, argv + 1);
    pcf_opts o = { .repeat = 1, .timeout_ms = 10000, .pmi = 2, .np = 4, .argv0 = argv[0] };
    static char *cmdline; /* static: the process's own, to its end */
    o.cmdline = cmdline = command_line(argc, argv); /* before client mode cuts argv at "--" */
    const char *mode = NULL;
    int ch;
    /* client mode: the program under test follows "--" */
    char **app = NULL;
    bool client_word = false;
    for (int i = 1; i < argc && !app; i++) {
        client_word |= strcmp(argv[i], "client") == 0;
        if (client_word && strcmp(argv[i], "--") == 0) {
            app = argv + i + 1;
            argv[i] = NULL;
            argc = i;
        }
    }

    for (;;) {
        while ((ch = getopt_long(argc, argv, "+n:t:j:qvhV", lo, NULL)) != -1) {
            int rc = apply(&o, ch, optarg);
            if (rc >= 0)
                return rc;
        }
        /* options may come before or after the mode word */
        if (!mode && optind < argc && argv[optind][0] != '-') {
            mode = argv[optind++];
            if (strcmp(mode, "server") == 0 || strcmp(mode, "client") == 0)
                continue;
        }
        break;
    }
    /* fuzz and mutate take their own options, from the mode word on; getopt's
     * messages name them as "pmi2-conform MODE" */
    if (mode && strcmp(mode, "fuzz") == 0) {
        argv[optind - 1] = (char *)"pmi2-conform fuzz";
        return pcf_fuzz_main(argc - optind + 1, argv + optind - 1);
    }
    if (mode && strcmp(mode, "mutate") == 0) { /* the suite against mutants (mutate.c) */
        argv[optind - 1] = (char *)"pmi2-conform mutate";
        return pcf_mutate_main(argc - optind + 1, argv + optind - 1);
    }
    if (pcf_registry_check(stderr) != 0 || pcf_client_registry_check(stderr) != 0)
        return PCF_EXIT_USAGE;
    if (mode && strcmp(mode, "explain") == 0) /* a case in words (explain.c) */
        return pcf_explain_main(argc - optind + 1, argv + optind - 1);
    if (mode && strcmp(mode, "server") != 0 && strcmp(mode, "client") != 0) {
        if (!o.list) {
            fprintf(stderr, "pmi2-conform: unknown mode '%s' (server, client, fuzz, mutate, "
                            "explain); try 'pmi2-conform --help'\n", mode);
            return PCF_EXIT_USAGE;
        }
        optind--; /* with --list, a first word is a glob */
        mode = NULL;
    }
    o.globs = argv + optind;
    o.nglobs = (size_t)(argc - optind);
    if (o.list) {
        if (!mode || strcmp(mode, "client") != 0)
            list_cases(&o);
        return mode && strcmp(mode, "server") == 0 ? 0 : pcf_client_list(&o);
    }
    if (!mode) {
        usage(stderr);
        return PCF_EXIT_USAGE;
    }
    /* a progress line only on a terminal, and never from the ranks of a child launch */
    o.progress = !o.child && !o.tap && isatty(2);
    o.progress_plain = !o.child && !o.tap && !o.quiet && !o.progress;
    if (!o.child && pcf_report_paths_check(&o) != 0)
        return PCF_EXIT_USAGE;
    if (strcmp(mode, "client") == 0) {
        if (!np_given_flag)
            o.np = 2;
        return pcf_run_client(&o, persona, app);
    }
    if (o.isolate && !o.launch) {
        fprintf(stderr, "pmi2-conform: --isolate needs --launch\n");
        return PCF_EXIT_USAGE;
    }
    if (o.rerun_deviations && (!o.launch || !o.baseline)) {
        fprintf(stderr, "pmi2-conform: --rerun-deviations needs --launch and --baseline\n");
        return PCF_EXIT_USAGE;
    }
    if (o.launch) {
        if (!strstr(o.launch, "{n}")) {
            fprintf(stderr, "pmi2-conform: --launch needs {n} where the rank count goes\n");
            return PCF_EXIT_USAGE;
        }
        return pcf_run_orchestrated(&o);
    }
    return pcf_run_job(&o);
}
