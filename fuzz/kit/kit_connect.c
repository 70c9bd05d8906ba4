/* How the client kit reaches a library (ctest fuzz.kit.connect,
 * kit/connect.sh): a stand-in library that takes its connection as SPEC
 * ENV-2 says (PMI_FD when set, else PMI_PORT, with initack as PMI-1 asks
 * there: V1CMD-1), says which it used, reads one answer and does what its
 * first byte after "cmd=" says:
 *   c... (an answer beginning "cmd=c")  a write through NULL: a finding,
 *                                       with KIT_CONNECT_CRASH=1 only
 *   h... (an answer beginning "cmd=h")  waits for ever: a hang, with
 *                                       KIT_CONNECT_HANG=1 only
 *   anything else                       returns
 * With KIT_CONNECT_AGAIN=1 it connects a second time after the answer and
 * expects end of file there at once (a write through NULL otherwise).
 * With KIT_CONNECT_SILENT=1 in the environment it never connects or
 * writes: a harness that tests nothing.  With KIT_CONNECT_FD_ONLY=1 it
 * knows PMI_FD only (without it: a singleton, no connection). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pmifuzz/harness.h"

static int *volatile nowhere;

static int connect_port(const char *hostport)
{
    const char *colon = strrchr(hostport, ':');
    if (!colon || strncmp(hostport, "127.0.0.1:", 10) != 0)
        return -1;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(colon + 1)),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static void api(void)
{
    if (getenv("KIT_CONNECT_SILENT"))
        return;
    const char *fdv = getenv("PMI_FD"), *port = getenv("PMI_PORT"), *id = getenv("PMI_ID");
    if (getenv("KIT_CONNECT_FD_ONLY"))
        port = NULL;
    int fd = fdv ? atoi(fdv) : port ? connect_port(port) : -1;
    if (fd < 0)
        return;
    /* what the environment said, on the line: PMI_RANK belongs to PMI_FD */
    const char *rank = getenv("PMI_RANK");
    char line[96];
    int n = fdv ? snprintf(line, sizeof line, "cmd=init via=fd rank=%.8s\n", rank ? rank : "none")
                : snprintf(line, sizeof line, "cmd=initack pmiid=%.8s%s%.8s\n", id ? id : "none",
                           rank ? " rank=" : "", rank ? rank : "");
    if (write(fd, line, (size_t)n) != n)
        n = 0;
    char ans[8] = "";
    if (n && read(fd, ans, sizeof ans - 1) > 4 && ans[4] == 'c' && getenv("KIT_CONNECT_CRASH"))
        *nowhere = 1;
    if (n > 0 && ans[4] == 'h' && getenv("KIT_CONNECT_HANG"))
        for (;;)
            pause();
    if (!fdv)
        close(fd);
    /* KIT_CONNECT_AGAIN=1: connect once more, as a library that retries
     * after the server closed; it must read end of file, not wait */
    if (!fdv && getenv("KIT_CONNECT_AGAIN") && (fd = connect_port(port)) >= 0) {
        if (read(fd, ans, 1) != 0)
            *nowhere = 2;
        close(fd);
    }
}

PMIFUZZ_CLIENT_HARNESS(api)
