#!/bin/sh
# The node map and the placement cases on the mock server's emulated nodes
# (pmi-mockserver --nodes K: each node's ranks under a host name of their
# own), issue 25:
#   1. two nodes: the harness sees both hosts; the placement cases and the
#      cases that need two nodes PASS against the strict persona;
#   2. one node: the cases that need two nodes are SKIPPED "needs 2 nodes";
#   3. PMI2_CONFORM_HOST (the fallback where no UTS namespace can be made)
#      gives the same map;
#   4. a server whose mapping lies about placement (the ranks' hosts, by
#      PMI2_CONFORM_HOST, split otherwise than its one-node mapping) FAILs
#      pmi2/jobattr/mapping-placement and pmi1/kvs/mapping-placement;
#   5. the mapping-mpl mutant (JOBATTR-6) survives one node and is killed on
#      two (--map cyclic, where the MPL form differs);
#   6. pmi1/barrier/one-rank-twice FAILs against the hydra-4.0 persona on two
#      nodes as on one (its double sender and last rank share a host);
#   7. --nodes 1,2 runs the placement-dependent cases under both shapes and
#      says which verdict is from which (console and JSON); a failure under
#      the second shape fails the run;
#   8. a map larger than one control word (70 nodes, 140 ranks: more nodes
#      than one digit per rank names, and several words of hosts) reaches
#      every rank: the placement cases grade on it, none SKIPPED;
#   9. mutate --nodes 2 --map cyclic kills mapping-mpl, which survives
#      mutate on one node.
#
#   nodes.sh PMI2_CONFORM PMI_MOCKSERVER WORKDIR
set -u
conform=$1 mock=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
fail=0
bad() { echo "nodes.sh: $*" >&2; fail=1; }
verdict() { # file case verdict
    grep -q "^  $3 *$2 " "$1" || { bad "$2 is not $3 in $1:"; grep "$2 " "$1" | head -3 >&2; }
}
place='pmi2/jobattr/mapping-placement pmi1/kvs/mapping-placement pmi2/fence/cross-node
       pmi1/barrier/cross-node pmi2/nodeattr/per-node pmi2/nodeattr/other-node
       pmi2/nodeattr/same-node pmi2/nodeattr/local-ranks* pmi1/barrier/group-node'

# 1. two nodes, strict
# shellcheck disable=SC2086
"$conform" server -v --timeout 5 --launch "$mock -n {n} --nodes 2 --timeout 60 --" $place \
    >"$work/two.out" 2>&1
grep -q '^Nodes: 2 (pmi-mock-node0: 0,1; pmi-mock-node1: 2,3)' "$work/two.out" ||
    bad "two nodes: no two-host node map in $work/two.out"
for k in pmi2/jobattr/mapping-placement pmi1/kvs/mapping-placement pmi2/fence/cross-node \
    pmi1/barrier/cross-node pmi2/nodeattr/per-node pmi2/nodeattr/other-node \
    pmi1/barrier/group-node; do
    verdict "$work/two.out" "$k" PASS
done
grep -q '^  SKIPPED' "$work/two.out" && bad "two nodes: a case SKIPPED"

# 2. one node
# shellcheck disable=SC2086
"$conform" server -v --timeout 5 --launch "$mock -n {n} --timeout 60 --" $place \
    >"$work/one.out" 2>&1
for k in pmi2/fence/cross-node pmi1/barrier/cross-node pmi2/nodeattr/per-node \
    pmi2/nodeattr/other-node; do
    grep -q "^  SKIPPED     $k .*(needs 2 nodes: every rank of this launch runs on host " \
        "$work/one.out" || bad "one node: $k not SKIPPED 'needs 2 nodes'"
done
verdict "$work/one.out" pmi2/jobattr/mapping-placement PASS
verdict "$work/one.out" pmi1/kvs/mapping-placement PASS

# 3. the variable instead of namespaces
PMI_MOCK_NODE_ENV=1 "$conform" server -v --timeout 5 \
    --launch "$mock -n {n} --nodes 2 --map cyclic --timeout 60 --" \
    pmi2/jobattr/mapping-placement pmi2/nodeattr/per-node >"$work/env.out" 2>&1
grep -q '^Nodes: 2 (pmi-mock-node0: 0,2; pmi-mock-node1: 1,3)' "$work/env.out" ||
    bad "PMI2_CONFORM_HOST: no cyclic two-host map in $work/env.out"
verdict "$work/env.out" pmi2/jobattr/mapping-placement PASS
verdict "$work/env.out" pmi2/nodeattr/per-node PASS

# 4. hosts the one-node mapping does not show
cat >"$work/split.sh" <<'EOF'
#!/bin/sh
# a rank on host "split<rank % 2>", under a mock that maps every rank to node 0
PMI2_CONFORM_HOST=split$(( ${PMI_RANK:-$PMI_ID} % 2 )) exec "$@"
EOF
chmod +x "$work/split.sh"
"$conform" server -v --timeout 5 --launch "$mock -n {n} --timeout 60 -- $work/split.sh" \
    pmi2/jobattr/mapping-placement pmi1/kvs/mapping-placement >"$work/split.out" 2>&1
verdict "$work/split.out" pmi2/jobattr/mapping-placement FAIL
verdict "$work/split.out" pmi1/kvs/mapping-placement FAIL
grep -q 'ranks 0 and 1 run on hosts split0 and split1 but the mapping puts them on one node' \
    "$work/split.out" || bad "split: the detail does not name the pair"

# 5. mapping-mpl: survives one node, killed on two
"$conform" server -v --timeout 5 --launch "$mock -n {n} --map cyclic --mutant mapping-mpl --timeout 60 --" \
    'pmi2/jobattr/mapping-*' >"$work/mpl1.out" 2>&1 ||
    bad "mapping-mpl on one node: killed (exit $?)"
"$conform" server -v --timeout 5 \
    --launch "$mock -n {n} --nodes 2 --map cyclic --mutant mapping-mpl --timeout 60 --" \
    'pmi2/jobattr/mapping-*' >"$work/mpl2.out" 2>&1 && bad "mapping-mpl on two nodes: survived"
verdict "$work/mpl2.out" pmi2/jobattr/mapping-placement FAIL
verdict "$work/mpl2.out" pmi2/jobattr/mapping-abnf FAIL

# 6. the per-node barrier defect on two nodes
for n in 1 2; do
    "$conform" server -v --timeout 5 \
        --launch "$mock -n {n} --nodes $n --persona hydra-4.0 --timeout 60 --" \
        pmi1/barrier/one-rank-twice >"$work/twice$n.out" 2>&1
    verdict "$work/twice$n.out" pmi1/barrier/one-rank-twice FAIL
done
grep -q 'rank 2.s second barrier_in was counted' "$work/twice2.out" ||
    bad "two nodes: one-rank-twice's double sender is not rank 2 (on rank 3's host)"
# 7. shapes
"$conform" server -v --timeout 5 --nodes 1,2 --json "$work/shapes" \
    --launch "$mock -n {n} --nodes {nodes} --map cyclic --mutant mapping-mpl --timeout 60 --" \
    'pmi2/jobattr/*' 'pmi2/nodeattr/*' >"$work/shapes.out" 2>&1
rc=$?
[ $rc -eq 1 ] || bad "shapes: exit status $rc, not 1 (mapping-mpl fails under --nodes 2)"
grep -q '^Shape --nodes 2 (pmi-mock-node0: 0,2; pmi-mock-node1: 1,3): the placement-dependent cases' \
    "$work/shapes.out" || bad "shapes: no --nodes 2 section"
grep -q '^  FAIL        pmi2/jobattr/mapping-placement  \[--nodes 1: PASS\]' "$work/shapes.out" ||
    bad "shapes: mapping-placement is not FAIL under 2 and PASS under 1"
grep -q '^  PASS        pmi2/nodeattr/other-node  \[--nodes 1: SKIPPED\]' "$work/shapes.out" ||
    bad "shapes: other-node is not PASS under 2 and SKIPPED under 1"
grep -q '^  PASS        pmi2/jobattr/mapping-placement ' "$work/shapes.out" ||
    bad "shapes: mapping-placement does not PASS under --nodes 1"
grep -q 'universe-size' "$work/shapes.out" && sed -n '/^Shape/,$p' "$work/shapes.out" |
    grep -q universe-size && bad "shapes: a case that does not depend on placement ran again"
grep -q '"shapes": \[' "$work/shapes/index.json" &&
    grep -q '{ "nodes_asked": 2, "nodes": 2, ' "$work/shapes/index.json" &&
    grep -q '"nodes_asked": 1' "$work/shapes/index.json" ||
    bad "shapes: the JSON report does not give both shapes"

# 8. a large map
"$conform" server -v --timeout 20 -n 140 \
    --launch "$mock -n {n} --nodes 70 --timeout 60 --" pmi2/jobattr/mapping-placement \
    pmi1/kvs/mapping-placement pmi2/nodeattr/other-node >"$work/large.out" 2>&1
grep -q '^Nodes: 70 (pmi-mock-node0: 0,1; ' "$work/large.out" ||
    bad "large map: no 70-node map in $work/large.out"
for k in pmi2/jobattr/mapping-placement pmi1/kvs/mapping-placement pmi2/nodeattr/other-node; do
    verdict "$work/large.out" "$k" PASS
done

# 9. mutation testing on emulated nodes
"$conform" mutate -q -m mapping-mpl pmi2/jobattr >"$work/mutate1.out" 2>&1
grep -q '^  SURVIVED  mapping-mpl ' "$work/mutate1.out" ||
    bad "mutate on one node: mapping-mpl not SURVIVED (see $work/mutate1.out)"
"$conform" mutate -q --nodes 2 --map cyclic -m mapping-mpl --out "$work/mutate2" pmi2/jobattr \
    >"$work/mutate2.out" 2>&1
grep -q '^Mutants (server, on 2 emulated nodes (--map cyclic)): 1;' "$work/mutate2.out" &&
    grep -q '^  KILLED    mapping-mpl .* pmi2/jobattr/mapping-placement' "$work/mutate2.out" &&
    grep -q '"nodes": 2,' "$work/mutate2/mutation.json" ||
    bad "mutate --nodes 2: mapping-mpl not killed by mapping-placement (see $work/mutate2.out)"

[ $fail -eq 0 ] && echo "nodes.sh: ok"
exit $fail
