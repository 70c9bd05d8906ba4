/* Import of the raw capture transcripts into trace events.  Nothing is
 * dropped: lines the format has no event for become notes, and a line the
 * importer does not understand is an error (line, column, what was
 * expected), never skipped. */
#include "pmitrace/trace.h"

#include <stdarg.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct ictx {
    const char *s; /* current line */
    size_t n;
    uint32_t line;
    pmt_error *e;
    pmt_trace *t;
    const char *conn;
} ictx;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int ierr(ictx *c, size_t col0, const char *fmt, ...)
{
    c->e->line = c->line;
    c->e->column = (uint32_t)col0 + 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->e->msg, sizeof c->e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

static bool has(const ictx *c, size_t at, const char *w)
{
    size_t k = strlen(w);
    return at + k <= c->n && memcmp(c->s + at, w, k) == 0;
}

/* A decimal number (optional '-') at c->s[*i], within the line: the line is
 * not NUL-terminated, so strtol could read past it.  Advances *i; false when
 * there are no digits or the value does not fit. */
static bool number(const ictx *c, size_t *i, long *out)
{
    size_t j = *i;
    bool neg = j < c->n && c->s[j] == '-';
    if (neg)
        j++;
    size_t start = j;
    unsigned long long v = 0;
    while (j < c->n && c->s[j] >= '0' && c->s[j] <= '9') {
        v = v * 10 + (unsigned)(c->s[j] - '0');
        if (v > (unsigned long long)LONG_MAX)
            return false;
        j++;
    }
    if (j == start)
        return false;
    *out = neg ? -(long)v : (long)v;
    *i = j;
    return true;
}

static bool is_exactly(const ictx *c, const char *w)
{
    return c->n == strlen(w) && memcmp(c->s, w, c->n) == 0;
}

static int note(ictx *c, const char *text, size_t len)
{
    if (pmt_add_event(c->t, PMT_EV_NOTE, 0, c->conn, PMT_CLIENT, text, len))
        return ierr(c, 0, "cannot store the note (out of memory or a control byte in it)");
    return 0;
}

static int event(ictx *c, pmt_kind k, pmt_side side, const char *data, size_t len)
{
    if (pmt_add_event(c->t, k, 0, c->conn, side, data, len))
        return ierr(c, 0, "out of memory");
    return 0;
}

/* One bytes literal at *i; appends to buf.  */
static int lit(ictx *c, size_t *i, char *buf, size_t *blen)
{
    size_t used = 0, errpos = 0;
    char err[160];
    if (pmt_pybytes(c->s + *i, c->n - *i, buf, blen, &used, &errpos, err, sizeof err))
        return ierr(c, *i + errpos, "%s", err);
    *i += used;
    return 0;
}

/* "...<N bytes total>...": the capture printed only the head and tail of a
 * long write. */
static int elided(ictx *c, size_t *i, unsigned long *total)
{
    if (!has(c, *i, "...<"))
        return 0;
    size_t j = *i + 4, k = j;
    long v;
    if (!number(c, &k, &v) || v < 0 || !has(c, k, " bytes total>..."))
        return ierr(c, j, "expected \"<N bytes total>...\" in a shortened write");
    *total = (unsigned long)v;
    *i = k + strlen(" bytes total>...");
    return 1;
}

/* Run length of byte b at the end (tail=false: start) of p[0..n). */
static size_t run(const char *p, size_t n, char b, bool at_end)
{
    size_t r = 0;
    while (r < n && p[at_end ? n - 1 - r : r] == b)
        r++;
    return r;
}

enum { MIN_RUN = 16 }; /* shortest run on both sides that makes a fill certain enough */

static int data_line(ictx *c, size_t i, pmt_side side)
{
    char *buf = malloc(c->n + 1);
    if (!buf)
        return ierr(c, 0, "out of memory");
    size_t blen = 0;
    unsigned long total = 0;
    int rc = lit(c, &i, buf, &blen);
    int el = rc ? 0 : elided(c, &i, &total);
    if (el < 0)
        rc = -1;
    if (!rc && el) {
        size_t head = blen;
        if (i >= c->n || c->s[i] != 'b') {
            rc = ierr(c, i, "expected the tail bytes literal after \"bytes total>...\"");
            goto out;
        }
        char *tail = malloc(c->n + 1);
        size_t tlen = 0;
        if (!tail) {
            rc = ierr(c, 0, "out of memory");
            goto out;
        }
        rc = lit(c, &i, tail, &tlen);
        if (!rc) {
            char b = head ? buf[head - 1] : 0;
            if (total < head + tlen || head == 0 || tlen == 0 || tail[0] != b ||
                run(buf, head, b, true) < MIN_RUN || run(tail, tlen, b, false) < MIN_RUN) {
                rc = ierr(c, 0,
                          "a shortened write whose middle cannot be restored exactly (head and "
                          "tail are not runs of one byte)");
            } else {
                size_t fill = total - head - tlen;
                char *full = malloc(total);
                if (!full) {
                    rc = ierr(c, 0, "out of memory");
                } else {
                    char esc[8];
                    pmt_escape(&b, 1, esc, sizeof esc);
                    char msg[200];
                    int w = snprintf(msg, sizeof msg,
                                     "import: the capture kept the first %zu and last %zu of %lu "
                                     "bytes of the next write; the %zu between were restored as "
                                     "\"%s\", the byte both runs consist of",
                                     head, tlen, total, fill, esc);
                    memcpy(full, buf, head);
                    memset(full + head, b, fill);
                    memcpy(full + head + fill, tail, tlen);
                    rc = note(c, msg, (size_t)w);
                    if (!rc)
                        rc = event(c, PMT_EV_DATA, side, full, total);
                    free(full);
                }
            }
        }
        free(tail);
        if (!rc && i != c->n)
            rc = ierr(c, i, "expected the end of the line after the bytes literal");
        goto out;
    }
    if (!rc && i != c->n)
        rc = ierr(c, i, "expected the end of the line after the bytes literal");
    if (!rc) {
        if (blen)
            rc = event(c, PMT_EV_DATA, side, buf, blen);
        else /* a read or write of nothing: not a write, but worth keeping */
            rc = note(c, c->s, c->n);
    }
out:
    free(buf);
    return rc;
}

/* Python str literal 'x' or "x" (the env dict); result NUL-terminated in out. */
static int pystr(ictx *c, size_t *i, char *out, size_t cap)
{
    if (*i >= c->n || (c->s[*i] != '\'' && c->s[*i] != '"'))
        return ierr(c, *i, "expected a quoted string");
    char q = c->s[*i];
    size_t o = 0;
    for (size_t j = *i + 1; j < c->n; j++) {
        char ch = c->s[j];
        if (ch == q) {
            out[o] = 0;
            *i = j + 1;
            return 0;
        }
        if (ch == '\\') {
            if (j + 1 >= c->n || (c->s[j + 1] != '\\' && c->s[j + 1] != '\'' && c->s[j + 1] != '"'))
                return ierr(c, j, "unsupported escape in a string (expected \\\\ \\' or \\\")");
            ch = c->s[++j];
        }
        if (o + 1 >= cap)
            return ierr(c, j, "string too long");
        out[o++] = ch;
    }
    return ierr(c, c->n, "expected the closing quote");
}

/* env {'PMI_SIZE': '2', 'PMI_FD': '11'} */
static int env_dict(ictx *c, size_t i)
{
    if (i >= c->n || c->s[i] != '{')
        return ierr(c, i, "expected '{' after env");
    i++;
    char k[256], v[1024];
    while (i < c->n && c->s[i] != '}') {
        if (pystr(c, &i, k, sizeof k))
            return -1;
        if (!has(c, i, ": "))
            return ierr(c, i, "expected ': ' after a dict key");
        i += 2;
        if (pystr(c, &i, v, sizeof v))
            return -1;
        if (pmt_add_env(c->t, k, v))
            return ierr(c, i, "environment entry cannot be stored (a key with '=' or blanks?)");
        if (has(c, i, ", "))
            i += 2;
        else if (i >= c->n || c->s[i] != '}')
            return ierr(c, i, "expected ', ' or '}'");
    }
    if (i >= c->n)
        return ierr(c, i, "expected '}'");
    if (i + 1 != c->n)
        return ierr(c, i + 1, "expected the end of the line after '}'");
    return 0;
}

/* NOTE env PMI_FD=6 PMI_RANK=0 */
static int env_note(ictx *c, size_t i)
{
    while (i < c->n) {
        while (i < c->n && c->s[i] == ' ')
            i++;
        size_t w = 0;
        while (i + w < c->n && c->s[i + w] != ' ')
            w++;
        if (!w)
            break;
        const char *eq = memchr(c->s + i, '=', w);
        if (!eq || eq == c->s + i)
            return ierr(c, i, "expected NAME=value in a NOTE env line");
        char k[256], v[1024];
        size_t kn = (size_t)(eq - (c->s + i)), vn = w - kn - 1;
        if (kn >= sizeof k || vn >= sizeof v)
            return ierr(c, i, "environment entry too long");
        memcpy(k, c->s + i, kn);
        k[kn] = 0;
        memcpy(v, eq + 1, vn);
        v[vn] = 0;
        if (pmt_add_env(c->t, k, v))
            return ierr(c, i, "out of memory");
        i += w;
    }
    return 0;
}

static int probe_line(ictx *c)
{
    if (c->n == 0)
        return 0;
    if (has(c, 0, "NOTE ")) {
        if (has(c, 5, "env "))
            return env_note(c, 9);
        if (has(c, 5, "scenario ")) {
            char v[256];
            size_t vn = c->n - 14;
            if (vn == 0 || vn >= sizeof v || memchr(c->s + 14, ' ', vn))
                return ierr(c, 14, "expected one scenario name");
            memcpy(v, c->s + 14, vn);
            v[vn] = 0;
            if (pmt_add_meta(c->t, "scenario", v))
                return ierr(c, 0, "out of memory");
            return 0;
        }
        return note(c, c->s + 5, c->n - 5);
    }
    if (has(c, 0, "env "))
        return env_dict(c, 4);
    if (has(c, 0, "C>S ") || has(c, 0, "S>C ")) {
        pmt_side side = c->s[0] == 'C' ? PMT_CLIENT : PMT_SERVER;
        size_t i = 4;
        if (has(c, i, "b'") || has(c, i, "b\""))
            return data_line(c, i, side);
        /* the probe and the tap spell end of stream EOF / 'EOF' */
        if (c->n == i + 3 && has(c, i, "EOF"))
            return event(c, PMT_EV_EOF, side, NULL, 0);
        if (c->n == i + 5 && has(c, i, "'EOF'"))
            return event(c, PMT_EV_EOF, side, NULL, 0);
        if (side == PMT_SERVER && c->n == i + 7 && has(c, i, "TIMEOUT"))
            return event(c, PMT_EV_TIMEOUT, side, NULL, 0);
        if (side == PMT_CLIENT && has(c, i, "SENDERR"))
            return note(c, c->s, c->n); /* the write failed: no bytes went out */
        return ierr(c, i, "expected a bytes literal, EOF, 'EOF', TIMEOUT or SENDERR");
    }
    if (has(c, 0, "S>C(drain) ")) {
        /* a final non-blocking read: bytes are server data, b'' is "nothing pending" */
        if (has(c, 11, "b''") && c->n == 14)
            return note(c, c->s, c->n);
        if (note(c, "drain", 5))
            return -1;
        return data_line(c, 11, PMT_SERVER);
    }
    if (is_exactly(c, "EOF")) /* the client's read saw the server close */
        return event(c, PMT_EV_EOF, PMT_SERVER, NULL, 0);
    if (is_exactly(c, "done") || has(c, 0, "EXC "))
        return note(c, c->s, c->n);
    return ierr(c, 0,
                "expected a transcript line: C>S, S>C, S>C(drain), NOTE, env, EOF, EXC or done");
}

/* strace: PID  write(FD, "...", N) = R  /  read(FD, "...", N) = R */
static int cstring(ictx *c, size_t *i, char *out, size_t *olen)
{
    if (*i >= c->n || c->s[*i] != '"')
        return ierr(c, *i, "expected '\"'");
    size_t o = 0;
    for (size_t j = *i + 1; j < c->n; j++) {
        unsigned char ch = (unsigned char)c->s[j];
        if (ch == '"') {
            *olen = o;
            *i = j + 1;
            if (has(c, *i, "..."))
                return ierr(c, *i, "strace shortened this string (-s): its bytes are incomplete");
            return 0;
        }
        if (ch != '\\') {
            out[o++] = (char)ch;
            continue;
        }
        if (j + 1 >= c->n)
            break;
        char e = c->s[++j];
        switch (e) {
        case 'n': out[o++] = '\n'; break;
        case 't': out[o++] = '\t'; break;
        case 'r': out[o++] = '\r'; break;
        case 'v': out[o++] = '\v'; break;
        case 'f': out[o++] = '\f'; break;
        case '\\': out[o++] = '\\'; break;
        case '"': out[o++] = '"'; break;
        case 'x': {
            unsigned v = 0;
            size_t k = 0;
            while (k < 2 && j + 1 + k < c->n && strchr("0123456789abcdefABCDEF", c->s[j + 1 + k]) &&
                   c->s[j + 1 + k]) {
                char h = c->s[j + 1 + k];
                v = v * 16 + (unsigned)(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
                k++;
            }
            if (k != 2)
                return ierr(c, j - 1, "expected two hex digits after \\x");
            out[o++] = (char)v;
            j += 2;
            break;
        }
        default:
            if (e >= '0' && e <= '7') {
                unsigned v = 0;
                size_t k = 0;
                while (k < 3 && j + k < c->n && c->s[j + k] >= '0' && c->s[j + k] <= '7')
                    v = v * 8 + (unsigned)(c->s[j + k++] - '0');
                if (v > 255)
                    return ierr(c, j - 1, "octal escape above \\377");
                out[o++] = (char)v;
                j += k - 1;
                break;
            }
            return ierr(c, j - 1, "unknown escape in a strace string");
        }
    }
    return ierr(c, c->n, "expected the closing '\"'");
}

static int strace_line(ictx *c, int *fd)
{
    if (c->n == 0)
        return 0;
    size_t i = 0;
    while (i < c->n && c->s[i] >= '0' && c->s[i] <= '9')
        i++;
    while (i < c->n && c->s[i] == ' ')
        i++;
    bool wr = has(c, i, "write(");
    bool rd = has(c, i, "read(");
    if (!wr && !rd)
        return note(c, c->s + i, c->n - i); /* another syscall or a strace message */
    size_t call = i;
    i += wr ? 6 : 5;
    size_t at = i;
    long f;
    if (!number(c, &at, &f) || !has(c, at, ", "))
        return ierr(c, i, "expected the file descriptor and ', '");
    if (*fd < 0 && wr)
        *fd = (int)f;
    if (f != *fd)
        return note(c, c->s + call, c->n - call);
    i = at + 2;
    char *buf = malloc(c->n + 1);
    if (!buf)
        return ierr(c, 0, "out of memory");
    size_t blen = 0;
    if (cstring(c, &i, buf, &blen)) {
        free(buf);
        return -1;
    }
    unsigned long count = 0;
    long ret = 0;
    if (!has(c, i, ", ")) {
        free(buf);
        return ierr(c, i, "expected ', ' and the byte count");
    }
    i += 2;
    size_t at2 = i;
    long cnt;
    if (!number(c, &at2, &cnt) || cnt < 0 || at2 >= c->n || c->s[at2] != ')') {
        free(buf);
        return ierr(c, i, "expected the byte count and ')'");
    }
    count = (unsigned long)cnt;
    i = at2 + 1;
    while (i < c->n && c->s[i] == ' ')
        i++;
    if (!has(c, i, "= ")) {
        free(buf);
        return ierr(c, i, "expected '= ' and the result");
    }
    i += 2;
    size_t at3 = i;
    if (!number(c, &at3, &ret)) {
        free(buf);
        return ierr(c, i, "expected the result of the call");
    }
    int rc = 0;
    if (ret < 0) {
        rc = note(c, c->s + call, c->n - call); /* failed call: no bytes moved */
    } else if (rd && ret == 0) {
        rc = event(c, PMT_EV_EOF, PMT_SERVER, NULL, 0);
    } else {
        /* write shows `count` bytes of which `ret` went out; read shows the `ret` received */
        size_t want = wr ? (size_t)count : (size_t)ret;
        if (blen != want)
            rc = ierr(c, call, "the string holds %zu bytes, the call says %zu", blen, want);
        else if ((size_t)ret > blen)
            rc = ierr(c, call, "result larger than the buffer");
        else
            rc = event(c, PMT_EV_DATA, wr ? PMT_CLIENT : PMT_SERVER, buf, (size_t)ret);
    }
    free(buf);
    return rc;
}

int pmt_import(pmt_import_flavour fl, const char *buf, size_t len, const pmt_import_opts *o,
               pmt_trace *t, pmt_error *e)
{
    pmt_error dummy;
    if (!e)
        e = &dummy;
    memset(e, 0, sizeof *e);
    ictx c = { .e = e, .t = t, .conn = (o && o->conn) ? o->conn : "r0" };
    int fd = o ? o->strace_fd : -1;
    if (fl == PMT_IMPORT_FLUX)
        return pmt_import_flux(buf, len, t, e);
    if (fl != PMT_IMPORT_PROBE && fl != PMT_IMPORT_STRACE) {
        snprintf(e->msg, sizeof e->msg, "unknown transcript flavour %d", (int)fl);
        return -1;
    }
    size_t pos = 0;
    while (pos < len) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;
        c.s = buf + pos;
        c.n = n;
        c.line++;
        pos += n + (nl ? 1 : 0);
        if (n && c.s[n - 1] == '\r')
            return ierr(&c, n - 1, "CR at the end of a transcript line");
        int rc = fl == PMT_IMPORT_PROBE ? probe_line(&c) : strace_line(&c, &fd);
        if (rc)
            return -1;
    }
    return 0;
}
