/* Placement: the server's view of where the ranks run, checked against the
 * node map the harness learned at start-up from the ranks themselves (each
 * said its host name over PMI: pcf_nodes, pcf_node_of), never from the server.
 *   - PMI_process_mapping (PMI-2 job attribute, and the KVS form PMI-1
 *     clients read with get) groups the ranks as their hosts do (JOBATTR-12);
 *     the clique a client derives from it (JOBATTR-11) is its host's ranks.
 *   - Across nodes: fences and barriers make a put on one node visible on
 *     the others (FENCE-2, V1CMD-15); a node attribute put under one name on
 *     each node reads back as that node's own value (NODEATTR-7).  These need
 *     two nodes and are SKIPPED on one (min_nodes). */
#include "pmi2_util.h"

/* ---------------------------------------------------------------- mapping */

/* Compare a mapping (by rank) with the hosts: the grouping must be the same.
 * 0 with *why empty when it is; 1 with why set when not; the first pair of
 * ranks that disagree is named. */
static int grouping_differs(pcf_ctx *c, const int *map, char *why, size_t wn)
{
    int n = pcf_size(c);
    why[0] = 0;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            bool same_host = pcf_node_of(c, a) == pcf_node_of(c, b);
            bool same_map = map[a] == map[b];
            if (same_host == same_map)
                continue;
            snprintf(why, wn,
                     "ranks %d and %d run on %s %s%s%s but the mapping puts them on %s "
                     "(node %d, node %d)", a, b, same_host ? "one host," : "hosts",
                     pcf_host_of(c, a), same_host ? "" : " and ",
                     same_host ? "" : pcf_host_of(c, b), same_map ? "one node" : "two nodes",
                     map[a], map[b]);
            return 1;
        }
    return 0;
}

/* This rank's clique by the mapping (JOBATTR-11) and by the hosts, as text. */
static void cliques(pcf_ctx *c, const int *map, char *out, size_t n)
{
    int me = pcf_rank(c);
    size_t w = (size_t)snprintf(out, n, "rank %d's clique by the mapping {", me);
    bool first = true;
    for (int q = 0; q < pcf_size(c) && w < n; q++)
        if (map[q] == map[me]) {
            w += (size_t)snprintf(out + w, n - w, "%s%d", first ? "" : ",", q);
            first = false;
        }
    w += (size_t)snprintf(out + w < out + n ? out + w : out, w < n ? n - w : 0,
                          "}, on its host %s {", pcf_host_of(c, me));
    first = true;
    for (int q = 0; q < pcf_size(c) && w < n; q++)
        if (pcf_node_of(c, q) == pcf_node_of(c, me)) {
            w += (size_t)snprintf(out + w, n - w, "%s%d", first ? "" : ",", q);
            first = false;
        }
    if (w < n)
        snprintf(out + w, n - w, "}");
}

static void grade_mapping(pcf_ctx *c, const char *value, size_t vlen, const char *how)
{
    int size = pcf_size(c);
    if (pcf_nodes(c) < 1) {
        pcf_observe(c, "harness-error", "no node map");
        return;
    }
    if (!vlen) {
        pcf_observe(c, "empty", "%s: an empty mapping (it does not fit a value): nothing to "
                                "compare with the hosts", how);
        return;
    }
    int *map = calloc((size_t)size, sizeof *map);
    if (!map) {
        pcf_observe(c, "harness-error", "out of memory");
        return;
    }
    char why[300], cl[300];
    if (p2_mapping_nodes(value, size, map, why, sizeof why) != 0)
        pcf_observe(c, "malformed", "%s %s: %s", how, value, why);
    else if (grouping_differs(c, map, why, sizeof why)) {
        cliques(c, map, cl, sizeof cl);
        pcf_observe(c, "misplaced", "%s %s: %s; %s", how, value, why, cl);
    } else {
        cliques(c, map, cl, sizeof cl);
        pcf_observe(c, "ok", "%s %s groups the ranks as their %d host%s do; %s", how, value,
                    pcf_nodes(c), pcf_nodes(c) == 1 ? "" : "s", cl);
    }
    free(map);
}

static void run_map_v2(pcf_ctx *c)
{
    p2r r;
    if (p2_jobattr(c, "PMI_process_mapping", &r))
        return;
    if (!p2_hit(&r))
        pcf_observe(c, "absent", "info-getjobattr PMI_process_mapping: %s", r.show);
    else
        grade_mapping(c, r.value, r.vlen, "info-getjobattr");
}

static void run_map_v1(pcf_ctx *c)
{
    bool found = false;
    char v[1100];
    pmc_msg m;
    if (pcf_kvs_get(c, "PMI_process_mapping", &found, v, sizeof v, &m))
        return;
    if (!found)
        pcf_observe(c, "absent", "get of PMI_process_mapping in %s: not found", pcf_kvsname(c));
    else
        grade_mapping(c, v, strlen(v), "get");
}

/* ------------------------------------------------------------- across nodes */

/* Every rank puts a key; after one fence (barrier on PMI-1) every rank reads
 * the keys of the ranks on other hosts. */
static void run_cross_visible(pcf_ctx *c)
{
    int me = pcf_rank(c), n = pcf_size(c);
    char key[64], want[64], got[64];
    snprintf(key, sizeof key, "%s-xn-r%d", pcf_tag(c), me);
    snprintf(want, sizeof want, "from-%s", pcf_host_of(c, me));
    if (pcf_kvs_put(c, key, want) || pcf_kvs_fence(c))
        return;
    int seen = 0;
    for (int q = 0; q < n; q++) {
        if (pcf_node_of(c, q) == pcf_node_of(c, me))
            continue;
        bool found = false;
        snprintf(key, sizeof key, "%s-xn-r%d", pcf_tag(c), q);
        snprintf(want, sizeof want, "from-%s", pcf_host_of(c, q));
        if (pcf_kvs_get(c, key, &found, got, sizeof got, NULL))
            return;
        if (!found) {
            pcf_observe(c, "missing", "rank %d on %s: rank %d's put on %s is not visible after "
                                      "the %s", me, pcf_host_of(c, me), q, pcf_host_of(c, q),
                        pcf_pmi_version(c) == 1 ? "barrier" : "fence");
            return;
        }
        if (strcmp(got, want) != 0) {
            pcf_observe(c, "wrong-value", "rank %d's key reads %s, not %s", q, got, want);
            return;
        }
        seen++;
    }
    pcf_observe(c, "ok", "rank %d on %s sees the puts of the %d ranks on other hosts", me,
                pcf_host_of(c, me), seen);
}

/* The first rank of each host puts one name with its host's value; after a
 * fence every rank reads the name and must get its own host's value. */
static void run_nodeattr_per_node(pcf_ctx *c)
{
    int me = pcf_rank(c), k = pcf_node_of(c, me);
    bool first = true;
    for (int q = 0; q < me; q++)
        first &= pcf_node_of(c, q) != k;
    char key[64], val[96];
    snprintf(key, sizeof key, "%s-pn", pcf_tag(c));
    snprintf(val, sizeof val, "node-%d-%s", k, pcf_host_of(c, me));
    p2r r;
    if (first) {
        pmc_enc e;
        pmc_enc_begin(&e, PMC_WIRE_V2, "info-putnodeattr");
        pmc_enc_str(&e, "key", key);
        pmc_enc_str(&e, "value", val);
        if (p2_call(c, &e, "info-putnodeattr-response", &r)) {
            pcf_kvs_fence(c);
            return;
        }
        if (!p2_ok(&r)) {
            pcf_observe(c, "put-refused", "info-putnodeattr: %s", r.show);
            pcf_kvs_fence(c);
            return;
        }
    }
    /* every put happens before any rank looks: each putter puts a KVS
     * marker after its put was answered, and FENCE-2 orders the markers
     * (a lazy fence too: the get of a marker waits for its putter) */
    char mk[64];
    snprintf(mk, sizeof mk, "%s-pnm-%d", pcf_tag(c), k);
    if ((first && pcf_kvs_put(c, mk, "1")) || pcf_kvs_fence(c))
        return;
    for (int q = 0; q < pcf_size(c); q++) {
        bool qfirst = true, found = false;
        for (int p = 0; p < q; p++)
            qfirst &= pcf_node_of(c, p) != pcf_node_of(c, q);
        if (!qfirst || q == me)
            continue;
        char v[8];
        snprintf(mk, sizeof mk, "%s-pnm-%d", pcf_tag(c), pcf_node_of(c, q));
        if (pcf_kvs_get(c, mk, &found, v, sizeof v, NULL))
            return;
        if (!found) {
            pcf_observe(c, "harness-error", "rank %d's marker %s is not visible after the fence",
                        q, mk);
            return;
        }
    }
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "info-getnodeattr");
    pmc_enc_str(&e, "key", key);
    pmc_enc_bool(&e, "wait", false);
    if (p2_call(c, &e, "info-getnodeattr-response", &r))
        return;
    if (p2_value_is(&r, val, strlen(val)))
        pcf_observe(c, "ok", "rank %d on %s reads its node's own value %s", me,
                    pcf_host_of(c, me), val);
    else if (p2_hit(&r))
        pcf_observe(c, "other-node", "rank %d on %s reads %s, another node's value (its own "
                                     "node put %s)", me, pcf_host_of(c, me), r.value, val);
    else
        pcf_observe(c, "not-found", "rank %d on %s: the attribute its node's rank put is not "
                                    "found: %s", me, pcf_host_of(c, me), r.show);
}

#define NEEDS2 "Needs ranks on 2 hosts (the node map); SKIPPED \"needs 2 nodes\" on one.\n"

static const pcf_case cases[] = {
    { .id = "pmi2/jobattr/mapping-placement",
      .desc = "PMI_process_mapping groups the ranks as their hosts do",
      .clause = "JOBATTR-12",
      .expected = "two ranks share a node id in the mapping exactly when they share a host",
      .steps = "At start-up every rank said its host name over PMI and rank 0 handed out the node map.\n"
               "Every rank sends info-getjobattr for PMI_process_mapping; not found is "
               "\"absent\" (JOBATTR-5: NON-STRICT), an empty value \"empty\" (INFO: allowed when "
               "the mapping does not fit).\n"
               "The value is applied as JOBATTR-11 says (blocks again from the first) to give "
               "every rank a node id; a value that does not parse is \"malformed\" (JOBATTR-6).\n"
               "For every pair of ranks, the same node id must go with the same host and "
               "different ids with different hosts; else \"misplaced\", naming the pair and "
               "this rank's clique by the mapping and by its host.",
      .flags = PCF_V2 | PCF_PLACED, .run = run_map_v2,
      .outcomes = { { "absent", PCF_DEVIATES, "JOBATTR-5", "no PMI_process_mapping" },
                    { "empty", PCF_INFO, "JOBATTR-6", "an empty mapping: nothing to compare" },
                    { "malformed", PCF_FAIL, "JOBATTR-6", "the value does not parse" },
                    { "misplaced", PCF_DEVIATES, NULL, "the mapping groups the ranks otherwise than their hosts" } } },
    { .id = "pmi1/kvs/mapping-placement",
      .desc = "PMI_process_mapping read with get groups the ranks as their hosts do (the PMI-1 clique)",
      .clause = "JOBATTR-12",
      .expected = "the mapping in the KVS gives each rank its host's ranks as its clique",
      .steps = "At start-up every rank said its host name over PMI and rank 0 handed out the node map.\n"
               "Every rank sends get kvsname=<its kvsname> key=PMI_process_mapping, as MPICH's "
               "PMI-1 client does to learn its clique; not found is \"absent\" (KVS-14: "
               "NON-STRICT), an empty value \"empty\" (INFO).\n"
               "The value is applied as JOBATTR-11 says; a value that does not parse is "
               "\"malformed\" (JOBATTR-6).\n"
               "For every pair of ranks, the same node id must go with the same host and "
               "different ids with different hosts; else \"misplaced\", naming the pair and "
               "this rank's clique by the mapping and by its host.",
      .flags = PCF_V1 | PCF_PLACED, .run = run_map_v1,
      .outcomes = { { "absent", PCF_DEVIATES, "KVS-14", "PMI_process_mapping is not in the KVS" },
                    { "empty", PCF_INFO, "JOBATTR-6", "an empty mapping: nothing to compare" },
                    { "malformed", PCF_FAIL, "JOBATTR-6", "the value does not parse" },
                    { "misplaced", PCF_DEVIATES, NULL, "the mapping groups the ranks otherwise than their hosts" } } },
    { .id = "pmi2/fence/cross-node",
      .desc = "a put before a fence is visible on every other node after it",
      .clause = "FENCE-2", .min_nodes = 2, .min_ranks = 2,
      .expected = "every rank reads the puts of the ranks on other hosts after one fence",
      .steps = NEEDS2 "Every rank puts <tag>-xn-r<rank> = from-<its host> and sends one kvs-fence.\n"
                      "Every rank gets the key of each rank on another host: not found is "
                      "\"missing\", another value \"wrong-value\".",
      .flags = PCF_V2, .run = run_cross_visible,
      .outcomes = { { "missing", PCF_DEVIATES, NULL, "a put on another node is not visible after the fence" },
                    { "wrong-value", PCF_DEVIATES, NULL, "a put on another node reads otherwise" } } },
    { .id = "pmi1/barrier/cross-node",
      .desc = "a put before a barrier is visible on every other node after it",
      .clause = "V1CMD-15", .min_nodes = 2, .min_ranks = 2,
      .expected = "every rank reads the puts of the ranks on other hosts after one barrier",
      .steps = NEEDS2 "Every rank puts <tag>-xn-r<rank> = from-<its host> and enters one barrier.\n"
                      "Every rank gets the key of each rank on another host: not found is "
                      "\"missing\", another value \"wrong-value\".",
      .flags = PCF_V1, .run = run_cross_visible,
      .outcomes = { { "missing", PCF_DEVIATES, NULL, "a put on another node is not visible after the barrier" },
                    { "wrong-value", PCF_DEVIATES, NULL, "a put on another node reads otherwise" } } },
    { .id = "pmi2/nodeattr/per-node",
      .desc = "one attribute name put on each node reads back as that node's own value",
      .clause = "NODEATTR-7", .min_nodes = 2, .min_ranks = 2,
      .expected = "every rank gets the value its own node's rank put",
      .steps = NEEDS2 "The first rank on each host puts the node attribute <tag>-pn = "
                      "node-<k>-<host>; then every rank fences (KVS markers order the puts "
                      "before the gets).\n"
                      "Every rank gets <tag>-pn with wait=FALSE: its own node's value passes; "
                      "another node's value is \"other-node\" (NODEATTR-7); not found is "
                      "\"not-found\" (NODEATTR-2).",
      .flags = PCF_V2, .run = run_nodeattr_per_node,
      .outcomes = { { "other-node", PCF_DEVIATES, NULL, "another node's value was returned" },
                    { "not-found", PCF_DEVIATES, "NODEATTR-2", "the own node's attribute is missing" },
                    { "put-refused", PCF_DEVIATES, "NODEATTR-1", "info-putnodeattr refused" } } },
};
PCF_CASES(cases)
