/* The streaming decoder: buffering, per-message classification, delimiting
 * (in C, as real servers do it), continuation reassembly, strictness, and
 * duplicate-key detection.  Bodies are handed to the Ragel parsers only once
 * they are complete, so the grammar runs once over contiguous bytes and every
 * view it produces points into this decoder's buffer. */
#include "internal.h"

#include <stdlib.h>

struct pmc_decoder {
    pmc_decoder_opts o;
    char *buf;
    size_t cap, rpos, wpos;
    uint64_t base_off; /* stream offset of buf[0] */
    size_t memo;       /* bytes of the pending v1 line / mcmd block already searched */
    pmc_scratch s;
    bool failed;
    pmc_error ferr;
    /* the concatid of a continued message refused as too large: its later
     * frames are rejected as E_CONCAT_DROPPED, which no one answers */
    char drop_id[64];
    size_t drop_len;
};

void pmc_limits_default(pmc_limits *l)
{
    l->max_key = 64;
    l->max_val = 1024;
    l->max_pairs = 4096;
    l->max_frame = 65536;
    l->max_line = 65536;
    l->max_message = 1u << 20;
    l->max_junk = 6;
}

void pmc_decoder_opts_default(pmc_decoder_opts *o)
{
    pmc_limits_default(&o->limits);
    o->flags = PMC_DEC_SEMI_ESCAPE;
    o->strict = 0;
}

pmc_decoder *pmc_decoder_new(const pmc_decoder_opts *o)
{
    pmc_decoder *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    if (o)
        d->o = *o;
    else
        pmc_decoder_opts_default(&d->o);
    /* The length field cannot express more than 999999 bytes. */
    if (d->o.limits.max_frame > 999999 || d->o.limits.max_frame == 0)
        d->o.limits.max_frame = 999999;
    return d;
}

void pmc_decoder_free(pmc_decoder *d)
{
    if (!d)
        return;
    pmc_scratch_free(&d->s);
    free(d->buf);
    free(d);
}

void pmc_decoder_reset(pmc_decoder *d)
{
    d->base_off += d->wpos;
    d->rpos = d->wpos = 0;
    d->memo = 0;
    d->failed = false;
    d->drop_len = 0;
}

const pmc_decoder_opts *pmc_decoder_get_opts(const pmc_decoder *d)
{
    return &d->o;
}

size_t pmc_decoder_pending(const pmc_decoder *d)
{
    return d->wpos - d->rpos;
}

uint64_t pmc_decoder_offset(const pmc_decoder *d)
{
    return d->base_off + d->rpos;
}

/* Make room for n more bytes: slide undelivered bytes to the front first. */
static int make_room(pmc_decoder *d, size_t n)
{
    if (d->cap - d->wpos >= n)
        return 0;
    if (d->rpos) {
        memmove(d->buf, d->buf + d->rpos, d->wpos - d->rpos);
        d->base_off += d->rpos;
        d->wpos -= d->rpos;
        d->rpos = 0;
        if (d->cap - d->wpos >= n)
            return 0;
    }
    size_t ncap = d->cap ? d->cap : 4096;
    while (ncap - d->wpos < n) {
        if (ncap > SIZE_MAX / 2)
            return -1;
        ncap *= 2;
    }
    char *nb = realloc(d->buf, ncap);
    if (!nb)
        return -1;
    d->buf = nb;
    d->cap = ncap;
    return 0;
}

int pmc_decoder_feed(pmc_decoder *d, const void *buf, size_t len)
{
    if (make_room(d, len) < 0)
        return -1;
    if (len)
        memcpy(d->buf + d->wpos, buf, len);
    d->wpos += len;
    return 0;
}

void *pmc_decoder_space(pmc_decoder *d, size_t want, size_t *avail)
{
    if (make_room(d, want ? want : 1) < 0)
        return NULL;
    *avail = d->cap - d->wpos;
    return d->buf + d->wpos;
}

void pmc_decoder_commit(pmc_decoder *d, size_t n)
{
    if (n > d->cap - d->wpos)
        n = d->cap - d->wpos;
    d->wpos += n;
}

/* ---- per-message work ---------------------------------------------------- */

static uint32_t key_hash(pmc_slice k)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < k.len; i++)
        h = (h ^ (unsigned char)k.ptr[i]) * 16777619u;
    return h;
}

/* Index of the second occurrence of a repeated key within [from, to), or
 * -1.  Small ranges compare pairwise; large ones use a hash table so a
 * hostile message with thousands of pairs costs linear time. */
static long find_dup_range(pmc_scratch *s, size_t from, size_t to)
{
    size_t n = to - from;
    if (n <= 16) {
        for (size_t i = from + 1; i < to; i++)
            for (size_t j = from; j < i; j++)
                if (pmc_slice_eqs(s->pairs[i].key, s->pairs[j].key))
                    return (long)i;
        return -1;
    }
    size_t cap = 64;
    while (cap < 2 * n)
        cap *= 2;
    if (s->dup_cap < cap) {
        uint32_t *nd = realloc(s->dup, cap * sizeof *nd);
        if (!nd)
            return -1; /* detection is best effort; decoding goes on */
        s->dup = nd;
        s->dup_cap = cap;
    }
    memset(s->dup, 0, cap * sizeof *s->dup);
    for (size_t i = from; i < to; i++) {
        size_t h = key_hash(s->pairs[i].key) & (cap - 1);
        while (s->dup[h]) {
            if (pmc_slice_eqs(s->pairs[s->dup[h] - 1].key, s->pairs[i].key))
                return (long)i;
            h = (h + 1) & (cap - 1);
        }
        s->dup[h] = (uint32_t)(i + 1);
    }
    return -1;
}

/* Spawn repeats maxprocs/argc/argv<i> in every "subcmd" segment: keys are
 * unique per segment, not per message. */
static long find_dup(pmc_scratch *s, pmc_cmd cmd)
{
    if (cmd != PMC_V2_SPAWN)
        return find_dup_range(s, 0, s->npairs);
    size_t start = 0;
    for (size_t i = 0; i <= s->npairs; i++) {
        if (i < s->npairs && !(s->pairs[i].key.len == 6 && memcmp(s->pairs[i].key.ptr, "subcmd", 6) == 0))
            continue;
        long d = find_dup_range(s, start, i);
        if (d >= 0)
            return d;
        start = i;
    }
    return -1;
}

/* A strict decoder that rejects PMC_NOTE_LEN_ATOI reads lengths without atoi,
 * so the error it reports is the precise one (E_LEN_SIGN, E_LEN_SYNTAX). */
static uint32_t len_flags(const pmc_decoder_opts *o)
{
    return (o->strict & PMC_NOTE_LEN_ATOI) ? 0 : o->flags;
}

static const char *wire_what(pmc_wire w)
{
    return w == PMC_WIRE_V2 ? "v2 frame" : w == PMC_WIRE_V1_MCMD ? "mcmd block" : "v1 line";
}

/* Fill the message-level fields of an error for a rejected message. */
/* A strict decoder refuses a left-justified or zero-padded length field, on
 * the first frame and on every continuation alike. */
static bool len_noncanonical(const pmc_decoder *d, uint32_t notes, const char *f, uint64_t at,
                             const char *what, pmc_error *err)
{
    if (!(notes & d->o.strict & (PMC_NOTE_LEN_LEFT | PMC_NOTE_LEN_ZERO)))
        return false;
    pmc_error_set(err, PMC_E_LEN_NONCANONICAL, at,
                  "%s \"%.6s\" is not right-justified without leading zeros", what, f);
    return true;
}

static void reject(pmc_error *err, pmc_wire w, const char *b, size_t mlen, uint64_t off,
                   const pmc_body *body)
{
    err->wire = w;
    err->msg_offset = off;
    err->raw = (pmc_slice){ b, mlen };
    if (body && body->name.ptr && !err->cmd.ptr)
        err->cmd = body->name;
    if (body && body->thrid.ptr && !err->thrid.ptr)
        err->thrid = body->thrid;
}

/* Parse one v2 frame's body (b points at the length field), handling the
 * bytes that may follow the final ';' (MPICH 4.0.2 client, bug B1). */
static int v2_frame(pmc_decoder *d, const char *b, size_t blen, uint64_t off, pmc_body *body,
                    pmc_error *err)
{
    const char *bs = b + 6;
    size_t len = blen;
    if (bs[len - 1] != ';') {
        const char *last = NULL;
        for (const char *q = bs + len; q > bs; q--)
            if (q[-1] == ';') {
                last = q - 1;
                break;
            }
        size_t junk = last ? (size_t)(bs + len - last - 1) : len;
        if (!last || junk > d->o.limits.max_junk) {
            /* Parse anyway to give the most specific error (an unterminated
             * value, a bad command), falling back to "unterminated". */
            if (pmc_v2_body_parse(bs, len, off + 6, &d->o, &d->s, body, err) < 0)
                return -1;
            pmc_error_set(err, PMC_E_UNTERMINATED, off + 6 + len,
                          "frame body does not end with ';' (%zu bytes after the last ';')",
                          junk);
            return -1;
        }
        pmc_body_note(body, &d->o, PMC_NOTE_TRAILING_JUNK, off + 6 + (uint64_t)(last + 1 - bs));
        len = (size_t)(last + 1 - bs);
    }
    return pmc_v2_body_parse(bs, len, off + 6, &d->o, &d->s, body, err);
}

static bool is_key(const pmc_pair *p, const char *k, size_t n)
{
    return p->key.len == n && memcmp(p->key.ptr, k, n) == 0;
}

/* A pair's value while a message is being assembled: an unescaped value
 * still holds its arena offset (the arena may move until the message is
 * complete), so resolve it before reading the bytes. */
static pmc_slice pair_val(const pmc_scratch *s, const pmc_pair *p)
{
    pmc_slice v = p->val;
    if (p->flags & PMC_PAIR_UNESCAPED)
        v.ptr = s->arena + (uintptr_t)v.ptr;
    return v;
}

/* A frame continues when its last pair is concat=<id>. */
static bool continues(const pmc_scratch *s, const pmc_body *body)
{
    return s->npairs > body->first_pair && is_key(&s->pairs[s->npairs - 1], "concat", 6);
}

static int decode_one(pmc_decoder *d, const char *b, size_t len, uint64_t off, pmc_msg *m,
                      pmc_error *err, size_t *consumed, size_t *memo)
{
    *consumed = 0;
    if (len == 0)
        return PMC_AGAIN;
    pmc_wire w = pmc_classify(b, len);
    if (w == PMC_WIRE_NONE)
        return PMC_AGAIN;
    const pmc_limits *lim = &d->o.limits;
    pmc_scratch *s = &d->s;
    s->npairs = 0;
    s->arena_len = 0;
    pmc_body body = { .first_pair = 0 };
    size_t mlen = 0;
    uint32_t nframes = 1;
    int rc;

    if (w == PMC_WIRE_V1) {
        const char *nl = memchr(b + *memo, '\n', len - *memo);
        if (!nl) {
            if (len > lim->max_line) {
                pmc_error_set(err, PMC_E_LINE_TOO_LONG, off + lim->max_line,
                              "no '\\n' within %u bytes of a v1 line", lim->max_line);
                err->fatal = true;
                reject(err, w, b, lim->max_line, off, NULL);
                return PMC_ERR;
            }
            *memo = len;
            return PMC_AGAIN;
        }
        mlen = (size_t)(nl - b) + 1;
        *memo = 0;
        if (mlen > lim->max_line) {
            /* Fatal even though the '\n' is in sight: a reader fed in small
             * pieces must give up before it arrives, and the outcome may not
             * depend on how the bytes were split. */
            pmc_error_set(err, PMC_E_LINE_TOO_LONG, off + lim->max_line,
                          "no '\\n' within %u bytes of a v1 line", lim->max_line);
            err->fatal = true;
            reject(err, w, b, lim->max_line, off, NULL);
            return PMC_ERR;
        }
        rc = pmc_v1_line_parse(b, mlen, off, &d->o, s, &body, err);
    } else if (w == PMC_WIRE_V1_MCMD) {
        /* The block ends at a line that is exactly "endcmd" (CR tolerated). */
        size_t pos = *memo;
        for (;;) {
            const char *nl = memchr(b + pos, '\n', len - pos);
            if (!nl) {
                if (len > lim->max_message) {
                    pmc_error_set(err, PMC_E_MCMD_TOO_LONG, off + lim->max_message,
                                  "no \"endcmd\" line within %u bytes", lim->max_message);
                    err->fatal = true;
                    reject(err, w, b, lim->max_message, off, NULL);
                    return PMC_ERR;
                }
                *memo = pos;
                return PMC_AGAIN;
            }
            size_t ll = (size_t)(nl - (b + pos));
            if (pos > 0 && ((ll == 6 && memcmp(b + pos, "endcmd", 6) == 0) ||
                            (ll == 7 && memcmp(b + pos, "endcmd\r", 7) == 0))) {
                mlen = (size_t)(nl - b) + 1;
                break;
            }
            pos = (size_t)(nl - b) + 1;
        }
        *memo = 0;
        if (mlen > lim->max_message) {
            /* fatal for the same reason as an over-long line */
            pmc_error_set(err, PMC_E_MCMD_TOO_LONG, off + lim->max_message,
                          "no \"endcmd\" line within %u bytes", lim->max_message);
            err->fatal = true;
            reject(err, w, b, lim->max_message, off, NULL);
            return PMC_ERR;
        }
        rc = pmc_mcmd_parse(b, mlen, off, &d->o, s, &body, err);
    } else {
        if (len < 6)
            return PMC_AGAIN;
        long blen = pmc_frame_length(b, off, lim, len_flags(&d->o), &body.notes, err);
        if (blen < 0) {
            reject(err, w, b, 6, off, NULL);
            return PMC_ERR;
        }
        mlen = 6 + (size_t)blen;
        if (len < mlen)
            return PMC_AGAIN;
        if (len_noncanonical(d, body.notes, b, off, "length field", err)) {
            reject(err, w, b, mlen, off, NULL);
            *consumed = mlen;
            return PMC_ERR;
        }
        rc = v2_frame(d, b, (size_t)blen, off, &body, err);
        if (rc == 0 && !(d->o.flags & PMC_DEC_NO_CONCAT)) {
            if (pmc_slice_eq(body.name, "concat")) {
                pmc_slice cid = { NULL, 0 };
                if (d->drop_len && s->npairs > 0 && is_key(&s->pairs[0], "concatid", 8))
                    cid = pair_val(s, &s->pairs[0]);
                if (cid.ptr && cid.len == d->drop_len &&
                    memcmp(cid.ptr, d->drop_id, cid.len) == 0) {
                    if (!continues(s, &body)) /* its last frame */
                        d->drop_len = 0;
                    pmc_error_set(err, PMC_E_CONCAT_DROPPED, off + 6,
                                  "frame of continued message %.*s, refused as too large",
                                  (int)cid.len, cid.ptr);
                } else {
                    pmc_error_set(err, PMC_E_CONCAT_UNEXPECTED, off + 6,
                                  "continuation frame with no message to continue");
                }
                reject(err, w, b, mlen, off, &body);
                *consumed = mlen;
                return PMC_ERR;
            }
            /* Reassemble: each following frame must be cmd=concat;concatid=<id>; */
            while (continues(s, &body)) {
                /* a copy of the marker pair: resolved at each use, because
                 * parsing the next frame may move the arena */
                const pmc_pair idp = s->pairs[--s->npairs];
                pmc_slice id = pair_val(s, &idp);
                const char *f = b + mlen;
                size_t avail = len - mlen;
                pmc_wire w2 = pmc_classify(f, avail);
                if (w2 == PMC_WIRE_NONE || (w2 == PMC_WIRE_V2 && avail < 6))
                    return PMC_AGAIN;
                if (w2 != PMC_WIRE_V2) {
                    pmc_error_set(err, PMC_E_CONCAT_BROKEN, off + mlen,
                                  "expected a continuation frame (concatid=%.*s), found a %s",
                                  (int)(id.len > 32 ? 32 : id.len), id.ptr, wire_what(w2));
                    reject(err, w, b, mlen, off, &body);
                    *consumed = mlen;
                    return PMC_ERR;
                }
                pmc_body cb = { .first_pair = 0 };
                long clen = pmc_frame_length(f, off + mlen, lim, len_flags(&d->o), &cb.notes,
                                             err);
                if (clen < 0) {
                    reject(err, w2, f, 6, off + mlen, NULL);
                    return PMC_ERR;
                }
                size_t flen = 6 + (size_t)clen;
                if (mlen + flen > lim->max_message) {
                    pmc_error_set(err, PMC_E_CONCAT_TOO_LARGE, off + mlen,
                                  "continued message exceeds %u bytes", lim->max_message);
                    d->drop_len = id.len <= sizeof d->drop_id ? id.len : 0;
                    memcpy(d->drop_id, id.ptr, d->drop_len);
                    reject(err, w, b, mlen, off, &body);
                    *consumed = mlen;
                    return PMC_ERR;
                }
                if (avail < flen)
                    return PMC_AGAIN;
                if (len_noncanonical(d, cb.notes, f, off + mlen,
                                     "continuation frame's length field", err)) {
                    reject(err, w, b, mlen + flen, off, &body);
                    *consumed = mlen + flen;
                    return PMC_ERR;
                }
                if ((size_t)clen < 11 || memcmp(f + 6, "cmd=concat;", 11) != 0) {
                    pmc_error_set(err, PMC_E_CONCAT_BROKEN, off + mlen,
                                  "expected cmd=concat;concatid=%.*s; after a frame ending in "
                                  "concat=, found another message",
                                  (int)(id.len > 32 ? 32 : id.len), id.ptr);
                    reject(err, w, b, mlen, off, &body);
                    *consumed = mlen;
                    return PMC_ERR;
                }
                size_t first = s->npairs;
                if (v2_frame(d, f, (size_t)clen, off + mlen, &cb, err) < 0) {
                    reject(err, w, b, mlen + flen, off, &body);
                    *consumed = mlen + flen;
                    return PMC_ERR;
                }
                id = pair_val(s, &idp);
                if (s->npairs == first || !is_key(&s->pairs[first], "concatid", 8) ||
                    !pmc_slice_eqs(pair_val(s, &s->pairs[first]), id)) {
                    pmc_error_set(err, PMC_E_CONCAT_ID, off + mlen + 6,
                                  "continuation must start with concatid=%.*s",
                                  (int)(id.len > 32 ? 32 : id.len), id.ptr);
                    reject(err, w, b, mlen + flen, off, &body);
                    *consumed = mlen + flen;
                    return PMC_ERR;
                }
                memmove(&s->pairs[first], &s->pairs[first + 1],
                        (s->npairs - first - 1) * sizeof *s->pairs);
                s->npairs--;
                body.notes |= cb.notes | PMC_NOTE_CONTINUED;
                body.has_unescaped |= cb.has_unescaped;
                if (!body.strict_bit && cb.strict_bit) {
                    body.strict_bit = cb.strict_bit;
                    body.strict_at = cb.strict_at;
                }
                if (!body.thrid.ptr && !body.thrid_escaped) {
                    body.thrid = cb.thrid;
                    body.thrid_escaped = cb.thrid_escaped;
                }
                body.first_pair = first; /* so continues() looks at this frame */
                mlen += flen;
                nframes++;
            }
        }
    }

    if (rc < 0) {
        reject(err, w, b, mlen, off, &body);
        *consumed = mlen;
        return PMC_ERR;
    }

    pmc_cmd cmd = pmc_cmd_lookup(w, body.name.ptr, body.name.len);
    long dup = find_dup(s, cmd);
    if (dup >= 0)
        pmc_body_note(&body, &d->o, PMC_NOTE_DUP_KEY,
                      off + (uint64_t)(s->pairs[dup].key.ptr - b));
    if (body.strict_bit) {
        pmc_errcode c = pmc_note_errcode(body.strict_bit);
        pmc_error_set(err, c, body.strict_at, "strict mode: %s (%s)", pmc_errcode_text(c),
                      pmc_note_name(body.strict_bit));
        reject(err, w, b, mlen, off, &body);
        *consumed = mlen;
        return PMC_ERR;
    }
    if (body.has_unescaped)
        pmc_scratch_fix_arena(s, 0);
    if (body.thrid_escaped) { /* rare: the first thrid needed unescaping */
        for (size_t i = 0; i < s->npairs; i++)
            if (s->pairs[i].key.len == 5 && memcmp(s->pairs[i].key.ptr, "thrid", 5) == 0 &&
                !(s->pairs[i].flags & PMC_PAIR_BARE)) {
                body.thrid = s->pairs[i].val;
                break;
            }
    }

    m->wire = w;
    m->name = body.name;
    m->cmd = (int)cmd;
    m->pairs = s->pairs;
    m->npairs = s->npairs;
    m->raw = (pmc_slice){ b, mlen };
    m->offset = off;
    m->nframes = nframes;
    m->notes = body.notes;
    m->thrid = body.thrid;
    *consumed = mlen;
    return PMC_MSG;
}

int pmc_decoder_next(pmc_decoder *d, pmc_msg *m, pmc_error *err)
{
    if (d->failed) {
        *err = d->ferr;
        return PMC_ERR;
    }
    size_t consumed = 0;
    /* never fed: there is no buffer to point into (and nothing to decode) */
    const char *start = d->buf ? d->buf + d->rpos : "";
    int rc = decode_one(d, start, d->wpos - d->rpos, d->base_off + d->rpos, m, err, &consumed,
                        &d->memo);
    if (rc == PMC_ERR && err->fatal) {
        d->failed = true;
        d->ferr = *err;
        /* later repeats must not point into a buffer that may move */
        d->ferr.raw = d->ferr.cmd = d->ferr.thrid = (pmc_slice){ NULL, 0 };
    } else if (rc != PMC_AGAIN) {
        d->rpos += consumed;
        d->memo = 0;
    }
    return rc;
}

int pmc_decoder_finish(pmc_decoder *d, pmc_error *err)
{
    if (d->failed) {
        *err = d->ferr;
        return PMC_ERR;
    }
    size_t left = d->wpos - d->rpos;
    if (left == 0)
        return PMC_AGAIN;
    const char *b = d->buf + d->rpos;
    pmc_wire w = pmc_classify(b, left);
    pmc_error_set(err, PMC_E_TRUNCATED, d->base_off + d->wpos,
                  "stream ended inside a %s after %zu bytes", w == PMC_WIRE_NONE ? "message" : wire_what(w),
                  left);
    err->fatal = true;
    reject(err, w, b, left, d->base_off + d->rpos, NULL);
    return PMC_ERR;
}

int pmc_decode_buffer(pmc_decoder *d, const char *buf, size_t len, uint64_t base_offset,
                      pmc_msg *m, pmc_error *err, size_t *consumed)
{
    size_t memo = 0;
    return decode_one(d, buf, len, base_offset, m, err, consumed, &memo);
}
