/* Spawns two processes of the child helper through PMI-2 "spawn" (v2) or
 * two PMI-1 "mcmd=spawn" blocks (v1), with a preput key and wdir=/tmp, and
 * checks the answer.  Run under pmi-mockserver:
 *   spawn_parent v2|v1 CHILD PERSONA */
#include "../support/tclient.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...) do { fprintf(stderr, "spawn_parent: " __VA_ARGS__); fputc('\n', stderr); return 1; } while (0)

int main(int argc, char **argv)
{
    if (argc != 4)
        FAIL("usage: spawn_parent v2|v1 CHILD PERSONA");
    bool v1 = strcmp(argv[1], "v1") == 0;
    const char *child = argv[2], *persona = argv[3];
    tc t;
    if (tc_open_env(&t) < 0)
        FAIL("no PMI_FD or PMI_PORT");
    const char *r = getenv("PMI_RANK");
    if (!tc_init_v2(&t, r ? atoi(r) : 0))
        FAIL("init failed");
    tc_begin(&t, PMC_WIRE_V2, "job-getid");
    if (tc_send(&t) < 0)
        FAIL("send");
    char jobid[256];
    if (!tc_expect(&t, "job-getid-response", 10000) || !tc_str(&t, "jobid", jobid, sizeof jobid))
        FAIL("job-getid");
    if (!v1) {
        pmc_enc *e = tc_begin(&t, PMC_WIRE_V2, "spawn");
        if (strcmp(persona, "slurm") != 0)
            pmc_enc_str(e, "thrid", "sp1"); /* Slurm refuses thrid in spawn (S10) */
        pmc_enc_int(e, "ncmds", 2);
        pmc_enc_int(e, "preputcount", 1);
        pmc_enc_str(e, "ppkey0", "PARENT_KEY");
        pmc_enc_str(e, "ppval0", "parent-val");
        for (int i = 0; i < 2; i++) {
            pmc_enc_str(e, "subcmd", child);
            pmc_enc_int(e, "maxprocs", 1);
            pmc_enc_int(e, "argc", 2);
            pmc_enc_str(e, "argv0", jobid);
            pmc_enc_str(e, "argv1", persona);
            pmc_enc_int(e, "infokeycount", 1);
            pmc_enc_str(e, "infokey0", "wdir");
            pmc_enc_str(e, "infoval0", "/tmp");
        }
        if (tc_send(&t) < 0 || !tc_expect(&t, "spawn-response", 20000))
            FAIL("no spawn-response");
        if (tc_int(&t, "rc", -1) != 0)
            FAIL("spawn failed: %.*s", (int)t.m.raw.len, t.m.raw.ptr);
        char cj[256];
        bool has_jobid = tc_str(&t, "jobid", cj, sizeof cj);
        if (has_jobid == (strcmp(persona, "hydra-4.1") == 0))
            FAIL("jobid in spawn-response: %.*s", (int)t.m.raw.len, t.m.raw.ptr);
        if (strcmp(persona, "slurm") != 0 && !tc_is(&t, "thrid", "sp1"))
            FAIL("thrid not echoed: %.*s", (int)t.m.raw.len, t.m.raw.ptr);
    } else {
        for (int i = 1; i <= 2; i++) {
            pmc_enc *e = tc_begin(&t, PMC_WIRE_V1_MCMD, "spawn");
            pmc_enc_int(e, "nprocs", 1);
            pmc_enc_str(e, "execname", child);
            pmc_enc_int(e, "totspawns", 2);
            pmc_enc_int(e, "spawnssofar", i);
            pmc_enc_int(e, "argcnt", 2);
            pmc_enc_str(e, "arg1", jobid);
            pmc_enc_str(e, "arg2", persona);
            pmc_enc_int(e, "preput_num", i == 1 ? 1 : 0);
            if (i == 1) {
                pmc_enc_str(e, "preput_key_0", "PARENT_KEY");
                pmc_enc_str(e, "preput_val_0", "parent-val");
            }
            pmc_enc_int(e, "info_num", 1);
            pmc_enc_str(e, "info_key_0", "wdir");
            pmc_enc_str(e, "info_val_0", "/tmp");
            if (tc_send(&t) < 0)
                FAIL("send");
        }
        if (!tc_expect(&t, "spawn_result", 20000) || tc_int(&t, "rc", -1) != 0)
            FAIL("spawn failed");
    }
    tc_begin(&t, PMC_WIRE_V2, "finalize");
    if (tc_send(&t) < 0 || !tc_expect(&t, "finalize-response", 10000))
        FAIL("finalize");
    tc_close(&t);
    return 0;
}
