/* What pmi-mockclient run prints: one line per step as it finishes, the
 * expected and actual messages side by side when a step fails, unsolicited
 * messages, and a summary; and the --trace recording of what happened. */
#include "run.h"

#include <stdarg.h>
#include <string.h>

const char *pmr_result_name(pmr_result r)
{
    switch (r) {
    case PMR_R_PENDING: return "pending";
    case PMR_R_OK: return "ok";
    case PMR_R_SKIPPED: return "skipped";
    case PMR_R_MISMATCH: return "MISMATCH";
    case PMR_R_TIMEOUT: return "TIMEOUT";
    case PMR_R_EOF: return "EOF";
    case PMR_R_ERROR: return "ERROR";
    case PMR_R_NOTRUN: return "not run";
    }
    return "?";
}

static void raw_text(const pmr_step *s, char *buf, size_t n)
{
    size_t w = (size_t)snprintf(buf, n, "raw \"");
    if (w < n)
        w += pmt_escape(s->bytes, s->len, buf + w, n - w);
    if (w + 2 < n)
        strcat(buf, "\"");
}

/* What the scenario says for this step, as one line. */
static void scenario_text(const pmr_step *s, char *buf, size_t n)
{
    size_t w;
    switch (s->kind) {
    case PMR_S_SEND:
    case PMR_S_EXPECT:
        if (s->form == PMR_F_PATTERN || (s->kind == PMR_S_EXPECT && s->form == PMR_F_RECORDED)) {
            pmt_pattern_text(&s->pat, buf, n);
            return;
        }
        if (s->form == PMR_F_RECORDED && s->npats) {
            w = 0;
            for (size_t k = 0; k < s->npats && w < n; k++) {
                if (k)
                    w += (size_t)snprintf(buf + w, n - w, " + ");
                if (w < n)
                    w += pmt_pattern_text(&s->pats[k], buf + w, n - w);
            }
            return;
        }
        raw_text(s, buf, n);
        return;
    case PMR_S_EXPECT_RAW:
        raw_text(s, buf, n);
        return;
    case PMR_S_EXPECT_EOF: snprintf(buf, n, "eof (the server closes)"); return;
    case PMR_S_SHUTDOWN: snprintf(buf, n, "eof C (shut down the writing half)"); return;
    case PMR_S_CLOSE: snprintf(buf, n, "close"); return;
    case PMR_S_SILENCE: snprintf(buf, n, "nothing for %u ms", s->timeout_ms); return;
    }
    buf[0] = 0;
}

static const char *dir_of(const pmr_step *s)
{
    switch (s->kind) {
    case PMR_S_SEND:
    case PMR_S_SHUTDOWN:
    case PMR_S_CLOSE: return "C>S";
    default: return "S>C";
    }
}

static void where(char *buf, size_t n, const pmr_step *s)
{
    if (s->line)
        snprintf(buf, n, "line %u", s->line);
    else
        snprintf(buf, n, "(auto)");
}

void pmr_report_step(const pmr_opts *o, const char *conn, const pmr_step *s)
{
    bool bad = s->result != PMR_R_OK && s->result != PMR_R_SKIPPED && s->result != PMR_R_NOTRUN;
    if (o->quiet >= 2 || (o->quiet == 1 && !bad))
        return;
    char w[32], t[1024];
    where(w, sizeof w, s);
    if (s->result == PMR_R_OK && s->text)
        snprintf(t, sizeof t, "%s", s->text);
    else
        scenario_text(s, t, sizeof t);
    const char *flag = s->kind == PMR_S_SEND && s->form == PMR_F_RAW ? " [raw]" : "";
    fprintf(o->out, "[%s] %-10s %-8s %s %s%s%s\n", conn, w, pmr_result_name(s->result), dir_of(s),
            (s->flags & PMT_F_OPTIONAL) && s->result == PMR_R_SKIPPED ? "(optional) " : "", t,
            flag);
    if (bad) {
        pmt_divergence d;
        memset(&d, 0, sizeof d);
        d.line = s->line;
        snprintf(d.conn, sizeof d.conn, "%s", conn);
        scenario_text(s, d.expected, sizeof d.expected);
        snprintf(d.actual, sizeof d.actual, "%s", s->actual ? s->actual : "");
        snprintf(d.why, sizeof d.why, "%s", s->why);
        pmt_divergence_print(o->out, &d, o->width ? o->width : 120);
    }
    fflush(o->out);
}

void pmr_report_unexpected(const pmr_opts *o, const char *conn, uint32_t line, const char *text,
                           bool fatal)
{
    if (o->quiet >= 2)
        return;
    char w[32];
    if (line)
        snprintf(w, sizeof w, "line %u", line);
    else
        snprintf(w, sizeof w, "(end)");
    fprintf(o->out, "[%s] %-10s %-8s S>C %s%s\n", conn, w, "unsolicited", text,
            fatal ? "" : "  (ignored: not an answer to the step)");
    fflush(o->out);
}

void pmr_report_summary(const pmr_opts *o, const pmr_totals *t)
{
    bool pass = t->failed == 0 && t->notrun == 0 &&
                !(o->unexpected == PMR_UNEXP_FAIL && t->unexpected);
    fprintf(o->out,
            "summary: %zu connection%s, %zu steps: %zu ok, %zu skipped, %zu failed, %zu not run; "
            "%zu unsolicited message%s; %s\n",
            t->conns, t->conns == 1 ? "" : "s", t->steps, t->ok, t->skipped, t->failed, t->notrun,
            t->unexpected, t->unexpected == 1 ? "" : "s", pass ? "PASS" : "FAIL");
    fflush(o->out);
}

void pmr_rec_event(const pmr_opts *o, pmt_kind k, uint64_t usec, const char *conn, pmt_side side,
                   const void *data, size_t len)
{
    if (!o->rec)
        return;
    uint64_t t = usec > o->rec_t0 ? usec - o->rec_t0 : 0;
    pmt_add_event(o->rec, k, t, conn, side, data, len);
}

void pmr_rec_note(const pmr_opts *o, uint64_t usec, const char *conn, const char *fmt, ...)
{
    if (!o->rec)
        return;
    char buf[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    /* a note is one line of text */
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f)
            *p = '?';
    pmr_rec_event(o, PMT_EV_NOTE, usec, conn, PMT_CLIENT, buf, strlen(buf));
}
