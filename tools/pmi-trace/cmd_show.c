/* pmi-trace show: a trace's events, each data event followed by the
 * messages its bytes completed (decoded by the codec, per stream). */
#include "tool.h"

#include <stdlib.h>
#include <string.h>

typedef struct sstream {
    char conn[PMT_CONN_MAX];
    pmt_side side;
    pmc_decoder *d;
    bool dead;
} sstream;

static void drain(sstream *s)
{
    pmc_msg m;
    pmc_error err;
    char eb[512];
    while (!s->dead) {
        int rc = pmc_decoder_next(s->d, &m, &err);
        if (rc == PMC_MSG) {
            printf("      = ");
            print_msg(stdout, &m, 120);
            putchar('\n');
        } else if (rc == PMC_ERR) {
            pmc_error_format(&err, eb, sizeof eb);
            printf("      ! %s%s\n", eb, err.fatal ? " (fatal)" : "");
            s->dead = err.fatal;
        } else {
            break;
        }
    }
}

static void finish(sstream *s)
{
    pmc_error err;
    char eb[512];
    if (!s->dead && pmc_decoder_finish(s->d, &err) == PMC_ERR) {
        pmc_error_format(&err, eb, sizeof eb);
        printf("      ! %s (%s %s)\n", eb, s->conn, pmt_dir_name(s->side));
    }
    s->dead = true;
}

int cmd_show(int argc, char **argv)
{
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            puts("usage: pmi-trace show FILE\n"
                 "  Prints the trace's headers and events; after each data event, the\n"
                 "  messages (=) and errors (!) its bytes completed.\n"
                 "exit status: 0 ok, 1 decode errors, 2 usage, I/O or trace syntax error");
            return EXIT_OK;
        }
        if (path || (argv[i][0] == '-' && argv[i][1])) {
            fprintf(stderr, "usage: pmi-trace show FILE\n");
            return EXIT_USAGE;
        }
        path = argv[i];
    }
    if (!path) {
        fprintf(stderr, "usage: pmi-trace show FILE\n");
        return EXIT_USAGE;
    }
    pmt_trace t;
    pmt_error e;
    int rc = !strcmp(path, "-") ? pmt_read_stream(stdin, &t, &e) : pmt_read_file(path, &t, &e);
    if (rc) {
        char eb[600];
        pmt_error_format(&e, path, eb, sizeof eb);
        fprintf(stderr, "pmi-trace show: %s\n", eb);
        return EXIT_USAGE;
    }
    /* headers as they are written */
    pmt_trace h = t;
    h.nevents = 0;
    pmt_write(stdout, &h, NULL, NULL);

    sstream *ss = calloc(2 * t.nevents + 1, sizeof *ss);
    size_t ns = 0;
    int status = EXIT_OK;
    if (!ss) {
        pmt_trace_free(&t);
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < t.nevents; i++) {
        const pmt_event *ev = &t.events[i];
        pmt_write_event(stdout, ev, NULL);
        if (ev->kind != PMT_EV_DATA && ev->kind != PMT_EV_EOF)
            continue;
        sstream *s = NULL;
        for (size_t k = 0; k < ns; k++)
            if (ss[k].side == ev->side && !strcmp(ss[k].conn, ev->conn))
                s = &ss[k];
        if (!s && ev->kind == PMT_EV_EOF)
            continue;
        if (!s) {
            s = &ss[ns++];
            snprintf(s->conn, sizeof s->conn, "%s", ev->conn);
            s->side = ev->side;
            if (!(s->d = pmc_decoder_new(NULL))) {
                status = EXIT_USAGE;
                break;
            }
        }
        if (ev->kind == PMT_EV_EOF) {
            finish(s);
            continue;
        }
        if (s->dead)
            continue;
        if (pmc_decoder_feed(s->d, ev->data, ev->len)) {
            status = EXIT_USAGE;
            break;
        }
        drain(s);
    }
    for (size_t k = 0; k < ns; k++) {
        finish(&ss[k]);
        pmc_decoder_free(ss[k].d);
    }
    free(ss);
    pmt_trace_free(&t);
    fflush(stdout);
    return status;
}
