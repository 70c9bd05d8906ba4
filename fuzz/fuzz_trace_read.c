/* Harness: the pmi-trace v1 reader (and the transcript importer).
 *
 * Input: [mode byte] then text.  Mode bits 0-1: 0 and 1 parse the text as a
 * trace, 2 imports it as a probe transcript, 3 as an strace log.
 * Invariants for every accepted trace: events are well-formed (known kind,
 * connection label of [A-Za-z0-9_.-], NUL after the data, source lines in
 * order within the input), and writing the trace out and reading it back
 * gives the same headers and events (write/read round trip).  A refusal
 * names a line within the input and leaves the trace empty.  Independently,
 * pmt_escape / pmt_unescape round-trip the raw input bytes. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "pmitrace/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool conn_ok(const char *c)
{
    size_t n = strnlen(c, PMT_CONN_MAX);
    if (n == 0 || n == PMT_CONN_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        char x = c[i];
        if (!((x >= 'a' && x <= 'z') || (x >= 'A' && x <= 'Z') || (x >= '0' && x <= '9') ||
              x == '_' || x == '.' || x == '-'))
            return false;
    }
    return true;
}

static void check_trace(const pmt_trace *t, size_t lines)
{
    uint32_t last = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const pmt_event *ev = &t->events[i];
        FZ_CHECK(ev->kind >= PMT_EV_OPEN && ev->kind <= PMT_EV_NOTE, "event %zu kind %d", i,
                 (int)ev->kind);
        FZ_CHECK(conn_ok(ev->conn), "event %zu has a valid connection label", i);
        FZ_CHECK(ev->side == PMT_CLIENT || ev->side == PMT_SERVER, "event %zu side", i);
        FZ_CHECK(!ev->len || ev->data, "event %zu data present", i);
        if (ev->data)
            FZ_CHECK(ev->data[ev->len] == '\0', "event %zu data NUL-terminated", i);
        if (lines) {
            FZ_CHECK(ev->line >= last && ev->line <= lines, "event %zu line %u in order and "
                     "within %zu lines", i, ev->line, lines);
            last = ev->line;
        }
    }
    for (size_t i = 0; i < t->nheaders; i++) {
        const pmt_header *h = &t->headers[i];
        FZ_CHECK(h->kind >= PMT_H_COMMENT && h->kind <= PMT_H_EXPECT, "header %zu kind", i);
        if (h->kind == PMT_H_META || h->kind == PMT_H_ENV)
            FZ_CHECK(h->key && h->value, "header %zu has key and value", i);
    }
}

static bool str_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Write t canonically and read it back: the same trace. */
static void round_trip(const pmt_trace *t)
{
    char *mem = NULL;
    size_t mlen = 0;
    FILE *f = open_memstream(&mem, &mlen);
    FZ_CHECK(f != NULL, "open_memstream");
    FZ_CHECK(pmt_write(f, t, NULL, NULL) == 0, "writing an accepted trace works");
    FZ_CHECK(fclose(f) == 0, "fclose");
    pmt_trace u;
    pmt_error e;
    pmt_trace_init(&u);
    if (pmt_parse(mem, mlen, &u, &e) != 0) {
        fz_dump("written trace", mem, mlen);
        fz_fail(__FILE__, __LINE__, "the reader refuses what the writer wrote: line %u col %u: "
                "%s", e.line, e.column, e.msg);
    }
    FZ_CHECK(u.nevents == t->nevents, "%zu events written, %zu read", t->nevents, u.nevents);
    FZ_CHECK(u.nheaders == t->nheaders, "%zu headers written, %zu read", t->nheaders,
             u.nheaders);
    for (size_t i = 0; i < t->nevents; i++) {
        const pmt_event *a = &t->events[i], *b = &u.events[i];
        FZ_CHECK(a->kind == b->kind && a->usec == b->usec && strcmp(a->conn, b->conn) == 0 &&
                     a->side == b->side && a->len == b->len &&
                     (a->len == 0 || memcmp(a->data, b->data, a->len) == 0),
                 "event %zu survives a write/read round trip", i);
    }
    for (size_t i = 0; i < t->nheaders; i++) {
        const pmt_header *a = &t->headers[i], *b = &u.headers[i];
        FZ_CHECK(a->kind == b->kind && str_eq(a->key, b->key) && str_eq(a->value, b->value),
                 "header %zu survives a write/read round trip", i);
        if (a->kind == PMT_H_EXPECT)
            FZ_CHECK(a->expect.from == b->expect.from && a->expect.kind == b->expect.kind &&
                         strcmp(a->expect.name, b->expect.name) == 0,
                     "@expect %zu survives", i);
    }
    pmt_trace_free(&u);
    free(mem);
}

static void escape_round_trip(const char *in, size_t n)
{
    size_t need = pmt_escaped_len(in, n);
    char *esc = malloc(need + 1), *back = malloc(need + 1);
    FZ_CHECK(esc && back, "allocation");
    FZ_CHECK(pmt_escape(in, n, esc, need + 1) == need, "pmt_escape needs pmt_escaped_len");
    FZ_CHECK(strlen(esc) == need, "escaped text has no NUL inside");
    size_t blen = 0, epos = 0;
    char emsg[128];
    FZ_CHECK(pmt_unescape(esc, need, back, &blen, &epos, emsg, sizeof emsg) == 0,
             "escaped bytes unescape: %s", emsg);
    FZ_CHECK(blen == n && (n == 0 || memcmp(back, in, n) == 0), "escape/unescape round trip");
    /* the raw input as escaped text: anything goes, but no overrun */
    blen = 0;
    if (pmt_unescape(in, n, back, &blen, &epos, emsg, sizeof emsg) == 0)
        FZ_CHECK(blen <= n, "unescaping never grows");
    else
        FZ_CHECK(epos <= n, "unescape error position within the input");
    free(esc);
    free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *in = (const char *)data + 1;
    size_t n = size - 1;
    size_t lines = 1;
    for (size_t i = 0; i < n; i++)
        lines += in[i] == '\n';

    pmt_trace t;
    pmt_error e;
    pmt_trace_init(&t);
    int rc;
    int mode = data[0] & 3;
    if (mode < 2) {
        rc = pmt_parse(in, n, &t, &e);
    } else {
        pmt_import_opts io = { .conn = "r0", .strace_fd = -1 };
        rc = pmt_import(mode == 2 ? PMT_IMPORT_PROBE : PMT_IMPORT_STRACE, in, n, &io, &t, &e);
    }
    if (rc == 0) {
        check_trace(&t, mode < 2 ? lines : 0);
        round_trip(&t);
    } else {
        FZ_CHECK(rc == -1, "refusal is -1");
        FZ_CHECK(memchr(e.msg, '\0', sizeof e.msg) && e.msg[0], "refusal says why");
        FZ_CHECK(e.line <= lines, "refusal line %u within the %zu lines", e.line, lines);
        if (mode < 2)
            FZ_CHECK(t.nevents == 0 && t.nheaders == 0, "a refused trace is left empty");
        char line[400];
        pmt_error_format(&e, "x.trace", line, sizeof line);
    }
    pmt_trace_free(&t);
    escape_round_trip(in, n);
    return 0;
}
