#!/usr/bin/env bash
# The two quickstart commands of the README.
#
#   scripts/quickstart.sh run    install deps, build (preset default), run the main job
#   scripts/quickstart.sh test   install deps, build and test presets default and asan
set -euo pipefail

# The main job, run from the repository root after the default build: the
# conformance suite against the embedded mock server (strict persona, every
# case, one launch per isolation group), then a survey of the recorded traces.
MAIN_JOB=(build/default/conformance/pmi2-conform server
          --launch "build/default/mockserver/pmi-mockserver -n {n} --")
SURVEY=(build/default/tools/pmi-trace/pmi-trace survey traces/)

TEST_PRESETS=(default asan)
# Tests at once: most of them wait (on a server's deadline, a launcher, a
# peer), so one more than the two cores this project is built on.
TEST_JOBS=3

usage() {
    cat <<USAGE
usage: scripts/quickstart.sh run|test
       scripts/quickstart.sh --help

  run    Install missing Debian packages, configure and build the 'default'
         preset, then run the main job:
           ${MAIN_JOB[*]}
  test   Install missing Debian packages, then for each preset in
         (${TEST_PRESETS[*]}): configure, build and run the whole ctest suite
         (the default preset's Slurm peer tests run in the background, beside
         the rest, and are waited for at the end);
         then the mock server's integration tests under valgrind
         (scripts/valgrind.sh) and a bounded smoke run of every libFuzzer
         harness (preset fuzz).  Fails if any test fails.

Exit status: 0 on success, 1 on any failure, 2 on bad usage.
USAGE
}

say() { printf '\n==> %s (at %d s)\n' "$*" "$SECONDS"; }
die() { printf 'quickstart: error: %s\n' "$*" >&2; exit 1; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

jobs=$(nproc 2>/dev/null || echo 2)

build_preset() {
    local preset=$1
    say "configure ($preset)"
    cmake --preset "$preset" || die "configure failed for preset '$preset'"
    say "build ($preset)"
    cmake --build --preset "$preset" --parallel "$jobs" || die "build failed for preset '$preset'"
}

deps() {
    say "dependencies"
    "$root/scripts/install-deps.sh" || die "installing dependencies failed"
}

cmd_run() {
    deps
    build_preset default
    if [ ! -x "${MAIN_JOB[0]}" ]; then
        die "${MAIN_JOB[0]} was not built"
    fi
    say "${MAIN_JOB[*]}"
    "${MAIN_JOB[@]}" || die "main job failed (exit $?): ${MAIN_JOB[*]}"
    say "${SURVEY[*]}"
    "${SURVEY[@]}" || die "trace survey failed (exit $?)"
}

# The Slurm peer tests (one-node clusters, and the two-node cluster of
# scripts/cluster.sh, which they start and stop themselves,
# root only) mostly wait on srun and on the server's deadlines: they run in
# the background beside the other presets' builds and tests, from their own
# log, and count like any test.
SLURM_TESTS='^(peer|conformance)[.](slurm|cluster)[.]'

cmd_test() {
    deps
    local preset
    slurm_pid='' slurm_log="$root/build/slurm-tests.log"
    build_preset default
    local nslurm
    nslurm=$(ctest --preset default -N -R "$SLURM_TESTS" 2>/dev/null | grep -c '^ *Test *#' || true)
    if [ "${nslurm:-0}" -gt 0 ]; then
        say "test (default: Slurm peer tests, in the background; log $slurm_log)"
        ctest --preset default --output-on-failure -R "$SLURM_TESTS" >"$slurm_log" 2>&1 &
        slurm_pid=$!
        # on an early failure, still let them finish (their fixture stops the cluster)
        trap 'rc=$?; trap - EXIT; wait "$slurm_pid" 2>/dev/null; cat "$slurm_log"; exit "$rc"' EXIT
    fi
    say "test (default)"
    ctest --preset default --output-on-failure -j "$TEST_JOBS" -E "$SLURM_TESTS" \
        || die "tests failed for preset 'default'"
    for preset in "${TEST_PRESETS[@]}"; do
        [ "$preset" = default ] && continue
        build_preset "$preset"
        say "test ($preset)"
        ctest --preset "$preset" --output-on-failure -j "$TEST_JOBS" \
            || die "tests failed for preset '$preset'"
    done
    say "valgrind (mock server integration tests)"
    "$root/scripts/valgrind.sh" build/default || die "valgrind found errors"
    build_preset fuzz
    say "fuzz smoke (each libFuzzer harness for a bounded time)"
    ctest --preset fuzz --output-on-failure -j "$TEST_JOBS" || die "a fuzz harness found a crash"
    if [ -n "$slurm_pid" ]; then
        say "test (default: Slurm peer tests)"
        local rc=0
        wait "$slurm_pid" || rc=$?
        trap - EXIT
        cat "$slurm_log"
        [ "$rc" -eq 0 ] || die "tests failed for preset 'default' (Slurm peer tests)"
    fi
    say "all tests passed (${TEST_PRESETS[*]}, valgrind, fuzz smoke)"
}

if [ $# -ne 1 ]; then
    usage >&2
    exit 2
fi
case "$1" in
    run) cmd_run ;;
    test) cmd_test ;;
    -h|--help) usage ;;
    *) printf 'quickstart: unknown command: %s\n' "$1" >&2; usage >&2; exit 2 ;;
esac
