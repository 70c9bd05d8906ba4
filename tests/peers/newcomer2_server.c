/*
 * newcomer2_server: a PMI process manager for one machine, written from
 * SPEC.md alone as a first version (see tests/peers/README.md).
 *
 *   newcomer2_server -n N -- PROGRAM ARGS...
 *
 * Architecture: one thread per connection, one global mutex for all job
 * state (KVS, node attributes, fence/barrier counters), one condition
 * variable that every waiter sleeps on.  Responses are written by the
 * thread of the connection they belong to, outside the mutex, so a client
 * that does not read only blocks its own thread.
 *
 * First-version shortcuts (on purpose): fixed-size buffers, a linear KVS,
 * no spawn, no name service, no continuations, no auth, PMI-1.1 only (no
 * group barriers), one node.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_RANKS 256
#define MAX_KEY 64        /* LIMIT-1: keys up to 64 bytes */
#define MAX_VAL 1024      /* LIMIT-1: values up to 1024 bytes */
#define MAX_KVS 4096
#define MAX_NODEATTR 256
#define MAX_FRAME 65536   /* largest PMI-2 body accepted (LIMIT-6) */
#define MAX_LINE 4096     /* largest PMI-1 line or block accepted */
#define MAX_PAIRS 512
#define RBUF (MAX_FRAME + 16)

struct pair { char *key; char *val; };
struct msg { int npairs; struct pair p[MAX_PAIRS]; };

struct kv { char key[MAX_KEY + 1]; char val[MAX_VAL + 1]; };

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static struct kv kvs[MAX_KVS];
static int nkvs;
static struct kv nattr[MAX_NODEATTR];
static int nnattr;
static int fences[MAX_RANKS];   /* fence rounds each rank has entered */
static int barriers[MAX_RANKS]; /* PMI-1 barrier rounds each rank has entered */
static int lost;                /* a rank's connection ended before finalize */
static int aborted;             /* exit code of the abort, -1 when none */
static int size;
static pid_t pids[MAX_RANKS];
static char jobid[64];
static int debug;

struct conn {
    int fd;
    int rank;
    int finalized;
    int fullinit;
    char buf[RBUF];
    size_t len;
};

static void dbg(const char *fmt, ...)
{
    if (!debug)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static const char *get(struct msg *m, const char *key)
{
    /* PAIR-4: the first occurrence wins */
    for (int i = 1; i < m->npairs; i++)
        if (strcmp(m->p[i].key, key) == 0)
            return m->p[i].val;
    return NULL;
}

static int parse_int(const char *s, long *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || isspace((unsigned char)*s) || *s == '+')
        return -1;
    *out = v;
    return 0;
}

/* BOOL-2/3: TRUE/FALSE any case; -1 when neither */
static int parse_bool(const char *s)
{
    if (!s)
        return 0;
    if (strcasecmp(s, "TRUE") == 0)
        return 1;
    if (strcasecmp(s, "FALSE") == 0)
        return 0;
    return -1;
}

/* ---- job state (call with mu held) ---- */

static struct kv *find(struct kv *tab, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (strcmp(tab[i].key, key) == 0)
            return &tab[i];
    return NULL;
}

/* 0 stored, 1 too long, 2 full */
static int store(struct kv *tab, int *n, int max, const char *key, const char *val)
{
    if (strlen(key) > MAX_KEY || strlen(val) > MAX_VAL)
        return 1;
    struct kv *e = find(tab, *n, key);
    if (!e) {
        if (*n >= max)
            return 2;
        e = &tab[(*n)++];
        strcpy(e->key, key);
    }
    strcpy(e->val, val);
    return 0;
}

static int min_count(int *counts)
{
    int m = counts[0];
    for (int r = 1; r < size; r++)
        if (counts[r] < m)
            m = counts[r];
    return m;
}

/* Enter the next round of a collective; 0 when every rank reached it,
 * -1 when a rank was lost (FENCE-9: answer rc!=0, never pretend). */
static int collective(int *counts, int rank)
{
    pthread_mutex_lock(&mu);
    int round = ++counts[rank];
    pthread_cond_broadcast(&cv);
    while (min_count(counts) < round && !lost)
        pthread_cond_wait(&cv, &mu);
    int ok = min_count(counts) >= round;
    pthread_mutex_unlock(&mu);
    return ok ? 0 : -1;
}

static void kill_job(int code)
{
    pthread_mutex_lock(&mu);
    if (aborted < 0)
        aborted = code;
    pthread_mutex_unlock(&mu);
    for (int r = 0; r < size; r++)
        if (pids[r] > 0)
            kill(pids[r], SIGKILL);
}

static void mapping(char *out, size_t n)
{
    snprintf(out, n, "(vector,(0,1,%d))", size);
}

/* ---- PMI-2 ---- */

/* Split a body into pairs in place, decoding ";;" (ESC-2).  Returns 0, or
 * an error text for a body we reject with an error response. */
static const char *parse_v2(char *body, size_t len, struct msg *m)
{
    m->npairs = 0;
    size_t i = 0;
    while (i < len) {
        size_t start = i;
        char *key = body + i;
        char *val = NULL;
        char *w = NULL;
        int terminated = 0;
        while (i < len) {
            char c = body[i];
            if (c == ';') {
                if (val && i + 1 < len && body[i + 1] == ';') {
                    *w++ = ';';
                    i += 2;
                    continue;
                }
                terminated = 1;
                break;
            }
            if (c == '=' && !val) {
                body[i] = '\0';
                val = body + i + 1;
                w = val;
                i++;
                continue;
            }
            if (val)
                *w++ = c;
            i++;
        }
        if (!terminated) {
            /* BODY-6: up to 6 bytes of junk without '=' after the last ';' */
            if (m->npairs > 0 && !val && i - start <= 6)
                break;
            return "unterminated last pair";
        }
        body[i] = '\0';
        i++;
        if (!val) {
            if (i - 1 == start && m->npairs > 0)
                continue; /* empty pair: ignore */
            if (m->npairs == 0)
                return "no command";
            continue; /* BODY-9: bare key ignored */
        }
        *w = '\0';
        if (!*key)
            return "empty key";
        if (m->npairs >= MAX_PAIRS)
            return "too many pairs";
        m->p[m->npairs].key = key;
        m->p[m->npairs].val = val;
        m->npairs++;
    }
    if (m->npairs == 0 || strcmp(m->p[0].key, "cmd") != 0 || !*m->p[0].val)
        return "no command";
    return NULL;
}

struct out { char b[MAX_FRAME + 8]; size_t n; };

static void out_init(struct out *o, const char *cmd, const char *thrid)
{
    o->n = 6;
    o->n += (size_t)snprintf(o->b + o->n, sizeof o->b - o->n, "cmd=%s-response;", cmd);
    if (thrid)
        o->n += (size_t)snprintf(o->b + o->n, sizeof o->b - o->n, "thrid=%s;", thrid);
}

/* add key=value; escaping ';' as ';;' (ESC-1, ESC-3) */
static void out_add(struct out *o, const char *key, const char *val)
{
    o->n += (size_t)snprintf(o->b + o->n, sizeof o->b - o->n, "%s=", key);
    for (const char *p = val; *p && o->n + 4 < sizeof o->b; p++) {
        o->b[o->n++] = *p;
        if (*p == ';')
            o->b[o->n++] = ';';
    }
    if (o->n + 1 < sizeof o->b)
        o->b[o->n++] = ';';
}

static int out_send(struct conn *c, struct out *o)
{
    char len[8];
    snprintf(len, sizeof len, "%6zu", o->n - 6);
    memcpy(o->b, len, 6);
    dbg("[%d] S>C %.*s\n", c->rank, (int)o->n, o->b);
    return write_all(c->fd, o->b, o->n);
}

static int v2_error(struct conn *c, const char *cmd, const char *thrid, int rc, const char *text)
{
    struct out o;
    char n[16];
    out_init(&o, cmd, thrid);
    snprintf(n, sizeof n, "%d", rc);
    out_add(&o, "rc", n);
    out_add(&o, "errmsg", text);
    return out_send(c, &o);
}

static int v2_ok(struct conn *c, const char *cmd, const char *thrid)
{
    struct out o;
    out_init(&o, cmd, thrid);
    out_add(&o, "rc", "0");
    return out_send(c, &o);
}

/* returns -1 to close the connection */
static int handle_v2(struct conn *c, char *body, size_t len)
{
    struct msg *m = malloc(sizeof *m);
    if (!m)
        return -1;
    dbg("[%d] C>S %.*s\n", c->rank, (int)len, body);
    const char *err = parse_v2(body, len, m);
    int ret = 0;
    if (err) {
        if (strcmp(err, "no command") == 0) {
            ret = -1; /* ERR-6 */
        } else {
            const char *cmd = "unknown";
            if (m->npairs > 0 && strcmp(m->p[0].key, "cmd") == 0)
                cmd = m->p[0].val;
            ret = v2_error(c, cmd, get(m, "thrid"), 3, err);
        }
        free(m);
        return ret;
    }
    const char *cmd = m->p[0].val;
    const char *thrid = get(m, "thrid");
    struct out o;
    char tmp[MAX_VAL + 1];

    if (strcmp(cmd, "fullinit") == 0) {
        long r;
        const char *pr = get(m, "pmirank");
        if (c->fullinit)
            ret = v2_error(c, cmd, thrid, 1, "fullinit already done");
        else if (pr && parse_int(pr, &r) != 0)
            ret = v2_error(c, cmd, thrid, 3, "malformed pmirank");
        else if (pr && r != c->rank)
            ret = v2_error(c, cmd, thrid, 1, "pmirank is not this connection's rank");
        else {
            c->fullinit = 1;
            out_init(&o, cmd, thrid);
            out_add(&o, "rc", "0");
            out_add(&o, "pmi-version", "2");
            out_add(&o, "pmi-subversion", "0");
            snprintf(tmp, sizeof tmp, "%d", c->rank);
            out_add(&o, "rank", tmp);
            snprintf(tmp, sizeof tmp, "%d", size);
            out_add(&o, "size", tmp);
            out_add(&o, "appnum", "0");
            out_add(&o, "debugged", "FALSE");
            out_add(&o, "pmiverbose", "FALSE");
            ret = out_send(c, &o);
        }
    } else if (strcmp(cmd, "finalize") == 0) {
        pthread_mutex_lock(&mu);
        c->finalized = 1;
        pthread_mutex_unlock(&mu);
        ret = v2_ok(c, cmd, thrid);
    } else if (strcmp(cmd, "abort") == 0) {
        long code = 1;
        const char *ec = get(m, "exitcode");
        if (ec && parse_int(ec, &code) != 0)
            code = 1;
        const char *text = get(m, "message");
        if (!text)
            text = get(m, "msg");
        fprintf(stderr, "newcomer2_server: rank %d aborted the job (exit %ld)%s%s\n", c->rank,
                code, text ? ": " : "", text ? text : "");
        kill_job((int)code);
        ret = -1;
    } else if (strcmp(cmd, "job-getid") == 0) {
        out_init(&o, cmd, thrid);
        out_add(&o, "rc", "0");
        out_add(&o, "jobid", jobid);
        ret = out_send(c, &o);
    } else if (strcmp(cmd, "kvs-put") == 0 || strcmp(cmd, "info-putnodeattr") == 0) {
        const char *k = get(m, "key"), *v = get(m, "value");
        int node = cmd[0] == 'i';
        if (!k)
            ret = v2_error(c, cmd, thrid, 3, "missing required key: key");
        else if (!v)
            ret = v2_error(c, cmd, thrid, 3, "missing required key: value");
        else {
            pthread_mutex_lock(&mu);
            int s = node ? store(nattr, &nnattr, MAX_NODEATTR, k, v)
                         : store(kvs, &nkvs, MAX_KVS, k, v);
            pthread_cond_broadcast(&cv);
            pthread_mutex_unlock(&mu);
            if (s == 1)
                ret = v2_error(c, cmd, thrid, 1, "key or value too long");
            else if (s == 2)
                ret = v2_error(c, cmd, thrid, 1, "key-value space full");
            else
                ret = v2_ok(c, cmd, thrid);
        }
    } else if (strcmp(cmd, "kvs-get") == 0 || strcmp(cmd, "info-getnodeattr") == 0
               || strcmp(cmd, "info-getjobattr") == 0) {
        const char *k = get(m, "key");
        const char *j = get(m, "jobid");
        int w = parse_bool(get(m, "wait"));
        if (!k)
            ret = v2_error(c, cmd, thrid, 3, "missing required key: key");
        else if (cmd[0] == 'k' && j && strcmp(j, jobid) != 0)
            ret = v2_error(c, cmd, thrid, 1, "unknown jobid");
        else if (cmd[5] == 'g' && cmd[8] == 'n' && w < 0)
            ret = v2_error(c, cmd, thrid, 3, "wait is not a boolean");
        else {
            int found = 0;
            pthread_mutex_lock(&mu);
            if (cmd[0] == 'k') {
                struct kv *e = find(kvs, nkvs, k);
                if (e) {
                    found = 1;
                    strcpy(tmp, e->val);
                }
            } else if (cmd[8] == 'n') {
                struct kv *e;
                while (!(e = find(nattr, nnattr, k)) && w == 1 && !lost && aborted < 0)
                    pthread_cond_wait(&cv, &mu);
                if (e) {
                    found = 1;
                    strcpy(tmp, e->val);
                }
            } else {
                if (strcmp(k, "PMI_process_mapping") == 0) {
                    found = 1;
                    mapping(tmp, sizeof tmp);
                } else if (strcmp(k, "universeSize") == 0) {
                    found = 1;
                    snprintf(tmp, sizeof tmp, "%d", size);
                }
            }
            pthread_mutex_unlock(&mu);
            out_init(&o, cmd, thrid);
            out_add(&o, "rc", "0");
            out_add(&o, "found", found ? "TRUE" : "FALSE");
            if (found)
                out_add(&o, "value", tmp);
            ret = out_send(c, &o);
        }
    } else if (strcmp(cmd, "kvs-fence") == 0) {
        if (collective(fences, c->rank) == 0)
            ret = v2_ok(c, cmd, thrid);
        else
            ret = v2_error(c, cmd, thrid, 1, "a process of the job was lost");
    } else {
        ret = v2_error(c, cmd, thrid, 10, "unknown command");
    }
    free(m);
    return ret;
}

/* ---- PMI-1 ---- */

static int v1_send(struct conn *c, const char *fmt, ...)
{
    char line[MAX_LINE];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= (int)sizeof line - 1)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    dbg("[%d] S>C %.*s", c->rank, n, line);
    return write_all(c->fd, line, (size_t)n);
}

/* strtok the line into pairs; bare words ignored (V1-7) */
static void parse_v1(char *line, struct msg *m)
{
    m->npairs = 0;
    char *save;
    for (char *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(t, '=');
        if (!eq || eq == t || m->npairs >= MAX_PAIRS)
            continue;
        *eq = '\0';
        m->p[m->npairs].key = t;
        m->p[m->npairs].val = eq + 1;
        m->npairs++;
    }
}

static int handle_v1(struct conn *c, char *line)
{
    size_t n = strlen(line);
    if (n && line[n - 1] == '\r')
        line[--n] = '\0'; /* V1-3 */
    dbg("[%d] C>S %s\n", c->rank, line);
    struct msg *m = malloc(sizeof *m);
    if (!m)
        return -1;
    parse_v1(line, m);
    int ret = 0;
    if (m->npairs == 0 || strcmp(m->p[0].key, "cmd") != 0 || !*m->p[0].val) {
        free(m);
        return -1;
    }
    const char *cmd = m->p[0].val;
    char kvsname[80];
    snprintf(kvsname, sizeof kvsname, "kvs_%s", jobid);

    if (strcmp(cmd, "init") == 0) {
        long v, s;
        if (parse_int(get(m, "pmi_version"), &v) || parse_int(get(m, "pmi_subversion"), &s))
            ret = v1_send(c, "cmd=response_to_init rc=3 pmi_version=2 pmi_subversion=0 "
                             "msg=bad_version");
        else if (v == 1)
            ret = v1_send(c, "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1");
        else if (v == 2)
            ret = v1_send(c, "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0");
        else
            ret = v1_send(c, "cmd=response_to_init rc=1 pmi_version=2 pmi_subversion=0 "
                             "msg=unsupported_version");
    } else if (strcmp(cmd, "get_maxes") == 0) {
        ret = v1_send(c, "cmd=maxes rc=0 kvsname_max=256 keylen_max=%d vallen_max=%d",
                      MAX_KEY, MAX_VAL);
    } else if (strcmp(cmd, "get_appnum") == 0) {
        ret = v1_send(c, "cmd=appnum rc=0 appnum=0");
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        ret = v1_send(c, "cmd=universe_size rc=0 size=%d", size);
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        ret = v1_send(c, "cmd=my_kvsname rc=0 kvsname=%s", kvsname);
    } else if (strcmp(cmd, "put") == 0) {
        const char *kn = get(m, "kvsname"), *k = get(m, "key"), *v = get(m, "value");
        if (!kn || !k || !v)
            ret = v1_send(c, "cmd=put_result rc=3 msg=missing_key");
        else if (strcmp(kn, kvsname) != 0)
            ret = v1_send(c, "cmd=put_result rc=1 msg=unknown_kvsname");
        else {
            pthread_mutex_lock(&mu);
            int s = store(kvs, &nkvs, MAX_KVS, k, v);
            pthread_mutex_unlock(&mu);
            if (s)
                ret = v1_send(c, "cmd=put_result rc=1 msg=%s", s == 1 ? "too_long" : "kvs_full");
            else
                ret = v1_send(c, "cmd=put_result rc=0");
        }
    } else if (strcmp(cmd, "get") == 0) {
        const char *kn = get(m, "kvsname"), *k = get(m, "key");
        char val[MAX_VAL + 1];
        if (!kn || !k)
            ret = v1_send(c, "cmd=get_result rc=3 msg=missing_key");
        else if (strcmp(kn, kvsname) != 0)
            ret = v1_send(c, "cmd=get_result rc=1 msg=unknown_kvsname");
        else {
            pthread_mutex_lock(&mu);
            struct kv *e = find(kvs, nkvs, k);
            if (e)
                strcpy(val, e->val);
            pthread_mutex_unlock(&mu);
            if (e)
                ret = v1_send(c, "cmd=get_result rc=0 value=%s", val);
            else
                ret = v1_send(c, "cmd=get_result rc=1 msg=key_not_found");
        }
    } else if (strcmp(cmd, "barrier_in") == 0) {
        if (collective(barriers, c->rank) == 0)
            ret = v1_send(c, "cmd=barrier_out rc=0");
        else
            ret = v1_send(c, "cmd=barrier_out rc=1 msg=process_lost");
    } else if (strcmp(cmd, "finalize") == 0) {
        pthread_mutex_lock(&mu);
        c->finalized = 1;
        pthread_mutex_unlock(&mu);
        ret = v1_send(c, "cmd=finalize_ack rc=0");
    } else if (strcmp(cmd, "abort") == 0) {
        long code = 1;
        if (get(m, "exitcode") && parse_int(get(m, "exitcode"), &code))
            code = 1;
        fprintf(stderr, "newcomer2_server: rank %d aborted the job (exit %ld)\n", c->rank, code);
        kill_job((int)code);
        ret = -1;
    } else {
        ret = v1_send(c, "cmd=%s_result rc=10 msg=unknown_command", cmd);
    }
    free(m);
    return ret;
}

/* mcmd=spawn block: no spawn here; one refusal after the last block */
static int handle_block(struct conn *c, char *block)
{
    dbg("[%d] C>S %s", c->rank, block);
    long tot = 0, sofar = 0;
    char *save;
    for (char *l = strtok_r(block, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (strncmp(l, "totspawns=", 10) == 0)
            parse_int(l + 10, &tot);
        else if (strncmp(l, "spawnssofar=", 12) == 0)
            parse_int(l + 12, &sofar);
    }
    if (sofar >= tot)
        return v1_send(c, "cmd=spawn_result rc=1 msg=spawn_not_supported");
    return 0;
}

/* ---- connection thread ---- */

/* Take one complete message from the buffer, if any.  Returns 1 handled,
 * 0 need more bytes, -1 close. */
static int one_message(struct conn *c)
{
    if (c->len == 0)
        return 0;
    char *b = c->buf;
    int v1 = c->len >= 4 ? strncmp(b, "cmd=", 4) == 0 : strncmp(b, "cmd=", c->len) == 0;
    int blk = c->len >= 5 ? strncmp(b, "mcmd=", 5) == 0 : strncmp(b, "mcmd=", c->len) == 0;
    if (c->len < 5 && (v1 || blk))
        return 0;
    if (blk) {
        char *end = memmem(b, c->len, "\nendcmd\n", 8);
        if (!end) {
            if (c->len >= MAX_LINE)
                return -1;
            return 0;
        }
        size_t n = (size_t)(end - b) + 8;
        char tmp[MAX_LINE + 1];
        memcpy(tmp, b, n);
        tmp[n] = '\0';
        memmove(b, b + n, c->len - n);
        c->len -= n;
        return handle_block(c, tmp) < 0 ? -1 : 1;
    }
    if (v1) {
        char *lf = memchr(b, '\n', c->len);
        if (!lf) {
            if (c->len >= MAX_LINE)
                return -1;
            return 0;
        }
        size_t n = (size_t)(lf - b) + 1;
        char tmp[MAX_LINE + 1];
        if (n > MAX_LINE)
            return -1;
        memcpy(tmp, b, n - 1);
        tmp[n - 1] = '\0';
        memmove(b, b + n, c->len - n);
        c->len -= n;
        return handle_v1(c, tmp) < 0 ? -1 : 1;
    }
    /* PMI-2 frame */
    if (c->len < 6)
        return 0;
    int digits = 0, state = 0;
    long len = 0;
    for (int i = 0; i < 6; i++) {
        char ch = b[i];
        if (ch == ' ') {
            if (state == 1)
                state = 2;
        } else if (ch >= '0' && ch <= '9') {
            if (state == 2)
                return -1; /* space between digits */
            state = 1;
            digits++;
            len = len * 10 + (ch - '0');
        } else {
            return -1; /* FRAME-5 */
        }
    }
    if (!digits || len < 6 || len > MAX_FRAME)
        return -1; /* FRAME-5/6/7 */
    if (c->len < 6 + (size_t)len)
        return 0;
    char *body = malloc((size_t)len + 1);
    if (!body)
        return -1;
    memcpy(body, b + 6, (size_t)len);
    body[len] = '\0';
    memmove(b, b + 6 + len, c->len - 6 - (size_t)len);
    c->len -= 6 + (size_t)len;
    int r = handle_v2(c, body, (size_t)len);
    free(body);
    return r < 0 ? -1 : 1;
}

static void *serve(void *arg)
{
    struct conn *c = arg;
    for (;;) {
        int r;
        while ((r = one_message(c)) == 1)
            ;
        if (r < 0)
            break;
        if (c->len >= sizeof c->buf)
            break;
        ssize_t n = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        c->len += (size_t)n;
    }
    close(c->fd);
    pthread_mutex_lock(&mu);
    if (!c->finalized) {
        lost = 1; /* CONN-6: the process ended abnormally */
        pthread_cond_broadcast(&cv);
    }
    pthread_mutex_unlock(&mu);
    dbg("[%d] connection closed%s\n", c->rank, c->finalized ? "" : " before finalize");
    return NULL;
}

static void usage(void)
{
    fprintf(stderr, "usage: newcomer2_server -n N -- PROGRAM ARGS...\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int i = 1;
    size = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            long v;
            if (parse_int(argv[++i], &v) || v < 1 || v > MAX_RANKS) {
                fprintf(stderr, "newcomer2_server: bad -n %s (1..%d)\n", argv[i], MAX_RANKS);
                return 2;
            }
            size = (int)v;
        } else {
            usage();
        }
    }
    if (i >= argc)
        usage();
    debug = getenv("NEWCOMER2_DEBUG") != NULL;
    aborted = -1;
    snprintf(jobid, sizeof jobid, "nc2-%d", (int)getpid());
    signal(SIGPIPE, SIG_IGN);
    {
        /* KVS-14: the mapping readable through kvs-get and get */
        char map[MAX_VAL + 1];
        mapping(map, sizeof map);
        store(kvs, &nkvs, MAX_KVS, "PMI_process_mapping", map);
    }

    struct conn *conns = calloc((size_t)size, sizeof *conns);
    if (!conns)
        return 1;
    for (int r = 0; r < size; r++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
            perror("socketpair");
            kill_job(1);
            return 1;
        }
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            kill_job(1);
            return 1;
        }
        if (pid == 0) {
            char s[32];
            fcntl(sv[1], F_SETFD, 0);
            snprintf(s, sizeof s, "%d", sv[1]);
            setenv("PMI_FD", s, 1);
            snprintf(s, sizeof s, "%d", r);
            setenv("PMI_RANK", s, 1);
            snprintf(s, sizeof s, "%d", size);
            setenv("PMI_SIZE", s, 1);
            setenv("PMI_JOBID", jobid, 1);
            execvp(argv[i], argv + i);
            fprintf(stderr, "newcomer2_server: cannot run %s: %s\n", argv[i], strerror(errno));
            _exit(127);
        }
        pids[r] = pid;
        close(sv[1]); /* CONN-7 */
        conns[r].fd = sv[0];
        conns[r].rank = r;
    }
    for (int r = 0; r < size; r++) {
        pthread_t t;
        if (pthread_create(&t, NULL, serve, &conns[r]) != 0) {
            perror("pthread_create");
            kill_job(1);
            break;
        }
        pthread_detach(t);
    }

    int status = 0;
    for (int left = size; left > 0;) {
        int st;
        pid_t p = waitpid(-1, &st, 0);
        if (p < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int r = 0; r < size; r++)
            if (pids[r] == p) {
                pids[r] = 0;
                left--;
                int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
                if (code && !status)
                    status = code;
            }
    }
    pthread_mutex_lock(&mu);
    if (aborted >= 0)
        status = aborted;
    pthread_mutex_unlock(&mu);
    return status;
}
