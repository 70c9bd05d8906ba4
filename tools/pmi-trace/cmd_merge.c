/* pmi-trace merge: per-rank traces (pmi-trace record -o x.%r) into one job
 * trace ordered by time.  Each input's connections are renamed after its
 * rank (@meta rank=, else its position): r0, r1, ... and r0.1 for a rank's
 * second connection.  Times are aligned with @meta start_usec when every
 * input has it. */
#include "tool.h"

#include <stdlib.h>
#include <string.h>

typedef struct mev {
    const pmt_event *ev;
    uint64_t at;
    size_t input;
    char conn[PMT_CONN_MAX];
} mev;

static int cmp_mev(const void *a, const void *b)
{
    const mev *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    if (x->input != y->input)
        return x->input < y->input ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

int cmd_merge(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        puts("usage: pmi-trace merge OUT IN...\n"
             "  Joins per-rank traces into one trace ordered by time; connections are\n"
             "  renamed r<rank> (r<rank>.<n> for further connections of a rank).\n"
             "exit status: 0 ok, 2 usage, I/O or trace syntax error");
        return EXIT_OK;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: pmi-trace merge OUT IN...\n");
        return EXIT_USAGE;
    }
    size_t nin = (size_t)argc - 2;
    pmt_trace *in = calloc(nin, sizeof *in);
    uint64_t *start = calloc(nin, sizeof *start);
    long *rank = calloc(nin, sizeof *rank);
    if (!in || !start || !rank)
        return EXIT_USAGE;
    int status = EXIT_OK;
    bool aligned = true;
    size_t total = 0;
    for (size_t k = 0; k < nin; k++) {
        pmt_error e;
        if (pmt_read_file(argv[2 + k], &in[k], &e)) {
            char eb[600];
            pmt_error_format(&e, argv[2 + k], eb, sizeof eb);
            fprintf(stderr, "pmi-trace merge: %s\n", eb);
            status = EXIT_USAGE;
            nin = k;
            goto out;
        }
        const pmt_header *h = pmt_find_header(&in[k], PMT_H_META, "start_usec");
        if (h)
            start[k] = strtoull(h->value, NULL, 10);
        else
            aligned = false;
        h = pmt_find_header(&in[k], PMT_H_META, "rank");
        rank[k] = h ? strtol(h->value, NULL, 10) : (long)k;
        for (size_t j = 0; j < k; j++)
            if (rank[j] == rank[k])
                rank[k] = (long)k; /* two inputs claim one rank: fall back to position */
        total += in[k].nevents;
    }
    uint64_t base = UINT64_MAX;
    for (size_t k = 0; k < nin && aligned; k++)
        if (start[k] < base)
            base = start[k];
    mev *all = calloc(total + 1, sizeof *all);
    if (!all) {
        status = EXIT_USAGE;
        goto out;
    }
    size_t n = 0;
    for (size_t k = 0; k < nin; k++) {
        /* the input's connections in order of first appearance */
        char seen[16][PMT_CONN_MAX];
        size_t ns = 0;
        for (size_t i = 0; i < in[k].nevents; i++) {
            const pmt_event *ev = &in[k].events[i];
            size_t c = 0;
            while (c < ns && strcmp(seen[c], ev->conn))
                c++;
            if (c == ns && ns < 16)
                snprintf(seen[ns++], PMT_CONN_MAX, "%s", ev->conn);
            mev *m = &all[n++];
            m->ev = ev;
            m->input = k;
            m->at = ev->usec + (aligned ? start[k] - base : 0);
            if (c == 0)
                snprintf(m->conn, sizeof m->conn, "r%ld", rank[k]);
            else
                snprintf(m->conn, sizeof m->conn, "r%ld.%zu", rank[k], c);
        }
    }
    if (n > 1)
        qsort(all, n, sizeof *all, cmp_mev);

    pmt_trace o;
    pmt_trace_init(&o);
    char src[1200];
    const pmt_header *s0 = nin ? pmt_find_header(&in[0], PMT_H_SOURCE, NULL) : NULL;
    snprintf(src, sizeof src, "pmi-trace merge of %zu traces; first: %s", nin,
             s0 ? s0->value : "(no @source)");
    pmt_add_source(&o, src);
    for (size_t k = 0; k < nin; k++) {
        const pmt_header *h = pmt_find_header(&in[k], PMT_H_META, "cmd");
        char key[32];
        snprintf(key, sizeof key, "r%ld.cmd", rank[k]);
        if (h)
            pmt_add_meta(&o, key, h->value);
        h = pmt_find_header(&in[k], PMT_H_META, "exit");
        snprintf(key, sizeof key, "r%ld.exit", rank[k]);
        if (h)
            pmt_add_meta(&o, key, h->value);
        for (size_t i = 0; i < in[k].nheaders; i++) {
            const pmt_header *x = &in[k].headers[i];
            if (x->kind != PMT_H_EXPECT)
                continue;
            bool dup = false;
            for (size_t j = 0; j < o.nheaders; j++)
                if (o.headers[j].kind == PMT_H_EXPECT && o.headers[j].expect.from == x->expect.from &&
                    o.headers[j].expect.kind == x->expect.kind &&
                    !strcmp(o.headers[j].expect.name, x->expect.name))
                    dup = true;
            if (!dup)
                pmt_add_expect(&o, &x->expect, x->value);
        }
    }
    if (aligned) {
        char b[32];
        snprintf(b, sizeof b, "%llu", (unsigned long long)base);
        pmt_add_meta(&o, "start_usec", b);
    }
    for (size_t i = 0; i < n; i++) {
        const pmt_event *ev = all[i].ev;
        if (pmt_add_event(&o, ev->kind, all[i].at, all[i].conn, ev->side, ev->data, ev->len)) {
            status = EXIT_USAGE;
            break;
        }
        pmt_event *ne = &o.events[o.nevents - 1];
        ne->form = ev->form;
        ne->flags = ev->flags;
        ne->timeout_ms = ev->timeout_ms;
        ne->delay_ms = ev->delay_ms;
        ne->ncuts = ev->ncuts;
        memcpy(ne->cuts, ev->cuts, sizeof ne->cuts);
    }
    free(all);
    if (status == EXIT_OK) {
        FILE *f = strcmp(argv[1], "-") ? fopen(argv[1], "w") : stdout;
        if (!f || pmt_write(f, &o, NULL, NULL) || (f != stdout && fclose(f))) {
            fprintf(stderr, "pmi-trace merge: cannot write %s\n", argv[1]);
            status = EXIT_USAGE;
        }
    }
    pmt_trace_free(&o);
out:
    for (size_t k = 0; k < nin; k++)
        pmt_trace_free(&in[k]);
    free(in);
    free(start);
    free(rank);
    return status;
}
