#!/bin/sh
# A Flux shell log (pmi-simple C:/S: lines) imports into a trace with one
# connection per rank, every line a write with its '\n', times kept, and
# the result decodes without findings.
#   import-flux.sh PMI_TRACE LOG WORKDIR
set -u
PT=$1 LOG=$2 W=$3
rm -rf "$W" && mkdir -p "$W" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
"$PT" import --flavour flux -o "$W/flux.trace" "$LOG" || fail import
t="$W/flux.trace"
[ "$(grep -c ' r0 C>S ' "$t")" -eq 7 ] || fail "rank 0 should have 7 requests"
[ "$(grep -c ' r1 S>C ' "$t")" -eq 6 ] || fail "rank 1 should have 6 responses"
grep -q '^0.012503 r0 S>C "cmd=barrier_out rc=0\\n"$' "$t" || fail "time or bytes of barrier_out"
grep -q 'kvsname=\\xc6\\x92' "$t" || fail "the job id's non-ASCII byte is not escaped"
"$PT" survey "$t" || fail "the imported trace does not decode cleanly"
"$PT" show --color=never "$t" | grep -q '= v1  get_result  rc=0 value=v1' || fail "show does not decode"
printf '[ +0.1] flux-shell[0]: TRACE: pmi-simple: x: C: cmd=init\n' >"$W/bad.log"
"$PT" import --flavour flux -o "$W/bad.trace" "$W/bad.log" 2>"$W/bad.err" && fail "a malformed line imported"
grep -q 'bad.log:1:.*rank' "$W/bad.err" || { cat "$W/bad.err"; fail "no line:column error"; }
echo PASS
