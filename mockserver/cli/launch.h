/* Process management for pmi-mockserver: start the ranks of a job with the
 * environment real launchers give them, forward their output, reap them,
 * tear the job down on abort or on a rank dying before finalize. */
#ifndef PMIMOCK_LAUNCH_H
#define PMIMOCK_LAUNCH_H

#include "pmiserver/server.h"
#include "hooks.h"

#include <sys/types.h>

typedef enum launch_mode {
    LAUNCH_FD = 0,   /* PMI_FD: one socketpair per rank (the default) */
    LAUNCH_PORT_TCP, /* PMI_PORT=127.0.0.1:port + PMI_ID */
    LAUNCH_PORT_UNIX /* PMI_PORT=/path/to/socket + PMI_ID */
} launch_mode;

typedef struct launch_opts {
    launch_mode mode;
    bool label;          /* prefix each output line with "[rank] " */
    int kill_grace_ms;   /* SIGTERM, then SIGKILL after this long */
    char **extra_env;    /* KEY=VALUE strings set in every rank (launch hooks) */
    char **unset_env;    /* names removed from every rank's environment */
    char **pm_env;       /* KEY=VALUE the launcher itself adds (PMI_SOCKTYPE, ...),
                          * applied after the hook's edits */
    hooks *hooks;        /* rank-exit hook; NULL: none */
    int nodes;           /* --nodes: emulated nodes, each a host of its own (nodes.c) */
} launch_opts;

typedef struct launch_proc {
    pms_server *srv;
    pms_job *job;
    int rank;
    pid_t pid;
    int out_fd, err_fd;  /* -1 when not forwarded */
    bool exited;
    int status;          /* waitpid status */
    char *outbuf[2];     /* partial lines per stream (label mode) */
    size_t outlen[2];
} launch_proc;

/* PMI_PORT modes: one listener per job, since a connection belongs to the
 * job of the listener it came in on (spawned jobs get their own). */
typedef struct launch_port {
    pms_job *job;
    char portbuf[256];   /* PMI_PORT value */
} launch_port;

typedef struct launcher {
    pms_server *srv;
    launch_opts o;
    launch_proc **procs; /* stable addresses: output watches point at them */
    size_t nprocs, cap;
    launch_port *ports;
    size_t nports;
    char *sockdir;       /* temp dir for the UNIX sockets */
    bool leftovers_killed; /* every rank exited: their process groups were signalled */
    long long leftovers_at_ms;
    bool killing;        /* job teardown in progress */
    long long kill_at_ms;
    int exit_code;       /* what pmi-mockserver exits with */
    bool have_exit;
} launcher;

int launcher_init(launcher *L, pms_server *s, const launch_opts *o);
/* Start `nprocs` ranks of job j running argv (ranks first_rank..). */
int launcher_start(launcher *L, pms_job *j, int first_rank, int nprocs, char *const argv[]);
/* Reap exited children (call on SIGCHLD or periodically). */
void launcher_reap(launcher *L);
/* All started processes have exited and their output is drained. */
bool launcher_done(const launcher *L);
/* Kill every process (SIGTERM, later SIGKILL). */
void launcher_kill_all(launcher *L, const char *why);
/* Second interrupt: SIGKILL now. */
void launcher_kill_now(launcher *L);
/* On a fatal signal in the launcher itself (crash), SIGKILL every rank's
 * process group before dying: no orphaned job. */
void launcher_crash_guard(launcher *L);
/* Send signo to the process group of rank `rank` of job j (a server
 * script's kill action).  False when no such rank is running. */
bool launcher_kill_rank(launcher *L, pms_job *j, int rank, int signo);
/* Periodic work: escalate kills. */
void launcher_tick(launcher *L);
void launcher_cleanup(launcher *L);
long long launcher_now_ms(void);

#endif
