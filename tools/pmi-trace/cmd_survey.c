/* pmi-trace survey: decode every (connection, direction) stream of every
 * trace with the codec, validate every message against the schema, and
 * compare what was found with the trace's @expect lines. */
#include "tool.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- counters */

typedef struct counter {
    char name[64];
    unsigned long n;
} counter;

typedef struct counters {
    counter *v;
    size_t n, cap;
} counters;

static void count(counters *c, const char *name, size_t len, unsigned long k)
{
    if (len >= sizeof c->v[0].name)
        len = sizeof c->v[0].name - 1;
    for (size_t i = 0; i < c->n; i++)
        if (strlen(c->v[i].name) == len && !memcmp(c->v[i].name, name, len)) {
            c->v[i].n += k;
            return;
        }
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 32;
        counter *v = realloc(c->v, cap * sizeof *v);
        if (!v)
            return; /* statistics only: losing one under ENOMEM is harmless */
        c->v = v;
        c->cap = cap;
    }
    memcpy(c->v[c->n].name, name, len);
    c->v[c->n].name[len] = 0;
    c->v[c->n].n = k;
    c->n++;
}

static int by_count(const void *a, const void *b)
{
    const counter *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? 1 : -1;
    return strcmp(x->name, y->name);
}

static void print_counters(const char *title, counters *c)
{
    printf("%s:", title);
    if (!c->n)
        printf(" none");
    else /* qsort must not see the NULL array of an empty table */
        qsort(c->v, c->n, sizeof *c->v, by_count);
    for (size_t i = 0; i < c->n; i++)
        printf("%s %s %lu", i ? "," : "", c->v[i].name, c->v[i].n);
    putchar('\n');
}

/* ---------------------------------------------------------------- findings */

typedef struct finding {
    pmt_side from;
    pmt_expect_kind kind;
    char name[48];
    unsigned long n;
    char where[96]; /* first occurrence: "r0 offset 120" */
    bool expected;
} finding;

typedef struct stream {
    char conn[PMT_CONN_MAX];
    pmt_side side;
    pmc_decoder *d;
    bool dead;     /* a fatal error: the rest of the stream is not decodable */
    bool finished; /* pmc_decoder_finish was called */
    size_t ignored; /* bytes after a fatal error */
} stream;

typedef struct survey {
    bool verbose;
    /* per trace */
    finding *f;
    size_t nf, capf;
    stream *s;
    size_t ns, caps;
    unsigned long msgs;
    /* totals */
    unsigned long total_msgs, traces, ok, mismatch, invalid;
    counters cmds, notes, errors, vfind, defects;
} survey;

static void add_finding(survey *sv, const stream *st, pmt_expect_kind kind, const char *name,
                        uint64_t offset)
{
    for (size_t i = 0; i < sv->nf; i++) {
        finding *f = &sv->f[i];
        if (f->from == st->side && f->kind == kind && !strcmp(f->name, name)) {
            f->n++;
            return;
        }
    }
    if (sv->nf == sv->capf) {
        size_t cap = sv->capf ? sv->capf * 2 : 16;
        finding *v = realloc(sv->f, cap * sizeof *v);
        if (!v) {
            fprintf(stderr, "pmi-trace survey: out of memory\n");
            exit(EXIT_USAGE);
        }
        sv->f = v;
        sv->capf = cap;
    }
    finding *f = &sv->f[sv->nf++];
    memset(f, 0, sizeof *f);
    f->from = st->side;
    f->kind = kind;
    snprintf(f->name, sizeof f->name, "%s", name);
    f->n = 1;
    snprintf(f->where, sizeof f->where, "%s offset %llu", st->conn, (unsigned long long)offset);
}

static stream *get_stream(survey *sv, const char *conn, pmt_side side, bool create)
{
    for (size_t i = 0; i < sv->ns; i++)
        if (sv->s[i].side == side && !strcmp(sv->s[i].conn, conn))
            return &sv->s[i];
    if (!create)
        return NULL;
    if (sv->ns == sv->caps) {
        size_t cap = sv->caps ? sv->caps * 2 : 8;
        stream *v = realloc(sv->s, cap * sizeof *v);
        if (!v)
            return NULL;
        sv->s = v;
        sv->caps = cap;
    }
    stream *st = &sv->s[sv->ns];
    memset(st, 0, sizeof *st);
    snprintf(st->conn, sizeof st->conn, "%s", conn);
    st->side = side;
    if (!(st->d = pmc_decoder_new(NULL)))
        return NULL;
    sv->ns++;
    return st;
}

static void report_error(survey *sv, stream *st, const pmc_error *err)
{
    add_finding(sv, st, PMT_X_ERROR, pmc_errcode_name(err->code), err->offset);
    count(&sv->errors, pmc_errcode_name(err->code), strlen(pmc_errcode_name(err->code)), 1);
    if (sv->verbose) {
        char eb[512];
        pmc_error_format(err, eb, sizeof eb);
        printf("    %s %s %s%s\n", st->conn, pmt_dir_name(st->side), eb,
               err->fatal ? " (fatal: rest of stream not decodable)" : "");
    }
}

static void on_message(survey *sv, stream *st, const pmc_msg *m)
{
    sv->msgs++;
    count(&sv->cmds, m->name.ptr, m->name.len, 1);
    for (int b = 0; b < PMC_NOTE_COUNT; b++) {
        uint32_t bit = 1u << b;
        if (m->notes & bit) {
            add_finding(sv, st, PMT_X_NOTE, pmc_note_name(bit), m->offset);
            count(&sv->notes, pmc_note_name(bit), strlen(pmc_note_name(bit)), 1);
        }
    }
    pmc_vreport r;
    memset(&r, 0, sizeof r);
    pmc_validate(m, st->side == PMT_CLIENT ? PMC_VAL_REQUEST : PMC_VAL_RESPONSE, &r);
    if (r.notes & PMC_VNOTE_BOOL_LOWER) {
        add_finding(sv, st, PMT_X_NOTE, "bool-lower", m->offset);
        count(&sv->notes, "bool-lower", 10, 1);
    }
    for (size_t i = 0; i < r.n; i++) {
        const char *code = pmc_errcode_name(r.f[i].code);
        add_finding(sv, st, PMT_X_VALIDATE, code, m->offset);
        count(&sv->vfind, code, strlen(code), 1);
    }
    if (sv->verbose) {
        printf("    %s %s offset %llu  ", st->conn, pmt_dir_name(st->side),
               (unsigned long long)m->offset);
        print_msg(stdout, m, 80);
        for (size_t i = 0; i < r.n; i++)
            printf("  {%s %.*s%s%s}", pmc_errcode_name(r.f[i].code), (int)r.f[i].key.len,
                   r.f[i].key.ptr ? r.f[i].key.ptr : "", r.f[i].detail[0] ? ": " : "",
                   r.f[i].detail);
        putchar('\n');
    }
}

static void drain(survey *sv, stream *st)
{
    pmc_msg m;
    pmc_error err;
    while (!st->dead) {
        int rc = pmc_decoder_next(st->d, &m, &err);
        if (rc == PMC_MSG) {
            on_message(sv, st, &m);
        } else if (rc == PMC_ERR) {
            report_error(sv, st, &err);
            if (err.fatal)
                st->dead = true;
        } else {
            break;
        }
    }
}

static void finish(survey *sv, stream *st)
{
    if (st->finished)
        return;
    st->finished = true;
    if (st->dead)
        return;
    pmc_error err;
    if (pmc_decoder_finish(st->d, &err) == PMC_ERR)
        report_error(sv, st, &err);
}

/* ---------------------------------------------------------------- one trace */

static void print_finding(const finding *f)
{
    printf("%s %s %s", pmt_dir_name(f->from), pmt_expect_kind_name(f->kind), f->name);
}

static bool found(const survey *sv, pmt_side from, pmt_expect_kind kind, const char *name)
{
    for (size_t i = 0; i < sv->nf; i++)
        if (sv->f[i].from == from && sv->f[i].kind == kind && !strcmp(sv->f[i].name, name))
            return true;
    return false;
}

static int survey_trace(survey *sv, const char *path, const char *label)
{
    pmt_trace t;
    pmt_error e;
    sv->traces++;
    if (pmt_read_file(path, &t, &e) != 0) {
        char eb[512];
        pmt_error_format(&e, path, eb, sizeof eb);
        printf("INVALID   %s: %s\n", label, eb);
        sv->invalid++;
        return 1;
    }
    sv->nf = 0;
    sv->ns = 0;
    sv->msgs = 0;
    if (sv->verbose)
        printf("%s\n", label);

    for (size_t i = 0; i < t.nevents; i++) {
        const pmt_event *ev = &t.events[i];
        if (ev->kind == PMT_EV_DATA && ev->form == PMT_FORM_MSG)
            continue; /* a v2 pattern is a whole message, not bytes of the stream */
        if (ev->kind == PMT_EV_DATA) {
            stream *st = get_stream(sv, ev->conn, ev->side, true);
            if (!st) {
                fprintf(stderr, "pmi-trace survey: out of memory\n");
                exit(EXIT_USAGE);
            }
            if (st->dead || st->finished) {
                st->ignored += ev->len;
                continue;
            }
            if (pmc_decoder_feed(st->d, ev->data, ev->len) != 0) {
                fprintf(stderr, "pmi-trace survey: out of memory\n");
                exit(EXIT_USAGE);
            }
            drain(sv, st);
        } else if (ev->kind == PMT_EV_EOF) {
            stream *st = get_stream(sv, ev->conn, ev->side, false);
            if (st)
                finish(sv, st);
        }
    }
    for (size_t i = 0; i < sv->ns; i++)
        finish(sv, &sv->s[i]);

    /* compare with the expectations */
    size_t missing = 0, unexpected = 0;
    for (size_t i = 0; i < t.nheaders; i++) {
        const pmt_header *h = &t.headers[i];
        if (h->kind != PMT_H_EXPECT)
            continue;
        bool hit = false;
        for (size_t k = 0; k < sv->nf; k++) {
            finding *f = &sv->f[k];
            if (f->from == h->expect.from && f->kind == h->expect.kind &&
                !strcmp(f->name, h->expect.name)) {
                f->expected = true;
                hit = true;
            }
        }
        if (!hit)
            missing++;
    }
    for (size_t k = 0; k < sv->nf; k++)
        if (!sv->f[k].expected)
            unexpected++;
    bool ok = missing == 0 && unexpected == 0;

    printf("%-9s %s  %lu msgs", ok ? "OK" : "MISMATCH", label, sv->msgs);
    for (size_t k = 0; k < sv->nf; k++) {
        printf(k ? ", " : "; ");
        print_finding(&sv->f[k]);
        if (sv->f[k].n > 1)
            printf(" x%lu", sv->f[k].n);
    }
    putchar('\n');
    for (size_t i = 0; i < sv->ns; i++)
        if (sv->s[i].ignored)
            printf("          %s %s: %zu bytes after the fatal error not decoded\n", sv->s[i].conn,
                   pmt_dir_name(sv->s[i].side), sv->s[i].ignored);

    /* name the known defects this trace shows */
    size_t nd;
    const defect *d = defects_all(&nd);
    const pmt_header *src = pmt_find_header(&t, PMT_H_SOURCE, NULL);
    for (size_t i = 0; i < nd; i++) {
        bool all = !d[i].source || (src && strstr(src->value, d[i].source));
        for (size_t k = 0; k < 3 && d[i].items[k].name; k++)
            all = all && found(sv, d[i].items[k].from, d[i].items[k].kind, d[i].items[k].name);
        if (all) {
            printf("          defect %s: %s (%s)\n", d[i].id, d[i].name, d[i].ref);
            count(&sv->defects, d[i].id, strlen(d[i].id), 1);
        }
    }

    if (!ok) {
        for (size_t i = 0; i < t.nheaders; i++) {
            const pmt_header *h = &t.headers[i];
            if (h->kind == PMT_H_EXPECT &&
                !found(sv, h->expect.from, h->expect.kind, h->expect.name))
                printf("          missing: %s %s %s  (@expect at line %u)\n",
                       pmt_dir_name(h->expect.from), pmt_expect_kind_name(h->expect.kind),
                       h->expect.name, h->line);
        }
        for (size_t k = 0; k < sv->nf; k++)
            if (!sv->f[k].expected) {
                printf("          unexpected: ");
                print_finding(&sv->f[k]);
                printf("  (first at %s)\n", sv->f[k].where);
            }
    }
    for (size_t i = 0; i < sv->ns; i++)
        pmc_decoder_free(sv->s[i].d);
    sv->ns = 0;
    sv->total_msgs += sv->msgs;
    if (ok)
        sv->ok++;
    else
        sv->mismatch++;
    pmt_trace_free(&t);
    return ok ? 0 : 1;
}

static void help(FILE *f)
{
    fputs("usage: pmi-trace survey [--verbose] DIR|FILE...\n"
          "  Decodes every stream of every *.trace (directories are searched\n"
          "  recursively), validates each message and compares the findings with\n"
          "  the trace's @expect lines.  One line per trace (OK or MISMATCH), then\n"
          "  a summary.\n"
          "  -v, --verbose   also print every message and error\n"
          "exit status: 0 every trace OK, 1 a mismatch or an unreadable trace,\n"
          "             2 usage or I/O error\n",
          f);
}

int cmd_survey(int argc, char **argv)
{
    survey sv;
    memset(&sv, 0, sizeof sv);
    char **paths = NULL;
    size_t npaths = 0;
    int nargs = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            sv.verbose = true;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            help(stdout);
            return EXIT_OK;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "pmi-trace survey: unknown option '%s'\n", a);
            help(stderr);
            return EXIT_USAGE;
        } else {
            nargs++;
        }
    }
    if (!nargs) {
        help(stderr);
        return EXIT_USAGE;
    }
    int status = EXIT_OK;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] == '-' && a[1])
            continue;
        size_t before = npaths;
        if (collect_traces(a, &paths, &npaths) != 0) {
            free_list(paths, npaths);
            return EXIT_USAGE;
        }
        size_t alen = strlen(a);
        while (alen > 1 && a[alen - 1] == '/')
            alen--;
        for (size_t k = before; k < npaths; k++) {
            const char *label = paths[k];
            /* below a directory argument: name the trace relative to it */
            if (strlen(label) > alen + 1 && !strncmp(label, a, alen) && label[alen] == '/')
                label += alen + 1;
            if (survey_trace(&sv, paths[k], label))
                status = EXIT_FINDINGS;
        }
    }
    if (sv.traces == 0) {
        fprintf(stderr, "pmi-trace survey: no *.trace files found\n");
        status = EXIT_USAGE;
    }

    printf("\nsummary: %lu traces: %lu OK, %lu MISMATCH, %lu invalid; %lu messages\n", sv.traces,
           sv.ok, sv.mismatch, sv.invalid, sv.total_msgs);
    print_counters("commands", &sv.cmds);
    print_counters("non-canonical forms (messages)", &sv.notes);
    print_counters("decode errors", &sv.errors);
    print_counters("validation findings", &sv.vfind);
    printf("defects (traces):");
    if (!sv.defects.n)
        printf(" none");
    putchar('\n');
    if (sv.defects.n > 1) /* an empty table has a NULL array */
        qsort(sv.defects.v, sv.defects.n, sizeof *sv.defects.v, by_count);
    size_t nd;
    const defect *d = defects_all(&nd);
    for (size_t i = 0; i < sv.defects.n; i++)
        for (size_t k = 0; k < nd; k++)
            if (!strcmp(d[k].id, sv.defects.v[i].name))
                printf("  %-13s %3lu  %s (%s)\n", d[k].id, sv.defects.v[i].n, d[k].name, d[k].ref);

    free(sv.f);
    free(sv.s);
    free(sv.cmds.v);
    free(sv.notes.v);
    free(sv.errors.v);
    free(sv.vfind.v);
    free(sv.defects.v);
    free_list(paths, npaths);
    return status;
}
