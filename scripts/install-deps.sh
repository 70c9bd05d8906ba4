#!/usr/bin/env bash
# Install the Debian packages pmi2-conform needs, if any is missing.
# Runs `apt-get update` only when something has to be installed.
set -euo pipefail

packages=(
    build-essential     # gcc, make, libc headers
    cmake               # >= 3.25 (presets v6)
    ragel               # Ragel 6: generates the decoder from grammar/*.rl
    check               # Check unit test framework
    pkg-config
    libssl-dev          # libcrypto: SHA-256 and RAND_bytes for the auth challenge
    clang               # fuzzers and the sanitizer builds
    libclang-rt-14-dev  # clang's sanitizer and libFuzzer runtimes
    mpich               # mpiexec.hydra: the real PMI server for peer tests
    libmpich-dev        # libmpich: the real PMI client for peer tests
    valgrind
    tshark              # reading packet captures of PMI sessions
    libxml2-utils       # xmllint: the trace tool's SVG diagrams are checked well-formed
    slurmctld           # Slurm 22.05: the second real PMI server (scripts/slurm-cluster.sh)
    slurmd
    slurm-client        # srun, sinfo, squeue, scancel
    munge               # Slurm's authentication daemon
    libpmi2-0-dev       # Slurm's PMI-2 client library: the client-mode peer
    iproute2            # ss: the cluster script picks free ports
)

usage() {
    cat <<'USAGE'
usage: scripts/install-deps.sh [--help]

Installs the Debian packages this project needs (build tools, Ragel, Check,
OpenSSL, clang, MPICH, Slurm and munge, valgrind, tshark, xmllint) when any of
them is missing.  Package scripts are kept from starting daemons.
Uses sudo when not run as root.  Does nothing when all are installed.
USAGE
}

case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    "") ;;
    *) echo "install-deps: unknown argument: $1" >&2; usage >&2; exit 2 ;;
esac

say() { printf 'install-deps: %s\n' "$*"; }
die() { printf 'install-deps: error: %s\n' "$*" >&2; exit 1; }

command -v dpkg >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 \
    || die "dpkg/apt-get not found: this script supports Debian (12) and derivatives only"

# `dpkg -s` also succeeds for a removed package whose config files remain,
# so look at its status line, not just the exit code.
installed() {
    dpkg -s "$1" 2>/dev/null | grep -qx 'Status: install ok installed'
}

missing=()
for p in "${packages[@]}"; do
    installed "$p" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
    say "all ${#packages[@]} required packages are installed"
    exit 0
fi

say "missing: ${missing[*]}"

sudo=()
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 \
        || die "not root and sudo is not installed; run as root: apt-get install ${missing[*]}"
    sudo=(sudo)
fi

run() {
    say "+ $*"
    "$@" || die "command failed: $*"
}

# tshark's postinst asks whether non-root users may capture; answer "no"
# up front so the install never stops at a prompt.
for p in "${missing[@]}"; do
    if [ "$p" = tshark ]; then
        say "+ debconf: wireshark-common/install-setuid = false"
        echo 'wireshark-common wireshark-common/install-setuid boolean false' \
            | "${sudo[@]}" debconf-set-selections \
            || die "could not preseed wireshark-common/install-setuid"
    fi
done

# Package scripts must not start daemons (munge, slurmd, slurmctld): the tests
# start a throwaway cluster of their own.  A policy-rc.d that exits 101 says
# so to invoke-rc.d; one already in place is left alone.
policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
    say "+ $policy: exit 101 while installing (no service starts)"
    printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null \
        && "${sudo[@]}" chmod 0755 "$policy" && made_policy=1
fi
cleanup_policy() { [ "$made_policy" = 1 ] && "${sudo[@]}" rm -f "$policy"; true; }
trap cleanup_policy EXIT

run "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
run "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"

still=()
for p in "${missing[@]}"; do
    installed "$p" || still+=("$p")
done
[ ${#still[@]} -eq 0 ] || die "still not installed after apt-get: ${still[*]}"
say "installed: ${missing[*]}"
