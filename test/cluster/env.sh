# Sourced by every script of the test cluster. Everything lives under $PACER_K8S (default ~/.cache/pacer/k8s):
# Go caches, the built binaries, images, and the cluster's state.
export PACER_K8S=${PACER_K8S:-$HOME/.cache/pacer/k8s}
export PATH=/usr/local/go/bin:$PACER_K8S/bin:$PATH
export GOMODCACHE=$PACER_K8S/gomodcache
export GOCACHE=$PACER_K8S/gocache
export GOTOOLCHAIN=local
export GOFLAGS="-mod=mod -buildvcs=false"
export CGO_ENABLED=0
# v1.32.2: the newest 1.32 whose staging modules the Go proxy here serves completely.
export K8S_VERSION=v1.32.2
export K8S_STAGING_VERSION=v0.32.2
export HELM_VERSION=v3.22.0
export CLUSTER=$PACER_K8S/cluster
export NETNS=pacer-k8s                   # the control plane and node 1 run in this network namespace
export NSNET=/run/netns/$NETNS
export NODE_NAME=pacer-node
export NODE_IP=10.217.0.1                # on a veth inside $NETNS only
export POD_CIDR=10.245.0.0/24
export PODS_CIDR=10.245.0.0/16           # every node's pod range (node i: 10.245.<i-1>.0/24)
export SERVICE_CIDR=10.97.0.0/16
export SERVICE_IP0=10.97.0.1
export API_PORT=6443                     # inside $NETNS
export HOST_API_PORT=${HOST_API_PORT:-16443}   # forwarder on the host's 127.0.0.1
export ETCD_PORT=2379
export KUBECONFIG_HOST=$CLUSTER/admin-host.kubeconfig
export IMAGES=$PACER_K8S/images
export MAX_NODES=3
# a node whose kubelet has not renewed its lease for this long is marked NotReady (Unknown) by the node controller
# (its default is 40s; the kubelet renews every 10 s): the fault tier derives its bounds from it
export NODE_MONITOR_GRACE_PERIOD=30s
# Run inside the cluster's network namespace (nsenter keeps /sys/fs/cgroup visible, unlike `ip netns exec`).
innet() { nsenter --net=$NSNET -- "$@"; }
log() { echo "[cluster] $*" >&2; }
# seconds since $t0 (date +%s.%N), and waiting for a daemon whose log is $L/<what>.log
elapsed() { echo "$(date +%s.%N) - $t0" | bc | xargs printf '%.1f'; }
wait_for() { # what seconds cmd...
  local what=$1 seconds=$2; shift 2
  for _ in $(seq 1 $((seconds * 4))); do
    "$@" >/dev/null 2>&1 && { log "$what ready after $(elapsed) s"; return 0; }
    sleep 0.25
  done
  log "TIMEOUT waiting for $what; log tail:"; tail -20 "$L/$what.log" >&2 || true
  return 1
}
# node_vars I: the names of node I (1 = the control plane's node; 2.. = the extra nodes of a multi-node cluster):
# N_NAME N_IP N_NETNS N_NSNET N_DIR N_PODS (its pod range) N_SUFFIX (of its pid files) N_CGROOT (its kubelet's cgroup root)
node_vars() {
  local i=$1
  if (( i == 1 )); then
    N_NAME=$NODE_NAME N_NETNS=$NETNS N_DIR=$CLUSTER/node N_SUFFIX= N_CGROOT=/
  else
    N_NAME=$NODE_NAME-$i N_NETNS=$NETNS-$i N_DIR=$CLUSTER/node-$i N_SUFFIX=-$i N_CGROOT=/$NODE_NAME-$i
  fi
  N_IP=10.217.0.$i N_NSNET=/run/netns/$N_NETNS N_PODS=10.245.$((i - 1)).0/24
}
