#!/usr/bin/env bash
# Install this build into a scratch prefix, build install_hello.c with
# `pkg-config --cflags --libs pmiclient` from that prefix only, and run it
# under pmi-mockserver -n 4 and (when given) mpiexec.hydra -n 4.
set -euo pipefail

usage() {
    echo "usage: install-test.sh --build DIR --source FILE --work DIR --mockserver EXE" \
         "[--hydra EXE] [--cc CC] [--cflags FLAGS] [--config CFG] [--cmake CMAKE]"
}

build= source= work= mock= hydra= cc=cc cflags= config= cmake=cmake
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift 2 ;;
        --source) source=$2; shift 2 ;;
        --work) work=$2; shift 2 ;;
        --mockserver) mock=$2; shift 2 ;;
        --hydra) hydra=$2; shift 2 ;;
        --cc) cc=$2; shift 2 ;;
        --cflags) cflags=$2; shift 2 ;;
        --config) config=$2; shift 2 ;;
        --cmake) cmake=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install-test: unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done
[ -n "$build" ] && [ -n "$source" ] && [ -n "$work" ] && [ -n "$mock" ] || { usage >&2; exit 2; }

fail() { printf 'install-test: FAIL: %s\n' "$*" >&2; exit 1; }
step() { printf '\n== %s\n' "$*"; }

prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work"

step "install into $prefix"
config_args=()
if [ -n "$config" ]; then config_args=(--config "$config"); fi
ASAN_OPTIONS=detect_leaks=0 "$cmake" --install "$build" --prefix "$prefix" "${config_args[@]}" >/dev/null
pcfile=$(find "$prefix" -name pmiclient.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pcfile" ] || fail "pmiclient.pc was not installed"
[ -f "$prefix/include/pmiclient/pmi2.h" ] || fail "include/pmiclient/pmi2.h was not installed"
[ -f "$prefix/include/pmiclient/pmi.h" ] || fail "include/pmiclient/pmi.h was not installed"
[ -f "$prefix/include/pmiclient/pmi2ext.h" ] || fail "include/pmiclient/pmi2ext.h was not installed"
find "$prefix" -name 'libpmiclient.so.0' | grep -q . || fail "libpmiclient.so.0 was not installed"
find "$prefix" -name 'libpmiclient.3' | grep -q . || fail "the man page was not installed"

step "build with pkg-config"
export PKG_CONFIG_PATH=$(dirname "$pcfile")
flags=$(pkg-config --cflags --libs pmiclient) || fail "pkg-config cannot read pmiclient.pc"
libdir=$(pkg-config --variable=libdir pmiclient)
case "$libdir" in "$prefix"/*) ;; *) fail "libdir $libdir is outside $prefix" ;; esac
echo "pkg-config --cflags --libs pmiclient: $flags"
# shellcheck disable=SC2086
# The build's own flags: under the asan preset the installed library is
# instrumented, and the program must then link the sanitizer runtime too.
read -r -a cflag_words <<<"$cflags"
ASAN_OPTIONS=detect_leaks=0 "$cc" -std=c11 -Wall -Wextra -Werror "${cflag_words[@]}" -o "$work/hello" "$source" \
    $flags "-Wl,-rpath,$libdir"

# Only PMI_, PMI2_ and PMI2X_ (pmi2ext.h) symbols may leave the library.
so=$(find "$prefix" -name 'libpmiclient.so.0' | head -n 1)
extra=$(nm -D --defined-only "$so" | awk '$2 ~ /[TDBRW]/ {print $3}' | grep -v -E '^(PMI_|PMI2_|PMI2X_)' \
        | grep -v -E '^(_init|_fini|_edata|_end|__bss_start)$' || true)
[ -z "$extra" ] || fail "symbols besides PMI_/PMI2_/PMI2X_ exported: $extra"

step "run under pmi-mockserver -n 4"
"$mock" -n 4 --timeout 60 -- "$work/hello" 4

if [ -n "$hydra" ]; then
    step "run under mpiexec.hydra -n 4"
    timeout 60 "$hydra" -n 4 "$work/hello" 4
fi
step "install test passed"
