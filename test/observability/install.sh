#!/usr/bin/env bash
# Debian's Prometheus (2.42) for the dashboard tests, once; its service is not started (the tests run their own).
set -euo pipefail
if ! command -v prometheus >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends prometheus >/dev/null
  systemctl disable --now prometheus >/dev/null 2>&1 || true
  pkill -x prometheus 2>/dev/null || true
fi
prometheus --version 2>&1 | head -1
