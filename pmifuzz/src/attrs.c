/* The forms come from SPEC.md (§9.10, JOBATTR-9 to -12); the damage is what
 * a reader of each form can trip on: numbers at the int limits, zero and
 * negative counts, a block list that ends early or never closes, spaces,
 * more blocks than a fixed table holds. */
#include "attrs.h"

#include <stdio.h>
#include <string.h>

#include "values.h"

typedef struct buf {
    char b[2048];
    size_t n;
} buf;

static void put(buf *o, const char *s)
{
    size_t k = strlen(s);
    if (o->n + k >= sizeof o->b)
        k = sizeof o->b - 1 - o->n;
    memcpy(o->b + o->n, s, k);
    o->n += k;
    o->b[o->n] = '\0';
}

/* A number for a count or an id: small mostly, now and then at a limit. */
static const char *num(pf_rng *r)
{
    static const char *const small[] = { "0", "1", "2", "3", "4" };
    static const char *const odd[] = { "-1", "2147483647", "2147483648", "4294967296",
                                       "99999999999999999999", "", "x", "01", "+1" };
    return pf_chance(r, 7, 8) ? small[pf_below(r, 5)] : odd[pf_below(r, 9)];
}

/* (vector,(node,count,ppn),...): blocks, MPICH's bare node ids, damage */
static void mapping(buf *o, pf_rng *r)
{
    size_t blocks = pf_chance(r, 7, 8) ? 1 + pf_below(r, 4) : pf_below(r, 80);
    int damaged = pf_chance(r, 1, 4);
    put(o, damaged && pf_chance(r, 1, 6) ? "(vectors" : "(vector");
    for (size_t i = 0; i < blocks; i++) {
        put(o, ",");
        if (pf_chance(r, 1, 8)) {
            put(o, num(r)); /* a bare node id */
            continue;
        }
        char blk[96];
        if (damaged)
            snprintf(blk, sizeof blk, "(%s,%s,%s)", num(r), num(r), num(r));
        else
            snprintf(blk, sizeof blk, "(%zu,%zu,%zu)", pf_below(r, 4), 1 + pf_below(r, 3),
                     1 + pf_below(r, 4));
        if (damaged && pf_chance(r, 1, 5))
            blk[strlen(blk) - 1 - pf_below(r, 2)] = '\0'; /* a block cut short */
        put(o, blk);
        if (damaged && pf_chance(r, 1, 10))
            put(o, " ");
    }
    if (!(damaged && pf_chance(r, 1, 4)))
        put(o, ")");
}

/* comma-separated numbers, or a-b ranges */
static void list(buf *o, pf_rng *r, int ranges)
{
    size_t k = pf_chance(r, 7, 8) ? 1 + pf_below(r, 4) : pf_below(r, 80);
    for (size_t i = 0; i < k; i++) {
        if (i)
            put(o, pf_chance(r, 15, 16) ? "," : ",,");
        put(o, num(r));
        if (ranges && pf_chance(r, 1, 3)) {
            put(o, "-");
            put(o, num(r));
        }
    }
}

static void word(buf *o, pf_rng *r, const char *const *w, size_t n)
{
    put(o, pf_chance(r, 7, 8) ? w[pf_below(r, n)] : "");
}

pmc_slice pf_attr_value(pf_arena *a, pf_rng *r, pmc_slice name)
{
    static const char *const bools[] = { "TRUE", "FALSE", "true", "1", "yes" };
    static const char *const topo[] = { "cartesian", "hierarchical", "complete", "kautz",
                                        "hypercube", "torus" };
    buf o = { .n = 0 };
    o.b[0] = '\0';
    if (pmc_slice_eq(name, "PMI_process_mapping")) {
        mapping(&o, r);
    } else if (pmc_slice_eq(name, "universeSize") || pmc_slice_eq(name, "PMI_size") ||
               pmc_slice_eq(name, "PMI_universe_size")) {
        put(&o, num(r));
    } else if (pmc_slice_eq(name, "localRanks") || pmc_slice_eq(name, "cartDims") ||
               pmc_slice_eq(name, "errcodes")) {
        list(&o, r, 0);
    } else if (pmc_slice_eq(name, "PMI_dead_processes")) {
        list(&o, r, 1);
    } else if (pmc_slice_eq(name, "hasNameServ") || pmc_slice_eq(name, "isHeterogeneous")) {
        word(&o, r, bools, 5);
    } else if (pmc_slice_eq(name, "event")) { /* a group-event's kind (SPEC.md 12.9) */
        static const char *const ev[] = { "invited", "complete", "invite-failed", "joined" };
        word(&o, r, ev, 4);
    } else if (pmc_slice_eq(name, "physTopology")) {
        word(&o, r, topo, 6);
    } else if (pmc_slice_eq(name, "physTopologyLevels")) {
        size_t k = 1 + pf_below(r, 3);
        for (size_t i = 0; i < k; i++) {
            if (i)
                put(&o, ",");
            word(&o, r, topo, 6);
        }
    } else if (pmc_slice_eq(name, "PMI_netinfo_of_task")) {
        put(&o, "(localhost");
        size_t k = pf_below(r, 4);
        for (size_t i = 0; i < k; i++)
            put(&o, pf_chance(r, 3, 4) ? ",(lo,IP_V4,127.0.0.1)" : ",(eth0,IP_V6,::1");
        put(&o, pf_chance(r, 7, 8) ? ")" : "");
    } else if (pmc_slice_eq(name, "mpi_reserved_ports")) {
        put(&o, num(r));
        put(&o, "-");
        put(&o, num(r));
    } else if (pmc_slice_eq(name, "PMI_hwloc_xmlfile")) {
        put(&o, pf_chance(r, 1, 2) ? "/nonexistent/topo.xml" : "/dev/null");
    } else {
        return (pmc_slice){ NULL, 0 };
    }
    return pf_arena_dup(a, o.b, o.n);
}
