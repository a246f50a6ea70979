#!/usr/bin/env bash
# The chart on the running test cluster, as a user installs it: helm install with the locally built images (imported
# by test/cluster/images.sh), the operator Ready, a small sweep suite of two servers, then a Jetty 12 run and a loom run in a namespace that enforces the
# restricted Pod Security Standard (one after the other: the node has one exclusive CPU), both reaching a verdict,
# their series on the operator's /metrics, 'pacer compare' of the two statuses, then helm uninstall leaving nothing
# but the CRD. The operator runs inside the cluster and reaches the agents by pod IP. One line per check.
set -uo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
. "$DIR/../cluster/env.sh"
. "$DIR/env.sh"
REPO="$(cd "$DIR/../.." && pwd)"
k() { kubectl --kubeconfig="$KUBECONFIG_HOST" "$@"; }
h() { helm --kubeconfig="$KUBECONFIG_HOST" "$@"; }
passed=0; failed=0
check() { # description command...
  local what=$1; shift
  if "$@" >/dev/null 2>&1; then echo "ok   $what"; passed=$((passed + 1)); else echo "FAIL $what"; failed=$((failed + 1)); fi
}
NS=pacer-system
BENCH=pacer-bench
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
owned() { # every object the release labels, cluster-wide
  k get deploy,statefulset,sa,svc,cm,role,rolebinding -A -l app.kubernetes.io/instance=pacer -o name 2>/dev/null
  k get clusterrole,clusterrolebinding -l app.kubernetes.io/instance=pacer -o name 2>/dev/null
}

# leftovers of an interrupted attempt: gone before anything starts (a terminating namespace refuses new objects)
h uninstall pacer -n "$NS" --wait >/dev/null 2>&1 || true
k delete namespace "$BENCH" "$NS" --ignore-not-found --wait=true --timeout=120s >/dev/null 2>&1
k delete pv pacer-test-artifacts pacer-test-history --ignore-not-found --wait=true --timeout=60s >/dev/null 2>&1
# the artifact store on a real volume: a hostPath PersistentVolume on the node (this machine), owned by the operator's uid
ARTIFACTS_HOST=$(mktemp -d /tmp/pacer-test-artifacts.XXXXXX); chown 65532:65532 "$ARTIFACTS_HOST"
trap 'rm -rf "$WORK" "$ARTIFACTS_HOST"' EXIT
k create namespace "$NS" --dry-run=client -o yaml | k apply -f - >/dev/null
host_volume() { # name directory: a 1 GiB hostPath PersistentVolume of a storage class of the same name
  k apply -f - >/dev/null <<YAML
apiVersion: v1
kind: PersistentVolume
metadata: {name: $1}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: $1
  hostPath: {path: $2, type: Directory}
YAML
}
host_volume pacer-test-artifacts "$ARTIFACTS_HOST"
k apply -f - >/dev/null <<YAML
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: pacer-artifacts, namespace: $NS}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: pacer-test-artifacts
  volumeName: pacer-test-artifacts
  resources: {requests: {storage: 1Gi}}
YAML
t0=$(date +%s)
check "helm install --wait with the local images, artifacts on a PersistentVolume ($(( $(date +%s) - t0 )) s)" \
  h install pacer "$REPO/charts/pacer" -n "$NS" --create-namespace --wait --timeout 3m --set image.pullPolicy=Never \
  --set artifacts.persistence.enabled=true --set artifacts.persistence.existingClaim=pacer-artifacts \
  --set grafana.url=http://127.0.0.1:3391
check "the operator Deployment is available" k -n "$NS" wait --for=condition=Available deploy/pacer --timeout=120s
lease_renewed() { # the operator's pod holds the Lease and renews it with the chart's RBAC
  local pod first
  pod=$(k -n "$NS" get pods -l app.kubernetes.io/instance=pacer -o jsonpath='{.items[0].metadata.name}')
  for _ in $(seq 60); do [[ $(k -n "$NS" get lease pacer-operator -o jsonpath='{.spec.holderIdentity}' 2>/dev/null) == "$pod" ]] && break; sleep 1; done
  first=$(k -n "$NS" get lease pacer-operator -o jsonpath='{.spec.renewTime}')
  for _ in $(seq 30); do [[ $(k -n "$NS" get lease pacer-operator -o jsonpath='{.spec.renewTime}') != "$first" ]] && return 0; sleep 1; done
  return 1
}
check "the operator holds its Lease and renews it (leader election with the chart's RBAC)" lease_renewed
check "the operator checked the installed CRDs against its own at start, with the chart's RBAC" \
  bash -c "$(declare -f k); KUBECONFIG_HOST=$KUBECONFIG_HOST; k -n $NS logs deploy/pacer | grep -q 'CRDs current: benchmarkruns.pacer.dev, benchmarkschedules.pacer.dev, benchmarksuites.pacer.dev'"
# Prometheus and Grafana beside the cluster, scraping what the chart's monitors describe, for the dashboards' checks
OBS="$REPO/test/observability"
. "$OBS/env.sh"
SHOTS=$PACER_CACHE/observability-screenshots   # copied to docs/images by test/observability/screenshots.sh
check "Prometheus (Debian) and Grafana (built here) scraping the agents and the operator" "$OBS/stack.sh" start
trap 'rm -rf "$WORK" "$ARTIFACTS_HOST"; "$OBS/stack.sh" stop >/dev/null 2>&1' EXIT
dashboards_return_data() { # every panel's queries of both dashboards, through Grafana, return data
  innet python3 "$OBS/query_dashboards.py" http://127.0.0.1:3391 "$REPO/dashboards/pacer-run.json" --var namespace="$BENCH" --var run=loom \
    && innet python3 "$OBS/query_dashboards.py" http://127.0.0.1:3391 "$REPO/dashboards/pacer-server-comparison.json" \
         --var namespace="$BENCH" --var server='.*' --var variant='.*' --var suite='.*' --var series=processing --var baseline=jetty12
}
k create namespace "$BENCH" --dry-run=client -o yaml | k apply -f - >/dev/null
k label namespace "$BENCH" --overwrite pod-security.kubernetes.io/enforce=restricted pod-security.kubernetes.io/enforce-version=latest >/dev/null
metrics() { k get --raw "/api/v1/namespaces/$NS/services/pacer-metrics:8080/proxy/metrics"; }

# a sweep suite first (Chappe's method, small): two servers, each at 100 then 200 req/s per client, one run at a time
# behind the operator's queue; its status holds the sustained rates, its series feed the comparison dashboard's suite view
cat >"$WORK/suite.yaml" <<'YAML'
apiVersion: pacer.dev/v1alpha1
kind: BenchmarkSuite
metadata: {name: sweep}
spec:
  template:
    clients: {count: 2, rate: "100", connections: 4, cpus: 200m, memory: 512Mi}
    request: {method: GET, path: /plaintext}
    warmup: 3s
    duration: 6s
    placement: {pinCpus: true, separateNodes: false, clients: {pinCpus: false}}
    criteria: {rateTolerance: 5%, maxSendLagP99: 50ms}
    timeout: 5m
    cleanup: {pods: OnSuccess}
  servers:
    - {name: jetty12-core, image: pacer/server-jetty12:0.1.0, args: ["--mode=core"], cpus: "1", memory: 512Mi, labels: {server: jetty12, variant: core}}
    - {name: loom, image: pacer/server-loom:0.1.0, cpus: "1", memory: 512Mi, labels: {server: loom, variant: virtual-threads}}
  sweep: {start: "100", max: "200", growth: 2, resolution: 50%, maxClientP99: 100ms}
YAML
t1=$(date +%s)
k apply -n "$BENCH" -f "$WORK/suite.yaml" >/dev/null
for _ in $(seq 400); do
  suite_phase=$(k get bs sweep -n "$BENCH" -o jsonpath='{.status.phase}' 2>/dev/null)
  [[ $suite_phase == Succeeded || $suite_phase == Failed ]] && break; sleep 1
done
# per server: name, sustained rate, client-bound. The clients are BestEffort pods (the pinned server holds the node's one
# allocatable CPU): on a busy machine they may be the limit, and the sweep must then say client-bound, never give the
# server a figure at its clients' limit
sustained=$(k get bs sweep -n "$BENCH" -o jsonpath='{range .status.servers[*]}{.name}:{.sustainedRatePerClient}:{.clientBound}{" "}{end}')
client_reasons=$(k get bs sweep -n "$BENCH" -o jsonpath='{range .status.runs[?(@.boundBy=="client")]}{.reason}{"\n"}{end}')
sweep_judged() { # every server has a figure of its own, or is client-bound with runs that say which client could not keep up
  local entry name rate bound
  for entry in $sustained; do
    IFS=: read -r name rate bound <<<"$entry"
    if [[ $bound == true ]]; then
      grep -q '^client-bound: client-[0-9]' <<<"$client_reasons" || return 1
    else
      [[ -n $rate ]] || return 1
    fi
  done
  [[ $(wc -w <<<"$sustained") -eq 2 ]]
}
check "a sweep suite of 2 servers: ${suite_phase:-?}, per server name:sustained req/s per client:client-bound ${sustained:-none}($(( $(date +%s) - t1 )) s)" \
  bash -c "$(declare -f sweep_judged); sustained='$sustained'; client_reasons='${client_reasons//\'/}'; [[ '$suite_phase' == Succeeded ]] && sweep_judged"
[[ -z $client_reasons ]] || echo "     client-bound rates: $(head -1 <<<"$client_reasons")"
[[ $suite_phase == Succeeded ]] || k get bs sweep -n "$BENCH" -o yaml | sed -n '/^status:/,$p' | head -40
check "its series are on the operator's /metrics: each server's client-bound flag and every run's client p99" \
  bash -c "$(declare -f k metrics); KUBECONFIG_HOST=$KUBECONFIG_HOST; NS=$NS; m=\$(metrics); grep -q 'pacer_suite_sustained_client_bound{namespace=\"$BENCH\",server=\"loom\",suite=\"sweep\"}' <<<\"\$m\" && [[ \$(grep -c 'pacer_suite_run_client_p99_seconds{namespace=\"$BENCH\"' <<<\"\$m\") -eq \$(k get br -n $BENCH -l pacer.dev/suite=sweep -o name | wc -l) ]]"
footprint=$(k get br -n "$BENCH" -l pacer.dev/suite=sweep -o jsonpath='{range .items[*]}{.status.result.server.footprint.idleRssBytes} {.status.result.server.footprint.cpuMicrosPerRequest} {.status.result.server.footprint.imageBytes}{"\n"}{end}' | head -1)
check "each suite run's footprint: idle RSS bytes, CPU µs per request, image bytes from the node: ${footprint:-none}" \
  bash -c "read -r idle cpu image <<<'$footprint'; [[ \${idle:-0} -gt 0 && \${image:-0} -gt 0 && -n \$cpu ]]"

for entry in "jetty12 pacer/server-jetty12:0.1.0 --mode=core core" "loom pacer/server-loom:0.1.0 --mode=virtual-threads virtual-threads"; do
  read -r name image args variant <<<"$entry"
  sed -e "s#name: cluster-quickstart#name: $name#" -e "s#image: pacer/server-jetty12:0.1.0#image: $image#" \
      -e "s#args: \[\"--mode=core\"\]#args: [\"$args\"]#" -e "s#labels: {server: jetty12, variant: core}#labels: {server: $name, variant: $variant}#" \
      "$REPO/examples/cluster-quickstart.yaml" >"$WORK/$name-run.yaml"
  k apply -n "$BENCH" -f "$WORK/$name-run.yaml" >/dev/null
  t1=$(date +%s)
  finished() { for _ in $(seq 180); do
      phase=$(k get br "$1" -n "$BENCH" -o jsonpath='{.status.phase}' 2>/dev/null) || return 1
      [[ $phase == Succeeded || $phase == Failed ]] && return 0; sleep 1; done; return 1; }
  finished "$name"
  phase=$(k get br "$name" -n "$BENCH" -o jsonpath='{.status.phase}')
  verdict=$(k get br "$name" -n "$BENCH" -o jsonpath='{.status.result.verdict}')
  p99int=$(k get br "$name" -n "$BENCH" -o jsonpath='{.status.result.server.p99IntegralMicros}')
  check "$name: restricted namespace, Succeeded with verdict ${verdict:-none}, P99 integral ${p99int:-?} µs ($(( $(date +%s) - t1 )) s)" \
    bash -c "[[ '$phase' == Succeeded && -n '$verdict' && '${p99int:-0}' -gt 0 ]]"
  [[ $phase == Succeeded ]] || k get br "$name" -n "$BENCH" -o yaml | sed -n '/^status:/,$p' | head -40
  check "$name: its series are on the operator's /metrics (pod IP access, in-cluster)" \
    bash -c "$(declare -f k metrics); KUBECONFIG_HOST=$KUBECONFIG_HOST; NS=$NS; metrics | grep -q 'pacer_run_p99_integral_seconds{namespace=\"$BENCH\",run=\"$name\",server=\"$name\",variant=\"$variant\"}'"
  if [[ $name == loom ]]; then   # both runs are in Prometheus now; loom's pods still run
    sleep 6
    dashboards_return_data >"$WORK/dashboards.txt" 2>&1
    check "every panel of both dashboards returns data through Grafana's /api/ds/query ($(grep -c '^ok' "$WORK/dashboards.txt") panels and variables)" \
      bash -c "! grep -q '^FAIL' '$WORK/dashboards.txt' && grep -q '^ok' '$WORK/dashboards.txt'"
    grep '^FAIL' -A3 "$WORK/dashboards.txt" || true
    # each dashboard in headless Chromium: no "No data", no error panel, no page error; the screenshots of docs/images
    mkdir -p "$SHOTS"
    # the run dashboard as the run's status links it: the run selected, the time range its own (grafana.url above)
    link=$(k get br loom -n "$BENCH" -o jsonpath='{.status.dashboard}')
    check "loom: status.dashboard links the run dashboard over the run's window: ${link:-none}" \
      bash -c "[[ '$link' =~ ^http://127.0.0.1:3391/d/pacer-run/run\?var-namespace=$BENCH\&var-run=loom\&from=[0-9]{13}\&to=[0-9]{13}$ ]]"
    for dashboard in "${link#http://127.0.0.1:3391/d/} pacer-run" \
                     "pacer-servers/servers?var-namespace=$BENCH&var-server=\$__all&var-variant=\$__all&var-suite=\$__all&var-series=processing&var-baseline=jetty12&from=now-2m&to=now pacer-server-comparison"; do
      read -r path shot <<<"$dashboard"
      innet env NODE_PATH="$PACER_CACHE/observability-node/node_modules" node "$OBS/render.js" \
        "http://127.0.0.1:3391/d/$path&kiosk" "$SHOTS/dashboard-$shot.png" >"$WORK/render-$shot.txt" 2>&1
      check "dashboard $shot renders in headless Chromium with data in all $(grep -c '^ok' "$WORK/render-$shot.txt") panels" \
        bash -c "! grep -q '^FAIL' '$WORK/render-$shot.txt' && grep -q '^ok' '$WORK/render-$shot.txt'"
      grep '^FAIL' "$WORK/render-$shot.txt" | head -10 || true
    done
  fi
  if [[ $name == jetty12 ]]; then   # its pods are gone (cleanup OnSuccess); its results outlive them and the operator
    kept=$(k get br "$name" -n "$BENCH" -o jsonpath='{.status.artifacts.path} {.status.artifacts.files}')
    k -n "$NS" rollout restart deploy/pacer >/dev/null && k -n "$NS" rollout status deploy/pacer --timeout=180s >/dev/null
    pods_left=$(k get pods -n "$BENCH" -l pacer.dev/run="$name" -o name 2>/dev/null | wc -l)
    "$REPO/pacer" fetch "$name" -n "$BENCH" --kubeconfig "$KUBECONFIG_HOST" -o "$WORK/fetched" >"$WORK/fetch.txt" 2>&1
    check "$name: artifacts ${kept:-none} kept; after its pods ($pods_left left) and the operator's restart, pacer fetch gets them" \
      bash -c "[[ -n '${kept% *}' && $pods_left -eq 0 && -f '$WORK/fetched/server.hlog' && -f '$WORK/fetched/report.html' && -f '$WORK/fetched/server.hgrm' ]] && ls '$WORK/fetched'/client-*.hlog"
    cat "$WORK/fetch.txt" | tail -3
    window=$(k get br "$name" -n "$BENCH" -o jsonpath='{.status.result.window.startEpochMs} {.status.result.window.endEpochMs}')
    status_integrals=$(k get br "$name" -n "$BENCH" -o jsonpath='{.status.result.server.p99IntegralMicros} {.status.result.server.maxIntegralMicros} {.status.result.server.samples}')
    recomputed=$("$("$REPO/scripts/find-jdk.sh")/bin/java" -cp "$REPO/cli/target/app/lib/HdrHistogram-2.2.2.jar" "$DIR/RecomputeIntegrals.java" \
      "$WORK/fetched/server.hlog" $window 1000 2>&1)
    check "$name: HdrHistogram's own log reader recomputes the status integrals from the fetched server.hlog exactly (status $status_integrals, recomputed $recomputed)" \
      bash -c "[[ -n '$status_integrals' && '$status_integrals' == '$recomputed' ]]"
  fi
  k get br "$name" -n "$BENCH" -o yaml >"$WORK/$name.yaml"
  k delete br "$name" -n "$BENCH" --wait=true >/dev/null
  for _ in $(seq 60); do [[ -z $(k get pods -n "$BENCH" -o name 2>/dev/null) ]] && break; sleep 1; done
done
"$REPO/pacer" compare "$WORK/jetty12.yaml" "$WORK/loom.yaml" | tee "$WORK/compare.txt"
check "pacer compare of the two statuses: figures and the rank test of per-period P99s" \
  bash -c "grep -q 'P99 integral ms' '$WORK/compare.txt' && grep -Eq 'loom +median .* p = ' '$WORK/compare.txt'"

# Jetty's blog figures through Grafana (blog_runs.py): three finished runs whose statuses hold the probe's service P99
# integrals of 6,588, 6,264 and 5,400 µs, written while the operator is stopped so that it takes them as finished (its
# metrics, then Prometheus, then Grafana). The comparison dashboard's "% faster" panel, by the service series against
# chappe, reads jetty11 5.2 % and jetty12 22.0 % faster; pacer compare of the same statuses says the same.
BLOG=pacer-blog
FASTER='% faster than $baseline, by P99 and max integral ($series)'
k create namespace "$BLOG" --dry-run=client -o yaml | k apply -f - >/dev/null
k -n "$NS" scale deploy/pacer --replicas=0 >/dev/null
k -n "$NS" wait --for=delete pod -l app.kubernetes.io/component=operator --timeout=120s >/dev/null 2>&1
python3 "$DIR/blog_runs.py" "$WORK"
for name in chappe jetty11 jetty12; do
  k apply -n "$BLOG" -f "$WORK/$name.yaml" >/dev/null
  k patch br "$name" -n "$BLOG" --subresource=status --type=merge --patch-file "$WORK/$name.status.json" >/dev/null
done
k -n "$NS" scale deploy/pacer --replicas=1 >/dev/null
k -n "$NS" rollout status deploy/pacer --timeout=180s >/dev/null
for _ in $(seq 60); do
  [[ $(metrics 2>/dev/null | grep -c "pacer_run_series_p99_integral_seconds{namespace=\"$BLOG\".*series=\"service\"") -eq 3 ]] && break
  sleep 2
done
sleep 8   # a scrape of the operator after its start
innet python3 "$OBS/query_dashboards.py" http://127.0.0.1:3391 "$REPO/dashboards/pacer-server-comparison.json" --var namespace="$BLOG" \
  --var server='.*' --var variant=blog --var suite='.*' --var series=service --var baseline=chappe --values "$FASTER" >"$WORK/blog.txt" 2>&1
faster_of() { # server → its % faster by the P99 integral, to one decimal, as the panel gives it
  python3 -c 'import json,sys
for line in open(sys.argv[1]):
    if line.startswith("value A ") and json.loads(line[8:line.rindex("}") + 1]).get("server") == sys.argv[2]:
        print(f"{float(line.split()[-1]):.1f}")' "$WORK/blog.txt" "$1"
}
grafana_faster="jetty11 $(faster_of jetty11) jetty12 $(faster_of jetty12) chappe $(faster_of chappe)"
check "Jetty's blog figures in Grafana's % faster panel (service, against chappe): $grafana_faster" \
  test "$grafana_faster" == "jetty11 5.2 jetty12 22.0 chappe 0.0"
grep -q '^value' "$WORK/blog.txt" || grep FAIL "$WORK/blog.txt" | head -5
for name in chappe jetty11 jetty12; do k get br "$name" -n "$BLOG" -o yaml >"$WORK/blog-$name.yaml"; done
"$REPO/pacer" compare "$WORK/blog-chappe.yaml" "$WORK/blog-jetty11.yaml" "$WORK/blog-jetty12.yaml" >"$WORK/blog-compare.txt" 2>&1
check "pacer compare of the same statuses: the service series, jetty11 5.2 % and jetty12 22.0 % faster" \
  bash -c "grep -q 'server series: service' '$WORK/blog-compare.txt' && grep -Eq 'jetty11 +5\.2 % faster' '$WORK/blog-compare.txt' && grep -Eq 'jetty12 +22\.0 % faster' '$WORK/blog-compare.txt'"
k delete namespace "$BLOG" --wait=false >/dev/null 2>&1

# The history on the cluster, end to end, on the chart's own PostgreSQL (history.postgresql.deploy; the image is
# images.sh's stand-in for the official one, built from Debian's PostgreSQL), its data on a hostPath PersistentVolume
# owned by the image's postgres user. The release is upgraded to deploy it, to record the runs labelled for the history
# (a schedule's) and to confirm a change after 3 runs. A BenchmarkSchedule every minute, 2 runs a slot (examples/schedules/
# nightly-jetty12.yaml, shorter runs, one client with the CPU of the example's two: a client JVM at 200m, warming up
# for 3 s on this shared node, often ends its run Invalid, and each Invalid run costs a slot more), is suspended while its first slot runs; then its template's server moves to a
# build 10 ms slower per request (images.sh slow-server: the image's configuration alone, so the same series), its
# repetitions to 4, and it is resumed: the latest slot due starts at once (and the schedule is suspended again once it
# has). The first slot's 2 runs are the series' real baseline; 10 copies of them, dated the days before (SQL), lengthen
# it to what a schedule gathers over days. With 4 slower runs recorded (3 would leave the first of them an outlier at
# the series' end: docs/history.md; an Invalid run is not recorded, and the schedule then runs one more slot) the regression is confirmed and told: the schedule's Regressed condition and event, the operator's metric, the row of the table
# `changes`, and Grafana's annotation on "pacer / history" read from the database. Deleted, the schedule's runs go too.
"$REPO/test/cluster/images.sh" slow-server >"$WORK/slow-image.log" 2>&1
slow_image=$(sed -n 's/.*built and imported \([^ ]*\) .*/\1/p' "$WORK/slow-image.log")
HISTORY_HOST=$(mktemp -d /tmp/pacer-test-history.XXXXXX); chown 999:999 "$HISTORY_HOST"
trap 'rm -rf "$WORK" "$ARTIFACTS_HOST" "$HISTORY_HOST"; "$OBS/stack.sh" stop >/dev/null 2>&1' EXIT
host_volume pacer-test-history "$HISTORY_HOST"
# the node's one CPU beside the pinned server is taken by the operator's and the clients' requests: the database asks
# for none (the chart's default, 100m, is for a real node). The test cluster has no DNS: the Secret's address, the
# Service's name, becomes its cluster IP (the same Service, through kube-proxy), and the operator restarts to read it.
check "the chart's own PostgreSQL ($(tar -xOf "$IMAGES/pacer-postgres-test.tar" manifest.json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["RepoTags"][0])'), its data on a PersistentVolume, and the release upgraded to keep the history (labelled runs, 3 runs confirm): $slow_image built" \
  bash -c "$(declare -f k h); KUBECONFIG_HOST=$KUBECONFIG_HOST
    [[ -n '$slow_image' ]] && h upgrade pacer '$REPO/charts/pacer' -n $NS --reuse-values --wait --timeout 3m \
    --set history.enabled=true --set history.postgresql.deploy=true --set history.postgresql.image=localhost/pacer/postgres:test \
    --set history.postgresql.storage.storageClass=pacer-test-history --set history.postgresql.storage.size=1Gi \
    --set history.postgresql.resources.requests.cpu=0 --set history.allRuns=false --set history.confirmRuns=3 \
    && k -n $NS rollout status statefulset/pacer-postgresql --timeout=180s \
    && ip=\$(k -n $NS get svc pacer-postgresql -o jsonpath='{.spec.clusterIP}') && [[ -n \$ip ]] \
    && k -n $NS patch secret pacer-history --type=merge -p \"{\\\"stringData\\\":{\\\"jdbcUrl\\\":\\\"jdbc:postgresql://\$ip:5432/pacer\\\"}}\" \
    && k -n $NS rollout restart deploy/pacer && k -n $NS rollout status deploy/pacer --timeout=180s"
PG_IP=$(k -n "$NS" get pod pacer-postgresql-0 -o jsonpath='{.status.podIP}' 2>/dev/null)
PG_PASSWORD=$(k -n "$NS" get secret pacer-history -o jsonpath='{.data.password}' 2>/dev/null | base64 -d)
psql_() { PGPASSWORD=$PG_PASSWORD innet psql -h "$PG_IP" -p 5432 -U pacer -d pacer -v ON_ERROR_STOP=1 -qtA "$@"; }
check "the database answers at its pod's address with the generated password, and keeps its files on the volume (${#PG_PASSWORD} characters)" \
  bash -c "$(declare -f psql_ innet); NSNET=$NSNET; PG_IP=$PG_IP; PG_PASSWORD='$PG_PASSWORD'
    [[ \$(psql_ -c 'SELECT current_database()') == pacer ]] && [[ -s '$HISTORY_HOST/pgdata/PG_VERSION' ]]"
sed -e 's#name: nightly-jetty12#name: every-minute#' -e 's#schedule: "0 3 \* \* \*"#schedule: "* * * * *"#' \
    -e 's#timeZone: Europe/Paris#timeZone: UTC#' -e 's#repetitions: 3#repetitions: 2#' -e 's#warmup: 5s#warmup: 3s#' -e 's#duration: 20s#duration: 6s#' \
    -e 's#count: 2#count: 1#' -e 's#cpus: 200m#cpus: 400m#' \
    "$REPO/examples/schedules/nightly-jetty12.yaml" >"$WORK/schedule.yaml"
t1=$(date +%s)
k apply -n "$BENCH" -f "$WORK/schedule.yaml" >/dev/null
scheduled_runs() { k get br -n "$BENCH" -l pacer.dev/schedule=every-minute -o name 2>/dev/null | wc -l; }
for _ in $(seq 90); do (( $(scheduled_runs) > 0 )) && break; sleep 1; done
k patch bsched every-minute -n "$BENCH" --type=merge -p '{"spec":{"suspend":true}}' >/dev/null 2>&1
slot_state() { k get bsched every-minute -n "$BENCH" -o jsonpath="{.status.slots[$1].state}" 2>/dev/null; }
for _ in $(seq 300); do [[ $(slot_state 0) == Succeeded || $(slot_state 0) == Failed ]] && break; sleep 1; done
ready=$(k get bsched every-minute -n "$BENCH" -o jsonpath='{.status.conditions[?(@.type=="Ready")].reason}')
first_slot="$(slot_state 0), $(( $(date +%s) - t1 )) s"
series=$(psql_ -c "SELECT series_id FROM runs WHERE run LIKE 'every-minute-%' LIMIT 1" 2>/dev/null)
# A slot's run can still be Invalid (its client short of CPU on this shared host): it is no point of
# the series. The schedule is resumed for one more slot at a time (at most 3 for each build) until the series holds 2
# runs of the baseline build, then, on the slower build, 4 of it (3 may leave the first an outlier); each resume starts
# the latest slot due at once, and the schedule is suspended again once it has.
recorded_of() { # server image pattern → runs of the series recorded with it
  psql_ -c "SELECT count(*) FROM runs WHERE series_id = '$series' AND server_image LIKE '$1'" 2>/dev/null || echo 0
}
slot_of() { # run name → the index of the slot that made it, from the schedule's status (Forbid may add Skipped slots)
  k get bsched every-minute -n "$BENCH" -o json 2>/dev/null | python3 -c 'import json,sys
slots = json.load(sys.stdin).get("status", {}).get("slots", [])
print(next((i for i, s in enumerate(slots) if sys.argv[1] in s.get("runs", [])), ""))' "$1"
}
slots_said=""
one_more_slot() { # merge patch that resumes the schedule → the slot it started, run to its end, said in slots_said
  local before name new_run="" index=""
  before=$(k get br -n "$BENCH" -l pacer.dev/schedule=every-minute -o jsonpath='{.items[*].metadata.name}' 2>/dev/null)
  k patch bsched every-minute -n "$BENCH" --type=merge -p "$1" >/dev/null
  for _ in $(seq 90); do
    for name in $(k get br -n "$BENCH" -l pacer.dev/schedule=every-minute -o jsonpath='{.items[*].metadata.name}' 2>/dev/null); do
      [[ " $before " == *" $name "* ]] || { new_run=$name; break; }
    done
    [[ -n $new_run ]] && break; sleep 1
  done
  k patch bsched every-minute -n "$BENCH" --type=merge -p '{"spec":{"suspend":true}}' >/dev/null 2>&1
  [[ -n $new_run ]] || { slots_said+="${slots_said:+, }no slot started"; return 1; }
  for _ in $(seq 30); do index=$(slot_of "$new_run"); [[ -n $index ]] && break; sleep 1; done
  [[ -n $index ]] || { slots_said+="${slots_said:+, }$new_run in no slot"; return 1; }
  for _ in $(seq 400); do [[ $(slot_state "$index") == Succeeded || $(slot_state "$index") == Failed ]] && break; sleep 1; done
  slots_said+="${slots_said:+, }$(slot_state "$index")$(k get bsched every-minute -n "$BENCH" -o jsonpath="{.status.slots[$index].message}" 2>/dev/null | sed 's/^./ (&/;s/.$/&)/')"
}
resumes=0
while (( resumes < 3 )) && { [[ -z $series ]] || (( $(recorded_of '%') < 2 )); }; do
  resumes=$((resumes + 1)); one_more_slot '{"spec":{"suspend":false}}'
  series=$(psql_ -c "SELECT series_id FROM runs WHERE run LIKE 'every-minute-%' LIMIT 1" 2>/dev/null)
done
check "a BenchmarkSchedule every minute, suspended once started: its first slot's runs ran one after another ($first_slot), Ready $ready, $resumes more slot(s) for the baseline${slots_said:+ ($slots_said)}" \
  bash -c "[[ '$ready' == Suspended && -n '$series' ]]"
recorded=$(recorded_of '%')
check "the operator recorded the baseline's runs in PostgreSQL, one series: ${recorded:-0} runs of ${series:-none}" test "${recorded:-0}" -ge 2
psql_ -c "INSERT INTO runs (source, run, series_id, window_end, end_epoch_ms, spec_digest, server_image, server_digest, node, kernel, jvm,
                            pacer_version, verdict, p99_integral_micros, max_integral_micros, achieved_rate, errors, spectrum_micros, result)
          SELECT source || '/copy-' || c, run || '-copy' || c, series_id, window_end - c * interval '1 day', end_epoch_ms - c * 86400000,
                 spec_digest, server_image, server_digest, node, kernel, jvm, pacer_version, verdict, p99_integral_micros,
                 max_integral_micros, achieved_rate, errors, spectrum_micros, result
          FROM runs, generate_series(1, 5) AS c WHERE series_id = '$series'" >/dev/null 2>&1
t1=$(date +%s)
slots_said="" resumes=0
while (( resumes < 3 )) && (( $(recorded_of '%-slow') < 4 )); do
  if (( resumes == 0 )); then
    patch="{\"spec\":{\"suspend\":false,\"repetitions\":4,\"template\":{\"run\":{\"server\":{\"image\":\"$slow_image\"}}}}}"
  else
    patch='{"spec":{"suspend":false}}'
  fi
  resumes=$((resumes + 1)); one_more_slot "$patch"
done
slots_run=$resumes slow_slots=$slots_said
regressed() { k get bsched every-minute -n "$BENCH" -o jsonpath='{.status.conditions[?(@.type=="Regressed")].status}' 2>/dev/null; }
for _ in $(seq 60); do [[ $(regressed) == True ]] && break; sleep 1; done
k get bsched every-minute -n "$BENCH" -o json >"$WORK/schedule.json"
message=$(python3 -c 'import json,sys; print(next((c["message"] for c in json.load(open(sys.argv[1]))["status"]["conditions"] if c["type"] == "Regressed"), ""))' "$WORK/schedule.json")
slow_runs=$(recorded_of '%-slow')
check "resumed on the slower build: $slots_run slot(s) ran ($slow_slots, $(( $(date +%s) - t1 )) s), $slow_runs of its runs recorded, and the schedule is Regressed=$(regressed): ${message:0:160}" \
  bash -c "(( $slow_runs >= 4 )) && [[ '$(regressed)' == True ]] && grep -q 'p99Integral +' <<<'$message'"
[[ $(regressed) == True ]] || { python3 -m json.tool "$WORK/schedule.json" | sed -n '/"status"/,$p' | head -60; k -n "$NS" logs deploy/pacer --tail=30; }
check "its Regressed event, on the schedule" bash -c "$(declare -f k); KUBECONFIG_HOST=$KUBECONFIG_HOST
  k get events -n $BENCH --field-selector involvedObject.kind=BenchmarkSchedule,involvedObject.name=every-minute -o jsonpath='{.items[*].reason}' | grep -qw Regressed"
check "the operator's metric pacer_history_regressions for the series" \
  bash -c "$(declare -f k metrics); KUBECONFIG_HOST=$KUBECONFIG_HOST; NS=$NS; metrics | grep -E '^pacer_history_regressions\\{.*series=\"$series\".*\\} [1-9]'"
check "the confirmed change in the table changes: $(psql_ -c "SELECT figure || ' ' || first_run || ' ' || status FROM changes WHERE series_id = '$series' AND figure = 'p99Integral'" 2>/dev/null)" \
  bash -c "[[ \$($(declare -f psql_ innet); NSNET=$NSNET; PG_IP=$PG_IP; PG_PASSWORD='$PG_PASSWORD'; psql_ -c \"SELECT count(*) FROM changes WHERE series_id = '$series' AND figure = 'p99Integral' AND status = 'confirmed' AND regression\") -ge 1 ]]"
innet curl -sf -XPOST -H 'Content-Type: application/json' http://127.0.0.1:3391/api/datasources -d "{\"name\": \"pacer history\", \"uid\": \"pacer-history\",
  \"type\": \"postgres\", \"access\": \"proxy\", \"url\": \"$PG_IP:5432\", \"user\": \"pacer\",
  \"secureJsonData\": {\"password\": \"$PG_PASSWORD\"},
  \"jsonData\": {\"database\": \"pacer\", \"sslmode\": \"disable\", \"postgresVersion\": 1500}}" >/dev/null 2>&1
innet python3 "$OBS/query_dashboards.py" http://127.0.0.1:3391 "$REPO/dashboards/pacer-history.json" --datasource pacer-history \
  --var series="$series" --minutes 10080 >"$WORK/history-dashboard.txt" 2>&1
check "Grafana's pacer / history on that database: every panel, and the change as an annotation: $(grep -m1 '^annotation' "$WORK/history-dashboard.txt" | cut -c1-80)" \
  bash -c "grep -q '^annotation Change points: p99Integral +' '$WORK/history-dashboard.txt' && ! grep -q '^FAIL' '$WORK/history-dashboard.txt'"
grep '^FAIL' "$WORK/history-dashboard.txt" | head -5
# acknowledged as a user does (pacer history --acknowledge against the database, every alerting change of the series),
# the operator's metric clears without a new run: it reads the acknowledgements again at most every 30 s
alerting_changes=$(psql_ -c "SELECT figure || ':' || first_run FROM changes WHERE series_id = '$series' AND status = 'confirmed' AND regression AND NOT acknowledged" 2>/dev/null)
for change in $alerting_changes; do
  PACER_HISTORY_PASSWORD=$PG_PASSWORD innet "$REPO/pacer" history --database "jdbc:postgresql://$PG_IP:5432/pacer" --series "$series" \
    --acknowledge "$series:$change" --note "the chart test's slower build" >"$WORK/acknowledge.txt" 2>&1 || cat "$WORK/acknowledge.txt"
done
cleared() { for _ in $(seq 90); do metrics | grep -qE "^pacer_history_regressions\{.*series=\"$series\".*\} 0" && return 0; sleep 1; done; return 1; }
check "acknowledged with pacer history ($(wc -w <<<"$alerting_changes") change(s)), the metric clears without a new run" \
  bash -c "$(declare -f k metrics cleared); KUBECONFIG_HOST=$KUBECONFIG_HOST; NS=$NS; series=$series; [[ -n '$alerting_changes' ]] && cleared"
k delete bsched every-minute -n "$BENCH" >/dev/null 2>&1
runs_gone() { for _ in $(seq 60); do (( $(scheduled_runs) == 0 )) && return 0; sleep 1; done; return 1; }
check "deleting the schedule deletes its runs (they are owned by it)" runs_gone

check "the database's password is in no log of the operator or of the database" \
  bash -c "$(declare -f k); KUBECONFIG_HOST=$KUBECONFIG_HOST; [[ -n '$PG_PASSWORD' ]] && ! { k -n $NS logs deploy/pacer; k -n $NS logs pacer-postgresql-0; } 2>&1 | grep -qF '$PG_PASSWORD'"
check "helm uninstall --wait" h uninstall pacer -n "$NS" --wait --timeout 2m
check "the database's Secret and its volume's claim stay with the data (resource-policy keep, the StatefulSet's claim)" \
  bash -c "$(declare -f k); KUBECONFIG_HOST=$KUBECONFIG_HOST; k -n $NS get secret pacer-history && k -n $NS get pvc data-pacer-postgresql-0"
check "nothing of the release is left (Deployment, StatefulSet, ServiceAccount, Service, RBAC)" bash -c "$(declare -f k owned); KUBECONFIG_HOST=$KUBECONFIG_HOST; [[ -z \$(owned) ]]"
check "the CRD stays, as Helm does with crds/" k get crd benchmarkruns.pacer.dev
k delete pvc pacer-artifacts -n "$NS" --wait=false >/dev/null 2>&1
k delete pvc data-pacer-postgresql-0 -n "$NS" --wait=false >/dev/null 2>&1
k delete pv pacer-test-artifacts pacer-test-history --wait=false >/dev/null 2>&1
k delete namespace "$BENCH" "$NS" --wait=false >/dev/null 2>&1
echo "$passed passed, $failed failed"
(( failed == 0 ))
