#!/bin/sh
# pmi2-conform fuzz against a real server that documents crashes and job
# kills on malformed input (mpich-wire.md §9): the campaign must report
# findings of the expected classes, each with a reproducer trace, and one
# crash reproducer must bring the crash back through pmi-trace replay.
#   fuzz-peer.sh PMI2_CONFORM PMI_TRACE LAUNCHER OUTDIR SEED COUNT
set -u
conform=$1 pmitrace=$2 launcher=$3 out=$4 seed=$5 count=$6
rm -rf "$out"
PMI2_CONFORM_PMI_TRACE=$pmitrace "$conform" fuzz --launch "$launcher -n {n}" \
    --seed "$seed" --count "$count" --time 600 --out "$out" -q
rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: exit status $rc, expected 1 (findings)"; exit 1; }
f="$out/findings.txt"
[ -s "$f" ] || { echo "FAIL: no $f"; exit 1; }
cat "$f"
kills=$(grep -c '^job-killed' "$f")
crashes=$(grep -c '^crash' "$f")
[ "$kills" -ge 3 ] || { echo "FAIL: $kills job kills, expected at least 3 (unknown commands)"; exit 1; }
[ "$crashes" -ge 1 ] || { echo "FAIL: no crash (publish without service segfaults mpiexec)"; exit 1; }
grep -q 'name-publish: every argument missing\|publish_name' "$f" ||
    { echo "FAIL: the publish-without-name crash was not found"; exit 1; }
# every finding has a reproducer that exists and parses
awk -F '\t' '{print $3}' "$f" | while read -r t; do
    [ "$t" != "-" ] && [ -s "$t" ] || { echo "FAIL: finding without reproducer"; exit 1; }
    "$pmitrace" show "$t" >/dev/null || { echo "FAIL: $t does not parse"; exit 1; }
done || exit 1
replays=$(awk -F '\t' '$4 == "replays"' "$f" | wc -l)
[ "$replays" -ge 3 ] || { echo "FAIL: only $replays reproducers replay"; exit 1; }
# replay one crash reproducer by hand: the launcher must report the crash again
t=$(awk -F '\t' '$1 == "crash" && $4 == "replays" {print $3; exit}' "$f")
[ -n "$t" ] || { echo "FAIL: no replaying crash reproducer"; exit 1; }
n=$(sed -n 's/^@meta ranks=//p' "$t")
$launcher -n "$n" "$pmitrace" replay --server "$t" >"$out/replay.log" 2>&1
st=$?
[ "$st" -ge 4 ] || { echo "FAIL: replay of $t ended with status $st"; cat "$out/replay.log"; exit 1; }
echo "OK: $kills job kills, $crashes crashes, $replays reproducers replay; $t replays with status $st"
