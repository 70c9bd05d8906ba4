/* A spawned process: checks PMI_SPAWNED, spawner-jobid, the parent's preput
 * key (kvs-get; info-getjobattr where the persona reads job attributes from
 * the KVS), the working directory from wdir, then fences with its sibling.
 *   spawn_child PARENT_JOBID PERSONA */
#include "../support/tclient.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAIL(...) do { fprintf(stderr, "spawn_child: " __VA_ARGS__); fputc('\n', stderr); return 1; } while (0)

int main(int argc, char **argv)
{
    if (argc != 3)
        FAIL("usage: spawn_child PARENT_JOBID PERSONA");
    const char *persona = argv[2];
    const char *sp = getenv("PMI_SPAWNED");
    if (!sp || strcmp(sp, "1") != 0)
        FAIL("PMI_SPAWNED is not 1");
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd) || strcmp(cwd, "/tmp") != 0)
        FAIL("working directory is not /tmp (wdir)");
    tc t;
    if (tc_open_env(&t) < 0)
        FAIL("no PMI_FD or PMI_PORT");
    const char *r = getenv("PMI_RANK");
    if (!tc_init_v2(&t, r ? atoi(r) : 0))
        FAIL("init failed");
    char sj[256];
    if (!tc_str(&t, "spawner-jobid", sj, sizeof sj) || strcmp(sj, argv[1]) != 0)
        FAIL("spawner-jobid missing or wrong: %.*s", (int)t.m.raw.len, t.m.raw.ptr);
    if (tc_int(&t, "size", 0) != 2)
        FAIL("size is not 2");
    pmc_enc *e = tc_begin(&t, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(e, "key", "PARENT_KEY");
    if (tc_send(&t) < 0 || !tc_expect(&t, "kvs-get-response", 10000) ||
        !tc_is(&t, "value", "parent-val"))
        FAIL("preput key not visible through kvs-get: %.*s", (int)t.m.raw.len, t.m.raw.ptr);
    if (strncmp(persona, "hydra", 5) == 0) {
        e = tc_begin(&t, PMC_WIRE_V2, "info-getjobattr");
        pmc_enc_str(e, "key", "PARENT_KEY");
        if (tc_send(&t) < 0 || !tc_expect(&t, "info-getjobattr-response", 10000) ||
            !tc_is(&t, "value", "parent-val"))
            FAIL("preput key not a job attribute: %.*s", (int)t.m.raw.len, t.m.raw.ptr);
    }
    tc_begin(&t, PMC_WIRE_V2, "kvs-fence");
    if (tc_send(&t) < 0 || !tc_expect(&t, "kvs-fence-response", 20000))
        FAIL("fence");
    tc_begin(&t, PMC_WIRE_V2, "finalize");
    if (tc_send(&t) < 0 || !tc_expect(&t, "finalize-response", 10000))
        FAIL("finalize");
    tc_close(&t);
    return 0;
}
