#!/usr/bin/env bash
# A node of the test cluster lost and back, as a machine whose kubelet and container runtime die: `stop I` kills node
# I's kubelet, kube-proxy and containerd (SIGKILL, no goodbye to the API server; the pods' processes under their
# shims go on, as they do when only the node agent dies), so the node controller marks the node Unknown once its
# grace period ($NODE_MONITOR_GRACE_PERIOD) passes. `start I` starts them again on the node's state: containerd finds
# its shims, the kubelet reconciles the pods the API still lists, and the command waits until the node is Ready.
# Usage: node-fault.sh stop|start I
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
. "$DIR/env.sh"
what=${1:-}; i=${2:-}
[[ ($what == stop || $what == start) && $i =~ ^[1-9]$ ]] || { echo "usage: $0 stop|start NODE_INDEX" >&2; exit 2; }
node_vars "$i"
L=$CLUSTER/logs
# the node's own processes, found by the files only they are started with (a pid file can be stale)
node_pids() {
  pgrep -f -- "--config=$N_DIR/kubelet-config.yaml|--config $N_DIR/containerd/config.toml|--config=$CLUSTER/kube-proxy$N_SUFFIX.yaml|$N_DIR/node-inner.sh" || true
}
kubelet_pid() { pgrep -f -- "--config=$N_DIR/kubelet-config.yaml" | head -1; }
if [[ $what == stop ]]; then
  pids=$(node_pids)
  [[ -n $pids ]] && kill -9 $pids 2>/dev/null
  echo "$N_NAME: kubelet, kube-proxy and containerd killed (${pids//$'\n'/ })"
  exit 0
fi
if [[ -n $(kubelet_pid) ]]; then echo "$N_NAME: its kubelet runs already"; exit 0; fi
[[ -x $N_DIR/node-inner.sh ]] || { echo "$N_NAME was never started: node-up.sh $i" >&2; exit 1; }
# node-inner.sh mounts the kubelet's sysctls in a mount namespace of its own and starts containerd, then the kubelet
setsid nsenter --net="$N_NSNET" -- unshare --mount --propagation private -- "$N_DIR/node-inner.sh" >>"$L/node-inner$N_SUFFIX.log" 2>&1 </dev/null &
echo $! >"$CLUSTER/pids/node-ns$N_SUFFIX.pid"
setsid nsenter --net="$N_NSNET" -- "$PACER_K8S/bin/kube-proxy" --config="$CLUSTER/kube-proxy$N_SUFFIX.yaml" --v=1 >>"$L/kube-proxy$N_SUFFIX.log" 2>&1 </dev/null &
echo $! >"$CLUSTER/pids/kube-proxy$N_SUFFIX.pid"
for _ in $(seq 600); do
  [[ $(kubectl --kubeconfig="$KUBECONFIG_HOST" get node "$N_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null) == True ]] \
    && [[ -n $(kubelet_pid) ]] && { kubelet_pid >"$CLUSTER/pids/kubelet$N_SUFFIX.pid"; echo "$N_NAME Ready again"; exit 0; }
  sleep 0.5
done
echo "$N_NAME did not come back within 300 s: $L/kubelet$N_SUFFIX.log" >&2
exit 1
