/* Harness: encode(decode(b)) is accepted again.
 *
 * Input: [opts byte] then bytes.  Every message the decoder accepts is
 * re-encoded with pmc_encode_msg in every dialect of the table.  Where the
 * encoder succeeds, the decoder (with options matching the dialect) must
 * accept its output as one message with the same wire form, name and pairs
 * (in the dialect's rc/thrid order; bare keys come back as empty values).
 * Where it fails, the error must be an encoder error that appended nothing. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_msg(const pmc_decoder_opts *o, const pmc_msg *m, void *ctx)
{
    (void)o;
    (void)ctx;
    size_t nd = 0;
    const pmc_dialect *const *list = pmc_dialect_list(&nd);
    pmc_slice *keys = malloc((m->npairs ? m->npairs : 1) * sizeof *keys);
    size_t *perm = malloc((m->npairs ? m->npairs : 1) * sizeof *perm);
    FZ_CHECK(keys && perm, "allocation");
    for (size_t i = 0; i < m->npairs; i++)
        keys[i] = m->pairs[i].key;
    pmc_out out = { 0 };
    for (size_t di = 0; di < nd; di++) {
        const pmc_dialect *dia = list[di];
        pmc_out_reset(&out);
        pmc_error err;
        int rc = pmc_encode_msg(m, dia, &out, &err);
        if (rc != 0) {
            fz_check_enc_failure(rc, &err, 0, out.len);
            continue;
        }
        pmc_decoder_opts o2;
        fz_opts_for_dialect(dia, &o2);
        pmc_decoder *d = pmc_decoder_new(&o2);
        FZ_CHECK(d != NULL, "decoder");
        pmc_msg m2;
        fz_decode_encoded(d, out.buf, out.len, &m2);
        FZ_CHECK(m2.wire == m->wire, "wire form survives re-encoding as %s", dia->name);
        FZ_CHECK(pmc_slice_eqs(m2.name, m->name), "name survives re-encoding as %s", dia->name);
        FZ_CHECK(m2.npairs == m->npairs, "%zu pairs before, %zu after re-encoding as %s",
                 m->npairs, m2.npairs, dia->name);
        fz_dialect_order(keys, m->npairs, dia, perm);
        for (size_t k = 0; k < m->npairs; k++) {
            const pmc_pair *a = &m->pairs[perm[k]], *b = &m2.pairs[k];
            if (!pmc_slice_eqs(a->key, b->key) || !pmc_slice_eqs(a->val, b->val)) {
                fz_dump("original", m->raw.ptr, m->raw.len);
                fz_dump("re-encoded", out.buf, out.len);
                fz_fail(__FILE__, __LINE__, "pair %zu changed re-encoding as %s", perm[k],
                        dia->name);
            }
        }
        pmc_decoder_free(d);
    }
    pmc_out_free(&out);
    free(keys);
    free(perm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    pmc_decoder_opts o;
    fz_opts_from_byte(data[0], &o);
    fz_decode_workout(&o, (const char *)data + 1, size - 1, on_msg, NULL);
    return 0;
}
