#!/usr/bin/env bash
# Runs the comparison one server after the other (runs on the same nodes must not overlap), saves each finished
# BenchmarkRun, and compares them with the first as baseline: figures, differences, and a rank test of the
# per-period server P99s. About 5 minutes per server. Usage: run-all.sh [NAMESPACE]
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
NS=${1:-default}
OUT=${OUT:-$PWD/comparison-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
saved=()
for file in "$DIR"/[0-9]-*.yaml; do
  name=$(sed -n 's/^  name: //p' "$file" | head -1)
  kubectl -n "$NS" delete br "$name" --ignore-not-found --wait=true >/dev/null
  kubectl -n "$NS" apply -f "$file"
  until phase=$(kubectl -n "$NS" get br "$name" -o jsonpath='{.status.phase}') && [[ $phase == Succeeded || $phase == Failed ]]; do
    printf '\r%-14s %-10s %s   ' "$name" "${phase:-Pending}" \
      "$(kubectl -n "$NS" get br "$name" -o jsonpath='{.status.progress.elapsedSeconds}/{.status.progress.totalSeconds} s, achieved {.status.progress.achievedRate} req/s' 2>/dev/null)"
    sleep 5
  done
  echo
  kubectl -n "$NS" get br "$name" -o yaml >"$OUT/$name.yaml"
  kubectl -n "$NS" get br "$name"
  saved+=("$OUT/$name.yaml")
done
PACER=${PACER:-$DIR/../../pacer}
"$PACER" compare "${saved[@]}" | tee "$OUT/compare.txt"
