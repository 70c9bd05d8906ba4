/* Escaping of byte strings in trace files: any byte value survives a
 * write/read round trip, and the common ones stay readable. */
#include "pmitrace/trace.h"

#include <stdio.h>
#include <string.h>

static const char hexd[] = "0123456789abcdef";

/* The escaped form of one byte; returns its length (1, 2 or 4). */
static size_t esc1(unsigned char c, char tmp[4])
{
    switch (c) {
    case '\n': tmp[0] = '\\'; tmp[1] = 'n'; return 2;
    case '\r': tmp[0] = '\\'; tmp[1] = 'r'; return 2;
    case '\t': tmp[0] = '\\'; tmp[1] = 't'; return 2;
    case '\\': tmp[0] = '\\'; tmp[1] = '\\'; return 2;
    case '"': tmp[0] = '\\'; tmp[1] = '"'; return 2;
    default:
        break;
    }
    if (c >= 0x20 && c <= 0x7e) {
        tmp[0] = (char)c;
        return 1;
    }
    tmp[0] = '\\';
    tmp[1] = 'x';
    tmp[2] = hexd[c >> 4];
    tmp[3] = hexd[c & 15];
    return 4;
}

size_t pmt_escaped_len(const void *buf, size_t len)
{
    const unsigned char *p = buf;
    char tmp[4];
    size_t need = 0;
    for (size_t i = 0; i < len; i++)
        need += esc1(p[i], tmp);
    return need;
}

size_t pmt_escape(const void *buf, size_t len, char *out, size_t n)
{
    const unsigned char *p = buf;
    char tmp[4];
    size_t need = 0, wrote = 0;
    bool full = false; /* once an escape does not fit, nothing after it is written */
    for (size_t i = 0; i < len; i++) {
        size_t k = esc1(p[i], tmp);
        if (!full && n && need + k <= n - 1) {
            memcpy(out + need, tmp, k);
            wrote = need + k;
        } else {
            full = true;
        }
        need += k;
    }
    if (n)
        out[wrote] = 0;
    return need;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int fail(size_t *errpos, size_t pos, char *err, size_t errlen, const char *msg)
{
    if (errpos)
        *errpos = pos;
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
    return -1;
}

int pmt_unescape(const char *s, size_t len, char *out, size_t *outlen, size_t *errpos,
                 char *err, size_t errlen)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"')
            return fail(errpos, i, err, errlen, "unescaped '\"' inside a string (write \\\")");
        if (c < 0x20 || c > 0x7e)
            return fail(errpos, i, err, errlen,
                        "raw control or non-ASCII byte inside a string (write \\xNN)");
        if (c != '\\') {
            out[o++] = (char)c;
            continue;
        }
        if (i + 1 >= len)
            return fail(errpos, i, err, errlen, "backslash at the end of a string");
        char e = s[++i];
        switch (e) {
        case 'n': out[o++] = '\n'; break;
        case 'r': out[o++] = '\r'; break;
        case 't': out[o++] = '\t'; break;
        case '\\': out[o++] = '\\'; break;
        case '"': out[o++] = '"'; break;
        case 'x': {
            int h = i + 1 < len ? hexval(s[i + 1]) : -1;
            int l = i + 2 < len ? hexval(s[i + 2]) : -1;
            if (h < 0 || l < 0)
                return fail(errpos, i - 1, err, errlen, "expected two hex digits after \\x");
            out[o++] = (char)(h * 16 + l);
            i += 2;
            break;
        }
        default:
            return fail(errpos, i - 1, err, errlen,
                        "unknown escape (expected \\n \\r \\t \\\\ \\\" or \\xNN)");
        }
    }
    *outlen = o;
    return 0;
}
