#!/bin/sh
# One bounded run of a kit harness (ctest fuzz.kit.<name>) on a scratch copy
# of its seeds, with the generated dictionary and a fixed seed.
#
#   smoke.sh FUZZER CORPUS_DIR DICT SECONDS ARTIFACT_DIR [EXPECT]
#
# EXPECT clean (default): exit 0 when nothing was found, 1 otherwise (the
# input printed in base64).  EXPECT crash: the planted target, whose bugs
# the mutator must find within SECONDS: exit 0 when it crashed, 1 when not.
# EXPECT foreign:LIB: a library loaded as installed (Debian's); a crash
# whose innermost frames, up to the harness, lie in LIB is that library's
# finding (reported in fuzz/README.md), not ours: exit 0, with the input
# printed; a crash anywhere else fails as in clean.  A run that died with no
# report (the library corrupted the sanitizer's state) is judged by replaying
# the input it died on (the kit saves each input, PMIFUZZ_LAST_INPUT).
# EXPECT finding:FILE: a peer whose first-version bugs may or may not come
# within SECONDS: exit 0 when nothing was found or when the report's first
# frame with a source file is in FILE (its bug, printed); a crash anywhere
# else (the kit, the harness) fails as in clean.
set -eu
fuzzer=$1 corpus=$2 dict=$3 seconds=$4 artifacts=$5 expect=${6:-clean}
work=$(mktemp -d "${TMPDIR:-/tmp}/pmc-kit-smoke.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
rm -rf "$artifacts"
mkdir -p "$work/corpus" "$artifacts"
cp "$corpus"/* "$work/corpus/" 2>/dev/null || true
set +e
PMIFUZZ_LAST_INPUT="$work/last" "$fuzzer" -seed=1 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
    -dict="$dict" -print_final_stats=1 -artifact_prefix="$artifacts/" "$work/corpus" \
    >"$work/log" 2>&1
rc=$?
set -e
grep -E 'found LLVMFuzzerCustomMutator|^#[0-9]+.*(DONE|cov)|stat::number_of_executed_units|ERROR: ' \
    "$work/log" | tail -5
if [ "$expect" = crash ]; then
    # a leak is a finding too (a newcomer's spawn block freed with its client)
    found=$(ls "$artifacts"/crash-* "$artifacts"/leak-* 2>/dev/null || true)
    if [ "$rc" -ne 0 ] && [ -n "$found" ]; then
        echo "found the planted crash: $found"
        exit 0
    fi
    echo "the planted crash was not found in $seconds s"
    exit 1
fi
case "$expect" in
finding:*)
    file=${expect#finding:}
    top=$(sed -n '/ERROR: /,/SUMMARY/p' "$work/log" | grep -E '^ +#[0-9]+ .*\.c:[0-9]+' | head -1)
    if [ "$rc" -ne 0 ] && printf '%s\n' "$top" | grep -q "/$file:"; then
        echo "a first-version bug of the peer, as expected at times: $top"
        for f in "$artifacts"/crash-*; do
            [ -f "$f" ] && echo "input: $f"
        done
        exit 0
    fi
    ;;
foreign:*)
    lib=${expect#foreign:}
    # the report's frames down to the harness (kit/frames.sh): one must be
    # in LIB, none in this project's code
    . "$(dirname "$0")/frames.sh"
    in_lib() { printf '%s\n' "$1" | grep -q "$lib" && kit_not_ours "$1"; }
    frames=$(kit_frames "$work/log")
    if [ "$rc" -ne 0 ] && [ -z "$frames" ] && [ -s "$work/last" ]; then
        # died without a report: LIB wrote through a wild pointer earlier in
        # the run and the sanitizer's own state went with it.  The input it
        # died on, replayed alone in a fresh process, shows where it faults.
        echo "the run died without a sanitizer report; replaying the input it died on"
        for try in 1 2 3; do
            "$fuzzer" -timeout=10 "$work/last" >"$work/replay" 2>&1 || true
            frames=$(kit_frames "$work/replay")
            [ -z "$frames" ] || break
        done
        cp "$work/last" "$artifacts/died-on-input"
        [ -n "$frames" ] || echo "it replays clean alone: an earlier input did the damage" \
            "(PMIFUZZ_FORK=1 runs each input in a child of its own)"
    fi
    # a library run in a child (pmifuzz_client_fork, the mpich kit): the
    # kit's parent aborts when the child dies, so only the child's report,
    # before the kit says so, is about LIB; a child that died with no report
    # (its sanitizer's state corrupted too) ran nothing but api()'s calls
    child=''
    if [ "$rc" -ne 0 ] && grep -q '^pmifuzz: the library died' "$work/log"; then
        sed '/^pmifuzz: the library died/,$d' "$work/log" >"$work/child"
        frames=$(kit_frames "$work/child")
        [ -n "$frames" ] || child=$(grep -m1 '^pmifuzz: the library died' "$work/log")
    fi
    [ -z "$child" ] ||
        echo "$child, in a child running only $lib's calls, with no report of its own"
    if [ "$rc" -ne 0 ] && { [ -n "$child" ] || in_lib "$frames"; }; then
        printf '%s\n' "$frames" | head -8
        for f in "$artifacts"/*; do
            [ -f "$f" ] || continue
            echo "a finding in $lib, not ours: $f (base64):"
            base64 "$f"
        done
        exit 0
    fi
    ;;
esac
if [ "$rc" -ne 0 ]; then
    sed -n '/ERROR: /,/SUMMARY/p' "$work/log" | head -40
    for f in "$artifacts"/*; do
        [ -f "$f" ] || continue
        echo "artifact $f (base64):"
        base64 "$f"
    done
    exit 1
fi
exit 0
