#!/usr/bin/env bash
# bench/server/instructions.sh: instructions pmi-mockserver executes per get,
# counted by callgrind, for two builds in one run.  Unlike gets/s and CPU
# time, the count hardly depends on what else the machine runs, so a change
# of a few percent shows on a shared machine.  See bench/README.md.
set -u

usage() {
    cat <<'EOF'
usage: bench/server/instructions.sh [options] NEW-MOCKSERVER [OLD-MOCKSERVER]

Runs `pmi-mockclient bench` (virtual ranks over TCP) against each server under
valgrind --tool=callgrind, twice per configuration: with LO and with HI random
gets per rank.  The difference of the server's instruction counts divided by
the difference of the gets is its instructions per get, without start-up,
handshakes, fences and finalize.  Builds alternate, the median of --repeat is
printed, and with two builds the ratio NEW/OLD.

options:
  --client PATH     pmi-mockclient (default: next to this build, else PATH)
  --sizes "N..."    job sizes (default "16 64")
  --protos "P..."   2 and/or 1 (default "2 1")
  --lo LO --hi HI   random gets per rank of the two runs (default 250, 1250)
  --repeat K        runs per configuration and build (default 3)
  -h, --help        this text
  -V, --version     version

exit status: 0 done, 1 a run failed, 2 usage error or a program is missing.
EOF
}

here=$(cd "$(dirname "$0")" && pwd)
client="" sizes="16 64" protos="2 1" lo=250 hi=1250 repeat=3
servers=()
while [ $# -gt 0 ]; do
    case "$1" in
    --client) client=$2; shift ;;
    --sizes) sizes=$2; shift ;;
    --protos) protos=$2; shift ;;
    --lo) lo=$2; shift ;;
    --hi) hi=$2; shift ;;
    --repeat) repeat=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    -V|--version) echo "bench/server/instructions.sh (pmi2-conform)"; exit 0 ;;
    -*) echo "instructions.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) servers+=("$1") ;;
    esac
    shift
done
for v in "$lo" "$hi" "$repeat"; do
    case "$v" in ''|*[!0-9]*) echo "instructions.sh: not a number: $v" >&2; exit 2 ;; esac
done
if [ "$hi" -le "$lo" ]; then echo "instructions.sh: --hi must be above --lo" >&2; exit 2; fi
if [ ${#servers[@]} -lt 1 ] || [ ${#servers[@]} -gt 2 ]; then usage >&2; exit 2; fi
for s in "${servers[@]}"; do
    [ -x "$s" ] || { echo "instructions.sh: not a program: $s" >&2; exit 2; }
done
[ -z "$client" ] && client="$here/../../mockclient/pmi-mockclient"
[ -x "$client" ] || client=$(command -v pmi-mockclient 2>/dev/null)
[ -n "$client" ] || { echo "instructions.sh: cannot find pmi-mockclient (--client)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is missing" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-instr.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

# instructions the server executed serving N ranks with R random gets each
count() { # server N proto R
    local srv=$1 N=$2 P=$3 R=$4 spid port i
    rm -f "$tmp/cg" "$tmp/srv"
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$srv" -n "$N" --listen tcp \
        --timeout 300 >"$tmp/srv" 2>"$tmp/vg" &
    spid=$!
    for i in $(seq 400); do grep -q '^PMI_SIZE=' "$tmp/srv" 2>/dev/null && break; sleep 0.05; done
    port=$(sed -n 's/^PMI_PORT=//p' "$tmp/srv" | head -1)
    if [ -z "$port" ] || ! "$client" bench -n "$N" --port "$port" -p "$P" --rounds 3 \
        --random-gets "$R" --timeout 280 --summary >"$tmp/cli" 2>&1 ||
        ! grep -q 'complete=1 failures=0' "$tmp/cli"; then
        kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
        return 1
    fi
    for i in $(seq 200); do kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
    kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
    sed -n 's/^totals: *//p' "$tmp/cg" | awk '{ print $1 }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "instructions per get (callgrind), median of $repeat; gets per rank $lo and $hi"
printf '%5s %6s %12s %12s %8s\n' N proto new old new/old
failed=0
for N in $sizes; do
    for P in $protos; do
        declare -A per=()
        for k in $(seq "$repeat"); do
            for b in "${!servers[@]}"; do
                a=$(count "${servers[$b]}" "$N" "$P" "$lo") && z=$(count "${servers[$b]}" "$N" "$P" "$hi") ||
                    { echo "instructions.sh: a run of ${servers[$b]} failed (N=$N PMI-$P)" >&2; failed=1; continue; }
                per[$b]+="$(awk -v a="$a" -v z="$z" -v g="$(( N * (hi - lo) ))" 'BEGIN { printf "%.1f", (z - a) / g }') "
            done
        done
        new=$(tr ' ' '\n' <<<"${per[0]-}" | grep . | median)
        old=$(tr ' ' '\n' <<<"${per[1]-}" | grep . | median)
        ratio=$(awk -v a="${new:--}" -v b="${old:--}" 'BEGIN { if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.3f", a / b }')
        printf '%5s %6s %12s %12s %8s\n' "$N" "PMI-$P" "${new:--}" "${old:--}" "$ratio"
        unset per
    done
done
exit $failed
