#!/usr/bin/env bash
# How close plain libFuzzer comes to what a harness can reach (not a ctest).
#
#   bench/pmifuzz/ceiling.sh HARNESS SEEDS_DIR [SECONDS] [SEED] [BUILD_DIR]
#       e.g. bench/pmifuzz/ceiling.sh pmiclient_v1 fuzz/kit/corpus/pmiclient_v1 180 2
#
# Runs kit-HARNESS (libpmifuzz) and kit-HARNESS-plain side by side on copies
# of the same seeds, the same dictionary, -seed and time (as run.sh), keeps
# both final corpora, and replays each, and the two together, through the
# plain binary (-runs=0): the union is a floor for the edges the harness can
# reach.  When plain libFuzzer's edges are already most of the union, no
# mutator can reach 1.5x of them on that harness: what is left to tell the
# two apart is depth (executions to a crash), not edges.
set -euo pipefail
h=$1 seeds=$2 secs=${3:-30} seed=${4:-1} build=${5:-build/fuzz}
fz=$build/fuzz dict=$build/pmifuzz/pmi.dict
[ -x "$fz/kit-$h" ] && [ -x "$fz/kit-$h-plain" ] || {
    echo "build the fuzz preset and its target kit-plain first ($fz/kit-$h-plain missing)" >&2
    exit 2
}
w=$(mktemp -d "${TMPDIR:-/tmp}/pmifuzz-ceiling.XXXXXX")
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/m" "$w/p" "$w/u" "$w/am" "$w/ap"
cp "$seeds"/* "$w/m/"
cp "$seeds"/* "$w/p/"
args=(-seed="$seed" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=4096 -dict="$dict")
"$fz/kit-$h" "${args[@]}" -artifact_prefix="$w/am/" "$w/m" >"$w/m.log" 2>&1 &
"$fz/kit-$h-plain" "${args[@]}" -artifact_prefix="$w/ap/" "$w/p" >"$w/p.log" 2>&1 &
wait
cov() { "$fz/kit-$h-plain" -runs=0 -timeout=10 -rss_limit_mb=2048 "$@" 2>&1 |
    grep -oE 'INITED cov: [0-9]+' | grep -oE '[0-9]+$'; }
m=$(cov "$w/m") p=$(cov "$w/p") u=$(cov "$w/u" "$w/m" "$w/p")
echo "$h, $seeds, ${secs} s, -seed=$seed: edges libpmifuzz $m, plain $p, both corpora $u"
awk -v m="$m" -v p="$p" -v u="$u" 'BEGIN {
    printf "ratio %.2fx; plain reached %.0f%% of the union; 1.5x of plain is %d edges (%s the union)\n",
        m / p, 100 * p / u, 1.5 * p, (1.5 * p > u) ? "above" : "within" }'
