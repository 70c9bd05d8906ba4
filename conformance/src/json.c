/* JSON: string output for the reports, and a small reader for baselines.
 * The reader accepts RFC 8259 documents, bounds nesting, and never aborts
 * on bad input: it returns NULL with a message naming the byte offset. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

void pcf_json_str(FILE *f, const char *s, size_t len)
{
    fputc('"', f);
    for (size_t i = 0; i < len;) {
        unsigned char ch = (unsigned char)s[i];
        unsigned cp;
        size_t k = pcf_utf8_seq(s + i, len - i, &cp);
        if (k == 0) { /* a byte, not text: surrogateescape, never a code point of text */
            fprintf(f, "\\u%04x", 0xdc00u | ch);
            i++;
            continue;
        }
        switch (cp) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            /* controls (C0, DEL, C1) and the JavaScript line breaks escaped:
             * a reader sees them; the rest is text as itself */
            if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0x2028 || cp == 0x2029)
                fprintf(f, "\\u%04x", cp);
            else
                fwrite(s + i, 1, k, f);
        }
        i += k;
    }
    fputc('"', f);
}

void pcf_json_cstr(FILE *f, const char *s)
{
    pcf_json_str(f, s ? s : "", s ? strlen(s) : 0);
}

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

struct pcf_jv {
    jtype t;
    char *s;         /* J_STR */
    double num;
    bool b;
    char **keys;     /* J_OBJ */
    pcf_jv **items;  /* J_ARR, J_OBJ */
    size_t n;
};

typedef struct jp {
    const char *p, *end, *start;
    char *err;
    size_t errlen;
    int depth;
} jp;

static void ws(jp *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static pcf_jv *fail(jp *j, const char *what)
{
    if (j->err && !j->err[0])
        snprintf(j->err, j->errlen, "offset %zu: %s", (size_t)(j->p - j->start), what);
    return NULL;
}

static void put_utf8(char *o, size_t *k, unsigned cp)
{
    if (cp < 0x80) {
        o[(*k)++] = (char)cp;
    } else if (cp < 0x800) {
        o[(*k)++] = (char)(0xC0 | cp >> 6);
        o[(*k)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        o[(*k)++] = (char)(0xE0 | cp >> 12);
        o[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[(*k)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        o[(*k)++] = (char)(0xF0 | cp >> 18);
        o[(*k)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        o[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[(*k)++] = (char)(0x80 | (cp & 0x3F));
    }
}

/* The 4 hex digits after "\u"; -1 when they are not. */
static long hex4(jp *j)
{
    if (j->end - j->p < 4)
        return -1;
    long cp = 0;
    for (int i = 0; i < 4; i++) {
        char h = *j->p++;
        cp <<= 4;
        if (h >= '0' && h <= '9')
            cp |= h - '0';
        else if ((h | 0x20) >= 'a' && (h | 0x20) <= 'f')
            cp |= (h | 0x20) - 'a' + 10;
        else
            return -1;
    }
    return cp;
}

/* A \u escape (j->p after the 'u') into o: a code point as UTF-8, a
 * surrogate pair as the one it makes; \udc80-\udcff alone as the byte
 * pcf_json_str escaped so; any other lone surrogate as U+FFFD.  -1: bad. */
static int unicode_escape(jp *j, char *o, size_t *k)
{
    long cp = hex4(j);
    if (cp < 0)
        return -1;
    if (cp >= 0xd800 && cp <= 0xdbff && j->end - j->p >= 6 && j->p[0] == '\\' &&
        j->p[1] == 'u') {
        const char *back = j->p;
        j->p += 2;
        long lo = hex4(j);
        if (lo >= 0xdc00 && lo <= 0xdfff) {
            put_utf8(o, k, 0x10000 + (((unsigned)cp - 0xd800) << 10) + ((unsigned)lo - 0xdc00));
            return 0;
        }
        j->p = back; /* not a pair: the next escape stands alone */
    }
    if (cp >= 0xdc80 && cp <= 0xdcff)
        o[(*k)++] = (char)(cp & 0xff);
    else if (cp >= 0xd800 && cp <= 0xdfff)
        put_utf8(o, k, 0xfffd);
    else
        put_utf8(o, k, (unsigned)cp);
    return 0;
}

static char *parse_string(jp *j)
{
    if (j->p >= j->end || *j->p != '"') {
        fail(j, "expected a string");
        return NULL;
    }
    j->p++;
    const char *s = j->p;
    size_t cap = 16;
    for (const char *q = s; q < j->end && *q != '"'; q++, cap++)
        if (*q == '\\' && q + 1 < j->end) /* an escaped '"' does not end the string */
            q++, cap++;
    char *o = malloc(cap * 3 + 1);
    if (!o) {
        fail(j, "out of memory");
        return NULL;
    }
    size_t k = 0;
    while (j->p < j->end && *j->p != '"') {
        unsigned char ch = (unsigned char)*j->p++;
        if (ch < 0x20) {
            free(o);
            fail(j, "control character in a string");
            return NULL;
        }
        if (ch != '\\') {
            o[k++] = (char)ch;
            continue;
        }
        if (j->p >= j->end)
            break;
        char e = *j->p++;
        switch (e) {
        case '"': o[k++] = '"'; break;
        case '\\': o[k++] = '\\'; break;
        case '/': o[k++] = '/'; break;
        case 'b': o[k++] = '\b'; break;
        case 'f': o[k++] = '\f'; break;
        case 'n': o[k++] = '\n'; break;
        case 'r': o[k++] = '\r'; break;
        case 't': o[k++] = '\t'; break;
        case 'u':
            if (unicode_escape(j, o, &k) != 0) {
                free(o);
                fail(j, "bad \\u escape");
                return NULL;
            }
            break;
        default:
            free(o);
            fail(j, "unknown escape");
            return NULL;
        }
    }
    if (j->p >= j->end) {
        free(o);
        fail(j, "unterminated string");
        return NULL;
    }
    j->p++;
    o[k] = 0;
    return o;
}

static pcf_jv *parse_value(jp *j);

static int push(pcf_jv *v, char *key, pcf_jv *item)
{
    pcf_jv **ni = realloc(v->items, (v->n + 1) * sizeof *ni);
    if (!ni)
        return -1;
    v->items = ni;
    if (v->t == J_OBJ) {
        char **nk = realloc(v->keys, (v->n + 1) * sizeof *nk);
        if (!nk)
            return -1;
        v->keys = nk;
        v->keys[v->n] = key;
    }
    v->items[v->n++] = item;
    return 0;
}

static pcf_jv *parse_container(jp *j, jtype t)
{
    char close = t == J_OBJ ? '}' : ']';
    pcf_jv *v = calloc(1, sizeof *v);
    if (!v)
        return fail(j, "out of memory");
    v->t = t;
    j->p++;
    ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        return v;
    }
    for (;;) {
        char *key = NULL;
        ws(j);
        if (t == J_OBJ) {
            key = parse_string(j);
            if (!key)
                goto bad;
            ws(j);
            if (j->p >= j->end || *j->p != ':') {
                free(key);
                fail(j, "expected ':'");
                goto bad;
            }
            j->p++;
        }
        pcf_jv *item = parse_value(j);
        if (!item || push(v, key, item) != 0) {
            free(key);
            pcf_json_free(item);
            goto bad;
        }
        ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->end && *j->p == close) {
            j->p++;
            return v;
        }
        fail(j, t == J_OBJ ? "expected ',' or '}'" : "expected ',' or ']'");
        goto bad;
    }
bad:
    pcf_json_free(v);
    return NULL;
}

static pcf_jv *parse_value(jp *j)
{
    ws(j);
    if (j->p >= j->end)
        return fail(j, "unexpected end of input");
    if (++j->depth > 64)
        return fail(j, "nesting too deep");
    pcf_jv *v = NULL;
    char ch = *j->p;
    if (ch == '{' || ch == '[') {
        v = parse_container(j, ch == '{' ? J_OBJ : J_ARR);
    } else if (ch == '"') {
        char *s = parse_string(j);
        if (s && !(v = calloc(1, sizeof *v)))
            free(s);
        if (v) {
            v->t = J_STR;
            v->s = s;
        }
    } else if (ch == 't' || ch == 'f' || ch == 'n') {
        const char *w = ch == 't' ? "true" : ch == 'f' ? "false" : "null";
        size_t wl = strlen(w);
        if ((size_t)(j->end - j->p) < wl || memcmp(j->p, w, wl) != 0)
            return fail(j, "unknown literal");
        j->p += wl;
        if ((v = calloc(1, sizeof *v))) {
            v->t = ch == 'n' ? J_NULL : J_BOOL;
            v->b = ch == 't';
        }
    } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
        char buf[64];
        size_t k = 0;
        while (j->p < j->end && k + 1 < sizeof buf && strchr("+-.eE0123456789", *j->p))
            buf[k++] = *j->p++;
        buf[k] = 0;
        char *e;
        double d = strtod(buf, &e);
        if (*e)
            return fail(j, "bad number");
        if ((v = calloc(1, sizeof *v))) {
            v->t = J_NUM;
            v->num = d;
        }
    } else {
        return fail(j, "unexpected character");
    }
    j->depth--;
    return v;
}

pcf_jv *pcf_json_parse(const char *text, size_t len, char *err, size_t errlen)
{
    jp j = { .p = text, .end = text + len, .start = text, .err = err, .errlen = errlen };
    if (err && errlen)
        err[0] = 0;
    pcf_jv *v = parse_value(&j);
    if (!v) {
        if (err && errlen && !err[0])
            snprintf(err, errlen, "offset %zu: malformed JSON", (size_t)(j.p - text));
        return NULL;
    }
    ws(&j);
    if (j.p != j.end) {
        fail(&j, "trailing bytes after the document");
        pcf_json_free(v);
        return NULL;
    }
    return v;
}

void pcf_json_free(pcf_jv *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        pcf_json_free(v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->s);
    free(v);
}

const pcf_jv *pcf_json_get(const pcf_jv *obj, const char *key)
{
    if (!obj || obj->t != J_OBJ)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return obj->items[i];
    return NULL;
}

size_t pcf_json_count(const pcf_jv *obj)
{
    return obj && (obj->t == J_OBJ || obj->t == J_ARR) ? obj->n : 0;
}

const pcf_jv *pcf_json_member(const pcf_jv *obj, size_t i, const char **key)
{
    if (!obj || i >= pcf_json_count(obj))
        return NULL;
    if (key)
        *key = obj->t == J_OBJ ? obj->keys[i] : NULL;
    return obj->items[i];
}

double pcf_json_number(const pcf_jv *v)
{
    return v && v->t == J_NUM ? v->num : 0;
}

const char *pcf_json_string(const pcf_jv *v)
{
    return v && v->t == J_STR ? v->s : NULL;
}
