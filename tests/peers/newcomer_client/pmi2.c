/* newcomer_client: PMI-2 (pmi2.h) over the framed protocol of SPEC.md §5 and §9.2-9.12. */
#include "pmi2.h"
#include "nc_wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fd = -1;
static int inited;
static int my_rank, my_size;
static char body[NC_FRAME_MAX];
static char req[NC_FRAME_MAX];

/* send req, read one frame into body, check the command name and rc */
static int call2(const char *expect)
{
    char rc[32];
    if (fd < 0)
        return PMI2_ERR_INIT;
    if (nc_write_frame(fd, req) < 0)
        return PMI2_FAIL;
    if (nc_read_frame(fd, body, sizeof body) < 0)
        return PMI2_FAIL;
    if (strncmp(body, "cmd=", 4) != 0 || strncmp(body + 4, expect, strlen(expect)) != 0)
        return PMI2_FAIL;
    if (!nc_v2_get(body, "rc", rc, sizeof rc))
        return PMI2_FAIL; /* RC-1 */
    if (atoi(rc) != 0)
        return PMI2_ERR_OTHER;
    return PMI2_SUCCESS;
}

int PMI2_Init(int *spawned, int *size, int *rank, int *appnum)
{
    char v[256];
    int is_port;

    if (inited)
        return PMI2_ERR_INIT;
    fd = nc_connect(&is_port);
    if (fd < 0)
        return PMI2_ERR_INIT;

    const char *init = "cmd=init pmi_version=2 pmi_subversion=0\n";
    if (nc_write_all(fd, init, strlen(init)) < 0)
        goto fail;
    char line[NC_LINE_MAX + 1];
    if (nc_read_line(fd, line, sizeof line) < 0)
        goto fail;
    if (strncmp(line, "cmd=response_to_init", 20) != 0)
        goto fail;
    if (!nc_v1_get(line, "rc", v, sizeof v) || atoi(v) != 0)
        goto fail;
    if (!nc_v1_get(line, "pmi_version", v, sizeof v) || atoi(v) != 2)
        goto fail;

    const char *r = is_port ? getenv("PMI_ID") : getenv("PMI_RANK");
    const char *jobid = getenv("PMI_JOBID");
    int n = snprintf(req, sizeof req, "cmd=fullinit;pmirank=%s;threaded=FALSE;", r ? r : "0");
    if (jobid)
        snprintf(req + n, sizeof req - n, "pmijobid=%s;", jobid);
    if (call2("fullinit-response") != 0)
        goto fail;
    if (!nc_v2_get(body, "rank", v, sizeof v))
        goto fail;
    my_rank = atoi(v);
    if (!nc_v2_get(body, "size", v, sizeof v))
        goto fail;
    my_size = atoi(v);
    if (rank)
        *rank = my_rank;
    if (size)
        *size = my_size;
    if (appnum)
        *appnum = nc_v2_get(body, "appnum", v, sizeof v) ? atoi(v) : 0;
    if (spawned)
        *spawned = nc_v2_get(body, "spawner-jobid", v, sizeof v) ? 1 : 0;
    inited = 1;
    return PMI2_SUCCESS;
fail:
    close(fd);
    fd = -1;
    return PMI2_ERR_INIT;
}

int PMI2_Initialized(void)
{
    return inited;
}

int PMI2_Finalize(void)
{
    if (!inited)
        return PMI2_ERR_INIT;
    strcpy(req, "cmd=finalize;");
    int rc = call2("finalize-response");
    close(fd);
    fd = -1;
    inited = 0;
    return rc;
}

int PMI2_Abort(int flag, const char msg[])
{
    if (msg)
        fprintf(stderr, "PMI2_Abort: %s\n", msg);
    if (fd >= 0) {
        if (msg && *msg)
            snprintf(req, sizeof req, "cmd=abort;isworld=%s;exitcode=1;msg=%s;message=%s;",
                     flag ? "TRUE" : "FALSE", msg, msg);
        else
            snprintf(req, sizeof req, "cmd=abort;isworld=%s;exitcode=1;",
                     flag ? "TRUE" : "FALSE");
        nc_write_frame(fd, req); /* ABORT-8: no answer */
    }
    exit(1);
}

int PMI2_Job_GetId(char jobid[], int jobid_size)
{
    if (!inited)
        return PMI2_ERR_INIT;
    strcpy(req, "cmd=job-getid;");
    int rc = call2("job-getid-response");
    if (rc != 0)
        return rc;
    if (!nc_v2_get(body, "jobid", jobid, jobid_size))
        return PMI2_FAIL;
    return PMI2_SUCCESS;
}

int PMI2_Job_GetRank(int *rank)
{
    if (!inited)
        return PMI2_ERR_INIT;
    *rank = my_rank;
    return PMI2_SUCCESS;
}

int PMI2_Info_GetSize(int *size)
{
    if (!inited)
        return PMI2_ERR_INIT;
    *size = my_size;
    return PMI2_SUCCESS;
}

int PMI2_KVS_Put(const char key[], const char value[])
{
    if (!inited)
        return PMI2_ERR_INIT;
    if (!key || !value)
        return PMI2_ERR_INVALID_ARG;
    if (strlen(key) >= PMI2_MAX_KEYLEN) /* LIMIT-2 */
        return PMI2_ERR_INVALID_KEY_LENGTH;
    if (strlen(value) >= PMI2_MAX_VALLEN)
        return PMI2_ERR_INVALID_VAL_LENGTH;
    snprintf(req, sizeof req, "cmd=kvs-put;key=%s;value=%s;", key, value);
    return call2("kvs-put-response");
}

int PMI2_KVS_Fence(void)
{
    if (!inited)
        return PMI2_ERR_INIT;
    strcpy(req, "cmd=kvs-fence;");
    return call2("kvs-fence-response");
}

int PMI2_KVS_Get(const char *jobid, int src_pmi_id, const char key[], char value[], int maxvalue,
                 int *vallen)
{
    char f[16];
    if (!inited)
        return PMI2_ERR_INIT;
    if (!key || !value)
        return PMI2_ERR_INVALID_ARG;
    int n = snprintf(req, sizeof req, "cmd=kvs-get;");
    if (jobid && *jobid)
        n += snprintf(req + n, sizeof req - n, "jobid=%s;", jobid);
    if (src_pmi_id >= 0)
        n += snprintf(req + n, sizeof req - n, "srcid=%d;", src_pmi_id);
    snprintf(req + n, sizeof req - n, "key=%s;", key);
    int rc = call2("kvs-get-response");
    if (rc != 0)
        return rc; /* KVS-5: rc!=0 is "not available" */
    if (!nc_v2_get(body, "found", f, sizeof f) || strcmp(f, "TRUE") != 0)
        return PMI2_FAIL;
    if (!nc_v2_get(body, "value", value, maxvalue))
        return PMI2_FAIL;
    if (vallen)
        *vallen = strlen(value);
    return PMI2_SUCCESS;
}

int PMI2_Info_GetNodeAttr(const char name[], char value[], int valuelen, int *found, int waitfor)
{
    char f[16];
    if (!inited)
        return PMI2_ERR_INIT;
    *found = 0;
    snprintf(req, sizeof req, "cmd=info-getnodeattr;key=%s;wait=%s;", name,
             waitfor ? "TRUE" : "FALSE");
    int rc = call2("info-getnodeattr-response");
    if (rc == PMI2_ERR_OTHER)
        return PMI2_SUCCESS; /* NODEATTR-10: rc!=0 without found = not available */
    if (rc != 0)
        return rc;
    if (nc_v2_get(body, "found", f, sizeof f) && strcmp(f, "TRUE") == 0) {
        if (!nc_v2_get(body, "value", value, valuelen))
            return PMI2_FAIL;
        *found = 1;
    }
    return PMI2_SUCCESS;
}

int PMI2_Info_PutNodeAttr(const char name[], const char value[])
{
    if (!inited)
        return PMI2_ERR_INIT;
    snprintf(req, sizeof req, "cmd=info-putnodeattr;key=%s;value=%s;", name, value);
    return call2("info-putnodeattr-response");
}

int PMI2_Info_GetJobAttr(const char name[], char value[], int valuelen, int *found)
{
    char f[16];
    if (!inited)
        return PMI2_ERR_INIT;
    *found = 0;
    snprintf(req, sizeof req, "cmd=info-getjobattr;key=%s;", name);
    int rc = call2("info-getjobattr-response");
    if (rc == PMI2_ERR_OTHER)
        return PMI2_SUCCESS;
    if (rc != 0)
        return rc;
    if (nc_v2_get(body, "found", f, sizeof f) && strcmp(f, "TRUE") == 0) {
        if (!nc_v2_get(body, "value", value, valuelen))
            return PMI2_FAIL;
        *found = 1;
    }
    return PMI2_SUCCESS;
}

static int add_info(int n, const PMI2_keyval_t *info)
{
    /* the API passes one info pair (or NULL); send it with a count */
    if (info && info->key)
        n += snprintf(req + n, sizeof req - n, "infokeycount=1;infokey0=%s;infoval0=%s;",
                      info->key, info->val ? info->val : "");
    else
        n += snprintf(req + n, sizeof req - n, "infokeycount=0;");
    return n;
}

int PMI2_Nameserv_publish(const char service_name[], const PMI2_keyval_t *info_ptr,
                          const char port[])
{
    if (!inited)
        return PMI2_ERR_INIT;
    int n = snprintf(req, sizeof req, "cmd=name-publish;name=%s;port=%s;", service_name, port);
    add_info(n, info_ptr);
    return call2("name-publish-response");
}

int PMI2_Nameserv_lookup(const char service_name[], const PMI2_keyval_t *info_ptr, char port[],
                         int portLen)
{
    if (!inited)
        return PMI2_ERR_INIT;
    int n = snprintf(req, sizeof req, "cmd=name-lookup;name=%s;", service_name);
    add_info(n, info_ptr);
    int rc = call2("name-lookup-response");
    if (rc != 0)
        return rc;
    /* NAME-4: port or value */
    if (!nc_v2_get(body, "port", port, portLen) && !nc_v2_get(body, "value", port, portLen))
        return PMI2_FAIL;
    return PMI2_SUCCESS;
}

int PMI2_Nameserv_unpublish(const char service_name[], const PMI2_keyval_t *info_ptr)
{
    if (!inited)
        return PMI2_ERR_INIT;
    int n = snprintf(req, sizeof req, "cmd=name-unpublish;name=%s;", service_name);
    add_info(n, info_ptr);
    return call2("name-unpublish-response");
}
