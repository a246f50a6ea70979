#!/usr/bin/env bash
# The peers of the client benchmark, installed once: Debian's nginx-light (the server: one worker answering "ok") and
# wrk, nghttp2-client (h2load), and vegeta v12.13.0 (an open-loop Go client) built from the Go module proxy into ~/.cache/pacer/tools/bin.
set -euo pipefail
TOOLS="${PACER_CACHE:-$HOME/.cache/pacer}/tools"
missing=()
command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || missing+=(nginx-light)
command -v wrk >/dev/null || missing+=(wrk)
command -v h2load >/dev/null || missing+=(nghttp2-client)   # h2load, the reference over HTTP/2
if (( ${#missing[@]} > 0 )); then
  [[ $(id -u) -eq 0 ]] || { echo "the client benchmark needs: ${missing[*]} (apt-get install, as root)" >&2; exit 1; }
  echo "installing ${missing[*]} (Debian)" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # the package starts a system nginx on port 80; the benchmark runs its own
  systemctl disable --now nginx >/dev/null 2>&1 || nginx -s quit >/dev/null 2>&1 || true
fi
if [[ ! -x "$TOOLS/bin/vegeta" ]]; then
  command -v go >/dev/null || { echo "vegeta is built with Go: install Go 1.22 or newer" >&2; exit 1; }
  echo "building vegeta v12.13.0 into $TOOLS/bin" >&2
  mkdir -p "$TOOLS/bin"
  GOBIN="$TOOLS/bin" GOFLAGS=-mod=mod go install github.com/tsenart/vegeta/v12@v12.13.0
fi
