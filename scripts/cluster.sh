#!/usr/bin/env bash
# A cluster of "nodes" on this one machine, made of Linux namespaces (docs/cluster.md), so that MPI
# programs see several hostnames, several /dev/shm and TCP between nodes. Needs root.
#
#   cluster.sh up N [--rate RATE]   make node1..nodeN (an existing cluster is torn down first);
#                                   RATE (tc units: 100mbit, 1gbit, 10gbit) shapes every node's
#                                   link in both directions with tbf
#   cluster.sh down                 remove everything (idempotent: also after a crash or a partial up)
#   cluster.sh status               print the nodes, their addresses and shaping; exit 1 if not up
#   cluster.sh exec NODE cmd...     run cmd inside NODE (environment and working directory kept)
#   cluster.sh rsh [-x...] NODE cmd...
#                                   what cluster-rsh runs: ssh's calling convention (options
#                                   ignored, the command words joined and run by sh -c), for
#                                   MPICH's hydra (-launcher-exec) and Open MPI (plm_rsh_agent)
#   cluster.sh nodes                print the number of nodes of the cluster that is up
#   cluster.sh subnet               print its subnet (e.g. 10.77.0.0/24, for MPI's TCP selection)
#
# Each node has its own network namespace (ip netns PREFIX-nodeI, address 10.77.0.I/24 on eth0,
# loopback up), UTS namespace (hostname nodeI) and IPC namespace, both kept in files under
# /run/PREFIX-cluster; every command run in a node gets a fresh mount namespace (a slave of the
# host's) in which the node's own tmpfs is on /dev/shm, the cluster's hosts file on /etc/hosts and
# a sysfs of the node's network namespace on /sys. Nodes are joined by veth pairs to a bridge in a
# namespace of its own (PREFIX-br). Nothing in the host's own namespaces is created or changed
# except the namespace files, the state directory and the per-node tmpfs under it.
# Environment: SHOAL_CLUSTER_PREFIX (default shoal) names everything, so clusters can coexist;
# SHOAL_CLUSTER_SUBNET (default 10.77.0) the first three octets of the nodes' addresses.
set -u

prefix="${SHOAL_CLUSTER_PREFIX:-shoal}"
subnet="${SHOAL_CLUSTER_SUBNET:-10.77.0}"
state="/run/${prefix}-cluster"
self="$(readlink -f "${BASH_SOURCE[0]}")"
max_nodes=200

die() {
    echo "cluster.sh: $*" >&2
    exit 1
}

usage() {
    sed -n '4,17p' "$self" | sed 's/^# \{0,1\}//'
}

need_root() {
    [ "$(id -u)" = 0 ] || die "needs root (namespaces, mounts, ip netns)"
}

# The cluster's node count, from the state directory (empty when there is no cluster).
node_count() {
    cat "$state/nodes" 2>/dev/null
}

netns_of() { echo "${prefix}-$1"; }

# Kills every process that lives in one of the cluster's namespaces (by network namespace, and by
# UTS namespace for anything that left the network namespace), so they can be freed.
kill_node_processes() {
    local ns pids inodes f pid ino
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${prefix}-(node[0-9]+|br)$"); do
        pids="$(ip netns pids "$ns" 2>/dev/null)"
        [ -n "$pids" ] && kill -9 $pids 2>/dev/null
    done
    inodes=""
    for f in "$state"/node*/uts; do
        [ -e "$f" ] || continue
        ino="$(stat -L -c %i "$f" 2>/dev/null)" || continue
        # An empty file (not a namespace) has a tmpfs inode: only nsfs inodes count.
        [ "$(stat -f -L -c %T "$f" 2>/dev/null)" = nsfs ] && inodes="$inodes $ino"
    done
    [ -n "$inodes" ] || return 0
    for pid in /proc/[0-9]*; do
        pid="${pid#/proc/}"
        ino="$(stat -L -c %i "/proc/$pid/ns/uts" 2>/dev/null)" || continue
        case " $inodes " in
        *" $ino "*) kill -9 "$pid" 2>/dev/null ;;
        esac
    done
    return 0
}

cmd_down() {
    need_root
    local ns f
    kill_node_processes
    if [ -d "$state" ]; then
        for f in "$state"/node*/shm "$state"/node*/uts "$state"/node*/ipc; do
            [ -e "$f" ] || continue
            while mountpoint -q "$f" 2>/dev/null; do
                umount "$f" 2>/dev/null || umount -l "$f" 2>/dev/null || break
            done
        done
        rm -rf "$state"
    fi
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${prefix}-(node[0-9]+|br)$"); do
        ip netns del "$ns" 2>/dev/null
    done
    return 0
}

# tbf parameters for a rate in tc's units: the burst holds 2 ms at the rate (at least 128 KiB, so
# a 64 KiB GSO packet passes whole), the queue 20 ms.
tbf_args() {
    local rate="$1" num unit bps
    [[ "$rate" =~ ^([0-9]+)(bit|kbit|mbit|gbit|tbit)$ ]] ||
        die "--rate $rate: give a number with kbit, mbit, gbit or tbit (e.g. 1gbit)"
    num="${BASH_REMATCH[1]}"
    unit="${BASH_REMATCH[2]}"
    case "$unit" in
    bit) bps=$num ;;
    kbit) bps=$((num * 1000)) ;;
    mbit) bps=$((num * 1000000)) ;;
    gbit) bps=$((num * 1000000000)) ;;
    tbit) bps=$((num * 1000000000000)) ;;
    esac
    [ "$bps" -gt 0 ] || die "--rate $rate: must be positive"
    local burst=$((bps / 8 / 500))
    [ "$burst" -ge 131072 ] || burst=131072
    echo "rate $rate burst $burst latency 20ms"
}

cmd_up() {
    need_root
    local n="" rate=""
    while [ $# -gt 0 ]; do
        case "$1" in
        --rate)
            [ $# -ge 2 ] || die "--rate needs a value (e.g. 1gbit)"
            rate="$2"
            shift 2
            ;;
        --rate=*)
            rate="${1#--rate=}"
            shift
            ;;
        *)
            [ -z "$n" ] || die "up: one node count only (got $n and $1)"
            n="$1"
            shift
            ;;
        esac
    done
    [[ "$n" =~ ^[1-9][0-9]*$ ]] && [ "$n" -le $max_nodes ] ||
        die "up: give a node count from 1 to $max_nodes (cluster.sh up N [--rate 1gbit])"
    local tbf=""
    [ -z "$rate" ] || tbf="$(tbf_args "$rate")" || exit 1
    for tool in ip unshare nsenter mountpoint; do
        command -v $tool >/dev/null || die "up: $tool is missing"
    done
    if [ -d "$state" ] || ip netns list 2>/dev/null | grep -qE "^${prefix}-(node[0-9]+|br)( |$)"; then
        echo "cluster.sh: a cluster '$prefix' exists; tearing it down first" >&2
        cmd_down
    fi
    # From here on, any failure tears down what was made.
    trap 'echo "cluster.sh: up failed; tearing down" >&2; cmd_down; exit 1' ERR
    set -eE
    mkdir -p "$state"
    echo "$n" >"$state/building"
    {
        echo "127.0.0.1 localhost"
        echo "::1 localhost ip6-localhost ip6-loopback"
        for i in $(seq 1 "$n"); do
            echo "$subnet.$i node$i"
        done
    } >"$state/hosts"

    local br
    br="$(netns_of br)"
    ip netns add "$br"
    ip -n "$br" link set lo up
    ip -n "$br" link add br0 type bridge
    ip -n "$br" link set br0 up
    for i in $(seq 1 "$n"); do
        local node="node$i" ns
        ns="$(netns_of "$node")"
        ip netns add "$ns"
        ip -n "$ns" link set lo up
        # Made inside the bridge's namespace with the peer created straight in the node's: no
        # interface ever appears in the host's namespace.
        ip -n "$br" link add "veth$i" type veth peer name eth0 netns "$ns"
        ip -n "$br" link set "veth$i" master br0
        ip -n "$br" link set "veth$i" up
        ip -n "$ns" addr add "$subnet.$i/24" dev eth0
        ip -n "$ns" link set eth0 up
        if [ -n "$tbf" ]; then
            # Both directions of the node's link: into the node (bridge side) and out of it.
            ip netns exec "$br" tc qdisc add dev "veth$i" root tbf $tbf
            ip netns exec "$ns" tc qdisc add dev eth0 root tbf $tbf
        fi
        mkdir -p "$state/$node/shm"
        mount -t tmpfs -o mode=1777 "${prefix}-$node-shm" "$state/$node/shm"
        touch "$state/$node/uts" "$state/$node/ipc"
        nsenter --net="/run/netns/$ns" unshare --uts="$state/$node/uts" --ipc="$state/$node/ipc" \
            hostname "$node"
    done
    echo "${rate:-none}" >"$state/rate"
    echo "$subnet" >"$state/subnet"
    mv "$state/building" "$state/nodes"
    set +eE
    trap - ERR
    echo "cluster.sh: $n node(s) up (prefix $prefix, $subnet.1-$n, rate ${rate:-unshaped})"
}

# Checks that node NAME exists; prints its number.
check_node() {
    local name="$1" n
    n="$(node_count)"
    [ -n "$n" ] || die "no cluster '$prefix' is up (cluster.sh up N)"
    [[ "$name" =~ ^node([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" -ge 1 ] &&
        [ "${BASH_REMATCH[1]}" -le "$n" ] || die "no node '$name' in cluster '$prefix' (node1..node$n)"
}

cmd_exec() {
    need_root
    [ $# -ge 2 ] || die "exec NODE cmd..."
    local node="$1"
    shift
    check_node "$node"
    exec nsenter --net="/run/netns/$(netns_of "$node")" --uts="$state/$node/uts" \
        --ipc="$state/$node/ipc" -- unshare --mount --propagation slave -- \
        "$self" _enter "$node" "$@"
}

# Runs inside the node's fresh mount namespace: the node's view of the file system, then the command.
cmd_enter() {
    local node="$1"
    shift
    mount --bind "$state/$node/shm" /dev/shm || die "$node: cannot mount its /dev/shm"
    mount --bind "$state/hosts" /etc/hosts || die "$node: cannot mount /etc/hosts"
    # /sys/class/net as the node's network namespace sees it (UCX lists devices there).
    mount -t sysfs "${prefix}-$node-sys" /sys || die "$node: cannot mount /sys"
    exec "$@"
}

cmd_rsh() {
    # ssh's convention: options first (hydra passes -x), then the host, then command words that
    # the remote shell joins with spaces and runs.
    while [ $# -gt 0 ]; do
        case "$1" in
        -l | -p | -o | -i | -F)
            shift 2
            ;;
        -*)
            shift
            ;;
        *)
            break
            ;;
        esac
    done
    [ $# -ge 2 ] || die "rsh: HOST command..."
    local host="$1"
    shift
    cmd_exec "$host" /bin/sh -c "$*"
}

cmd_status() {
    local n i ns
    n="$(node_count)"
    if [ -z "$n" ]; then
        echo "cluster '$prefix': down"
        [ -d "$state" ] && echo "  (state directory $state left over: run cluster.sh down)"
        return 1
    fi
    echo "cluster '$prefix': $n node(s), rate $(cat "$state/rate" 2>/dev/null), bridge $(netns_of br)"
    for i in $(seq 1 "$n"); do
        ns="$(netns_of "node$i")"
        printf '  node%-3s netns %-16s %s  processes: %s\n' "$i" "$ns" \
            "$(ip -n "$ns" -4 -o addr show dev eth0 2>/dev/null | awk '{print $4}')" \
            "$(ip netns pids "$ns" 2>/dev/null | wc -l)"
    done
    return 0
}

[ $# -ge 1 ] || {
    usage >&2
    exit 2
}
sub="$1"
shift
case "$sub" in
up) cmd_up "$@" ;;
down) cmd_down ;;
status) cmd_status ;;
exec) cmd_exec "$@" ;;
rsh) cmd_rsh "$@" ;;
_enter) cmd_enter "$@" ;;
nodes)
    n="$(node_count)"
    [ -n "$n" ] || die "no cluster '$prefix' is up (cluster.sh up N)"
    echo "$n"
    ;;
subnet)
    [ -n "$(node_count)" ] || die "no cluster '$prefix' is up (cluster.sh up N)"
    net="$(cat "$state/subnet" 2>/dev/null)"
    [ -n "$net" ] || die "cluster '$prefix' has no subnet recorded (made by an older cluster.sh: run up again)"
    echo "$net.0/24"
    ;;
-h | --help | help) usage ;;
*)
    usage >&2
    exit 2
    ;;
esac
