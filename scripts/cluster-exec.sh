#!/bin/sh
# What ssh is to Hydra on a cluster, for scripts/cluster.sh's nodes: run a
# command on a node of the one-machine cluster in PCF_CLUSTER (its DIR).
#
#   PCF_CLUSTER=DIR scripts/cluster-exec.sh [-x|-q|-o OPT ...] NODE COMMAND...
#   mpiexec.hydra -launcher ssh -launcher-exec scripts/cluster-exec.sh -hosts node0,node1 ...
#
# Like ssh, the words of COMMAND are joined and run by the node's shell
# (Hydra quotes the proxy's path for it), inside the node's namespaces (its
# hostname, its /tmp); the command replaces this script, so a launcher that
# kills its "ssh" ends the command.
set -eu
while [ $# -gt 0 ]; do
    case "$1" in
        -o|-p|-l|-i) shift 2 ;;
        -*) shift ;;
        *) break ;;
    esac
done
[ $# -ge 2 ] || { echo "usage: PCF_CLUSTER=DIR cluster-exec.sh [ssh options] NODE COMMAND..." >&2; exit 255; }
node=$1
shift
: "${PCF_CLUSTER:?cluster-exec.sh: PCF_CLUSTER names the cluster's directory (scripts/cluster.sh up)}"
pidf=$PCF_CLUSTER/holder-$node.pid
[ -f "$pidf" ] || { echo "cluster-exec.sh: no node $node in $PCF_CLUSTER" >&2; exit 255; }
exec nsenter -t "$(cat "$pidf")" --uts --mount -- /bin/sh -c "$*"
