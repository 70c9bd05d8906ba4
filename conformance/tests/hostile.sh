#!/bin/sh
# pmi2-conform against servers that misbehave the ways real ones do: it must
# finish within a bound, give every selected case a verdict (no ERROR from the
# harness), print its report, and leave no process behind.
#
#   hostile.sh PMI2_CONFORM PMI_MOCKSERVER WORKDIR MODE
#
# MODE (the server is pmi-mockserver, scripted or wrapped):
#   silent        answers nothing at all (every request is held forever)
#   close-mid     rank 1 gets half of a response, then its connection closes
#   garbage       junk bytes before some responses
#   wrong-thrid   an unsolicited kvs-get-response with a thrid nobody sent
#   crash         the server dies (SIGSEGV) one second into each launch
#   hang-on-exit  the launcher never returns after its job ended
#   refuse-next   the first launch runs, every later one never starts a rank
#   sigterm       the orchestrator gets SIGTERM mid-run (any launcher: set
#                 HOSTILE_LAUNCH to a template, e.g. 'srun --mpi=pmi2 -n {n}')
#   sigkill       the orchestrator is killed (SIGKILL: no report, no cleanup of
#                 its own): its ranks must exit by themselves, and so the launcher
set -u
conform=$1 mock=$2 work=$3 mode=$4
rm -rf "$work"
mkdir -p "$work"
tag="pcf-hostile-$$-$mode"
export PCF_HOSTILE_TAG="$tag" # every process of the run inherits it: how leftovers are found
export TMPDIR="$work"          # and what a killed orchestrator leaves stays here
bound=150
cases='pmi2/kvs pmi2/fence pmi2/job frame/len-left-justified robust/len-negative robust/no-cmd'
args="--timeout 3 --json $work/json ${HOSTILE_ARGS:-}"
launch="$mock -n {n} --timeout 100 --"

script() { printf '# pmi-trace v2\n@source hostile.sh %s\n' "$mode" > "$work/script.trace"; cat >> "$work/script.trace"; }

case "$mode" in
    silent)
        script <<'EOF'
@server * -> delay 3600000
EOF
        launch="$mock -n {n} --timeout 100 --stall-timeout 0 --script $work/script.trace --" ;;
    close-mid)
        script <<'EOF'
@server rank=1 nth=12 * -> after raw "60    cmd=kvs-get-response;rc=0;found=TR"
@server rank=1 nth=13 * -> drop
EOF
        launch="$mock -n {n} --timeout 100 --script $work/script.trace --" ;;
    garbage)
        script <<'EOF'
@server nth=12 * -> before raw "garbage\x00garbage;;;=\n"
EOF
        launch="$mock -n {n} --timeout 100 --script $work/script.trace --" ;;
    wrong-thrid)
        script <<'EOF'
@server v2 kvs-get -> before msg v2 kvs-get-response thrid=0xdeadbeef rc=0 found=FALSE
EOF
        launch="$mock -n {n} --timeout 100 --script $work/script.trace --" ;;
    crash)
        launch="sh -c '\"\$0\" -n {n} --timeout 100 -- \"\$@\" & p=\$!; sleep 1; kill -SEGV \$p; wait \$p' $mock" ;;
    hang-on-exit)
        launch="sh -c '\"\$0\" -n {n} --timeout 100 -- \"\$@\"; exec sleep 3600' $mock" ;;
    refuse-next)
        launch="sh -c 'if mkdir \"$work/first\" 2>/dev/null; then exec \"\$0\" -n {n} --timeout 100 -- \"\$@\"; else exec sleep 3600; fi' $mock" ;;
    sigterm|sigkill)
        launch=${HOSTILE_LAUNCH:-$launch}
        cases=''
        bound=120 ;;
    *) echo "hostile.sh: unknown mode $mode" >&2; exit 2 ;;
esac

start=$(date +%s)
if [ "$mode" = sigterm ] || [ "$mode" = sigkill ]; then
    sig=TERM
    [ "$mode" = sigkill ] && sig=KILL
    # shellcheck disable=SC2086
    "$conform" server --launch "$launch" $args > "$work/report.txt" 2> "$work/stderr.txt" &
    pid=$!
    # wait until some case of the run has started, then stop the orchestrator
    i=0
    while [ $i -lt 300 ] && ! ls "$work/json/traces" 2>/dev/null | grep -q .; do sleep 0.1; i=$((i + 1)); done
    sleep 1
    kill -$sig "$pid"
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 "$pid" 2>/dev/null; then
        echo "FAIL: pmi2-conform still running 30 s after SIGTERM" >&2
        kill -KILL "$pid"
        exit 1
    fi
    wait "$pid"
    rc=$?
    if [ "$mode" = sigterm ]; then
        grep -q 'interrupted (signal 15)' "$work/stderr.txt" || { echo "FAIL: no 'interrupted' notice" >&2; cat "$work/stderr.txt" >&2; exit 1; }
        grep -q 'not run: the run was interrupted' "$work/report.txt" || { echo "FAIL: the cases not run are not reported as interrupted" >&2; exit 1; }
    else
        rc=2 # killed: no report to check; the ranks get a few seconds to notice
        i=0
        while [ $i -lt 50 ] && grep -qsl -a "PCF_HOSTILE_TAG=$tag" /proc/[0-9]*/environ 2>/dev/null; do
            sleep 0.2; i=$((i + 1))
        done
    fi
else
    # shellcheck disable=SC2086
    timeout -s KILL "$bound" "$conform" server --launch "$launch" $args $cases > "$work/report.txt" 2> "$work/stderr.txt"
    rc=$?
fi
took=$(( $(date +%s) - start ))
echo "mode $mode: exit $rc after ${took}s"
tail -1 "$work/report.txt"

fail=0
if [ "$rc" -gt 2 ]; then
    echo "FAIL: exit status $rc (killed at the ${bound}s bound?)" >&2
    fail=1
fi
if [ "$mode" != sigkill ]; then
    grep -q '^[0-9]* tests, ' "$work/report.txt" || { echo "FAIL: no summary line in the report" >&2; fail=1; }
fi
if grep -q '^  ERROR ' "$work/report.txt"; then
    echo "FAIL: ERROR verdicts (the harness must grade every case):" >&2
    grep -A4 '^  ERROR ' "$work/report.txt" >&2
    fail=1
fi
# look for leftovers; killed processes get up to a second to be reaped (the
# scan is repeated until none is left or the second has passed)
leftovers() {
    left=""
    for p in /proc/[0-9]*; do
        [ "$p" = "/proc/$$" ] && continue
        if grep -qs -a "PCF_HOSTILE_TAG=$tag" "$p/environ" 2>/dev/null; then
            st=$(awk '{print $3}' "$p/stat" 2>/dev/null)
            [ "$st" = Z ] && continue
            left="$left ${p#/proc/}($(tr '\0' ' ' < "$p/cmdline" 2>/dev/null | cut -c1-80))"
        fi
    done
}
i=0
leftovers
while [ -n "$left" ] && [ $i -lt 10 ]; do sleep 0.1; i=$((i + 1)); leftovers; done
if [ -n "$left" ]; then
    echo "FAIL: processes left behind:$left" >&2
    for p in $left; do kill -KILL "${p%%(*}" 2>/dev/null; done
    fail=1
fi

case "$mode" in
    crash)
        grep -q 'the job ended while this case ran (launcher exit status 139)' "$work/report.txt" \
            || { echo "FAIL: the crash is not graded on the case it cut short" >&2; fail=1; } ;;
    close-mid|garbage)
        grep -q '^  FAIL ' "$work/report.txt" || { echo "FAIL: the broken replies are not graded FAIL" >&2; fail=1; } ;;
    wrong-thrid)
        grep -q 'thrid=0xdeadbeef' "$work/report.txt" \
            || { echo "FAIL: the stray response is not named in the report" >&2; fail=1; } ;;
    silent)
        # the handshake is never answered: the init cases grade that, the rest cannot run
        grep -q 'not run: ' "$work/report.txt" || { echo "FAIL: expected cases reported not run" >&2; fail=1; } ;;
    hang-on-exit)
        grep -q 'ERR-18' "$work/report.txt" || { echo "FAIL: the hung launcher is not graded (ERR-18)" >&2; fail=1; } ;;
    refuse-next)
        grep -q 'did not release the job after this case' "$work/report.txt" \
            || { echo "FAIL: the wedge is not blamed on a case" >&2; fail=1; }
        grep -q 'not run: the server accepted no further launch' "$work/report.txt" \
            || { echo "FAIL: the cases after the wedge are not SKIPPED with the reason" >&2; fail=1; } ;;
esac
[ $fail -eq 0 ] && echo "ok: $mode"
exit $fail
