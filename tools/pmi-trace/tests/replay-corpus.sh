#!/bin/sh
# Every imported capture (traces/hydra-4.0.2, hydra-HEAD, slurm) replays,
# client side, against pmi-mockserver with the matching persona.  The ranks
# of a scenario are merged into one trace and played as virtual ranks over
# PMI_PORT.  Scenarios listed in EXPECT (replay-expect.txt) must diverge
# (malformed input that killed the real server, behaviour the persona does
# not imitate); every other one must match.  Exit 0 when outcomes equal
# expectations, 1 otherwise.
#   replay-corpus.sh PMI_TRACE PMI_MOCKSERVER TRACES_DIR EXPECT WORKDIR [DIR:PERSONA...]
# The corpora replayed are given as DIR:PERSONA (default: all three).
set -u
PT=$1 MS=$2 TR=$3 EXPECT=$4 W=$5
shift 5
dirs=${*:-hydra-4.0.2:hydra-4.0 hydra-HEAD:hydra-4.1 slurm:slurm}
rm -rf "$W" && mkdir -p "$W" || exit 2
fail=0 n=0
for dir in $dirs; do
    sub=${dir%%:*} persona=${dir#*:}
    for scen in $(ls "$TR/$sub" | sed -n 's/\.rank[0-9]*\.trace$//p' | sort -u); do
        files=$(ls "$TR/$sub/$scen".rank*.trace | sort)
        np=$(echo "$files" | wc -l)
        # the probes connected with PMI_PORT themselves: they identify on their own
        "$PT" merge "$W/$sub.$scen.trace" $files || { echo "FAIL $sub/$scen: merge"; fail=1; continue; }
        tol=""
        case $sub in
        # the probe machine's core count made Hydra 4.0.2 write ppn=1 for two ranks
        # on one node (mpich-wire.md, last section): the mapping differs, not the wire
        hydra-4.0.2) tol="--tolerate-kvs PMI_process_mapping" ;;
        esac
        # PMI_hwloc_xmlfile names a file hwloc wrote on the probe machine
        tol="$tol --tolerate-kvs PMI_hwloc_xmlfile"
        # a file per scenario: a shared one could still hold the last server's port
        msout="$W/$sub.$scen.ms.out"
        "$MS" -n "$np" --persona "$persona" --listen tcp --timeout 30 >"$msout" 2>"$W/$sub.$scen.ms.err" &
        mpid=$!
        i=0
        while ! grep -q '^PMI_SIZE=' "$msout" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
        port=$(sed -n 's/^PMI_PORT=//p' "$msout")
        "$PT" replay --server --port "$port" --timeout 3000 $tol "$W/$sub.$scen.trace" >"$W/$sub.$scen.out" 2>&1
        rc=$?
        kill $mpid 2>/dev/null; wait $mpid 2>/dev/null
        n=$((n+1))
        want=match
        if grep -q "^$sub/$scen\b" "$EXPECT"; then want=diverge; fi
        got=match; [ $rc -eq 1 ] && got=diverge; [ $rc -gt 1 ] && got="error($rc)"
        if [ "$want" != "$got" ]; then
            echo "FAIL $sub/$scen ($persona, $np ranks): expected $want, got $got"
            sed 's/^/    /' "$W/$sub.$scen.out" | head -20
            fail=1
        else
            echo "ok   $sub/$scen ($persona, $np ranks): $got"
        fi
    done
done
echo "$n scenarios replayed"
exit $fail
