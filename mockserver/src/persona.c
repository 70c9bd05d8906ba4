/* The persona table.  Facts from shared/reference/mpich-wire.md (Hydra 4.0.2
 * and 4.1+/HEAD) and slurm-pmi2.md (Slurm 22.05); "strict" follows SPEC.md. */
#include "persona.h"

#include <string.h>

static const pms_persona strict = {
    .name = "strict", .own_put_visible = true, .dialect = "strict", .decode_flags = PMC_DEC_SEMI_ESCAPE,
    .notfound = PMS_NF_FOUND_FALSE, .on_error = PMS_ERR_REPLY, .fullinit_versions = true,
    .appnum = 0, .lookup_key = "value", .lookup_found = true, .thrid_echo = true,
    .fence_barrier = true, .put_visible_now = false, .getjobattr_kvs = false,
    .universe_attr = true, .v1_max_subversion = 2, .v1_rc_first = true, .v1_msg = false,
    .v1_get_notfound_rc = 1, .spawn_jobid = true, .v1_strict_init = true,
    .draft_cmds = true, .ring = true, .v1_barrier_rc = true,
};

static const pms_persona hydra40 = {
    .name = "hydra-4.0", .v1_put_hidden = true, .dialect = "hydra-4.0", .decode_flags = 0,
    .notfound = PMS_NF_FOUND_FALSE, .on_error = PMS_ERR_CLOSE, .fullinit_versions = true,
    .appnum = 0, .lookup_key = "port", .lookup_found = true, .thrid_echo = true,
    .fence_barrier = false, .put_visible_now = true, .getjobattr_kvs = true,
    .universe_attr = false, .v1_max_subversion = 1, .v1_rc_first = false, .v1_msg = true,
    .v1_get_notfound_rc = -1, .spawn_jobid = true, .spawn_nerrs = true,
};

static const pms_persona hydra41 = {
    .name = "hydra-4.1", .dialect = "hydra-4.1", .decode_flags = PMC_DEC_V1_BACKSLASH,
    .notfound = PMS_NF_RC1, .on_error = PMS_ERR_CLOSE, .fullinit_versions = false,
    .pmiverbose_int = true, .rank_from_client = true, .appnum = 0, .lookup_key = "port",
    .lookup_found = false, .thrid_echo = true, .fence_barrier = false, .put_visible_now = true,
    .getjobattr_kvs = true, .universe_attr = true, .v1_max_subversion = 2, .v1_rc_first = true,
    .v1_msg = false, .v1_get_notfound_rc = 1,
};

static const pms_persona slurm = {
    .name = "slurm", .dialect = "slurm", .decode_flags = 0, .notfound = PMS_NF_FOUND_FALSE,
    .on_error = PMS_ERR_SILENT, .fullinit_versions = true, .appnum = -1, .lookup_key = "value",
    .lookup_found = false, .thrid_echo = false, .fence_barrier = true, .put_visible_now = false,
    .getjobattr_kvs = false, .universe_attr = true, .nameserv_replace = true,
    .v1_max_subversion = 1, .v1_rc_first = true, .v1_msg = false, .v1_get_notfound_rc = 1,
    .put_novalue_ok = true, .spawner_last = true, .spawn_jobid = true,
    .spawn_rejects_thrid = true, .v1_spawn_jobid = true, .ring = true,
    .v1_barrier_rc = true,
};

static const pms_persona *const all[] = { &strict, &hydra40, &hydra41, &slurm };

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
