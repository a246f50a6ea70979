#!/usr/bin/env bash
# Probe benchmark (prints figures; not a test): what the kernel probe costs the server it measures. nginx (one worker
# answering "ok") pinned to CPU 0, the clients and the probe on CPU 1, in one run, without and with the probe in turn
# (twice each, so a drift of the machine shows):
#   1. at a fixed open-loop rate (vegeta, RATE req/s, 16 connections; use the highest rate the machine holds): the
#      requests answered, as vegeta counted them; nginx's CPU per request (utime + stime); the client's p99 (vegeta's,
#      from each request's send), with and without the probe: the latency the probe adds; and the time the kernel
#      spent in the probe's BPF programs per request (kernel.bpf_stats_enabled, read from the probe);
#   2. saturated (wrk, closed loop, 16 connections): nginx's throughput, and the ratio with the probe to without.
# On loopback the arrival hook (sk_data_ready) runs in the sender's softirq, on the client's CPU: the BPF time per
# request counts it, nginx's CPU does not.
# Usage: scripts/bench-probe.sh [RATE]  (default 10000). Needs root (the probe loads BPF programs).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
RATE="${1:-10000}"
WARMUP_SECONDS="${WARMUP_SECONDS:-5}"
MEASURED_SECONDS="${MEASURED_SECONDS:-15}"
SATURATED_SECONDS="${SATURATED_SECONDS:-10}"
bench_estimate bench-probe $(( 4 * (WARMUP_SECONDS + MEASURED_SECONDS + SATURATED_SECONDS + 5) )) \
  "2 rounds without and with the probe, each ${WARMUP_SECONDS}+${MEASURED_SECONDS} s at $RATE req/s then ${SATURATED_SECONDS} s saturated, 5 s to start"
"$PACER_HOME/scripts/install-bench-tools.sh"
[[ $(id -u) -eq 0 ]] || { echo "the probe benchmark loads the kernel probe: run it as root" >&2; exit 1; }
VEGETA="${PACER_CACHE:-$HOME/.cache/pacer}/tools/bin/vegeta"
PROBE="$PACER_HOME/probe/target/pacer-probe"
[[ -x $PROBE ]] || PACER_VERSION=bench "$PACER_HOME/probe/build.sh"
work="$(mktemp -d)"
trap 'stop_started; rm -rf "$work"' EXIT

start_nginx "$work" 0
TARGET="http://127.0.0.1:$NGINX_PORT/"
taskset -c 1 wrk -t1 -c16 -d2s "$TARGET" >/dev/null   # nginx warm

PROBE_PID="" PROBE_ADMIN=""
attach() {
  rm -f "$work/probe.ready"
  PACER_READY_FILE="$work/probe.ready" taskset -c 1 "$PROBE" --bpf-run-time --listen="127.0.0.1:$NGINX_PORT" --pid="$NGINX_PID" \
    --admin-address=127.0.0.1 --admin-port=0 >"$work/probe.log" 2>&1 &
  PROBE_PID=$!
  local i
  for i in $(seq 100); do [[ -s $work/probe.ready ]] && break; sleep 0.1; done
  [[ -s $work/probe.ready ]] || { echo "the probe did not become ready:" >&2; cat "$work/probe.log" >&2; exit 1; }
  PROBE_ADMIN=$(sed -n 's/.*"adminPort":\([0-9]*\).*/\1/p' "$work/probe.ready")
}
detach() { kill "$PROBE_PID"; wait "$PROBE_PID" 2>/dev/null || true; PROBE_PID=""; }
metric() { curl -sf "localhost:$PROBE_ADMIN/metrics" | awk -v m="$1" '$1 ~ "^"m { print $2 }' | head -1; }

# fixed_rate: prints "nginxMicrosPerRequest bpfNanosPerRequest requests clientP99Micros": the requests answered in
# the measured seconds as vegeta counted them (not rate × time), and vegeta's p99 over them (from each request's send)
fixed_rate() {
  echo "GET $TARGET" | taskset -c 1 "$VEGETA" attack -rate="$RATE/s" -duration="${WARMUP_SECONDS}s" \
    -connections=16 -max-connections=16 -keepalive=true -http2=false >/dev/null
  local bpf0=0 bpf1=0 cpu0 cpu1
  cpu0=$(cpu_seconds "$NGINX_PID")
  [[ -n $PROBE_PID ]] && bpf0=$(metric pacer_probe_bpf_run_seconds_total)
  echo "GET $TARGET" | taskset -c 1 "$VEGETA" attack -rate="$RATE/s" -duration="${MEASURED_SECONDS}s" \
    -connections=16 -max-connections=16 -keepalive=true -http2=false >"$work/vegeta.bin"
  cpu1=$(cpu_seconds "$NGINX_PID")
  [[ -n $PROBE_PID ]] && bpf1=$(metric pacer_probe_bpf_run_seconds_total)
  local requests p99us
  read -r requests p99us < <("$VEGETA" report -type=json <"$work/vegeta.bin" \
    | python3 -c 'import json, sys; r = json.load(sys.stdin); print(round(r["requests"] * r["success"]), r["latencies"]["99th"] / 1000)')
  printf "%.2f %.0f %d %.0f\n" "$(echo "($cpu1 - $cpu0) * 1000000 / $requests" | bc -l)" \
    "$(echo "($bpf1 - $bpf0) * 1000000000 / $requests" | bc -l)" "$requests" "$p99us"
}

saturated() {
  taskset -c 1 wrk -t1 -c16 -d"${SATURATED_SECONDS}s" "$TARGET" | awk '/Requests\/sec/ { print $2 }'
}

printf "nginx (1 worker) on CPU 0; vegeta, wrk and the probe on CPU 1; fixed rate %d req/s (%d s warm-up, %d s measured), saturated %d s\n\n" \
  "$RATE" "$WARMUP_SECONDS" "$MEASURED_SECONDS" "$SATURATED_SECONDS"
printf "%-8s %-8s %10s %18s %22s %16s %16s\n" "round" "probe" "requests" "nginx µs CPU/req" "BPF ns/req (kernel)" "client p99 µs" "saturated req/s"
declare -a off_cpu=() on_cpu=() off_sat=() on_sat=() on_bpf=() off_p99=() on_p99=()
for round in 1 2; do
  for mode in off on; do
    [[ $mode == on ]] && attach
    read -r cpu bpf requests p99 < <(fixed_rate)
    sat=$(saturated)
    if [[ $mode == on ]]; then
      on_cpu+=("$cpu"); on_sat+=("$sat"); on_bpf+=("$bpf"); on_p99+=("$p99")
      dropped=$(metric pacer_probe_records_dropped_total)
      detach
    else
      off_cpu+=("$cpu"); off_sat+=("$sat"); off_p99+=("$p99"); bpf="–"
    fi
    printf "%-8s %-8s %10s %18s %22s %16s %16s\n" "$round" "$mode" "$requests" "$cpu" "$bpf" "$p99" "$sat"
  done
done
mean() { echo "$@" | tr ' ' '\n' | awk '{ s += $1 } END { printf "%.2f", s / NR }'; }
printf "\nmean: nginx CPU per request %s µs without, %s µs with the probe (+%s µs); client p99 %s µs without, %s µs with; BPF %s ns per request; saturated throughput ratio (with / without) %s; records dropped in the last round: %s\n" \
  "$(mean "${off_cpu[@]}")" "$(mean "${on_cpu[@]}")" "$(echo "$(mean "${on_cpu[@]}") - $(mean "${off_cpu[@]}")" | bc -l | xargs printf '%.2f')" \
  "$(mean "${off_p99[@]}")" "$(mean "${on_p99[@]}")" \
  "$(mean "${on_bpf[@]}")" "$(echo "$(mean "${on_sat[@]}") / $(mean "${off_sat[@]}")" | bc -l | xargs printf '%.3f')" "${dropped:-?}"
