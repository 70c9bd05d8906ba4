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
# down to api(), or to the kit's call of it (not included) when api()'s call
# was a tail call
frames=$(printf '%s\n' "$out" | sed -n '/ERROR: /,/ in \(api\|pmifuzz_client_run\) /p' |
    grep -E '^ +#[0-9]+ ' | grep -v ' in pmifuzz_client_run ')
printf '%s\n' "$out" | grep -E '^==[0-9]+==ERROR: ' | head -1
printf '%s\n' "$frames" | head -6
if [ "$rc" -ne 0 ] && [ -n "$frames" ] && ! printf '%s\n' "$frames" | grep -q 'pmifuzz_' &&
    printf '%s\n' "$frames" | head -1 | grep -qv ' in api '; then
    echo "reproduced: $input"
    exit 0
fi
echo "not reproduced: $input (exit status $rc)"
exit 1
