#!/bin/sh
# A v2 scenario (traces/scenarios: captures, wildcards, a regex, split
# writes) drives two virtual ranks against pmi-mockserver in every persona
# that speaks PMI-2 over PMI_PORT; a scenario that expects a wrong value
# must be reported as a divergence.
#   scenario.sh PMI_TRACE PMI_MOCKSERVER SCENARIO_DIR WORKDIR
set -u
PT=$1 MS=$2 SD=$3 W=$4
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
mock() {
    "$MS" -n 2 --persona "$2" --listen tcp --timeout 30 >"ms.$1.out" 2>"ms.$1.err" &
    i=0
    while ! grep -q '^PMI_SIZE=' "ms.$1.out" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
    sed -n 's/^PMI_PORT=//p' "ms.$1.out"
}
for persona in strict hydra-4.1 slurm; do
    port=$(mock $persona $persona)
    "$PT" replay --server --port "$port" --timeout 3000 "$SD/v2_two_ranks.trace" || fail "scenario vs $persona"
done
sed 's/found=TRUE value=v1$/found=TRUE value=wrong/' "$SD/v2_two_ranks.trace" >wrong.trace
port=$(mock wrong strict)
"$PT" replay --server --port "$port" --timeout 3000 wrong.trace >wrong.out 2>&1
rc=$?
cat wrong.out
[ $rc -eq 1 ] || fail "a wrong expectation: exit $rc, expected 1"
grep -q 'value: expected "wrong", got "v1"' wrong.out || fail "divergence not reported"
wait
echo PASS
