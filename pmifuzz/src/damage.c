/* Raw damage after encoding.  A v2 frame written by the encoder is one
 * 6-byte length field and a body (continuations are off), so the field's
 * place and value are known without parsing. */
#include "damage.h"

#include <stdio.h>
#include <string.h>

enum { LENF = 6 };

static bool is_v2(const pf_item *it, const pmc_out *o)
{
    return it->wire == PMC_WIRE_V2 && o->len > LENF;
}

/* Rewrite the length field with a printf format and a value ("%6u" etc.). */
static void put_field(pmc_out *o, const char *fmt, long v)
{
    char f[32];
    snprintf(f, sizeof f, fmt, v);
    size_t n = strlen(f);
    memset(o->buf, ' ', LENF);
    memcpy(o->buf, f, n < LENF ? n : LENF);
}

static void lenfield(const pf_item *it, pmc_out *o)
{
    long body = (long)(o->len - LENF);
    long k = 1 + (long)(it->arg2 % 8);
    switch (it->arg % PF_LEN__COUNT) {
    case PF_LEN_OVER: put_field(o, "%6ld", body + k); break;
    case PF_LEN_UNDER: put_field(o, "%6ld", body > k ? body - k : 0); break;
    case PF_LEN_LEFT: put_field(o, "%-6ld", body); break;
    case PF_LEN_ZERO: put_field(o, "%06ld", body); break;
    case PF_LEN_PLUS: put_field(o, "%+6ld", body); break;
    case PF_LEN_MINUS: put_field(o, "%6ld", -body); break;
    case PF_LEN_SPACES: /* "1 4   ": a space inside the digits */
        put_field(o, "%-6ld", body);
        if (o->buf[1] != ' ') {
            memmove(o->buf + 2, o->buf + 1, LENF - 2);
            o->buf[1] = ' ';
        }
        break;
    case PF_LEN_EMPTY: memset(o->buf, ' ', LENF); break;
    case PF_LEN_SHORT: put_field(o, "%6ld", (long)(it->arg2 % 6)); break;
    case PF_LEN_LARGE: put_field(o, "%6ld", (it->arg2 & 1) ? 999999L : 65537L); break;
    case PF_LEN_NONDIGIT: o->buf[it->arg2 % LENF] = "x;=\n\t"[it->arg2 % 5]; break;
    case PF_LEN_ATOI: /* "14ab  ": what atoi reads, and bytes after it */
        put_field(o, "%-6ld", body);
        for (int i = LENF - 1; i > 0 && o->buf[i] == ' '; i--)
            o->buf[i] = 'a';
        break;
    case PF_LEN_NUL: o->buf[it->arg2 % LENF] = '\0'; break;
    case PF_LEN_FIELD_CUT: o->len = 1 + it->arg2 % (LENF - 1); break;
    }
}

/* After inserting inside a v2 body, claim the new body length so the damage
 * reaches the body's parser instead of the framing. */
static void refit(const pf_item *it, pmc_out *o)
{
    if (is_v2(it, o))
        put_field(o, "%6ld", (long)(o->len - LENF));
}

static int insert(pmc_out *o, size_t at, const char *p, size_t n)
{
    if (pmc_out_reserve(o, n) != 0)
        return -1;
    memmove(o->buf + at + n, o->buf + at, o->len - at);
    memcpy(o->buf + at, p, n);
    o->len += n;
    return 0;
}

/* A position inside the body (after the length field, before the final
 * ';' or '\n'). */
static size_t body_pos(const pf_item *it, const pmc_out *o)
{
    size_t lo = is_v2(it, o) ? LENF : 0;
    size_t hi = o->len ? o->len - 1 : 0;
    return hi > lo ? lo + it->arg2 % (hi - lo) : lo;
}

int pf_damage_apply(const pf_item *it, pmc_out *o)
{
    if (!o->len)
        return 0;
    switch (it->dmg) {
    case PF_DMG_NONE:
        return 0;
    case PF_DMG_CUT:
        o->len = it->arg % o->len; /* a message cut at any point, even before its first byte */
        return 0;
    case PF_DMG_LENFIELD:
        if (is_v2(it, o))
            lenfield(it, o);
        else if (o->buf[o->len - 1] == '\n') /* a v1 line: CR before the LF */
            return insert(o, o->len - 1, "\r", 1);
        return 0;
    case PF_DMG_SEMIRUN: {
        char run[64];
        size_t n = 1 + it->arg % sizeof run;
        memset(run, it->wire == PMC_WIRE_V2 ? ';' : (it->arg & 64 ? '\\' : ' '), n);
        if (insert(o, body_pos(it, o), run, n) != 0)
            return -1;
        refit(it, o);
        return 0;
    }
    case PF_DMG_BYTES: {
        static const char *const bits[] = { "=", ";", " ", "\n", "\r", "", "\\", "==", "=;",
                                            ";=", "\\ ", "cmd=", "\r\n", "\xff" };
        const char *b = bits[it->arg % (sizeof bits / sizeof *bits)];
        size_t n = (it->arg % (sizeof bits / sizeof *bits)) == 5 ? 1 : strlen(b); /* NUL */
        if (insert(o, body_pos(it, o), b, n) != 0)
            return -1;
        refit(it, o);
        return 0;
    }
    case PF_DMG_JUNK: {
        char junk[16];
        size_t n = 1 + it->arg % sizeof junk;
        for (size_t i = 0; i < n; i++)
            junk[i] = "ab\0;= x"[(it->arg2 + i) % 7];
        size_t at = is_v2(it, o) ? o->len : o->len - 1;
        if (insert(o, at, junk, n) != 0)
            return -1;
        if (it->arg & 32)
            refit(it, o); /* MPICH 4.0.2's bug: the length claims the junk too */
        return 0;
    }
    }
    return 0;
}
