/* Progress on a terminal (one redrawn line), plain lines in a log, and
 * notices that interrupt it. */
#include "internal.h"

#include <stdarg.h>
#include <string.h>

static struct {
    uint64_t t0;
    size_t done, total;
    char id[240];
    uint64_t plain_at; /* when the last plain line went out */
} prog;

/* Not on a terminal: a plain line now and then (every PLAIN_EVERY_US),
 * so a log shows a long run moving without a line per case. */
enum { PLAIN_EVERY_US = 5000000 };

static void plain_progress(const char *note)
{
    uint64_t now = pws_now_usec();
    if (!prog.t0)
        prog.t0 = now;
    if (now - (prog.plain_at ? prog.plain_at : prog.t0) < PLAIN_EVERY_US)
        return;
    prog.plain_at = now;
    fprintf(stderr, "pmi2-conform: progress: %zu/%zu cases, %u s, running %s%s%s\n",
            prog.done, prog.total, (unsigned)((now - prog.t0) / 1000000),
            prog.id[0] ? prog.id : "-", note ? ": " : "", note ? note : "");
    fflush(stderr);
}

/* "[done/total elapsed] id[: note]" from the start of the line */
static void draw_progress(const char *note)
{
    if (!prog.t0)
        prog.t0 = pws_now_usec();
    fprintf(stderr, "\r\033[K[%zu/%zu %us] %s%s%s", prog.done + 1 > prog.total ? prog.total
            : prog.done + 1, prog.total, (unsigned)((pws_now_usec() - prog.t0) / 1000000),
            prog.id, note ? ": " : "", note ? note : "");
    fflush(stderr);
}

void pcf_progress(const pcf_opts *o, size_t done, size_t total, const char *id)
{
    if (!o->progress && !o->progress_plain)
        return;
    prog.done = done;
    prog.total = total;
    snprintf(prog.id, sizeof prog.id, "%s", id);
    if (o->progress)
        draw_progress(NULL);
    else
        plain_progress(NULL);
}

void pcf_notice(const pcf_opts *o, const char *fmt, ...)
{
    if (o->progress)
        fputs("\r\033[K", stderr); /* the progress line gives way, and comes back */
    fputs("pmi2-conform: ", stderr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (o->progress && prog.t0)
        draw_progress(NULL);
    fflush(stderr);
}

void pcf_progress_note(const pcf_opts *o, const char *fmt, ...)
{
    if (!o->progress && !o->progress_plain)
        return;
    char note[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note, sizeof note, fmt, ap);
    va_end(ap);
    if (o->progress)
        draw_progress(note);
    else
        plain_progress(note);
}

void pcf_progress_end(const pcf_opts *o)
{
    if (o->progress) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
}
