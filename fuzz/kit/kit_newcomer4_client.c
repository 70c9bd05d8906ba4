/* tests/peers/newcomer4_client, a PMI-2 client library written in a day
 * from SPEC.md by an engineer who had never seen this project's code,
 * through the client kit; the harness is the one that engineer wrote from
 * docs/fuzzing-your-parser.md.  Its first-version bugs (a 32-pair response
 * table, a 256-byte jobid copied with strcpy, errcodes parsed into the
 * caller's array without a bound) are the bench's crashes in independent
 * code. */
#include <pmi2.h>
#include "pmifuzz/harness.h"

static void api(void)
{
    int spawned, size, rank, appnum, len, found;
    char jobid[64], val[256];

    if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS)
        return;

    /* part 1: job id + kvs */
    if (PMI2_Job_GetId(jobid, sizeof jobid) == PMI2_SUCCESS &&
        PMI2_KVS_Put("key0", "value0") == PMI2_SUCCESS && PMI2_KVS_Fence() == PMI2_SUCCESS)
        PMI2_KVS_Get(jobid, PMI2_ID_NULL, "key0", val, sizeof val, &len);

    /* part 2: job attributes */
    if (PMI2_Info_GetJobAttr("PMI_process_mapping", val, sizeof val, &found) == PMI2_SUCCESS)
        PMI2_Info_GetJobAttr("universeSize", val, sizeof val, &found);

    /* part 3: node attributes */
    if (PMI2_Info_PutNodeAttr("memPoolType", "sysv") == PMI2_SUCCESS &&
        PMI2_Info_GetNodeAttr("memPoolType", val, sizeof val, &found, 0) == PMI2_SUCCESS)
        PMI2_Info_GetNodeAttr("localRanksCount", val, sizeof val, &found, 1);

    /* part 4: spawn */
    {
        const char *cmds[1] = {"/bin/true"};
        const char *argv0[1] = {"-x"};
        const char **argvs[1] = {argv0};
        int argcs[1] = {1};
        int maxprocs[1] = {2};
        int infosizes[1] = {1};
        PMI2_Info wdir = {"wdir", "/tmp", 4};
        const PMI2_Info *infos[1] = {&wdir};
        PMI2_Info pp = {"PARENT", "p0", 2};
        const PMI2_Info *pps[1] = {&pp};
        char spawnjob[64];
        int errors[2];
        PMI2_Job_Spawn(1, cmds, argcs, argvs, maxprocs, infosizes, infos, 1, pps, spawnjob,
                       sizeof spawnjob, errors);
    }

    /* PMI2_Abort exits the process, so it is not called in-process */
    PMI2_Finalize();
}

PMIFUZZ_CLIENT_HARNESS(api)
