/* The groups profile's client API (pmi2ext.h, SPEC.md section 12): ask
 * for PMI_ext_groups first (GROUP-3), subscribe once, build each request
 * with the encoder and read each answer into a PMI2X_Group_result. */
#include "internal.h"
#include "pmi2ext.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GROUP-24: the server answers a timed-out construct within 100 ms of its
 * deadline; GROUP-30: the client waits no longer than that. */
enum { GROUP_GRACE_MS = 100 };

static _Thread_local char last_reason[32];
static _Thread_local char last_errmsg[256];

PMIC_EXPORT const char *PMI2X_Group_last_reason(void)
{
    return last_reason;
}

PMIC_EXPORT const char *PMI2X_Group_last_errmsg(void)
{
    return last_errmsg;
}

static void set_reason(const char *reason, const char *errmsg)
{
    snprintf(last_reason, sizeof last_reason, "%s", reason ? reason : "");
    snprintf(last_errmsg, sizeof last_errmsg, "%s", errmsg ? errmsg : "");
}

/* A failure found by the library itself: code, with reason and text. */
static int local_fail(int code, const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int local_fail(int code, const char *reason, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_errmsg, sizeof last_errmsg, fmt, ap);
    va_end(ap);
    snprintf(last_reason, sizeof last_reason, "%s", reason);
    pmic_log(1, "group: %s (%s)", last_errmsg, reason);
    return code;
}

static int from_status(pmic_status st, const char *what)
{
    switch (st) {
    case PMIC_OK:
        set_reason(NULL, NULL);
        return PMI2_SUCCESS;
    case PMIC_E_NOMEM:
        return local_fail(PMI2_ERR_NOMEM, "nomem", "%s: out of memory", what);
    case PMIC_E_ENCODE:
        return local_fail(PMI2_ERR_INVALID_ARG, "invalid", "%s: the request cannot be written",
                          what);
    case PMIC_E_COMM:
        return local_fail(PMI2_ERR_OTHER, "connection", "%s: the connection is lost", what);
    case PMIC_E_PROTO:
        return local_fail(PMI2_ERR_OTHER, "protocol", "%s: the server's answer is unusable",
                          what);
    case PMIC_E_TIMEOUT:
        return local_fail(PMI2_FAIL, "timeout", "%s: no answer in time", what);
    }
    return PMI2_ERR_OTHER;
}

/* ---------------------------------------------------------------- discovery */

/* GROUP-2/GROUP-3: PMI2_SUCCESS when the server offers the profile; asked
 * once per connection, before any group- command. */
static int profile(void)
{
    if (atomic_load(&pmic_S.state) != PMIC_V2)
        return local_fail(PMI2_ERR_INIT, "init", "PMI2_Init has not been called");
    pthread_mutex_lock(&pmic_S.grp_mu);
    int p = pmic_S.grp_profile;
    pthread_mutex_unlock(&pmic_S.grp_mu);
    if (p == 0) {
        char v[PMI2_MAX_ATTRVALUE];
        int found = 0;
        int rc = PMI2_Info_GetJobAttr("PMI_ext_groups", v, sizeof v, &found);
        if (rc != PMI2_SUCCESS && rc != PMI2_ERR_INVALID_VAL_LENGTH)
            return local_fail(PMI2_ERR_OTHER, "connection",
                              "cannot read the job attribute PMI_ext_groups (%d)", rc);
        long long ver = 0;
        /* A later version of the profile is taken to keep version 1's commands. */
        p = found && rc == PMI2_SUCCESS &&
                    pmc_parse_int((pmc_slice){ v, strlen(v) }, &ver) == 0 && ver >= 1
                ? 1
                : -1;
        pthread_mutex_lock(&pmic_S.grp_mu);
        pmic_S.grp_profile = p;
        pthread_mutex_unlock(&pmic_S.grp_mu);
    }
    if (p < 0)
        return local_fail(PMI2_ERR_OTHER, "unsupported",
                          "the server does not offer the groups profile (PMI_ext_groups)");
    return PMI2_SUCCESS;
}

PMIC_EXPORT int PMI2X_Group_supported(int *flag)
{
    if (!flag)
        return local_fail(PMI2_ERR_INVALID_ARG, "invalid", "flag is NULL");
    *flag = 0;
    int rc = profile();
    if (rc == PMI2_SUCCESS) {
        *flag = 1;
    } else if (strcmp(last_reason, "unsupported") == 0) {
        rc = PMI2_SUCCESS; /* a clear "no" is a successful answer */
    }
    if (rc == PMI2_SUCCESS)
        set_reason(NULL, NULL);
    return rc;
}

/* ---------------------------------------------------------------- arguments */

/* grpname = 1*64(ALPHA / DIGIT / "." / "_" / "-" / ":") (GROUP-28). */
static bool grp_ok(const char *g)
{
    if (!g)
        return false;
    size_t n = strlen(g);
    if (n < 1 || n > PMI2X_MAX_GRPNAME)
        return false;
    for (const char *p = g; *p; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-' || c == ':'))
            return false;
    }
    return true;
}

/* procid = jobid ":" 1*DIGIT, jobid without "," or ";" (GROUP-5). */
static bool procid_ok(const char *p)
{
    if (!p)
        return false;
    const char *colon = strrchr(p, ':');
    if (!colon || colon == p || !colon[1])
        return false;
    for (const char *q = colon + 1; *q; q++)
        if (*q < '0' || *q > '9')
            return false;
    for (const char *q = p; q < colon; q++)
        if (*q < 0x21 || *q > 0x7e || *q == ',' || *q == ';')
            return false;
    return true;
}

/* "a,b,c" for the wire; NULL (with *rc) on a bad id or no memory. */
static char *join_list(const char *const l[], int n, const char *what, int *rc)
{
    size_t len = 1;
    for (int i = 0; i < n; i++) {
        if (!procid_ok(l[i])) {
            *rc = local_fail(PMI2_ERR_INVALID_ARG, "invalid", "%s: \"%s\" is not a process id",
                             what, l[i] ? l[i] : "(null)");
            return NULL;
        }
        len += strlen(l[i]) + 1;
    }
    char *s = malloc(len), *p = s;
    if (!s) {
        *rc = local_fail(PMI2_ERR_NOMEM, "nomem", "out of memory");
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        size_t k = strlen(l[i]);
        if (i)
            *p++ = ',';
        memcpy(p, l[i], k);
        p += k;
    }
    *p = 0;
    return s;
}

/* A request under construction and what its keys and values point to. */
typedef struct greq {
    pmc_enc e;
    char (*names)[24]; /* infokey<i>/infoval<i>: alive until the write */
    char *lists[2];
} greq;

static void greq_free(greq *g)
{
    free(g->names);
    free(g->lists[0]);
    free(g->lists[1]);
}

/* A request given up before it was sent: its builder and lists go, rc comes back. */
static int greq_drop(greq *g, int rc)
{
    pmc_enc_abandon(&g->e);
    greq_free(g);
    return rc;
}

/* GROUP-22: infocount, infokey<i>, infoval<i>. */
static int add_info(greq *g, const PMI2_keyval_t info[], int ninfo)
{
    if (ninfo < 0 || (ninfo > 0 && !info))
        return local_fail(PMI2_ERR_INVALID_ARG, "invalid", "ninfo %d without info", ninfo);
    if (ninfo == 0)
        return PMI2_SUCCESS;
    for (int i = 0; i < ninfo; i++)
        if (!info[i].key || !*info[i].key)
            return local_fail(PMI2_ERR_INVALID_KEY, "invalid", "info[%d] has no key", i);
    g->names = malloc(2 * (size_t)ninfo * sizeof *g->names);
    if (!g->names)
        return local_fail(PMI2_ERR_NOMEM, "nomem", "out of memory");
    pmc_enc_int(&g->e, "infocount", ninfo);
    for (int i = 0; i < ninfo; i++) {
        snprintf(g->names[2 * i], sizeof g->names[0], "infokey%d", i);
        snprintf(g->names[2 * i + 1], sizeof g->names[0], "infoval%d", i);
        pmc_enc_str(&g->e, g->names[2 * i], info[i].key);
        pmc_enc_str(&g->e, g->names[2 * i + 1], info[i].val ? info[i].val : "");
    }
    return PMI2_SUCCESS;
}

/* Send the request, wait for `expect` (timed when timeout_ms > 0) and read
 * the answer.  group: a success carries a group (ctxid, members).  The
 * result goes to *result when asked for; failures set the reason. */
static int group_call(greq *g, const char *expect, long timeout_ms, bool group,
                      PMI2X_Group_result **result)
{
    pmic_resp *r = NULL;
    long wait = timeout_ms > 0 ? timeout_ms + GROUP_GRACE_MS : 0;
    pmic_status st = pmic_call_timed(&pmic_S.eng, &g->e, PMIC_CALL_TAG, expect, wait, &r);
    greq_free(g);
    if (st == PMIC_E_TIMEOUT) {
        /* GROUP-30: report it; the server's answer, when it comes, is dropped. */
        int rc = local_fail(PMI2_FAIL, "timeout",
                            "%s: no answer within the timeout (%ld ms) + %d ms", expect,
                            timeout_ms, GROUP_GRACE_MS);
        if (result) {
            PMI2X_Group_result *res = calloc(1, sizeof *res);
            if (res && !(res->reason = strdup("timeout")))
                res = (PMI2X_Group_result_free(res), NULL);
            if (res) {
                res->rc = 1;
                res->errmsg = strdup(last_errmsg);
            }
            *result = res;
        }
        return rc;
    }
    if (st != PMIC_OK) {
        pmic_resp_free(r);
        return from_status(st, expect);
    }
    bool bad;
    PMI2X_Group_result *res = pmic_group_result(r, group, &bad);
    pmic_resp_free(r);
    if (!res)
        return local_fail(PMI2_ERR_NOMEM, "nomem", "out of memory");
    int rc;
    if (bad) {
        rc = local_fail(PMI2_ERR_OTHER, "protocol", "%s: malformed answer", expect);
    } else if (res->rc != 0) {
        /* GROUP-30: the server's reason and failed list reach the caller. */
        set_reason(res->reason, res->errmsg);
        pmic_log(1, "%s failed: %s (%s)", expect, res->reason, res->errmsg ? res->errmsg : "");
        rc = PMI2_FAIL;
    } else {
        set_reason(NULL, NULL);
        rc = PMI2_SUCCESS;
    }
    if (result && !bad)
        *result = res;
    else
        PMI2X_Group_result_free(res);
    return rc;
}

static int begin(greq *g, const char *cmd, const char *grp)
{
    memset(g, 0, sizeof *g);
    int rc = profile();
    if (rc != PMI2_SUCCESS)
        return rc;
    if (grp && !grp_ok(grp))
        return local_fail(PMI2_ERR_INVALID_ARG, "invalid", "\"%s\" is not a group name (GROUP-28)",
                          grp);
    pmc_enc_begin(&g->e, PMC_WIRE_V2, cmd);
    if (grp)
        pmc_enc_str(&g->e, "grp", grp);
    return PMI2_SUCCESS;
}

/* ---------------------------------------------------------------- subscribe */

PMIC_EXPORT int PMI2X_Group_subscribe(void)
{
    int rc = profile();
    if (rc != PMI2_SUCCESS)
        return rc;
    /* Held across the call: a second thread waits for the first's answer
     * instead of subscribing twice. */
    pthread_mutex_lock(&pmic_S.grp_mu);
    if (pmic_S.grp_subscribed) {
        pthread_mutex_unlock(&pmic_S.grp_mu);
        set_reason(NULL, NULL);
        return PMI2_SUCCESS;
    }
    greq g;
    memset(&g, 0, sizeof g);
    pmc_enc_begin(&g.e, PMC_WIRE_V2, "group-subscribe");
    rc = group_call(&g, "group-subscribe-response", 0, false, NULL);
    if (rc == PMI2_SUCCESS)
        pmic_S.grp_subscribed = true;
    pthread_mutex_unlock(&pmic_S.grp_mu);
    return rc;
}

/* ---------------------------------------------------------------- construct */

static int construct(const char *grp, const char *method, const char *const leaders[],
                     int nleaders, const char *const members[], int nmembers,
                     const PMI2_keyval_t info[], int ninfo, int timeout_ms,
                     PMI2X_Group_result **result)
{
    if (result)
        *result = NULL;
    greq g;
    int rc = begin(&g, "group-construct", grp);
    if (rc != PMI2_SUCCESS)
        return rc;
    if (timeout_ms < 0 || nmembers < 0 || (nmembers > 0 && !members)) {
        return greq_drop(&g, local_fail(PMI2_ERR_INVALID_ARG, "invalid",
                                        "bad timeout or members"));
    }
    pmc_enc_str(&g.e, "method", method);
    if (strcmp(method, "collective") == 0) {
        if (nleaders < 1 || !leaders ||
            !(g.lists[0] = join_list(leaders, nleaders, "leaders", &rc))) {
            return greq_drop(&g, nleaders < 1 || !leaders
                                     ? local_fail(PMI2_ERR_INVALID_ARG, "invalid", "no leaders")
                                     : rc);
        }
        pmc_enc_str(&g.e, "leaders", g.lists[0]);
    } else if (strcmp(method, "bootstrap") == 0) {
        if (nleaders < 1) {
            return greq_drop(&g, local_fail(PMI2_ERR_INVALID_ARG, "invalid", "nleaders %d < 1",
                                            nleaders));
        }
        pmc_enc_int(&g.e, "nleaders", nleaders);
    }
    if (nmembers > 0) {
        if (!(g.lists[1] = join_list(members, nmembers, "members", &rc))) {
            return greq_drop(&g, rc);
        }
        pmc_enc_str(&g.e, "members", g.lists[1]);
    }
    if (timeout_ms > 0)
        pmc_enc_int(&g.e, "timeout", timeout_ms);
    if ((rc = add_info(&g, info, ninfo)) != PMI2_SUCCESS) {
        return greq_drop(&g, rc);
    }
    return group_call(&g, "group-construct-response", timeout_ms, true, result);
}

PMIC_EXPORT int PMI2X_Group_construct_collective(const char grp[], const char *const leaders[],
                                                 int nleaders, const char *const members[],
                                                 int nmembers, const PMI2_keyval_t info[],
                                                 int ninfo, int timeout_ms,
                                                 PMI2X_Group_result **result)
{
    return construct(grp, "collective", leaders, nleaders, members, nmembers, info, ninfo,
                     timeout_ms, result);
}

PMIC_EXPORT int PMI2X_Group_construct_bootstrap(const char grp[], int nleaders,
                                                const char *const members[], int nmembers,
                                                const PMI2_keyval_t info[], int ninfo,
                                                int timeout_ms, PMI2X_Group_result **result)
{
    return construct(grp, "bootstrap", NULL, nleaders, members, nmembers, info, ninfo,
                     timeout_ms, result);
}

PMIC_EXPORT int PMI2X_Group_construct_member(const char grp[], const PMI2_keyval_t info[],
                                             int ninfo, int timeout_ms,
                                             PMI2X_Group_result **result)
{
    /* GROUP-12: an added member sends neither leaders nor members. */
    return construct(grp, "member", NULL, 0, NULL, 0, info, ninfo, timeout_ms, result);
}

/* ---------------------------------------------------------------- invite, join */

PMIC_EXPORT int PMI2X_Group_invite(const char grp[], const char *const invitees[], int ninvitees,
                                   const PMI2_keyval_t info[], int ninfo, int timeout_ms,
                                   PMI2X_Group_result **result)
{
    if (result)
        *result = NULL;
    /* The invite-failed events come only to a subscribed leader (GROUP-8). */
    int rc = PMI2X_Group_subscribe();
    if (rc != PMI2_SUCCESS)
        return rc;
    greq g;
    if ((rc = begin(&g, "group-invite", grp)) != PMI2_SUCCESS)
        return rc;
    if (timeout_ms < 0 || ninvitees < 1 || !invitees) {
        return greq_drop(&g, local_fail(PMI2_ERR_INVALID_ARG, "invalid",
                                        "bad timeout or no invitees"));
    }
    if (!(g.lists[0] = join_list(invitees, ninvitees, "invitees", &rc))) {
        return greq_drop(&g, rc);
    }
    pmc_enc_str(&g.e, "members", g.lists[0]);
    if (timeout_ms > 0)
        pmc_enc_int(&g.e, "timeout", timeout_ms);
    if ((rc = add_info(&g, info, ninfo)) != PMI2_SUCCESS) {
        return greq_drop(&g, rc);
    }
    return group_call(&g, "group-invite-response", timeout_ms, true, result);
}

PMIC_EXPORT int PMI2X_Group_join(const char grp[], int accept, const PMI2_keyval_t info[],
                                 int ninfo)
{
    greq g;
    int rc = begin(&g, "group-join", grp);
    if (rc != PMI2_SUCCESS)
        return rc;
    pmc_enc_bool(&g.e, "accept", accept != 0);
    /* GROUP-22: only an accepting join contributes. */
    if (accept && (rc = add_info(&g, info, ninfo)) != PMI2_SUCCESS) {
        return greq_drop(&g, rc);
    }
    return group_call(&g, "group-join-response", 0, false, NULL);
}

/* ---------------------------------------------------------------- events */

PMIC_EXPORT int PMI2X_Group_next_event(int timeout_ms, PMI2X_Group_event **event)
{
    if (!event)
        return local_fail(PMI2_ERR_INVALID_ARG, "invalid", "event is NULL");
    *event = NULL;
    int rc = PMI2X_Group_subscribe();
    if (rc != PMI2_SUCCESS)
        return rc;
    pmic_resp *r = NULL;
    pmic_status st = pmic_engine_next_event(&pmic_S.eng, timeout_ms, &r);
    if (st != PMIC_OK)
        return from_status(st, "group-event");
    PMI2X_Group_event *ev = pmic_group_event(r);
    pmic_resp_free(r);
    if (!ev)
        return local_fail(PMI2_ERR_NOMEM, "nomem", "out of memory");
    if (ev->kind == PMI2X_EVENT_OTHER)
        pmic_log(1, "group-event %s not understood; handed out as PMI2X_EVENT_OTHER",
                 ev->event ? ev->event : "(no event=)");
    set_reason(NULL, NULL);
    *event = ev;
    return PMI2_SUCCESS;
}

/* ---------------------------------------------------------------- get, destruct */

PMIC_EXPORT int PMI2X_Group_get(const char grp[], const char proc[], const char key[],
                                char value[], int maxvalue, int *found)
{
    if (!value || maxvalue <= 0 || !found || !key || !*key)
        return local_fail(PMI2_ERR_INVALID_ARG, "invalid", "bad value buffer, found or key");
    *found = 0;
    value[0] = 0;
    if (!procid_ok(proc))
        return local_fail(PMI2_ERR_INVALID_ARG, "invalid", "\"%s\" is not a process id",
                          proc ? proc : "(null)");
    greq g;
    int rc = begin(&g, "group-get", grp);
    if (rc != PMI2_SUCCESS)
        return rc;
    pmc_enc_str(&g.e, "proc", proc);
    pmc_enc_str(&g.e, "key", key);
    pmic_resp *r = NULL;
    pmic_status st = pmic_call(&pmic_S.eng, &g.e, PMIC_CALL_TAG, "group-get-response", NULL, &r);
    if (st != PMIC_OK) {
        pmic_resp_free(r);
        return from_status(st, "group-get");
    }
    if (!pmic_resp_ok(r)) {
        const char *reason = pmic_resp_get(r, "reason", NULL);
        set_reason(reason ? reason : "unspecified", pmic_resp_get(r, "errmsg", NULL));
        pmic_resp_free(r);
        return PMI2_FAIL;
    }
    set_reason(NULL, NULL);
    size_t n = 0;
    const char *v = pmic_resp_get(r, "value", &n);
    if (pmic_resp_found(r) && v) {
        *found = 1;
        size_t c = n < (size_t)maxvalue ? n : (size_t)maxvalue - 1;
        memcpy(value, v, c);
        value[c] = 0;
        if (c < n)
            rc = PMI2_ERR_INVALID_VAL_LENGTH;
    }
    pmic_resp_free(r);
    return rc;
}

PMIC_EXPORT int PMI2X_Group_destruct(const char grp[], int timeout_ms,
                                     PMI2X_Group_result **result)
{
    if (result)
        *result = NULL;
    greq g;
    int rc = begin(&g, "group-destruct", grp);
    if (rc != PMI2_SUCCESS)
        return rc;
    if (timeout_ms < 0) {
        return greq_drop(&g, local_fail(PMI2_ERR_INVALID_ARG, "invalid", "timeout %d < 0",
                                        timeout_ms));
    }
    if (timeout_ms > 0)
        pmc_enc_int(&g.e, "timeout", timeout_ms);
    return group_call(&g, "group-destruct-response", timeout_ms, false, result);
}

/* ---------------------------------------------------------------- process ids */

PMIC_EXPORT int PMI2X_Group_make_procid(const char jobid[], int rank, char buf[], int len)
{
    if (!jobid || !*jobid || rank < 0 || !buf || len <= 0)
        return local_fail(PMI2_ERR_INVALID_ARG, "invalid", "bad jobid, rank or buffer");
    int n = snprintf(buf, (size_t)len, "%s:%d", jobid, rank);
    if (n < 0 || n >= len)
        return local_fail(PMI2_ERR_INVALID_LENGTH, "invalid", "buffer of %d bytes too small", len);
    if (!procid_ok(buf))
        return local_fail(PMI2_ERR_INVALID_ARG, "invalid", "job id \"%s\" cannot name a process",
                          jobid);
    set_reason(NULL, NULL);
    return PMI2_SUCCESS;
}

PMIC_EXPORT int PMI2X_Group_procid(char buf[], int len)
{
    char jobid[sizeof pmic_S.jobid];
    int rc = PMI2_Job_GetId(jobid, sizeof jobid);
    if (rc != PMI2_SUCCESS)
        return local_fail(rc, "init", "no job id (%d)", rc);
    return PMI2X_Group_make_procid(jobid, pmic_S.rank, buf, len);
}
