#!/usr/bin/env bash
# Offline checks of charts/pacer: its CRDs and dashboards are the top-level ones, helm lint --strict, helm-unittest,
# and 'helm template' under several value sets validated by kubeconform -strict against schemas generated here from
# Kubernetes' own OpenAPI document, our CRD and the prometheus-operator CRDs. Prints one line per check.
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
. "$DIR/../cluster/env.sh"
. "$DIR/env.sh"
REPO="$(cd "$DIR/../.." && pwd)"
CHART=$REPO/charts/pacer
"$DIR/tools.sh"
if [[ ! -f $SCHEMAS/deployment-apps-v1.json || ! -f $SCHEMAS/persistentvolumeclaim-v1.json || ! -f $SCHEMAS/statefulset-apps-v1.json ]]; then
  python3 "$DIR/kubeconform_schemas.py" "$SCHEMAS" --swagger "$GOMODCACHE/k8s.io/kubernetes@$K8S_VERSION/api/openapi-spec/swagger.json" \
    --kinds Deployment,StatefulSet,Secret,Service,ServiceAccount,PersistentVolumeClaim,ClusterRole,ClusterRoleBinding,Role,RoleBinding,ConfigMap,Namespace,CustomResourceDefinition >/dev/null
  po="$(cat "$CHART_TOOLS/prometheus-operator.dir")/example/prometheus-operator-crd"
  python3 "$DIR/kubeconform_schemas.py" "$SCHEMAS" --crd "$po/monitoring.coreos.com_servicemonitors.yaml" --crd "$po/monitoring.coreos.com_podmonitors.yaml" >/dev/null
fi
for crd in "$REPO"/crds/*.yml; do python3 "$DIR/kubeconform_schemas.py" "$SCHEMAS" --crd "$crd" >/dev/null; done

diff -r "$REPO/crds" "$CHART/crds" >/dev/null || { echo "FAIL charts/pacer/crds differs from crds/: cp crds/* charts/pacer/crds/"; exit 1; }
echo "ok   charts/pacer/crds is crds/"
if [[ -d $REPO/dashboards ]]; then
  diff -r "$REPO/dashboards" "$CHART/dashboards" >/dev/null || { echo "FAIL charts/pacer/dashboards differs from dashboards/: cp dashboards/*.json charts/pacer/dashboards/"; exit 1; }
  echo "ok   charts/pacer/dashboards is dashboards/"
fi
helm lint --strict "$CHART" >/dev/null && echo "ok   helm lint --strict"
helm unittest "$CHART" | tail -5
validate() { # files... → kubeconform's summary line; fails (with every message) unless every resource is valid
  local out
  out=$(kubeconform -strict -summary -kubernetes-version "${K8S_VERSION#v}" -schema-location "$SCHEMAS/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$@" 2>&1) \
    || { echo "$out" >&2; return 1; }
  tail -1 <<<"$out"
}
OUT=$(mktemp -d); trap 'rm -rf "$OUT"' EXIT
for values in "" "--set metrics.serviceMonitor.force=true --set metrics.podMonitor.force=true" \
              "--set rbac.scope=namespaced --set operator.watchNamespaces={bench,perf} --set operator.agentAccess=apiServerProxy" \
              "--set grafana.dashboards.enabled=false --set metrics.service.enabled=false" \
              "--set artifacts.persistence.enabled=true --set artifacts.retention=0 --set artifacts.readers[0].kind=Group --set artifacts.readers[0].name=perf --set artifacts.readers[0].apiGroup=rbac.authorization.k8s.io" \
              "--set artifacts.enabled=false" "--set history.enabled=true --set history.postgresql.deploy=true"; do
  # shellcheck disable=SC2086
  helm template rel "$CHART" --namespace pacer-system --include-crds $values >"$OUT/rendered.yaml"
  summary=$(validate "$OUT/rendered.yaml") || { echo "FAIL helm template ${values:-(defaults)}"; exit 1; }
  echo "ok   helm template ${values:-(defaults)}: $summary"
done
summary=$(validate $(find "$REPO/examples" -name '*.yaml')) || { echo "FAIL examples/"; exit 1; }
echo "ok   examples: $summary"
# the schemas must catch a misplaced field, or the checks above prove nothing
printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec: {containers: [{name: c, image: i, readOnlyRootFilesystem: true}]}\n' >"$OUT/broken.yaml"
if validate "$OUT/broken.yaml" >/dev/null 2>&1; then echo "FAIL kubeconform accepted a misplaced field"; exit 1; fi
sed 's/^    rate: "200"/    rat: "200"/' "$REPO/examples/cluster-quickstart.yaml" >"$OUT/misspelt-run.yaml"
if validate "$OUT/misspelt-run.yaml" >/dev/null 2>&1; then echo "FAIL kubeconform accepted a BenchmarkRun with spec.clients.rat"; exit 1; fi
echo "ok   kubeconform rejects a misplaced field and a misspelt BenchmarkRun field"
