/* Requests and responses over one connection, for any number of threads
 * (the wire draft's design, SPEC.md section 6.4):
 *
 *  - one write critical section (wmu): a request goes out whole;
 *  - no dedicated thread: a waiting thread becomes the progress reader when
 *    nobody else reads, decodes what arrives and hands each response to
 *    the request whose thrid it carries (per-request condition variable);
 *    when its own answer has come it passes the reader role on;
 *  - tags: requests carry thrid=<n>.  The first tagged response says
 *    whether the server echoes thrid; a server that does not (Slurm) gets
 *    one request in flight at a time from then on (THRID-9).  Until that is
 *    known, requests are also sent one at a time.
 *  - group-event frames (SPEC.md 12.2) answer nothing and carry no thrid:
 *    they are recognised by name before any matching and queued for
 *    pmic_engine_next_event, whose waiters take the reader role like a
 *    waiting request (ev_cv);
 *  - a timed call (GROUP-30) that runs out leaves its request registered
 *    but abandoned, so the late answer is matched and dropped instead of
 *    being taken for another request's. */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct pmic_req {
    pmic_req *next;
    char thrid[24];
    bool tagged;
    const char *expect, *alt;
    bool done;
    bool abandoned; /* heap-allocated; its caller gave up (freed on its answer) */
    pmic_status status;
    pmic_resp *resp;
    pthread_cond_t cv;
};

struct pmic_evnode {
    pmic_evnode *next;
    pmic_resp *ev;
};

/* Timed waits use the monotonic clock (a wall-clock step must not end or
 * stretch a group timeout). */
static void cond_init_mono(pthread_cond_t *cv)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(cv, &a);
    pthread_condattr_destroy(&a);
}

static void deadline_in(struct timespec *t, long ms)
{
    clock_gettime(CLOCK_MONOTONIC, t);
    t->tv_sec += ms / 1000;
    t->tv_nsec += (ms % 1000) * 1000000L;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

/* Milliseconds left, rounded up; 0 when passed. */
static int ms_left(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long ns = (long long)(t->tv_sec - now.tv_sec) * 1000000000LL + (t->tv_nsec - now.tv_nsec);
    if (ns <= 0)
        return 0;
    long long ms = (ns + 999999) / 1000000;
    return ms > 1 << 30 ? 1 << 30 : (int)ms;
}

int pmic_engine_init(pmic_engine *e, pmic_io *io, pmic_tagmode mode, int debug)
{
    memset(e, 0, sizeof *e);
    pmc_decoder_opts o;
    pmc_decoder_opts_default(&o);
    /* Be generous with what servers send: Hydra 4.1+ stores and returns
     * values of any size, and PMI2_KVS_Get reports long values to the
     * caller instead of failing. */
    o.limits.max_val = PMIC_MAX_VAL;
    o.limits.max_frame = 999999;
    o.limits.max_line = 1u << 20;
    o.limits.max_message = 4u << 20;
    o.limits.max_pairs = 1u << 16;
    e->dec = pmc_decoder_new(&o);
    if (!e->dec)
        return -1;
    e->io = io;
    e->tagmode = mode;
    e->dialect = &pmc_dialect_strict;
    e->debug = debug;
    pthread_mutex_init(&e->mu, NULL);
    pthread_mutex_init(&e->wmu, NULL);
    pthread_cond_init(&e->slot_cv, NULL);
    cond_init_mono(&e->ev_cv);
    e->evtail = &e->evq;
    return 0;
}

void pmic_engine_destroy(pmic_engine *e)
{
    if (!e->dec)
        return;
    pmc_decoder_free(e->dec);
    e->dec = NULL;
    while (e->evq) {
        pmic_evnode *n = e->evq;
        e->evq = n->next;
        pmic_resp_free(n->ev);
        free(n);
    }
    /* Only abandoned requests can be left: nobody waits for them. */
    for (pmic_req *r = e->pending, *next; r; r = next) {
        next = r->next;
        if (r->abandoned) {
            pthread_cond_destroy(&r->cv);
            free(r);
        }
    }
    e->pending = NULL;
    pthread_mutex_destroy(&e->mu);
    pthread_mutex_destroy(&e->wmu);
    pthread_cond_destroy(&e->slot_cv);
    pthread_cond_destroy(&e->ev_cv);
}

/* ---------------------------------------------------------------- dispatch (mu held) */

static void unlink_req(pmic_engine *e, pmic_req *r);

static void complete(pmic_engine *e, pmic_req *r, pmic_status st, pmic_resp *resp)
{
    if (r->abandoned) {
        /* Its caller gave up (GROUP-30): the late answer goes nowhere. */
        if (e->debug)
            pmic_log(2, "late %s for an abandoned request dropped",
                     resp ? resp->name : "failure");
        pmic_resp_free(resp);
        unlink_req(e, r);
        pthread_cond_destroy(&r->cv);
        free(r);
        return;
    }
    r->done = true;
    r->status = st;
    r->resp = resp;
    pthread_cond_signal(&r->cv);
}

/* ERR-13, ERR-16: the connection is gone; nobody waits for ever. */
static void fail_all(pmic_engine *e, const char *why)
{
    if (!e->broken && e->debug)
        pmic_log(1, "connection lost: %s", why);
    e->broken = true;
    for (pmic_req *r = e->pending, *next; r; r = next) {
        next = r->next; /* complete() frees an abandoned request */
        if (!r->done)
            complete(e, r, PMIC_E_COMM, NULL);
    }
    pthread_cond_broadcast(&e->slot_cv);
    pthread_cond_broadcast(&e->ev_cv);
}

static size_t undone(pmic_engine *e, pmic_req **only)
{
    size_t n = 0;
    for (pmic_req *r = e->pending; r; r = r->next)
        if (!r->done) {
            n++;
            *only = r;
        }
    return n;
}

/* Whether anybody waits for what the connection brings. */
static bool wanted(pmic_engine *e)
{
    pmic_req *only;
    return undone(e, &only) > 0 || e->nevwait > 0;
}

/* The reader role is free: wake one waiting request, else the event waiters. */
static void hand_over(pmic_engine *e)
{
    for (pmic_req *o = e->pending; o; o = o->next)
        if (!o->done && !o->abandoned) {
            pthread_cond_signal(&o->cv);
            return;
        }
    if (e->nevwait)
        pthread_cond_broadcast(&e->ev_cv);
}

/* A request whose caller waits for it (and so will read). */
static bool has_waiter(pmic_engine *e)
{
    for (pmic_req *o = e->pending; o; o = o->next)
        if (!o->done && !o->abandoned)
            return true;
    return false;
}

/* GROUP-9/GROUP-10: a group-event answers no request, whatever the tags. */
static bool is_event(const pmc_msg *m)
{
    return m->wire == PMC_WIRE_V2 && pmc_slice_eq(m->name, "group-event");
}

static void queue_event(pmic_engine *e, const pmc_msg *m)
{
    pmic_evnode *n = malloc(sizeof *n);
    pmic_resp *ev = n ? pmic_resp_copy(m) : NULL;
    if (!ev) {
        free(n);
        pmic_log(1, "out of memory: a group-event is lost");
        return;
    }
    n->next = NULL;
    n->ev = ev;
    *e->evtail = n;
    e->evtail = &n->next;
    if (e->debug)
        pmic_log(2, "group-event queued");
    pthread_cond_broadcast(&e->ev_cv);
}

static bool name_is(const char *name, const char *want)
{
    return want && strcmp(name, want) == 0; /* ERR-14: the whole name */
}

/* ERR-19: r fails on a message that was not its answer, so the server still
 * owes it one.  A stand-in (abandoned: complete() drops what it gets) waits
 * for that answer in r's place and holds r's slot until then (THRID-9), so
 * the answer is never taken for a later call's. */
static void owe(pmic_engine *e, const pmic_req *r)
{
    pmic_req *s = calloc(1, sizeof *s);
    if (!s)
        return; /* later answers may be one behind: the calls fail on the names */
    cond_init_mono(&s->cv);
    s->tagged = r->tagged;
    memcpy(s->thrid, r->thrid, sizeof s->thrid);
    s->expect = r->expect;
    s->alt = r->alt;
    s->abandoned = true;
    s->next = e->pending;
    e->pending = s;
    e->npending++;
    if (!s->tagged)
        e->nuntagged++;
}

static void deliver(pmic_engine *e, pmic_req *r, const pmc_msg *m)
{
    if (r->tagged && e->tagmode == PMIC_TAG_UNKNOWN) {
        e->tagmode = m->thrid.ptr ? PMIC_TAG_ON : PMIC_TAG_OFF;
        if (e->debug)
            pmic_log(2, "server %s thrid: %s", m->thrid.ptr ? "echoes" : "does not echo",
                     m->thrid.ptr ? "requests may overlap" : "one request in flight");
        pthread_cond_broadcast(&e->slot_cv);
    }
    pmic_resp *resp = pmic_resp_copy(m);
    if (!resp) {
        complete(e, r, PMIC_E_NOMEM, NULL);
        return;
    }
    bool ok = !r->expect || name_is(resp->name, r->expect) || name_is(resp->name, r->alt);
    if (!ok && e->debug)
        pmic_log(1, "expected %s, got %s (ERR-15)", r->expect, resp->name);
    if (!ok && !r->abandoned && !m->thrid.ptr)
        owe(e, r);
    complete(e, r, ok ? PMIC_OK : PMIC_E_PROTO, resp);
}

static void dispatch(pmic_engine *e, const pmc_msg *m)
{
    if (is_event(m)) {
        queue_event(e, m);
        return;
    }
    pmic_req *only = NULL;
    size_t n = undone(e, &only);
    if (m->thrid.ptr) {
        for (pmic_req *r = e->pending; r; r = r->next)
            if (!r->done && r->tagged && pmc_slice_eq(m->thrid, r->thrid)) {
                deliver(e, r, m);
                return;
            }
        /* THRID-10: a tag we never sent is not used for anything.  When a
         * single request is waiting it can only be that one's answer,
         * garbled: fail that call; otherwise nothing can be trusted. */
        if (n == 1 && !only->tagged) {
            complete(e, only, PMIC_E_PROTO, NULL);
            return;
        }
        fail_all(e, "response with a thrid that matches no request (THRID-10)");
        return;
    }
    if (n == 1) {
        deliver(e, only, m);
        return;
    }
    if (n == 0) {
        if (e->debug)
            pmic_log(1, "unsolicited %.*s ignored", (int)m->name.len, m->name.ptr);
        return;
    }
    /* Several requests in flight and no tag: only the name can tell. */
    pmic_req *match = NULL;
    size_t nm = 0;
    for (pmic_req *r = e->pending; r; r = r->next) {
        if (r->done)
            continue;
        bool eq = (r->expect && pmc_slice_eq(m->name, r->expect)) ||
                  (r->alt && pmc_slice_eq(m->name, r->alt));
        if (eq) {
            match = r;
            nm++;
        }
    }
    if (nm >= 1 && (nm == 1 || e->tagmode != PMIC_TAG_ON)) {
        /* Untagged servers answer in order: the oldest such request. */
        for (pmic_req *r = e->pending; r; r = r->next)
            if (!r->done && ((r->expect && pmc_slice_eq(m->name, r->expect)) ||
                             (r->alt && pmc_slice_eq(m->name, r->alt))))
                match = r;
        deliver(e, match, m);
        return;
    }
    fail_all(e, "untagged response while several requests are in flight");
}

static void decode_error(pmic_engine *e, const pmc_error *err)
{
    char text[320];
    pmc_error_format(err, text, sizeof text);
    if (e->debug)
        pmic_log(1, "bad message from server: %s", text);
    if (err->fatal) {
        fail_all(e, text); /* ERR-16 */
        return;
    }
    pmic_req *only = NULL;
    size_t n = undone(e, &only);
    if (err->thrid.ptr)
        for (pmic_req *r = e->pending; r; r = r->next)
            if (!r->done && r->tagged && pmc_slice_eq(err->thrid, r->thrid)) {
                complete(e, r, PMIC_E_PROTO, NULL);
                return;
            }
    if (n == 1) {
        complete(e, only, PMIC_E_PROTO, NULL);
        return;
    }
    if (n > 1)
        fail_all(e, text);
}

/* Hand out the messages already decoded from buffered bytes, as long as
 * someone waits: bytes nobody asked for yet (the set lines after initack)
 * stay buffered for the next request.  True when something happened. */
static bool drain(pmic_engine *e)
{
    bool any = false;
    while (!e->broken && wanted(e)) {
        pmc_msg m;
        pmc_error err;
        int rc = pmc_decoder_next(e->dec, &m, &err);
        if (rc == PMC_AGAIN)
            break;
        any = true;
        if (rc == PMC_MSG)
            dispatch(e, &m);
        else
            decode_error(e, &err);
    }
    return any;
}

/* The progress routine: what is buffered, else one read and what it brought.
 * With a deadline the read waits at most until then (nothing happens when
 * it passes; the caller hands the reader role on). */
static void progress(pmic_engine *e, const struct timespec *deadline)
{
    if (drain(e))
        return;
    e->reading = true;
    pthread_mutex_unlock(&e->mu);
    int ready = deadline ? pmic_io_wait(e->io, ms_left(deadline)) : 1;
    size_t avail = 0;
    void *space = NULL;
    ssize_t n = -1;
    if (ready > 0) {
        space = pmc_decoder_space(e->dec, 16384, &avail);
        n = space ? pmic_io_read(e->io, space, avail) : -1;
        if (n > 0)
            pmc_decoder_commit(e->dec, (size_t)n);
    }
    pthread_mutex_lock(&e->mu);
    e->reading = false;
    if (ready == 0)
        return;
    if (ready < 0)
        fail_all(e, "poll error");
    else if (n > 0)
        drain(e);
    else
        fail_all(e, n == 0 ? "end of stream" : space ? "read error" : "out of memory");
}

/* ---------------------------------------------------------------- calls */

static void unlink_req(pmic_engine *e, pmic_req *r)
{
    for (pmic_req **pp = &e->pending; *pp; pp = &(*pp)->next)
        if (*pp == r) {
            *pp = r->next;
            break;
        }
    e->npending--;
    if (!r->tagged)
        e->nuntagged--;
    pthread_cond_broadcast(&e->slot_cv);
    /* Someone must go on reading for the others. */
    if (!e->reading)
        hand_over(e);
}

static bool may_overlap(pmic_engine *e, bool tagged)
{
    if (e->npending == 0)
        return true;
    return tagged && e->tagmode == PMIC_TAG_ON && e->nuntagged == 0;
}

/* Encode every message into one buffer and write it in one critical
 * section: a PMI-1 spawn's blocks must not be interleaved with anything. */
static pmic_status send_msgs(pmic_engine *e, pmc_enc *reqs, size_t n, pmc_out *out)
{
    pmc_error err;
    for (size_t i = 0; i < n; i++) {
        if (pmc_enc_end(&reqs[i], e->dialect, out, &err) < 0) {
            for (size_t j = i + 1; j < n; j++)
                pmc_enc_abandon(&reqs[j]);
            if (e->debug) {
                char text[320];
                pmc_error_format(&err, text, sizeof text);
                pmic_log(1, "cannot encode request: %s", text);
            }
            return err.code == PMC_E_NOMEM ? PMIC_E_NOMEM : PMIC_E_ENCODE;
        }
    }
    if (n == 0)
        return PMIC_OK;
    pthread_mutex_lock(&e->wmu);
    int w = pmic_io_write_all(e->io, out->buf, out->len);
    pthread_mutex_unlock(&e->wmu);
    return w < 0 ? PMIC_E_COMM : PMIC_OK;
}

static void abandon_all(pmc_enc *reqs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pmc_enc_abandon(&reqs[i]);
}

static pmic_status call_impl(pmic_engine *e, pmc_enc *reqs, size_t nreq, unsigned flags,
                             const char *expect, const char *alt, long timeout_ms,
                             pmic_resp **out)
{
    pmc_enc *req = nreq ? &reqs[0] : NULL;
    if (out)
        *out = NULL;
    pmc_out buf = { 0 };
    pthread_mutex_lock(&e->mu);
    if (e->broken) {
        pthread_mutex_unlock(&e->mu);
        abandon_all(reqs, nreq);
        return PMIC_E_COMM;
    }
    if (flags & PMIC_CALL_NOREPLY) {
        /* ABORT-8: nothing to wait for, and no slot needed (THRID-9). */
        pthread_mutex_unlock(&e->mu);
        pmic_status st = send_msgs(e, reqs, nreq, &buf);
        pmc_out_free(&buf);
        return st;
    }

    /* A timed request may outlive its caller (abandoned): on the heap. */
    bool timed = timeout_ms > 0;
    pmic_req stack_r, *rp = timed ? malloc(sizeof *rp) : &stack_r;
    if (!rp) {
        pthread_mutex_unlock(&e->mu);
        abandon_all(reqs, nreq);
        return PMIC_E_NOMEM;
    }
    pmic_req *r = rp;
    memset(r, 0, sizeof *r);
    cond_init_mono(&r->cv);
    r->expect = expect;
    r->alt = alt;
    for (;;) {
        bool tag = req && (((flags & PMIC_CALL_TAG) && e->tagmode != PMIC_TAG_OFF) ||
                           ((flags & PMIC_CALL_TAG_KNOWN) && e->tagmode == PMIC_TAG_ON));
        if (e->broken) {
            pthread_mutex_unlock(&e->mu);
            pthread_cond_destroy(&r->cv);
            if (timed)
                free(r);
            abandon_all(reqs, nreq);
            return PMIC_E_COMM;
        }
        if (may_overlap(e, tag)) {
            r->tagged = tag;
            break;
        }
        if (!e->reading && !has_waiter(e))
            progress(e, NULL); /* only abandoned requests hold the slot: read their answers */
        else
            pthread_cond_wait(&e->slot_cv, &e->mu);
    }
    if (r->tagged) {
        snprintf(r->thrid, sizeof r->thrid, "%lu", ++e->next_thrid);
        pmc_enc_str(req, "thrid", r->thrid); /* THRID-2: the dialect puts it first */
    }
    r->next = e->pending;
    e->pending = r;
    e->npending++;
    if (!r->tagged)
        e->nuntagged++;
    pthread_mutex_unlock(&e->mu);

    pmic_status st = send_msgs(e, reqs, nreq, &buf);
    pmc_out_free(&buf);
    struct timespec deadline;
    if (timed)
        deadline_in(&deadline, timeout_ms); /* from the write: the timeout the server got */

    pthread_mutex_lock(&e->mu);
    if (st != PMIC_OK && !r->done) {
        if (st == PMIC_E_COMM)
            fail_all(e, "write failed");
        else
            complete(e, r, st, NULL);
    }
    while (!r->done) {
        if (timed && ms_left(&deadline) == 0)
            break;
        if (!e->reading)
            progress(e, timed ? &deadline : NULL);
        else if (timed)
            pthread_cond_timedwait(&r->cv, &e->mu, &deadline);
        else
            pthread_cond_wait(&r->cv, &e->mu);
    }
    if (!r->done) {
        /* Out of time: the answer, if it ever comes, is dropped by
         * complete(); an untagged one still holds its slot until then, so
         * nothing else is taken for it (THRID-9). */
        r->abandoned = true;
        if (e->debug)
            pmic_log(1, "no %s within %ld ms: giving up", expect ? expect : "answer",
                     timeout_ms);
        if (!e->reading)
            hand_over(e);
        pthread_mutex_unlock(&e->mu);
        return PMIC_E_TIMEOUT;
    }
    unlink_req(e, r);
    pthread_mutex_unlock(&e->mu);
    pthread_cond_destroy(&r->cv);

    pmic_status status = r->status;
    pmic_resp *resp = r->resp;
    if (timed)
        free(r);
    if (out)
        *out = resp;
    else
        pmic_resp_free(resp);
    if (status != PMIC_OK && status != PMIC_E_PROTO && out) {
        pmic_resp_free(*out);
        *out = NULL;
    }
    return status;
}

pmic_status pmic_call(pmic_engine *e, pmc_enc *req, unsigned flags, const char *expect,
                      const char *alt, pmic_resp **out)
{
    return call_impl(e, req, req ? 1 : 0, flags, expect, alt, 0, out);
}

pmic_status pmic_call_multi(pmic_engine *e, pmc_enc *reqs, size_t nreq, unsigned flags,
                            const char *expect, const char *alt, pmic_resp **out)
{
    return call_impl(e, reqs, nreq, flags, expect, alt, 0, out);
}

pmic_status pmic_call_timed(pmic_engine *e, pmc_enc *req, unsigned flags, const char *expect,
                            long timeout_ms, pmic_resp **out)
{
    return call_impl(e, req, req ? 1 : 0, flags, expect, NULL, timeout_ms, out);
}

/* ---------------------------------------------------------------- events */

pmic_status pmic_engine_next_event(pmic_engine *e, long timeout_ms, pmic_resp **out)
{
    *out = NULL;
    struct timespec deadline;
    bool timed = timeout_ms >= 0;
    if (timed)
        deadline_in(&deadline, timeout_ms);
    pthread_mutex_lock(&e->mu);
    e->nevwait++;
    pmic_status st = PMIC_E_TIMEOUT;
    /* One round even with timeout 0: what is buffered or readable now. */
    for (bool first = true;; first = false) {
        if (e->evq) {
            pmic_evnode *n = e->evq;
            e->evq = n->next;
            if (!e->evq)
                e->evtail = &e->evq;
            *out = n->ev;
            free(n);
            st = PMIC_OK;
            break;
        }
        if (e->broken) {
            st = PMIC_E_COMM;
            break;
        }
        if (timed && !first && ms_left(&deadline) == 0)
            break;
        if (!e->reading)
            progress(e, timed ? &deadline : NULL); /* no other reader: this thread reads */
        else if (timed)
            pthread_cond_timedwait(&e->ev_cv, &e->mu, &deadline);
        else
            pthread_cond_wait(&e->ev_cv, &e->mu);
    }
    e->nevwait--;
    if (!e->reading)
        hand_over(e);
    pthread_mutex_unlock(&e->mu);
    return st;
}
