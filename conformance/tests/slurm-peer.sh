#!/bin/sh
# pmi2-conform against real Slurm (label peer), on the throwaway clusters that
# the fixture test started (scripts/slurm-cluster.sh up CLUSTER_DIR/c0 .. c2).
#
#   slurm-peer.sh MODE PMI2_CONFORM CLUSTER_DIR WORKDIR [BASELINE]
#
#   launch      the orchestrated run, every case, against BASELINE, the three
#               clusters as launch slots ({slot}); a wedged step is recovered
#               by resetting its slot's cluster (--recover); a case that
#               deviates runs again once, alone (--rerun-deviations 1): a few
#               of Slurm's verdicts hang on whether it still holds the last
#               step when the next launch comes (results/README.md)
#   run-as-job  srun --mpi=pmi2 -n 4 pmi2-conform server: a full report (every
#               case a verdict, no ERROR), whatever the control channel does
#   sigterm     SIGTERM to an orchestrated run under srun: it ends, reports,
#               and leaves no process of the run behind
#   sigkill     SIGKILL to it: its ranks exit by themselves, and so does srun
# The clusters used are reset after each mode: Slurm may leave a step COMPLETING.
set -u
mode=$1 conform=$2 clusters=$3 work=$4 baseline=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# a Slurm built from source (SLURM_PREFIX), as scripts/slurm-lib.sh takes it
[ -z "${SLURM_PREFIX:-}" ] || PATH=$SLURM_PREFIX/bin:$SLURM_PREFIX/sbin:$PATH
slots=0
[ "$mode" = launch ] && slots="0 1 2"
export SLURM_CONF="$clusters/c0/slurm.conf"
export SLURM_OVERCOMMIT=1 # more ranks than the machine has cores
reset() { for s in $slots; do "$root/scripts/slurm-cluster.sh" reset "$clusters/c$s" >/dev/null 2>&1; done; }
rm -rf "$work"
mkdir -p "$work"
for s in $slots; do
    "$root/scripts/slurm-cluster.sh" status "$clusters/c$s" >/dev/null ||
        "$root/scripts/slurm-cluster.sh" reset "$clusters/c$s" >/dev/null 2>&1
done
rc=0
case "$mode" in
    launch)
        # robust/v1-value-2000: real Slurm's verdict on it varies between
        # FAIL (the value cut) and TIMEOUT (its agent stops serving the step
        # first); the published report accepts both (its baseline's "also")
        "$conform" server --launch "SLURM_CONF='$clusters'/c{slot}/slurm.conf srun --mpi=pmi2 -n {n}" \
            --jobs 3 --recover "'$root/scripts/slurm-cluster.sh' reset '$clusters/c{slot}' >/dev/null 2>&1" \
            --timeout 2 --json "$work/json" --baseline "$baseline" --rerun-deviations 1 \
            > "$work/report.txt" 2> "$work/stderr.txt"
        rc=$?
        tail -3 "$work/report.txt"
        if grep -q '^  ERROR ' "$work/report.txt"; then
            echo "FAIL: ERROR verdicts against Slurm:" >&2
            grep -A4 '^  ERROR ' "$work/report.txt" >&2
            rc=1
        fi
        # a deviation is the case line, its clause, expected and actual, then
        # "Baseline expected": show each whole, the run's end after them
        [ $rc -ne 0 ] && { awk '/^  [A-Z]/ { b = "" } { b = b $0 "\n" }
                               /^      Baseline expected/ { printf "%s", b }' "$work/report.txt" | head -120 >&2
                           tail -20 "$work/stderr.txt" >&2; } ;;
    run-as-job)
        timeout -s KILL 600 srun --mpi=pmi2 -n 4 "$conform" server --json "$work/json" \
            > "$work/report.txt" 2> "$work/stderr.txt"
        echo "srun exit status $?"
        tail -2 "$work/report.txt"
        ncases=$("$conform" server --list | wc -l)
        grep -q "^$ncases tests, " "$work/report.txt" || { echo "FAIL: no full report" >&2; rc=1; }
        if grep -q '^  ERROR ' "$work/report.txt"; then
            echo "FAIL: ERROR verdicts:" >&2
            grep -A4 '^  ERROR ' "$work/report.txt" >&2
            rc=1
        fi
        grep -q '"exit_code"' "$work/json/index.json" || { echo "FAIL: no index.json" >&2; rc=1; } ;;
    sigterm|sigkill)
        HOSTILE_LAUNCH='srun --mpi=pmi2 -n {n}' sh "$here/hostile.sh" "$conform" /bin/false \
            "$work/hostile" "$mode"
        rc=$? ;;
    *) echo "slurm-peer.sh: unknown mode $mode" >&2; exit 2 ;;
esac
reset
exit $rc
