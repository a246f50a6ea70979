#!/usr/bin/env bash
# Restarts the test cluster's kubelet with another CPU manager policy, as an admin reconfiguring a node does: stops it,
# sets cpuManagerPolicy, removes its checkpoint (the kubelet refuses to start on one written under another policy),
# starts it again with the same command line in the node's namespaces, and waits until it serves its new
# configuration and the node is Ready.
# Usage: restart-kubelet.sh static|none
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
. "$DIR/env.sh"
policy=${1:?usage: restart-kubelet.sh static|none}
[[ $policy == static || $policy == none ]] || { echo "cpuManagerPolicy is static or none, not $policy" >&2; exit 2; }
N=$CLUSTER/node
pidfile=$CLUSTER/pids/kubelet.pid
pid=$(cat "$pidfile")
[[ -r /proc/$pid/cmdline ]] || { echo "the kubelet (pid $pid) is not running: start the cluster with up.sh" >&2; exit 1; }
mapfile -d '' command <"/proc/$pid/cmdline"
# the kubelet lives in containerd's mount namespace (its sysctls bind-mounted) and the cluster's network namespace
containerd=$(cat "$CLUSTER/pids/containerd.pid")
kill "$pid"
for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -9 "$pid" 2>/dev/null || true
sed -i "s/^cpuManagerPolicy: .*/cpuManagerPolicy: $policy/" "$N/kubelet-config.yaml"
rm -f "$N/kubelet/cpu_manager_state"
setsid nsenter --target "$containerd" --mount --net -- "${command[@]}" >>"$CLUSTER/logs/kubelet.log" 2>&1 </dev/null &
echo $! >"$pidfile"
# the node's Ready condition is the old kubelet's until the new one reports: wait for the new one's own configuration
for _ in $(seq 240); do
  kubectl --kubeconfig="$KUBECONFIG_HOST" get --raw "/api/v1/nodes/$NODE_NAME/proxy/configz" 2>/dev/null \
    | grep -q "\"cpuManagerPolicy\":\"$policy\"" \
    && kubectl --kubeconfig="$KUBECONFIG_HOST" get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' \
    | grep -q True && { echo "kubelet ready again with cpuManagerPolicy $policy"; exit 0; }
  sleep 0.25
done
echo "the kubelet did not come back within 60 s: $CLUSTER/logs/kubelet.log" >&2
exit 1
