#!/usr/bin/env bash
# Prometheus (Debian's 2.42, as many bare-metal installs run it) and the Grafana backend built by grafana-backend.sh,
# both inside the test cluster's network namespace, so that Prometheus reaches the pods by their IPs exactly as the
# chart's PodMonitor/ServiceMonitor describe: the agents of the benchmark pods (port "admin", labelled with their run
# and role) and the operator (port "metrics"), listed by file_sd.py. Grafana provisions the datasource and dashboards/.
#   stack.sh start | stop
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
. "$DIR/../cluster/env.sh"
. "$DIR/env.sh"
REPO="$(cd "$DIR/../.." && pwd)"
STATE=$PACER_CACHE/observability
PROM_PORT=9391
GRAFANA_PORT=3391
stop_pid() { local f=$STATE/$1.pid; [[ -f $f ]] || return 0; kill "$(cat "$f")" 2>/dev/null && sleep 1; kill -9 "$(cat "$f")" 2>/dev/null || true; rm -f "$f"; }
case ${1:-} in
  start)
    command -v prometheus >/dev/null || { echo "prometheus is missing: run test/observability/install.sh" >&2; exit 1; }
    "$DIR/grafana-backend.sh"
    "$0" stop
    rm -rf "$STATE" && mkdir -p "$STATE"/{prometheus,grafana/data,grafana/logs,grafana/plugins,grafana/provisioning/datasources,grafana/provisioning/dashboards}
    mkdir -p "$STATE/sd"
    # targets as the chart's monitors select them: the benchmark pods' "admin" port with their run and role, the
    # operator's "metrics" port; Debian's Prometheus has no Kubernetes discovery, so file_sd.py lists the pods
    setsid python3 "$DIR/file_sd.py" "$KUBECONFIG_HOST" "$STATE/sd" >"$STATE/file_sd.log" 2>&1 </dev/null &
    echo $! >"$STATE/file_sd.pid"
    cat >"$STATE/prometheus.yml" <<YAML
global: {scrape_interval: 2s, evaluation_interval: 2s}
scrape_configs:
  - job_name: pacer-agents
    file_sd_configs: [{files: ["$STATE/sd/agents.json"], refresh_interval: 2s}]
  - job_name: pacer-operator
    honor_labels: true                # the runs' namespace label, not the operator pod's (the ServiceMonitor's honorLabels)
    file_sd_configs: [{files: ["$STATE/sd/operator.json"], refresh_interval: 2s}]
YAML
    setsid nsenter --net="$NSNET" -- prometheus --config.file="$STATE/prometheus.yml" --storage.tsdb.path="$STATE/prometheus" \
      --web.listen-address="127.0.0.1:$PROM_PORT" --storage.tsdb.retention.time=1d >"$STATE/prometheus.log" 2>&1 </dev/null &
    echo $! >"$STATE/prometheus.pid"
    cat >"$STATE/grafana/provisioning/datasources/prometheus.yaml" <<YAML
apiVersion: 1
datasources:
  - {name: Prometheus, uid: prometheus, type: prometheus, access: proxy, url: "http://127.0.0.1:$PROM_PORT", isDefault: true, jsonData: {timeInterval: 2s}}
YAML
    cat >"$STATE/grafana/provisioning/dashboards/pacer.yaml" <<YAML
apiVersion: 1
providers:
  - {name: pacer, type: file, folder: pacer, options: {path: "$REPO/dashboards"}}
YAML
    write_grafana_ini "$STATE/grafana" "$GRAFANA_PORT"
    start_grafana() {
      setsid nsenter --net="$NSNET" -- "$GRAFANA_HOME/bin/grafana" server --homepath "$GRAFANA_SRC" --config "$STATE/grafana/grafana.ini" \
        >>"$STATE/grafana.log" 2>&1 </dev/null &
      echo $! >"$STATE/grafana.pid"
    }
    start_grafana
    restarts=0
    for _ in $(seq 180); do
      innet curl -sf "http://127.0.0.1:$PROM_PORT/-/ready" >/dev/null 2>&1 && innet curl -sf "http://127.0.0.1:$GRAFANA_PORT/api/health" >/dev/null 2>&1 && exit 0
      # this Grafana build sometimes races with itself creating its first organization on a fresh database
      # ("UNIQUE constraint failed: org.id") and exits: start it again on a fresh database
      if ! kill -0 "$(cat "$STATE/grafana.pid")" 2>/dev/null && (( restarts < 3 )); then
        restarts=$((restarts + 1)); echo "[observability] Grafana exited at start; again ($restarts)" >>"$STATE/grafana.log"
        rm -rf "$STATE/grafana/data" && mkdir -p "$STATE/grafana/data"
        start_grafana
      fi
      sleep 0.5
    done
    echo "Prometheus or Grafana did not start: see $STATE/*.log" >&2; exit 1 ;;
  stop)
    stop_pid grafana; stop_pid prometheus; stop_pid file_sd ;;
  *) echo "usage: stack.sh start|stop" >&2; exit 2 ;;
esac
