/* The in-memory trace: headers and events, built by the reader, the
 * importers and tools. */
#include "pmitrace/trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pmt_trace_init(pmt_trace *t)
{
    memset(t, 0, sizeof *t);
}

void pmt_trace_free(pmt_trace *t)
{
    for (size_t i = 0; i < t->nheaders; i++) {
        free(t->headers[i].key);
        free(t->headers[i].value);
    }
    for (size_t i = 0; i < t->nevents; i++)
        free(t->events[i].data);
    for (size_t i = 0; i < t->ndirectives; i++)
        pmt_directive_free(&t->directives[i]);
    free(t->headers);
    free(t->events);
    free(t->directives);
    pmt_trace_init(t);
}

static char *dupn(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d)
        return NULL;
    if (n)
        memcpy(d, s, n);
    d[n] = 0;
    return d;
}

/* Header text is written on one line: no CR/LF, no NUL. */
static bool one_line(const char *s)
{
    return s && strcspn(s, "\r\n") == strlen(s);
}

static pmt_header *new_header(pmt_trace *t, pmt_hkind kind)
{
    if (t->nheaders == t->cap_headers) {
        size_t cap = t->cap_headers ? t->cap_headers * 2 : 16;
        pmt_header *h = realloc(t->headers, cap * sizeof *h);
        if (!h)
            return NULL;
        t->headers = h;
        t->cap_headers = cap;
    }
    pmt_header *h = &t->headers[t->nheaders];
    memset(h, 0, sizeof *h);
    h->kind = kind;
    return h;
}

static int add_text(pmt_trace *t, pmt_hkind kind, const char *text)
{
    if (!one_line(text))
        return -1;
    pmt_header *h = new_header(t, kind);
    if (!h || !(h->value = dupn(text, strlen(text))))
        return -1;
    t->nheaders++;
    return 0;
}

int pmt_add_comment(pmt_trace *t, const char *text)
{
    return add_text(t, PMT_H_COMMENT, text);
}

int pmt_add_source(pmt_trace *t, const char *text)
{
    /* "@source" needs a description: the reader refuses an empty one */
    size_t lead = text ? strspn(text, " \t") : 0;
    if (!text || !text[lead])
        return -1;
    return add_text(t, PMT_H_SOURCE, text + lead);
}

/* A header key: non-empty, no '=', no whitespace. */
static bool key_ok(const char *k)
{
    return k && *k && strcspn(k, "= \t\r\n") == strlen(k);
}

static int add_kv(pmt_trace *t, pmt_hkind kind, const char *key, const char *value)
{
    if (!key_ok(key) || !one_line(value))
        return -1;
    pmt_header *h = new_header(t, kind);
    if (!h)
        return -1;
    h->key = dupn(key, strlen(key));
    h->value = dupn(value, strlen(value));
    if (!h->key || !h->value) {
        free(h->key);
        free(h->value);
        return -1;
    }
    t->nheaders++;
    return 0;
}

int pmt_add_meta(pmt_trace *t, const char *key, const char *value)
{
    return add_kv(t, PMT_H_META, key, value);
}

int pmt_add_env(pmt_trace *t, const char *name, const char *value)
{
    return add_kv(t, PMT_H_ENV, name, value);
}

int pmt_add_expect(pmt_trace *t, const pmt_expect *x, const char *comment)
{
    if (comment && !one_line(comment))
        return -1;
    if (!x->name[0] || strcspn(x->name, " \t#") != strlen(x->name))
        return -1;
    pmt_header *h = new_header(t, PMT_H_EXPECT);
    if (!h)
        return -1;
    h->expect = *x;
    /* an empty comment ("@expect ... #") is no comment: it is not written back */
    if (comment && comment[0] && !(h->value = dupn(comment, strlen(comment))))
        return -1;
    t->nheaders++;
    return 0;
}

static bool conn_ok(const char *c)
{
    size_t n = strlen(c);
    if (n == 0 || n >= PMT_CONN_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        char ch = c[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '.' || ch == '-'))
            return false;
    }
    return true;
}

int pmt_add_event(pmt_trace *t, pmt_kind kind, uint64_t usec, const char *conn, pmt_side side,
                  const void *data, size_t len)
{
    if (!conn || !conn_ok(conn))
        return -1;
    /* note and open text is written raw on the line */
    if ((kind == PMT_EV_NOTE || kind == PMT_EV_OPEN) && data && memchr(data, '\n', len))
        return -1;
    if ((kind == PMT_EV_NOTE || kind == PMT_EV_OPEN) && data && memchr(data, '\r', len))
        return -1;
    if ((kind == PMT_EV_NOTE || kind == PMT_EV_OPEN) && data && memchr(data, '\0', len))
        return -1;
    if (kind == PMT_EV_DATA && len == 0)
        return -1; /* a write of nothing is not an event */
    if ((kind == PMT_EV_NOTE || kind == PMT_EV_OPEN) && data) {
        /* the reader does not keep leading blanks of note/open text */
        while (len && (*(const char *)data == ' ' || *(const char *)data == '\t')) {
            data = (const char *)data + 1;
            len--;
        }
    }
    if (t->nevents == t->cap_events) {
        size_t cap = t->cap_events ? t->cap_events * 2 : 64;
        pmt_event *e = realloc(t->events, cap * sizeof *e);
        if (!e)
            return -1;
        t->events = e;
        t->cap_events = cap;
    }
    pmt_event *ev = &t->events[t->nevents];
    memset(ev, 0, sizeof *ev);
    ev->kind = kind;
    ev->usec = usec;
    strcpy(ev->conn, conn);
    /* Only data and eof say which side they are on; the other kinds are the
     * recorder's own and are written without one, so every producer (reader,
     * importer, recorders) stores the same side the reader would. */
    ev->side = kind == PMT_EV_DATA || kind == PMT_EV_EOF ? side : PMT_CLIENT;
    ev->data = dupn(data ? data : "", data ? len : 0);
    if (!ev->data)
        return -1;
    ev->len = data ? len : 0;
    t->nevents++;
    return 0;
}

const pmt_header *pmt_find_header(const pmt_trace *t, pmt_hkind kind, const char *key)
{
    for (size_t i = 0; i < t->nheaders; i++) {
        const pmt_header *h = &t->headers[i];
        if (h->kind != kind)
            continue;
        if (key && (!h->key || strcmp(h->key, key) != 0))
            continue;
        return h;
    }
    return NULL;
}

const char *pmt_dir_name(pmt_side from)
{
    return from == PMT_CLIENT ? "C>S" : "S>C";
}

size_t pmt_error_format(const pmt_error *e, const char *path, char *buf, size_t n)
{
    int w;
    if (e->line && e->column)
        w = snprintf(buf, n, "%s:%u:%u: %s", path ? path : "-", e->line, e->column, e->msg);
    else if (e->line)
        w = snprintf(buf, n, "%s:%u: %s", path ? path : "-", e->line, e->msg);
    else
        w = snprintf(buf, n, "%s: %s", path ? path : "-", e->msg);
    return w > 0 ? (size_t)w : 0;
}

int pmt_add_pattern(pmt_trace *t, uint64_t usec, const char *conn, pmt_side side,
                    const char *pattern)
{
    if (!pattern || !*pattern || !one_line(pattern))
        return -1;
    if (pmt_add_event(t, PMT_EV_DATA, usec, conn, side, pattern, strlen(pattern)))
        return -1;
    t->events[t->nevents - 1].form = PMT_FORM_MSG;
    return 0;
}

bool pmt_event_is_v2(const pmt_event *ev)
{
    if (ev->kind == PMT_EV_TIMEOUT)
        return ev->timeout_ms != 0;
    if (ev->kind == PMT_EV_EOF)
        return ev->flags != 0;
    if (ev->kind != PMT_EV_DATA)
        return false;
    return ev->form != PMT_FORM_BYTES || ev->flags || ev->timeout_ms || ev->ncuts || ev->delay_ms ||
           ev->pause_ms;
}
