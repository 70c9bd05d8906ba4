/* Harness: schema validation (pmc_validate) of whatever decodes.
 *
 * Input: [opts byte] then bytes; every decoded message is validated with
 * each combination of the validation flags.  Invariants: the verdict without
 * a report equals the report's; n = min(total, PMC_MAX_FINDINGS); ok exactly
 * when no recorded finding is fatal (when all were recorded); findings name
 * keys of the message; strict validation never accepts what lenient
 * validation rejects; asking for a direction or unknown-key reports never
 * turns a rejection into acceptance; the per-command plan path and the
 * general path give the same report. */
#include <string.h>

#include "fuzz_common.h"
#include "internal.h" /* pmc_validate_general */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool key_of_msg(const pmc_msg *m, pmc_slice k)
{
    for (size_t i = 0; i < m->npairs; i++) {
        const pmc_pair *p = &m->pairs[i];
        if (k.ptr >= p->key.ptr && k.ptr + k.len <= p->key.ptr + p->key.len)
            return true;
    }
    return false;
}

static bool validate_checked(const pmc_msg *m, uint32_t flags)
{
    pmc_vreport r, r2;
    memset(&r, 0xa5, sizeof r); /* the report must be fully (re)initialised */
    bool ok = pmc_validate(m, flags, &r);
    FZ_CHECK(ok == r.ok, "return value is the report's verdict");
    FZ_CHECK(pmc_validate(m, flags, NULL) == ok, "verdict the same without a report (flags 0x%x)",
             flags);
    FZ_CHECK(r.n == (r.total < PMC_MAX_FINDINGS ? r.total : PMC_MAX_FINDINGS),
             "n %zu is min(total %zu, %d)", r.n, r.total, PMC_MAX_FINDINGS);
    bool fatal = false;
    for (size_t i = 0; i < r.n; i++) {
        const pmc_finding *f = &r.f[i];
        fatal |= f->fatal;
        FZ_CHECK(f->code != PMC_E_NONE && strcmp(pmc_errcode_name(f->code), "E_UNKNOWN") != 0,
                 "finding %zu has a known code (%d)", i, (int)f->code);
        FZ_CHECK(memchr(f->detail, '\0', sizeof f->detail) && f->detail[0],
                 "finding %zu has a detail", i);
        /* a key of the message, its command name, or (for a key that is
         * missing or absent from a family) the schema's name for it */
        bool names = !f->key.ptr || key_of_msg(m, f->key) ||
                     (f->key.ptr >= m->name.ptr && f->key.ptr + f->key.len <= m->name.ptr + m->name.len) ||
                     ((f->code == PMC_E_MISSING_KEY || f->code == PMC_E_INDEX) &&
                      f->key.len == strlen(f->key.ptr));
        FZ_CHECK(names, "finding %zu (%s) names a key of the message", i,
                 pmc_errcode_name(f->code));
    }
    if (fatal)
        FZ_CHECK(!ok, "a fatal finding rejects the message");
    if (r.total <= PMC_MAX_FINDINGS)
        FZ_CHECK(ok == !fatal, "rejected only with a fatal finding");
    FZ_CHECK(!(r.notes & ~(uint32_t)PMC_VNOTE_BOOL_LOWER), "only known validation notes");
    /* the per-command plans are a shortcut, not a second opinion: the
     * general path must give the same report, finding for finding */
    memset(&r2, 0x5a, sizeof r2);
    pmc_validate_general(m, flags, &r2);
    FZ_CHECK(r2.ok == r.ok && r2.n == r.n && r2.total == r.total && r2.notes == r.notes,
             "planned and general validation agree (flags 0x%x: ok %d/%d, n %zu/%zu)", flags,
             r.ok, r2.ok, r.n, r2.n);
    for (size_t i = 0; i < r.n; i++)
        FZ_CHECK(r2.f[i].code == r.f[i].code && r2.f[i].fatal == r.f[i].fatal &&
                     r2.f[i].key.ptr == r.f[i].key.ptr && r2.f[i].key.len == r.f[i].key.len &&
                     strcmp(r2.f[i].detail, r.f[i].detail) == 0,
                 "finding %zu the same on both paths: '%s' / '%s'", i, r.f[i].detail,
                 r2.f[i].detail);
    return ok;
}

static void on_msg(const pmc_decoder_opts *o, const pmc_msg *m, void *ctx)
{
    (void)o;
    (void)ctx;
    bool base = validate_checked(m, 0);
    bool unknown = validate_checked(m, PMC_VAL_UNKNOWN_KEYS);
    FZ_CHECK(unknown == base, "unknown keys alone never decide the verdict");
    bool strict = validate_checked(m, PMC_VAL_STRICT | PMC_VAL_UNKNOWN_KEYS);
    if (strict)
        FZ_CHECK(base, "strict accepts nothing lenient rejects");
    bool req = validate_checked(m, PMC_VAL_REQUEST);
    bool resp = validate_checked(m, PMC_VAL_RESPONSE);
    if (req || resp)
        FZ_CHECK(base, "a direction check accepts nothing lenient rejects");
    const pmc_cmdspec *cs = m->cmd != PMC_CMD_UNKNOWN ? pmc_schema_get((pmc_cmd)m->cmd) : NULL;
    if (cs && base) {
        if (cs->dir == PMC_DIR_REQUEST)
            FZ_CHECK(!resp, "a request is no response");
        if (cs->dir == PMC_DIR_RESPONSE)
            FZ_CHECK(!req, "a response is no request");
    }
    (void)validate_checked(m, PMC_VAL_STRICT | PMC_VAL_REQUEST);
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
