#!/usr/bin/env bash
# Builds pacer-gohttp, the Go peer server (a static binary in server-images/gohttp/target). Maven's module calls this.
set -euo pipefail
cd "$(dirname "$0")"
GO=$(command -v go || true)
[[ -n $GO ]] || GO=/usr/local/go/bin/go
[[ -x $GO ]] || { echo "pacer-gohttp needs Go >= 1.26 (go on PATH or /usr/local/go/bin/go)" >&2; exit 1; }
export GOMODCACHE=${GOMODCACHE:-$HOME/.cache/pacer/go/mod} GOCACHE=${GOCACHE:-$HOME/.cache/pacer/go/build}
export GOFLAGS=-mod=readonly CGO_ENABLED=0 GOTOOLCHAIN=local
mkdir -p target
"$GO" vet ./...
"$GO" build -trimpath -ldflags "-s -w" -o target/pacer-gohttp .
