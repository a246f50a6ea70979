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
