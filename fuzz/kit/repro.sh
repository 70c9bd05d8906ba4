#!/bin/sh
# A kit finding's trace still reproduces (ctest fuzz.kit.repro.<name>):
# `pmi-trace replay --client TRACE` plays the recorded answers to the
# harness in live mode, and the library must die as it did when found.
#
#   repro.sh PMI_TRACE HARNESS TRACE
set -eu
pmitrace=$1 harness=$2 trace=$3
st=0
out=$("$pmitrace" replay --client "$trace" -- env PMIFUZZ_LIVE=1 "$harness" 2>&1) || st=$?
printf '%s\n' "$out" | grep -E '^replay:|SUMMARY' || true
# 4: every answer played as recorded, and then the program died
if [ "$st" -eq 4 ] && printf '%s\n' "$out" | grep -qE 'replay: .*exited with status [1-9]'; then
    echo "reproduced: $trace"
    exit 0
fi
echo "not reproduced: $trace (replay exit status $st)"
exit 1
