#!/bin/sh
# The groups profile (SPEC.md §12) in pmi-trace show and the diagram, on
# hand-written traces: a collective, a bootstrap and an invite construction
# with their events and failures (timeout, exited, declined, unreachable),
# and a broken one whose wrong thrid and event thrid must be flagged.
#   groups.sh PMI_TRACE TRACEDIR PLAIN_TRACE WORKDIR
# (PLAIN_TRACE: a trace without groups, whose diagram must have no group marks)
set -u
PT=$1 D=$2 PLAIN=$3 W=$4
rm -rf "$W" && mkdir -p "$W" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
# has FILE TEXT...: every TEXT is a fixed string of FILE
has() {
    _f=$1
    shift
    for _x in "$@"; do grep -qF -- "$_x" "$_f" || fail "$_f lacks: $_x"; done
}
# count FILE N TEXT: TEXT occurs on exactly N lines of FILE
count() {
    n=$(grep -cF -- "$3" "$1")
    [ "$n" -eq "$2" ] || fail "$1: $n lines with '$3', expected $2"
}
diagram() {
    "$PT" show --svg "$W/$1.svg" --html "$W/$1.html" "$2" || fail "show --svg $1"
    if command -v xmllint >/dev/null; then
        xmllint --noout "$W/$1.svg" || fail "$1.svg is not well-formed XML"
    fi
}

for t in collective bootstrap invite broken; do
    "$PT" show --color=never "$D/$t.trace" >"$W/$t.txt" || fail "show $t"
    diagram "$t" "$D/$t.trace"
done

echo "== collective: paired by thrid, then the same name again, timing out"
c=$W/collective.txt
has "$c" '~ group pair: collective leader, leaders job0:0,job0:1, contributes 1 pair  [GROUP-12]' \
    '~ group pair complete: ctxid 1, members job0:0,job0:1, 1 contribution  (answers group-construct thrid=1 of 0.000900)  [GROUP-14]' \
    '(answers group-construct thrid=9 of 0.001000)' \
    '~ group pair: found tcp://a  (answers group-get thrid=10' \
    '~ group pair destructed  (answers group-destruct thrid=2' \
    '~ group pair failed: rc=1 timeout, failed job0:1  (answers group-construct thrid=3' \
    '#   group pair (collective): complete, ctxid 1, members job0:0,job0:1, destructed; r0 leader, r1 leader' \
    '#   group pair (collective): failed, timeout, failed job0:1; r0 leader'
count "$c" 0 '~ !'
count "$c" 0 'never answered'
s=$W/collective.svg
has "$s" '>group pair (collective): ctxid 1, members job0:0,job0:1</text>' \
    '>group pair (collective): failed: timeout, failed job0:1</text>' '&#x2715; timeout, failed job0:1</text>'
count "$s" 2 '<rect class="group"'
count "$s" 3 '>leader</text>'
count "$s" 2 '&#x2713; ctxid 1</text>'

echo "== bootstrap: an added member, a leader without thrid, a member that exits"
c=$W/bootstrap.txt
has "$c" '~ group solver: bootstrap leader of 2, adds job0:2, contributes 1 pair  [GROUP-12]' \
    '~ group solver: added member, contributes 1 pair  [GROUP-12]' \
    '~ group solver complete: ctxid 3, members job0:0,job0:1,job0:2, 2 contributions  (answers group-construct of 0.001400)' \
    '~ group late failed: rc=1 exited, failed job0:2  (answers group-construct thrid=8' \
    '#   group solver (bootstrap): complete, ctxid 3, members job0:0,job0:1,job0:2; r0 leader, r1 leader, r2 added member' \
    '#   group late (bootstrap): failed, exited, failed job0:2; r0 leader'
count "$c" 0 '~ !'
count "$c" 3 'complete: ctxid 3'
s=$W/bootstrap.svg
has "$s" '>group solver (bootstrap): ctxid 3, members job0:0,job0:1,job0:2</text>' \
    '>added member</text>' '>group late (bootstrap): failed: exited, failed job0:2</text>'
count "$s" 3 '&#x2713; ctxid 3</text>'
count "$s" 1 '<g class="group-fail">'

echo "== invite: events are server-initiated, never answers"
c=$W/invite.txt
has "$c" '~ group inv: invite leader, invites job0:1,job0:2,job0:3, timeout 2000 ms  [GROUP-18]' \
    '~ server-initiated event invite-failed (answers no request): group inv, invitee job0:3 failed: unreachable  [GROUP-20]' \
    '~ server-initiated event invite-failed (answers no request): group inv, invitee job0:2 failed: declined  [GROUP-20]' \
    '~ group inv: accepts the invitation, contributes 1 pair  [GROUP-19]' \
    '~ group inv: declines the invitation  [GROUP-19]' \
    '~ group inv complete: ctxid 4, members job0:0,job0:1, failed job0:2,job0:3, 1 contribution  (answers group-invite thrid=5' \
    '~ server-initiated event complete (answers no request): group inv complete: ctxid 4, members job0:0,job0:1, 1 contribution  [GROUP-21]' \
    '#   group inv (invite): complete, ctxid 4, members job0:0,job0:1, failed job0:2,job0:3; r0 invite leader, r1 joined, r2 declined; invite failures: job0:3 unreachable, job0:2 declined'
count "$c" 2 '~ server-initiated event invited (answers no request): group inv, invited by job0:0  [GROUP-18]'
count "$c" 0 '~ !'
count "$c" 0 'never answered'
s=$W/invite.svg
has "$s" '>group inv (invite): ctxid 4, members job0:0,job0:1, failed job0:2,job0:3</text>' \
    '>invite leader</text>' '>joined</text>' '>declined</text>' \
    '&#x2715; job0:3 unreachable</text>' '&#x2715; job0:2 declined</text>' '>group-event complete</text>'
count "$s" 5 'class="group-event"'
count "$s" 1 '<rect class="group"'
count "$s" 2 '&#x2713; ctxid 4</text>'
has "$W/invite.html" '<span class="g">~ server-initiated event invited'

echo "== broken: a response with another thrid, an event with one"
c=$W/broken.txt
has "$c" '~ ! answers no pending request of r0 with thrid=5 (GROUP-11' \
    '~ ! an event carries thrid (GROUP-9' \
    '#   never answered: r0 group-construct thrid=4 (group solo)'

echo "== patterns (v2 msg events) and a trace without groups"
diagram patterns "$D/patterns.trace"
has "$W/patterns.svg" '>group p (bootstrap): ctxid 9, members job0:0</text>' '>group w (bootstrap): not completed</text>'
diagram plain "$PLAIN"
count "$W/plain.svg" 0 'class="group'
echo PASS
