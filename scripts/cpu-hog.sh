#!/usr/bin/env bash
# A machine made busy on purpose: one busy loop per CPU at nice 10, each stopping by itself after DURATION (default
# 90m), so that a test run beside it shows whether pacer's tests hold on a machine that is not quiet.
#   scripts/cpu-hog.sh [DURATION] &   make test;   kill %1   (or let it end)
set -euo pipefail
DURATION=${1:-90m}
cpus=$(nproc)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT INT TERM
for cpu in $(seq 0 $((cpus - 1))); do
  taskset -c "$cpu" nice -n 10 timeout "$DURATION" sh -c 'while :; do :; done' &
  pids+=($!)
done
echo "cpu-hog: $cpus busy loops at nice 10 for $DURATION (pids ${pids[*]})" >&2
wait
