#!/usr/bin/env bash
# The headline journey on several machines, as far as one host can give it: the test cluster grown to three nodes
# (NODES=3 up.sh: a server node, two client nodes, each with its own kubelet, static CPU manager, containerd and pod
# network), then
#   - pacer installed by docs/installing.md's own command for pools (the operator on a client node), with the images
#     every node imported;
#   - examples/suites/small-cluster-comparison.yaml applied unmodified: Jetty 11, Jetty 12 core (measure: both) and
#     Go's net/http (probe only), 4 clients each over the two client nodes, separateNodes, the server pinned. Where each
#     pod ran is read while it runs (pod_watch.py: its node, its container's cpuset from the kernel, the server's peers
#     from its network namespace, the requests the probe timed per client address) and checked against the placement (multinode_checks.py); every run ends Succeeded
#     with a verdict; the comparison dashboard has data for the suite (Prometheus and Grafana beside the cluster);
#   - a run whose pools no node has, and one with separateNodes pinned to one node, fail at once (Unplaceable);
#   - a client on a node whose clock is 2 s ahead (the load generator's image with libfaketime, on that node alone):
#     the run fails before any load (ClockOffset), naming the pod and the node; each pod's offset is in the status;
#   - a client node lost in the measured window of a suite's first run (its kubelet and containerd killed): that run
#     fails as NodeLost naming the node and its pods there, before its window's end; the suite's next run lands on the
#     remaining client node and succeeds; the suite names the lost run and why;
#   - the server's node lost likewise;
#   - the docs' uninstall.
# The nodes share this host's CPUs: the tier proves placement, protocol and faults, never performance. One line per
# check. Needs the cluster up (smoke-test.sh calls it before down.sh) and test/observability built.
set -uo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
. "$DIR/env.sh"
REPO="$(cd "$DIR/../.." && pwd)"
OBS="$REPO/test/observability"
. "$OBS/env.sh"
export KUBECONFIG=$KUBECONFIG_HOST
DOC=$REPO/docs/installing.md
NS=pacer-system
passed=0; failed=0
check() { # description command...
  local what=$1; shift
  if "$@" >/dev/null 2>&1; then echo "ok   $what"; passed=$((passed + 1)); else echo "FAIL $what"; failed=$((failed + 1)); fi
}
report() { # lines "ok …" / "FAIL …" from a checker, counted
  local line
  while IFS= read -r line; do
    echo "$line"
    case $line in ok*) passed=$((passed + 1)) ;; FAIL*) failed=$((failed + 1)) ;; esac
  done
}
WORK=$(mktemp -d)
watch_pid=
stopped=()   # nodes this test stopped, started again on the way out
cleanup() {
  [[ -z $watch_pid ]] || kill "$watch_pid" 2>/dev/null
  "$OBS/stack.sh" stop >/dev/null 2>&1
  for i in "${stopped[@]}"; do "$DIR/node-fault.sh" start "$i" >/dev/null 2>&1 || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
t_all=$(date +%s)

# --- three nodes ---
t0=$(date +%s)
NODES=3 "$DIR/up.sh" >"$WORK/up.log" 2>&1 || { cat "$WORK/up.log"; echo "FAIL three nodes"; echo "0 passed, 1 failed"; exit 1; }
pools=$(kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.name}={.metadata.labels.pacer\.dev/pool}:{.status.conditions[?(@.type=="Ready")].status} {end}')
check "three nodes Ready, pools labelled: $pools ($(( $(date +%s) - t0 )) s)" \
  bash -c "[[ '$pools' == *'$NODE_NAME=server:True'* && '$pools' == *'$NODE_NAME-2=clients:True'* && '$pools' == *'$NODE_NAME-3=clients:True'* ]]"
static_everywhere() {
  local n
  for n in "$NODE_NAME" "$NODE_NAME-2" "$NODE_NAME-3"; do
    kubectl get --raw "/api/v1/nodes/$n/proxy/configz" | grep -q '"cpuManagerPolicy":"static"' || return 1
  done
}
# a node just joined can be Ready before its kubelet serves its API: nothing is placed until every kubelet answers
kubelets_serving() {
  for _ in $(seq 90); do static_everywhere && return 0; sleep 1; done
  return 1
}
t0=$(date +%s)
kubelets_serving; serving=$?
check "each node's own kubelet runs the static CPU manager (its configz through the API server, all answering after $(( $(date +%s) - t0 )) s)" \
  test $serving == 0

# --- pacer, as docs/installing.md installs it on pools ---
install=$(python3 "$REPO/test/first-contact/doc_command.py" "$DOC" "helm upgrade --install pacer charts/pacer" "operator.nodeSelector" 2>"$WORK/doc.err") \
  || { echo "FAIL docs/installing.md lost the install on pools: $(head -1 "$WORK/doc.err")"; echo "$passed passed, $((failed + 1)) failed"; exit 1; }
install=${install//registry.example.com\/pacer/pacer}   # the images every node imported (test/cluster/images.sh)
helm uninstall pacer -n "$NS" --wait >/dev/null 2>&1 || true
kubectl delete namespace "$NS" --ignore-not-found --wait=true --timeout=120s >/dev/null 2>&1
check "docs/installing.md, '$install'" bash -c "cd '$REPO' && $install"
kubectl label namespace "$NS" pod-security.kubernetes.io/enforce=privileged --overwrite >/dev/null   # the probe's pods (docs)
check "the operator rolls out" kubectl -n "$NS" rollout status deploy/pacer --timeout=180s
operator_node=$(kubectl -n "$NS" get pods -l app.kubernetes.io/instance=pacer -o jsonpath='{.items[0].spec.nodeName}')
check "the operator's pod runs on a client node: $operator_node" bash -c "[[ '$operator_node' == $NODE_NAME-[23] ]]"
check "Prometheus and Grafana beside the cluster, scraping the agents and the operator" "$OBS/stack.sh" start

# --- placement refused before any pod is made ---
unplaceable() { # name server-selector clients-selector expected-field
  local phase reason message pods
  kubectl apply -f - >/dev/null <<YAML || return 1
apiVersion: pacer.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: $1}
spec:
  server: {image: pacer/server-jetty12:0.1.0, args: ["--mode=core"], cpus: "1", memory: 512Mi}
  clients: {count: 2, rate: "200", cpus: 200m, memory: 384Mi}
  request: {path: /plaintext}
  duration: 10s
  placement:
    separateNodes: true
    server: {nodeSelector: $2}
    clients: {nodeSelector: $3, pinCpus: false}
YAML
  for _ in $(seq 60); do
    phase=$(kubectl get br "$1" -o jsonpath='{.status.phase}' 2>/dev/null); [[ $phase == Failed || $phase == Succeeded ]] && break; sleep 1
  done
  reason=$(kubectl get br "$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].reason}')
  message=$(kubectl get br "$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].message}')
  pods=$(kubectl get pods -l "pacer.dev/run=$1" -o name | wc -l)
  echo "$phase $reason, $pods pods: $message" >"$WORK/$1.txt"
  kubectl delete br "$1" --wait=false >/dev/null
  [[ $phase == Failed && $reason == Unplaceable && $pods == 0 && $message == *"$4"* ]]
}
check "a pool no node has: Failed, Unplaceable, no pod made, naming spec.placement.server.nodeSelector" \
  unplaceable no-such-pool "{pacer.dev/pool: gpu}" "{pacer.dev/pool: clients}" "spec.placement.server.nodeSelector"
sed 's/^/     /' "$WORK/no-such-pool.txt"
check "separateNodes with both roles held to one node: Failed, Unplaceable, no pod made, naming spec.placement.separateNodes" \
  unplaceable one-node-only "{kubernetes.io/hostname: $NODE_NAME}" "{kubernetes.io/hostname: $NODE_NAME}" "spec.placement.separateNodes"
sed 's/^/     /' "$WORK/one-node-only.txt"

# --- the headline shape ---
setsid python3 "$DIR/pod_watch.py" "$KUBECONFIG" "$WORK/pods.jsonl" >"$WORK/pod_watch.log" 2>&1 </dev/null &
watch_pid=$!
wait_done() { # br|bs NAME SECONDS: until the run or suite has ended
  local phase
  for _ in $(seq "$3"); do
    phase=$(kubectl get "$1" "$2" -o jsonpath='{.status.phase}' 2>/dev/null)
    [[ $phase == Succeeded || $phase == Failed ]] && return 0
    sleep 1
  done
  return 1
}
# the fault runs' spec: a measured window longer than the node controller's grace period, so a node is lost inside it
fault_spec() { # clients duration
  cat <<YAML
clients: {count: $1, rate: "200", connections: 4, cpus: 200m, memory: 384Mi}
request: {method: GET, path: /plaintext}
warmup: 5s
duration: $2
placement:
  pinCpus: true
  separateNodes: true
  server: {nodeSelector: {pacer.dev/pool: server}}
  clients: {nodeSelector: {pacer.dev/pool: clients}, pinCpus: false}
criteria: {rateTolerance: 5%, maxSendLagP99: 50ms}
timeout: 8m
YAML
}
JETTY12='{image: pacer/server-jetty12:0.1.0, args: ["--mode=core"], cpus: "1", memory: 512Mi}'
t0=$(date +%s)
kubectl apply -f "$REPO/examples/suites/small-cluster-comparison.yaml" >/dev/null
wait_done bs small-cluster-comparison 900; ended=$?
check "examples/suites/small-cluster-comparison.yaml, unmodified, ends ($(( $(date +%s) - t0 )) s)" test $ended == 0
sleep 2
kubectl get bs small-cluster-comparison -o json >"$WORK/suite.json"
kubectl get br -o json >"$WORK/runs.json"
kubectl get nodes -o json >"$WORK/nodes.json"
report < <(python3 "$DIR/multinode_checks.py" headline "$WORK/suite.json" "$WORK/runs.json" "$WORK/pods.jsonl" "$WORK/nodes.json")
sleep 6   # the last scrapes of the suite's runs
comparison_has_data() {
  innet python3 "$OBS/query_dashboards.py" http://127.0.0.1:3391 "$REPO/dashboards/pacer-server-comparison.json" \
    --var namespace=default --var server='.*' --var variant='.*' --var suite=small-cluster-comparison \
    --var series=service --var baseline=jetty11 --values '% faster than $baseline, by P99 and max integral ($series)' \
    --skip-panel "Suite: sustained rate per client by server" >"$WORK/dashboard.txt" 2>&1
}
check "the comparison dashboard has data for the suite's runs in every panel, through Grafana (but the sweep's)" comparison_has_data
grep -v '^ok\|^value' "$WORK/dashboard.txt" | head -20
kubectl get bs small-cluster-comparison -o yaml >"$WORK/suite.yaml"
"$REPO/pacer" report --format markdown "$WORK/suite.yaml" >"$WORK/table.md" 2>&1
report < <(python3 "$DIR/multinode_checks.py" faster "$WORK/suite.json" "$WORK/dashboard.txt" "$WORK/table.md")
# the picture of the result: the comparison dashboard of the three-server suite as a user opens it, rendered by this
# Grafana in headless Chromium (test/observability/screenshots.sh copies it to docs/images for README and the docs)
SHOTS=$PACER_CACHE/observability-screenshots
mkdir -p "$SHOTS"
comparison_url="http://127.0.0.1:3391/d/pacer-servers/servers?var-namespace=default&var-server=\$__all&var-variant=\$__all"
comparison_url+="&var-suite=small-cluster-comparison&var-series=service&var-baseline=jetty11&from=now-15m&to=now&kiosk"
innet env NODE_PATH="$PACER_CACHE/observability-node/node_modules" SKIP_PANELS="Suite: sustained rate per client by server" VIEWPORT_HEIGHT=2700 \
  node "$OBS/render.js" "$comparison_url" "$SHOTS/dashboard-three-servers.png" >"$WORK/render.txt" 2>&1
check "the comparison dashboard of the three-server suite renders in headless Chromium with data in all $(grep -c '^ok' "$WORK/render.txt") panels" \
  bash -c "! grep -q '^FAIL' '$WORK/render.txt' && grep -q '^ok' '$WORK/render.txt'"
grep '^FAIL' "$WORK/render.txt" | head -10
# a run measured by the probe alone: its series are in its own namespace (the probe pod lives in the operator's)
probe_run=$(python3 -c 'import json,sys; print(next((r["metadata"]["name"] for r in json.load(open(sys.argv[1]))["items"]
  if r["spec"]["server"].get("measure") == "probe"), ""))' "$WORK/runs.json")
probe_run_has_data() {
  [[ -n $probe_run ]] && innet python3 "$OBS/query_dashboards.py" http://127.0.0.1:3391 "$REPO/dashboards/pacer-run.json" \
    --var namespace=default --var run="$probe_run" \
    --skip-panel "JVM heap used per process" --skip-panel "GC time per process" \
    --skip-panel "TLS handshakes per second" --skip-panel "TLS handshake time per period" >"$WORK/run-dashboard.txt" 2>&1
}
check "the run dashboard of $probe_run (measure: probe) has data in every panel, the heatmap of its service included, through Grafana (but the JVM's and TLS's)" probe_run_has_data
grep -v '^ok' "$WORK/run-dashboard.txt" | head -20

# --- a node whose clock is off ---
ahead=3; node_vars "$ahead"; ahead_node=$N_NAME
ahead_ctr() { nsenter --net="$N_NSNET" -- ctr -a "$N_DIR/containerd/containerd.sock" -n k8s.io images import "$1" >/dev/null; }
"$DIR/images.sh" clock-ahead >"$WORK/clock-image.log" 2>&1 || cat "$WORK/clock-image.log"
check "$ahead_node's load generator image replaced by one whose clock is 2 s ahead (libfaketime)" \
  ahead_ctr "$PACER_K8S/test-images/loadgen-clock-ahead.tar"
kubectl apply -f - >/dev/null <<YAML
apiVersion: pacer.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: clock-ahead}
spec:
  server: $JETTY12
$(fault_spec 2 10s | sed 's/^/  /')
YAML
wait_done br clock-ahead 300
kubectl get br clock-ahead -o json >"$WORK/clock-ahead.json"
report < <(python3 "$DIR/multinode_checks.py" clock "$WORK/clock-ahead.json" "$ahead_node" 2000000)
check "$ahead_node's own load generator image back" ahead_ctr "$IMAGES/pacer-loadgen.tar"

# --- a client node lost in a suite's measured window ---
lost=3; [[ $operator_node == "$NODE_NAME-3" ]] && lost=2   # not the operator's node: the suite must go on
node_vars "$lost"; lost_node=$N_NAME
cat >"$WORK/fault-suite.yaml" <<YAML
apiVersion: pacer.dev/v1alpha1
kind: BenchmarkSuite
metadata: {name: client-node-lost}
spec:
  template:
$(fault_spec 4 90s | sed 's/^/    /')
  servers:
    - {name: first, ${JETTY12#\{}
    - {name: second, ${JETTY12#\{}
YAML
kill_in_window() { # run node-index : waits for the run's measured window, then kills the node; prints the kill's epoch
  for _ in $(seq 300); do
    [[ $(kubectl get br "$1" -o jsonpath='{.status.phase}' 2>/dev/null) == Measuring ]] && break; sleep 1
  done
  "$DIR/node-fault.sh" stop "$2" >/dev/null
  date +%s
}
kubectl apply -f "$WORK/fault-suite.yaml" >/dev/null
first=""
for _ in $(seq 120); do
  first=$(kubectl get br -l pacer.dev/suite=client-node-lost,pacer.dev/suite-server=first -o jsonpath='{.items[0].metadata.name}' 2>/dev/null)
  [[ -n $first ]] && break; sleep 1
done
stopped+=("$lost")
killed_at=$(kill_in_window "$first" "$lost")
wait_done br "$first" 300; failed_at=$(date +%s)
check "$lost_node killed in $first's measured window; the run ended after $(( failed_at - killed_at )) s (node controller's grace period $NODE_MONITOR_GRACE_PERIOD)" true
check "the client-node suite ends" wait_done bs client-node-lost 600
kubectl get bs client-node-lost -o json >"$WORK/fault-suite.json"
kubectl get br -o json >"$WORK/runs.json"
report < <(python3 "$DIR/multinode_checks.py" node-lost "$WORK/fault-suite.json" "$WORK/runs.json" "$WORK/pods.jsonl" "$WORK/nodes.json" "$lost_node")
check "$lost_node back (its kubelet and containerd started again)" "$DIR/node-fault.sh" start "$lost"

# --- the server's node lost ---
cat >"$WORK/server-lost.yaml" <<YAML
apiVersion: pacer.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: server-node-lost}
spec:
  server: $JETTY12
$(fault_spec 2 90s | sed 's/^/  /')
YAML
kubectl apply -f "$WORK/server-lost.yaml" >/dev/null
stopped+=(1)
killed_at=$(kill_in_window server-node-lost 1)
wait_done br server-node-lost 300; failed_at=$(date +%s)
check "$NODE_NAME (the server's) killed in the measured window; the run ended after $(( failed_at - killed_at )) s" true
kubectl get br -o json >"$WORK/runs.json"
report < <(python3 "$DIR/multinode_checks.py" run-node-lost "$WORK/runs.json" "$WORK/pods.jsonl" server-node-lost "$NODE_NAME")
check "$NODE_NAME back" "$DIR/node-fault.sh" start 1

# --- the docs' uninstall ---
kill "$watch_pid" 2>/dev/null; watch_pid=
for wanted in "helm uninstall pacer" "kubectl delete crd" "kubectl delete namespace pacer-system"; do
  command=$(python3 "$REPO/test/first-contact/doc_command.py" "$DOC" "$wanted") || { echo "FAIL docs/installing.md lost '$wanted'"; failed=$((failed + 1)); continue; }
  check "uninstalling: '$command'" bash -c "cd '$REPO' && timeout 300 $command"
done
echo "multi-node tier: $(( $(date +%s) - t_all )) s"
echo "$passed passed, $failed failed"
(( failed == 0 ))
