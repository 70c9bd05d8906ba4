/* pmi2-conform explain CASE...: what one case checks and how it is graded,
 * for the author of a server that failed it.  Everything shown comes from
 * the case table and the clause table generated from SPEC.md; the verdicts
 * are computed by pcf_grade, so they cannot drift from what a run gives. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

enum { WIDTH = 78 };

/* Columns a UTF-8 string takes (continuation bytes take none). */
static size_t cols(const char *s, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

/* Print the len bytes of text wrapped at word boundaries, every line
 * indented by `ind`; `at`: columns already taken on the first line (after
 * a number). */
static void wrap_from(FILE *f, const char *text, size_t len, int ind, size_t at)
{
    const char *p = text, *end = text + len;
    bool fresh = at != 0; /* the first word follows what is already there */
    while (p < end) {
        while (p < end && *p == ' ')
            p++;
        if (p == end)
            break;
        size_t n = 0;
        while (p + n < end && p[n] != ' ')
            n++;
        size_t w = cols(p, n);
        if (at && !fresh && at + 1 + w > WIDTH) {
            fputc('\n', f);
            at = 0;
        }
        if (!at) {
            fprintf(f, "%*s", ind, "");
            at = (size_t)ind;
        } else if (!fresh) {
            fputc(' ', f);
            at++;
        }
        fresh = false;
        fwrite(p, 1, n, f);
        at += w;
        p += n;
    }
    if (at)
        fputc('\n', f);
}

static void wrap(FILE *f, const char *text, int ind)
{
    wrap_from(f, text, strlen(text), ind, 0);
}

static void section(FILE *f, const char *title)
{
    fprintf(f, "\n%s\n", title);
}

static void print_clause(FILE *f, const char *id)
{
    const pcf_clause *cl = pcf_clause_get(id);
    if (!cl) {
        fprintf(f, "  %s (not in SPEC.md's clause table)\n", id);
        return;
    }
    fprintf(f, "  %s (%s, %s): %s%s\n", cl->id, cl->level_text, cl->role, cl->title,
            cl->graded_nonstrict ? " (graded NON-STRICT)" : "");
    size_t n = strlen(cl->text);
    char *q = malloc(n + 3);
    if (!q)
        return;
    snprintf(q, n + 3, "\"%s\"", cl->text);
    wrap(f, q, 4);
    free(q);
}

/* The numbered steps of c->steps, one per line. */
static void print_steps(FILE *f, const char *steps)
{
    int k = 1;
    for (const char *p = steps; *p;) {
        size_t n = strcspn(p, "\n");
        int w = fprintf(f, "  %d. ", k++);
        wrap_from(f, p, n, w, (size_t)w);
        p += n;
        if (*p == '\n')
            p++;
    }
}

/* One row of the outcome table: its verdict computed as a run computes it. */
static void outcome_row(FILE *f, const pcf_case *c, const char *name, const char *meaning)
{
    pcf_obs o;
    pcf_grade(c, name, false, &o);
    const pcf_outcome *oc = pcf_outcome_find(c, name);
    const char *how = "";
    if (oc && oc->verdict == PCF_DEVIATES)
        how = "*";
    else if (!oc && strcmp(name, "ok") != 0 && strcmp(name, "no-answer") != 0 &&
             strcmp(name, "harness-error") != 0)
        how = "*";
    char v[24];
    snprintf(v, sizeof v, "%s%s", pcf_verdict_name(o.verdict), how);
    fprintf(f, "  %-18s %-12s %-10s %s\n", name, v, o.clause, meaning);
}

static void print_outcomes(FILE *f, const pcf_case *c)
{
    fprintf(f, "  %-18s %-12s %-10s %s\n", "outcome", "verdict", "clause", "meaning");
    bool has[8] = { 0 };
    if (!pcf_outcome_find(c, "ok"))
        outcome_row(f, c, "ok", "the server did what the clause asks");
    static const char *const implicit[] = { "ok", "no-answer", "harness-error", "job-killed",
                                            "sender-killed", "others-affected" };
    for (int k = 0; k < PCF_MAX_OUTCOMES && c->outcomes[k].name; k++) {
        const pcf_outcome *oc = &c->outcomes[k];
        for (size_t i = 0; i < sizeof implicit / sizeof implicit[0]; i++)
            has[i] |= strcmp(oc->name, implicit[i]) == 0;
        outcome_row(f, c, oc->name, oc->text ? oc->text : "");
    }
    if (!has[1])
        outcome_row(f, c, "no-answer", "no answer within the case's deadline");
    if (!has[2])
        outcome_row(f, c, "harness-error", "the harness itself failed (not the server's doing)");
    if (c->flags & PCF_DESTRUCTIVE) {
        if (!has[3])
            outcome_row(f, c, "job-killed", "the server ended the job while the case ran");
        if (!has[4])
            outcome_row(f, c, "sender-killed", "the rank that ran the case was ended");
        if (!has[5])
            outcome_row(f, c, "others-affected",
                        "the other ranks' connections stopped being served");
    }
    fprintf(f, "  %-18s %-12s %-10s %s\n", "server-wedged", "FAIL", "ERR-18",
            "--launch: the next launch could not start (the server kept this job)");
    if (c->needs & PCF_NEED_ACCEPTED)
        fprintf(f, "  %-18s %-12s %-10s %s\n", "protocol-refused", "UNSUPPORTED", "INIT-8",
                "the server refused this protocol at init, as INIT-8 allows");
    for (unsigned b = PCF_NEED_NAMESERV; b && b <= PCF_NEED_NAMESERV; b <<= 1)
        if (c->needs & b)
            fprintf(f, "  %-18s %-12s %-10s %s\n", "needs-absent", "UNSUPPORTED",
                    pcf_need_clause(b), "the start-up probe found the optional feature missing");
    outcome_row(f, c, "(anything else)", "any other deviation");
    fputs("  *: graded from the clause's level (MUST: FAIL, SHOULD: NON-STRICT, MAY: INFO;\n"
          "     a clause marked \"graded NON-STRICT\": NON-STRICT); --strict turns\n"
          "     NON-STRICT into FAIL.  The worst verdict over the ranks is the case's.\n",
          f);
}

static void print_flags(FILE *f, const pcf_case *c)
{
    bool v1 = c->flags & PCF_V1, v2 = c->flags & PCF_V2;
    fprintf(f, "  protocol: %s\n",
            v1 && v2 ? "PMI-1 or PMI-2" : v1 ? "PMI-1 (a PMI-1 session; --pmi 1 as the job)"
                                             : "PMI-2");
    if (c->flags & PCF_COLLECTIVE)
        fputs("  destructive and collective: it may end the job and every rank takes part,\n"
              "    so it runs only in a launch of its own (--launch; SKIPPED as the job)\n",
              f);
    else if (c->flags & PCF_ALONE)
        fputs("  destructive and alone: it may break its connection or end the job, and it\n"
              "    reads what another destructive case may leave behind for good, so with\n"
              "    --launch it runs in a launch of its own, on one victim rank\n",
              f);
    else if (c->flags & PCF_DESTRUCTIVE)
        fputs("  destructive: it may break its connection or end the job, so it runs on a\n"
              "    victim rank after the other cases (--launch: in a launch of its own\n"
              "    with other destructive cases, one at a time)\n",
              f);
    else
        fputs("  not destructive: it runs with the other cases in one launch\n", f);
    if (c->flags & PCF_LOCAL)
        fputs("  local: it grades the start-up exchange already recorded (no new request)\n", f);
    if (c->min_ranks > 1)
        fprintf(f, "  ranks: at least %d (SKIPPED in a smaller job)\n", c->min_ranks);
    else
        fputs("  ranks: any job size\n", f);
    if (c->min_nodes > 1)
        fprintf(f, "  nodes: ranks on at least %d hosts (the node map the ranks learn at "
                   "start-up;\n    SKIPPED \"needs %d nodes\" on fewer)\n", c->min_nodes,
                c->min_nodes);
    if (pcf_placed(c))
        fputs("  placement: its verdict can depend on where the ranks run; it chooses its\n"
              "    ranks by host, and --nodes 1,2 runs it under each shape\n", f);
    if (c->timeout_ms)
        fprintf(f, "  deadline: %u ms of its own (not --timeout)\n", c->timeout_ms);
    if (c->needs & PCF_NEED_ACCEPTED)
        fputs("  needs: the server to accept the case's protocol at init (else UNSUPPORTED,\n"
              "    INIT-8)\n",
              f);
    if (c->needs & PCF_NEED_NAMESERV)
        fputs("  needs: a name service, optional by NAME-8 (probed at start-up; absent:\n"
              "    UNSUPPORTED)\n",
              f);
    if (c->soft_needs & PCF_NEED_SPAWN)
        fputs("  probes: PMI-1 spawn (a spawn of /bin/true at start-up); when the server\n"
              "    refuses every spawn the case still runs, and its error answer is\n"
              "    UNSUPPORTED (spawn-refused); a crash or silence is still graded\n",
              f);
}

static void print_run(FILE *f, const pcf_case *c)
{
    bool v1only = (c->flags & PCF_V1) && !(c->flags & PCF_V2);
    int n = c->min_ranks > 2 ? c->min_ranks : 2;
    fprintf(f, "  pmi2-conform server --launch 'mpiexec -n {n}' %s\n", c->id);
    if (c->flags & PCF_COLLECTIVE)
        fputs("  (as the job it is SKIPPED: it needs --launch)\n", f);
    else
        fprintf(f, "  mpiexec -n %d pmi2-conform server%s %s      (as the job)\n", n,
                v1only ? " --pmi 1" : "", c->id);
    fprintf(f, "  pmi2-conform server --launch 'pmi-mockserver -n {n} --' %s   (the mock server)\n",
            c->id);
    fputs("  Put your launcher in place of mpiexec; -v shows the launch and what it printed,\n"
          "  --json DIR keeps every byte each rank sent and received.\n",
          f);
}

static void explain_one(FILE *f, const pcf_entry *e)
{
    const pcf_case *c = e->c;
    fprintf(f, "%s\n", c->id);
    wrap(f, c->desc, 2);
    section(f, "Clause");
    print_clause(f, c->clause);
    section(f, "What it does");
    if (c->steps) {
        print_steps(f, c->steps);
        if (strstr(c->steps, "<tag>"))
            fputs("  <tag>: unique to each run of the case (\"c7i0\"), so no key is reused.\n", f);
    } else {
        fputs("  No step-by-step text for this case yet: the description above and \"Passes\n"
              "  when\" below say what it checks, its source says how.\n",
              f);
    }
    /* the path from the source tree's top, not the build machine's */
    const char *src = strstr(e->file, "conformance/");
    fprintf(f, "  source: %s\n", src ? src : e->file);
    section(f, "Passes when");
    wrap(f, c->expected, 2);
    section(f, "Outcomes");
    print_outcomes(f, c);
    section(f, "Flags");
    print_flags(f, c);
    section(f, "Run it alone");
    print_run(f, c);
}

/* Levenshtein distance, bounded by the lengths of case ids. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 200 || lb > 200)
        return (size_t)-1;
    size_t row[201];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* The ids nearest to what was asked: an edit away, or naming its last part. */
static void close_matches(FILE *f, const char *want)
{
    size_t n;
    const pcf_entry *e = pcf_cases(&n);
    const char *tail = strrchr(want, '/');
    tail = tail ? tail + 1 : want;
    enum { MAXM = 8 };
    const char *best[MAXM];
    size_t bd[MAXM], nb = 0;
    size_t limit = strlen(want) / 4 + 2;
    for (size_t i = 0; i < n; i++) {
        const char *id = e[i].c->id;
        size_t d = distance(want, id);
        /* the last part of the id cut to the length typed: a name typed
         * short or misspelt ("fenc-vis") is still found, and ranked by it */
        const char *it = strrchr(id, '/');
        it = it ? it + 1 : id;
        char pre[128];
        size_t tl = strlen(tail);
        snprintf(pre, sizeof pre, "%.*s", (int)tl, it);
        size_t whole = tl >= 3 ? distance(tail, it) : (size_t)-1;
        size_t part = tl >= 3 ? distance(tail, pre) + 1 : (size_t)-1; /* +1: a prefix only */
        size_t dt = whole < part ? whole : part;
        bool near_tail = dt <= tl / 4 + 1;
        if (near_tail && dt + 1 < d)
            d = dt + 1;
        if (d > limit && !near_tail && !(tl >= 3 && strstr(id, tail)))
            continue;
        /* keep the MAXM nearest, in order */
        size_t k = nb < MAXM ? nb++ : MAXM;
        if (k == MAXM && d >= bd[MAXM - 1])
            continue;
        if (k == MAXM)
            k--;
        while (k > 0 && bd[k - 1] > d) {
            best[k] = best[k - 1];
            bd[k] = bd[k - 1];
            k--;
        }
        best[k] = id;
        bd[k] = d;
    }
    if (!nb) {
        fputs("pmi2-conform: no case is close; pmi2-conform --list shows them all\n", f);
        return;
    }
    fputs("close matches:\n", f);
    for (size_t i = 0; i < nb; i++)
        fprintf(f, "  %s\n", best[i]);
}

static void explain_usage(FILE *f)
{
    fputs("usage: pmi2-conform explain CASE|GLOB...\n"
          "\n"
          "What a case checks and how it is graded: the SPEC.md clause it cites (quoted),\n"
          "what it does step by step, the outcome table (outcome -> verdict, clause,\n"
          "meaning), its flags and preconditions, and how to run it alone.  A glob\n"
          "(pmi2/kvs/*) or a section (pmi2/kvs) explains every case it selects.\n"
          "exit status: 0 explained, 2 a CASE that names no case (close matches listed).\n",
          f);
}

int pcf_explain_main(int argc, char **argv)
{
    int first = 1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            explain_usage(stdout);
            return PCF_EXIT_OK;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "pmi2-conform explain: unknown option '%s'; try 'pmi2-conform explain "
                            "--help'\n", argv[i]);
            return PCF_EXIT_USAGE;
        }
    if (argc < 2) {
        explain_usage(stderr);
        return PCF_EXIT_USAGE;
    }
    /* every argument is checked before anything is printed */
    for (int i = 1; i < argc; i++) {
        const pcf_entry *e = pcf_case_find(argv[i]);
        if (e)
            continue;
        size_t n;
        const pcf_entry *all = pcf_cases(&n);
        bool any = false;
        for (size_t k = 0; k < n && !any; k++)
            any = pcf_selected(all[k].c->id, argv + i, 1);
        if (!any && strncmp(argv[i], "client/", 7) == 0) {
            /* client mode's cases live in their own registry (client.c) */
            fprintf(stderr, "pmi2-conform explain: '%s': explain covers the server cases; "
                            "pmi2-conform --list client describes the client cases\n",
                    argv[i]);
            return PCF_EXIT_USAGE;
        }
        if (!any) {
            fprintf(stderr, "pmi2-conform explain: no case '%s'\n", argv[i]);
            close_matches(stderr, argv[i]);
            return PCF_EXIT_USAGE;
        }
    }
    for (int i = 1; i < argc; i++) {
        const pcf_entry *e = pcf_case_find(argv[i]);
        size_t n = 1;
        const pcf_entry *all = e;
        if (!e)
            all = pcf_cases(&n);
        for (size_t k = 0; k < n; k++) {
            if (!e && !pcf_selected(all[k].c->id, argv + i, 1))
                continue;
            if (!first)
                fputs("\n----------------------------------------------------------------------"
                      "--------\n\n",
                      stdout);
            first = 0;
            explain_one(stdout, &all[k]);
        }
    }
    return PCF_EXIT_OK;
}
