#!/bin/sh
# A kit finding that reproduces only on a second run in one process (ctest
# fuzz.kit.repro.<name>.<stem> for kit/findings/<name>/<stem>.twice): the
# harness runs the input twice (leak detection off, so libFuzzer adds no run
# of its own) and the second run must die with a sanitizer report whose
# innermost frames lie in the library, not in this project's code.
#
#   twice.sh HARNESS INPUT
set -u
harness=$1 input=$2
out=$("$harness" -detect_leaks=0 -error_exitcode=1 -runs=2 "$input" 2>&1)
rc=$?
. "$(dirname "$0")/frames.sh"
frames=$(printf '%s\n' "$out" | kit_frames /dev/stdin)
printf '%s\n' "$out" | grep -E '^==[0-9]+==ERROR: ' | head -1
printf '%s\n' "$frames" | head -6
if [ "$rc" -ne 0 ] && kit_not_ours "$frames"; then
    echo "reproduced: $input"
    exit 0
fi
echo "not reproduced: $input (exit status $rc)"
exit 1
