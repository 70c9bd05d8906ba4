#!/usr/bin/env bash
# Record traces/slurm-22.05/: real PMI sessions under `srun --mpi=pmi2` on the
# throwaway one-node cluster (scripts/slurm-cluster.sh), each through
# `pmi-trace record`, merged per job and scrubbed.
#
#   scripts/record-slurm-traces.sh BUILD_DIR OUT_DIR
#
# Sessions: our libpmiclient (pmi2-driver, PMI-2, script "all"), Slurm's own
# libpmi2 (pmi2-driver-libpmi2, when built), our PMI-1 client (pmi1-driver, script "all",
# PMI-1.1 as Slurm serves it) and an MPI program on Debian's libmpich (PMI-1),
# when mpicc is installed.  Needs root (the cluster).
set -euo pipefail
build=${1:?usage: record-slurm-traces.sh BUILD_DIR OUT_DIR}
out=${2:?usage: record-slurm-traces.sh BUILD_DIR OUT_DIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "$build" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
trace=$build/tools/pmi-trace/pmi-trace
drivers=$build/conformance/drivers
work=$(mktemp -d /tmp/pcf-slurm-rec-XXXXXX)
chmod 0755 "$work"
cluster=$work/cluster
trap '"$root/scripts/slurm-cluster.sh" down "$cluster" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
env_line=$("$root/scripts/slurm-cluster.sh" up "$cluster") || exit 1
eval "$env_line"
export SLURM_OVERCOMMIT=1
version=$(srun --version | awk '{print $2}')

record() { # name np program...: one job, one trace per rank, merged and scrubbed
    local name=$1 np=$2
    shift 2
    rm -f "$work/$name".r*.trace
    local src="Debian slurm-wlm $version srun --mpi=pmi2 (server) and $name (client), $np ranks"
    if ! timeout 60 srun -O --mpi=pmi2 -n "$np" \
            "$trace" record --source "$src" -o "$work/$name.r%r.trace" -- "$@" \
            > "$work/$name.out" 2>&1; then
        echo "record-slurm-traces: $name: the job failed (kept what was recorded):" >&2
        tail -5 "$work/$name.out" >&2
    fi
    local parts=("$work/$name".r*.trace)
    [ -e "${parts[0]}" ] || { echo "record-slurm-traces: $name: no trace" >&2; return 0; }
    "$trace" merge "$work/$name.merged.trace" "${parts[@]}"
    "$trace" scrub -o "$work/$name.scrubbed.trace" "$work/$name.merged.trace"
    # what the session is known to contain (pmi-trace survey checks it),
    # after the header's first line
    { head -n 2 "$work/$name.scrubbed.trace"; expects "$name"; tail -n +3 "$work/$name.scrubbed.trace"; } \
        > "$out/$name.trace"
    echo "record-slurm-traces: $out/$name.trace"
}

expects() { # name: the @expect lines of that session, with their citations
    local srv_len='@expect S>C note len-left  # slurm-pmi2.md §3.2: the server writes the length with %-6d'
    local srv_empty='@expect S>C note empty-value  # slurm-pmi2.md §3.3: an empty value is stored and returned as value=;'
    case "$1" in
        libpmiclient-pmi2)
            echo "$srv_len"; echo "$srv_empty"
            echo '@expect C>S note escaped-semi  # SPEC.md ESC-1: libpmiclient writes a ";" in a value as ";;" (the driver puts one)'
            echo '@expect C>S note empty-value  # the driver puts an empty value (SPEC.md PAIR-3)' ;;
        libpmi2-slurm)
            echo "$srv_len"; echo "$srv_empty"
            echo '@expect C>S note len-left  # slurm-pmi2.md §13: libpmi2 frames with a left-justified length'
            echo '@expect C>S note escaped-semi  # slurm-pmi2.md §4: libpmi2 escapes ";" as ";;", which the server does not unescape'
            echo '@expect C>S note empty-value  # slurm-pmi2.md §13: libpmi2 sends empty values (the empty put of the driver)' ;;
    esac
}

PCF_DRIVER_SCRIPT=all record libpmiclient-pmi2 2 "$drivers/pmi2-driver"
[ -x "$drivers/pmi2-driver-libpmi2" ] \
    && PCF_DRIVER_SCRIPT=all record libpmi2-slurm 2 "$drivers/pmi2-driver-libpmi2"
PCF_DRIVER_SCRIPT=all record libpmiclient-pmi1 2 "$drivers/pmi1-driver"
if command -v mpicc >/dev/null 2>&1; then
    cat > "$work/hello.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, size, sum = 0, one = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d of %d: sum %d\n", rank, size, sum);
    MPI_Finalize();
    return sum == size ? 0 : 1;
}
EOF
    mpicc -o "$work/mpi_hello" "$work/hello.c"
    record libmpich-hello 2 "$work/mpi_hello"
fi
