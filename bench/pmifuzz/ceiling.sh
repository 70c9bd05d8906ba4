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
#
# For the libpmiclient harnesses (pmiclient, pmiclient_v1, pmiclient_all) it then builds the
# harness once more with clang's source coverage (-fprofile-instr-generate:
# the library, the codec and the harness, no sanitizer), replays the three
# corpora through it and prints, file by file, the code regions each reached:
# what neither reached is what the harness leaves out (argument checks,
# singleton mode, the environment), not what a mutator could still find.
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

case $h in pmiclient | pmiclient_v1 | pmiclient_all) ;; *) exit 0 ;; esac
src=$(cd "$(dirname "$0")/../.." && pwd)
ragel=$build/fuzz/ragel
hsrc=("$src/fuzz/kit/kit_$h.c")
[ "$h" = pmiclient_all ] &&  # the two harnesses' calls, without their entry points
    hsrc+=(-DPMICLIENT_CALLS_ONLY "$src/fuzz/kit/kit_pmiclient.c" "$src/fuzz/kit/kit_pmiclient_v1.c")
[ -f "$ragel/v1_body.c" ] || { echo "no generated $ragel/v1_body.c: source coverage skipped" >&2; exit 0; }
command -v llvm-profdata >/dev/null && command -v llvm-cov >/dev/null ||
    { echo "no llvm-profdata/llvm-cov: source coverage skipped" >&2; exit 0; }
clang -D_POSIX_C_SOURCE=200809L -I"$src/codec/include" -I"$src/codec/src" -I"$src/client/include" \
    -I"$src/client/src" -I"$src/pmifuzz/include" -O1 -g -std=c11 -w -pthread \
    -fprofile-instr-generate -fcoverage-mapping -fsanitize=fuzzer \
    "$src"/client/src/*.c "$src"/codec/src/*.c "$ragel/v1_body.c" "$ragel/v2_body.c" \
    "${hsrc[@]}" -L"$build/pmifuzz" -lpmifuzz-plain -Wl,-rpath,"$build/pmifuzz" \
    -lssl -lcrypto -o "$w/cov"
prof() { # corpus dirs -> $w/$1.profdata
    local tag=$1
    shift
    LLVM_PROFILE_FILE="$w/$tag.profraw" "$w/cov" -runs=0 -timeout=10 "$@" >/dev/null 2>&1 || true
    llvm-profdata merge -o "$w/$tag.profdata" "$w/$tag.profraw"
}
prof m "$w/m"
prof p "$w/p"
prof u "$w/m" "$w/p"
# llvm-cov report: Filename Regions Missed Cover ...; regions reached = Regions - Missed
reached() { llvm-cov report "$w/cov" -instr-profile="$w/$1.profdata" 2>/dev/null |
    awk -v root="$src/" '$2 ~ /^[0-9]+$/ && $2 > 0 { f = $1; sub(root, "", f); print f, $2 - $3, $2 }'; }
reached m >"$w/m.r"
reached p >"$w/p.r"
reached u >"$w/u.r"
echo "code regions reached, file by file (source coverage; same corpora):"
printf '%-34s %9s %9s %9s %9s\n' file libpmifuzz plain both regions
join <(sort "$w/m.r") <(sort "$w/p.r") | join - <(sort "$w/u.r") |
    awk '{ printf "%-34s %9d %9d %9d %9d\n", $1, $2, $4, $6, $3 }' | sed "s#^$build/##"
