/* newcomer_client: PMI-1 (pmi.h) over the line protocol of SPEC.md §4 and §9.1. */
#include "pmi.h"
#include "nc_wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fd = -1;
static int inited;
static int rank, size = 1, spawned, appnum = -1;
static int kvsname_max = 256, keylen_max = 64, vallen_max = 1024;
static char kvsname[256];
static char line[NC_LINE_MAX + 1];

/* send one request line, read one answer line, check its command name */
static int call(const char *req, const char *expect)
{
    if (fd < 0)
        return PMI_ERR_INIT;
    if (nc_write_all(fd, req, strlen(req)) < 0)
        return PMI_FAIL;
    if (nc_read_line(fd, line, sizeof line) < 0)
        return PMI_FAIL;
    if (strncmp(line, expect, strlen(expect)) != 0)
        return PMI_FAIL;
    char rc[32];
    if (nc_v1_get(line, "rc", rc, sizeof rc) && atoi(rc) != 0) /* RC-3: no rc means 0 */
        return PMI_FAIL;
    return PMI_SUCCESS;
}

int PMI_Init(int *spawned_out)
{
    char buf[128], v[64];
    int is_port;

    if (inited)
        return PMI_SUCCESS;
    fd = nc_connect(&is_port);
    if (fd < 0)
        return PMI_ERR_INIT;

    const char *e;
    if ((e = getenv("PMI_RANK")))
        rank = atoi(e);
    if ((e = getenv("PMI_SIZE")))
        size = atoi(e);
    if ((e = getenv("PMI_SPAWNED")))
        spawned = atoi(e);

    if (is_port) { /* V1CMD-1..3 */
        const char *id = getenv("PMI_ID");
        snprintf(buf, sizeof buf, "cmd=initack pmiid=%s\n", id ? id : "0");
        if (nc_write_all(fd, buf, strlen(buf)) < 0)
            goto fail;
        for (int i = 0; i < 4; i++) {
            if (nc_read_line(fd, line, sizeof line) < 0)
                goto fail;
            if (nc_v1_get(line, "size", v, sizeof v))
                size = atoi(v);
            if (nc_v1_get(line, "rank", v, sizeof v))
                rank = atoi(v);
        }
    }

    if (call("cmd=init pmi_version=1 pmi_subversion=1\n", "cmd=response_to_init") != 0)
        goto fail;
    if (!nc_v1_get(line, "pmi_version", v, sizeof v) || atoi(v) != 1)
        goto fail;

    if (call("cmd=get_maxes\n", "cmd=maxes") != 0)
        goto fail;
    if (nc_v1_get(line, "kvsname_max", v, sizeof v))
        kvsname_max = atoi(v);
    if (nc_v1_get(line, "keylen_max", v, sizeof v))
        keylen_max = atoi(v);
    if (nc_v1_get(line, "vallen_max", v, sizeof v))
        vallen_max = atoi(v);

    if (call("cmd=get_my_kvsname\n", "cmd=my_kvsname") != 0)
        goto fail;
    if (!nc_v1_get(line, "kvsname", kvsname, sizeof kvsname))
        goto fail;

    inited = 1;
    if (spawned_out)
        *spawned_out = spawned;
    return PMI_SUCCESS;
fail:
    close(fd);
    fd = -1;
    return PMI_ERR_INIT;
}

int PMI_Initialized(PMI_BOOL *initialized)
{
    if (!initialized)
        return PMI_ERR_INVALID_ARG;
    *initialized = inited ? PMI_TRUE : PMI_FALSE;
    return PMI_SUCCESS;
}

int PMI_Finalize(void)
{
    if (!inited)
        return PMI_ERR_INIT;
    int rc = call("cmd=finalize\n", "cmd=finalize_ack");
    close(fd);
    fd = -1;
    inited = 0;
    return rc;
}

int PMI_Get_size(int *s)
{
    if (!inited)
        return PMI_ERR_INIT;
    *s = size;
    return PMI_SUCCESS;
}

int PMI_Get_rank(int *r)
{
    if (!inited)
        return PMI_ERR_INIT;
    *r = rank;
    return PMI_SUCCESS;
}

int PMI_Get_universe_size(int *s)
{
    char v[32];
    if (call("cmd=get_universe_size\n", "cmd=universe_size") != 0)
        return PMI_FAIL;
    if (!nc_v1_get(line, "size", v, sizeof v))
        return PMI_FAIL;
    *s = atoi(v);
    return PMI_SUCCESS;
}

int PMI_Get_appnum(int *a)
{
    char v[32];
    if (call("cmd=get_appnum\n", "cmd=appnum") != 0)
        return PMI_FAIL;
    if (!nc_v1_get(line, "appnum", v, sizeof v))
        return PMI_FAIL;
    *a = appnum = atoi(v);
    return PMI_SUCCESS;
}

int PMI_KVS_Get_my_name(char name[], int length)
{
    if (!inited)
        return PMI_ERR_INIT;
    if ((int)strlen(kvsname) >= length)
        return PMI_ERR_INVALID_LENGTH;
    strcpy(name, kvsname);
    return PMI_SUCCESS;
}

int PMI_KVS_Get_name_length_max(int *l)
{
    if (!inited)
        return PMI_ERR_INIT;
    *l = kvsname_max;
    return PMI_SUCCESS;
}

int PMI_KVS_Get_key_length_max(int *l)
{
    if (!inited)
        return PMI_ERR_INIT;
    *l = keylen_max;
    return PMI_SUCCESS;
}

int PMI_KVS_Get_value_length_max(int *l)
{
    if (!inited)
        return PMI_ERR_INIT;
    *l = vallen_max;
    return PMI_SUCCESS;
}

int PMI_KVS_Put(const char kvs[], const char key[], const char value[])
{
    char buf[NC_LINE_MAX + 64];
    if (!inited)
        return PMI_ERR_INIT;
    if (!kvs || !key || !value)
        return PMI_ERR_INVALID_ARG;
    if ((int)strlen(key) >= keylen_max) /* LIMIT-12 */
        return PMI_ERR_INVALID_KEY_LENGTH;
    if ((int)strlen(value) >= vallen_max)
        return PMI_ERR_INVALID_VAL_LENGTH;
    int n = snprintf(buf, sizeof buf, "cmd=put kvsname=%s key=%s value=%s\n", kvs, key, value);
    if (n >= (int)sizeof buf)
        return PMI_ERR_INVALID_LENGTH;
    return call(buf, "cmd=put_result");
}

int PMI_KVS_Commit(const char kvs[])
{
    (void)kvs;
    return inited ? PMI_SUCCESS : PMI_ERR_INIT; /* puts are sent at once */
}

int PMI_KVS_Get(const char kvs[], const char key[], char value[], int length)
{
    char buf[NC_LINE_MAX + 64];
    if (!inited)
        return PMI_ERR_INIT;
    if (!kvs || !key || !value)
        return PMI_ERR_INVALID_ARG;
    snprintf(buf, sizeof buf, "cmd=get kvsname=%s key=%s\n", kvs, key);
    int rc = call(buf, "cmd=get_result");
    if (rc != 0)
        return rc;
    if (!nc_v1_get(line, "value", value, length))
        return PMI_FAIL;
    return PMI_SUCCESS;
}

int PMI_Barrier(void)
{
    if (!inited)
        return PMI_ERR_INIT;
    return call("cmd=barrier_in\n", "cmd=barrier_out");
}

int PMI_Abort(int exit_code, const char error_msg[])
{
    char buf[64];
    if (error_msg)
        fprintf(stderr, "PMI_Abort(%d): %s\n", exit_code, error_msg);
    if (fd >= 0) {
        snprintf(buf, sizeof buf, "cmd=abort exitcode=%d\n", exit_code);
        nc_write_all(fd, buf, strlen(buf)); /* no answer (ABORT-8) */
    }
    exit(exit_code);
}

/* V1CMD-22: rc when present, else info=ok */
static int ns_call(const char *req, const char *expect)
{
    char rc[32], info[32];
    if (fd < 0)
        return PMI_ERR_INIT;
    if (nc_write_all(fd, req, strlen(req)) < 0)
        return PMI_FAIL;
    if (nc_read_line(fd, line, sizeof line) < 0)
        return PMI_FAIL;
    if (strncmp(line, expect, strlen(expect)) != 0)
        return PMI_FAIL;
    if (nc_v1_get(line, "rc", rc, sizeof rc))
        return atoi(rc) == 0 ? PMI_SUCCESS : PMI_FAIL;
    if (nc_v1_get(line, "info", info, sizeof info))
        return strcmp(info, "ok") == 0 ? PMI_SUCCESS : PMI_FAIL;
    return PMI_FAIL;
}

int PMI_Publish_name(const char service_name[], const char port[])
{
    char buf[NC_LINE_MAX];
    if (!inited)
        return PMI_ERR_INIT;
    snprintf(buf, sizeof buf, "cmd=publish_name service=%s port=%s\n", service_name, port);
    return ns_call(buf, "cmd=publish_result");
}

int PMI_Unpublish_name(const char service_name[])
{
    char buf[NC_LINE_MAX];
    if (!inited)
        return PMI_ERR_INIT;
    snprintf(buf, sizeof buf, "cmd=unpublish_name service=%s\n", service_name);
    return ns_call(buf, "cmd=unpublish_result");
}

int PMI_Lookup_name(const char service_name[], char port[])
{
    char buf[NC_LINE_MAX];
    if (!inited)
        return PMI_ERR_INIT;
    snprintf(buf, sizeof buf, "cmd=lookup_name service=%s\n", service_name);
    int rc = ns_call(buf, "cmd=lookup_result");
    if (rc != 0)
        return rc;
    if (!nc_v1_get(line, "port", port, 1024)) /* the API gives no size: MPICH uses 1024 */
        return PMI_FAIL;
    return PMI_SUCCESS;
}
