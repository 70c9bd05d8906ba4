# Shared by scripts/slurm-cluster.sh (one node) and scripts/cluster.sh
# (several nodes on one machine): process bookkeeping by PID file in $dir,
# munged for the cluster, the slurm.conf lines every such cluster has.
# Sourced; the caller defines say, die, $dir and $grace.

# Slurm from PATH, or from a prefix of its own (a release built from source)
if [ -n "${SLURM_PREFIX:-}" ]; then
    PATH=$SLURM_PREFIX/sbin:$SLURM_PREFIX/bin:$PATH
    export PATH
fi

free_port() {
    # a port no socket uses, below the kernel's ephemeral range (32768 and up:
    # an outgoing connection could take a port from there at any time), from
    # a range that differs per caller
    local p=$(( 10000 + ($$ * 7 + ${1:-0} * 13 + RANDOM) % 20000 ))
    while ss -Htan "sport = :$p" 2>/dev/null | grep -q .; do
        p=$(( p + 1 ))
    done
    echo "$p"
}

start_bg() { # name logfile command...: start in a session of its own, record the PID
    local name=$1 log=$2
    shift 2
    setsid "$@" >>"$log" 2>&1 < /dev/null &
    echo $! > "$dir/$name.pid"
}

running() { # a process that is not yet a zombie (nobody may reap ours soon)
    local st
    st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
    [ -n "$st" ] && [ "$st" != Z ]
}

alive() { [ -f "$dir/$1.pid" ] && running "$(cat "$dir/$1.pid")"; }

grace=20 # tenths of a second between TERM and KILL (reset: none, the state is thrown away)

stop_pid() { # name: TERM, wait up to the grace, KILL
    local name=$1 pid
    [ -f "$dir/$name.pid" ] || return 0
    pid=$(cat "$dir/$name.pid")
    if kill -0 "$pid" 2>/dev/null; then
        if [ "$grace" -gt 0 ]; then
            kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
            local i
            for i in $(seq "$grace"); do running "$pid" || break; sleep 0.1; done
        fi
        kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
        running "$pid" && sleep 0.1
        running "$pid" && sleep 0.5
    fi
    rm -f "$dir/$name.pid"
}

munge_setup() { # DIR's munge directory, and a key on the machine
    chmod 0755 "$dir" # munged (as munge) must reach its socket directory inside
    mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
    chown munge:munge "$dir/munge"
    chmod 0700 "$dir/munge"
    [ -s /etc/munge/munge.key ] || {
        mungekey --create --keyfile=/etc/munge/munge.key >/dev/null 2>&1 \
            || dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=128 2>/dev/null
        chown munge:munge /etc/munge/munge.key
        chmod 0400 /etc/munge/munge.key
    }
}

munge_up() { # munged as munge, its socket in DIR
    start_bg munged "$dir/munged.out" runuser -u munge -- munged -F --force --num-threads=10 \
        --socket="$dir/munge/munge.sock" --pid-file="$dir/munge/munged.pid" \
        --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed"
    local i
    for i in $(seq 50); do [ -S "$dir/munge/munge.sock" ] && break; sleep 0.1; done
    [ -S "$dir/munge/munge.sock" ] || { cat "$dir/munged.out" >&2; die "munged did not start"; }

}

slurm_conf_common() { # [SUFFIX of slurmd's files]: what every throwaway cluster's slurm.conf says
    cat <<CONF
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool${1:-}
SlurmctldPidFile=$dir/slurmctld.daemon.pid
SlurmdPidFile=$dir/slurmd${1:-}.daemon.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd${1:-}.log
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
InactiveLimit=0
KillWait=2
MinJobAge=2
UnkillableStepTimeout=10
MessageTimeout=10
SlurmctldTimeout=30
SlurmdTimeout=30
CONF
}

cluster_steps() { # SPOOL...: the steps of a cluster, found by what they hold
    # in its spool directories (the socket each slurmstepd listens on, or
    # its working directory), whatever the release names or starts them
    local sp p
    {
        for sp in "$@"; do
            ss -Hxlp 2>/dev/null | awk -v d="$sp/" 'index($5, d) == 1' |
                grep -o 'pid=[0-9]*' | cut -d= -f2
        done
        for p in /proc/[0-9]*; do
            for sp in "$@"; do
                [ "$(readlink "$p/cwd" 2>/dev/null)" = "$sp" ] && echo "${p#/proc/}"
            done
        done
    } | sort -un
}
