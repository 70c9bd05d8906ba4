/* The decoder conformance corpus runner.
 *
 *   corpus_runner DIR
 *
 * Every y_*.bin, n_*.bin and i_*.bin in DIR is decoded (see README.md for the
 * naming, the .opts and .expect sidecars).  Each file is decoded fed in one
 * piece, one byte at a time, split in two at every position, and through
 * pmc_decode_buffer; all must describe the same events.  Every decoded message
 * is also checked against the input (raw bytes, offsets, thrid, frames).
 *
 * Prints one line per file and a final "N passed, M failed"; exits 1 when any
 * file failed, 2 on a usage or I/O problem. */
#define _POSIX_C_SOURCE 200809L /* strdup, opendir */

#include "pmicodec/pmicodec.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Files above this size are split at a sample of positions rather than at
 * every one, so a 70 KB frame does not cost 70 K full decodes. */
enum { SPLIT_ALL_MAX = 8192, SPLIT_EDGE = 256, SPLIT_STRIDE = 61 };

/* ---- growable text ------------------------------------------------------- */

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void t_putn(text *t, const char *p, size_t n)
{
    if (t->cap - t->len < n + 1) {
        size_t nc = t->cap ? t->cap : 256;
        while (nc - t->len < n + 1)
            nc *= 2;
        char *ns = realloc(t->s, nc);
        if (!ns) {
            fprintf(stderr, "corpus_runner: out of memory\n");
            exit(2);
        }
        t->s = ns;
        t->cap = nc;
    }
    memcpy(t->s + t->len, p, n);
    t->len += n;
    t->s[t->len] = 0;
}

static void t_printf(text *t, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        t_putn(t, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static void t_clear(text *t)
{
    t->len = 0;
    if (t->s)
        t->s[0] = 0;
}

/* Bytes as the .expect files write them: printable ASCII except '\', '[' and
 * ']' as is, everything else (space included) as \xNN, '\' as "\\". */
static void t_escaped(text *t, pmc_slice s)
{
    for (size_t i = 0; i < s.len; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        if (c == '\\')
            t_putn(t, "\\\\", 2);
        else if (c > 0x20 && c < 0x7f && c != '[' && c != ']')
            t_putn(t, (const char *)&c, 1);
        else
            t_printf(t, "\\x%02x", c);
    }
}

/* ---- one decoding run ---------------------------------------------------- */

typedef struct run {
    const unsigned char *data;
    size_t len;
    text events;   /* one line per message or error */
    text problems; /* invariant violations */
    uint64_t cursor; /* where the next message must start */
    size_t nmsg, nerr;
    bool fatal;
} run;

static void problem(run *r, const char *fmt, ...)
{
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    t_printf(&r->problems, "%s\n", buf);
}

static void on_msg(run *r, const pmc_msg *m)
{
    text *t = &r->events;
    t_printf(t, "%s ", pmc_wire_name(m->wire));
    t_escaped(t, m->name);
    const pmc_pair *thrid = NULL;
    for (size_t i = 0; i < m->npairs; i++) {
        const pmc_pair *p = &m->pairs[i];
        t_putn(t, " ", 1);
        t_escaped(t, p->key);
        if (p->flags & PMC_PAIR_BARE) {
            if (p->val.len)
                problem(r, "bare key with a %zu-byte value", p->val.len);
        } else {
            t_putn(t, "=", 1);
            t_escaped(t, p->val);
        }
        if (!thrid && pmc_slice_eq(p->key, "thrid"))
            thrid = p;
    }
    if (m->notes) {
        char nb[256];
        pmc_notes_format(m->notes, nb, sizeof nb);
        t_printf(t, " [%s]", nb);
    }
    if (m->nframes != 1)
        t_printf(t, " (%u frames)", m->nframes);
    t_putn(t, "\n", 1);

    /* The message must be exactly the next bytes of the input. */
    if (m->offset != r->cursor)
        problem(r, "message at offset %llu, expected %llu", (unsigned long long)m->offset,
                (unsigned long long)r->cursor);
    if (!m->raw.len || m->offset + m->raw.len > r->len ||
        memcmp(m->raw.ptr, r->data + m->offset, m->raw.len) != 0)
        problem(r, "raw (%zu bytes at %llu) differs from the input", m->raw.len,
                (unsigned long long)m->offset);
    r->cursor = m->offset + m->raw.len;
    if (m->wire == PMC_WIRE_V1 && (m->raw.len == 0 || m->raw.ptr[m->raw.len - 1] != '\n'))
        problem(r, "v1 raw does not end with a newline");
    if (m->wire != PMC_WIRE_V1 && m->wire != PMC_WIRE_V1_MCMD && m->wire != PMC_WIRE_V2)
        problem(r, "message with wire %d", (int)m->wire);
    if (m->nframes < 1 || ((m->nframes > 1) != ((m->notes & PMC_NOTE_CONTINUED) != 0)))
        problem(r, "nframes %u with notes 0x%x", m->nframes, m->notes);
    if (thrid ? !(m->thrid.ptr && pmc_slice_eqs(m->thrid, thrid->val)) : m->thrid.ptr != NULL)
        problem(r, "thrid view does not match the first thrid pair");
    if (!m->name.len)
        problem(r, "message without a command name");
    r->nmsg++;
}

static void on_err(run *r, const pmc_error *e)
{
    text *t = &r->events;
    t_printf(t, "error %s at=%llu msg=%llu%s", pmc_errcode_name(e->code),
             (unsigned long long)e->offset, (unsigned long long)e->msg_offset,
             e->fatal ? " fatal" : "");
    if (e->cmd.ptr) {
        t_putn(t, " cmd=", 5);
        t_escaped(t, e->cmd);
    }
    if (e->thrid.ptr) {
        t_putn(t, " thrid=", 7);
        t_escaped(t, e->thrid);
    }
    t_putn(t, "\n", 1);
    if (e->code == PMC_E_NONE)
        problem(r, "error without a code");
    if (e->msg_offset != r->cursor)
        problem(r, "error for a message at %llu, expected %llu",
                (unsigned long long)e->msg_offset, (unsigned long long)r->cursor);
    if (e->offset < e->msg_offset || e->offset > r->len)
        problem(r, "error offset %llu outside [%llu, %zu]", (unsigned long long)e->offset,
                (unsigned long long)e->msg_offset, r->len);
    if (!e->fatal) {
        /* a recoverable error skips exactly the rejected message */
        if (!e->raw.ptr || !e->raw.len || e->msg_offset + e->raw.len > r->len ||
            memcmp(e->raw.ptr, r->data + e->msg_offset, e->raw.len) != 0)
            problem(r, "recoverable error whose raw bytes differ from the input");
        r->cursor = e->msg_offset + e->raw.len;
    } else {
        r->fatal = true;
    }
    r->nerr++;
}

/* Decode r->data fed in chunks ending at cuts[0..ncuts-1] (the last cut is
 * r->len). */
static void decode_cuts(run *r, const pmc_decoder_opts *o, const size_t *cuts, size_t ncuts)
{
    pmc_decoder *d = pmc_decoder_new(o);
    if (!d) {
        problem(r, "pmc_decoder_new failed");
        return;
    }
    size_t pos = 0;
    pmc_msg m;
    pmc_error e;
    for (size_t c = 0; c < ncuts && !r->fatal; c++) {
        if (pmc_decoder_feed(d, r->data + pos, cuts[c] - pos) != 0) {
            problem(r, "pmc_decoder_feed failed");
            break;
        }
        pos = cuts[c];
        for (;;) {
            int rc = pmc_decoder_next(d, &m, &e);
            if (rc == PMC_MSG) {
                on_msg(r, &m);
            } else if (rc == PMC_ERR) {
                on_err(r, &e);
                if (e.fatal)
                    break;
            } else if (rc == PMC_AGAIN) {
                break;
            } else {
                problem(r, "pmc_decoder_next returned %d", rc);
                break;
            }
        }
    }
    if (r->fatal) {
        /* A failed decoder repeats its error, from next() and finish(). */
        pmc_errcode first = e.code;
        uint64_t at = e.offset;
        pmc_error e2;
        if (pmc_decoder_next(d, &m, &e2) != PMC_ERR || e2.code != first || e2.offset != at ||
            !e2.fatal)
            problem(r, "next() after a fatal error did not repeat it");
        if (pmc_decoder_finish(d, &e2) != PMC_ERR || e2.code != first || !e2.fatal)
            problem(r, "finish() after a fatal error did not repeat it");
    } else {
        int rc = pmc_decoder_finish(d, &e);
        if (rc == PMC_ERR)
            on_err(r, &e);
        else if (rc != PMC_AGAIN)
            problem(r, "pmc_decoder_finish returned %d", rc);
        else if (pmc_decoder_pending(d) != 0)
            problem(r, "finish() says nothing is left but %zu bytes are pending",
                    pmc_decoder_pending(d));
        if (rc == PMC_AGAIN && r->cursor != r->len)
            problem(r, "decoding ended at %llu of %zu bytes", (unsigned long long)r->cursor,
                    r->len);
    }
    pmc_decoder_free(d);
}

/* The same input through pmc_decode_buffer on the caller's bytes.  Its
 * "message cut off" answer is PMC_AGAIN; it is written as the streaming
 * decoder's E_TRUNCATED so that the two can be compared. */
static void decode_in_place(run *r, const pmc_decoder_opts *o)
{
    pmc_decoder *d = pmc_decoder_new(o);
    if (!d) {
        problem(r, "pmc_decoder_new failed");
        return;
    }
    size_t pos = 0;
    while (pos < r->len) {
        pmc_msg m;
        pmc_error e;
        size_t used = 0;
        int rc = pmc_decode_buffer(d, (const char *)r->data + pos, r->len - pos, pos, &m, &e,
                                   &used);
        if (rc == PMC_MSG) {
            on_msg(r, &m);
            if (used != m.raw.len)
                problem(r, "decode_buffer consumed %zu for a %zu-byte message", used, m.raw.len);
        } else if (rc == PMC_ERR) {
            on_err(r, &e);
            if (e.fatal)
                break;
            if (used == 0) {
                problem(r, "recoverable error that consumed nothing");
                break;
            }
        } else {
            text *t = &r->events;
            t_printf(t, "error E_TRUNCATED at=%zu msg=%zu fatal\n", r->len, pos);
            break;
        }
        pos += used;
    }
    pmc_decoder_free(d);
}

/* ---- sidecars ------------------------------------------------------------ */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    text t = { 0 };
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        t_putn(&t, buf, n);
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(t.s);
        return NULL;
    }
    if (!t.s)
        t_putn(&t, "", 0);
    *len = t.len;
    return t.s;
}

static bool note_bit(const char *name, size_t n, uint32_t *bit)
{
    for (int i = 0; i < PMC_NOTE_COUNT; i++) {
        const char *nn = pmc_note_name(1u << i);
        if (strlen(nn) == n && memcmp(nn, name, n) == 0) {
            *bit = 1u << i;
            return true;
        }
    }
    return false;
}

/* Parse "<file>.opts": one option per line, '#' comments.  Returns false
 * with a message in *why on an unknown option. */
static bool load_opts(const char *path, pmc_decoder_opts *o, char *why, size_t whyn)
{
    pmc_decoder_opts_default(o);
    size_t len;
    char *s = slurp(path, &len);
    if (!s)
        return true; /* no sidecar: defaults */
    bool ok = true;
    for (char *line = strtok(s, "\n"); line && ok; line = strtok(NULL, "\n")) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *end = line + strlen(line);
        while (end > line && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
            *--end = 0;
        while (*line == ' ' || *line == '\t')
            line++;
        if (!*line)
            continue;
        static const struct {
            const char *name;
            size_t off;
        } lim[] = {
            { "max_key", offsetof(pmc_limits, max_key) },
            { "max_val", offsetof(pmc_limits, max_val) },
            { "max_pairs", offsetof(pmc_limits, max_pairs) },
            { "max_frame", offsetof(pmc_limits, max_frame) },
            { "max_line", offsetof(pmc_limits, max_line) },
            { "max_message", offsetof(pmc_limits, max_message) },
            { "max_junk", offsetof(pmc_limits, max_junk) },
        };
        char *eq = strchr(line, '=');
        size_t klen = eq ? (size_t)(eq - line) : strlen(line);
        bool done = false;
        if (!eq && strcmp(line, "strict") == 0) {
            o->strict = PMC_STRICT_ALL;
            done = true;
        } else if (!eq && strcmp(line, "no-escape") == 0) {
            o->flags &= ~(uint32_t)PMC_DEC_SEMI_ESCAPE;
            done = true;
        } else if (!eq && strcmp(line, "v1-backslash") == 0) {
            o->flags |= PMC_DEC_V1_BACKSLASH;
            done = true;
        } else if (!eq && strcmp(line, "no-concat") == 0) {
            o->flags |= PMC_DEC_NO_CONCAT;
            done = true;
        } else if (eq && klen == 6 && memcmp(line, "strict", 6) == 0) {
            /* strict=note,note: only those notes are rejected */
            for (char *n = eq + 1; *n;) {
                size_t nl = strcspn(n, ",");
                uint32_t bit;
                if (!note_bit(n, nl, &bit)) {
                    snprintf(why, whyn, "unknown note '%.*s'", (int)nl, n);
                    ok = false;
                    break;
                }
                o->strict |= bit;
                n += nl + (n[nl] == ',');
            }
            done = true;
        } else if (eq) {
            for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) {
                if (strlen(lim[i].name) != klen || memcmp(line, lim[i].name, klen) != 0)
                    continue;
                char *e;
                errno = 0;
                unsigned long v = strtoul(eq + 1, &e, 10);
                if (errno || *e || e == eq + 1 || v > UINT32_MAX) {
                    snprintf(why, whyn, "bad number in '%s'", line);
                    ok = false;
                } else {
                    *(uint32_t *)((char *)&o->limits + lim[i].off) = (uint32_t)v;
                }
                done = true;
            }
        }
        if (ok && !done) {
            snprintf(why, whyn, "unknown option '%s'", line);
            ok = false;
        }
    }
    free(s);
    return ok;
}

/* "<file>.expect" without comment and blank lines; NULL when absent. */
static char *load_expect(const char *path)
{
    size_t len;
    char *s = slurp(path, &len);
    if (!s)
        return NULL;
    text t = { 0 };
    t_putn(&t, "", 0);
    for (char *p = s; *p;) {
        size_t n = strcspn(p, "\n");
        size_t m = n;
        while (m && (p[m - 1] == '\r' || p[m - 1] == ' '))
            m--;
        if (m && p[0] != '#') {
            t_putn(&t, p, m);
            t_putn(&t, "\n", 1);
        }
        p += n + (p[n] == '\n');
    }
    free(s);
    return t.s;
}

/* ---- one corpus file ----------------------------------------------------- */

static void show_diff(const char *want, const char *got)
{
    /* first differing line of two event lists */
    size_t line = 1;
    while (*want || *got) {
        size_t a = strcspn(want, "\n"), b = strcspn(got, "\n");
        if (a != b || memcmp(want, got, a) != 0) {
            printf("    line %zu: expected: %.*s\n", line, (int)a, a ? want : "(nothing)");
            printf("    line %zu: got:      %.*s\n", line, (int)b, b ? got : "(nothing)");
            return;
        }
        want += a + (want[a] == '\n');
        got += b + (got[b] == '\n');
        line++;
    }
}

static void print_problems(const char *label, const text *p)
{
    const char *s = p->s;
    int shown = 0;
    while (s && *s && shown < 5) {
        size_t n = strcspn(s, "\n");
        printf("    %s: %.*s\n", label, (int)n, s);
        s += n + (s[n] == '\n');
        shown++;
    }
}

/* Decode with the cut positions and compare with the reference events.
 * Returns false (after printing why) on a difference or a problem. */
static bool check_variant(const char *what, const run *ref, const pmc_decoder_opts *o,
                          const size_t *cuts, size_t ncuts, run *scratch)
{
    t_clear(&scratch->events);
    t_clear(&scratch->problems);
    scratch->data = ref->data;
    scratch->len = ref->len;
    scratch->cursor = 0;
    scratch->nmsg = scratch->nerr = 0;
    scratch->fatal = false;
    if (cuts)
        decode_cuts(scratch, o, cuts, ncuts);
    else
        decode_in_place(scratch, o);
    if (scratch->problems.len) {
        printf("    %s:\n", what);
        print_problems("invariant", &scratch->problems);
        return false;
    }
    if (strcmp(ref->events.s ? ref->events.s : "", scratch->events.s ? scratch->events.s : "")) {
        printf("    %s gives different events:\n", what);
        show_diff(ref->events.s ? ref->events.s : "", scratch->events.s ? scratch->events.s : "");
        return false;
    }
    return true;
}

static bool split_here(size_t k, size_t len)
{
    if (len <= SPLIT_ALL_MAX)
        return true;
    return k < SPLIT_EDGE || k > len - SPLIT_EDGE || k % SPLIT_STRIDE == 0;
}

/* Returns true when the file passed; prints its line. */
static bool run_file(const char *dir, const char *name)
{
    char path[4096], side[4200], why[256] = "";
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len;
    char *data = slurp(path, &len);
    if (!data) {
        printf("FAIL %s: cannot read: %s\n", name, strerror(errno));
        return false;
    }
    pmc_decoder_opts o;
    snprintf(side, sizeof side, "%s.opts", path);
    if (!load_opts(side, &o, why, sizeof why)) {
        printf("FAIL %s: %s.opts: %s\n", name, name, why);
        free(data);
        return false;
    }
    snprintf(side, sizeof side, "%s.expect", path);
    char *expect = load_expect(side);
    size_t *cuts = NULL;

    run ref = { .data = (const unsigned char *)data, .len = len };
    run var = { 0 };
    size_t whole = len;
    decode_cuts(&ref, &o, &whole, 1);
    const char *events = ref.events.s ? ref.events.s : "";

    bool ok = true;
    if (ref.problems.len) {
        printf("FAIL %s\n", name);
        print_problems("invariant", &ref.problems);
        ok = false;
        goto out;
    }

    /* The verdict the name asks for. */
    char verdict[256] = "";
    if (name[0] == 'y') {
        if (ref.nerr) {
            const char *e = strstr(events, "error ");
            snprintf(verdict, sizeof verdict, "expected no error, got %.*s",
                     (int)strcspn(e, "\n"), e);
        } else if (!ref.nmsg) {
            snprintf(verdict, sizeof verdict, "expected at least one message, got none");
        }
    } else if (name[0] == 'n') {
        const char *dd = strstr(name, "__");
        char want[64] = "";
        if (dd)
            snprintf(want, sizeof want, "%.*s", (int)strcspn(dd + 2, "."), dd + 2);
        const char *e = strstr(events, "error ");
        if (!want[0]) {
            snprintf(verdict, sizeof verdict, "n_ file without __E_CODE in its name");
        } else if (!e) {
            snprintf(verdict, sizeof verdict, "expected %s, got no error", want);
        } else {
            size_t cl = strcspn(e + 6, " \n");
            if (cl != strlen(want) || memcmp(e + 6, want, cl) != 0)
                snprintf(verdict, sizeof verdict, "expected %s, got %.*s", want,
                         (int)strcspn(e, "\n"), e);
        }
    }
    if (verdict[0]) {
        printf("FAIL %s: %s\n", name, verdict);
        ok = false;
        goto out;
    }
    if (expect && strcmp(expect, events) != 0) {
        printf("FAIL %s: events differ from %s.expect\n", name, name);
        show_diff(expect, events);
        ok = false;
        goto out;
    }

    /* Every way of splitting the input must tell the same story. */
    {
        cuts = calloc(len ? len : 1, sizeof *cuts);
        if (!cuts) {
            printf("FAIL %s: out of memory\n", name);
            ok = false;
            goto out;
        }
        for (size_t i = 0; i < len; i++)
            cuts[i] = i + 1;
        char what[96];
        if (!check_variant("fed one byte at a time", &ref, &o, cuts, len, &var))
            ok = false;
        for (size_t k = 1; ok && k < len; k++) {
            if (!split_here(k, len))
                continue;
            size_t two[2] = { k, len };
            snprintf(what, sizeof what, "split at byte %zu", k);
            if (!check_variant(what, &ref, &o, two, 2, &var))
                ok = false;
        }
        if (ok && !check_variant("pmc_decode_buffer", &ref, &o, NULL, 0, &var))
            ok = false;
        if (!ok) {
            printf("FAIL %s: not split-invariant (reference events below)\n", name);
            print_problems("reference", &ref.events);
            goto out;
        }
    }

    {
        /* one summary line: counts, and the first error if any */
        const char *e = strstr(events, "error ");
        printf("ok   %s: %zu message%s", name, ref.nmsg, ref.nmsg == 1 ? "" : "s");
        if (e)
            printf(", %.*s", (int)strcspn(e, "\n"), e);
        if (name[0] == 'i' && ref.nmsg && events[0] != 'e')
            printf("; first: %.*s", (int)strcspn(events, "\n") > 120 ? 120 : (int)strcspn(events, "\n"),
                   events);
        printf("%s\n", expect ? " (expect ok)" : "");
    }
out:
    free(cuts);
    free(ref.events.s);
    free(ref.problems.s);
    free(var.events.s);
    free(var.problems.s);
    free(expect);
    free(data);
    return ok;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_case(const char *n)
{
    size_t l = strlen(n);
    return l > 6 && (n[0] == 'y' || n[0] == 'n' || n[0] == 'i') && n[1] == '_' &&
           strcmp(n + l - 4, ".bin") == 0;
}

int main(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: corpus_runner DIR\n"
                        "Decodes every y_/n_/i_*.bin in DIR; see DIR/README.md.\n");
        return 2;
    }
    DIR *dir = opendir(argv[1]);
    if (!dir) {
        fprintf(stderr, "corpus_runner: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        if (!is_case(de->d_name))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) {
                fprintf(stderr, "corpus_runner: out of memory\n");
                return 2;
            }
            names = nn;
        }
        names[n] = strdup(de->d_name);
        if (!names[n]) {
            fprintf(stderr, "corpus_runner: out of memory\n");
            return 2;
        }
        n++;
    }
    closedir(dir);
    if (n == 0) {
        fprintf(stderr, "corpus_runner: no y_/n_/i_*.bin files in %s\n", argv[1]);
        return 2;
    }
    qsort(names, n, sizeof *names, cmp_names);
    size_t passed = 0, failed = 0;
    for (size_t i = 0; i < n; i++) {
        if (run_file(argv[1], names[i]))
            passed++;
        else
            failed++;
        fflush(stdout);
        free(names[i]);
    }
    free(names);
    printf("%zu passed, %zu failed\n", passed, failed);
    return failed ? 1 : 0;
}
