/* UTF-8 as the reports read it: wire bytes are bytes, but the quoted
 * requirements and most answers are text, and a report shows valid text as
 * itself and every other byte escaped (report_html.c, json.c). */
#include "internal.h"

size_t pcf_utf8_seq(const char *s, size_t n, unsigned *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    if (n == 0)
        return 0;
    if (u[0] < 0x80) {
        *cp = u[0];
        return 1;
    }
    size_t len;
    unsigned c, min;
    if (u[0] >= 0xc2 && u[0] <= 0xdf)
        len = 2, c = u[0] & 0x1f, min = 0x80;
    else if (u[0] >= 0xe0 && u[0] <= 0xef)
        len = 3, c = u[0] & 0x0f, min = 0x800;
    else if (u[0] >= 0xf0 && u[0] <= 0xf4)
        len = 4, c = u[0] & 0x07, min = 0x10000;
    else
        return 0; /* a continuation byte, C0/C1 (overlong), F5-FF */
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((u[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (u[i] & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0; /* overlong, past Unicode, a surrogate: not text */
    *cp = c;
    return len;
}
