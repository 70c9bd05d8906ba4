#!/bin/sh
# --rerun-deviations: against a server whose verdicts vary between runs, a
# case that deviates from the baseline runs again in a launch of its own;
# the run passes when the rerun matches, and the report says which case
# needed it and what it gave the first time.  A case that deviates every
# time still fails the run; without the option, the first deviation does.
#
#   rerun.sh PMI2_CONFORM PMI_MOCKSERVER BASELINE WORKDIR
#
# The server: pmi-mockserver whose first launch is a mutant that keeps the
# first value of a key put twice (KVS-15): pmi2/kvs/overwrite fails there
# only; "always" makes every launch that mutant.
set -u
conform=$1 mock=$2 baseline=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
cases='pmi2/kvs'
wrapper="$work/server.sh"
cat > "$wrapper" <<EOF2
#!/bin/sh
# server.sh MODE N: MODE first (only the first launch is the mutant) or always
mode=\$1 n=\$2
shift 2
if [ "\$mode" = always ] || mkdir "$work/first.lock" 2>/dev/null; then
    exec "$mock" -n "\$n" --timeout 60 --mutant kvs-keep-first -- "\$@"
fi
exec "$mock" -n "\$n" --timeout 60 -- "\$@"
EOF2
chmod +x "$wrapper"
fail=0
run() { # name mode [options]: exit status in $work/name.rc, report in $work/name.txt
    name=$1 mode=$2
    shift 2
    rm -rf "$work/first.lock"
    # shellcheck disable=SC2086
    timeout -s KILL 120 "$conform" server --launch "$wrapper $mode {n}" --timeout 3 \
        --baseline "$baseline" --json "$work/$name" "$@" $cases > "$work/$name.txt" 2> "$work/$name.err"
    echo $? > "$work/$name.rc"
    echo "$name: exit $(cat "$work/$name.rc"): $(grep '^baseline ' "$work/$name.txt")"
}
expect() { # name rc pattern...: the exit status and lines of the report
    name=$1 rc=$2
    shift 2
    [ "$(cat "$work/$name.rc")" = "$rc" ] ||
        { echo "FAIL: $name: exit $(cat "$work/$name.rc"), expected $rc" >&2; fail=1; }
    for pat in "$@"; do
        grep -q -- "$pat" "$work/$name.txt" ||
            { echo "FAIL: $name: no line matching: $pat" >&2; sed -n '/^pmi2\/kvs/,$p' "$work/$name.txt" >&2; fail=1; }
    done
}
run once first --rerun-deviations 1 --html "$work/once.html" --junit "$work/once.xml"
expect once 0 '^baseline .*: 0 deviations (1 case matched it only when run again' \
    '^      ran again 1 time (--rerun-deviations): FAIL (.*) the first time'
grep -q '"pmi2/kvs/overwrite": { "verdict": "PASS".*"reruns": 1, "first_verdict": "FAIL"' \
    "$work/once/index.json" || { echo "FAIL: index.json does not record the rerun" >&2; fail=1; }
grep -q '<b>Ran again:</b> ran again 1 time' "$work/once.html" ||
    { echo "FAIL: the HTML report does not show the rerun" >&2; fail=1; }
grep -q '<property name="rerun" value="ran again 1 time' "$work/once.xml" ||
    { echo "FAIL: the JUnit report does not show the rerun" >&2; fail=1; }
run without first
expect without 1 '^baseline .*: 1 deviation$' '^  FAIL        pmi2/kvs/overwrite'
run always always --rerun-deviations 2
expect always 1 '^baseline .*: 1 deviation$' 'ran again 2 times (--rerun-deviations): FAIL'
exit $fail
