#include "tclient.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

long long tc_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int tc_open(tc *t, int fd, pms_server *srv)
{
    memset(t, 0, sizeof *t);
    t->fd = fd;
    t->srv = srv;
    t->dec = pmc_decoder_new(NULL);
    t->d = pmc_dialect_get("strict");
    if (fd >= 0)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return t->dec && fd >= 0 ? 0 : -1;
}

static int connect_port(const char *port)
{
    const char *colon = strrchr(port, ':');
    if (port[0] == '/' || !colon) {
        struct sockaddr_un a = { .sun_family = AF_UNIX };
        snprintf(a.sun_path, sizeof a.sun_path, "%s", port);
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
            close(fd);
            return -1;
        }
        return fd;
    }
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(colon + 1)) };
    char host[128];
    snprintf(host, sizeof host, "%.*s", (int)(colon - port), port);
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
        return -1;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int tc_open_env(tc *t)
{
    const char *fd = getenv("PMI_FD"), *port = getenv("PMI_PORT");
    if (!fd && port && getenv("PMI_ID"))
        setenv("PMI_RANK", getenv("PMI_ID"), 1); /* the rank to send in fullinit */
    int f = fd ? atoi(fd) : port ? connect_port(port) : -1;
    return tc_open(t, f, NULL);
}

void tc_close(tc *t)
{
    if (!t->dec)
        return; /* never opened, or closed already */
    if (t->fd >= 0)
        close(t->fd);
    t->fd = -1;
    pmc_decoder_free(t->dec);
    t->dec = NULL;
    pmc_out_free(&t->out);
}

pmc_enc *tc_begin(tc *t, pmc_wire w, const char *cmd)
{
    pmc_enc_begin(&t->enc, w, cmd);
    return &t->enc;
}

int tc_send_raw(tc *t, const void *p, size_t n)
{
    const char *b = p;
    while (n) {
        ssize_t w = write(t->fd, b, n);
        if (w > 0) {
            b += w;
            n -= (size_t)w;
        } else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (t->srv)
                tc_pump(t->srv, 1);
            else
                poll(&(struct pollfd){ .fd = t->fd, .events = POLLOUT }, 1, 100);
        } else {
            return -1;
        }
    }
    return 0;
}

int tc_send(tc *t)
{
    pmc_error e;
    pmc_out_reset(&t->out);
    if (pmc_enc_end(&t->enc, t->d, &t->out, &e) < 0) {
        fprintf(stderr, "tclient: cannot encode: %s\n", e.detail);
        return -1;
    }
    return tc_send_raw(t, t->out.buf, t->out.len);
}

void tc_pump(pms_server *s, int ms)
{
    long long end = tc_now_us() + (long long)ms * 1000;
    do
        pms_server_run(s, 0);
    while (tc_now_us() < end);
}

int tc_recv(tc *t, int timeout_ms)
{
    long long end = tc_now_us() + (long long)timeout_ms * 1000;
    for (;;) {
        pmc_error e;
        int rc = pmc_decoder_next(t->dec, &t->m, &e);
        if (rc == PMC_MSG)
            return 1;
        if (rc == PMC_ERR) {
            fprintf(stderr, "tclient: bad message from the server: %s\n", e.detail);
            return -1;
        }
        if (t->eof)
            return -1;
        size_t avail;
        void *p = pmc_decoder_space(t->dec, 65536, &avail);
        ssize_t n = p ? read(t->fd, p, avail) : -1;
        if (n > 0) {
            pmc_decoder_commit(t->dec, (size_t)n);
            continue;
        }
        if (n == 0) {
            t->eof = true;
            continue;
        }
        if (errno != EAGAIN && errno != EINTR) {
            t->eof = true;
            continue;
        }
        long long now = tc_now_us();
        if (now >= end)
            return 0;
        if (t->srv)
            pms_server_run(t->srv, 1);
        else
            poll(&(struct pollfd){ .fd = t->fd, .events = POLLIN }, 1,
                 (int)((end - now) / 1000 + 1));
    }
}

bool tc_expect(tc *t, const char *cmd, int timeout_ms)
{
    int rc = tc_recv(t, timeout_ms);
    if (rc != 1) {
        fprintf(stderr, "tclient: expected %s, got %s\n", cmd, rc ? "EOF" : "nothing (timeout)");
        return false;
    }
    if (!pmc_slice_eq(t->m.name, cmd)) {
        fprintf(stderr, "tclient: expected %s, got %.*s\n", cmd, (int)t->m.raw.len, t->m.raw.ptr);
        return false;
    }
    return true;
}

long long tc_int(const tc *t, const char *key, long long dflt)
{
    long long v;
    return pmc_msg_get_int(&t->m, key, &v) == 1 ? v : dflt;
}

bool tc_str(const tc *t, const char *key, char *buf, size_t n)
{
    pmc_slice s;
    if (!pmc_msg_get(&t->m, key, &s))
        return false;
    pmc_slice_copy(s, buf, n);
    return true;
}

bool tc_is(const tc *t, const char *key, const char *val)
{
    pmc_slice s;
    return pmc_msg_get(&t->m, key, &s) && pmc_slice_eq(s, val);
}

bool tc_init_v1(tc *t, int subversion)
{
    pmc_enc *e = tc_begin(t, PMC_WIRE_V1, "init");
    pmc_enc_int(e, "pmi_version", 1);
    pmc_enc_int(e, "pmi_subversion", subversion);
    return tc_send(t) == 0 && tc_expect(t, "response_to_init", 5000) && tc_int(t, "rc", 0) == 0;
}

bool tc_init_v2(tc *t, int rank)
{
    pmc_enc *e = tc_begin(t, PMC_WIRE_V1, "init");
    pmc_enc_int(e, "pmi_version", 2);
    pmc_enc_int(e, "pmi_subversion", 0);
    if (tc_send(t) < 0 || !tc_expect(t, "response_to_init", 5000) || tc_int(t, "rc", 0) != 0)
        return false;
    e = tc_begin(t, PMC_WIRE_V2, "fullinit");
    /* FULLINIT-3; Slurm answers rc=3 without it (slurm-pmi2.md §6).  An
     * in-process rank is bound to its job already: the id is not read. */
    const char *jobid = t->srv ? NULL : getenv("PMI_JOBID");
    pmc_enc_str(e, "pmijobid", jobid ? jobid : "in-process");
    pmc_enc_int(e, "pmirank", rank);
    pmc_enc_bool(e, "threaded", false);
    return tc_send(t) == 0 && tc_expect(t, "fullinit-response", 5000) && tc_int(t, "rc", 0) == 0;
}
