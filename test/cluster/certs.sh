#!/usr/bin/env bash
# A throw-away PKI and kubeconfigs for the single-node test cluster (openssl, ~2 s, once).
set -euo pipefail
. "$(dirname "$0")/env.sh"
P=$CLUSTER/pki
[[ -f $P/ca.crt && -f $CLUSTER/admin-host.kubeconfig ]] && exit 0
mkdir -p "$P"; cd "$P"
openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -keyout ca.key -out ca.crt -subj "/CN=pacer-test-ca" 2>/dev/null
cert() { # name CN O [SAN]
  local n=$1 cn=$2 o=$3 san=${4:-} subj="/CN=$2"
  [[ -n $o ]] && subj="/O=$o/CN=$cn"
  openssl req -newkey rsa:2048 -nodes -keyout "$n.key" -out "$n.csr" -subj "$subj" 2>/dev/null
  if [[ -n $san ]]; then
    printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n' "$san" >"$n.ext"
  else
    printf 'extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n' >"$n.ext"
  fi
  openssl x509 -req -in "$n.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 -extfile "$n.ext" -out "$n.crt" 2>/dev/null
  rm -f "$n.csr" "$n.ext"
}
cert apiserver kube-apiserver "" "IP:127.0.0.1,IP:$NODE_IP,IP:$SERVICE_IP0,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
cert admin kubernetes-admin system:masters
cert kcm system:kube-controller-manager ""
cert sched system:kube-scheduler ""
cert kubelet "system:node:$NODE_NAME" system:nodes
cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters
openssl genrsa -out sa.key 2048 2>/dev/null
openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
kubeconfig() { # file user cert server
  local f=$CLUSTER/$1
  kubectl config --kubeconfig="$f" set-cluster pacer-test --server="$4" --certificate-authority="$P/ca.crt" --embed-certs >/dev/null
  kubectl config --kubeconfig="$f" set-credentials "$2" --client-certificate="$P/$3.crt" --client-key="$P/$3.key" --embed-certs >/dev/null
  kubectl config --kubeconfig="$f" set-context default --cluster=pacer-test --user="$2" >/dev/null
  kubectl config --kubeconfig="$f" use-context default >/dev/null
}
kubeconfig admin.kubeconfig admin admin "https://127.0.0.1:$API_PORT"
kubeconfig admin-host.kubeconfig admin admin "https://127.0.0.1:$HOST_API_PORT"
kubeconfig kcm.kubeconfig kcm kcm "https://127.0.0.1:$API_PORT"
kubeconfig sched.kubeconfig sched sched "https://127.0.0.1:$API_PORT"
kubeconfig kubelet.kubeconfig kubelet kubelet "https://127.0.0.1:$API_PORT"
