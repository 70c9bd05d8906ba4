#!/bin/sh
# A baseline written from a clean run lists every case, so a PASS that
# becomes NON-STRICT is a deviation: named old -> new in the console (also
# with -q), in index.json, JUnit and HTML; and an all-green run of the strict
# persona prints at most 60 lines.
#   baseline-deviation.sh PMI2_CONFORM PMI_MOCKSERVER OUTDIR
set -u
conform=$1 mock=$2 out=$3
rm -rf "$out" && mkdir -p "$out" || exit 1
fail=0
no() { echo "FAIL: $*"; fail=1; }
"$conform" server -q --launch "$mock -n {n} --timeout 60 --" --write-baseline "$out/b.json" \
    pmi1/maxes >/dev/null 2>&1 || no "the clean run failed"
grep -q '"pmi1/maxes/rc": { "verdict": "PASS" }' "$out/b.json" || no "PASS not recorded"
# the mutant drops rc from maxes: RC-2, a SHOULD, so NON-STRICT
for q in "" -q; do
    "$conform" server $q --launch "$mock -n {n} --mutant v1-maxes-no-rc --timeout 60 --" \
        --baseline "$out/b.json" --json "$out/j$q" --junit "$out/j$q.xml" \
        --html "$out/j$q.html" pmi1/maxes \
        >"$out/console$q.txt" 2>&1
    st=$?
    [ "$st" -eq 1 ] || no "exit $st with ${q:-no option}, expected 1"
    grep -q '^  pmi1/maxes/rc  *PASS -> NON-STRICT$' "$out/console$q.txt" ||
        no "the deviation is not listed old -> new (${q:-no option})"
done
grep -q '^  NON-STRICT  pmi1/maxes/rc .*\[baseline: PASS -> NON-STRICT\]' "$out/console.txt" ||
    no "the case line is not marked"
grep -q '"pmi1/maxes/rc": { "verdict": "NON-STRICT".*"deviation": true, "baseline_verdict": "PASS"' \
    "$out/j/index.json" || no "index.json lacks old -> new"
grep -q '<failure type="NON-STRICT" message="\[baseline: PASS -&gt; NON-STRICT\]' "$out/j.xml" ||
    no "JUnit lacks old -> new"
grep -q 'baseline: PASS &rarr; NON-STRICT' "$out/j.html" || no "HTML lacks old -> new"
# "also": an entry that accepts a second verdict (a target's own race) does
# not deviate on it, says both when it deviates, and a published report
# keeps what it accepted ("baseline_also")
cat >"$out/also.json" <<'JSON'
{ "pmi2-conform-baseline": 1, "cases": {
  "pmi1/maxes/rc": { "verdict": "PASS", "also": ["NON-STRICT"], "justification": "either" } } }
JSON
"$conform" server -q --launch "$mock -n {n} --mutant v1-maxes-no-rc --timeout 60 --" \
    --baseline "$out/also.json" --json "$out/also" pmi1/maxes/rc >"$out/also.txt" 2>&1 ||
    no "a verdict the baseline accepts with \"also\" deviated"
grep -q '"baseline_also": \["NON-STRICT"\]' "$out/also/index.json" ||
    no "index.json lacks baseline_also"
"$conform" server -q --launch "$mock -n {n} --mutant v1-maxes-no-rc --timeout 60 --" \
    --baseline "$out/also/index.json" pmi1/maxes/rc >/dev/null 2>&1 ||
    no "a published report did not keep its \"also\""
"$conform" server -q --launch "$mock -n {n} --timeout 60 --" \
    --baseline "$out/also/index.json" pmi1/maxes/rc >/dev/null 2>&1 ||
    no "a published report (NON-STRICT, its baseline PASS or NON-STRICT) did not accept PASS"
sed 's/"NON-STRICT"/"TIMEOUT"/' "$out/also.json" >"$out/also2.json"
"$conform" server --launch "$mock -n {n} --mutant v1-maxes-no-rc --timeout 60 --" \
    --baseline "$out/also2.json" pmi1/maxes/rc >"$out/also2.txt" 2>&1 &&
    no "a verdict outside \"also\" did not deviate"
grep -q '^  pmi1/maxes/rc  *PASS or TIMEOUT -> NON-STRICT$' "$out/also2.txt" ||
    no "the deviation does not name every accepted verdict"
sed 's/"NON-STRICT"/"NONSTRICT"/' "$out/also.json" >"$out/also3.json"
"$conform" server -q --launch "$mock -n {n} --timeout 60 --" --baseline "$out/also3.json" \
    pmi1/maxes/rc >"$out/also3.txt" 2>&1
[ $? -eq 2 ] && grep -q 'unknown verdict (NONSTRICT)' "$out/also3.txt" ||
    no "an unknown verdict in \"also\" is not a usage error"
# all green, default console: a line per section, not per case
"$conform" server --launch "$mock -n {n} --timeout 60 --" >"$out/green.txt" 2>/dev/null ||
    no "the strict persona's run failed"
n=$(wc -l <"$out/green.txt")
[ "$n" -le 60 ] || no "an all-green run printed $n lines (at most 60)"
# JUnit: UNSUPPORTED as skipped, NON-STRICT passing with its detail
"$conform" server --launch "$mock -n {n} --persona hydra-4.1 --timeout 60 --" \
    --junit "$out/h.xml" pmi1/barrier pmi2/jobconn >/dev/null 2>&1
grep -q '<skipped message="UNSUPPORTED: ' "$out/h.xml" || no "JUnit: UNSUPPORTED is not <skipped>"
grep -q '<system-out>NON-STRICT: \[RC-2 SHOULD\]' "$out/h.xml" ||
    no "JUnit: NON-STRICT has no <system-out>"
[ "$fail" -eq 0 ] && echo "ok: deviations named, $n lines all green"
exit $fail
