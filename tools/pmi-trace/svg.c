/* pmi-trace show --svg / --html: a multi-rank sequence diagram.  Ranks are
 * lifelines, the server is the lifeline in the middle, one arrow per decoded
 * message labelled with its command, time downwards; every fence or barrier
 * epoch is a band across all lifelines, from the first rank entering it to
 * the last rank released.  Every group construction (SPEC.md §12) is a
 * band over the lanes that took part, from its first request to its last
 * answer, with each lane's role, the completion (ctxid, members) and the
 * failures marked beside the lifelines.  The SVG is self-contained (inline
 * style). */
#include "groups.h"
#include "tool.h"

#include "pmitrace/match.h"

#include <stdlib.h>
#include <string.h>

typedef struct row {
    size_t lane;    /* index into lanes */
    pmt_side from;
    char cmd[64];
    char text[300]; /* decoded message for the HTML list and the tooltip */
    double secs;
    int collective; /* 1 request entering a fence/barrier, 2 its release, 0 other */
    bool eof;
    bool event;     /* a server-initiated group-event: answers no request */
    char *gnote;    /* what a group- message means (groups.c), or NULL */
} row;

static void xml(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f)
                fputc(*s, f);
            else
                fputc('?', f);
        }
    }
}

/* r2 before r10: labels compared with their digits as numbers */
static int lane_cmp(const void *a, const void *b)
{
    const char *x = a, *y = b;
    while (*x && *y) {
        if (*x >= '0' && *x <= '9' && *y >= '0' && *y <= '9') {
            unsigned long nx = strtoul(x, (char **)&x, 10), ny = strtoul(y, (char **)&y, 10);
            if (nx != ny)
                return nx < ny ? -1 : 1;
            continue;
        }
        if (*x != *y)
            return (unsigned char)*x - (unsigned char)*y;
        x++;
        y++;
    }
    return (unsigned char)*x - (unsigned char)*y;
}

/* Feed one decoded message of row r to the group tracker: the row keeps
 * what it means, and a group-event's label names its kind. */
static void group_row(gt_tracker *gt, row *r, const char *conn, const pmc_msg *m, size_t seq)
{
    gt_msg g;
    if (!gt || gt_msg_read(gt, conn, r->from, m, seq, r->secs, &g) || g.kind == GT_NONE)
        return;
    r->event = g.kind == GT_EVENT;
    pmc_slice ev;
    if (r->event && pmc_msg_get(m, "event", &ev) && ev.len < 24)
        snprintf(r->cmd, sizeof r->cmd, "group-event %.*s", (int)ev.len, ev.ptr);
    size_t l = strlen(g.text) + strlen(g.problem) + 8;
    if ((r->gnote = malloc(l)))
        snprintf(r->gnote, l, "%s%s%s", g.text, g.problem[0] ? "; ! " : "", g.problem);
}

/* A v2 pattern of literal values only: decoded as its bytes would be, so
 * that hand-written scenarios show their groups too. */
static void group_pattern(gt_tracker *gt, row *r, const char *conn, const pmt_pattern *p, size_t seq)
{
    pmt_vars *v = pmt_vars_new();
    pmc_out out = { 0 };
    char err[128];
    pmc_decoder *d = NULL;
    if (v && !pmt_pattern_render(p, v, NULL, &out, err, sizeof err) && (d = pmc_decoder_new(NULL)) &&
        !pmc_decoder_feed(d, out.buf, out.len)) {
        pmc_msg m;
        pmc_error e;
        if (pmc_decoder_next(d, &m, &e) == PMC_MSG)
            group_row(gt, r, conn, &m, seq);
    }
    pmc_decoder_free(d);
    pmc_out_free(&out);
    pmt_vars_free(v);
}

static int collective_kind(const char *cmd)
{
    if (!strcmp(cmd, "kvs-fence") || !strcmp(cmd, "barrier_in"))
        return 1;
    if (!strcmp(cmd, "kvs-fence-response") || !strcmp(cmd, "barrier_out"))
        return 2;
    return 0;
}

static int lane_of(char (*lanes)[PMT_CONN_MAX], size_t nl, const char *conn)
{
    for (size_t k = 0; k < nl; k++)
        if (!strcmp(lanes[k], conn))
            return (int)k;
    return -1;
}

/* The x extent of construction c (the i-th): the server and every lane
 * that took part, each with its column. */
static void group_span(const gt_cons *c, size_t i, char (*lanes)[PMT_CONN_MAX], size_t nl,
                       const int *lanex, int serverx, int colw, int *x0, int *x1)
{
    int xmin = serverx, xmax = serverx;
    for (size_t j = 0; j < c->nparts; j++) {
        int k = lane_of(lanes, nl, c->parts[j].conn);
        if (k >= 0 && lanex[k] < xmin)
            xmin = lanex[k];
        if (k >= 0 && lanex[k] > xmax)
            xmax = lanex[k];
    }
    int inset = 6 + 4 * (int)(i % 4); /* overlapping groups stay apart */
    *x0 = xmin - colw / 2 + inset;
    *x1 = xmax + colw / 2 - inset;
}

/* One band per group construction, behind the arrows: from its first
 * request to its last answer, across the server and the lanes that took
 * part, labelled with the result in the empty row kept above its first
 * message.  yc: each row's centre. */
static void draw_group_bands(FILE *f, const gt_tracker *gt, char (*lanes)[PMT_CONN_MAX], size_t nl,
                             const int *lanex, int serverx, int colw, const int *yc, int rowh)
{
    for (size_t i = 0; gt && i < gt_ncons(gt); i++) {
        const gt_cons *c = gt_cons_get(gt, i);
        int x0, x1;
        group_span(c, i, lanes, nl, lanex, serverx, colw, &x0, &x1);
        int y0 = yc[c->first] - rowh / 2 - rowh + 2, y1 = yc[c->last] + rowh / 2 - 2;
        const char *col = c->state == GT_FAILED ? "#c62828" : "#5e35b1";
        fprintf(f,
                "<rect class=\"group\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"6\" "
                "fill=\"#d1c4e9\" fill-opacity=\"0.35\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                x0, y0, x1 - x0, y1 - y0, col);
        /* its label is drawn over the lifelines, by draw_group_marks */
    }
}

/* Beside each lifeline, on the side away from the server (arrow labels are
 * on the other): the lane's role where it entered the group, a dot and the
 * ctxid or the failure where it got its answer, and the invite failures
 * the leader was told of. */
static void draw_group_marks(FILE *f, const gt_tracker *gt, char (*lanes)[PMT_CONN_MAX], size_t nl,
                             const int *lanex, size_t half, int serverx, int colw, const int *yc,
                             int rowh)
{
    for (size_t i = 0; gt && i < gt_ncons(gt); i++) {
        const gt_cons *c = gt_cons_get(gt, i);
        char label[GT_LIST * 2 + 160];
        int x0, x1;
        group_span(c, i, lanes, nl, lanex, serverx, colw, &x0, &x1);
        if (c->state == GT_COMPLETE)
            snprintf(label, sizeof label, "group %s (%s): ctxid %s, members %s%s%s", c->grp, c->method,
                     c->ctxid, c->members, c->failed[0] ? ", failed " : "", c->failed);
        else if (c->state == GT_FAILED)
            snprintf(label, sizeof label, "group %s (%s): failed: %s%s%s", c->grp, c->method,
                     c->reason[0] ? c->reason : "?", c->failed[0] ? ", failed " : "", c->failed);
        else
            snprintf(label, sizeof label, "group %s (%s): not completed", c->grp, c->method);
        fprintf(f,
                "<text class=\"group-label\" x=\"%d\" y=\"%d\" font-size=\"10\" font-weight=\"bold\" "
                "fill=\"%s\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">",
                x0 + 4, yc[c->first] - rowh / 2 - rowh + 15,
                c->state == GT_FAILED ? "#c62828" : "#5e35b1");
        xml(f, label);
        fputs("</text>\n", f);
        for (size_t j = 0; j < c->nparts + c->nmarks; j++) {
            const gt_part *p = j < c->nparts ? &c->parts[j] : NULL;
            const gt_mark *mk = p ? NULL : &c->marks[j - c->nparts];
            int k = lane_of(lanes, nl, p ? p->conn : mk->conn);
            if (k < 0)
                continue;
            bool left = (size_t)k < half;
            int tx = lanex[k] + (left ? -7 : 7);
            const char *anchor = left ? "end" : "start";
            if (p && p->role) {
                fprintf(f,
                        "<text class=\"group-role\" x=\"%d\" y=\"%d\" text-anchor=\"%s\" font-size=\"10\" "
                        "font-style=\"italic\" fill=\"%s\">",
                        tx, yc[p->seq] + 4, anchor,
                        p->role == GT_DECLINED ? "#c62828" : "#4527a0");
                xml(f, gt_role_name(p->role));
                fputs("</text>\n", f);
            }
            if (p && !p->answered)
                continue;
            bool ok = p && p->ok;
            int y = yc[p ? p->done_seq : mk->seq];
            const char *col = ok ? "#2e7d32" : "#c62828";
            fprintf(f,
                    "<g class=\"%s\"><circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"%s\"/>"
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"%s\" font-size=\"10\" font-weight=\"bold\" "
                    "fill=\"%s\">%s ",
                    ok ? "group-done" : "group-fail", lanex[k], y, col, tx, y + 4, anchor, col,
                    ok ? "&#x2713;" : "&#x2715;");
            xml(f, p ? p->done_text : mk->text);
            fputs("</text></g>\n", f);
        }
    }
}

int write_diagram(FILE *f, const pmt_trace *t, bool html, const char *title)
{
    char lanes[64][PMT_CONN_MAX];
    size_t nl = 0;
    for (size_t i = 0; i < t->nevents && nl < 64; i++) {
        size_t k = 0;
        while (k < nl && strcmp(lanes[k], t->events[i].conn))
            k++;
        if (k == nl)
            snprintf(lanes[nl++], PMT_CONN_MAX, "%s", t->events[i].conn);
    }
    if (nl > 1)
        qsort(lanes, nl, sizeof lanes[0], lane_cmp);
    /* decode every stream in event order */
    row *rows = calloc(t->nevents * 4 + 1, sizeof *rows);
    size_t nr = 0, caprows = t->nevents * 4 + 1;
    pmc_decoder *dec[64][2] = { { 0 } };
    bool dead[64][2] = { { 0 } };
    gt_tracker *gt = gt_new(); /* NULL: the diagram without groups */
    if (!rows) {
        gt_free(gt);
        return -1;
    }
    for (size_t i = 0; i < t->nevents; i++) {
        const pmt_event *ev = &t->events[i];
        size_t k = 0;
        while (k < nl && strcmp(lanes[k], ev->conn))
            k++;
        if (k == nl)
            continue;
        if (ev->kind == PMT_EV_EOF && nr < caprows) {
            row *r = &rows[nr++];
            memset(r, 0, sizeof *r); /* rows past a realloc are not zeroed */
            r->lane = k;
            r->from = ev->side;
            r->eof = true;
            r->secs = (double)ev->usec / 1e6;
            snprintf(r->cmd, sizeof r->cmd, "EOF");
            snprintf(r->text, sizeof r->text, "%s closed", ev->side == PMT_CLIENT ? "client" : "server");
            continue;
        }
        if (ev->kind != PMT_EV_DATA)
            continue;
        int s = ev->side == PMT_CLIENT ? 0 : 1;
        if (ev->form == PMT_FORM_MSG) {
            pmt_pattern p;
            if (!pmt_pattern_parse(ev->data, ev->len, &p, NULL, NULL, 0) && nr < caprows) {
                row *r = &rows[nr++];
                memset(r, 0, sizeof *r);
                r->lane = k;
                r->from = ev->side;
                r->secs = (double)ev->usec / 1e6;
                snprintf(r->cmd, sizeof r->cmd, "%s", p.cmd);
                pmt_pattern_text(&p, r->text, sizeof r->text);
                r->collective = collective_kind(r->cmd);
                group_pattern(gt, r, ev->conn, &p, nr - 1);
                pmt_pattern_free(&p);
            }
            continue;
        }
        if (dead[k][s])
            continue;
        if (!dec[k][s] && !(dec[k][s] = pmc_decoder_new(NULL)))
            continue;
        pmc_decoder_feed(dec[k][s], ev->data, ev->len);
        for (;;) {
            pmc_msg m;
            pmc_error e;
            int rc = pmc_decoder_next(dec[k][s], &m, &e);
            if (rc == PMC_AGAIN)
                break;
            if (nr >= caprows) {
                row *nrw = realloc(rows, caprows * 2 * sizeof *rows);
                if (!nrw)
                    break;
                rows = nrw;
                caprows *= 2;
            }
            row *r = &rows[nr++];
            memset(r, 0, sizeof *r);
            r->lane = k;
            r->from = ev->side;
            r->secs = (double)ev->usec / 1e6;
            if (rc == PMC_ERR) {
                snprintf(r->cmd, sizeof r->cmd, "! %s", pmc_errcode_name(e.code));
                pmc_error_format(&e, r->text, sizeof r->text);
                if (e.fatal) {
                    dead[k][s] = true;
                    break;
                }
                continue;
            }
            pmc_slice_copy(m.name, r->cmd, sizeof r->cmd);
            pmc_slice key;
            if (pmc_msg_get(&m, "key", &key) && strlen(r->cmd) + key.len + 3 < sizeof r->cmd) {
                size_t l = strlen(r->cmd);
                snprintf(r->cmd + l, sizeof r->cmd - l, " %.*s", (int)key.len, key.ptr);
            }
            pmt_msg_text(&m, r->text, sizeof r->text);
            r->collective = collective_kind(m.name.len < 64 ? r->cmd : "");
            if (!r->collective) {
                char nm[64];
                pmc_slice_copy(m.name, nm, sizeof nm);
                r->collective = collective_kind(nm);
            }
            group_row(gt, r, ev->conn, &m, nr - 1);
        }
    }
    for (size_t k = 0; k < nl; k++)
        for (int s = 0; s < 2; s++)
            pmc_decoder_free(dec[k][s]);

    /* geometry: ranks split around the server lifeline */
    const int colw = 190, top = 70, rowh = 22;
    /* room for the group marks beside the outer lifelines */
    const int left = gt && gt_ncons(gt) ? 140 : 40;
    size_t half = (nl + 1) / 2;
    int lanex[64];
    for (size_t k = 0; k < nl; k++)
        lanex[k] = left + (int)(k < half ? k : k + 1) * colw + colw / 2;
    int serverx = left + (int)half * colw + colw / 2;
    int width = left * 2 + (int)(nl + 1) * colw;
    /* row centres: an empty row above each group's first message holds its label */
    int *yc = malloc((nr + 1) * sizeof *yc);
    bool *spacer = calloc(nr + 1, sizeof *spacer);
    if (!yc || !spacer) {
        free(yc);
        free(spacer);
        for (size_t i = 0; i < nr; i++)
            free(rows[i].gnote);
        free(rows);
        gt_free(gt);
        return -1;
    }
    for (size_t i = 0; gt && i < gt_ncons(gt); i++)
        if (gt_cons_get(gt, i)->first < nr)
            spacer[gt_cons_get(gt, i)->first] = true;
    int ynext = top;
    for (size_t i = 0; i < nr; i++) {
        ynext += spacer[i] ? rowh : 0;
        yc[i] = ynext + rowh / 2;
        ynext += rowh;
    }
    free(spacer);
    int height = ynext + 60;

    if (html) {
        fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>", f);
        xml(f, title);
        fputs("</title><style>body{font-family:sans-serif}table{border-collapse:collapse;"
              "font-family:monospace;font-size:12px}td{padding:1px 8px}tr.c td.d{color:#1565c0}"
              "tr.s td.d{color:#2e7d32}span.g{color:#4527a0}</style></head><body>\n<h1>",
              f);
        xml(f, title);
        fputs("</h1>\n", f);
    } else {
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    }
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n",
            width, height, width, height);
    fputs("<defs><marker id=\"arr\" markerWidth=\"8\" markerHeight=\"8\" refX=\"7\" refY=\"4\" "
          "orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" fill=\"#333\"/></marker></defs>\n",
          f);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height);
    fputs("<title>", f);
    xml(f, title);
    fputs("</title>\n", f);

    /* fence / barrier bands: epoch e spans the e-th entry of every lane to
     * the e-th release of every lane */
    size_t epoch_in[64] = { 0 }, epoch_out[64] = { 0 };
    int band_top[256], band_bot[256];
    char band_name[256][16];
    size_t nb = 0;
    for (size_t i = 0; i < nr; i++) {
        row *r = &rows[i];
        if (!r->collective)
            continue;
        size_t e = r->collective == 1 ? epoch_in[r->lane]++ : epoch_out[r->lane]++;
        if (e >= 256)
            continue;
        while (nb <= e) {
            band_top[nb] = -1;
            band_bot[nb] = -1;
            band_name[nb][0] = 0;
            nb++;
        }
        int y = yc[i];
        if (band_top[e] < 0 || y < band_top[e])
            band_top[e] = y;
        if (band_bot[e] < 0 || y > band_bot[e])
            band_bot[e] = y;
        if (!band_name[e][0])
            snprintf(band_name[e], sizeof band_name[e], "%s",
                     strncmp(r->cmd, "barrier", 7) ? "fence" : "barrier");
    }
    for (size_t e = 0; e < nb; e++) {
        if (band_top[e] < 0)
            continue;
        int y0 = band_top[e] - rowh / 2, y1 = band_bot[e] + rowh / 2;
        fprintf(f,
                "<g class=\"fence\"><rect class=\"fence\" x=\"%d\" y=\"%d\" width=\"%d\" "
                "height=\"%d\" fill=\"#ffe082\" fill-opacity=\"0.55\" stroke=\"#f9a825\" "
                "stroke-width=\"2\" stroke-dasharray=\"6,3\"/>"
                "<text x=\"%d\" y=\"%d\" font-weight=\"bold\" fill=\"#e65100\">%s %zu</text></g>\n",
                left / 2, y0, width - left, y1 - y0, left / 2 + 4, y0 + 12, band_name[e], e + 1);
    }
    draw_group_bands(f, gt, lanes, nl, lanex, serverx, colw, yc, rowh);
    /* lifelines */
    fprintf(f,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555\" stroke-width=\"3\"/>\n"
            "<rect x=\"%d\" y=\"20\" width=\"%d\" height=\"28\" rx=\"4\" fill=\"#37474f\"/>"
            "<text x=\"%d\" y=\"39\" text-anchor=\"middle\" fill=\"white\" font-size=\"13\">server</text>\n",
            serverx, top - 20, serverx, height - 20, serverx - 60, 120, serverx);
    for (size_t k = 0; k < nl; k++) {
        fprintf(f,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#90a4ae\" stroke-width=\"2\"/>\n"
                "<rect x=\"%d\" y=\"20\" width=\"%d\" height=\"28\" rx=\"4\" fill=\"#1565c0\"/>"
                "<text x=\"%d\" y=\"39\" text-anchor=\"middle\" fill=\"white\" font-size=\"13\">",
                lanex[k], top - 20, lanex[k], height - 20, lanex[k] - 50, 100, lanex[k]);
        xml(f, lanes[k]);
        fputs("</text>\n", f);
    }
    /* arrows */
    for (size_t i = 0; i < nr; i++) {
        row *r = &rows[i];
        int y = yc[i];
        int x1 = r->from == PMT_CLIENT ? lanex[r->lane] : serverx;
        int x2 = r->from == PMT_CLIENT ? serverx : lanex[r->lane];
        const char *col = r->cmd[0] == '!' ? "#c62828" : r->from == PMT_CLIENT ? "#1565c0" : "#2e7d32";
        fputs("<g class=\"msg\"><title>", f);
        xml(f, r->text);
        if (r->gnote) {
            fputs("\n", f);
            xml(f, r->gnote);
        }
        fputs("</title>", f);
        if (r->eof) {
            int x = r->from == PMT_CLIENT ? lanex[r->lane] : serverx;
            fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#c62828\">&#x2715; EOF</text></g>\n",
                    (x + (r->from == PMT_CLIENT ? serverx : lanex[r->lane])) / 2, y + 4);
            continue;
        }
        /* a group-event is dashed: the server sends it unasked */
        fprintf(f,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"1.5\"%s "
                "marker-end=\"url(#arr)\"/><text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\">",
                x1, y, x2 + (x2 > x1 ? -2 : 2), y, col,
                r->event ? " stroke-dasharray=\"5,3\" class=\"group-event\"" : "", (x1 + x2) / 2, y - 3, col);
        xml(f, r->cmd);
        fputs("</text></g>\n", f);
    }
    draw_group_marks(f, gt, lanes, nl, lanex, half, serverx, colw, yc, rowh);
    fputs("</svg>\n", f);
    if (html) {
        fputs("<h2>Messages</h2>\n<table>\n<tr><th>#</th><th>time</th><th>conn</th><th>dir</th>"
              "<th>message</th></tr>\n",
              f);
        for (size_t i = 0; i < nr; i++) {
            fprintf(f, "<tr class=\"%c\"><td>%zu</td><td>%.6f</td><td>", rows[i].from == PMT_CLIENT ? 'c' : 's',
                    i + 1, rows[i].secs);
            xml(f, lanes[rows[i].lane]);
            fprintf(f, "</td><td class=\"d\">%s</td><td>", pmt_dir_name(rows[i].from));
            xml(f, rows[i].text);
            if (rows[i].gnote) {
                fputs("<br><span class=\"g\">~ ", f);
                xml(f, rows[i].gnote);
                fputs("</span>", f);
            }
            fputs("</td></tr>\n", f);
        }
        fputs("</table>\n</body></html>\n", f);
    }
    for (size_t i = 0; i < nr; i++)
        free(rows[i].gnote);
    free(rows);
    free(yc);
    gt_free(gt);
    return ferror(f) ? -1 : 0;
}
