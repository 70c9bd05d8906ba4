/* Server lifecycle, listeners and the epoll loop: the top layer, which
 * wires connections to peers (peer.c) and runs them. */
#include "internal.h"
#include "groups.h"
#include "mutant.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "pmitrace/trace.h"

/* epoll events taken per wait */
enum { MAX_EVENTS = 64 };

void pms_config_default(pms_config *c)
{
    memset(c, 0, sizeof *c);
    c->persona = "strict";
    c->nodes = 1;
    c->mapping = PMS_MAP_BLOCK;
    pmc_limits_default(&c->limits);
    c->log = stderr;
    c->out_limit = 1u << 20;
    c->stall_timeout_ms = 30000;
}

/* --trace: one pmi-trace v1 event per read()/write(), per connection
 * ("c<id>"), timestamped from the server's start.  The trace is flushed
 * once per loop iteration, not per event. */
static int trace_open(pms_server *s, const char *path)
{
    s->trace = fopen(path, "we");
    if (!s->trace)
        return -1;
    s->t0_us = pms_now_us();
    fprintf(s->trace, "%s\n@source pmi-mockserver %s persona=%s\n", PMT_MAGIC,
            PMICODEC_VERSION, s->cfg.persona);
    return 0;
}

bool pms_persona_wants_port(const char *name)
{
    const pms_persona *p = pms_persona_resolve(name);
    return p && p->port_mode;
}

bool pms_persona_exists(const char *name)
{
    return pms_persona_resolve(name) != NULL;
}

void pms_mutant_list(FILE *f)
{
    pms_mutant_print_list(f);
}

pms_server *pms_server_new(const pms_config *c)
{
    pms_server *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    pms_config_default(&s->cfg);
    if (c)
        s->cfg = *c;
    if (s->cfg.nodes < 1)
        s->cfg.nodes = 1;
    s->persona = pms_persona_resolve(s->cfg.persona);
    if (!s->persona) {
        free(s);
        return NULL;
    }
    if (s->persona->mutant || s->cfg.no_nameserv) { /* built per call, or changed: its own */
        s->own_persona = *s->persona;
        s->own_persona.no_nameserv |= s->cfg.no_nameserv;
        s->persona = &s->own_persona;
    }
    s->serve = pms_dispatch;
    s->groups = pms_group_state_new(s);
    if (s->persona->groups && !s->groups) {
        free(s);
        return NULL;
    }
    pmc_decoder_opts_default(&s->dopts);
    s->dopts.limits = s->cfg.limits;
    pms_persona_decoder_opts(s->persona, &s->dopts); /* flags, strict bits, limits */
    if (s->cfg.out_limit == 0)
        s->cfg.out_limit = 1u << 20;
    s->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (s->epfd < 0) {
        pms_groups_free(s->groups);
        free(s);
        return NULL;
    }
    if (s->cfg.trace_path && trace_open(s, s->cfg.trace_path) < 0) {
        int e = errno;
        close(s->epfd);
        pms_groups_free(s->groups);
        free(s);
        errno = e;
        return NULL;
    }
    return s;
}

const char *pms_server_error(const pms_server *s)
{
    return s->err;
}

static void free_conn(pms_conn *c)
{
    pms_peer_free(pms_conn_peer(c));
    pmc_decoder_free(c->dec);
    pmc_out_free(&c->out);
    free(c);
}

/* Free connections and watches closed during the last loop iteration. */
static void sweep(pms_server *s)
{
    for (pms_watch **wp = &s->watches; *wp;) {
        pms_watch *w = *wp;
        if (!w->cb) {
            *wp = w->next;
            free(w);
        } else {
            wp = &w->next;
        }
    }
    pms_conn **pp = &s->conns;
    while (*pp) {
        pms_conn *c = *pp;
        if (c->dead) {
            *pp = c->next;
            free_conn(c);
        } else {
            pp = &c->next;
        }
    }
}

void pms_job_free(pms_job *j);

void pms_server_free(pms_server *s)
{
    if (!s)
        return;
    /* shutting down: nobody is answered that a participant ended */
    pms_groups_free(s->groups);
    s->groups = NULL;
    for (pms_port *q = s->ports; q; q = q->next)
        if (!q->dead) {
            q->finalized = true; /* shutting down: not a rank failure */
            pms_port_close(q, "server shutting down");
        }
    sweep(s);
    if (s->persona->filters && s->persona->filters->release)
        s->persona->filters->release(); /* per-thread buffers: client mode's threads end */
    for (pms_listener *l = s->listeners, *n; l; l = n) {
        n = l->next;
        close(l->fd);
        if (l->is_unix && l->path)
            unlink(l->path);
        free(l->path);
        free(l);
    }
    for (pms_watch *w = s->watches, *n; w; w = n) {
        n = w->next;
        free(w);
    }
    for (size_t i = 0; i < s->njobs; i++)
        pms_job_free(s->jobs[i]);
    free(s->jobs);
    pms_kvs_free(&s->names);
    if (s->trace)
        fclose(s->trace);
    pms_tls_ctx_free(s->tls);
    pms_faults_free(s);
    close(s->epfd);
    free(s);
}

void pms_set_events(pms_server *s, const pms_events *ev)
{
    s->ev = *ev;
}

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

int pms_attach_rank(pms_server *s, pms_job *j, int rank)
{
    int sv[2];
    if (rank < 0 || rank >= j->size) {
        snprintf(s->err, sizeof s->err, "rank %d outside job of size %d", rank, j->size);
        return -1;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        snprintf(s->err, sizeof s->err, "socketpair: %s", strerror(errno));
        return -1;
    }
    set_nonblock(sv[0]);
    if (!pms_open_conn(s, sv[0], j, rank)) {
        snprintf(s->err, sizeof s->err, "cannot attach rank %d", rank);
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    return sv[1];
}

pms_conn *pms_attach_fd(pms_server *s, int fd, pms_job *j)
{
    if (fd >= 0)
        set_nonblock(fd);
    return pms_open_conn(s, fd, j, -1);
}

static int add_listener(pms_server *s, int fd, pms_job *j, bool is_unix, const char *path,
                        bool tls)
{
    pms_listener *l = calloc(1, sizeof *l);
    if (!l)
        return -1;
    l->evkind = PMS_EV_LISTEN;
    l->fd = fd;
    l->job = j;
    l->is_unix = is_unix;
    l->tls = tls;
    l->path = path ? strdup(path) : NULL;
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = l };
    if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        free(l->path);
        free(l);
        return -1;
    }
    l->next = s->listeners;
    s->listeners = l;
    return 0;
}

int pms_listen_tcp(pms_server *s, pms_job *j, int port, char *portbuf, size_t n)
{
    /* TLS is set up with the first TCP listener so that a bad certificate
     * or key is reported before any rank starts. */
    bool tls = s->cfg.tls_cert || s->cfg.tls_key;
    if (tls && !s->tls) {
        char why[sizeof s->err - 8];
        s->tls = pms_tls_ctx_new(s->cfg.tls_cert, s->cfg.tls_key, s->cfg.tls_ca,
                                 s->cfg.tls_verify_client, why, sizeof why);
        if (!s->tls) {
            snprintf(s->err, sizeof s->err, "TLS: %s", why);
            return -1;
        }
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        goto fail;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t al = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 1024) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &al) < 0 || add_listener(s, fd, j, false, NULL, tls) < 0)
        goto fail;
    snprintf(portbuf, n, "127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
    return 0;
fail:
    snprintf(s->err, sizeof s->err, "tcp listener: %s", strerror(errno));
    if (fd >= 0)
        close(fd);
    return -1;
}

int pms_listen_unix(pms_server *s, pms_job *j, const char *path, char *portbuf, size_t n)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof a.sun_path) {
        snprintf(s->err, sizeof s->err, "socket path too long: %s", path);
        return -1;
    }
    strcpy(a.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 1024) < 0 ||
        add_listener(s, fd, j, true, path, false) < 0) {
        snprintf(s->err, sizeof s->err, "unix listener %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    snprintf(portbuf, n, "%s", path);
    return 0;
}

static void accept_all(pms_server *s, pms_listener *l)
{
    for (;;) {
        int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                pms_log(s, 0, "accept: %s", strerror(errno));
            return;
        }
        if (!l->is_unix) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        }
        pms_conn *c = pms_open_conn(s, fd, l->job, -1);
        if (!c) {
            pms_log(s, 0, "accept: cannot serve a new connection (out of memory)");
            close(fd);
            continue;
        }
        if (l->tls) {
            c->tls = pms_tls_new(s->tls, fd);
            if (!c->tls) {
                pms_log(s, 0, "conn %d: cannot start a TLS session", c->id);
                pms_conn_close(c, "cannot start a TLS session");
                continue;
            }
            if (s->trace)
                pms_trace_event(s, c->id, PMT_EV_NOTE, PMT_SERVER, "tls", 3);
        }
    }
}

int pms_watch_fd(pms_server *s, int fd, pms_fd_cb cb, void *ctx)
{
    pms_watch *w = calloc(1, sizeof *w);
    if (!w)
        return -1;
    w->evkind = PMS_EV_WATCH;
    w->fd = fd;
    w->cb = cb;
    w->ctx = ctx;
    struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = w };
    if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        free(w);
        return -1;
    }
    w->next = s->watches;
    s->watches = w;
    return 0;
}

void pms_unwatch_fd(pms_server *s, int fd)
{
    for (pms_watch *w = s->watches; w; w = w->next)
        if (w->fd == fd && w->cb) {
            epoll_ctl(s->epfd, EPOLL_CTL_DEL, fd, NULL);
            w->cb = NULL; /* freed by sweep: an event for it may be pending */
        }
}

/* Work epoll cannot report (held-back requests, decrypted TLS records,
 * stall deadlines).  Returns the longest the loop may sleep. */
static int service(pms_server *s, int timeout_ms)
{
    long long now = pms_now_ms();
    int stall = s->cfg.stall_timeout_ms;
    for (pms_conn *c = s->conns; c; c = c->next) {
        if (c->dead)
            continue;
        if (pms_conn_service(c, now))
            timeout_ms = 0;
        else if (!c->dead && (c->paused || c->closing) && c->blocked_ms && stall > 0) {
            long long left = c->blocked_ms + stall - now;
            int wait = left < 0 ? 0 : left > 1000000 ? 1000000 : (int)left;
            if (timeout_ms < 0 || wait < timeout_ms)
                timeout_ms = wait;
        }
    }
    /* GROUP-24: the loop wakes for the groups' next deadline (groups.c) */
    int g = pms_groups_service(s->groups, now);
    if (g >= 0 && (timeout_ms < 0 || g < timeout_ms))
        timeout_ms = g;
    return pms_faults_service(s, now, timeout_ms); /* delayed output (faults.c) */
}

int pms_server_run(pms_server *s, int timeout_ms)
{
    struct epoll_event evs[MAX_EVENTS];
    timeout_ms = service(s, timeout_ms);
    sweep(s);
    int n = epoll_wait(s->epfd, evs, MAX_EVENTS, timeout_ms);
    if (n < 0)
        return errno == EINTR ? 0 : -1;
    for (int i = 0; i < n; i++) {
        int kind = *(int *)evs[i].data.ptr;
        if (kind == PMS_EV_LISTEN) {
            accept_all(s, evs[i].data.ptr);
            continue;
        }
        if (kind == PMS_EV_WATCH) {
            pms_watch *w = evs[i].data.ptr;
            if (w->cb)
                w->cb(w->ctx, w->fd, evs[i].events);
            continue;
        }
        pms_conn_event(evs[i].data.ptr, evs[i].events);
    }
    sweep(s);
    if (s->trace)
        fflush(s->trace);
    return n;
}

bool pms_server_hol_blocked(const pms_server *s)
{
    return s->hol && !s->hol->dead;
}

bool pms_server_local_env(const pms_server *s)
{
    return !s->persona->no_local_env;
}

bool pms_server_done(const pms_server *s)
{
    if (s->njobs == 0)
        return false;
    for (size_t i = 0; i < s->njobs; i++)
        if (!pms_job_finished(s->jobs[i]))
            return false;
    return true;
}
