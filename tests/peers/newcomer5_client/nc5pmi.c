/* nc5pmi.c - a small PMI-1 client library.
 *
 * Speaks the PMI-1 line protocol (version 1.1) to a process manager,
 * either over an inherited socket (PMI_FD) or over TCP (PMI_PORT + PMI_ID).
 * Without either it runs as a singleton with a private key-value space.
 */
#include "nc5pmi.h"

#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#define LINE_MAX_LEN 1024
#define MAX_PAIRS    64
#define NAME_MAX_LEN 256

struct pair {
    char *key;
    char *val;
};

struct msg {
    char line[LINE_MAX_LEN];
    char *cmd;
    int npairs;
    struct pair pairs[MAX_PAIRS];
};

static int pmi_fd = -1;
static int pmi_initialized = 0;
static int pmi_singleton = 0;
static int pmi_size = 1;
static int pmi_rank = 0;
static int pmi_debug = 0;
static int pmi_appnum = 0;
static int pmi_spawned = 0;
static int kvsname_max = NAME_MAX_LEN;
static int keylen_max = 64;
static int vallen_max = 1024;
static char pmi_kvsname[NAME_MAX_LEN];

/* singleton key-value space */
#define SINGLETON_KVS 64
static struct {
    char key[64];
    char val[1024];
} single_kvs[SINGLETON_KVS];
static int single_n = 0;

/* ------------------------------------------------------------------ */
/* wire helpers                                                        */

static int write_line(const char *line)
{
    size_t len = strlen(line);
    size_t off = 0;

    if (pmi_debug)
        fprintf(stderr, "nc5pmi: C>S %s", line);
    while (off < len) {
        ssize_t n = send(pmi_fd, line + off, len - off, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK)
            n = write(pmi_fd, line + off, len - off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return PMI_FAIL;
        }
        off += n;
    }
    return PMI_SUCCESS;
}

/* read one line, byte by byte so that nothing after the LF is lost */
static int read_line(char *buf, int size)
{
    int n = 0;

    while (n < size - 1) {
        char c;
        ssize_t r = read(pmi_fd, &c, 1);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return PMI_FAIL;
        }
        if (r == 0)
            return PMI_FAIL; /* server went away */
        if (c == '\n')
            break;
        buf[n++] = c;
    }
    buf[n] = '\0';
    if (n > 0 && buf[n - 1] == '\r')
        buf[n - 1] = '\0';
    if (pmi_debug)
        fprintf(stderr, "nc5pmi: S>C %s\n", buf);
    return PMI_SUCCESS;
}

static void parse_line(struct msg *m)
{
    char *tok;
    char *save = NULL;

    m->cmd = NULL;
    m->npairs = 0;
    tok = strtok_r(m->line, " ", &save);
    while (tok) {
        char *eq = strchr(tok, '=');
        if (eq) {
            *eq = '\0';
            if (m->npairs == 0 && m->cmd == NULL && strcmp(tok, "cmd") == 0) {
                m->cmd = eq + 1;
            } else {
                m->pairs[m->npairs].key = tok;
                m->pairs[m->npairs].val = eq + 1;
                m->npairs++;
            }
        }
        tok = strtok_r(NULL, " ", &save);
    }
}

static const char *get_val(struct msg *m, const char *key)
{
    int i;
    for (i = 0; i < m->npairs; i++)
        if (strcmp(m->pairs[i].key, key) == 0)
            return m->pairs[i].val;
    return NULL;
}

static int read_msg(struct msg *m)
{
    if (read_line(m->line, sizeof(m->line)) != PMI_SUCCESS)
        return PMI_FAIL;
    parse_line(m);
    return PMI_SUCCESS;
}

/* read a response and check that it is the expected command */
static int expect(struct msg *m, const char *cmd)
{
    if (read_msg(m) != PMI_SUCCESS)
        return PMI_FAIL;
    if (m->cmd == NULL || strcmp(m->cmd, cmd) != 0)
        return PMI_FAIL;
    return PMI_SUCCESS;
}

/* rc missing means success (RC-3) */
static int get_rc(struct msg *m)
{
    const char *rc = get_val(m, "rc");
    if (rc == NULL)
        return 0;
    return atoi(rc);
}

static int command(const char *req, struct msg *m, const char *resp)
{
    if (write_line(req) != PMI_SUCCESS)
        return PMI_FAIL;
    if (expect(m, resp) != PMI_SUCCESS)
        return PMI_FAIL;
    if (get_rc(m) != 0)
        return PMI_FAIL;
    return PMI_SUCCESS;
}

static int parse_int(const char *s, int *out)
{
    char *end;
    long v;

    if (s == NULL || *s == '\0')
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (*end != '\0' || errno != 0)
        return -1;
    *out = (int)v;
    return 0;
}

/* ------------------------------------------------------------------ */
/* connection set-up                                                   */

static int connect_port(const char *port_env)
{
    char host[NAME_MAX_LEN];
    char *colon;
    const char *port;
    struct addrinfo hints, *res, *ai;
    int fd = -1;

    if (strlen(port_env) >= sizeof(host))
        return -1;
    strcpy(host, port_env);
    colon = strrchr(host, ':');
    if (colon == NULL || colon == host)
        return -1;
    *colon = '\0';
    port = colon + 1;
    if (*port == '\0' || strspn(port, "0123456789") != strlen(port))
        return -1;
    /* [::1]:port */
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        host[strlen(host) - 1] = '\0';
        memmove(host, host + 1, strlen(host));
    }

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, port, &hints, &res) != 0)
        return -1;
    for (ai = res; ai; ai = ai->ai_next) {
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

/* PMI_PORT mode: cmd=initack pmiid=<id>, then initack + three set lines */
static int do_initack(const char *id)
{
    char buf[LINE_MAX_LEN];
    struct msg m;
    int i;

    snprintf(buf, sizeof(buf), "cmd=initack pmiid=%s\n", id);
    if (write_line(buf) != PMI_SUCCESS)
        return PMI_FAIL;
    if (expect(&m, "initack") != PMI_SUCCESS)
        return PMI_FAIL;
    if (get_rc(&m) != 0)
        return PMI_FAIL;
    for (i = 0; i < 3; i++) {
        const char *v;
        if (expect(&m, "set") != PMI_SUCCESS)
            return PMI_FAIL;
        if ((v = get_val(&m, "size")) != NULL) {
            if (parse_int(v, &pmi_size) != 0)
                return PMI_FAIL;
        } else if ((v = get_val(&m, "rank")) != NULL) {
            if (parse_int(v, &pmi_rank) != 0)
                return PMI_FAIL;
        } else if ((v = get_val(&m, "debug")) != NULL) {
            if (parse_int(v, &pmi_debug) != 0)
                return PMI_FAIL;
        } else {
            return PMI_FAIL;
        }
    }
    return PMI_SUCCESS;
}

static int do_init_exchange(void)
{
    struct msg m;
    const char *v;
    int ver, sub;

    if (write_line("cmd=init pmi_version=1 pmi_subversion=1\n") != PMI_SUCCESS)
        return PMI_FAIL;
    if (expect(&m, "response_to_init") != PMI_SUCCESS)
        return PMI_FAIL;
    if (get_rc(&m) != 0)
        return PMI_FAIL;
    if (parse_int(get_val(&m, "pmi_version"), &ver) != 0 || ver != 1)
        return PMI_FAIL;
    if (parse_int(get_val(&m, "pmi_subversion"), &sub) != 0)
        return PMI_FAIL;

    if (command("cmd=get_maxes\n", &m, "maxes") != PMI_SUCCESS)
        return PMI_FAIL;
    if (parse_int(get_val(&m, "kvsname_max"), &kvsname_max) != 0 ||
        parse_int(get_val(&m, "keylen_max"), &keylen_max) != 0 ||
        parse_int(get_val(&m, "vallen_max"), &vallen_max) != 0)
        return PMI_FAIL;

    if (command("cmd=get_appnum\n", &m, "appnum") != PMI_SUCCESS)
        return PMI_FAIL;
    if (parse_int(get_val(&m, "appnum"), &pmi_appnum) != 0)
        return PMI_FAIL;

    if (command("cmd=get_my_kvsname\n", &m, "my_kvsname") != PMI_SUCCESS)
        return PMI_FAIL;
    v = get_val(&m, "kvsname");
    if (v == NULL)
        return PMI_FAIL;
    strcpy(pmi_kvsname, v);
    return PMI_SUCCESS;
}

static int env_int(const char *name, int *out, int def)
{
    const char *s = getenv(name);
    if (s == NULL) {
        *out = def;
        return 0;
    }
    return parse_int(s, out);
}

static void reset_state(void)
{
    if (pmi_fd >= 0)
        close(pmi_fd);
    pmi_fd = -1;
    pmi_initialized = 0;
    pmi_singleton = 0;
    pmi_size = 1;
    pmi_rank = 0;
    pmi_debug = 0;
    pmi_appnum = 0;
    pmi_spawned = 0;
    kvsname_max = NAME_MAX_LEN;
    keylen_max = 64;
    vallen_max = 1024;
    pmi_kvsname[0] = '\0';
    single_n = 0;
}

/* ------------------------------------------------------------------ */
/* API                                                                 */

int PMI_Init(int *spawned)
{
    const char *fd_env = getenv("PMI_FD");
    const char *port_env = getenv("PMI_PORT");

    if (spawned == NULL)
        return PMI_ERR_INVALID_ARG;
    if (pmi_initialized)
        return PMI_SUCCESS;
    reset_state();

    if (getenv("PMI_DEBUG") && atoi(getenv("PMI_DEBUG")) > 0)
        pmi_debug = 1;
    if (env_int("PMI_SPAWNED", &pmi_spawned, 0) != 0)
        return PMI_ERR_INIT;

    if (fd_env != NULL) {
        if (parse_int(fd_env, &pmi_fd) != 0 || pmi_fd < 0) {
            pmi_fd = -1;
            return PMI_ERR_INIT;
        }
        if (env_int("PMI_RANK", &pmi_rank, 0) != 0 ||
            env_int("PMI_SIZE", &pmi_size, 1) != 0)
            goto fail;
    } else if (port_env != NULL) {
        const char *id = getenv("PMI_ID");
        const char *st = getenv("PMI_SOCKTYPE");
        int dummy;
        if (st != NULL && strcasecmp(st, "POSIX") != 0)
            return PMI_ERR_INIT; /* no TLS here */
        if (id == NULL || parse_int(id, &dummy) != 0)
            return PMI_ERR_INIT;
        pmi_fd = connect_port(port_env);
        if (pmi_fd < 0)
            return PMI_ERR_INIT;
        if (do_initack(id) != PMI_SUCCESS)
            goto fail;
    } else {
        /* singleton */
        pmi_singleton = 1;
        strcpy(pmi_kvsname, "singleton_kvs");
        pmi_initialized = 1;
        *spawned = 0;
        return PMI_SUCCESS;
    }

    if (do_init_exchange() != PMI_SUCCESS)
        goto fail;

    pmi_initialized = 1;
    *spawned = pmi_spawned ? PMI_TRUE : PMI_FALSE;
    return PMI_SUCCESS;

fail:
    reset_state();
    return PMI_ERR_INIT;
}

int PMI_Initialized(int *initialized)
{
    if (initialized == NULL)
        return PMI_ERR_INVALID_ARG;
    *initialized = pmi_initialized ? PMI_TRUE : PMI_FALSE;
    return PMI_SUCCESS;
}

int PMI_Finalize(void)
{
    struct msg m;
    int rc = PMI_SUCCESS;

    if (!pmi_initialized)
        return PMI_ERR_INIT;
    if (!pmi_singleton)
        rc = command("cmd=finalize\n", &m, "finalize_ack");
    reset_state();
    return rc;
}

int PMI_Get_size(int *size)
{
    if (!pmi_initialized)
        return PMI_ERR_INIT;
    if (size == NULL)
        return PMI_ERR_INVALID_ARG;
    *size = pmi_size;
    return PMI_SUCCESS;
}

int PMI_Get_rank(int *rank)
{
    if (!pmi_initialized)
        return PMI_ERR_INIT;
    if (rank == NULL)
        return PMI_ERR_INVALID_ARG;
    *rank = pmi_rank;
    return PMI_SUCCESS;
}

int PMI_Get_universe_size(int *size)
{
    struct msg m;

    if (!pmi_initialized)
        return PMI_ERR_INIT;
    if (size == NULL)
        return PMI_ERR_INVALID_ARG;
    if (pmi_singleton) {
        *size = 1;
        return PMI_SUCCESS;
    }
    if (command("cmd=get_universe_size\n", &m, "universe_size") != PMI_SUCCESS)
        return PMI_FAIL;
    if (parse_int(get_val(&m, "size"), size) != 0)
        return PMI_FAIL;
    return PMI_SUCCESS;
}

int PMI_Get_appnum(int *appnum)
{
    if (!pmi_initialized)
        return PMI_ERR_INIT;
    if (appnum == NULL)
        return PMI_ERR_INVALID_ARG;
    *appnum = pmi_appnum;
    return PMI_SUCCESS;
}

int PMI_Abort(int exit_code, const char error_msg[])
{
    char buf[LINE_MAX_LEN];

    if (error_msg)
        fprintf(stderr, "PMI_Abort(%d): %s\n", exit_code, error_msg);
    if (pmi_initialized && !pmi_singleton) {
        snprintf(buf, sizeof(buf), "cmd=abort exitcode=%d\n", exit_code);
        write_line(buf);
    }
    exit(exit_code);
    return PMI_FAIL;
}

int PMI_KVS_Get_my_name(char kvsname[], int length)
{
    if (!pmi_initialized)
        return PMI_ERR_INIT;
    if (kvsname == NULL)
        return PMI_ERR_INVALID_ARG;
    if ((int)strlen(pmi_kvsname) >= length)
        return PMI_ERR_INVALID_LENGTH;
    strcpy(kvsname, pmi_kvsname);
    return PMI_SUCCESS;
}

int PMI_KVS_Get_name_length_max(int *length)
{
    if (length == NULL)
        return PMI_ERR_INVALID_ARG;
    *length = kvsname_max;
    return PMI_SUCCESS;
}

int PMI_KVS_Get_key_length_max(int *length)
{
    if (length == NULL)
        return PMI_ERR_INVALID_ARG;
    *length = keylen_max;
    return PMI_SUCCESS;
}

int PMI_KVS_Get_value_length_max(int *length)
{
    if (length == NULL)
        return PMI_ERR_INVALID_ARG;
    *length = vallen_max;
    return PMI_SUCCESS;
}

/* PMI-1 values cannot carry spaces or control bytes (V1-9) */
static int word_ok(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
            return 0;
    return 1;
}

int PMI_KVS_Put(const char kvsname[], const char key[], const char value[])
{
    char buf[LINE_MAX_LEN];
    struct msg m;
    int i;

    if (!pmi_initialized)
        return PMI_ERR_INIT;
    if (kvsname == NULL || key == NULL || value == NULL)
        return PMI_ERR_INVALID_ARG;
    if ((int)strlen(key) >= keylen_max || *key == '\0')
        return PMI_ERR_INVALID_KEY_LENGTH;
    if ((int)strlen(value) >= vallen_max)
        return PMI_ERR_INVALID_VAL_LENGTH;
    if (!word_ok(key) || !word_ok(kvsname))
        return PMI_ERR_INVALID_KEY;
    if (!word_ok(value))
        return PMI_ERR_INVALID_VAL;

    if (pmi_singleton) {
        for (i = 0; i < single_n; i++)
            if (strcmp(single_kvs[i].key, key) == 0)
                break;
        if (i == single_n) {
            if (single_n == SINGLETON_KVS)
                return PMI_FAIL;
            single_n++;
        }
        strncpy(single_kvs[i].key, key, sizeof(single_kvs[i].key) - 1);
        strncpy(single_kvs[i].val, value, sizeof(single_kvs[i].val) - 1);
        return PMI_SUCCESS;
    }

    if (snprintf(buf, sizeof(buf), "cmd=put kvsname=%s key=%s value=%s\n",
                 kvsname, key, value) >= (int)sizeof(buf))
        return PMI_ERR_INVALID_VAL_LENGTH;
    return command(buf, &m, "put_result");
}

int PMI_KVS_Commit(const char kvsname[])
{
    /* nothing to do: puts go to the server at once */
    if (!pmi_initialized)
        return PMI_ERR_INIT;
    if (kvsname == NULL)
        return PMI_ERR_INVALID_ARG;
    return PMI_SUCCESS;
}

int PMI_KVS_Get(const char kvsname[], const char key[], char value[], int length)
{
    char buf[LINE_MAX_LEN];
    struct msg m;
    const char *v;
    int i;

    if (!pmi_initialized)
        return PMI_ERR_INIT;
    if (kvsname == NULL || key == NULL || value == NULL || length <= 0)
        return PMI_ERR_INVALID_ARG;
    if ((int)strlen(key) >= keylen_max || !word_ok(key) || !word_ok(kvsname))
        return PMI_ERR_INVALID_KEY;

    if (pmi_singleton) {
        for (i = 0; i < single_n; i++) {
            if (strcmp(single_kvs[i].key, key) == 0) {
                if ((int)strlen(single_kvs[i].val) >= length)
                    return PMI_ERR_INVALID_LENGTH;
                strcpy(value, single_kvs[i].val);
                return PMI_SUCCESS;
            }
        }
        return PMI_FAIL;
    }

    snprintf(buf, sizeof(buf), "cmd=get kvsname=%s key=%s\n", kvsname, key);
    if (command(buf, &m, "get_result") != PMI_SUCCESS)
        return PMI_FAIL;
    v = get_val(&m, "value");
    if (v == NULL)
        return PMI_FAIL;
    strncpy(value, v, length);
    value[length - 1] = '\0';
    return PMI_SUCCESS;
}

int PMI_Barrier(void)
{
    struct msg m;

    if (!pmi_initialized)
        return PMI_ERR_INIT;
    if (pmi_singleton)
        return PMI_SUCCESS;
    return command("cmd=barrier_in\n", &m, "barrier_out");
}

/* name service: outcome from rc, else from info (V1CMD-22) */
static int ns_result(struct msg *m)
{
    const char *rc = get_val(m, "rc");
    const char *info = get_val(m, "info");

    if (rc != NULL)
        return atoi(rc) == 0 ? PMI_SUCCESS : PMI_FAIL;
    if (info != NULL && strcmp(info, "ok") == 0)
        return PMI_SUCCESS;
    return PMI_FAIL;
}

int PMI_Publish_name(const char service_name[], const char port[])
{
    char buf[LINE_MAX_LEN];
    struct msg m;

    if (!pmi_initialized)
        return PMI_ERR_INIT;
    if (service_name == NULL || port == NULL)
        return PMI_ERR_INVALID_ARG;
    if (!word_ok(service_name) || !word_ok(port))
        return PMI_ERR_INVALID_ARG;
    if (pmi_singleton)
        return PMI_FAIL;
    snprintf(buf, sizeof(buf), "cmd=publish_name service=%s port=%s\n",
             service_name, port);
    if (write_line(buf) != PMI_SUCCESS || expect(&m, "publish_result") != PMI_SUCCESS)
        return PMI_FAIL;
    return ns_result(&m);
}

int PMI_Unpublish_name(const char service_name[])
{
    char buf[LINE_MAX_LEN];
    struct msg m;

    if (!pmi_initialized)
        return PMI_ERR_INIT;
    if (service_name == NULL || !word_ok(service_name))
        return PMI_ERR_INVALID_ARG;
    if (pmi_singleton)
        return PMI_FAIL;
    snprintf(buf, sizeof(buf), "cmd=unpublish_name service=%s\n", service_name);
    if (write_line(buf) != PMI_SUCCESS || expect(&m, "unpublish_result") != PMI_SUCCESS)
        return PMI_FAIL;
    return ns_result(&m);
}

int PMI_Lookup_name(const char service_name[], char port[])
{
    char buf[LINE_MAX_LEN];
    struct msg m;
    const char *p;

    if (!pmi_initialized)
        return PMI_ERR_INIT;
    if (service_name == NULL || port == NULL || !word_ok(service_name))
        return PMI_ERR_INVALID_ARG;
    if (pmi_singleton)
        return PMI_FAIL;
    snprintf(buf, sizeof(buf), "cmd=lookup_name service=%s\n", service_name);
    if (write_line(buf) != PMI_SUCCESS || expect(&m, "lookup_result") != PMI_SUCCESS)
        return PMI_FAIL;
    if (ns_result(&m) != PMI_SUCCESS)
        return PMI_FAIL;
    p = get_val(&m, "port");
    if (p == NULL)
        return PMI_FAIL;
    strcpy(port, p);
    return PMI_SUCCESS;
}
