#!/bin/sh
# Launch hooks: --pre-launch edits every rank's environment, --on-rank-exit
# runs per rank without stalling the job, --on-job-end runs once at the end.
#   test_hooks.sh PMI-MOCKSERVER WORKDIR
set -u
SRV=$1 W=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
export KEEP=kept DROPME=present

# KEY=VALUE sets, -KEY unsets, in every rank; the hook sees the job id and size
"$SRV" -n 3 --pre-launch 'echo "HOOKED=yes $PMI_HOOK_SIZE"; echo; echo -DROPME; echo "JOB=$PMI_HOOK_JOBID"' -- sh -c '
    test "$HOOKED" = "yes 3" && test -z "${DROPME+x}" && test "$KEEP" = kept &&
    test "$JOB" = "$PMI_JOBID"' || fail "pre-launch environment"

# a line that is neither: error naming the line, nothing started
"$SRV" -n 1 --pre-launch 'echo A=1; echo not an assignment' -- touch started 2> err
rc=$?
[ $rc -eq 123 ] || fail "bad hook output: exit $rc"
grep -q "line 2" err || fail "bad hook output: no line number: $(cat err)"
[ ! -e started ] || fail "ranks started after a bad pre-launch hook"

# non-zero exit: the launch is aborted with a clear message
"$SRV" -n 1 --pre-launch 'echo A=1; exit 3' -- touch started 2> err
[ $? -eq 123 ] && grep -q "pre-launch hook failed (exit status 3)" err || fail "failing hook: $(cat err)"
[ ! -e started ] || fail "ranks started after a failing pre-launch hook"

# the launcher's own variables are not the hook's to change
"$SRV" -n 1 --pre-launch 'echo PMI_FD=0' -- true 2> err
[ $? -eq 123 ] && grep -q "PMI_FD is set by the launcher" err || fail "reserved name: $(cat err)"

# rank-exit: one run per rank with its rank, job and status; job-end once
"$SRV" -n 3 --on-rank-exit 'echo "$PMI_HOOK_JOBID $PMI_HOOK_STATUS" > rank.$PMI_HOOK_RANK' \
    --on-job-end 'echo "$PMI_HOOK_JOBID $PMI_HOOK_EXIT" >> jobend' \
    -- sh -c 'exit $((PMI_RANK == 1 ? 5 : 0))' 2>/dev/null
rc=$?
[ $rc -eq 5 ] || fail "job exit $rc, expected 5"
for r in 0 1 2; do [ -f rank.$r ] || fail "no rank-exit hook for rank $r"; done
grep -q ' 5$' rank.1 || fail "rank 1 status: $(cat rank.1)"
[ "$(wc -l < jobend)" -eq 1 ] || fail "job-end hook ran $(wc -l < jobend) times"
grep -q ' 5$' jobend || fail "job-end exit: $(cat jobend)"
[ "$(cut -d' ' -f1 jobend)" = "$(cut -d' ' -f1 rank.0)" ] || fail "job ids differ"

# rank-exit hooks do not stall the loop: 4 hooks of 2 s each overlap
start=$(date +%s)
"$SRV" -n 4 --on-rank-exit 'sleep 2; touch slow.$PMI_HOOK_RANK' -- true || fail "slow hooks job"
took=$(( $(date +%s) - start ))
[ $took -lt 6 ] || fail "rank-exit hooks ran one after another (${took}s)"
for r in 0 1 2 3; do [ -f slow.$r ] || fail "slow hook $r did not finish before exit"; done
echo ok
