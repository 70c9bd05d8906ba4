/* pmi1.c: the PMI-1 API of newcomer2_client over n2_wire. */
#define _POSIX_C_SOURCE 200809L
#include "n2_wire.h"
#include "pmi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int p1_inited;
static int p1_rank, p1_size = 1, p1_spawned, p1_appnum;
static int p1_kvsname_max = 256, p1_keylen_max = 64, p1_vallen_max = 1024;
static char p1_kvsname[256];
static char p1_line[N2_LINE_MAX];

/* Read the next line; it is the answer to what we sent and must be named resp. */
static int expect(const char *resp, struct n2_msg *m)
{
    if (n2_read_line(p1_line, m) != 0)
        return PMI_FAIL;
    if (!n2_is(m, resp))
        return PMI_FAIL;
    return PMI_SUCCESS;
}

static int env_int(const char *name, int dflt)
{
    const char *s = getenv(name);
    return s ? atoi(s) : dflt;
}

/* PMI_PORT mode: initack and its four lines (V1CMD-1, V1CMD-3). */
static int initack(void)
{
    struct n2_msg m;
    const char *id = getenv("PMI_ID");
    if (!id || n2_send_line("cmd=initack pmiid=%s\n", id) != 0)
        return -1;
    if (expect("initack", &m) != PMI_SUCCESS || n2_rc(&m) != 0)
        return -1;
    for (int i = 0; i < 3; i++) {
        if (expect("set", &m) != PMI_SUCCESS)
            return -1;
        const char *v;
        if ((v = n2_get(&m, "size")))
            p1_size = atoi(v);
        else if ((v = n2_get(&m, "rank")))
            p1_rank = atoi(v);
    }
    return 0;
}

int PMI_Init(int *spawned)
{
    struct n2_msg m;
    int from_port;
    if (p1_inited)
        return PMI_ERR_INIT;
    if (n2_connect(&from_port) != 0)
        return PMI_ERR_INIT;
    if (env_int("PMI_TOTALVIEW", 0) && expect("tv_ready", &m) != PMI_SUCCESS)
        goto fail;
    if (from_port) {
        if (initack() != 0)
            goto fail;
    } else {
        p1_rank = env_int("PMI_RANK", 0);
        p1_size = env_int("PMI_SIZE", 1);
    }
    p1_spawned = env_int("PMI_SPAWNED", 0);

    if (n2_send_line("cmd=init pmi_version=1 pmi_subversion=1\n") != 0 ||
        expect("response_to_init", &m) != PMI_SUCCESS || n2_rc(&m) != 0)
        goto fail;
    const char *v = n2_get(&m, "pmi_version");
    if (!v || atoi(v) != 1)
        goto fail;

    if (n2_send_line("cmd=get_maxes\n") != 0 || expect("maxes", &m) != PMI_SUCCESS ||
        n2_rc(&m) != 0)
        goto fail;
    if ((v = n2_get(&m, "kvsname_max")))
        p1_kvsname_max = atoi(v);
    if ((v = n2_get(&m, "keylen_max")))
        p1_keylen_max = atoi(v);
    if ((v = n2_get(&m, "vallen_max")))
        p1_vallen_max = atoi(v);

    if (n2_send_line("cmd=get_my_kvsname\n") != 0 || expect("my_kvsname", &m) != PMI_SUCCESS ||
        n2_rc(&m) != 0 || !(v = n2_get(&m, "kvsname")))
        goto fail;
    snprintf(p1_kvsname, sizeof p1_kvsname, "%s", v);

    if (n2_send_line("cmd=get_appnum\n") != 0 || expect("appnum", &m) != PMI_SUCCESS ||
        n2_rc(&m) != 0)
        goto fail;
    if ((v = n2_get(&m, "appnum")))
        p1_appnum = atoi(v);

    if (spawned)
        *spawned = p1_spawned;
    p1_inited = 1;
    return PMI_SUCCESS;
fail:
    n2_close();
    return PMI_ERR_INIT;
}

int PMI_Initialized(PMI_BOOL *initialized)
{
    if (!initialized)
        return PMI_ERR_INVALID_ARG;
    *initialized = p1_inited ? PMI_TRUE : PMI_FALSE;
    return PMI_SUCCESS;
}

int PMI_Finalize(void)
{
    struct n2_msg m;
    if (!p1_inited)
        return PMI_ERR_INIT;
    int rc = PMI_SUCCESS;
    if (n2_send_line("cmd=finalize\n") != 0 || expect("finalize_ack", &m) != PMI_SUCCESS)
        rc = PMI_FAIL;
    n2_close();
    p1_inited = 0;
    return rc;
}

int PMI_Get_size(int *size)
{
    if (!p1_inited)
        return PMI_ERR_INIT;
    *size = p1_size;
    return PMI_SUCCESS;
}

int PMI_Get_rank(int *rank)
{
    if (!p1_inited)
        return PMI_ERR_INIT;
    *rank = p1_rank;
    return PMI_SUCCESS;
}

int PMI_Get_appnum(int *appnum)
{
    if (!p1_inited)
        return PMI_ERR_INIT;
    *appnum = p1_appnum;
    return PMI_SUCCESS;
}

int PMI_Get_universe_size(int *size)
{
    struct n2_msg m;
    if (!p1_inited)
        return PMI_ERR_INIT;
    if (n2_send_line("cmd=get_universe_size\n") != 0 ||
        expect("universe_size", &m) != PMI_SUCCESS || n2_rc(&m) != 0)
        return PMI_FAIL;
    const char *v = n2_get(&m, "size");
    if (!v)
        return PMI_FAIL;
    *size = atoi(v);
    return PMI_SUCCESS;
}

int PMI_KVS_Get_my_name(char kvsname[], int length)
{
    if (!p1_inited)
        return PMI_ERR_INIT;
    if (!kvsname || length <= (int)strlen(p1_kvsname))
        return PMI_ERR_INVALID_LENGTH;
    strcpy(kvsname, p1_kvsname);
    return PMI_SUCCESS;
}

int PMI_KVS_Get_name_length_max(int *length)
{
    *length = p1_kvsname_max;
    return PMI_SUCCESS;
}

int PMI_KVS_Get_key_length_max(int *length)
{
    *length = p1_keylen_max;
    return PMI_SUCCESS;
}

int PMI_KVS_Get_value_length_max(int *length)
{
    *length = p1_vallen_max;
    return PMI_SUCCESS;
}

/* A PMI-1 value cannot carry spaces or control bytes (V1-9). */
static int word_ok(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s <= ' ' || *s == 0x7f)
            return 0;
    return 1;
}

int PMI_KVS_Put(const char kvsname[], const char key[], const char value[])
{
    struct n2_msg m;
    if (!p1_inited)
        return PMI_ERR_INIT;
    if (!kvsname || !key || !value)
        return PMI_ERR_INVALID_ARG;
    /* maxes count the NUL (LIMIT-12) */
    if ((int)strlen(key) >= p1_keylen_max || !*key || !word_ok(key))
        return PMI_ERR_INVALID_KEY;
    if ((int)strlen(value) >= p1_vallen_max)
        return PMI_ERR_INVALID_VAL_LENGTH;
    if (!word_ok(value))
        return PMI_ERR_INVALID_VAL;
    if (n2_send_line("cmd=put kvsname=%s key=%s value=%s\n", kvsname, key, value) != 0 ||
        expect("put_result", &m) != PMI_SUCCESS)
        return PMI_FAIL;
    return n2_rc(&m) ? PMI_FAIL : PMI_SUCCESS;
}

int PMI_KVS_Commit(const char kvsname[])
{
    (void)kvsname; /* puts are sent at once; nothing to commit */
    return p1_inited ? PMI_SUCCESS : PMI_ERR_INIT;
}

int PMI_KVS_Get(const char kvsname[], const char key[], char value[], int length)
{
    struct n2_msg m;
    if (!p1_inited)
        return PMI_ERR_INIT;
    if (!kvsname || !key || !value)
        return PMI_ERR_INVALID_ARG;
    if (n2_send_line("cmd=get kvsname=%s key=%s\n", kvsname, key) != 0 ||
        expect("get_result", &m) != PMI_SUCCESS)
        return PMI_FAIL;
    const char *v = n2_get(&m, "value");
    if (n2_rc(&m) != 0 || !v)
        return PMI_FAIL;
    snprintf(value, (size_t)length, "%s", v);
    return PMI_SUCCESS;
}

int PMI_Barrier(void)
{
    struct n2_msg m;
    if (!p1_inited)
        return PMI_ERR_INIT;
    if (n2_send_line("cmd=barrier_in\n") != 0 || expect("barrier_out", &m) != PMI_SUCCESS)
        return PMI_FAIL;
    return n2_rc(&m) ? PMI_FAIL : PMI_SUCCESS;
}

int PMI_Abort(int exit_code, const char error_msg[])
{
    if (error_msg && *error_msg)
        fprintf(stderr, "PMI_Abort(%d): %s\n", exit_code, error_msg);
    n2_send_line("cmd=abort exitcode=%d\n", exit_code);
    exit(exit_code);
}

/* Clique from PMI_process_mapping: blocks (node,count,ppn) applied in turn,
 * from the first again when they run out (JOBATTR-11). */
static int clique_of(int *ranks, int cap)
{
    char map[N2_LINE_MAX];
    int nodes[64][3], nb = 0;
    if (PMI_KVS_Get(p1_kvsname, "PMI_process_mapping", map, sizeof map) != PMI_SUCCESS ||
        strncmp(map, "(vector", 7) != 0)
        goto alone;
    const char *p = map + 7;
    while (*p == ',' && nb < 64) {
        int n;
        if (sscanf(p, ",(%d,%d,%d)%n", &nodes[nb][0], &nodes[nb][1], &nodes[nb][2], &n) != 3 ||
            nodes[nb][1] < 1 || nodes[nb][2] < 1)
            goto alone;
        nb++;
        p += n;
    }
    if (nb == 0 || *p != ')')
        goto alone;
    int *node_of = malloc(sizeof(int) * (size_t)p1_size);
    if (!node_of)
        goto alone;
    int r = 0;
    while (r < p1_size)
        for (int b = 0; b < nb && r < p1_size; b++)
            for (int nd = 0; nd < nodes[b][1] && r < p1_size; nd++)
                for (int k = 0; k < nodes[b][2] && r < p1_size; k++)
                    node_of[r++] = nodes[b][0] + nd;
    int cnt = 0;
    for (r = 0; r < p1_size; r++)
        if (node_of[r] == node_of[p1_rank]) {
            if (ranks && cnt < cap)
                ranks[cnt] = r;
            cnt++;
        }
    free(node_of);
    return cnt;
alone:
    if (ranks && cap > 0)
        ranks[0] = p1_rank;
    return 1;
}

int PMI_Get_clique_size(int *size)
{
    if (!p1_inited)
        return PMI_ERR_INIT;
    *size = clique_of(NULL, 0);
    return PMI_SUCCESS;
}

int PMI_Get_clique_ranks(int ranks[], int length)
{
    if (!p1_inited)
        return PMI_ERR_INIT;
    if (clique_of(ranks, length) > length)
        return PMI_ERR_INVALID_LENGTH;
    return PMI_SUCCESS;
}

/* Name service: rc when present, else info=ok (V1CMD-22). */
static int ns_ok(const struct n2_msg *m)
{
    if (n2_get(m, "rc"))
        return n2_rc(m) == 0;
    const char *info = n2_get(m, "info");
    return info && strcmp(info, "ok") == 0;
}

int PMI_Publish_name(const char service_name[], const char port[])
{
    struct n2_msg m;
    if (!p1_inited)
        return PMI_ERR_INIT;
    if (!service_name || !port || !word_ok(service_name) || !word_ok(port))
        return PMI_ERR_INVALID_ARG;
    if (n2_send_line("cmd=publish_name service=%s port=%s\n", service_name, port) != 0 ||
        expect("publish_result", &m) != PMI_SUCCESS)
        return PMI_FAIL;
    return ns_ok(&m) ? PMI_SUCCESS : PMI_FAIL;
}

int PMI_Unpublish_name(const char service_name[])
{
    struct n2_msg m;
    if (!p1_inited)
        return PMI_ERR_INIT;
    if (!service_name || !word_ok(service_name))
        return PMI_ERR_INVALID_ARG;
    if (n2_send_line("cmd=unpublish_name service=%s\n", service_name) != 0 ||
        expect("unpublish_result", &m) != PMI_SUCCESS)
        return PMI_FAIL;
    return ns_ok(&m) ? PMI_SUCCESS : PMI_FAIL;
}

int PMI_Lookup_name(const char service_name[], char port[])
{
    struct n2_msg m;
    if (!p1_inited)
        return PMI_ERR_INIT;
    if (!service_name || !port || !word_ok(service_name))
        return PMI_ERR_INVALID_ARG;
    if (n2_send_line("cmd=lookup_name service=%s\n", service_name) != 0 ||
        expect("lookup_result", &m) != PMI_SUCCESS)
        return PMI_FAIL;
    const char *p = n2_get(&m, "port");
    if (!ns_ok(&m) || !p)
        return PMI_FAIL;
    strcpy(port, p); /* the API gives no length; MPICH's callers pass 1024 bytes */
    return PMI_SUCCESS;
}
