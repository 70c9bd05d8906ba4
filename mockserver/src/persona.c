/* The persona table.  Facts from shared/reference/mpich-wire.md (Hydra 4.0.2
 * and 4.1+/HEAD) and slurm-pmi2.md (Slurm 22.05); "strict" follows SPEC.md. */
#include "persona.h"

#include <string.h>

/* The real servers check no key or value length below their 64 KiB frame
 * buffer (mpich-wire.md §6.4, slurm-pmi2.md §5); Hydra 4.0.2 then cuts
 * what it stores (B9). */
enum { UNCHECKED = 65536 };

/* SPEC.md's server, shared by the personas that follow it and leave out
 * an optional part (issue 21: a PMI-1-only server, one without a name
 * service). */
#define SPEC_SERVER                                                                              \
    .own_put_visible = true, .lookup_both = true, .mapping_in_kvs = true, .dialect = "strict",    \
    .decode_flags = PMC_DEC_SEMI_ESCAPE,                                                         \
    /* VAL-3: a value with NUL is rejected (VAL-2: it could not be sent back) */                 \
    .decode_strict = PMC_NOTE_NUL_IN_VALUE, .bools = PMS_BOOL_SPEC, .v2_abort = true,            \
    .notfound = PMS_NF_FOUND_FALSE, .on_error = PMS_ERR_REPLY, .fullinit_versions = true,        \
    .appnum = 0, .lookup_key = "value", .lookup_found = true, .thrid_echo = true,                \
    .fence_barrier = true, .put_visible_now = false, .getjobattr_kvs = false,                    \
    .universe_attr = true, .v1_max_subversion = 2, .v1_rc_first = true, .v1_msg = false,         \
    .v1_get_notfound_rc = 1, .spawn_jobid = true, .v1_strict_init = true, .v1_barrier_rc = true, \
    .spawn_checks_exe = true

static const pms_persona strict = {
    SPEC_SERVER, .name = "strict", .draft_cmds = true, .ring = true, .groups = true,
};

/* PMI-1 only (INIT-8 refuses 2.0) and no name service (NAME-8) */
static const pms_persona pmi1_only = {
    SPEC_SERVER, .name = "pmi1", .v2_refused = true, .no_nameserv = true,
};

static const pms_persona no_nameserv = {
    SPEC_SERVER, .name = "no-nameserv", .draft_cmds = true, .ring = true, .groups = true,
    .no_nameserv = true,
};

static const pms_persona hydra40 = {
    .kvs_jobid_ignored = true, .name = "hydra-4.0", .v1_put_hidden = true, .dialect = "hydra-4.0",
    /* §6.6: no continuations; §9: "get_maxes\r" is an unknown command; §6.1: atoi lengths */
    .decode_flags = PMC_DEC_NO_CONCAT | PMC_DEC_EMPTY_KEYS | PMC_DEC_LEN_ATOI, .decode_strict = PMC_NOTE_V1_CR,
    .max_key = UNCHECKED, .max_val = UNCHECKED, .trunc_key = 63, .trunc_val = 1023, /* B9 */
    .nul_truncates = true, .bools = PMS_BOOL_EXACT, .put_novalue = PMS_PUT_EMPTY,
    .fullinit_needs_rank = true, .v2_abort = false, /* B4 */
    .notfound = PMS_NF_FOUND_FALSE, .on_error = PMS_ERR_KILL_JOB, .fullinit_versions = true,
    .appnum = 0, .lookup_key = "port", .lookup_found = true, .thrid_echo = true,
    .fence_barrier = false, .put_visible_now = true, .getjobattr_kvs = true,
    .universe_attr = false, .v1_max_subversion = 1, .v1_rc_first = false, .v1_msg = true,
    .v1_get_notfound_rc = -1, .spawn_jobid = true, .spawn_nerrs = true,
    .spawn_needs_preputcount = true,
    .max_pairs = UNCHECKED, .v1_init_positional = true, .kvsname_must_match = true,
    .v2_strip_last_lf = true, .kvs_keep_first = true, .lookup_noname_miss = true,
    .eof_kills_job = true, .partial_len_fatal = true, .hol_blocking = true,
    .blocking_writes = true, /* robust/v1-unread-answers: rank 0 unserved (observed) */
    .v1_abort_atoi = true, .v1_abort_needs_exitcode = true, .v1_cmd_nul_ends = true,
    .v1_empty_key_skipped = true, .v1_initack_regrants = true,
};

static const pms_persona hydra41 = {
    .kvs_jobid_ignored = true, .name = "hydra-4.1", .dialect = "hydra-4.1",
    .decode_flags = PMC_DEC_V1_BACKSLASH | PMC_DEC_NO_CONCAT | PMC_DEC_LEN_ATOI,
    /* H1: empty values, H7: CR before LF */
    .decode_strict = PMC_NOTE_EMPTY_VALUE | PMC_NOTE_V1_CR,
    .max_key = UNCHECKED, .max_val = UNCHECKED, .nul_truncates = true, .bools = PMS_BOOL_EXACT,
    .mapping = PMS_MAP_MPL, .fullinit_needs_rank = true, .v2_abort = true,
    .v1_get_kvsname_optional = true,
    .notfound = PMS_NF_RC1, .on_error = PMS_ERR_KILL_JOB, .fullinit_versions = false,
    .pmiverbose_int = true, .rank_from_client = true, .appnum = 0, .lookup_key = "port",
    .lookup_found = false, .thrid_echo = true, .fence_barrier = false, .put_visible_now = true,
    .getjobattr_kvs = true, .universe_attr = true, .v1_max_subversion = 2, .v1_rc_first = true,
    .v1_msg = false, .v1_get_notfound_rc = 1,
    /* §4.3: a kvsname mismatch is fatal; §9: a closed socket kills the job and a partial
     * message stalls the node, as in 4.0.2 */
    .kvsname_must_match = true, .eof_kills_job = true, .hol_blocking = true,
    .blocking_writes = true, /* the proxy's writes as in 4.0.2 (not observed) */
    /* MPICH 4.1+/5.x's proxy (pmip_cb.c check_pmi_cmd) leaves 1-5 bytes of a next length
     * in place and parses the last frame again: it segfaults, as 4.0.2's does (H5); its
     * parse_v2 joins a bare token to the next key; abort ignores isworld */
    .partial_len_fatal = true, .v2_bare_key_joins = true, .abort_always_world = true,
};

static const pms_persona slurm = {
    .kvs_jobid_ignored = true, .name = "slurm", .mapping_in_kvs = true, .dialect = "slurm",
    /* S8: atoi lengths; "=x;" is a pair with an empty key (client.c:196-253) */
    .decode_flags = PMC_DEC_NO_CONCAT | PMC_DEC_LEN_ATOI | PMC_DEC_EMPTY_KEYS,
    /* PMI-1 splits on single spaces: "\r" stays in the last token (S-crlf), runs of
     * spaces crash the agent (observed: pmi1/line/extra-spaces) */
    .decode_strict = PMC_NOTE_V1_CR | PMC_NOTE_V1_SPACES,
    .max_key = UNCHECKED, .max_val = UNCHECKED, .max_pairs = UNCHECKED, .nul_truncates = true,
    .bools = PMS_BOOL_CASEFOLD, .put_novalue = PMS_PUT_IGNORED, .fullinit_all_keys = true,
    .v2_abort = true, .notfound = PMS_NF_FOUND_FALSE,
    .on_error = PMS_ERR_SILENT, .fullinit_versions = true, .appnum = -1, .lookup_key = "value",
    .lookup_found = false, .thrid_echo = false, .fence_barrier = true, .put_visible_now = false,
    .getjobattr_kvs = false, .universe_attr = true, .nameserv_replace = true,
    .v1_max_subversion = 1, .v1_rc_first = true, .v1_msg = false, .v1_get_notfound_rc = 1,
    .spawner_last = true, .spawn_jobid = true,
    .spawn_rejects_thrid = true, .v1_spawn_jobid = true, .ring = true, .spawn_positional = true,
    .v1_barrier_rc = true,
    /* one agent thread reads and writes every task with blocking calls (§1) */
    .hol_blocking = true, .blocking_writes = true,
    .bad_len_finalize = true, .eof_unnoticed = true, .job_wide_failures = true,
    .missing_key_null = true, .v1_one_read = true, .v1_init_once = true, .netinfo_attr = true,
    .unpublish_always_ok = true, .abort_needs_isworld = true, .fence_counts_calls = true,
    .crash_on_v1_spaces = true, .crash_on_big_frame = true, .no_local_env = true,
    /* its parser takes every byte up to the first = as the key (observed: robust/bare-key) */
    .v2_bare_key_joins = true,
};

static const pms_persona *const all[] = { &strict, &hydra40, &hydra41, &slurm, &pmi1_only,
                                           &no_nameserv };

const pms_persona *pms_persona_get(const char *name)
{
    if (!name)
        return &strict;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

const pms_persona *const *pms_persona_list(size_t *n)
{
    *n = sizeof all / sizeof all[0];
    return all;
}

void pms_persona_decoder_opts(const pms_persona *p, pmc_decoder_opts *o)
{
    o->flags = p->decode_flags;
    o->strict = p->decode_strict;
    /* a real server's parser takes more than the configured limits; a
     * mutant's takes less (mutant.h) */
    if (p->max_key && (o->limits.max_key < p->max_key || p->mutant))
        o->limits.max_key = p->max_key;
    if (p->max_val && (o->limits.max_val < p->max_val || p->mutant))
        o->limits.max_val = p->max_val;
    if (p->max_pairs && (o->limits.max_pairs < p->max_pairs || p->mutant))
        o->limits.max_pairs = p->max_pairs;
}

static bool ieq(pmc_slice s, const char *w)
{
    size_t n = strlen(w);
    if (s.len != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        char a = s.ptr[i];
        if (a >= 'a' && a <= 'z')
            a = (char)(a - 'a' + 'A');
        if (a != w[i])
            return false;
    }
    return true;
}

int pms_persona_bool(const pms_persona *p, const pmc_msg *m, const char *key, bool dflt,
                     bool *out)
{
    pmc_slice v;
    *out = dflt;
    if (!pmc_msg_get(m, key, &v))
        return dflt;
    switch (p->bools) {
    case PMS_BOOL_EXACT: /* mpich-wire.md §6.2: "true" reads as false */
        *out = pmc_slice_eq(v, "TRUE");
        return *out;
    case PMS_BOOL_CASEFOLD: /* slurm-pmi2.md §7: xstrcasecmp(val, "TRUE") */
        *out = ieq(v, "TRUE");
        return *out;
    case PMS_BOOL_SPEC:
        break;
    }
    if (ieq(v, "TRUE")) /* BOOL-2 */
        *out = true;
    else if (ieq(v, "FALSE"))
        *out = false;
    else
        return -1; /* BOOL-3 */
    return *out;
}
