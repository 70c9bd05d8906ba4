/* mypmi2.c - a small PMI-2 client library (first version) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include "pmi2.h"

#define MAXPAIRS 32
#define BUFSIZE 1024

struct kv {
    char *key;
    char *val;
};

static int pmi_fd = -1;
static int pmi_rank = 0;
static int pmi_size = 1;
static int pmi_appnum = 0;
static int initialized = 0;
static char pmi_jobid[256];

static char recvbuf[BUFSIZE];
static struct kv table[MAXPAIRS];
static int npairs = 0;

/* ---- low level io ---- */

static int write_all(int fd, const char *buf, int len)
{
    while (len > 0) {
        int n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += n;
        len -= n;
    }
    return 0;
}

static int read_all(int fd, char *buf, int len)
{
    while (len > 0) {
        int n = read(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (n == 0)
            return -1;
        buf += n;
        len -= n;
    }
    return 0;
}

/* send a PMI-2 command: body is "cmd=...;k=v;..." */
static int send_cmd(const char *body)
{
    char hdr[7];
    int len = strlen(body);
    snprintf(hdr, sizeof(hdr), "%6d", len);
    if (write_all(pmi_fd, hdr, 6) < 0)
        return PMI2_FAIL;
    if (write_all(pmi_fd, body, len) < 0)
        return PMI2_FAIL;
    return PMI2_SUCCESS;
}

/* read a response frame and parse it into table[] */
static int recv_resp(void)
{
    char lenbuf[7];
    int len;
    char *tok;

    if (read_all(pmi_fd, lenbuf, 6) < 0)
        return PMI2_FAIL;
    lenbuf[6] = 0;
    len = atoi(lenbuf);
    if (len <= 0 || len >= BUFSIZE)
        return PMI2_FAIL;
    if (read_all(pmi_fd, recvbuf, len) < 0)
        return PMI2_FAIL;
    recvbuf[len] = 0;

    npairs = 0;
    tok = strtok(recvbuf, ";");
    while (tok != NULL) {
        char *eq = strchr(tok, '=');
        if (eq) {
            *eq = 0;
            table[npairs].key = tok;
            table[npairs].val = eq + 1;
            npairs++;
        }
        tok = strtok(NULL, ";");
    }
    return PMI2_SUCCESS;
}

static char *find_val(const char *key)
{
    int i;
    for (i = 0; i < npairs; i++) {
        if (strcmp(table[i].key, key) == 0)
            return table[i].val;
    }
    return NULL;
}

/* receive a response and check cmd name and rc */
static int get_response(const char *expected)
{
    char *cmd, *rc;
    if (recv_resp() != PMI2_SUCCESS)
        return PMI2_FAIL;
    cmd = find_val("cmd");
    if (cmd == NULL || strcmp(cmd, expected) != 0)
        return PMI2_FAIL;
    rc = find_val("rc");
    if (rc == NULL || atoi(rc) != 0)
        return PMI2_FAIL;
    return PMI2_SUCCESS;
}

static int is_true(const char *s)
{
    return s != NULL && strcasecmp(s, "TRUE") == 0;
}

/* ---- init / finalize ---- */

int PMI2_Init(int *spawned, int *size, int *rank, int *appnum)
{
    char *p;
    char buf[BUFSIZE];
    char line[256];
    int n, ver = 0, subver = 0, rc = -1;

    p = getenv("PMI_FD");
    if (p == NULL) {
        /* singleton */
        pmi_fd = -1;
        pmi_rank = 0;
        pmi_size = 1;
        pmi_appnum = 0;
        if (spawned) *spawned = 0;
        if (size) *size = 1;
        if (rank) *rank = 0;
        if (appnum) *appnum = 0;
        initialized = 1;
        return PMI2_SUCCESS;
    }
    pmi_fd = atoi(p);
    p = getenv("PMI_RANK");
    if (p) pmi_rank = atoi(p);
    p = getenv("PMI_SIZE");
    if (p) pmi_size = atoi(p);

    /* PMI-1 style init line */
    strcpy(line, "cmd=init pmi_version=2 pmi_subversion=0\n");
    if (write_all(pmi_fd, line, strlen(line)) < 0)
        return PMI2_ERR_INIT;

    /* read response line byte by byte up to \n */
    n = 0;
    while (n < (int)sizeof(line) - 1) {
        char c;
        int r = read(pmi_fd, &c, 1);
        if (r <= 0)
            return PMI2_ERR_INIT;
        if (c == '\n')
            break;
        line[n++] = c;
    }
    line[n] = 0;
    if (strncmp(line, "cmd=response_to_init", 20) != 0)
        return PMI2_ERR_INIT;
    p = strstr(line, "rc=");
    if (p) rc = atoi(p + 3);
    p = strstr(line, "pmi_version=");
    if (p) ver = atoi(p + 12);
    p = strstr(line, "pmi_subversion=");
    if (p) subver = atoi(p + 15);
    (void)subver;
    if (rc != 0 || ver != 2)
        return PMI2_ERR_INIT;

    /* fullinit */
    p = getenv("PMI_JOBID");
    if (p)
        snprintf(buf, sizeof(buf), "cmd=fullinit;pmijobid=%s;pmirank=%d;threaded=FALSE;", p, pmi_rank);
    else
        snprintf(buf, sizeof(buf), "cmd=fullinit;pmirank=%d;threaded=FALSE;", pmi_rank);
    if (send_cmd(buf) != PMI2_SUCCESS)
        return PMI2_ERR_INIT;
    if (get_response("fullinit-response") != PMI2_SUCCESS)
        return PMI2_ERR_INIT;

    p = find_val("rank");
    if (p == NULL)
        return PMI2_ERR_INIT;
    pmi_rank = atoi(p);
    p = find_val("size");
    if (p == NULL)
        return PMI2_ERR_INIT;
    pmi_size = atoi(p);
    p = find_val("appnum");
    if (p) pmi_appnum = atoi(p);

    if (spawned)
        *spawned = find_val("spawner-jobid") != NULL;
    if (size) *size = pmi_size;
    if (rank) *rank = pmi_rank;
    if (appnum) *appnum = pmi_appnum;

    initialized = 1;
    return PMI2_SUCCESS;
}

int PMI2_Initialized(void)
{
    return initialized;
}

int PMI2_Finalize(void)
{
    int rc;
    if (pmi_fd < 0) {
        initialized = 0;
        return PMI2_SUCCESS;
    }
    if (send_cmd("cmd=finalize;") != PMI2_SUCCESS)
        return PMI2_FAIL;
    rc = get_response("finalize-response");
    close(pmi_fd);
    pmi_fd = -1;
    initialized = 0;
    return rc;
}

int PMI2_Abort(int flag, const char msg[])
{
    char buf[BUFSIZE];
    if (msg == NULL)
        msg = "";
    fprintf(stderr, "PMI2_Abort: %s\n", msg);
    if (pmi_fd >= 0) {
        snprintf(buf, sizeof(buf), "cmd=abort;isworld=%s;exitcode=1;msg=%s;message=%s;",
                 flag ? "TRUE" : "FALSE", msg, msg);
        send_cmd(buf);
    }
    exit(1);
    return PMI2_FAIL;
}

/* ---- job ---- */

int PMI2_Job_GetId(char jobid[], int jobid_size)
{
    char *p;
    if (pmi_fd < 0) {
        snprintf(jobid, jobid_size, "singleton");
        return PMI2_SUCCESS;
    }
    if (send_cmd("cmd=job-getid;") != PMI2_SUCCESS)
        return PMI2_FAIL;
    if (get_response("job-getid-response") != PMI2_SUCCESS)
        return PMI2_FAIL;
    p = find_val("jobid");
    if (p == NULL)
        return PMI2_FAIL;
    strncpy(jobid, p, jobid_size);
    jobid[jobid_size - 1] = 0;
    strcpy(pmi_jobid, p);
    return PMI2_SUCCESS;
}

int PMI2_Job_Spawn(int count, const char *cmds[], int argcs[], const char **argvs[],
                   const int maxprocs[], const int info_keyval_sizes[],
                   const PMI2_Info *info_keyval_vectors[], int preput_keyval_size,
                   const PMI2_Info *preput_keyval_vector[], char jobId[], int jobIdSize,
                   int errors[])
{
    char buf[4096];
    int len, i, j, total = 0;
    char *p;

    if (pmi_fd < 0)
        return PMI2_FAIL;

    len = snprintf(buf, sizeof(buf), "cmd=spawn;ncmds=%d;preputcount=%d;", count,
                   preput_keyval_size);
    for (i = 0; i < preput_keyval_size; i++)
        len += snprintf(buf + len, sizeof(buf) - len, "ppkey%d=%s;ppval%d=%s;", i,
                        preput_keyval_vector[i]->key, i, preput_keyval_vector[i]->val);
    for (i = 0; i < count; i++) {
        len += snprintf(buf + len, sizeof(buf) - len, "subcmd=%s;maxprocs=%d;argc=%d;",
                        cmds[i], maxprocs[i], argcs[i]);
        for (j = 0; j < argcs[i]; j++)
            len += snprintf(buf + len, sizeof(buf) - len, "argv%d=%s;", j, argvs[i][j]);
        len += snprintf(buf + len, sizeof(buf) - len, "infokeycount=%d;",
                        info_keyval_sizes ? info_keyval_sizes[i] : 0);
        if (info_keyval_sizes) {
            for (j = 0; j < info_keyval_sizes[i]; j++)
                len += snprintf(buf + len, sizeof(buf) - len, "infokey%d=%s;infoval%d=%s;", j,
                                info_keyval_vectors[i][j].key, j, info_keyval_vectors[i][j].val);
        }
        total += maxprocs[i];
    }
    if (send_cmd(buf) != PMI2_SUCCESS)
        return PMI2_FAIL;
    if (get_response("spawn-response") != PMI2_SUCCESS)
        return PMI2_FAIL;

    p = find_val("jobid");
    if (p && jobId) {
        strncpy(jobId, p, jobIdSize);
        jobId[jobIdSize - 1] = 0;
    }
    if (errors) {
        for (i = 0; i < total; i++)
            errors[i] = 0;
        p = find_val("errcodes");
        if (p) {
            char *tok = strtok(p, ",");
            i = 0;
            while (tok) {
                errors[i++] = atoi(tok);
                tok = strtok(NULL, ",");
            }
        }
    }
    return PMI2_SUCCESS;
}

/* ---- kvs ---- */

int PMI2_KVS_Put(const char key[], const char value[])
{
    char buf[BUFSIZE + 128];
    if (pmi_fd < 0)
        return PMI2_FAIL;
    snprintf(buf, sizeof(buf), "cmd=kvs-put;key=%s;value=%s;", key, value);
    if (send_cmd(buf) != PMI2_SUCCESS)
        return PMI2_FAIL;
    return get_response("kvs-put-response");
}

int PMI2_KVS_Fence(void)
{
    if (pmi_fd < 0)
        return PMI2_SUCCESS;
    if (send_cmd("cmd=kvs-fence;") != PMI2_SUCCESS)
        return PMI2_FAIL;
    return get_response("kvs-fence-response");
}

int PMI2_KVS_Get(const char *jobid, int src_pmi_id, const char key[], char value[],
                 int maxvalue, int *vallen)
{
    char buf[BUFSIZE];
    char *p;
    int len;

    if (pmi_fd < 0)
        return PMI2_FAIL;
    if (jobid && jobid[0])
        len = snprintf(buf, sizeof(buf), "cmd=kvs-get;jobid=%s;", jobid);
    else
        len = snprintf(buf, sizeof(buf), "cmd=kvs-get;");
    if (src_pmi_id >= 0)
        len += snprintf(buf + len, sizeof(buf) - len, "srcid=%d;", src_pmi_id);
    snprintf(buf + len, sizeof(buf) - len, "key=%s;", key);
    if (send_cmd(buf) != PMI2_SUCCESS)
        return PMI2_FAIL;
    if (get_response("kvs-get-response") != PMI2_SUCCESS)
        return PMI2_FAIL;
    p = find_val("found");
    if (p == NULL)
        p = find_val("flag");
    if (!is_true(p))
        return PMI2_FAIL;
    p = find_val("value");
    if (p == NULL)
        return PMI2_FAIL;
    strncpy(value, p, maxvalue);
    value[maxvalue - 1] = 0;
    if (vallen)
        *vallen = strlen(p);
    return PMI2_SUCCESS;
}

/* ---- info ---- */

int PMI2_Info_GetNodeAttr(const char name[], char value[], int valuelen, int *found,
                          int waitfor)
{
    char buf[BUFSIZE];
    char *p;

    *found = 0;
    if (pmi_fd < 0)
        return PMI2_SUCCESS;
    snprintf(buf, sizeof(buf), "cmd=info-getnodeattr;key=%s;wait=%s;", name,
             waitfor ? "TRUE" : "FALSE");
    if (send_cmd(buf) != PMI2_SUCCESS)
        return PMI2_FAIL;
    if (recv_resp() != PMI2_SUCCESS)
        return PMI2_FAIL;
    p = find_val("cmd");
    if (p == NULL || strcmp(p, "info-getnodeattr-response") != 0)
        return PMI2_FAIL;
    p = find_val("rc");
    if (p == NULL)
        return PMI2_FAIL;
    if (atoi(p) != 0)
        return PMI2_SUCCESS; /* not available */
    if (is_true(find_val("found"))) {
        p = find_val("value");
        if (p == NULL)
            return PMI2_FAIL;
        strncpy(value, p, valuelen);
        value[valuelen - 1] = 0;
        *found = 1;
    }
    return PMI2_SUCCESS;
}

int PMI2_Info_PutNodeAttr(const char name[], const char value[])
{
    char buf[BUFSIZE + 128];
    if (pmi_fd < 0)
        return PMI2_SUCCESS;
    snprintf(buf, sizeof(buf), "cmd=info-putnodeattr;key=%s;value=%s;", name, value);
    if (send_cmd(buf) != PMI2_SUCCESS)
        return PMI2_FAIL;
    return get_response("info-putnodeattr-response");
}

int PMI2_Info_GetJobAttr(const char name[], char value[], int valuelen, int *found)
{
    char buf[BUFSIZE];
    char *p;

    *found = 0;
    if (pmi_fd < 0)
        return PMI2_SUCCESS;
    snprintf(buf, sizeof(buf), "cmd=info-getjobattr;key=%s;", name);
    if (send_cmd(buf) != PMI2_SUCCESS)
        return PMI2_FAIL;
    if (get_response("info-getjobattr-response") != PMI2_SUCCESS)
        return PMI2_FAIL;
    if (is_true(find_val("found"))) {
        p = find_val("value");
        if (p == NULL)
            return PMI2_FAIL;
        strncpy(value, p, valuelen);
        value[valuelen - 1] = 0;
        *found = 1;
    }
    return PMI2_SUCCESS;
}
