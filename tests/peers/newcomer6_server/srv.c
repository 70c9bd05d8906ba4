/* PMI-1 protocol engine, first version. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "srv.h"

#define MAX_CLIENTS   64
#define MAX_PAIRS     32
#define MAX_LINE      1024
#define MAX_SPAWN     16
#define MAX_NAMES     64
#define KVSNAME_MAX   256
#define KEYLEN_MAX    64
#define VALLEN_MAX    1024

struct pair {
    char *key;
    char *val;
};

struct client {
    void *c;
    int used;
    int initialized;
    int in_barrier;
    int finalized;
    /* spawn accumulation */
    int in_spawn;
    int totspawns;
    int nspawn;
    struct srv_spawn_cmd spawn[MAX_SPAWN];
};

struct name {
    int used;
    char service[256];
    char port[256];
};

struct srv {
    struct srv_ops ops;
    void *arg;
    int size;
    int appnum;
    char kvsname[KVSNAME_MAX];
    struct client clients[MAX_CLIENTS];
    struct name names[MAX_NAMES];
};

struct srv *srv_create(const struct srv_ops *ops, void *arg, int size, int appnum,
                       const char *kvsname)
{
    struct srv *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->ops = *ops;
    s->arg = arg;
    s->size = size;
    s->appnum = appnum;
    strncpy(s->kvsname, kvsname, sizeof(s->kvsname) - 1);
    return s;
}

static struct client *client_lookup(struct srv *s, void *c, int create)
{
    int i;
    for (i = 0; i < MAX_CLIENTS; i++) {
        if (s->clients[i].used && s->clients[i].c == c)
            return &s->clients[i];
    }
    if (!create)
        return NULL;
    for (i = 0; i < MAX_CLIENTS; i++) {
        if (!s->clients[i].used) {
            memset(&s->clients[i], 0, sizeof(s->clients[i]));
            s->clients[i].used = 1;
            s->clients[i].c = c;
            return &s->clients[i];
        }
    }
    return NULL;
}

static void spawn_free(struct client *cl)
{
    int i, j;
    for (i = 0; i < cl->nspawn; i++) {
        struct srv_spawn_cmd *sp = &cl->spawn[i];
        for (j = 0; j < sp->argc; j++)
            free(sp->argv[j]);
        for (j = 0; j < sp->npreput; j++) {
            free(sp->preput_key[j]);
            free(sp->preput_val[j]);
        }
        for (j = 0; j < sp->ninfo; j++) {
            free(sp->info_key[j]);
            free(sp->info_val[j]);
        }
    }
    memset(cl->spawn, 0, sizeof(cl->spawn));
    cl->nspawn = 0;
    cl->in_spawn = 0;
    cl->totspawns = 0;
}

static int send_line(struct srv *s, void *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#include <stdarg.h>
static int send_line(struct srv *s, void *c, const char *fmt, ...)
{
    char buf[MAX_LINE + 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return s->ops.response_send(c, buf);
}

static int parse_pairs(char *line, struct pair *pairs, int max)
{
    int n = 0;
    char *tok, *save;
    for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue; /* bare word: ignore (V1-7) */
        if (n >= max)
            break;
        *eq = '\0';
        pairs[n].key = tok;
        pairs[n].val = eq + 1;
        n++;
    }
    return n;
}

static const char *getval(struct pair *pairs, int n, const char *key)
{
    int i;
    for (i = 0; i < n; i++)
        if (strcmp(pairs[i].key, key) == 0)
            return pairs[i].val;
    return NULL;
}

static void chomp(char *buf)
{
    size_t len = strlen(buf);
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
        buf[--len] = '\0';
}

/* one line of an mcmd=spawn block (the mcmd=spawn line itself already seen) */
static int spawn_line(struct srv *s, struct client *cl, char *line)
{
    struct srv_spawn_cmd *sp;
    char *eq, *key, *val;
    int idx;

    if (strcmp(line, "endcmd") == 0) {
        int sofar, tot;
        sp = &cl->spawn[cl->nspawn];
        /* totspawns/spawnssofar were stashed while reading */
        tot = cl->totspawns;
        sofar = ++cl->nspawn;
        cl->in_spawn = 0;
        if (sofar >= tot || cl->nspawn >= MAX_SPAWN) {
            int rc = -1;
            if (s->ops.spawn)
                rc = s->ops.spawn(s->arg, cl->c, cl->nspawn, cl->spawn);
            if (rc == 0)
                send_line(s, cl->c, "cmd=spawn_result rc=0\n");
            else
                send_line(s, cl->c, "cmd=spawn_result rc=%d msg=spawn_failed\n", rc ? rc : -1);
            spawn_free(cl);
        }
        (void)sp;
        return 0;
    }

    sp = &cl->spawn[cl->nspawn];
    eq = strchr(line, '=');
    if (!eq)
        return 0;
    *eq = '\0';
    key = line;
    val = eq + 1;

    if (strcmp(key, "nprocs") == 0) {
        sp->nprocs = atoi(val);
    } else if (strcmp(key, "execname") == 0) {
        strcpy(sp->execname, val);
    } else if (strcmp(key, "totspawns") == 0) {
        cl->totspawns = atoi(val);
    } else if (strcmp(key, "spawnssofar") == 0) {
        /* we count blocks ourselves */
    } else if (strcmp(key, "argcnt") == 0) {
        /* arguments counted as they come */
    } else if (sscanf(key, "arg%d", &idx) == 1) {
        if (idx >= 1 && idx <= 32) {
            sp->argv[idx - 1] = strdup(val);
            if (idx > sp->argc)
                sp->argc = idx;
        }
    } else if (strcmp(key, "preput_num") == 0) {
        /* counted as they come */
    } else if (sscanf(key, "preput_key_%d", &idx) == 1) {
        if (idx >= 0 && idx < 32) {
            sp->preput_key[idx] = strdup(val);
            if (idx + 1 > sp->npreput)
                sp->npreput = idx + 1;
        }
    } else if (sscanf(key, "preput_val_%d", &idx) == 1) {
        if (idx >= 0 && idx < 32) {
            sp->preput_val[idx] = strdup(val);
            if (idx + 1 > sp->npreput)
                sp->npreput = idx + 1;
        }
    } else if (strcmp(key, "info_num") == 0) {
    } else if (sscanf(key, "info_key_%d", &idx) == 1) {
        if (idx >= 0 && idx < 32) {
            sp->info_key[idx] = strdup(val);
            if (idx + 1 > sp->ninfo)
                sp->ninfo = idx + 1;
        }
    } else if (sscanf(key, "info_val_%d", &idx) == 1) {
        if (idx >= 0 && idx < 32) {
            sp->info_val[idx] = strdup(val);
            if (idx + 1 > sp->ninfo)
                sp->ninfo = idx + 1;
        }
    }
    return 0;
}

static void do_barrier(struct srv *s, struct client *cl)
{
    int i;
    cl->in_barrier = 1;
    if (s->ops.barrier_enter(s->arg) == 1) {
        for (i = 0; i < MAX_CLIENTS; i++) {
            if (s->clients[i].used && s->clients[i].in_barrier) {
                s->clients[i].in_barrier = 0;
                send_line(s, s->clients[i].c, "cmd=barrier_out rc=0\n");
            }
        }
    }
}

static struct name *name_find(struct srv *s, const char *service)
{
    int i;
    for (i = 0; i < MAX_NAMES; i++)
        if (s->names[i].used && strcmp(s->names[i].service, service) == 0)
            return &s->names[i];
    return NULL;
}

int srv_request(struct srv *s, void *client, const char *line)
{
    char buf[MAX_LINE];
    struct pair pairs[MAX_PAIRS];
    int npairs;
    const char *cmd;
    struct client *cl;

    cl = client_lookup(s, client, 1);
    if (!cl)
        return -1;

    strcpy(buf, line);
    chomp(buf);

    if (cl->in_spawn)
        return spawn_line(s, cl, buf);

    if (strncmp(buf, "mcmd=spawn", 10) == 0) {
        cl->in_spawn = 1;
        return 0;
    }

    npairs = parse_pairs(buf, pairs, MAX_PAIRS);
    cmd = getval(pairs, npairs, "cmd");
    if (!cmd) {
        send_line(s, client, "cmd=error rc=-1 msg=no_command\n");
        return -1;
    }

    if (strcmp(cmd, "init") == 0) {
        const char *v = getval(pairs, npairs, "pmi_version");
        const char *sv = getval(pairs, npairs, "pmi_subversion");
        if (!v || !sv || atoi(v) != 1) {
            send_line(s, client, "cmd=response_to_init rc=-1 pmi_version=1 pmi_subversion=1\n");
            return 0;
        }
        cl->initialized = 1;
        send_line(s, client, "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n");
    } else if (strcmp(cmd, "get_maxes") == 0) {
        send_line(s, client, "cmd=maxes rc=0 kvsname_max=%d keylen_max=%d vallen_max=%d\n",
                  KVSNAME_MAX, KEYLEN_MAX, VALLEN_MAX);
    } else if (strcmp(cmd, "get_appnum") == 0) {
        send_line(s, client, "cmd=appnum rc=0 appnum=%d\n", s->appnum);
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        send_line(s, client, "cmd=universe_size rc=0 size=%d\n", s->size);
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        send_line(s, client, "cmd=my_kvsname rc=0 kvsname=%s\n", s->kvsname);
    } else if (strcmp(cmd, "put") == 0) {
        const char *kvs = getval(pairs, npairs, "kvsname");
        const char *key = getval(pairs, npairs, "key");
        const char *val = getval(pairs, npairs, "value");
        if (!kvs || !key || !val) {
            send_line(s, client, "cmd=put_result rc=-1 msg=missing_key\n");
        } else if (strcmp(kvs, s->kvsname) != 0) {
            send_line(s, client, "cmd=put_result rc=-1 msg=bad_kvsname\n");
        } else if (s->ops.kvs_put(s->arg, kvs, key, val) < 0) {
            send_line(s, client, "cmd=put_result rc=-1 msg=put_failed\n");
        } else {
            send_line(s, client, "cmd=put_result rc=0\n");
        }
    } else if (strcmp(cmd, "get") == 0) {
        const char *kvs = getval(pairs, npairs, "kvsname");
        const char *key = getval(pairs, npairs, "key");
        char val[VALLEN_MAX];
        if (!kvs || !key) {
            send_line(s, client, "cmd=get_result rc=-1 msg=missing_key\n");
        } else if (strcmp(kvs, s->kvsname) != 0) {
            send_line(s, client, "cmd=get_result rc=-1 msg=bad_kvsname\n");
        } else if (s->ops.kvs_get(s->arg, kvs, key, val, sizeof(val)) < 0) {
            send_line(s, client, "cmd=get_result rc=-1 msg=key_%s_not_found\n", key);
        } else {
            send_line(s, client, "cmd=get_result rc=0 value=%s\n", val);
        }
    } else if (strcmp(cmd, "barrier_in") == 0) {
        do_barrier(s, cl);
    } else if (strcmp(cmd, "finalize") == 0) {
        cl->finalized = 1;
        send_line(s, client, "cmd=finalize_ack rc=0\n");
    } else if (strcmp(cmd, "abort") == 0) {
        const char *ec = getval(pairs, npairs, "exitcode");
        const char *msg = getval(pairs, npairs, "msg");
        int code = ec ? atoi(ec) : 1;
        if (s->ops.abort)
            s->ops.abort(s->arg, client, code, msg);
    } else if (strcmp(cmd, "publish_name") == 0) {
        const char *svc = getval(pairs, npairs, "service");
        const char *port = getval(pairs, npairs, "port");
        struct name *n;
        int i;
        if (!svc || !port) {
            send_line(s, client, "cmd=publish_result rc=-1 info=fail msg=missing_key\n");
            return 0;
        }
        if (name_find(s, svc)) {
            send_line(s, client, "cmd=publish_result rc=-1 info=fail msg=already_published\n");
            return 0;
        }
        n = NULL;
        for (i = 0; i < MAX_NAMES; i++) {
            if (!s->names[i].used) {
                n = &s->names[i];
                break;
            }
        }
        if (!n) {
            send_line(s, client, "cmd=publish_result rc=-1 info=fail msg=table_full\n");
            return 0;
        }
        n->used = 1;
        strcpy(n->service, svc);
        strcpy(n->port, port);
        send_line(s, client, "cmd=publish_result rc=0 info=ok\n");
    } else if (strcmp(cmd, "unpublish_name") == 0) {
        const char *svc = getval(pairs, npairs, "service");
        struct name *n;
        if (!svc) {
            send_line(s, client, "cmd=unpublish_result rc=-1 info=fail msg=missing_key\n");
            return 0;
        }
        n = name_find(s, svc);
        if (!n) {
            send_line(s, client, "cmd=unpublish_result rc=-1 info=fail msg=not_found\n");
            return 0;
        }
        n->used = 0;
        send_line(s, client, "cmd=unpublish_result rc=0 info=ok\n");
    } else if (strcmp(cmd, "lookup_name") == 0) {
        const char *svc = getval(pairs, npairs, "service");
        struct name *n;
        if (!svc) {
            send_line(s, client, "cmd=lookup_result rc=-1 info=fail msg=missing_key\n");
            return 0;
        }
        n = name_find(s, svc);
        if (!n) {
            send_line(s, client, "cmd=lookup_result rc=-1 info=fail msg=not_found\n");
            return 0;
        }
        send_line(s, client, "cmd=lookup_result rc=0 info=ok port=%s\n", n->port);
    } else {
        send_line(s, client, "cmd=%s rc=-1 msg=unknown_command\n", cmd);
        return -1;
    }
    return 0;
}

void srv_client_gone(struct srv *s, void *client)
{
    struct client *cl = client_lookup(s, client, 0);
    if (!cl)
        return;
    spawn_free(cl);
    cl->used = 0;
}

void srv_destroy(struct srv *s)
{
    int i;
    if (!s)
        return;
    for (i = 0; i < MAX_CLIENTS; i++)
        if (s->clients[i].used)
            spawn_free(&s->clients[i]);
    free(s);
}
