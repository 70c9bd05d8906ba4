/* n2_wire.c: connection, framing and parsing for newcomer2_client. */
#define _POSIX_C_SOURCE 200809L
#include "n2_wire.h"

#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

static FILE *n2_in;
static FILE *n2_out;

static int connect_port(const char *port_env)
{
    char host[256];
    const char *colon = strrchr(port_env, ':'); /* last colon: IPv6 literals (ENV-3) */
    if (!colon || colon == port_env || !colon[1])
        return -1;
    size_t hl = (size_t)(colon - port_env);
    if (hl >= sizeof host)
        return -1;
    memcpy(host, port_env, hl);
    host[hl] = 0;
    if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
        memmove(host, host + 1, hl - 2);
        host[hl - 2] = 0;
    }
    for (const char *p = colon + 1; *p; p++)
        if (*p < '0' || *p > '9')
            return -1;
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0)
        return -1;
    int fd = -1;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd < 0)
            continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

int n2_connect(int *from_port)
{
    const char *fd_env = getenv("PMI_FD");
    const char *port_env = getenv("PMI_PORT");
    int fd;
    *from_port = 0;
    if (fd_env) { /* PMI_FD wins (ENV-2) */
        char *end;
        long v = strtol(fd_env, &end, 10);
        if (!*fd_env || *end || v < 0)
            return -1;
        fd = (int)v;
    } else if (port_env) {
        const char *st = getenv("PMI_SOCKTYPE");
        if (st && strcasecmp(st, "POSIX") != 0)
            return -1; /* no TLS here: never fall back (ENV-11) */
        fd = connect_port(port_env);
        if (fd < 0)
            return -1;
        *from_port = 1;
    } else {
        return 1;
    }
    /* A write to a closed connection must fail the call, not kill us (ERR-20). */
    signal(SIGPIPE, SIG_IGN);
    int fd2 = dup(fd);
    if (fd2 < 0)
        return -1;
    n2_in = fdopen(fd, "r");
    n2_out = fdopen(fd2, "w");
    if (!n2_in || !n2_out)
        return -1;
    return 0;
}

int n2_is_open(void)
{
    return n2_in != NULL;
}

void n2_close(void)
{
    if (n2_in)
        fclose(n2_in);
    if (n2_out)
        fclose(n2_out);
    n2_in = n2_out = NULL;
}

int n2_send_line(const char *fmt, ...)
{
    if (!n2_out)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    int r = vfprintf(n2_out, fmt, ap);
    va_end(ap);
    if (r < 0 || fflush(n2_out) != 0)
        return -1;
    return 0;
}

/* PMI-1: split on spaces, each token at its first '='. */
static void parse_line(char *s, struct n2_msg *m)
{
    m->n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(s, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue; /* bare word: ignored */
        if (m->n == N2_PAIRS_MAX)
            break;
        *eq = 0;
        m->key[m->n] = tok;
        m->val[m->n] = eq + 1;
        m->n++;
    }
}

int n2_read_line(char *buf, struct n2_msg *m)
{
    if (!n2_in)
        return -1;
    if (!fgets(buf, N2_LINE_MAX, n2_in))
        return -1;
    size_t l = strlen(buf);
    if (l && buf[l - 1] == '\n')
        buf[--l] = 0;
    if (l && buf[l - 1] == '\r')
        buf[--l] = 0;
    parse_line(buf, m);
    return 0;
}

int n2_send_frame(const char *body, size_t len)
{
    if (!n2_out || len > 999999)
        return -1;
    if (fprintf(n2_out, "%6zu", len) < 0 || fwrite(body, 1, len, n2_out) != len ||
        fflush(n2_out) != 0)
        return -1;
    return 0;
}

/* PMI-2 body: key up to '=', value up to ';' with ";;" meaning one ';'. */
static int parse_body(char *s, size_t len, struct n2_msg *m)
{
    char *p = s, *end = s + len;
    m->n = 0;
    while (p < end) {
        char *k = p;
        while (p < end && *p != '=' && *p != ';')
            p++;
        if (p == end)
            break; /* trailing junk without '=' */
        if (*p == ';') { /* bare key: skip it */
            p++;
            continue;
        }
        *p++ = 0;
        char *v = p, *w = p;
        int done = 0;
        while (p < end) {
            if (*p == ';') {
                if (p + 1 < end && p[1] == ';') {
                    *w++ = ';';
                    p += 2;
                    continue;
                }
                p++;
                done = 1;
                break;
            }
            *w++ = *p++;
        }
        *w = 0;
        if (!done)
            return -1; /* unterminated last pair */
        if (m->n < N2_PAIRS_MAX) {
            m->key[m->n] = k;
            m->val[m->n] = v;
            m->n++;
        }
    }
    return 0;
}

int n2_read_frame(char *buf, struct n2_msg *m)
{
    char hdr[7];
    int len;
    if (!n2_in)
        return -1;
    if (fread(hdr, 1, 6, n2_in) != 6)
        return -1;
    hdr[6] = 0;
    /* NEWCOMER2_LENGTH_CHECK=1: the second version's check of the field
     * (digits and spaces only); the connection is still read on after it */
    const char *lc = getenv("NEWCOMER2_LENGTH_CHECK");
    if (lc && *lc == '1')
        for (int i = 0; i < 6; i++)
            if (hdr[i] != ' ' && (hdr[i] < '0' || hdr[i] > '9'))
                return -1;
    if (sscanf(hdr, "%d", &len) != 1 || len < 6 || len > N2_FRAME_MAX)
        return -1;
    if (fread(buf, 1, (size_t)len, n2_in) != (size_t)len)
        return -1;
    buf[len] = 0;
    if (parse_body(buf, (size_t)len, m) != 0 || m->n == 0 || strcmp(m->key[0], "cmd") != 0)
        return -1;
    return 0;
}

void n2_body_start(struct n2_body *b, const char *cmd)
{
    b->len = 0;
    b->overflow = 0;
    n2_body_add(b, "cmd", cmd);
}

void n2_body_add(struct n2_body *b, const char *key, const char *val)
{
    size_t kl = strlen(key);
    if (b->len + kl + 1 > N2_FRAME_MAX) {
        b->overflow = 1;
        return;
    }
    memcpy(b->buf + b->len, key, kl);
    b->len += kl;
    b->buf[b->len++] = '=';
    for (const char *p = val; *p; p++) {
        if (b->len + 3 > N2_FRAME_MAX) {
            b->overflow = 1;
            return;
        }
        b->buf[b->len++] = *p;
        if (*p == ';')
            b->buf[b->len++] = ';';
    }
    if (b->len + 1 > N2_FRAME_MAX) {
        b->overflow = 1;
        return;
    }
    b->buf[b->len++] = ';';
}

void n2_body_addi(struct n2_body *b, const char *key, long v)
{
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%ld", v);
    n2_body_add(b, key, tmp);
}

int n2_body_send(struct n2_body *b)
{
    if (b->overflow)
        return -1;
    return n2_send_frame(b->buf, b->len);
}

const char *n2_get(const struct n2_msg *m, const char *key)
{
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->key[i], key) == 0)
            return m->val[i];
    return NULL;
}

int n2_rc(const struct n2_msg *m)
{
    const char *rc = n2_get(m, "rc");
    if (!rc)
        return 0;
    return atoi(rc);
}

int n2_is(const struct n2_msg *m, const char *cmd)
{
    const char *c = n2_get(m, "cmd");
    /* the first message after a request is its answer; check the name's start */
    return c && strncmp(c, cmd, strlen(cmd)) == 0;
}

int n2_bool(const char *s)
{
    if (!s)
        return -1;
    if (strcasecmp(s, "TRUE") == 0)
        return 1;
    if (strcasecmp(s, "FALSE") == 0)
        return 0;
    return -1;
}
