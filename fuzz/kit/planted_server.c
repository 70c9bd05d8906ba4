/* A planted test target for the bench: a small PMI-1 server parser written
 * the way fragile real ones are (tokenising by hand, a fixed pair table, a
 * lookup whose NULL is not checked), with two bugs the issue names:
 *   - a line with 67 or more pairs overflows its 66-entry pair table
 *     (heap-buffer-overflow);
 *   - "abort" without "exitcode" dereferences NULL.
 * It stands in for a third-party parser: it is the thing being fuzzed, so it
 * deliberately does not use the codec.  PLANTED=pairs or PLANTED=abort in
 * the environment keeps only one of the bugs (each is measured on its own). */
#include "planted_server.h"

#include <stdlib.h>
#include <string.h>

enum { TABLE = 66 };

typedef struct pair {
    const char *k, *v;
    size_t kl, vl;
} pair;

static int bugs = PLANTED_PAIRS | PLANTED_ABORT;

void planted_select(int which)
{
    bugs = which;
}

static const pair *find(const pair *t, size_t n, const char *k)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].kl == strlen(k) && memcmp(t[i].k, k, t[i].kl) == 0)
            return &t[i];
    return NULL;
}

static long num(const pair *p)
{
    long v = 0;
    for (size_t i = 0; i < p->vl && p->v[i] >= '0' && p->v[i] <= '9'; i++)
        v = v * 10 + (p->v[i] - '0');
    return v;
}

int planted_handle(const char *buf, size_t len)
{
    if (len < 5 || memcmp(buf, "cmd=", 4) != 0 || buf[len - 1] != '\n')
        return -1;
    pair *t = malloc(TABLE * sizeof *t);
    if (!t)
        return -1;
    size_t n = 0, cap = (bugs & PLANTED_PAIRS) ? (size_t)-1 : TABLE;
    const char *p = buf, *end = buf + len - 1;
    while (p < end) {
        while (p < end && *p == ' ')
            p++;
        const char *tok = p;
        while (p < end && *p != ' ')
            p++;
        const char *eq = memchr(tok, '=', (size_t)(p - tok));
        if (!eq)
            continue;
        if (n >= cap)
            break;
        t[n++] = (pair){ tok, eq + 1, (size_t)(eq - tok), (size_t)(p - eq - 1) }; /* bug 1 */
    }
    int rc = 0;
    const pair *cmd = n ? &t[0] : NULL;
    if (!cmd || cmd->kl != 3) {
        rc = -1;
    } else if (cmd->vl == 5 && memcmp(cmd->v, "abort", 5) == 0) {
        const pair *code = find(t + 1, n - 1, "exitcode");
        if (!code && !(bugs & PLANTED_ABORT))
            rc = -1;
        else
            rc = (int)num(code); /* bug 2: code is NULL when the key is missing */
    } else if (cmd->vl == 3 && memcmp(cmd->v, "put", 3) == 0) {
        rc = find(t + 1, n - 1, "kvsname") && find(t + 1, n - 1, "key") &&
                     find(t + 1, n - 1, "value")
                 ? 0
                 : -1;
    } else if (cmd->vl == 3 && memcmp(cmd->v, "get", 3) == 0) {
        rc = find(t + 1, n - 1, "key") ? 0 : -1;
    } else if (cmd->vl == 4 && memcmp(cmd->v, "init", 4) == 0) {
        const pair *v = find(t + 1, n - 1, "pmi_version");
        rc = v && num(v) <= 2 ? 0 : -1;
    }
    free(t);
    return rc;
}
