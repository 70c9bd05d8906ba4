#!/usr/bin/env bash
# End-to-end checks of `pmi-mockclient bench`: exit codes, both protocols,
# both transports, pipelining, process mode with --merge, and that a wrong
# value read back is counted as a failure.
# usage: test_cli.sh PMI-MOCKCLIENT PMI-MOCKSERVER BENCH-BARE-RESPONDER
set -u
client=$1 mock=$2 bare=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0

expect() { # want-rc description command...
    local want=$1 what=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" != "$want" ]; then
        echo "FAIL: $what: exit $rc, expected $want"
        sed 's/^/  | /' "$tmp/out" "$tmp/err" | tail -20
        fails=$((fails + 1))
    else
        echo "ok: $what"
    fi
}

contains() { # description pattern
    if grep -q -E -- "$2" "$tmp/out"; then echo "ok: $1"; else
        echo "FAIL: $1: no /$2/ in the output"
        sed 's/^/  | /' "$tmp/out" | tail -20
        fails=$((fails + 1))
    fi
}

# serve N ranks in the background; sets $port and $spid
serve() { # program args...
    "$@" >"$tmp/server" 2>&1 &
    spid=$!
    port=""
    for _ in $(seq 100); do
        port=$(sed -n 's/^PMI_PORT=//p' "$tmp/server" 2>/dev/null | head -1)
        [ -n "$port" ] && return 0
        sleep 0.05
    done
    echo "FAIL: server did not start: $*"
    fails=$((fails + 1))
}
reap() { kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; }

expect 0 "top-level --help" "$client" --help
expect 2 "unknown command" "$client" nosuch
expect 0 "bench --help" "$client" bench --help
contains "bench --help names --random-gets" "--random-gets"
expect 0 "bench --version" "$client" bench --version
expect 2 "unknown option" "$client" bench --bogus
expect 2 "bad protocol" "$client" bench --proto 3 -n 1 --port 127.0.0.1:1
expect 2 "pipeline out of range" "$client" bench --pipeline 0 -n 1 --port 127.0.0.1:1
expect 2 "--json with --summary" "$client" bench --json --summary -n 1 --port 127.0.0.1:1
expect 2 "no server address" env -u PMI_PORT "$client" bench -n 1
expect 2 "connection refused" "$client" bench -n 1 --port 127.0.0.1:1 --timeout 5

serve "$mock" -n 4 --listen tcp --timeout 60
expect 0 "PMI-2, 4 virtual ranks over TCP" "$client" bench -n 4 --port "$port" --server-pid "$spid" \
    --rounds 2 --random-gets 20 --summary
contains "summary of a complete run" "summary: mode=virtual proto=2 ranks=4 complete=1 failures=0 gets=80 "
contains "get-all gets counted: 2 rounds x 4 x 3" "^get-all +24 "
contains "server CPU measured" "server_us_per_get=[0-9]"
reap

serve "$mock" -n 4 --listen "unix:$tmp/sock" --timeout 60
expect 0 "PMI-1 over a UNIX socket, JSON" "$client" bench -n 4 --port "$tmp/sock" -p 1 --json \
    --random-gets 10
contains "JSON: no failure" '"failures": 0,'
contains "JSON: get latency" '"get": \{"requests": 36,'
if command -v python3 >/dev/null; then
    if python3 -m json.tool "$tmp/out" >/dev/null; then echo "ok: JSON parses"; else
        echo "FAIL: JSON does not parse"; fails=$((fails + 1)); fi
fi
reap

serve "$mock" -n 3 --listen tcp --timeout 60
expect 0 "pipelined gets (K=4)" "$client" bench -n 3 --port "$port" --pipeline 4 --random-gets 50
reap

serve "$mock" -n 2 --listen tcp --timeout 10
expect 1 "a job larger than the load is a failure" "$client" bench -n 1 --port "$port" --timeout 5
reap

# the responder answers every get with the same value: verification must catch it
serve "$bare" -n 2 --timeout 60
expect 1 "wrong values are failures" "$client" bench -n 2 --port "$port" --rounds 1 --random-gets 5
contains "failures counted per operation" "^get +2 +2 "
reap
serve "$bare" -n 2 --timeout 60
expect 0 "... unless --no-verify" "$client" bench -n 2 --port "$port" --rounds 1 --random-gets 5 \
    --no-verify
reap

mkdir "$tmp/out.d"
expect 0 "process mode under pmi-mockserver" "$mock" -n 4 --timeout 60 -- "$client" bench \
    --mode=process --out-dir "$tmp/out.d" --random-gets 20 --summary
contains "rank 0 merged all ranks" "summary: mode=process proto=2 ranks=4 complete=1 failures=0 gets=80 "
n=$(ls "$tmp/out.d" | grep -c '^rank-[0-3]\.bench$')
if [ "$n" = 4 ]; then echo "ok: four rank files kept in --out-dir"; else
    echo "FAIL: $n rank files in --out-dir"; fails=$((fails + 1)); fi
expect 0 "--merge of the kept files" "$client" bench --merge "$tmp/out.d" -n 4 --summary
contains "merge summary" "summary: mode=process proto=2 ranks=4 complete=1 failures=0 gets=80 "
expect 1 "--merge with a rank missing" "$client" bench --merge "$tmp/out.d" -n 5
expect 2 "--merge of an empty directory" "$client" bench --merge "$tmp" -n 2

if [ $fails -gt 0 ]; then
    echo "$fails check(s) failed"
    exit 1
fi
echo "all checks passed"
