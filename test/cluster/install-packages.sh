#!/usr/bin/env bash
# Debian packages of the test cluster, installed once (idempotent): etcd, containerd, runc, CNI plugins, and the tools
# that build images without a Docker engine, a real OCI registry (docker-registry: CNCF distribution) to push them to,
# and libfaketime (a node whose clock is off, for the multi-node tier).
set -euo pipefail
PKGS=(etcd-server containerd runc containernetworking-plugins iptables conntrack socat umoci skopeo busybox-static
      gcc libc6-dev bc openssl iproute2 util-linux curl python3-yaml docker-registry libfaketime)
missing=()
for p in "${PKGS[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p"); done
(( ${#missing[@]} == 0 )) && exit 0
echo "[cluster] installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Debian starts containerd and the registry as services: the tests run their own, with their own sockets, ports and state.
command -v systemctl >/dev/null && systemctl disable --now containerd docker-registry >/dev/null 2>&1 || true
pkill -x docker-registry 2>/dev/null || true
