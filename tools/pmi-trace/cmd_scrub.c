/* pmi-trace scrub: make a trace safe for a public bug report.  Host names,
 * IPv4 addresses, ports next to them, user names, absolute paths and
 * business cards (MPICH's hex-encoded -bcast- values, P<n>-businesscard)
 * are replaced by placeholders: the same input always gets the same
 * placeholder (numbered in order of appearance, so the output is
 * deterministic).  Messages whose values change are re-encoded by the codec
 * with their recorded length padding, so v2 length fields stay right and
 * the trace still replays; headers, notes and comments are scrubbed as
 * text. */
#define _GNU_SOURCE
#include "tool.h"

#include "pmitrace/match.h"

#include <ctype.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct ent {
    char *from, *to;
} ent;

typedef struct scrub {
    ent *e;
    size_t n, cap;
    unsigned nhost, nuser, nip, nport, npath, nbc;
    char words[8][256]; /* host names and user names of this machine, longest first */
    const char *wkind[8];
    size_t nwords;
    char home[1024];
    const char *keep[8]; /* --keep: keys whose values stay as recorded */
    size_t nkeep;
} scrub;

static const char *lookup(const scrub *s, const char *from)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->e[i].from, from))
            return s->e[i].to;
    return NULL;
}

static const char *remember(scrub *s, const char *from, const char *to)
{
    const char *have = lookup(s, from);
    if (have)
        return have;
    if (s->n == s->cap) {
        size_t c = s->cap ? s->cap * 2 : 32;
        ent *e = realloc(s->e, c * sizeof *e);
        if (!e)
            return NULL;
        s->e = e;
        s->cap = c;
    }
    ent x = { strdup(from), strdup(to) };
    if (!x.from || !x.to) {
        free(x.from);
        free(x.to);
        return NULL;
    }
    s->e[s->n++] = x;
    return x.to;
}

/* placeholder for a class of value, consistent per input */
static const char *place(scrub *s, const char *from, char kind)
{
    const char *have = lookup(s, from);
    if (have)
        return have;
    char to[64];
    switch (kind) {
    case 'h': snprintf(to, sizeof to, "host%u", s->nhost++); break;
    case 'u': snprintf(to, sizeof to, "user%u", s->nuser++); break;
    case 'i': snprintf(to, sizeof to, "10.255.0.%u", ++s->nip % 250); break;
    case 'p': snprintf(to, sizeof to, "%u", 40000 + s->nport++); break;
    default: snprintf(to, sizeof to, "/scrubbed/p%u", s->npath++); break;
    }
    return remember(s, from, to);
}

static bool wordch(char c)
{
    return isalnum((unsigned char)c) || c == '-';
}

static void add_word(scrub *s, const char *w, const char *kind)
{
    if (!w || !*w || s->nwords >= 8 || strlen(w) >= 256)
        return;
    for (size_t i = 0; i < s->nwords; i++)
        if (!strcmp(s->words[i], w))
            return;
    snprintf(s->words[s->nwords], 256, "%s", w);
    s->wkind[s->nwords++] = kind;
}

/* Scrub free text (values, headers): paths, IPs with ports, host and user
 * names as whole words. */
static int scrub_text(scrub *s, const char *in, size_t len, pmc_out *o)
{
    size_t i = 0;
    while (i < len) {
        char c = in[i];
        bool start = i == 0 || !wordch(in[i - 1]);
        /* absolute path: up to a blank or a delimiter */
        if (c == '/' && (i == 0 || strchr(" \t=:'\"(,[", in[i - 1])) && i + 1 < len &&
            (isalnum((unsigned char)in[i + 1]) || in[i + 1] == '_' || in[i + 1] == '.')) {
            size_t e = i;
            while (e < len && !strchr(" \t\"';,)$#]", in[e]) && (unsigned char)in[e] >= 0x20)
                e++;
            char *p = strndup(in + i, e - i);
            if (!p)
                return -1;
            /* keep the program's base name: it says what ran, not where */
            const char *base = strrchr(p, '/');
            const char *ph = place(s, p, 'f');
            if (!ph || pmc_out_append(o, ph, strlen(ph))) {
                free(p);
                return -1;
            }
            if (base && base[1] && !lookup(s, base + 1)) {
                bool sens = false;
                for (size_t w = 0; w < s->nwords; w++)
                    if (strstr(base + 1, s->words[w]))
                        sens = true;
                if (!sens && (pmc_out_append(o, "/", 1) || pmc_out_append(o, base + 1, strlen(base + 1)))) {
                    free(p);
                    return -1;
                }
            }
            free(p);
            i = e;
            continue;
        }
        /* IPv4 address, and a port after it */
        if (start && isdigit((unsigned char)c)) {
            unsigned a, b, cc, d;
            int used = 0;
            char tmp[32];
            size_t k = len - i < 31 ? len - i : 31;
            memcpy(tmp, in + i, k);
            tmp[k] = 0;
            if (sscanf(tmp, "%3u.%3u.%3u.%3u%n", &a, &b, &cc, &d, &used) == 4 && a < 256 && b < 256 &&
                cc < 256 && d < 256 && (i + (size_t)used >= len || !isdigit((unsigned char)in[i + used]))) {
                char ip[32];
                snprintf(ip, sizeof ip, "%.*s", used, in + i);
                const char *ph = place(s, ip, 'i');
                if (!ph || pmc_out_append(o, ph, strlen(ph)))
                    return -1;
                i += (size_t)used;
                goto port;
            }
        }
        if (start) {
            for (size_t w = 0; w < s->nwords; w++) {
                size_t wl = strlen(s->words[w]);
                if (wl <= len - i && !memcmp(in + i, s->words[w], wl) &&
                    (i + wl == len || !wordch(in[i + wl]))) {
                    const char *ph = place(s, s->words[w], s->wkind[w][0]);
                    if (!ph || pmc_out_append(o, ph, strlen(ph)))
                        return -1;
                    i += wl;
                    goto port;
                }
            }
        }
        /* ports in business cards: port#NNNN */
        if (start && len - i > 5 && !memcmp(in + i, "port#", 5)) {
            if (pmc_out_append(o, "port#", 5))
                return -1;
            i += 5;
            goto digits;
        }
        if (pmc_out_append(o, &c, 1))
            return -1;
        i++;
        continue;
    port:
        if (i + 1 < len && in[i] == ':' && isdigit((unsigned char)in[i + 1])) {
            if (pmc_out_append(o, ":", 1))
                return -1;
            i++;
            goto digits;
        }
        continue;
    digits: {
        size_t e = i;
        while (e < len && isdigit((unsigned char)in[e]))
            e++;
        if (e > i) {
            char pt[32];
            snprintf(pt, sizeof pt, "%.*s", (int)(e - i > 20 ? 20 : e - i), in + i);
            const char *ph = place(s, pt, 'p');
            if (!ph || pmc_out_append(o, ph, strlen(ph)))
                return -1;
        }
        i = e;
    }
    }
    return 0;
}

static bool is_bc_key(const char *k)
{
    return strstr(k, "businesscard") || strstr(k, "-bcast-") || strstr(k, "-allgather-shm-") ||
           strstr(k, "bc-");
}

/* A message value: business cards by key, the rest as text. */
static int scrub_value(scrub *s, const char *kvskey, const char *v, size_t vl, pmc_out *o)
{
    char *z = strndup(v, vl);
    if (!z)
        return -1;
    const char *have = lookup(s, z);
    if (!have && kvskey && is_bc_key(kvskey) && vl) {
        bool hex = true;
        for (size_t i = 0; i < vl; i++)
            hex = hex && isxdigit((unsigned char)v[i]);
        char ph[64];
        if (hex) {
            /* a hex card stays hex, of the same length, so it still decodes */
            char *h = malloc(vl + 1);
            if (!h) {
                free(z);
                return -1;
            }
            snprintf(ph, sizeof ph, "%0*x", 8, ++s->nbc);
            for (size_t i = 0; i < vl; i++)
                h[i] = vl >= 8 && i >= vl - 8 ? ph[i - (vl - 8)] : '0';
            h[vl] = 0;
            have = remember(s, z, h);
            free(h);
        } else {
            snprintf(ph, sizeof ph, "businesscard-%u", ++s->nbc);
            have = remember(s, z, ph);
        }
    }
    free(z);
    if (have)
        return pmc_out_append(o, have, strlen(have));
    return scrub_text(s, v, vl, o);
}

static char *scrub_cstr(scrub *s, const char *in)
{
    pmc_out o = { 0 };
    if (scrub_text(s, in, strlen(in), &o) || pmc_out_append(&o, "", 1)) {
        pmc_out_free(&o);
        return NULL;
    }
    return o.buf;
}

/* Re-encode one message with scrubbed values (recorded padding kept). */
static int scrub_msg(scrub *s, const pmc_msg *m, char *ctxkey, size_t ctxlen, pmc_out *out)
{
    pmt_pattern p;
    if (pmt_pattern_from_msg(m, &p))
        return -1;
    char ownkey[128] = "";
    pmc_slice k;
    if (pmc_msg_get(m, "key", &k)) {
        pmc_slice_copy(k, ownkey, sizeof ownkey);
        snprintf(ctxkey, ctxlen, "%s", ownkey);
    }
    pmt_vars *v = pmt_vars_new();
    int rc = v ? 0 : -1;
    for (size_t i = 0; !rc && i < p.n; i++) {
        bool kept = false;
        for (size_t q = 0; q < s->nkeep; q++)
            kept |= !strcmp(p.pairs[i].key, s->keep[q]);
        if (kept)
            continue;
        pmc_out o = { 0 };
        /* business cards are the value of a put / get, never its names */
        const char *kk = ownkey[0] ? ownkey : ctxkey;
        if (strcmp(p.pairs[i].key, "value") && strcmp(p.pairs[i].key, "val"))
            kk = NULL;
        if (scrub_value(s, kk, p.pairs[i].val, p.pairs[i].vlen, &o))
            rc = -1;
        else if (o.len != p.pairs[i].vlen || memcmp(o.buf, p.pairs[i].val, o.len)) {
            /* whole-value map: render re-encodes when any value changed */
            char *nv = malloc(o.len + 1);
            if (!nv)
                rc = -1;
            else {
                memcpy(nv, o.buf, o.len);
                nv[o.len] = 0;
                if (pmt_vars_map(v, p.pairs[i].val, p.pairs[i].vlen, nv, o.len))
                    rc = -1;
                free(nv);
            }
        }
        pmc_out_free(&o);
    }
    char err[300];
    if (!rc && pmt_pattern_render(&p, v, NULL, out, err, sizeof err)) {
        fprintf(stderr, "pmi-trace scrub: %s\n", err);
        rc = -1;
    }
    pmt_vars_free(v);
    pmt_pattern_free(&p);
    return rc;
}

typedef struct sstate {
    char conn[PMT_CONN_MAX];
    pmt_side side;
    pmc_decoder *d;
    bool dead;
    size_t first, nev; /* pending chunk: events [first, first+nev) of the input */
    char ctxkey[128];
} sstate;

/* A rewritten write keeps what a reproducer marks on it: the failure the
 * replay judges and the pause before it. */
static void keep_marks(pmt_event *ne, const pmt_event *ev)
{
    ne->flags = ev->flags;
    ne->pause_ms = ev->pause_ms;
}

static int emit_chunk(scrub *s, const pmt_trace *t, sstate *st, pmt_trace *o)
{
    if (!st->nev)
        return 0;
    pmc_out all = { 0 }, rawcat = { 0 };
    size_t cuts[64], nc = 0;
    int rc = 0;
    for (size_t k = 0; k < st->nev; k++) {
        const pmt_event *ev = &t->events[st->first + k];
        if (k && nc < 64)
            cuts[nc++] = rawcat.len;
        pmc_out_append(&rawcat, ev->data, ev->len);
    }
    /* decode the chunk's messages and re-encode each */
    pmc_decoder *d = pmc_decoder_new(NULL);
    pmc_decoder_feed(d, rawcat.buf, rawcat.len);
    size_t consumed = 0, newcuts[64], nn = 0, ci = 0;
    bool clean = true;
    for (;;) {
        pmc_msg m;
        pmc_error e;
        int r = pmc_decoder_next(d, &m, &e);
        if (r == PMC_AGAIN)
            break;
        if (r == PMC_ERR) {
            clean = false;
            break;
        }
        size_t start = all.len;
        if (scrub_msg(s, &m, st->ctxkey, sizeof st->ctxkey, &all)) {
            rc = -1;
            break;
        }
        size_t nl = all.len - start;
        while (ci < nc && cuts[ci] < consumed + m.raw.len) {
            size_t off = cuts[ci] - consumed;
            if (off >= nl)
                off = nl ? nl - 1 : 0;
            if ((start + off) > (nn ? newcuts[nn - 1] : 0) && start + off < start + nl + 1)
                newcuts[nn++] = start + off;
            ci++;
        }
        consumed += m.raw.len;
    }
    pmc_decoder_free(d);
    if (!clean || consumed != rawcat.len) {
        /* undecodable bytes: scrub as text, keep every write as it was */
        for (size_t k = 0; k < st->nev && !rc; k++) {
            const pmt_event *ev = &t->events[st->first + k];
            pmc_out x = { 0 };
            rc = scrub_text(s, ev->data, ev->len, &x);
            if (!rc && pmt_add_event(o, PMT_EV_DATA, ev->usec, ev->conn, ev->side, x.buf, x.len))
                rc = -1;
            if (!rc)
                keep_marks(&o->events[o->nevents - 1], ev);
            pmc_out_free(&x);
        }
    } else if (!rc) {
        size_t at = 0;
        for (size_t k = 0; k <= nn && !rc; k++) {
            size_t end = k < nn ? newcuts[k] : all.len;
            if (end <= at)
                continue;
            const pmt_event *ev = &t->events[st->first + (k < st->nev ? k : st->nev - 1)];
            rc = pmt_add_event(o, PMT_EV_DATA, ev->usec, ev->conn, ev->side, all.buf + at, end - at);
            if (!rc)
                keep_marks(&o->events[o->nevents - 1], ev);
            at = end;
        }
    }
    pmc_out_free(&all);
    pmc_out_free(&rawcat);
    st->nev = 0;
    return rc;
}

int cmd_scrub(int argc, char **argv)
{
    const char *in = NULL, *out = "-", *map = NULL;
    scrub s;
    memset(&s, 0, sizeof s);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            puts("usage: pmi-trace scrub [-o OUT] [--map FILE] [--host NAME] [--user NAME]\n"
                 "                       [--keep KEY] TRACE\n"
                 "  Replaces host names (this machine's and --host), IPv4 addresses, ports,\n"
                 "  user names (this user and --user), absolute paths and business cards by\n"
                 "  consistent placeholders; re-encodes changed messages with the codec.\n"
                 "  --map FILE  write the original -> placeholder table (keep it private)\n"
                 "  --keep KEY  leave the values of KEY as they are (a replayed spawn's\n"
                 "              subcmd must still name a program that runs)\n"
                 "exit status: 0 ok, 2 usage, I/O or trace syntax error");
            return EXIT_OK;
        }
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--map") && i + 1 < argc)
            map = argv[++i];
        else if (!strcmp(argv[i], "--host") && i + 1 < argc)
            add_word(&s, argv[++i], "h");
        else if (!strcmp(argv[i], "--user") && i + 1 < argc)
            add_word(&s, argv[++i], "u");
        else if (!strcmp(argv[i], "--keep") && i + 1 < argc && s.nkeep < 8)
            s.keep[s.nkeep++] = argv[++i];
        else if (!in && (argv[i][0] != '-' || !argv[i][1]))
            in = argv[i];
        else {
            fprintf(stderr, "usage: pmi-trace scrub [-o OUT] [--map FILE] TRACE\n");
            return EXIT_USAGE;
        }
    }
    if (!in) {
        fprintf(stderr, "usage: pmi-trace scrub [-o OUT] [--map FILE] TRACE\n");
        return EXIT_USAGE;
    }
    char hn[256] = "";
    if (!gethostname(hn, sizeof hn - 1)) {
        add_word(&s, hn, "h");
        char *dot = strchr(hn, '.');
        if (dot) {
            *dot = 0;
            add_word(&s, hn, "h");
        }
    }
    struct passwd *pw = getpwuid(getuid());
    if (pw)
        add_word(&s, pw->pw_name, "u");
    if (getenv("USER"))
        add_word(&s, getenv("USER"), "u");
    /* longest first, so "vm.example" wins over "vm" */
    for (size_t a = 0; a < s.nwords; a++)
        for (size_t b = a + 1; b < s.nwords; b++)
            if (strlen(s.words[b]) > strlen(s.words[a])) {
                char tw[256];
                memcpy(tw, s.words[a], 256);
                memcpy(s.words[a], s.words[b], 256);
                memcpy(s.words[b], tw, 256);
                const char *tk = s.wkind[a];
                s.wkind[a] = s.wkind[b];
                s.wkind[b] = tk;
            }

    pmt_trace t, o;
    pmt_error e;
    if (!strcmp(in, "-") ? pmt_read_stream(stdin, &t, &e) : pmt_read_file(in, &t, &e)) {
        char eb[600];
        pmt_error_format(&e, in, eb, sizeof eb);
        fprintf(stderr, "pmi-trace scrub: %s\n", eb);
        return EXIT_USAGE;
    }
    pmt_trace_init(&o);
    o.version = t.version;
    int rc = 0;
    for (size_t i = 0; i < t.nheaders && !rc; i++) {
        const pmt_header *h = &t.headers[i];
        char *v = h->value ? scrub_cstr(&s, h->value) : NULL;
        if (h->value && !v) {
            rc = -1;
            break;
        }
        switch (h->kind) {
        case PMT_H_COMMENT: rc = pmt_add_comment(&o, v); break;
        case PMT_H_SOURCE: rc = pmt_add_source(&o, v); break;
        case PMT_H_META: rc = pmt_add_meta(&o, h->key, v); break;
        case PMT_H_ENV: rc = pmt_add_env(&o, h->key, v); break;
        case PMT_H_EXPECT: rc = pmt_add_expect(&o, &h->expect, v); break;
        }
        free(v);
    }
    pmt_add_comment(&o, "scrubbed by pmi-trace scrub: host names, addresses, ports, users, paths "
                        "and business cards are placeholders");
    sstate st[128];
    size_t nst = 0;
    for (size_t i = 0; i < t.nevents && !rc; i++) {
        const pmt_event *ev = &t.events[i];
        if (ev->kind == PMT_EV_DATA && ev->form == PMT_FORM_BYTES && !ev->ncuts) {
            size_t k = 0;
            while (k < nst && !(st[k].side == ev->side && !strcmp(st[k].conn, ev->conn)))
                k++;
            if (k == nst) {
                if (nst == 128) {
                    rc = -1;
                    break;
                }
                memset(&st[k], 0, sizeof st[k]);
                snprintf(st[k].conn, sizeof st[k].conn, "%s", ev->conn);
                st[k].side = ev->side;
                st[k].d = pmc_decoder_new(NULL);
                nst++;
            }
            if (!st[k].nev)
                st[k].first = i;
            st[k].nev++;
            /* the chunk must be consecutive events of one stream */
            bool contiguous = st[k].first + st[k].nev - 1 == i;
            pmc_decoder_feed(st[k].d, ev->data, ev->len);
            pmc_msg m;
            pmc_error pe;
            int r;
            while ((r = pmc_decoder_next(st[k].d, &m, &pe)) != PMC_AGAIN)
                if (r == PMC_ERR && pe.fatal)
                    break;
            if (!contiguous || pmc_decoder_pending(st[k].d) == 0 || r == PMC_ERR) {
                if (!contiguous) {
                    /* interleaved with another stream: flush what came before */
                    st[k].nev--;
                    rc = emit_chunk(&s, &t, &st[k], &o);
                    st[k].first = i;
                    st[k].nev = 1;
                }
                if (!rc && (pmc_decoder_pending(st[k].d) == 0 || r == PMC_ERR))
                    rc = emit_chunk(&s, &t, &st[k], &o);
            }
            continue;
        }
        for (size_t k = 0; k < nst && !rc; k++)
            if (!strcmp(st[k].conn, ev->conn))
                rc = emit_chunk(&s, &t, &st[k], &o);
        pmc_out x = { 0 };
        if (!rc && ev->kind == PMT_EV_DATA)
            rc = scrub_text(&s, ev->data, ev->len, &x);
        else if (!rc && ev->len)
            rc = scrub_text(&s, ev->data, ev->len, &x);
        if (!rc && pmt_add_event(&o, ev->kind, ev->usec, ev->conn, ev->side, x.len ? x.buf : NULL,
                                 x.len))
            rc = -1;
        pmc_out_free(&x);
        if (!rc) {
            pmt_event *ne = &o.events[o.nevents - 1];
            ne->form = ev->form;
            ne->flags = ev->flags;
            ne->timeout_ms = ev->timeout_ms;
            ne->delay_ms = ev->delay_ms;
            ne->pause_ms = ev->pause_ms;
            ne->ncuts = ev->form == PMT_FORM_MSG ? 0 : ev->ncuts;
            memcpy(ne->cuts, ev->cuts, sizeof ne->cuts);
            for (uint32_t c = 0; c < ne->ncuts; c++)
                if (ne->cuts[c] >= ne->len)
                    ne->ncuts = c;
        }
    }
    for (size_t k = 0; k < nst; k++) {
        if (!rc)
            rc = emit_chunk(&s, &t, &st[k], &o);
        pmc_decoder_free(st[k].d);
    }
    int status = EXIT_OK;
    if (rc) {
        fprintf(stderr, "pmi-trace scrub: %s: cannot scrub (out of memory or unwritable value)\n", in);
        status = EXIT_USAGE;
    } else {
        FILE *f = strcmp(out, "-") ? fopen(out, "w") : stdout;
        if (!f || pmt_write(f, &o, NULL, NULL) || (f != stdout && fclose(f))) {
            fprintf(stderr, "pmi-trace scrub: cannot write %s\n", out);
            status = EXIT_USAGE;
        }
        if (map) {
            FILE *m = fopen(map, "w");
            if (!m) {
                fprintf(stderr, "pmi-trace scrub: cannot write %s\n", map);
                status = EXIT_USAGE;
            } else {
                for (size_t i = 0; i < s.n; i++) {
                    char eb[1024];
                    pmt_escape(s.e[i].from, strlen(s.e[i].from), eb, sizeof eb);
                    fprintf(m, "\"%s\" -> %s\n", eb, s.e[i].to);
                }
                fclose(m);
            }
        }
    }
    for (size_t i = 0; i < s.n; i++) {
        free(s.e[i].from);
        free(s.e[i].to);
    }
    free(s.e);
    pmt_trace_free(&t);
    pmt_trace_free(&o);
    return status;
}
