/* Import of Flux shell logs: the PMI-1 lines the Flux shell's pmi-simple
 * server logs at verbose=2, "<prefix> pmi-simple: <rank>: C: <line>" and
 * "... S: <line>" (flux-core src/shell/pmi). */
#include "pmitrace/trace.h"

#include <stdlib.h>
#include <string.h>

static int ferr(pmt_error *e, uint32_t line, size_t col0, const char *msg)
{
    e->line = line;
    e->column = (uint32_t)col0 + 1;
    snprintf(e->msg, sizeof e->msg, "%s", msg);
    return -1;
}

/* "[  +12.345678]" at the start: seconds and microseconds; 0 when absent. */
static uint64_t stamp(const char *s, size_t n)
{
    size_t i = 0;
    if (n == 0 || s[0] != '[')
        return 0;
    i++;
    while (i < n && (s[i] == ' ' || s[i] == '+'))
        i++;
    uint64_t sec = 0, us = 0;
    int digits = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9' && sec < 100000000u)
        sec = sec * 10 + (uint64_t)(s[i++] - '0');
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            if (digits < 6) {
                us = us * 10 + (uint64_t)(s[i] - '0');
                digits++;
            }
            i++;
        }
    }
    while (digits && digits < 6) {
        us *= 10;
        digits++;
    }
    return sec * 1000000u + us;
}

int pmt_import_flux(const char *buf, size_t len, pmt_trace *t, pmt_error *e)
{
    static const char tag[] = "pmi-simple: ";
    size_t pos = 0;
    uint32_t line = 0;
    char *msg = NULL;
    size_t cap = 0;
    while (pos < len) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;
        const char *s = buf + pos;
        pos += n + (nl ? 1 : 0);
        line++;
        if (n && s[n - 1] == '\r')
            n--;
        const char *p = NULL;
        for (size_t i = 0; i + sizeof tag - 1 <= n && !p; i++)
            if (!memcmp(s + i, tag, sizeof tag - 1))
                p = s + i + sizeof tag - 1;
        if (!p)
            continue; /* not PMI traffic */
        size_t i = (size_t)(p - s);
        size_t r0 = i;
        long rank = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9' && rank < 100000000)
            rank = rank * 10 + (s[i++] - '0');
        if (i == r0 || i + 1 >= n || s[i] != ':' || s[i + 1] != ' ') {
            free(msg);
            return ferr(e, line, i, "expected '<rank>: ' after 'pmi-simple: '");
        }
        i += 2;
        if (i + 3 > n || (s[i] != 'C' && s[i] != 'S') || s[i + 1] != ':' || s[i + 2] != ' ') {
            free(msg);
            return ferr(e, line, i, "expected 'C: ' (client line) or 'S: ' (server line)");
        }
        pmt_side side = s[i] == 'C' ? PMT_CLIENT : PMT_SERVER;
        i += 3;
        if (i >= n) {
            free(msg);
            return ferr(e, line, i, "expected the PMI line after 'C: '/'S: '");
        }
        /* the log drops the line's '\n': the wire bytes had it */
        size_t ml = n - i + 1;
        if (ml > cap) {
            char *nm = realloc(msg, ml);
            if (!nm) {
                free(msg);
                return ferr(e, line, 0, "out of memory");
            }
            msg = nm;
            cap = ml;
        }
        memcpy(msg, s + i, ml - 1);
        msg[ml - 1] = '\n';
        char conn[24];
        snprintf(conn, sizeof conn, "r%ld", rank);
        if (pmt_add_event(t, PMT_EV_DATA, stamp(s, n), conn, side, msg, ml)) {
            free(msg);
            return ferr(e, line, 0, "out of memory");
        }
        t->events[t->nevents - 1].line = line;
    }
    free(msg);
    return 0;
}
