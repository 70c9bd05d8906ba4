/* pmi-mockserver: a PMI-1/PMI-2 process manager for one machine.
 *
 *   pmi-mockserver -n 4 [options] -- ./app args    launch a job
 *   pmi-mockserver -n 4 --listen tcp               serve clients that connect themselves
 */
#include "hooks.h"
#include "launch.h"
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
    EXIT_USAGE = 2,
    EXIT_TIMEOUT = 124,
    EXIT_INTERNAL = 125,
};
/* A shared secret is a password, not a document. */
enum { SECRET_MAX = 4096 };
/* How long the end-of-job hooks may run in all. */
enum { HOOK_TIMEOUT_MS = 30000 };

static volatile sig_atomic_t got_signal, nsignals;

static void on_signal(int sig)
{
    got_signal = sig;
    nsignals++;
}

static void usage(FILE *f)
{
    fputs("usage: pmi-mockserver -n N [options] -- PROGRAM [ARGS...]\n"
          "       pmi-mockserver -n N --listen tcp[:PORT]|unix:PATH [options]\n"
          "\n"
          "A PMI-1/PMI-2 process manager for one machine: starts N ranks of PROGRAM with\n"
          "the environment real launchers set (PMI_FD or PMI_PORT+PMI_ID, PMI_RANK,\n"
          "PMI_SIZE, PMI_JOBID) and serves their PMI requests.\n"
          "\n"
          "options:\n"
          "  -n, --np N              ranks in the job (required)\n"
          "      --nodes K           simulate K nodes (default 1); with K > 1 each node's\n"
          "                          ranks run under host name pmi-mock-node<k> (a UTS\n"
          "                          namespace each; unprivileged: PMI2_CONFORM_HOST set)\n"
          "      --map block|cyclic  how ranks are placed on nodes (default block)\n"
          "      --persona NAME      strict (SPEC.md, default), hydra-4.0, hydra-4.1, slurm;\n"
          "                          pmi1 (strict, PMI-1 only: refuses 2.0 as INIT-8 says, no\n"
          "                          name service), no-nameserv (strict without a name service)\n"
          "      --no-nameserv       no name service whatever the persona: the name commands\n"
          "                          get its unknown-command answer (or silence, or the end)\n"
          "      --mutant NAME       the strict persona with one clause broken (pmi2-conform\n"
          "                          mutate); --mutant list prints them with their clauses\n"
          "      --pmi-port[=tcp|unix]  give ranks PMI_PORT+PMI_ID instead of PMI_FD\n"
          "      --listen tcp[:PORT]|unix:PATH\n"
          "                          start no program: print PMI_PORT=... and serve clients\n"
          "                          that connect on their own until the job finishes\n"
          "      --label             prefix every output line with [rank]\n"
          "      --universe-size N   reported universe size (default: the job size)\n"
          "      --appnum N          reported appnum (default 0)\n"
          "security:\n"
          "      --secret-file FILE  shared secret for the auth challenge, read from FILE\n"
          "      --secret-env VAR    ... or from the environment variable VAR (removed from\n"
          "                          the environment of ranks and hooks)\n"
          "      --require-auth      serve no request before the auth challenge succeeded\n"
          "      --tls-cert FILE     TLS on the TCP port (--pmi-port=tcp, --listen tcp):\n"
          "      --tls-key FILE        server certificate chain and key (PEM)\n"
          "      --tls-ca FILE       CA the ranks verify the server with (PMI_TLS_CA; default\n"
          "                          the certificate itself) and, with --tls-verify-client,\n"
          "                          the server verifies clients with\n"
          "      --tls-verify-client require a client certificate signed by --tls-ca\n"
          "launch hooks (run by /bin/sh -c):\n"
          "      --pre-launch CMD    before any rank starts; its output lines KEY=VALUE set,\n"
          "                          -KEY unset a variable in every rank (exit 123 if it fails)\n"
          "      --on-rank-exit CMD  as each rank exits (PMI_HOOK_RANK, PMI_HOOK_JOBID,\n"
          "                          PMI_HOOK_STATUS, PMI_HOOK_FINALIZED)\n"
          "      --on-job-end CMD    once at the end (PMI_HOOK_JOBID, PMI_HOOK_EXIT)\n"
          "robustness and diagnostics:\n"
          "      --max-output BYTES  unsent replies per connection before it is no longer\n"
          "                          read (default 1048576)\n"
          "      --stall-timeout SEC close a connection whose replies make no progress for\n"
          "                          SEC seconds while held back (default 30, 0 = never)\n"
          "      --trace FILE        record every byte read and written (pmi-trace v1)\n"
          "      --script FILE       make the server misbehave as FILE's @server directives\n"
          "                          say (delay, split, before/after, error, reorder, drop,\n"
          "                          kill, fail-fence; pmi-mockserver(1), traces/README.md)\n"
          "      --timeout SEC       terminate the job after SEC seconds (exit 124)\n"
          "  -v, --verbose           log connections (twice: every message)\n"
          "  -h, --help              this text\n"
          "  -V, --version           version\n"
          "\n"
          "exit status: the job's (the abort exit code, else the first failing rank's code,\n"
          "128+signal for a rank killed by a signal), 0 when every rank succeeded;\n"
          "2 usage error or a bad --script file, 123 pre-launch hook failed, 124 timeout, 125 internal error,\n"
          "127 program not found, 128+N the launcher got signal N.\n",
          f);
}

static int read_secret_file(const char *path, char **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "pmi-mockserver: cannot read %s: %s\n", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && (st.st_mode & (S_IRWXG | S_IRWXO)))
        fprintf(stderr, "pmi-mockserver: warning: %s is accessible to group or others\n", path);
    char *buf = malloc(SECRET_MAX + 2);
    size_t n = buf ? fread(buf, 1, SECRET_MAX + 1, f) : 0;
    fclose(f);
    if (!buf)
        return -1;
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        n--; /* a trailing newline is not part of the secret */
    if (n == 0 || n > SECRET_MAX) {
        fprintf(stderr, "pmi-mockserver: %s: the secret must be 1 to %d bytes\n", path,
                SECRET_MAX);
        free(buf);
        return -1;
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    return 0;
}

/* The ranks learn the secret through a file only (PMI_AUTH_SECRET_FILE),
 * never through argv or their environment: --secret-env's value goes to a
 * private temporary file. */
static char *secret_to_file(const char *secret, size_t len, char **dir)
{
    char tmpl[] = "/tmp/pmi-mockserver-secret.XXXXXX";
    if (!mkdtemp(tmpl))
        return NULL;
    *dir = strdup(tmpl);
    char *path = malloc(strlen(tmpl) + 8);
    if (!*dir || !path) {
        free(path);
        return NULL;
    }
    sprintf(path, "%s/secret", tmpl);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, secret, len) != (ssize_t)len) {
        if (fd >= 0)
            close(fd);
        unlink(path);
        free(path);
        return NULL;
    }
    close(fd);
    return path;
}

static char *env_pair(const char *k, const char *v)
{
    char *s = malloc(strlen(k) + strlen(v) + 2);
    if (s)
        sprintf(s, "%s=%s", k, v);
    return s;
}

/* The kill action of a server script (pms_set_killer). */
static void kill_rank(void *ctx, pms_job *j, int rank, int signo)
{
    if (!launcher_kill_rank(ctx, j, rank, signo))
        fprintf(stderr, "pmi-mockserver: script: rank %d of %s has no running process to kill\n",
                rank, pms_job_id(j));
}

static bool parse_num(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

int main(int argc, char **argv)
{
    pms_config cfg;
    pms_config_default(&cfg);
    launch_opts lo = { .mode = LAUNCH_FD };
    hooks H = { 0 };
    hook_env HE = { 0 };
    int np = 0, timeout = 0;
    const char *listen_spec = NULL, *secret_path = NULL, *secret_env = NULL;
    const char *pre_launch = NULL;
    const char *script_path = NULL;
    pms_script *script = NULL;
    char *secret = NULL, *secret_file = NULL, *secret_dir = NULL;
    char *pm_env[4] = { 0 };
    size_t npm = 0;
    bool pmiport_given = false;
    long long num;
    static char mutant_persona[128];

    enum { O_NODES = 256, O_MAP, O_PERSONA, O_MUTANT, O_PMIPORT, O_LISTEN, O_LABEL, O_USIZE, O_APPNUM,
           O_SECRET_FILE, O_SECRET_ENV, O_REQ_AUTH, O_TIMEOUT, O_TLS_CERT, O_TLS_KEY, O_TLS_CA,
           O_TLS_VERIFY, O_PRE, O_RANK_EXIT, O_JOB_END, O_TRACE, O_MAX_OUT, O_STALL, O_SCRIPT,
           O_NO_NAMESERV };
    static const struct option longopts[] = {
        { "np", required_argument, 0, 'n' },
        { "nodes", required_argument, 0, O_NODES },
        { "map", required_argument, 0, O_MAP },
        { "persona", required_argument, 0, O_PERSONA },
        { "mutant", required_argument, 0, O_MUTANT },
        { "no-nameserv", no_argument, 0, O_NO_NAMESERV },
        { "pmi-port", optional_argument, 0, O_PMIPORT },
        { "listen", required_argument, 0, O_LISTEN },
        { "label", no_argument, 0, O_LABEL },
        { "universe-size", required_argument, 0, O_USIZE },
        { "appnum", required_argument, 0, O_APPNUM },
        { "secret-file", required_argument, 0, O_SECRET_FILE },
        { "secret-env", required_argument, 0, O_SECRET_ENV },
        { "require-auth", no_argument, 0, O_REQ_AUTH },
        { "tls-cert", required_argument, 0, O_TLS_CERT },
        { "tls-key", required_argument, 0, O_TLS_KEY },
        { "tls-ca", required_argument, 0, O_TLS_CA },
        { "tls-verify-client", no_argument, 0, O_TLS_VERIFY },
        { "pre-launch", required_argument, 0, O_PRE },
        { "on-rank-exit", required_argument, 0, O_RANK_EXIT },
        { "on-job-end", required_argument, 0, O_JOB_END },
        { "trace", required_argument, 0, O_TRACE },
        { "script", required_argument, 0, O_SCRIPT },
        { "max-output", required_argument, 0, O_MAX_OUT },
        { "stall-timeout", required_argument, 0, O_STALL },
        { "timeout", required_argument, 0, O_TIMEOUT },
        { "verbose", no_argument, 0, 'v' },
        { "help", no_argument, 0, 'h' },
        { "version", no_argument, 0, 'V' },
        { 0, 0, 0, 0 },
    };
    int ch;
    while ((ch = getopt_long(argc, argv, "+n:vhV", longopts, NULL)) != -1) {
        switch (ch) {
        case 'n': np = atoi(optarg); break;
        case O_NODES: cfg.nodes = atoi(optarg); break;
        case O_MAP:
            if (strcmp(optarg, "block") == 0)
                cfg.mapping = PMS_MAP_BLOCK;
            else if (strcmp(optarg, "cyclic") == 0)
                cfg.mapping = PMS_MAP_CYCLIC;
            else {
                fprintf(stderr, "pmi-mockserver: --map takes block or cyclic\n");
                return EXIT_USAGE;
            }
            break;
        case O_PERSONA: cfg.persona = optarg; break;
        case O_NO_NAMESERV: cfg.no_nameserv = true; break;
        case O_MUTANT:
            if (strcmp(optarg, "list") == 0) {
                pms_mutant_list(stdout);
                return 0;
            }
            snprintf(mutant_persona, sizeof mutant_persona, "mutant:%s", optarg);
            cfg.persona = mutant_persona;
            break;
        case O_PMIPORT:
            pmiport_given = true;
            if (!optarg || strcmp(optarg, "tcp") == 0)
                lo.mode = LAUNCH_PORT_TCP;
            else if (strcmp(optarg, "unix") == 0)
                lo.mode = LAUNCH_PORT_UNIX;
            else {
                fprintf(stderr, "pmi-mockserver: --pmi-port takes tcp or unix\n");
                return EXIT_USAGE;
            }
            break;
        case O_LISTEN: listen_spec = optarg; break;
        case O_LABEL: lo.label = true; break;
        case O_USIZE: cfg.universe_size = atoi(optarg); break;
        case O_APPNUM: cfg.appnum = atoi(optarg); break;
        case O_SECRET_FILE: secret_path = optarg; secret_env = NULL; break;
        case O_SECRET_ENV: secret_env = optarg; secret_path = NULL; break;
        case O_REQ_AUTH: cfg.require_auth = true; break;
        case O_TLS_CERT: cfg.tls_cert = optarg; break;
        case O_TLS_KEY: cfg.tls_key = optarg; break;
        case O_TLS_CA: cfg.tls_ca = optarg; break;
        case O_TLS_VERIFY: cfg.tls_verify_client = true; break;
        case O_PRE: pre_launch = optarg; break;
        case O_RANK_EXIT: H.on_rank_exit = optarg; break;
        case O_JOB_END: H.on_job_end = optarg; break;
        case O_TRACE: cfg.trace_path = optarg; break;
        case O_SCRIPT: script_path = optarg; break;
        case O_MAX_OUT:
            if (!parse_num(optarg, 4096, (long long)1 << 40, &num)) {
                fprintf(stderr, "pmi-mockserver: --max-output takes bytes (>= 4096)\n");
                return EXIT_USAGE;
            }
            cfg.out_limit = (size_t)num;
            break;
        case O_STALL:
            if (!parse_num(optarg, 0, 86400, &num)) {
                fprintf(stderr, "pmi-mockserver: --stall-timeout takes seconds (0-86400)\n");
                return EXIT_USAGE;
            }
            cfg.stall_timeout_ms = (int)num * 1000;
            break;
        case O_TIMEOUT: timeout = atoi(optarg); break;
        case 'v': cfg.verbose++; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("pmi-mockserver (pmi2-conform) %s\n", PMICODEC_VERSION); return 0;
        default: /* getopt named the option */
            fprintf(stderr, "Try 'pmi-mockserver --help'.\n");
            return EXIT_USAGE;
        }
    }
    if (np < 1) {
        fprintf(stderr, "pmi-mockserver: -n N (N >= 1) is required\n");
        return EXIT_USAGE;
    }
    if (!pms_persona_exists(cfg.persona)) {
        fprintf(stderr, "pmi-mockserver: unknown persona '%s' (strict, hydra-4.0, hydra-4.1, slurm, "
                        "pmi1, no-nameserv; "
                        "mutants: --mutant list)\n",
                cfg.persona);
        return EXIT_USAGE;
    }
    if (!pmiport_given && !listen_spec && pms_persona_wants_port(cfg.persona)) {
        pmiport_given = true;
        lo.mode = LAUNCH_PORT_TCP;
    }
    if (!listen_spec && optind >= argc) {
        fprintf(stderr, "pmi-mockserver: no program to run (or use --listen); try "
                        "'pmi-mockserver --help'\n");
        return EXIT_USAGE;
    }
    bool tls = cfg.tls_cert || cfg.tls_key || cfg.tls_ca || cfg.tls_verify_client;
    if (tls) {
        bool tcp = listen_spec ? strncmp(listen_spec, "tcp", 3) == 0
                               : pmiport_given && lo.mode == LAUNCH_PORT_TCP;
        const char *bad = !cfg.tls_cert || !cfg.tls_key ? "TLS needs both --tls-cert and --tls-key"
                          : cfg.tls_verify_client && !cfg.tls_ca ? "--tls-verify-client needs --tls-ca"
                          : !tcp ? "TLS is for the TCP port: add --pmi-port=tcp or --listen tcp"
                                 : NULL;
        if (bad) {
            fprintf(stderr, "pmi-mockserver: %s\n", bad);
            return EXIT_USAGE;
        }
    }

    int rc = 0;
    pms_server *srv = NULL;
    launcher L;
    memset(&L, 0, sizeof L);
    bool have_launcher = false, job_started = false;

    /* ---- the secret: never on argv, never in a rank's environment */
    if (secret_path && read_secret_file(secret_path, &secret, &cfg.secret_len) < 0) {
        rc = EXIT_USAGE;
        goto out;
    }
    if (secret_env) {
        const char *v = getenv(secret_env);
        if (!v || !*v || strlen(v) > SECRET_MAX) {
            fprintf(stderr, "pmi-mockserver: %s is %s\n", secret_env,
                    !v ? "not set" : !*v ? "empty" : "longer than 4096 bytes");
            rc = EXIT_USAGE;
            goto out;
        }
        secret = strdup(v);
        cfg.secret_len = strlen(v);
        unsetenv(secret_env); /* ranks and hooks inherit our environment */
        if (!secret || !(secret_file = secret_to_file(secret, cfg.secret_len, &secret_dir))) {
            fprintf(stderr, "pmi-mockserver: cannot store the secret for the ranks: %s\n",
                    strerror(errno));
            rc = EXIT_INTERNAL;
            goto out;
        }
    } else if (secret_path) {
        secret_file = realpath(secret_path, NULL);
    }
    cfg.secret = secret;
    if (cfg.require_auth && !cfg.secret) {
        fprintf(stderr, "pmi-mockserver: --require-auth needs --secret-file or --secret-env\n");
        rc = EXIT_USAGE;
        goto out;
    }
    if (secret_file)
        pm_env[npm++] = env_pair("PMI_AUTH_SECRET_FILE", secret_file);
    if (tls) {
        char *ca = realpath(cfg.tls_ca ? cfg.tls_ca : cfg.tls_cert, NULL);
        pm_env[npm++] = env_pair("PMI_SOCKTYPE", "OpenSSL");
        pm_env[npm++] = env_pair("PMI_TLS_CA", ca ? ca : cfg.tls_ca ? cfg.tls_ca : cfg.tls_cert);
        free(ca);
    }
    for (size_t i = 0; i < npm; i++)
        if (!pm_env[i]) {
            rc = EXIT_INTERNAL;
            goto out;
        }
    lo.pm_env = pm_env;
    lo.nodes = cfg.nodes;
    lo.hooks = &H;

    srv = pms_server_new(&cfg);
    if (!srv) {
        fprintf(stderr, "pmi-mockserver: cannot create the server%s%s: %s\n",
                cfg.trace_path ? " (trace file " : "", cfg.trace_path ? cfg.trace_path : "",
                strerror(errno));
        rc = EXIT_INTERNAL;
        goto out;
    }
    pms_job *job = pms_job_create(srv, np, NULL);
    if (!job) {
        fprintf(stderr, "pmi-mockserver: cannot create the job\n");
        rc = EXIT_INTERNAL;
        goto out;
    }
    if (script_path) {
        char why[512];
        if (!(script = pms_script_load(srv, script_path, why, sizeof why))) {
            fprintf(stderr, "pmi-mockserver: --script: %s\n", why);
            rc = EXIT_USAGE;
            goto out;
        }
    }
    if (pre_launch) {
        char why[256];
        if (hook_pre_launch(pre_launch, pms_job_id(job), np, &HE, why, sizeof why) < 0) {
            fprintf(stderr, "pmi-mockserver: %s: the job is not started\n", why);
            rc = HOOK_EXIT_PRELAUNCH;
            goto out;
        }
        lo.extra_env = HE.set;
        lo.unset_env = HE.unset;
    }
    if (launcher_init(&L, srv, &lo) < 0 || spawn_setup(&L) < 0) {
        fprintf(stderr, "pmi-mockserver: cannot create the job\n");
        rc = EXIT_INTERNAL;
        goto out;
    }
    have_launcher = true;
    launcher_crash_guard(&L);
    /* a script's kill action ends the rank's process; in --listen mode the
     * clients are not ours: the server closes the connection instead */
    if (script && !listen_spec)
        pms_set_killer(srv, kill_rank, &L);

    struct sigaction sa = { .sa_handler = on_signal };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN); /* a closed client socket or stdout is an error, not death */

    job_started = true;
    if (listen_spec) {
        char port[512];
        int lr;
        if (strncmp(listen_spec, "unix:", 5) == 0)
            lr = pms_listen_unix(srv, job, listen_spec + 5, port, sizeof port);
        else if (strcmp(listen_spec, "tcp") == 0 || strncmp(listen_spec, "tcp:", 4) == 0)
            lr = pms_listen_tcp(srv, job, listen_spec[3] ? atoi(listen_spec + 4) : 0, port,
                                sizeof port);
        else {
            fprintf(stderr, "pmi-mockserver: --listen takes tcp[:PORT] or unix:PATH\n");
            rc = EXIT_USAGE;
            job_started = false;
            goto out;
        }
        if (lr < 0) {
            fprintf(stderr, "pmi-mockserver: %s\n", pms_server_error(srv));
            rc = EXIT_INTERNAL;
            job_started = false;
            goto out;
        }
        printf("PMI_PORT=%s\nPMI_JOBID=%s\nPMI_SIZE=%d\n", port, pms_job_id(job), np);
        for (size_t i = 0; i < npm; i++)
            printf("%s\n", pm_env[i]);
        fflush(stdout);
    } else if (launcher_start(&L, job, 0, np, argv + optind) < 0) {
        launcher_kill_all(&L, "launch failed");
        rc = EXIT_INTERNAL;
    }

    long long deadline = timeout > 0 ? launcher_now_ms() + (long long)timeout * 1000 : 0;
    bool timed_out = false;
    int handled_signals = 0;
    for (;;) {
        if (nsignals != handled_signals) {
            /* first interrupt: SIGTERM and a grace period; second: SIGKILL */
            if (handled_signals == 0)
                launcher_kill_all(&L, "interrupted");
            else
                launcher_kill_now(&L);
            handled_signals = nsignals;
            rc = 128 + got_signal;
            if (listen_spec)
                break;
        }
        if (deadline && !timed_out && launcher_now_ms() >= deadline) {
            timed_out = true;
            launcher_kill_all(&L, "timeout");
            if (listen_spec)
                break;
        }
        if (pms_server_run(srv, 50) < 0) {
            perror("pmi-mockserver: event loop");
            rc = EXIT_INTERNAL;
            break;
        }
        if (L.nprocs) /* --listen starts nothing (until a spawn): no wait4 per pass */
            launcher_reap(&L);
        for (size_t i = 0; i < pms_job_count(srv); i++) {
            pms_job *j = pms_job_at(srv, i);
            if (pms_job_aborted(j) && !L.killing) {
                char why[128];
                snprintf(why, sizeof why, "%s aborted with exit code %d", pms_job_id(j),
                         pms_job_exit_code(j));
                L.exit_code = pms_job_exit_code(j);
                L.have_exit = true;
                launcher_kill_all(&L, why);
                if (listen_spec)
                    goto done;
            }
        }
        launcher_tick(&L);
        if (listen_spec ? pms_server_done(srv) : launcher_done(&L))
            break;
    }
done:
    if (!rc)
        rc = timed_out ? EXIT_TIMEOUT : L.have_exit ? L.exit_code : 0;
out:
    if (have_launcher && !launcher_done(&L)) {
        /* leaving early (loop error): no rank outlives us */
        launcher_kill_now(&L);
        for (int i = 0; i < 200 && !launcher_done(&L); i++) {
            pms_server_run(srv, 10);
            launcher_reap(&L);
            launcher_tick(&L);
        }
    }
    if (have_launcher)
        launcher_reap(&L);
    if (job_started)
        hooks_finish(&H, pms_job_id(pms_job_at(srv, 0)), rc, HOOK_TIMEOUT_MS);
    if (have_launcher)
        launcher_cleanup(&L);
    hooks_free(&H);
    hook_env_free(&HE);
    if (script && cfg.verbose)
        pms_script_report(script, srv, stderr);
    pms_server_free(srv);
    pms_script_free(script); /* after the server: its faults point into the script */
    if (secret) {
        memset(secret, 0, cfg.secret_len);
        free(secret);
    }
    if (secret_dir) {
        if (secret_file)
            unlink(secret_file);
        rmdir(secret_dir);
        free(secret_dir);
    }
    free(secret_file);
    for (size_t i = 0; i < npm; i++)
        free(pm_env[i]);
    return rc;
}
