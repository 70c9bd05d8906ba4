/* The PMI-1 API (pmi.h) over the PMI-1 line protocol, or locally for a
 * singleton.  Return codes are in libpmiclient(3). */
#include "internal.h"
#include "pmi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PORT_NAME_MAX = 256 }; /* MPI_MAX_PORT_NAME in MPICH */

static bool ready(void)
{
    return atomic_load(&pmic_S.state) == PMIC_V1;
}

static int from_status(pmic_status st)
{
    switch (st) {
    case PMIC_OK: return PMI_SUCCESS;
    case PMIC_E_NOMEM: return PMI_ERR_NOMEM;
    case PMIC_E_ENCODE: return PMI_ERR_INVALID_VAL;
    case PMIC_E_COMM:
    case PMIC_E_PROTO:
    case PMIC_E_TIMEOUT: break; /* no PMI-1 call is timed */
    }
    return PMI_FAIL;
}

static int call(pmc_enc *e, const char *expect, pmic_resp **r)
{
    pmic_status st = pmic_call(&pmic_S.eng, e, 0, expect, NULL, r);
    if (st != PMIC_OK) {
        pmic_resp_free(*r);
        *r = NULL;
    }
    return from_status(st);
}

/* V1CMD-22: rc when present, else info=ok. */
static bool v1_success(const pmic_resp *r)
{
    if (pmic_resp_get(r, "rc", NULL))
        return pmic_resp_ok(r);
    const char *info = pmic_resp_get(r, "info", NULL);
    return !info || strcmp(info, "ok") == 0;
}

static int copy_out(const char *v, size_t len, char *buf, int n)
{
    if (n <= 0)
        return 1;
    size_t c = len < (size_t)n ? len : (size_t)n - 1;
    memcpy(buf, v, c);
    buf[c] = 0;
    return c < len;
}

/* ---------------------------------------------------------------- init */

PMIC_EXPORT int PMI_Init(int *spawned)
{
    pmic_status st = pmic_session_start(1);
    if (st != PMIC_OK)
        return st == PMIC_E_NOMEM ? PMI_ERR_NOMEM : PMI_ERR_INIT;
    if (spawned)
        *spawned = pmic_S.spawned;
    return PMI_SUCCESS;
}

PMIC_EXPORT int PMI_Initialized(PMI_BOOL *initialized)
{
    if (!initialized)
        return PMI_ERR_INVALID_ARG;
    *initialized = ready() ? PMI_TRUE : PMI_FALSE;
    return PMI_SUCCESS;
}

PMIC_EXPORT int PMI_Finalize(void)
{
    if (!ready())
        return PMI_ERR_INIT;
    return from_status(pmic_session_finalize());
}

PMIC_EXPORT int PMI_Abort(int exit_code, const char error_msg[])
{
    pmic_session_abort(true, exit_code, error_msg);
    return PMI_FAIL; /* not reached */
}

static int local_int(int v, int *out)
{
    if (!ready())
        return PMI_ERR_INIT;
    if (!out)
        return PMI_ERR_INVALID_ARG;
    *out = v;
    return PMI_SUCCESS;
}

PMIC_EXPORT int PMI_Get_size(int *size)
{
    return local_int(pmic_S.size, size);
}

PMIC_EXPORT int PMI_Get_rank(int *rank)
{
    return local_int(pmic_S.rank, rank);
}

PMIC_EXPORT int PMI_Get_appnum(int *appnum)
{
    return local_int(pmic_S.appnum, appnum);
}

PMIC_EXPORT int PMI_Get_universe_size(int *size)
{
    if (!ready())
        return PMI_ERR_INIT;
    if (!size)
        return PMI_ERR_INVALID_ARG;
    if (pmic_S.singleton) {
        *size = 1;
        return PMI_SUCCESS;
    }
    pmc_enc e;
    pmic_resp *r = NULL;
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_universe_size");
    int rc = call(&e, "universe_size", &r);
    if (rc != PMI_SUCCESS)
        return rc;
    long long v;
    if (!pmic_resp_ok(r) || pmic_resp_int(r, "size", &v) != 1)
        rc = PMI_FAIL;
    else
        *size = (int)v; /* V1CMD-8: -1 when unknown */
    pmic_resp_free(r);
    return rc;
}

/* ---------------------------------------------------------------- kvs */

PMIC_EXPORT int PMI_KVS_Get_my_name(char kvsname[], int length)
{
    if (!ready())
        return PMI_ERR_INIT;
    if (!kvsname || length <= 0)
        return PMI_ERR_INVALID_ARG;
    return copy_out(pmic_S.jobid, strlen(pmic_S.jobid), kvsname, length) ? PMI_ERR_INVALID_LENGTH
                                                                        : PMI_SUCCESS;
}

PMIC_EXPORT int PMI_KVS_Get_name_length_max(int *length)
{
    return local_int(pmic_S.kvsname_max, length);
}

PMIC_EXPORT int PMI_KVS_Get_key_length_max(int *length)
{
    return local_int(pmic_S.keylen_max, length);
}

PMIC_EXPORT int PMI_KVS_Get_value_length_max(int *length)
{
    return local_int(pmic_S.vallen_max, length);
}

PMIC_EXPORT int PMI_KVS_Put(const char kvsname[], const char key[], const char value[])
{
    if (!ready())
        return PMI_ERR_INIT;
    if (!kvsname || !*kvsname)
        return PMI_ERR_INVALID_ARG;
    if (!key || !*key)
        return PMI_ERR_INVALID_KEY;
    if (!value)
        return PMI_ERR_INVALID_VAL;
    /* V1-9: a PMI-1 line cannot carry these; refuse them the same way
     * whether or not a server is there. */
    if (strpbrk(key, " \n\r=") || strpbrk(value, " \n\r"))
        return strpbrk(key, " \n\r=") ? PMI_ERR_INVALID_KEY : PMI_ERR_INVALID_VAL;
    /* LIMIT-4: the maxima are buffer sizes that count the NUL. */
    if ((int)strlen(key) >= pmic_S.keylen_max)
        return PMI_ERR_INVALID_KEY_LENGTH;
    if ((int)strlen(value) >= pmic_S.vallen_max)
        return PMI_ERR_INVALID_VAL_LENGTH;
    if (pmic_S.singleton) {
        pthread_mutex_lock(&pmic_S.local_mu);
        int p = pmic_map_put(pmic_S.kvs, key, value, true);
        pthread_mutex_unlock(&pmic_S.local_mu);
        return p < 0 ? PMI_ERR_NOMEM : PMI_SUCCESS;
    }
    pmc_enc e;
    pmic_resp *r = NULL;
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    pmc_enc_str(&e, "kvsname", kvsname); /* V1CMD-10 */
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", value);
    int rc = call(&e, "put_result", &r);
    if (rc == PMI_SUCCESS && !pmic_resp_ok(r))
        rc = PMI_FAIL;
    pmic_resp_free(r);
    return rc;
}

PMIC_EXPORT int PMI_KVS_Commit(const char kvsname[])
{
    (void)kvsname; /* puts are sent at once; the barrier publishes them */
    return ready() ? PMI_SUCCESS : PMI_ERR_INIT;
}

static int kvs_get(const char *kvsname, const char *key, char *value, int length)
{
    if (pmic_S.singleton) {
        pthread_mutex_lock(&pmic_S.local_mu);
        const char *v = pmic_map_get(pmic_S.kvs, key);
        int rc = !v ? PMI_ERR_INVALID_KEY
                    : copy_out(v, strlen(v), value, length) ? PMI_ERR_INVALID_LENGTH
                                                             : PMI_SUCCESS;
        pthread_mutex_unlock(&pmic_S.local_mu);
        return rc;
    }
    pmc_enc e;
    pmic_resp *r = NULL;
    pmc_enc_begin(&e, PMC_WIRE_V1, "get");
    pmc_enc_str(&e, "kvsname", kvsname);
    pmc_enc_str(&e, "key", key);
    int rc = call(&e, "get_result", &r);
    if (rc != PMI_SUCCESS)
        return rc;
    size_t n = 0;
    const char *v = pmic_resp_get(r, "value", &n);
    /* V1CMD-13: rc!=0 (Hydra 4.0 says -1 and value=unknown) or found=FALSE
     * means not found. */
    bool f;
    if (!pmic_resp_ok(r) || !v || (pmic_resp_bool(r, "found", &f) == 1 && !f))
        rc = PMI_ERR_INVALID_KEY;
    else if (copy_out(v, n, value, length))
        rc = PMI_ERR_INVALID_LENGTH;
    pmic_resp_free(r);
    return rc;
}

PMIC_EXPORT int PMI_KVS_Get(const char kvsname[], const char key[], char value[], int length)
{
    if (!ready())
        return PMI_ERR_INIT;
    if (!kvsname || !*kvsname || !value || length <= 0)
        return PMI_ERR_INVALID_ARG;
    if (!key || !*key)
        return PMI_ERR_INVALID_KEY;
    value[0] = 0;
    return kvs_get(kvsname, key, value, length);
}

PMIC_EXPORT int PMI_Barrier(void)
{
    if (!ready())
        return PMI_ERR_INIT;
    if (pmic_S.singleton)
        return PMI_SUCCESS;
    pmc_enc e;
    pmic_resp *r = NULL;
    pmc_enc_begin(&e, PMC_WIRE_V1, "barrier_in");
    int rc = call(&e, "barrier_out", &r);
    if (rc == PMI_SUCCESS && !pmic_resp_ok(r))
        rc = PMI_FAIL;
    pmic_resp_free(r);
    return rc;
}

/* ---------------------------------------------------------------- clique */

/* How many ranks are on this node, from PMI_process_mapping, and the first
 * max of them in ranks; just this process when the server has no mapping.
 * Nothing here is sized by the job's size: a server may announce any. */
static int clique(int *ranks, int max)
{
    int n = -1;
    if (!pmic_S.singleton) {
        /* the server's vallen_max, but no more than a value the decoder
         * takes (PMIC_MAX_VAL): a huge announced limit is no reason to
         * allocate it */
        int len = pmic_S.vallen_max < PMIC_MAX_VAL ? pmic_S.vallen_max : PMIC_MAX_VAL;
        char *map = malloc((size_t)len + 1);
        if (map && kvs_get(pmic_S.jobid, "PMI_process_mapping", map, len + 1) == PMI_SUCCESS)
            n = pmic_mapping_local_ranks(map, pmic_S.size, pmic_S.rank, ranks, max);
        free(map);
    }
    if (n < 1) {
        if (max > 0)
            ranks[0] = pmic_S.rank;
        n = 1;
    }
    return n;
}

PMIC_EXPORT int PMI_Get_clique_size(int *size)
{
    if (!ready())
        return PMI_ERR_INIT;
    if (!size)
        return PMI_ERR_INVALID_ARG;
    *size = clique(NULL, 0);
    return PMI_SUCCESS;
}

PMIC_EXPORT int PMI_Get_clique_ranks(int ranks[], int length)
{
    if (!ready())
        return PMI_ERR_INIT;
    if (!ranks || length <= 0)
        return PMI_ERR_INVALID_ARG;
    return clique(ranks, length) > length ? PMI_ERR_INVALID_LENGTH : PMI_SUCCESS;
}

/* ---------------------------------------------------------------- name service */

PMIC_EXPORT int PMI_Publish_name(const char service_name[], const char port[])
{
    if (!ready())
        return PMI_ERR_INIT;
    if (!service_name || !*service_name || !port || !*port)
        return PMI_ERR_INVALID_ARG;
    if (pmic_S.singleton) {
        pthread_mutex_lock(&pmic_S.local_mu);
        int p = pmic_map_put(pmic_S.names, service_name, port, false);
        pthread_mutex_unlock(&pmic_S.local_mu);
        return p < 0 ? PMI_ERR_NOMEM : p ? PMI_FAIL : PMI_SUCCESS;
    }
    pmc_enc e;
    pmic_resp *r = NULL;
    pmc_enc_begin(&e, PMC_WIRE_V1, "publish_name");
    pmc_enc_str(&e, "service", service_name);
    pmc_enc_str(&e, "port", port);
    int rc = call(&e, "publish_result", &r);
    if (rc == PMI_SUCCESS && !v1_success(r))
        rc = PMI_FAIL;
    pmic_resp_free(r);
    return rc;
}

PMIC_EXPORT int PMI_Unpublish_name(const char service_name[])
{
    if (!ready())
        return PMI_ERR_INIT;
    if (!service_name || !*service_name)
        return PMI_ERR_INVALID_ARG;
    if (pmic_S.singleton) {
        pthread_mutex_lock(&pmic_S.local_mu);
        int d = pmic_map_del(pmic_S.names, service_name);
        pthread_mutex_unlock(&pmic_S.local_mu);
        return d ? PMI_FAIL : PMI_SUCCESS;
    }
    pmc_enc e;
    pmic_resp *r = NULL;
    pmc_enc_begin(&e, PMC_WIRE_V1, "unpublish_name");
    pmc_enc_str(&e, "service", service_name);
    int rc = call(&e, "unpublish_result", &r);
    if (rc == PMI_SUCCESS && !v1_success(r))
        rc = PMI_FAIL;
    pmic_resp_free(r);
    return rc;
}

PMIC_EXPORT int PMI_Lookup_name(const char service_name[], char port[])
{
    if (!ready())
        return PMI_ERR_INIT;
    if (!service_name || !*service_name || !port)
        return PMI_ERR_INVALID_ARG;
    port[0] = 0;
    if (pmic_S.singleton) {
        pthread_mutex_lock(&pmic_S.local_mu);
        const char *v = pmic_map_get(pmic_S.names, service_name);
        int rc = !v ? PMI_FAIL
                    : copy_out(v, strlen(v), port, PORT_NAME_MAX) ? PMI_ERR_INVALID_LENGTH
                                                                   : PMI_SUCCESS;
        pthread_mutex_unlock(&pmic_S.local_mu);
        return rc;
    }
    pmc_enc e;
    pmic_resp *r = NULL;
    pmc_enc_begin(&e, PMC_WIRE_V1, "lookup_name");
    pmc_enc_str(&e, "service", service_name);
    int rc = call(&e, "lookup_result", &r);
    if (rc != PMI_SUCCESS)
        return rc;
    size_t n = 0;
    const char *v = pmic_resp_get(r, "port", &n);
    if (!v)
        v = pmic_resp_get(r, "value", &n);
    if (!v1_success(r) || !v)
        rc = PMI_FAIL;
    else if (copy_out(v, n, port, PORT_NAME_MAX))
        rc = PMI_ERR_INVALID_LENGTH;
    pmic_resp_free(r);
    return rc;
}

/* ---------------------------------------------------------------- spawn */

PMIC_EXPORT int PMI_Spawn_multiple(int count, const char *cmds[], const char **argvs[],
                                   const int maxprocs[], const int info_keyval_sizesp[],
                                   const PMI_keyval_t *info_keyval_vectors[],
                                   int preput_keyval_size,
                                   const PMI_keyval_t preput_keyval_vector[], int errors[])
{
    if (!ready())
        return PMI_ERR_INIT;
    if (count < 1 || !cmds || !maxprocs || preput_keyval_size < 0 ||
        (preput_keyval_size > 0 && !preput_keyval_vector))
        return PMI_ERR_INVALID_ARG;
    int total = 0;
    size_t nkeys = 2 * (size_t)preput_keyval_size;
    for (int i = 0; i < count; i++) {
        if (!cmds[i] || maxprocs[i] < 1)
            return PMI_ERR_INVALID_ARG;
        total += maxprocs[i];
        int argc = 0;
        if (argvs && argvs[i])
            while (argvs[i][argc])
                argc++;
        int ninfo = info_keyval_sizesp ? info_keyval_sizesp[i] : 0;
        if (ninfo < 0 || (ninfo > 0 && (!info_keyval_vectors || !info_keyval_vectors[i])))
            return PMI_ERR_INVALID_ARG;
        nkeys += (size_t)argc + 2 * (size_t)ninfo;
    }
    if (pmic_S.singleton)
        return PMI_FAIL; /* no process manager to ask */

    typedef char keyname[32];
    keyname *names = malloc((nkeys ? nkeys : 1) * sizeof *names);
    pmc_enc *blocks = malloc((size_t)count * sizeof *blocks);
    if (!names || !blocks) {
        free(names);
        free(blocks);
        return PMI_ERR_NOMEM;
    }
    size_t k = 0;
    for (int i = 0; i < count; i++) {
        /* V1CMD-18/19: one mcmd block per executable, numbered 1..totspawns;
         * the preput pairs travel in the first block, as MPICH sends them. */
        pmc_enc *e = &blocks[i];
        int argc = 0;
        if (argvs && argvs[i])
            while (argvs[i][argc])
                argc++;
        int ninfo = info_keyval_sizesp ? info_keyval_sizesp[i] : 0;
        int npre = i == 0 ? preput_keyval_size : 0;
        pmc_enc_begin(e, PMC_WIRE_V1_MCMD, "spawn");
        pmc_enc_int(e, "nprocs", maxprocs[i]);
        pmc_enc_str(e, "execname", cmds[i]);
        pmc_enc_int(e, "totspawns", count);
        pmc_enc_int(e, "spawnssofar", i + 1);
        pmc_enc_int(e, "argcnt", argc);
        for (int a = 0; a < argc; a++) {
            snprintf(names[k], sizeof names[k], "arg%d", a + 1);
            pmc_enc_str(e, names[k++], argvs[i][a]);
        }
        pmc_enc_int(e, "preput_num", npre);
        for (int a = 0; a < npre; a++) {
            const PMI_keyval_t *kv = &preput_keyval_vector[a];
            snprintf(names[k], sizeof names[k], "preput_key_%d", a);
            pmc_enc_str(e, names[k++], kv->key ? kv->key : "");
            snprintf(names[k], sizeof names[k], "preput_val_%d", a);
            pmc_enc_str(e, names[k++], kv->val ? kv->val : "");
        }
        pmc_enc_int(e, "info_num", ninfo);
        for (int a = 0; a < ninfo; a++) {
            const PMI_keyval_t *kv = &info_keyval_vectors[i][a];
            snprintf(names[k], sizeof names[k], "info_key_%d", a);
            pmc_enc_str(e, names[k++], kv->key ? kv->key : "");
            snprintf(names[k], sizeof names[k], "info_val_%d", a);
            pmc_enc_str(e, names[k++], kv->val ? kv->val : "");
        }
    }
    pmic_resp *r = NULL;
    /* V1CMD-20: one spawn_result after the last block. */
    pmic_status st = pmic_call_multi(&pmic_S.eng, blocks, (size_t)count, 0, "spawn_result", NULL,
                                     &r);
    free(names);
    free(blocks);
    int rc = from_status(st);
    if (st == PMIC_OK) {
        bool ok = pmic_resp_ok(r);
        if (errors) {
            for (int i = 0; i < total; i++)
                errors[i] = ok ? PMI_SUCCESS : PMI_FAIL;
            const char *codes = pmic_resp_get(r, "errcodes", NULL);
            if (codes && pmic_parse_int_list(codes, errors, total) < 0)
                for (int i = 0; i < total; i++)
                    errors[i] = PMI_FAIL;
        }
        if (!ok)
            rc = PMI_FAIL;
    } else if (errors) {
        for (int i = 0; i < total; i++)
            errors[i] = PMI_FAIL;
    }
    pmic_resp_free(r);
    return rc;
}
