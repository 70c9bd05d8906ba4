/*
 * newcomer1_server: a PMI-1 only process manager for one machine.
 *
 * First version, written in a day from SPEC.md.  PMI-1.1 only: a request
 * for PMI-2 is refused in response_to_init (INIT-8) and PMI-2 frames are
 * answered with an error frame.  No spawn, no name service.
 *
 *   newcomer1_server [-n N] [--port] -- PROGRAM ARGS...
 *
 * Default mode: one AF_UNIX socketpair per rank, PMI_FD/PMI_RANK/PMI_SIZE.
 * --port: one TCP listener on 127.0.0.1, PMI_PORT/PMI_ID, initack.
 *
 * Set NEWCOMER1_DEBUG=1 to log the wire to stderr.
 */
#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXRANKS 256
#define MAXCONN 300
#define LINEBUF 1024
#define MAXPAIRS 64
#define KVS_MAX 4096
#define KEYLEN 64
#define VALLEN 1024

struct conn {
    int fd;
    int rank;           /* -1 until known (port mode: initack) */
    char buf[LINEBUF];
    int len;
    int in_barrier;
    int finalized;
};

struct kvpair {
    char key[KEYLEN];
    char val[VALLEN];
};

static struct conn conns[MAXCONN];
static int nconns;
static struct kvpair kvs[KVS_MAX];
static int nkvs;

static int size = 1;
static int port_mode;
static int listen_fd = -1;
static pid_t pids[MAXRANKS];
static int alive;
static int job_status;
static int barrier_count;
static int job_broken;      /* a rank left before finalize: barriers fail */
static char kvsname[64];
static int debug;

/* parsed PMI-1 message */
static char *keys[MAXPAIRS];
static char *vals[MAXPAIRS];
static int npairs;

static void dbg(const char *fmt, ...)
{
    va_list ap;
    if (!debug)
        return;
    va_start(ap, fmt);
    fprintf(stderr, "newcomer1: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

static void send_str(struct conn *c, const char *s)
{
    dbg("S>C[%d] %s", c->rank, s);
    if (write(c->fd, s, strlen(s)) < 0)
        dbg("write failed: %s\n", strerror(errno));
}

static void sendf(struct conn *c, const char *fmt, ...)
{
    char out[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, sizeof(out), fmt, ap);
    va_end(ap);
    send_str(c, out);
}

static char *getval(const char *key)
{
    int i;
    for (i = 0; i < npairs; i++)
        if (strcmp(keys[i], key) == 0)
            return vals[i];
    return NULL;
}

static void parse_line(char *line)
{
    char *tok;
    npairs = 0;
    tok = strtok(line, " \n");
    while (tok && npairs < MAXPAIRS) {
        char *eq = strchr(tok, '=');
        if (eq) {
            *eq = 0;
            keys[npairs] = tok;
            vals[npairs] = eq + 1;
            npairs++;
        }
        tok = strtok(NULL, " \n");
    }
}

static void kill_all(void)
{
    int i;
    for (i = 0; i < size; i++)
        if (pids[i] > 0)
            kill(pids[i], SIGKILL);
}

static void close_conn(struct conn *c)
{
    dbg("closing connection of rank %d\n", c->rank);
    close(c->fd);
    *c = conns[nconns - 1];
    nconns--;
}

static int kvs_put(const char *k, const char *v)
{
    int i;
    for (i = 0; i < nkvs; i++) {
        if (strcmp(kvs[i].key, k) == 0) {
            strncpy(kvs[i].val, v, VALLEN - 1);
            return 0;
        }
    }
    if (nkvs >= KVS_MAX)
        return -1;
    strncpy(kvs[nkvs].key, k, KEYLEN - 1);
    strncpy(kvs[nkvs].val, v, VALLEN - 1);
    nkvs++;
    return 0;
}

static const char *kvs_get(const char *k)
{
    int i;
    for (i = 0; i < nkvs; i++)
        if (strcmp(kvs[i].key, k) == 0)
            return kvs[i].val;
    return NULL;
}

static void handle_v1(struct conn *c, char *line)
{
    char *cmd;
    char *v;

    dbg("C>S[%d] %s\n", c->rank, line);
    parse_line(line);
    if (npairs == 0 || strcmp(keys[0], "cmd") != 0)
        return;
    cmd = vals[0];

    if (strcmp(cmd, "init") == 0) {
        char *ver = getval("pmi_version");
        if (ver && atoi(ver) == 1)
            send_str(c, "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n");
        else
            send_str(c, "cmd=response_to_init rc=1 pmi_version=1 pmi_subversion=1 msg=only_PMI-1_supported\n");
        return;
    }
    if (strcmp(cmd, "initack") == 0) {
        v = getval("pmiid");
        if (!v) {
            send_str(c, "cmd=initack rc=3 msg=missing_pmiid\n");
            return;
        }
        c->rank = atoi(v);
        sendf(c, "cmd=initack\ncmd=set size=%d\ncmd=set rank=%d\ncmd=set debug=%d\n",
              size, c->rank, debug);
        return;
    }
    if (strcmp(cmd, "get_maxes") == 0) {
        sendf(c, "cmd=maxes rc=0 kvsname_max=%d keylen_max=%d vallen_max=%d\n",
              (int)sizeof(kvsname), KEYLEN, VALLEN);
        return;
    }
    if (strcmp(cmd, "get_appnum") == 0) {
        send_str(c, "cmd=appnum rc=0 appnum=0\n");
        return;
    }
    if (strcmp(cmd, "get_universe_size") == 0) {
        sendf(c, "cmd=universe_size rc=0 size=%d\n", size);
        return;
    }
    if (strcmp(cmd, "finalize") == 0) {
        c->finalized = 1;
        send_str(c, "cmd=finalize_ack rc=0\n");
        return;
    }
    if (strcmp(cmd, "abort") == 0) {
        v = getval("exitcode");
        job_status = v ? atoi(v) : 1;
        fprintf(stderr, "newcomer1: rank %d called abort, exit code %d\n", c->rank, job_status);
        kill_all();
        exit(job_status);
    }

    /* the rest needs to know who is calling */
    if (port_mode && c->rank < 0) {
        sendf(c, "cmd=%s_result rc=1 msg=initack_first\n", cmd);
        return;
    }

    if (strcmp(cmd, "get_my_kvsname") == 0) {
        sendf(c, "cmd=my_kvsname rc=0 kvsname=%s\n", kvsname);
        return;
    }
    if (strcmp(cmd, "put") == 0) {
        char *kn = getval("kvsname");
        char *k = getval("key");
        v = getval("value");
        if (kn && strcmp(kn, kvsname) != 0) {
            send_str(c, "cmd=put_result rc=1 msg=unknown_kvsname\n");
            return;
        }
        if (!k || !v) {
            send_str(c, "cmd=put_result rc=3 msg=missing_key_or_value\n");
            return;
        }
        if (kvs_put(k, v) < 0) {
            send_str(c, "cmd=put_result rc=1 msg=kvs_full\n");
            return;
        }
        send_str(c, "cmd=put_result rc=0\n");
        return;
    }
    if (strcmp(cmd, "get") == 0) {
        char *kn = getval("kvsname");
        char *k = getval("key");
        const char *val;
        if (kn && strcmp(kn, kvsname) != 0) {
            send_str(c, "cmd=get_result rc=1 msg=unknown_kvsname\n");
            return;
        }
        if (!k) {
            send_str(c, "cmd=get_result rc=3 msg=missing_key\n");
            return;
        }
        val = kvs_get(k);
        if (!val) {
            send_str(c, "cmd=get_result rc=1 msg=key_not_found\n");
            return;
        }
        sendf(c, "cmd=get_result rc=0 value=%s\n", val);
        return;
    }
    if (strcmp(cmd, "barrier_in") == 0) {
        int i;
        if (job_broken) {
            send_str(c, "cmd=barrier_out rc=1 msg=a_rank_exited_before_finalize\n");
            return;
        }
        c->in_barrier = 1;
        barrier_count++;
        if (barrier_count >= size) {
            for (i = 0; i < nconns; i++) {
                if (conns[i].in_barrier) {
                    send_str(&conns[i], "cmd=barrier_out rc=0\n");
                    conns[i].in_barrier = 0;
                }
            }
            barrier_count = 0;
        }
        return;
    }
    if (strcmp(cmd, "publish_name") == 0) {
        send_str(c, "cmd=publish_result rc=1 info=fail msg=no_name_service\n");
        return;
    }
    if (strcmp(cmd, "unpublish_name") == 0) {
        send_str(c, "cmd=unpublish_result rc=1 info=fail msg=no_name_service\n");
        return;
    }
    if (strcmp(cmd, "lookup_name") == 0) {
        send_str(c, "cmd=lookup_result rc=1 info=fail msg=no_name_service\n");
        return;
    }
    fprintf(stderr, "newcomer1: rank %d: unknown command %s\n", c->rank, cmd);
    sendf(c, "cmd=%s_result rc=10 msg=unknown_command\n", cmd);
}

/* mcmd=spawn block: we have no spawn; answer after the last block */
static void handle_block(struct conn *c, char *block)
{
    char *line, *tot = NULL, *sofar = NULL;
    dbg("C>S[%d] block\n", c->rank);
    for (line = strtok(block, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "totspawns=", 10) == 0)
            tot = line + 10;
        if (strncmp(line, "spawnssofar=", 12) == 0)
            sofar = line + 12;
    }
    if (!tot || !sofar || atoi(tot) == atoi(sofar))
        send_str(c, "cmd=spawn_result rc=1 msg=spawn_not_supported\n");
}

/* a PMI-2 frame: we only speak PMI-1, answer it with an error frame */
static void handle_frame(struct conn *c, char *body, int len)
{
    char name[128];
    char thrid[128];
    char resp[512];
    char *p, *end;
    int n;

    body[len] = 0;
    dbg("C>S[%d] frame %s\n", c->rank, body);
    if (strncmp(body, "cmd=", 4) != 0) {
        close_conn(c);
        return;
    }
    p = body + 4;
    end = strchr(p, ';');
    if (!end)
        end = p + strlen(p);
    n = end - p;
    if (n <= 0 || n >= (int)sizeof(name)) {
        close_conn(c);
        return;
    }
    memcpy(name, p, n);
    name[n] = 0;

    thrid[0] = 0;
    p = strstr(body, ";thrid=");
    if (p) {
        p += 7;
        end = strchr(p, ';');
        n = end ? end - p : (int)strlen(p);
        if (n < (int)sizeof(thrid) - 8) {
            memcpy(thrid, "thrid=", 6);
            memcpy(thrid + 6, p, n);
            thrid[6 + n] = ';';
            thrid[7 + n] = 0;
        }
    }
    n = snprintf(resp + 6, sizeof(resp) - 6,
                 "cmd=%s-response;%src=10;errmsg=PMI-2 is not supported by this server;",
                 name, thrid);
    snprintf(resp, 7, "%6d", n);
    resp[6] = 'c';
    send_str(c, resp);
}

/*
 * Take complete messages off the front of c->buf.  Returns -1 when the
 * connection was closed.
 */
static int process(struct conn *c)
{
    for (;;) {
        char *nl;
        int used;

        if (c->len == 0)
            return 0;
        c->buf[c->len] = 0;
        if (c->buf[0] == ' ' || (c->buf[0] >= '0' && c->buf[0] <= '9')) {
            /* PMI-2 frame */
            char lenfield[7];
            int flen;
            if (c->len < 6)
                return 0;
            memcpy(lenfield, c->buf, 6);
            lenfield[6] = 0;
            flen = atoi(lenfield);
            if (flen < 6 || flen + 6 >= LINEBUF) {
                dbg("bad frame length %d\n", flen);
                close_conn(c);
                return -1;
            }
            if (c->len < 6 + flen)
                return 0;
            {
                char body[LINEBUF];
                memcpy(body, c->buf + 6, flen);
                used = 6 + flen;
                memmove(c->buf, c->buf + used, c->len - used);
                c->len -= used;
                int before = nconns;
                handle_frame(c, body, flen);
                if (nconns != before)
                    return -1;
            }
            continue;
        }
        if (strncmp(c->buf, "mcmd=", 5) == 0) {
            char *e = strstr(c->buf, "\nendcmd\n");
            char block[LINEBUF];
            if (!e)
                return 0;
            used = e - c->buf + 8;
            memcpy(block, c->buf, used);
            block[used] = 0;
            memmove(c->buf, c->buf + used, c->len - used);
            c->len -= used;
            handle_block(c, block);
            continue;
        }
        nl = memchr(c->buf, '\n', c->len);
        if (!nl)
            return 0;
        {
            char line[LINEBUF];
            used = nl - c->buf + 1;
            memcpy(line, c->buf, used);
            line[used - 1] = 0;
            memmove(c->buf, c->buf + used, c->len - used);
            c->len -= used;
            if ((int)strlen(line) != used - 1) {
                /* a NUL inside the line: strtok would cut there, refuse it */
                char *sp = strpbrk(line, " ");
                if (sp)
                    *sp = 0;
                fprintf(stderr, "newcomer1: rank %d: NUL byte in line, refused\n", c->rank);
                sendf(c, "%s_result rc=3 msg=NUL_byte_in_line\n",
                      strncmp(line, "cmd=", 4) == 0 ? line : "cmd=error");
                continue;
            }
            handle_v1(c, line);
        }
    }
}

static void reap(void)
{
    int st, i;
    pid_t p;
    while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
        for (i = 0; i < size; i++) {
            if (pids[i] == p) {
                pids[i] = 0;
                alive--;
                if (job_status == 0) {
                    if (WIFEXITED(st))
                        job_status = WEXITSTATUS(st);
                    else if (WIFSIGNALED(st))
                        job_status = 128 + WTERMSIG(st);
                }
                dbg("rank %d exited, status 0x%x\n", i, st);
            }
        }
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: newcomer1_server [-n N] [--port] -- PROGRAM ARGS...\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int i;
    char **prog = NULL;
    char portstr[64];

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
            size = atoi(argv[++i]);
        else if (strcmp(argv[i], "--port") == 0)
            port_mode = 1;
        else if (strcmp(argv[i], "--") == 0) {
            prog = &argv[i + 1];
            break;
        } else
            usage();
    }
    if (!prog || !prog[0] || size < 1 || size > MAXRANKS)
        usage();
    debug = getenv("NEWCOMER1_DEBUG") != NULL;
    signal(SIGPIPE, SIG_IGN);
    snprintf(kvsname, sizeof(kvsname), "kvs_%d_0", (int)getpid());

    if (port_mode) {
        struct sockaddr_in sa;
        socklen_t sl = sizeof(sa);
        int one = 1;
        listen_fd = socket(AF_INET, SOCK_STREAM, 0);
        setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        memset(&sa, 0, sizeof(sa));
        sa.sin_family = AF_INET;
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
            listen(listen_fd, 64) < 0) {
            perror("newcomer1: listen");
            return 1;
        }
        getsockname(listen_fd, (struct sockaddr *)&sa, &sl);
        snprintf(portstr, sizeof(portstr), "127.0.0.1:%d", ntohs(sa.sin_port));
    }

    for (i = 0; i < size; i++) {
        int sv[2];
        char tmp[32];
        if (!port_mode && socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
            perror("newcomer1: socketpair");
            kill_all();
            return 1;
        }
        pids[i] = fork();
        if (pids[i] < 0) {
            perror("newcomer1: fork");
            kill_all();
            return 1;
        }
        if (pids[i] == 0) {
            if (port_mode) {
                close(listen_fd);
                setenv("PMI_PORT", portstr, 1);
                snprintf(tmp, sizeof(tmp), "%d", i);
                setenv("PMI_ID", tmp, 1);
            } else {
                int j;
                close(sv[0]);
                for (j = 0; j < nconns; j++)
                    close(conns[j].fd);
                snprintf(tmp, sizeof(tmp), "%d", sv[1]);
                setenv("PMI_FD", tmp, 1);
                snprintf(tmp, sizeof(tmp), "%d", i);
                setenv("PMI_RANK", tmp, 1);
                snprintf(tmp, sizeof(tmp), "%d", size);
                setenv("PMI_SIZE", tmp, 1);
            }
            setenv("PMI_JOBID", kvsname, 1);
            execvp(prog[0], prog);
            perror("newcomer1: exec");
            _exit(127);
        }
        alive++;
        if (!port_mode) {
            close(sv[1]);
            memset(&conns[nconns], 0, sizeof(conns[0]));
            conns[nconns].fd = sv[0];
            conns[nconns].rank = i;
            nconns++;
        }
    }

    while (alive > 0) {
        struct pollfd pfd[MAXCONN + 1];
        int n = 0, r;
        for (i = 0; i < nconns; i++) {
            pfd[n].fd = conns[i].fd;
            pfd[n].events = POLLIN;
            n++;
        }
        if (listen_fd >= 0) {
            pfd[n].fd = listen_fd;
            pfd[n].events = POLLIN;
            n++;
        }
        r = poll(pfd, n, 100);
        reap();
        if (r <= 0)
            continue;
        if (listen_fd >= 0 && (pfd[n - 1].revents & POLLIN)) {
            int fd = accept(listen_fd, NULL, NULL);
            if (fd >= 0) {
                if (nconns >= MAXCONN) {
                    close(fd);
                } else {
                    memset(&conns[nconns], 0, sizeof(conns[0]));
                    conns[nconns].fd = fd;
                    conns[nconns].rank = -1;
                    nconns++;
                }
            }
        }
        /* walk backwards so close_conn()'s swap does not skip anyone */
        for (i = (listen_fd >= 0 ? n - 1 : n) - 1; i >= 0; i--) {
            struct conn *c;
            ssize_t got;
            if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            c = &conns[i];
            if (c->fd != pfd[i].fd)
                continue;
            got = read(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
            if (got <= 0) {
                if (!c->finalized && c->rank >= 0) {
                    /* a rank left without finalize: nobody can finish a barrier now */
                    int j;
                    fprintf(stderr, "newcomer1: rank %d closed its connection before finalize\n", c->rank);
                    job_broken = 1;
                    for (j = 0; j < nconns; j++) {
                        if (conns[j].in_barrier && &conns[j] != c) {
                            send_str(&conns[j], "cmd=barrier_out rc=1 msg=a_rank_exited_before_finalize\n");
                            conns[j].in_barrier = 0;
                        }
                    }
                }
                close_conn(c);
                continue;
            }
            c->len += got;
            if (process(c) < 0)
                continue;
            if (c->len >= (int)sizeof(c->buf) - 1) {
                fprintf(stderr, "newcomer1: rank %d: message too long, closing\n", c->rank);
                close_conn(c);
            }
        }
    }
    reap();
    return job_status;
}
