#!/usr/bin/env bash
# libpmifuzz against plain libFuzzer, in one run (not a ctest: it takes minutes).
#
#   bench/pmifuzz/run.sh [SECONDS] [REPEATS] [BUILD_DIR] [SEEDS]
#       defaults: 60 3 build/fuzz corpus; SEEDS corpus = fuzz/kit/corpus (whole
#       sessions), corpus-min = fuzz/kit/corpus-min (one init line each)
#
# For every kit harness (fuzz/kit), kit-<name> (the PMI-aware mutator) and
# kit-<name>-plain (same harness, same kits, libFuzzer's own mutations) run
# side by side, one per core, on a scratch copy of the same seeds, with the
# same generated dictionary, the same -seed and the same time.  REPEATS runs
# with seeds 1..REPEATS; the table gives the median.
#   edges      libFuzzer's cov: at the end (instrumented code only: the
#              mutator is not instrumented, so its own work is not counted)
#   to crash   executions (and seconds) until the first finding (a crash, or
#              an oom-, timeout- or leak- artifact: its kind ends the run's
#              entry in the runs column); "-" when none within the time.
#              A run that stopped on a finding also stopped gathering
#              edges: its edges say little.  The planted server runs once per bug
#              (PLANTED=pairs, PLANTED=abort); Slurm's libpmi2 and the
#              newcomer4 parser and client (tests/peers) have their own.
# CASES="mockserver: pmiclient:" runs only those (pilots; a bench run runs all).
# Needs `cmake --preset fuzz && cmake --build --preset fuzz && cmake --build build/fuzz --target kit-plain`.
set -euo pipefail
secs=${1:-60} reps=${2:-3} build=${3:-build/fuzz} seeds=${4:-corpus}
src=$(cd "$(dirname "$0")/../.." && pwd)
fz=$build/fuzz
dict=$build/pmifuzz/pmi.dict
[ -x "$fz/kit-planted" ] && [ -x "$fz/kit-planted-plain" ] || {
    echo "build the fuzz preset and its target kit-plain first ($fz/kit-planted-plain missing)" >&2
    exit 2
}
work=$(mktemp -d "${TMPDIR:-/tmp}/pmifuzz-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# one run: prints "edges execs crash_execs crash_secs"
run() {
    local bin=$1 corpus=$2 seed=$3 tag=$4 env=$5
    local d=$work/$tag
    mkdir -p "$d/corpus" "$d/art"
    cp "$corpus"/* "$d/corpus/"
    local t0=$SECONDS rc=0
    env $env "$bin" -seed="$seed" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -max_len=4096 -dict="$dict" -print_final_stats=1 -artifact_prefix="$d/art/" \
        "$d/corpus" >"$d/log" 2>&1 || rc=$?
    local el=$((SECONDS - t0))
    local edges execs
    edges=$(grep -oE 'cov: [0-9]+' "$d/log" | tail -1 | grep -oE '[0-9]+' || echo 0)
    execs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$d/log" | grep -oE '[0-9]+$' || echo 0)
    # a finding is any artifact libFuzzer stops on: a crash, and also an
    # allocation past -rss_limit_mb (oom-), an input over -timeout, a leak
    local art
    art=$(ls "$d/art" 2>/dev/null | grep -E '^(crash|oom|timeout|leak)-' | head -1 || true)
    if [ "$rc" -ge 128 ] && [ -z "$art" ]; then
        # killed by a signal with no crash file: an uninstrumented library
        # (Slurm's) wrote through a wild pointer and took the sanitizer's
        # report down with it.  A crash all the same; its execution count is
        # the last libFuzzer printed (a lower bound).
        execs=$(grep -oE '^#[0-9]+' "$d/log" | tail -1 | tr -d '#')
        echo "${edges:-0} ${execs:-0} ${execs:-0} $el signal"
        return
    fi
    if [ -n "$art" ]; then
        echo "$edges $execs $execs $el ${art%%-*}"
    else
        echo "$edges $execs - -"
    fi
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) print "-"; else print a[int((NR+1)/2)]}'; }
# median of crash execs with "-" (not found) counted as larger than any number
median_crash() { sed 's/^-$/999999999999/' | median | sed 's/^999999999999$/-/'; }

printf '| harness | mutator | edges (median) | execs | execs to crash (median) | found in | runs |\n'
printf '|---|---|---:|---:|---:|---:|---|\n'
ratios=
cases=${CASES:-"planted:pairs planted:abort mockserver: mockserver_conns: pmiclient_all: pmiclient: pmiclient_v1: newcomer: newcomer2: newcomer4_parser: newcomer4_client: newcomer5_client: newcomer7_server: conns: slurm_pmi2:"}
for c in $cases; do
    name=${c%%:*} bug=${c#*:}
    [ -x "$fz/kit-$name" ] || continue
    env="PMIFUZZ_BENCH=1"
    [ -n "$bug" ] && env="PLANTED=$bug"
    label=$name${bug:+ ($bug)}
    for v in "" "-plain"; do : >"$work/res$v"; done
    for s in $(seq 1 "$reps"); do
        run "$fz/kit-$name" "$src/fuzz/kit/$seeds/$name" "$s" "$name$bug-$s" "$env" >>"$work/res" &
        run "$fz/kit-$name-plain" "$src/fuzz/kit/$seeds/$name" "$s" "$name$bug-$s-plain" "$env" >>"$work/res-plain" &
        wait
    done
    # libpmifuzz / plain: edges, and plain's executions to crash / ours
    er=$(paste -d' ' <(cut -d' ' -f1 "$work/res" | median) <(cut -d' ' -f1 "$work/res-plain" | median) |
        awk '{ if ($2 > 0) printf "%.2fx", $1 / $2; else print "-" }')
    cr=$(paste -d' ' <(cut -d' ' -f3 "$work/res" | median_crash) <(cut -d' ' -f3 "$work/res-plain" | median_crash) \
               <(cut -d' ' -f2 "$work/res-plain" | median) |
        awk '{ if ($1 == "-") print "-"; else if ($2 == "-") printf ">%.0fx (plain: none in %d)", $3 / $1, $3; else printf "%.0fx", $2 / $1 }')
    ratios="$ratios| $name${bug:+ ($bug)} | $er | $cr |"$'\n'
    for v in "" "-plain"; do
        f=$work/res$v
        e=$(cut -d' ' -f1 "$f" | median)
        x=$(cut -d' ' -f2 "$f" | median)
        ce=$(cut -d' ' -f3 "$f" | median_crash)
        found=$(awk '$3 != "-"' "$f" | wc -l)
        cs=$(awk '$4 != "-" {print $4}' "$f" | median)
        runs=$(tr '\n' ';' <"$f" | sed 's/;$//')
        printf '| %s | %s | %s | %s | %s | %s/%s runs, median %ss | %s |\n' "$label" \
            "$( [ -n "$v" ] && echo 'plain libFuzzer' || echo libpmifuzz )" "$e" "$x" "$ce" "$found" "$reps" "$cs" "$runs"
    done
done
echo
printf '| harness | edges, libpmifuzz / plain | executions to crash, plain / libpmifuzz |\n|---|---:|---:|\n%s' "$ratios"
echo
echo "seeds: fuzz/kit/$seeds; each run: edges execs execs-to-crash seconds-to-crash; ${secs}s per run, seeds 1..$reps, $(nproc) cores, $(date -u +%FT%TZ)"
