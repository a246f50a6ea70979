# Sourced by the observability scripts: caches under ~/.cache/pacer, Go from /usr/local/go, the module proxy only.
export PACER_CACHE=${PACER_CACHE:-$HOME/.cache/pacer}
export GRAFANA_HOME=$PACER_CACHE/grafana
export GRAFANA_SRC=$GRAFANA_HOME/src
export PATH=/usr/local/go/bin:$PATH
export GOMODCACHE=$PACER_CACHE/go/mod
export GOCACHE=$PACER_CACHE/go/build
export GOTOOLCHAIN=local
export GOPROXY=${GOPROXY:-https://proxy.golang.org,off}
log() { echo "[observability] $*" >&2; }
# grafana.ini for a Grafana on 127.0.0.1:PORT whose data, logs, plugins and provisioning are under DIR, anonymous
# admin, nothing phoned home.   write_grafana_ini DIR PORT
write_grafana_ini() {
  cat >"$1/grafana.ini" <<INI
[server]
http_addr = 127.0.0.1
http_port = $2
[paths]
data = $1/data
logs = $1/logs
plugins = $1/plugins
provisioning = $1/provisioning
[auth.anonymous]
enabled = true
org_role = Admin
[analytics]
reporting_enabled = false
check_for_updates = false
check_for_plugin_updates = false
[news]
news_feed_enabled = false
INI
}
