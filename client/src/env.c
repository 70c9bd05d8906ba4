/* What the process manager tells the client through the environment
 * (SPEC.md section 2.1). */
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ENV-8: a numeric variable that is not a decimal integer is an error, not 0. */
static int env_long(const char *name, long lo, long hi, bool *present, long *out, char *err,
                    size_t errlen)
{
    const char *s = getenv(name);
    *present = false;
    if (!s)
        return 0;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi) {
        snprintf(err, errlen, "%s=\"%s\" is not a decimal integer in [%ld,%ld]", name, s, lo, hi);
        return -1;
    }
    *present = true;
    *out = v;
    return 0;
}

static char *read_secret_file(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "PMI_AUTH_SECRET_FILE %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        char *nb = cap < (1u << 20) ? realloc(buf, 2 * cap + 1) : NULL;
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    bool bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        snprintf(err, errlen, "PMI_AUTH_SECRET_FILE %s: cannot read", path);
        return NULL;
    }
    /* A trailing newline is not part of the secret (the mock server agrees). */
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        n--;
    buf[n] = 0;
    *len = n;
    return buf;
}

int pmic_env_read(pmic_env *e, char *err, size_t errlen)
{
    memset(e, 0, sizeof *e);
    e->fd = -1;
    bool have;
    long v;

    if (env_long("PMI_FD", 0, INT_MAX, &have, &v, err, errlen) < 0)
        return -1;
    if (have)
        e->fd = (int)v; /* ENV-2: PMI_FD wins over PMI_PORT */
    else {
        const char *p = getenv("PMI_PORT");
        if (p && *p)
            e->port = p;
    }
    if (env_long("PMI_ID", LONG_MIN, LONG_MAX, &have, &v, err, errlen) < 0)
        return -1;
    e->has_id = have;
    e->id = v;
    if (env_long("PMI_RANK", 0, INT_MAX, &have, &v, err, errlen) < 0)
        return -1;
    e->has_rank = have;
    e->rank = have ? (int)v : 0;
    if (env_long("PMI_SIZE", 1, INT_MAX, &have, &v, err, errlen) < 0)
        return -1;
    e->has_size = have;
    e->size = have ? (int)v : 1;
    if (env_long("PMI_SPAWNED", 0, INT_MAX, &have, &v, err, errlen) < 0)
        return -1;
    e->spawned = have && v != 0; /* ENV-7: absent is "not spawned" */
    const char *tv = getenv("PMI_TOTALVIEW");
    e->totalview = tv && *tv && strcmp(tv, "0") != 0;
    const char *j = getenv("PMI_JOBID");
    e->jobid = j && *j ? j : NULL;

    /* ENV-10/ENV-11: POSIX or OpenSSL, case-insensitive; anything else fails. */
    const char *st = getenv("PMI_SOCKTYPE");
    if (st && *st) {
        if (strcasecmp(st, "OpenSSL") == 0)
            e->tls = true;
        else if (strcasecmp(st, "POSIX") != 0) {
            snprintf(err, errlen, "PMI_SOCKTYPE=\"%s\": expected POSIX or OpenSSL", st);
            return -1;
        }
    }
    const char *ca = getenv("PMI_TLS_CA");
    e->tls_ca = ca && *ca ? ca : NULL;

    const char *dbg = getenv("PMI2_DEBUG");
    if (!dbg || !*dbg)
        dbg = getenv("PMI_DEBUG");
    e->debug = dbg && *dbg ? atoi(dbg) : 0;

    const char *sf = getenv("PMI_AUTH_SECRET_FILE");
    const char *s = getenv("PMI_AUTH_SECRET");
    if (sf && *sf) {
        e->secret = read_secret_file(sf, &e->secret_len, err, errlen);
        if (!e->secret)
            return -1;
    } else if (s && *s) {
        e->secret_len = strlen(s);
        e->secret = malloc(e->secret_len + 1);
        if (!e->secret) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        memcpy(e->secret, s, e->secret_len + 1);
    }
    return 0;
}

void pmic_env_clear(pmic_env *e)
{
    if (e->secret) {
        /* The secret does not outlive initialisation in our memory. */
        volatile char *p = e->secret;
        for (size_t i = 0; i < e->secret_len; i++)
            p[i] = 0;
        free(e->secret);
    }
    e->secret = NULL;
    e->secret_len = 0;
}
