/* TAP on standard output. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

void pcf_report_tap(const pcf_results *rs, const pcf_opts *o, FILE *f)
{
    fprintf(f, "TAP version 13\n1..%zu\n", rs->n);
    for (size_t i = 0; i < rs->n; i++) {
        const pcf_result *r = &rs->r[i];
        bool bad = o->baseline ? r->deviation : pcf_verdict_failing(r->verdict, o->strict);
        fprintf(f, "%s %zu - %s", bad ? "not ok" : "ok", i + 1, r->e->c->id);
        if (r->verdict == PCF_SKIPPED)
            fprintf(f, " # SKIP %s\n", r->actual ? r->actual : "");
        else if (r->reruns) {
            char note[200];
            pcf_rerun_note(r, note, sizeof note);
            fprintf(f, " # %s; %s\n", pcf_verdict_name(r->verdict), note);
        } else
            fprintf(f, " # %s\n", pcf_verdict_name(r->verdict));
        if (!bad)
            continue;
        fprintf(f, "  ---\n  verdict: %s\n  clause: %s\n  outcome: %s\n  actual: |\n",
                pcf_verdict_name(r->verdict), r->clause, r->outcome);
        const char *p = r->actual ? r->actual : "";
        while (*p) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            fprintf(f, "    %.*s\n", (int)n, p);
            p += n + (nl ? 1 : 0);
        }
        fprintf(f, "  ...\n");
    }
}

