#!/usr/bin/env bash
# The chart checks' tools, built once from the Go module proxy into $PACER_K8S/bin (helm itself comes from
# test/cluster/build-binaries.sh): kubeconform, and helm-unittest registered as a helm plugin without its download hook
# (the plugin's installer fetches from GitHub, which is not reachable). Also the prometheus-operator module, whose CRDs
# give the ServiceMonitor/PodMonitor schemas. Idempotent; cold about 1-2 minutes.
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
. "$DIR/../cluster/env.sh"
. "$DIR/env.sh"
KUBECONFORM_VERSION=v0.8.0
UNITTEST_VERSION=v1.1.2
mkdir -p "$PACER_K8S/bin" "$CHART_TOOLS"
if [[ ! -x $PACER_K8S/bin/kubeconform ]]; then
  log "building kubeconform $KUBECONFORM_VERSION"
  GOFLAGS=-buildvcs=false GOBIN=$PACER_K8S/bin go install -trimpath -ldflags="-s -w" github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION
fi
if [[ ! -x $CHART_TOOLS/unittest-plugin/untt ]]; then
  log "building helm-unittest $UNITTEST_VERSION"
  # its go.mod has a replace directive, so 'go install pkg@version' refuses it: build inside a writable copy
  src=$(go mod download -json github.com/helm-unittest/helm-unittest@$UNITTEST_VERSION | python3 -c 'import sys,json;print(json.load(sys.stdin)["Dir"])')
  rm -rf "$CHART_TOOLS/helm-unittest-src" && cp -r "$src" "$CHART_TOOLS/helm-unittest-src" && chmod -R u+w "$CHART_TOOLS/helm-unittest-src"
  mkdir -p "$CHART_TOOLS/unittest-plugin"
  (cd "$CHART_TOOLS/helm-unittest-src" && GOFLAGS=-buildvcs=false go build -trimpath -ldflags="-s -w" -o "$CHART_TOOLS/unittest-plugin/untt" ./cmd/helm-unittest)
  rm -rf "$CHART_TOOLS/helm-unittest-src"
fi
cat >"$CHART_TOOLS/unittest-plugin/plugin.yaml" <<YAML
name: "unittest"
version: "${UNITTEST_VERSION#v}"
usage: "unit tests for helm charts"
description: "helm-unittest built from the Go module proxy"
ignoreFlags: false
command: "\$HELM_PLUGIN_DIR/untt"
YAML
if ! helm plugin list 2>/dev/null | grep -q '^unittest'; then
  helm plugin install "$CHART_TOOLS/unittest-plugin" >/dev/null
fi
if [[ ! -f $CHART_TOOLS/prometheus-operator.dir ]]; then
  log "fetching the prometheus-operator module (its CRDs give the monitor schemas)"
  go mod download -json github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION \
    | python3 -c 'import sys,json;print(json.load(sys.stdin)["Dir"])' >"$CHART_TOOLS/prometheus-operator.dir"
fi
