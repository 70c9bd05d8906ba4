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
# peer), not compute: the default preset's heaviest use a fifth of a core
# each on average (conformance.mutate.server 20 s of CPU in 105 s), so three
# times the two cores this project is built on; under the sanitizers they
# compute about twice as much, so two per core.  ctest starts the longest
# first (their COST, cmake/PmcTest.cmake).
declare -A TEST_JOBS=([default]=6 [asan]=4)
# The fuzz smoke runs compute for a fixed time each: as many at once as
# before (more would give each harness fewer executions in its time).
FUZZ_JOBS=3

usage() {
    cat <<USAGE
usage: scripts/quickstart.sh run|test
       scripts/quickstart.sh --help

  run    Install missing Debian packages, configure and build the 'default'
         preset, then run the main job:
           ${MAIN_JOB[*]}
  test   Install missing Debian packages, then for each preset in
         (${TEST_PRESETS[*]}): configure, build and run the whole ctest suite
         (${TEST_JOBS[default]} tests at once, ${TEST_JOBS[asan]} under asan; the default
         preset's Slurm peer tests run in the background, beside the rest,
         and are waited for at the end);
         the mock server's integration tests under valgrind
         (scripts/valgrind.sh) and a bounded smoke run of every libFuzzer
         harness (preset fuzz).  While the default preset's tests run, which
         mostly wait, the other presets are built and valgrind runs, in the
         background at a lower priority (nice); the fuzz smoke runs the same
         way beside the asan tests.  Fails if any test fails.

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
# log, and count like any test.  One at a time: the one-node and two-node
# clusters are fixtures of their own and must not be up together.
SLURM_TESTS='^(peer|conformance)[.](slurm|cluster)[.]'

# Background work beside the default preset's tests (build_preset or the
# valgrind run), niced so that the tests keep the CPU they ask for: its
# output goes to a log, shown when its result is needed (bg_wait).
bg_start() { # NAME COMMAND...: start it (a function or a program)
    local name=$1
    shift
    bg_log[$name]="$root/build/bg-$name.log"
    mkdir -p "$root/build"
    bg_t0[$name]=$SECONDS
    (renice -n 10 -p "$BASHPID" >/dev/null 2>&1; "$@") >"${bg_log[$name]}" 2>&1 &
    bg_pid[$name]=$!
}
build_presets() { # PRESET...: one after the other
    local p
    for p in "$@"; do build_preset "$p"; done
}
fuzz_smoke() { # build the fuzz preset, then its smoke runs
    build_preset fuzz && ctest --preset fuzz --output-on-failure -j "$FUZZ_JOBS"
}
bg_wait() { # NAME: wait for it, show its log; its exit status
    local name=$1 rc=0
    wait "${bg_pid[$name]}" || rc=$?
    bg_pid[$name]=''
    printf '\n==> %s (in the background from %d s; log %s)\n' "$name" "${bg_t0[$name]}" \
        "${bg_log[$name]}"
    cat "${bg_log[$name]}"
    return "$rc"
}
bg_wait_all() { # on an early exit: no background job outlives the script
    local name
    for name in "${!bg_pid[@]}"; do
        [ -n "${bg_pid[$name]}" ] && wait "${bg_pid[$name]}" 2>/dev/null
    done
    return 0
}

cmd_test() {
    deps
    local preset
    declare -gA bg_pid=() bg_log=() bg_t0=()
    slurm_pid='' slurm_log="$root/build/slurm-tests.log"
    build_preset default
    trap 'rc=$?; trap - EXIT; bg_wait_all; exit "$rc"' EXIT
    local nslurm
    nslurm=$(ctest --preset default -N -R "$SLURM_TESTS" 2>/dev/null | grep -c '^ *Test *#' || true)
    if [ "${nslurm:-0}" -gt 0 ]; then
        say "test (default: Slurm peer tests, in the background; log $slurm_log)"
        ctest --preset default --output-on-failure -R "$SLURM_TESTS" >"$slurm_log" 2>&1 &
        slurm_pid=$!
        # on an early failure, still let them finish (their fixture stops the cluster)
        trap 'rc=$?; trap - EXIT; bg_wait_all; wait "$slurm_pid" 2>/dev/null; cat "$slurm_log"; exit "$rc"' EXIT
    fi
    # the other presets' builds (one after the other) and valgrind on the
    # default build: CPU work, beside tests that mostly wait
    say "build (${TEST_PRESETS[*]:1}) and valgrind, in the background"
    bg_start builds build_presets "${TEST_PRESETS[@]:1}"
    bg_start valgrind "$root/scripts/valgrind.sh" build/default
    say "test (default)"
    ctest --preset default --output-on-failure -j "${TEST_JOBS[default]}" -E "$SLURM_TESTS" \
        || die "tests failed for preset 'default'"
    bg_wait builds || die "a build failed (presets ${TEST_PRESETS[*]:1})"
    # the fuzz preset's build and smoke (each harness for a fixed time):
    # beside the asan tests (niced) they cost no wall time, only executions
    bg_start fuzz fuzz_smoke
    for preset in "${TEST_PRESETS[@]}"; do
        [ "$preset" = default ] && continue
        say "test ($preset)"
        ctest --preset "$preset" --output-on-failure -j "${TEST_JOBS[$preset]:-3}" \
            || die "tests failed for preset '$preset'"
    done
    bg_wait valgrind || die "valgrind found errors (mock server integration tests)"
    bg_wait fuzz || die "the fuzz preset did not build, or a harness found a crash (fuzz smoke)"
    if [ -n "$slurm_pid" ]; then
        say "test (default: Slurm peer tests)"
        local rc=0
        wait "$slurm_pid" || rc=$?
        trap - EXIT
        cat "$slurm_log"
        [ "$rc" -eq 0 ] || die "tests failed for preset 'default' (Slurm peer tests)"
    fi
    trap - EXIT
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
