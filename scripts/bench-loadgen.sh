#!/usr/bin/env bash
# Load generator benchmark (prints figures; not a test). Against one Jetty 12 core server pinned to CPU 0, with every
# client pinned to CPU 1, in the same run:
#   1. CPU-seconds per 1,000 requests at a fixed rate: pacer's load generator, the plain jetty-load-generator, and wrk
#      (closed loop, saturating; its CPU per request is the comparison point);
#   2. the highest rate one client core holds within 1 % (achieved within 1 % of offered), stepping the rate up.
# Usage: scripts/bench-loadgen.sh [FIXED_RATE] [SECONDS]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
FIXED_RATE="${1:-5000}"
SECONDS_PER_RUN="${2:-10}"
# A JVM pinned to one core spends its first seconds compiling: every client warms up this long at the same rate, and
# only what follows is measured.
WARMUP_SECONDS="${WARMUP_SECONDS:-10}"
STEPS=(5000 10000 15000 20000 25000 30000 40000 50000 60000)
require_wrk
work="$(mktemp -d)"
trap 'stop_started; rm -rf "$work"' EXIT

start_app 0 server-images/jetty12 dev.pacer.server.jetty12.Jetty12Server "$work" server --mode=core --port=0
SERVER_PORT=$APP_PORT

# pacer_loadgen RATE SECONDS: prints "responsesInWindow achieved cpuSecondsInWindow"
pacer_loadgen() {
  local rate="$1" seconds="$2"
  start_app 1 loadgen-image dev.pacer.loadgen.LoadGeneratorAgent "$work" loadgen
  local pid=$APP_PID admin=$ADMIN_PORT
  local start_at=$(( ($(date +%s%3N) / 1000 + 2) * 1000 ))
  curl -sf -XPOST "localhost:$admin/pacer/v1/run" -d "{\"targetUrl\":\"http://127.0.0.1:$SERVER_PORT\",\"ratePerSecond\":$rate,\"connections\":16,\"request\":{\"path\":\"/plaintext\"},\"warmupMs\":$((WARMUP_SECONDS*1000)),\"durationMs\":$((seconds*1000)),\"startAtEpochMs\":$start_at}" >/dev/null
  local window_start=$(( start_at + WARMUP_SECONDS * 1000 )) window_end=$(( start_at + (WARMUP_SECONDS + seconds) * 1000 ))
  while (( $(date +%s%3N) < window_start )); do sleep 0.01; done
  local cpu0; cpu0=$(cpu_seconds "$pid")
  while (( $(date +%s%3N) < window_end )); do sleep 0.01; done
  local cpu1; cpu1=$(cpu_seconds "$pid")
  while ! curl -sf "localhost:$admin/pacer/v1/run" | grep -q '"state" : "done"'; do sleep 0.2; done
  local report; report=$(curl -sf "localhost:$admin/pacer/v1/run")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  local completed achieved
  completed=$(echo "$report" | sed -n 's/.*"completedInWindow" : \([0-9]*\).*/\1/p')
  achieved=$(echo "$report" | sed -n 's/.*"achievedRate" : \([0-9.E]*\).*/\1/p')
  echo "$completed $achieved $(echo "$cpu1 - $cpu0" | bc -l)"
}

plain_loadgen() {
  taskset -c 1 "$JAVA" -cp "$PACER_HOME/loadgen-image/target/app/lib/*" dev.pacer.loadgen.bench.PlainLoadGeneratorBench \
    127.0.0.1 "$SERVER_PORT" /plaintext "$1" "$2" 16 "$WARMUP_SECONDS" 2>/dev/null | grep plain-jetty-load-generator
}

echo "== CPU per 1,000 requests at ${FIXED_RATE} req/s for ${SECONDS_PER_RUN} s (client on CPU 1, server on CPU 0)"
read -r p_done p_rate p_cpu < <(pacer_loadgen "$FIXED_RATE" "$SECONDS_PER_RUN")
p_per=$(echo "scale=4; $p_cpu * 1000 / $p_done" | bc -l)
printf "pacer loadgen:              responses %s in the window, achieved %.1f/s, CPU %.2f s, CPU s per 1k: %s\n" "$p_done" "$p_rate" "$p_cpu" "$p_per"
plain=$(plain_loadgen "$FIXED_RATE" "$SECONDS_PER_RUN")
echo "$plain"
l_per=$(echo "$plain" | sed -n 's/.*cpuSecondsPer1000=\([0-9.]*\).*/\1/p')
taskset -c 1 wrk -t1 -c16 -d3s "http://127.0.0.1:$SERVER_PORT/plaintext" >/dev/null   # server JIT warm-up
wrk_out=$(bash -c "taskset -c 1 wrk -t1 -c16 -d${SECONDS_PER_RUN}s http://127.0.0.1:$SERVER_PORT/plaintext; times" 2>&1)
wrk_requests=$(echo "$wrk_out" | sed -n 's/^ *\([0-9]*\) requests in.*/\1/p')
wrk_cpu=$(echo "$wrk_out" | tail -1 | awk '{ split($1,u,"m"); split($2,s,"m"); sub("s","",u[2]); sub("s","",s[2]); print u[1]*60+u[2]+s[1]*60+s[2] }')
w_per=$(echo "scale=4; $wrk_cpu * 1000 / $wrk_requests" | bc -l)
echo "wrk (closed loop, saturating): requests $wrk_requests, CPU $wrk_cpu s, CPU s per 1k: $w_per"
echo "ratios (CPU per request): pacer/plain = $(echo "scale=2; $p_per / $l_per" | bc -l), pacer/wrk = $(echo "scale=2; $p_per / $w_per" | bc -l)"

echo
echo "== highest rate one client core holds within 1 % (5 s measured per step, after the warm-up)"
for kind in pacer plain; do
  best=0
  for rate in "${STEPS[@]}"; do
    if [[ $kind == pacer ]]; then
      read -r _ achieved _ < <(pacer_loadgen "$rate" 5)
    else
      achieved=$(plain_loadgen "$rate" 5 | sed -n 's/.*achieved=\([0-9.]*\).*/\1/p')
    fi
    # held: achieved within 1 % of offered either way (above means it was still catching up a backlog)
    ok=$(echo "$achieved >= $rate * 0.99 && $achieved <= $rate * 1.01" | bc -l)
    printf "  %-6s offered %6d  achieved %10.1f  %s\n" "$kind" "$rate" "$achieved" "$([[ $ok == 1 ]] && echo held || echo missed)"
    [[ $ok == 1 ]] || break
    best=$rate
  done
  echo "$kind: highest rate held: $best req/s"
done
wrk_rate=$(bash -c "taskset -c 1 wrk -t1 -c16 -d5s http://127.0.0.1:$SERVER_PORT/plaintext" | sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p')
echo "wrk (closed loop) saturated throughput on one core: $wrk_rate req/s"
