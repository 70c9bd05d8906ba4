/* pmi2.c: the PMI-2 API of newcomer2_client over n2_wire.
 *
 * Not thread safe: one request at a time, no thrid, threaded=FALSE. */
#define _POSIX_C_SOURCE 200809L
#include "n2_wire.h"
#include "pmi2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int p2_inited;
static int p2_rank, p2_size, p2_appnum;
static char p2_rbuf[N2_FRAME_MAX + 1];

static void copy_out(char *dst, int cap, const char *src)
{
    if (!dst || cap <= 0)
        return;
    snprintf(dst, (size_t)cap, "%s", src);
}

/* Send b and read its answer into m: the next frame, whose command must be resp. */
static int call(struct n2_body *b, const char *resp, struct n2_msg *m)
{
    if (n2_body_send(b) != 0)
        return PMI2_ERR_OTHER;
    if (n2_read_frame(p2_rbuf, m) != 0)
        return PMI2_ERR_OTHER;
    if (!n2_is(m, resp))
        return PMI2_ERR_OTHER;
    return PMI2_SUCCESS;
}

int PMI2_Init(int *spawned, int *size, int *rank, int *appnum)
{
    char line[N2_LINE_MAX];
    struct n2_msg m;
    int from_port;
    if (p2_inited)
        return PMI2_ERR_INIT;
    if (n2_connect(&from_port) != 0)
        return PMI2_ERR_INIT;

    if (n2_send_line("cmd=init pmi_version=2 pmi_subversion=0\n") != 0 ||
        n2_read_line(line, &m) != 0)
        goto fail;
    const char *v = n2_get(&m, "pmi_version");
    if (!n2_is(&m, "response_to_init") || n2_rc(&m) != 0 || !v || atoi(v) != 2)
        goto fail;

    struct n2_body b;
    n2_body_start(&b, "fullinit");
    const char *id = getenv(from_port ? "PMI_ID" : "PMI_RANK");
    if (id)
        n2_body_add(&b, "pmirank", id);
    const char *jobid = getenv("PMI_JOBID");
    if (jobid)
        n2_body_add(&b, "pmijobid", jobid);
    n2_body_add(&b, "threaded", "FALSE");
    if (call(&b, "fullinit-response", &m) != PMI2_SUCCESS || n2_rc(&m) != 0)
        goto fail;
    const char *r = n2_get(&m, "rank"), *s = n2_get(&m, "size"), *a = n2_get(&m, "appnum");
    if (!r || !s)
        goto fail;
    p2_rank = atoi(r);
    p2_size = atoi(s);
    p2_appnum = a ? atoi(a) : 0;
    if (spawned)
        *spawned = n2_get(&m, "spawner-jobid") != NULL;
    if (size)
        *size = p2_size;
    if (rank)
        *rank = p2_rank;
    if (appnum)
        *appnum = p2_appnum;
    p2_inited = 1;
    return PMI2_SUCCESS;
fail:
    n2_close();
    return PMI2_ERR_INIT;
}

int PMI2_Initialized(void)
{
    return p2_inited;
}

int PMI2_Finalize(void)
{
    struct n2_body b;
    struct n2_msg m;
    if (!p2_inited)
        return PMI2_ERR_INIT;
    n2_body_start(&b, "finalize");
    int rc = call(&b, "finalize-response", &m);
    if (rc == PMI2_SUCCESS && n2_rc(&m) != 0)
        rc = PMI2_FAIL;
    n2_close();
    p2_inited = 0;
    return rc;
}

int PMI2_Abort(int flag, const char msg[])
{
    struct n2_body b;
    n2_body_start(&b, "abort");
    n2_body_add(&b, "isworld", flag ? "TRUE" : "FALSE");
    if (msg && *msg)
        n2_body_add(&b, "msg", msg);
    n2_body_send(&b); /* no answer comes (ABORT-8) */
    exit(1);
}

int PMI2_Job_GetId(char jobid[], int jobid_size)
{
    struct n2_body b;
    struct n2_msg m;
    if (!p2_inited)
        return PMI2_ERR_INIT;
    n2_body_start(&b, "job-getid");
    int rc = call(&b, "job-getid-response", &m);
    if (rc)
        return rc;
    const char *id = n2_get(&m, "jobid");
    if (n2_rc(&m) != 0 || !id)
        return PMI2_FAIL;
    copy_out(jobid, jobid_size, id);
    return PMI2_SUCCESS;
}

int PMI2_Job_GetRank(int *rank)
{
    if (!p2_inited)
        return PMI2_ERR_INIT;
    *rank = p2_rank;
    return PMI2_SUCCESS;
}

int PMI2_Info_GetSize(int *size)
{
    if (!p2_inited)
        return PMI2_ERR_INIT;
    *size = p2_size;
    return PMI2_SUCCESS;
}

int PMI2_KVS_Put(const char key[], const char value[])
{
    struct n2_body b;
    struct n2_msg m;
    if (!p2_inited)
        return PMI2_ERR_INIT;
    if (!key || !value)
        return PMI2_ERR_INVALID_ARG;
    if (strlen(key) >= PMI2_MAX_KEYLEN)
        return PMI2_ERR_INVALID_KEY_LENGTH;
    if (strlen(value) >= PMI2_MAX_VALLEN)
        return PMI2_ERR_INVALID_VAL_LENGTH;
    n2_body_start(&b, "kvs-put");
    n2_body_add(&b, "key", key);
    n2_body_add(&b, "value", value);
    int rc = call(&b, "kvs-put-response", &m);
    if (rc)
        return rc;
    return n2_rc(&m) ? PMI2_FAIL : PMI2_SUCCESS;
}

int PMI2_KVS_Fence(void)
{
    struct n2_body b;
    struct n2_msg m;
    if (!p2_inited)
        return PMI2_ERR_INIT;
    n2_body_start(&b, "kvs-fence");
    int rc = call(&b, "kvs-fence-response", &m);
    if (rc)
        return rc;
    return n2_rc(&m) ? PMI2_FAIL : PMI2_SUCCESS;
}

/* found (or the draft's flag): 1, 0, or -1 when neither says TRUE/FALSE */
static int found_of(const struct n2_msg *m)
{
    const char *f = n2_get(m, "found");
    if (!f)
        f = n2_get(m, "flag");
    return n2_bool(f);
}

int PMI2_KVS_Get(const char *jobid, int src_pmi_id, const char key[], char value[], int maxvalue,
                 int *vallen)
{
    struct n2_body b;
    struct n2_msg m;
    if (!p2_inited)
        return PMI2_ERR_INIT;
    if (!key)
        return PMI2_ERR_INVALID_ARG;
    n2_body_start(&b, "kvs-get");
    if (jobid && *jobid)
        n2_body_add(&b, "jobid", jobid);
    if (src_pmi_id >= 0)
        n2_body_addi(&b, "srcid", src_pmi_id);
    n2_body_add(&b, "key", key);
    int rc = call(&b, "kvs-get-response", &m);
    if (rc)
        return rc;
    const char *v = n2_get(&m, "value");
    if (n2_rc(&m) != 0 || found_of(&m) != 1 || !v)
        return PMI2_FAIL; /* not available (KVS-5) */
    copy_out(value, maxvalue, v);
    if (vallen)
        *vallen = (int)strlen(v);
    return PMI2_SUCCESS;
}

/* Shared by node and job attributes: rc≠0 and found=FALSE both mean "not there". */
static int get_attr(const char *cmd, const char *resp, const char *name, int wait, char *value,
                    int valuelen, int *found)
{
    struct n2_body b;
    struct n2_msg m;
    if (!p2_inited)
        return PMI2_ERR_INIT;
    if (!name)
        return PMI2_ERR_INVALID_ARG;
    n2_body_start(&b, cmd);
    n2_body_add(&b, "key", name);
    if (wait)
        n2_body_add(&b, "wait", "TRUE");
    int rc = call(&b, resp, &m);
    if (rc)
        return rc;
    const char *v = n2_get(&m, "value");
    *found = 0;
    if (n2_rc(&m) != 0 || found_of(&m) != 1 || !v)
        return PMI2_SUCCESS;
    *found = 1;
    copy_out(value, valuelen, v);
    return PMI2_SUCCESS;
}

int PMI2_Info_GetNodeAttr(const char name[], char value[], int valuelen, int *found, int waitfor)
{
    return get_attr("info-getnodeattr", "info-getnodeattr-response", name, waitfor, value,
                    valuelen, found);
}

int PMI2_Info_GetJobAttr(const char name[], char value[], int valuelen, int *found)
{
    return get_attr("info-getjobattr", "info-getjobattr-response", name, 0, value, valuelen,
                    found);
}

int PMI2_Info_PutNodeAttr(const char name[], const char value[])
{
    struct n2_body b;
    struct n2_msg m;
    if (!p2_inited)
        return PMI2_ERR_INIT;
    if (!name || !value)
        return PMI2_ERR_INVALID_ARG;
    n2_body_start(&b, "info-putnodeattr");
    n2_body_add(&b, "key", name);
    n2_body_add(&b, "value", value);
    int rc = call(&b, "info-putnodeattr-response", &m);
    if (rc)
        return rc;
    return n2_rc(&m) ? PMI2_FAIL : PMI2_SUCCESS;
}

int PMI2_Nameserv_publish(const char service_name[], const PMI2_keyval_t *info_ptr,
                          const char port[])
{
    struct n2_body b;
    struct n2_msg m;
    (void)info_ptr;
    if (!p2_inited)
        return PMI2_ERR_INIT;
    if (!service_name || !port)
        return PMI2_ERR_INVALID_ARG;
    n2_body_start(&b, "name-publish");
    n2_body_add(&b, "name", service_name);
    n2_body_add(&b, "port", port);
    int rc = call(&b, "name-publish-response", &m);
    if (rc)
        return rc;
    return n2_rc(&m) ? PMI2_FAIL : PMI2_SUCCESS;
}

int PMI2_Nameserv_lookup(const char service_name[], const PMI2_keyval_t *info_ptr, char port[],
                         int portLen)
{
    struct n2_body b;
    struct n2_msg m;
    (void)info_ptr;
    if (!p2_inited)
        return PMI2_ERR_INIT;
    if (!service_name)
        return PMI2_ERR_INVALID_ARG;
    n2_body_start(&b, "name-lookup");
    n2_body_add(&b, "name", service_name);
    int rc = call(&b, "name-lookup-response", &m);
    if (rc)
        return rc;
    const char *p = n2_get(&m, "port");
    if (!p)
        p = n2_get(&m, "value"); /* NAME-4 */
    if (n2_rc(&m) != 0 || !p)
        return PMI2_FAIL;
    copy_out(port, portLen, p);
    return PMI2_SUCCESS;
}

int PMI2_Nameserv_unpublish(const char service_name[], const PMI2_keyval_t *info_ptr)
{
    struct n2_body b;
    struct n2_msg m;
    (void)info_ptr;
    if (!p2_inited)
        return PMI2_ERR_INIT;
    if (!service_name)
        return PMI2_ERR_INVALID_ARG;
    n2_body_start(&b, "name-unpublish");
    n2_body_add(&b, "name", service_name);
    int rc = call(&b, "name-unpublish-response", &m);
    if (rc)
        return rc;
    return n2_rc(&m) ? PMI2_FAIL : PMI2_SUCCESS;
}
