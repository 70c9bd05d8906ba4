#!/bin/sh
# The client kit's fork mode judges each end of the library's child as it
# should (ctest fuzz.kit.forked): exit() and abort() are the library's
# refusal (no finding, no crash file, nothing reported from the child), a
# fault is a finding, also one that comes after libFuzzer's alarm has
# interrupted the parent's wait.
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
exit $fail
