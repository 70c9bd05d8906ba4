#!/bin/sh
# The client kit's fork mode judges each end of the library's child as it
# should (ctest fuzz.kit.forked): exit() and abort() are the library's
# refusal (no finding, no crash file, nothing reported from the child), a
# fault is a finding, also one that comes after libFuzzer's alarm has
# interrupted the parent's wait; and what the child covered counts.
#
#   forked.sh KIT_FORKED WORKDIR
set -u
fz=$1 work=$2
rm -rf "$work"
mkdir -p "$work/art"
fail=0
one() { # name input want(0|crash) [options]
    name=$1 input=$2 want=$3
    shift 3
    printf '%s' "$input" >"$work/$name.in"
    rm -f "$work/art"/*
    "$fz" -artifact_prefix="$work/art/" "$@" "$work/$name.in" >"$work/$name.log" 2>&1
    rc=$?
    if [ "$want" = 0 ]; then
        if [ "$rc" -ne 0 ] || ls "$work/art"/* >/dev/null 2>&1 ||
            grep -q 'fuzz target exited\|deadly signal\|ERROR: ' "$work/$name.log"; then
            echo "FAIL: $name: the library's refusal was reported (exit status $rc):" >&2
            grep -m5 'ERROR\|exited\|died' "$work/$name.log" >&2
            fail=1
        else
            echo "ok: $name: a refusal, not a finding"
        fi
    else
        if [ "$rc" -ne 0 ] && grep -q '^pmifuzz: the library died' "$work/$name.log"; then
            echo "ok: $name: $(grep -m1 '^pmifuzz: the library died' "$work/$name.log")"
        else
            echo "FAIL: $name: the child's fault was not reported (exit status $rc)" >&2
            fail=1
        fi
    fi
}
one exit e 0
one abort a 0
one returns x 0
one fault s crash
# libFuzzer's alarm comes every timeout/2+1 s: with -timeout=4, at 3 s, while
# the parent waits for a child that faults at 3.5 s
one late-fault S crash -timeout=4
# the child's coverage reaches libFuzzer: the branches that exit and abort in
# the child are edges of the corpus that holds those inputs (without the
# counters handed back, both corpora cover the parent's code alone)
cov() { # dir -> libFuzzer's INITED edge count
    "$fz" -runs=0 "$1" 2>&1 | grep -oE 'INITED cov: [0-9]+' | grep -oE '[0-9]+$'
}
mkdir -p "$work/cov1" "$work/cov3"
printf x >"$work/cov1/x"
printf x >"$work/cov3/x"
printf e >"$work/cov3/e"
printf a >"$work/cov3/a"
c1=$(cov "$work/cov1") c3=$(cov "$work/cov3")
if [ -n "$c1" ] && [ -n "$c3" ] && [ "$c3" -gt "$c1" ]; then
    echo "ok: coverage: the child's exit and abort branches counted ($c1 -> $c3 edges)"
else
    echo "FAIL: coverage: the child's edges did not reach libFuzzer ($c1 -> $c3 edges)" >&2
    fail=1
fi
exit $fail
