/* Harness: structure-aware encoder round trip, decode(encode(m)) == m.
 *
 * The input is read as a recipe for a message: a dialect (one of the table,
 * optionally with its fields overridden, including a small max_frame so
 * continuation splitting is exercised), a wire form, a command name (from the
 * schema table or free bytes) and pairs of four kinds (free string, integer,
 * boolean, well-known key such as rc / thrid with a free value).
 *
 * When pmc_enc_end succeeds, decoding its output with the matching decoder
 * options must give one message spanning all of it with the same wire form,
 * name and pairs, in the dialect's order, booleans spelt per dialect; frames
 * must respect the dialect's limit.  When it fails, the error must be an
 * encoder error and nothing may have been appended. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct rd {
    const uint8_t *p;
    size_t n;
} rd;

static uint8_t u8(rd *r)
{
    if (!r->n)
        return 0;
    r->n--;
    return *r->p++;
}

static pmc_slice bytes(rd *r, size_t want)
{
    if (want > r->n)
        want = r->n;
    pmc_slice s = { (const char *)r->p, want };
    r->p += want;
    r->n -= want;
    return s;
}

static const char *const well_known[] = { "rc", "thrid", "key", "value", "found", "jobid",
                                          "kvsname", "msg", "errmsg", "pmi_version" };

enum { MAX_PAIRS = 64 };

/* A NUL-terminated copy of s, or NULL when s holds a NUL. */
static char *cstring(pmc_slice s)
{
    if (s.len && memchr(s.ptr, '\0', s.len))
        return NULL;
    char *k = malloc(s.len + 1);
    FZ_CHECK(k != NULL, "allocation");
    if (s.len)
        memcpy(k, s.ptr, s.len);
    k[s.len] = '\0';
    return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rd r = { data, size };
    size_t nd = 0;
    const pmc_dialect *const *list = pmc_dialect_list(&nd);
    FZ_CHECK(nd > 0, "dialects exist");
    pmc_dialect dia = *list[u8(&r) % nd];
    uint8_t ov = u8(&r);
    if (ov & 1) { /* override the dialect's fields */
        uint8_t a = u8(&r), b = u8(&r);
        dia.len_pad = (pmc_len_pad)(a % 3);
        dia.escape_semi = (a >> 2) & 1;
        dia.v1_backslash = (a >> 3) & 1;
        dia.bool_lower = (a >> 4) & 1;
        dia.rc_pos = (pmc_key_pos)((b & 3) % 3);
        dia.thrid_pos = (pmc_key_pos)(((b >> 2) & 3) % 3);
        dia.junk = (b >> 4) % 7;
    }
    if (ov & 2) /* a small frame limit forces continuation frames */
        dia.max_frame = 8 + u8(&r);

    static const pmc_wire wires[] = { PMC_WIRE_V2, PMC_WIRE_V1, PMC_WIRE_V1_MCMD };
    pmc_wire wire = wires[(ov >> 2) % 3];

    pmc_slice cmd;
    uint8_t c = u8(&r);
    if (c & 0x80) {
        size_t ns = 0;
        const pmc_cmdspec *all = pmc_schema_all(&ns);
        cmd = ns ? pmc_slice_cstr(all[c % ns].name) : PMC_SLICE_LIT("x");
    } else {
        cmd = bytes(&r, c & 15);
    }

    pmc_slice keys[MAX_PAIRS], vals[MAX_PAIRS];
    char nums[MAX_PAIRS][24];
    char *owned[MAX_PAIRS]; /* C-string keys for pmc_enc_int / pmc_enc_bool */
    size_t nowned = 0;
    size_t npairs = u8(&r) % MAX_PAIRS;
    pmc_enc e;
    pmc_enc_beginn(&e, wire, cmd);
    for (size_t i = 0; i < npairs; i++) {
        uint8_t kind = u8(&r);
        if ((kind & 3) == 3)
            keys[i] = pmc_slice_cstr(well_known[(kind >> 2) % (sizeof well_known / sizeof *well_known)]);
        else
            keys[i] = bytes(&r, (kind >> 2) % 24);
        switch (kind & 3) {
        case 1: { /* integer */
            long long v = 0;
            for (int j = 0; j < 8; j++)
                v = (long long)((unsigned long long)v << 8 | u8(&r));
            snprintf(nums[i], sizeof nums[i], "%lld", v);
            vals[i] = pmc_slice_cstr(nums[i]);
            char *k = cstring(keys[i]);
            if (k) {
                owned[nowned++] = k;
                pmc_enc_int(&e, k, v);
            } else { /* a NUL in the key: only the slice form can carry it */
                pmc_enc_slice(&e, keys[i], vals[i]);
            }
            break;
        }
        case 2: { /* boolean */
            bool v = u8(&r) & 1;
            vals[i] = v ? (dia.bool_lower ? PMC_SLICE_LIT("true") : PMC_SLICE_LIT("TRUE"))
                        : (dia.bool_lower ? PMC_SLICE_LIT("false") : PMC_SLICE_LIT("FALSE"));
            char *k = cstring(keys[i]);
            if (k) {
                owned[nowned++] = k;
                pmc_enc_bool(&e, k, v);
            } else {
                pmc_enc_slice(&e, keys[i], vals[i]);
            }
            break;
        }
        default: { /* free value, sometimes long */
            uint8_t l = u8(&r);
            size_t vl = (l & 0x80) ? (size_t)(l & 0x7f) * 8 : (size_t)l;
            vals[i] = bytes(&r, vl);
            pmc_enc_slice(&e, keys[i], vals[i]);
            break;
        }
        }
    }

    pmc_out out = { 0 };
    FZ_CHECK(pmc_out_append(&out, "PREFIX", 6) == 0, "out");
    pmc_error err;
    int rc = pmc_enc_end(&e, &dia, &out, &err);
    if (rc != 0) {
        fz_check_enc_failure(rc, &err, 6, out.len);
    } else {
        FZ_CHECK(out.len > 6 && memcmp(out.buf, "PREFIX", 6) == 0, "output appended");
        pmc_decoder_opts o;
        fz_opts_for_dialect(&dia, &o);
        pmc_decoder *d = pmc_decoder_new(&o);
        FZ_CHECK(d != NULL, "decoder");
        pmc_msg m;
        fz_decode_encoded(d, out.buf + 6, out.len - 6, &m);
        FZ_CHECK(m.wire == wire, "wire form survives (%d -> %d)", (int)wire, (int)m.wire);
        FZ_CHECK(pmc_slice_eqs(m.name, cmd), "command name survives");
        FZ_CHECK(m.npairs == npairs, "%zu pairs in, %zu out", npairs, m.npairs);
        size_t perm[MAX_PAIRS];
        fz_dialect_order(keys, npairs, &dia, perm);
        for (size_t k = 0; k < npairs; k++) {
            size_t i = perm[k];
            if (!pmc_slice_eqs(m.pairs[k].key, keys[i]) || !pmc_slice_eqs(m.pairs[k].val, vals[i])) {
                fz_dump("encoder output", out.buf + 6, out.len - 6);
                fz_dump("expected key", keys[i].ptr, keys[i].len);
                fz_dump("expected value", vals[i].ptr, vals[i].len);
                fz_dump("decoded key", m.pairs[k].key.ptr, m.pairs[k].key.len);
                fz_dump("decoded value", m.pairs[k].val.ptr, m.pairs[k].val.len);
                fz_fail(__FILE__, __LINE__, "pair %zu (written %zu-th, dialect %s) changed in a "
                        "round trip", i, k, dia.name);
            }
        }
        size_t limit = dia.max_frame ? dia.max_frame : 999999;
        if (limit > 999999)
            limit = 999999;
        if (wire == PMC_WIRE_V2) {
            /* every frame, junk included, within the dialect's limit */
            size_t pos = 0;
            while (pos < m.raw.len) {
                size_t v = 0;
                for (int j = 0; j < 6; j++)
                    if (m.raw.ptr[pos + j] >= '0' && m.raw.ptr[pos + j] <= '9')
                        v = v * 10 + (size_t)(m.raw.ptr[pos + j] - '0');
                FZ_CHECK(v <= limit, "frame of %zu bytes within the dialect's %zu", v, limit);
                pos += 6 + v;
            }
            if (dia.len_pad == PMC_PAD_RIGHT)
                FZ_CHECK(!(m.notes & (PMC_NOTE_LEN_LEFT | PMC_NOTE_LEN_ZERO)),
                         "right-justified lengths are canonical");
            if (dia.junk == 0)
                FZ_CHECK(!(m.notes & PMC_NOTE_TRAILING_JUNK), "no junk unless the dialect adds it");
        }
        pmc_decoder_free(d);
    }
    for (size_t i = 0; i < nowned; i++)
        free(owned[i]);
    pmc_out_free(&out);
    return 0;
}
