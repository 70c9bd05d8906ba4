/* Boundaries come from the codec's limits (key 64, value 1024, pairs 4096,
 * frame 65536, the 6-digit length field) and from sizes real peers use for
 * fixed tables and buffers (PMI-1 servers: 64 pairs; MPICH: 1024, 4096). */
#include "values.h"

#include <stdio.h>
#include <string.h>

const pmc_cmdspec *pf_pick_cmd(pf_rng *r, pmifuzz_side side, unsigned wires)
{
    size_t n = 0, hits = 0;
    const pmc_cmdspec *all = pmc_schema_all(&n);
    if (!wires)
        wires = PMIFUZZ_WIRE_BOTH;
    for (int pass = 0; pass < 2; pass++) {
        size_t want = pass ? pf_below(r, hits) : 0;
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            const pmc_cmdspec *c = &all[i];
            bool v2 = c->wire == PMC_WIRE_V2;
            if (!(wires & (v2 ? PMIFUZZ_WIRE_V2 : PMIFUZZ_WIRE_V1)))
                continue;
            if (side == PMIFUZZ_REQUESTS && !(c->dir & PMC_DIR_REQUEST))
                continue;
            if (side == PMIFUZZ_RESPONSES && !(c->dir & PMC_DIR_RESPONSE))
                continue;
            if (pass && k == want)
                return c;
            k++;
        }
        hits = k;
        if (!hits)
            return NULL;
    }
    return NULL;
}

static const char *const ints[] = {
    "0", "1", "-1", "2", "3", "4", "63", "64", "65", "127", "128", "255", "256", "1023",
    "1024", "1025", "4095", "4096", "4097", "65535", "65536", "999999", "1000000",
    "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "99999999999999999999999", "00", "+1", "1x", "", " 1", "0x10", "-0",
};
static const char *const bools[] = { "TRUE", "FALSE", "true", "false", "yes", "1", "0", "",
                                     "TRU", "TRUEE" };
static const char *const strs[] = { "kvs_0", "0", "x", "", "a b", "a;b", "a=b", ";;", "\\",
                                    "\\ ", "%s%n", "cmd=get", "-1", "TRUE", "localhost:1" };

pmc_slice pf_typed_value(pf_arena *a, pf_rng *r, uint8_t type)
{
    const char *v;
    switch (pf_below(r, 4) ? type : PMC_T_STR) {
    case PMC_T_INT:
    case PMC_T_UINT:
        v = ints[pf_below(r, sizeof ints / sizeof *ints)];
        break;
    case PMC_T_BOOL:
        v = bools[pf_below(r, sizeof bools / sizeof *bools)];
        break;
    case PMC_T_BOOLINT:
        v = pf_below(r, 2) ? bools[pf_below(r, 4)] : ints[pf_below(r, 8)];
        break;
    default:
        v = strs[pf_below(r, sizeof strs / sizeof *strs)];
        break;
    }
    return pf_arena_dup(a, v, strlen(v));
}

pmc_slice pf_plausible_value(pf_arena *a, pf_rng *r, uint8_t type)
{
    static const char *const small[] = { "0", "1", "2", "4" };
    static const char *const words[] = { "1", "0", "x", "kvs_0", "0:0", "localhost:1" };
    const char *v;
    switch (type) {
    case PMC_T_INT:
    case PMC_T_UINT:
        v = small[pf_below(r, 4)];
        break;
    case PMC_T_BOOL:
        v = pf_chance(r, 3, 4) ? "TRUE" : "FALSE";
        break;
    case PMC_T_BOOLINT:
        v = pf_below(r, 2) ? "TRUE" : small[pf_below(r, 2)];
        break;
    default:
        v = words[pf_below(r, sizeof words / sizeof *words)];
        break;
    }
    return pf_arena_dup(a, v, strlen(v));
}

pmc_slice pf_limit_value(pf_arena *a, pf_rng *r, size_t budget)
{
    static const size_t lens[] = { 0, 1, 6, 7, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256,
                                   257, 511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4095,
                                   4096, 4097, 8192, 65535, 65536, 65537 };
    size_t n = lens[pf_below(r, sizeof lens / sizeof *lens)];
    if (n > budget)
        n = budget;
    char *p = pf_arena_alloc(a, n + 1);
    if (!p)
        return (pmc_slice){ "", 0 };
    char fill = "A0x;=\\ -"[pf_below(r, 8)];
    memset(p, fill, n);
    p[n] = '\0';
    return (pmc_slice){ p, n };
}

pmc_slice pf_spec_key(pf_arena *a, pf_rng *r, const pmc_keyspec *k)
{
    if (!(k->flags & PMC_K_INDEXED))
        return pmc_slice_cstr(k->name);
    char buf[96];
    static const long idx[] = { 0, 1, 2, 63, 64, 65, 1024, -1, 4096 };
    int n = snprintf(buf, sizeof buf, "%s%ld", k->name, idx[pf_below(r, 9)]);
    return pf_arena_dup(a, buf, n > 0 ? (size_t)n : 0);
}

pmc_slice pf_key_name(pf_arena *a, pf_rng *r, const pmc_cmdspec *cs)
{
    switch (pf_below(r, 4)) {
    case 0:
    case 1:
        if (cs && cs->nkeys)
            return pf_spec_key(a, r, &cs->keys[pf_below(r, cs->nkeys)]);
        /* fall through */
    case 2: {
        const pmc_cmdspec *o = pf_pick_cmd(r, PMIFUZZ_ANY, PMIFUZZ_WIRE_BOTH);
        if (o && o->nkeys)
            return pf_spec_key(a, r, &o->keys[pf_below(r, o->nkeys)]);
        return PMC_SLICE_LIT("key");
    }
    default: {
        static const char *const odd[] = { "", "k", "KEY", "thrid", "rc", "cmd", "concat",
                                           "key-", "_", "a;b", "a b", "Key=", "ééé" };
        const char *k = odd[pf_below(r, sizeof odd / sizeof *odd)];
        size_t how = pf_below(r, 3);
        if (how == 1) {
            /* a key that begins like a word the grammar itself matches
             * ("endcmd" ends an mcmd block, "cmd"/"mcmd" begin a message),
             * cut anywhere and followed by a key byte or none: each state
             * of a scanner's keyword match sees every way out of it */
            static const char *const words[] = { "endcmd", "mcmd", "cmd" };
            static const char next[] = "-_0aZ";
            const char *w = words[pf_below(r, sizeof words / sizeof *words)];
            size_t n = 1 + pf_below(r, strlen(w));
            char buf[8];
            memcpy(buf, w, n);
            size_t extra = pf_below(r, sizeof next); /* sizeof next - 1 is "none" */
            if (extra < sizeof next - 1)
                buf[n++] = next[extra];
            return pf_arena_dup(a, buf, n);
        }
        if (how == 0) {
            pmc_slice l = pf_limit_value(a, r, 4096);
            for (size_t i = 0; i < l.len; i++)
                ((char *)l.ptr)[i] = 'k';
            return l;
        }
        return pf_arena_dup(a, k, strlen(k));
    }
    }
}

size_t pf_flood_count(pf_rng *r)
{
    static const size_t counts[] = { 8, 16, 17, 32, 33, 63, 64, 65, 66, 67, 68, 100, 127, 128,
                                     129, 255, 256, 257, 512, 1024, 1025, 4096, 4097 };
    return counts[pf_below(r, sizeof counts / sizeof *counts)];
}
