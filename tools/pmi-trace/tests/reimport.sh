#!/bin/sh
# The committed corpus must be exactly what `pmi-trace import` makes of the
# raw transcripts and traces/expectations.txt: re-import into a scratch
# directory and compare every trace byte for byte, both ways.
# usage: reimport.sh PMI_TRACE TRANSCRIPTS_DIR TRACES_DIR WORK_DIR
# exit: 0 identical, 1 different, 77 transcripts not available (skip)
set -u
tool=$1 transcripts=$2 traces=$3 work=$4
if [ ! -d "$transcripts" ]; then
    echo "transcripts not found at $transcripts: skipped"
    exit 77
fi
rm -rf "$work" && mkdir -p "$work" || exit 1
"$tool" import -o "$work" -a "$traces/expectations.txt" "$transcripts" || exit 1
status=0
# every generated trace is committed and equal
for f in $(cd "$work" && find . -name '*.trace' | sort); do
    if ! cmp -s "$work/$f" "$traces/$f"; then
        echo "differs or missing in the corpus: $f"
        status=1
    fi
done
# no committed trace of the imported directories lacks a transcript (recorded/
# and scenarios/ are made by other means)
for f in $(cd "$traces" && find ./hydra-4.0.2 ./hydra-HEAD ./slurm ./taps -name '*.trace' 2>/dev/null | sort); do
    if [ ! -f "$work/$f" ]; then
        echo "committed but not produced by import: $f"
        status=1
    fi
done
n=$(cd "$work" && find . -name '*.trace' | wc -l)
[ $status -eq 0 ] && echo "$n traces reproduced byte for byte"
exit $status
