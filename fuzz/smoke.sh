#!/bin/sh
# One bounded libFuzzer run on a scratch copy of a seed corpus (ctest
# fuzz.smoke.<name>): the repository's corpus is never modified here;
# fuzz/run.sh is the tool that merges new inputs back.
#
#   smoke.sh FUZZER CORPUS_DIR DICT SECONDS ARTIFACT_DIR
#
# Exit status: 0 when nothing was found, 1 otherwise (libFuzzer's own crash
# status, 77, would read as "skipped" to ctest).  A crashing input is kept
# in ARTIFACT_DIR and printed in base64.
set -eu
fuzzer=$1 corpus=$2 dict=$3 seconds=$4 artifacts=$5
work=$(mktemp -d "${TMPDIR:-/tmp}/pmc-fuzz-smoke.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/corpus" "$artifacts"
cp "$corpus"/* "$work/corpus/" 2>/dev/null || true
set +e
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
    -dict="$dict" -print_final_stats=1 -artifact_prefix="$artifacts/" "$work/corpus"
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
    for f in "$artifacts"/crash-* "$artifacts"/leak-* "$artifacts"/timeout-* "$artifacts"/oom-*; do
        [ -f "$f" ] || continue
        echo "artifact $f (base64):"
        base64 "$f"
    done
fi
[ "$rc" -eq 0 ] || exit 1
exit 0
