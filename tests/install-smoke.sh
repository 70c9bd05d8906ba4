#!/usr/bin/env bash
# Install smoke test: install a build into a scratch prefix, then build and
# run tests/install-consumer against it, once through pkg-config and once
# through find_package(pmi2conform).  Every step must succeed.
set -euo pipefail

usage() {
    cat <<'USAGE'
usage: install-smoke.sh --build DIR --consumer DIR --work DIR --version X.Y.Z
                        [--config CFG] [--cmake CMAKE] [--cc CC] [--cflags FLAGS]
USAGE
}

build= config= consumer= work= version=
cmake=cmake cc=cc cflags=
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift 2 ;;
        --config) config=$2; shift 2 ;;
        --consumer) consumer=$2; shift 2 ;;
        --work) work=$2; shift 2 ;;
        --version) version=$2; shift 2 ;;
        --cmake) cmake=$2; shift 2 ;;
        --cc) cc=$2; shift 2 ;;
        --cflags) cflags=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install-smoke: unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done
if [ -z "$build" ] || [ -z "$consumer" ] || [ -z "$work" ] || [ -z "$version" ]; then
    usage >&2
    exit 2
fi

step() { printf '\n== %s\n' "$*"; }
fail() { printf 'install-smoke: FAIL: %s\n' "$*" >&2; exit 1; }

prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work"

step "install $build into $prefix"
config_args=()
if [ -n "$config" ]; then config_args=(--config "$config"); fi
"$cmake" --install "$build" --prefix "$prefix" "${config_args[@]}"

# The library directory depends on GNUInstallDirs (lib, lib64 or a multiarch
# dir), so look for what was installed rather than guessing.
pcfile=$(find "$prefix" -name pmicodec.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pcfile" ] || fail "pmicodec.pc was not installed"
cfgfile=$(find "$prefix" -name pmi2conformConfig.cmake | head -n 1)
[ -n "$cfgfile" ] || fail "pmi2conformConfig.cmake was not installed"
for h in pmicodec.h types.h error.h message.h decoder.h encoder.h schema.h auth.h; do
    [ -f "$prefix/include/pmicodec/$h" ] || fail "header include/pmicodec/$h was not installed"
done
if ! find "$prefix" -name 'libpmicodec.so*' -o -name 'libpmicodec.a' | grep -q .; then
    fail "libpmicodec was not installed"
fi

# Under sanitizer presets the consumer inherits the sanitizer flags; leak
# checking of the compiler/cmake processes themselves is not the point here.
run_tool() { ASAN_OPTIONS=detect_leaks=0 "$@"; }

# Flags are a space-separated list by design (CMAKE_C_FLAGS).
read -r -a cflag_words <<<"$cflags"

step "consumer via pkg-config ($pcfile)"
export PKG_CONFIG_PATH=$(dirname "$pcfile")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
pc_version=$(pkg-config --modversion pmicodec) || fail "pkg-config cannot read pmicodec.pc"
[ "$pc_version" = "$version" ] || fail "pkg-config version is $pc_version, expected $version"
pc_static=()
if ! find "$prefix" -name 'libpmicodec.so' | grep -q .; then pc_static=(--static); fi
read -r -a pc_flags <<<"$(pkg-config "${pc_static[@]}" --cflags --libs pmicodec)"
pc_libdir=$(pkg-config --variable=libdir pmicodec)
case "$pc_libdir" in
    "$prefix"/*) ;;
    *) fail "pmicodec.pc names libdir $pc_libdir, outside the install prefix $prefix" ;;
esac
echo "pkg-config --cflags --libs pmicodec: ${pc_flags[*]}"
run_tool "$cc" "${cflag_words[@]}" -std=c11 -Wall -Wextra -Werror \
    -o "$work/consumer-pkgconfig" "$consumer/consumer.c" \
    "${pc_flags[@]}" "-Wl,-rpath,$pc_libdir"
"$work/consumer-pkgconfig" "$version"

step "consumer via find_package(pmi2conform)"
run_tool "$cmake" -S "$consumer" -B "$work/consumer-cmake" \
    -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_C_FLAGS="$cflags" \
    -DCMAKE_BUILD_TYPE="${config:-Debug}" \
    -DPMC_EXPECTED_VERSION="$version"
run_tool "$cmake" --build "$work/consumer-cmake" "${config_args[@]}"
"$work/consumer-cmake/consumer" "$version"

step "installed programs find their libraries without LD_LIBRARY_PATH"
# A cluster installs into a shared prefix: its programs carry an RPATH.
for t in "$prefix"/bin/* "$prefix"/libexec/pmi2-conform/*; do
    [ -f "$t" ] && [ -x "$t" ] || continue
    od -An -c -N4 "$t" | grep -q 'E   L   F' || continue
    missing=$(env -u LD_LIBRARY_PATH ldd "$t" | grep 'not found' || true)
    [ -z "$missing" ] || fail "${t#$prefix/} does not find its libraries: $missing"
    echo "${t#$prefix/}: libraries found"
done
env -u LD_LIBRARY_PATH "$prefix/bin/pmi2-conform" --list >/dev/null ||
    fail "bin/pmi2-conform does not run from $prefix"

step "install smoke test passed"
