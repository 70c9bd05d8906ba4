#!/bin/sh
# Launcher duties: output drained and labelled, processes a rank leaves
# behind do not keep the job alive, signals end the job, nothing survives.
#   test_loop_launcher.sh PMI-MOCKSERVER
set -u
SRV=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
# a zombie nobody reaped yet (containers' init) is dead for our purpose
alive() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat"; }

# every line arrives, labelled, including a last line without newline
out=$("$SRV" -n 2 --label -- sh -c 'i=0; while [ $i -lt 500 ]; do echo "line $i"; i=$((i+1)); done; printf tail')
[ "$(printf '%s\n' "$out" | grep -c '^\[[01]\] line ')" -eq 1000 ] || fail "labelled output lost lines"
[ "$(printf '%s\n' "$out" | grep -c '^\[[01]\] tail$')" -eq 2 ] || fail "unterminated last line lost"

# a daemon left behind holding the output pipe: the job still ends, the daemon dies
start=$(date +%s)
"$SRV" -n 1 --label -- sh -c "sleep 300 & echo \$! > $d/daemon; echo started" > "$d/out" ||
    fail "job with a daemon failed"
[ $(( $(date +%s) - start )) -lt 20 ] || fail "a leftover daemon kept the job alive"
sleep 0.2
alive "$(cat "$d/daemon")" && fail "leftover daemon still running"

# SIGTERM to the launcher: ranks die, exit 128+15, no survivors
: > "$d/pids"
"$SRV" -n 2 -- sh -c "echo \$\$ >> $d/pids; exec sleep 300" & l=$!
i=0; while [ "$(wc -l < "$d/pids")" -lt 2 ]; do
    i=$((i+1)); [ $i -gt 100 ] && fail "ranks did not start"; sleep 0.1; done
kill -TERM $l; wait $l; rc=$?
[ $rc -eq 143 ] || fail "SIGTERM: exit $rc"
for p in $(cat "$d/pids"); do alive "$p" && fail "rank $p survived SIGTERM"; done

# SIGKILL to the launcher (a crash): the ranks go too (parent-death signal)
: > "$d/pids2"
"$SRV" -n 2 -- sh -c "echo \$\$ >> $d/pids2; exec sleep 300" & l=$!
i=0; while [ "$(wc -l < "$d/pids2")" -lt 2 ]; do
    i=$((i+1)); [ $i -gt 100 ] && fail "ranks did not start"; sleep 0.1; done
kill -KILL $l; wait $l 2>/dev/null
sleep 0.5
for p in $(cat "$d/pids2"); do alive "$p" && fail "rank $p survived the launcher's death"; done
echo ok
