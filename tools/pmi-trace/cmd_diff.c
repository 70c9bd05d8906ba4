/* pmi-trace diff A B: two traces compared message by message, per
 * connection.  Each connection's decoded messages (both directions, in
 * order, with EOFs) are aligned by longest common subsequence; messages are
 * equal when wire, command and pairs are equal, pair order aside (PAIR-1).
 * Output is unified-diff like; a changed message lists the keys that
 * differ.  Write boundaries and padding are not compared (use show). */
#include "tool.h"

#include "pmitrace/match.h"

#include <stdlib.h>
#include <string.h>

typedef struct item {
    pmt_side side;
    char *text;  /* decoded, wire order */
    char *canon; /* pairs sorted: the comparison key */
    char cmd[64];
    pmt_pattern pat;
    bool has_pat;
} item;

typedef struct list {
    item *v;
    size_t n, cap;
} list;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *canon_of(const pmc_msg *m)
{
    char **parts = calloc(m->npairs + 1, sizeof *parts);
    size_t total = 64 + m->name.len;
    for (size_t i = 0; parts && i < m->npairs; i++) {
        size_t l = m->pairs[i].key.len + m->pairs[i].val.len * 4 + 3;
        parts[i] = malloc(l);
        if (!parts[i])
            return NULL;
        size_t w = (size_t)snprintf(parts[i], l, "%.*s=", (int)m->pairs[i].key.len, m->pairs[i].key.ptr);
        pmt_escape(m->pairs[i].val.ptr, m->pairs[i].val.len, parts[i] + w, l - w);
        total += strlen(parts[i]) + 1;
    }
    if (!parts)
        return NULL;
    /* spawn segments repeat keys: keep their order; else sort (PAIR-1) */
    if (!(m->notes & PMC_NOTE_DUP_KEY) && m->wire != PMC_WIRE_V1_MCMD)
        qsort(parts, m->npairs, sizeof *parts, cmp_str);
    char *c = malloc(total);
    if (c) {
        size_t w = (size_t)snprintf(c, total, "%s %.*s", m->wire == PMC_WIRE_V2 ? "v2" : "v1",
                                    (int)m->name.len, m->name.ptr);
        for (size_t i = 0; i < m->npairs; i++)
            w += (size_t)snprintf(c + w, total - w, " %s", parts[i]);
    }
    for (size_t i = 0; i < m->npairs; i++)
        free(parts[i]);
    free(parts);
    return c;
}

static item *push(list *l)
{
    if (l->n == l->cap) {
        size_t c = l->cap ? l->cap * 2 : 64;
        item *v = realloc(l->v, c * sizeof *v);
        if (!v)
            return NULL;
        l->v = v;
        l->cap = c;
    }
    item *it = &l->v[l->n++];
    memset(it, 0, sizeof *it);
    return it;
}

static char *dupstr(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    if (d)
        strcpy(d, s);
    return d;
}

static int collect(const pmt_trace *t, const char *conn, list *l)
{
    pmc_decoder *d[2] = { pmc_decoder_new(NULL), pmc_decoder_new(NULL) };
    bool dead[2] = { false, false };
    int rc = 0;
    if (!d[0] || !d[1])
        rc = -1;
    for (size_t i = 0; !rc && i < t->nevents; i++) {
        const pmt_event *ev = &t->events[i];
        if (strcmp(ev->conn, conn))
            continue;
        int s = ev->side == PMT_CLIENT ? 0 : 1;
        if (ev->kind == PMT_EV_EOF) {
            item *it = push(l);
            if (!it)
                return -1;
            it->side = ev->side;
            it->text = dupstr(ev->side == PMT_CLIENT ? "eof C (client closed)" : "eof S (server closed)");
            it->canon = dupstr(it->text);
            continue;
        }
        if (ev->kind != PMT_EV_DATA || dead[s])
            continue;
        if (ev->form == PMT_FORM_MSG) {
            item *it = push(l);
            if (!it)
                return -1;
            it->side = ev->side;
            it->text = malloc(ev->len + 8);
            if (it->text)
                snprintf(it->text, ev->len + 8, "msg %s", ev->data);
            it->canon = it->text ? dupstr(it->text) : NULL;
            continue;
        }
        pmc_decoder_feed(d[s], ev->data, ev->len);
        for (;;) {
            pmc_msg m;
            pmc_error e;
            int r = pmc_decoder_next(d[s], &m, &e);
            if (r == PMC_AGAIN)
                break;
            item *it = push(l);
            if (!it) {
                rc = -1;
                break;
            }
            it->side = ev->side;
            char buf[2048];
            if (r == PMC_ERR) {
                pmc_error_format(&e, buf, sizeof buf);
                it->text = dupstr(buf);
                it->canon = dupstr(pmc_errcode_name(e.code));
                if (e.fatal) {
                    dead[s] = true;
                    break;
                }
                continue;
            }
            pmt_msg_text(&m, buf, sizeof buf);
            it->text = dupstr(buf);
            it->canon = canon_of(&m);
            pmc_slice_copy(m.name, it->cmd, sizeof it->cmd);
            it->has_pat = pmt_pattern_from_msg(&m, &it->pat) == 0;
        }
    }
    pmc_decoder_free(d[0]);
    pmc_decoder_free(d[1]);
    return rc;
}

static void free_items(list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].text);
        free(l->v[i].canon);
        if (l->v[i].has_pat)
            pmt_pattern_free(&l->v[i].pat);
    }
    free(l->v);
}

static bool same(const item *a, const item *b)
{
    return a->side == b->side && a->canon && b->canon && !strcmp(a->canon, b->canon);
}

/* keys whose values differ between two messages of the same command */
static void pair_diff(const item *a, const item *b)
{
    if (!a->has_pat || !b->has_pat)
        return;
    for (size_t i = 0; i < a->pat.n; i++) {
        const pmt_ppair *p = &a->pat.pairs[i];
        const pmt_ppair *q = NULL;
        for (size_t j = 0; j < b->pat.n && !q; j++)
            if (!strcmp(b->pat.pairs[j].key, p->key))
                q = &b->pat.pairs[j];
        if (!q)
            printf("        ~ %s: only in A (%.80s)\n", p->key, p->val);
        else if (q->vlen != p->vlen || memcmp(q->val, p->val, p->vlen))
            printf("        ~ %s: %.80s -> %.80s\n", p->key, p->val, q->val);
    }
    for (size_t j = 0; j < b->pat.n; j++) {
        bool found = false;
        for (size_t i = 0; i < a->pat.n && !found; i++)
            found = !strcmp(a->pat.pairs[i].key, b->pat.pairs[j].key);
        if (!found)
            printf("        ~ %s: only in B (%.80s)\n", b->pat.pairs[j].key, b->pat.pairs[j].val);
    }
}

int cmd_diff(int argc, char **argv)
{
    const char *pa = NULL, *pb = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            puts("usage: pmi-trace diff A B\n"
                 "  Compares two traces per connection, message by message (decoded; pair\n"
                 "  order and write boundaries do not count).  '-' lines are only in A, '+'\n"
                 "  only in B; '~' lines name the keys that differ.\n"
                 "exit status: 0 same messages, 1 different, 2 usage, I/O or trace error");
            return EXIT_OK;
        }
        if (!pa)
            pa = argv[i];
        else if (!pb)
            pb = argv[i];
        else {
            fprintf(stderr, "usage: pmi-trace diff A B\n");
            return EXIT_USAGE;
        }
    }
    if (!pb) {
        fprintf(stderr, "usage: pmi-trace diff A B\n");
        return EXIT_USAGE;
    }
    pmt_trace ta, tb;
    pmt_error e;
    if (pmt_read_file(pa, &ta, &e)) {
        char eb[600];
        pmt_error_format(&e, pa, eb, sizeof eb);
        fprintf(stderr, "pmi-trace diff: %s\n", eb);
        return EXIT_USAGE;
    }
    if (pmt_read_file(pb, &tb, &e)) {
        char eb[600];
        pmt_error_format(&e, pb, eb, sizeof eb);
        fprintf(stderr, "pmi-trace diff: %s\n", eb);
        pmt_trace_free(&ta);
        return EXIT_USAGE;
    }
    char conns[128][PMT_CONN_MAX];
    size_t nc = 0;
    const pmt_trace *both[2] = { &ta, &tb };
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < both[k]->nevents && nc < 128; i++) {
            size_t c = 0;
            while (c < nc && strcmp(conns[c], both[k]->events[i].conn))
                c++;
            if (c == nc)
                snprintf(conns[nc++], PMT_CONN_MAX, "%s", both[k]->events[i].conn);
        }
    printf("--- %s\n+++ %s\n", pa, pb);
    int status = EXIT_OK;
    for (size_t c = 0; c < nc && status != EXIT_USAGE; c++) {
        list la = { 0 }, lb = { 0 };
        if (collect(&ta, conns[c], &la) || collect(&tb, conns[c], &lb) || la.n > 20000 ||
            lb.n > 20000) {
            fprintf(stderr, "pmi-trace diff: %s: out of memory or too many messages\n", conns[c]);
            status = EXIT_USAGE;
            free_items(&la);
            free_items(&lb);
            break;
        }
        size_t n = la.n, m = lb.n;
        uint32_t *L = calloc((n + 1) * (m + 1), sizeof *L);
        if (!L) {
            status = EXIT_USAGE;
            free_items(&la);
            free_items(&lb);
            break;
        }
#define AT(i, j) L[(size_t)(i) * (m + 1) + (j)]
        for (size_t i = n; i-- > 0;)
            for (size_t j = m; j-- > 0;)
                AT(i, j) = same(&la.v[i], &lb.v[j]) ? AT(i + 1, j + 1) + 1
                           : AT(i + 1, j) > AT(i, j + 1) ? AT(i + 1, j)
                                                        : AT(i, j + 1);
        size_t i = 0, j = 0, ndiff = 0;
        printf("=== %s: %zu messages in A, %zu in B\n", conns[c], n, m);
        while (i < n || j < m) {
            if (i < n && j < m && same(&la.v[i], &lb.v[j])) {
                printf("  %s %s\n", pmt_dir_name(la.v[i].side), la.v[i].text);
                i++;
                j++;
            } else if (i < n && (j >= m || AT(i + 1, j) >= AT(i, j + 1))) {
                printf("- %s %s\n", pmt_dir_name(la.v[i].side), la.v[i].text);
                /* a replaced message: show which keys changed */
                if (j < m && la.v[i].side == lb.v[j].side && la.v[i].cmd[0] &&
                    !strcmp(la.v[i].cmd, lb.v[j].cmd) && AT(i + 1, j + 1) == AT(i, j)) {
                    printf("+ %s %s\n", pmt_dir_name(lb.v[j].side), lb.v[j].text);
                    pair_diff(&la.v[i], &lb.v[j]);
                    j++;
                    ndiff++;
                }
                i++;
                ndiff++;
            } else {
                printf("+ %s %s\n", pmt_dir_name(lb.v[j].side), lb.v[j].text);
                j++;
                ndiff++;
            }
        }
#undef AT
        if (ndiff)
            status = EXIT_FINDINGS;
        free(L);
        free_items(&la);
        free_items(&lb);
    }
    printf(status == EXIT_OK ? "same messages\n" : status == EXIT_FINDINGS ? "traces differ\n" : "");
    pmt_trace_free(&ta);
    pmt_trace_free(&tb);
    return status;
}
