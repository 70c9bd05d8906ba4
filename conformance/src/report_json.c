/* The JSON directory: index.json, one JSON and one trace per case. */
#include "report.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void json_transcript(FILE *f, const pcf_merged *m)
{
    fprintf(f, "[");
    for (size_t i = 0; i < m->t.nevents; i++) {
        const pmt_event *e = &m->t.events[i];
        fprintf(f, "%s\n    { \"t\": %.6f, \"conn\": ", i ? "," : "", (double)e->usec / 1e6);
        pcf_json_cstr(f, e->conn);
        fprintf(f, ", \"event\": \"%s\"", pcf_ev_name(e));
        if (e->data) {
            fprintf(f, ", \"data\": ");
            pcf_json_str(f, e->data, e->len);
        }
        fprintf(f, " }");
    }
    fprintf(f, "%s]", m->t.nevents ? "\n  " : "");
}

int pcf_report_json_dir(pcf_results *rs, const pcf_opts *o)
{
    mkdir(o->json_dir, 0777);
    char path[1024];
    for (size_t i = 0; i < rs->n; i++) {
        pcf_result *r = &rs->r[i];
        const pcf_case *c = r->e->c;
        char safe[160];
        pcf_safe_name(c->id, safe, sizeof safe);
        pcf_merged m;
        pcf_merge_traces(rs, c, &m);
        /* a server case that did not pass (and ran) is a bug report; client
         * cases keep no wire session to replay yet */
        char repro[200] = "";
        if (r->verdict != PCF_PASS && r->verdict != PCF_SKIPPED &&
            strncmp(c->id, "client/", 7) != 0 &&
            pcf_repro_write(rs, o, r, repro, sizeof repro) != 0)
            repro[0] = 0;
        if (m.have) {
            snprintf(path, sizeof path, "%s/%s.trace", o->json_dir, safe);
            FILE *tf = fopen(path, "w");
            if (tf) {
                pmt_write(tf, &m.t, NULL, NULL);
                fclose(tf);
                free(r->trace);
                r->trace = strdup(path);
            }
        }
        snprintf(path, sizeof path, "%s/%s.json", o->json_dir, safe);
        FILE *f = fopen(path, "w");
        if (!f) {
            pmt_trace_free(&m.t);
            return -1;
        }
        const pcf_clause *cl = pcf_clause_get(c->clause);
        fprintf(f, "{\n  \"id\": ");
        pcf_json_cstr(f, c->id);
        fprintf(f, ",\n  \"section\": ");
        pcf_json_cstr(f, r->e->section);
        fprintf(f, ",\n  \"description\": ");
        pcf_json_cstr(f, c->desc);
        fprintf(f, ",\n  \"clause\": ");
        pcf_json_cstr(f, c->clause);
        fprintf(f, ",\n  \"level\": ");
        pcf_json_cstr(f, cl ? cl->level_text : "");
        fprintf(f, ",\n  \"requirement\": ");
        pcf_json_cstr(f, cl ? cl->text : "");
        fprintf(f, ",\n  \"expected\": ");
        pcf_json_cstr(f, c->expected);
        fprintf(f, ",\n  \"outcomes\": [");
        for (int k = 0; k < PCF_MAX_OUTCOMES && c->outcomes[k].name; k++) {
            const pcf_outcome *oc = &c->outcomes[k];
            fprintf(f, "%s{ \"outcome\": ", k ? ", " : "");
            pcf_json_cstr(f, oc->name);
            fprintf(f, ", \"verdict\": \"%s\", \"clause\": ",
                    oc->verdict == PCF_DEVIATES ? "by clause level" : pcf_verdict_name(oc->verdict));
            pcf_json_cstr(f, oc->clause ? oc->clause : c->clause);
            fprintf(f, " }");
        }
        fprintf(f, "],\n  \"verdict\": \"%s\",\n  \"outcome\": ", pcf_verdict_name(r->verdict));
        pcf_json_cstr(f, r->outcome);
        fprintf(f, ",\n  \"graded_by\": ");
        pcf_json_cstr(f, r->clause);
        fprintf(f, ",\n  \"actual\": ");
        pcf_json_cstr(f, r->actual);
        fprintf(f, ",\n  \"runs\": %d,\n  \"duration_ms\": %.3f,\n  \"trace\": ", r->runs,
                (double)r->usec / 1e3);
        if (m.have) {
            char tn[200];
            snprintf(tn, sizeof tn, "%s.trace", safe);
            pcf_json_cstr(f, tn);
        } else {
            fprintf(f, "null");
        }
        fprintf(f, ",\n  \"repro\": ");
        if (repro[0])
            pcf_json_cstr(f, repro);
        else
            fprintf(f, "null");
        fprintf(f, ",\n  \"transcript\": ");
        json_transcript(f, &m);
        fprintf(f, "\n}\n");
        fclose(f);
        pmt_trace_free(&m.t);
    }
    snprintf(path, sizeof path, "%s/index.json", o->json_dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    char line[400];
    pcf_summary_line(rs, line, sizeof line);
    size_t c[PCF_V_COUNT];
    pcf_count_verdicts(rs, c);
    fprintf(f, "{\n  \"tool\": \"pmi2-conform\",\n  \"version\": \"%s\",\n  \"target\": ",
            PCF_TOOL_VERSION);
    pcf_json_cstr(f, rs->target);
    fprintf(f, ",\n  \"command_line\": ");
    pcf_json_cstr(f, o->cmdline);
    fprintf(f, ",\n  \"date\": ");
    pcf_json_cstr(f, pcf_run_date(rs));
    char why[600];
    fprintf(f, ",\n  \"verdict\": ");
    pcf_json_cstr(f, pcf_run_verdict(rs, o, why, sizeof why));
    fprintf(f, ",\n  \"verdict_why\": ");
    pcf_json_cstr(f, why);
    if (rs->nodes > 0) { /* the node map the ranks learned (the widest launch) */
        fprintf(f, ",\n  \"nodes\": %d,\n  \"hosts\": ", rs->nodes);
        pcf_json_cstr(f, rs->hosts);
    }
    fprintf(f, ",\n  \"strict\": %s,\n  \"seconds\": %.3f,\n  \"summary\": ",
            o->strict ? "true" : "false", rs->seconds);
    pcf_json_cstr(f, line);
    fprintf(f, ",\n  \"counts\": {");
    for (int v = 0; v < PCF_V_COUNT; v++)
        fprintf(f, "%s\"%s\": %zu", v ? ", " : " ", pcf_verdict_name(v), c[v]);
    fprintf(f, " },\n  \"exit_code\": %d,\n  \"cases\": {", pcf_exit_code(rs, o));
    for (size_t i = 0; i < rs->n; i++) {
        const pcf_result *r = &rs->r[i];
        char safe[160];
        pcf_safe_name(r->e->c->id, safe, sizeof safe);
        fprintf(f, "%s\n    ", i ? "," : "");
        pcf_json_cstr(f, r->e->c->id);
        fprintf(f, ": { \"verdict\": \"%s\", \"outcome\": ", pcf_verdict_name(r->verdict));
        pcf_json_cstr(f, r->outcome);
        fprintf(f, ", \"clause\": ");
        pcf_json_cstr(f, r->e->c->clause);
        fprintf(f, ", \"duration_ms\": %.3f, \"report\": \"%s.json\"", (double)r->usec / 1e3,
                safe);
        if (r->nodes > 0)
            fprintf(f, ", \"nodes\": %d", r->nodes);
        if (r->verdict != PCF_PASS && r->verdict != PCF_SKIPPED &&
            strncmp(r->e->c->id, "client/", 7) != 0)
            fprintf(f, ", \"repro\": \"repro/%s\"", safe);
        if (o->baseline) {
            fprintf(f, ", \"deviation\": %s", r->deviation ? "true" : "false");
            if (r->baseline_listed) /* a deviation's old -> new */
            {
                fprintf(f, ", \"baseline_verdict\": \"%s\"",
                        pcf_verdict_name(r->baseline_verdict));
                if (r->baseline_also) {
                    fprintf(f, ", \"baseline_also\": [");
                    for (int v = 0, k = 0; v < 32; v++)
                        if (r->baseline_also & 1u << v)
                            fprintf(f, "%s\"%s\"", k++ ? ", " : "", pcf_verdict_name(v));
                    fprintf(f, "]");
                }
            }
        }
        if (r->reruns) {
            fprintf(f, ", \"reruns\": %d, \"first_verdict\": \"%s\", \"first_outcome\": ",
                    r->reruns, pcf_verdict_name(r->first_verdict));
            pcf_json_cstr(f, r->first_outcome);
        }
        fprintf(f, " }");
    }
    fprintf(f, "\n  }");
    /* --nodes 1,2: the further shapes' placement-dependent cases */
    if (rs->nodes_asked > 0)
        fprintf(f, ",\n  \"nodes_asked\": %d", rs->nodes_asked);
    if (rs->nalt) {
        fprintf(f, ",\n  \"shapes\": [");
        for (size_t k = 0; k < rs->nalt; k++) {
            const pcf_results *a = &rs->alt[k];
            pcf_summary_line(a, line, sizeof line);
            fprintf(f, "%s\n    { \"nodes_asked\": %d, \"nodes\": %d, \"hosts\": ", k ? "," : "",
                    a->nodes_asked, a->nodes);
            pcf_json_cstr(f, a->hosts);
            fprintf(f, ", \"summary\": ");
            pcf_json_cstr(f, line);
            fprintf(f, ", \"cases\": {");
            for (size_t i = 0; i < a->n; i++) {
                const pcf_result *r = &a->r[i];
                fprintf(f, "%s\n      ", i ? "," : "");
                pcf_json_cstr(f, r->e->c->id);
                fprintf(f, ": { \"verdict\": \"%s\", \"outcome\": ", pcf_verdict_name(r->verdict));
                pcf_json_cstr(f, r->outcome);
                fprintf(f, ", \"clause\": ");
                pcf_json_cstr(f, r->clause[0] ? r->clause : r->e->c->clause);
                if (r->nodes > 0)
                    fprintf(f, ", \"nodes\": %d", r->nodes);
                fprintf(f, ", \"actual\": ");
                pcf_json_cstr(f, r->actual ? r->actual : "");
                fprintf(f, " }");
            }
            fprintf(f, "\n    } }");
        }
        fprintf(f, "\n  ]");
    }
    fprintf(f, "\n}\n");
    return fclose(f) == 0 ? 0 : -1;
}

