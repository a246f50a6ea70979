#!/usr/bin/env bash
# What the dashboard tests need beyond the cluster, once: Debian's Prometheus (2.42; its service is not started, the
# tests run their own) and puppeteer-core from npm (it drives Debian's chromium and downloads no browser).
set -euo pipefail
if ! command -v prometheus >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends prometheus >/dev/null
  systemctl disable --now prometheus >/dev/null 2>&1 || true
  pkill -x prometheus 2>/dev/null || true
fi
DIR="$(cd "$(dirname "$0")" && pwd)"
. "$DIR/env.sh"
if [[ ! -d $PACER_CACHE/observability-node/node_modules/puppeteer-core ]]; then
  mkdir -p "$PACER_CACHE/observability-node"
  (cd "$PACER_CACHE/observability-node" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --silent --no-audit --no-fund puppeteer-core@24.43.1 >/dev/null)
fi
prometheus --version 2>&1 | head -1
