#!/usr/bin/env bash
# A cluster whose kubelet has no static CPU manager, as a default install has: the node's kubelet restarted with
# cpuManagerPolicy none, then
#   - `pacer check` of the cluster quickstart exits 1 within seconds, naming the node's policy, spec.server.cpus and the fix;
#   - the quickstart applied anyway (the operator as its own process) fails at once with the reason NotPinned, before
#     any load, naming the pod's CPUs, the node and the fix;
# and the kubelet back on the static policy. One line per check.
set -uo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
. "$DIR/env.sh"
REPO="$(cd "$DIR/../.." && pwd)"
export KUBECONFIG=$KUBECONFIG_HOST
NS=pacer-unpinned
passed=0; failed=0
check() { # description command...
  local what=$1; shift
  if "$@" >/dev/null 2>&1; then echo "ok   $what"; passed=$((passed + 1)); else echo "FAIL $what"; failed=$((failed + 1)); fi
}
WORK=$(mktemp -d)
OP_PID=
cleanup() {
  [[ -z $OP_PID ]] || kill "$OP_PID" 2>/dev/null
  kubectl delete namespace "$NS" --ignore-not-found --wait=true --timeout=120s >/dev/null 2>&1
  "$DIR/restart-kubelet.sh" static >/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
check "the kubelet restarted with cpuManagerPolicy none" "$DIR/restart-kubelet.sh" none

t0=$(date +%s%N)
"$REPO/pacer" check --no-monitors "$REPO/examples/cluster-quickstart.yaml" >"$WORK/check.txt" 2>&1; code=$?
took_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "pacer check: exit $code after $took_ms ms, the node's policy none, spec.server.cpus and the fix named" \
  bash -c "[[ $code == 1 ]] && grep -q 'cpuManagerPolicy none' '$WORK/check.txt' \
    && grep -q 'problem  spec.server.cpus: .*no node runs the static CPU manager.*pacer-node: none.*pinCpus: false' '$WORK/check.txt'"
[[ $code == 1 ]] || cat "$WORK/check.txt"

kubectl apply --server-side --force-conflicts -f "$REPO/crds/" >/dev/null
kubectl create namespace "$NS" --dry-run=client -o yaml | kubectl apply -f - >/dev/null
JAVA_HOME=$("$REPO/scripts/find-jdk.sh")
env PACER_AGENT_ACCESS=apiServerProxy PACER_WATCH_NAMESPACES="$NS" PACER_METRICS_PORT=0 PACER_PROBE_NAMESPACE="$NS" \
  "$JAVA_HOME/bin/java" -cp "$REPO/operator/target/app/lib/*" dev.pacer.operator.PacerOperator >"$WORK/operator.log" 2>&1 &
OP_PID=$!
for _ in $(seq 120); do grep -q "metrics on port" "$WORK/operator.log" && break; sleep 0.5; done
t1=$(date +%s)
kubectl apply -n "$NS" -f "$REPO/examples/cluster-quickstart.yaml" >/dev/null
phase=
for _ in $(seq 180); do
  phase=$(kubectl get br cluster-quickstart -n "$NS" -o jsonpath='{.status.phase}' 2>/dev/null)
  [[ $phase == Succeeded || $phase == Failed ]] && break; sleep 1
done
took=$(( $(date +%s) - t1 ))
reason=$(kubectl get br cluster-quickstart -n "$NS" -o jsonpath='{.status.conditions[?(@.type=="Failed")].reason}')
kubectl get br cluster-quickstart -n "$NS" -o jsonpath='{.status.conditions[?(@.type=="Failed")].message}' >"$WORK/message.txt"
message=$(cat "$WORK/message.txt")
loaded=$(kubectl get br cluster-quickstart -n "$NS" -o jsonpath='{.status.result.clients.requests}')
check "the quickstart applied anyway: ${phase:-?} with reason ${reason:-none} after $took s, no load applied" \
  bash -c "[[ '$phase' == Failed && '$reason' == NotPinned && -z '$loaded' ]]"
check "its reason names the pod's CPUs, the node and the fix: ${message:0:120}…" \
  bash -c "m='$WORK/message.txt'; grep -q 'cluster-quickstart-server asked for 1 exclusive CPU but runs on CPUs' \$m && grep -q 'node pacer-node' \$m \
    && grep -q 'cpuManagerPolicy: static' \$m && grep -q 'pinCpus: false' \$m"
echo "$passed passed, $failed failed"
(( failed == 0 ))
