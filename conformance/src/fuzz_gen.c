/* The fuzzer's inputs.  Each input is a pure function of (seed, index): a
 * private generator is seeded from both, so the same seed gives the same
 * inputs in any launch and a campaign resumes at any index.
 *
 * Every input starts from messages the codec's encoder built (grammar-aware:
 * real commands with plausible keys), then one family of damage is applied.
 * What the encoder cannot write on purpose (NUL, a bare ';' in a value, a
 * 100-byte key, a broken length field) is spliced into its output in place
 * of a placeholder token, and the six-byte length field is then rewritten
 * to match the damaged body unless the length itself is the target. */
#include "fuzz.h"
#include "pmitrace/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next(rng *r) /* splitmix64 */
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned below(rng *r, unsigned n)
{
    return n ? (unsigned)(next(r) % n) : 0;
}

static bool chance(rng *r, unsigned pct)
{
    return below(r, 100) < pct;
}

/* ---------------------------------------------------------------- messages */

enum { MAXP = 300 }; /* PMI-1 "pairs" inputs go past the 64-odd slots of a fixed table */

/* A message before encoding; values may be long (heap). */
typedef struct spec {
    pmc_wire wire;
    char cmd[80];
    int n;
    char key[MAXP][80];
    char *val[MAXP];
} spec;

static void spec_free(spec *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->val[i]);
    s->n = 0;
}

static void add(spec *s, const char *k, const char *v)
{
    if (s->n >= MAXP)
        return;
    char kk[80]; /* k may be one of s's own keys (a duplicate) */
    snprintf(kk, sizeof kk, "%s", k);
    memcpy(s->key[s->n], kk, sizeof kk);
    s->val[s->n] = strdup(v ? v : "");
    s->n++;
}

static void drop(spec *s, int i)
{
    free(s->val[i]);
    for (int j = i; j + 1 < s->n; j++) {
        memcpy(s->key[j], s->key[j + 1], sizeof s->key[j]);
        s->val[j] = s->val[j + 1];
    }
    s->n--;
}

static void setval(spec *s, int i, const char *v)
{
    free(s->val[i]);
    s->val[i] = strdup(v);
}

/* PMI-1 command number `which` with key k and value v. */
static void v1_cmd(spec *s, unsigned which, const fz_env *env, const char *k, const char *v)
{
    s->wire = PMC_WIRE_V1;
    switch (which) {
    case 0: snprintf(s->cmd, sizeof s->cmd, "get_maxes"); break;
    case 1: snprintf(s->cmd, sizeof s->cmd, "get_my_kvsname"); break;
    case 2: snprintf(s->cmd, sizeof s->cmd, "get_universe_size"); break;
    case 3: snprintf(s->cmd, sizeof s->cmd, "get_appnum"); break;
    case 4: snprintf(s->cmd, sizeof s->cmd, "put"); add(s, "kvsname", env->kvsname);
        add(s, "key", k); add(s, "value", v); break;
    case 5: snprintf(s->cmd, sizeof s->cmd, "get"); add(s, "kvsname", env->kvsname);
        add(s, "key", k); break;
    case 6: snprintf(s->cmd, sizeof s->cmd, "publish_name"); add(s, "service", k);
        add(s, "port", v); break;
    case 8: snprintf(s->cmd, sizeof s->cmd, "lookup_name"); add(s, "service", k); break;
    case 9: snprintf(s->cmd, sizeof s->cmd, "unpublish_name"); add(s, "service", k); break;
    default: snprintf(s->cmd, sizeof s->cmd, "init"); add(s, "pmi_version", "2");
        add(s, "pmi_subversion", "0"); break;
    }
}

/* The commands the fuzzer builds on.  None of them legitimately ends the
 * job or blocks for other ranks (no abort, finalize, spawn, fences,
 * barriers), so a correct server survives every valid input. */
static void base(rng *r, const fz_env *env, spec *s)
{
    char k[64], v[64];
    unsigned t = next(r) & 0xffff;
    snprintf(k, sizeof k, "fzk%u", t % 97);
    snprintf(v, sizeof v, "v%u", t);
    memset(s, 0, sizeof *s);
    s->wire = PMC_WIRE_V2;
    static const char *const jattr[] = { "PMI_process_mapping", "universeSize", "fzattr" };
    switch (below(r, 15)) {
    case 0: snprintf(s->cmd, sizeof s->cmd, "job-getid"); break;
    case 1: snprintf(s->cmd, sizeof s->cmd, "kvs-put"); add(s, "key", k); add(s, "value", v); break;
    case 2: snprintf(s->cmd, sizeof s->cmd, "kvs-get"); add(s, "jobid", env->kvsname);
        add(s, "key", k); break;
    case 3: snprintf(s->cmd, sizeof s->cmd, "info-getjobattr"); add(s, "key", jattr[below(r, 3)]); break;
    case 4: snprintf(s->cmd, sizeof s->cmd, "info-getnodeattr"); add(s, "key", k);
        add(s, "wait", "FALSE"); break;
    case 5: snprintf(s->cmd, sizeof s->cmd, "info-putnodeattr"); add(s, "key", k); add(s, "value", v); break;
    case 6: snprintf(s->cmd, sizeof s->cmd, "name-publish"); add(s, "name", k); add(s, "port", v); break;
    case 7: snprintf(s->cmd, sizeof s->cmd, "name-lookup"); add(s, "name", k); break;
    case 8: snprintf(s->cmd, sizeof s->cmd, "name-unpublish"); add(s, "name", k); break;
    default:
        /* PMI-1 lines: servers accept them on a PMI-2 connection too */
        v1_cmd(s, below(r, 8), env, k, v);
    }
}

/* The PMI-1 commands of a PMI-1 campaign (no init: the connection has had
 * its one, INIT-11). */
static void base_v1(rng *r, const fz_env *env, spec *s)
{
    static const unsigned pick[] = { 0, 1, 2, 3, 4, 4, 4, 5, 5, 6, 8, 9 };
    char k[64], v[64];
    unsigned t = next(r) & 0xffff;
    snprintf(k, sizeof k, "fzk%u", t % 97);
    snprintf(v, sizeof v, "v%u", t);
    memset(s, 0, sizeof *s);
    v1_cmd(s, pick[below(r, sizeof pick / sizeof pick[0])], env, k, v);
}

/* ---------------------------------------------------------------- splicing */

/* Placeholders the encoder accepts; replaced after encoding. */
#define PH_A "QzPhAzQ"
#define PH_B "QzPhBzQ"

typedef struct splice {
    const char *ph;
    char *bytes;
    size_t len;
} splice;

/* Replace the first occurrence of each placeholder in out. */
static int apply_splices(pmc_out *out, splice *sp, int nsp)
{
    for (int i = 0; i < nsp; i++) {
        if (!sp[i].ph)
            continue;
        size_t pl = strlen(sp[i].ph);
        char *at = NULL;
        for (size_t k = 0; k + pl <= out->len; k++)
            if (memcmp(out->buf + k, sp[i].ph, pl) == 0) {
                at = out->buf + k;
                break;
            }
        if (!at)
            continue;
        size_t off = (size_t)(at - out->buf), tail = out->len - off - pl;
        if (sp[i].len > pl && pmc_out_reserve(out, sp[i].len - pl))
            return -1;
        memmove(out->buf + off + sp[i].len, out->buf + off + pl, tail);
        memcpy(out->buf + off, sp[i].bytes, sp[i].len);
        out->len = off + sp[i].len + tail;
    }
    return 0;
}

/* The six-byte field of a v2 frame at `at`, right-aligned like Hydra. */
static void set_len(char *at, size_t body)
{
    char f[16];
    snprintf(f, sizeof f, "%6zu", body > 999999 ? (size_t)999999 : body);
    memcpy(at, f, 6);
}

/* Encode s (strict dialect unless d) and append to out; the v2 length is
 * fixed after splicing.  Returns the offset of the message in out, or -1. */
static long encode(spec *s, const pmc_dialect *d, splice *sp, int nsp, pmc_out *out)
{
    pmc_enc e;
    pmc_out one = { 0 };
    pmc_error err;
    pmc_enc_begin(&e, s->wire, s->cmd);
    for (int i = 0; i < s->n; i++)
        pmc_enc_str(&e, s->key[i], s->val[i]);
    if (pmc_enc_end(&e, d, &one, &err) != 0) {
        pmc_out_free(&one);
        return -1;
    }
    if (apply_splices(&one, sp, nsp)) {
        pmc_out_free(&one);
        return -1;
    }
    if (s->wire == PMC_WIRE_V2 && one.len >= 6)
        set_len(one.buf, one.len - 6);
    long at = (long)out->len;
    int rc = pmc_out_append(out, one.buf, one.len);
    pmc_out_free(&one);
    return rc ? -1 : at;
}

/* ---------------------------------------------------------------- damage */

static const char *const unknown_names[] = {
    "frobnicate", "kvs-frob", "job-getidd", "KVS-PUT", "concat", "spawn-cmd", "kvs-getall",
    "init_oob", "auth-response", "get_maxes2", "x", "cmd", "kvs_put", "info-get",
};

static void rand_letters(rng *r, char *b, size_t n)
{
    static const char al[] = "abcdefghijklmnopqrstuvwxyz-_0123456789";
    for (size_t i = 0; i + 1 < n; i++)
        b[i] = al[below(r, sizeof al - 1)];
    b[n - 1] = 0;
}

/* A value meant to hurt: returned on the heap, *len set; *ph tells whether
 * it must be spliced (the encoder would refuse it). */
static char *hostile_value(rng *r, size_t *len, bool *ph, char *what, size_t wn)
{
    *ph = false;
    char *v;
    switch (below(r, 11)) {
    case 0: snprintf(what, wn, "empty value"); v = strdup(""); break;
    case 1:
        *len = 1024 + below(r, 2) * 976; /* 1024 and 2000: around the 1023 limit */
        snprintf(what, wn, "value of %zu bytes", *len);
        v = malloc(*len + 1);
        if (v) {
            memset(v, 'V', *len);
            v[*len] = 0;
        }
        return v;
    case 2: snprintf(what, wn, "value with '='"); v = strdup("a=b=c"); break;
    case 3: snprintf(what, wn, "value with spaces"); v = strdup("a b  c"); break;
    case 4: snprintf(what, wn, "UTF-8 value"); v = strdup("\xc3\xa9t\xc3\xa9-\xe2\x82\xac"); break;
    case 5: snprintf(what, wn, "NUL inside the value"); *ph = true; *len = 3;
        v = malloc(4);
        if (v)
            memcpy(v, "a\0b", 4);
        return v;
    case 6: snprintf(what, wn, "unescaped ';' in the value"); *ph = true; v = strdup("a;b"); break;
    case 7: snprintf(what, wn, "value with a newline"); v = strdup("a\nb"); break;
    case 8: snprintf(what, wn, "invalid UTF-8 value"); *ph = true; v = strdup("\xff\xfe\x80"); break;
    case 9: snprintf(what, wn, "negative number"); v = strdup("-1"); break;
    default: snprintf(what, wn, "huge number"); v = strdup("99999999999999999999"); break;
    }
    if (v)
        *len = strlen(v);
    return v;
}

/* Damage one message spec (and plan splices).  Writes what it did to desc. */
static void damage_kv(rng *r, spec *s, splice *sp, int *nsp, char *desc, size_t dn)
{
    char what[80];
    unsigned k = below(r, 10);
    if (s->n == 0 && k < 6)
        k = 6 + below(r, 4);
    int i = s->n ? (int)below(r, (unsigned)s->n) : 0;
    switch (k) {
    case 0:
    case 1:
    case 2: {
        size_t len;
        bool ph;
        char *v = hostile_value(r, &len, &ph, what, sizeof what);
        if (!v)
            return;
        if (ph) {
            sp[*nsp] = (splice){ PH_A, v, len };
            (*nsp)++;
            setval(s, i, PH_A);
        } else {
            setval(s, i, v);
            free(v);
        }
        snprintf(desc, dn, "%s: %s of '%s'", s->cmd, what, s->key[i]);
        return;
    }
    case 3:
        snprintf(desc, dn, "%s: key '%s' missing", s->cmd, s->key[i]);
        drop(s, i);
        return;
    case 4:
        snprintf(desc, dn, "%s: key '%s' twice", s->cmd, s->key[i]);
        add(s, s->key[i], "second");
        return;
    case 5: {
        static const char *const kk[] = { "long", "empty", "space", "utf8", "bare" };
        unsigned w = below(r, 5);
        char *b = NULL;
        size_t bl = 0;
        if (w == 0) {
            bl = 100;
            b = malloc(bl);
            if (b)
                memset(b, 'K', bl);
        } else if (w == 1) {
            b = strdup("");
        } else if (w == 2) {
            b = strdup("k e y");
        } else if (w == 3) {
            b = strdup("k\xc3\xa9y");
        } else {
            /* a bare key: "flag;" with no '=' */
            b = strdup("flag;");
            bl = 5;
            sp[*nsp] = (splice){ PH_B "=;", b, bl };
            (*nsp)++;
            add(s, PH_B, "");
            snprintf(desc, dn, "%s: bare key (no '=')", s->cmd);
            return;
        }
        if (!b)
            return;
        if (!bl)
            bl = strlen(b);
        sp[*nsp] = (splice){ PH_B, b, bl };
        (*nsp)++;
        snprintf(s->key[i < s->n ? i : 0], sizeof s->key[0], "%s", PH_B);
        if (s->n == 0)
            add(s, PH_B, "x");
        snprintf(desc, dn, "%s: %s key", s->cmd, kk[w]);
        return;
    }
    case 6: {
        char name[16];
        rand_letters(r, name, sizeof name);
        snprintf(desc, dn, "%s: extra key '%s'", s->cmd, name);
        add(s, name, "x");
        return;
    }
    case 7:
        snprintf(desc, dn, "%s: every argument missing", s->cmd);
        while (s->n)
            drop(s, 0);
        return;
    case 8:
        if (s->n >= 2) {
            char tk[80];
            char *tv = s->val[0];
            memcpy(tk, s->key[0], sizeof tk);
            memcpy(s->key[0], s->key[s->n - 1], sizeof tk);
            s->val[0] = s->val[s->n - 1];
            memcpy(s->key[s->n - 1], tk, sizeof tk);
            s->val[s->n - 1] = tv;
            snprintf(desc, dn, "%s: arguments in another order", s->cmd);
            return;
        }
        /* fall through */
    default: {
        char v[24];
        snprintf(v, sizeof v, "%d", (int)below(r, 3) == 0 ? 99 : -(int)below(r, 5));
        const char *key = s->wire == PMC_WIRE_V1 ? "pmi_version" : "pmirank";
        snprintf(desc, dn, "%s: %s=%s", s->cmd, key, v);
        add(s, key, v);
        return;
    }
    }
}

/* Damage the bytes of an encoded v2 frame at `at` (length field, trailing
 * ';', cmd=, escapes). */
static void damage_frame(rng *r, pmc_out *o, size_t at, char *desc, size_t dn)
{
    char *f = o->buf + at;
    size_t body = o->len - at - 6;
    static const char *const fields[] = { "    -5", "abcdef", "     0", "000000", "999999",
                                          "  1e3 ", "+00014", "0x000e", "      ", "-00001",
                                          "   \t12", "\xff\xff\xff\xff\xff\xff" };
    char fld[24];
    switch (below(r, 8)) {
    case 0:
    case 1:
    case 2: {
        unsigned w = below(r, sizeof fields / sizeof fields[0] + 4);
        if (w < sizeof fields / sizeof fields[0]) {
            memcpy(f, fields[w], 6);
        } else {
            long d = w == 12 ? -1 : w == 13 ? 1 : w == 14 ? 6 : -6;
            long v = (long)body + d;
            snprintf(fld, sizeof fld, "%6ld", v < 0 ? 0 : v);
            memcpy(f, fld, 6);
        }
        char shown[32];
        pmt_escape(f, 6, shown, sizeof shown);
        snprintf(desc, dn, "length field '%s' for a %zu-byte body", shown, body);
        return;
    }
    case 3:
        snprintf(fld, sizeof fld, "%-6zu", body);
        memcpy(f, fld, 6);
        snprintf(desc, dn, "length field left-justified");
        return;
    case 4:
        if (body > 0 && f[6 + body - 1] == ';') {
            o->len--;
            set_len(f, body - 1);
            snprintf(desc, dn, "no trailing ';'");
            return;
        }
        /* fall through */
    case 5:
        if (body >= 4 && memcmp(f + 6, "cmd=", 4) == 0) {
            memcpy(f + 6, "key=", 4);
            snprintf(desc, dn, "first key is not cmd");
            return;
        }
        /* fall through */
    case 6:
        if (pmc_out_append(o, ";;", 2) == 0) {
            f = o->buf + at;
            set_len(f, body + 2);
            snprintf(desc, dn, "';;' after the last pair");
        }
        return;
    default:
        if (pmc_out_append(o, "x", 1) == 0) {
            f = o->buf + at;
            set_len(f, body + 1);
            snprintf(desc, dn, "a stray byte after the last ';'");
        }
        return;
    }
}

/* Damage the bytes of an encoded v1 line at `at`. */
static void damage_line(rng *r, pmc_out *o, size_t at, char *desc, size_t dn)
{
    size_t n = o->len - at;
    if (n < 2)
        return;
    char *l = o->buf + at;
    switch (below(r, 6)) {
    case 0:
        l[n - 1] = '\r';
        pmc_out_append(o, "\n", 1);
        snprintf(desc, dn, "CR before the LF");
        return;
    case 1: {
        /* every blank becomes five */
        pmc_out w = { 0 };
        for (size_t i = 0; i < n; i++) {
            if (i + 1 == n)
                pmc_out_append(&w, "    ", 4); /* and trailing blanks */
            pmc_out_append(&w, l[i] == ' ' ? "     " : &l[i], l[i] == ' ' ? 5 : 1);
        }
        o->len = at;
        pmc_out_append(o, w.buf, w.len);
        pmc_out_free(&w);
        snprintf(desc, dn, "many blanks between the pairs");
        return;
    }
    case 2: {
        pmc_out w = { 0 };
        pmc_out_append(&w, "   ", 3);
        pmc_out_append(&w, l, n);
        o->len = at;
        pmc_out_append(o, w.buf, w.len);
        pmc_out_free(&w);
        snprintf(desc, dn, "blanks before cmd=");
        return;
    }
    case 3:
        for (size_t i = 0; i < n; i++)
            if (l[i] == ' ')
                l[i] = '\t';
        snprintf(desc, dn, "tabs between the pairs");
        return;
    case 4:
        o->len = at;
        pmc_out_append(o, "\n", 1);
        snprintf(desc, dn, "an empty line");
        return;
    default:
        o->len = at;
        pmc_out_append(o, "cmd=\n", 5);
        snprintf(desc, dn, "cmd= with no command");
        return;
    }
}

/* ---------------------------------------------------------------- inputs */

static void fill(fz_input *in, pmc_out *o)
{
    in->buf = o->buf;
    in->len = o->len;
    o->buf = NULL;
}

/* One damaged message appended to o; desc says what. */
static int one_damaged(rng *r, const fz_env *env, unsigned fam, pmc_out *o, char *desc, size_t dn,
                       const char **family)
{
    spec s;
    splice sp[4] = { { 0 } };
    int nsp = 0;
    base(r, env, &s);
    long at = -1;
    switch (fam) {
    case 0: /* length field and frame bytes (v2) */
        if (s.wire != PMC_WIRE_V2 || s.n == 0) { /* a PMI-1 base: use a PMI-2 one */
            spec_free(&s);
            memset(&s, 0, sizeof s);
            s.wire = PMC_WIRE_V2;
            snprintf(s.cmd, sizeof s.cmd, "job-getid");
        }
        at = encode(&s, NULL, sp, nsp, o);
        if (at >= 0)
            damage_frame(r, o, (size_t)at, desc, dn);
        *family = "length";
        break;
    case 1: { /* ;; escapes */
        spec_free(&s);
        memset(&s, 0, sizeof s);
        s.wire = PMC_WIRE_V2;
        snprintf(s.cmd, sizeof s.cmd, "kvs-put");
        add(&s, "key", "fzsemi");
        add(&s, "value", below(r, 2) ? "a;b" : ";;;");
        at = encode(&s, pmc_dialect_get("draft"), sp, nsp, o); /* the draft doubles ';' */
        snprintf(desc, dn, "kvs-put with ';;' escapes in the value");
        *family = "escape";
        break;
    }
    case 2: /* keys and values */
        damage_kv(r, &s, sp, &nsp, desc, dn);
        at = encode(&s, NULL, sp, nsp, o);
        *family = "kv";
        break;
    case 3: { /* unknown commands */
        char name[24];
        if (chance(r, 60))
            snprintf(name, sizeof name, "%s", unknown_names[below(r, sizeof unknown_names / sizeof unknown_names[0])]);
        else
            rand_letters(r, name, 6 + below(r, 10));
        snprintf(s.cmd, sizeof s.cmd, "%s", name);
        at = encode(&s, NULL, sp, nsp, o);
        snprintf(desc, dn, "unknown %s command '%s'", s.wire == PMC_WIRE_V1 ? "PMI-1" : "PMI-2",
                 name);
        *family = "unknown";
        break;
    }
    default: /* PMI-1 line damage */
        if (s.wire != PMC_WIRE_V1) {
            spec_free(&s);
            memset(&s, 0, sizeof s);
            s.wire = PMC_WIRE_V1;
            snprintf(s.cmd, sizeof s.cmd, "get_maxes");
        }
        at = encode(&s, NULL, sp, nsp, o);
        if (at >= 0) {
            char d[120] = "";
            damage_line(r, o, (size_t)at, d, sizeof d);
            snprintf(desc, dn, "%s: %s", s.cmd, d);
        }
        *family = "v1";
        break;
    }
    for (int i = 0; i < nsp; i++)
        free(sp[i].bytes);
    spec_free(&s);
    if (at < 0) {
        /* the encoder refused the damaged spec: say so and send nothing odd */
        snprintf(desc, dn, "(encoder refused the mutation)");
        return -1;
    }
    return 0;
}

static int one_valid(rng *r, const fz_env *env, pmc_out *o, char *name, size_t nn)
{
    spec s;
    base(r, env, &s);
    snprintf(name, nn, "%s", s.cmd);
    long at = encode(&s, NULL, NULL, 0, o);
    spec_free(&s);
    return at < 0 ? -1 : 0;
}

/* ---------------------------------------------------------------- PMI-1 */

/* Put pair (k, v) at position i of s. */
static void insert_at(spec *s, int i, const char *k, const char *v)
{
    if (s->n >= MAXP)
        return;
    add(s, k, v);
    char tk[80];
    char *tv = s->val[s->n - 1];
    memcpy(tk, s->key[s->n - 1], sizeof tk);
    for (int j = s->n - 1; j > i; j--) {
        memcpy(s->key[j], s->key[j - 1], sizeof tk);
        s->val[j] = s->val[j - 1];
    }
    memcpy(s->key[i], tk, sizeof tk);
    s->val[i] = tv;
}

/* A line with many pairs: past the fixed pair tables of real servers. */
static void v1_pairs(rng *r, spec *s, char *desc, size_t dn)
{
    static const int counts[] = { 16, 63, 64, 65, 66, 67, 68, 100, 128, 256, 290 };
    int extra = counts[below(r, sizeof counts / sizeof counts[0])];
    for (int i = 0; i < extra; i++) {
        char k[16], v[16];
        snprintf(k, sizeof k, "fzp%d", i);
        snprintf(v, sizeof v, "x%d", i);
        add(s, k, v);
    }
    snprintf(desc, dn, "%s with %d extra pairs (%d pairs after cmd=)", s->cmd, extra, s->n);
}

/* A long line: a KVS key or value around and past the limits (LIMIT-*). */
static int v1_long(rng *r, const fz_env *env, spec *s, char *desc, size_t dn)
{
    static const size_t vals[] = { 1023, 1024, 1025, 2000, 4096, 8192, 70000 };
    static const size_t keys[] = { 64, 65, 100, 1000 };
    v1_cmd(s, 4, env, "fzlong", "x");
    bool key = chance(r, 30);
    size_t n = key ? keys[below(r, 4)] : vals[below(r, 7)];
    char *b = malloc(n + 1);
    if (!b)
        return -1;
    memset(b, key ? 'K' : 'V', n);
    b[n] = 0;
    setval(s, key ? 1 : 2, b);
    free(b);
    snprintf(desc, dn, "put with a %zu-byte %s", n, key ? "key" : "value");
    return 0;
}

/* A bare word (no '=', or an empty key) among the pairs (V1-7). */
static void v1_bare(rng *r, spec *s, splice *sp, int *nsp, char *desc, size_t dn)
{
    static const char *const words[] = { "fzbare", "=", "=fzv", "fz==v", "cmd=put", "x=" };
    const char *w = words[below(r, sizeof words / sizeof words[0])];
    int at = s->n ? (int)below(r, (unsigned)s->n + 1) : 0;
    /* the encoder writes "PH=" for the placeholder; the word replaces it */
    sp[*nsp] = (splice){ PH_B "=", strdup(w), strlen(w) };
    (*nsp)++;
    insert_at(s, at, PH_B, "");
    snprintf(desc, dn, "%s: the word '%s' before pair %d", s->cmd, w, at + 1);
}

/* abort with its exitcode missing or malformed (V1CMD-21): the job may
 * end, but only as an abort ends it. */
static void v1_abort(rng *r, spec *s, char *desc, size_t dn)
{
    static const char *const codes[] = { NULL, "junk", "", "-1", "99999999999999999999", "3x",
                                         "0x10" };
    memset(s, 0, sizeof *s);
    s->wire = PMC_WIRE_V1;
    snprintf(s->cmd, sizeof s->cmd, "abort");
    unsigned w = below(r, sizeof codes / sizeof codes[0]);
    if (codes[w])
        add(s, "exitcode", codes[w]);
    if (chance(r, 30))
        add(s, "msg", "fz");
    snprintf(desc, dn, "abort %s%s%s", codes[w] ? "exitcode='" : "without exitcode",
             codes[w] ? codes[w] : "", codes[w] ? "'" : "");
}

/* An mcmd=spawn block of a program that does not exist, damaged. */
static void v1_spawn(rng *r, spec *s, char *desc, size_t dn)
{
    memset(s, 0, sizeof *s);
    s->wire = PMC_WIRE_V1_MCMD;
    snprintf(s->cmd, sizeof s->cmd, "spawn");
    add(s, "nprocs", "1");
    add(s, "execname", "/nonexistent/pmi2-conform-fuzz");
    add(s, "totspawns", "1");
    add(s, "spawnssofar", "1");
    add(s, "argcnt", "0");
    add(s, "preput_num", "0");
    add(s, "info_num", "0");
    static const char *const bad[] = { "junk", "-1", "0", "100000", "" };
    unsigned k = below(r, 7);
    int i = (int)below(r, (unsigned)s->n);
    switch (k) {
    case 0:
        snprintf(desc, dn, "spawn block without %s", s->key[i]);
        drop(s, i);
        return;
    case 1:
    case 2: {
        const char *b = bad[below(r, sizeof bad / sizeof bad[0])];
        snprintf(desc, dn, "spawn block with %s='%s'", s->key[i], b);
        setval(s, i, b);
        return;
    }
    case 3:
        setval(s, 4, "2");
        snprintf(desc, dn, "spawn block announcing 2 arguments, giving none");
        return;
    case 4:
        setval(s, 5, "3");
        add(s, "preput_key_0", "fzk");
        snprintf(desc, dn, "spawn block announcing 3 preput pairs, giving half of one");
        return;
    case 5:
        add(s, "nprocs", "2");
        snprintf(desc, dn, "spawn block with nprocs twice");
        return;
    default:
        snprintf(desc, dn, "spawn block of a program that does not exist");
        return;
    }
}

enum { V1F_PAIRS, V1F_LONG, V1F_BARE, V1F_KV, V1F_UNKNOWN, V1F_LINE, V1F_SPAWN, V1F_ABORT,
       V1F_EOS };

/* One damaged PMI-1 message appended to o. */
static int one_damaged_v1(rng *r, const fz_env *env, unsigned fam, pmc_out *o, char *desc,
                          size_t dn, const char **family, bool *close_after)
{
    spec s;
    splice sp[4] = { { 0 } };
    int nsp = 0;
    base_v1(r, env, &s);
    long at = -1;
    switch (fam) {
    case V1F_PAIRS:
        v1_pairs(r, &s, desc, dn);
        *family = "pairs";
        break;
    case V1F_LONG:
        spec_free(&s);
        if (v1_long(r, env, &s, desc, dn))
            return -1;
        *family = "long";
        break;
    case V1F_BARE:
        v1_bare(r, &s, sp, &nsp, desc, dn);
        *family = "bare";
        break;
    case V1F_KV:
        damage_kv(r, &s, sp, &nsp, desc, dn);
        *family = "kv";
        break;
    case V1F_UNKNOWN: {
        char name[24];
        rand_letters(r, name, 6 + below(r, 10));
        unsigned nn = sizeof unknown_names / sizeof unknown_names[0];
        snprintf(s.cmd, sizeof s.cmd, "%s", chance(r, 60) ? unknown_names[below(r, nn)] : name);
        snprintf(desc, dn, "unknown PMI-1 command '%s'", s.cmd);
        *family = "unknown";
        break;
    }
    case V1F_SPAWN:
        spec_free(&s);
        v1_spawn(r, &s, desc, dn);
        *family = "spawn";
        break;
    case V1F_ABORT:
        spec_free(&s);
        v1_abort(r, &s, desc, dn);
        *family = "abort";
        break;
    default:
        break;
    }
    at = encode(&s, NULL, sp, nsp, o);
    if (at >= 0 && fam == V1F_LINE) {
        char d[120] = "";
        damage_line(r, o, (size_t)at, d, sizeof d);
        snprintf(desc, dn, "%s: %s", s.cmd, d);
        *family = "v1";
    }
    if (at >= 0 && fam == V1F_EOS) {
        /* the end of the stream inside a line: ERR-5 says close, nothing runs */
        o->len--;
        *close_after = true;
        snprintf(desc, dn, "%s without its newline, then the end of the stream", s.cmd);
        *family = "eos";
    }
    for (int i = 0; i < nsp; i++)
        free(sp[i].bytes);
    spec_free(&s);
    if (at < 0) {
        snprintf(desc, dn, "(encoder refused the mutation)");
        return -1;
    }
    return 0;
}

/* A PMI-1 campaign's input: one damaged line (pairs 14%, long lines 8%,
 * bare words 8%, keys/values 12%, unknown 5%, line damage 5%, spawn blocks
 * 4%, abort 2%, end of stream 2%), or a damaged line split, coalesced with
 * valid ones, or in a sequence.  abort, the end of stream and spawn (a
 * launcher may end the job when a spawned process fails, as Hydra and the
 * mock server's do) may end the job: never mixed with other lines, so the
 * campaign knows which input did (fuzz_campaign.c, may_end_job). */
static void gen_v1(rng *r, const fz_env *env, fz_input *in, pmc_out *o, const char **family)
{
    static const unsigned fams[] = { V1F_PAIRS, V1F_LONG, V1F_BARE, V1F_KV, V1F_UNKNOWN,
                                     V1F_LINE };
    char d[200] = "";
    unsigned top = below(r, 100);
    if (top < 60) {
        unsigned f = top < 14 ? V1F_PAIRS : top < 22 ? V1F_LONG : top < 30 ? V1F_BARE
                   : top < 42 ? V1F_KV : top < 47 ? V1F_UNKNOWN : top < 52 ? V1F_LINE
                   : top < 56 ? V1F_SPAWN : top < 58 ? V1F_ABORT : V1F_EOS;
        for (int tries = 0; tries < 4; tries++) {
            o->len = 0;
            if (one_damaged_v1(r, env, f, o, d, sizeof d, family, &in->close_after) == 0)
                break;
        }
        snprintf(in->desc, sizeof in->desc, "%s", d);
        return;
    }
    bool no_close = false;
    unsigned fam = fams[below(r, sizeof fams / sizeof fams[0])];
    if (top < 72) {
        one_damaged_v1(r, env, fam, o, d, sizeof d, family, &no_close);
        size_t pieces = 1 + below(r, 3), last = 0;
        for (size_t k = 0; k < pieces && o->len > 1; k++) {
            size_t c = 1 + below(r, (unsigned)(o->len - 1));
            if (c > last && in->ncuts < FZ_MAX_CUTS)
                in->cuts[in->ncuts++] = last = c;
        }
        in->delay_ms = 1 + below(r, 40);
        snprintf(in->desc, sizeof in->desc, "%s split in %zu writes, %u ms apart", d,
                 in->ncuts + 1, in->delay_ms);
        *family = "split";
        return;
    }
    bool coalesce = top < 86;
    unsigned n = 2 + below(r, 2), bad = below(r, n);
    char names[160] = "";
    for (unsigned k = 0; k < n; k++) {
        if (!coalesce && k && in->ncuts < FZ_MAX_CUTS)
            in->cuts[in->ncuts++] = o->len;
        char nm[80] = "";
        if (k == bad) {
            one_damaged_v1(r, env, fam, o, d, sizeof d, family, &no_close);
            snprintf(nm, sizeof nm, "[%s]", d);
        } else {
            spec s;
            base_v1(r, env, &s);
            snprintf(nm, sizeof nm, "%s", s.cmd);
            encode(&s, NULL, NULL, 0, o);
            spec_free(&s);
        }
        size_t l = strlen(names);
        snprintf(names + l, sizeof names - l, "%s%s", k ? (coalesce ? " + " : ", ") : "", nm);
    }
    snprintf(in->desc, sizeof in->desc, "%s: %s", coalesce ? "coalesced" : "sequence", names);
    *family = coalesce ? "coalesce" : "sequence";
}

int fz_generate(uint64_t seed, uint64_t index, const fz_env *env, fz_input *in)
{
    memset(in, 0, sizeof *in);
    in->index = index;
    rng r = { seed * 0x2545f4914f6cdd1dull ^ (index + 1) * 0x9e3779b97f4a7c15ull };
    next(&r);
    pmc_out o = { 0 };
    char d[200] = "";
    const char *family = "kv";
    unsigned top = env->pmi == 1 ? 0 : below(&r, 100);
    if (env->pmi == 1) {
        gen_v1(&r, env, in, &o, &family);
    } else if (top < 60) {
        /* one damaged message: lengths 15%, escapes 5%, keys/values 20%,
         * unknown 8%, PMI-1 lines 12% */
        unsigned f = top < 15 ? 0 : top < 20 ? 1 : top < 40 ? 2 : top < 48 ? 3 : 4;
        for (int tries = 0; tries < 4; tries++) {
            o.len = 0;
            if (one_damaged(&r, env, f, &o, d, sizeof d, &family) == 0)
                break;
        }
        snprintf(in->desc, sizeof in->desc, "%s", d);
    } else if (top < 72) {
        /* a message (damaged or not) split at random offsets, small delays */
        bool dmg = chance(&r, 50);
        char name[80] = "";
        if (dmg)
            one_damaged(&r, env, below(&r, 5), &o, d, sizeof d, &family);
        else
            one_valid(&r, env, &o, name, sizeof name);
        size_t pieces = 1 + below(&r, 3);
        size_t last = 0;
        for (size_t k = 0; k < pieces && o.len > 1; k++) {
            size_t c = 1 + below(&r, (unsigned)(o.len - 1));
            if (c > last && in->ncuts < FZ_MAX_CUTS)
                in->cuts[in->ncuts++] = last = c;
        }
        in->delay_ms = 1 + below(&r, 40);
        snprintf(in->desc, sizeof in->desc, "%s split in %zu writes, %u ms apart",
                 dmg ? d : name, in->ncuts + 1, in->delay_ms);
        family = "split";
    } else if (top < 84) {
        /* several commands coalesced in one write, perhaps one damaged */
        unsigned n = 2 + below(&r, 2), bad = chance(&r, 50) ? below(&r, n) : n;
        char names[160] = "";
        for (unsigned k = 0; k < n; k++) {
            char nm[80] = "";
            if (k == bad) {
                one_damaged(&r, env, below(&r, 5), &o, d, sizeof d, &family);
                snprintf(nm, sizeof nm, "[%s]", d);
            } else {
                one_valid(&r, env, &o, nm, sizeof nm);
            }
            size_t l = strlen(names);
            snprintf(names + l, sizeof names - l, "%s%s", k ? " + " : "", nm);
        }
        snprintf(in->desc, sizeof in->desc, "coalesced: %s", names);
        family = "coalesce";
    } else {
        /* a sequence of commands in separate writes, one of them damaged */
        unsigned n = 2 + below(&r, 3), bad = below(&r, n);
        char names[160] = "";
        for (unsigned k = 0; k < n; k++) {
            if (k && in->ncuts < FZ_MAX_CUTS)
                in->cuts[in->ncuts++] = o.len;
            char nm[80] = "";
            if (k == bad) {
                one_damaged(&r, env, below(&r, 5), &o, d, sizeof d, &family);
                snprintf(nm, sizeof nm, "[%s]", d);
            } else {
                one_valid(&r, env, &o, nm, sizeof nm);
            }
            size_t l = strlen(names);
            snprintf(names + l, sizeof names - l, "%s%s", k ? ", " : "", nm);
        }
        in->delay_ms = below(&r, 3) * 5;
        snprintf(in->desc, sizeof in->desc, "sequence: %s", names);
        family = "sequence";
    }
    /* drop cuts that fell outside the bytes (a damaged message came out short) */
    size_t k = 0;
    for (size_t i = 0; i < in->ncuts; i++)
        if (in->cuts[i] > 0 && in->cuts[i] < o.len && (k == 0 || in->cuts[i] > in->cuts[k - 1]))
            in->cuts[k++] = in->cuts[i];
    in->ncuts = k;
    snprintf(in->family, sizeof in->family, "%s", family);
    if (o.len == 0) {
        /* never send nothing: a valid job-getid keeps the index meaningful */
        pmc_enc e;
        pmc_error err;
        bool v1 = env->pmi == 1;
        pmc_enc_begin(&e, v1 ? PMC_WIRE_V1 : PMC_WIRE_V2, v1 ? "get_maxes" : "job-getid");
        if (pmc_enc_end(&e, NULL, &o, &err) != 0) {
            pmc_out_free(&o);
            return -1;
        }
        in->close_after = false;
        snprintf(in->desc, sizeof in->desc, "%s (the mutation produced nothing)",
                 v1 ? "get_maxes" : "job-getid");
    }
    fill(in, &o);
    return in->buf ? 0 : -1;
}

void fz_input_free(fz_input *in)
{
    free(in->buf);
    in->buf = NULL;
    in->len = 0;
}
