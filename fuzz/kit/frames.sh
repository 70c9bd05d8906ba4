# Sourced by kit/smoke.sh and kit/twice.sh: whose code a sanitizer report
# of a kit harness is about.
#
# kit_frames FILE: the stack frames of FILE's first report, from the top
# down to the harness's api(), or to the kit's call of it (not included)
# when api() made its library call a tail call and has no frame of its own.
kit_frames() {
    sed -n '/ERROR: /,/ in \(api\|run_forked\|pmifuzz_client_run\) /p' "$1" |
        grep -E '^ +#[0-9]+ ' | grep -v ' in \(run_forked\|pmifuzz_client_run\) ' || true
}
# kit_not_ours FRAMES: frames there are, and none in this project's code
# (pmifuzz_*, the kits' api()) at the top or anywhere below it.
kit_not_ours() {
    [ -n "$1" ] && ! printf '%s\n' "$1" | grep -q 'pmifuzz_' &&
        printf '%s\n' "$1" | head -1 | grep -qv ' in api '
}
