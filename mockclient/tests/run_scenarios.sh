#!/bin/sh
# pmi-mockclient run end to end.
#   run_scenarios.sh MODE MOCKCLIENT MOCKSERVER SRCDIR
# MODE: mockserver      every scenario in traces/scenarios against pmi-mockserver, as
#                       virtual ranks (--port) and under it as launcher (PMI_FD and
#                       PMI_PORT), in every persona where meaningful
#       persona-frames  the mpich-4.0-pmi2 persona writes left-justified lengths with
#                       6 junk bytes, and the strict mock server accepts them silently
#       failing         a wrong expectation exits 1 with expected | actual side by side
#       cli             --help, --version, usage and connection errors (exit 2)
#       hydra           the scenarios under mpiexec.hydra (skipped without it)
set -u
mode=$1 mc=$2 ms=$3 src=$4
sc="$src/traces/scenarios"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmr-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Number of ranks a scenario has: its r<N> connections.
nranks() { grep -oE '^[0-9.]+ r[0-9]+ ' "$1" | awk '{print $2}' | sort -u | wc -l; }

# virtual ranks: pmi-mockserver --listen, then pmi-mockclient run --port.
# The server announces PMI_PORT, PMI_JOBID, PMI_SIZE in one write; wait for
# the last line, since a reader can see a write to a file half done.
listen_run() { # scenario n [client options...]
    s=$1 n=$2
    shift 2
    : >"$tmp/ms.out" # truncated here, not in the child: the wait below must not see the last run's lines
    "$ms" -n "$n" --listen tcp --timeout 60 >"$tmp/ms.out" 2>"$tmp/ms.err" &
    spid=$!
    i=0
    while ! grep -q '^PMI_SIZE=' "$tmp/ms.out" 2>/dev/null; do
        i=$((i + 1))
        if [ $i -gt 100 ]; then
            kill "$spid" 2>/dev/null
            fail "pmi-mockserver did not start"
            return 1
        fi
        sleep 0.05
    done
    port=$(sed -n 's/^PMI_PORT=//p' "$tmp/ms.out")
    jobid=$(sed -n 's/^PMI_JOBID=//p' "$tmp/ms.out")
    PMI_JOBID=$jobid "$mc" run -q --port "$port" "$@" "$s" >"$tmp/mc.out" 2>&1
    crc=$?
    wait "$spid"
    src_rc=$?
    if [ $crc -ne 0 ] || [ $src_rc -ne 0 ]; then
        fail "$(basename "$s") --port $* (client $crc, server $src_rc)"
        cat "$tmp/mc.out" "$tmp/ms.err"
        return 1
    fi
    return 0
}

launch_run() { # scenario n [launcher options] -- [client options]
    s=$1 n=$2
    shift 2
    lopts=""
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do lopts="$lopts $1"; shift; done
    [ $# -gt 0 ] && shift
    # shellcheck disable=SC2086
    "$ms" -n "$n" $lopts --timeout 60 -- "$mc" run -q "$@" "$s" >"$tmp/mc.out" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        fail "$(basename "$s") under pmi-mockserver$lopts $* (exit $rc)"
        cat "$tmp/mc.out"
        return 1
    fi
    return 0
}

case $mode in
mockserver)
    for s in "$sc"/*.trace; do
        n=$(nranks "$s")
        listen_run "$s" "$n"
        launch_run "$s" "$n" --
        launch_run "$s" "$n" --pmi-port --
        if grep -q 'msg v2 fullinit' "$s"; then
            for p in mpich-4.0-pmi2 mpich-5-pmi2 slurm-pmi2; do
                listen_run "$s" "$n" --persona "$p"
                launch_run "$s" "$n" -- --persona "$p"
            done
        elif grep -q 'msg v1 init pmi_version=1' "$s"; then
            listen_run "$s" "$n" --persona mpich-4.0-pmi1
            launch_run "$s" "$n" --pmi-port -- --persona mpich-4.0-pmi1
        fi
    done
    ;;
persona-frames)
    s="$sc/v2_persona_handshake.trace"
    : >"$tmp/ms.out"
    "$ms" -n 1 --listen tcp --timeout 60 -v >"$tmp/ms.out" 2>"$tmp/ms.err" &
    spid=$!
    i=0
    while ! grep -q '^PMI_SIZE=' "$tmp/ms.out" 2>/dev/null && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.05; done
    port=$(sed -n 's/^PMI_PORT=//p' "$tmp/ms.out")
    "$mc" run -q --persona mpich-4.0-pmi2 --jobid kvs_x --trace "$tmp/rec.trace" --port "$port" "$s" >"$tmp/mc.out" 2>&1 ||
        { fail "mpich-4.0-pmi2 against the strict server"; cat "$tmp/mc.out"; }
    wait "$spid" || fail "pmi-mockserver exit $?"
    # every PMI-2 frame the client wrote: "<len>    cmd=...;" + 6 NULs, len = body + 6
    frames=$(grep -c ' r0 C>S "[0-9][0-9]* *cmd=' "$tmp/rec.trace")
    junk=$(grep -c ' r0 C>S "[0-9][0-9]*  *cmd=[^"]*;\\x00\\x00\\x00\\x00\\x00\\x00"' "$tmp/rec.trace")
    [ "$frames" -ge 10 ] || fail "expected the client's frames in the recording, found $frames"
    [ "$frames" = "$junk" ] || { fail "$junk of $frames frames left-justified with junk"; cat "$tmp/rec.trace"; }
    grep -q 'C>S "59    cmd=fullinit;pmijobid=kvs_x;pmirank=0;threaded=FALSE;\\x00' "$tmp/rec.trace" ||
        fail "fullinit is not MPICH 4.0.2's"
    grep -q 'cmd=info-getnodeattr;key=n0;wait=FALSE;' "$tmp/rec.trace" || fail "getnodeattr without wait="
    grep -q 'cmd=name-publish;name=svc;port=p0;infokeycount=0;' "$tmp/rec.trace" || fail "publish without infokeycount"
    # the strict server reported nothing about these frames
    if grep -vE ': conn [0-9]+: (open|close \(rank [0-9]+\): finished)' "$tmp/ms.err" | grep -q .; then
        fail "the strict server complained:"
        cat "$tmp/ms.err"
    fi
    ;;
failing)
    sed 's/kvs-get-response rc=0 found=TRUE value=v0/kvs-get-response rc=0 found=TRUE value=WRONG/' \
        "$sc/v2_persona_handshake.trace" >"$tmp/wrong.trace"
    n=1
    : >"$tmp/ms.out"
    "$ms" -n 1 --listen tcp --timeout 60 >"$tmp/ms.out" 2>"$tmp/ms.err" &
    spid=$!
    i=0
    while ! grep -q '^PMI_SIZE=' "$tmp/ms.out" 2>/dev/null && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.05; done
    port=$(sed -n 's/^PMI_PORT=//p' "$tmp/ms.out")
    "$mc" run --port "$port" "$tmp/wrong.trace" >"$tmp/mc.out" 2>&1
    rc=$?
    kill "$spid" 2>/dev/null
    wait "$spid" 2>/dev/null
    cat "$tmp/mc.out"
    [ $rc -eq 1 ] || fail "exit $rc, expected 1"
    grep -q '^\[r0\] line 15 *MISMATCH S>C v2 kvs-get-response rc=0 found=TRUE value=WRONG' "$tmp/mc.out" || fail "no MISMATCH line"
    grep -q 'expected (trace) .*| actual' "$tmp/mc.out" || fail "no side-by-side header"
    grep -q 'value=WRONG .*| v2 kvs-get-response .*value=v0' "$tmp/mc.out" || fail "expected and actual not side by side"
    grep -q 'not run  C>S v2 finalize' "$tmp/mc.out" || fail "later steps not marked not run"
    grep -q '^summary: .*1 failed.*FAIL$' "$tmp/mc.out" || fail "summary"
    ;;
cli)
    "$mc" run --help | grep -q 'exit status' || fail "--help"
    "$mc" run --version | grep -q 'pmi2-conform' || fail "--version"
    "$mc" --help | grep -q '^  run ' || fail "run missing from the command list"
    "$mc" run >/dev/null 2>&1; [ $? -eq 2 ] || fail "no scenario: not 2"
    env -u PMI_FD -u PMI_PORT "$mc" run "$sc/v1_happy.trace" >/dev/null 2>&1; [ $? -eq 2 ] || fail "no server: not 2"
    "$mc" run --port "unix:$tmp/nothing" "$sc/v1_happy.trace" >/dev/null 2>&1; [ $? -eq 2 ] || fail "refused: not 2"
    "$mc" run --persona nobody --port x:1 "$sc/v1_happy.trace" >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad persona: not 2"
    printf '# pmi-trace v2\n0.000000 r0 C>S msg v9 x\n' >"$tmp/bad.trace"
    "$mc" run --port "unix:$tmp/nothing" "$tmp/bad.trace" >"$tmp/o" 2>&1; [ $? -eq 2 ] || fail "bad scenario: not 2"
    "$mc" run --persona list | grep -q 'mpich-4.0-pmi2' || fail "--persona list"
    ;;
hydra)
    command -v mpiexec.hydra >/dev/null 2>&1 || { echo "mpiexec.hydra not found"; exit 77; }
    for s in "$sc"/*.trace; do
        n=$(nranks "$s")
        timeout 120 mpiexec.hydra -n "$n" "$mc" run -q "$s" >"$tmp/mc.out" 2>&1 ||
            { fail "$(basename "$s") under mpiexec.hydra"; cat "$tmp/mc.out"; }
        if grep -q 'msg v2 fullinit' "$s"; then
            for p in mpich-4.0-pmi2 mpich-5-pmi2 slurm-pmi2; do
                timeout 120 mpiexec.hydra -n "$n" "$mc" run -q --persona "$p" "$s" >"$tmp/mc.out" 2>&1 ||
                    { fail "$(basename "$s") --persona $p under mpiexec.hydra"; cat "$tmp/mc.out"; }
            done
        elif grep -q 'msg v1 init pmi_version=1' "$s"; then
            timeout 120 mpiexec.hydra -pmi-port -n "$n" "$mc" run -q --persona mpich-4.0-pmi1 "$s" >"$tmp/mc.out" 2>&1 ||
                { fail "$(basename "$s") -pmi-port --persona mpich-4.0-pmi1 under mpiexec.hydra"; cat "$tmp/mc.out"; }
        fi
    done
    ;;
*)
    echo "unknown mode $mode"
    exit 2
    ;;
esac
[ $fails -eq 0 ] && echo "all passed ($mode)"
[ $fails -eq 0 ]
