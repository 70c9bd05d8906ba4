/* The PMI-2 API (pmi2.h) over the PMI-2 wire protocol, or locally for a
 * singleton.  Return codes are in libpmiclient(3). */
#include "internal.h"
#include "pmi2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The server's errmsg for the last failed call of this thread (tests use it
 * to tell "unsupported" from a failure; not part of the API). */
static _Thread_local char last_errmsg[256];

const char *pmic_last_errmsg(void)
{
    return last_errmsg;
}

static void note_error(const pmic_resp *r, const char *what)
{
    const char *m = r ? pmic_resp_get(r, "errmsg", NULL) : NULL;
    snprintf(last_errmsg, sizeof last_errmsg, "%s", m ? m : "");
    pmic_log(1, "%s failed: %s", what, m ? m : "no errmsg");
}

static int from_status(pmic_status st)
{
    switch (st) {
    case PMIC_OK: return PMI2_SUCCESS;
    case PMIC_E_COMM: return PMI2_FAIL;
    case PMIC_E_NOMEM: return PMI2_ERR_NOMEM;
    case PMIC_E_ENCODE: return PMI2_ERR_INVALID_VAL;
    case PMIC_E_PROTO:
    case PMIC_E_TIMEOUT: break; /* no pmi2.h call is timed */
    }
    return PMI2_ERR_OTHER;
}

static bool ready(void)
{
    return atomic_load(&pmic_S.state) == PMIC_V2;
}

/* One request, its response in *r (freed by the caller when returned).
 * rc!=0 is left for the caller to judge (not-found answers use it). */
static int call(pmc_enc *e, unsigned flags, const char *expect, pmic_resp **r)
{
    pmic_status st = pmic_call(&pmic_S.eng, e, flags, expect, NULL, r);
    if (st != PMIC_OK) {
        pmic_resp_free(*r);
        *r = NULL;
    }
    return from_status(st);
}

/* A response whose rc must be 0. */
static int call_ok(pmc_enc *e, unsigned flags, const char *expect, pmic_resp **r)
{
    int rc = call(e, flags, expect, r);
    if (rc == PMI2_SUCCESS && !pmic_resp_ok(*r)) {
        note_error(*r, expect);
        pmic_resp_free(*r);
        *r = NULL;
        return PMI2_ERR_OTHER;
    }
    return rc;
}

/* Copy into a caller buffer of n bytes; 0, or 1 when it was truncated. */
static int copy_out(const char *v, size_t len, char *buf, int n)
{
    if (n <= 0)
        return 1;
    size_t c = len < (size_t)n ? len : (size_t)n - 1;
    memcpy(buf, v, c);
    buf[c] = 0;
    return c < len;
}

static int check_key(const char *key)
{
    if (!key || !*key)
        return PMI2_ERR_INVALID_KEY;
    if (strlen(key) > PMI2_MAX_KEYLEN - 1) /* LIMIT-2 */
        return PMI2_ERR_INVALID_KEY_LENGTH;
    return PMI2_SUCCESS;
}

static int check_val(const char *val)
{
    if (!val)
        return PMI2_ERR_INVALID_VAL;
    if (strlen(val) > PMI2_MAX_VALLEN - 1) /* LIMIT-2 */
        return PMI2_ERR_INVALID_VAL_LENGTH;
    return PMI2_SUCCESS;
}

/* ---------------------------------------------------------------- init */

PMIC_EXPORT int PMI2_Init(int *spawned, int *size, int *rank, int *appnum)
{
    pmic_status st = pmic_session_start(2);
    if (st != PMIC_OK)
        return st == PMIC_E_NOMEM ? PMI2_ERR_NOMEM : PMI2_ERR_INIT;
    if (spawned)
        *spawned = pmic_S.spawned;
    if (size)
        *size = pmic_S.size;
    if (rank)
        *rank = pmic_S.rank;
    if (appnum)
        *appnum = pmic_S.appnum;
    return PMI2_SUCCESS;
}

PMIC_EXPORT int PMI2_Initialized(void)
{
    return ready();
}

PMIC_EXPORT int PMI2_Finalize(void)
{
    if (!ready())
        return PMI2_ERR_INIT;
    return from_status(pmic_session_finalize());
}

PMIC_EXPORT int PMI2_Abort(int flag, const char msg[])
{
    pmic_session_abort(flag != 0, 1, msg);
    return PMI2_FAIL; /* not reached */
}

/* ---------------------------------------------------------------- job */

PMIC_EXPORT int PMI2_Job_GetRank(int *rank)
{
    if (!ready())
        return PMI2_ERR_INIT;
    if (!rank)
        return PMI2_ERR_INVALID_ARG;
    *rank = pmic_S.rank;
    return PMI2_SUCCESS;
}

PMIC_EXPORT int PMI2_Info_GetSize(int *size)
{
    if (!ready())
        return PMI2_ERR_INIT;
    if (!size)
        return PMI2_ERR_INVALID_ARG;
    *size = pmic_S.size;
    return PMI2_SUCCESS;
}

PMIC_EXPORT int PMI2_Job_GetId(char jobid[], int jobid_size)
{
    if (!ready())
        return PMI2_ERR_INIT;
    if (!jobid || jobid_size <= 0)
        return PMI2_ERR_INVALID_ARG;
    char id[sizeof pmic_S.jobid];
    pthread_mutex_lock(&pmic_S.cache_mu);
    bool have = pmic_S.have_jobid;
    if (have)
        memcpy(id, pmic_S.jobid, sizeof id);
    pthread_mutex_unlock(&pmic_S.cache_mu);
    if (!have) {
        pmc_enc e;
        pmic_resp *r = NULL;
        pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
        int rc = call_ok(&e, PMIC_CALL_TAG, "job-getid-response", &r);
        if (rc != PMI2_SUCCESS)
            return rc;
        size_t n;
        const char *v = pmic_resp_get(r, "jobid", &n);
        if (!v || n >= sizeof id) {
            pmic_resp_free(r);
            return PMI2_ERR_OTHER;
        }
        memcpy(id, v, n + 1);
        pmic_resp_free(r);
        pthread_mutex_lock(&pmic_S.cache_mu); /* JOB-1: the same for the whole job */
        memcpy(pmic_S.jobid, id, sizeof id);
        pmic_S.have_jobid = true;
        pthread_mutex_unlock(&pmic_S.cache_mu);
    }
    return copy_out(id, strlen(id), jobid, jobid_size) ? PMI2_ERR_INVALID_LENGTH : PMI2_SUCCESS;
}

static int job_conn(const char *cmd, const char *expect, const char jobid[], bool *kvscopy)
{
    if (!ready())
        return PMI2_ERR_INIT;
    if (!jobid || !*jobid)
        return PMI2_ERR_INVALID_ARG;
    if (pmic_S.singleton)
        return PMI2_ERR_OTHER; /* no other job exists */
    pmc_enc e;
    pmic_resp *r = NULL;
    pmc_enc_begin(&e, PMC_WIRE_V2, cmd);
    pmc_enc_str(&e, "jobid", jobid);
    int rc = call_ok(&e, PMIC_CALL_TAG, expect, &r);
    if (rc != PMI2_SUCCESS)
        return rc;
    bool k = false;
    if (kvscopy && pmic_resp_bool(r, "kvscopy", &k) < 0)
        rc = PMI2_ERR_OTHER;
    if (kvscopy)
        *kvscopy = k;
    pmic_resp_free(r);
    return rc;
}

PMIC_EXPORT int PMI2_Job_Connect(const char jobid[], PMI2_Connect_comm_t *conn)
{
    (void)conn;
    bool kvscopy = false;
    int rc = job_conn("job-connect", "job-connect-response", jobid, &kvscopy);
    if (rc == PMI2_SUCCESS && kvscopy) {
        /* JOB-3: the server wants the leaders to copy pairs with
         * kvs-getall/kvs-putall over conn; this library does not do that. */
        pmic_log(1, "job-connect: the server asks for kvscopy, which is not supported");
        return PMI2_ERR_OTHER;
    }
    return rc;
}

PMIC_EXPORT int PMI2_Job_Disconnect(const char jobid[])
{
    return job_conn("job-disconnect", "job-disconnect-response", jobid, NULL);
}

/* ---------------------------------------------------------------- spawn */

/* Per-process results: errcodes=a,b,... (SPAWN-10) or nerrs/err<i> (draft). */
static void spawn_errors(const pmic_resp *r, int *errors, int total)
{
    if (!errors || total <= 0)
        return;
    for (int i = 0; i < total; i++)
        errors[i] = 0;
    const char *codes = pmic_resp_get(r, "errcodes", NULL);
    if (codes) {
        if (pmic_parse_int_list(codes, errors, total) < 0)
            for (int i = 0; i < total; i++)
                errors[i] = PMI2_ERR_OTHER;
        return;
    }
    long long nerrs;
    if (pmic_resp_int(r, "nerrs", &nerrs) == 1)
        for (long long i = 0; i < nerrs && i < total; i++) {
            char key[32];
            long long v;
            snprintf(key, sizeof key, "err%lld", i);
            if (pmic_resp_int(r, key, &v) == 1)
                errors[i] = (int)v;
        }
}

PMIC_EXPORT int PMI2_Job_Spawn(int count, const char *cmds[], int argcs[], const char **argvs[],
                               const int maxprocs[], const int info_keyval_sizes[],
                               const PMI2_keyval_t *info_keyval_vectors[],
                               int preput_keyval_size,
                               const PMI2_keyval_t *preput_keyval_vector[], char jobId[],
                               int jobIdSize, int errors[])
{
    if (!ready())
        return PMI2_ERR_INIT;
    if (count < 1 || !cmds || !maxprocs || preput_keyval_size < 0 ||
        (preput_keyval_size > 0 && !preput_keyval_vector))
        return PMI2_ERR_INVALID_ARG;
    int total = 0;
    size_t nkeys = 2 * (size_t)preput_keyval_size;
    for (int i = 0; i < count; i++) {
        if (!cmds[i] || maxprocs[i] < 1)
            return PMI2_ERR_INVALID_ARG;
        total += maxprocs[i];
        int argc = 0;
        if (argvs && argvs[i]) {
            if (argcs)
                argc = argcs[i];
            else
                while (argvs[i][argc])
                    argc++;
        }
        int ninfo = info_keyval_sizes ? info_keyval_sizes[i] : 0;
        if (argc < 0 || ninfo < 0 || (ninfo > 0 && (!info_keyval_vectors || !info_keyval_vectors[i])))
            return PMI2_ERR_INVALID_ARG;
        nkeys += (size_t)argc + 2 * (size_t)ninfo;
    }
    if (pmic_S.singleton) {
        pmic_log(1, "spawn: a singleton has no process manager");
        return PMI2_ERR_OTHER;
    }

    /* Indexed key names must live until the message is written. */
    typedef char keyname[24];
    keyname *names = malloc((nkeys ? nkeys : 1) * sizeof *names);
    if (!names)
        return PMI2_ERR_NOMEM;
    size_t k = 0;
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "spawn");
    pmc_enc_int(&e, "ncmds", count); /* SPAWN-1 */
    pmc_enc_int(&e, "preputcount", preput_keyval_size); /* SPAWN-3 */
    for (int i = 0; i < preput_keyval_size; i++) {
        const PMI2_keyval_t *kv = preput_keyval_vector[i];
        snprintf(names[k], sizeof names[k], "ppkey%d", i);
        pmc_enc_str(&e, names[k++], kv && kv->key ? kv->key : "");
        snprintf(names[k], sizeof names[k], "ppval%d", i);
        pmc_enc_str(&e, names[k++], kv && kv->val ? kv->val : "");
    }
    for (int i = 0; i < count; i++) {
        /* SPAWN-2: subcmd, maxprocs, argc, argv*, infokeycount, infokey/infoval. */
        int argc = 0;
        if (argvs && argvs[i]) {
            if (argcs)
                argc = argcs[i];
            else
                while (argvs[i][argc])
                    argc++;
        }
        int ninfo = info_keyval_sizes ? info_keyval_sizes[i] : 0;
        pmc_enc_str(&e, "subcmd", cmds[i]);
        pmc_enc_int(&e, "maxprocs", maxprocs[i]);
        pmc_enc_int(&e, "argc", argc);
        for (int a = 0; a < argc; a++) {
            snprintf(names[k], sizeof names[k], "argv%d", a);
            pmc_enc_str(&e, names[k++], argvs[i][a] ? argvs[i][a] : "");
        }
        pmc_enc_int(&e, "infokeycount", ninfo);
        for (int a = 0; a < ninfo; a++) {
            const PMI2_keyval_t *kv = &info_keyval_vectors[i][a];
            snprintf(names[k], sizeof names[k], "infokey%d", a);
            pmc_enc_str(&e, names[k++], kv->key ? kv->key : "");
            snprintf(names[k], sizeof names[k], "infoval%d", a);
            pmc_enc_str(&e, names[k++], kv->val ? kv->val : "");
        }
    }
    pmic_resp *r = NULL;
    /* SPAWN-12: tagged once the server is known to echo, so other threads
     * go on while the spawn is outstanding. */
    int rc = call(&e, PMIC_CALL_TAG_KNOWN, "spawn-response", &r);
    free(names);
    if (rc != PMI2_SUCCESS)
        return rc;
    spawn_errors(r, errors, total);
    if (!pmic_resp_ok(r)) {
        note_error(r, "spawn");
        if (errors && !pmic_resp_get(r, "errcodes", NULL) && !pmic_resp_get(r, "nerrs", NULL))
            for (int i = 0; i < total; i++)
                errors[i] = PMI2_ERR_OTHER;
        pmic_resp_free(r);
        return PMI2_ERR_OTHER;
    }
    if (jobId && jobIdSize > 0) {
        /* SPAWN-9; Hydra 4.1+ leaves jobid out (H9): an empty id then. */
        size_t n = 0;
        const char *id = pmic_resp_get(r, "jobid", &n);
        if (copy_out(id ? id : "", id ? n : 0, jobId, jobIdSize))
            rc = PMI2_ERR_INVALID_LENGTH;
    }
    pmic_resp_free(r);
    return rc;
}

/* ---------------------------------------------------------------- kvs */

PMIC_EXPORT int PMI2_KVS_Put(const char key[], const char value[])
{
    if (!ready())
        return PMI2_ERR_INIT;
    int rc;
    if ((rc = check_key(key)) != PMI2_SUCCESS || (rc = check_val(value)) != PMI2_SUCCESS)
        return rc;
    if (pmic_S.singleton) {
        pthread_mutex_lock(&pmic_S.local_mu);
        int p = pmic_map_put(pmic_S.kvs, key, value, true);
        pthread_mutex_unlock(&pmic_S.local_mu);
        return p < 0 ? PMI2_ERR_NOMEM : PMI2_SUCCESS;
    }
    pmc_enc e;
    pmic_resp *r = NULL;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", value);
    rc = call_ok(&e, PMIC_CALL_TAG, "kvs-put-response", &r);
    pmic_resp_free(r);
    return rc;
}

PMIC_EXPORT int PMI2_KVS_Fence(void)
{
    if (!ready())
        return PMI2_ERR_INIT;
    if (pmic_S.singleton)
        return PMI2_SUCCESS;
    pmc_enc e;
    pmic_resp *r = NULL;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-fence");
    int rc = call_ok(&e, PMIC_CALL_TAG, "kvs-fence-response", &r);
    pmic_resp_free(r);
    return rc;
}

/* MPICH's rule: the value fits when it and its NUL fit in maxvalue;
 * otherwise it is truncated and *vallen is minus its full length. */
static void value_out(const char *v, size_t len, char *value, int maxvalue, int *vallen)
{
    int t = copy_out(v, len, value, maxvalue);
    if (vallen)
        *vallen = t ? -(int)len : (int)len;
}

PMIC_EXPORT int PMI2_KVS_Get(const char *jobid, int src_pmi_id, const char key[], char value[],
                             int maxvalue, int *vallen)
{
    if (!ready())
        return PMI2_ERR_INIT;
    if (!key || !*key)
        return PMI2_ERR_INVALID_KEY;
    if (!value || maxvalue <= 0)
        return PMI2_ERR_INVALID_ARG;
    if (vallen)
        *vallen = 0;
    value[0] = 0;
    if (pmic_S.singleton) {
        pthread_mutex_lock(&pmic_S.local_mu);
        const char *v = pmic_map_get(pmic_S.kvs, key);
        if (v)
            value_out(v, strlen(v), value, maxvalue, vallen);
        pthread_mutex_unlock(&pmic_S.local_mu);
        return v ? PMI2_SUCCESS : PMI2_ERR_INVALID_KEY;
    }
    char src[24];
    pmc_enc e;
    pmic_resp *r = NULL;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    if (jobid && *jobid)
        pmc_enc_str(&e, "jobid", jobid);
    if (src_pmi_id >= 0) { /* KVS-10: only a real hint is sent */
        snprintf(src, sizeof src, "%d", src_pmi_id);
        pmc_enc_str(&e, "srcid", src);
    }
    pmc_enc_str(&e, "key", key);
    int rc = call(&e, PMIC_CALL_TAG, "kvs-get-response", &r);
    if (rc != PMI2_SUCCESS)
        return rc;
    size_t n = 0;
    const char *v = pmic_resp_get(r, "value", &n);
    if (pmic_resp_found(r) && v) {
        value_out(v, n, value, maxvalue, vallen);
    } else {
        rc = PMI2_ERR_INVALID_KEY; /* KVS-5: not available */
    }
    pmic_resp_free(r);
    return rc;
}

/* ---------------------------------------------------------------- attributes */

/* info-getnodeattr / info-getjobattr: *found and the value; rc!=0 without
 * found is "not there" (Hydra 4.1+, H3). */
static int get_attr(const char *cmd, const char *expect, const char *name, char *value,
                    int valuelen, int *found, int wait)
{
    if (!ready())
        return PMI2_ERR_INIT;
    if (!name || !*name)
        return PMI2_ERR_INVALID_KEY;
    if (!value || valuelen <= 0 || !found)
        return PMI2_ERR_INVALID_ARG;
    *found = 0;
    value[0] = 0;
    pmc_enc e;
    pmic_resp *r = NULL;
    pmc_enc_begin(&e, PMC_WIRE_V2, cmd);
    pmc_enc_str(&e, "key", name);
    if (wait >= 0)
        pmc_enc_bool(&e, "wait", wait != 0);
    int rc = call(&e, PMIC_CALL_TAG, expect, &r);
    if (rc != PMI2_SUCCESS)
        return rc;
    size_t n = 0;
    const char *v = pmic_resp_get(r, "value", &n);
    if (pmic_resp_found(r) && v) {
        *found = 1;
        if (copy_out(v, n, value, valuelen))
            rc = PMI2_ERR_INVALID_VAL_LENGTH;
    }
    pmic_resp_free(r);
    return rc;
}

/* The singleton's own attributes.  A wait for a missing node attribute
 * ends when another thread of this process puts it (NODEATTR-4: the only
 * process on the node is this one). */
static int local_attr(pmic_map *m, const char *name, char *value, int valuelen, int *found,
                      bool wait)
{
    if (!name || !*name)
        return PMI2_ERR_INVALID_KEY;
    if (!value || valuelen <= 0 || !found)
        return PMI2_ERR_INVALID_ARG;
    int rc = PMI2_SUCCESS;
    *found = 0;
    value[0] = 0;
    pthread_mutex_lock(&pmic_S.local_mu);
    const char *v;
    while (!(v = m ? pmic_map_get(m, name) : NULL) && wait && m &&
           atomic_load(&pmic_S.state) == PMIC_V2)
        pthread_cond_wait(&pmic_S.local_cv, &pmic_S.local_mu);
    if (v) {
        *found = 1;
        if (copy_out(v, strlen(v), value, valuelen))
            rc = PMI2_ERR_INVALID_VAL_LENGTH;
    }
    pthread_mutex_unlock(&pmic_S.local_mu);
    return rc;
}

PMIC_EXPORT int PMI2_Info_GetNodeAttr(const char name[], char value[], int valuelen, int *found,
                                      int waitfor)
{
    if (ready() && pmic_S.singleton)
        return local_attr(pmic_S.nodeattr, name, value, valuelen, found, waitfor != 0);
    return get_attr("info-getnodeattr", "info-getnodeattr-response", name, value, valuelen,
                    found, waitfor != 0);
}

static int int_array(int rc, const char *text, int array[], int arraylen, int *outlen)
{
    if (rc != PMI2_SUCCESS)
        return rc;
    int n = pmic_parse_int_list(text, array, arraylen);
    if (n < 0)
        return PMI2_ERR_INVALID_VAL;
    *outlen = n < arraylen ? n : arraylen;
    return PMI2_SUCCESS;
}

PMIC_EXPORT int PMI2_Info_GetNodeAttrIntArray(const char name[], int array[], int arraylen,
                                              int *outlen, int *found)
{
    if (!array || arraylen < 0 || !outlen || !found)
        return PMI2_ERR_INVALID_ARG;
    *outlen = 0;
    char buf[PMI2_MAX_ATTRVALUE];
    int rc = PMI2_Info_GetNodeAttr(name, buf, sizeof buf, found, 0);
    return *found ? int_array(rc, buf, array, arraylen, outlen) : rc;
}

PMIC_EXPORT int PMI2_Info_PutNodeAttr(const char name[], const char value[])
{
    if (!ready())
        return PMI2_ERR_INIT;
    int rc;
    if ((rc = check_key(name)) != PMI2_SUCCESS || (rc = check_val(value)) != PMI2_SUCCESS)
        return rc;
    if (pmic_S.singleton) {
        pthread_mutex_lock(&pmic_S.local_mu);
        int p = pmic_map_put(pmic_S.nodeattr, name, value, true);
        pthread_cond_broadcast(&pmic_S.local_cv);
        pthread_mutex_unlock(&pmic_S.local_mu);
        return p < 0 ? PMI2_ERR_NOMEM : PMI2_SUCCESS;
    }
    pmc_enc e;
    pmic_resp *r = NULL;
    pmc_enc_begin(&e, PMC_WIRE_V2, "info-putnodeattr");
    pmc_enc_str(&e, "key", name);
    pmc_enc_str(&e, "value", value);
    rc = call_ok(&e, PMIC_CALL_TAG, "info-putnodeattr-response", &r);
    pmic_resp_free(r);
    return rc;
}

PMIC_EXPORT int PMI2_Info_GetJobAttr(const char name[], char value[], int valuelen, int *found)
{
    if (ready() && pmic_S.singleton) {
        /* A job of one process on one node (JOBATTR-5, JOBATTR-8). */
        const char *v = NULL;
        if (name && strcmp(name, "PMI_process_mapping") == 0)
            v = "(vector,(0,1,1))";
        else if (name && strcmp(name, "universeSize") == 0)
            v = "1";
        if (!v)
            return local_attr(NULL, name, value, valuelen, found, false);
        if (!value || valuelen <= 0 || !found)
            return PMI2_ERR_INVALID_ARG;
        *found = 1;
        return copy_out(v, strlen(v), value, valuelen) ? PMI2_ERR_INVALID_VAL_LENGTH
                                                       : PMI2_SUCCESS;
    }
    return get_attr("info-getjobattr", "info-getjobattr-response", name, value, valuelen, found,
                    -1);
}

PMIC_EXPORT int PMI2_Info_GetJobAttrIntArray(const char name[], int array[], int arraylen,
                                             int *outlen, int *found)
{
    if (!array || arraylen < 0 || !outlen || !found)
        return PMI2_ERR_INVALID_ARG;
    *outlen = 0;
    char buf[PMI2_MAX_ATTRVALUE];
    int rc = PMI2_Info_GetJobAttr(name, buf, sizeof buf, found);
    return *found ? int_array(rc, buf, array, arraylen, outlen) : rc;
}

/* ---------------------------------------------------------------- name service */

PMIC_EXPORT int PMI2_Nameserv_publish(const char service_name[], const PMI2_keyval_t *info_ptr,
                                      const char port[])
{
    (void)info_ptr; /* a single keyval carries no count: no info keys are sent */
    if (!ready())
        return PMI2_ERR_INIT;
    if (!service_name || !*service_name || !port)
        return PMI2_ERR_INVALID_ARG;
    if (pmic_S.singleton) {
        pthread_mutex_lock(&pmic_S.local_mu);
        int p = pmic_map_put(pmic_S.names, service_name, port, false);
        pthread_mutex_unlock(&pmic_S.local_mu);
        return p < 0 ? PMI2_ERR_NOMEM : p ? PMI2_ERR_OTHER : PMI2_SUCCESS;
    }
    pmc_enc e;
    pmic_resp *r = NULL;
    pmc_enc_begin(&e, PMC_WIRE_V2, "name-publish");
    pmc_enc_str(&e, "name", service_name);
    pmc_enc_str(&e, "port", port);
    pmc_enc_int(&e, "infokeycount", 0);
    int rc = call_ok(&e, PMIC_CALL_TAG, "name-publish-response", &r);
    pmic_resp_free(r);
    return rc;
}

PMIC_EXPORT int PMI2_Nameserv_lookup(const char service_name[], const PMI2_keyval_t *info_ptr,
                                     char port[], int portLen)
{
    (void)info_ptr;
    if (!ready())
        return PMI2_ERR_INIT;
    if (!service_name || !*service_name || !port || portLen <= 0)
        return PMI2_ERR_INVALID_ARG;
    port[0] = 0;
    if (pmic_S.singleton) {
        pthread_mutex_lock(&pmic_S.local_mu);
        const char *v = pmic_map_get(pmic_S.names, service_name);
        int rc = !v ? PMI2_ERR_OTHER
                    : copy_out(v, strlen(v), port, portLen) ? PMI2_ERR_INVALID_LENGTH
                                                             : PMI2_SUCCESS;
        pthread_mutex_unlock(&pmic_S.local_mu);
        return rc;
    }
    pmc_enc e;
    pmic_resp *r = NULL;
    pmc_enc_begin(&e, PMC_WIRE_V2, "name-lookup");
    pmc_enc_str(&e, "name", service_name);
    pmc_enc_int(&e, "infokeycount", 0);
    int rc = call_ok(&e, PMIC_CALL_TAG, "name-lookup-response", &r); /* NAME-5: miss is rc!=0 */
    if (rc != PMI2_SUCCESS)
        return rc;
    size_t n = 0;
    /* NAME-4: Hydra says port=, Slurm and the draft value=. */
    const char *v = pmic_resp_get(r, "port", &n);
    if (!v)
        v = pmic_resp_get(r, "value", &n);
    bool f;
    if (!v || (pmic_resp_bool(r, "found", &f) == 1 && !f))
        rc = PMI2_ERR_OTHER;
    else if (copy_out(v, n, port, portLen))
        rc = PMI2_ERR_INVALID_LENGTH;
    pmic_resp_free(r);
    return rc;
}

PMIC_EXPORT int PMI2_Nameserv_unpublish(const char service_name[], const PMI2_keyval_t *info_ptr)
{
    (void)info_ptr;
    if (!ready())
        return PMI2_ERR_INIT;
    if (!service_name || !*service_name)
        return PMI2_ERR_INVALID_ARG;
    if (pmic_S.singleton) {
        pthread_mutex_lock(&pmic_S.local_mu);
        int d = pmic_map_del(pmic_S.names, service_name);
        pthread_mutex_unlock(&pmic_S.local_mu);
        return d ? PMI2_ERR_OTHER : PMI2_SUCCESS;
    }
    pmc_enc e;
    pmic_resp *r = NULL;
    pmc_enc_begin(&e, PMC_WIRE_V2, "name-unpublish");
    pmc_enc_str(&e, "name", service_name);
    pmc_enc_int(&e, "infokeycount", 0);
    int rc = call_ok(&e, PMIC_CALL_TAG, "name-unpublish-response", &r);
    pmic_resp_free(r);
    return rc;
}
