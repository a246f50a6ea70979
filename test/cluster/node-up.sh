#!/usr/bin/env bash
# Starts node I of the test cluster (after up.sh started the control plane): containerd + runc + bridge CNI + kubelet
# with the static CPU manager (500m reserved: CPU 0 is the shared pool) + kube-proxy, in the node's own network
# namespace; containerd and kubelet also share a private mount namespace (see below).
#   node 1 shares the control plane's namespace ($NETNS), its kubelet's cgroups are the default /kubepods;
#   node I > 1 gets a namespace of its own ($NETNS-I) and a veth whose other end joins the bridge pacer-nodes in $NETNS,
#   where node 1's own veth end is too: the nodes share one L2 segment (10.217.0.0/24), and each routes every other
#   node's pod range (10.245.<I-1>.0/24) to that node's IP. Its kubelet's cgroups live under /pacer-node-I/, so
#   three kubelets on one host never touch each other's pods. Nothing touches the host's interfaces.
# The nodes share the host's CPUs: every kubelet sees all of them, and pins on them as if they were its own.
# Idempotent: a node whose kubelet runs and is Ready is left as it is. Every process id goes to $CLUSTER/pids.
# Usage: node-up.sh I
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
. "$DIR/env.sh"
i=${1:?usage: node-up.sh NODE_INDEX}
(( i >= 1 && i <= MAX_NODES )) || { echo "node index is 1..$MAX_NODES, not $i" >&2; exit 2; }
node_vars "$i"
B=$PACER_K8S/bin; P=$CLUSTER/pki; L=$CLUSTER/logs; N=$N_DIR
t0=$(date +%s.%N)
k() { kubectl --kubeconfig="$KUBECONFIG_HOST" "$@"; }
node_ready() { k get node "$N_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null | grep -q True; }
pid_alive() { [[ -f $CLUSTER/pids/$1.pid ]] && kill -0 "$(cat "$CLUSTER/pids/$1.pid")" 2>/dev/null; }
if pid_alive "kubelet$N_SUFFIX" && node_ready; then log "$N_NAME already up"; exit 0; fi
mkdir -p "$L" "$CLUSTER/pids"
if (( i > 1 )); then # a node half up (a kubelet that died, a node not Ready): its processes go first
  for name in kube-proxy kubelet containerd node-ns; do
    f=$CLUSTER/pids/$name$N_SUFFIX.pid
    [[ -f $f ]] && { kill "$(cat "$f")" 2>/dev/null || true; rm -f "$f"; }
  done
fi

# --- the node's network ---
if (( i > 1 )); then
  # the shared segment: a bridge in node 1's namespace, node 1's own veth end (pacer1) on it
  if ! innet ip link show pacer-nodes >/dev/null 2>&1; then
    innet ip link add pacer-nodes type bridge
    innet ip link set pacer-nodes up
    innet ip link set pacer1 master pacer-nodes
  fi
  if [[ ! -e $N_NSNET ]]; then
    ip netns add "$N_NETNS"
    ip -n "$N_NETNS" link set lo up
    ip -n "$N_NETNS" link add eth0 type veth peer name "pacer-n$i" netns "$NETNS"
    ip -n "$N_NETNS" addr add "$N_IP/24" dev eth0
    ip -n "$N_NETNS" link set eth0 up
    innet ip link set "pacer-n$i" master pacer-nodes
    innet ip link set "pacer-n$i" up
    ip -n "$N_NETNS" route add default via "$NODE_IP" dev eth0
  fi
  ip netns exec "$N_NETNS" sysctl -qw net.ipv4.ip_forward=1
  innet sysctl -qw net.ipv4.ip_forward=1
  # every node routes every other node's pod range to that node
  for j in $(seq 1 "$MAX_NODES"); do
    (( j == i )) && continue
    node_vars "$j"; other_ip=$N_IP other_pods=$N_PODS
    node_vars "$i"
    ip netns exec "$N_NETNS" ip route replace "$other_pods" via "$other_ip" dev eth0
    # node 1 routes this node's range (and nodes not yet started: a route to an absent host is harmless)
    (( j == 1 )) && innet ip route replace "$N_PODS" via "$N_IP" dev pacer0
  done
  # the kubelet's credentials: its own node identity (the Node authorizer and NodeRestriction check it), and a
  # kubeconfig reaching the API server at node 1's IP
  if [[ ! -f $CLUSTER/kubelet$N_SUFFIX.kubeconfig ]]; then
    (cd "$P"
     openssl req -newkey rsa:2048 -nodes -keyout "kubelet$N_SUFFIX.key" -out "kubelet$N_SUFFIX.csr" -subj "/O=system:nodes/CN=system:node:$N_NAME" 2>/dev/null
     printf 'extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n' >"kubelet$N_SUFFIX.ext"
     openssl x509 -req -in "kubelet$N_SUFFIX.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 -extfile "kubelet$N_SUFFIX.ext" \
       -out "kubelet$N_SUFFIX.crt" 2>/dev/null
     rm -f "kubelet$N_SUFFIX.csr" "kubelet$N_SUFFIX.ext")
    for f in "kubelet$N_SUFFIX:kubelet$N_SUFFIX" "kube-proxy$N_SUFFIX:admin"; do
      kc=$CLUSTER/${f%%:*}.kubeconfig cred=${f#*:}
      kubectl config --kubeconfig="$kc" set-cluster pacer-test --server="https://$NODE_IP:$API_PORT" --certificate-authority="$P/ca.crt" --embed-certs >/dev/null
      kubectl config --kubeconfig="$kc" set-credentials "$cred" --client-certificate="$P/$cred.crt" --client-key="$P/$cred.key" --embed-certs >/dev/null
      kubectl config --kubeconfig="$kc" set-context default --cluster=pacer-test --user="$cred" >/dev/null
      kubectl config --kubeconfig="$kc" use-context default >/dev/null
    done
  fi
  # the kubelet refuses a cgroup root that does not exist; the cpuset hierarchy needs its CPUs and memory nodes set
  for hierarchy in /sys/fs/cgroup/*/; do
    [[ -f ${hierarchy}cgroup.procs ]] || continue
    mkdir -p "$hierarchy${N_CGROOT#/}"
  done
  if [[ -d /sys/fs/cgroup/cpuset${N_CGROOT} ]]; then
    cat /sys/fs/cgroup/cpuset/cpuset.cpus >"/sys/fs/cgroup/cpuset${N_CGROOT}/cpuset.cpus"
    cat /sys/fs/cgroup/cpuset/cpuset.mems >"/sys/fs/cgroup/cpuset${N_CGROOT}/cpuset.mems"
  fi
  KUBELET_KUBECONFIG=$CLUSTER/kubelet$N_SUFFIX.kubeconfig PROXY_KUBECONFIG=$CLUSTER/kube-proxy$N_SUFFIX.kubeconfig
else
  KUBELET_KUBECONFIG=$CLUSTER/kubelet.kubeconfig PROXY_KUBECONFIG=$CLUSTER/admin.kubeconfig
fi

# --- containerd, kubelet ---
rm -rf "$N"
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
        Root = "$N/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$N/cni/net.d"
TOML
cat >"$N/cni/net.d/10-pacer.conflist" <<JSON
{ "cniVersion": "1.0.0", "name": "pacer",
  "plugins": [
    { "type": "bridge", "bridge": "pacer-cni0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
      "ipam": { "type": "host-local", "dataDir": "$N/cni/ipam", "ranges": [[{ "subnet": "$N_PODS" }]], "routes": [{ "dst": "0.0.0.0/0" }] } },
    { "type": "portmap", "capabilities": { "portMappings": true } } ] }
JSON
echo "nameserver 127.0.0.1" >"$N/resolv.conf"
cat >"$N/kubelet-config.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication: {anonymous: {enabled: false}, webhook: {enabled: true}, x509: {clientCAFile: $P/ca.crt}}
authorization: {mode: Webhook}
cgroupDriver: cgroupfs
cgroupRoot: $N_CGROOT
containerRuntimeEndpoint: unix://$SOCK
cpuManagerPolicy: static
# half a CPU reserved: the static policy keeps CPU 0 whole for the shared pool, and allocatable is 1.5 CPUs, the other
# CPU exclusive for a pinned server and 500m for the pods beside it to request, so that they weigh on CPU 0 as much as
# a process of the host does (a pod without a CPU request gets cpu.shares 2, and a host's busy loop starves it)
kubeReserved: {cpu: 500m}
failSwapOn: false
clusterDomain: cluster.local
resolvConf: $N/resolv.conf
address: $N_IP
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
containerd --config $N/containerd/config.toml > $L/containerd$N_SUFFIX.log 2>&1 &
echo \$! > $CLUSTER/pids/containerd$N_SUFFIX.pid
for i in \$(seq 120); do ctr -a $SOCK version >/dev/null 2>&1 && break; sleep 0.5; done
for img in $IMAGES/*.tar; do ctr -a $SOCK -n k8s.io images import \$img >> $L/ctr-import$N_SUFFIX.log 2>&1; done
$B/kubelet --config=$N/kubelet-config.yaml --kubeconfig=$KUBELET_KUBECONFIG --root-dir=$N/kubelet \
  --cert-dir=$N/kubelet/pki --node-ip=$N_IP --hostname-override=$N_NAME --v=1 > $L/kubelet$N_SUFFIX.log 2>&1 &
echo \$! > $CLUSTER/pids/kubelet$N_SUFFIX.pid
wait
INNER
chmod +x "$N/node-inner.sh"
setsid nsenter --net="$N_NSNET" -- unshare --mount --propagation private -- "$N/node-inner.sh" >"$L/node-inner$N_SUFFIX.log" 2>&1 </dev/null &
echo $! >"$CLUSTER/pids/node-ns$N_SUFFIX.pid"
wait_for "kubelet$N_SUFFIX" 300 node_ready
# the node's pod range, for the tests that check where traffic comes from (the bridge plugin's own, not the API's)
k annotate node "$N_NAME" "pacer.dev/test-pod-range=$N_PODS" --overwrite >/dev/null

# kube-proxy (iptables, in the node's network namespace only): ClusterIP Services work, among them the
# 'kubernetes' Service through which in-cluster clients such as the operator reach the API server
cat >"$CLUSTER/kube-proxy$N_SUFFIX.yaml" <<YAML
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $PROXY_KUBECONFIG}
mode: iptables
clusterCIDR: $( (( i == 1 )) && echo "$POD_CIDR" || echo "$PODS_CIDR")
hostnameOverride: $N_NAME
metricsBindAddress: 127.0.0.1:10249
healthzBindAddress: 127.0.0.1:10256
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
YAML
setsid nsenter --net="$N_NSNET" -- "$B/kube-proxy" --config="$CLUSTER/kube-proxy$N_SUFFIX.yaml" --v=1 >"$L/kube-proxy$N_SUFFIX.log" 2>&1 </dev/null &
echo $! >"$CLUSTER/pids/kube-proxy$N_SUFFIX.pid"
wait_for "kube-proxy$N_SUFFIX" 60 nsenter --net="$N_NSNET" -- curl -sf http://127.0.0.1:10256/healthz
log "$N_NAME up in $(elapsed) s"
