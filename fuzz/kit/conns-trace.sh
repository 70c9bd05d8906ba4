#!/bin/sh
# pmifuzz-trace --server --conns: a several-client harness's input becomes a
# trace with one connection per client, dealt as the kit deals it (rank 0
# waits at its barrier while rank 1 connects), which pmi-trace reads and a
# launcher replays as that many ranks.
# usage: conns-trace.sh PMIFUZZ_TRACE PMI_TRACE MOCKSERVER WORKDIR
set -eu
pt=$1 trace=$2 mock=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
printf 'cmd=init pmi_version=1 pmi_subversion=1\ncmd=barrier_in\ncmd=init pmi_version=1 pmi_subversion=1\ncmd=barrier_in\ncmd=finalize\ncmd=finalize\n' >"$work/input"
"$pt" --server --conns "$work/input" >"$work/t.trace"
got=$(grep -o '^[0-9.]* r[0-9] [a-zA-Z>]*' "$work/t.trace" | cut -d' ' -f2,3 | tr '\n' ' ')
want='r0 C>S r0 C>S r1 C>S r1 C>S r0 C>S r1 C>S r0 eof r1 eof '
[ "$got" = "$want" ] || { echo "FAIL: events '$got', wanted '$want'"; cat "$work/t.trace"; exit 1; }
grep -q '^@meta ranks=2$' "$work/t.trace" || { echo "FAIL: no '@meta ranks=2'"; exit 1; }
"$trace" show "$work/t.trace" >"$work/show" || { echo "FAIL: pmi-trace show"; exit 1; }
# both ranks play their connection under a launcher of two (the trace holds
# no answers: the job's end is no verdict, the connections are)
timeout 60 "$mock" -v -n 2 --timeout 20 -- "$trace" replay --server "$work/t.trace" >"$work/replay" 2>&1 || true
grep -q 'conn [0-9]*: open (fd [0-9]*, rank 0)' "$work/replay" &&
    grep -q 'conn [0-9]*: open (fd [0-9]*, rank 1)' "$work/replay" ||
    { echo "FAIL: not both ranks connected"; cat "$work/replay"; exit 1; }
# and back: --seed server --conn all writes the clients in the order the kit
# deals them (each up to its barrier or finalize, in turn): the input again
"$pt" --seed server --conn all "$work/t.trace" >"$work/seed"
cmp -s "$work/input" "$work/seed" ||
    { echo "FAIL: --seed server --conn all is not the input it was dealt from:"; cat "$work/seed"; exit 1; }
echo "pmifuzz-trace --conns: two clients, one connection each, replayed as two ranks"
