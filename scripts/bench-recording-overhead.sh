#!/usr/bin/env bash
# Server recording overhead (prints figures; not a test): saturated throughput of each server with and without the
# agent's recording on the request path (PACER_RECORDING=off removes it), server pinned to CPU 0, wrk pinned to
# CPU 1, alternating off/on ROUNDS times to spread drift over both; each JVM first gets WARMUP seconds of the same load
# (one core also runs the JIT). Prints the mean ratio and the spread of the per-round ratios: on a shared 2-core VM
# the spread is the honest error bar. Goal: on/off ratio within 2 %.
# Usage: scripts/bench-recording-overhead.sh [SECONDS] [ROUNDS] [WARMUP]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
SECONDS_PER_RUN="${1:-10}"
ROUNDS="${2:-4}"
WARMUP="${3:-10}"
require_wrk
work="$(mktemp -d)"
trap 'stop_started; rm -rf "$work"' EXIT

SERVERS=(
  "jetty12-core server-images/jetty12 dev.pacer.server.jetty12.Jetty12Server --mode=core"
  "jetty12-ee10 server-images/jetty12 dev.pacer.server.jetty12.Jetty12Server --mode=ee10"
  "jetty11 server-images/jetty11 dev.pacer.server.jetty11.Jetty11Server --mode=servlet"
  "loom server-images/loom dev.pacer.server.loom.LoomServer --mode=virtual-threads"
)

throughput() { # PORT SECONDS → requests/s
  taskset -c 1 wrk -t1 -c16 -d"$2"s "http://127.0.0.1:$1/plaintext" | sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p'
}

printf "%-14s %12s %12s %8s   %s\n" server "off req/s" "on req/s" "on/off" "per-round on/off"
for entry in "${SERVERS[@]}"; do
  read -r name module main mode <<<"$entry"
  off_sum=0; on_sum=0; ratios=""
  for round in $(seq 1 "$ROUNDS"); do
    order=(off on); (( round % 2 == 0 )) && order=(on off)
    for recording in "${order[@]}"; do
      PACER_RECORDING=$recording start_app 0 "$module" "$main" "$work" "$name-$recording" "$mode" --port=0
      throughput "$APP_PORT" "$WARMUP" >/dev/null
      rate=$(throughput "$APP_PORT" "$SECONDS_PER_RUN")
      stop_started
      if [[ $recording == off ]]; then off_rate=$rate; off_sum=$(echo "$off_sum + $rate" | bc -l); else on_rate=$rate; on_sum=$(echo "$on_sum + $rate" | bc -l); fi
    done
    ratios+=$(printf " %.3f" "$(echo "$on_rate / $off_rate" | bc -l)")
  done
  off=$(echo "$off_sum / $ROUNDS" | bc -l); on=$(echo "$on_sum / $ROUNDS" | bc -l)
  printf "%-14s %12.0f %12.0f %8.3f  %s\n" "$name" "$off" "$on" "$(echo "$on / $off" | bc -l)" "$ratios"
done
