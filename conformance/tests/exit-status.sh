#!/bin/sh
# An exit status that cannot lie (issue 21): a run that tested nothing exits 2
# with a one-line reason, and index.json records the status the process
# returns.
#   exit-status.sh PMI2_CONFORM PMI_MOCKSERVER PMI2_DRIVER OUTDIR
set -u
conform=$1 mock=$2 driver=$3 out=$4
rm -rf "$out" && mkdir -p "$out" || exit 1
fail=0
check() { # name expected-status stderr-pattern -- command...
    name=$1 want=$2 pat=$3
    shift 4
    "$@" >"$out/$name.out" 2>"$out/$name.err"
    got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL $name: exit $got, expected $want"; cat "$out/$name.err"; fail=1
    elif [ -n "$pat" ] && ! grep -q "$pat" "$out/$name.err"; then
        echo "FAIL $name: stderr lacks '$pat'"; cat "$out/$name.err"; fail=1
    else
        echo "ok   $name: exit $got"
    fi
    if [ -f "$out/$name/index.json" ] &&
        ! grep -q "\"exit_code\": $want," "$out/$name/index.json"; then
        echo "FAIL $name: index.json records $(grep -o '"exit_code": [0-9]*' "$out/$name/index.json")"
        fail=1
    fi
}
# a launcher that starts nothing, and one that is not there
check false 2 'exit status 2: 307\|exit status 2: [0-9]* case(s) not run' -- \
    "$conform" server -q --json "$out/false" --timeout 3 --launch 'false {n}'
test -f "$out/false/index.json" || { echo "FAIL false: no index.json"; fail=1; }
check missing 2 'not found' -- \
    "$conform" server -q --json "$out/missing" --timeout 3 --launch "$out/no-such-launcher {n}"
# a selection that matches nothing
check empty 2 'no case matches the selection' -- \
    "$conform" server -q --launch "$mock -n {n} --timeout 60 --" 'no/such/case*'
check empty-client 2 'no case matches the selection' -- \
    "$conform" client -q 'client/no/such*' -- "$driver"
# a client program that does not run
check client-missing 2 'sent no PMI request' -- \
    "$conform" client -q --json "$out/client-missing" -- "$out/no-such-program"
# a program that writes something that is not PMI: what it wrote is named
check client-not-pmi 2 'what it wrote is not PMI: offset 0' -- \
    "$conform" client -q 'client/api/*' -- sh -c 'echo hello >&"$PMI_FD"'
# and a run that tested something keeps its verdict's status
check graded 0 '' -- \
    "$conform" server -q --json "$out/graded" --launch "$mock -n {n} --timeout 60 --" \
    pmi2/kvs/put
exit $fail
