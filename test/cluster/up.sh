#!/usr/bin/env bash
# Starts the test cluster: etcd + kube-apiserver + kube-controller-manager + kube-scheduler, and a real node
# (node-up.sh: containerd + runc + bridge CNI + kubelet with the static CPU manager, 500m reserved: CPU 0 is the shared
# pool), all inside the network namespace $NETNS. The host reaches the API
# through a forwarder on 127.0.0.1:$HOST_API_PORT (kubeconfig: $CLUSTER/admin-host.kubeconfig).
# Idempotent: a running, healthy cluster is left as it is. Every process id goes to $CLUSTER/pids for down.sh.
# NODES=3 (at most $MAX_NODES) adds nodes in network namespaces of their own (node-up.sh), and labels the pools the
# examples ask for: node 1 pacer.dev/pool=server, the others pacer.dev/pool=clients. NODES=3 on a running one-node
# cluster adds the missing nodes and leaves the rest as it is.
# Usage: [NODES=1|2|3] up.sh [--control-plane-only]
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
. "$DIR/env.sh"
MODE=${1:-full}
NODES=${NODES:-1}
[[ $NODES =~ ^[1-9]$ ]] && (( NODES <= MAX_NODES )) || { echo "NODES is 1..$MAX_NODES, not '$NODES'" >&2; exit 2; }
B=$PACER_K8S/bin; P=$CLUSTER/pki; L=$CLUSTER/logs; N=$CLUSTER/node
t0=$(date +%s.%N)

label_pools() { # the node pools of the multi-node examples
  (( NODES > 1 )) || return 0
  kubectl --kubeconfig="$KUBECONFIG_HOST" label node "$NODE_NAME" pacer.dev/pool=server --overwrite >/dev/null
  for i in $(seq 2 "$NODES"); do
    kubectl --kubeconfig="$KUBECONFIG_HOST" label node "$NODE_NAME-$i" pacer.dev/pool=clients --overwrite >/dev/null
  done
}
if kubectl --kubeconfig="$KUBECONFIG_HOST" get --raw /readyz >/dev/null 2>&1; then
  if [[ $MODE != full ]]; then log "already up (kubeconfig: $KUBECONFIG_HOST)"; exit 0; fi
  if kubectl --kubeconfig="$KUBECONFIG_HOST" get node "$NODE_NAME" \
      -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null | grep -q True; then
    # a running cluster: only the nodes it lacks are started
    for i in $(seq 2 "$NODES"); do "$DIR/node-up.sh" "$i"; done
    label_pools
    log "already up, $NODES node(s) (kubeconfig: $KUBECONFIG_HOST)"
    exit 0
  fi
fi
"$DIR/down.sh" >/dev/null 2>&1 || true
"$DIR/install-packages.sh"
"$DIR/build-binaries.sh"
"$DIR/certs.sh"
[[ $MODE != full ]] || "$DIR/images.sh" base
rm -rf "$CLUSTER/etcd-data" "$N" "$L" "$CLUSTER/pids"
mkdir -p "$L" "$CLUSTER/pids"

start() { # name cmd... : detached inside $NETNS, pid recorded
  local name=$1; shift
  setsid nsenter --net="$NSNET" -- "$@" >"$L/$name.log" 2>&1 </dev/null &
  echo $! >"$CLUSTER/pids/$name.pid"
}

# network namespace: loopback and a veth holding the node IP; nothing touches the host's interfaces
if [[ ! -e $NSNET ]]; then
  ip netns add "$NETNS"
  ip -n "$NETNS" link set lo up
  ip -n "$NETNS" link add pacer0 type veth peer name pacer1
  ip -n "$NETNS" addr add "$NODE_IP/24" dev pacer0
  ip -n "$NETNS" link set pacer0 up
  ip -n "$NETNS" link set pacer1 up
  ip -n "$NETNS" route add default via "${NODE_IP%.*}.254" dev pacer0 onlink
fi

start etcd etcd --name pacer --data-dir "$CLUSTER/etcd-data" \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
  --initial-cluster pacer=http://127.0.0.1:2380 --listen-metrics-urls http://127.0.0.1:2381
wait_for etcd 30 innet curl -sf http://127.0.0.1:2381/health

start kube-apiserver "$B/kube-apiserver" --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
  --bind-address=0.0.0.0 --secure-port="$API_PORT" --advertise-address="$NODE_IP" \
  --tls-cert-file="$P/apiserver.crt" --tls-private-key-file="$P/apiserver.key" --client-ca-file="$P/ca.crt" \
  --kubelet-client-certificate="$P/apiserver-kubelet-client.crt" --kubelet-client-key="$P/apiserver-kubelet-client.key" \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$P/sa.pub" --service-account-signing-key-file="$P/sa.key" \
  --service-cluster-ip-range="$SERVICE_CIDR" --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
  --kubelet-preferred-address-types=InternalIP --allow-privileged=true --profiling=false --v=1
wait_for kube-apiserver 180 innet kubectl --kubeconfig="$CLUSTER/admin.kubeconfig" get --raw /readyz

start kube-controller-manager "$B/kube-controller-manager" \
  --kubeconfig="$CLUSTER/kcm.kubeconfig" --authentication-kubeconfig="$CLUSTER/kcm.kubeconfig" --authorization-kubeconfig="$CLUSTER/kcm.kubeconfig" \
  --bind-address=127.0.0.1 --leader-elect=false --use-service-account-credentials=true \
  --service-account-private-key-file="$P/sa.key" --root-ca-file="$P/ca.crt" \
  --cluster-signing-cert-file="$P/ca.crt" --cluster-signing-key-file="$P/ca.key" --service-cluster-ip-range="$SERVICE_CIDR" \
  --node-monitor-period=5s --node-monitor-grace-period="$NODE_MONITOR_GRACE_PERIOD" --v=1
start kube-scheduler "$B/kube-scheduler" \
  --kubeconfig="$CLUSTER/sched.kubeconfig" --authentication-kubeconfig="$CLUSTER/sched.kubeconfig" --authorization-kubeconfig="$CLUSTER/sched.kubeconfig" \
  --bind-address=127.0.0.1 --leader-elect=false --v=1
wait_for kube-controller-manager 120 innet curl -skf https://127.0.0.1:10257/healthz
wait_for kube-scheduler 120 innet curl -skf https://127.0.0.1:10259/healthz

# host forwarder: 127.0.0.1:$HOST_API_PORT -> the apiserver inside the namespace
setsid socat "TCP-LISTEN:$HOST_API_PORT,bind=127.0.0.1,reuseaddr,fork" \
  EXEC:"nsenter --net=$NSNET -- socat STDIO TCP\:127.0.0.1\:$API_PORT" >"$L/socat.log" 2>&1 </dev/null &
echo $! >"$CLUSTER/pids/socat.pid"
wait_for socat 20 kubectl --kubeconfig="$KUBECONFIG_HOST" get --raw /readyz
[[ $MODE == full ]] || { log "control plane up in $(elapsed) s"; exit 0; }

for i in $(seq 1 "$NODES"); do "$DIR/node-up.sh" "$i"; done
label_pools
log "cluster up in $(elapsed) s, $NODES node(s) (export KUBECONFIG=$KUBECONFIG_HOST)"
