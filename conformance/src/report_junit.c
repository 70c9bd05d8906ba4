/* JUnit XML. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

static void xml(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if (*p < 0x20 && *p != '\n' && *p != '\t')
                fprintf(f, "\\x%02x", *p);
            else
                fputc(*p, f);
        }
    }
}

/* A failure or error of the run: with a baseline, a deviation only. */
static bool failing(const pcf_result *r, const pcf_opts *o)
{
    if (o->baseline)
        return r->deviation;
    return r->verdict == PCF_ERROR || pcf_verdict_failing(r->verdict, o->strict);
}

/* The requirement, what was expected and what each rank saw. */
static void detail(FILE *f, const pcf_result *r)
{
    const pcf_clause *cl = pcf_grading_clause(r);
    char exp[1200];
    if (cl) {
        fprintf(f, "[%s %s] ", cl->id, cl->level_text);
        xml(f, cl->text);
    }
    pcf_expected_text(r, exp, sizeof exp);
    fprintf(f, "\nExpected:\n");
    xml(f, exp);
    fprintf(f, "\nActual:\n");
    xml(f, r->actual);
    if (r->baseline_listed) {
        char b[80];
        fprintf(f, "\nBaseline expected %s", pcf_baseline_text(r, b, sizeof b));
    }
}

int pcf_report_junit(const pcf_results *rs, const pcf_opts *o, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"pmi2-conform\">\n");
    size_t i = 0;
    while (i < rs->n) {
        const char *sect = rs->r[i].e->section;
        size_t j = i, fails = 0, errs = 0, skips = 0;
        for (; j < rs->n && strcmp(rs->r[j].e->section, sect) == 0; j++) {
            const pcf_result *r = &rs->r[j];
            if (failing(r, o))
                r->verdict == PCF_ERROR && !o->baseline ? errs++ : fails++;
            else if (r->verdict == PCF_SKIPPED || r->verdict == PCF_UNSUPPORTED)
                skips++;
        }
        fprintf(f, "  <testsuite name=\"");
        xml(f, sect);
        fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n", j - i,
                fails, errs, skips);
        for (size_t k = i; k < j; k++) {
            const pcf_result *r = &rs->r[k];
            fprintf(f, "    <testcase classname=\"");
            xml(f, sect);
            fprintf(f, "\" name=\"");
            xml(f, r->e->c->id);
            fprintf(f, "\" time=\"%.3f\">\n", (double)r->usec / 1e6);
            if (failing(r, o)) {
                const char *tag = r->verdict == PCF_ERROR && !o->baseline ? "error" : "failure";
                char mark[80];
                pcf_baseline_mark(r, mark, sizeof mark);
                fprintf(f, "      <%s type=\"%s\" message=\"", tag, pcf_verdict_name(r->verdict));
                if (mark[0]) {
                    xml(f, mark);
                    fputc(' ', f);
                }
                xml(f, r->e->c->desc);
                fprintf(f, "\">");
                detail(f, r);
                fprintf(f, "</%s>\n", tag);
            } else if (r->verdict == PCF_SKIPPED || r->verdict == PCF_UNSUPPORTED) {
                fprintf(f, "      <skipped message=\"%s: ", pcf_verdict_name(r->verdict));
                xml(f, r->actual);
                fprintf(f, "\"/>\n");
            } else if (r->verdict != PCF_PASS) {
                /* NON-STRICT (a failure only under --strict), INFO: passing, said */
                fprintf(f, "      <system-out>%s: ", pcf_verdict_name(r->verdict));
                detail(f, r);
                fprintf(f, "</system-out>\n");
            }
            fprintf(f, "      <properties><property name=\"verdict\" value=\"%s\"/>"
                       "<property name=\"clause\" value=\"",
                    pcf_verdict_name(r->verdict));
            xml(f, r->clause);
            fprintf(f, "\"/>");
            if (r->reruns) {
                char note[200];
                pcf_rerun_note(r, note, sizeof note);
                fprintf(f, "<property name=\"rerun\" value=\"");
                xml(f, note);
                fprintf(f, "\"/>");
            }
            fprintf(f, "</properties>\n    </testcase>\n");
        }
        fprintf(f, "  </testsuite>\n");
        i = j;
    }
    fprintf(f, "</testsuites>\n");
    return fclose(f) == 0 ? 0 : -1;
}

