/* One launch of a fuzz campaign, as a rank of the job.
 *
 * Rank 1 (rank 0 when the job has one rank) is the fuzzing rank: for each
 * input it appends "send I" to its log, writes the bytes, listens for what
 * comes back, probes its own connection with job-getid, then names the input
 * in the "go" file and waits for every honest rank's "ok.R" (before the first
 * input, for each one's "ok.R" saying it is past the start-up).  The honest
 * ranks answer each "go" with a check round on their own sessions
 * (job-getid, a kvs-put, a kvs-get of a value stored before the campaign;
 * under PMI-1 get_maxes, put and get) within a deadline.  When the fuzzing
 * connection is lost it reconnects in
 * PMI_PORT mode; in PMI_FD mode it cannot, so it ends the launch and the
 * campaign continues in the next one.  If the job dies, the log says which
 * input was in flight.  The job never calls the campaign that launches it:
 * run as the job itself, rank 0's report is the hook the command line set
 * (fz_opts.report). */
#include "control.h"
#include "fuzz.h"
#include "pmitrace/trace.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { PROBE_MS = 1000, POLL_MS = 2, IDLE_LIMIT_MS = 120000 };

static void sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* ---------------------------------------------------------------- finding classes */

static const char *const class_names[FZ_CLASS_COUNT] = {
    "none", "honest-error", "lost-data", "hang", "job-killed", "crash",
};

const char *fz_class_name(int c)
{
    return c >= 0 && c < FZ_CLASS_COUNT ? class_names[c] : "?";
}

int fz_class_parse(const char *s)
{
    for (int i = 0; i < FZ_CLASS_COUNT; i++)
        if (strncmp(s, class_names[i], strlen(class_names[i])) == 0 &&
            (s[strlen(class_names[i])] == 0 || s[strlen(class_names[i])] == ' ' ||
             s[strlen(class_names[i])] == ':'))
            return i;
    return -1;
}

/* ---------------------------------------------------------------- sync dir */

int fz_write_file(const char *dir, const char *name, const char *text)
{
    char tmp[1200], path[1200];
    snprintf(tmp, sizeof tmp, "%s/.%s.%ld", dir, name, (long)getpid());
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    fputs(text, f);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

int fz_read_file(const char *dir, const char *name, char *buf, size_t n)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t k = fread(buf, 1, n - 1, f);
    buf[k] = 0;
    fclose(f);
    return 0;
}

void fz_trace_name(int rank, char *buf, size_t n)
{
    snprintf(buf, n, "trace.r%d", rank);
}

/* ---------------------------------------------------------------- traces */

/* What pws_shutdown_write() notes in the transcript ("eos" inputs): the
 * trace says it with an end-of-stream event, which a replay performs. */
static const char SHUT_NOTE[] = "shutdown(SHUT_WR)";

/* This rank's transcript so far (plus, for the fuzzing rank, the pieces of
 * an input about to be sent: if the job dies during it, the file already
 * holds it).  Times are absolute monotonic microseconds; the campaign
 * rebases them when it merges the ranks. */
static void save_trace(const fz_opts *o, int rank, pws_session *s, const fz_input *pending)
{
    if (!o->record || !s)
        return;
    char conn[16], name[32], src[200];
    snprintf(conn, sizeof conn, "r%d", rank);
    pmt_trace t;
    pmt_trace_init(&t);
    snprintf(src, sizeof src, "pmi2-conform %s fuzz, seed %llu, rank %d", PCF_TOOL_VERSION,
             (unsigned long long)o->seed, rank);
    pmt_add_source(&t, src);
    size_t n;
    const pws_event *ev = pws_transcript(s, &n);
    uint64_t ep = pws_epoch_usec(), last = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t us = ev[i].usec + ep;
        last = us;
        switch (ev[i].kind) {
        case PWS_EV_SENT:
            pmt_add_event(&t, PMT_EV_DATA, us, conn, PMT_CLIENT, ev[i].data, ev[i].len);
            break;
        case PWS_EV_RECV:
            pmt_add_event(&t, PMT_EV_DATA, us, conn, PMT_SERVER, ev[i].data, ev[i].len);
            break;
        case PWS_EV_EOF: pmt_add_event(&t, PMT_EV_EOF, us, conn, PMT_SERVER, NULL, 0); break;
        case PWS_EV_TIMEOUT: pmt_add_event(&t, PMT_EV_TIMEOUT, us, conn, PMT_CLIENT, NULL, 0); break;
        case PWS_EV_NOTE:
            pmt_add_event(&t, PMT_EV_NOTE, us, conn, PMT_CLIENT, ev[i].data, ev[i].len);
            if (ev[i].len == sizeof SHUT_NOTE - 1 && !memcmp(ev[i].data, SHUT_NOTE, ev[i].len))
                pmt_add_event(&t, PMT_EV_EOF, us, conn, PMT_CLIENT, NULL, 0); /* replayed */
            break;
        default: break; /* our own close is not part of what the server did */
        }
    }
    if (pending) {
        size_t at = 0;
        for (size_t k = 0; k <= pending->ncuts; k++) {
            size_t end = k < pending->ncuts ? pending->cuts[k] : pending->len;
            if (end > at)
                pmt_add_event(&t, PMT_EV_DATA, last, conn, PMT_CLIENT, pending->buf + at, end - at);
            at = end;
        }
        if (pending->close_after)
            pmt_add_event(&t, PMT_EV_EOF, last, conn, PMT_CLIENT, NULL, 0);
    }
    fz_trace_name(rank, name, sizeof name);
    char tmp[1200], path[1200];
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", o->sync, name);
    snprintf(path, sizeof path, "%s/%s", o->sync, name);
    FILE *f = fopen(tmp, "w");
    if (f) {
        int rc = pmt_write(f, &t, NULL, NULL);
        if (fclose(f) == 0 && rc == 0)
            rename(tmp, path);
        else
            remove(tmp);
    }
    pmt_trace_free(&t);
}

/* ---------------------------------------------------------------- sessions */

/* Send e and wait for `want`, skipping other messages (late answers).
 * Returns NULL on success, else a short reason; *cls the finding class a
 * failure means for an honest rank. */
static const char *call(pws_session *s, pmc_enc *e, const char *want, uint64_t dl, pmc_msg *m,
                        int *cls)
{
    *cls = FZ_HONEST_ERROR;
    int rc = pws_send_enc(s, e, NULL, dl, NULL);
    if (rc == PWS_TIMEOUT) {
        *cls = FZ_HANG;
        return "the request could not be written before the deadline";
    }
    if (rc)
        return "the connection failed while sending";
    for (int k = 0; k < 32; k++) {
        pmc_error de;
        pws_result r = pws_recv(s, dl, m, &de);
        if (r == PWS_MSG) {
            if (pmc_slice_eq(m->name, want))
                return NULL;
            continue;
        }
        if (r == PWS_BAD && !de.fatal)
            continue;
        if (r == PWS_TIMEOUT) {
            *cls = FZ_HANG;
            return "no answer before the deadline";
        }
        return r == PWS_EOF ? "the server closed the connection" : "the answer did not decode";
    }
    return "too many unexpected messages";
}

static bool rc_ok(const pmc_msg *m)
{
    long long rc = -1;
    return pmc_msg_get_int(m, "rc", &rc) == 1 && rc == 0;
}

/* A request every server answers at once, in the protocol of the session:
 * job-getid (PMI-2) or get_maxes (PMI-1). */
static void probe_begin(const pcf_ctx *c, pmc_enc *e)
{
    pmc_enc_begin(e, c->pmi == 1 ? PMC_WIRE_V1 : PMC_WIRE_V2,
                  c->pmi == 1 ? "get_maxes" : "job-getid");
}

static const char *probe_answer(const pcf_ctx *c)
{
    return c->pmi == 1 ? "maxes" : "job-getid-response";
}

/* maxes may lack rc (Hydra 4.0 sends none); job-getid-response needs rc=0 */
static bool probe_ok(const pcf_ctx *c, const pmc_msg *m)
{
    if (c->pmi != 1)
        return rc_ok(m);
    long long rc = -1;
    int got = pmc_msg_get_int(m, "rc", &rc);
    return got == 0 || (got == 1 && rc == 0);
}

/* ---------------------------------------------------------------- honest ranks */

static const char READY[] = "fuzz-ready";

/* One check round; returns FZ_NONE or a class, with detail. */
static int check_round(pcf_ctx *c, const fz_opts *o, uint64_t idx, char *detail, size_t dn)
{
    uint64_t dl = pws_deadline_ms(o->check_ms);
    pmc_enc e;
    pmc_msg m;
    int cls;
    const char *why;
    char key[64], val[64], want[64];
    bool v1 = c->pmi == 1;
    pws_note(c->s, "check after input %llu", (unsigned long long)idx);
    probe_begin(c, &e);
    if ((why = call(c->s, &e, probe_answer(c), dl, &m, &cls))) {
        snprintf(detail, dn, "%s: %s", probe_answer(c), why);
        return cls;
    }
    if (!probe_ok(c, &m)) {
        snprintf(detail, dn, "%s answered rc != 0", probe_answer(c));
        return FZ_HONEST_ERROR;
    }
    snprintf(key, sizeof key, "fzh-%llu-%d", (unsigned long long)idx, c->rank);
    snprintf(val, sizeof val, "h%llx", (unsigned long long)(idx * 2654435761u + (unsigned)c->rank));
    pmc_enc_begin(&e, v1 ? PMC_WIRE_V1 : PMC_WIRE_V2, v1 ? "put" : "kvs-put");
    if (v1)
        pmc_enc_str(&e, "kvsname", c->kvsname);
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", val);
    if ((why = call(c->s, &e, v1 ? "put_result" : "kvs-put-response", dl, &m, &cls))) {
        snprintf(detail, dn, "%s: %s", v1 ? "put" : "kvs-put", why);
        return cls;
    }
    if (!rc_ok(&m)) {
        snprintf(detail, dn, "%s of %s refused", v1 ? "put" : "kvs-put", key);
        return FZ_HONEST_ERROR;
    }
    /* rank 0's value from before the campaign (stored, fenced): it must
     * still be there, intact */
    pmc_enc_begin(&e, v1 ? PMC_WIRE_V1 : PMC_WIRE_V2, v1 ? "get" : "kvs-get");
    if (v1)
        pmc_enc_str(&e, "kvsname", c->kvsname);
    pmc_enc_str(&e, "key", "pcf-0-0");
    if ((why = call(c->s, &e, v1 ? "get_result" : "kvs-get-response", dl, &m, &cls))) {
        snprintf(detail, dn, "%s: %s", v1 ? "get" : "kvs-get", why);
        return cls;
    }
    bool found = v1; /* PMI-1: rc says it (V1CMD-13) */
    char got[128] = "";
    pcf_get(&m, "value", got, sizeof got);
    pcf_hex(READY, sizeof READY - 1, want, sizeof want);
    if (!rc_ok(&m) || (!v1 && pmc_msg_get_bool(&m, "found", &found, NULL) != 1) || !found) {
        snprintf(detail, dn, "%s of pcf-0-0 (stored before the campaign): not found",
                 v1 ? "get" : "kvs-get");
        return FZ_LOST_DATA;
    }
    if (strcmp(got, want) != 0) {
        snprintf(detail, dn, "%s of pcf-0-0: '%.60s', stored '%s'", v1 ? "get" : "kvs-get", got,
                 want);
        return FZ_LOST_DATA;
    }
    return FZ_NONE;
}

static int honest(pcf_ctx *c, const fz_opts *o)
{
    char okname[32], line[400], go[64];
    snprintf(okname, sizeof okname, "ok.%d", c->rank);
    long long last = -1;
    bool broken = false;
    save_trace(o, c->rank, c->s, NULL); /* the start-up, in case the job dies first */
    /* past the start-up exchange: the fuzzing rank waits for this before its
     * first input (no index, so no round takes it for a check result) */
    fz_write_file(o->sync, okname, "-1 ready");
    uint64_t idle = pws_deadline_ms(IDLE_LIMIT_MS);
    for (;;) {
        if (fz_read_file(o->sync, "go", go, sizeof go) == 0) {
            if (strncmp(go, "end", 3) == 0)
                break;
            long long idx = strtoll(go, NULL, 10);
            if (idx != last) {
                last = idx;
                idle = pws_deadline_ms(IDLE_LIMIT_MS);
                char detail[300] = "";
                int cls = broken ? FZ_HONEST_ERROR
                                 : check_round(c, o, (uint64_t)idx, detail, sizeof detail);
                if (broken)
                    snprintf(detail, sizeof detail, "connection already failed");
                if (cls != FZ_NONE)
                    broken = true; /* no more requests on a connection in an unknown state */
                save_trace(o, c->rank, c->s, NULL);
                snprintf(line, sizeof line, "%lld %s %s", idx,
                         cls == FZ_NONE ? "ok" : fz_class_name(cls), detail);
                fz_write_file(o->sync, okname, line);
            }
        }
        if (pws_now_usec() >= idle)
            break; /* the fuzzing rank is gone */
        sleep_ms(POLL_MS);
    }
    int rc = broken ? -1 : pcf_ctl_finalize(c, 5000);
    save_trace(o, c->rank, c->s, NULL);
    fz_write_file(o->sync, okname, rc == 0 ? "fin" : "fin-no-finalize");
    return 0;
}

/* ---------------------------------------------------------------- the fuzzing rank */

static FILE *logf_;

static void fzlog(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(logf_, fmt, ap);
    va_end(ap);
    fputc('\n', logf_);
    fflush(logf_); /* in the kernel before the next write to the server */
}

/* Listen for what the server says, then probe with job-getid.  NULL when
 * the connection is still usable, else why not. */
static const char *after_input(const pcf_ctx *c, const fz_opts *o, int *replies)
{
    pws_session *s = c->s;
    pmc_msg m;
    pmc_error de;
    *replies = 0;
    uint64_t dl = pws_deadline_ms(o->reply_ms);
    for (;;) {
        pws_result r = pws_recv(s, dl, &m, &de);
        if (r == PWS_MSG) {
            (*replies)++;
            continue;
        }
        if (r == PWS_TIMEOUT)
            break;
        if (r == PWS_BAD && !de.fatal)
            continue;
        return r == PWS_EOF ? "closed by the server" : r == PWS_BAD ? "undecodable answer"
                                                                     : "connection error";
    }
    pmc_enc e;
    int cls;
    probe_begin(c, &e);
    const char *why = call(s, &e, probe_answer(c), pws_deadline_ms(PROBE_MS), &m, &cls);
    return why;
}

static bool all_honest(const pcf_ctx *c, int fz, const fz_opts *o, long long idx, char *res,
                       size_t rn, uint64_t dl)
{
    res[0] = 0;
    for (;;) {
        bool all = true;
        size_t k = 0;
        res[0] = 0;
        for (int r = 0; r < c->size; r++) {
            if (r == fz)
                continue;
            char name[32], line[400];
            snprintf(name, sizeof name, "ok.%d", r);
            if (fz_read_file(o->sync, name, line, sizeof line) != 0 ||
                strtoll(line, NULL, 10) != idx || !strchr(line, ' ')) {
                all = false;
                continue;
            }
            const char *st = strchr(line, ' ') + 1;
            if (strncmp(st, "ok", 2) != 0 && k + 8 < rn)
                k += (size_t)snprintf(res + k, rn - k, "%sr%d:%s", k ? " | " : "", r, st);
        }
        if (all)
            return true;
        if (pws_now_usec() >= dl)
            return false;
        sleep_ms(POLL_MS);
    }
}

static int fuzzer(pcf_ctx *c, const fz_opts *o)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/log.fuzzer", o->sync);
    logf_ = fopen(path, "a");
    if (!logf_) {
        fprintf(stderr, "pmi2-conform fuzz: %s: %s\n", path, strerror(errno));
        return PCF_EXIT_USAGE;
    }
    int fz = c->rank;
    fz_env env = { c->pmi == 1 || !c->jobid[0] ? c->kvsname : c->jobid, c->rank, c->size, c->pmi };
    uint64_t stop = o->time_s ? pws_deadline_ms(o->time_s * 1000u) : UINT64_MAX;
    /* every honest rank past the start-up exchange before the first input: an
     * input that stops the server (Slurm stops the whole step's PMI) must not
     * find a rank still reading the others' values, which would then never
     * check the round ("no check result" after the full wait, not its hang) */
    if (c->size > 1) {
        uint64_t rdl = pws_deadline_ms(10000);
        for (int r = 0; r < c->size; r++) {
            char name[32], line[64];
            snprintf(name, sizeof name, "ok.%d", r);
            while (r != fz && pws_now_usec() < rdl &&
                   fz_read_file(o->sync, name, line, sizeof line) != 0)
                sleep_ms(POLL_MS);
        }
    }
    size_t total = o->nlist ? o->nlist : (size_t)(o->count > o->from ? o->count - o->from : 0);
    bool alive = true, first = true;
    const char *end_reason = "done";
    long long idx = -1;
    for (size_t k = 0; k < total; k++) {
        idx = (long long)(o->nlist ? o->list[k] : o->from + k);
        if (pws_now_usec() >= stop) {
            end_reason = "time";
            break;
        }
        if (first) {
            fzlog("proto %d", c->pmi); /* the launches that follow use it (fuzz_campaign.c) */
            fzlog("conn %lld", idx);
            first = false;
        }
        fz_input in;
        if (fz_generate(o->seed, (uint64_t)idx, &env, &in) != 0) {
            end_reason = "out-of-memory";
            break;
        }
        save_trace(o, c->rank, c->s, &in);
        fzlog("send %lld %s %s", idx, in.family, in.desc);
        pws_note(c->s, "fuzz input %lld (%s): %s", idx, in.family, in.desc);
        uint64_t dl = pws_deadline_ms(5000 + in.delay_ms * (unsigned)(in.ncuts + 1));
        int src = in.ncuts ? pws_send_split(c->s, in.buf, in.len, in.cuts, in.ncuts, in.delay_ms, dl)
                           : pws_send_raw(c->s, in.buf, in.len, dl);
        if (!src && in.close_after)
            pws_shutdown_write(c->s); /* the stream ends inside the line */
        fz_input_free(&in);
        int replies = 0;
        const char *lost = src ? "the input could not be written" : after_input(c, o, &replies);
        char res[600] = "";
        bool answered = true;
        if (c->size > 1) {
            char go[32];
            snprintf(go, sizeof go, "%lld", idx);
            fz_write_file(o->sync, "go", go);
            answered = all_honest(c, fz, o, idx, res, sizeof res,
                                  pws_deadline_ms(o->check_ms + 3000));
        }
        save_trace(o, c->rank, c->s, NULL);
        fzlog("done %lld replies=%d probe=%s honest=%s", idx, replies, lost ? "lost" : "ok",
             !answered ? "hang:no check result from an honest rank" : res[0] ? res : "ok");
        if (!answered || res[0]) {
            end_reason = "honest";
            break;
        }
        if (lost) {
            fzlog("lost %lld %s", idx, lost);
            if (!c->hs.via_port || k + 1 == total) {
                end_reason = "fd-lost";
                alive = false;
                break;
            }
            /* PMI_PORT: a new connection, identified like the first */
            save_trace(o, c->rank, c->s, NULL);
            pws_close(c->s);
            c->s = NULL;
            free(c->hs.init_raw);
            free(c->hs.fullinit_raw);
            free(c->hs.maxes_raw);
            memset(&c->hs, 0, sizeof c->hs);
            if (pcf_ctl_handshake(c, 10000) != 0) {
                fzlog("lost %lld reconnect failed: %s", idx, c->hs.error);
                end_reason = "reconnect-failed";
                alive = false;
                break;
            }
            first = true;
        }
    }
    fzlog("end %lld %s", idx, end_reason);
    fz_write_file(o->sync, "go", "end");
    /* let the honest ranks finalize (and rank 0 report) before this rank
     * leaves: a server may end the job when a connection closes early */
    uint64_t dl = pws_deadline_ms(15000);
    for (int r = 0; r < c->size; r++) {
        if (r == fz)
            continue;
        char name[32], line[64];
        snprintf(name, sizeof name, "ok.%d", r);
        while (pws_now_usec() < dl &&
               (fz_read_file(o->sync, name, line, sizeof line) != 0 || strncmp(line, "fin", 3)))
            sleep_ms(10);
    }
    if (!o->child && c->size > 1) {
        char line[320];
        uint64_t rdl = pws_deadline_ms(60000);
        while (pws_now_usec() < rdl && fz_read_file(o->sync, "reported", line, sizeof line) != 0)
            sleep_ms(20);
        /* rank 0 has reported; let it end too (under the sanitizers its
         * exit takes a while), when it runs on this host */
        long pid = 0;
        char host[256], mine[256];
        pcf_host_name(mine, sizeof mine);
        if (sscanf(line, "1 %ld %255s", &pid, host) == 2 && pid > 0 && !strcmp(host, mine))
            while (pws_now_usec() < rdl && pcf_proc_running(pid))
                sleep_ms(20);
    }
    if (alive)
        pcf_ctl_finalize(c, 3000);
    save_trace(o, c->rank, c->s, NULL);
    fclose(logf_);
    return 0;
}

/* ---------------------------------------------------------------- the job */

int fz_run_job(const fz_opts *oo)
{
    pcf_ctx c;
    memset(&c, 0, sizeof c);
    c.pmi = oo->pmi; /* 0: PMI-2 when the server accepts it, else PMI-1 */
    if (pcf_ctl_handshake(&c, 10000) != 0) {
        fprintf(stderr, "pmi2-conform fuzz: PMI start-up failed: %s\n", c.hs.error);
        return PCF_EXIT_USAGE;
    }
    int fz = c.size > 1 ? 1 : 0;
    fz_opts lo = *oo;
    const fz_opts *o = &lo;
    char sd[600];
    if (!lo.sync) {
        /* run as the job: the ranks meet in a directory named after the job */
        char job[260];
        snprintf(job, sizeof job, "%s", c.jobid[0] ? c.jobid : "nojob");
        for (char *p = job; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
                *p = '_';
        snprintf(sd, sizeof sd, "/tmp/pmi2-conform-fuzz-%u-%s", (unsigned)getuid(), job);
        mkdir(sd, 0700);
        lo.sync = sd;
        lo.record = true;
        if (c.rank == fz) { /* a job id seen before: forget that job's files */
            char name[32];
            for (int r = 0; r < c.size; r++) {
                snprintf(name, sizeof name, "ok.%d", r);
                char path[700];
                snprintf(path, sizeof path, "%s/%s", sd, name);
                remove(path);
            }
            char path[700];
            snprintf(path, sizeof path, "%s/go", sd);
            remove(path);
            snprintf(path, sizeof path, "%s/reported", sd);
            remove(path);
            snprintf(path, sizeof path, "%s/log.fuzzer", sd);
            remove(path);
        }
    }
    /* everyone stores a value and fences once before the campaign: honest
     * ranks read rank 0's value back after every input (lost data) */
    char err[200];
    char *vals = calloc((size_t)c.size, 64);
    char **all = calloc((size_t)c.size, sizeof *all);
    if (!vals || !all) {
        free(vals);
        free(all);
        return PCF_EXIT_USAGE;
    }
    for (int i = 0; i < c.size; i++)
        all[i] = vals + (size_t)i * 64;
    save_trace(o, c.rank, c.s, NULL); /* each step on disk: the job may die at any point */
    int xr = pcf_ctl_exchange(&c, 0, READY, all, 64, 10000, 0, err, sizeof err);
    save_trace(o, c.rank, c.s, NULL);
    free(all);
    free(vals);
    if (xr != 0) {
        fprintf(stderr, "pmi2-conform fuzz: rank %d: start-up exchange failed: %s\n", c.rank, err);
        return PCF_EXIT_USAGE;
    }
    int rc = c.rank == fz ? fuzzer(&c, o) : honest(&c, o);
    if (!o->child && c.rank == 0 && o->report) {
        rc = o->report(o); /* the report of a campaign run as the job (fz_run_campaign) */
        /* who to wait for: the fuzzing rank leaves without finalize once it
         * reads this, and a server may end the job then, this process with it */
        char host[256], word[320];
        pcf_host_name(host, sizeof host);
        snprintf(word, sizeof word, "1 %ld %s", (long)getpid(), host);
        fflush(stdout);
        fz_write_file(o->sync, "reported", word);
    }
    pws_close(c.s);
    free(c.hs.init_raw);
    free(c.hs.fullinit_raw);
    free(c.hs.maxes_raw);
    pmc_decoder_free(c.scratch);
    return rc;
}
