#!/bin/sh
# How the client kit reaches a library (ctest fuzz.kit.connect): PMI_FD by
# default; PMI_PORT with PMI_ID for an input that begins with PMI-1's
# initack answer (a client sends initack only in that mode) and for every
# input with PMIFUZZ_CONNECT=port; a crash over either is a finding; a
# harness whose library never writes stops with an error instead of a clean
# run; and libpmiclient's PMI-1 API goes through its initack exchange when
# the kit serves it that way.
#
#   connect.sh KIT_CONNECT KIT_PMICLIENT_V1 WORKDIR [PMIFUZZ_TRACE PMI_TRACE]
# With the two tools: such a run becomes a trace that `pmi-trace replay
# --client` plays back through PMI_PORT.
set -u
fz=$1 v1=$2 work=$3 totrace=${4:-} pmitrace=${5:-}
rm -rf "$work"
mkdir -p "$work/art" "$work/many" "$work/again" "$work/silent"
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }
# way name input want-request [env...]: the library's first request
way() {
    name=$1 input=$2 want=$3
    shift 3
    printf '%b' "$input" >"$work/$name.in"
    env PMIFUZZ_REQUESTS_OUT="$work/$name.req" "$@" "$fz" "$work/$name.in" >"$work/$name.log" 2>&1
    got=$(head -n1 "$work/$name.req" 2>/dev/null)
    if [ "$got" = "$want" ]; then
        echo "ok: $name: $got"
    else
        bad "$name: the library wrote '$got', expected '$want'"
        tail -5 "$work/$name.log" >&2
    fi
}
way fd-default 'cmd=response_to_init rc=0\n' 'cmd=init via=fd rank=0'
way port-initack 'cmd=initack rc=0\ncmd=set size=1\n' 'cmd=initack pmiid=0'
way port-asked 'cmd=response_to_init rc=0\n' 'cmd=initack pmiid=0' PMIFUZZ_CONNECT=port
way fd-asked 'cmd=initack rc=0\n' 'cmd=init via=fd rank=0' PMIFUZZ_CONNECT=fd
way port-id 'cmd=initack rc=0\n' 'cmd=initack pmiid=7' PMI_ID=7

# a crash in a run served through PMI_PORT is a finding, in process
printf 'cmd=crash\n' >"$work/crash.in"
KIT_CONNECT_CRASH=1 PMIFUZZ_CONNECT=port "$fz" -artifact_prefix="$work/art/" "$work/crash.in" >"$work/crash.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q 'SUMMARY: [A-Za-z]*Sanitizer' "$work/crash.log"; then
    echo "ok: crash over PMI_PORT reported"
else
    bad "crash over PMI_PORT: exit status $rc, no sanitizer report"
fi

# saving a crash input's requests: the crash reproduced, said plainly, exit
# status 1, not libFuzzer's report of a crash in the kit nor a crash file
rm -f "$work/art"/*
KIT_CONNECT_CRASH=1 PMIFUZZ_CONNECT=port PMIFUZZ_REQUESTS_OUT="$work/crash.req" "$fz" \
    -artifact_prefix="$work/art/" "$work/crash.in" >"$work/crash-req.log" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && grep -q '^pmifuzz: the crash reproduced' "$work/crash-req.log" &&
    ! grep -q 'deadly signal' "$work/crash-req.log" && ! ls "$work/art"/crash-* >/dev/null 2>&1 &&
    grep -q '^cmd=initack' "$work/crash.req"; then
    echo "ok: a crash input's requests saved, the crash reported as reproduced"
else
    bad "PMIFUZZ_REQUESTS_OUT on a crash: exit status $rc"
    tail -4 "$work/crash-req.log" >&2
fi

# saving a timeout input's requests: the library is ended after 10 s and
# the hang said to have reproduced, exit status 1
printf 'cmd=hang rc=0\n' >"$work/hang.in"
rm -f "$work/art"/*
KIT_CONNECT_HANG=1 PMIFUZZ_REQUESTS_OUT="$work/hang.req" "$fz" -artifact_prefix="$work/art/" \
    "$work/hang.in" >"$work/hang-req.log" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && grep -q '^pmifuzz: the library did not return within 10 s' "$work/hang-req.log" &&
    [ -s "$work/hang.req" ] && ! ls "$work/art"/crash-* >/dev/null 2>&1; then
    echo "ok: a timeout input's requests saved, the hang reported as reproduced"
else
    bad "PMIFUZZ_REQUESTS_OUT on a hang: exit status $rc"
    tail -4 "$work/hang-req.log" >&2
fi

# fuzzing over PMI_PORT: no run is lost to the port (a connection per run)
PMIFUZZ_CONNECT=port "$fz" -runs=3000 -seed=1 -artifact_prefix="$work/art/" "$work/many" >"$work/many.log" 2>&1
if grep -q 'Done 3000 runs' "$work/many.log"; then
    echo "ok: 3000 runs over PMI_PORT"
else
    bad "3000 runs over PMI_PORT did not finish"
    tail -5 "$work/many.log" >&2
fi

# a library that connects again after its answer: end of file there, at
# once, not a wait in the listener's backlog until the timeout
KIT_CONNECT_AGAIN=1 PMIFUZZ_CONNECT=port "$fz" -runs=200 -seed=1 -timeout=5 -artifact_prefix="$work/art/" \
    "$work/again" >"$work/again.log" 2>&1
if grep -q 'Done 200 runs' "$work/again.log"; then
    echo "ok: a second connection reads end of file"
else
    bad "a library that connects again: $(grep -m1 'ERROR\|timeout' "$work/again.log")"
fi

# a library that never writes: an error within 64 runs, not a clean run
KIT_CONNECT_SILENT=1 "$fz" -runs=1000 -artifact_prefix="$work/art/" "$work/silent" >"$work/silent.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q '^pmifuzz: the library wrote nothing in 64 runs' "$work/silent.log" &&
    ! ls "$work/art"/crash-* >/dev/null 2>&1; then
    echo "ok: a silent library stops the run (exit status $rc)"
else
    bad "a silent library: exit status $rc, $(grep -c 'wrote nothing' "$work/silent.log") reports"
fi

# a library that knows only PMI_FD, fed inputs that begin with initack's
# answer (auto serves them through PMI_PORT): a note says what those runs
# test and how to run instead; with PMIFUZZ_CONNECT=fd, no note
mkdir -p "$work/fdonly"
for i in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17; do
    printf 'cmd=initack rc=0\ncmd=set size=1 k=%s\n' "$i" >"$work/fdonly/in$i"
done
KIT_CONNECT_FD_ONLY=1 "$fz" "$work/fdonly"/in* >"$work/fdonly.log" 2>&1
KIT_CONNECT_FD_ONLY=1 PMIFUZZ_CONNECT=fd "$fz" "$work/fdonly"/in* >"$work/fdonly-fd.log" 2>&1
if [ "$(grep -c '^pmifuzz: note: inputs that begin with PMI-1.s initack answer' "$work/fdonly.log")" = 1 ] &&
    grep -q 'run with PMIFUZZ_CONNECT=fd' "$work/fdonly.log" && ! grep -q 'pmifuzz: note' "$work/fdonly-fd.log"; then
    echo "ok: a PMI_FD-only library fed initack-first inputs is told to run with PMIFUZZ_CONNECT=fd"
else
    bad "a PMI_FD-only library under auto: $(grep -c 'pmifuzz: note' "$work/fdonly.log") notes, $(grep -c 'pmifuzz: note' "$work/fdonly-fd.log") with fd"
fi

# libpmiclient through its initack exchange (PMI_PORT, V1CMD-1/-2/-3)
printf 'cmd=initack rc=0\ncmd=set size=2\ncmd=set rank=1\ncmd=set debug=0\ncmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\ncmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024\ncmd=appnum rc=0 appnum=0\ncmd=my_kvsname rc=0 kvsname=kvs_0\n' >"$work/v1.in"
PMIFUZZ_REQUESTS_OUT="$work/v1.req" "$v1" "$work/v1.in" >"$work/v1.log" 2>&1
if [ "$(sed -n 1p "$work/v1.req")" = "cmd=initack pmiid=0" ] &&
    grep -q '^cmd=get_my_kvsname' "$work/v1.req"; then
    echo "ok: libpmiclient: initack, then init to get_my_kvsname"
else
    bad "libpmiclient over PMI_PORT: requests were:"
    head -5 "$work/v1.req" >&2
fi
if [ -n "$totrace" ] && [ -n "$pmitrace" ]; then
    "$totrace" --client "$work/v1.in" "$work/v1.req" >"$work/v1.trace"
    # the header names the last request the library wrote (where a crash was)
    last=$(sed -n '/^0/p' "$work/v1.trace" | grep ' C>S ' | tail -n1 | sed 's/.*"cmd=\([a-z_]*\).*/\1/')
    if grep -q "^# the library wrote [0-9]* requests*; the last, $last, is where" "$work/v1.trace"; then
        echo "ok: the trace names the last request ($last)"
    else
        bad "the trace does not name the last request ($last):"
        head -8 "$work/v1.trace" >&2
    fi
    # the set lines come after initack's answer, before the init request
    if sed -n '/^0/p' "$work/v1.trace" | sed -n 3p | grep -q 'S>C "cmd=set size=2'; then
        echo "ok: the trace keeps the set lines with initack's answer"
    else
        bad "the trace pairs the set lines with later requests:"
        sed -n '/^0/p' "$work/v1.trace" | head -6 >&2
    fi
    if "$pmitrace" replay --client "$work/v1.trace" -- env PMIFUZZ_LIVE=1 "$v1" >"$work/replay.log" 2>&1; then
        echo "ok: pmi-trace replay --client serves it through PMI_PORT: $(tail -n1 "$work/replay.log")"
    else
        bad "replay of the PMI_PORT session:"
        cat "$work/replay.log" >&2
    fi
    # a program that never connects: a clear finding, nothing left running
    "$pmitrace" replay --client --timeout 2000 "$work/v1.trace" -- sleep 30 >"$work/noconn.log" 2>&1
    rc=$?
    if [ "$rc" -eq 1 ] && grep -q 'did not connect to PMI_PORT' "$work/noconn.log" &&
        ! pgrep -f '^sleep 30$' >/dev/null; then
        echo "ok: a program that does not connect: $(cat "$work/noconn.log")"
    else
        bad "a program that does not connect: exit status $rc: $(cat "$work/noconn.log")"
        pkill -f '^sleep 30$'
    fi
fi
exit $fail
