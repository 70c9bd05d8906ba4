/* pmi-trace show: a trace's events, each data event followed by the
 * messages its bytes completed (decoded by the codec, per stream). */
#include "groups.h"
#include "tool.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int write_diagram(FILE *f, const pmt_trace *t, bool html, const char *title);

/* colours when on a terminal (--color=auto) */
static bool color;
#define COL(c) (color ? "\033[" c "m" : "")
#define C_CS COL("36")
#define C_SC COL("32")
#define C_ERR COL("1;31")
#define C_NOTE COL("33")
#define C_DIM COL("2")
#define C_OFF COL("0")

/* "[len-left FRAME-2, trailing-junk BODY-5]" for a message's notes */
static void print_notes(uint32_t notes)
{
    bool first = true;
    for (uint32_t b = 1; b && b <= notes; b <<= 1) {
        if (!(notes & b))
            continue;
        const char *cl = clause_of_note(b);
        printf("%s%s%s%s%s", first ? "  " : ", ", C_NOTE, pmc_note_name(b), cl ? " " : "",
               cl ? cl : "");
        first = false;
    }
    if (!first)
        fputs(C_OFF, stdout);
}

static void print_validation(const pmc_msg *m, pmt_side side)
{
    pmc_vreport r;
    pmc_validate(m, side == PMT_CLIENT ? PMC_VAL_REQUEST : PMC_VAL_RESPONSE, &r);
    for (size_t i = 0; i < r.n; i++) {
        const char *cl = clause_of_code(r.f[i].code);
        printf("      %s? %s%s%s: %s%s%s\n", C_NOTE, pmc_errcode_name(r.f[i].code), cl ? " " : "",
               cl ? cl : "", r.f[i].detail, r.f[i].fatal ? " (fatal)" : "", C_OFF);
    }
    if (r.notes & PMC_VNOTE_BOOL_LOWER)
        printf("      %s? bool-lower BOOL-1: boolean spelled in lower case%s\n", C_NOTE, C_OFF);
}

typedef struct sstream {
    char conn[PMT_CONN_MAX];
    pmt_side side;
    pmc_decoder *d;
    bool dead;
} sstream;

/* What a group- message means (SPEC.md §12): "~" lines after it. */
static void print_group(const gt_msg *g)
{
    if (g->kind == GT_NONE)
        return;
    printf("      %s~ %s%s%s%s\n", g->kind == GT_EVENT ? C_NOTE : C_DIM, g->text, g->clause ? "  [" : "",
           g->clause ? g->clause : "", g->clause ? "]" : "");
    fputs(C_OFF, stdout);
    if (g->problem[0])
        printf("      %s~ ! %s%s\n", C_ERR, g->problem, C_OFF);
}

/* seq numbers the decoded messages for the group tracker */
static void drain(sstream *s, gt_tracker *gt, size_t *seq, double secs)
{
    pmc_msg m;
    pmc_error err;
    char eb[512];
    while (!s->dead) {
        int rc = pmc_decoder_next(s->d, &m, &err);
        if (rc == PMC_MSG) {
            printf("      %s= ", s->side == PMT_CLIENT ? C_CS : C_SC);
            uint32_t notes = m.notes;
            m.notes = 0; /* printed below with their clauses */
            print_msg(stdout, &m, 120);
            fputs(C_OFF, stdout);
            print_notes(notes);
            putchar('\n');
            m.notes = notes;
            print_validation(&m, s->side);
            gt_msg g;
            if (gt_msg_read(gt, s->conn, s->side, &m, (*seq)++, secs, &g) == 0)
                print_group(&g);
        } else if (rc == PMC_ERR) {
            pmc_error_format(&err, eb, sizeof eb);
            const char *cl = clause_of_code(err.code);
            printf("      %s! %s%s%s%s%s\n", C_ERR, eb, err.fatal ? " (fatal)" : "", cl ? "  [" : "",
                   cl ? cl : "", cl ? "]" : "");
            fputs(C_OFF, stdout);
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
        printf("      %s! %s (%s %s)  [CONN-2]%s\n", C_ERR, eb, s->conn, pmt_dir_name(s->side), C_OFF);
    }
    s->dead = true;
}

/* After the events: every group construction and the group requests that
 * were never answered, as comments. */
static void print_groups(const gt_tracker *gt)
{
    char buf[2048];
    bool any = gt_ncons(gt) > 0 || gt_unanswered(gt, 0, buf, sizeof buf);
    if (!any)
        return;
    printf("# groups (SPEC.md §12):\n");
    for (size_t i = 0; i < gt_ncons(gt); i++) {
        gt_cons_text(gt_cons_get(gt, i), buf, sizeof buf);
        printf("#   group %s\n", buf);
    }
    for (size_t i = 0; gt_unanswered(gt, i, buf, sizeof buf); i++)
        printf("#   %snever answered: %s%s\n", C_ERR, buf, C_OFF);
}

int cmd_show(int argc, char **argv)
{
    const char *path = NULL, *svg = NULL, *html = NULL, *cmode = "auto";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            puts("usage: pmi-trace show [--color=auto|always|never] [--svg FILE] [--html FILE] TRACE\n"
                 "  Prints the trace's headers and events; after each data event, the\n"
                 "  messages (=), decoder errors (!) and validation findings (?) its bytes\n"
                 "  completed, each with the SPEC.md clause it concerns.  Colours on a terminal.\n"
                 "  Group messages (SPEC.md section 12) get a ~ line: what they do, the request\n"
                 "  a response answers (by thrid), group-event frames as server-initiated;\n"
                 "  every group construction is summed up at the end.\n"
                 "  --svg FILE   write a sequence diagram (ranks, server in the middle, fences\n"
                 "               and barriers as bands, group constructions as bands with\n"
                 "               roles, ctxid and failures) instead; --html FILE: the diagram\n"
                 "               and the decoded message list in one page\n"
                 "exit status: 0 ok, 2 usage, I/O or trace syntax error");
            return EXIT_OK;
        }
        if (!strncmp(argv[i], "--color=", 8)) {
            cmode = argv[i] + 8;
            if (strcmp(cmode, "auto") && strcmp(cmode, "always") && strcmp(cmode, "never")) {
                fprintf(stderr, "pmi-trace show: --color=auto|always|never\n");
                return EXIT_USAGE;
            }
            continue;
        }
        if (!strcmp(argv[i], "--svg") && i + 1 < argc) {
            svg = argv[++i];
            continue;
        }
        if (!strcmp(argv[i], "--html") && i + 1 < argc) {
            html = argv[++i];
            continue;
        }
        if (path || (argv[i][0] == '-' && argv[i][1])) {
            fprintf(stderr, "usage: pmi-trace show [--color=WHEN] [--svg F] [--html F] TRACE\n");
            return EXIT_USAGE;
        }
        path = argv[i];
    }
    if (!path) {
        fprintf(stderr, "usage: pmi-trace show [--color=WHEN] [--svg F] [--html F] TRACE\n");
        return EXIT_USAGE;
    }
    color = !strcmp(cmode, "always") || (!strcmp(cmode, "auto") && isatty(1));
    pmt_trace t;
    pmt_error e;
    int rc = !strcmp(path, "-") ? pmt_read_stream(stdin, &t, &e) : pmt_read_file(path, &t, &e);
    if (rc) {
        char eb[600];
        pmt_error_format(&e, path, eb, sizeof eb);
        fprintf(stderr, "pmi-trace show: %s\n", eb);
        return EXIT_USAGE;
    }
    if (svg || html) {
        int st = EXIT_OK;
        const char *outs[2] = { svg, html };
        for (int k = 0; k < 2; k++) {
            if (!outs[k])
                continue;
            FILE *f = fopen(outs[k], "w");
            if (!f || write_diagram(f, &t, k == 1, path) || fclose(f)) {
                fprintf(stderr, "pmi-trace show: cannot write %s\n", outs[k]);
                st = EXIT_USAGE;
            }
        }
        pmt_trace_free(&t);
        return st;
    }
    /* headers as they are written */
    pmt_trace h = t;
    h.nevents = 0;
    pmt_write(stdout, &h, NULL, NULL);

    sstream *ss = calloc(2 * t.nevents + 1, sizeof *ss);
    size_t ns = 0, seq = 0;
    int status = EXIT_OK;
    gt_tracker *gt = gt_new();
    if (!ss || !gt) {
        free(ss);
        gt_free(gt);
        pmt_trace_free(&t);
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < t.nevents; i++) {
        const pmt_event *ev = &t.events[i];
        fputs(ev->kind == PMT_EV_DATA ? (ev->side == PMT_CLIENT ? C_CS : C_SC) : C_DIM, stdout);
        pmt_write_event(stdout, ev, NULL);
        fputs(C_OFF, stdout);
        if (ev->kind != PMT_EV_DATA && ev->kind != PMT_EV_EOF)
            continue;
        if (ev->kind == PMT_EV_DATA && ev->form == PMT_FORM_MSG)
            continue; /* a pattern, not bytes */
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
        drain(s, gt, &seq, (double)ev->usec / 1e6);
    }
    for (size_t k = 0; k < ns; k++) {
        finish(&ss[k]);
        pmc_decoder_free(ss[k].d);
    }
    free(ss);
    print_groups(gt);
    gt_free(gt);
    pmt_trace_free(&t);
    fflush(stdout);
    return status;
}
