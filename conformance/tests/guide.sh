#!/bin/sh
# Every command of docs/testing-a-server.md runs (issue 22): its ```sh blocks,
# in order, are one script, run with the guide's own variables pointed at
# this build (the suite, the mock server, a scratch prefix and output dir)
# and a few cases, so the run stays short.  Fails when any command fails.
#   guide.sh GUIDE PMI2_CONFORM MOCK SRC BUILD WORKDIR
set -u
guide=$1 conform=$2 mock=$3 src=$4 build=$5 work=$6
rm -rf "$work" && mkdir -p "$work" || exit 1

# Commands live in ```sh blocks only, output in ```text: a block of any
# other kind (or none) could hide a command that never runs here.
bad=$(awk '/^```/ { if (!on) { on = 1; if ($0 != "```sh" && $0 != "```text") print NR": "$0 } else on = 0 }' "$guide")
if [ -n "$bad" ]; then
    echo "FAIL: fenced blocks that are neither sh nor text:"; echo "$bad"; exit 1
fi

script="$work/guide-commands.sh"
awk '/^```sh$/ { on = 1; print "# ---- block " ++n " (line " NR + 1 ")"; next }
     /^```/ { on = 0; next }
     on' "$guide" >"$script"
n=$(grep -c '^# ---- block' "$script")
# the sections the guide promises: variables, launch, run, as the job,
# failure, explain, reproducer, baseline written and used, CI job
if [ "$n" -lt 10 ]; then
    echo "FAIL: only $n sh blocks in the guide"; exit 1
fi

cd "$work" || exit 1
PMI2_CONFORM=$conform MOCK=$mock OUT="$work/out" SRC=$src BUILD=$build PREFIX="$work/prefix" \
    CMAKE_ARGS= CASES='pmi2/kvs/fence-visibility pmi2/nodeattr/get-own pmi1/kvs/barrier-visibility robust/missing-key' \
    LAUNCHER= BASELINE= sh -eux "$script" >"$work/guide.log" 2>&1
st=$?
if [ $st -ne 0 ]; then
    echo "FAIL: a command of the guide failed (exit $st); the end of its log:"
    tail -40 "$work/guide.log"
    exit 1
fi
# what the blocks must have produced
for f in out/json/index.json out/report.html out/junit.xml out/baseline.json out/ci-junit.xml \
    out/ci-json/index.json prefix/bin/pmi2-conform; do
    [ -s "$work/$f" ] || { echo "FAIL: the guide's commands left no $f"; exit 1; }
done
grep -q '^Clause$' "$work/guide.log" || { echo "FAIL: explain printed no clause"; exit 1; }
echo "guide: $n blocks of commands ran"
