/* Writer for pmi-trace v1 files, in the one canonical layout the reader
 * accepts back unchanged: magic line, headers in order, events. */
#include "pmitrace/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int put_escaped(FILE *f, const char *p, size_t len)
{
    char tmp[1024];
    /* escape in chunks of at most 255 input bytes: 4 output bytes each fit tmp */
    for (size_t i = 0; i < len; i += 255) {
        size_t k = len - i < 255 ? len - i : 255;
        size_t w = pmt_escape(p + i, k, tmp, sizeof tmp);
        if (fwrite(tmp, 1, w, f) != w)
            return -1;
    }
    return 0;
}

int pmt_write_event(FILE *f, const pmt_event *ev, const char *comment)
{
    if (fprintf(f, "%" PRIu64 ".%06" PRIu64 " %s ", ev->usec / 1000000u, ev->usec % 1000000u,
                ev->conn) < 0)
        return -1;
    int rc = 0;
    switch (ev->kind) {
    case PMT_EV_OPEN:
        rc = fprintf(f, ev->len ? "open %s" : "open", ev->data);
        break;
    case PMT_EV_DATA:
        if (fprintf(f, "%s", pmt_dir_name(ev->side)) < 0)
            return -1;
        /* v2 modifiers, in the order the reader documents */
        if ((ev->flags & PMT_F_OPTIONAL) && fputs(" optional", f) == EOF)
            return -1;
        if ((ev->flags & PMT_F_UNORDERED) && fputs(" unordered", f) == EOF)
            return -1;
        if ((ev->flags & PMT_F_FAILURE) && fputs(" failure", f) == EOF)
            return -1;
        if (ev->timeout_ms && fprintf(f, " timeout=%u", ev->timeout_ms) < 0)
            return -1;
        if (ev->pause_ms && fprintf(f, " pause=%u", ev->pause_ms) < 0)
            return -1;
        if (ev->ncuts) {
            if (fputs(" split=", f) == EOF)
                return -1;
            for (uint32_t k = 0; k < ev->ncuts; k++)
                if (fprintf(f, k ? ",%u" : "%u", ev->cuts[k]) < 0)
                    return -1;
        }
        if (ev->delay_ms && fprintf(f, " delay=%u", ev->delay_ms) < 0)
            return -1;
        if (ev->form == PMT_FORM_MSG) {
            if (fprintf(f, " msg %s", ev->data) < 0)
                return -1;
        } else {
            if ((ev->form == PMT_FORM_RAW && fputs(" raw", f) == EOF) || fputs(" \"", f) == EOF ||
                put_escaped(f, ev->data, ev->len) || fputc('"', f) == EOF)
                return -1;
        }
        if (comment && *comment)
            rc = fprintf(f, "  # %s", comment);
        break;
    case PMT_EV_EOF:
        rc = fprintf(f, "eof %c%s", ev->side == PMT_CLIENT ? 'C' : 'S',
                     (ev->flags & PMT_F_FAILURE) ? " failure" : "");
        break;
    case PMT_EV_CLOSE:
        rc = fprintf(f, "close");
        break;
    case PMT_EV_TIMEOUT:
        rc = ev->timeout_ms ? fprintf(f, "timeout %u%s", ev->timeout_ms,
                                      (ev->flags & PMT_F_FAILURE) ? " failure" : "")
                            : fprintf(f, "timeout");
        break;
    case PMT_EV_NOTE:
        rc = fprintf(f, ev->len ? "note %s" : "note", ev->data);
        break;
    default:
        errno = EINVAL;
        return -1;
    }
    if (rc < 0 || fputc('\n', f) == EOF)
        return -1;
    return 0;
}

static int write_header(FILE *f, const pmt_header *h)
{
    switch (h->kind) {
    case PMT_H_COMMENT:
        return fprintf(f, h->value[0] ? "# %s\n" : "#\n", h->value) < 0 ? -1 : 0;
    case PMT_H_SOURCE:
        return fprintf(f, "@source %s\n", h->value) < 0 ? -1 : 0;
    case PMT_H_META:
        return fprintf(f, "@meta %s=%s\n", h->key, h->value) < 0 ? -1 : 0;
    case PMT_H_ENV:
        return fprintf(f, "@env %s=%s\n", h->key, h->value) < 0 ? -1 : 0;
    case PMT_H_EXPECT:
        if (fprintf(f, "@expect %s %s %s", pmt_dir_name(h->expect.from),
                    pmt_expect_kind_name(h->expect.kind), h->expect.name) < 0)
            return -1;
        if (h->value && h->value[0] && fprintf(f, "  # %s", h->value) < 0)
            return -1;
        return fputc('\n', f) == EOF ? -1 : 0;
    }
    errno = EINVAL;
    return -1;
}

int pmt_write(FILE *f, const pmt_trace *t, pmt_annotate_fn annotate, void *ctx)
{
    bool v2 = t->version >= 2;
    v2 |= t->ndirectives > 0;
    for (size_t i = 0; i < t->nevents && !v2; i++)
        v2 = pmt_event_is_v2(&t->events[i]);
    if (fputs(v2 ? PMT_MAGIC_V2 "\n" : PMT_MAGIC "\n", f) == EOF)
        return -1;
    for (size_t i = 0; i < t->nheaders; i++)
        if (write_header(f, &t->headers[i]))
            return -1;
    for (size_t i = 0; i < t->ndirectives; i++)
        if (pmt_write_directive(f, &t->directives[i]))
            return -1;
    for (size_t i = 0; i < t->nevents; i++) {
        const pmt_event *ev = &t->events[i];
        const char *c = (annotate && ev->kind == PMT_EV_DATA) ? annotate(ev, ctx) : NULL;
        if (pmt_write_event(f, ev, c))
            return -1;
    }
    return fflush(f) == EOF ? -1 : 0;
}
