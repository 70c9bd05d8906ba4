#!/usr/bin/env bash
# libpmifuzz from an installed prefix: a harness built with nothing but
#   clang -fsanitize=fuzzer harness.c $(pkg-config --cflags --libs pmifuzz)
# runs with the custom mutator and finds its planted overflow.  Skipped (77)
# without a clang that has libFuzzer.
set -euo pipefail
build=$1 consumer=$2 work=$3 clang=${4:-clang}
fail() { printf 'pmifuzz-install-smoke: FAIL: %s\n' "$*" >&2; exit 1; }

command -v "$clang" >/dev/null || { echo "no $clang: skipped"; exit 77; }
rm -rf "$work"; mkdir -p "$work"
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n){(void)d;(void)n;return 0;}\n' >"$work/probe.c"
"$clang" -fsanitize=fuzzer -o "$work/probe" "$work/probe.c" 2>/dev/null || { echo "no libFuzzer: skipped"; exit 77; }

cmake --install "$build" --prefix "$work/prefix" >/dev/null
pc=$(find "$work/prefix" -name pmifuzz.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || fail "pmifuzz.pc was not installed"
export PKG_CONFIG_PATH=$(dirname "$pc")
dict=$(pkg-config --variable=dict pmifuzz)
[ -s "$dict" ] || fail "the dictionary $dict was not installed"
grep -q '"cmd=kvs-get"' "$dict" || fail "the dictionary lacks the schema's commands"
find "$work/prefix" -path "*/doc/pmi2conform/fuzzing-your-parser.md" | grep -q . || fail "the guide was not installed (share/doc/pmi2conform)"
grep -rq 'pmi2conform::pmifuzz' "$work/prefix" --include='pmi2conformTargets*.cmake' ||
    fail "the CMake package does not export pmi2conform::pmifuzz"

# shellcheck disable=SC2046 # pkg-config output is a word list by design
"$clang" -fsanitize=fuzzer -o "$work/harness" "$consumer/harness.c" $(pkg-config --cflags --libs pmifuzz)

mkdir -p "$work/corpus"
printf 'cmd=put kvsname=kvs_1 key=a value=b\n' >"$work/corpus/seed"
set +e
"$work/harness" -seed=1 -runs=200000 -max_total_time=60 -dict="$dict" \
    -artifact_prefix="$work/" "$work/corpus" >"$work/log" 2>&1
rc=$?
set -e
grep -q 'found LLVMFuzzerCustomMutator' "$work/log" || { cat "$work/log"; fail "libFuzzer did not find the custom mutator"; }
[ $rc -ne 0 ] && ls "$work"/crash-* >/dev/null 2>&1 || { tail -20 "$work/log"; fail "the planted pair-table overflow was not found"; }
grep -E '^#[0-9]+|stat::number_of_executed_units' "$work/log" | tail -2
echo "pkg-config harness found: $(ls "$work"/crash-* | head -1)"

# the same harness with pmifuzz-plain: the kits, no mutator (plain libFuzzer's
# arm of a comparison)
# shellcheck disable=SC2046
"$clang" -fsanitize=fuzzer -o "$work/harness-plain" "$consumer/harness.c" $(pkg-config --cflags --libs pmifuzz-plain)
# (libFuzzer's own mutations may find the overflow too: its status is no verdict here)
"$work/harness-plain" -seed=1 -runs=2000 -artifact_prefix="$work/plain-" "$work/corpus" >"$work/log-plain" 2>&1 || true
grep -q 'INITED' "$work/log-plain" || { tail -20 "$work/log-plain"; fail "the pmifuzz-plain harness did not run"; }
if grep -q 'found LLVMFuzzerCustomMutator' "$work/log-plain"; then
    fail "the pmifuzz-plain harness carries the custom mutator"
fi

# the same harness through find_package(pmi2conform) -> pmi2conform::pmifuzz
cmake -S "$consumer" -B "$work/cmake" -DCMAKE_C_COMPILER="$clang" \
    -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$work/cmake" >/dev/null
"$work/cmake/harness" -seed=1 -runs=1 "$work/corpus" >"$work/log-cmake" 2>&1 ||
    { cat "$work/log-cmake"; fail "the find_package harness did not run"; }
grep -q 'found LLVMFuzzerCustomMutator' "$work/log-cmake" ||
    fail "the find_package harness does not carry the custom mutator"
# the client recipe of docs/fuzzing-your-parser.md, with the installed tools:
# a live run under the mock server records a session, pmifuzz-trace turns it
# into a seed, and the harness runs that seed
bin=$work/prefix/bin
"$bin/pmifuzz-trace" --version | grep -q '^pmifuzz-trace ' || fail "pmifuzz-trace --version"
"$bin/pmifuzz-trace" --help | grep -q -- '--seed' || fail "pmifuzz-trace --help"
[ -f "$(find "$work/prefix" -name pmifuzz-trace.1 | head -n 1)" ] || fail "no pmifuzz-trace(1) man page"
[ -f "$(find "$work/prefix" -name libpmifuzz.3 | head -n 1)" ] || fail "no libpmifuzz(3) man page"
# the server-seed recipe: the installed PMI-1 driver under the mock server,
# two ranks, every client's requests as one seed
prefix=$(pkg-config --variable=prefix pmifuzz)
"$bin/pmi-mockserver" -n 2 --trace "$work/drv.trace" -- "$prefix/libexec/pmi2-conform/pmi1-driver" all \
    >"$work/drv.log" 2>&1 || { cat "$work/drv.log"; fail "the PMI-1 driver under the mock server"; }
"$bin/pmifuzz-trace" --seed server --conn all "$work/drv.trace" >"$work/drv.seed" ||
    fail "pmifuzz-trace --seed server --conn all"
[ "$(grep -c '^cmd=init ' "$work/drv.seed")" = 2 ] && grep -q '^cmd=publish_name ' "$work/drv.seed" ||
    fail "the driver's seed lacks two clients' sessions"
libpmiclient=$(pkg-config --variable=libdir pmiclient)/libpmiclient.so
if readelf -d "$libpmiclient" 2>/dev/null | grep -q 'NEEDED.*lib[at]san'; then
    # the asan preset's libpmiclient needs gcc's sanitizer runtime first in
    # the process: not a library a libFuzzer harness links (the default
    # preset runs this part)
    echo "client recipe skipped: the installed libpmiclient is built with the sanitizers"
    echo "pmifuzz install smoke passed"
    exit 0
fi
# shellcheck disable=SC2046
"$clang" -fsanitize=fuzzer -o "$work/client" "$consumer/client.c" \
    $(pkg-config --cflags --libs pmifuzz pmiclient) -Wl,-rpath,"$(pkg-config --variable=libdir pmiclient)"
"$bin/pmi-mockserver" -n 1 --timeout 30 --trace "$work/s.trace" -- env PMIFUZZ_LIVE=1 "$work/client" \
    >"$work/log-live" 2>&1 || { cat "$work/log-live"; fail "the live client run under pmi-mockserver failed"; }
mkdir -p "$work/client-corpus"
"$bin/pmifuzz-trace" --seed client "$work/s.trace" >"$work/client-corpus/session" ||
    fail "pmifuzz-trace --seed client"
grep -q 'kvs-get-response' "$work/client-corpus/session" || fail "the seed lacks the session's answers"
"$work/client" -seed=1 -runs=2000 "$work/client-corpus" >"$work/log-client" 2>&1 ||
    { tail -20 "$work/log-client"; fail "the client harness did not run its seed"; }
echo "client recipe: seed of $(wc -c <"$work/client-corpus/session") bytes from a live session"
echo "pmifuzz install smoke passed"
