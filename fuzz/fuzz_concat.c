/* Harness: continuation reassembly.
 *
 * Input: [opts byte][mode byte] then parts separated by 0xff bytes.  The parts
 * are shaped into one continued PMI-2 message:
 *
 *   frame 0:  "cmd=kvs-put;" part0 "concat=<id>;"
 *   frame j:  "cmd=concat;concatid=<id>;" partj "concat=<id>;"   (last: no concat=)
 *
 * each with a right-justified length field.  Mode bit 0 gives frame
 * (mode >> 1) % frames a different id; mode bit 4 appends another frame after
 * the message; the parts themselves are free bytes.
 *
 * Oracle: for every message the reassembling decoder accepts, decoding its raw
 * bytes again with PMC_DEC_NO_CONCAT must give exactly nframes frames whose
 * pairs, without the continuation markers, are the message's pairs in order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_PARTS = 32 };

typedef struct cbuf {
    char *p;
    size_t len, cap;
} cbuf;

static void cput(cbuf *b, const void *s, size_t n)
{
    if (b->cap - b->len < n) {
        size_t c = b->cap ? b->cap : 256;
        while (c - b->len < n)
            c *= 2;
        char *np = realloc(b->p, c);
        FZ_CHECK(np != NULL, "allocation");
        b->p = np;
        b->cap = c;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void frame(cbuf *b, const char *head, const char *part, size_t plen, const char *tail)
{
    size_t body = strlen(head) + plen + strlen(tail);
    char field[16];
    snprintf(field, sizeof field, "%6zu", body > 999999 ? (size_t)999999 : body);
    cput(b, field, 6);
    cput(b, head, strlen(head));
    cput(b, part, plen);
    cput(b, tail, strlen(tail));
}

static bool is_key(const pmc_pair *p, const char *k)
{
    return pmc_slice_eq(p->key, k);
}

/* The reassembly oracle. */
static void check_reassembly(const pmc_decoder_opts *o, const pmc_msg *m, void *ctx)
{
    (void)ctx;
    if (m->wire != PMC_WIRE_V2)
        return;
    pmc_decoder_opts o2 = *o;
    o2.flags |= PMC_DEC_NO_CONCAT;
    /* Alone, a frame keeps its markers as pairs: a marker key repeated in the
     * content ("concatid=" inside a part) is a duplicate only then. */
    o2.strict &= ~(uint32_t)PMC_NOTE_DUP_KEY;
    pmc_decoder *d = pmc_decoder_new(&o2);
    FZ_CHECK(d != NULL, "decoder");
    size_t pos = 0, next_pair = 0;
    uint32_t frames = 0;
    pmc_slice id = { NULL, 0 };
    while (pos < m->raw.len) {
        pmc_msg f;
        pmc_error err;
        size_t used = 0;
        int rc = pmc_decode_buffer(d, m->raw.ptr + pos, m->raw.len - pos, m->offset + pos, &f,
                                   &err, &used);
        FZ_CHECK(rc == PMC_MSG, "frame %u of an accepted continued message decodes alone "
                 "(rc %d, %s)", frames, rc, rc == PMC_ERR ? pmc_errcode_name(err.code) : "");
        FZ_CHECK(f.nframes == 1, "NO_CONCAT delivers single frames");
        const pmc_pair *p = f.pairs;
        size_t n = f.npairs;
        if (frames == 0) {
            FZ_CHECK(pmc_slice_eqs(f.name, m->name), "the first frame names the command");
        } else {
            FZ_CHECK(pmc_slice_eq(f.name, "concat"), "frame %u is cmd=concat", frames);
            FZ_CHECK(n > 0 && is_key(&p[0], "concatid") && pmc_slice_eqs(p[0].val, id),
                     "frame %u starts with the announced concatid", frames);
            p++;
            n--;
        }
        bool last = pos + used == m->raw.len;
        if (!last) {
            FZ_CHECK(n > 0 && is_key(&p[n - 1], "concat"), "frame %u announces a continuation",
                     frames);
            id = p[n - 1].val;
            n--;
        } else if (m->nframes > 1 || frames > 0) {
            FZ_CHECK(n == 0 || !is_key(&p[n - 1], "concat"), "the last frame ends the message");
        }
        FZ_CHECK(next_pair + n <= m->npairs, "frames carry no more pairs than the message");
        for (size_t i = 0; i < n; i++) {
            const pmc_pair *a = &m->pairs[next_pair + i];
            FZ_CHECK(pmc_slice_eqs(a->key, p[i].key) && pmc_slice_eqs(a->val, p[i].val) &&
                         a->flags == p[i].flags,
                     "pair %zu of the message is pair %zu of frame %u", next_pair + i, i, frames);
        }
        next_pair += n;
        pos += used;
        frames++;
    }
    FZ_CHECK(frames == m->nframes, "%u frames in raw, nframes says %u", frames, m->nframes);
    FZ_CHECK(next_pair == m->npairs, "every pair of the message comes from a frame (%zu of %zu)",
             next_pair, m->npairs);
    pmc_decoder_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    pmc_decoder_opts o;
    fz_opts_from_byte(data[0], &o);
    o.flags &= ~(uint32_t)PMC_DEC_NO_CONCAT;
    uint8_t mode = data[1];
    const char *in = (const char *)data + 2;
    size_t n = size - 2;

    const char *part[MAX_PARTS];
    size_t plen[MAX_PARTS], parts = 0;
    const char *p = in, *end = in + n;
    while (parts < MAX_PARTS - 1) {
        const char *sep = memchr(p, 0xff, (size_t)(end - p));
        if (!sep)
            break;
        part[parts] = p;
        plen[parts++] = (size_t)(sep - p);
        p = sep + 1;
    }
    part[parts] = p;
    plen[parts++] = (size_t)(end - p);

    static const char *ids[] = { "1", "42", "x", "" };
    const char *id = ids[(mode >> 5) & 3];
    size_t bad = (mode & 1) ? (size_t)(mode >> 1) % parts : SIZE_MAX;
    char head[64], tail[64];
    cbuf b = { 0 };
    for (size_t j = 0; j < parts; j++) {
        const char *fid = (j == bad) ? "other" : id;
        if (j == 0)
            snprintf(head, sizeof head, "cmd=kvs-put;");
        else
            snprintf(head, sizeof head, "cmd=concat;concatid=%s;", fid);
        snprintf(tail, sizeof tail, "concat=%s;", id);
        frame(&b, head, part[j], plen[j], j + 1 < parts ? tail : "");
    }
    if (mode & 0x10)
        frame(&b, "cmd=concat;concatid=", id, strlen(id), ";");
    cput(&b, "", 0);
    fz_decode_workout(&o, b.p ? b.p : "", b.len, check_reassembly, NULL);
    free(b.p);
    return 0;
}
