/* Harness: pmc_decode_buffer, the zero-copy entry point, on arbitrary bytes.
 *
 * Input: [opts byte][6 bytes of base offset] then the bytes.  Besides the
 * common workout (two passes, and agreement with the streaming decoder):
 *   - the same decoding at a large base offset reports every offset shifted
 *     by exactly that base;
 *   - a message is never decided early: every proper prefix of an accepted
 *     message (last byte missing, half of it) gives PMC_AGAIN;
 *   - an accepted message decodes the same from a buffer holding exactly its
 *     bytes. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct ctx {
    pmc_decoder *probe;
} ctx;

static void on_msg(const pmc_decoder_opts *o, const pmc_msg *m, void *vc)
{
    (void)o;
    ctx *c = vc;
    size_t n = m->raw.len;
    /* Copies of exactly the bytes, so ASan sees any read beyond them. */
    char *copy = malloc(n);
    FZ_CHECK(copy != NULL, "allocation");
    memcpy(copy, m->raw.ptr, n);
    size_t cuts[2] = { n - 1, n / 2 };
    for (int i = 0; i < 2; i++) {
        pmc_msg pm;
        pmc_error err;
        size_t used = 7;
        int rc = pmc_decode_buffer(c->probe, copy, cuts[i], m->offset, &pm, &err, &used);
        FZ_CHECK(rc == PMC_AGAIN && used == 0,
                 "a %zu-byte prefix of an accepted %zu-byte message needs more input (rc %d%s%s)",
                 cuts[i], n, rc, rc == PMC_ERR ? ", " : "",
                 rc == PMC_ERR ? pmc_errcode_name(err.code) : "");
    }
    pmc_msg em;
    pmc_error err;
    size_t used = 0;
    int rc = pmc_decode_buffer(c->probe, copy, n, m->offset, &em, &err, &used);
    FZ_CHECK(rc == PMC_MSG && used == n && em.npairs == m->npairs && em.nframes == m->nframes &&
                 em.notes == m->notes && pmc_slice_eqs(em.name, m->name),
             "the message decodes alone from exactly its bytes (rc %d)", rc);
    for (size_t i = 0; i < em.npairs; i++)
        FZ_CHECK(pmc_slice_eqs(em.pairs[i].key, m->pairs[i].key) &&
                     pmc_slice_eqs(em.pairs[i].val, m->pairs[i].val) &&
                     em.pairs[i].flags == m->pairs[i].flags,
                 "pair %zu the same alone", i);
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 7)
        return 0;
    pmc_decoder_opts o;
    fz_opts_from_byte(data[0], &o);
    uint64_t base = 0;
    for (int i = 1; i < 7; i++)
        base = base << 8 | data[i];
    const char *in = (const char *)data + 7;
    size_t n = size - 7;

    ctx c = { pmc_decoder_new(&o) };
    FZ_CHECK(c.probe != NULL, "decoder");
    fz_decode_workout(&o, in, n, on_msg, &c);

    /* Offsets shift with the base and nothing else changes. */
    pmc_decoder *d = pmc_decoder_new(&o);
    FZ_CHECK(d != NULL, "decoder");
    size_t pos = 0;
    for (;;) {
        pmc_msg m0, m1;
        pmc_error e0, e1;
        size_t u0 = 0, u1 = 0;
        int r0 = pmc_decode_buffer(d, in + pos, n - pos, pos, &m0, &e0, &u0);
        uint64_t o0 = r0 == PMC_MSG ? m0.offset : r0 == PMC_ERR ? e0.offset : 0;
        uint64_t mo0 = r0 == PMC_ERR ? e0.msg_offset : 0;
        pmc_errcode c0 = r0 == PMC_ERR ? e0.code : PMC_E_NONE;
        bool fatal0 = r0 == PMC_ERR && e0.fatal;
        int r1 = pmc_decode_buffer(d, in + pos, n - pos, base + pos, &m1, &e1, &u1);
        FZ_CHECK(r0 == r1 && u0 == u1, "same result at base %llu", (unsigned long long)base);
        if (r1 == PMC_MSG)
            FZ_CHECK(m1.offset == o0 + base, "message offset shifted by the base");
        if (r1 == PMC_ERR)
            FZ_CHECK(e1.code == c0 && e1.offset == o0 + base && e1.msg_offset == mo0 + base,
                     "error offsets shifted by the base");
        if (r1 == PMC_AGAIN || fatal0)
            break;
        pos += u0;
    }
    pmc_decoder_free(d);
    pmc_decoder_free(c.probe);
    return 0;
}
