/* Framing decisions made in C, as real servers make them: which protocol a
 * message is in, and the PMI-2 six-byte length field. */
#include "internal.h"

pmc_wire pmc_classify(const char *p, size_t len)
{
    static const char v1[] = "cmd=", mc[] = "mcmd=";
    /* A v2 frame starts with a digit or a space: decide on the first byte. */
    if (len && p[0] != 'c' && p[0] != 'm')
        return PMC_WIRE_V2;
    if (len >= 4 && memcmp(p, v1, 4) == 0) /* constant sizes: plain compares */
        return PMC_WIRE_V1;
    if (len >= 5 && memcmp(p, mc, 5) == 0)
        return PMC_WIRE_V1_MCMD;
    /* a short prefix of either could still become it */
    if ((len < 4 && memcmp(p, v1, len) == 0) || (len < 5 && memcmp(p, mc, len) == 0))
        return PMC_WIRE_NONE;
    return PMC_WIRE_V2;
}

/* The length as C's atoi() reads the six bytes (PMC_DEC_LEN_ATOI): leading
 * white space, an optional sign, digits, anything after them ignored.  -1
 * when that gives no digits or a negative number, which stay errors. */
static long atoi_length(const char *f)
{
    int i = 0;
    while (i < 6 && (f[i] == ' ' || (f[i] >= '\t' && f[i] <= '\r')))
        i++;
    if (i < 6 && (f[i] == '+' || f[i] == '-')) {
        if (f[i] == '-')
            return -1;
        i++;
    }
    long v = -1;
    for (; i < 6 && f[i] >= '0' && f[i] <= '9'; i++)
        v = (v < 0 ? 0 : v * 10) + (f[i] - '0');
    return v;
}

static long strict_length(const char *f, uint64_t off, const pmc_limits *lim, uint32_t *notes,
                          pmc_error *err);

long pmc_frame_length(const char *f, uint64_t off, const pmc_limits *lim, uint32_t flags,
                      uint32_t *notes, pmc_error *err)
{
    long v = strict_length(f, off, lim, notes, err);
    if (v >= 0 || !(flags & PMC_DEC_LEN_ATOI))
        return v;
    /* The strict reading failed: keep its error unless atoi finds a usable
     * length, as real parsers do ("   +14" is 14 to all of them). */
    long a = atoi_length(f);
    if (a < 6 || (uint64_t)a > lim->max_frame)
        return -1;
    pmc_error_clear(err);
    *notes |= PMC_NOTE_LEN_ATOI;
    return a;
}

static long strict_length(const char *f, uint64_t off, const pmc_limits *lim, uint32_t *notes,
                          pmc_error *err)
{
    /* Accepted: optional spaces, digits, optional spaces ("    14", "14    ",
     * "000014", " 14   ").  Canonical is right-justified without leading
     * zeros, as "%6u" writes it. */
    /* Fast path: the canonical "%6u" form, spaces then digits to the end
     * with no leading zero. */
    {
        int i = 0;
        while (i < 5 && f[i] == ' ')
            i++;
        if (f[i] != '0') {
            long v = 0;
            for (; i < 6 && f[i] >= '0' && f[i] <= '9'; i++)
                v = v * 10 + (f[i] - '0');
            if (i == 6 && v >= 6 && (uint64_t)v <= lim->max_frame)
                return v;
        }
    }
    int i = 0, first_digit = -1, last_digit = -1;
    long v = 0;
    for (i = 0; i < 6; i++) {
        unsigned char c = (unsigned char)f[i];
        if (c >= '0' && c <= '9') {
            if (last_digit >= 0 && last_digit != i - 1) {
                pmc_error_set(err, PMC_E_LEN_SPACES, off + (uint64_t)i,
                              "space between digits in the length field \"%.6s\"", f);
                err->fatal = true;
                return -1;
            }
            if (first_digit < 0)
                first_digit = i;
            last_digit = i;
            v = v * 10 + (c - '0');
        } else if (c == ' ') {
            continue;
        } else if (c == '-' || c == '+') {
            pmc_error_set(err, PMC_E_LEN_SIGN, off + (uint64_t)i,
                          "sign '%c' in the length field; expected 6 bytes of digits and spaces", c);
            err->fatal = true;
            return -1;
        } else {
            pmc_error_set(err, PMC_E_LEN_SYNTAX, off + (uint64_t)i,
                          "byte 0x%02x in the length field; expected 6 bytes of digits and spaces",
                          c);
            err->fatal = true;
            return -1;
        }
    }
    if (first_digit < 0) {
        pmc_error_set(err, PMC_E_LEN_EMPTY, off, "length field has no digits");
        err->fatal = true;
        return -1;
    }
    uint32_t n = 0;
    if (last_digit < 5)
        n |= PMC_NOTE_LEN_LEFT;
    if (f[first_digit] == '0' && last_digit > first_digit)
        n |= PMC_NOTE_LEN_ZERO;
    if (v < 6) {
        pmc_error_set(err, PMC_E_LEN_SHORT, off + (uint64_t)first_digit,
                      "length %ld is below the shortest body \"cmd=x;\" (6)", v);
        err->fatal = true;
        return -1;
    }
    if ((uint64_t)v > lim->max_frame) {
        pmc_error_set(err, PMC_E_LEN_LARGE, off + (uint64_t)first_digit,
                      "length %ld is above the maximum frame of %u bytes", v, lim->max_frame);
        err->fatal = true;
        return -1;
    }
    *notes |= n;
    return v;
}
