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
export NETNS=pacer-k8s                   # every daemon runs in this network namespace
export NSNET=/run/netns/$NETNS
export NODE_NAME=pacer-node
export NODE_IP=10.217.0.1                # on a veth inside $NETNS only
export POD_CIDR=10.245.0.0/24
export SERVICE_CIDR=10.97.0.0/16
export SERVICE_IP0=10.97.0.1
export API_PORT=6443                     # inside $NETNS
export HOST_API_PORT=${HOST_API_PORT:-16443}   # forwarder on the host's 127.0.0.1
export ETCD_PORT=2379
export KUBECONFIG_HOST=$CLUSTER/admin-host.kubeconfig
export IMAGES=$PACER_K8S/images
# Run inside the cluster's network namespace (nsenter keeps /sys/fs/cgroup visible, unlike `ip netns exec`).
innet() { nsenter --net=$NSNET -- "$@"; }
log() { echo "[cluster] $*" >&2; }
