#!/bin/sh
# A decode error is reported with the bytes around its offset, escaped, the
# offending one in brackets, in the console, the JSON and the HTML report;
# robust/v1-cr-only cites V1-9 when the error answer carries the CR back
# (mutant v1-error-echoes-cr; the newcomer PMI-1 server's audit).
#   decode-bytes.sh PMI2_CONFORM PMI_MOCKSERVER OUTDIR
set -u
conform=$1 mock=$2 out=$3
rm -rf "$out" && mkdir -p "$out" || exit 1
export LC_ALL=C
"$conform" server -v --launch "$mock -n {n} --mutant v1-error-echoes-cr --timeout 60 --" \
    --timeout 5 --json "$out/json" --html "$out/report.html" robust/v1-cr-only \
    >"$out/console.txt" 2>&1
st=$?
fail=0
no() { echo "FAIL: $*"; fail=1; }
has() { grep -qF -- "$2" "$1" || no "$1 lacks $2"; }
test $st -eq 1 || no "exit status $st, expected 1"
has "$out/console.txt" 'FAIL        robust/v1-cr-only'
has "$out/console.txt" '[V1-9 MUST NOT]'
has "$out/console.txt" 'cr-in-answer'
has "$out/console.txt" 'in brackets: '
has "$out/console.txt" 'cmd=get_maxes[\r]cmd=get_appnum_result'
has "$out/json/robust_v1-cr-only.json" '"clause": "V1-9"'
has "$out/json/robust_v1-cr-only.json" 'cmd=get_maxes[\\r]cmd=get_appnum_result'
has "$out/report.html" 'cmd=get_maxes[\r]cmd=get_appnum_result'
# the strict server answers without the CR: PASS
"$conform" server -q --launch "$mock -n {n} --timeout 60 --" --timeout 5 robust/v1-cr-only \
    >"$out/strict.txt" 2>&1 || no "the strict server does not pass robust/v1-cr-only"
test $fail -eq 0 || { cat "$out/console.txt"; exit 1; }
echo "decode-bytes: ok"
