#!/bin/sh
# Long fuzzing runs for the codec harnesses.
#
#   fuzz/run.sh SECONDS [HARNESS...]
#
# SECONDS is the total wall-clock budget, split evenly across the harnesses
# (all of them when none is named).  Each harness runs in libFuzzer's fork
# mode with one worker per core (FUZZ_JOBS overrides; FUZZ_JOBS=1 runs one
# plain in-process fuzzer, about twice as fast per core, which stops at its
# first crash), on a scratch copy of its seed corpus, until its share of
# SECONDS is spent or, with FUZZ_RUNS=N, after N executions; afterwards:
#   - inputs that add coverage are merged into fuzz/corpus/<harness>/ (-merge=1);
#   - every crash is minimized (-minimize_crash=1) into fuzz/crashes/<harness>/;
#   - a table prints executions, exec/s, coverage (cov:, ft:) and crashes.
# Exit status: 0 when no harness crashed, 1 when one did, 2 on usage or build
# errors.  Builds the `fuzz` preset first when needed (build/fuzz; the
# environment variable FUZZ_BUILD_DIR names another, already configured or
# to be configured, build directory).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build="${FUZZ_BUILD_DIR:-$root/build/fuzz}"

all="v1_line v2_frame stream concat decode_buffer validate encode_roundtrip reencode auth trace_read server"

usage() {
    echo "usage: fuzz/run.sh SECONDS [HARNESS...]" >&2
    echo "harnesses: $all" >&2
    exit 2
}
[ $# -ge 1 ] || usage
case $1 in
    -h|--help) usage ;;
    ''|*[!0-9]*) echo "run.sh: SECONDS must be a positive integer" >&2; usage ;;
esac
total=$1
shift
harnesses=${*:-$all}

# ---- build
cd "$root"
if [ -z "${FUZZ_BUILD_DIR:-}" ] && cmake --list-presets 2>/dev/null | grep -q '"fuzz"'; then
    [ -f "$build/CMakeCache.txt" ] || cmake --preset fuzz >/dev/null || exit 2
    cmake --build --preset fuzz -j"$(nproc)" >/dev/null || exit 2
else
    [ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPMC_FUZZ=ON >/dev/null || exit 2
    cmake --build "$build" -j"$(nproc)" >/dev/null || exit 2
fi

count=0
for h in $harnesses; do
    [ -x "$build/fuzz/fuzz-$h" ] || { echo "run.sh: no harness fuzz-$h in $build/fuzz" >&2; exit 2; }
    count=$((count + 1))
done
per=$((total / count))
[ "$per" -ge 1 ] || per=1
jobs=${FUZZ_JOBS:-$(nproc)}
echo "fuzzing $count harness(es) for ${per}s each with $jobs worker(s)"

work="$build/fuzz/run"
report="$work/report.txt"
mkdir -p "$work"
: > "$report"
failed=0
for h in $harnesses; do
    bin="$build/fuzz/fuzz-$h"
    dict="$here/dict/$h.dict"
    [ -f "$dict" ] || dict="$here/dict/pmi.dict"
    seeds="$here/corpus/$h"
    crashes="$here/crashes/$h"
    scratch="$work/$h"
    rm -rf "$scratch"
    mkdir -p "$scratch/corpus" "$crashes" "$seeds"
    cp "$seeds"/* "$scratch/corpus/" 2>/dev/null || true
    before=$(ls "$crashes" | grep -c '^crash-' || true)

    echo "== $h (${per}s${FUZZ_RUNS:+ or $FUZZ_RUNS runs})"
    if [ "$jobs" -gt 1 ]; then
        mode="-fork=$jobs -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
    else
        mode=""
    fi
    # shellcheck disable=SC2086 # $mode is a list of options
    "$bin" $mode ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} \
        -max_total_time="$per" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
        -dict="$dict" -artifact_prefix="$crashes/" -print_final_stats=1 \
        "$scratch/corpus" > "$scratch/log.txt" 2>&1 || true

    # keep what adds coverage (a no-op when nothing new was found)
    "$bin" -merge=1 -dict="$dict" "$seeds" "$scratch/corpus" > "$scratch/merge.txt" 2>&1 || true

    for c in "$crashes"/crash-* "$crashes"/timeout-* "$crashes"/oom-*; do
        [ -f "$c" ] || continue
        min="$crashes/min-$(basename "$c")"
        [ -f "$min" ] && continue
        "$bin" -minimize_crash=1 -runs=20000 -exact_artifact_path="$min" "$c" \
            > "$scratch/minimize.txt" 2>&1 || true
        [ -f "$min" ] || cp "$c" "$min"
    done
    after=$(ls "$crashes" | grep -c '^crash-' || true)
    new=$((after - before))
    [ "$new" -eq 0 ] || failed=1

    # The last status line: "#N: cov: C ft: F corp: ... exec/s: E ..." (fork
    # mode) or "#N DONE cov: C ft: F ... exec/s: E" (in process)
    stat=$(grep -E '^#[0-9]+.*cov: [0-9]+' "$scratch/log.txt" | tail -n 1 || true)
    execs=$(printf '%s\n' "$stat" | sed -n 's/^#\([0-9]*\).*/\1/p')
    cov=$(printf '%s\n' "$stat" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(printf '%s\n' "$stat" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    eps=$(printf '%s\n' "$stat" | sed -n 's/.*exec\/s:* \([0-9]*\).*/\1/p')
    printf '%s %s %s %s %s %s\n' "$h" "${execs:-?}" "${eps:-?}" "${cov:-?}" "${ft:-?}" "$new" >> "$report"
done

echo
printf '%-18s %12s %9s %7s %7s %8s\n' harness execs exec/s cov ft crashes
while read -r h e s c f n; do
    printf '%-18s %12s %9s %7s %7s %8s\n' "$h" "$e" "$s" "$c" "$f" "$n"
done < "$report"
[ "$failed" -eq 0 ] || echo "new crashes: see fuzz/crashes/<harness>/min-* (fuzz/README.md)"
exit "$failed"
