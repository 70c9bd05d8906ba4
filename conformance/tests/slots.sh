#!/bin/sh
# Launch slots ({slot} in --launch and --recover): each slot is a server of
# its own, one launch at a time on each; a server that keeps a job after one
# case wedges only its own slot, that case is charged with it (ERR-18), and
# only that slot is recovered.  The verdicts are those of the same run with
# one server and one launch at a time, case by case.
#
#   slots.sh PMI2_CONFORM PMI_MOCKSERVER WORKDIR
#
# The server: pmi-mockserver behind a wrapper that, after a launch that ran
# pmi1/kvs/put (the PMI-1 launch's only case), fails (exit status 1, as srun
# does when the job's PMI broke) and refuses every later launch on its slot
# (it says so, as srun says "queued and waiting for resources", and starts
# nothing) until --recover clears the mark.  After the clean launch that ran
# pmi2/kvs/put, the next launch on its slot waits 3 s first, saying so too:
# the ordinary release of a job, slow on a loaded machine, which is no wedge.
set -u
conform=$1 mock=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
cases='pmi2/kvs/put pmi2/kvs/overwrite pmi2/fence pmi1/kvs/put robust/len-* robust/no-cmd
       robust/empty-cmd robust/binary-junk robust/missing-key'
wrapper="$work/server.sh"
cat > "$wrapper" <<EOF
#!/bin/sh
# server.sh DIR N: one launch of N ranks on the server kept in DIR
dir=\$1 n=\$2
shift 2
mkdir -p "\$dir"
echo launch >> "\$dir/launches"
if [ -e "\$dir/wedged" ]; then
    echo "server.sh: job queued and waiting for resources" >&2
    exec sleep 3600
fi
if [ -e "\$dir/held" ]; then
    rm -f "\$dir/held"
    echo "server.sh: job queued and waiting for resources" >&2
    sleep 3
    echo "server.sh: job has been allocated resources" >&2
fi
"$mock" -n "\$n" --timeout 60 -- "\$@"
rc=\$?
case " \$* " in
    *" pmi1/kvs/put "*) touch "\$dir/wedged"; exit 1 ;;
    *" pmi2/kvs/put "*) touch "\$dir/held"; echo held >> "$work/held" ;;
esac
exit \$rc
EOF
chmod +x "$wrapper"

fail=0
run() { # name launch recover [options]: the run's report in $work/name
    name=$1 launch=$2 rec=$3
    shift 3
    # shellcheck disable=SC2086
    timeout -s KILL 120 "$conform" server --launch "$launch" --recover "$rec" --timeout 3 \
        --json "$work/$name" "$@" $cases > "$work/$name.txt" 2> "$work/$name.err"
    echo "$name: exit $? after $(grep -o 'Finished in [0-9.]* seconds' "$work/$name.txt")"
    tail -1 "$work/$name.txt"
}
run slots "$wrapper $work/slot{slot} {n}" "echo {slot} >> $work/recovered; rm -f $work/slot{slot}/wedged" --jobs 3
# the serial run's recovery also starts a daemon, as scripts/slurm-cluster.sh
# reset does: meant to outlive the run, which must leave it alone
run serial "$wrapper $work/one {n}" "echo one >> $work/recovered-one; rm -f $work/one/wedged; setsid sleep 300 </dev/null >/dev/null 2>&1 & echo \$! > $work/daemon.pid" --jobs 1
if [ -s "$work/daemon.pid" ] && kill -0 "$(cat "$work/daemon.pid")" 2>/dev/null; then
    kill "$(cat "$work/daemon.pid")"
else
    echo "FAIL: the daemon --recover started did not outlive the run" >&2
    fail=1
fi

# every slot served launches, and only the wedged one was recovered
for s in 0 1 2; do
    [ -s "$work/slot$s/launches" ] || { echo "FAIL: no launch ran on slot $s" >&2; fail=1; }
done
wedged_slots=$(grep -l . "$work"/slot*/launches | wc -l)
[ -s "$work/recovered" ] || { echo "FAIL: no slot was recovered" >&2; fail=1; }
for s in $(sort -u "$work/recovered" 2>/dev/null); do
    [ -d "$work/slot$s" ] || { echo "FAIL: --recover ran for slot $s, which ran nothing" >&2; fail=1; }
done
[ "$(wc -l < "$work/recovered" 2>/dev/null)" -eq 1 ] ||
    { echo "FAIL: expected one recovery, got: $(tr '\n' ' ' < "$work/recovered")" >&2; fail=1; }
[ "$wedged_slots" -ge 2 ] || { echo "FAIL: the launches did not spread over the slots" >&2; fail=1; }

# the wedge is charged to the case before it on its slot, quickly: the
# launcher said it waits after a launch that failed, so not the plain 10 s
# start timeout (ten times the slowest start, at least 2 s: more on a
# loaded machine); the 3 s wait after a clean launch is no wedge (the one
# recovery above) and charges no case (the verdicts below)
grep -q 'started no rank within [2-9] s' "$work/slots.txt" ||
    { echo "FAIL: the stuck launch was not recognised before the plain 10 s:" >&2; cat "$work/slots.err" >&2; fail=1; }
[ "$(wc -l < "$work/held" 2>/dev/null)" -eq 2 ] ||
    { echo "FAIL: the launch that holds its slot for 3 s did not run in both runs" >&2; fail=1; }

# A server that every launch leaves wedged (as Slurm's slurmstepd spinning
# with its step COMPLETING, under CI load): each launch after the first three
# meets a slot the launch before it wedged, then another, then another.
# Those starts are the launches' before it (charged to their last cases), not
# this launch's tries: every case still runs, none SKIPPED as "the server
# accepted no further launch".
every="$work/every.sh"
cat > "$every" <<EOF
#!/bin/sh
dir=\$1 n=\$2
shift 2
mkdir -p "\$dir"
if [ -e "\$dir/wedged" ]; then
    echo "every.sh: job queued and waiting for resources" >&2
    exec sleep 3600
fi
"$mock" -n "\$n" --timeout 60 -- "\$@"
touch "\$dir/wedged"
exit 1
EOF
chmod +x "$every"
run wedges "$every $work/every{slot} {n}" "rm -f $work/every{slot}/wedged" --jobs 3
if grep -q 'accepted no further launch' "$work/wedges.txt"; then
    echo "FAIL: a launch that met slots wedged by the launches before it was given up:" >&2
    grep -m3 'accepted no further launch' "$work/wedges.txt" >&2
    fail=1
fi
python3 - "$work/wedges/index.json" "$work/slots/index.json" <<'EOF' || fail=1
import json, sys
a = json.load(open(sys.argv[1]))["cases"]
b = json.load(open(sys.argv[2]))["cases"]  # what one node cannot run is SKIPPED there too
skipped = [k for k, v in a.items()
           if v.get("verdict") == "SKIPPED" and b.get(k, {}).get("verdict") != "SKIPPED"]
for k in skipped:
    print("FAIL: %s SKIPPED where every slot was recovered" % k, file=sys.stderr)
sys.exit(1 if skipped or not a else 0)
EOF

# the same verdicts as the serial run, case by case
python3 - "$work/slots/index.json" "$work/serial/index.json" <<'EOF' || fail=1
import json, sys
a = json.load(open(sys.argv[1]))["cases"]
b = json.load(open(sys.argv[2]))["cases"]
bad = [k for k in sorted(set(a) | set(b))
       if a.get(k, {}).get("verdict") != b.get(k, {}).get("verdict")]
for k in bad:
    print("FAIL: %s: %s with slots, %s serial" % (k, a.get(k, {}).get("verdict"),
          b.get(k, {}).get("verdict")), file=sys.stderr)
print("%d cases, %d verdicts differ" % (len(a), len(bad)))
w = a.get("pmi1/kvs/put", {})
if (w.get("verdict"), w.get("outcome")) != ("FAIL", "server-wedged"):
    print("FAIL: pmi1/kvs/put not charged with the wedge: %s" % w, file=sys.stderr)
    bad.append("pmi1/kvs/put")
sys.exit(1 if bad or not a else 0)
EOF
exit $fail
