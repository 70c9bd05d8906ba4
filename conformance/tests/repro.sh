#!/bin/sh
# Reproducers reproduce (issue 22): run the suite against a server that
# fails (--json), then replay every FAIL's DIR/repro/<case>/replay.sh
# against that server (it must exit 1: reproduced) and against a
# conforming one (exit 0: not reproduced).
#
# usage: repro.sh PMI2_CONFORM OUTDIR 'FAILING TEMPLATE' 'CONFORMING TEMPLATE' [CASE GLOB...]
# REPRO_REQUIRE="CASE ...": cases that must be among the FAILs checked.
# internal: repro.sh --one DIR TEMPLATE WANT
if [ "$1" = --one ]; then
    "$2/replay.sh" "$3" >"$2/replay.$4.out" 2>&1
    st=$?
    # "cannot tell" (exit 2: the launcher ended before the replay could
    # judge, e.g. the job torn down by a spawned child's failure, or by
    # another rank's request that the recording made after the marked
    # answer: the replay keeps each rank's pauses, not the order across
    # ranks, and eight replays share two loaded cores) is no verdict: up
    # to twice more
    for again in 1 2; do
        [ "$st" = 2 ] && [ "$4" != 2 ] || break
        mv "$2/replay.$4.out" "$2/replay.$4.try$again.out"
        "$2/replay.sh" "$3" >"$2/replay.$4.out" 2>&1
        st=$?
    done
    if [ "$st" != "$4" ]; then
        echo "MISMATCH ${2##*/}: replay.sh '$3' exited $st, wanted $4:"
        # the case and what it expected, then how the replay ended (its
        # verdict lines are last: a long "recorded" line must not hide them)
        sed 's/^/    /' "$2/replay.$4.out" | cut -c1-300 | head -3
        grep -v '^case: \|^expected: \|^recorded: ' "$2/replay.$4.out" | sed 's/^/    /' | cut -c1-300 | tail -25
    fi
    exit 0
fi
conform=$1 out=$2 bad=$3 good=$4
shift 4
rm -rf "$out" && mkdir -p "$out" || exit 2
"$conform" server --launch "$bad" --timeout 5 -q --json "$out/json" "$@" >"$out/run.out" 2>&1
# one line per case in index.json
grep '"verdict": "FAIL"' "$out/json/index.json" | sed 's/.*"repro": "\([^"]*\)".*/\1/' >"$out/fails"
n=$(wc -l <"$out/fails")
if [ "$n" -eq 0 ]; then
    echo "no FAIL against '$bad': nothing to check"
    exit 1
fi
for c in $REPRO_REQUIRE; do
    grep -qx "repro/$(printf '%s' "$c" | tr / _)" "$out/fails" || echo "MISMATCH $c: not among the FAILs"
done >"$out/required"
for r in $(cat "$out/fails"); do
    d="$out/json/$r"
    if ! [ -s "$d/repro.trace" ] || ! [ -x "$d/replay.sh" ] || ! grep -q '^Replay:' "$d/README"; then
        echo "MISMATCH $r: no reproducer (repro.trace, replay.sh, README)"
    fi
    printf '%s\n%s\n1\n' "$d" "$bad"
    printf '%s\n%s\n0\n' "$d" "$good"
done >"$out/jobs"
# replays mostly wait (pauses, a job's end): several at once; every process
# they start carries PCF_REPRO_TEST, so what one leaves behind is found
grep -v '^MISMATCH' "$out/jobs" |
    PCF_REPRO_TEST="$$.$(date +%s%N)" sh -c 'echo "$PCF_REPRO_TEST" >"$1.mark"; xargs -d "\n" -n 3 -P 8 sh "$0" --one' "$0" "$out/jobs" >"$out/mismatches"
grep -h '^MISMATCH' "$out/jobs" "$out/required" >>"$out/mismatches"
sleep 1
mark=$(cat "$out/jobs.mark")
for e in $(grep -lzx "PCF_REPRO_TEST=$mark" /proc/[0-9]*/environ 2>/dev/null); do
    p=${e#/proc/}
    p=${p%/environ}
    echo "MISMATCH left behind: $p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" >>"$out/mismatches"
    kill -9 "$p" 2>/dev/null
done
if [ -s "$out/mismatches" ]; then
    cat "$out/mismatches"
    echo "$(grep -c '^MISMATCH' "$out/mismatches") of $((2 * n)) replays of $n FAILs did not judge as they should"
    exit 1
fi
echo "$n FAILs: each reproduced against '$bad' and not against '$good'"
