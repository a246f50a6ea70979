#!/usr/bin/env bash
# Restarts the test cluster's kube-apiserver, as an upgrade or a crash would: stops it (SIGTERM), leaves the cluster
# without it for DOWN seconds (default 5), starts it again with the same command line in the node's network
# namespace, and waits until it is ready. Usage: restart-apiserver.sh [DOWN_SECONDS]
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
. "$DIR/env.sh"
down=${1:-5}
pidfile=$CLUSTER/pids/kube-apiserver.pid
pid=$(cat "$pidfile")
[[ -r /proc/$pid/cmdline ]] || { echo "kube-apiserver (pid $pid) is not running: start the cluster with up.sh" >&2; exit 1; }
mapfile -d '' command <"/proc/$pid/cmdline"
kill "$pid"
for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -9 "$pid" 2>/dev/null || true   # not gone within 30 s of its graceful shutdown
sleep "$down"
setsid nsenter --net="$NSNET" -- "${command[@]}" >>"$CLUSTER/logs/kube-apiserver.log" 2>&1 </dev/null &
echo $! >"$pidfile"
for _ in $(seq 240); do
  kubectl --kubeconfig="$KUBECONFIG_HOST" get --raw /readyz >/dev/null 2>&1 && { echo "kube-apiserver ready again"; exit 0; }
  sleep 0.25
done
echo "kube-apiserver did not come back within 60 s" >&2
exit 1
