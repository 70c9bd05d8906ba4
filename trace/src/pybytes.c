/* Python bytes literals as the capture scripts printed them (repr of a
 * bytes object): b'...' or b"...", escapes \\ \' \" \a \b \f \n \r \t \v
 * \xHH and octal \ooo.  Every byte is recovered exactly. */
#include "pmitrace/trace.h"

#include <string.h>

static int fail(size_t *errpos, size_t at, char *err, size_t errlen, const char *msg)
{
    if (errpos)
        *errpos = at;
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
    return -1;
}

static int hexv(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int pmt_pybytes(const char *s, size_t len, char *out, size_t *outlen, size_t *used,
                size_t *errpos, char *err, size_t errlen)
{
    if (len < 1 || s[0] != 'b')
        return fail(errpos, 0, err, errlen, "expected a Python bytes literal (b'...')");
    if (len < 2 || (s[1] != '\'' && s[1] != '"'))
        return fail(errpos, 1, err, errlen, "expected ' or \" after b");
    char q = s[1];
    size_t o = *outlen;
    for (size_t i = 2; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == (unsigned char)q) {
            *outlen = o;
            *used = i + 1;
            return 0;
        }
        if (c < 0x20 || c > 0x7e)
            return fail(errpos, i, err, errlen,
                        "control or non-ASCII byte in a bytes literal (repr escapes those)");
        if (c != '\\') {
            out[o++] = (char)c;
            continue;
        }
        if (i + 1 >= len)
            break;
        char e = s[++i];
        switch (e) {
        case '\\': out[o++] = '\\'; break;
        case '\'': out[o++] = '\''; break;
        case '"': out[o++] = '"'; break;
        case 'a': out[o++] = '\a'; break;
        case 'b': out[o++] = '\b'; break;
        case 'f': out[o++] = '\f'; break;
        case 'n': out[o++] = '\n'; break;
        case 'r': out[o++] = '\r'; break;
        case 't': out[o++] = '\t'; break;
        case 'v': out[o++] = '\v'; break;
        case 'x': {
            int h = i + 1 < len ? hexv(s[i + 1]) : -1;
            int l = i + 2 < len ? hexv(s[i + 2]) : -1;
            if (h < 0 || l < 0)
                return fail(errpos, i - 1, err, errlen, "expected two hex digits after \\x");
            out[o++] = (char)(h * 16 + l);
            i += 2;
            break;
        }
        default:
            if (e >= '0' && e <= '7') {
                unsigned v = 0;
                size_t k = 0;
                while (k < 3 && i + k < len && s[i + k] >= '0' && s[i + k] <= '7')
                    v = v * 8 + (unsigned)(s[i + k++] - '0');
                if (v > 255)
                    return fail(errpos, i - 1, err, errlen, "octal escape above \\377");
                out[o++] = (char)v;
                i += k - 1;
                break;
            }
            return fail(errpos, i - 1, err, errlen,
                        "unknown escape in a bytes literal (expected \\\\ \\' \\\" \\n \\r \\t "
                        "\\xNN ...)");
        }
    }
    return fail(errpos, len, err, errlen, "expected the closing quote of the bytes literal");
}
