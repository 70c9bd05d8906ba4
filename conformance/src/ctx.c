/* What a case sees: its rank and session, deadline-bounded calls through the
 * codec, and the observation it reports. */
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>

int pcf_rank(const pcf_ctx *c) { return c->rank; }
int pcf_size(const pcf_ctx *c) { return c->size; }
pws_session *pcf_session(pcf_ctx *c) { return c->s; }
int pcf_pmi_version(const pcf_ctx *c) { return c->pmi; }
const char *pcf_jobid(const pcf_ctx *c) { return c->jobid; }
const char *pcf_kvsname(const pcf_ctx *c) { return c->kvsname; }
const char *pcf_tag(const pcf_ctx *c) { return c->tag; }
uint64_t pcf_deadline(const pcf_ctx *c) { return c->deadline; }
const pcf_handshake *pcf_hs(const pcf_ctx *c) { return &c->hs; }
bool pcf_observed(const pcf_ctx *c) { return c->observed; }
int pcf_nodes(const pcf_ctx *c) { return c->node ? c->nnodes : 0; }
int pcf_node_of(const pcf_ctx *c, int rank)
{
    return c->node && rank >= 0 && rank < c->size ? c->node[rank] : -1;
}
void pcf_nodes_text(const pcf_ctx *c, char *buf, size_t n)
{
    size_t w = 0;
    buf[0] = 0;
    for (int k = 0; k < pcf_nodes(c) && w < n; k++) {
        bool first = true;
        for (int r = 0; r < c->size && w < n; r++) {
            if (c->node[r] != k)
                continue;
            if (first)
                w += (size_t)snprintf(buf + w, n - w, "%s%s: %d", k ? "; " : "", c->host[r], r);
            else
                w += (size_t)snprintf(buf + w, n - w, ",%d", r);
            first = false;
        }
    }
}

const char *pcf_host_of(const pcf_ctx *c, int rank)
{
    return c->host && rank >= 0 && rank < c->size ? c->host[rank] : "";
}

void pcf_ctx_begin_case(pcf_ctx *c, const pcf_case *k, const char *tag, unsigned timeout_ms)
{
    c->cur = k;
    c->observed = false;
    memset(&c->obs, 0, sizeof c->obs);
    snprintf(c->tag, sizeof c->tag, "%s", tag);
    c->deadline = pws_deadline_ms(timeout_ms);
}

void pcf_observe(pcf_ctx *c, const char *outcome, const char *fmt, ...)
{
    pcf_obs o;
    pcf_grade(c->cur, outcome, c->o ? c->o->strict : false, &o);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o.detail, sizeof o.detail, fmt, ap);
    va_end(ap);
    if (c->s)
        pws_note(c->s, "observed %s: %s", outcome, o.detail);
    if (!c->observed || pcf_verdict_severity(o.verdict) > pcf_verdict_severity(c->obs.verdict)) {
        c->obs = o;
        c->observed = true;
    }
}

bool pcf_absent(const pcf_ctx *c, unsigned need)
{
    return (c->absent & need) != 0;
}

const char *pcf_outcome_so_far(const pcf_ctx *c, const char **detail)
{
    if (detail)
        *detail = c->observed ? c->obs.detail : "";
    return c->observed ? c->obs.outcome : NULL;
}

void pcf_note(pcf_ctx *c, const char *fmt, ...)
{
    if (!c->s)
        return;
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    pws_note(c->s, "%s", buf);
}

static int send_failed(pcf_ctx *c, int rc)
{
    if (rc == PWS_TIMEOUT)
        pcf_observe(c, "no-answer", "the server stopped reading: write blocked until the deadline");
    else if (rc == PWS_BAD)
        pcf_observe(c, "harness-error", "the codec refused to encode the request");
    else if (rc == PWS_CLOSED)
        pcf_observe(c, "harness-error", "the session is closed");
    else
        pcf_observe(c, "closed", "write failed: the server closed the connection (%s)",
                    strerror(pws_errno(c->s)));
    return -1;
}

int pcf_send(pcf_ctx *c, pmc_enc *e)
{
    if (!c->s) {
        pmc_enc_abandon(e);
        pcf_observe(c, "harness-error", "no PMI session");
        return -1;
    }
    int rc = pws_send_enc(c->s, e, &pmc_dialect_strict, c->deadline, NULL);
    return rc ? send_failed(c, rc) : 0;
}

int pcf_send_raw(pcf_ctx *c, const void *buf, size_t len)
{
    if (!c->s) {
        pcf_observe(c, "harness-error", "no PMI session");
        return -1;
    }
    int rc = pws_send_raw(c->s, buf, len, c->deadline);
    return rc ? send_failed(c, rc) : 0;
}

pws_result pcf_recv(pcf_ctx *c, pmc_msg *m, pmc_error *err)
{
    if (!c->s)
        return PWS_CLOSED;
    return pws_recv(c->s, c->deadline, m, err);
}

int pcf_expect(pcf_ctx *c, const char *reply, pmc_msg *m)
{
    pmc_error err;
    char buf[300], ebuf[PCF_ERR_TEXT];
    pws_result r = pcf_recv(c, m, &err);
    switch (r) {
    case PWS_MSG:
        if (pmc_slice_eq(m->name, reply))
            return 0;
        /* read after the deadline (a late wake on a loaded machine): by then
         * the other ranks have moved on, and what they asked may answer this
         * connection too; the server never answered what this rank sent in
         * time, which is all that can be said of it */
        if (pws_now_usec() > c->deadline) {
            pcf_observe(c, "no-answer", "no %s within the deadline (%s came after it, when the "
                        "other ranks had moved on)", reply, pcf_show(m, buf, sizeof buf));
            return -1;
        }
        pcf_observe(c, "wrong-response", "expected %s, got %s", reply, pcf_show(m, buf, sizeof buf));
        return -1;
    case PWS_TIMEOUT:
        pcf_observe(c, "no-answer", "no %s within the deadline", reply);
        return -1;
    case PWS_EOF:
        pcf_observe(c, "closed", "the server closed the connection instead of sending %s", reply);
        return -1;
    case PWS_BAD:
        pcf_observe(c, "bad-response", "the response does not decode: %s",
                    pcf_decode_error(c, &err, ebuf, sizeof ebuf));
        return -1;
    default:
        pcf_observe(c, "io-error", "reading the response failed (%s)", pws_result_name(r));
        return -1;
    }
}

int pcf_call(pcf_ctx *c, pmc_enc *e, const char *reply, pmc_msg *m)
{
    if (pcf_send(c, e) != 0)
        return -1;
    return pcf_expect(c, reply, m);
}

unsigned pcf_wait_ms(const pcf_ctx *c, unsigned ms)
{
    (void)c;
    static int no_waits = -1;
    if (no_waits < 0) {
        const char *v = getenv("PCF_NO_WAITS");
        no_waits = v && *v && strcmp(v, "0") != 0;
    }
    return no_waits ? 0 : ms;
}

void pcf_pause_ms(pcf_ctx *c, unsigned ms)
{
    ms = pcf_wait_ms(c, ms);
    if (!ms)
        return;
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

void pcf_stay_ms(pcf_ctx *c, unsigned ms)
{
    uint64_t dl = pws_deadline_ms(pcf_wait_ms(c, ms));
    while (pws_now_usec() < dl && !pcf_report_done_seen()) {
        struct timespec ts = { 0, 50 * 1000000L };
        nanosleep(&ts, NULL);
    }
}

int pcf_wait_consumed(pcf_ctx *c, unsigned ms)
{
    if (!c->s || pws_fd(c->s) < 0)
        return -1;
    uint64_t dl = pws_deadline_ms(ms);
    for (;;) {
        int queued = 0;
        if (ioctl(pws_fd(c->s), SIOCOUTQ, &queued) != 0)
            return -1;
        if (queued == 0)
            return 0;
        if (pws_now_usec() >= dl)
            return -1;
        struct timespec ts = { 0, 2000000L };
        nanosleep(&ts, NULL);
    }
}

long pcf_wait_answers_queued(pcf_ctx *c, unsigned settle_ms, unsigned max_ms)
{
    if (!c->s || pws_fd(c->s) < 0)
        return -1;
    uint64_t dl = pws_deadline_ms(max_ms), still_since = pws_now_usec();
    int last = -1;
    for (;;) {
        int queued = 0;
        if (ioctl(pws_fd(c->s), FIONREAD, &queued) != 0)
            return -1;
        uint64_t now = pws_now_usec();
        if (queued != last) {
            last = queued;
            still_since = now;
        } else if (queued > 0 && now - still_since >= (uint64_t)settle_ms * 1000)
            return queued;
        if (now >= dl)
            return queued;
        struct timespec ts = { 0, 5000000L };
        nanosleep(&ts, NULL);
    }
}

pws_result pcf_ask_served(pcf_ctx *c, unsigned ms)
{
    if (!c->s || pws_eof(c->s))
        return PWS_EOF;
    uint64_t dl = pws_deadline_ms(ms);
    pmc_enc e;
    const char *reply;
    if (c->pmi == 1) {
        pmc_enc_begin(&e, PMC_WIRE_V1, "get_maxes");
        reply = "maxes";
    } else {
        pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
        reply = "job-getid-response";
    }
    pws_note(c->s, "asking whether the server still serves this connection (%s)", reply);
    int rc = pws_send_enc(c->s, &e, &pmc_dialect_strict, dl, NULL);
    if (rc == PWS_TIMEOUT)
        return PWS_TIMEOUT;
    if (rc != 0) /* the write failed: the server has gone from this connection */
        return PWS_EOF;
    for (;;) {
        pmc_msg m;
        pmc_error err;
        pws_result r = pws_recv(c->s, dl, &m, &err);
        if (r == PWS_MSG) {
            if (pmc_slice_eq(m.name, reply))
                return PWS_MSG;
            continue; /* something said before the answer */
        }
        if (r == PWS_EOF || r == PWS_IOERR || r == PWS_CLOSED)
            return PWS_EOF;
        return r;
    }
}

int pcf_rc(const pmc_msg *m, long long *rc)
{
    return pmc_msg_get_int(m, "rc", rc);
}

bool pcf_get(const pmc_msg *m, const char *key, char *buf, size_t n)
{
    pmc_slice v;
    if (!pmc_msg_get(m, key, &v)) {
        if (n)
            buf[0] = 0;
        return false;
    }
    pmc_slice_copy(v, buf, n);
    return true;
}

/* Printable rendering: bytes outside 0x20-0x7e as \xNN, truncated with "...". */
const char *pcf_show(const pmc_msg *m, char *buf, size_t n)
{
    size_t j = 0;
    const char *p = m->raw.ptr;
    for (size_t i = 0; i < m->raw.len && j + 5 < n; i++) {
        unsigned char ch = (unsigned char)p[i];
        if (ch == '\n') {
            buf[j++] = '\\';
            buf[j++] = 'n';
        } else if (ch < 0x20 || ch > 0x7e) {
            j += (size_t)snprintf(buf + j, n - j, "\\x%02x", ch);
        } else {
            buf[j++] = (char)ch;
        }
        if (j + 5 >= n && i + 1 < m->raw.len) {
            memcpy(buf + j - 3, "...", 3);
            break;
        }
    }
    buf[j < n ? j : n - 1] = 0;
    return buf;
}

/* One received byte as the reports show it: \n, \r, \t, \\, \xNN outside
 * 0x20-0x7e, and \x5b/\x5d for the brackets that mark the offending byte. */
static size_t show_byte(unsigned char ch, char *out, size_t n)
{
    int w;
    if (ch == '\n')
        w = snprintf(out, n, "\\n");
    else if (ch == '\r')
        w = snprintf(out, n, "\\r");
    else if (ch == '\t')
        w = snprintf(out, n, "\\t");
    else if (ch == '\\')
        w = snprintf(out, n, "\\\\");
    else if (ch < 0x20 || ch > 0x7e || ch == '[' || ch == ']')
        w = snprintf(out, n, "\\x%02x", ch);
    else
        w = snprintf(out, n, "%c", ch);
    return w > 0 && (size_t)w < n ? (size_t)w : 0;
}

/* err's text, then near[0..got) (the bytes from decoder offset `first`)
 * escaped, the one at err->offset in brackets. */
static const char *with_bytes(const pmc_error *err, const char *near, size_t got, uint64_t first,
                              char *buf, size_t n)
{
    size_t j = pmc_error_format(err, buf, n);
    if (j >= n || !got || first > err->offset || err->offset > first + got)
        return buf;
    int w = snprintf(buf + j, n - j, "; bytes received %llu-%llu, offset %llu in brackets: ",
                     (unsigned long long)first, (unsigned long long)(first + got - 1),
                     (unsigned long long)err->offset);
    if (w <= 0 || (size_t)w >= n - j)
        return buf;
    j += (size_t)w;
    for (size_t i = 0; i < got; i++) {
        bool at = first + i == err->offset;
        char one[16];
        size_t k = 0;
        if (at)
            one[k++] = '[';
        k += show_byte((unsigned char)near[i], one + k, sizeof one - k - 2);
        if (at)
            one[k++] = ']';
        if (j + k + 4 >= n) { /* no room for the rest */
            memcpy(buf + j, "...", 3);
            j += 3;
            break;
        }
        memcpy(buf + j, one, k);
        j += k;
    }
    if (first + got == err->offset && j + 3 < n) { /* the offending byte never came */
        memcpy(buf + j, "[]", 2);
        j += 2;
    }
    buf[j] = 0;
    return buf;
}

const char *pcf_decode_error_on(pws_session *s, const pmc_error *err, char *buf, size_t n)
{
    char near[PCF_ERR_BEFORE + PCF_ERR_AFTER];
    uint64_t first = 0;
    size_t got = s ? pws_received_at(s, err->offset, PCF_ERR_BEFORE, PCF_ERR_AFTER, near,
                                     sizeof near, &first)
                   : 0;
    return with_bytes(err, near, got, first, buf, n);
}

const char *pcf_decode_error(const pcf_ctx *c, const pmc_error *err, char *buf, size_t n)
{
    return pcf_decode_error_on(c->s, err, buf, n);
}

const char *pcf_decode_error_in(const pmc_error *err, const char *raw, size_t len, char *buf,
                                size_t n)
{
    uint64_t lo = err->offset > PCF_ERR_BEFORE ? err->offset - PCF_ERR_BEFORE : 0;
    uint64_t hi = err->offset + PCF_ERR_AFTER < len ? err->offset + PCF_ERR_AFTER : len;
    if (!raw || lo > hi)
        return with_bytes(err, NULL, 0, 0, buf, n);
    return with_bytes(err, raw + lo, (size_t)(hi - lo), lo, buf, n);
}

void pcf_hex(const void *p, size_t n, char *out, size_t outn)
{
    static const char hx[] = "0123456789ABCDEF";
    const unsigned char *b = p;
    size_t j = 0;
    for (size_t i = 0; i < n && j + 2 < outn; i++) {
        out[j++] = hx[b[i] >> 4];
        out[j++] = hx[b[i] & 15];
    }
    if (outn)
        out[j] = 0;
}

void pcf_wire_decoder_opts(pmc_decoder_opts *o)
{
    pmc_decoder_opts_default(o);
    /* what a PMI-2 length field can carry, keys included; a PMI-1 line or
     * an mcmd block of a MiB, a message of continued frames of 4 MiB */
    o->limits.max_key = 999999;
    o->limits.max_val = 1u << 20;
    o->limits.max_pairs = 1u << 16;
    o->limits.max_frame = 999999;
    o->limits.max_line = 1u << 20;
    o->limits.max_message = 4u << 20;
}

int pcf_decode(pcf_ctx *c, const char *raw, size_t len, pmc_msg *m, pmc_error *err)
{
    if (!raw)
        return -1;
    if (!c->scratch) {
        pmc_decoder_opts o;
        pcf_wire_decoder_opts(&o);
        if (!(c->scratch = pmc_decoder_new(&o)))
            return -1;
    }
    pmc_decoder_reset(c->scratch);
    size_t used = 0;
    int rc = pmc_decode_buffer(c->scratch, raw, len, 0, m, err, &used);
    return rc == PMC_MSG ? 0 : -1;
}

/* ---------------------------------------------------------------- KVS helpers */

int pcf_kvs_put(pcf_ctx *c, const char *key, const char *value)
{
    pmc_enc e;
    pmc_msg m;
    long long rc = -1;
    if (c->pmi == 1) {
        pmc_enc_begin(&e, PMC_WIRE_V1, "put");
        pmc_enc_str(&e, "kvsname", c->kvsname);
        pmc_enc_str(&e, "key", key);
        pmc_enc_str(&e, "value", value);
        if (pcf_call(c, &e, "put_result", &m))
            return -1;
    } else {
        pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
        pmc_enc_str(&e, "key", key);
        pmc_enc_str(&e, "value", value);
        if (pcf_call(c, &e, "kvs-put-response", &m))
            return -1;
    }
    if (pcf_rc(&m, &rc) != 1 || rc != 0) {
        char b[200];
        pcf_observe(c, "put-refused", "put of %s answered %s", key, pcf_show(&m, b, sizeof b));
        return -1;
    }
    return 0;
}

int pcf_kvs_fence(pcf_ctx *c)
{
    pmc_enc e;
    pmc_msg m;
    long long rc = 0;
    if (c->pmi == 1) {
        pmc_enc_begin(&e, PMC_WIRE_V1, "barrier_in");
        if (pcf_call(c, &e, "barrier_out", &m))
            return -1;
        if (pcf_rc(&m, &rc) == -1 || rc != 0) { /* RC-3: absent rc is success */
            pcf_observe(c, "fence-refused", "barrier_out with rc != 0");
            return -1;
        }
        return 0;
    }
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-fence");
    if (pcf_call(c, &e, "kvs-fence-response", &m))
        return -1;
    if (pcf_rc(&m, &rc) != 1 || rc != 0) {
        pcf_observe(c, "fence-refused", "kvs-fence-response without rc=0");
        return -1;
    }
    return 0;
}

int pcf_kvs_get(pcf_ctx *c, const char *key, bool *found, char *value, size_t n, pmc_msg *resp)
{
    pmc_enc e;
    pmc_msg local;
    pmc_msg *m = resp ? resp : &local;
    long long rc = -1;
    *found = false;
    if (n)
        value[0] = 0;
    if (c->pmi == 1) {
        pmc_enc_begin(&e, PMC_WIRE_V1, "get");
        pmc_enc_str(&e, "kvsname", c->kvsname);
        pmc_enc_str(&e, "key", key);
        if (pcf_call(c, &e, "get_result", m))
            return -1;
        int r = pcf_rc(m, &rc);
        *found = (r == 0 || (r == 1 && rc == 0)) && pcf_get(m, "value", value, n);
        return 0;
    }
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(&e, "key", key);
    if (pcf_call(c, &e, "kvs-get-response", m))
        return -1;
    bool f = false;
    if (pcf_rc(m, &rc) == 1 && rc == 0 && pmc_msg_get_bool(m, "found", &f, NULL) == 1 && f)
        *found = pcf_get(m, "value", value, n);
    return 0;
}

const pmc_dialect *pcf_dialect_pad(pmc_len_pad pad)
{
    static pmc_dialect left, zero;
    pmc_dialect *d = pad == PMC_PAD_LEFT ? &left : pad == PMC_PAD_ZERO ? &zero : NULL;
    if (!d)
        return &pmc_dialect_strict;
    *d = pmc_dialect_strict;
    d->name = pad == PMC_PAD_LEFT ? "strict-len-left" : "strict-len-zero";
    d->len_pad = pad;
    return d;
}
