#!/usr/bin/env bash
# Builds a real Grafana server (backend) from the Go module proxy into ~/.cache/pacer/grafana, once: Debian has no
# Grafana package and no registry is reachable. The proxy serves the module github.com/grafana/grafana only at versions
# pinned before; v1.9.2-0.20230609164553-81d85ce8028d is Grafana's main branch of 2023-06-09 (10.0/10.1). Its go.mod
# has replace directives, so it is built inside a writable copy; pkg/server/wire_gen.go is generated with wire v0.7.0
# (older wire releases fail under Go 1.26); mattn/go-sqlite3 needs CGO. Cold: about 11 minutes on 2 cores.
# The frontend (public/build) is not in the module: see the dashboards issue for its build.
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
. "$DIR/env.sh"
GRAFANA_MODULE_VERSION=v1.9.2-0.20230609164553-81d85ce8028d
if [[ -x $GRAFANA_HOME/bin/grafana ]]; then
  exit 0
fi
mkdir -p "$GRAFANA_HOME/bin"
if [[ ! -f $GRAFANA_SRC/pkg/server/wire_gen.go ]]; then
  log "fetching Grafana's module ($GRAFANA_MODULE_VERSION)"
  module=$(go mod download -json github.com/grafana/grafana@$GRAFANA_MODULE_VERSION | python3 -c 'import sys,json;print(json.load(sys.stdin)["Dir"])')
  rm -rf "$GRAFANA_SRC" && cp -r "$module" "$GRAFANA_SRC" && chmod -R u+w "$GRAFANA_SRC"
  GOBIN=$GRAFANA_HOME/bin go install github.com/google/wire/cmd/wire@v0.7.0
  (cd "$GRAFANA_SRC" && GOFLAGS=-mod=mod "$GRAFANA_HOME/bin/wire" gen -tags oss ./pkg/server)
fi
log "building Grafana's backend (cold: about 11 minutes)"
(cd "$GRAFANA_SRC" && CGO_ENABLED=1 GOFLAGS="-mod=mod -buildvcs=false -p=2" go build -tags oss \
  -ldflags "-X main.version=10.0.0-pre -X main.commit=81d85ce8028d" -o "$GRAFANA_HOME/bin/grafana" ./pkg/cmd/grafana)
"$GRAFANA_HOME/bin/grafana" -v
