#!/bin/sh
# No process of an orchestrated run outlives it, also those a launcher puts
# in sessions of their own (Hydra's proxies run with setsid; when mpiexec
# ends badly they were left behind, spinning).
#
#   no-strays.sh PMI2_CONFORM LAUNCH_TEMPLATE CASE...
#
# Every process of the run inherits a marker in its environment; once the
# run has ended, no process may carry it.
set -u
conform=$1 launch=$2
shift 2
marker="PCF_STRAY_CHECK=$$.$(date +%s%N)"
export "$marker"
"$conform" server --launch "$launch" --timeout 5 -q "$@" >/dev/null 2>&1
rc=$?
sleep 0.3
left=""
for e in /proc/[0-9]*/environ; do
    { tr "\0" "\n" < "$e"; } 2>/dev/null | grep -qx "$marker" || continue
    pid=${e#/proc/}; pid=${pid%/environ}
    [ "$pid" = "$$" ] && continue
    left="$left $pid"
done
if [ -n "$left" ]; then
    echo "FAIL: processes of the run left behind:" >&2
    for p in $left; do ps -o pid,ppid,sid,stat,args -p "$p" | tail -n +2 >&2; kill -9 "$p" 2>/dev/null; done
    exit 1
fi
echo "no process left (pmi2-conform exit $rc)"
exit 0
