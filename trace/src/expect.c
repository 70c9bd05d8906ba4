/* "@expect <dir> <kind> <name>": what a trace is known to contain. */
#include "pmitrace/trace.h"

#include <string.h>

const char *pmt_expect_kind_name(pmt_expect_kind k)
{
    switch (k) {
    case PMT_X_NOTE: return "note";
    case PMT_X_ERROR: return "error";
    case PMT_X_VALIDATE: return "validate";
    }
    return "?";
}

/* Next whitespace-separated token at *i; returns its length (0 at the end). */
static size_t token(const char *s, size_t *i)
{
    while (s[*i] == ' ' || s[*i] == '\t')
        (*i)++;
    size_t n = strcspn(s + *i, " \t");
    return n;
}

static int bad(size_t at, size_t *pos, char *err, size_t errlen, const char *msg)
{
    if (pos)
        *pos = at;
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
    return -1;
}

int pmt_expect_parse(const char *text, pmt_expect *x, size_t *pos, char *err, size_t errlen)
{
    size_t i = 0, n;
    memset(x, 0, sizeof *x);

    n = token(text, &i);
    if (n == 3 && memcmp(text + i, "C>S", 3) == 0)
        x->from = PMT_CLIENT;
    else if (n == 3 && memcmp(text + i, "S>C", 3) == 0)
        x->from = PMT_SERVER;
    else
        return bad(i, pos, err, errlen, "expected the stream: C>S or S>C");
    i += n;

    n = token(text, &i);
    if (n == 4 && memcmp(text + i, "note", 4) == 0)
        x->kind = PMT_X_NOTE;
    else if (n == 5 && memcmp(text + i, "error", 5) == 0)
        x->kind = PMT_X_ERROR;
    else if (n == 8 && memcmp(text + i, "validate", 8) == 0)
        x->kind = PMT_X_VALIDATE;
    else
        return bad(i, pos, err, errlen, "expected what: note, error or validate");
    i += n;

    n = token(text, &i);
    if (n == 0)
        return bad(i, pos, err, errlen,
                   "expected a name (a note such as trailing-junk, or a code such as E_LEN_SIGN)");
    if (n >= sizeof x->name)
        return bad(i, pos, err, errlen, "name too long");
    for (size_t k = 0; k < n; k++) {
        char c = text[i + k];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return bad(i + k, pos, err, errlen, "names are made of [-_A-Za-z0-9]");
    }
    if (x->kind != PMT_X_NOTE && (n < 3 || memcmp(text + i, "E_", 2) != 0))
        return bad(i, pos, err, errlen, "expected an error code name such as E_UNTERMINATED");
    memcpy(x->name, text + i, n);
    x->name[n] = 0;
    i += n;

    n = token(text, &i);
    if (n != 0)
        return bad(i, pos, err, errlen, "expected the end of the line (or a '#' comment)");
    return 0;
}
