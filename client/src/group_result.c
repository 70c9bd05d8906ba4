/* Group responses and group-event frames (SPEC.md 12.9) turned into the
 * owned structures of pmi2ext.h, and their freeing. */
#include "internal.h"
#include "pmi2ext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

/* A copy of the value of key, NULL when absent; *nomem on failure. */
static char *dup_key(const pmic_resp *r, const char *key, bool *nomem)
{
    size_t n;
    const char *v = pmic_resp_get(r, key, &n);
    if (!v)
        return NULL;
    char *d = dup_n(v, n);
    if (!d)
        *nomem = true;
    return d;
}

/* proclist = procid *("," procid) (GROUP-5); an empty value is no process. */
static int split_list(const char *s, char ***out, int *n)
{
    *out = NULL;
    *n = 0;
    if (!s || !*s)
        return 0;
    int count = 1;
    for (const char *p = s; *p; p++)
        count += *p == ',';
    char **l = calloc((size_t)count, sizeof *l);
    if (!l)
        return -1;
    int i = 0;
    for (const char *p = s;; i++) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (!(l[i] = dup_n(p, len))) {
            for (int j = 0; j < i; j++)
                free(l[j]);
            free(l);
            return -1;
        }
        if (!c)
            break;
        p = c + 1;
    }
    *out = l;
    *n = count;
    return 0;
}

static void free_list(char **l, int n)
{
    for (int i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

PMIC_EXPORT void PMI2X_Group_result_free(PMI2X_Group_result *res)
{
    if (!res)
        return;
    free(res->grp);
    free_list(res->members, res->nmembers);
    for (int i = 0; i < res->ninfo; i++) {
        free((char *)res->info[i].proc);
        free((char *)res->info[i].key);
        free((char *)res->info[i].val);
    }
    free(res->info);
    free(res->reason);
    free(res->errmsg);
    free_list(res->failed, res->nfailed);
    free(res);
}

/* result-info (GROUP-22): infocount, then infoproc/infokey/infoval<i>. */
static int read_info(const pmic_resp *r, PMI2X_Group_result *res, bool *bad)
{
    long long count;
    int g = pmic_resp_int(r, "infocount", &count);
    if (g == 0)
        return 0;
    if (g < 0 || count < 0 || count > 1 << 20) {
        *bad = true;
        return 0;
    }
    if (count == 0)
        return 0;
    res->info = calloc((size_t)count, sizeof *res->info);
    if (!res->info)
        return -1;
    for (long long i = 0; i < count; i++) {
        char kp[32], kk[32], kv[32];
        snprintf(kp, sizeof kp, "infoproc%lld", i);
        snprintf(kk, sizeof kk, "infokey%lld", i);
        snprintf(kv, sizeof kv, "infoval%lld", i);
        size_t np, nk, nv;
        const char *p = pmic_resp_get(r, kp, &np);
        const char *k = pmic_resp_get(r, kk, &nk);
        const char *v = pmic_resp_get(r, kv, &nv);
        if (!p || !k || !v) {
            *bad = true;
            return 0;
        }
        PMI2X_Group_info *in = &res->info[res->ninfo];
        in->proc = dup_n(p, np);
        in->key = dup_n(k, nk);
        in->val = dup_n(v, nv);
        res->ninfo++; /* counted now: the free path releases what was copied */
        if (!in->proc || !in->key || !in->val)
            return -1;
    }
    return 0;
}

PMI2X_Group_result *pmic_group_result(const pmic_resp *r, bool group, bool *bad)
{
    *bad = false;
    PMI2X_Group_result *res = calloc(1, sizeof *res);
    if (!res)
        return NULL;
    bool nomem = false;
    long long rc = 0;
    int g = pmic_resp_int(r, "rc", &rc); /* absent: 0 (RC-3) */
    if (g < 0) {
        *bad = true;
        rc = 1;
    }
    res->rc = rc == 0 ? 0 : rc > 0 && rc < 1 << 30 ? (int)rc : 1;
    res->grp = dup_key(r, "grp", &nomem);
    res->errmsg = dup_key(r, "errmsg", &nomem);
    /* failed: the culprits of a failure, the invitees that did not join an
     * invite that completed (GROUP-21). */
    if (split_list(pmic_resp_get(r, "failed", NULL), &res->failed, &res->nfailed) < 0)
        nomem = true;
    if (res->rc == 0) {
        if (group) {
            long long ctxid;
            const char *members = pmic_resp_get(r, "members", NULL);
            if (pmic_resp_int(r, "ctxid", &ctxid) != 1 || ctxid < 1 || !members)
                *bad = true; /* GROUP-14, GROUP-15 */
            else
                res->ctxid = ctxid;
            if (split_list(members, &res->members, &res->nmembers) < 0 ||
                read_info(r, res, bad) < 0)
                nomem = true;
        }
    } else {
        /* GROUP-29: reason is required; an answer without one still failed. */
        res->reason = dup_key(r, "reason", &nomem);
        if (!res->reason && !nomem && !(res->reason = dup_n("unspecified", 11)))
            nomem = true;
    }
    if (nomem) {
        PMI2X_Group_result_free(res);
        return NULL;
    }
    return res;
}

PMI2X_Group_event *pmic_group_event(const pmic_resp *r)
{
    PMI2X_Group_event *ev = calloc(1, sizeof *ev);
    if (!ev)
        return NULL;
    bool nomem = false;
    ev->event = dup_key(r, "event", &nomem);
    ev->grp = dup_key(r, "grp", &nomem);
    const char *name = ev->event ? ev->event : "";
    if (strcmp(name, "invited") == 0) {
        ev->leader = dup_key(r, "leader", &nomem);
        if (ev->grp && ev->leader)
            ev->kind = PMI2X_EVENT_INVITED;
    } else if (strcmp(name, "invite-failed") == 0) {
        ev->proc = dup_key(r, "proc", &nomem);
        ev->reason = dup_key(r, "reason", &nomem);
        if (ev->grp && ev->proc && ev->reason)
            ev->kind = PMI2X_EVENT_INVITE_FAILED;
    } else if (strcmp(name, "complete") == 0 && ev->grp) {
        bool bad;
        ev->result = pmic_group_result(r, true, &bad);
        if (!ev->result)
            nomem = true;
        else if (!bad)
            ev->kind = PMI2X_EVENT_COMPLETE;
        if (ev->result && ev->result->reason && !(ev->reason = strdup(ev->result->reason)))
            nomem = true;
    }
    if (nomem) {
        PMI2X_Group_event_free(ev);
        return NULL;
    }
    return ev;
}

PMIC_EXPORT void PMI2X_Group_event_free(PMI2X_Group_event *ev)
{
    if (!ev)
        return;
    free(ev->event);
    free(ev->grp);
    free(ev->leader);
    free(ev->proc);
    free(ev->reason);
    PMI2X_Group_result_free(ev->result);
    free(ev);
}

PMIC_EXPORT const char *PMI2X_Group_info_get(const PMI2X_Group_result *res, const char proc[],
                                             const char key[])
{
    if (!res || !proc || !key)
        return NULL;
    for (int i = 0; i < res->ninfo; i++)
        if (strcmp(res->info[i].proc, proc) == 0 && strcmp(res->info[i].key, key) == 0)
            return res->info[i].val;
    return NULL;
}
