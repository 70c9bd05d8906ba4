#!/bin/sh
# A kit finding's trace still reproduces (ctest fuzz.kit.repro.<name>):
# `pmi-trace replay --client TRACE` plays the recorded answers to the
# harness in live mode, and the library must die as it did when found.
#
#   repro.sh PMI_TRACE HARNESS TRACE
set -eu
pmitrace=$1 harness=$2 trace=$3
empty=$(mktemp "${TMPDIR:-/tmp}/pmc-kit-repro.XXXXXX")
trap 'rm -f "$empty"' EXIT INT TERM
out=$("$pmitrace" replay --client "$trace" -- env PMIFUZZ_LIVE=1 "$harness" "$empty" 2>&1 || true)
printf '%s\n' "$out" | grep -E '^replay:|SUMMARY' || true
if printf '%s\n' "$out" | grep -qE 'replay: .*(exited with status [1-9]|signal)'; then
    echo "reproduced: $trace"
    exit 0
fi
echo "not reproduced: $trace"
exit 1
