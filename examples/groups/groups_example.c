/* groups_example: two jobs form one group with the groups profile of
 * libpmiclient (pmi2ext.h, SPEC.md section 12).
 *
 * The parent job's rank 0 spawns the child job (this program again,
 * PMI2_Job_Spawn).  Then, in both jobs, rank 0 is a leader of a bootstrap
 * construct with nleaders=2 and adds its job's other ranks as members; the
 * other ranks join as added members.  Every process contributes its host
 * name and pid, prints its process id, the membership, the context id and
 * what the others contributed, then destructs the group and finalizes.
 *
 *   pmi-mockserver -n 2 -- groups_example [--nchild N]    (default N = 2) */
#define _DEFAULT_SOURCE /* gethostname */
#include <pmi2.h>
#include <pmi2ext.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GROUP "example"
enum { TIMEOUT_MS = 30000 };

static int rank = -1;

static void die(const char *what, int rc)
{
    fprintf(stderr, "groups-example[%d]: %s failed (%d, reason '%s': %s)\n", rank, what, rc,
            PMI2X_Group_last_reason(), PMI2X_Group_last_errmsg());
    PMI2_Abort(1, what);
}

int main(int argc, char **argv)
{
    int spawned, size, appnum, rc, nchild = 2;
    if (argc == 3 && strcmp(argv[1], "--nchild") == 0)
        nchild = atoi(argv[2]);
    if ((rc = PMI2_Init(&spawned, &size, &rank, &appnum)) != PMI2_SUCCESS) {
        fprintf(stderr, "groups-example: PMI2_Init failed (%d)\n", rc);
        return 1;
    }
    int flag = 0;
    if ((rc = PMI2X_Group_supported(&flag)) != PMI2_SUCCESS)
        die("PMI2X_Group_supported", rc);
    if (!flag) {
        fprintf(stderr, "groups-example: the server does not offer the groups profile\n");
        PMI2_Finalize();
        return 77;
    }

    /* The parent's rank 0 starts the child job; the child knows it is one
     * from PMI2_Init (spawned). */
    if (!spawned && rank == 0) {
        const char *cmds[1] = { argv[0] };
        int maxprocs[1] = { nchild }, errors[64];
        char childid[256];
        rc = PMI2_Job_Spawn(1, cmds, NULL, NULL, maxprocs, NULL, NULL, 0, NULL, childid,
                            sizeof childid, errors);
        if (rc != PMI2_SUCCESS)
            die("PMI2_Job_Spawn", rc);
    }

    char me[PMI2X_MAX_PROCID], jobid[256], host[256];
    if ((rc = PMI2_Job_GetId(jobid, sizeof jobid)) != PMI2_SUCCESS ||
        (rc = PMI2X_Group_procid(me, sizeof me)) != PMI2_SUCCESS)
        die("process id", rc);
    if (gethostname(host, sizeof host) != 0)
        strcpy(host, "unknown");
    host[sizeof host - 1] = 0;
    char pid[32];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    PMI2_keyval_t info[2] = { { "host", host }, { "pid", pid } };

    PMI2X_Group_result *res = NULL;
    if (rank == 0) {
        /* A leader: two leaders in all (one per job), its own ranks added. */
        char (*ids)[PMI2X_MAX_PROCID] = calloc(size > 1 ? size - 1 : 1, sizeof *ids);
        const char **members = calloc(size > 1 ? size - 1 : 1, sizeof *members);
        if (!ids || !members)
            die("calloc", PMI2_ERR_NOMEM);
        for (int r = 1; r < size; r++) {
            if ((rc = PMI2X_Group_make_procid(jobid, r, ids[r - 1], sizeof ids[0])) !=
                PMI2_SUCCESS)
                die("PMI2X_Group_make_procid", rc);
            members[r - 1] = ids[r - 1];
        }
        rc = PMI2X_Group_construct_bootstrap(GROUP, 2, members, size - 1, info, 2, TIMEOUT_MS,
                                             &res);
        free(members);
        free(ids);
    } else {
        rc = PMI2X_Group_construct_member(GROUP, info, 2, TIMEOUT_MS, &res);
    }
    if (rc != PMI2_SUCCESS)
        die("group construct", rc);

    /* One line with everything the check compares, then what the others said. */
    char line[8192];
    size_t n = 0;
    for (int i = 0; i < res->nmembers && n < sizeof line; i++)
        n += (size_t)snprintf(line + n, sizeof line - n, "%s%s", i ? "," : "", res->members[i]);
    printf("groups-example: procid=%s job=%s ctxid=%lld members=%s\n", me,
           spawned ? "child" : "parent", res->ctxid, line);
    for (int i = 0; i < res->nmembers; i++) {
        const char *h = PMI2X_Group_info_get(res, res->members[i], "host");
        const char *p = PMI2X_Group_info_get(res, res->members[i], "pid");
        printf("groups-example: %s read from %s: host=%s pid=%s\n", me, res->members[i],
               h ? h : "?", p ? p : "?");
    }
    fflush(stdout);
    PMI2X_Group_result_free(res);

    if ((rc = PMI2X_Group_destruct(GROUP, TIMEOUT_MS, NULL)) != PMI2_SUCCESS)
        die("PMI2X_Group_destruct", rc);
    if ((rc = PMI2_Finalize()) != PMI2_SUCCESS) {
        fprintf(stderr, "groups-example[%d]: PMI2_Finalize failed (%d)\n", rank, rc);
        return 1;
    }
    return 0;
}
