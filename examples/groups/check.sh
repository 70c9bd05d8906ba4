#!/bin/sh
# Run groups_example under pmi-mockserver (-n 2, a child job of 2) and check
# that every process of both jobs printed the same membership and ctxid,
# that the membership is exactly the processes that printed, from two jobs.
#   check.sh PMI-MOCKSERVER GROUPS_EXAMPLE
set -u
server=$1 example=$2
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
fail() {
    echo "FAIL: $*"
    cat "$out"
    exit 1
}

"$server" -n 2 --timeout 60 -- "$example" --nchild 2 >"$out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "the job exited with $rc"

lines=$(grep '^groups-example: procid=' "$out")
[ "$(printf '%s\n' "$lines" | wc -l)" -eq 4 ] || fail "not 4 processes (2 parent + 2 child) reported"
[ "$(printf '%s\n' "$lines" | grep -c ' job=parent ')" -eq 2 ] || fail "not 2 parent processes"
[ "$(printf '%s\n' "$lines" | grep -c ' job=child ')" -eq 2 ] || fail "not 2 child processes"
# Everything after the job= field must be the same on every line.
[ "$(printf '%s\n' "$lines" | sed 's/.* ctxid=/ctxid=/' | sort -u | wc -l)" -eq 1 ] ||
    fail "the processes disagree on ctxid or membership"
members=$(printf '%s\n' "$lines" | sed -n '1s/.* members=//p')
ctxid=$(printf '%s\n' "$lines" | sed -n '1s/.* ctxid=\([0-9]*\) .*/\1/p')
[ -n "$ctxid" ] && [ "$ctxid" -ge 1 ] || fail "no ctxid"
printed=$(printf '%s\n' "$lines" | sed 's/^groups-example: procid=\([^ ]*\) .*/\1/' | sort | tr '\n' ',' | sed 's/,$//')
sorted=$(printf '%s\n' "$members" | tr ',' '\n' | sort | tr '\n' ',' | sed 's/,$//')
[ "$printed" = "$sorted" ] || fail "membership $members is not the processes that printed ($printed)"
jobs=$(printf '%s\n' "$members" | tr ',' '\n' | sed 's/:[0-9]*$//' | sort -u | wc -l)
[ "$jobs" -eq 2 ] || fail "the group spans $jobs jobs, want 2"
# Every process read every member's contribution.
[ "$(grep -c ' read from .* host=[^?].* pid=[0-9]' "$out")" -eq 16 ] ||
    fail "not every process read every contribution"
echo "ok: 4 processes, ctxid $ctxid, members $members"
