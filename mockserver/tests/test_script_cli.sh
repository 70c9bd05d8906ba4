#!/bin/sh
# pmi-mockserver --script under the launcher.
#   test_script_cli.sh kill  PMI-MOCKSERVER SCRIPT-DIR TEST_SCRIPT
#   test_script_cli.sh mpich PMI-MOCKSERVER SCRIPT-DIR MPI_HELLO SCRIPT-NAME
# kill: rank 1's process is killed by the script (SIGKILL): the job ends
# with 137 and the launcher names the rank.  mpich: a real MPICH program
# whose PMI connection is dropped or answered with an error fails cleanly:
# a non-zero exit that is not the --timeout's 124, well before it.
set -u
mode=$1 server=$2 dir=$3 prog=$4
err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT

fail() {
    echo "FAIL: $*"
    echo "--- stderr of pmi-mockserver:"
    cat "$err"
    exit 1
}

start=$(date +%s)
case $mode in
kill)
    "$server" -n 2 --timeout 30 --script "$dir/kill.trace" -- "$prog" rank-kill 2>"$err"
    rc=$?
    [ "$rc" -eq 137 ] || fail "exit code $rc, want 137 (rank 1 killed by SIGKILL)"
    grep -q "script: killing rank 1 of .* with signal 9" "$err" || fail "the kill is not logged"
    grep -q "rank 1 of .* exited with signal 9 before finalize" "$err" ||
        fail "the launcher does not report rank 1's death"
    ;;
mpich)
    "$server" -n 2 --timeout 30 --script "$dir/$5" -- "$prog" 2 >/dev/null 2>"$err"
    rc=$?
    [ "$rc" -ne 0 ] || fail "the job succeeded although the script broke its PMI session"
    [ "$rc" -ne 124 ] || fail "the job hung until --timeout"
    grep -Eq "rank 1 of .* (exited|aborts)" "$err" || fail "the launcher does not report rank 1"
    ;;
*)
    echo "unknown mode $mode"
    exit 2
    ;;
esac
took=$(($(date +%s) - start))
[ "$took" -lt 20 ] || fail "took $took s"
echo "ok: $mode ${5:-} (exit $rc, $took s)"
