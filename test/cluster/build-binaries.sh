#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager, kube-scheduler, kubelet and kube-proxy v1.32.2 from the Go module proxy, once,
# into $PACER_K8S/bin; helm too. k8s.io/kubernetes cannot be `go install`ed (its go.mod points every staging module at
# ./staging): a wrapper module re-states those replaces with the published v0.32.2 tags.
#   build-binaries.sh              all of them
#   build-binaries.sh NAME...      only these (make test builds kube-apiserver first, the tier-2 tests' one need, and the
#                                  rest in the background while those tests run)
set -euo pipefail
. "$(dirname "$0")/env.sh"
BINS=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy)
WANTED=("$@"); (( ${#WANTED[@]} > 0 )) || WANTED=("${BINS[@]}" helm)
for b in "${WANTED[@]}"; do
  [[ " ${BINS[*]} helm " == *" $b "* ]] || { echo "build-binaries.sh: unknown binary $b (one of: ${BINS[*]} helm)" >&2; exit 2; }
done
mkdir -p "$PACER_K8S/bin"
missing=()
for b in "${BINS[@]}"; do [[ " ${WANTED[*]} " == *" $b "* && ! -x $PACER_K8S/bin/$b ]] && missing+=("$b"); done
if (( ${#missing[@]} > 0 )); then
  command -v go >/dev/null || { echo "Go is needed to build Kubernetes (install golang)" >&2; exit 1; }
  W=$PACER_K8S/k8s-wrapper
  mkdir -p "$W"; cd "$W"
  if [[ ! -f go.mod ]]; then
    go mod init pacer.dev/k8s-wrapper >/dev/null 2>&1
    go mod edit -go=1.23.0 -require=k8s.io/kubernetes@$K8S_VERSION
    go mod download -json k8s.io/kubernetes@$K8S_VERSION >/dev/null
    KMOD=$GOMODCACHE/cache/download/k8s.io/kubernetes/@v/$K8S_VERSION.mod
    for m in $(awk '$2=="=>" && $3 ~ /^\.\/staging/ {print $1}' "$KMOD"); do
      [[ $m == k8s.io/sample-cli-plugin ]] && continue   # unused, not served
      go mod edit -replace="$m=$m@$K8S_STAGING_VERSION"
    done
  fi
  PKGS=(); for b in "${missing[@]}"; do PKGS+=("k8s.io/kubernetes/cmd/$b"); done
  log "building ${missing[*]} (cold, on 2 cores: kube-apiserver about 4 minutes, the other four 2 more)"
  go list -deps "${PKGS[@]}" >/dev/null
  go build -p 2 -trimpath -ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=32" \
    -o "$PACER_K8S/bin/" "${PKGS[@]}"
fi
if [[ " ${WANTED[*]} " == *" helm "* && ! -x $PACER_K8S/bin/helm ]]; then
  log "building helm $HELM_VERSION"
  GOBIN=$PACER_K8S/bin go install helm.sh/helm/v3/cmd/helm@$HELM_VERSION
fi
# fabric8 kube-api-test's layout, pointed at the same binaries: $KUBE_API_TEST_DIR/k8s/<version>-linux-amd64/
KAT=$PACER_K8S/kube-api-test/k8s/${K8S_VERSION#v}-linux-amd64
mkdir -p "$KAT"
ln -sf "$PACER_K8S/bin/kube-apiserver" "$KAT/kube-apiserver"
ln -sf "$(command -v etcd || echo /usr/bin/etcd)" "$KAT/etcd"
ln -sf "$(command -v kubectl || echo /usr/bin/kubectl)" "$KAT/kubectl"
