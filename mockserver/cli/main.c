/* pmi-mockserver: a PMI-1/PMI-2 process manager for one machine.
 *
 *   pmi-mockserver -n 4 [options] -- ./app args    launch a job
 *   pmi-mockserver -n 4 --listen tcp               serve clients that connect themselves
 */
#include "launch.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    EXIT_USAGE = 2,
    EXIT_TIMEOUT = 124,
    EXIT_INTERNAL = 125,
};

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
    got_signal = sig;
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
          "      --nodes K           simulate K nodes (default 1)\n"
          "      --map block|cyclic  how ranks are placed on nodes (default block)\n"
          "      --persona NAME      strict (SPEC.md, default), hydra-4.0, hydra-4.1, slurm\n"
          "      --pmi-port[=tcp|unix]  give ranks PMI_PORT+PMI_ID instead of PMI_FD\n"
          "      --listen tcp[:PORT]|unix:PATH\n"
          "                          start no program: print PMI_PORT=... and serve clients\n"
          "                          that connect on their own until the job finishes\n"
          "      --label             prefix every output line with [rank]\n"
          "      --universe-size N   reported universe size (default: the job size)\n"
          "      --appnum N          reported appnum (default 0)\n"
          "      --secret-file FILE  shared secret for the auth challenge, read from FILE\n"
          "      --secret-env VAR    ... or from the environment variable VAR\n"
          "      --require-auth      refuse fullinit without the auth challenge\n"
          "      --timeout SEC       terminate the job after SEC seconds (exit 124)\n"
          "  -v, --verbose           log connections (twice: every message)\n"
          "  -h, --help              this text\n"
          "  -V, --version           version\n"
          "\n"
          "exit status: the job's (the abort exit code, else the first failing rank's code,\n"
          "128+signal for a rank killed by a signal), 0 when every rank succeeded;\n"
          "2 usage error, 124 timeout, 125 internal error, 127 program not found.\n",
          f);
}

static char *read_secret_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(4097);
    size_t n = buf ? fread(buf, 1, 4096, f) : 0;
    fclose(f);
    if (!buf)
        return NULL;
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        n--; /* a trailing newline is not part of the secret */
    buf[n] = 0;
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    pms_config cfg;
    pms_config_default(&cfg);
    launch_opts lo = { .mode = LAUNCH_FD };
    int np = 0, timeout = 0;
    const char *listen_spec = NULL;
    char *secret = NULL;

    enum { O_NODES = 256, O_MAP, O_PERSONA, O_PMIPORT, O_LISTEN, O_LABEL, O_USIZE, O_APPNUM,
           O_SECRET_FILE, O_SECRET_ENV, O_REQ_AUTH, O_TIMEOUT };
    static const struct option longopts[] = {
        { "np", required_argument, 0, 'n' },
        { "nodes", required_argument, 0, O_NODES },
        { "map", required_argument, 0, O_MAP },
        { "persona", required_argument, 0, O_PERSONA },
        { "pmi-port", optional_argument, 0, O_PMIPORT },
        { "listen", required_argument, 0, O_LISTEN },
        { "label", no_argument, 0, O_LABEL },
        { "universe-size", required_argument, 0, O_USIZE },
        { "appnum", required_argument, 0, O_APPNUM },
        { "secret-file", required_argument, 0, O_SECRET_FILE },
        { "secret-env", required_argument, 0, O_SECRET_ENV },
        { "require-auth", no_argument, 0, O_REQ_AUTH },
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
        case O_PMIPORT:
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
        case O_SECRET_FILE:
            free(secret);
            secret = read_secret_file(optarg, &cfg.secret_len);
            if (!secret) {
                fprintf(stderr, "pmi-mockserver: cannot read %s: %s\n", optarg, strerror(errno));
                return EXIT_USAGE;
            }
            break;
        case O_SECRET_ENV: {
            const char *v = getenv(optarg);
            if (!v) {
                fprintf(stderr, "pmi-mockserver: %s is not set\n", optarg);
                return EXIT_USAGE;
            }
            free(secret);
            secret = strdup(v);
            cfg.secret_len = strlen(v);
            break;
        }
        case O_REQ_AUTH: cfg.require_auth = true; break;
        case O_TIMEOUT: timeout = atoi(optarg); break;
        case 'v': cfg.verbose++; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("pmi-mockserver (pmi2-conform) %s\n", PMICODEC_VERSION); return 0;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    cfg.secret = secret;
    if (np < 1) {
        fprintf(stderr, "pmi-mockserver: -n N (N >= 1) is required\n");
        return EXIT_USAGE;
    }
    if (!pms_persona_exists(cfg.persona)) {
        fprintf(stderr, "pmi-mockserver: unknown persona '%s' (strict, hydra-4.0, hydra-4.1, slurm)\n",
                cfg.persona);
        return EXIT_USAGE;
    }
    if (!listen_spec && optind >= argc) {
        fprintf(stderr, "pmi-mockserver: no program to run (or use --listen)\n");
        usage(stderr);
        return EXIT_USAGE;
    }
    if (cfg.require_auth && !cfg.secret) {
        fprintf(stderr, "pmi-mockserver: --require-auth needs --secret-file or --secret-env\n");
        return EXIT_USAGE;
    }

    pms_server *srv = pms_server_new(&cfg);
    if (!srv) {
        fprintf(stderr, "pmi-mockserver: cannot create the server\n");
        return EXIT_INTERNAL;
    }
    pms_job *job = pms_job_create(srv, np, NULL);
    launcher L;
    if (!job || launcher_init(&L, srv, &lo) < 0) {
        fprintf(stderr, "pmi-mockserver: cannot create the job\n");
        pms_server_free(srv);
        return EXIT_INTERNAL;
    }

    struct sigaction sa = { .sa_handler = on_signal };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    int rc = 0;
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
            goto out;
        }
        if (lr < 0) {
            fprintf(stderr, "pmi-mockserver: %s\n", pms_server_error(srv));
            rc = EXIT_INTERNAL;
            goto out;
        }
        printf("PMI_PORT=%s\nPMI_JOBID=%s\nPMI_SIZE=%d\n", port, pms_job_id(job), np);
        fflush(stdout);
    } else if (launcher_start(&L, job, 0, np, argv + optind) < 0) {
        launcher_kill_all(&L, "launch failed");
        rc = EXIT_INTERNAL;
    }

    long long deadline = timeout > 0 ? launcher_now_ms() + (long long)timeout * 1000 : 0;
    bool timed_out = false;
    for (;;) {
        if (got_signal) {
            launcher_kill_all(&L, "interrupted");
            rc = 128 + got_signal;
            got_signal = 0;
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
    launcher_cleanup(&L);
    pms_server_free(srv);
    free(secret);
    return rc;
}
