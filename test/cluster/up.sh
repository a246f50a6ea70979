#!/usr/bin/env bash
# Starts the single-node test cluster: etcd + kube-apiserver + kube-controller-manager + kube-scheduler, and a real
# node (containerd + runc + bridge CNI + kubelet with the static CPU manager, 500m reserved: CPU 0 is the shared pool), all inside the network
# namespace $NETNS; containerd and kubelet also share a private mount namespace (see below). The host reaches the API
# through a forwarder on 127.0.0.1:$HOST_API_PORT (kubeconfig: $CLUSTER/admin-host.kubeconfig).
# Idempotent: a running, healthy cluster is left as it is. Every process id goes to $CLUSTER/pids for down.sh.
# Usage: up.sh [--control-plane-only]
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
. "$DIR/env.sh"
MODE=${1:-full}
B=$PACER_K8S/bin; P=$CLUSTER/pki; L=$CLUSTER/logs; N=$CLUSTER/node
t0=$(date +%s.%N)
elapsed() { echo "$(date +%s.%N) - $t0" | bc | xargs printf '%.1f'; }

if kubectl --kubeconfig="$KUBECONFIG_HOST" get --raw /readyz >/dev/null 2>&1; then
  if [[ $MODE != full ]] || kubectl --kubeconfig="$KUBECONFIG_HOST" get node "$NODE_NAME" \
      -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null | grep -q True; then
    log "already up (kubeconfig: $KUBECONFIG_HOST)"
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
wait_for() { # what seconds cmd...
  local what=$1 seconds=$2; shift 2
  for _ in $(seq 1 $((seconds * 4))); do
    "$@" >/dev/null 2>&1 && { log "$what ready after $(elapsed) s"; return 0; }
    sleep 0.25
  done
  log "TIMEOUT waiting for $what; log tail:"; tail -20 "$L/$what.log" >&2 || true
  return 1
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
  --cluster-signing-cert-file="$P/ca.crt" --cluster-signing-key-file="$P/ca.key" --service-cluster-ip-range="$SERVICE_CIDR" --v=1
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

# --- the node ---
mkdir -p "$N/cni/net.d" "$N/cni/ipam" "$N/containerd" "$N/kubelet" "$N/pod-logs" "$N/fake-sysctl"
SOCK=$N/containerd/containerd.sock
cat >"$N/containerd/config.toml" <<TOML
version = 2
root = "$N/containerd/root"
state = "$N/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = "$SOCK"
[plugins."io.containerd.internal.v1.opt"]
  path = "$N/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "localhost/pacer/pause:3.10"
  stream_server_address = "127.0.0.1"
  enable_selinux = false
  disable_apparmor = true
  # root here lacks CAP_SYS_RESOURCE: a negative oom_score_adj makes runc fail; clamp to containerd's own.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$N/cni/net.d"
TOML
cat >"$N/cni/net.d/10-pacer.conflist" <<JSON
{ "cniVersion": "1.0.0", "name": "pacer",
  "plugins": [
    { "type": "bridge", "bridge": "pacer-cni0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
      "ipam": { "type": "host-local", "dataDir": "$N/cni/ipam", "ranges": [[{ "subnet": "$POD_CIDR" }]], "routes": [{ "dst": "0.0.0.0/0" }] } },
    { "type": "portmap", "capabilities": { "portMappings": true } } ] }
JSON
echo "nameserver 127.0.0.1" >"$N/resolv.conf"
cat >"$N/kubelet-config.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication: {anonymous: {enabled: false}, webhook: {enabled: true}, x509: {clientCAFile: $P/ca.crt}}
authorization: {mode: Webhook}
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://$SOCK
cpuManagerPolicy: static
# half a CPU reserved: the static policy keeps CPU 0 whole for the shared pool, and allocatable is 1.5 CPUs, the other
# CPU exclusive for a pinned server and 500m for the pods beside it to request, so that they weigh on CPU 0 as much as
# a process of the host does (a pod without a CPU request gets cpu.shares 2, and a host's busy loop starves it)
kubeReserved: {cpu: 500m}
failSwapOn: false
clusterDomain: cluster.local
resolvConf: $N/resolv.conf
address: $NODE_IP
healthzBindAddress: 127.0.0.1
readOnlyPort: 0
podLogsDir: $N/pod-logs
protectKernelDefaults: true
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
rotateCertificates: false
serializeImagePulls: false
YAML
# kubelet rewrites host-global sysctls unless protectKernelDefaults, which refuses to start unless they already hold
# its values: inside a private mount namespace, files with those values are bind-mounted over them.
cat >"$N/node-inner.sh" <<INNER
#!/usr/bin/env bash
set -e
for kv in vm/overcommit_memory=1 vm/panic_on_oom=0 kernel/panic=10 kernel/panic_on_oops=1 \
          kernel/keys/root_maxkeys=1000000 kernel/keys/root_maxbytes=25000000; do
  k=\${kv%=*}; f=$N/fake-sysctl/\$(echo \$k | tr / _); echo \${kv#*=} > \$f; mount --bind \$f /proc/sys/\$k
done
containerd --config $N/containerd/config.toml > $L/containerd.log 2>&1 &
echo \$! > $CLUSTER/pids/containerd.pid
for i in \$(seq 120); do ctr -a $SOCK version >/dev/null 2>&1 && break; sleep 0.5; done
for img in $IMAGES/*.tar; do ctr -a $SOCK -n k8s.io images import \$img >> $L/ctr-import.log 2>&1; done
$B/kubelet --config=$N/kubelet-config.yaml --kubeconfig=$CLUSTER/kubelet.kubeconfig --root-dir=$N/kubelet \
  --cert-dir=$N/kubelet/pki --node-ip=$NODE_IP --hostname-override=$NODE_NAME --v=1 > $L/kubelet.log 2>&1 &
echo \$! > $CLUSTER/pids/kubelet.pid
wait
INNER
chmod +x "$N/node-inner.sh"
setsid nsenter --net="$NSNET" -- unshare --mount --propagation private -- "$N/node-inner.sh" >"$L/node-inner.log" 2>&1 </dev/null &
echo $! >"$CLUSTER/pids/node-ns.pid"
node_ready() {
  kubectl --kubeconfig="$KUBECONFIG_HOST" get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' | grep -q True
}
wait_for kubelet 300 node_ready

# kube-proxy (iptables, in the cluster's network namespace only): ClusterIP Services work, among them the
# 'kubernetes' Service through which in-cluster clients such as the operator reach the API server
cat >"$CLUSTER/kube-proxy.yaml" <<YAML
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $CLUSTER/admin.kubeconfig}
mode: iptables
clusterCIDR: $POD_CIDR
hostnameOverride: $NODE_NAME
metricsBindAddress: 127.0.0.1:10249
healthzBindAddress: 127.0.0.1:10256
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
YAML
start kube-proxy "$B/kube-proxy" --config="$CLUSTER/kube-proxy.yaml" --v=1
wait_for kube-proxy 60 innet curl -sf http://127.0.0.1:10256/healthz
log "cluster up in $(elapsed) s (export KUBECONFIG=$KUBECONFIG_HOST)"
