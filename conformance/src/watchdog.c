/* A rank of a child launch: its report channel to the orchestrator (relay.c
 * is the other end), and it outlives nothing.  The rank connects once to
 * the --report address, says "hello TOKEN", and writes its results lines
 * and traces there; a thread reads the connection, which carries only
 * "done" (rank 0 finished) from the orchestrator, and exits the rank the
 * moment it closes: the orchestrator is gone (killed, crashed) or finished
 * the launch, on this host or any other, so no launcher that loses track
 * of its tasks (srun after SIGKILL) leaves them behind. */
#include "internal.h"

#include <fcntl.h>
#include <netdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static FILE *stream;
static int sock = -1;
static atomic_bool done_seen;

static void *watch(void *arg)
{
    (void)arg;
    char buf[256];
    size_t have = 0;
    for (;;) {
        ssize_t k = recv(sock, buf + have, sizeof buf - 1 - have, 0);
        if (k <= 0) {
            fprintf(stderr, "pmi2-conform: the orchestrator closed the report channel: this "
                            "rank exits\n");
            _exit(PCF_EXIT_USAGE);
        }
        have += (size_t)k;
        buf[have] = 0;
        if (strstr(buf, "done\n"))
            atomic_store(&done_seen, true);
        if (have > sizeof buf / 2) /* nothing else is sent: keep the tail only */
            have = 0;
    }
    return NULL;
}

/* HOST:PORT:TOKEN; HOST may be a name or an address. */
static int connect_spec(const char *spec, char *token, size_t tn)
{
    const char *c2 = strrchr(spec, ':');
    if (!c2 || c2 == spec)
        return -1;
    const char *c1 = c2 - 1;
    while (c1 > spec && *c1 != ':')
        c1--;
    if (*c1 != ':')
        return -1;
    char host[256], port[16];
    snprintf(host, sizeof host, "%.*s", (int)(c1 - spec), spec);
    snprintf(port, sizeof port, "%.*s", (int)(c2 - c1 - 1), c1 + 1);
    snprintf(token, tn, "%s", c2 + 1);
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai;
    if (getaddrinfo(host, port, &hints, &ai) != 0)
        return -1;
    int fd = -1;
    for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(ai);
    return fd;
}

FILE *pcf_report_stream(const char *spec)
{
    if (stream || !spec || !*spec)
        return stream;
    char token[128];
    int fd = connect_spec(spec, token, sizeof token);
    if (fd < 0) {
        /* nothing can be reported, and nobody is waiting for this rank */
        fprintf(stderr, "pmi2-conform: cannot reach the orchestrator at %s: this rank exits\n",
                spec);
        _exit(PCF_EXIT_USAGE);
    }
    sock = fd;
    int wfd = fcntl(fd, F_DUPFD_CLOEXEC, 0); /* the writer's end, closed by fclose alone */
    stream = wfd >= 0 ? fdopen(wfd, "w") : NULL;
    if (!stream)
        _exit(PCF_EXIT_USAGE);
    setvbuf(stream, NULL, _IOFBF, 65536);
    fprintf(stream, "hello %s\n", token);
    fflush(stream);
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_create(&t, &a, watch, NULL);
    pthread_attr_destroy(&a);
    return stream;
}

bool pcf_report_done_seen(void)
{
    return atomic_load(&done_seen);
}

void pcf_report_trace(const char *name, const char *text, size_t n)
{
    if (!stream)
        return;
    fprintf(stream, "trace\t%s\t", name);
    pcf_put_escaped(stream, text, n);
    fputc('\n', stream);
    fflush(stream);
}
