#!/usr/bin/env bash
# A newcomer's install, driven by docs/installing.md itself. Its commands are read from the page's shell blocks
# (doc_command.py fails when one is gone or changed) and run from the repository's root against the running test
# cluster, the page's example registry (registry.example.com/pacer) replaced by a real OCI registry:
#   - Debian's docker-registry (the CNCF distribution registry) on the host's loopback, forwarded into the cluster's
#     network namespace, where the node's containerd pulls from it over plain HTTP;
#   - section 2: scripts/push-images.sh pushes every image to it;
#   - section 4: the one 'helm upgrade --install' with image.registry, the monitor labels and grafana.url, as written
#     (no Prometheus Operator here, so no monitor is rendered; the stack below scrapes the same targets), rollout status;
#   - section 6: ./pacer check, then the cluster quickstart applied unmodified; it ends Succeeded and Passed (or, on a
#     machine too busy for its BestEffort clients, Invalid with the clients named as the limit), every pod's image
#     pulled from the registry;
#   - its run dashboard rendered by Grafana (beside the cluster, scraping what the chart's monitors select) with data
#     in every panel;
#   - the page's uninstall leaves nothing of pacer.
# One line per check; the commands run are listed at the end. Needs: test/cluster/up.sh, test/observability (make test
# builds both), a JDK, Go.
set -uo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$DIR/../.." && pwd)"
. "$REPO/test/cluster/env.sh"
OBS="$REPO/test/observability"
. "$OBS/env.sh"
export KUBECONFIG=$KUBECONFIG_HOST    # what a newcomer's kubectl, helm and pacer read
DOC=$REPO/docs/installing.md
EXAMPLE_REGISTRY=registry.example.com/pacer
passed=0; failed=0
check() { # description command...
  local what=$1; shift
  if "$@" >/dev/null 2>&1; then echo "ok   $what"; passed=$((passed + 1)); else echo "FAIL $what"; failed=$((failed + 1)); fi
}
WORK=$(mktemp -d)
registry_pid=""; forwarder_pid=""
cleanup() {
  "$OBS/stack.sh" stop >/dev/null 2>&1
  [[ -z $forwarder_pid ]] || kill "$forwarder_pid" 2>/dev/null
  [[ -z $registry_pid ]] || kill "$registry_pid" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
kubectl get --raw /readyz >/dev/null 2>&1 || { echo "FAIL the test cluster is not up: test/cluster/up.sh"; exit 1; }

# the page's command, or a failed check naming what the page lacks
doc() { python3 "$DIR/doc_command.py" "$DOC" "$@"; }
# runs a command of the page from the repository's root, the example registry replaced by the test's
as_newcomer() {
  local command=${1//$EXAMPLE_REGISTRY/$REGISTRY}
  echo "\$ $command" >>"$WORK/commands.txt"
  (cd "$REPO" && eval "$command")
}
commands=()
for wanted in "scripts/push-images.sh $EXAMPLE_REGISTRY" "helm upgrade --install pacer charts/pacer|grafana.url" \
              "kubectl -n pacer-system rollout status" "./pacer check examples/cluster-quickstart.yaml" \
              "kubectl apply -f examples/cluster-quickstart.yaml" "helm uninstall pacer" "kubectl delete crd" \
              "kubectl delete namespace pacer-system"; do
  if command=$(doc "${wanted%%|*}" "$([[ $wanted == *'|'* ]] && echo "${wanted#*|}")" 2>"$WORK/doc.err"); then
    commands+=("$command")
  else
    echo "FAIL docs/installing.md lost a command of the install: $(head -1 "$WORK/doc.err")"; exit 1
  fi
done
push=${commands[0]} install=${commands[1]} rollout=${commands[2]} preflight=${commands[3]} apply=${commands[4]}
uninstall=${commands[5]} delete_crds=${commands[6]} delete_namespace=${commands[7]}

# the registry on the host's loopback, on a port of its own (images pulled from it are new to the node each time)
. "$REPO/test/images/registry.sh"
start_registry "$WORK" || { echo "FAIL the registry did not start"; exit 1; }
port=$registry_port
# the same address inside the cluster's network namespace, forwarded to the host's
HOST_NET=/proc/$$/ns/net
setsid nsenter --net="$NSNET" -- socat "TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr,fork" \
  EXEC:"nsenter --net=$HOST_NET -- socat STDIO TCP\:127.0.0.1\:$port" >"$WORK/forwarder.log" 2>&1 </dev/null &
forwarder_pid=$!
for _ in $(seq 100); do innet curl -sf "http://127.0.0.1:$port/v2/" >/dev/null 2>&1 && break; sleep 0.1; done
REGISTRY=127.0.0.1:$port/pacer
check "a registry at $REGISTRY, reached from the host and from the node's network namespace" innet curl -sf "http://127.0.0.1:$port/v2/"

# leftovers of an earlier install (the chart's test, an interrupted attempt): a newcomer's cluster has none
helm uninstall pacer -n pacer-system --wait >/dev/null 2>&1 || true
kubectl delete br cluster-quickstart --ignore-not-found --wait=true --timeout=120s >/dev/null 2>&1
kubectl delete namespace pacer-system --ignore-not-found --wait=true --timeout=120s >/dev/null 2>&1

t0=$(date +%s)
# a registry over plain HTTP and the base image from the local cache: the two settings section 2 documents
export PACER_INSECURE_REGISTRY=true PACER_IMAGE_BASE="tar://$PACER_K8S/java-base-cds.tar"
as_newcomer "$push" >"$WORK/push.log" 2>&1; push_code=$?
check "section 2, '$push': every image pushed ($(( $(date +%s) - t0 )) s)" test $push_code == 0
[[ $push_code == 0 ]] || tail -20 "$WORK/push.log"
catalog=$(curl -sf "http://127.0.0.1:$port/v2/_catalog")
check "the registry holds the operator, the load generator and the Jetty 12 server" \
  bash -c "grep -q '\"pacer/operator\"' <<<'$catalog' && grep -q '\"pacer/loadgen\"' <<<'$catalog' && grep -q '\"pacer/server-jetty12\"' <<<'$catalog'"
check "section 4, '$install'" as_newcomer "$install"
check "section 4, '$rollout'" timeout 300 bash -c "$(declare -f as_newcomer); REPO=$REPO WORK=$WORK REGISTRY=$REGISTRY EXAMPLE_REGISTRY=$EXAMPLE_REGISTRY; as_newcomer '$rollout'"
operator_image=$(kubectl -n pacer-system get pods -l app.kubernetes.io/instance=pacer -o jsonpath='{.items[0].status.containerStatuses[0].imageID}')
check "the operator's pod runs the image pulled from the registry: ${operator_image:-none}" bash -c "[[ '$operator_image' == $REGISTRY/operator@sha256:* ]]"

as_newcomer "$preflight" >"$WORK/check.txt" 2>&1; check_code=$?
check "section 6, '$preflight': exit $check_code, the node's static CPU manager fits the pinned server" \
  bash -c "[[ $check_code == 0 ]] && grep -q 'cpuManagerPolicy static' '$WORK/check.txt'"
[[ $check_code == 0 ]] || cat "$WORK/check.txt"

check "Prometheus and Grafana beside the cluster, scraping what the chart's monitors select" "$OBS/stack.sh" start
t1=$(date +%s)
check "section 6, '$apply'" as_newcomer "$apply"
phase=
for _ in $(seq 300); do
  phase=$(kubectl get br cluster-quickstart -o jsonpath='{.status.phase}' 2>/dev/null)
  [[ $phase == Succeeded || $phase == Failed ]] && break; sleep 1
done
kubectl get br cluster-quickstart -o json >"$WORK/run.json"
read -r verdict client_bound window_start window_end images < <(python3 - "$WORK/run.json" <<'PY'
import json, sys
status = json.load(open(sys.argv[1])).get("status", {})
result = status.get("result", {})
window = result.get("window", {})
images = sorted({p.get("imageId", p.get("image", "?")) for p in status.get("pods", [])})
print(result.get("verdict", "none"), str(result.get("clientBound", False)).lower(), window.get("startEpochMs", 0),
      window.get("endEpochMs", 0), ",".join(images) or "none")
PY
)
reasons=$(python3 -c 'import json,sys; print("; ".join(json.load(open(sys.argv[1]))["status"].get("result", {}).get("reasons", [])))' "$WORK/run.json" 2>/dev/null)
check "the cluster quickstart, unmodified: ${phase:-?}, verdict $verdict ($(( $(date +%s) - t1 )) s)${reasons:+: $reasons}" \
  bash -c "[[ '$phase' == Succeeded ]] && { [[ '$verdict' == Passed ]] || [[ '$verdict' == Invalid && '$client_bound' == true ]]; }"
[[ $phase == Succeeded ]] || python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["status"], indent=1)[:3000])' "$WORK/run.json"
grafana_url=$(grep -o 'grafana.url=[^ ]*' <<<"$install" | cut -d= -f2-)
dashboard=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"].get("dashboard", ""))' "$WORK/run.json" 2>/dev/null)
check "the command's grafana.url links the run to its dashboard: ${dashboard:-none}" \
  bash -c "[[ -n '$grafana_url' && '$dashboard' == '$grafana_url/d/pacer-run/run?'*'var-run=cluster-quickstart'* ]]"
check "its server and clients ran the images pulled from the registry: $images" \
  bash -c "[[ '$images' != none && -n '$images' ]] && ! tr ',' '\n' <<<'$images' | grep -qv '^$REGISTRY/'"

# the run dashboard over the run's window, as status.dashboard links it when grafana.url is set
sleep 6   # Prometheus's last scrapes of the finished run
from=$(( window_start - 10000 )); to=$(( window_end + 10000 ))
mkdir -p "$WORK/shots"
innet env NODE_PATH="$PACER_CACHE/observability-node/node_modules" node "$OBS/render.js" \
  "http://127.0.0.1:3391/d/pacer-run/run?var-namespace=default&var-run=cluster-quickstart&from=$from&to=$to&kiosk" \
  "$WORK/shots/run.png" >"$WORK/render.txt" 2>&1
check "its run dashboard renders in Grafana with data in all $(grep -c '^ok' "$WORK/render.txt") panels" \
  bash -c "[[ $window_start -gt 0 ]] && ! grep -q '^FAIL' '$WORK/render.txt' && grep -q '^ok' '$WORK/render.txt'"
grep '^FAIL' "$WORK/render.txt" | head -10

# the page's uninstall: the release, the CRDs (and with them every run), the namespace
check "uninstalling, '$uninstall'" as_newcomer "$uninstall"
check "'$delete_crds'" as_newcomer "$delete_crds"
check "'$delete_namespace'" as_newcomer "$delete_namespace"
left() {
  kubectl get crd -o name | grep -q 'pacer.dev' && return 0
  [[ -n $(kubectl get clusterrole,clusterrolebinding -l app.kubernetes.io/instance=pacer -o name 2>/dev/null) ]] && return 0
  [[ -n $(kubectl get pods -A -l app.kubernetes.io/managed-by=pacer-operator -o name 2>/dev/null) ]] && return 0
  return 1
}
gone() { for _ in $(seq 120); do left || return 0; sleep 1; done; return 1; }
check "nothing of pacer is left: no CRD, no cluster role, no benchmark pod" gone
echo "commands of docs/installing.md run:"; sed 's/^/  /' "$WORK/commands.txt"
echo "$passed passed, $failed failed"
(( failed == 0 ))
