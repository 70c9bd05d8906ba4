/* Schema table, command lookup and pmc_validate.  Messages are built by hand
 * (pairs arrays), so these tests do not depend on the decoder. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmicodec/schema.h"

/* ------------------------------------------------------------ message builder */

enum { TM_PAIRS = 4096, TM_ARENA = 1 << 17 };

typedef struct tmsg {
    pmc_msg m;
    pmc_pair pairs[TM_PAIRS];
    char arena[TM_ARENA];
    size_t used;
} tmsg;

static tmsg *tm_new(pmc_wire w, const char *name)
{
    tmsg *t = calloc(1, sizeof *t);
    ck_assert_ptr_nonnull(t);
    t->m.wire = w;
    t->m.name = pmc_slice_cstr(name);
    t->m.cmd = pmc_cmd_lookup(w, name, strlen(name));
    t->m.pairs = t->pairs;
    return t;
}

static const char *tm_keep(tmsg *t, const char *s, size_t n)
{
    ck_assert_uint_lt(t->used + n + 1, TM_ARENA);
    char *d = t->arena + t->used;
    memcpy(d, s, n);
    d[n] = '\0';
    t->used += n + 1;
    return d;
}

/* "key=value" (split at the first '='), or a bare "key". */
static void tm_add(tmsg *t, const char *kv)
{
    ck_assert_uint_lt(t->m.npairs, TM_PAIRS);
    pmc_pair *p = &t->pairs[t->m.npairs++];
    const char *eq = strchr(kv, '=');
    size_t klen = eq ? (size_t)(eq - kv) : strlen(kv);
    p->key = (pmc_slice){ tm_keep(t, kv, klen), klen };
    if (eq) {
        size_t vlen = strlen(eq + 1);
        p->val = (pmc_slice){ tm_keep(t, eq + 1, vlen), vlen };
        p->flags = 0;
    } else {
        p->val = (pmc_slice){ tm_keep(t, "", 0), 0 };
        p->flags = PMC_PAIR_BARE;
    }
}

static void tm_addf(tmsg *t, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    tm_add(t, buf);
}

/* Build from a NULL-terminated list of "k=v" strings. */
static tmsg *tm(pmc_wire w, const char *name, ...)
{
    tmsg *t = tm_new(w, name);
    va_list ap;
    va_start(ap, name);
    for (const char *kv; (kv = va_arg(ap, const char *)) != NULL;)
        tm_add(t, kv);
    va_end(ap);
    return t;
}

/* Index of the first finding with this code (and key, when given), or -1. */
static int find(const pmc_vreport *r, pmc_errcode code, const char *key)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->f[i].code == code && (!key || pmc_slice_eq(r->f[i].key, key)))
            return (int)i;
    return -1;
}

static void dump(const pmc_vreport *r)
{
    for (size_t i = 0; i < r->n; i++)
        fprintf(stderr, "  finding %zu: code %d fatal %d key '%.*s': %s\n", i, (int)r->f[i].code,
                (int)r->f[i].fatal, (int)r->f[i].key.len, r->f[i].key.ptr ? r->f[i].key.ptr : "",
                r->f[i].detail);
}

static void expect_clean(const tmsg *t, uint32_t flags)
{
    pmc_vreport r;
    bool ok = pmc_validate(&t->m, flags, &r);
    if (!ok || r.n != 0)
        dump(&r);
    ck_assert(ok);
    ck_assert(r.ok);
    ck_assert_uint_eq(r.n, 0);
    ck_assert_uint_eq(r.total, 0);
}

#define STRICT_ALL (PMC_VAL_UNKNOWN_KEYS | PMC_VAL_STRICT)

/* ------------------------------------------------------------ table and lookup */

START_TEST(table_is_complete_and_consistent)
{
    size_t n = 0;
    const pmc_cmdspec *all = pmc_schema_all(&n);
    ck_assert_ptr_nonnull(all);
    ck_assert_uint_eq(n, (size_t)PMC_CMD__COUNT - 1);
    for (size_t i = 0; i < n; i++) {
        const pmc_cmdspec *s = &all[i];
        ck_assert_int_eq((int)s->id, (int)(i + 1));
        ck_assert_ptr_eq(pmc_schema_get(s->id), s);
        ck_assert_msg(s->name && s->name[0], "id %zu has no name", i + 1);
        ck_assert_msg(s->wire == PMC_WIRE_V1 || s->wire == PMC_WIRE_V2, "%s: wire", s->name);
        ck_assert_msg(s->dir >= 1 && s->dir <= 3, "%s: dir", s->name);
        ck_assert_msg(s->origin != 0 && (s->origin & ~0xfu) == 0, "%s: origin", s->name);
        ck_assert_msg(s->summary && s->summary[0], "%s: summary", s->name);
        /* a SPEC.md clause id: AREA-<n>, optionally a lower-case suffix (V1CMD-18a) */
        ck_assert_msg(s->clause != NULL, "%s: no clause", s->name);
        size_t a = strspn(s->clause, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
        size_t d = a && s->clause[a] == '-' ? strspn(s->clause + a + 1, "0123456789") : 0;
        const char *rest = s->clause + a + 1 + d;
        ck_assert_msg(a > 0 && d > 0 && (rest[0] == '\0' || (rest[0] >= 'a' && rest[0] <= 'z' &&
                                                             rest[1] == '\0')),
                      "%s: clause '%s'", s->name, s->clause);
        ck_assert_msg(s->nkeys <= 32, "%s: %zu keys", s->name, s->nkeys);
        ck_assert_msg((s->nkeys == 0) == (s->keys == NULL), "%s: keys/nkeys", s->name);
        if (s->reply != PMC_CMD_UNKNOWN) {
            const pmc_cmdspec *rs = pmc_schema_get(s->reply);
            ck_assert_ptr_nonnull(rs);
            ck_assert_int_eq(rs->wire, s->wire);
            if (s->dir == PMC_DIR_REQUEST)
                ck_assert_msg(rs->dir & PMC_DIR_RESPONSE, "%s: reply %s", s->name, rs->name);
        }
        for (size_t k = 0; k < s->nkeys; k++) {
            const pmc_keyspec *ks = &s->keys[k];
            ck_assert_msg(ks->name && ks->name[0], "%s: key %zu", s->name, k);
            ck_assert_msg(ks->name_len == strlen(ks->name), "%s.%s name_len %u", s->name,
                          ks->name, (unsigned)ks->name_len);
            ck_assert_msg(ks->type <= PMC_T_BOOLINT, "%s.%s type", s->name, ks->name);
            ck_assert_msg(ks->origin != 0, "%s.%s origin", s->name, ks->name);
            for (size_t j = 0; j < k; j++)
                ck_assert_msg(strcmp(s->keys[j].name, ks->name) != 0, "%s.%s twice", s->name,
                              ks->name);
            if (ks->flags & (PMC_K_INDEXED | PMC_K_SEGMENT)) {
                ck_assert_msg(ks->count_key != NULL, "%s.%s count_key", s->name, ks->name);
                bool found = false;
                for (size_t j = 0; j < s->nkeys; j++)
                    if (strcmp(s->keys[j].name, ks->count_key) == 0) {
                        found = true;
                        ck_assert_int_eq(s->keys[j].type, PMC_T_UINT);
                        /* a segment's counts live in the segment, the rest do not */
                        if (ks->flags & PMC_K_INDEXED)
                            ck_assert_int_eq(s->keys[j].flags & PMC_K_IN_SEGMENT,
                                             ks->flags & PMC_K_IN_SEGMENT);
                    }
                ck_assert_msg(found, "%s.%s: count key %s", s->name, ks->name, ks->count_key);
                if (ks->flags & PMC_K_INDEXED)
                    ck_assert(ks->index_base == 0 || ks->index_base == 1);
            }
            if (ks->flags & PMC_K_ALIAS) {
                bool found = false;
                for (size_t j = 0; j < s->nkeys; j++)
                    found |= j != k && strcmp(s->keys[j].name, ks->alias_of) == 0;
                ck_assert_msg(found, "%s.%s alias of %s", s->name, ks->name, ks->alias_of);
            }
        }
    }
}
END_TEST

START_TEST(lookup_round_trips)
{
    size_t n = 0;
    const pmc_cmdspec *all = pmc_schema_all(&n);
    for (size_t i = 0; i < n; i++) {
        const pmc_cmdspec *s = &all[i];
        size_t len = strlen(s->name);
        ck_assert_msg(pmc_cmd_lookup(s->wire, s->name, len) == s->id, "%s", s->name);
        ck_assert_ptr_eq(pmc_schema_lookup(s->wire, s->name, len), s);
        if (s->wire == PMC_WIRE_V1)
            ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_V1_MCMD, s->name, len), s->id);
        /* a prefix or an extension of a name is not that name */
        pmc_cmd shorter = pmc_cmd_lookup(s->wire, s->name, len - 1);
        ck_assert_int_ne(shorter, s->id);
        char longer[64];
        snprintf(longer, sizeof longer, "%sx", s->name);
        ck_assert_int_eq(pmc_cmd_lookup(s->wire, longer, len + 1), PMC_CMD_UNKNOWN);
    }
    /* names that exist in both wire forms map to different ids */
    ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_V1, "finalize", 8), PMC_V1_FINALIZE);
    ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_V2, "finalize", 8), PMC_V2_FINALIZE);
    ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_V1_MCMD, "spawn", 5), PMC_V1_SPAWN);
    ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_V2, "spawn", 5), PMC_V2_SPAWN);
    ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_V1, "put_ranks2hosts", 15),
                     PMC_V1_RANKS2HOSTS_RESULT);
}
END_TEST

START_TEST(lookup_unknown)
{
    ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_V2, "frobnicate", 10), PMC_CMD_UNKNOWN);
    ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_V2, "", 0), PMC_CMD_UNKNOWN);
    ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_V2, "KVS-GET", 7), PMC_CMD_UNKNOWN);
    ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_V2, "get_maxes", 9), PMC_CMD_UNKNOWN);
    ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_V1, "kvs-get", 7), PMC_CMD_UNKNOWN);
    ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_V1, "get_maxes\r", 10), PMC_CMD_UNKNOWN);
    ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_V2, "job-geti", 8), PMC_CMD_UNKNOWN);
    ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_NONE, "kvs-get", 7), PMC_CMD_UNKNOWN);
    ck_assert_int_eq(pmc_cmd_lookup((pmc_wire)77, "kvs-get", 7), PMC_CMD_UNKNOWN);
    ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_V2, NULL, 7), PMC_CMD_UNKNOWN);
    /* length governs, not NUL termination */
    ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_V2, "kvs-getXYZ", 7), PMC_V2_KVS_GET);
    ck_assert_ptr_null(pmc_schema_lookup(PMC_WIRE_V2, "nope", 4));
    ck_assert_ptr_null(pmc_schema_get(PMC_CMD_UNKNOWN));
    ck_assert_ptr_null(pmc_schema_get(PMC_CMD__COUNT));
    ck_assert_ptr_null(pmc_schema_get((pmc_cmd)-1));
    ck_assert_ptr_null(pmc_schema_get((pmc_cmd)100000));
}
END_TEST

/* ------------------------------------------------------------ required keys, every command */

static bool is_count_key(const pmc_cmdspec *s, const char *name)
{
    for (size_t k = 0; k < s->nkeys; k++)
        if ((s->keys[k].flags & (PMC_K_INDEXED | PMC_K_SEGMENT)) && s->keys[k].count_key &&
            strcmp(s->keys[k].count_key, name) == 0)
            return true;
    return false;
}

static const char *good_value(const pmc_cmdspec *s, const pmc_keyspec *ks)
{
    if (is_count_key(s, ks->name) || strcmp(ks->name, "rc") == 0)
        return "0";
    switch ((pmc_ktype)ks->type) {
    case PMC_T_INT:
        return "-1";
    case PMC_T_UINT:
        return "1";
    case PMC_T_BOOL:
        return "TRUE";
    case PMC_T_BOOLINT:
        return "0";
    default:
        return "x";
    }
}

static uint32_t dir_flag(const pmc_cmdspec *s)
{
    return s->dir == PMC_DIR_REQUEST ? PMC_VAL_REQUEST
           : s->dir == PMC_DIR_RESPONSE ? PMC_VAL_RESPONSE
                                        : 0;
}

/* A message with the required keys (omit: index of one to leave out, or -1),
 * or with every plain key when `all` is set. */
static tmsg *build(const pmc_cmdspec *s, int omit, bool all)
{
    tmsg *t = tm_new(s->wire, s->name);
    for (size_t k = 0; k < s->nkeys; k++) {
        const pmc_keyspec *ks = &s->keys[k];
        if ((int)k == omit || (ks->flags & (PMC_K_INDEXED | PMC_K_IN_SEGMENT | PMC_K_SEGMENT |
                                             PMC_K_ALIAS)))
            continue;
        if (!all && !(ks->flags & PMC_K_REQUIRED))
            continue;
        tm_addf(t, "%s=%s", ks->name, good_value(s, ks));
    }
    return t;
}

START_TEST(every_command_minimal_message_is_valid)
{
    size_t n = 0;
    const pmc_cmdspec *all = pmc_schema_all(&n);
    for (size_t i = 0; i < n; i++) {
        tmsg *t = build(&all[i], -1, false);
        pmc_vreport r;
        bool ok = pmc_validate(&t->m, dir_flag(&all[i]) | STRICT_ALL, &r);
        if (!ok || r.n)
            dump(&r);
        ck_assert_msg(ok && r.n == 0, "%s: minimal message rejected", all[i].name);
        free(t);
    }
}
END_TEST

START_TEST(every_command_full_message_is_valid)
{
    /* all plain keys (thrid first, as the draft wants) under strict validation */
    size_t n = 0;
    const pmc_cmdspec *all = pmc_schema_all(&n);
    for (size_t i = 0; i < n; i++) {
        tmsg *t = build(&all[i], -1, true);
        pmc_vreport r;
        bool ok = pmc_validate(&t->m, dir_flag(&all[i]) | STRICT_ALL, &r);
        if (!ok || r.n)
            dump(&r);
        ck_assert_msg(ok && r.n == 0, "%s: full message rejected", all[i].name);
        free(t);
    }
}
END_TEST

START_TEST(every_required_key_is_enforced)
{
    size_t n = 0, checked = 0;
    const pmc_cmdspec *all = pmc_schema_all(&n);
    for (size_t i = 0; i < n; i++) {
        const pmc_cmdspec *s = &all[i];
        for (size_t k = 0; k < s->nkeys; k++) {
            const pmc_keyspec *ks = &s->keys[k];
            if (!(ks->flags & PMC_K_REQUIRED) || (ks->flags & PMC_K_IN_SEGMENT))
                continue;
            tmsg *t = build(s, (int)k, false);
            pmc_vreport r;
            ck_assert_msg(!pmc_validate(&t->m, 0, &r), "%s without %s accepted", s->name,
                          ks->name);
            ck_assert(!r.ok);
            int f = find(&r, PMC_E_MISSING_KEY, ks->name);
            ck_assert_msg(f >= 0, "%s without %s: no MISSING_KEY naming it", s->name, ks->name);
            ck_assert(r.f[f].fatal);
            char want[96];
            snprintf(want, sizeof want, "key '%s' missing", ks->name);
            ck_assert_str_eq(r.f[f].detail, want);
            ck_assert(!pmc_validate(&t->m, 0, NULL));
            checked++;
            free(t);
        }
    }
    ck_assert_uint_gt(checked, 50);
}
END_TEST

/* The required keys of every command, stated independently of the table so
 * that a table edit that drops or adds one is caught.  Commands not listed
 * have none.  Segment keys (spawn's maxprocs, argc) are tested with spawn. */
static const struct {
    pmc_cmd id;
    const char *keys;
} required_keys[] = {
    { PMC_V1_INIT, "pmi_version pmi_subversion" },
    { PMC_V1_PUT, "kvsname key value" },
    { PMC_V1_GET, "kvsname key" },
    { PMC_V1_PUBLISH_NAME, "service port" },
    { PMC_V1_UNPUBLISH_NAME, "service" },
    { PMC_V1_LOOKUP_NAME, "service" },
    { PMC_V1_SPAWN, "nprocs execname totspawns spawnssofar argcnt" },
    { PMC_V1_DESTROY_KVS, "kvsname" },
    { PMC_V1_GETBYIDX, "kvsname idx" },
    { PMC_V1_INIT_OOB, "signal" },
    { PMC_V1_RESPONSE_TO_INIT, "pmi_version pmi_subversion" },
    { PMC_V1_MAXES, "kvsname_max keylen_max vallen_max" },
    { PMC_V1_APPNUM, "appnum" },
    { PMC_V1_MY_KVSNAME, "kvsname" },
    { PMC_V1_UNIVERSE_SIZE, "size" },
    { PMC_V1_SINGINIT_INFO, "versionok kvsname" },
    { PMC_V2_AUTH_RESPONSE_COMPLETE, "authinfo" },
    { PMC_V2_JOB_CONNECT, "jobid" },
    { PMC_V2_JOB_DISCONNECT, "jobid" },
    { PMC_V2_SPAWN, "ncmds" },
    { PMC_V2_SPAWN_CMD, "maxprocs argc" },
    { PMC_V2_KVS_PUT, "key value" },
    { PMC_V2_KVS_GET, "key" },
    { PMC_V2_KVS_PUTALL, "npair" },
    { PMC_V2_KVS_PUTALL_PAIR, "key val" },
    { PMC_V2_INFO_PUTNODEATTR, "key value" },
    { PMC_V2_INFO_GETNODEATTR, "key" },
    { PMC_V2_INFO_GETJOBATTR, "key" },
    { PMC_V2_NAME_PUBLISH, "name port" },
    { PMC_V2_NAME_UNPUBLISH, "name" },
    { PMC_V2_NAME_LOOKUP, "name" },
    { PMC_V2_RING, "ring-count ring-left ring-right" },
    { PMC_V2_CONCAT, "concatid" },
    { PMC_V2_FULLINIT_RESPONSE, "rc rank size appnum" },
    { PMC_V2_AUTH_RESPONSE, "authinfo" },
    { PMC_V2_FINALIZE_RESPONSE, "rc" },
    { PMC_V2_JOB_GETID_RESPONSE, "rc jobid" },
    { PMC_V2_JOB_CONNECT_RESPONSE, "rc kvscopy" },
    { PMC_V2_JOB_DISCONNECT_RESPONSE, "rc" },
    { PMC_V2_SPAWN_RESPONSE, "rc" },
    { PMC_V2_KVS_PUT_RESPONSE, "rc" },
    { PMC_V2_KVS_GET_RESPONSE, "rc" },
    { PMC_V2_KVS_FENCE_RESPONSE, "rc" },
    { PMC_V2_KVS_GETALL_PAIRCOUNT_RESPONSE, "rc npair" },
    { PMC_V2_KVS_GETALL_PAIR_RESPONSE, "rc key val" },
    { PMC_V2_KVS_GETALL_RESPONSE, "rc" },
    { PMC_V2_KVS_PUTALL_RESPONSE, "rc" },
    { PMC_V2_INFO_PUTNODEATTR_RESPONSE, "rc" },
    { PMC_V2_INFO_GETNODEATTR_RESPONSE, "rc" },
    { PMC_V2_INFO_GETJOBATTR_RESPONSE, "rc" },
    { PMC_V2_NAME_PUBLISH_RESPONSE, "rc" },
    { PMC_V2_NAME_UNPUBLISH_RESPONSE, "rc" },
    { PMC_V2_NAME_LOOKUP_RESPONSE, "rc" },
    { PMC_V2_RING_RESPONSE, "rc ring-count ring-left ring-right" },
    { PMC_V2_GROUP_CONSTRUCT, "grp method" },
    { PMC_V2_GROUP_INVITE, "grp members" },
    { PMC_V2_GROUP_JOIN, "grp accept" },
    { PMC_V2_GROUP_DESTRUCT, "grp" },
    { PMC_V2_GROUP_GET, "grp proc key" },
    { PMC_V2_GROUP_SUBSCRIBE_RESPONSE, "rc" },
    { PMC_V2_GROUP_CONSTRUCT_RESPONSE, "rc" },
    { PMC_V2_GROUP_INVITE_RESPONSE, "rc" },
    { PMC_V2_GROUP_JOIN_RESPONSE, "rc" },
    { PMC_V2_GROUP_DESTRUCT_RESPONSE, "rc" },
    { PMC_V2_GROUP_GET_RESPONSE, "rc" },
    { PMC_V2_GROUP_EVENT, "event grp" },
};

START_TEST(required_keys_match_expectations)
{
    size_t n = 0;
    const pmc_cmdspec *all = pmc_schema_all(&n);
    for (size_t i = 0; i < n; i++) {
        const pmc_cmdspec *s = &all[i];
        const char *want = "";
        for (size_t j = 0; j < sizeof required_keys / sizeof required_keys[0]; j++)
            if (required_keys[j].id == s->id)
                want = required_keys[j].keys;
        size_t nwant = 0, nhave = 0;
        for (const char *p = want; *p;) {
            char w[64];
            size_t len = strcspn(p, " ");
            ck_assert_uint_lt(len, sizeof w);
            memcpy(w, p, len);
            w[len] = '\0';
            p += len + (p[len] == ' ');
            bool found = false;
            for (size_t k = 0; k < s->nkeys; k++)
                found |= strcmp(s->keys[k].name, w) == 0 &&
                         (s->keys[k].flags & PMC_K_REQUIRED) &&
                         !(s->keys[k].flags & PMC_K_IN_SEGMENT);
            ck_assert_msg(found, "%s: %s should be required", s->name, w);
            nwant++;
        }
        for (size_t k = 0; k < s->nkeys; k++)
            nhave += (s->keys[k].flags & PMC_K_REQUIRED) && !(s->keys[k].flags & PMC_K_IN_SEGMENT);
        ck_assert_msg(nhave == nwant, "%s: %zu required keys, expected %zu (%s)", s->name, nhave,
                      nwant, want);
    }
}
END_TEST

/* ------------------------------------------------------------ types */

START_TEST(bad_int)
{
    pmc_vreport r;
    tmsg *t = tm(PMC_WIRE_V2, "kvs-get-response", "rc=abc", NULL);
    ck_assert(!pmc_validate(&t->m, PMC_VAL_RESPONSE, &r));
    int f = find(&r, PMC_E_BAD_INT, "rc");
    ck_assert_int_ge(f, 0);
    ck_assert(r.f[f].fatal);
    ck_assert_str_eq(r.f[f].detail, "key 'rc' is not an integer: 'abc'");
    free(t);

    t = tm(PMC_WIRE_V2, "kvs-put-response", "rc=+0", NULL);
    ck_assert(!pmc_validate(&t->m, 0, &r));
    ck_assert_int_ge(find(&r, PMC_E_BAD_INT, "rc"), 0);
    free(t);

    t = tm(PMC_WIRE_V2, "kvs-put-response", "rc=99999999999999999999", NULL);
    ck_assert(!pmc_validate(&t->m, 0, &r));
    free(t);

    t = tm(PMC_WIRE_V2, "kvs-put-response", "rc=", NULL);
    ck_assert(!pmc_validate(&t->m, 0, &r));
    free(t);

    /* optional key: reported, not fatal, unless strict */
    t = tm(PMC_WIRE_V2, "kvs-get", "jobid=kvs_1", "srcid=one", "key=k", NULL);
    ck_assert(pmc_validate(&t->m, PMC_VAL_REQUEST, &r));
    ck_assert_uint_eq(r.n, 1);
    ck_assert_int_eq(r.f[0].code, PMC_E_BAD_INT);
    ck_assert(!r.f[0].fatal);
    ck_assert(!pmc_validate(&t->m, PMC_VAL_STRICT, &r));
    free(t);

    /* negative ints are fine where signed, not where counts are */
    t = tm(PMC_WIRE_V2, "kvs-get", "srcid=-1", "key=k", NULL);
    expect_clean(t, STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V2, "kvs-getall-paircount-response", "rc=0", "npair=-1", NULL);
    ck_assert(!pmc_validate(&t->m, 0, &r));
    f = find(&r, PMC_E_BAD_INT, "npair");
    ck_assert_int_ge(f, 0);
    ck_assert_str_eq(r.f[f].detail, "key 'npair' is not a non-negative integer: '-1'");
    free(t);
    /* 4.0.2's get_result uses rc=-1 */
    t = tm(PMC_WIRE_V1, "get_result", "rc=-1", "msg=key_k_not_found", "value=unknown", NULL);
    expect_clean(t, PMC_VAL_RESPONSE | STRICT_ALL);
    free(t);
}
END_TEST

START_TEST(bools)
{
    pmc_vreport r;
    tmsg *t = tm(PMC_WIRE_V2, "info-getnodeattr", "key=k", "wait=FALSE", NULL);
    expect_clean(t, STRICT_ALL);
    ck_assert(pmc_validate(&t->m, 0, &r));
    ck_assert_uint_eq(r.notes, 0);
    free(t);

    /* the draft's lower case: accepted, noted; fatal when strict */
    t = tm(PMC_WIRE_V2, "info-getnodeattr", "key=k", "wait=true", NULL);
    ck_assert(pmc_validate(&t->m, PMC_VAL_UNKNOWN_KEYS, &r));
    ck_assert_uint_eq(r.n, 0);
    ck_assert(r.notes & PMC_VNOTE_BOOL_LOWER);
    ck_assert(!pmc_validate(&t->m, PMC_VAL_STRICT, &r));
    ck_assert(r.notes & PMC_VNOTE_BOOL_LOWER);
    int f = find(&r, PMC_E_BAD_BOOL, "wait");
    ck_assert_int_ge(f, 0);
    ck_assert(r.f[f].fatal);
    free(t);

    /* anything else is not a boolean */
    static const char *bad[] = { "wait=yes", "wait=1", "wait=", "wait=TRUE ", "wait=T" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        t = tm(PMC_WIRE_V2, "info-getnodeattr", "key=k", bad[i], NULL);
        ck_assert(pmc_validate(&t->m, 0, &r)); /* wait is optional */
        f = find(&r, PMC_E_BAD_BOOL, "wait");
        ck_assert_msg(f >= 0, "%s", bad[i]);
        ck_assert(!r.f[f].fatal);
        ck_assert(!pmc_validate(&t->m, PMC_VAL_STRICT, &r));
        free(t);
    }
    t = tm(PMC_WIRE_V2, "info-getnodeattr", "key=k", "wait=yes", NULL);
    pmc_validate(&t->m, 0, &r);
    ck_assert_str_eq(r.f[0].detail, "key 'wait' is not TRUE or FALSE: 'yes'");
    free(t);

    /* bare "wait" (no '=') has an empty value */
    t = tm(PMC_WIRE_V2, "info-getnodeattr", "key=k", "wait", NULL);
    pmc_validate(&t->m, 0, &r);
    ck_assert_int_ge(find(&r, PMC_E_BAD_BOOL, "wait"), 0);
    free(t);
}
END_TEST

START_TEST(flag_alias_of_found)
{
    pmc_vreport r;
    static const char *cmds[] = { "kvs-get-response", "info-getnodeattr-response",
                                  "info-getjobattr-response", "name-lookup-response" };
    for (size_t i = 0; i < 4; i++) {
        tmsg *t = tm(PMC_WIRE_V2, cmds[i], "rc=0", "flag=TRUE", NULL);
        expect_clean(t, PMC_VAL_RESPONSE | STRICT_ALL);
        free(t);
        t = tm(PMC_WIRE_V2, cmds[i], "rc=0", "flag=maybe", NULL);
        pmc_validate(&t->m, 0, &r);
        ck_assert_msg(find(&r, PMC_E_BAD_BOOL, "flag") >= 0, "%s", cmds[i]);
        free(t);
        t = tm(PMC_WIRE_V2, cmds[i], "rc=0", "found=FALSE", NULL);
        expect_clean(t, PMC_VAL_RESPONSE | STRICT_ALL);
        free(t);
    }
    /* name-lookup-response: Hydra's port, the draft's and Slurm's value */
    tmsg *t = tm(PMC_WIRE_V2, "name-lookup-response", "port=p0", "found=TRUE", "rc=0", NULL);
    expect_clean(t, STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V2, "name-lookup-response", "rc=0", "value=p0", NULL);
    expect_clean(t, STRICT_ALL);
    free(t);
    /* flag and found are one key: the second spelling is a duplicate, and the
     * first occurrence wins as on every server */
    t = tm(PMC_WIRE_V2, "kvs-get-response", "rc=0", "flag=TRUE", "found=maybe", NULL);
    expect_clean(t, STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V2, "kvs-get-response", "rc=0", "found=maybe", "flag=TRUE", NULL);
    pmc_validate(&t->m, 0, &r);
    ck_assert_uint_eq(r.n, 1);
    ck_assert_int_ge(find(&r, PMC_E_BAD_BOOL, "found"), 0);
    free(t);
    /* the draft's misspelt thrid in spawn-response */
    t = tm(PMC_WIRE_V2, "spawn-response", "third=sp1", "rc=0", "jobid=kvs_1", "nerrs=0", NULL);
    expect_clean(t, STRICT_ALL);
    free(t);
}
END_TEST

START_TEST(pmiverbose_bool_or_int)
{
    pmc_vreport r;
    /* Hydra 4.0.2 / Slurm / draft */
    tmsg *t = tm(PMC_WIRE_V2, "fullinit-response", "pmi-version=2", "pmi-subversion=0", "rank=0",
                 "size=2", "appnum=0", "debugged=FALSE", "pmiverbose=TRUE", "rc=0", NULL);
    expect_clean(t, PMC_VAL_RESPONSE | STRICT_ALL);
    free(t);
    /* Hydra 4.1+ */
    t = tm(PMC_WIRE_V2, "fullinit-response", "rc=0", "rank=0", "size=2", "appnum=0",
           "pmiverbose=0", NULL);
    expect_clean(t, PMC_VAL_RESPONSE | STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V2, "fullinit-response", "rc=0", "rank=0", "size=2", "appnum=0",
           "pmiverbose=maybe", NULL);
    ck_assert(pmc_validate(&t->m, 0, &r));
    ck_assert_int_ge(find(&r, PMC_E_BAD_BOOL, "pmiverbose"), 0);
    free(t);
    t = tm(PMC_WIRE_V2, "fullinit-response", "rc=0", "rank=0", "size=2", "appnum=0",
           "pmiverbose=false", NULL);
    ck_assert(pmc_validate(&t->m, 0, &r));
    ck_assert(r.notes & PMC_VNOTE_BOOL_LOWER);
    free(t);
}
END_TEST

START_TEST(failed_response_may_omit_payload)
{
    pmc_vreport r;
    /* Slurm: fullinit-response;rc=3 with the rest possibly missing */
    tmsg *t = tm(PMC_WIRE_V2, "fullinit-response", "rc=3", "errmsg=pmijobid missing", NULL);
    expect_clean(t, PMC_VAL_RESPONSE | STRICT_ALL);
    free(t);
    /* Hydra 4.1+ not found */
    t = tm(PMC_WIRE_V2, "job-getid-response", "rc=1", NULL);
    expect_clean(t, STRICT_ALL);
    free(t);
    /* success must carry the payload */
    t = tm(PMC_WIRE_V2, "fullinit-response", "rc=0", "rank=0", "size=2", NULL);
    ck_assert(!pmc_validate(&t->m, 0, &r));
    ck_assert_int_ge(find(&r, PMC_E_MISSING_KEY, "appnum"), 0);
    free(t);
}
END_TEST

/* ------------------------------------------------------------ spawn */

static tmsg *spawn2(const char *ncmds)
{
    return tm(PMC_WIRE_V2, "spawn", "thrid=sp1", ncmds, "preputcount=1", "ppkey0=PARENT_KEY",
              "ppval0=parent-val", "subcmd=/usr/bin/python3", "maxprocs=2", "argc=2",
              "argv0=/probe.py", "argv1=child", "infokeycount=1", "infokey0=wdir",
              "infoval0=/tmp", "subcmd=/bin/true", "maxprocs=1", "argc=0", NULL);
}

START_TEST(spawn_two_commands)
{
    tmsg *t = spawn2("ncmds=2");
    expect_clean(t, PMC_VAL_REQUEST | STRICT_ALL);
    free(t);
    /* Slurm's captured request */
    t = tm(PMC_WIRE_V2, "spawn", "ncmds=1", "preputcount=1", "ppkey0=pk", "ppval0=pv",
           "subcmd=/bin/sleep", "maxprocs=1", "argc=1", "argv0=1", "infokeycount=1",
           "infokey0=wdir", "infoval0=/tmp", NULL);
    expect_clean(t, PMC_VAL_REQUEST | STRICT_ALL);
    free(t);
    /* HEAD puts thrid last: fine, except under strict */
    t = tm(PMC_WIRE_V2, "spawn", "ncmds=1", "preputcount=0", "subcmd=a", "maxprocs=1", "argc=0",
           "thrid=0x1", NULL);
    expect_clean(t, PMC_VAL_UNKNOWN_KEYS);
    pmc_vreport r;
    ck_assert(!pmc_validate(&t->m, PMC_VAL_STRICT, &r));
    int f = find(&r, PMC_E_KEY_ORDER, "thrid");
    ck_assert_int_ge(f, 0);
    ck_assert_str_eq(r.f[f].detail, "'thrid' is pair 6; it must come first after cmd");
    free(t);
}
END_TEST

START_TEST(spawn_ncmds_mismatch)
{
    pmc_vreport r;
    tmsg *t = spawn2("ncmds=3");
    ck_assert(!pmc_validate(&t->m, PMC_VAL_REQUEST, &r));
    int f = find(&r, PMC_E_COUNT, "ncmds");
    ck_assert_int_ge(f, 0);
    ck_assert(r.f[f].fatal);
    ck_assert_str_eq(r.f[f].detail, "ncmds=3 but the message has 2 subcmd segments");
    ck_assert_uint_eq(r.n, 1);
    free(t);
    t = spawn2("ncmds=1");
    ck_assert(!pmc_validate(&t->m, 0, &r));
    ck_assert_int_ge(find(&r, PMC_E_COUNT, "ncmds"), 0);
    free(t);
    /* an absent preputcount reads as 0 (SPEC SPAWN-6) */
    t = tm(PMC_WIRE_V2, "spawn", "ncmds=1", "subcmd=a", "maxprocs=1", "argc=0", NULL);
    expect_clean(t, STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V2, "spawn", "ncmds=1", "ppkey0=k", "ppval0=v", "subcmd=a", "maxprocs=1",
           "argc=0", NULL);
    ck_assert(pmc_validate(&t->m, 0, &r));
    ck_assert_int_ge(find(&r, PMC_E_INDEX, "ppkey0"), 0);
    free(t);
    /* the draft's header form has no segments: its commands follow as spawn-cmd */
    t = tm(PMC_WIRE_V2, "spawn", "thrid=t", "ncmds=2", "preputcount=0", NULL);
    expect_clean(t, STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V2, "spawn-cmd", "thrid=t", "maxprocs=1", "argc=2", "argv0=a", "argv1=b",
           "infokeycount=0", NULL);
    expect_clean(t, STRICT_ALL);
    free(t);
}
END_TEST

START_TEST(spawn_argv_gap)
{
    pmc_vreport r;
    tmsg *t = tm(PMC_WIRE_V2, "spawn", "ncmds=1", "preputcount=0", "subcmd=a.out", "maxprocs=1",
                 "argc=2", "argv0=x", "argv2=z", NULL);
    ck_assert(!pmc_validate(&t->m, 0, &r));
    int f = find(&r, PMC_E_INDEX, "argv");
    ck_assert_int_ge(f, 0);
    ck_assert(r.f[f].fatal);
    ck_assert_str_eq(r.f[f].detail, "key 'argv1' missing: argc=2 expects argv0..argv1");
    f = find(&r, PMC_E_INDEX, "argv2");
    ck_assert_int_ge(f, 0);
    ck_assert(!r.f[f].fatal);
    ck_assert_str_eq(r.f[f].detail, "key 'argv2' beyond argc=2 (expects argv0..argv1)");
    free(t);

    /* the gap is per segment: argv1 of segment 1 does not fill segment 2 */
    t = tm(PMC_WIRE_V2, "spawn", "ncmds=2", "preputcount=0", "subcmd=a", "maxprocs=1", "argc=2",
           "argv0=x", "argv1=y", "subcmd=b", "maxprocs=1", "argc=2", "argv0=x", NULL);
    ck_assert(!pmc_validate(&t->m, 0, &r));
    f = find(&r, PMC_E_INDEX, "argv");
    ck_assert_int_ge(f, 0);
    ck_assert_str_eq(r.f[f].detail, "key 'argv1' missing: argc=2 expects argv0..argv1");
    ck_assert_uint_eq(r.n, 1);
    free(t);

    /* missing preput pairs, several missing */
    t = tm(PMC_WIRE_V2, "spawn", "ncmds=1", "preputcount=3", "ppkey1=k", "ppval1=v",
           "subcmd=a", "maxprocs=1", "argc=0", NULL);
    ck_assert(!pmc_validate(&t->m, 0, &r));
    f = find(&r, PMC_E_INDEX, "ppkey");
    ck_assert_int_ge(f, 0);
    ck_assert_str_eq(r.f[f].detail,
                     "key 'ppkey0' missing: preputcount=3 expects ppkey0..ppkey2 (2 missing)");
    ck_assert_int_ge(find(&r, PMC_E_INDEX, "ppval"), 0);
    free(t);

    /* info keys without a count */
    t = tm(PMC_WIRE_V2, "spawn", "ncmds=1", "preputcount=0", "subcmd=a", "maxprocs=1", "argc=0",
           "infokey0=wdir", "infoval0=/tmp", NULL);
    ck_assert(pmc_validate(&t->m, 0, &r));
    f = find(&r, PMC_E_INDEX, "infokey0");
    ck_assert_int_ge(f, 0);
    ck_assert_str_eq(r.f[f].detail, "key 'infokey0' present but 'infokeycount' absent");
    ck_assert(!pmc_validate(&t->m, PMC_VAL_STRICT, &r));
    free(t);
}
END_TEST

START_TEST(spawn_segment_keys)
{
    pmc_vreport r;
    tmsg *t = tm(PMC_WIRE_V2, "spawn", "ncmds=2", "preputcount=0", "subcmd=a", "maxprocs=1",
                 "argc=0", "subcmd=b", "argc=0", NULL);
    ck_assert(!pmc_validate(&t->m, 0, &r));
    int f = find(&r, PMC_E_MISSING_KEY, "maxprocs");
    ck_assert_int_ge(f, 0);
    ck_assert_str_eq(r.f[f].detail, "key 'maxprocs' missing in subcmd segment 2");
    free(t);

    t = tm(PMC_WIRE_V2, "spawn", "ncmds=2", "preputcount=0", "subcmd=a", "maxprocs=1",
           "subcmd=b", "maxprocs=1", "argc=0", NULL);
    ck_assert(!pmc_validate(&t->m, 0, &r));
    f = find(&r, PMC_E_MISSING_KEY, "argc");
    ck_assert_int_ge(f, 0);
    ck_assert_str_eq(r.f[f].detail, "key 'argc' missing in subcmd segment 1");
    ck_assert_uint_eq(r.n, 1);
    free(t);

    t = tm(PMC_WIRE_V2, "spawn", "ncmds=1", "preputcount=0", "argc=0", "subcmd=a", "maxprocs=1",
           "argc=0", NULL);
    ck_assert(!pmc_validate(&t->m, 0, &r));
    f = find(&r, PMC_E_COUNT, "argc");
    ck_assert_int_ge(f, 0);
    ck_assert_str_eq(r.f[f].detail, "key 'argc' comes before the first subcmd");
    free(t);

    t = tm(PMC_WIRE_V2, "spawn", "ncmds=1", "preputcount=0", "subcmd=a", "maxprocs=1", "argc=-1",
           NULL);
    ck_assert(!pmc_validate(&t->m, 0, &r));
    ck_assert_int_ge(find(&r, PMC_E_BAD_INT, "argc"), 0);
    free(t);
}
END_TEST

START_TEST(spawn_large_and_unordered)
{
    /* 3000 arguments in order (crosses many bitmap words) */
    tmsg *t = tm(PMC_WIRE_V2, "spawn", "ncmds=1", "preputcount=0", "subcmd=a", "maxprocs=1",
                 "argc=3000", NULL);
    for (int i = 0; i < 3000; i++)
        tm_addf(t, "argv%d=a", i);
    expect_clean(t, STRICT_ALL);
    free(t);
    /* reversed order, count after the arguments (as PMI-1 sends argcnt) */
    t = tm(PMC_WIRE_V2, "spawn", "ncmds=1", "preputcount=0", "subcmd=a", "maxprocs=1", NULL);
    for (int i = 129; i >= 0; i--)
        tm_addf(t, "argv%d=a", i);
    tm_add(t, "argc=130");
    expect_clean(t, STRICT_ALL);
    free(t);
    /* above the validator's limit */
    pmc_vreport r;
    t = tm(PMC_WIRE_V2, "spawn", "ncmds=1", "preputcount=0", "subcmd=a", "maxprocs=1",
           "argc=5000", NULL);
    ck_assert(!pmc_validate(&t->m, 0, &r));
    ck_assert_int_ge(find(&r, PMC_E_RANGE, "argc"), 0);
    free(t);
    /* non-canonical index spellings are not family members */
    t = tm(PMC_WIRE_V2, "spawn", "ncmds=1", "preputcount=0", "subcmd=a", "maxprocs=1", "argc=1",
           "argv0=a", "argv01=b", "argv=c", "argv-1=d", "argv1234567890=e", NULL);
    ck_assert(pmc_validate(&t->m, PMC_VAL_UNKNOWN_KEYS, &r));
    ck_assert_uint_eq(r.n, 4);
    for (size_t i = 0; i < r.n; i++)
        ck_assert_int_eq(r.f[i].code, PMC_E_UNKNOWN_KEY);
    free(t);
}
END_TEST

START_TEST(v1_mcmd_spawn)
{
    pmc_vreport r;
    /* the 4.0.2 client's block */
    tmsg *t = tm(PMC_WIRE_V1_MCMD, "spawn", "nprocs=1", "execname=/usr/bin/python3",
                 "totspawns=1", "spawnssofar=1", "arg1=/probe.py", "arg2=child v1",
                 "argcnt=2", "preput_num=1", "preput_key_0=PARENT_KEY",
                 "preput_val_0=parent-val", "info_num=1", "info_key_0=wdir", "info_val_0=/tmp",
                 NULL);
    ck_assert_int_eq(t->m.cmd, PMC_V1_SPAWN);
    expect_clean(t, PMC_VAL_REQUEST | STRICT_ALL);
    free(t);

    /* arg<i> is 1-based: arg0 is outside, arg2 missing */
    t = tm(PMC_WIRE_V1_MCMD, "spawn", "nprocs=1", "execname=a", "totspawns=1", "spawnssofar=1",
           "arg0=x", "arg1=y", "argcnt=2", NULL);
    ck_assert(!pmc_validate(&t->m, 0, &r));
    int f = find(&r, PMC_E_INDEX, "arg");
    ck_assert_int_ge(f, 0);
    ck_assert(r.f[f].fatal);
    ck_assert_str_eq(r.f[f].detail, "key 'arg2' missing: argcnt=2 expects arg1..arg2");
    f = find(&r, PMC_E_INDEX, "arg0");
    ck_assert_int_ge(f, 0);
    ck_assert(!r.f[f].fatal);
    ck_assert_str_eq(r.f[f].detail, "key 'arg0' below the first index arg1");
    free(t);

    /* preput indices are 0-based with an underscore before them */
    t = tm(PMC_WIRE_V1_MCMD, "spawn", "nprocs=1", "execname=a", "totspawns=2", "spawnssofar=2",
           "argcnt=0", "preput_num=2", "preput_key_0=k", "preput_val_0=v", "preput_key_1=k2",
           "info_num=0", NULL);
    ck_assert(!pmc_validate(&t->m, 0, &r));
    f = find(&r, PMC_E_INDEX, "preput_val_");
    ck_assert_int_ge(f, 0);
    ck_assert_str_eq(r.f[f].detail,
                     "key 'preput_val_1' missing: preput_num=2 expects preput_val_0..preput_val_1");
    ck_assert_uint_eq(r.n, 1);
    free(t);

    /* pmi-1.1.txt's spelling infonum is not what anyone sends */
    t = tm(PMC_WIRE_V1_MCMD, "spawn", "nprocs=1", "execname=a", "totspawns=1", "spawnssofar=1",
           "argcnt=0", "infonum=0", NULL);
    ck_assert(pmc_validate(&t->m, PMC_VAL_UNKNOWN_KEYS, &r));
    ck_assert_int_ge(find(&r, PMC_E_UNKNOWN_KEY, "infonum"), 0);
    free(t);
}
END_TEST

/* ------------------------------------------------------------ direction, unknowns, limits */

START_TEST(direction)
{
    pmc_vreport r;
    tmsg *t = tm(PMC_WIRE_V2, "kvs-get", "key=k", NULL);
    expect_clean(t, PMC_VAL_REQUEST);
    ck_assert(!pmc_validate(&t->m, PMC_VAL_RESPONSE, &r));
    int f = find(&r, PMC_E_WRONG_DIRECTION, "kvs-get");
    ck_assert_int_ge(f, 0);
    ck_assert(r.f[f].fatal);
    ck_assert_str_eq(r.f[f].detail, "'kvs-get' is a request; a response was expected");
    free(t);

    t = tm(PMC_WIRE_V2, "kvs-get-response", "rc=0", "found=TRUE", "value=v", NULL);
    expect_clean(t, PMC_VAL_RESPONSE);
    ck_assert(!pmc_validate(&t->m, PMC_VAL_REQUEST, &r));
    f = find(&r, PMC_E_WRONG_DIRECTION, NULL);
    ck_assert_int_ge(f, 0);
    ck_assert_str_eq(r.f[f].detail, "'kvs-get-response' is a response; a request was expected");
    free(t);

    /* initack and singinit travel both ways */
    t = tm(PMC_WIRE_V1, "initack", "pmiid=1", NULL);
    expect_clean(t, PMC_VAL_REQUEST | STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V1, "initack", "rc=0", "rank=0", "size=2", "appnum=0", "debug=0", NULL);
    expect_clean(t, PMC_VAL_RESPONSE | STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V1, "singinit", "authtype=none", NULL);
    expect_clean(t, PMC_VAL_RESPONSE | STRICT_ALL);
    free(t);
}
END_TEST

START_TEST(unknown_command)
{
    pmc_vreport r;
    tmsg *t = tm(PMC_WIRE_V2, "frobnicate", "key=x", NULL);
    ck_assert_int_eq(t->m.cmd, PMC_CMD_UNKNOWN);
    ck_assert(!pmc_validate(&t->m, 0, &r));
    ck_assert_uint_eq(r.n, 1);
    ck_assert_int_eq(r.f[0].code, PMC_E_UNKNOWN_CMD);
    ck_assert(r.f[0].fatal);
    ck_assert(pmc_slice_eq(r.f[0].key, "frobnicate"));
    ck_assert_str_eq(r.f[0].detail, "command 'frobnicate' is not a known PMI-2 command");
    ck_assert(!pmc_validate(&t->m, 0, NULL));
    free(t);

    /* cmd left UNKNOWN by the caller: resolved by name */
    t = tm(PMC_WIRE_V2, "kvs-get", "key=k", NULL);
    t->m.cmd = PMC_CMD_UNKNOWN;
    expect_clean(t, PMC_VAL_REQUEST | STRICT_ALL);
    t->m.cmd = 12345; /* out of range: also resolved by name */
    expect_clean(t, PMC_VAL_REQUEST | STRICT_ALL);
    free(t);

    /* a v2 name on a v1 line */
    t = tm(PMC_WIRE_V1, "kvs-get", "key=k", NULL);
    ck_assert(!pmc_validate(&t->m, 0, &r));
    ck_assert_int_eq(r.f[0].code, PMC_E_UNKNOWN_CMD);
    free(t);

    ck_assert(!pmc_validate(NULL, 0, &r));
    ck_assert(!r.ok);
}
END_TEST

START_TEST(unknown_keys)
{
    pmc_vreport r;
    tmsg *t = tm(PMC_WIRE_V2, "kvs-put", "key=semi", "value=a", "colon", NULL);
    expect_clean(t, 0);
    ck_assert(pmc_validate(&t->m, PMC_VAL_UNKNOWN_KEYS, &r));
    ck_assert_uint_eq(r.n, 1);
    ck_assert_int_eq(r.f[0].code, PMC_E_UNKNOWN_KEY);
    ck_assert(!r.f[0].fatal);
    ck_assert(pmc_slice_eq(r.f[0].key, "colon"));
    ck_assert_str_eq(r.f[0].detail, "key 'colon' is not defined for 'kvs-put'");
    ck_assert(!pmc_validate(&t->m, PMC_VAL_STRICT, &r));
    ck_assert(r.f[0].fatal);
    free(t);

    /* non-printable bytes in a key are shown as '?' */
    t = tm(PMC_WIRE_V2, "kvs-put", "key=k", "value=v", "a\x01" "b=1", NULL);
    pmc_validate(&t->m, PMC_VAL_UNKNOWN_KEYS, &r);
    ck_assert_str_eq(r.f[0].detail, "key 'a?b' is not defined for 'kvs-put'");
    free(t);

    /* long keys are cut in the detail (the finding's key slice stays whole) */
    t = tm(PMC_WIRE_V2, "kvs-put", "key=k", "value=v",
           "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz=1", NULL);
    pmc_validate(&t->m, PMC_VAL_UNKNOWN_KEYS, &r);
    ck_assert_str_eq(r.f[0].detail,
                     "key 'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqr...' is not defined for "
                     "'kvs-put'");
    ck_assert_uint_eq(r.f[0].key.len, 52);
    free(t);

    /* Intel's put_ranks2hosts: positional bare tokens are its payload */
    t = tm(PMC_WIRE_V1, "put_ranks2hosts", "60", "2", NULL);
    expect_clean(t, PMC_VAL_RESPONSE | STRICT_ALL);
    free(t);
}
END_TEST

/* The groups profile (SPEC.md §12): names behind the "group-" prefix, indexed
 * contributions, and an event that carries no thrid (GROUP-9). */
START_TEST(group_profile)
{
    pmc_vreport r;
    ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_V2, "group-construct", 15), PMC_V2_GROUP_CONSTRUCT);
    ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_V2, "group-event", 11), PMC_V2_GROUP_EVENT);
    ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_V2, "group-", 6), PMC_CMD_UNKNOWN);
    ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_V2, "group-gets", 10), PMC_CMD_UNKNOWN);
    ck_assert_int_eq(pmc_cmd_lookup(PMC_WIRE_V1, "group-get", 9), PMC_CMD_UNKNOWN);

    tmsg *t = tm(PMC_WIRE_V2, "group-construct", "thrid=1", "grp=g", "method=bootstrap",
                 "nleaders=2", "members=j1:0,j1:1", "timeout=500", "infocount=1", "infokey0=ep",
                 "infoval0=tcp://a", NULL);
    expect_clean(t, PMC_VAL_REQUEST | STRICT_ALL);
    free(t);
    /* a contribution count without its pairs */
    t = tm(PMC_WIRE_V2, "group-construct", "grp=g", "method=member", "infocount=2",
           "infokey0=a", "infoval0=b", NULL);
    ck_assert(!pmc_validate(&t->m, PMC_VAL_REQUEST, &r));
    ck_assert_int_ge(find(&r, PMC_E_INDEX, "infokey"), 0);
    free(t);
    t = tm(PMC_WIRE_V2, "group-join", "grp=g", "accept=maybe", NULL);
    ck_assert(!pmc_validate(&t->m, PMC_VAL_REQUEST, &r));
    ck_assert_int_ge(find(&r, PMC_E_BAD_BOOL, "accept"), 0);
    free(t);
    t = tm(PMC_WIRE_V2, "group-construct-response", "thrid=1", "rc=0", "ctxid=7",
           "members=j0:0,j0:1", "infocount=1", "infoproc0=j0:0", "infokey0=ep", "infoval0=x",
           NULL);
    expect_clean(t, PMC_VAL_RESPONSE | STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V2, "group-construct-response", "rc=1", "reason=timeout",
           "errmsg=timeout", "failed=j0:2", NULL);
    expect_clean(t, PMC_VAL_RESPONSE | STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V2, "group-event", "event=invited", "grp=g", "leader=j0:0", NULL);
    expect_clean(t, PMC_VAL_RESPONSE | STRICT_ALL);
    free(t);
    /* an event answers no request: a thrid on it is not the profile's */
    t = tm(PMC_WIRE_V2, "group-event", "thrid=3", "event=invited", "grp=g", "leader=j0:0", NULL);
    ck_assert(pmc_validate(&t->m, PMC_VAL_RESPONSE | PMC_VAL_UNKNOWN_KEYS, &r));
    ck_assert_int_ge(find(&r, PMC_E_UNKNOWN_KEY, "thrid"), 0);
    free(t);
    /* a request name sent by a server is the wrong direction */
    t = tm(PMC_WIRE_V2, "group-construct", "grp=g", "method=member", NULL);
    ck_assert(!pmc_validate(&t->m, PMC_VAL_RESPONSE, &r));
    free(t);
}
END_TEST

START_TEST(findings_overflow)
{
    pmc_vreport r;
    tmsg *t = tm(PMC_WIRE_V2, "kvs-put", "key=k", "value=v", NULL);
    for (int i = 0; i < 20; i++)
        tm_addf(t, "junk%d=x", i);
    ck_assert(pmc_validate(&t->m, PMC_VAL_UNKNOWN_KEYS, &r));
    ck_assert_uint_eq(r.n, PMC_MAX_FINDINGS);
    ck_assert_uint_eq(r.total, 20);
    ck_assert(pmc_slice_eq(r.f[15].key, "junk15"));
    /* a fatal finding after the array is full still decides the verdict */
    tm_add(t, "value=second"); /* duplicate: ignored */
    t->pairs[0].key = pmc_slice_cstr("kee");
    ck_assert(!pmc_validate(&t->m, PMC_VAL_UNKNOWN_KEYS, &r));
    ck_assert(!r.ok);
    ck_assert_uint_eq(r.n, PMC_MAX_FINDINGS);
    ck_assert_uint_eq(r.total, 22);
    free(t);
}
END_TEST

START_TEST(duplicates_first_wins)
{
    pmc_vreport r;
    tmsg *t = tm(PMC_WIRE_V2, "kvs-get-response", "rc=0", "rc=x", "found=TRUE", NULL);
    expect_clean(t, STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V2, "kvs-get-response", "rc=x", "rc=0", NULL);
    ck_assert(!pmc_validate(&t->m, 0, &r));
    free(t);
}
END_TEST

START_TEST(v1_responses_without_rc)
{
    /* hydra 4.0.2 and Slurm forms */
    tmsg *t = tm(PMC_WIRE_V1, "maxes", "kvsname_max=256", "keylen_max=64", "vallen_max=1024",
                 NULL);
    expect_clean(t, PMC_VAL_RESPONSE | STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V1, "barrier_out", NULL);
    expect_clean(t, PMC_VAL_RESPONSE | STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V1, "barrier_out", "tag=434711146", NULL);
    expect_clean(t, PMC_VAL_RESPONSE | STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V1, "lookup_result", "port=p", "info=ok", "rc=0", "msg=success", NULL);
    expect_clean(t, PMC_VAL_RESPONSE | STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V1, "publish_result", "info=fail", NULL);
    expect_clean(t, PMC_VAL_RESPONSE | STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V1, "get_result", "rc=0", "value=v1", "found=TRUE", NULL);
    expect_clean(t, PMC_VAL_RESPONSE | STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V1, "getbyidx_results", "rc=0", "nextidx=1", "key=k", "val=v", NULL);
    expect_clean(t, PMC_VAL_RESPONSE | STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V1, "barrier_in", "group=WORLD:434711146", NULL);
    expect_clean(t, PMC_VAL_REQUEST | STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V1, "put", "kvsname=kvs_1", "key=k", "value=v", NULL);
    expect_clean(t, PMC_VAL_REQUEST | STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V1, "abort", "exitcode=7", NULL);
    expect_clean(t, PMC_VAL_REQUEST | STRICT_ALL);
    free(t);
    /* WORD values: one word */
    pmc_vreport r;
    t = tm(PMC_WIRE_V1, "singinit_info", "versionok=yes", "stdio=no", "kvsname=a b", NULL);
    ck_assert(!pmc_validate(&t->m, 0, &r));
    ck_assert_int_ge(find(&r, PMC_E_VALUE_CHARS, "kvsname"), 0);
    free(t);
}
END_TEST

START_TEST(v2_abort_forms)
{
    tmsg *t = tm(PMC_WIRE_V2, "abort", "isworld=TRUE", "msg=probe abort", NULL);
    expect_clean(t, PMC_VAL_REQUEST | STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V2, "abort", "exitcode=7", "message=probe", NULL);
    expect_clean(t, PMC_VAL_REQUEST | STRICT_ALL);
    free(t);
    t = tm(PMC_WIRE_V2, "fullinit", "pmijobid=1.0", "srcid=0", "threaded=FALSE", NULL);
    expect_clean(t, PMC_VAL_REQUEST | STRICT_ALL);
    free(t);
}
END_TEST

START_TEST(thrid_first_in_strict_mode)
{
    /* a command without families or segments: the planned path */
    pmc_vreport r;
    tmsg *t = tm(PMC_WIRE_V2, "kvs-get", "thrid=7", "key=k", NULL);
    expect_clean(t, STRICT_ALL | PMC_VAL_REQUEST);
    free(t);

    t = tm(PMC_WIRE_V2, "kvs-get", "key=k", "thrid=7", NULL);
    expect_clean(t, PMC_VAL_REQUEST); /* only strict mode cares about the order */
    ck_assert(!pmc_validate(&t->m, STRICT_ALL, &r));
    int f = find(&r, PMC_E_KEY_ORDER, "thrid");
    ck_assert_int_ge(f, 0);
    ck_assert(r.f[f].fatal);
    ck_assert_ptr_nonnull(strstr(r.f[f].detail, "pair 2"));
    free(t);
}
END_TEST

START_TEST(findings_in_message_order)
{
    /* per-pair findings in pair order, then missing keys in table order:
     * the same report whichever path validated it */
    pmc_vreport r;
    tmsg *t = tm(PMC_WIRE_V1, "get", "bogus=1", NULL);
    ck_assert(!pmc_validate(&t->m, PMC_VAL_UNKNOWN_KEYS, &r));
    ck_assert_uint_eq(r.n, 3);
    ck_assert_int_eq(r.f[0].code, PMC_E_UNKNOWN_KEY);
    ck_assert(!r.f[0].fatal);
    ck_assert_int_eq(r.f[1].code, PMC_E_MISSING_KEY);
    ck_assert(pmc_slice_eq(r.f[1].key, "kvsname"));
    ck_assert_int_eq(r.f[2].code, PMC_E_MISSING_KEY);
    ck_assert(pmc_slice_eq(r.f[2].key, "key"));
    free(t);

    /* a value with a blank in a one-word key */
    t = tm(PMC_WIRE_V1, "get", "kvsname=a b", "key=k", NULL);
    ck_assert(!pmc_validate(&t->m, 0, &r));
    ck_assert_int_eq(r.f[0].code, PMC_E_VALUE_CHARS);
    free(t);
}
END_TEST

static Suite *schema_suite(void)
{
    Suite *s = suite_create("schema");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, table_is_complete_and_consistent);
    tcase_add_test(tc, lookup_round_trips);
    tcase_add_test(tc, lookup_unknown);
    suite_add_tcase(s, tc);

    tc = tcase_create("validate");
    tcase_add_test(tc, every_command_minimal_message_is_valid);
    tcase_add_test(tc, every_command_full_message_is_valid);
    tcase_add_test(tc, every_required_key_is_enforced);
    tcase_add_test(tc, required_keys_match_expectations);
    tcase_add_test(tc, bad_int);
    tcase_add_test(tc, bools);
    tcase_add_test(tc, flag_alias_of_found);
    tcase_add_test(tc, pmiverbose_bool_or_int);
    tcase_add_test(tc, failed_response_may_omit_payload);
    tcase_add_test(tc, direction);
    tcase_add_test(tc, unknown_command);
    tcase_add_test(tc, unknown_keys);
    tcase_add_test(tc, findings_overflow);
    tcase_add_test(tc, duplicates_first_wins);
    tcase_add_test(tc, v1_responses_without_rc);
    tcase_add_test(tc, v2_abort_forms);
    tcase_add_test(tc, thrid_first_in_strict_mode);
    tcase_add_test(tc, findings_in_message_order);
    suite_add_tcase(s, tc);

    tc = tcase_create("spawn");
    tcase_add_test(tc, spawn_two_commands);
    tcase_add_test(tc, spawn_ncmds_mismatch);
    tcase_add_test(tc, spawn_argv_gap);
    tcase_add_test(tc, spawn_segment_keys);
    tcase_add_test(tc, spawn_large_and_unordered);
    tcase_add_test(tc, v1_mcmd_spawn);
    tcase_add_test(tc, group_profile);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(schema_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
