#!/bin/sh
# pmi2-conform explain (issue 22): a case in words, from the tables a run
# grades with.  Each check names what a server author relies on.
#   explain.sh PMI2_CONFORM OUTDIR
set -u
conform=$1 out=$2
rm -rf "$out" && mkdir -p "$out" || exit 1
fail=0
bad() { echo "FAIL $*"; fail=1; }
has() { # file pattern what
    grep -q -- "$2" "$1" || bad "$3: '$2' not in $(basename "$1")"
}

# one case with steps: the clause quoted from SPEC.md, its steps, the
# outcome table with the verdicts a run gives, flags, how to run it alone
"$conform" explain robust/missing-key >"$out/one.out" 2>&1 || bad "explain robust/missing-key: exit $?"
has "$out/one.out" '^  KVS-2 (MUST, server): put keys required' 'clause line'
has "$out/one.out" '"A server MUST answer a kvs-put without key or without value' 'quoted requirement'
has "$out/one.out" '^  1\. A victim rank .* sends kvs-put with value=v and' 'first step'
has "$out/one.out" '^  error-response  *PASS  *KVS-2 ' 'PASS outcome'
has "$out/one.out" '^  closed  *NON-STRICT\*  *ERR-4 ' 'PCF_DEVIATES under a SHOULD clause'
has "$out/one.out" '^  accepted  *FAIL\*  *KVS-2 ' 'PCF_DEVIATES under a MUST clause'
has "$out/one.out" '^  job-killed  *FAIL  *ERR-1 ' 'the job ended'
has "$out/one.out" '^  destructive: ' 'destructive flag'
has "$out/one.out" "pmi2-conform server --launch 'mpiexec -n {n}' robust/missing-key" 'run alone'
has "$out/one.out" 'mpiexec -n 2 pmi2-conform server robust/missing-key' 'run as the job'

# "ok" not in the table is PASS; a table that makes ok a deviation is shown so
"$conform" explain pmi2/kvs/jobid-foreign >"$out/ok.out" 2>&1 || bad "explain jobid-foreign: exit $?"
has "$out/ok.out" '^  refused  *PASS ' 'refused passes'
has "$out/ok.out" '^  ok  *NON-STRICT\*  *KVS-9 ' 'ok graded as a deviation'

# a PMI-1 case, a collective one, one with a precondition
"$conform" explain robust/v1-put-no-key pmi2/kvs/empty-value robust/name-publish-no-port \
    >"$out/flags.out" 2>&1 || bad "explain flags: exit $?"
has "$out/flags.out" 'mpiexec -n 2 pmi2-conform server --pmi 1 robust/v1-put-no-key' 'PMI-1 as the job'
has "$out/flags.out" '^  destructive and collective' 'collective flag'
has "$out/flags.out" 'as the job it is SKIPPED: it needs --launch' 'collective needs --launch'
has "$out/flags.out" '^  needs: a name service, optional by NAME-8' 'needs in words'
has "$out/flags.out" '^  needs-absent  *UNSUPPORTED  *NAME-8 ' 'UNSUPPORTED row'

# a case without steps says so and still shows description and expectation
"$conform" explain pmi2/thrid >"$out/nosteps.out" 2>&1 || bad "explain pmi2/thrid: exit $?"
has "$out/nosteps.out" 'No step-by-step text for this case yet' 'no steps'

# every case of these sections has its steps; a section explains each case in it
for sec in pmi2/init pmi2/fullinit pmi2/kvs pmi2/fence pmi2/nodeattr pmi2/jobattr; do
    f="$out/$(echo "$sec" | tr / _).out"
    "$conform" explain "$sec" >"$f" 2>&1 || bad "explain $sec: exit $?"
    n=$("$conform" --list "$sec" | wc -l)
    got=$(grep -c "^$sec/" "$f")
    [ "$got" -eq "$n" ] || bad "$sec: $got cases explained, --list has $n"
    grep -q 'No step-by-step' "$f" && bad "a $sec case has no steps"
done
"$conform" explain 'robust/len-*' >"$out/glob.out" 2>&1 || bad "explain glob: exit $?"
n=$("$conform" --list 'robust/len-*' | wc -l)
got=$(grep -c '^robust/len-' "$out/glob.out")
[ "$got" -eq "$n" ] || bad "robust/len-*: $got cases explained, --list has $n"

# an unknown case: exit 2, close matches on stderr, nothing on stdout
"$conform" explain pmi2/kvs/fence-visibilty >"$out/unknown.out" 2>"$out/unknown.err"
st=$?
[ "$st" -eq 2 ] || bad "unknown case: exit $st, expected 2"
has "$out/unknown.err" "no case 'pmi2/kvs/fence-visibilty'" 'unknown case named'
has "$out/unknown.err" '^  pmi2/kvs/fence-visibility$' 'close match'
[ -s "$out/unknown.out" ] && bad "unknown case: something on stdout"
"$conform" explain len-zro >/dev/null 2>"$out/typo.err"
[ $? -eq 2 ] || bad "a misspelt last part: exit not 2"
has "$out/typo.err" '^  robust/len-zero$' 'match of a misspelt last part'
"$conform" explain missing-key >/dev/null 2>"$out/tail.err"
[ $? -eq 2 ] || bad "a bare last part: exit not 2"
has "$out/tail.err" '^  robust/missing-key$' 'match by the last part of the id'
"$conform" explain --help >"$out/help.out" 2>&1 || bad "explain --help: exit $?"
has "$out/help.out" '^usage: pmi2-conform explain' 'help'
"$conform" explain >/dev/null 2>&1
[ $? -eq 2 ] || bad "explain without a case: exit not 2"

[ $fail -eq 0 ] && echo "explain: every check passed"
exit $fail
