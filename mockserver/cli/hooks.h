/* Launch hooks (after the PMIx network-support idea): a command run once
 * before launch whose output edits every rank's environment, a command run
 * as each rank exits, and one when the whole job ends.  Hooks run through
 * /bin/sh -c in their own process group; the rank-exit hook never stalls
 * the event loop (it is forked and reaped like the ranks). */
#ifndef PMIMOCK_HOOKS_H
#define PMIMOCK_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Exit status of pmi-mockserver when the pre-launch hook fails. */
enum { HOOK_EXIT_PRELAUNCH = 123 };

/* Environment edits from the pre-launch hook: "KEY=VALUE" strings to set
 * and names to unset, NULL-terminated (ready for launch_opts). */
typedef struct hook_env {
    char **set;
    char **unset;
    size_t nset, nunset;
} hook_env;

/* Run `cmd` with PMI_HOOK_JOBID and PMI_HOOK_SIZE set and parse its stdout:
 * "KEY=VALUE" sets, "-KEY" unsets, empty lines are skipped, anything else
 * (or a name the launcher itself sets, see hooks_reserved) is an error
 * naming the line.  0, or -1 with the reason in err (a non-zero exit
 * included). */
int hook_pre_launch(const char *cmd, const char *jobid, int size, hook_env *out, char *err,
                    size_t errlen);
void hook_env_free(hook_env *e);
/* Names a hook may not touch (the launcher's own PMI variables). */
bool hooks_reserved(const char *name, size_t len);

typedef struct hooks {
    const char *on_rank_exit; /* NULL: none */
    const char *on_job_end;
    pid_t *running;           /* rank-exit hooks not reaped yet */
    size_t nrunning, cap;
} hooks;

/* Start the rank-exit hook (PMI_HOOK_RANK, PMI_HOOK_JOBID, PMI_HOOK_STATUS,
 * PMI_HOOK_FINALIZED) without waiting for it. */
void hooks_rank_exit(hooks *h, const char *jobid, int rank, int status, bool finalized);
/* A child reaped by the launcher: true if it was one of our hooks. */
bool hooks_reaped(hooks *h, pid_t pid, int status);
/* End of the job: wait for rank-exit hooks still running, then run the
 * job-end hook (PMI_HOOK_JOBID, PMI_HOOK_EXIT) and wait for it; whatever
 * runs longer than timeout_ms in all is killed. */
void hooks_finish(hooks *h, const char *jobid, int exit_code, int timeout_ms);
void hooks_free(hooks *h);

#endif
