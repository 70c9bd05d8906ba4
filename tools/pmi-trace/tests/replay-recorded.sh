#!/bin/sh
# The sessions in traces/recorded (real programs recorded by pmi-trace record,
# scrubbed) replay, client side, against pmi-mockserver: traces recorded under
# mpiexec.hydra against the hydra-4.0 persona, traces recorded under the mock
# against the persona their @source names.  Spawn sessions are not replayed
# here: their children would have to be started by the replaying side.
#   replay-recorded.sh PMI_TRACE PMI_MOCKSERVER RECORDED_DIR WORKDIR
set -u
PT=$1 MS=$2 RD=$3 W=$4
rm -rf "$W" && mkdir -p "$W" || exit 1
fail=0 n=0
for t in "$RD"/*.trace; do
    name=$(basename "$t" .trace)
    case $name in *spawn*) echo "skip $name (spawn)"; continue ;; esac
    np=$(grep -o '^[0-9.]* r[0-9]* ' "$t" | awk '{print $2}' | sort -u | wc -l)
    persona=$(sed -n 's/^@source .*pmi-mockserver[^)]*[( ]\([-a-z0-9.]*\) persona.*/\1/p' "$t" | head -1)
    tol=""
    if [ -z "$persona" ]; then
        persona=hydra-4.0
        # Hydra 4.0.2 on this machine writes ppn=1 for ranks of one node (see
        # replay-expect.txt): a fact of the recording machine
        tol="--tolerate-kvs PMI_process_mapping"
    fi
    out="$W/$name.ms.out"
    "$MS" -n "$np" --persona "$persona" --listen tcp --timeout 60 >"$out" 2>"$W/$name.ms.err" &
    mpid=$!
    i=0
    while ! grep -q '^PMI_SIZE=' "$out" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
    port=$(sed -n 's/^PMI_PORT=//p' "$out")
    if "$PT" replay --server --port "$port" --timeout 5000 $tol "$t" >"$W/$name.out" 2>&1; then
        echo "ok   $name ($persona, $np ranks)"
    else
        echo "FAIL $name ($persona, $np ranks)"; sed 's/^/    /' "$W/$name.out" | head -20; fail=1
    fi
    kill $mpid 2>/dev/null; wait $mpid 2>/dev/null
    n=$((n+1))
done
[ $n -gt 0 ] || { echo "no recorded traces"; exit 1; }
exit $fail
