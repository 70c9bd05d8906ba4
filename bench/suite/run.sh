#!/usr/bin/env bash
# bench/suite/run.sh: how long the conformance suite takes against each target
# (the strict mock server, its personas, Hydra, Slurm, client mode), whole
# runs and per section, beside the floor: the same run with --floor (every
# case's requests without its waits).  Prints figures and PASS/MISS against
# the suite's speed goals; a missed goal never fails.  See bench/README.md.
set -u

usage() {
    cat <<'EOF'
usage: bench/suite/run.sh [options]

Times `pmi2-conform` end to end against each target, and the same run with
--floor (every case's requests without its waits: what the run would cost if
no case waited for anything), and prints per target the wall time, the floor,
their ratio and the verdict counts, per section the number of cases and the
sum of their durations (from --json's index.json), and whether the speed goals
are met.

targets (--targets; a target whose peer is missing is skipped with a note):
  strict          pmi2-conform server --launch 'pmi-mockserver -n {n} --'
  hydra-4.0       ... --launch 'pmi-mockserver -n {n} --persona hydra-4.0 --'
  hydra-4.1       ... --launch 'pmi-mockserver -n {n} --persona hydra-4.1 --'
  slurm-persona   ... --launch 'pmi-mockserver -n {n} --persona slurm --' --timeout 2
  hydra           ... --launch 'mpiexec.hydra -n {n}'
  slurm           ... --launch 'srun --mpi=pmi2 -O -n {n}' --timeout 2
                  [--recover 'scripts/slurm-cluster.sh reset DIR'];
                  only with --slurm (or named in --targets) and SLURM_CONF naming
                  a running cluster; with --slurm-slots DIR, one cluster per
                  launch slot: --launch 'SLURM_CONF=DIR/c{slot}/slurm.conf srun
                  ...' --jobs N over DIR/c0 .. DIR/c<N-1>
  client          client-pmi2 and client-pmi1:
  client-pmi2     pmi2-conform client -- BUILD/conformance/drivers/pmi2-driver
  client-pmi1     pmi2-conform client -- BUILD/conformance/drivers/pmi1-driver
default: every target but slurm.

options:
  --build DIR          build tree with conformance/pmi2-conform, mockserver/ and
                       conformance/drivers/ (default build/default, else build/release)
  --targets "T..."     run only these targets, in this order
  --slurm              add the slurm target to the default list
  --slurm-slots DIR    the slurm target on the clusters DIR/c0, DIR/c1, ... (each
                       started with scripts/slurm-cluster.sh up DIR/cI), one
                       launch slot each
  --hydra PATH         mpiexec.hydra (default: from PATH)
  --jobs N             pass --jobs N to pmi2-conform (launches / client runs at once;
                       not to the slurm target, which runs one job at a time);
                       ignored with a note when the build's pmi2-conform lacks it
  --repeat K           run every target K times; the figures are medians (default 1)
  --no-floor           no --floor runs
  --sections           print the per-section table of every target (default: only
                       for strict and hydra)
  --no-sections        print no per-section table
  --deadline SEC       bound on every single run (default 900): passed as --deadline
                       in server mode, enforced with timeout(1) in both modes
  --json FILE          write the results as JSON to FILE
  --log DIR            keep every run's report, stderr and --json directory in DIR
  --quick              strict only, once, no floor (the smoke test; overrides
                       --targets, --repeat and --no-floor)
  -h, --help           this text
  -V, --version        version

exit status: 0 the figures were printed, whether or not the goals are met and
whatever the verdicts; 1 a run ended without a complete report (pmi2-conform
exit status 2, no summary line or no index.json, or killed at --deadline): its
figures are printed but are not comparable; 2 usage error, or no pmi2-conform
in the build.
EOF
}

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build="" targets="" slurm_opt=0 slurm_slots="" hydra="" jobs="" repeat=1 floor=1 sections=default
deadline=900 json_out="" logdir="" quick=0
all_targets="strict hydra-4.0 hydra-4.1 slurm-persona hydra slurm client-pmi2 client-pmi1"

die_usage() { echo "run.sh: $*" >&2; echo "run.sh --help for the options" >&2; exit 2; }
need_arg() { [ $# -ge 2 ] || die_usage "$1 needs an argument"; }
while [ $# -gt 0 ]; do
    case "$1" in
    --build) need_arg "$@"; build=$2; shift ;;
    --targets) need_arg "$@"; targets=$2; shift ;;
    --slurm) slurm_opt=1 ;;
    --slurm-slots) need_arg "$@"; slurm_slots=$(cd "$2" && pwd) || die_usage "no directory $2"; slurm_opt=1; shift ;;
    --hydra) need_arg "$@"; hydra=$2; shift ;;
    --jobs|-j) need_arg "$@"; jobs=$2; shift ;;
    --repeat) need_arg "$@"; repeat=$2; shift ;;
    --no-floor) floor=0 ;;
    --sections) sections=all ;;
    --no-sections) sections=none ;;
    --deadline) need_arg "$@"; deadline=$2; shift ;;
    --json) need_arg "$@"; json_out=$2; shift ;;
    --log) need_arg "$@"; logdir=$2; shift ;;
    --quick) quick=1 ;;
    -h|--help) usage; exit 0 ;;
    -V|--version) echo "bench/suite/run.sh (pmi2-conform)"; exit 0 ;;
    *) die_usage "unknown option $1" ;;
    esac
    shift
done
for v in "$repeat" "$deadline" ${jobs:+"$jobs"}; do
    case "$v" in ''|*[!0-9]*|0) die_usage "not a positive number: $v" ;; esac
done
if [ $quick = 1 ]; then targets=strict; repeat=1; floor=0; fi

# the target list: "client" stands for both drivers
if [ -z "$targets" ]; then
    targets="strict hydra-4.0 hydra-4.1 slurm-persona hydra client-pmi2 client-pmi1"
    [ $slurm_opt = 1 ] && targets=$all_targets
fi
sel=()
for t in $targets; do
    case "$t" in
    client) sel+=(client-pmi2 client-pmi1) ;;
    strict|hydra-4.0|hydra-4.1|slurm-persona|hydra|slurm|client-pmi2|client-pmi1) sel+=("$t") ;;
    *) die_usage "unknown target $t (one of: $all_targets client)" ;;
    esac
done

# the build
if [ -z "$build" ]; then
    for b in "$root/build/default" "$root/build/release"; do
        [ -x "$b/conformance/pmi2-conform" ] && { build=$b; break; }
    done
    [ -n "$build" ] || { echo "run.sh: no pmi2-conform in build/default nor build/release (--build DIR)" >&2; exit 2; }
fi
build=$(cd "$build" 2>/dev/null && pwd) || { echo "run.sh: no build directory $build" >&2; exit 2; }
conform=$build/conformance/pmi2-conform
[ -x "$conform" ] || { echo "run.sh: no $conform (--build DIR)" >&2; exit 2; }
mockdir=$build/mockserver
export PATH="$mockdir:$PATH" # the launch templates name pmi-mockserver as the brief does
conform_help=$("$conform" --help 2>&1)
if [ -n "$jobs" ] && ! grep -q -- '--jobs' <<<"$conform_help"; then
    echo "run.sh: this pmi2-conform has no --jobs: --jobs $jobs not passed" >&2
    jobs=""
fi
if [ $floor = 1 ] && ! grep -q -- '--floor' <<<"$conform_help"; then
    echo "run.sh: this pmi2-conform has no --floor: no floor runs" >&2
    floor=0
fi
has_deadline=0
grep -q -- '--deadline' <<<"$conform_help" && has_deadline=1

work=$logdir
if [ -z "$work" ]; then work=$(mktemp -d "${TMPDIR:-/tmp}/bench-suite.XXXXXX") || exit 2; fi
mkdir -p "$work" || exit 2
child=""
cleanup() {
    [ -n "$child" ] && kill -TERM "$child" 2>/dev/null && wait "$child" 2>/dev/null
    [ -z "$logdir" ] && rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "run.sh: interrupted" >&2; exit 130' INT TERM HUP

# ------------------------------------------------------------------ targets
# setup_target NAME: T_KIND, T_MODE, T_OPTS (options), T_PROG (client mode's
# program), T_CMD (for the tables), T_SKIP (why it cannot run), T_JOBS
slurm_dir="" slurm_throwaway=0 slurm_dirs=()
setup_target() {
    T_KIND="" T_MODE=server T_OPTS=() T_PROG=() T_SKIP="" T_JOBS=1
    local mock=$mockdir/pmi-mockserver
    case "$1" in
    strict|hydra-4.0|hydra-4.1|slurm-persona)
        T_KIND=mock
        case "$1" in
        strict) T_OPTS=(--launch "pmi-mockserver -n {n} --") ;;
        slurm-persona)
            # its silences (Slurm's) cost a case deadline each: graded with
            # Slurm's --timeout 2, as conformance/publish.sh does
            T_OPTS=(--launch "pmi-mockserver -n {n} --persona slurm --" --timeout 2) ;;
        *) T_OPTS=(--launch "pmi-mockserver -n {n} --persona $1 --") ;;
        esac
        [ -x "$mock" ] || T_SKIP="no $mock" ;;
    hydra)
        T_KIND=hydra
        local h=$hydra
        [ -z "$h" ] && h=$(command -v mpiexec.hydra 2>/dev/null)
        if [ -z "$h" ] || [ ! -x "$h" ]; then T_SKIP="no mpiexec.hydra (Debian: mpich)"
        else T_OPTS=(--launch "$h -n {n}"); fi ;;
    slurm)
        T_KIND=slurm T_JOBS=0
        T_OPTS=(--launch "srun --mpi=pmi2 -O -n {n}" --timeout 2)
        if [ -n "$slurm_slots" ]; then
            local n=0
            while [ -f "$slurm_slots/c$n/slurm.conf" ]; do n=$((n + 1)); done
            if [ $n = 0 ]; then
                T_SKIP="no cluster $slurm_slots/c0 (scripts/slurm-cluster.sh up $slurm_slots/c0)"
            else
                slurm_dirs=()
                for i in $(seq 0 $((n - 1))); do slurm_dirs+=("$slurm_slots/c$i"); done
                slurm_throwaway=1
                T_OPTS=(--launch "SLURM_CONF=$slurm_slots/c{slot}/slurm.conf srun --mpi=pmi2 -O -n {n}"
                        --jobs "$n" --timeout 2
                        --recover "'$root/scripts/slurm-cluster.sh' reset '$slurm_slots/c{slot}' >/dev/null 2>&1")
            fi
        elif [ -z "${SLURM_CONF:-}" ]; then
            T_SKIP="SLURM_CONF is not set (eval \"\$(scripts/slurm-cluster.sh up DIR)\")"
        elif ! command -v srun >/dev/null 2>&1; then
            T_SKIP="no srun"
        elif ! SLURM_OVERCOMMIT=1 timeout 25 srun -n1 --immediate=15 true >/dev/null 2>&1; then
            T_SKIP="srun runs no step (SLURM_CONF=$SLURM_CONF)"
        else
            slurm_dir=$(cd "$(dirname "$SLURM_CONF")" && pwd)
            # a cluster of scripts/slurm-cluster.sh may be reset; another never
            if [ -f "$slurm_dir/slurmctld.pid" ] && [ -f "$slurm_dir/slurmd.pid" ]; then
                slurm_throwaway=1 slurm_dirs=("$slurm_dir")
                T_OPTS+=(--recover "'$root/scripts/slurm-cluster.sh' reset '$slurm_dir' >/dev/null 2>&1")
            fi
        fi ;;
    client-pmi2|client-pmi1)
        T_KIND=client T_MODE=client
        local d=$build/conformance/drivers/${1#client-}-driver
        T_PROG=("$d")
        [ -x "$d" ] || T_SKIP="no $d" ;;
    esac
    T_CMD="pmi2-conform $T_MODE"
    local a
    for a in "${T_OPTS[@]}"; do
        case "$a" in
        *\'*) T_CMD+=" \"${a//\"/\\\"}\"" ;; # the --recover command quotes its paths
        *[\ \"]*) T_CMD+=" '$a'" ;;
        *) T_CMD+=" $a" ;;
        esac
    done
    [ $T_MODE = client ] && T_CMD+=" -- ${T_PROG[*]#$build/}"
    return 0
}

# ------------------------------------------------------------------ helpers
fmt2() { awk -v x="$1" 'BEGIN { if (x == "" || x == "-") print "-"; else printf "%.2f\n", x }'; }
median() { # numbers... -> median (mean of the two middle ones for an even count)
    printf '%s\n' "$@" | grep -v '^-*$' | sort -g |
        awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2];
              else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.2fx", a / b }'; }
# "248 tests, 247 passed, 0 failed, ..., 1 info, ..." -> "247 passed, 1 info"
verdicts() {
    [ -n "$1" ] || { echo "-"; return; }
    sed -e 's/^[0-9]* tests, //' <<<"$1" | tr ',' '\n' | sed 's/^ *//' | grep -v '^0 ' | paste -sd, - | sed 's/,/, /g'
}
json_str() {
    local s=${1//\\/\\\\}
    s=${s//\"/\\\"}
    s=${s//$'\t'/ }
    printf '"%s"' "$s"
}
json_num() { case "$1" in ''|-|*x) printf 'null' ;; *) printf '%s' "$1" ;; esac; }

# index.json -> one line per case, in the suite's order: id <TAB> duration_ms
cases_of() {
    awk '
    /^ *"[^"]*": \{ *"verdict"/ {
        id = $0; sub(/^ *"/, "", id); sub(/".*/, "", id)
        ms = 0
        if (match($0, /"duration_ms": *[-0-9.eE+]+/)) { v = substr($0, RSTART, RLENGTH); sub(/.*: */, "", v); ms = v + 0 }
        printf "%s\t%.3f\n", id, ms
    }' "$1"
}

# one run of the current target: wall time, exit status, summary line, sections
run_once() { # name tag(real|floor) i
    local name=$1 tag=$2 i=$3 d="$work/$1/$2-$3" s e rc sum cmd
    rm -rf "$d"; mkdir -p "$d"
    cmd=("$conform" "$T_MODE" "${T_OPTS[@]}" --json "$d/json")
    [ -n "$jobs" ] && [ "$T_JOBS" = 1 ] && cmd+=(--jobs "$jobs")
    [ "$tag" = floor ] && cmd+=(--floor)
    [ "$T_MODE" = server ] && [ $has_deadline = 1 ] && cmd+=(--deadline "$deadline")
    [ "$T_MODE" = client ] && cmd+=(-- "${T_PROG[@]}")
    if [ "$T_KIND" = slurm ] && [ $slurm_throwaway = 1 ]; then
        # every run starts on clean nodes (not timed)
        for sd in "${slurm_dirs[@]}"; do
            "$root/scripts/slurm-cluster.sh" status "$sd" >/dev/null 2>&1 ||
                "$root/scripts/slurm-cluster.sh" reset "$sd" >/dev/null 2>&1
        done
    fi
    local slurm_env=()
    [ "$T_KIND" = slurm ] && slurm_env=(SLURM_OVERCOMMIT=1)
    printf '%s\n' "${cmd[*]}" > "$d/command"
    s=$(date +%s.%N)
    # more ranks than cores under srun, as the peer tests run it
    env ${slurm_env[@]+"${slurm_env[@]}"} timeout -k 10 $((deadline + 60)) "${cmd[@]}" > "$d/report.txt" 2> "$d/stderr.txt" &
    child=$!
    wait $child
    rc=$?
    child=""
    e=$(date +%s.%N)
    W[$name/$tag/$i]=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", e - s }')
    sum=$(grep -E '^[0-9]+ tests, ' "$d/report.txt" | tail -n 1)
    S[$name/$tag/$i]=$sum
    RC[$name/$tag/$i]=$rc
    if [ -f "$d/json/index.json" ]; then cases_of "$d/json/index.json" > "$d/cases.tsv"; else : > "$d/cases.tsv"; fi
    local st=ok
    if [ $rc = 124 ] || [ $rc = 137 ]; then st="killed at --deadline"
    elif [ -z "$sum" ]; then st="no summary line (exit $rc)"
    elif [ ! -s "$d/cases.tsv" ]; then st="no index.json (exit $rc)"
    elif [ $rc != 0 ] && [ $rc != 1 ]; then st="incomplete (exit $rc)"
    else
        local n got
        n=${sum%% *}
        got=$(wc -l < "$d/cases.tsv")
        [ "$got" = "$n" ] || st="index.json has $got cases, the report $n"
    fi
    ST[$name/$tag/$i]=$st
    # launches that started no rank within the start timeout (the server did
    # not release the previous job: Slurm's wedged steps), each a recovery
    STUCK[$name/$tag/$i]=$(grep -c 'no rank of the launch started within' "$d/stderr.txt")
    printf '  %-14s %-5s %d/%d  %7.2f s  exit %d  %s%s\n' "$name" "$tag" "$i" "$repeat" "${W[$name/$tag/$i]}" "$rc" \
        "$(verdicts "$sum")" "$([ "$st" = ok ] || echo "  [$st]")" >&2
}

# Per section, from every case's median duration over the runs of one tag
# (a case's section is its id up to the last /):
# section <TAB> cases <TAB> ms (sum of the medians) <TAB> slowest case <TAB> its ms
section_medians() { # name tag
    local name=$1 tag=$2 i
    for i in $(seq "$repeat"); do cat "$work/$name/$tag-$i/cases.tsv"; done | awk -F '\t' '
    function median(id,    m, a, b, t, x) {
        m = k[id]
        for (a = 1; a <= m; a++) x[a] = v[id, a]
        for (a = 2; a <= m; a++) { t = x[a]; for (b = a - 1; b >= 1 && x[b] > t; b--) x[b + 1] = x[b]; x[b + 1] = t }
        return (m % 2) ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
    }
    {
        if (!($1 in k)) order[++nc] = $1
        k[$1]++; v[$1, k[$1]] = $2
    }
    END {
        for (i = 1; i <= nc; i++) {
            id = order[i]; ms = median(id)
            sec = id; sub(/\/[^\/]*$/, "", sec)
            if (!(sec in n)) sorder[++ns] = sec
            n[sec]++; sum[sec] += ms
            if (!(sec in top) || ms > top[sec]) { top[sec] = ms; topid[sec] = substr(id, length(sec) + 2) }
        }
        for (i = 1; i <= ns; i++) { s = sorder[i]; printf "%s\t%d\t%.3f\t%s\t%.3f\n", s, n[s], sum[s], topid[s], top[s] }
    }'
}

# ------------------------------------------------------------------ runs
declare -A W S RC ST STUCK # per run: wall, summary line, exit status, status, stuck launches
declare -A M             # per target: figures
ran=() skipped=()
incomplete=0
machine=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=""
[ -n "$(git -C "$root" status --porcelain -uno 2>/dev/null)" ] && dirty=" (working tree has uncommitted changes)"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
date_start=$(date '+%Y-%m-%d %H:%M')
echo "bench/suite: $(nproc) CPUs (${machine:-unknown}), $(uname -sr)"
echo "date $date_start; commit $commit$dirty; load average at start: $load_start"
echo "pmi2-conform: $conform ($("$conform" --version 2>&1 | head -n 1))"
echo "runs: median of $repeat; floor: $([ $floor = 1 ] && echo 'yes (--floor)' || echo no);" \
     "jobs: $([ -n "$jobs" ] && echo "--jobs $jobs" || echo "pmi2-conform's default"); bound ${deadline}s per run"
echo

for name in "${sel[@]}"; do
    setup_target "$name"
    M[$name/kind]=$T_KIND
    M[$name/cmd]=$T_CMD
    if [ -n "$T_SKIP" ]; then
        echo "  $name: skipped: $T_SKIP" >&2
        M[$name/skip]=$T_SKIP
        skipped+=("$name")
        continue
    fi
    ran+=("$name")
    tags=real
    [ $floor = 1 ] && tags="real floor"
    for i in $(seq "$repeat"); do
        for tag in $tags; do run_once "$name" "$tag" "$i"; done
    done
    if [ "$T_KIND" = slurm ] && [ $slurm_throwaway = 1 ]; then
        # Slurm may leave a step COMPLETING: leave the clusters clean
        for sd in "${slurm_dirs[@]}"; do
            "$root/scripts/slurm-cluster.sh" reset "$sd" >/dev/null 2>&1
        done
    fi
    for tag in $tags; do
        walls=() st=ok
        for i in $(seq "$repeat"); do
            walls+=("${W[$name/$tag/$i]}")
            if [ "${ST[$name/$tag/$i]}" != ok ] && [ "$st" = ok ]; then st="run $i: ${ST[$name/$tag/$i]}"; fi
        done
        [ "$st" = ok ] || incomplete=1
        M[$name/$tag/status]=$st
        M[$name/$tag/wall]=$(median "${walls[@]}")
        M[$name/$tag/runs]="${walls[*]}"
        # the representative run: the one whose wall is the (lower) median
        rep=$(for i in $(seq "$repeat"); do echo "${W[$name/$tag/$i]} $i"; done | sort -g |
              awk '{ r[NR] = $2 } END { print r[int((NR + 1) / 2)] }')
        M[$name/$tag/rep]=$rep
        M[$name/$tag/summary]=${S[$name/$tag/$rep]}
        M[$name/$tag/varied]=$(for i in $(seq "$repeat"); do echo "${S[$name/$tag/$i]}"; done | sort -u | wc -l)
        M[$name/$tag/exit]=${RC[$name/$tag/$rep]}
        M[$name/$tag/stuck]=${STUCK[$name/$tag/$rep]}
        section_medians "$name" "$tag" > "$work/$name/$tag.sections"
        M[$name/$tag/cases_s]=$(awk -F '\t' '{ t += $3 } END { printf "%.3f", t / 1000 }' "$work/$name/$tag.sections")
    done
    s=${M[$name/real/summary]}
    M[$name/cases]=${s%% *}
    [ -n "${M[$name/cases]}" ] || M[$name/cases]=-
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
echo >&2

# ------------------------------------------------------------------ goals
# the issue-13 goals: target, bound in seconds (the comparison goal is apart)
declare -A GOAL=([strict]=10 [hydra]=15 [client-pmi2]=5 [slurm]=180)
declare -A GOALTXT=([strict]="strict mock <= 10 s" [hydra]="Hydra <= 15 s"
                    [client-pmi2]="client mode (pmi2-driver) <= 5 s" [slurm]="Slurm <= 180 s")
usable() { [ -n "${M[$1/real/wall]-}" ] && [ "${M[$1/real/status]}" = ok ]; }
goal_of() { # target -> "<= 10 s: PASS" or ""
    local t=$1 g=${GOAL[$1]-}
    [ -n "$g" ] || return 0
    if ! usable "$t"; then echo "<= $g s: n/a"; return; fi
    awk -v w="${M[$t/real/wall]}" -v g="$g" 'BEGIN { printf "<= %s s: %s", g, (w <= g ? "PASS" : "MISS") }'
}

# ------------------------------------------------------------------ tables
kind_title() {
    case "$1" in
    mock) echo "mock server: pmi2-conform server --launch 'pmi-mockserver -n {n} [--persona P] --'" ;;
    hydra) echo "Hydra: pmi2-conform server --launch 'mpiexec.hydra -n {n}'" ;;
    slurm) echo "Slurm: pmi2-conform server --launch 'srun --mpi=pmi2 -O -n {n}' --timeout 2" ;;
    client) echo "client mode: pmi2-conform client -- DRIVER (the mock server embedded)" ;;
    esac
}
for kind in mock hydra slurm client; do
    rows=()
    for t in "${ran[@]}" "${skipped[@]}"; do [ "${M[$t/kind]}" = $kind ] && rows+=("$t"); done
    [ ${#rows[@]} -gt 0 ] || continue
    echo "== $(kind_title $kind)"
    vw=8
    for t in "${rows[@]}"; do
        [ -n "${M[$t/skip]-}" ] && continue
        v=$(verdicts "${M[$t/real/summary]}"); [ ${#v} -gt $vw ] && vw=${#v}
    done
    printf '%-14s %5s %8s %8s %7s %8s  %-*s  %s\n' target cases "wall s" "floor s" ratio "cases s" $vw verdicts \
        "runs: wall$([ $floor = 1 ] && echo " / floor")"
    for t in "${rows[@]}"; do
        if [ -n "${M[$t/skip]-}" ]; then printf '%-14s skipped: %s\n' "$t" "${M[$t/skip]}"; continue; fi
        fw=${M[$t/floor/wall]:--}
        runs=$(for w in ${M[$t/real/runs]}; do fmt2 "$w"; done | paste -sd' ' -)
        [ $floor = 1 ] && runs+=" / $(for w in ${M[$t/floor/runs]}; do fmt2 "$w"; done | paste -sd' ' -)"
        printf '%-14s %5s %8s %8s %7s %8s  %-*s  %s\n' "$t" "${M[$t/cases]}" "$(fmt2 "${M[$t/real/wall]}")" \
            "$(fmt2 "$fw")" "$(ratio "${M[$t/real/wall]}" "$fw")" "$(fmt2 "${M[$t/real/cases_s]}")" \
            $vw "$(verdicts "${M[$t/real/summary]}")" "$runs"
    done
    for t in "${rows[@]}"; do
        [ -n "${M[$t/skip]-}" ] && continue
        echo "  $t: ${M[$t/cmd]}"
        for tag in real floor; do
            [ -n "${M[$t/$tag/status]-}" ] || continue
            [ "${M[$t/$tag/status]}" = ok ] || echo "    $tag: ${M[$t/$tag/status]}: its figures are not comparable"
            [ "${M[$t/$tag/varied]}" -gt 1 ] && echo "    $tag: the verdicts differed between runs (shown: the median run's)"
            [ "${M[$t/$tag/stuck]}" -gt 0 ] && echo "    $tag: ${M[$t/$tag/stuck]} launches started no rank within the start timeout (the server kept the previous job)$([ "$t" = slurm ] && echo ", each followed by --recover")"
        done
        if [ $floor = 1 ] && [ "$(verdicts "${M[$t/floor/summary]}")" != "$(verdicts "${M[$t/real/summary]}")" ]; then
            echo "    floor verdicts: $(verdicts "${M[$t/floor/summary]}")"
        fi
    done
    echo
done

# per section
for t in "${ran[@]}"; do
    case "$sections" in
    none) continue ;;
    default) [ "$t" = strict ] || [ "$t" = hydra ] || continue ;;
    esac
    echo "-- $t: per section (ms: sum of the cases' duration_ms$([ "$repeat" -gt 1 ] && echo ", each the median of $repeat runs"))"
    printf '%-20s %5s %10s %10s %7s  %s\n' section cases "real ms" "floor ms" ratio "slowest case (ms)"
    fsec="$work/$t/floor.sections"
    [ -f "$fsec" ] || fsec=/dev/null
    awk -F '\t' -v floor=$floor -v ff="$fsec" '
    BEGIN { while ((getline l < ff) > 0) { split(l, a, "\t"); f[a[1]] = a[3] } }
    {
        fl = ($1 in f) ? sprintf("%.1f", f[$1]) : "-"
        # a ratio of two sums under 10 ms is noise
        r = ($1 in f && f[$1] > 0 && ($3 >= 10 || f[$1] >= 10)) ? sprintf("%.2fx", $3 / f[$1]) : "-"
        printf "%-20s %5d %10.1f %10s %7s  %s %s\n", $1, $2, $3, fl, r, $4, ($5 == "-" ? "" : sprintf("(%.1f)", $5))
        n += $2; t += $3; if ($1 in f) tf += f[$1]
    }
    END {
        fl = floor ? sprintf("%.1f", tf) : "-"
        r = (floor && tf > 0) ? sprintf("%.2fx", t / tf) : "-"
        printf "%-20s %5d %10.1f %10s %7s\n", "all sections", n, t, fl, r
    }' "$work/$t/real.sections"
    echo "  (wall $(fmt2 "${M[$t/real/wall]}") s$([ $floor = 1 ] && echo ", floor $(fmt2 "${M[$t/floor/wall]}") s"):" \
         "launches and start-up are outside the cases' durations; launches run at once overlap)"
    echo
done

# summary
echo "== summary"
vw=8
for t in "${ran[@]}"; do v=$(verdicts "${M[$t/real/summary]}"); [ ${#v} -gt $vw ] && vw=${#v}; done
printf '%-14s %5s %8s %8s %7s  %-*s  %s\n' target cases "wall s" "floor s" ratio $vw verdicts goal
for t in "${ran[@]}" "${skipped[@]}"; do
    if [ -n "${M[$t/skip]-}" ]; then
        printf '%-14s %5s %8s %8s %7s  %-*s  %s\n' "$t" - - - - $vw "skipped" "$(goal_of "$t")"
        continue
    fi
    fw=${M[$t/floor/wall]:--}
    printf '%-14s %5s %8s %8s %7s  %-*s  %s\n' "$t" "${M[$t/cases]}" "$(fmt2 "${M[$t/real/wall]}")" "$(fmt2 "$fw")" \
        "$(ratio "${M[$t/real/wall]}" "$fw")" $vw "$(verdicts "${M[$t/real/summary]}")" "$(goal_of "$t")"
done
echo
echo "goals (issue 13; wall time of the whole run, median of $repeat):"
goal_lines=()
for t in strict hydra client-pmi2 slurm; do
    if usable "$t"; then
        v=$(awk -v w="${M[$t/real/wall]}" -v g="${GOAL[$t]}" 'BEGIN { print (w <= g ? "PASS" : "MISS") }')
        val="$(fmt2 "${M[$t/real/wall]}") s"
    elif [ -n "${M[$t/skip]-}" ]; then v=n/a val="skipped"
    elif [ -n "${M[$t/real/status]-}" ]; then v=n/a val="incomplete"
    else v=n/a val="not run"; fi
    goal_lines+=("${GOALTXT[$t]}|$val|$v")
done
if usable strict && usable hydra; then
    v=$(awk -v a="${M[strict/real/wall]}" -v b="${M[hydra/real/wall]}" 'BEGIN { print (a <= b ? "PASS" : "MISS") }')
    goal_lines+=("strict mock wall <= Hydra wall|$(fmt2 "${M[strict/real/wall]}") s vs $(fmt2 "${M[hydra/real/wall]}") s|$v")
else
    goal_lines+=("strict mock wall <= Hydra wall|needs both|n/a")
fi
for g in "${goal_lines[@]}"; do
    IFS='|' read -r txt val v <<<"$g"
    printf '  %-36s %-24s %s\n' "$txt" "$val" "$v"
done
echo "load average at end: $load_end"
[ -n "$logdir" ] && echo "runs kept in $logdir"

# ------------------------------------------------------------------ JSON
if [ -n "$json_out" ]; then
    {
        printf '{\n  "tool": "bench/suite/run.sh",\n'
        printf '  "date": %s, "commit": %s, "dirty": %s,\n' "$(json_str "$date_start")" "$(json_str "$commit")" \
            "$([ -n "$dirty" ] && echo true || echo false)"
        printf '  "cpus": %d, "cpu": %s, "load_start": %s, "load_end": %s,\n' "$(nproc)" "$(json_str "$machine")" \
            "$(json_str "$load_start")" "$(json_str "$load_end")"
        printf '  "pmi2_conform": %s, "repeat": %d, "floor": %s, "jobs": %s,\n' "$(json_str "$conform")" "$repeat" \
            "$([ $floor = 1 ] && echo true || echo false)" "$(json_num "$jobs")"
        printf '  "targets": ['
        sep=""
        for t in "${ran[@]}" "${skipped[@]}"; do
            printf '%s\n    { "name": %s, "kind": %s, "command": %s' "$sep" "$(json_str "$t")" \
                "$(json_str "${M[$t/kind]}")" "$(json_str "${M[$t/cmd]}")"
            sep=","
            if [ -n "${M[$t/skip]-}" ]; then printf ', "skipped": %s }' "$(json_str "${M[$t/skip]}")"; continue; fi
            printf ', "cases": %s' "$(json_num "${M[$t/cases]}")"
            for tag in real floor; do
                [ -n "${M[$t/$tag/status]-}" ] || continue
                printf ',\n      "%s": { "status": %s, "wall_s": %s, "runs_s": [%s], "cases_s": %s, "stuck_launches": %s, "exit": %s, "summary": %s,\n' \
                    "$tag" "$(json_str "${M[$t/$tag/status]}")" "${M[$t/$tag/wall]}" \
                    "$(sed 's/ /, /g' <<<"${M[$t/$tag/runs]}")" "${M[$t/$tag/cases_s]}" "${M[$t/$tag/stuck]}" "$(json_num "${M[$t/$tag/exit]}")" \
                    "$(json_str "${M[$t/$tag/summary]}")"
                printf '        "sections": ['
                awk -F '\t' '{ printf "%s\n          { \"section\": \"%s\", \"cases\": %d, \"ms\": %s, \"slowest\": \"%s\", \"slowest_ms\": %s }",
                               (NR > 1 ? "," : ""), $1, $2, $3, $4, ($5 == "-" ? "null" : $5) }' "$work/$t/$tag.sections"
                printf ' ] }'
            done
            [ $floor = 1 ] && printf ',\n      "ratio": %s' "$(json_num "$(ratio "${M[$t/real/wall]}" "${M[$t/floor/wall]}" | tr -d x)")"
            printf ' }'
        done
        printf '\n  ],\n  "goals": ['
        sep=""
        for g in "${goal_lines[@]}"; do
            IFS='|' read -r txt val v <<<"$g"
            printf '%s\n    { "goal": %s, "value": %s, "result": %s }' "$sep" "$(json_str "$txt")" "$(json_str "$val")" "$(json_str "$v")"
            sep=","
        done
        printf '\n  ]\n}\n'
    } > "$json_out" || { echo "run.sh: cannot write $json_out" >&2; exit 2; }
fi

[ $incomplete = 1 ] && { echo "run.sh: a run ended without a complete report (see the notes under its table)" >&2; exit 1; }
exit 0
