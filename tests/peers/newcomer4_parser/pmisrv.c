/* pmisrv.c - request side of a small PMI-1 / PMI-2 server (first version)
 *
 * Splits the incoming byte stream into PMI-1 lines / mcmd blocks and PMI-2
 * frames, parses each message into a key/value table and dispatches on the
 * command. The KVS is job-wide, so it is a global shared by all connections.
 */
#include "pmisrv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define KVS_MAX      256
#define NODEATTR_MAX 64

#define KVSNAME "kvs_4711_0"
#define JOBID   "kvs_4711_0"

static struct pmisrv_pair g_kvs[KVS_MAX];
static int g_nkvs;
static struct pmisrv_pair g_nodeattr[NODEATTR_MAX];
static int g_nnodeattr;
static int g_nspawned;

/* ---------------------------------------------------------------- KVS */

static const char *kvs_lookup(struct pmisrv_pair *tab, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (strcmp(tab[i].key, key) == 0)
            return tab[i].val;
    return NULL;
}

static int kvs_store(struct pmisrv_pair *tab, int *n, int max, const char *key, const char *val)
{
    for (int i = 0; i < *n; i++) {
        if (strcmp(tab[i].key, key) == 0) {
            strcpy(tab[i].val, val);
            return 0;
        }
    }
    if (*n >= max)
        return -1;
    strcpy(tab[*n].key, key);
    strcpy(tab[*n].val, val);
    (*n)++;
    return 0;
}

/* ---------------------------------------------------------------- conn */

struct pmisrv_conn *pmisrv_conn_new(void)
{
    struct pmisrv_conn *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->rank = 0;
    c->size = 1;
    return c;
}

void pmisrv_conn_free(struct pmisrv_conn *c)
{
    free(c);
}

const char *pmisrv_last_response(struct pmisrv_conn *c)
{
    return c->resp;
}

static const char *get(struct pmisrv_conn *c, const char *key)
{
    for (int i = 0; i < c->npairs; i++)
        if (strcmp(c->pairs[i].key, key) == 0)
            return c->pairs[i].val;
    return NULL;
}

static void add_pair(struct pmisrv_conn *c, const char *key, const char *val)
{
    if (c->npairs >= PMISRV_MAX_PAIRS)
        return;
    strcpy(c->pairs[c->npairs].key, key);
    strcpy(c->pairs[c->npairs].val, val);
    c->npairs++;
}

/* ---------------------------------------------------------------- responses */

static void resp1(struct pmisrv_conn *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#include <stdarg.h>

/* PMI-1: "cmd=... ...\n" */
static void resp1(struct pmisrv_conn *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(c->resp, sizeof(c->resp) - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if (n > (int)sizeof(c->resp) - 2)
        n = sizeof(c->resp) - 2;
    c->resp[n++] = '\n';
    c->resp[n] = 0;
    c->resplen = n;
}

/* PMI-2: body is "cmd=<name>-response;" [thrid] + rest; length field prepended */
static void resp2(struct pmisrv_conn *c, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void resp2(struct pmisrv_conn *c, const char *name, const char *fmt, ...)
{
    char body[PMISRV_OUTBUF];
    int n;
    const char *thrid = get(c, "thrid");

    if (thrid)
        n = snprintf(body, sizeof(body), "cmd=%s-response;thrid=%s;", name, thrid);
    else
        n = snprintf(body, sizeof(body), "cmd=%s-response;", name);

    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body + n, sizeof(body) - n, fmt, ap);
    va_end(ap);

    snprintf(c->resp, sizeof(c->resp), "%6d%s", (int)strlen(body), body);
    c->resplen = strlen(c->resp);
}

/* escape ';' as ";;" for PMI-2 values */
static void esc(char *dst, const char *src)
{
    while (*src) {
        if (*src == ';')
            *dst++ = ';';
        *dst++ = *src++;
    }
    *dst = 0;
}

/* ---------------------------------------------------------------- parsing */

/* PMI-1 line (without the LF), "cmd=x a=b c=d" */
static int parse_v1_line(struct pmisrv_conn *c, char *line)
{
    char *save;
    char *tok;

    c->npairs = 0;
    c->is_v2 = 0;
    for (tok = strtok_r(line, " \r", &save); tok; tok = strtok_r(NULL, " \r", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue; /* bare word, ignore */
        *eq = 0;
        add_pair(c, tok, eq + 1);
    }
    return c->npairs > 0 ? 0 : -1;
}

/* mcmd block: "mcmd=spawn\nk=v\n...\nendcmd\n" (body without final endcmd) */
static int parse_v1_block(struct pmisrv_conn *c, char *block)
{
    char *save;
    char *line;

    c->npairs = 0;
    c->is_v2 = 0;
    for (line = strtok_r(block, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = 0;
        add_pair(c, line, eq + 1);
    }
    return c->npairs > 0 ? 0 : -1;
}

/* PMI-2 body "cmd=x;k=v;k=v;" with ";;" meaning a literal ';' in values */
static int parse_v2_body(struct pmisrv_conn *c, const char *body, size_t len)
{
    const char *p = body;
    const char *end = body + len;

    c->npairs = 0;
    c->is_v2 = 1;
    while (p < end && c->npairs < PMISRV_MAX_PAIRS) {
        const char *eq = memchr(p, '=', end - p);
        if (!eq)
            break; /* trailing junk */
        struct pmisrv_pair *pr = &c->pairs[c->npairs];
        memcpy(pr->key, p, eq - p);
        pr->key[eq - p] = 0;

        const char *q = eq + 1;
        int j = 0;
        while (q < end) {
            if (*q == ';') {
                if (q + 1 < end && q[1] == ';') {
                    pr->val[j++] = ';';
                    q += 2;
                    continue;
                }
                break;
            }
            pr->val[j++] = *q++;
        }
        pr->val[j] = 0;
        c->npairs++;
        p = q + 1;
    }
    if (c->npairs == 0 || strcmp(c->pairs[0].key, "cmd") != 0)
        return -1;
    return 0;
}

/* ---------------------------------------------------------------- PMI-1 commands */

static void v1_dispatch(struct pmisrv_conn *c)
{
    const char *cmd = c->pairs[0].val;

    if (strcmp(c->pairs[0].key, "mcmd") == 0) {
        /* spawn block */
        const char *tot = get(c, "totspawns");
        const char *sofar = get(c, "spawnssofar");
        if (tot && sofar && atoi(tot) == atoi(sofar)) {
            g_nspawned++;
            resp1(c, "cmd=spawn_result rc=0 jobid=%s-%d", JOBID, g_nspawned);
        } else if (!tot || !sofar) {
            resp1(c, "cmd=spawn_result rc=3 msg=missing_totspawns");
        }
        return;
    }

    if (strcmp(cmd, "init") == 0) {
        const char *v = get(c, "pmi_version");
        const char *s = get(c, "pmi_subversion");
        if (!v || !s) {
            resp1(c, "cmd=response_to_init rc=3 pmi_version=1 pmi_subversion=1");
            return;
        }
        int ver = atoi(v);
        if (ver == 1) {
            c->version = 1;
            c->subversion = 1;
            resp1(c, "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1");
        } else if (ver == 2) {
            c->version = 2;
            c->subversion = 0;
            resp1(c, "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0");
        } else {
            resp1(c, "cmd=response_to_init rc=1 pmi_version=2 pmi_subversion=0");
        }
    } else if (strcmp(cmd, "get_maxes") == 0) {
        resp1(c, "cmd=maxes rc=0 kvsname_max=256 keylen_max=%d vallen_max=%d",
              PMISRV_KEYLEN, PMISRV_VALLEN);
    } else if (strcmp(cmd, "get_appnum") == 0) {
        resp1(c, "cmd=appnum rc=0 appnum=0");
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        resp1(c, "cmd=my_kvsname rc=0 kvsname=%s", KVSNAME);
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        resp1(c, "cmd=universe_size rc=0 size=%d", c->size);
    } else if (strcmp(cmd, "put") == 0) {
        const char *kvsname = get(c, "kvsname");
        const char *key = get(c, "key");
        const char *val = get(c, "value");
        if (!kvsname || !key || !val) {
            resp1(c, "cmd=put_result rc=3 msg=missing_key");
        } else if (strcmp(kvsname, KVSNAME) != 0) {
            resp1(c, "cmd=put_result rc=1 msg=unknown_kvsname");
        } else if (kvs_store(g_kvs, &g_nkvs, KVS_MAX, key, val) < 0) {
            resp1(c, "cmd=put_result rc=1 msg=kvs_full");
        } else {
            resp1(c, "cmd=put_result rc=0");
        }
    } else if (strcmp(cmd, "get") == 0) {
        const char *kvsname = get(c, "kvsname");
        const char *key = get(c, "key");
        if (!kvsname || !key) {
            resp1(c, "cmd=get_result rc=3 msg=missing_key");
            return;
        }
        if (strcmp(kvsname, KVSNAME) != 0) {
            resp1(c, "cmd=get_result rc=1 msg=unknown_kvsname");
            return;
        }
        const char *v = kvs_lookup(g_kvs, g_nkvs, key);
        if (!v && strcmp(key, "PMI_process_mapping") == 0)
            v = "(vector,(0,1,1))";
        if (v)
            resp1(c, "cmd=get_result rc=0 value=%s", v);
        else
            resp1(c, "cmd=get_result rc=1 msg=key_%s_not_found", key);
    } else if (strcmp(cmd, "barrier_in") == 0) {
        /* single-process job: everyone is here */
        const char *group = get(c, "group");
        if (group) {
            const char *tag = strchr(group, ':');
            resp1(c, "cmd=barrier_out rc=0 tag=%s", tag ? tag + 1 : "");
        } else {
            resp1(c, "cmd=barrier_out rc=0");
        }
    } else if (strcmp(cmd, "finalize") == 0) {
        c->finalized = 1;
        resp1(c, "cmd=finalize_ack rc=0");
    } else if (strcmp(cmd, "abort") == 0) {
        const char *ec = get(c, "exitcode");
        c->aborted = 1;
        c->abort_code = ec ? atoi(ec) : 1;
        c->resp[0] = 0;
        c->resplen = 0;
        fprintf(stderr, "pmisrv: abort from rank %d, exit code %d\n", c->rank, c->abort_code);
    } else {
        resp1(c, "cmd=%s_result rc=10 msg=unknown_command", cmd);
    }
}

/* ---------------------------------------------------------------- PMI-2 commands */

static int is_true(const char *v)
{
    return v && strcasecmp(v, "TRUE") == 0;
}

static void v2_spawn(struct pmisrv_conn *c)
{
    const char *ncmds = get(c, "ncmds");
    int maxprocs[16];
    int nseg = 0;
    int total = 0;

    if (!ncmds) {
        resp2(c, "spawn", "rc=3;errmsg=missing required key: ncmds;");
        return;
    }
    for (int i = 0; i < c->npairs; i++) {
        if (strcmp(c->pairs[i].key, "subcmd") == 0) {
            maxprocs[nseg] = 1;
            nseg++;
        } else if (strcmp(c->pairs[i].key, "maxprocs") == 0 && nseg > 0) {
            maxprocs[nseg - 1] = atoi(c->pairs[i].val);
        }
    }
    if (nseg != atoi(ncmds)) {
        resp2(c, "spawn", "rc=3;errmsg=ncmds does not match segments;");
        return;
    }
    for (int i = 0; i < nseg; i++)
        total += maxprocs[i];

    /* preput keys go into the KVS of the new job; we only have one KVS */
    const char *ppc = get(c, "preputcount");
    int npp = ppc ? atoi(ppc) : 0;
    for (int i = 0; i < npp; i++) {
        char k[32], v[32];
        sprintf(k, "ppkey%d", i);
        sprintf(v, "ppval%d", i);
        const char *pk = get(c, k);
        const char *pv = get(c, v);
        if (pk && pv)
            kvs_store(g_kvs, &g_nkvs, KVS_MAX, pk, pv);
    }

    g_nspawned++;
    resp2(c, "spawn", "rc=0;jobid=%s-%d;", JOBID, g_nspawned);
    (void)total;
}

static void v2_dispatch(struct pmisrv_conn *c)
{
    const char *cmd = c->pairs[0].val;
    char ebuf[2 * PMISRV_VALLEN + 1];

    if (cmd[0] == 0) {
        c->closed = 1;
        return;
    }

    if (strcmp(cmd, "fullinit") == 0) {
        if (c->fullinit_done) {
            resp2(c, "fullinit", "rc=1;errmsg=fullinit already done;");
            return;
        }
        const char *r = get(c, "pmirank");
        if (r)
            c->rank = atoi(r);
        c->fullinit_done = 1;
        c->version = 2;
        resp2(c, "fullinit",
              "rc=0;pmi-version=2;pmi-subversion=0;rank=%d;size=%d;appnum=0;"
              "debugged=FALSE;pmiverbose=FALSE;",
              c->rank, c->size);
    } else if (strcmp(cmd, "job-getid") == 0) {
        resp2(c, "job-getid", "rc=0;jobid=%s;", JOBID);
    } else if (strcmp(cmd, "kvs-put") == 0) {
        const char *key = get(c, "key");
        const char *val = get(c, "value");
        if (!key) {
            resp2(c, "kvs-put", "rc=3;errmsg=missing required key: key;");
        } else if (!val) {
            resp2(c, "kvs-put", "rc=3;errmsg=missing required key: value;");
        } else if (kvs_store(g_kvs, &g_nkvs, KVS_MAX, key, val) < 0) {
            resp2(c, "kvs-put", "rc=1;errmsg=kvs full;");
        } else {
            resp2(c, "kvs-put", "rc=0;");
        }
    } else if (strcmp(cmd, "kvs-get") == 0) {
        const char *key = get(c, "key");
        const char *jobid = get(c, "jobid");
        if (!key) {
            resp2(c, "kvs-get", "rc=3;errmsg=missing required key: key;");
            return;
        }
        if (jobid && strcmp(jobid, JOBID) != 0) {
            resp2(c, "kvs-get", "rc=1;errmsg=unknown jobid;");
            return;
        }
        const char *v = kvs_lookup(g_kvs, g_nkvs, key);
        if (!v && strcmp(key, "PMI_process_mapping") == 0)
            v = "(vector,(0,1,1))";
        if (v) {
            esc(ebuf, v);
            resp2(c, "kvs-get", "rc=0;found=TRUE;value=%s;", ebuf);
        } else {
            resp2(c, "kvs-get", "rc=0;found=FALSE;");
        }
    } else if (strcmp(cmd, "kvs-fence") == 0) {
        c->fence_count++;
        resp2(c, "kvs-fence", "rc=0;");
    } else if (strcmp(cmd, "info-getjobattr") == 0) {
        const char *key = get(c, "key");
        if (!key) {
            resp2(c, "info-getjobattr", "rc=3;errmsg=missing required key: key;");
        } else if (strcmp(key, "PMI_process_mapping") == 0) {
            resp2(c, "info-getjobattr", "rc=0;found=TRUE;value=(vector,(0,1,%d));", c->size);
        } else if (strcmp(key, "universeSize") == 0) {
            resp2(c, "info-getjobattr", "rc=0;found=TRUE;value=%d;", c->size);
        } else {
            resp2(c, "info-getjobattr", "rc=0;found=FALSE;");
        }
    } else if (strcmp(cmd, "info-putnodeattr") == 0) {
        const char *key = get(c, "key");
        const char *val = get(c, "value");
        if (!key || !val) {
            resp2(c, "info-putnodeattr", "rc=3;errmsg=missing required key: %s;",
                  key ? "value" : "key");
        } else if (kvs_store(g_nodeattr, &g_nnodeattr, NODEATTR_MAX, key, val) < 0) {
            resp2(c, "info-putnodeattr", "rc=1;errmsg=too many node attributes;");
        } else {
            resp2(c, "info-putnodeattr", "rc=0;");
        }
    } else if (strcmp(cmd, "info-getnodeattr") == 0) {
        const char *key = get(c, "key");
        if (!key) {
            resp2(c, "info-getnodeattr", "rc=3;errmsg=missing required key: key;");
            return;
        }
        /* wait=TRUE: single node, single process, nobody else will put it */
        (void)is_true(get(c, "wait"));
        const char *v = kvs_lookup(g_nodeattr, g_nnodeattr, key);
        if (v) {
            esc(ebuf, v);
            resp2(c, "info-getnodeattr", "rc=0;found=TRUE;value=%s;", ebuf);
        } else {
            resp2(c, "info-getnodeattr", "rc=0;found=FALSE;");
        }
    } else if (strcmp(cmd, "finalize") == 0) {
        c->finalized = 1;
        resp2(c, "finalize", "rc=0;");
    } else if (strcmp(cmd, "abort") == 0) {
        const char *ec = get(c, "exitcode");
        const char *msg = get(c, "msg");
        if (!msg)
            msg = get(c, "message");
        c->aborted = 1;
        c->abort_code = ec ? atoi(ec) : 1;
        if (c->abort_code == 0 && ec && strcmp(ec, "0") != 0)
            c->abort_code = 1;
        c->resp[0] = 0;
        c->resplen = 0;
        fprintf(stderr, "pmisrv: abort from rank %d (isworld=%s): %s\n", c->rank,
                is_true(get(c, "isworld")) ? "TRUE" : "FALSE", msg ? msg : "");
    } else if (strcmp(cmd, "spawn") == 0) {
        v2_spawn(c);
    } else {
        resp2(c, cmd, "rc=10;errmsg=unknown command;");
    }
}

/* ---------------------------------------------------------------- feed */

int pmisrv_feed(struct pmisrv_conn *c, const char *buf, size_t len)
{
    int handled = 0;

    if (c->closed)
        return -1;
    if (c->inlen + len > sizeof(c->inbuf)) {
        c->closed = 1;
        return -1;
    }
    memcpy(c->inbuf + c->inlen, buf, len);
    c->inlen += len;

    for (;;) {
        size_t used;

        if (c->inlen == 0)
            break;

        if (c->inlen >= 4 && strncmp(c->inbuf, "cmd=", 4) == 0) {
            /* PMI-1 line */
            char *nl = memchr(c->inbuf, '\n', c->inlen);
            if (!nl)
                break;
            char line[1024];
            size_t n = nl - c->inbuf;
            memcpy(line, c->inbuf, n);
            line[n] = 0;
            used = n + 1;
            if (parse_v1_line(c, line) == 0)
                v1_dispatch(c);
        } else if (c->inlen >= 5 && strncmp(c->inbuf, "mcmd=", 5) == 0) {
            /* PMI-1 block, up to "endcmd\n" */
            char *e = NULL;
            char *p = c->inbuf;
            c->inbuf[c->inlen < sizeof(c->inbuf) ? c->inlen : sizeof(c->inbuf) - 1] = 0;
            while ((p = strstr(p, "endcmd\n")) != NULL) {
                if (p == c->inbuf || p[-1] == '\n') {
                    e = p;
                    break;
                }
                p++;
            }
            if (!e)
                break;
            char block[4096];
            size_t n = e - c->inbuf;
            memcpy(block, c->inbuf, n);
            block[n] = 0;
            used = n + 7;
            if (parse_v1_block(c, block) == 0)
                v1_dispatch(c);
        } else if (c->inlen < 6 && (strncmp(c->inbuf, "cmd=", c->inlen) == 0 ||
                                    strncmp(c->inbuf, "mcmd=", c->inlen) == 0)) {
            break; /* could still become a PMI-1 line */
        } else {
            /* PMI-2 frame */
            if (c->inlen < 6)
                break;
            char lenbuf[7];
            memcpy(lenbuf, c->inbuf, 6);
            lenbuf[6] = 0;
            int blen = atoi(lenbuf);
            if (blen < 6) {
                c->closed = 1;
                return -1;
            }
            if (c->inlen < (size_t)blen + 6)
                break;
            if (parse_v2_body(c, c->inbuf + 6, blen) == 0)
                v2_dispatch(c);
            else
                c->closed = 1;
            used = blen + 6;
        }

        handled++;
        memmove(c->inbuf, c->inbuf + used, c->inlen - used);
        c->inlen -= used;
        if (c->closed)
            return -1;
    }
    return handled;
}
