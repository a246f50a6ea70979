#!/usr/bin/env bash
# The operator under load: RUNS BenchmarkRuns (default 100) applied at once, their pods on kwok nodes (fake nodes
# against the test cluster's real API server, scheduler and controllers: the pods get a Running status and an IP, but
# no container runs), the operator as its own JVM with the image's flags, at most MAX_ACTIVE (default 10) runs at once.
# No agent answers on a kwok node, so every run must end Failed with a reason naming its pods, by its own timeout.
# The operator's /metrics is scraped every 15 s meanwhile, as the chart's monitors would.
# Prints: runs per phase and reason, operator restarts (none allowed), RSS (peak and when, every ~10 s, at the end), CPU seconds,
# reconcile latency (mean, and the share above 1 s); exits 1 when a run is left unfinished or the operator died.
# With BATCH=N, the runs come N at a time instead, each deleted by the operator as it finishes
# (cleanup.ttlSecondsAfterFinished: 0), the next N applied when the last are gone: does the operator's memory grow with
# the runs it has finished? The RSS is read once the first 100 are gone and again after the last, each time after
# 30 quiet seconds; it exits 1 when the second is more than 5 % above the first.
# Needs the test cluster (test/cluster/up.sh) and 'make build'; builds kwok v0.8.0 once (about 3 minutes cold).
#   scripts/bench-operator.sh   (RUNS=100 MAX_ACTIVE=10 KWOK_NODES=10 JVM_FLAGS="…")
#   RUNS=1000 BATCH=50 scripts/bench-operator.sh   (DIAGNOSE=DIR: the heap's classes at both readings in DIR,
#   and the JVM's memory by area with -XX:NativeMemoryTracking=summary in JVM_FLAGS)
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
. "$REPO/test/cluster/env.sh"
RUNS=${RUNS:-100}
BATCH=${BATCH:-0}
MAX_ACTIVE=${MAX_ACTIVE:-10}
KWOK_NODES=${KWOK_NODES:-10}
KWOK_VERSION=v0.8.0
# the operator image's flags and malloc arenas (operator/pom.xml), with the heap the chart's 512 Mi limit gives at 75 %
JVM_FLAGS=${JVM_FLAGS:-"-XX:+UseG1GC -XX:G1PeriodicGCInterval=10000 -Xms16m -Xmx384m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30 -XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=32m -XX:TrimNativeHeapInterval=5000 -XX:+UseStringDeduplication -Xss512k -XX:+ExitOnOutOfMemoryError"}
MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX-2}
NS=pacer-bench-kwok
OPNS=pacer-bench-kwok-operator
WORK=$(mktemp -d)
k() { kubectl --kubeconfig="$KUBECONFIG_HOST" "$@"; }
source "$REPO/scripts/lib.sh"   # JAVA_HOME, require_built
k get --raw /readyz >/dev/null 2>&1 || { echo "the test cluster is not up: test/cluster/up.sh" >&2; exit 1; }
require_built operator

if [[ ! -x $PACER_K8S/bin/kwok ]]; then
  log "building kwok $KWOK_VERSION from the Go module proxy (once)"
  GOBIN=$PACER_K8S/bin go install sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION
fi
# kwok v0.8 has no built-in stages: the ones shipped in its module (nodes Ready, pods Running)
stages=$GOMODCACHE/sigs.k8s.io/kwok@$KWOK_VERSION/kustomize/stage
[[ -d $stages ]] || go mod download sigs.k8s.io/kwok@$KWOK_VERSION
{ for s in node/fast node/heartbeat pod/general; do k kustomize "$stages/$s"; echo "---"; done; } >"$WORK/stages.yaml"
setsid nsenter --net="$NSNET" -- "$PACER_K8S/bin/kwok" --kubeconfig="$CLUSTER/admin.kubeconfig" -c "$WORK/stages.yaml" \
  --manage-all-nodes=false --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
  --cidr=10.0.0.0/16 --node-ip=10.217.0.250 >"$WORK/kwok.log" 2>&1 </dev/null &
KWOK_PID=$!
OP_PID=
cleanup() {
  [[ -n $OP_PID ]] && kill "$OP_PID" 2>/dev/null
  k delete namespace "$NS" "$OPNS" --ignore-not-found --wait=false >/dev/null 2>&1
  for i in $(seq 0 $((KWOK_NODES - 1))); do k delete node "kwok-node-$i" --ignore-not-found --wait=false >/dev/null 2>&1; done
  kill "$KWOK_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
for i in $(seq 0 $((KWOK_NODES - 1))); do
  cat <<YAML | k apply -f - >/dev/null
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-$i
  annotations: {kwok.x-k8s.io/node: fake}
  labels: {type: kwok, kubernetes.io/hostname: kwok-node-$i, kubernetes.io/os: linux, kubernetes.io/arch: amd64}
spec:
  taints: [{key: kwok.x-k8s.io/node, value: fake, effect: NoSchedule}]
status:
  allocatable: {cpu: "64", memory: 256Gi, pods: "110"}
  capacity: {cpu: "64", memory: 256Gi, pods: "110"}
YAML
done
for _ in $(seq 240); do
  ready=$(k get nodes -l type=kwok -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c True || true)
  [[ $ready -eq $KWOK_NODES ]] && break; sleep 0.25
done
log "$KWOK_NODES kwok nodes Ready"

k apply --server-side --force-conflicts -f "$REPO/crds/" >/dev/null
k wait --for=delete namespace "$NS" "$OPNS" --timeout=180s >/dev/null 2>&1 || true   # an earlier run's, still terminating
k create namespace "$NS" --dry-run=client -o yaml | k apply -f - >/dev/null
k create namespace "$OPNS" --dry-run=client -o yaml | k apply -f - >/dev/null
env KUBECONFIG="$KUBECONFIG_HOST" PACER_AGENT_ACCESS=apiServerProxy PACER_WATCH_NAMESPACES="$NS" PACER_METRICS_PORT=0 \
  PACER_PROBE_NAMESPACE="$OPNS" PACER_MAX_ACTIVE_RUNS="$MAX_ACTIVE" \
  ${MALLOC_ARENA_MAX:+MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX} "$JAVA_HOME/bin/java" $JVM_FLAGS -cp "$REPO/operator/target/app/lib/*" dev.pacer.operator.PacerOperator >"$WORK/operator.log" 2>&1 &
OP_PID=$!
for _ in $(seq 120); do grep -q "metrics on port" "$WORK/operator.log" && break; sleep 0.5; done
PORT=$(sed -n 's/.*metrics on port \([0-9]*\).*/\1/p' "$WORK/operator.log" | head -1)
[[ -n $PORT ]] || { cat "$WORK/operator.log"; exit 1; }
idle_rss=$(awk '/VmRSS/{print $2}' /proc/$OP_PID/status)
log "operator pid $OP_PID, metrics on $PORT, idle RSS $((idle_rss / 1024)) MiB; applying $RUNS runs"

run_yaml() { # the run number $1; with a second argument, the operator deletes it once finished
  local ttl_line=""
  [[ -z ${2:-} ]] || ttl_line="  cleanup: {ttlSecondsAfterFinished: 0}"
  cat <<YAML
apiVersion: pacer.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: fake-$1, namespace: $NS}
spec:
  server: {image: pacer/server-jetty12:0.1.0, cpus: "1", memory: 256Mi}
  clients: {count: 2, rate: "100", cpus: "1", memory: 256Mi}
  warmup: 1s
  duration: 2s
  timeout: ${RUN_TIMEOUT:-30s}
  placement:
    pinCpus: false
    server: {nodeSelector: {type: kwok}, tolerations: [{key: kwok.x-k8s.io/node, operator: Exists, effect: NoSchedule}]}
    clients: {nodeSelector: {type: kwok}, tolerations: [{key: kwok.x-k8s.io/node, operator: Exists, effect: NoSchedule}]}
$ttl_line
---
YAML
}
peak_rss=0; peak_at=0; samples=0
sample() { # one look at the operator: alive, RSS, a scrape every 15 looks, the progress line
  kill -0 "$OP_PID" 2>/dev/null || { echo "FAIL the operator died:"; tail -30 "$WORK/operator.log"; exit 1; }
  rss=$(awk '/VmRSS/{print $2}' /proc/$OP_PID/status)
  samples=$((samples + 1))
  (( rss > peak_rss )) && { peak_rss=$rss; peak_at=$(( $(date +%s) - t0 )); }
  (( samples % 10 == 1 )) && echo "$(( $(date +%s) - t0 )) $((rss / 1024))" >>"$WORK/rss-timeline.txt"
  # scraped like Prometheus would (the chart's monitors: every 15 s): what a scrape loads counts in the footprint
  if (( samples % 15 == 1 )); then curl -sf "http://127.0.0.1:$PORT/metrics" >/dev/null || true; fi
  printf '\r%4d of %d runs finished, %4d s, operator RSS %4d MiB (peak %4d)   ' "$1" "$RUNS" $(( $(date +%s) - t0 )) $((rss / 1024)) $((peak_rss / 1024)) >&2
  (( $(date +%s) - t0 > 60 * 60 )) && { echo; echo "FAIL not every run finished in 60 minutes"; exit 1; }
  return 0
}
quiet_rss() { # the RSS after 30 s without runs, in KiB; with DIAGNOSE=DIR, the heap's classes then (after a full GC)
  for _ in $(seq 30); do sample "$1"; sleep 1; done
  awk '/VmRSS/{print $2}' /proc/$OP_PID/status
  [[ -z ${DIAGNOSE:-} ]] || {
    mkdir -p "$DIAGNOSE"
    [[ $JVM_FLAGS != *NativeMemoryTracking* ]] || "$JAVA_HOME/bin/jcmd" "$OP_PID" VM.native_memory summary >"$DIAGNOSE/native-after-$1-runs.txt"
    "$JAVA_HOME/bin/jcmd" "$OP_PID" GC.class_histogram >"$DIAGNOSE/classes-after-$1-runs.txt"
  }
}

t0=$(date +%s)
if (( BATCH > 0 )); then
  done_runs=0; rss_100=
  while (( done_runs < RUNS )); do
    for i in $(seq $((done_runs + 1)) $((done_runs + BATCH))); do run_yaml "$i" ttl; done >"$WORK/runs.yaml"
    k apply -f "$WORK/runs.yaml" >/dev/null
    while [[ -n $(k get br -n "$NS" -o name 2>/dev/null) ]]; do sample "$done_runs"; sleep 1; done
    done_runs=$((done_runs + BATCH))
    if (( done_runs == 100 )); then rss_100=$(quiet_rss "$done_runs"); fi
  done
  rss_end=$(quiet_rss "$done_runs")
  apply_s=0
else
  for i in $(seq 1 "$RUNS"); do run_yaml "$i"; done >"$WORK/runs.yaml"
  k apply -f "$WORK/runs.yaml" >/dev/null
  apply_s=$(( $(date +%s) - t0 ))
  while :; do
    phases=$(k get br -n "$NS" -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}')
    finished=$(grep -cE '^(Succeeded|Failed)$' <<<"$phases" || true)
    sample "$finished"
    [[ $finished -eq $RUNS ]] && break
    sleep 1
  done
fi
echo >&2
elapsed=$(( $(date +%s) - t0 ))
end_rss=$(awk '/VmRSS/{print $2}' /proc/$OP_PID/status)
# the RSS's parts: the process's own memory, and pages of files it maps (libjvm, the runtime's modules, the CDS archive)
end_anon=$(awk '/RssAnon/{print $2}' /proc/$OP_PID/status)
end_file=$(awk '/RssFile/{print $2}' /proc/$OP_PID/status)
# read before jcmd attaches: its report and thread raise the RSS for a while
hwm=$(awk '/VmHWM/{print $2}' /proc/$OP_PID/status)
threads=$(ls /proc/$OP_PID/task | wc -l)
# with -XX:NativeMemoryTracking=summary in JVM_FLAGS: where the operator's memory is, by JVM area
if [[ $JVM_FLAGS == *NativeMemoryTracking* ]]; then
  "$JAVA_HOME/bin/jcmd" "$OP_PID" VM.native_memory summary | grep -E '^(Total|-)' | sed 's/^/  /'
  "$JAVA_HOME/bin/jcmd" "$OP_PID" GC.class_histogram | awk 'NR <= 22 || /^Total/' | sed 's/^/  /'
fi
cpu_ticks=$(awk '{print $14 + $15}' /proc/$OP_PID/stat)
metrics=$(curl -sf "http://127.0.0.1:$PORT/metrics")
reasons=$( (( BATCH > 0 )) && echo "every run deleted by the operator after it finished (ttlSecondsAfterFinished: 0)" || k get br -n "$NS" -o jsonpath='{range .items[*]}{.status.phase} {.status.conditions[?(@.type=="Failed")].reason}{"\n"}{end}' | sort | uniq -c)
no_reason=$(k get br -n "$NS" -o jsonpath='{range .items[*]}{.status.phase} {.status.conditions[?(@.type=="Failed")].reason}{"\n"}{end}' | grep -c '^Failed $' || true)
python3 - "$metrics" <<'PY'
import re, sys
text = sys.argv[1]
def total(name, extra=""):
    return sum(float(v) for v in re.findall(r"^" + re.escape(name) + r"\{[^}]*" + extra + r"[^}]*\}\s+(\S+)", text, re.M))
count = total("pacer_operator_reconcile_duration_seconds_count")
mean_ms = 1000 * total("pacer_operator_reconcile_duration_seconds_sum") / max(count, 1)
within_1s = total("pacer_operator_reconcile_duration_seconds_bucket", 'le="1.0"')
print(f"reconciles: {int(count)}, mean {mean_ms:.1f} ms, {100 * (1 - within_1s / max(count, 1)):.1f} % above 1 s")
PY
echo "runs: $RUNS applied in ${apply_s} s, all finished after ${elapsed} s (at most $MAX_ACTIVE at once)"
echo "$reasons"
echo "operator: RSS idle $((idle_rss / 1024)) MiB, peak $((hwm / 1024)) MiB (sampled peak $((peak_rss / 1024)) after ${peak_at} s), at the end $((end_rss / 1024)) MiB (anonymous $((end_anon / 1024)), mapped files $((end_file / 1024))); CPU $((cpu_ticks / 100)) s; $threads threads; flags: $JVM_FLAGS${MALLOC_ARENA_MAX:+, MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX}"
echo "operator RSS every ~10 s (s: MiB): $(awk '{printf "%s: %s  ", $1, $2}' "$WORK/rss-timeline.txt")"
[[ $no_reason -eq 0 ]] || { echo "FAIL $no_reason failed runs give no reason"; exit 1; }
if (( BATCH > 0 )); then
  growth=$(awk -v a="$rss_100" -v b="$rss_end" 'BEGIN { printf "%+.1f", 100 * (b - a) / a }')
  echo "RSS once 100 runs were finished and gone: $((rss_100 / 1024)) MiB; once all $RUNS were: $((rss_end / 1024)) MiB ($growth %)"
  awk -v a="$rss_100" -v b="$rss_end" 'BEGIN { exit !(b <= a * 1.05) }' || { echo "FAIL the operator's RSS grew more than 5 % with the runs it finished"; exit 1; }
fi
