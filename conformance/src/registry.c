/* Case registry, selection by glob, clause lookup, verdicts and grading. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static pcf_entry *entries;
static size_t nentries, capentries;
static bool sorted;

void pcf_register(const pcf_case *cases, size_t n, const char *file)
{
    for (size_t i = 0; i < n; i++) {
        if (nentries == capentries) {
            size_t nc = capentries ? capentries * 2 : 128;
            pcf_entry *ne = realloc(entries, nc * sizeof *ne);
            if (!ne)
                return; /* reported by pcf_registry_check as a missing case count */
            entries = ne;
            capentries = nc;
        }
        pcf_entry *e = &entries[nentries];
        e->c = &cases[i];
        e->file = file;
        e->order = nentries;
        const char *slash = strrchr(cases[i].id, '/');
        size_t sl = slash ? (size_t)(slash - cases[i].id) : strlen(cases[i].id);
        if (sl >= sizeof e->section)
            sl = sizeof e->section - 1;
        memcpy(e->section, cases[i].id, sl);
        e->section[sl] = 0;
        nentries++;
    }
    sorted = false;
}

/* Families in the order a reader expects them: the handshake first, the
 * destructive robustness group last. */
static int family_rank(const char *id)
{
    static const char *const fam[] = { "pmi1/", "pmi2/", "frame/", "robust/" };
    for (size_t i = 0; i < sizeof fam / sizeof fam[0]; i++)
        if (strncmp(id, fam[i], strlen(fam[i])) == 0)
            return (int)i;
    return 10;
}

static int cmp_entry(const void *a, const void *b)
{
    const pcf_entry *x = a, *y = b;
    int fx = family_rank(x->c->id), fy = family_rank(y->c->id);
    if (fx != fy)
        return fx < fy ? -1 : 1;
    int s = strcmp(x->section, y->section);
    if (s) {
        /* the handshake sections run first within a family */
        bool hx = strstr(x->section, "/init") != NULL, hy = strstr(y->section, "/init") != NULL;
        if (hx != hy)
            return hx ? -1 : 1;
        return s;
    }
    return x->order < y->order ? -1 : x->order > y->order;
}

const pcf_entry *pcf_cases(size_t *n)
{
    if (!sorted) {
        qsort(entries, nentries, sizeof *entries, cmp_entry);
        sorted = true;
    }
    *n = nentries;
    return entries;
}

const pcf_entry *pcf_case_find(const char *id)
{
    size_t n;
    const pcf_entry *e = pcf_cases(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(e[i].c->id, id) == 0)
            return &e[i];
    return NULL;
}

/* Shell-style glob over the whole id: '*' any run, '?' one byte. */
bool pcf_glob(const char *p, const char *s)
{
    const char *star = NULL, *ss = NULL;
    while (*s) {
        if (*p == '*') {
            star = p++;
            ss = s;
        } else if (*p == '?' || *p == *s) {
            p++;
            s++;
        } else if (star) {
            p = star + 1;
            s = ++ss;
        } else {
            return false;
        }
    }
    while (*p == '*')
        p++;
    return *p == 0;
}

/* A glob without wildcards also selects everything below it ("pmi2/kvs"). */
static bool match_sel(const char *pat, const char *id)
{
    if (pcf_glob(pat, id))
        return true;
    size_t n = strlen(pat);
    if (!strpbrk(pat, "*?") && strncmp(pat, id, n) == 0 && (id[n] == '/' || pat[n - 1] == '/'))
        return true;
    return false;
}

bool pcf_selected(const char *id, char *const *globs, size_t nglobs)
{
    bool any_include = false, included = false;
    for (size_t i = 0; i < nglobs; i++) {
        if (globs[i][0] == '!') {
            if (match_sel(globs[i] + 1, id))
                return false;
        } else {
            any_include = true;
            if (match_sel(globs[i], id))
                included = true;
        }
    }
    return !any_include || included;
}

const pcf_clause *pcf_clause_get(const char *id)
{
    if (!id)
        return NULL;
    for (size_t i = 0; i < pcf_nclauses; i++)
        if (strcmp(pcf_clauses[i].id, id) == 0)
            return &pcf_clauses[i];
    return NULL;
}

static bool id_ok(const char *id)
{
    if (!id || !*id || strlen(id) > 96 || !strchr(id, '/'))
        return false;
    for (const char *p = id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '/' ||
              *p == '_' || *p == '.'))
            return false;
    return true;
}

int pcf_registry_check(FILE *f)
{
    size_t n;
    const pcf_entry *e = pcf_cases(&n);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        const pcf_case *c = e[i].c;
        if (!id_ok(c->id)) {
            fprintf(f, "%s: malformed case id '%s'\n", e[i].file, c->id ? c->id : "(null)");
            bad = 1;
            continue;
        }
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(c->id, e[j].c->id) == 0) {
                fprintf(f, "%s: case id %s registered twice (also %s)\n", e[i].file, c->id,
                        e[j].file);
                bad = 1;
            }
        if (!pcf_clause_get(c->clause)) {
            fprintf(f, "%s: case %s cites unknown clause %s\n", e[i].file, c->id,
                    c->clause ? c->clause : "(none)");
            bad = 1;
        }
        if (!c->desc || !c->expected || !c->run) {
            fprintf(f, "%s: case %s lacks a description, expectation or run function\n",
                    e[i].file, c->id);
            bad = 1;
        }
        if (!(c->flags & (PCF_V1 | PCF_V2))) {
            fprintf(f, "%s: case %s says neither PCF_V1 nor PCF_V2\n", e[i].file, c->id);
            bad = 1;
        }
        for (int k = 0; k < PCF_MAX_OUTCOMES && c->outcomes[k].name; k++)
            if (c->outcomes[k].clause && !pcf_clause_get(c->outcomes[k].clause)) {
                fprintf(f, "%s: case %s outcome %s cites unknown clause %s\n", e[i].file, c->id,
                        c->outcomes[k].name, c->outcomes[k].clause);
                bad = 1;
            }
    }
    return bad ? -1 : 0;
}

/* ---------------------------------------------------------------- verdicts */

static const char *const vnames[PCF_V_COUNT] = {
    [PCF_PASS] = "PASS",       [PCF_NON_STRICT] = "NON-STRICT", [PCF_UNSUPPORTED] = "UNSUPPORTED",
    [PCF_INFO] = "INFO",       [PCF_FAIL] = "FAIL",             [PCF_ERROR] = "ERROR",
    [PCF_TIMEOUT] = "TIMEOUT", [PCF_SKIPPED] = "SKIPPED",       [PCF_FLAKY] = "FLAKY",
};

const char *pcf_verdict_name(int v)
{
    return v >= 0 && v < PCF_V_COUNT ? vnames[v] : "?";
}

int pcf_verdict_parse(const char *s)
{
    for (int v = 0; v < PCF_V_COUNT; v++)
        if (strcmp(vnames[v], s) == 0)
            return v;
    return -1;
}

int pcf_verdict_severity(int v)
{
    switch (v) {
    case PCF_PASS: return 0;
    case PCF_SKIPPED: return 1;
    case PCF_INFO: return 2;
    case PCF_UNSUPPORTED: return 3;
    case PCF_NON_STRICT: return 4;
    case PCF_ERROR: return 5;
    case PCF_TIMEOUT: return 6;
    case PCF_FLAKY: return 7;
    case PCF_FAIL: return 8;
    default: return 9;
    }
}

bool pcf_verdict_failing(int v, bool strict)
{
    return v == PCF_FAIL || v == PCF_ERROR || v == PCF_TIMEOUT || v == PCF_FLAKY ||
           (strict && v == PCF_NON_STRICT);
}

const pcf_outcome *pcf_outcome_find(const pcf_case *c, const char *name)
{
    for (int k = 0; k < PCF_MAX_OUTCOMES && c->outcomes[k].name; k++)
        if (strcmp(c->outcomes[k].name, name) == 0)
            return &c->outcomes[k];
    return NULL;
}

void pcf_grade(const pcf_case *c, const char *outcome, bool strict, pcf_obs *o)
{
    const pcf_outcome *oc = pcf_outcome_find(c, outcome);
    const char *clause = oc && oc->clause ? oc->clause : c->clause;
    int v;
    if (oc)
        v = oc->verdict;
    else if (strcmp(outcome, "ok") == 0)
        v = PCF_PASS;
    else if (strcmp(outcome, "no-answer") == 0)
        v = PCF_TIMEOUT;
    else if (strcmp(outcome, "harness-error") == 0)
        v = PCF_ERROR;
    else
        v = PCF_DEVIATES;
    if (v == PCF_DEVIATES) {
        const pcf_clause *cl = pcf_clause_get(clause);
        if (!cl)
            v = PCF_FAIL;
        else if (cl->graded_nonstrict)
            v = PCF_NON_STRICT;
        else
            v = cl->level == PCF_L_MUST ? PCF_FAIL
                : cl->level == PCF_L_SHOULD ? PCF_NON_STRICT
                                            : PCF_INFO;
    }
    if (strict && v == PCF_NON_STRICT)
        v = PCF_FAIL;
    o->verdict = v;
    snprintf(o->outcome, sizeof o->outcome, "%s", outcome);
    snprintf(o->clause, sizeof o->clause, "%s", clause ? clause : "");
}

void pcf_safe_name(const char *id, char *out, size_t n)
{
    size_t j = 0;
    for (const char *p = id; *p && j + 1 < n; p++)
        out[j++] = *p == '/' ? '_' : *p;
    out[j] = 0;
}

bool pcf_placed(const pcf_case *c) { return (c->flags & PCF_PLACED) || c->min_nodes > 1; }

const char *pcf_unrunnable(const pcf_case *c, int pmi, int size)
{
    if ((c->flags & PCF_V1) && !(c->flags & PCF_V2) && pmi != 1)
        return "needs a PMI-1 session: run with --pmi 1 (or --launch)";
    if ((c->flags & PCF_V2) && !(c->flags & PCF_V1) && pmi != 2)
        return "needs a PMI-2 session: run with --pmi 2 (or --launch)";
    if (c->min_ranks > size)
        return "needs more ranks than the job has";
    return NULL;
}
