/* bench-bare-responder: the floor under any PMI server on this machine.
 *
 * An epoll loop that frames requests with the codec's decoder and answers
 * each with a reply encoded once at start-up: every kvs-get (and any other
 * frame) gets the same kvs-get-response.  No validation, no KVS, no
 * collectives (a fence or barrier is answered at once).  The handshake
 * replies name the caller's rank, so they are encoded per connection; they
 * are outside the measured phases.  Run the same load against it and
 * against pmi-mockserver: the difference is what the server's own work
 * costs. */
#define _GNU_SOURCE /* accept4 */
#include "pmicodec/pmicodec.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_USAGE = 2 };

typedef struct conn {
    int fd;
    pmc_decoder *dec;
    pmc_out out;
    size_t off;
    bool closing; /* finalize answered: close once written */
    bool pollout;
} conn;

typedef struct canned {
    pmc_out v2_get, v2_put, v2_fence, v2_fin;
    pmc_out v1_get, v1_put, v1_barrier, v1_fin, v1_maxes, v1_kvsname, v1_init1, v1_init2;
} canned;

static int nranks;
static const pmc_dialect *dial;

static void usage(FILE *f)
{
    fputs("usage: bench-bare-responder [--listen tcp[:PORT]|unix:PATH] [-n N] [options]\n"
          "\n"
          "Answers PMI requests with fixed replies and does nothing else: every PMI-2\n"
          "kvs-get (and any other frame) gets one kvs-get-response encoded at start-up,\n"
          "PMI-1 get the matching get_result; fences and barriers are answered at once.\n"
          "The baseline for bench/server: the cost of the event loop and the system calls.\n"
          "Prints PMI_PORT=... and PMI_SIZE=... on stdout, then serves.\n"
          "\n"
          "options:\n"
          "      --listen SPEC     tcp (default, loopback, any port), tcp:PORT, unix:PATH\n"
          "  -n, --np N            job size reported to clients; exit after N connections\n"
          "                        closed (default 1)\n"
          "      --value-size B    bytes in the value of every get reply (default 100)\n"
          "      --timeout SEC     exit 1 after SEC seconds (default 300, 0 = never)\n"
          "  -h, --help            this text\n"
          "  -V, --version         version\n"
          "\n"
          "exit status: 0 after N connections closed, 1 timeout or I/O failure, 2 usage.\n",
          f);
}

static int canned_one(pmc_out *o, pmc_enc *e)
{
    pmc_error err;
    if (pmc_enc_end(e, dial, o, &err) < 0) {
        fprintf(stderr, "bench-bare-responder: encode: %s\n", err.detail);
        return -1;
    }
    return 0;
}

static int make_canned(canned *c, size_t vsize)
{
    char *val = malloc(vsize + 1);
    if (!val)
        return -1;
    for (size_t i = 0; i < vsize; i++)
        val[i] = (char)('a' + i % 26);
    val[vsize] = 0;
    pmc_enc e;
    int rc = 0;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get-response");
    pmc_enc_bool(&e, "found", true);
    pmc_enc_str(&e, "value", val);
    pmc_enc_int(&e, "rc", 0);
    rc |= canned_one(&c->v2_get, &e);
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put-response");
    pmc_enc_int(&e, "rc", 0);
    rc |= canned_one(&c->v2_put, &e);
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-fence-response");
    pmc_enc_int(&e, "rc", 0);
    rc |= canned_one(&c->v2_fence, &e);
    pmc_enc_begin(&e, PMC_WIRE_V2, "finalize-response");
    pmc_enc_int(&e, "rc", 0);
    rc |= canned_one(&c->v2_fin, &e);
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_result");
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_str(&e, "value", val);
    rc |= canned_one(&c->v1_get, &e);
    pmc_enc_begin(&e, PMC_WIRE_V1, "put_result");
    pmc_enc_int(&e, "rc", 0);
    rc |= canned_one(&c->v1_put, &e);
    pmc_enc_begin(&e, PMC_WIRE_V1, "barrier_out");
    rc |= canned_one(&c->v1_barrier, &e);
    pmc_enc_begin(&e, PMC_WIRE_V1, "finalize_ack");
    rc |= canned_one(&c->v1_fin, &e);
    pmc_enc_begin(&e, PMC_WIRE_V1, "maxes");
    pmc_enc_int(&e, "kvsname_max", 256);
    pmc_enc_int(&e, "keylen_max", 64);
    pmc_enc_int(&e, "vallen_max", (long long)(vsize > 1024 ? vsize : 1024));
    rc |= canned_one(&c->v1_maxes, &e);
    pmc_enc_begin(&e, PMC_WIRE_V1, "my_kvsname");
    pmc_enc_str(&e, "kvsname", "kvs_bare_0");
    rc |= canned_one(&c->v1_kvsname, &e);
    pmc_enc_begin(&e, PMC_WIRE_V1, "response_to_init");
    pmc_enc_int(&e, "pmi_version", 1);
    pmc_enc_int(&e, "pmi_subversion", 1);
    pmc_enc_int(&e, "rc", 0);
    rc |= canned_one(&c->v1_init1, &e);
    pmc_enc_begin(&e, PMC_WIRE_V1, "response_to_init");
    pmc_enc_int(&e, "pmi_version", 2);
    pmc_enc_int(&e, "pmi_subversion", 0);
    pmc_enc_int(&e, "rc", 0);
    rc |= canned_one(&c->v1_init2, &e);
    free(val);
    return rc ? -1 : 0;
}

static int append(conn *k, const pmc_out *o)
{
    return pmc_out_append(&k->out, o->buf, o->len);
}

/* Handshake replies carry the rank the client named. */
static int reply_rank(conn *k, const pmc_msg *m)
{
    long long r = 0;
    pmc_enc e;
    int rc = 0;
    if (m->cmd == PMC_V2_FULLINIT) {
        (void)pmc_msg_get_int(m, "pmirank", &r);
        pmc_enc_begin(&e, PMC_WIRE_V2, "fullinit-response");
        pmc_enc_int(&e, "pmi-version", 2);
        pmc_enc_int(&e, "pmi-subversion", 0);
        pmc_enc_int(&e, "rank", r);
        pmc_enc_int(&e, "size", nranks);
        pmc_enc_int(&e, "appnum", 0);
        pmc_enc_bool(&e, "debugged", false);
        pmc_enc_bool(&e, "pmiverbose", false);
        pmc_enc_int(&e, "rc", 0);
        return canned_one(&k->out, &e);
    }
    (void)pmc_msg_get_int(m, "pmiid", &r);
    pmc_enc_begin(&e, PMC_WIRE_V1, "initack");
    rc |= canned_one(&k->out, &e);
    pmc_enc_begin(&e, PMC_WIRE_V1, "set");
    pmc_enc_int(&e, "size", nranks);
    rc |= canned_one(&k->out, &e);
    pmc_enc_begin(&e, PMC_WIRE_V1, "set");
    pmc_enc_int(&e, "rank", r);
    rc |= canned_one(&k->out, &e);
    pmc_enc_begin(&e, PMC_WIRE_V1, "set");
    pmc_enc_int(&e, "debug", 0);
    rc |= canned_one(&k->out, &e);
    return rc;
}

static int respond(conn *k, const canned *c, const pmc_msg *m)
{
    switch (m->cmd) {
    case PMC_V2_KVS_GET: return append(k, &c->v2_get);
    case PMC_V2_KVS_PUT: return append(k, &c->v2_put);
    case PMC_V2_KVS_FENCE: return append(k, &c->v2_fence);
    case PMC_V2_FINALIZE: k->closing = true; return append(k, &c->v2_fin);
    case PMC_V2_FULLINIT:
    case PMC_V1_INITACK: return reply_rank(k, m);
    case PMC_V1_GET: return append(k, &c->v1_get);
    case PMC_V1_PUT: return append(k, &c->v1_put);
    case PMC_V1_BARRIER_IN: return append(k, &c->v1_barrier);
    case PMC_V1_FINALIZE: k->closing = true; return append(k, &c->v1_fin);
    case PMC_V1_GET_MAXES: return append(k, &c->v1_maxes);
    case PMC_V1_GET_MY_KVSNAME: return append(k, &c->v1_kvsname);
    case PMC_V1_INIT: {
        long long v = 1;
        (void)pmc_msg_get_int(m, "pmi_version", &v);
        return append(k, v == 2 ? &c->v1_init2 : &c->v1_init1);
    }
    default: return append(k, m->wire == PMC_WIRE_V2 ? &c->v2_get : &c->v1_get);
    }
}

static int listen_on(const char *spec, char *port, size_t n)
{
    int fd;
    if (strncmp(spec, "unix:", 5) == 0) {
        struct sockaddr_un a = { .sun_family = AF_UNIX };
        if (strlen(spec + 5) >= sizeof a.sun_path || !spec[5])
            return -1;
        strcpy(a.sun_path, spec + 5);
        unlink(a.sun_path);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 4096) < 0)
            return -1;
        snprintf(port, n, "%s", a.sun_path);
        return fd;
    }
    if (strcmp(spec, "tcp") != 0 && strncmp(spec, "tcp:", 4) != 0)
        return -1;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    a.sin_port = htons((uint16_t)(spec[3] ? atoi(spec + 4) : 0));
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int one = 1;
    if (fd < 0)
        return -1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    socklen_t al = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 4096) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &al) < 0)
        return -1;
    snprintf(port, n, "127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
    return fd;
}

static void drop(int ep, conn *k, int *closed)
{
    epoll_ctl(ep, EPOLL_CTL_DEL, k->fd, NULL);
    close(k->fd);
    pmc_decoder_free(k->dec);
    pmc_out_free(&k->out);
    free(k);
    (*closed)++;
}

/* Write what is queued; false when the connection is gone. */
static bool flush(int ep, conn *k)
{
    while (k->off < k->out.len) {
        ssize_t w = write(k->fd, k->out.buf + k->off, k->out.len - k->off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!k->pollout) {
                struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT, .data.ptr = k };
                epoll_ctl(ep, EPOLL_CTL_MOD, k->fd, &ev);
                k->pollout = true;
            }
            return true;
        }
        if (w < 0)
            return false;
        k->off += (size_t)w;
    }
    pmc_out_reset(&k->out);
    k->off = 0;
    if (k->pollout) {
        struct epoll_event ev = { .events = EPOLLIN, .data.ptr = k };
        epoll_ctl(ep, EPOLL_CTL_MOD, k->fd, &ev);
        k->pollout = false;
    }
    return !k->closing;
}

int main(int argc, char **argv)
{
    const char *spec = "tcp";
    long vsize = 100, timeout = 300;
    nranks = 1;
    static const struct option lo[] = {
        { "listen", required_argument, 0, 'l' }, { "np", required_argument, 0, 'n' },
        { "value-size", required_argument, 0, 's' }, { "timeout", required_argument, 0, 't' },
        { "help", no_argument, 0, 'h' }, { "version", no_argument, 0, 'V' }, { 0, 0, 0, 0 },
    };
    int ch;
    char *end;
    while ((ch = getopt_long(argc, argv, "n:hV", lo, NULL)) != -1) {
        switch (ch) {
        case 'l': spec = optarg; break;
        case 'n':
            nranks = (int)strtol(optarg, &end, 10);
            if (*end || nranks < 1 || nranks > 1 << 20) {
                fprintf(stderr, "bench-bare-responder: bad -n: %s\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 's':
            vsize = strtol(optarg, &end, 10);
            if (*end || vsize < 1 || vsize > 65536) {
                fprintf(stderr, "bench-bare-responder: bad --value-size: %s\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 't':
            timeout = strtol(optarg, &end, 10);
            if (*end || timeout < 0) {
                fprintf(stderr, "bench-bare-responder: bad --timeout: %s\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("bench-bare-responder (pmi2-conform) %s\n", PMICODEC_VERSION); return 0;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        usage(stderr);
        return EXIT_USAGE;
    }
    signal(SIGPIPE, SIG_IGN);
    dial = pmc_dialect_get("hydra-4.0");
    canned c = { 0 };
    if (make_canned(&c, (size_t)vsize) < 0)
        return 1;
    char port[256];
    int lfd = listen_on(spec, port, sizeof port);
    if (lfd < 0) {
        fprintf(stderr, "bench-bare-responder: cannot listen on %s: %s\n", spec, strerror(errno));
        return EXIT_USAGE;
    }
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event lev = { .events = EPOLLIN, .data.ptr = NULL };
    if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &lev) < 0) {
        perror("bench-bare-responder: epoll");
        return 1;
    }
    printf("PMI_PORT=%s\nPMI_SIZE=%d\n", port, nranks);
    fflush(stdout);

    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int closed = 0;
    struct epoll_event evs[256];
    pmc_decoder_opts dopts;
    pmc_decoder_opts_default(&dopts);
    while (closed < nranks) {
        int n = epoll_wait(ep, evs, 256, 1000);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (timeout && now.tv_sec - t0.tv_sec >= timeout) {
            fprintf(stderr, "bench-bare-responder: timed out after %lds\n", timeout);
            return 1;
        }
        if (n < 0 && errno != EINTR) {
            perror("bench-bare-responder: epoll_wait");
            return 1;
        }
        for (int i = 0; i < n; i++) {
            conn *k = evs[i].data.ptr;
            if (!k) {
                int fd;
                while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                    int one = 1;
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    conn *nk = calloc(1, sizeof *nk);
                    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = nk };
                    if (!nk || !(nk->dec = pmc_decoder_new(&dopts)) ||
                        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
                        close(fd);
                        if (nk)
                            pmc_decoder_free(nk->dec);
                        free(nk);
                        continue;
                    }
                    nk->fd = fd;
                }
                continue;
            }
            if (evs[i].events & EPOLLOUT) {
                if (!flush(ep, k)) {
                    drop(ep, k, &closed);
                    continue;
                }
            }
            if (!(evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
                continue;
            size_t avail;
            void *sp = pmc_decoder_space(k->dec, 4096, &avail);
            ssize_t r = sp ? read(k->fd, sp, avail) : -1;
            if (r < 0 && (errno == EAGAIN || errno == EINTR))
                continue;
            if (r <= 0) {
                drop(ep, k, &closed);
                continue;
            }
            pmc_decoder_commit(k->dec, (size_t)r);
            pmc_msg m;
            pmc_error err;
            int rc;
            bool bad = false;
            while ((rc = pmc_decoder_next(k->dec, &m, &err)) == PMC_MSG)
                if (respond(k, &c, &m) < 0)
                    bad = true;
            if (bad || (rc == PMC_ERR && err.fatal) || !flush(ep, k))
                drop(ep, k, &closed);
        }
    }
    return 0;
}
