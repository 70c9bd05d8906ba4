#!/bin/sh
# report.html and the JSON directory carry text as UTF-8 (issue 22, item 5):
# the quoted requirement's '≠' as its bytes, never "\xe2\x89\xa0" or a
# double encoding; wire bytes that are not UTF-8 still escaped, exactly; the
# page's head says the run's verdict and exit status, and a failing case
# links to its reproducer under --json, relative to the page.
#   html-report.sh PMI2_CONFORM PMI_MOCKSERVER OUTDIR
set -u
conform=$1 mock=$2 out=$3
rm -rf "$out" && mkdir -p "$out" || exit 1
export LC_ALL=C
ne=$(printf '\342\211\240') # U+2260 '≠' in UTF-8
# errmsg quotes RC-7 ("rc≠0"); overwrite FAILs on this persona; the escape
# cases put UTF-8 and bytes that are not UTF-8 on the wire; the excluded
# glob puts a '≠' in the command line
"$conform" server -q --launch "$mock -n {n} --persona hydra-4.0 --timeout 60 --" --timeout 5 \
    --json "$out/json" --html "$out/report.html" pmi2/response/errmsg pmi2/kvs/overwrite \
    pmi2/escape/utf8 pmi2/escape/not-utf8 "!pmi2/response/rc${ne}0" >"$out/console.txt" 2>&1
st=$?
fail=0
no() { echo "FAIL: $*"; fail=1; }
has() { grep -qF -- "$2" "$1" || no "$1 lacks $2"; }
hasnt() { ! grep -qF -- "$2" "$1" || no "$1 holds $2"; }
test $st -eq 1 || no "exit status $st, expected 1 (pmi2/kvs/overwrite FAILs)"
html=$out/report.html
test "$(grep -cF "rc${ne}0" "$html")" -ge 2 || no "report.html lacks the bytes of rc${ne}0 (RC-7, KVS-1)"
hasnt "$html" '\xe2\x89\xa0'
hasnt "$html" "$(printf '\303\242')" # 'â': the bytes read as Latin-1 and encoded again
has "$html" "$(printf '\317\200\342\211\210')3.14" # pmi2/escape/utf8's value as text
has "$html" '<span class="x">\xff\xfe\x80\x01\x7f</span> not UTF-8' # ... not-utf8's as bytes
has "$html" '<span class="run non-conformant">non-conformant</span>'
has "$html" '<tr><th>exit status</th><td>1: '
has "$html" "!pmi2/response/rc${ne}0" # the command line
has "$html" '<a href="json/repro/pmi2_kvs_overwrite/README">'
hasnt "$html" 'repro/pmi2_response_errmsg/' # a PASS has none
# JSON: the code points themselves, the bytes that are not text as \udcXX
j=$out/json
has "$j/pmi2_response_errmsg.json" "rc${ne}0"
has "$j/index.json" "\"command_line\": "
has "$j/index.json" "rc${ne}0"
has "$j/index.json" '"verdict": "non-conformant"'
for f in "$j/index.json" "$j/pmi2_response_errmsg.json"; do
    hasnt "$f" '\\xe2'
    hasnt "$f" '\u00e2'
    hasnt "$f" "$(printf '\303\242')"
done
has "$j/pmi2_escape_not-utf8.json" '\udcff\udcfe\udc80\u0001\u007f not UTF-8'
# the page, pointed at another directory, links there relatively
mkdir -p "$out/pages"
"$conform" server -q --launch "$mock -n {n} --persona hydra-4.0 --timeout 60 --" --timeout 5 \
    --json "$out/json2" --html "$out/pages/r.html" pmi2/kvs/overwrite >/dev/null 2>&1
has "$out/pages/r.html" '<a href="../json2/repro/pmi2_kvs_overwrite/README">'
test $fail -eq 0 && echo "ok: report.html and the JSON carry text as UTF-8"
exit $fail
