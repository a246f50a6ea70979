#!/usr/bin/env bash
# Stops the test cluster by the recorded process ids, then removes what it made, for every node: leftover containerd
# shims and their pods, the kubelets' cgroups, pod network namespaces, the nodes' network namespaces. Safe after a
# failed run and when nothing runs.
. "$(dirname "$0")/env.sh"
stop_pid() { # pid-file name
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
stop_pid socat
for i in $(seq "$MAX_NODES" -1 1); do
  node_vars "$i"
  for name in kube-proxy kubelet; do stop_pid "$name$N_SUFFIX"; done
done
for name in kube-scheduler kube-controller-manager kube-apiserver; do stop_pid "$name"; done
for i in $(seq "$MAX_NODES" -1 1); do
  node_vars "$i"
  for name in containerd node-ns; do stop_pid "$name$N_SUFFIX"; done
done
stop_pid etcd
for i in $(seq "$MAX_NODES" -1 1); do
  node_vars "$i"; N=$N_DIR; SOCK=$N/containerd/containerd.sock
  # shims of this node's containerd (its socket path is in their argv) and the pod processes under them
  for pid in $(ps -eo pid=,args= | awk -v s="$SOCK" 'index($0, "containerd-shim") && index($0, s) {print $1}'); do
    for child in $(ps -eo pid=,ppid= | awk -v p="$pid" '$2==p {print $1}'); do kill -9 "$child" 2>/dev/null; done
    kill -9 "$pid" 2>/dev/null && log "killed leftover shim $pid"
  done
done
# whatever a pid file missed (a node restarted by hand, a file overwritten): every process started with the cluster's files
leftover=$(pgrep -f -- "$CLUSTER/|$PACER_K8S/bin/kube" || true)
[[ -z $leftover ]] || { kill -9 $leftover 2>/dev/null; log "killed leftover processes: ${leftover//$'\n'/ }"; }
sleep 0.5
for i in $(seq "$MAX_NODES" -1 1); do
  node_vars "$i"
  for hierarchy in /sys/fs/cgroup/*/; do
    root=$hierarchy${N_CGROOT#/}; root=${root%/}
    [[ -d $root/kubepods ]] && find "$root/kubepods" -depth -type d -exec rmdir {} \; 2>/dev/null
    [[ -d $root/kubepods ]] && log "could not remove $root/kubepods"
    (( i > 1 )) && [[ -d $root ]] && { rmdir "$root" 2>/dev/null || log "could not remove $root"; }
  done
  N=$N_DIR
  if [[ -d $N/containerd/root ]]; then
    for ns in $(grep -rhoa 'cni-[0-9a-f-]\{36\}' "$N/containerd/root/io.containerd.metadata.v1.bolt" 2>/dev/null | sort -u); do
      [[ -e /run/netns/$ns ]] && { umount "/run/netns/$ns" 2>/dev/null; rm -f "/run/netns/$ns"; log "removed /run/netns/$ns"; }
    done
  fi
  # overlay mounts of this node's containerd left behind by killed shims
  grep -o " $N/[^ ]*" /proc/mounts 2>/dev/null | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
  [[ -e $N_NSNET ]] && ip netns del "$N_NETNS" && log "deleted netns $N_NETNS"
done
true
