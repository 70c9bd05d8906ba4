#!/usr/bin/env bash
# Run the mock server's integration tests under valgrind memcheck: every test
# whose command is a server binary (the in-process test drivers, and
# pmi-mockserver itself for the spawn tests).  Tests driven by shell scripts
# are left out: valgrind would check bash.  Timing assertions are skipped
# (PMC_UNDER_VALGRIND); any memory error or definite leak fails the run.
# Shell-driven tests carry the ctest label `shell` (cmake/PmcTest.cmake) and
# are excluded by it; TLS tests are left out for OpenSSL's own noise.
#
#   scripts/valgrind.sh [BUILD_DIR]      (default: build/default, built if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/default}

if ! command -v valgrind >/dev/null; then
    echo "valgrind.sh: valgrind is not installed (scripts/install-deps.sh installs it)" >&2
    exit 2
fi
if [ ! -f "$build/CTestTestfile.cmake" ]; then
    cmake --preset default
    cmake --build --preset default -j2
fi

export PMC_UNDER_VALGRIND=1
exec ctest --test-dir "$build" -T memcheck --output-on-failure -j2 \
    -R '^integration\.mockserver\.' -LE '^shell$' \
    -E 'security\.tls' \
    --overwrite MemoryCheckCommand="$(command -v valgrind)" \
    --overwrite MemoryCheckCommandOptions="--error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite --track-fds=no --quiet"
