# Shared by scripts/slurm-cluster.sh (one node) and scripts/cluster.sh
# (several nodes on one machine): which Slurm and which release, what it
# needs and takes, process bookkeeping by PID file in $dir, munged for the
# cluster, the slurm.conf lines every such cluster has, what went wrong when
# a daemon does not come up, and the steps a cluster left.
# Sourced; the caller defines say, die, cmd_down, $dir and $grace.

# Which Slurm: the one installed into SLURM_PREFIX (a release built from
# source), else the one whose srun comes first in PATH, its daemons from the
# sbin beside that bin (a root shell's PATH may lack sbin, or have another
# release's there).
slurm_path() {
    local p
    slurm_prefix_given=${SLURM_PREFIX:-}
    if [ -z "${SLURM_PREFIX:-}" ] && p=$(command -v srun 2>/dev/null); then
        p=$(dirname "$(dirname "$(readlink -f "$p")")")
        [ -x "$p/sbin/slurmd" ] && SLURM_PREFIX=$p
    fi
    if [ -n "${SLURM_PREFIX:-}" ]; then
        [ -x "$SLURM_PREFIX/sbin/slurmd" ] ||
            die "SLURM_PREFIX=$SLURM_PREFIX has no sbin/slurmd (name the directory Slurm was installed into, configure --prefix)"
        PATH=$SLURM_PREFIX/sbin:$SLURM_PREFIX/bin:$PATH
    else
        PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin
    fi
    export PATH
}
slurm_path

exports() { # what `up` prints for eval: SLURM_CONF, and a prefix given first in PATH
    echo "export SLURM_CONF=$dir/slurm.conf"
    [ -z "$slurm_prefix_given" ] || echo "export PATH=\"$slurm_prefix_given/bin:$slurm_prefix_given/sbin:\$PATH\""
}

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

# --- The release, and what it accepts -------------------------------------

slurm_release() { # sets slurm_version (22.05.8) and slurm_rel (2205) from slurmd -V
    local v
    v=$(slurmd -V 2>/dev/null | grep -o '[0-9][0-9]*\.[0-9][0-9]*\(\.[0-9][0-9]*\)*' | head -1) || true
    [ -n "$v" ] || die "cannot tell the release of $(command -v slurmd) (slurmd -V says: $(slurmd -V 2>&1 | head -1))"
    slurm_version=$v
    slurm_rel=$(( 10#${v%%.*} * 100 + 10#$(echo "$v" | cut -d. -f2) ))
    local c
    c=$(slurmctld -V 2>/dev/null | grep -o '[0-9][0-9]*\.[0-9][0-9]*\(\.[0-9][0-9]*\)*' | head -1) || true
    [ "$c" = "$v" ] || die "$(command -v slurmctld) is Slurm ${c:-?} but $(command -v slurmd) is $v: set SLURM_PREFIX to one installation"
}

slurm_plugindir() { # sets plugindir: where slurmd's plugins are
    # beside the libslurmfull.so slurmd runs with (Debian's slurm-wlm and a
    # source build's lib/slurm alike), else the prefix's usual places
    local d c
    d=$(ldd "$(command -v slurmd)" 2>/dev/null | awk '$1 ~ /^libslurm(full)?\.so/ && $3 ~ /^\// { print $3; exit }') || true
    d=${d:+$(dirname "$d")}
    if [ -z "$d" ] || ! ls "$d"/proctrack_*.so >/dev/null 2>&1; then
        d=""
        for c in "${SLURM_PREFIX:-/usr}"/lib/slurm "${SLURM_PREFIX:-/usr}"/lib64/slurm \
                 "${SLURM_PREFIX:-/usr}"/lib/*/slurm "${SLURM_PREFIX:-/usr}"/lib/*/slurm-wlm; do
            ls "$c"/proctrack_*.so >/dev/null 2>&1 && { d=$c; break; }
        done
    fi
    [ -n "$d" ] || die "no Slurm plugin directory found for $(command -v slurmd) (looked beside its libslurmfull.so and in ${SLURM_PREFIX:-/usr}/lib*/slurm*)"
    plugindir=$d
}

has_plugin() { [ -f "$plugindir/$1.so" ]; } # TYPE_NAME: built and installed

slurm_auth_choice() { # sets auth: munge (munged beside the cluster) or slurm (slurm.key, 23.11+)
    auth=${PCF_SLURM_AUTH:-}
    if [ -z "$auth" ]; then
        if has_plugin auth_munge && command -v munged >/dev/null 2>&1; then auth=munge
        elif has_plugin auth_slurm; then auth=slurm
        else die "Slurm $slurm_version can authenticate with neither auth/munge ($plugindir/auth_munge.so and munged in PATH) nor auth/slurm ($plugindir/auth_slurm.so: 23.11 and later, built with libjwt)"
        fi
    fi
    case "$auth" in
        munge) has_plugin auth_munge || die "PCF_SLURM_AUTH=munge: $plugindir has no auth_munge.so"
               command -v munged >/dev/null 2>&1 || die "munged not found (Debian package munge)" ;;
        slurm) has_plugin auth_slurm || die "auth/slurm: $plugindir has no auth_slurm.so (Slurm 23.11 and later, built with libjwt)" ;;
        *) die "PCF_SLURM_AUTH is munge or slurm, not '$auth'" ;;
    esac
}

slurm_check() { # every program and plugin the cluster needs, each missing one named
    local b missing="" p
    for b in slurmctld slurmd srun sinfo scancel; do
        command -v "$b" >/dev/null 2>&1 || missing="$missing $b"
    done
    [ -z "$missing" ] || die "not found in PATH:$missing (Debian: scripts/install-deps.sh; a source build: SLURM_PREFIX=its --prefix)"
    slurm_release
    slurm_plugindir
    [ -x "$(dirname "$(command -v slurmd)")/slurmstepd" ] ||
        die "no slurmstepd beside $(command -v slurmd): slurmd starts every step with it"
    slurm_auth_choice
    # what this cluster's slurm.conf names, and what the daemons load
    # whatever it says: prep/script (PrEpPlugins' default), and from 25.05
    # certgen/script (slurmd's self-signed certificate) and gpu/generic (GPU
    # detection at start)
    local need="proctrack_linuxproc select_cons_tres sched_builtin mpi_pmi2 prep_script auth_$auth"
    [ "$auth" = munge ] && need="$need cred_munge"
    [ "$slurm_rel" -ge 2505 ] && need="$need certgen_script gpu_generic"
    missing=""
    for p in $need; do has_plugin "$p" || missing="$missing ${p/_//}"; done
    [ -z "$missing" ] || die "Slurm $slurm_version lacks plugins in $plugindir:$missing (build and install them: make install in the source tree's src/plugins)"
    # (certgen/script's scripts run openssl when a certificate is asked for)
    [ "$slurm_rel" -lt 2505 ] || command -v openssl >/dev/null 2>&1 ||
        say "warning: no openssl in PATH: Slurm $slurm_version's certgen/script runs it to make a self-signed certificate"
}

slurm_node_hw() { # the machine's cores and sockets as a node line says them (after NodeName)
    # only the keys every release takes; RealMemory small, the node overcommitted
    local line k out=""
    line=$(slurmd -C 2>/dev/null | grep -m1 'CPUs=') || true
    for k in $line; do
        case "$k" in
            CPUs=*|Boards=*|SocketsPerBoard=*|CoresPerSocket=*|ThreadsPerCore=*) out="$out $k" ;;
        esac
    done
    [ -n "$out" ] || out=" CPUs=$(nproc)"
    echo "${out# } RealMemory=1000"
}

slurm_node_name() { # the name slurmd gives itself (slurmd -C's guess), else the short host name
    local n
    n=$(slurmd -C 2>/dev/null | grep -m1 -o '^NodeName=[^ ]*' | cut -d= -f2) || true
    echo "${n:-$(hostname -s)}"
}

# --- The cluster's files --------------------------------------------------

auth_setup() { # DIR's state directories, and the authentication's key
    chmod 0755 "$dir" # munged (as munge) must reach its socket directory inside
    mkdir -p "$dir/state" "$dir/spool"
    if [ "$auth" = slurm ]; then
        # auth/slurm reads slurm.key beside slurm.conf; nobody else may read it
        [ -s "$dir/slurm.key" ] || dd if=/dev/urandom of="$dir/slurm.key" bs=1024 count=1 2>/dev/null
        chmod 0600 "$dir/slurm.key"
        return 0
    fi
    mkdir -p "$dir/munge"
    chown munge:munge "$dir/munge"
    chmod 0700 "$dir/munge"
    [ -s /etc/munge/munge.key ] || {
        mungekey --create --keyfile=/etc/munge/munge.key >/dev/null 2>&1 \
            || dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=128 2>/dev/null
        chown munge:munge /etc/munge/munge.key
        chmod 0400 /etc/munge/munge.key
    }
}

auth_up() { # munged as munge, its socket in DIR (auth/slurm needs no daemon)
    [ "$auth" = munge ] || return 0
    start_bg munged "$dir/munged.out" runuser -u munge -- munged -F --force --num-threads=10 \
        --socket="$dir/munge/munge.sock" --pid-file="$dir/munge/munged.pid" \
        --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed"
    local i
    for i in $(seq 50); do [ -S "$dir/munge/munge.sock" ] && break; sleep 0.1; done
    [ -S "$dir/munge/munge.sock" ] || { cat "$dir/munged.out" >&2; die "munged did not start"; }
}

slurm_conf_common() { # [SUFFIX of slurmd's files]: what every throwaway cluster's slurm.conf says
    # (only what this release takes: a "none" plugin is named only when it
    # is installed, else the release's own default, which is none, applies)
    if [ "$auth" = slurm ]; then
        echo "AuthType=auth/slurm"
        echo "CredType=cred/slurm"
    else
        echo "AuthType=auth/munge"
        echo "CredType=cred/munge"
        echo "AuthInfo=socket=$dir/munge/munge.sock"
    fi
    echo "PluginDir=$plugindir"
    has_plugin task_none && echo "TaskPlugin=task/none"
    has_plugin jobacct_gather_none && echo "JobAcctGatherType=jobacct_gather/none"
    has_plugin accounting_storage_none && echo "AccountingStorageType=accounting_storage/none"
    cat <<CONF
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool${1:-}
SlurmctldPidFile=$dir/slurmctld.daemon.pid
SlurmdPidFile=$dir/slurmd${1:-}.daemon.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd${1:-}.log
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
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

cgroup_conf() { # DIR/cgroup.conf: no cgroup at all (processes are tracked by /proc)
    # 24.05 and later: CgroupPlugin=disabled.  Before, the cgroup plugin loads
    # whatever slurm.conf says; on cgroup v2 without systemd it must not ask
    # systemd for a scope (IgnoreSystemd, 22.05 and later).  Otherwise nothing.
    rm -f "$dir/cgroup.conf"
    if [ "$slurm_rel" -ge 2405 ]; then
        echo "CgroupPlugin=disabled" > "$dir/cgroup.conf"
    elif [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ] && [ ! -d /run/systemd/system ]; then
        echo "IgnoreSystemd=yes" > "$dir/cgroup.conf"
    fi
    return 0
}

slurm_client_check() { # srun is the daemons' release (SLURM_CONF set: 22.05's srun -V reads it)
    local v
    v=$(srun -V 2>/dev/null | grep -o '[0-9][0-9]*\.[0-9][0-9]*\(\.[0-9][0-9]*\)*' | head -1) || true
    [ "$v" = "$slurm_version" ] ||
        die "$(command -v srun) is Slurm ${v:-?} but the daemons are $slurm_version: set SLURM_PREFIX to one installation"
}

# --- When a daemon does not come up ----------------------------------------

daemon_failed() { # WHAT LOG...: show the logs' ends and what they say is missing, stop, die
    local what=$1 f why=""
    shift
    for f in "$@"; do
        [ -s "$f" ] || continue
        echo "--- tail of $f" >&2
        tail -n 12 "$f" >&2
        why="$why$(grep -o -E "Couldn't find the specified plugin name for [^ ]+|cannot (find|create) [a-z_]+ (plugin|context) for [^ ]+|Could not load key file.*|Unable to initialize [a-z_ ]*plugin.*|(fatal|error): .*(cgroup|dbus|systemd|key|[Aa]uth|munge|certificate|TLS).*" "$f" |
            awk -v f="${f##*/}" '!seen[$0]++ { print "    " f ": " $0 }' | head -6)
" || true
    done
    [ -z "${why//$'\n'/}" ] || printf -- '--- what the logs say is wrong:\n%s' "$why" | grep . >&2
    # nothing of a cluster that did not come up is left running
    local keep=$grace
    grace=0
    cmd_down >/dev/null 2>&1 || true
    grace=$keep
    die "$what (Slurm $slurm_version from $(dirname "$(command -v slurmd)"), plugins $plugindir)"
}

node_states_up() { # the nodes slurmctld has up and answering (idle, mixed, allocated; not *)
    { sinfo -h -N -o '%N %T' 2>/dev/null || true; } | awk '$2 !~ /\*/ && $2 ~ /^(idle|mix|alloc)/' | sort -u | wc -l
}

cluster_steps() { # SPOOL...: the steps of a cluster, found by what they hold
    # in its spool directories: the socket each slurmstepd listens on there
    # (SPOOL/NODE_JOB.STEP, every release), a file open there, or the
    # directory as their working directory; whatever the release names or
    # starts them, and in whichever mount namespace they run
    {
        awk 'NR > 1 && NF >= 8 { print "unix", $7, $8 }' /proc/net/unix 2>/dev/null
        find /proc/[0-9]*/fd -mindepth 1 -maxdepth 1 -printf 'fd %h %l\n' 2>/dev/null
        find /proc/[0-9]*/cwd -maxdepth 0 -printf 'fd %p %l\n' 2>/dev/null
    } | awk -v dirs="$*" '
        BEGIN { n = split(dirs, d, " ") }
        function under(path,  i) {
            for (i = 1; i <= n; i++)
                if (path == d[i] || index(path, d[i] "/") == 1) return 1
            return 0
        }
        $1 == "unix" { if (under($3)) sock["socket:[" $2 "]"] = 1; next }
        { split($2, q, "/"); if (($3 in sock) || under($3)) print q[3] }' | sort -un |
        descendants
}

descendants() { # PIDs on stdin: them and every process below them (a step's tasks)
    # /proc/PID/stat: PID (COMM) STATE PPID ..., COMM may hold spaces and ")"
    local seed
    seed=$(cat)
    [ -n "$seed" ] || return 0
    cat /proc/[0-9]*/stat 2>/dev/null | awk -v seed="$seed" '
        BEGIN { n = split(seed, s, "\n"); for (i = 1; i <= n; i++) if (s[i] != "") want[s[i]] = 1 }
        { pid = $1; sub(/.*\) /, ""); parent[pid] = $2 }
        END {
            do { more = 0
                 for (p in parent) if (!(p in want) && (parent[p] in want)) { want[p] = 1; more = 1 }
            } while (more)
            for (p in want) print p
        }' | sort -n
}
