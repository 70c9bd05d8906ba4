/* The base every layer may use: logging, the clock, --trace recording,
 * string copies.  Calls nothing of the server above it. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmitrace/trace.h"

long long pms_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

long long pms_now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

void pms_trace_event(pms_server *s, int conn, int kind, int side, const void *data,
                     size_t len)
{
    if (!s->trace)
        return;
    pmt_event ev = { .kind = (pmt_kind)kind, .side = (pmt_side)side, .len = len };
    ev.usec = (uint64_t)(pms_now_us() - s->t0_us);
    snprintf(ev.conn, sizeof ev.conn, "c%d", conn);
    char text[256];
    if (kind == PMT_EV_DATA) {
        ev.data = (char *)data;
    } else {
        /* open/note text: one line, NUL-terminated */
        size_t n = len < sizeof text - 1 ? len : sizeof text - 1;
        if (n)
            memcpy(text, data, n);
        text[n] = 0;
        ev.data = text;
        ev.len = n;
    }
    if (pmt_write_event(s->trace, &ev, NULL) < 0) {
        pms_log(s, 0, "trace: write failed (%s): recording stops", strerror(errno));
        fclose(s->trace);
        s->trace = NULL;
    }
}

void pms_log(pms_server *s, int level, const char *fmt, ...)
{
    if (level > s->cfg.verbose || !s->cfg.log)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("pmi-mockserver: ", s->cfg.log);
    vfprintf(s->cfg.log, fmt, ap);
    fputc('\n', s->cfg.log);
    va_end(ap);
}

char *pms_strndup(const char *p, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        if (n)
            memcpy(d, p, n);
        d[n] = 0;
    }
    return d;
}

