#!/bin/sh
# pmi2-conform across two nodes (label peer), on the one-machine cluster the
# fixture started (scripts/cluster.sh up 2 CLUSTER_DIR): each node its own
# hostname and its own /tmp, the ranks on both, the orchestrator outside.
#
#   cluster-peer.sh SERVER MODE PMI2_CONFORM CLUSTER_DIR WORKDIR [CASE...]
#
#   SERVER  slurm: srun -N {nodes} --mpi=pmi2 (--nodes 2), --recover resets the cluster
#           slurm-cyclic: the same with -m cyclic (cases whose roles follow the
#           node map must give the block placement's published verdicts)
#           hydra: mpiexec.hydra's ssh launcher, scripts/cluster-exec.sh
#   MODE    run: the cases; sigkill: the orchestrator is killed mid-run and
#           its ranks on both nodes must exit by themselves (hostile.sh)
#   CASE    the cases to run (default: all)
#
# run passes when every case selected has a verdict (none SKIPPED but the
# port-mode cases, no ERROR), each the verdict of the published two-node
# report (results/<server>-2nodes), pmi1/barrier/one-rank-twice FAILs as on
# one node;
# the job really spans two nodes (pmi2/nodeattr/other-node PASSes: on one
# node it is INFO); the ranks' traces from both nodes reached the
# orchestrator's --json directory in its own /tmp, which the nodes cannot
# see; nothing was written to a node's /tmp; and no process of the run is
# left on any node.
set -u
server=$1 mode=$2 conform=$3 cluster=$4 work=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# a Slurm built from source (SLURM_PREFIX), as scripts/slurm-lib.sh takes it
[ -z "${SLURM_PREFIX:-}" ] || PATH=$SLURM_PREFIX/bin:$SLURM_PREFIX/sbin:$PATH
export SLURM_CONF="$cluster/slurm.conf" PCF_CLUSTER="$cluster"
export SLURM_OVERCOMMIT=1 # more ranks than the machine has cores
[ $# -gt 0 ] || set -- '*'
case " $* " in *" pmi2/nodeattr/other-node "*|*" * "*) ;; *) set -- "$@" pmi2/nodeattr/other-node ;; esac
rm -rf "$work"
mkdir -p "$work"
"$root/scripts/cluster.sh" status "$cluster" >/dev/null ||
    "$root/scripts/cluster.sh" reset "$cluster" >/dev/null 2>&1
# the orchestrator's side: in the machine's /tmp, out of the nodes' sight
orch=$(mktemp -d "${TMPDIR:-/tmp}/pcf-cluster-peer.XXXXXX")
case "$server" in
    slurm) tmpl='srun -N {nodes} --mpi=pmi2 -n {n}'
           recover="'$root/scripts/cluster.sh' reset '$cluster' >/dev/null 2>&1" ;;
    slurm-cyclic) # the ranks dealt round the nodes (node0: 0,2; node1: 1,3)
           tmpl='srun -N {nodes} -m cyclic --mpi=pmi2 -n {n}'
           recover="'$root/scripts/cluster.sh' reset '$cluster' >/dev/null 2>&1" ;;
    hydra) tmpl="mpiexec.hydra -launcher ssh -launcher-exec '$root/scripts/cluster-exec.sh' -hosts node0,node1 -n {n}"
           recover=true ;;
    *) echo "cluster-peer.sh: unknown server $server" >&2; exit 2 ;;
esac
if [ "$mode" = sigkill ]; then
    rmdir "$orch"
    HOSTILE_LAUNCH=$tmpl HOSTILE_ARGS="--nodes 2" exec sh "$here/hostile.sh" "$conform" /bin/false "$work/hostile" sigkill
fi
for n in $(cat "$cluster/nodes"); do ls -A "$cluster/$n/tmp" > "$work/tmp-before.$n"; done
# the published two-node report is the baseline: every verdict as published
# (a deviating case runs once more alone: Slurm's verdicts vary under load)
case "$server" in
    slurm|slurm-cyclic) baseline=$root/results/slurm-22.05-2nodes/json/index.json ;;
    hydra) baseline=$root/results/hydra-4.0.2-2nodes/json/index.json ;;
esac
"$conform" server -v --launch "$tmpl" --nodes 2 --timeout 2 --recover "$recover" \
    --baseline "$baseline" --rerun-deviations 1 \
    --json "$orch/json" "$@" > "$work/report.txt" 2> "$work/stderr.txt"
st=$?
echo "pmi2-conform exit status $st"
tail -1 "$work/report.txt"
rc=0
fail() { echo "FAIL: $*" >&2; rc=1; }
[ $st -eq 0 ] || { fail "exit status $st: verdicts differ from $baseline:"; sed -n '/^Deviations/,/^$/p' "$work/report.txt" >&2; }
grep -q '^Nodes: 2 (node0: ' "$work/report.txt" || fail "the node map does not show both nodes"
# a per-node defect is seen on two nodes as on one (its ranks on one host)
case " $* " in *" pmi1/barrier/"*|*" * "*)
    grep -q '^  FAIL        pmi1/barrier/one-rank-twice ' "$work/report.txt" ||
        fail "pmi1/barrier/one-rank-twice does not FAIL on two nodes" ;;
esac
ncases=$("$conform" server --list "$@" | wc -l)
grep -q "^$ncases tests, " "$work/report.txt" || fail "not every one of the $ncases cases has a verdict"
# (the port-mode cases are SKIPPED: these launches give PMI_FD, not PMI_PORT)
if grep '^  \(ERROR\|SKIPPED\) ' "$work/report.txt" | grep -qv ' robust/v1-port-'; then
    fail "ERROR or SKIPPED verdicts:"
    grep -A4 '^  \(ERROR\|SKIPPED\) ' "$work/report.txt" | head -40 >&2
fi
grep -q '^  PASS        pmi2/nodeattr/other-node ' "$work/report.txt" ||
    fail "pmi2/nodeattr/other-node does not PASS: the job did not span two nodes"
# traces of ranks on both nodes, in a directory only the orchestrator sees
for r in 0 1 2 3; do
    ls "$orch/json/traces/" 2>/dev/null | grep -q "\.r$r\.trace\$" || fail "no trace of rank $r reached the orchestrator"
done
for n in $(cat "$cluster/nodes"); do
    ls -A "$cluster/$n/tmp" > "$work/tmp-after.$n"
    cmp -s "$work/tmp-before.$n" "$work/tmp-after.$n" ||
        fail "the run wrote to $n's /tmp: $(diff "$work/tmp-before.$n" "$work/tmp-after.$n" | grep '^>' | head -5)"
done
# nothing of the run left: on the nodes, only their holders and slurmds
sleep 1
for n in $(cat "$cluster/nodes"); do
    h=$(cat "$cluster/holder-$n.pid")
    ns=$(readlink "/proc/$h/ns/uts")
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/ns/uts" 2>/dev/null)" = "$ns" ] || continue
        cmd=$(tr '\0' ' ' < "$p/cmdline" 2>/dev/null)
        case "$cmd" in "sleep infinity "|"slurmd "*|"") ;; *) fail "left on $n: ${p#/proc/} $cmd" ;; esac
    done
done
# (this run's ranks only: other tests' ranks may run beside it)
pgrep -f -- "--json=$orch/json" >/dev/null && fail "a rank of the run is left: $(pgrep -af -- "--json=$orch/json" | head -3)"
[ $rc -eq 0 ] || tail -20 "$work/stderr.txt" >&2
rm -rf "$orch"
exit $rc
