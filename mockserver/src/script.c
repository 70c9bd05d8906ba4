/* Server scripts: the "@server" directives of a pmi-trace v2 scenario file
 * (traces/README.md, "Server scripts") become faults (faults.c).  A
 * directive's trigger pattern and its per-connection occurrence count are
 * checked by the fault's accept callback; everything else maps one to one
 * onto a pms_fault. */
#include "pmiserver/server.h"
#include "pmitrace/match.h"
#include "pmitrace/trace.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct occ {
    int conn;
    uint32_t seen;
} occ;

typedef struct sdir {
    pms_script *sc;
    uint32_t line;
    pmt_saction action;
    pmt_trigger trig;
    uint32_t nth;      /* 0: every match; N: the Nth match of each connection */
    occ *occ;          /* matches per connection, for nth */
    size_t nocc, capocc;
    pmc_out body;      /* before/after: the bytes to send */
    int fault;         /* id from pms_fault_add, -1 before */
} sdir;

struct pms_script {
    char *path;
    pmt_vars *vars;    /* captures of trigger patterns (${name}) */
    sdir *d;
    size_t n;
};

#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
static void say(char *err, size_t errlen, const char *path, uint32_t line, uint32_t col,
                const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    pmt_error e = { .line = line, .column = col };
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.msg, sizeof e.msg, fmt, ap);
    va_end(ap);
    pmt_error_format(&e, path, err, errlen);
}

/* Does request m of connection `conn` fire this directive?  nth counts the
 * trigger's matches per connection (a rank's own requests), so "the second
 * fence" means each rank's second fence. */
static bool accept(void *ctx, int conn, int rank, const pmc_msg *m)
{
    sdir *x = ctx;
    (void)rank;
    if (!pmt_trigger_match(&x->trig, m, x->sc->vars))
        return false;
    if (!x->nth)
        return true;
    occ *o = NULL;
    for (size_t i = 0; i < x->nocc && !o; i++)
        if (x->occ[i].conn == conn)
            o = &x->occ[i];
    if (!o) {
        if (x->nocc == x->capocc) {
            size_t cap = x->capocc ? x->capocc * 2 : 8;
            occ *no = realloc(x->occ, cap * sizeof *no);
            if (!no)
                return false; /* no memory to count: do not act on a guess */
            x->occ = no;
            x->capocc = cap;
        }
        o = &x->occ[x->nocc++];
        o->conn = conn;
        o->seen = 0;
    }
    return ++o->seen == x->nth;
}

void pms_script_free(pms_script *sc)
{
    if (!sc)
        return;
    for (size_t i = 0; i < sc->n; i++) {
        pmt_trigger_free(&sc->d[i].trig);
        pmc_out_free(&sc->d[i].body);
        free(sc->d[i].occ);
    }
    free(sc->d);
    pmt_vars_free(sc->vars);
    free(sc->path);
    free(sc);
}

/* Compile directive d of the file into x (nothing is added to the server yet). */
static int prepare(pms_script *sc, const pmt_directive *d, sdir *x, char *err, size_t errlen)
{
    x->sc = sc;
    x->line = d->line;
    x->action = d->action;
    x->nth = d->nth;
    x->fault = -1;
    size_t ep = 0;
    char m[200];
    if (pmt_trigger_compile(d->trigger, &x->trig, &ep, m, sizeof m)) {
        say(err, errlen, sc->path, d->line, d->trigger_col + (uint32_t)ep, "trigger: %s", m);
        return -1;
    }
    if (d->action == PMT_SA_BEFORE || d->action == PMT_SA_AFTER) {
        if (d->form != PMT_FORM_MSG) {
            if (pmc_out_append(&x->body, d->data, d->len)) {
                say(err, errlen, sc->path, d->line, 0, "out of memory");
                return -1;
            }
            return 0;
        }
        /* built once, by the codec's encoder (strict dialect) */
        pmt_pattern pat;
        if (pmt_pattern_parse(d->data, d->len, &pat, &ep, m, sizeof m)) {
            say(err, errlen, sc->path, d->line, d->data_col + (uint32_t)ep, "%s", m);
            return -1;
        }
        int rc = pmt_pattern_render(&pat, sc->vars, NULL, &x->body, m, sizeof m);
        pmt_pattern_free(&pat);
        if (rc) {
            say(err, errlen, sc->path, d->line, d->data_col, "cannot build the message: %s", m);
            return -1;
        }
    }
    return 0;
}

static void to_fault(sdir *x, const pmt_directive *d, pms_fault *f)
{
    static const pms_fault_kind kinds[] = {
        [PMT_SA_DELAY] = PMS_FAULT_DELAY,       [PMT_SA_SPLIT] = PMS_FAULT_SPLIT,
        [PMT_SA_BEFORE] = PMS_FAULT_UNSOLICITED, [PMT_SA_AFTER] = PMS_FAULT_UNSOLICITED,
        [PMT_SA_ERROR] = PMS_FAULT_ERROR,       [PMT_SA_REORDER] = PMS_FAULT_REORDER,
        [PMT_SA_DROP] = PMS_FAULT_DROP,         [PMT_SA_KILL] = PMS_FAULT_KILL,
        [PMT_SA_FAIL_FENCE] = PMS_FAULT_FAIL_FENCE,
    };
    memset(f, 0, sizeof *f);
    f->kind = kinds[d->action];
    f->cmd = pmt_trigger_cmd(&x->trig); /* a cheap first filter; accept() does the rest */
    f->nth = 0;
    f->rank = d->rank;
    f->delay_ms = (int)d->ms;
    f->offset = d->offset;
    f->rc = d->rc;
    f->errmsg = d->text;
    f->data = x->body.buf;
    f->len = x->body.len;
    f->after = d->action == PMT_SA_AFTER;
    f->signo = d->signo;
    /* "*" with every occurrence needs no callback */
    if (!x->trig.any || x->nth) {
        f->accept = accept;
        f->accept_ctx = x;
    }
}

pms_script *pms_script_load(pms_server *s, const char *path, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    pmt_trace t;
    pmt_error e;
    if (pmt_read_file(path, &t, &e)) {
        if (err && errlen)
            pmt_error_format(&e, path, err, errlen);
        return NULL;
    }
    pms_script *sc = calloc(1, sizeof *sc);
    if (!sc || !(sc->path = strdup(path)) || !(sc->vars = pmt_vars_new()) ||
        (t.ndirectives && !(sc->d = calloc(t.ndirectives, sizeof *sc->d)))) {
        say(err, errlen, path, 0, 0, "out of memory");
        goto fail;
    }
    if (t.ndirectives == 0) {
        say(err, errlen, path, 0, 0, "no @server directives: nothing for the server to do "
                                     "(traces/README.md, \"Server scripts\")");
        goto fail;
    }
    for (size_t i = 0; i < t.ndirectives; i++) {
        sc->n = i + 1; /* what pms_script_free releases */
        if (prepare(sc, &t.directives[i], &sc->d[i], err, errlen))
            goto fail;
    }
    for (size_t i = 0; i < sc->n; i++) {
        pms_fault f;
        to_fault(&sc->d[i], &t.directives[i], &f);
        if ((sc->d[i].fault = pms_fault_add(s, &f)) < 0) {
            say(err, errlen, path, sc->d[i].line, 0, "cannot add the %s fault (out of memory)",
                pmt_saction_name(sc->d[i].action));
            /* the faults added so far point into sc, which goes now */
            if (i)
                pms_fault_clear(s);
            goto fail;
        }
    }
    pmt_trace_free(&t);
    return sc;
fail:
    pmt_trace_free(&t);
    pms_script_free(sc);
    return NULL;
}

size_t pms_script_count(const pms_script *sc)
{
    return sc ? sc->n : 0;
}

int pms_script_fired(const pms_script *sc, const pms_server *s, size_t i)
{
    if (!sc || i >= sc->n)
        return -1;
    return pms_fault_fired(s, sc->d[i].fault);
}

void pms_script_report(const pms_script *sc, const pms_server *s, FILE *f)
{
    for (size_t i = 0; sc && i < sc->n; i++) {
        int k = pms_script_fired(sc, s, i);
        fprintf(f, "%s:%u: %s fired %d time%s\n", sc->path, sc->d[i].line,
                pmt_saction_name(sc->d[i].action), k, k == 1 ? "" : "s");
    }
}
