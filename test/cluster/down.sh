#!/usr/bin/env bash
# Stops the test cluster by the recorded process ids, then removes what it made: leftover containerd shims and their
# pods, the kubepods cgroups, pod network namespaces, the cluster's network namespace. Safe after a failed run and
# when nothing runs.
. "$(dirname "$0")/env.sh"
N=$CLUSTER/node; SOCK=$N/containerd/containerd.sock
stop_pid() { # name
  local f=$CLUSTER/pids/$1.pid pid
  [[ -f $f ]] || return 0
  pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    log "stopped $1 ($pid)"
  fi
  rm -f "$f"
}
for name in socat kube-proxy kubelet kube-scheduler kube-controller-manager kube-apiserver containerd node-ns etcd; do stop_pid "$name"; done
# shims of OUR containerd (its socket path is in their argv) and the pod processes under them
for pid in $(ps -eo pid=,args= | awk -v s="$SOCK" 'index($0, "containerd-shim") && index($0, s) {print $1}'); do
  for child in $(ps -eo pid=,ppid= | awk -v p="$pid" '$2==p {print $1}'); do kill -9 "$child" 2>/dev/null; done
  kill -9 "$pid" 2>/dev/null && log "killed leftover shim $pid"
done
sleep 0.5
for hierarchy in /sys/fs/cgroup/*/; do
  [[ -d ${hierarchy}kubepods ]] || continue
  find "${hierarchy}kubepods" -depth -type d -exec rmdir {} \; 2>/dev/null
  [[ -d ${hierarchy}kubepods ]] && log "could not remove ${hierarchy}kubepods"
done
if [[ -d $N/containerd/root ]]; then
  for ns in $(grep -rhoa 'cni-[0-9a-f-]\{36\}' "$N/containerd/root/io.containerd.metadata.v1.bolt" 2>/dev/null | sort -u); do
    [[ -e /run/netns/$ns ]] && { umount "/run/netns/$ns" 2>/dev/null; rm -f "/run/netns/$ns"; log "removed /run/netns/$ns"; }
  done
fi
# overlay mounts of our containerd left behind by killed shims
grep -o " $N/[^ ]*" /proc/mounts 2>/dev/null | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
[[ -e $NSNET ]] && ip netns del "$NETNS" && log "deleted netns $NETNS"
true
