#!/usr/bin/env bash
# Smoke test of the test cluster, from whatever state: up (building what is missing), checks, down, and a check that
# down left nothing behind. Prints one line per check and a closing "N passed, N failed".
set -uo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
. "$DIR/env.sh"
passed=0; failed=0
check() { # description command...
  local what=$1; shift
  if "$@" >/dev/null 2>&1; then echo "ok   $what"; passed=$((passed + 1)); else echo "FAIL $what"; failed=$((failed + 1)); fi
}
k() { kubectl --kubeconfig="$KUBECONFIG_HOST" "$@"; }

t0=$(date +%s)
"$DIR/up.sh" || { echo "FAIL cluster-up"; echo "0 passed, 1 failed"; exit 1; }
"$DIR/images.sh" pacer
check "cluster up and node Ready (up.sh, $(( $(date +%s) - t0 )) s)" k get --raw /readyz
# the BenchmarkRun CRD on a real API server: schema, CEL rules, printer columns, explain
REPO="$(cd "$DIR/../.." && pwd)"
k apply --server-side --force-conflicts -f "$REPO/crds/benchmarkruns.pacer.dev-v1.yml" >/dev/null   # may take it over from a Helm release
k wait --for=condition=Established crd/benchmarkruns.pacer.dev --timeout=30s >/dev/null
explained() { # the OpenAPI of a new CRD is published a few seconds after it is established
  for _ in $(seq 30); do k explain br.spec.clients.rate 2>/dev/null | grep -q 'EACH client' && return 0; sleep 1; done
  return 1
}
check "the CRD is established; kubectl explain describes spec.clients.rate" explained
check "examples/quickstart.yaml is accepted" k apply --dry-run=server -f "$REPO/examples/quickstart.yaml"
bad_run() { # mutation of the quickstart → the API server's answer
  sed "$1" "$REPO/examples/quickstart.yaml" | k apply --dry-run=server -f - 2>&1
}
check "a negative client count is rejected, naming spec.clients.count" bash -c "$(declare -f k bad_run); REPO=$REPO; bad_run 's/count: 2/count: -1/' | grep -q 'spec.clients.count'"
check "warm-up + duration over the timeout is rejected, naming spec.timeout" bash -c "$(declare -f k bad_run); REPO=$REPO; bad_run 's/timeout: 5m/timeout: 20s/' | grep -q 'spec.timeout'"
check "fractional pinned CPUs are rejected, naming spec.server.cpus" bash -c "$(declare -f k bad_run); REPO=$REPO; bad_run 's/cpus: \"1\"/cpus: \"1.5\"/' | grep -q 'spec.server.cpus'"
check "an unparsable rate is rejected, naming spec.clients.rate" bash -c "$(declare -f k bad_run); REPO=$REPO; bad_run 's/rate: \"500\"/rate: \"fast\"/' | grep -q 'spec.clients.rate'"
k apply -f "$REPO/examples/quickstart.yaml" >/dev/null
check "kubectl get br shows the columns PHASE LOAD VERDICT P99 and max integrals" bash -c "$(declare -f k); k get br | head -1 | grep -q 'LOAD.*PHASE.*VERDICT' && k get br | head -1 | grep -q 'P99-INT-US'"
check "the spec of an existing run cannot change (spec is immutable)" bash -c "$(declare -f k); sed 's/rate: \"500\"/rate: \"600\"/' '$REPO/examples/quickstart.yaml' | k apply -f - 2>&1 | grep -q 'spec is immutable'"
k delete -f "$REPO/examples/quickstart.yaml" >/dev/null 2>&1

k delete -f "$DIR/manifests/smoke.yaml" --ignore-not-found --wait=true >/dev/null 2>&1
k apply -f "$DIR/manifests/smoke.yaml" >/dev/null
k wait --for=condition=Ready pod/web-a pod/web-b pod/pinned pod/jetty12 pod/netty pod/vertx pod/helidon --timeout=180s >/dev/null
k wait --for=condition=complete job/hello --timeout=120s >/dev/null

check "a Job completes" k wait --for=condition=complete job/hello --timeout=1s
check "kubectl logs works" bash -c "$(declare -f k); k logs job/hello | grep -qx 'hello from a job'"
check "the pinned pod is Guaranteed" bash -c "$(declare -f k); [[ \$(k get pod pinned -o jsonpath='{.status.qosClass}') == Guaranteed ]]"
pinned_cpus=$(k logs pinned | sed -n 's/^Cpus_allowed_list:[[:space:]]*//p')
shared_cpus=$(k logs web-a | sed -n 's/^Cpus_allowed_list:[[:space:]]*//p')
echo "     pinned pod: Cpus_allowed_list=$pinned_cpus; BestEffort pod: Cpus_allowed_list=$shared_cpus"
check "the Guaranteed pod reads one exclusive CPU from inside" bash -c "[[ '$pinned_cpus' =~ ^[0-9]+$ && '$shared_cpus' != *'$pinned_cpus'* ]]"
ip_a=$(k get pod web-a -o jsonpath='{.status.podIP}')
check "HTTP from one pod to another's IP ($ip_a)" bash -c "$(declare -f k); k exec web-b -- timeout 10 wget -qO- http://$ip_a:8080/index.html | grep -q 'hello from a pacer test pod'"
ip_j=$(k get pod jetty12 -o jsonpath='{.status.podIP}')
check "pacer's Jetty 12 image serves /plaintext to another pod" bash -c "$(declare -f k); k exec web-b -- timeout 10 wget -qO- http://$ip_j:8080/plaintext | grep -q 'Hello, World!'"
info=$(k exec web-b -- timeout 10 wget -qO- "http://$ip_j:9090/pacer/v1/info")
check "its agent answers /pacer/v1/info: a server running as uid 65532" bash -c "grep -q '\"role\" : \"server\"' <<<'$info' && grep -q '\"uid\" : 65532' <<<'$info'"
# the peers of the shoot-out as pacer images: GET / answers the shoot-out's "ok", /plaintext the others' text, and the
# agent's info names the library and version the image was built with
peer_answers() { # pod library
  local ip body info
  ip=$(k get pod "$1" -o jsonpath='{.status.podIP}')
  body=$(k exec web-b -- timeout 10 wget -qO- "http://$ip:8080/") && [[ $body == ok ]] || return 1
  k exec web-b -- timeout 10 wget -qO- "http://$ip:8080/plaintext" | grep -q 'Hello, World!' || return 1
  info=$(k exec web-b -- timeout 10 wget -qO- "http://$ip:9090/pacer/v1/info")
  grep -q "\"serverVersion\" : \"$2 [0-9]" <<<"$info" && grep -q '"uid" : 65532' <<<"$info"
}
for peer in "netty netty" "vertx vertx-core" "helidon helidon-webserver"; do
  read -r pod library <<<"$peer"
  check "pacer's $pod image answers / with ok and /plaintext, its agent naming $library and its version, as uid 65532" \
    bash -c "$(declare -f k peer_answers); KUBECONFIG_HOST=$KUBECONFIG_HOST; peer_answers $pod $library"
done
k delete -f "$DIR/manifests/smoke.yaml" --wait=false >/dev/null 2>&1

# the preflight as a user runs it: node-1's CPU manager policy read from its kubelet through the API; the cluster
# quickstart fits, a 4x60k run pinning an 8-CPU server does not, and says what to change
preflight_fits() {
  local out; out=$("$REPO/pacer" check --no-monitors --kubeconfig "$KUBECONFIG_HOST" "$REPO/examples/cluster-quickstart.yaml") || return 1
  grep -q '^ok  node/.*cpuManagerPolicy static' <<<"$out" && grep -q '^  ok  spec.server.cpus: 1 exclusive CPUs' <<<"$out"
}
preflight_refuses() {
  local out code=0 big
  big=$(mktemp --suffix=.yaml)
  sed 's/^    cpus: "1" .*/    cpus: "8"/' "$REPO/examples/cluster-quickstart.yaml" >"$big"
  out=$("$REPO/pacer" check --no-monitors --kubeconfig "$KUBECONFIG_HOST" "$big") || code=$?
  rm -f "$big"
  [[ $code == 1 ]] && grep -q 'problem  spec.server.cpus: .*8 exclusive CPUs.*static, 1 CPUs.*pinCpus: false' <<<"$out"
}
check "pacer check: the node's static CPU manager (its kubelet's configz), the cluster quickstart fits" preflight_fits
check "pacer check: a pinned 8-CPU server does not fit, naming spec.server.cpus and the fix (exit 1)" preflight_refuses

# the operator end to end on this cluster (JUnit, tag "cluster"): its output goes to a log, shown when it fails
t1=$(date +%s)
if "$DIR/operator-e2e.sh" >"$CLUSTER/operator-e2e.log" 2>&1; then operator_ok=true; else operator_ok=false; fi
summary=$(grep -E 'Tests run: [0-9]+, Failures' "$CLUSTER/operator-e2e.log" | tail -1 | sed 's/^\[[A-Z]*\] *//')
check "operator end to end: cluster quickstart, restart mid-run, deleted client pod, unpullable image, probe, suite, queue; faults: SIGKILL per phase, replicas, API server restart, OOMKilled client, agent unreachable for a while and for good ($summary, $(( $(date +%s) - t1 )) s)" $operator_ok
$operator_ok || { grep -E 'ERROR|FAIL|expected|but was' "$CLUSTER/operator-e2e.log" | head -40; cp "$CLUSTER/operator-e2e.log" /tmp/pacer-operator-e2e.log; }

# the chart installed in the cluster: the operator in a pod, two runs in a restricted namespace, compare, uninstall
t1=$(date +%s)
if "$REPO/test/chart/install-test.sh" >"$CLUSTER/chart-install.log" 2>&1; then chart_ok=true; else chart_ok=false; fi
check "helm chart on the cluster, dashboards through Prometheus and Grafana: $(tail -1 "$CLUSTER/chart-install.log") ($(( $(date +%s) - t1 )) s)" $chart_ok
$chart_ok || cat "$CLUSTER/chart-install.log"

# a newcomer's install driven by docs/installing.md's own commands: a real registry the node pulls from, helm install,
# the cluster quickstart unmodified to Passed, its dashboard in Grafana, the uninstall
t1=$(date +%s)
if "$REPO/test/first-contact/install-from-docs.sh" >"$CLUSTER/install-from-docs.log" 2>&1; then docs_ok=true; else docs_ok=false; fi
check "a newcomer's install as docs/installing.md says, from a registry to Grafana: $(tail -1 "$CLUSTER/install-from-docs.log") ($(( $(date +%s) - t1 )) s)" $docs_ok
$docs_ok || cat "$CLUSTER/install-from-docs.log"

# the kubelet without the static CPU manager: the preflight and the operator say so at once
if "$DIR/unpinned-node-test.sh" >"$CLUSTER/unpinned-node.log" 2>&1; then unpinned_ok=true; else unpinned_ok=false; fi
check "a node without the static CPU manager: pacer check and the operator name it at once ($(tail -1 "$CLUSTER/unpinned-node.log"))" $unpinned_ok
$unpinned_ok || cat "$CLUSTER/unpinned-node.log"

# the multi-node tier: the cluster grown to three nodes (server, clients), the docs' install on pools, the small-cluster
# comparison, placement refused at once, a node's clock off, nodes lost mid-run
t1=$(date +%s)
if "$DIR/multinode-test.sh" >"$CLUSTER/multinode.log" 2>&1; then multinode_ok=true; else multinode_ok=false; fi
check "three nodes: the headline shape placed and measured across nodes, clocks, nodes lost ($(tail -1 "$CLUSTER/multinode.log"), $(( $(date +%s) - t1 )) s)" $multinode_ok
$multinode_ok || cat "$CLUSTER/multinode.log"

"$DIR/down.sh" >/dev/null 2>&1
left_processes() {
  local f
  for f in "$CLUSTER"/pids/*.pid; do [[ -f $f ]] && kill -0 "$(cat "$f")" 2>/dev/null && return 0; done
  pgrep -f "$CLUSTER/node[-/0-9]*containerd" >/dev/null && return 0
  pgrep -f "$PACER_K8S/bin/kube" >/dev/null && return 0
  return 1
}
check "cluster-down leaves no process" bash -c "$(declare -f left_processes); ! left_processes"
check "cluster-down leaves no mount" bash -c "! grep -q '$CLUSTER' /proc/mounts"
check "cluster-down leaves no network namespace (of any node)" bash -c "! ip netns list | grep -q '^$NETNS\\(-[0-9]\\)\\?\\b'"
check "cluster-down leaves no kubelet cgroup (of any node)" bash -c "! ls -d /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/*/$NODE_NAME-* 2>/dev/null | grep -q ."
echo "$passed passed, $failed failed"
(( failed == 0 ))
