#!/usr/bin/env bash
# bench/server/run.sh: the same PMI load against pmi-mockserver, mpiexec.hydra
# and a bare epoll responder, in one run; prints gets/s, server CPU per get
# and fence latency for each, and the ratios.  See bench/README.md.
set -u

usage() {
    cat <<'EOF'
usage: bench/server/run.sh [options]

Runs `pmi-mockclient bench` (N ranks: put, fence, N-1 gets per round, then
random gets) against:
  bare-epoll      bench-bare-responder, virtual ranks over TCP (the floor)
  mockserver      pmi-mockserver --listen tcp, virtual ranks (vs bare)
  mockserver      pmi-mockserver -n N -- client --mode=process (vs Hydra)
  mpiexec.hydra   mpiexec.hydra -n N client --mode=process
  srun            srun --mpi=pmi2 -O -n N client --mode=process (Slurm 22.05;
                  when SLURM_CONF names a running cluster, e.g. one from
                  scripts/slurm-cluster.sh, or with --srun)
and prints one table.

options:
  --client PATH        pmi-mockclient (default: next to this build, else PATH)
  --mockserver PATH    pmi-mockserver
  --bare PATH          bench-bare-responder
  --baseline-mockserver PATH
                       another pmi-mockserver build (e.g. main's, before a
                       change): every mockserver run is repeated with it, the
                       attempts of both alternating, as rows "baseline", and
                       the mockserver rows get a column "vs base": gets/s
                       ratio (server CPU per get ratio)
  --hydra PATH         mpiexec.hydra (default: PATH)
  --sizes "N..."       job sizes for the mock server and the baseline (16 64 256)
  --hydra-sizes "N..." job sizes for Hydra (16 64 128; it deadlocks at 240+)
  --protos "P..."      2 and/or 1 (default "2 1")
  --rounds R           measured put/fence/get-all rounds (3)
  --random-total T     random gets per run, split over the ranks (64000)
  --timeout SEC        bound on every single run (120)
  --repeat K           run every configuration K times, report the median gets/s
                       (default 3; a failed or timed-out attempt is reported instead);
                       with --baseline-mockserver each new attempt is paired with
                       the baseline attempt right after it, and "vs base" is the
                       median of the K paired ratios (their spread is printed
                       below the table)
  --pin                servers on CPU 0, load generators on CPU 1 (taskset; needs
                       2 CPUs): the scheduler no longer moves them around, which
                       is most of the run-to-run scatter on a small machine
  --srun PATH          srun (default: srun from PATH when SLURM_CONF is set)
  --no-hydra           skip Hydra
  --no-slurm           skip Slurm
  --no-process         skip the process-mode runs
  --quick              N=8, 2 rounds, 400 random gets, no Hydra, once (the smoke test)
  --check              exit 1 unless every bare-epoll and mockserver run completed
                       without failure
  --log DIR            keep every run's full output in DIR
  -h, --help           this text
  -V, --version        version

exit status: 0 done (with --check: and every mock/bare run passed), 1 a checked
run failed, 2 usage error or a program is missing.
EOF
}

here=$(cd "$(dirname "$0")" && pwd)
client="" mock="" bare="" hydra="" srun="" noslurm=0 base=""
sizes="16 64 256" hsizes="16 64 128" protos="2 1"
rounds=3 rtotal=64000 tmo=120 nohydra=0 noproc=0 check=0 logdir="" repeat=3 last_status="" attempt=1
pin=0 pin_srv="" pin_cli=""

while [ $# -gt 0 ]; do
    case "$1" in
    --client) client=$2; shift ;;
    --mockserver) mock=$2; shift ;;
    --bare) bare=$2; shift ;;
    --baseline-mockserver) base=$2; shift ;;
    --hydra) hydra=$2; shift ;;
    --sizes) sizes=$2; shift ;;
    --hydra-sizes) hsizes=$2; shift ;;
    --protos) protos=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --random-total) rtotal=$2; shift ;;
    --timeout) tmo=$2; shift ;;
    --no-hydra) nohydra=1 ;;
    --srun) srun=$2; shift ;;
    --no-slurm) noslurm=1 ;;
    --no-process) noproc=1 ;;
    --repeat) repeat=$2; shift ;;
    --pin) pin=1 ;;
    --quick) sizes=8; rounds=2; rtotal=400; nohydra=1; noslurm=1; repeat=1 ;;
    --check) check=1 ;;
    --log) logdir=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    -V|--version) echo "bench/server/run.sh (pmi2-conform)"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
for v in "$rounds" "$rtotal" "$tmo" "$repeat"; do
    case "$v" in ''|*[!0-9]*) echo "run.sh: not a number: $v" >&2; exit 2 ;; esac
done

find_prog() { # name, candidates...
    local name=$1; shift
    for c in "$@"; do [ -n "$c" ] && [ -x "$c" ] && { echo "$c"; return; }; done
    command -v "$name" 2>/dev/null
}
client=$(find_prog pmi-mockclient "$client" "$here/../../mockclient/pmi-mockclient")
mock=$(find_prog pmi-mockserver "$mock" "$here/../../mockserver/pmi-mockserver")
bare=$(find_prog bench-bare-responder "$bare" "$here/bench-bare-responder")
for p in client mock bare; do
    if [ -z "${!p}" ]; then echo "run.sh: cannot find the $p program (see --help)" >&2; exit 2; fi
done
if [ -n "$base" ] && [ ! -x "$base" ]; then
    echo "run.sh: --baseline-mockserver $base is not a program" >&2; exit 2
fi
if [ $nohydra = 0 ]; then
    hydra=$(find_prog mpiexec.hydra "$hydra")
    [ -z "$hydra" ] && { echo "run.sh: no mpiexec.hydra: Hydra rows skipped" >&2; nohydra=1; }
fi

if [ $noslurm = 0 ]; then
    if [ -z "$srun" ] && [ -n "${SLURM_CONF:-}" ]; then srun=$(command -v srun 2>/dev/null); fi
    if [ -z "$srun" ] || ! timeout 20 "$srun" -n1 --immediate=15 true >/dev/null 2>&1; then
        [ -n "$srun" ] && echo "run.sh: srun runs no step (SLURM_CONF=${SLURM_CONF:-unset}): Slurm rows skipped" >&2
        noslurm=1
    fi
fi

if [ $pin = 1 ]; then
    if [ "$(nproc)" -lt 2 ] || ! command -v taskset >/dev/null; then
        echo "run.sh: --pin needs 2 CPUs and taskset" >&2; exit 2
    fi
    pin_srv="taskset -c 0" pin_cli="taskset -c 1"
fi

keep_log=1
if [ -z "$logdir" ]; then logdir=$(mktemp -d "${TMPDIR:-/tmp}/bench-server.XXXXXX"); keep_log=0; fi
mkdir -p "$logdir" || exit 2
rm -f "$logdir/pairs"
cleanup() { [ $keep_log = 0 ] && rm -rf "$logdir"; }
trap cleanup EXIT
# 256 virtual ranks plus the server's own descriptors
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

rows=()      # keys in the order they ran
declare -A R # results by server/mode/N/proto
declare -A A # attempts of the current key, newline-separated

# one attempt: its status and the client's summary line
record() { # key log rc
    local key=$1 log=$2 rc=$3
    local line status
    line=$(grep -m1 '^summary: ' "$log" 2>/dev/null | sed 's/^summary: //')
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then status=TIMEOUT
    elif [ -z "$line" ]; then status="FAILED(rc=$rc)"
    elif ! grep -q 'complete=1 failures=0' <<<"$line"; then status="FAILED(rc=$rc)"
    else status=ok; fi
    A[$key]+="status=$status $line"$'\n'
    last_status=$status
}

# After the attempts: a failed attempt is what the row shows (never hidden
# by a good one); else the attempt with the median gets/s.
settle() { # key
    local key=$1 bad med
    bad=$(grep -v -e '^status=ok ' -e '^$' <<<"${A[$key]}" | head -1)
    if [ -n "$bad" ]; then R[$key]=$bad
    else
        med=$(grep -v '^$' <<<"${A[$key]}" |
              awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^gets_per_s=/) { split($i, kv, "="); print kv[2] "\t" $0 } }' |
              sort -n | awk -F '\t' '{ l[NR] = $2 } END { print l[int((NR + 1) / 2)] }')
        R[$key]=$med
    fi
    rows+=("$key")
}

# The mock server's runs, and with --baseline-mockserver the baseline's
# beside them: attempts alternate (new, base, new, base, ...) so that both
# see the same machine.  Arguments after the keys: the attempt function and
# its arguments, with MOCK where the server program goes and NAME where
# the row's name does.
measure_mock() { # key base-key function args...
    local key=$1 bkey=$2 a
    shift 2
    local -a new=("${@//MOCK/$mock}") old=("${@//MOCK/$base}")
    new=("${new[@]//NAME/mockserver}") old=("${old[@]//NAME/baseline}")
    if [ -z "$base" ]; then measure "$key" "${new[@]}"; return; fi
    A[$key]="" A[$bkey]=""
    for attempt in $(seq "$repeat"); do
        "${new[@]}"
        [ "$last_status" = TIMEOUT ] && break
        "${old[@]}"
        [ "$last_status" = TIMEOUT ] && break
    done
    settle "$key"
    settle "$bkey"
    pair "$key" "$bkey"
}

# The paired ratios new/base of attempt i (the two ran back to back, so a
# change in the machine between attempts cancels): "median min max" of
# gets/s and of server CPU per get, in PAIR[key].
declare -A PAIR
pair() { # key base-key
    PAIR[$1]=$(paste -d ' ' <(grep -v '^$' <<<"${A[$1]}") <(grep -v '^$' <<<"${A[$2]}") | awk -v pool="$logdir/pairs" '
        function f(line, name,   i, n, a, kv) {
            n = split(line, a, " ")
            for (i = 1; i <= n; i++) { split(a[i], kv, "="); if (kv[1] == name) v = kv[2] }
            return v
        }
        function stats(x, n,   i, j, t) {
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
            return sprintf("%.3f %.3f %.3f", (n % 2) ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2, x[1], x[n])
        }
        {
            # the line holds both attempts: the first status= starts the new one
            split($0, half, " status=")
            nw = half[1]; bs = "status=" half[2]
            if (nw !~ /^status=ok / || bs !~ /^status=ok /) next
            g1 = f(nw, "gets_per_s"); g2 = f(bs, "gets_per_s"); c1 = f(nw, "server_us_per_get"); c2 = f(bs, "server_us_per_get")
            v = ""
            if (g2 + 0 > 0) { ng++; g[ng] = g1 / g2; printf "g %.5f\n", g1 / g2 >> pool }
            if (c2 + 0 > 0 && c1 + 0 > 0) { nc++; c[nc] = c1 / c2; printf "c %.5f\n", c1 / c2 >> pool }
        }
        END {
            if (ng) printf "%s", stats(g, ng); else printf "- - -"
            if (nc) printf " %s %d\n", stats(c, nc), ng; else printf " - - - %d\n", ng
        }')
}

# run an attempt function `repeat` times (stop at a timeout: a hung server
# would only hang again)
measure() { # key function args...
    local key=$1
    shift
    A[$key]=""
    for attempt in $(seq "$repeat"); do
        "$@"
        [ "$last_status" = TIMEOUT ] && break
    done
    settle "$key"
}

field() { # key, field name
    local s=${R[$1]-} f
    for f in $s; do [ "${f%%=*}" = "$2" ] && { echo "${f#*=}"; return; }; done
    echo "-"
}

client_args() { # N proto
    local per=$(( ($rtotal + $1 - 1) / $1 ))
    echo "-p $2 --rounds $rounds --random-gets $per --timeout $(( tmo > 10 ? tmo - 5 : tmo )) --summary"
}

virtual_run() { # name server-cmd N proto extra-client-args
    local name=$1 N=$3 P=$4 extra=$5 out="$logdir/$1-virtual-$3-p$4-a$attempt"
    local spid port i rc
    # the server's own --timeout bounds it; $! is then the server itself (its CPU is read)
    $pin_srv $2 >"$out.server" 2>&1 &
    spid=$!
    for i in $(seq 100); do grep -q '^PMI_SIZE=' "$out.server" 2>/dev/null && break; sleep 0.05; done
    port=$(sed -n 's/^PMI_PORT=//p' "$out.server" 2>/dev/null | head -1)
    if [ -z "$port" ]; then
        kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
        record "$name/virtual/$N/$P" "$out.server" 2
        return
    fi
    timeout -k 5 "$tmo" $pin_cli "$client" bench -n "$N" --port "$port" --server-pid "$spid" \
        $(client_args "$N" "$P") $extra >"$out" 2>&1
    rc=$?
    # give the server a moment to see every finalize, then make sure it is gone
    for i in $(seq 40); do kill -0 "$spid" 2>/dev/null || break; sleep 0.05; done
    kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
    record "$name/virtual/$N/$P" "$out" "$rc"
}

process_run() { # name N proto launcher-args...
    local name=$1 N=$2 P=$3 out="$logdir/$1-process-$2-p$3-a$attempt"
    shift 3
    mkdir -p "$out.d"
    timeout -k 5 "$tmo" $pin_srv "$@" $pin_cli "$client" bench --mode=process --out-dir "$out.d" \
        $(client_args "$N" "$P") >"$out" 2>&1
    record "$name/process/$N/$P" "$out" "$?"
    rm -rf "$out.d"
}

machine=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
echo "bench/server: $(nproc) CPUs ($machine), $(uname -sr)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "client: $client"
echo "rounds $rounds (+1 warm-up), $rtotal random gets per run, median of $repeat, timeout ${tmo}s per run"
echo

all_sizes=$(printf '%s\n' $sizes $([ $nohydra = 0 ] || [ $noslurm = 0 ] && echo $hsizes) | sort -n -u)
for N in $all_sizes; do
    for P in $protos; do
        mock_n=0; for s in $sizes; do [ "$s" = "$N" ] && mock_n=1; done
        hyd_n=0; [ $nohydra = 0 ] && for s in $hsizes; do [ "$s" = "$N" ] && hyd_n=1; done
        if [ $mock_n = 1 ]; then
            echo "  N=$N PMI-$P: bare-epoll" >&2
            measure "bare-epoll/virtual/$N/$P" \
                virtual_run bare-epoll "$bare -n $N --timeout $tmo" "$N" "$P" "--no-verify"
            echo "  N=$N PMI-$P: mockserver (virtual)" >&2
            measure_mock "mockserver/virtual/$N/$P" "baseline/virtual/$N/$P" \
                virtual_run NAME "MOCK -n $N --listen tcp --timeout $tmo" "$N" "$P" ""
        fi
        if [ $noproc = 0 ] && [ $mock_n = 1 -o $hyd_n = 1 ]; then
            echo "  N=$N PMI-$P: mockserver (process)" >&2
            measure_mock "mockserver/process/$N/$P" "baseline/process/$N/$P" \
                process_run NAME "$N" "$P" MOCK -n "$N" --timeout "$tmo" --
        fi
        if [ $noproc = 0 ] && [ $hyd_n = 1 ]; then
            echo "  N=$N PMI-$P: mpiexec.hydra (process)" >&2
            measure "mpiexec.hydra/process/$N/$P" process_run mpiexec.hydra "$N" "$P" "$hydra" -n "$N"
        fi
        if [ $noproc = 0 ] && [ $noslurm = 0 ] && [ $hyd_n = 1 ]; then
            echo "  N=$N PMI-$P: srun (process)" >&2
            measure "srun/process/$N/$P" process_run srun "$N" "$P" "$srun" --mpi=pmi2 -O -n "$N"
        fi
    done
done

ratio() { # a b -> a/b
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == "n/a" || a == "n/a" || b + 0 == 0) print "-"; else printf "%.2fx", a / b }'
}

bcol=""; [ -n "$base" ] && bcol="vs base (cpu)"
echo
printf '%-14s %-8s %5s %6s %9s %10s %10s %10s %10s %9s %15s %15s  %s\n' server mode N proto gets/s \
    "srv us/get" "cli us/get" "fence p50" "fence p99" "vs hydra" "vs bare (cpu)" "$bcol" status
failed=0
for key in "${rows[@]}"; do
    IFS=/ read -r name mode N P <<<"$key"
    gps=$(field "$key" gets_per_s)
    cpu=$(field "$key" server_us_per_get)
    st=$(field "$key" status)
    vh="" vb="" vbase=""
    if [ "$name" = mockserver ] || [ "$name" = srun ] && [ "$mode" = process ]; then
        vh=$(ratio "$gps" "$(field "mpiexec.hydra/process/$N/$P" gets_per_s)")
    fi
    if [ "$name" = mockserver ] && [ "$mode" = virtual ]; then
        bk="bare-epoll/virtual/$N/$P"
        vb="$(ratio "$gps" "$(field "$bk" gets_per_s)") ($(ratio "$cpu" "$(field "$bk" server_us_per_get)"))"
    fi
    if [ -n "$base" ] && [ "$name" = mockserver ]; then
        read -r gm _ _ cm _ _ _ <<<"${PAIR[$key]:-- - - - - - 0}"
        vbase="$(awk -v g="$gm" -v c="$cm" 'BEGIN { printf "%s (%s)", g == "-" ? "-" : sprintf("%.3fx", g), c == "-" ? "-" : sprintf("%.3fx", c) }')"
    fi
    printf '%-14s %-8s %5s %6s %9s %10s %10s %10s %10s %9s %15s %15s  %s\n' "$name" "$mode" "$N" "PMI-$P" \
        "$gps" "$cpu" "$(field "$key" client_us_per_get)" "$(field "$key" fence_p50_us)" "$(field "$key" fence_p99_us)" "$vh" "$vb" "$vbase" "$st"
    if [ "$name" != mpiexec.hydra ] && [ "$name" != srun ] && [ "$st" != ok ]; then failed=1; fi
done
echo
echo "gets/s: steady-state random gets; srv us/get: server CPU (all its threads, and Hydra's"
echo "proxy + mpiexec) per get; cli us/get: the load generator's CPU per get (all its ranks);"
echo "fence in us; vs hydra: gets/s ratio at the same N and protocol; vs bare: gets/s ratio"
echo "(server CPU per get ratio)."
if [ -n "$base" ]; then
    echo "baseline: $base; vs base: the median of the paired gets/s ratios (server CPU per get"
    echo "ratios) of the same N, mode and protocol, each new attempt over the baseline attempt"
    echo "right after it.  Paired ratios, median [min, max]:"
    for key in "${rows[@]}"; do
        [ "${key%%/*}" = mockserver ] || continue
        read -r gm gl gh cm cl ch np <<<"${PAIR[$key]:-- - - - - - 0}"
        printf '  %-26s gets/s %s [%s, %s]   CPU per get %s [%s, %s]   (%s pairs)\n' "${key#mockserver/}" \
            "$gm" "$gl" "$gh" "$cm" "$cl" "$ch" "$np"
    done
fi
if [ -n "$base" ] && [ -s "$logdir/pairs" ]; then
    # Every configuration's pairs together: the median ratio and its 95%
    # confidence interval (distribution-free: the order statistics at
    # n/2 -+ 0.98 sqrt(n), the sign test's interval for a median).
    for k in g c; do
        awk -v k=$k '$1 == k { print $2 }' "$logdir/pairs" | sort -g | awk -v k=$k '
            { x[NR] = $1 }
            END {
                n = NR; if (!n) exit
                m = (n % 2) ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
                d = 0.98 * sqrt(n); lo = int(n / 2 - d); hi = int(n / 2 + d + 1.5)
                if (lo < 1) lo = 1; if (hi > n) hi = n
                printf "all configurations pooled, %s: median %.3f, 95%% interval [%.3f, %.3f] (%d pairs)\n",
                    k == "g" ? "gets/s ratio" : "server CPU per get ratio", m, x[lo], x[hi], n
            }'
    done
fi
[ $pin = 1 ] && echo "pinned: servers on CPU 0, load generators on CPU 1"
# The target is PMI-2's: for PMI-1, Hydra's own rate is within 3x of the bare floor.
for P in $protos; do
    [ "$P" = 2 ] || continue
    h=$(field "mpiexec.hydra/process/64/$P" gets_per_s)
    m=$(field "mockserver/process/64/$P" gets_per_s)
    if [ "$h" != - ] && [ "$m" != - ]; then
        r=$(awk -v a="$m" -v b="$h" 'BEGIN { printf "%.2f", a / b }')
        v=$(awk -v r="$r" 'BEGIN { print (r >= 3 ? "PASS" : "MISS") }')
        echo "target: mockserver >= 3x mpiexec.hydra at N=64 PMI-$P: ${r}x $v"
    fi
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
[ $keep_log = 1 ] && echo "logs: $logdir"
if [ $check = 1 ] && [ $failed = 1 ]; then
    echo "run.sh: a bare-epoll or mockserver run did not complete (see the status column)" >&2
    [ $keep_log = 0 ] && { keep_log=1; echo "logs kept in $logdir" >&2; }
    exit 1
fi
if [ $check = 1 ]; then
    # every mock size and protocol: bare-epoll, mockserver virtual (+ process)
    want=0
    for N in $sizes; do for P in $protos; do want=$((want + (noproc ? 2 : 3))); done; done
    have=0
    for key in "${rows[@]}"; do
        case "${key%%/*}" in mpiexec.hydra|baseline) ;; *) have=$((have + 1)) ;; esac
    done
    if [ $have -ne $want ]; then
        echo "run.sh: $have bare-epoll/mockserver rows, expected $want" >&2
        exit 1
    fi
fi
exit 0
