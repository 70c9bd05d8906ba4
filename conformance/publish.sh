#!/usr/bin/env bash
# Regenerate the published conformance reports in results/: pmi2-conform
# against Debian's mpiexec.hydra (PMI-2 and PMI-1), Slurm 22.05's srun (both also
# over two nodes of scripts/cluster.sh: hydra-4.0.2-2nodes, slurm-22.05-2nodes), every pmi-mockserver
# persona, the project's own client library, Debian's libmpich and Slurm's
# libpmi2 (client mode).  Each target gets results/<target>/report.html (one
# self-contained page, every case's transcript included), console.txt (the
# console report), stderr.txt (what the launcher printed) and json/
# (index.json, one JSON per case, the per-case wire transcripts as traces); a target with a
# justified baseline (conformance/tests/baselines/<target>.json) runs with it.  The repository keeps
# report.html, console.txt and json/index.json (results/.gitignore).
# The suite's grading power is published beside them: pmi2-conform mutate
# against every server mutant (results/mutation-server) and every client
# mutant (results/mutation-client): console.txt (per mutant the cases that
# caught it, per case the mutants it catches, the survivors with their
# reason, the score) and mutation.json (what the ctest re-check expects).
#
#   conformance/publish.sh [BUILD_DIR [TARGET_GLOB...]]
#       BUILD_DIR defaults to build/default (built first if missing); with
#       globs, only the matching targets are regenerated ('mock-*' 'mutation-*').
#
# Exit status: 0 when every report was written (whatever the verdicts), 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/default}
if [ ! -x "$build/conformance/pmi2-conform" ]; then
    cmake --preset default && cmake --build --preset default -j2 || exit 1
fi
conform=$build/conformance/pmi2-conform
mock=$build/mockserver/pmi-mockserver
out=results
shift $(($# > 0 ? 1 : 0))
wanted=("$@") # target globs; none: every target
# a regenerated target's directory is rewritten; results/README.md and .gitignore stay
mkdir -p "$out"
status=0

want() { # name: is this target regenerated?
    [ ${#wanted[@]} -eq 0 ] && return 0
    local g
    for g in "${wanted[@]}"; do
        # shellcheck disable=SC2053
        [[ $1 == $g ]] && return 0
    done
    return 1
}

# The justified baseline of a target (conformance/tests/baselines/), as the
# run's --baseline: the report keeps the races an entry accepts
# ("baseline_also" in index.json) and the console names each deviation.  Both
# drivers of our client library share one.
baseline() { # name: sets bl, the run's baseline option (none without a baseline)
    local b=conformance/tests/baselines/${1/#client-libpmiclient-*/client-libpmiclient}.json
    bl=()
    if [ -f "$b" ]; then bl=(--baseline "$b"); fi
}

server() { # name launcher [options...]
    local name=$1 launch=$2
    shift 2
    want "$name" || return 0
    rm -rf "${out:?}/$name"
    mkdir -p "$out/$name"
    baseline "$name"
    "$conform" server --launch "$launch" --json "$out/$name/json" --html "$out/$name/report.html" \
        "${bl[@]}" "$@" >"$out/$name/console.txt" 2>"$out/$name/stderr.txt"
    [ -f "$out/$name/json/index.json" ] || { echo "publish: no report for $name" >&2; status=1; }
    tail -n 1 "$out/$name/console.txt" | sed "s/^/$name: /"
}

client() { # name program [args...]
    local name=$1
    shift
    want "$name" || return 0
    rm -rf "${out:?}/$name"
    mkdir -p "$out/$name"
    baseline "$name"
    "$conform" client --json "$out/$name/json" --html "$out/$name/report.html" "${bl[@]}" -- "$@" \
        >"$out/$name/console.txt" 2>"$out/$name/stderr.txt"
    [ -f "$out/$name/json/index.json" ] || { echo "publish: no report for $name" >&2; status=1; }
    tail -n 1 "$out/$name/console.txt" | sed "s/^/$name: /"
}

if command -v mpiexec.hydra >/dev/null; then
    server hydra-4.0.2 "mpiexec.hydra -n {n}"
else
    echo "publish: mpiexec.hydra not found; its report is not regenerated" >&2
fi
# Slurm 22.05 (srun --mpi=pmi2), PMI-2 and PMI-1 as it serves them, on
# throwaway one-node clusters, one per launch slot ({slot}: three launches at
# once, each on a cluster of its own); a step Slurm leaves completing is
# recovered by resetting that slot's cluster (and graded ERR-18).
SLURM_SLOTS=3
if ! want slurm-22.05; then
    :
elif command -v srun >/dev/null && [ "$(id -u)" -eq 0 ]; then
    cluster=$(mktemp -d /tmp/pcf-publish-slurm-XXXXXX)
    chmod 755 "$cluster" # munged runs as user munge and must reach each cluster under it
    up=0
    for i in $(seq 0 $((SLURM_SLOTS - 1))); do
        scripts/slurm-cluster.sh up "$cluster/c$i" >/dev/null && up=$((up + 1))
    done
    if [ "$up" -eq "$SLURM_SLOTS" ]; then
        SLURM_OVERCOMMIT=1 server slurm-22.05 "SLURM_CONF=$cluster/c{slot}/slurm.conf srun --mpi=pmi2 -n {n}" \
            --jobs "$SLURM_SLOTS" --timeout 2 \
            --recover "'$PWD/scripts/slurm-cluster.sh' reset '$cluster/c{slot}' >/dev/null 2>&1"
    else
        echo "publish: the Slurm test clusters did not start; slurm-22.05 not regenerated" >&2
        status=1
    fi
    for i in $(seq 0 $((SLURM_SLOTS - 1))); do
        scripts/slurm-cluster.sh down "$cluster/c$i" >/dev/null 2>&1
    done
    rm -rf "$cluster"
else
    echo "publish: srun not found (or not root); slurm-22.05 is not regenerated" >&2
fi
# Two nodes on one machine (scripts/cluster.sh up 2: each node a UTS + mount
# namespace of its own, its own hostname and /tmp, loopback only): Hydra's ssh
# launcher through scripts/cluster-exec.sh (-hosts node0,node1: its default
# placement, ranks dealt round the nodes) and Slurm's srun -N 2 (one
# slurmstepd per node; its default block placement), every case, --nodes 2
# (a destructive case's launch gets two ranks a node).
if want hydra-4.0.2-2nodes || want slurm-22.05-2nodes; then
    if command -v srun >/dev/null && command -v mpiexec.hydra >/dev/null && [ "$(id -u)" -eq 0 ]; then
        cl=$(mktemp -d /tmp/pcf-publish-2nodes-XXXXXX)
        chmod 755 "$cl"
        if scripts/cluster.sh up 2 "$cl" >/dev/null 2>&1; then
            PCF_CLUSTER=$cl server hydra-4.0.2-2nodes \
                "mpiexec.hydra -launcher ssh -launcher-exec $PWD/scripts/cluster-exec.sh -hosts node0,node1 -n {n}" \
                --nodes 2 --timeout 2
            SLURM_CONF=$cl/slurm.conf SLURM_OVERCOMMIT=1 PCF_CLUSTER=$cl \
                server slurm-22.05-2nodes "srun -N {nodes} --mpi=pmi2 -n {n}" --nodes 2 --timeout 2 \
                --recover "'$PWD/scripts/cluster.sh' reset '$cl' >/dev/null 2>&1"
        else
            echo "publish: the two-node cluster did not start; the -2nodes reports not regenerated" >&2
            status=1
        fi
        scripts/cluster.sh down "$cl" >/dev/null 2>&1
        rm -rf "$cl"
    else
        echo "publish: srun or mpiexec.hydra not found (or not root); the -2nodes reports not regenerated" >&2
    fi
fi
for p in strict hydra-4.0 hydra-4.1 slurm pmi1 no-nameserv; do
    t=5
    [ "$p" = slurm ] && t=2 # Slurm's silence (S7) costs a deadline per case
    server "mock-$p" "$mock -n {n} --persona $p --timeout 120 --" --timeout "$t"
done
# an independent server written from SPEC.md alone (tests/peers/README.md)
server newcomer "python3 tests/peers/newcomer_server.py -n {n} --" --timeout 5
if [ -x "$build/tests/newcomer1_server" ]; then # the same, PMI-1 only, in C
    server newcomer1 "$build/tests/newcomer1_server -n {n} --" --timeout 5
fi
# the same in Python asyncio, its ranks connected over PMI_PORT + PMI_ID (not PMI_FD)
server newcomer3 "python3 tests/peers/newcomer3_server.py -n {n} --" --jobs 2 --timeout 5
if [ -x "$build/tests/peers/newcomer2_server" ]; then # the same in C, a thread per connection
    server newcomer2 "$build/tests/peers/newcomer2_server -n {n} --" --timeout 5
fi
client client-libpmiclient-pmi2 "$build/conformance/drivers/pmi2-driver"
client client-libpmiclient-pmi1 "$build/conformance/drivers/pmi1-driver"
# an independent client library written from SPEC.md alone (tests/peers/README.md)
nc2=$build/tests/peers/newcomer2_client
if [ -x "$nc2/newcomer2-pmi2-driver" ]; then
    client client-newcomer2-pmi2 "$nc2/newcomer2-pmi2-driver"
    client client-newcomer2-pmi1 "$nc2/newcomer2-pmi1-driver"
fi
# Debian's libmpich (PMI-1), graded through an ordinary MPI program
if [ -x "$build/mockserver/tests/mpi_hello" ]; then
    client client-libmpich-4.0.2 "$build/mockserver/tests/mpi_hello"
else
    echo "publish: $build/mockserver/tests/mpi_hello not built (no libmpich); skipped" >&2
fi
# Slurm's libpmi2 (PMI-2), graded through pmi2-driver built against it
if [ -x "$build/conformance/drivers/pmi2-driver-libpmi2" ]; then
    client client-libpmi2-slurm "$build/conformance/drivers/pmi2-driver-libpmi2"
else
    echo "publish: $build/conformance/drivers/pmi2-driver-libpmi2 not built (no Slurm libpmi2); skipped" >&2
fi

mutation() { # kind (server or client) [mutate options...]
    local kind=$1 name=mutation-$1 tmp
    shift
    want "$name" || return 0
    rm -rf "${out:?}/$name"
    mkdir -p "$out/$name"
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/pcf-publish-mutate-XXXXXX")
    "$conform" mutate "$@" -v --out "$tmp" >"$out/$name/console.txt" 2>"$out/$name/stderr.txt"
    if [ -f "$tmp/mutation.json" ]; then
        cp "$tmp/mutation.json" "$out/$name/mutation.json"
    else
        echo "publish: no mutation report for $kind" >&2
        status=1
    fi
    rm -rf "$tmp"
    tail -n 1 "$out/$name/console.txt" | sed "s/^/$name: /"
}
mutation server --mock "$mock"
mutation client --client
exit $status
