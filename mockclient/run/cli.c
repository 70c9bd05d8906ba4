/* pmi-mockclient run: options and the two ways of running a scenario.
 *
 *   under a launcher   one process per rank; PMI_FD (or PMI_PORT+PMI_ID)
 *                      from the environment; it plays connection r<rank>
 *   --port ADDR        virtual ranks: one process opens a connection per
 *                      scenario connection and drives them all */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pmisession/session.h"

enum { EXIT_PASS = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };
enum { MAX_CONNS = 4096 };

static void usage(FILE *f)
{
    fputs("usage: pmi-mockclient run [options] SCENARIO\n"
          "       LAUNCHER -n N pmi-mockclient run [options] SCENARIO\n"
          "\n"
          "Plays the client side of a scenario (pmi-trace v1 recording or v2 scenario,\n"
          "traces/README.md) against a PMI server: sends the C>S events, checks the S>C\n"
          "ones (patterns, captures ${name}, optional and unordered steps, timeouts, raw\n"
          "bytes, split writes) and reports every step.\n"
          "\n"
          "Under a launcher (PMI_FD, or PMI_PORT+PMI_ID, in the environment) the process is\n"
          "one rank and plays connection r<rank> (PMI_RANK, else PMI_ID).  With --port it\n"
          "opens one connection per scenario connection (virtual ranks) and steps them\n"
          "independently in one poll loop.\n"
          "\n"
          "options:\n"
          "      --port ADDR         virtual ranks: connect to host:port, /path or unix:/path\n"
          "      --only LABEL[,..]   virtual ranks: play only these connections\n"
          "      --conn LABEL        under a launcher: play LABEL instead of r<rank>\n"
          "      --persona NAME      send requests as a real client does (list: --persona list)\n"
          "      --jobid ID          PMI_JOBID for personas that send it (default $PMI_JOBID)\n"
          "      --timeout MS        default wait for an answer (10000)\n"
          "      --optional-timeout MS  wait for an optional answer (200)\n"
          "      --connect-timeout MS   connecting with --port (5000)\n"
          "      --unexpected warn|fail  an unsolicited message is reported and ignored (warn,\n"
          "                          default) or fails the step; \"@meta unexpected=fail\" in\n"
          "                          the scenario sets fail\n"
          "      --keep-going        a failed connection does not stop the others\n"
          "      --no-order          ignore recorded times (no cross-connection order)\n"
          "      --no-initack        PMI-1 over PMI_PORT: do not send initack first\n"
          "      --trace OUT         record what happened (pmi-trace v1; %r = rank)\n"
          "  -q, --quiet             failures and the summary only (twice: summary only)\n"
          "      --width N           columns of the expected | actual diff (120)\n"
          "  -h, --help              this text\n"
          "  -V, --version           version\n"
          "\n"
          "exit status: 0 every step passed, 1 a step failed, 2 usage, scenario or\n"
          "connection error.\n",
          f);
}

static int parse_uint(const char *s, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || v > 86400000ul)
        return -1;
    *out = (unsigned)v;
    return 0;
}

/* Take the descriptor of a session and let the session go. */
static int take_fd(pws_session *s)
{
    int fd = dup(pws_fd(s));
    pws_close(s);
    if (fd >= 0) {
        int fl = fcntl(fd, F_GETFL);
        if (fl >= 0)
            fcntl(fd, F_SETFL, fl | O_NONBLOCK);
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    return fd;
}

static int rank_of_label(const char *l, int dflt)
{
    if (l[0] != 'r' || !l[1])
        return dflt;
    char *end;
    long v = strtol(l + 1, &end, 10);
    return *end || v < 0 || v > 1000000 ? dflt : (int)v;
}

static bool in_list(const char *list, const char *label)
{
    size_t n = strlen(label);
    for (const char *p = list; *p;) {
        const char *c = strchr(p, ',');
        size_t k = c ? (size_t)(c - p) : strlen(p);
        if (k == n && !strncmp(p, label, n))
            return true;
        p += k + (c ? 1 : 0);
    }
    return false;
}

static uint64_t mono_usec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* "%r" in a path -> the rank */
static void expand_rank(const char *in, int rank, char *out, size_t n)
{
    size_t w = 0;
    for (const char *p = in; *p && w + 1 < n; p++) {
        if (p[0] == '%' && p[1] == 'r') {
            w += (size_t)snprintf(out + w, n - w, "%d", rank);
            p++;
        } else {
            out[w++] = *p;
        }
        if (w >= n)
            w = n - 1;
    }
    out[w] = 0;
}

int run_main(int argc, char **argv)
{
    enum { O_PORT = 256, O_ONLY, O_CONN, O_PERSONA, O_JOBID, O_TIMEOUT, O_OPTTIMEOUT, O_CONNTIMEOUT,
           O_UNEXP, O_KEEPGOING, O_NOORDER, O_NOINITACK, O_TRACE, O_WIDTH };
    static const struct option opts[] = {
        { "port", required_argument, 0, O_PORT },
        { "only", required_argument, 0, O_ONLY },
        { "conn", required_argument, 0, O_CONN },
        { "persona", required_argument, 0, O_PERSONA },
        { "jobid", required_argument, 0, O_JOBID },
        { "timeout", required_argument, 0, O_TIMEOUT },
        { "optional-timeout", required_argument, 0, O_OPTTIMEOUT },
        { "connect-timeout", required_argument, 0, O_CONNTIMEOUT },
        { "unexpected", required_argument, 0, O_UNEXP },
        { "keep-going", no_argument, 0, O_KEEPGOING },
        { "no-order", no_argument, 0, O_NOORDER },
        { "no-initack", no_argument, 0, O_NOINITACK },
        { "trace", required_argument, 0, O_TRACE },
        { "width", required_argument, 0, O_WIDTH },
        { "quiet", no_argument, 0, 'q' },
        { "help", no_argument, 0, 'h' },
        { "version", no_argument, 0, 'V' },
        { 0, 0, 0, 0 },
    };
    pmr_opts o;
    memset(&o, 0, sizeof o);
    o.out = stdout;
    o.order = true;
    const char *port = NULL, *only = NULL, *conn = NULL, *trace_out = NULL;
    unsigned connect_ms = 5000, width = 120;
    bool initack = true, unexp_set = false;
    o.jobid = getenv("PMI_JOBID");
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "qhV", opts, NULL)) != -1) {
        switch (ch) {
        case O_PORT: port = optarg; break;
        case O_ONLY: only = optarg; break;
        case O_CONN: conn = optarg; break;
        case O_PERSONA:
            if (!strcmp(optarg, "list")) {
                pmr_persona_print_list(stdout);
                return EXIT_PASS;
            }
            if (!(o.persona = pmr_persona_get(optarg))) {
                fprintf(stderr, "pmi-mockclient run: unknown persona '%s'; known:\n", optarg);
                pmr_persona_print_list(stderr);
                return EXIT_USAGE;
            }
            break;
        case O_JOBID: o.jobid = optarg; break;
        case O_TIMEOUT:
        case O_OPTTIMEOUT:
        case O_CONNTIMEOUT:
        case O_WIDTH: {
            unsigned v;
            if (parse_uint(optarg, &v) || v == 0) {
                fprintf(stderr, "pmi-mockclient run: bad number '%s'\n", optarg);
                return EXIT_USAGE;
            }
            if (ch == O_TIMEOUT)
                o.timeout_ms = v;
            else if (ch == O_OPTTIMEOUT)
                o.optional_ms = v;
            else if (ch == O_CONNTIMEOUT)
                connect_ms = v;
            else
                width = v;
            break;
        }
        case O_UNEXP:
            if (!strcmp(optarg, "warn"))
                o.unexpected = PMR_UNEXP_WARN;
            else if (!strcmp(optarg, "fail"))
                o.unexpected = PMR_UNEXP_FAIL;
            else {
                fprintf(stderr, "pmi-mockclient run: --unexpected takes warn or fail\n");
                return EXIT_USAGE;
            }
            unexp_set = true;
            break;
        case O_KEEPGOING: o.keep_going = true; break;
        case O_NOORDER: o.order = false; break;
        case O_NOINITACK: initack = false; break;
        case O_TRACE: trace_out = optarg; break;
        case 'q': o.quiet++; break;
        case 'h': usage(stdout); return EXIT_PASS;
        case 'V': printf("pmi-mockclient run (pmi2-conform) %s\n", PMICODEC_VERSION); return EXIT_PASS;
        default: /* getopt named the option */
            fprintf(stderr, "Try 'pmi-mockclient run --help'.\n");
            return EXIT_USAGE;
        }
    }
    if (optind + 1 != argc) {
        fprintf(stderr, "pmi-mockclient run: %s; try 'pmi-mockclient run --help'\n",
                optind >= argc ? "no scenario file" : "one scenario file only");
        return EXIT_USAGE;
    }
    o.width = (int)width;
    const char *path = argv[optind];
    pmt_trace t;
    pmt_error e;
    pmt_trace_init(&t);
    if (pmt_read_file(path, &t, &e)) {
        char b[400];
        pmt_error_format(&e, path, b, sizeof b);
        fprintf(stderr, "pmi-mockclient run: %s\n", b);
        return EXIT_USAGE;
    }
    const pmt_header *uh = pmt_find_header(&t, PMT_H_META, "unexpected");
    if (uh && !unexp_set)
        o.unexpected = !strcmp(uh->value, "fail") ? PMR_UNEXP_FAIL : PMR_UNEXP_WARN;

    signal(SIGPIPE, SIG_IGN); /* a server that closes early is a step result, not a signal */
    bool launcher = !port;
    if (launcher && !getenv("PMI_FD") && !getenv("PMI_PORT")) {
        fprintf(stderr, "pmi-mockclient run: no server: give --port ADDR, or run under a launcher "
                        "(PMI_FD or PMI_PORT)\n");
        pmt_trace_free(&t);
        return EXIT_USAGE;
    }
    int my_rank = 0;
    if (launcher) {
        const char *rs = getenv("PMI_RANK");
        if (!rs)
            rs = getenv("PMI_ID");
        if (rs)
            my_rank = atoi(rs);
    }
    pmt_trace rec;
    pmt_trace_init(&rec);
    if (trace_out) {
        char src[600];
        snprintf(src, sizeof src, "pmi-mockclient run %s%s%s (the client side, live)", path,
                 o.persona ? " --persona " : "", o.persona ? o.persona->name : "");
        pmt_add_source(&rec, src);
        o.rec = &rec;
    }
    o.rec_t0 = mono_usec();
    pmr_run *r = pmr_run_new(&t, &o);
    int rc = EXIT_USAGE;
    char err[400];
    if (!r) {
        fprintf(stderr, "pmi-mockclient run: out of memory\n");
        goto out;
    }
    if (launcher) {
        char label[PMT_CONN_MAX];
        snprintf(label, sizeof label, "%s", conn ? conn : "");
        if (!conn)
            snprintf(label, sizeof label, "r%d", my_rank);
        bool found = false;
        for (size_t k = 0; k < t.nevents && !found; k++)
            found = !strcmp(t.events[k].conn, label);
        if (!found) {
            fprintf(stderr, "pmi-mockclient run: %s has no connection %s (rank %d)\n", path, label,
                    my_rank);
            goto out;
        }
        pws_session *s;
        if (pws_open_env(&s, label, err, sizeof err)) {
            fprintf(stderr, "pmi-mockclient run: %s\n", err);
            goto out;
        }
        bool port_mode = !getenv("PMI_FD") && getenv("PMI_ID");
        int id = port_mode ? atoi(getenv("PMI_ID")) : -1;
        int fd = take_fd(s);
        if (fd < 0) {
            fprintf(stderr, "pmi-mockclient run: dup: %s\n", strerror(errno));
            goto out;
        }
        if (pmr_run_add(r, label, fd, my_rank, id, initack, err, sizeof err)) {
            fprintf(stderr, "pmi-mockclient run: %s: %s\n", path, err);
            goto out;
        }
    } else {
        static char labels[MAX_CONNS][PMT_CONN_MAX];
        size_t n = pmr_trace_conns(&t, labels, MAX_CONNS);
        if (n > MAX_CONNS) {
            fprintf(stderr, "pmi-mockclient run: more than %d connections\n", MAX_CONNS);
            goto out;
        }
        size_t added = 0;
        for (size_t k = 0; k < n; k++) {
            if (only && !in_list(only, labels[k]))
                continue;
            int rank = rank_of_label(labels[k], (int)k);
            pws_session *s;
            if (pws_connect(&s, port, labels[k], connect_ms, err, sizeof err)) {
                fprintf(stderr, "pmi-mockclient run: %s: %s\n", labels[k], err);
                goto out;
            }
            int fd = take_fd(s);
            if (fd < 0) {
                fprintf(stderr, "pmi-mockclient run: dup: %s\n", strerror(errno));
                goto out;
            }
            if (pmr_run_add(r, labels[k], fd, rank, rank, initack, err, sizeof err)) {
                fprintf(stderr, "pmi-mockclient run: %s: %s\n", path, err);
                goto out;
            }
            added++;
        }
        if (!added) {
            fprintf(stderr, "pmi-mockclient run: no connection to play%s\n",
                    only ? " (--only matched none)" : "");
            goto out;
        }
    }
    rc = pmr_run_play(r) ? EXIT_FAILED : EXIT_PASS;
    pmr_totals tot;
    pmr_run_totals(r, &tot);
    if (o.unexpected == PMR_UNEXP_FAIL && tot.unexpected)
        rc = EXIT_FAILED;
    pmr_report_summary(&o, &tot);
out:
    pmr_run_free(r);
    if (trace_out && o.rec) {
        char p[4096];
        expand_rank(trace_out, my_rank, p, sizeof p);
        FILE *f = fopen(p, "w");
        int bad = !f;
        if (f) {
            bad |= pmt_write(f, &rec, NULL, NULL) != 0;
            bad |= fclose(f) != 0;
        }
        if (bad) {
            fprintf(stderr, "pmi-mockclient run: cannot write %s: %s\n", p, strerror(errno));
            if (rc == EXIT_PASS)
                rc = EXIT_USAGE;
        }
    }
    pmt_trace_free(&rec);
    pmt_trace_free(&t);
    return rc;
}
