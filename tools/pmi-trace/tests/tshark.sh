#!/bin/sh
# The Wireshark dissector (tools/wireshark/pmi.lua) on a capture this test
# makes: pmi-mockserver --listen tcp serves two replayed sessions (PMI-2
# frames, Hydra 4.0.2's split header/body writes; PMI-1 lines), tshark
# captures loopback, then decodes with the dissector on those ports.
#   tshark.sh PMI_TRACE PMI_MOCKSERVER PMI_LUA TRACES_DIR WORKDIR
# Exit 0 pass, 1 fail, 77 skip (no tshark, or capturing is not permitted).
set -u
PT=$1 MS=$2 LUA=$3 TR=$4 W=$5
command -v tshark >/dev/null || { echo "skip: no tshark"; exit 77; }
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fail() { echo "FAIL: $*"; cat tshark.err 2>/dev/null | tail -5; exit 1; }

mock() {
    "$MS" -n 2 --persona hydra-4.0 --listen tcp --timeout 30 >"ms.$1.out" 2>"ms.$1.err" &
    i=0
    while ! grep -q '^PMI_SIZE=' "ms.$1.out" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
    sed -n 's/^PMI_PORT=//p' "ms.$1.out"
}
p2=$(mock v2); p1=$(mock v1)
port2=${p2##*:} port1=${p1##*:}
[ -n "$port1" ] && [ -n "$port2" ] || fail "no mock server port"

tshark -i lo -f "tcp port $port1 or tcp port $port2" -w cap.pcap >tshark.out 2>tshark.err &
tpid=$!
i=0
while ! grep -q "Capturing on" tshark.err 2>/dev/null && [ $i -lt 100 ]; do
    kill -0 $tpid 2>/dev/null || break
    sleep 0.1; i=$((i+1))
done
if ! grep -q "Capturing on" tshark.err 2>/dev/null; then
    kill $tpid 2>/dev/null
    echo "skip: cannot capture on lo"; cat tshark.err; exit 77
fi
# "Capturing on" comes a little before the capture filter is attached: under
# load the first packets (the SYNs, fullinit) were missed without this pause
sleep 1
"$PT" merge v2.trace "$TR/hydra-4.0.2/v2_happy.rank0.trace" "$TR/hydra-4.0.2/v2_happy.rank1.trace" || fail merge
"$PT" merge v1.trace "$TR/hydra-4.0.2/v1_happy.rank0.trace" "$TR/hydra-4.0.2/v1_happy.rank1.trace" || fail merge
TOL="--tolerate-kvs PMI_process_mapping"
"$PT" replay --server --port "$p2" $TOL v2.trace || fail "v2 replay"
"$PT" replay --server --port "$p1" $TOL v1.trace || fail "v1 replay"
sleep 1
kill -INT $tpid; wait $tpid
wait

tshark -X lua_script:"$LUA" -o pmi.tcp_port:$port2 -r cap.pcap -T fields -e pmi.cmd >v2.cmds 2>tshark.err || fail "tshark -r (v2)"
tshark -X lua_script:"$LUA" -o pmi.tcp_port:$port1 -r cap.pcap -T fields -e pmi.cmd >v1.cmds 2>tshark.err || fail "tshark -r (v1)"
tshark -X lua_script:"$LUA" -o pmi.tcp_port:$port2 -r cap.pcap -T fields -e pmi.key -e pmi.value -e pmi.length >v2.kv 2>>tshark.err || fail "tshark fields"
echo "v2 commands:"; grep . v2.cmds | tr '\n' ' '; echo
echo "v1 commands:"; grep . v1.cmds | tr '\n' ' '; echo
for c in fullinit fullinit-response job-getid job-getid-response kvs-put kvs-fence kvs-fence-response kvs-get-response finalize-response; do
    grep -q "\(^\|,\)$c\(,\|$\)" v2.cmds || fail "v2: command $c not dissected"
done
for c in init response_to_init get_maxes maxes barrier_in barrier_out get_result finalize_ack; do
    grep -q "\(^\|,\)$c\(,\|$\)" v1.cmds || fail "v1: command $c not dissected"
done
grep -q "pmirank" v2.kv || fail "no pmi.key pmirank"
grep -q "[0-9]$" v2.kv || fail "no pmi.length"
# without the port preference nothing is dissected as PMI
tshark -X lua_script:"$LUA" -r cap.pcap -T fields -e pmi.cmd 2>/dev/null | grep -q . && fail "dissected without a port"
echo PASS
