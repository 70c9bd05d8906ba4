/* Result records, the per-launch results file, and the baseline. */
#include "internal.h"
#include "pmitrace/trace.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

pcf_result *pcf_results_get(pcf_results *rs, const pcf_entry *e)
{
    for (size_t i = 0; i < rs->n; i++)
        if (rs->r[i].e == e)
            return &rs->r[i];
    pcf_result *nr = realloc(rs->r, (rs->n + 1) * sizeof *nr);
    if (!nr) {
        fprintf(stderr, "pmi2-conform: out of memory\n");
        exit(PCF_EXIT_USAGE);
    }
    rs->r = nr;
    pcf_result *r = &rs->r[rs->n++];
    memset(r, 0, sizeof *r);
    r->e = e;
    r->verdict = PCF_SKIPPED;
    r->baseline_verdict = -1;
    return r;
}

static void set_str(char **dst, const char *s)
{
    free(*dst);
    *dst = s ? strdup(s) : NULL;
}

void pcf_result_add_run(pcf_result *r, int verdict, const char *outcome, const char *clause,
                        const char *actual, uint64_t usec)
{
    r->seen |= 1u << verdict;
    r->runs++;
    /* --repeat: differing verdicts make the case FLAKY; the worst run's
     * details are kept so the report shows what went wrong. */
    bool flaky = (r->seen & (r->seen - 1)) != 0;
    if (r->runs == 1 || pcf_verdict_severity(verdict) > pcf_verdict_severity(r->worst)) {
        snprintf(r->outcome, sizeof r->outcome, "%s", outcome ? outcome : "");
        snprintf(r->clause, sizeof r->clause, "%s", clause ? clause : "");
        set_str(&r->actual, actual);
        r->usec = usec;
        r->worst = verdict;
    }
    r->verdict = flaky ? PCF_FLAKY : verdict;
}

void pcf_result_regrade(pcf_result *r, int verdict, const char *outcome, const char *clause,
                        const char *actual)
{
    r->runs = 0;
    r->seen = 0;
    pcf_result_add_run(r, verdict, outcome, clause, actual, r->usec);
}

void pcf_result_forget(pcf_result *r)
{
    r->runs = 0;
    r->seen = 0;
    r->verdict = PCF_SKIPPED;
    free(r->actual);
    r->actual = NULL;
}

void pcf_result_skip(pcf_result *r, const char *why)
{
    r->verdict = PCF_SKIPPED;
    snprintf(r->outcome, sizeof r->outcome, "skipped");
    set_str(&r->actual, why);
}

void pcf_results_free(pcf_results *rs)
{
    for (size_t i = 0; i < rs->n; i++) {
        free(rs->r[i].actual);
        free(rs->r[i].trace);
    }
    free(rs->r);
    rs->r = NULL;
    rs->n = 0;
    for (size_t k = 0; k < rs->nalt; k++)
        pcf_results_free(&rs->alt[k]);
    free(rs->alt);
    rs->alt = NULL;
    rs->nalt = 0;
}

/* ---------------------------------------------------------------- results file
 *
 * One line per event, fields separated by one tab, text fields escaped with
 * the trace format's escaping (so a tab or newline in a detail is safe):
 *   start <id> <iter>
 *   result <id> <iter> <VERDICT> <outcome> <clause> <usec> <actual>
 *   skip <id> <why>
 *   nodes <count> <hosts>      (rank 0: the node map, "host: ranks; ...")
 */

void pcf_put_escaped(FILE *f, const char *s, size_t n)
{
    size_t need = pmt_escaped_len(s, n) + 1;
    char *b = malloc(need);
    if (!b)
        return;
    pmt_escape(s, n, b, need);
    fputs(b, f);
    free(b);
}

/* Every rank of a child job writes its own "start" line (the 4th field is
 * the rank) the moment it begins a case, so a job that one rank kills is
 * blamed on the case that rank was running, not on the case rank 0 had
 * last written.  One fprintf + fflush on an O_APPEND stream is one write():
 * lines of different ranks do not interleave. */
int pcf_resfile_start(FILE *f, const char *id, int iter, int rank)
{
    return fprintf(f, "start\t%s\t%d\t%d\n", id, iter, rank) < 0 ? -1 : 0;
}

/* Rank 0 finished: every result is written, its own connection was checked
 * after the last case and finalized.  A launcher that fails after this is
 * reacting to a victim leaving without finalize, which the harness chose. */
int pcf_resfile_done(FILE *f)
{
    return fputs("done\n", f) == EOF ? -1 : 0;
}

int pcf_resfile_result(FILE *f, const char *id, int iter, int verdict, const char *outcome,
                       const char *clause, uint64_t usec, const char *actual)
{
    fprintf(f, "result\t%s\t%d\t%s\t%s\t%s\t%llu\t", id, iter, pcf_verdict_name(verdict), outcome,
            clause, (unsigned long long)usec);
    pcf_put_escaped(f, actual ? actual : "", actual ? strlen(actual) : 0);
    return fputc('\n', f) == EOF ? -1 : 0;
}

int pcf_resfile_nodes(FILE *f, int nodes, const char *hosts)
{
    fprintf(f, "nodes\t%d\t", nodes);
    pcf_put_escaped(f, hosts, strlen(hosts));
    return fputc('\n', f) == EOF ? -1 : 0;
}

int pcf_resfile_skip(FILE *f, const char *id, const char *why)
{
    fprintf(f, "skip\t%s\t", id);
    pcf_put_escaped(f, why, strlen(why));
    return fputc('\n', f) == EOF ? -1 : 0;
}

int pcf_resfile_alive(FILE *f, int rank, long pid)
{
    return fprintf(f, "alive\t%d\t%ld\n", rank, pid) < 0 ? -1 : 0;
}

int pcf_resfile_lost(FILE *f, const char *after_id, const char *why)
{
    fprintf(f, "lost\t%s\t", after_id);
    pcf_put_escaped(f, why, strlen(why));
    return fputc('\n', f) == EOF ? -1 : 0;
}

int pcf_resfile_obs(FILE *f, const char *id, int iter, int rank, int verdict,
                    const char *outcome, const char *clause, const char *detail)
{
    fprintf(f, "obs\t%s\t%d\t%d\t%s\t%s\t%s\t", id, iter, rank, pcf_verdict_name(verdict),
            outcome, clause);
    pcf_put_escaped(f, detail ? detail : "", detail ? strlen(detail) : 0);
    return fputc('\n', f) == EOF ? -1 : 0;
}

char *pcf_unescape(const char *s)
{
    size_t n = strlen(s), ol = 0, ep;
    char *o = malloc(n + 1);
    if (!o)
        return NULL;
    if (pmt_unescape(s, n, o, &ol, &ep, NULL, 0) != 0) {
        memcpy(o, s, n + 1);
        return o;
    }
    o[ol] = 0;
    return o;
}

/* The case runs ("id", iteration) that have a result line so far. */
typedef struct graded_set {
    char **ids;
    int *iters;
    size_t n;
} graded_set;

static bool graded_has(const graded_set *g, const char *id, int iter)
{
    for (size_t i = g->n; i-- > 0;)
        if (g->iters[i] == iter && strcmp(g->ids[i], id) == 0)
            return true;
    return false;
}

static void graded_add(graded_set *g, const char *id, int iter)
{
    char **ni = realloc(g->ids, (g->n + 1) * sizeof *ni);
    if (ni)
        g->ids = ni;
    int *nt = realloc(g->iters, (g->n + 1) * sizeof *nt);
    if (nt)
        g->iters = nt;
    char *d = strdup(id);
    if (!ni || !nt || !d) {
        free(d);
        return;
    }
    g->ids[g->n] = d;
    g->iters[g->n++] = iter;
}

static void graded_free(graded_set *g)
{
    for (size_t i = 0; i < g->n; i++)
        free(g->ids[i]);
    free(g->ids);
    free(g->iters);
}

/* "obs" lines: merged into the case's result once every line is read (a
 * rank's channel may deliver its line before rank 0's result). */
typedef struct obs_line {
    const pcf_entry *e;
    int rank, verdict;
    char outcome[48], clause[24];
    char *detail;
} obs_line;

static void merge_obs(pcf_results *rs, const obs_line *ob, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        pcf_result *r = pcf_results_get(rs, ob[i].e);
        if (!r->runs)
            continue; /* rank 0 never graded it: the launch's end grades it */
        const char *was = r->actual ? r->actual : "", *d = ob[i].detail ? ob[i].detail : "";
        char tag[24];
        int tl = snprintf(tag, sizeof tag, "r%d ", ob[i].rank);
        bool had = strncmp(was, tag, (size_t)tl) == 0;
        for (const char *p = strchr(was, '\n'); p && !had; p = strchr(p + 1, '\n'))
            had = strncmp(p + 1, tag, (size_t)tl) == 0;
        if (had)
            continue; /* rank 0 read this rank's word after all */
        size_t an = strlen(was) + strlen(ob[i].outcome) + strlen(d) + 32;
        char *a = malloc(an);
        if (a)
            snprintf(a, an, "%s%sr%d %s: %s", was, *was ? "\n" : "", ob[i].rank, ob[i].outcome, d);
        /* the worst verdict wins; at the same verdict, what a rank saw of the
         * case itself beats rank 0's inference from the refused fence */
        int sv = pcf_verdict_severity(ob[i].verdict), sr = pcf_verdict_severity(r->worst);
        bool worse = sv > sr || (sv == sr && strcmp(r->outcome, "job-killed") == 0 &&
                                 strcmp(ob[i].outcome, "job-killed") != 0);
        if (worse) {
            snprintf(r->outcome, sizeof r->outcome, "%s", ob[i].outcome);
            snprintf(r->clause, sizeof r->clause, "%s", ob[i].clause);
            r->worst = ob[i].verdict;
            if (r->runs == 1)
                r->seen = 1u << ob[i].verdict;
            else
                r->seen |= 1u << ob[i].verdict;
            bool flaky = (r->seen & (r->seen - 1)) != 0;
            r->verdict = flaky ? PCF_FLAKY : ob[i].verdict;
        }
        if (a) {
            free(r->actual);
            r->actual = a;
        }
    }
}

int pcf_resfile_read(const char *path, pcf_results *rs, pcf_resinfo *in)
{
    memset(in, 0, sizeof *in);
    obs_line *obs = NULL;
    size_t nobs = 0;
    int open_iter = -1;
    graded_set graded = { 0 };
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT ? 0 : -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] != '\n')
            break; /* a line still being written */
        line[--len] = 0;
        char *fld[8] = { 0 };
        int nf = 0;
        char *p = line;
        while (nf < 8) {
            fld[nf++] = p;
            char *t = strchr(p, '\t');
            if (!t)
                break;
            *t = 0;
            p = t + 1;
        }
        if (strcmp(fld[0], "done") == 0) {
            in->done = true;
            continue;
        }
        if (strcmp(fld[0], "alive") == 0 && nf >= 3) {
            in->alive++;
            if (in->npids < PCF_RES_MAXPIDS)
                in->pids[in->npids++] = strtol(fld[2], NULL, 10);
            continue;
        }
        if (strcmp(fld[0], "nodes") == 0 && nf >= 3) {
            in->nodes = atoi(fld[1]);
            char *a = pcf_unescape(fld[2]);
            snprintf(in->hosts, sizeof in->hosts, "%s", a ? a : "");
            free(a);
            continue;
        }
        if (strcmp(fld[0], "lost") == 0 && nf >= 3) {
            in->lost = true;
            snprintf(in->lost_after, sizeof in->lost_after, "%s", fld[1]);
            char *a = pcf_unescape(fld[2]);
            snprintf(in->lost_why, sizeof in->lost_why, "%s", a ? a : "");
            free(a);
            continue;
        }
        if (nf < 2)
            continue;
        const pcf_entry *e = pcf_case_find(fld[1]);
        if (!e)
            continue; /* a newer child than this parent: ignore what it cannot name */
        if (strcmp(fld[0], "start") == 0) {
            /* Each rank reports on its own connection (relay.c), so a rank's
             * "start" may land after rank 0's result for that case: a case
             * run that has its result is not reopened. */
            if (graded_has(&graded, fld[1], nf >= 3 ? atoi(fld[2]) : 0))
                continue;
            /* the latest case any rank began: when one rank starts case B,
             * every rank has passed the exchange that closed the case before */
            snprintf(in->open_id, sizeof in->open_id, "%s", fld[1]);
            snprintf(in->last_started, sizeof in->last_started, "%s", fld[1]);
            open_iter = nf >= 3 ? atoi(fld[2]) : 0;
        } else if (strcmp(fld[0], "result") == 0 && nf == 8) {
            int v = pcf_verdict_parse(fld[3]);
            if (v < 0)
                continue;
            if (rs) {
                char *a = pcf_unescape(fld[7]);
                pcf_result *r = pcf_results_get(rs, e);
                pcf_result_add_run(r, v, fld[4], fld[5], a, strtoull(fld[6], NULL, 10));
                if (r)
                    r->nodes = in->nodes;
                free(a);
            }
            graded_add(&graded, fld[1], atoi(fld[2]));
            if (strcmp(in->open_id, fld[1]) == 0 && atoi(fld[2]) == open_iter)
                in->open_id[0] = 0;
        } else if (strcmp(fld[0], "obs") == 0 && nf == 8 && rs) {
            int v = pcf_verdict_parse(fld[4]);
            obs_line *no = v < 0 ? NULL : realloc(obs, (nobs + 1) * sizeof *obs);
            if (no) {
                obs = no;
                obs_line *ob = &obs[nobs++];
                ob->e = e;
                ob->rank = atoi(fld[3]);
                ob->verdict = v;
                snprintf(ob->outcome, sizeof ob->outcome, "%s", fld[5]);
                snprintf(ob->clause, sizeof ob->clause, "%s", fld[6]);
                ob->detail = pcf_unescape(fld[7]);
            }
        } else if (strcmp(fld[0], "skip") == 0 && nf >= 3) {
            if (rs) {
                char *a = pcf_unescape(fld[2]);
                pcf_result *r = pcf_results_get(rs, e);
                pcf_result_skip(r, a);
                if (r)
                    r->nodes = in->nodes;
                free(a);
            }
        }
    }
    free(line);
    fclose(f);
    graded_free(&graded);
    if (rs)
        merge_obs(rs, obs, nobs);
    for (size_t i = 0; i < nobs; i++)
        free(obs[i].detail);
    free(obs);
    return 0;
}

/* ---------------------------------------------------------------- baseline
 *
 *   { "pmi2-conform-baseline": 1,
 *     "cases": { "<id>": { "verdict": "FAIL", "justification": "why this is expected" } } }
 *
 * An entry may accept other verdicts too ("also": ["TIMEOUT"]) where the
 * target's outcome is a race of its own: its justification says which.
 * A listed case deviates when its verdict is none of these; an unlisted case deviates
 * when it fails (FAIL, ERROR, TIMEOUT, FLAKY; NON-STRICT with --strict).  A
 * case that did not run (SKIPPED) never deviates.
 *
 * A published report (the index.json of --json: "tool": "pmi2-conform")
 * serves as a baseline too: it lists every case with the verdict it had,
 * so the run must give each case the same verdict (the report is its own
 * justification), SKIPPED included. */

char *pcf_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    while (b) {
        size_t k = fread(b + n, 1, cap - n, f);
        n += k;
        if (n < cap)
            break;
        char *nb = realloc(b, cap *= 2);
        if (!nb) {
            free(b);
            b = NULL;
        } else {
            b = nb;
        }
    }
    fclose(f);
    *len = n;
    return b;
}

/* A baseline's problem, to err (NULL: said elsewhere, or not at all). */
static void say(FILE *err, const char *fmt, ...)
{
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(err, fmt, ap);
    va_end(ap);
}

int pcf_baseline_apply(pcf_results *rs, const char *path, bool strict, FILE *err)
{
    size_t len;
    char *text = pcf_slurp(path, &len);
    if (!text) {
        say(err, "pmi2-conform: baseline %s: %s\n", path, strerror(errno));
        return -1;
    }
    char perr[200];
    pcf_jv *root = pcf_json_parse(text, len, perr, sizeof perr);
    free(text);
    if (!root) {
        say(err, "pmi2-conform: baseline %s: %s\n", path, perr);
        return -1;
    }
    const pcf_jv *cases = pcf_json_get(root, "cases");
    if (!cases) {
        say(err, "pmi2-conform: baseline %s: no \"cases\" object\n", path);
        pcf_json_free(root);
        return -1;
    }
    const char *tool = pcf_json_string(pcf_json_get(root, "tool"));
    bool published = tool && strcmp(tool, "pmi2-conform") == 0;
    int bad = 0;
    for (size_t i = 0; i < pcf_json_count(cases); i++) {
        const char *id;
        const pcf_jv *ent = pcf_json_member(cases, i, &id);
        const char *vs = pcf_json_string(pcf_json_get(ent, "verdict"));
        const char *why = pcf_json_string(pcf_json_get(ent, "justification"));
        int v = vs ? pcf_verdict_parse(vs) : -1;
        if (!id || v < 0) {
            say(err, "pmi2-conform: baseline %s: case %s: missing or unknown verdict\n", path,
                    id ? id : "?");
            bad = 1;
            continue;
        }
        if ((!why || !*why) && !published && v != PCF_PASS) {
            say(err, "pmi2-conform: baseline %s: case %s: every entry that is not PASS needs "
                         "a written justification\n", path, id);
            bad = 1;
            continue;
        }
        unsigned also = 0;
        /* a published report keeps what the baseline it ran with accepted */
        const pcf_jv *alsov = pcf_json_get(ent, published ? "baseline_also" : "also");
        for (size_t a = 0; alsov && a < pcf_json_count(alsov); a++) {
            const char *as = pcf_json_string(pcf_json_member(alsov, a, NULL));
            int av = as ? pcf_verdict_parse(as) : -1;
            if (av < 0) {
                say(err, "pmi2-conform: baseline %s: case %s: \"also\" holds an unknown verdict "
                         "(%s)\n", path, id, as ? as : "not a string");
                bad = 1;
                break;
            }
            also |= 1u << av;
        }
        /* ... and the verdict that baseline listed beside them: the set
         * stays the same whichever of them the published run gave */
        const char *bvs = published && alsov ? pcf_json_string(pcf_json_get(ent, "baseline_verdict"))
                                             : NULL;
        int bv = bvs ? pcf_verdict_parse(bvs) : -1;
        if (bv >= 0)
            also |= 1u << bv;
        for (size_t k = 0; k < rs->n; k++)
            if (strcmp(rs->r[k].e->c->id, id) == 0) {
                rs->r[k].baseline_listed = true;
                rs->r[k].baseline_verdict = v;
                rs->r[k].baseline_also = also;
            }
    }
    pcf_json_free(root);
    if (bad)
        return -1;
    for (size_t k = 0; k < rs->n; k++) {
        pcf_result *r = &rs->r[k];
        if (r->verdict == PCF_SKIPPED && !(published && r->baseline_listed))
            r->deviation = false; /* not run here (another mode or protocol): nothing to compare */
        else if (r->baseline_listed)
            r->deviation = r->verdict != r->baseline_verdict &&
                           !(r->baseline_also & 1u << r->verdict);
        else
            r->deviation = pcf_verdict_failing(r->verdict, strict);
    }
    return 0;
}

int pcf_baseline_write(const pcf_results *rs, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "{\n  \"pmi2-conform-baseline\": 1,\n  \"target\": ");
    pcf_json_cstr(f, rs->target);
    fprintf(f, ",\n  \"cases\": {");
    bool first = true;
    for (size_t i = 0; i < rs->n; i++) {
        const pcf_result *r = &rs->r[i];
        /* every case, PASS included: any change of verdict is then a deviation */
        fprintf(f, "%s\n    ", first ? "" : ",");
        first = false;
        pcf_json_cstr(f, r->e->c->id);
        fprintf(f, ": { \"verdict\": \"%s\"", pcf_verdict_name(r->verdict));
        if (r->verdict == PCF_PASS) {
            fprintf(f, " }");
            continue;
        }
        fprintf(f, ", \"justification\": ");
        char just[900];
        snprintf(just, sizeof just, "recorded: %s%s%s", r->outcome,
                 r->actual && *r->actual ? ": " : "", r->actual ? r->actual : "");
        for (char *p = just; *p; p++)
            if (*p == '\n')
                *p = ' ';
        pcf_json_cstr(f, just);
        fprintf(f, " }");
    }
    fprintf(f, "\n  }\n}\n");
    return fclose(f) == 0 ? 0 : -1;
}
