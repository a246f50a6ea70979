#!/usr/bin/env bash
# Client benchmark (prints figures; not a test): is pacer's load generator ever the bottleneck? nginx (Debian
# nginx-light, one worker answering "ok") pinned to CPU 0, each client in turn pinned to CPU 1, at 16, 100 and 1,000
# connections, in the same run: wrk2 (the reference, when WRK2 names its binary), vegeta (open loop, Go), pacer's load
# generator, and on request the plain jetty-load-generator, at each rate. Each client warms up WARMUP_SECONDS at the
# rate, then MEASURED_SECONDS are measured: its CPU (utime + stime of the process) per response, the rate it achieved
# (held: within 1 % of the rate offered; "+N s": pacer was behind its schedule as the warm-up ended, and its warm-up grew
# by N s, as a run's does) and its p99 response time. Ratios are to wrk2 when it ran, else to vegeta,
# within this run only; with several connection counts, each client's cost is also set against its own at the first
# (a dash where either did not hold the rate in every round). Below the table, each client's sleeps per response in the
# window: how often its threads waited and were woken, and the machine's timer and wake-up interrupts per response on
# the client's CPU and the server's, beside this machine's price of a wake-up (measured before the table on the
# clients' CPU: WakeupPrice); for pacer, also its CPU per response by thread: its shard threads (the requests) apart
# from the JIT's compilers, GC and the rest (per-second samplers, the run's thread, the admin server), which a C
# client does not pay. Then a JFR profile of pacer's client at the highest rate says where its CPU goes.
# Usage: [WRK2=/path/to/wrk2] scripts/bench-client.sh [RATE...]   (default 5000 10000 20000 40000)
#   CONNECTIONS="16 100 1000" (default): the connection counts; CLIENTS="wrk2 vegeta pacer" (default; "plain" adds the
#   jetty-load-generator): only those clients; PROFILE_ONLY=1: only the profile at the highest rate; RAMP_SECONDS=5:
#   pacer's warm-up starts with a 5 s ramp; SCHEME=https: every client over TLS 1.3 to nginx (keep-alive connections:
#   one handshake each, before the window; pacer trusts nginx's certificate, vegeta skips the check);
#   PACER_VARIANTS="50 500 500:lastUsedFirst": pacer once per variant, each clients.minWakeupIntervalMicros and, after a
#   colon, clients.connectionOrder (unset: pacer once, with its defaults); REPEAT=3: each case (rate, connections) run
#   3 rounds of every client in turn, each figure the median of its rounds and each ratio the median of the ratios
#   within a round (the rounds' ratios follow in the text table); FORMAT=markdown: the table as in docs/benchmarks.md;
#   PROFILE=0: no profile after the table; HTTP_VERSION=h2 (with SCHEME=https; ALPN) or h2c (cleartext, prior
#   knowledge): every client over HTTP/2, nginx serving it, h2load (nghttp2's load generator) the reference and its cost
#   set against pacer's; STREAMS=N: N requests at once per connection (h2load -m, pacer's maxConcurrentStreams; 1 by
#   default); PACER_BEFORE=<commit>: pacer also as built at that commit (its load generator built once, offline, into
#   the cache), beside this checkout's in every round, to show a change's cost in one run. wrk2 is built
#   from its public source outside the repository (git clone https://github.com/giltene/wrk2 && make), never committed.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require_built loadgen-image
VEGETA="${PACER_CACHE:-$HOME/.cache/pacer}/tools/bin/vegeta"
RATES=("$@"); (( ${#RATES[@]} )) || RATES=(5000 10000 20000 40000)
WARMUP_SECONDS="${WARMUP_SECONDS:-10}"
MEASURED_SECONDS="${MEASURED_SECONDS:-15}"
RAMP_SECONDS="${RAMP_SECONDS:-0}"   # pacer only: the first seconds of its warm-up ramp the rate up from 0 (rampUpMs)
REPEAT="${REPEAT:-1}"; [[ $REPEAT =~ ^[1-9][0-9]*$ ]] || { echo "REPEAT must be a whole number of rounds, 1 or more, was '$REPEAT'" >&2; exit 2; }
FORMAT="${FORMAT:-text}"; [[ $FORMAT == text || $FORMAT == markdown ]] || { echo "FORMAT must be text or markdown, was '$FORMAT'" >&2; exit 2; }
PROFILE="${PROFILE:-1}"   # 0: no JFR profile after the table
CONNECTION_COUNTS=(${CONNECTIONS:-16 100 1000})
CONNECTIONS=${CONNECTION_COUNTS[0]}
HTTP_VERSION="${HTTP_VERSION:-http/1.1}"
STREAMS="${STREAMS:-1}"
SCHEME="${SCHEME:-http}"
[[ $SCHEME == http || $SCHEME == https ]] || { echo "SCHEME must be http or https, was '$SCHEME'" >&2; exit 2; }
case "$HTTP_VERSION/$SCHEME" in
  http/1.1/*|h2/https|h2c/http) ;;
  *) echo "HTTP_VERSION must be http/1.1, h2 (with SCHEME=https) or h2c (with SCHEME=http), was '$HTTP_VERSION' over $SCHEME" >&2; exit 2 ;;
esac
[[ $STREAMS =~ ^[1-9][0-9]*$ ]] || { echo "STREAMS must be a whole number, 1 or more, was '$STREAMS'" >&2; exit 2; }
if [[ $HTTP_VERSION != http/1.1 ]]; then
  DEFAULT_CLIENTS="h2load pacer"   # wrk2 and vegeta speak HTTP/1.1 here
elif [[ -n ${WRK2:-} ]]; then
  [[ -x $WRK2 ]] || { echo "WRK2=$WRK2 is not an executable: build giltene/wrk2 and give its 'wrk' binary" >&2; exit 2; }
  DEFAULT_CLIENTS="wrk2 vegeta pacer"
else
  DEFAULT_CLIENTS="vegeta pacer"
fi
clients_planned=(${CLIENTS:-$DEFAULT_CLIENTS}); variants_planned=(${PACER_VARIANTS:-})
# pacer's variants replace pacer itself; its build before comes beside them
extra_variants=0; [[ " ${clients_planned[*]} " == *" pacer "* ]] && extra_variants=$(( (${#variants_planned[@]} > 0 ? ${#variants_planned[@]} - 1 : 0) + ( ${PACER_BEFORE:+1} + 0 ) ))
points=$(( (${#clients_planned[@]} + extra_variants) * ${#RATES[@]} * ${#CONNECTION_COUNTS[@]} * REPEAT ))
bench_estimate bench-client $(( 5 + points * (WARMUP_SECONDS + MEASURED_SECONDS + 5) + (PROFILE == 1 ? WARMUP_SECONDS + MEASURED_SECONDS + 20 : 0) )) \
  "the price of a wake-up (5 s), $points loads of ${WARMUP_SECONDS}+${MEASURED_SECONDS} s and 5 s to start each: ${#clients_planned[@]} clients$( (( ${#variants_planned[@]} )) && echo ", pacer as ${#variants_planned[@]} variants")$( [[ -n ${PACER_BEFORE:-} ]] && echo " and pacer as at $PACER_BEFORE"), ${#RATES[@]} rates, ${#CONNECTION_COUNTS[@]} connection counts, $REPEAT rounds$( (( PROFILE == 1 )) && echo ", then a profile")"
"$PACER_HOME/scripts/install-bench-tools.sh"
LOADGEN_JVM=(-XX:+UseSerialGC -Xms512m -Xmx512m -XX:+AlwaysPreTouch)   # the client image's defaults, for 1 CPU
LOADGEN_LIB="$PACER_HOME/loadgen-image/target/app/lib"
PACER_LIB="$LOADGEN_LIB"; PACER_LABEL=pacer   # which build pacer_client starts, and its name in the details
if [[ -n ${PACER_BEFORE:-} ]]; then
  [[ " ${CLIENTS:-$DEFAULT_CLIENTS} " == *" pacer "* ]] || { echo "PACER_BEFORE sets a build beside pacer's: keep pacer in CLIENTS" >&2; exit 2; }
  BEFORE_LIB=$(loadgen_at_commit "$PACER_BEFORE") || exit 2
  BEFORE_SHA=$(git -C "$PACER_HOME" rev-parse --short "$PACER_BEFORE^{commit}")
fi
work="$(mktemp -d)"
trap 'stop_started; rm -rf "$work"' EXIT
now_ms() { local t=${EPOCHREALTIME//[^0-9]/}; echo $(( t / 1000 )); }
# wait_until_ms EPOCH_MS: one sleep to 20 ms before it, then short ones. A loop that forks every few ms through a
# window would take a quarter of a CPU beside the client it measures, on the client's CPU as often as not
wait_until_ms() {
  local t=${EPOCHREALTIME//[^0-9]/} left_ms
  left_ms=$(( $1 - t / 1000 - 20 ))
  (( left_ms > 0 )) && sleep "$(( left_ms / 1000 )).$(printf '%03d' $(( left_ms % 1000 )))"
  while t=${EPOCHREALTIME//[^0-9]/}; (( t / 1000 < $1 )); do sleep 0.002; done
}
# ", round 2" in a details line when each case runs several rounds (round: the main loop's)
round_label() { (( REPEAT > 1 )) && echo ", round $round"; return 0; }
# how often a client's threads waited and were woken: with the interrupts below, what its pacing asks of the machine
# (the sleeps alone do not price it: the responses to a burst come back over several short sleeps)
sleeps_per_response() { # sleeps (from sleeps_between: "≥" before it when a thread ended in the window) responses
  awk -v s="$1" -v n="$2" 'BEGIN { bound = ""; if (s !~ /^[0-9]/) { bound = "≥ "; sub(/^[^0-9]+/, "", s) }
    printf "%s%.2f sleeps per response%s", bound, (n > 0 ? s / n : 0), (bound == "" ? "" : " (a thread ended in the window, its sleeps uncounted)") }'
}

NGINX_HTTP2=$([[ $HTTP_VERSION == http/1.1 ]] && echo 0 || echo 1) NGINX_TLS=$([[ $SCHEME == https ]] && echo 1 || echo 0) start_nginx "$work" 0
PORT=$NGINX_PORT
TARGET="$SCHEME://127.0.0.1:$PORT/"
TLS_JSON=""
if [[ $SCHEME == https ]]; then
  TLS_JSON=",\"tls\":{\"protocols\":[\"TLSv1.3\"],\"sessionResumption\":true,\"requestsPerConnection\":0,\"trustedCertificatesFile\":\"$work/tls.crt\"}"
fi
if [[ $HTTP_VERSION == http/1.1 ]]; then
  taskset -c 1 wrk -t1 -c16 -d2s "$TARGET" >/dev/null   # nginx warm
else
  taskset -c 1 h2load -c16 -n 20000 "$TARGET" >/dev/null
fi

# each prints: "responsesInWindow achievedPerSecond cpuSecondsInWindow p99Ms"
pacer_client() {
  local rate="$1" extra_jvm=("${@:2}")
  local ready="$work/loadgen.ready"; rm -f "$ready"
  PACER_ADMIN_PORT=0 PACER_READY_FILE="$ready" taskset -c 1 "$JAVA" "${LOADGEN_JVM[@]}" "${extra_jvm[@]}" \
    -cp "$PACER_LIB/*" dev.pacer.loadgen.LoadGeneratorAgent >"$work/loadgen.log" 2>&1 &
  local pid=$!; STARTED_PIDS+=("$pid")
  while [[ ! -s $ready ]]; do
    kill -0 "$pid" 2>/dev/null || { echo "$PACER_LABEL's load generator exited before it was ready:" >&2; tail -20 "$work/loadgen.log" >&2; return 1; }
    sleep 0.05
  done
  local admin; admin=$(sed -n 's/.*"adminPort":\([0-9]*\).*/\1/p' "$ready")
  # armed first (connected, collected), then started a second or more ahead, as the run protocol does
  local wakeup_json=""; [[ -n ${PACER_WAKEUP_MICROS:-} ]] && wakeup_json="\"minWakeupIntervalMicros\":$PACER_WAKEUP_MICROS,"
  [[ -n ${PACER_CONNECTION_ORDER:-} ]] && wakeup_json+="\"connectionOrder\":\"$PACER_CONNECTION_ORDER\","
  [[ $HTTP_VERSION != http/1.1 ]] && wakeup_json+="\"httpVersion\":\"$HTTP_VERSION\",\"maxConcurrentStreams\":$STREAMS,"
  curl -sf -XPOST "localhost:$admin/pacer/v1/run" -d "{\"targetUrl\":\"$SCHEME://127.0.0.1:$PORT\",\"ratePerSecond\":$rate,\"connections\":$CONNECTIONS,$wakeup_json\"request\":{\"path\":\"/\"},\"warmupMs\":$((WARMUP_SECONDS*1000)),\"durationMs\":$((MEASURED_SECONDS*1000)),\"startAtEpochMs\":0,\"rampUpMs\":$((RAMP_SECONDS*1000))$TLS_JSON}" >/dev/null
  until curl -sf "localhost:$admin/pacer/v1/run" | grep -q '"state" : "armed"'; do sleep 0.05; done
  local start_at=$(( ($(now_ms) / 1000 + 2) * 1000 ))
  local window_start=$(( start_at + WARMUP_SECONDS * 1000 )) window_end=$(( start_at + (WARMUP_SECONDS + MEASURED_SECONDS) * 1000 ))
  curl -sf -XPOST "localhost:$admin/pacer/v1/run/start" -d "{\"startAtEpochMs\":$start_at}" >/dev/null
  # as the run protocol does: a client still behind its schedule (more than 10 ms of its requests, the default
  # maxSendLagP99) as the warm-up ends moves the window a second later, the warm-up growing by WARMUP_SECONDS at most
  local extended_s=0 late
  while :; do
    wait_until_ms $(( window_start - 200 ))
    late=$(curl -sf "localhost:$admin/pacer/v1/run" | sed -n 's/.*"lateRequests" : \([0-9]*\).*/\1/p')
    (( ${late:-0} * 1000 / rate > 10 && extended_s < WARMUP_SECONDS )) || break
    curl -sf -XPOST "localhost:$admin/pacer/v1/run/window" -d "{\"startEpochMs\":$(( window_start + 1000 ))}" >/dev/null || break
    window_start=$(( window_start + 1000 )); window_end=$(( window_end + 1000 )); extended_s=$(( extended_s + 1 ))
  done
  wait_until_ms "$window_start"; local cpu0 sleeps0 threads0 irq0; cpu0=$(cpu_seconds "$pid"); sleeps0=$(sleeps "$pid"); threads0=$(thread_cpu "$pid"); irq0=$(interrupts)
  wait_until_ms "$window_end"; local cpu1 sleeps1 threads1 irq1; cpu1=$(cpu_seconds "$pid"); sleeps1=$(sleeps "$pid"); threads1=$(thread_cpu "$pid"); irq1=$(interrupts)
  until curl -sf "localhost:$admin/pacer/v1/run" | grep -q '"state" : "done"'; do sleep 0.2; done
  local report; report=$(curl -sf "localhost:$admin/pacer/v1/run")
  curl -sf "localhost:$admin/pacer/v1/histograms?series=responseTime" >"$work/rt.hlog"
  curl -sf "localhost:$admin/pacer/v1/histograms?series=sendLag" >"$work/lag.hlog"
  kill "$pid"; wait "$pid" 2>/dev/null || true
  local done achieved p99
  done=$(echo "$report" | sed -n 's/.*"completedInWindow" : \([0-9]*\).*/\1/p')
  achieved=$(echo "$report" | sed -n 's/.*"achievedRate" : \([0-9.E]*\).*/\1/p')
  local p50 lag50 lag99 lagmax
  read -r _ p50 p99 _ < <("$JAVA" -cp "$LOADGEN_LIB/*" dev.pacer.loadgen.bench.WindowPercentiles "$work/rt.hlog" "$window_start" "$window_end")
  read -r _ lag50 lag99 lagmax < <("$JAVA" -cp "$LOADGEN_LIB/*" dev.pacer.loadgen.bench.WindowPercentiles "$work/lag.hlog" "$window_start" "$window_end")
  # what the table has no column for: the median, and how late the requests went out (all of it is in the response times)
  echo "  $PACER_LABEL${PACER_WAKEUP_MICROS:+ (wake-ups ≥ $PACER_WAKEUP_MICROS µs apart${PACER_CONNECTION_ORDER:+, $PACER_CONNECTION_ORDER})} at $rate req/s, $CONNECTIONS connections$(round_label): response time p50 $p50 µs; send lag p50 $lag50 µs, p99 $lag99 µs, max $lagmax µs; $(sleeps_per_response "$(sleeps_between "$sleeps0" "$sleeps1")" "$done"); $(interrupts_per_response "$irq0" "$irq1" "$done" 1 0); $(thread_cpu_split "$threads0" "$threads1" "$done")$( (( extended_s )) && echo "; behind schedule as the warm-up ended: warm-up extended by $extended_s s$( (( ${late:-0} * 1000 / rate > 10 )) && echo ", still behind as the window began")")" >>"$work/details"
  echo "$done $achieved $(echo "$cpu1 - $cpu0" | bc -l) $(echo "scale=3; $p99 / 1000" | bc -l) $extended_s"
}

vegeta_client() {
  local rate="$1"
  local start; start=$(now_ms)
  echo "GET $TARGET" | taskset -c 1 "$VEGETA" attack -insecure -rate="$rate/s" -duration="$((WARMUP_SECONDS + MEASURED_SECONDS))s" \
    -connections="$CONNECTIONS" -max-connections="$CONNECTIONS" -keepalive=true -http2=false >"$work/vegeta.bin" &
  local pid=$!; STARTED_PIDS+=("$pid")
  wait_until_ms $(( start + WARMUP_SECONDS * 1000 )); local cpu0 sleeps0 irq0; cpu0=$(cpu_seconds "$pid"); sleeps0=$(sleeps "$pid"); irq0=$(interrupts)
  wait_until_ms $(( start + (WARMUP_SECONDS + MEASURED_SECONDS) * 1000 )); local cpu1 sleeps1 irq1; cpu1=$(cpu_seconds "$pid"); sleeps1=$(sleeps "$pid"); irq1=$(interrupts)
  wait "$pid" || true
  # results: timestamp (send, ns), code, latency (ns); the window by send time, as vegeta measures
  "$VEGETA" encode -to csv "$work/vegeta.bin" | awk -F, -v from=$(( (start + WARMUP_SECONDS * 1000) * 1000000 )) \
    -v to=$(( (start + (WARMUP_SECONDS + MEASURED_SECONDS) * 1000) * 1000000 )) '$1 >= from && $1 < to && $2 == 200 { print $3 }' \
    | sort -n >"$work/vegeta.lat"
  local n; n=$(wc -l <"$work/vegeta.lat")
  local p99; p99=$(awk -v n="$n" 'NR == int(n * 0.99 + 0.5) { printf "%.3f", $1 / 1e6 }' "$work/vegeta.lat")
  echo "  vegeta at $rate req/s, $CONNECTIONS connections$(round_label): $(sleeps_per_response "$(sleeps_between "$sleeps0" "$sleeps1")" "$n"); $(interrupts_per_response "$irq0" "$irq1" "$n" 1 0)" >>"$work/details"
  echo "$n $(echo "scale=1; $n / $MEASURED_SECONDS" | bc -l) $(echo "$cpu1 - $cpu0" | bc -l) ${p99:-0}"
}

wrk2_client() {
  local rate="$1"
  local start; start=$(now_ms)
  # 3 s beyond the window: still running when its CPU is read at the window's end (a process gone reads nothing)
  taskset -c 1 "$WRK2" -t1 -c"$CONNECTIONS" -d"$((WARMUP_SECONDS + MEASURED_SECONDS + 3))s" -R"$rate" --latency "$TARGET" >"$work/wrk2.out" 2>&1 &
  local pid=$!; STARTED_PIDS+=("$pid")
  wait_until_ms $(( start + WARMUP_SECONDS * 1000 )); local cpu0 cpu1 sleeps0 sleeps1 irq0 irq1
  if ! cpu0=$(cpu_seconds "$pid" 2>/dev/null); then   # it gave up before the window: no figure, and why
    wait "$pid" || true
    echo "  wrk2 at $rate req/s, $CONNECTIONS connections, ended before the window: $(tail -1 "$work/wrk2.out")" >>"$work/details"
    echo "0 0 0 0"; return
  fi
  sleeps0=$(sleeps "$pid"); irq0=$(interrupts)
  wait_until_ms $(( start + (WARMUP_SECONDS + MEASURED_SECONDS) * 1000 ))
  if ! cpu1=$(cpu_seconds "$pid" 2>/dev/null); then   # it ended inside the window: no figure, and why
    wait "$pid" || true
    echo "  wrk2 at $rate req/s, $CONNECTIONS connections, ended inside the window: $(tail -1 "$work/wrk2.out")" >>"$work/details"
    echo "0 0 0 0"; return
  fi
  sleeps1=$(sleeps "$pid"); irq1=$(interrupts)
  wait "$pid" || true
  # wrk2 prints its rate over the whole run and its percentiles from the end of its calibration (10 s + 5 ms per
  # connection), corrected from the intended send time: the window's responses are taken as that rate × the window
  local rps p99
  rps=$(sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$work/wrk2.out")
  p99=$(awk '/Latency Distribution/ { f = 1 } f && $1 == "99.000%" { v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
        m = (u == "us") ? v / 1000 : (u == "ms") ? v : (u == "s") ? v * 1000 : (u == "m") ? v * 60000 : v; printf "%.3f", m; exit }' "$work/wrk2.out")
  [[ -n $rps ]] || { echo "0 0 0 0"; return; }
  local n; n=$(printf '%.0f' "$(echo "$rps * $MEASURED_SECONDS" | bc -l)")
  echo "  wrk2 at $rate req/s, $CONNECTIONS connections$(round_label): $(sleeps_per_response "$(sleeps_between "$sleeps0" "$sleeps1")" "$n"); $(interrupts_per_response "$irq0" "$irq1" "$n" 1 0)" >>"$work/details"
  echo "$n $rps $(echo "$cpu1 - $cpu0" | bc -l) ${p99:-0}"
}

# h2load's rate is per connection (--rps), its streams per connection -m; it prints no percentile, and its times are
# from each request's own send (not its intended time): its p99 is left out, and so is pacer's ratio to it
h2load_client() {
  local rate="$1"
  local per_connection; per_connection=$(echo "scale=3; $rate / $CONNECTIONS" | bc -l)
  local start; start=$(now_ms)
  taskset -c 1 h2load -t1 -c"$CONNECTIONS" -m"$STREAMS" --rps="$per_connection" --warm-up-time="${WARMUP_SECONDS}s" \
    -D "$((MEASURED_SECONDS + 3))" "$TARGET" >"$work/h2load.out" 2>&1 &   # ends after the window, as the others do
  local pid=$!; STARTED_PIDS+=("$pid")
  wait_until_ms $(( start + WARMUP_SECONDS * 1000 )); local cpu0 sleeps0 irq0; cpu0=$(cpu_seconds "$pid"); sleeps0=$(sleeps "$pid"); irq0=$(interrupts)
  wait_until_ms $(( start + (WARMUP_SECONDS + MEASURED_SECONDS) * 1000 )); local cpu1 sleeps1 irq1; cpu1=$(cpu_seconds "$pid"); sleeps1=$(sleeps "$pid"); irq1=$(interrupts)
  wait "$pid" || true
  # its rate over its main duration ("finished in 18.00s, 20000.00 req/s, ..."), over the window
  local rps n; rps=$(sed -n 's/^finished in [0-9.]*s, \([0-9.]*\) req\/s.*/\1/p' "$work/h2load.out")
  n=$(printf "%.0f" "$(echo "${rps:-0} * $MEASURED_SECONDS" | bc -l)")
  echo "  h2load at $rate req/s, $CONNECTIONS connections, $STREAMS streams each$(round_label): $(grep -m1 '^time for request' "$work/h2load.out" | xargs); $(sleeps_per_response "$(sleeps_between "$sleeps0" "$sleeps1")" "${n:-0}"); $(interrupts_per_response "$irq0" "$irq1" "${n:-0}" 1 0)" >>"$work/details"
  echo "$n ${rps:-0} $(echo "$cpu1 - $cpu0" | bc -l) 0"
}

plain_client() {
  local rate="$1"
  # the library cannot stop a schedule it is behind: its run is bounded from outside
  local line; line=$(timeout $(( 3 * (WARMUP_SECONDS + MEASURED_SECONDS) + 30 )) taskset -c 1 "$JAVA" "${LOADGEN_JVM[@]}" -cp "$LOADGEN_LIB/*" \
    dev.pacer.loadgen.bench.PlainLoadGeneratorBench 127.0.0.1 "$PORT" / "$rate" "$MEASURED_SECONDS" "$CONNECTIONS" "$WARMUP_SECONDS" 2>/dev/null \
    | grep plain-jetty-load-generator || true)
  [[ -n $line ]] || { echo "0 0 0 0"; return; }   # it did not finish its schedule in time: nothing held
  local responses achieved cpu p99
  responses=$(echo "$line" | sed -n 's/.* responses=\([0-9]*\).*/\1/p')
  achieved=$(echo "$line" | sed -n 's/.*achieved=\([0-9.]*\).*/\1/p')
  cpu=$(echo "$line" | sed -n 's/.*cpuSeconds=\([0-9.]*\).*/\1/p')
  p99=$(echo "$line" | sed -n 's/.*p99Ms=\([0-9.]*\).*/\1/p')
  echo "$responses $achieved $cpu $p99"
}

if [[ -z ${PROFILE_ONLY:-} ]]; then
clients=()
for client in ${CLIENTS:-$DEFAULT_CLIENTS}; do   # pacer once per variant asked: pacer@50, pacer@500:lastUsedFirst
  if [[ $client == pacer && -n ${PACER_VARIANTS:-} ]]; then
    for variant in $PACER_VARIANTS; do clients+=("pacer@$variant"); done
  else
    clients+=("$client")
  fi
  [[ $client == pacer && -n ${PACER_BEFORE:-} ]] && clients+=(pacer-before)
done
reference=vegeta; [[ " ${clients[*]} " == *" wrk2 "* ]] && reference=wrk2; [[ " ${clients[*]} " == *" h2load "* ]] && reference=h2load
# the machine, for telling tables apart: a reader compares a table with another only through the reference's figures
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), kernel $(uname -r)"
# the price of a wake-up where the clients run, measured now: how much of a difference between clients that sleep
# at different rates is this machine's rather than theirs
wakeup_price=$(taskset -c 1 "$JAVA" -cp "$LOADGEN_LIB/*" dev.pacer.loadgen.bench.WakeupPrice) \
  || { echo "the load generator's build has no WakeupPrice: build it again (make build)" >&2; exit 2; }
read -r wakeup_price_micros wakeup_wall_micros _ <<<"$wakeup_price"
echo "price of a wake-up on CPU 1: $wakeup_price_micros µs of the thread's CPU per sleep (a thread waiting 1 ms at a time in a selector, nothing else running; ${wakeup_wall_micros} µs each)"
printf "nginx (1 worker) on CPU 0, each client on CPU 1, %s, %s connections, %d s warm-up, %d s measured; ratios to %s in this run\n\n" \
  "$([[ $SCHEME == https ]] && echo "https (TLS 1.3, connections kept)" || echo "http")$([[ $HTTP_VERSION != http/1.1 ]] && echo ", $HTTP_VERSION, $STREAMS stream(s) at once per connection")" "${CONNECTION_COUNTS[*]}" "$WARMUP_SECONDS" "$MEASURED_SECONDS" "$reference"
# one case (a rate, a connection count) is every client in turn, REPEAT rounds over: a client's figure is its median
# over the rounds, and its ratio to the reference the median of the ratios within each round where both held the rate
# (a round's clients share the machine's state of the moment; the rounds show how much that moves the figure)
# pacer@500:lastUsedFirst -> wakeup=500 order=lastUsedFirst
split_variant() { local variant=${1#pacer@}; wakeup=${variant%%:*}; order=""; [[ $variant == *:* ]] && order=${variant#*:}; return 0; }
median() { sort -g | awk 'NF { v[++n] = $1 } END { if (n) printf "%s", (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'; }
with_commas() { awk -v v="$1" -v d="$2" 'BEGIN { s = sprintf("%." d "f", v); split(s, p, "."); i = p[1]; o = "";
  while (length(i) > 3) { o = "," substr(i, length(i) - 2) o; i = substr(i, 1, length(i) - 3) } printf "%s%s%s", i, o, (d > 0 ? "." p[2] : "") }'; }
# with several connection counts, each client's cost per request against its own at the first count, in this run
base_count=${CONNECTION_COUNTS[0]}; declare -A base_per_of=()
# per, held rounds, rate, client -> "+15 %" ("0 %" within half a percent), or a dash where either count did not hold
# the rate in every round; plain ASCII in the text table, whose printf pads by bytes
vs_base() {
  local base=${base_per_of["$3 $4"]:-} dash="–" minus="−"; [[ $FORMAT == text ]] && { dash="-"; minus="-"; }
  [[ $CONNECTIONS == "$base_count" || -z $base || $2 != "$REPEAT" ]] && { echo "$dash"; return; }
  awk -v p="$1" -v b="$base" -v minus="$minus" 'BEGIN { d = (p / b - 1) * 100; r = sprintf("%.0f", (d >= 0 ? d : -d));
    printf "%s%s %%", (r == "0" ? "" : (d >= 0 ? "+" : minus)), r }'
}
if [[ $FORMAT == markdown ]]; then
  echo "| offered req/s | connections | client | µs CPU per request | held | achieved/s | p99 ms | CPU vs $reference |$( (( ${#CONNECTION_COUNTS[@]} > 1 )) && echo " vs its cost at $base_count connections |")"
  echo "|---|---|---|---|---|---|---|---|$( (( ${#CONNECTION_COUNTS[@]} > 1 )) && echo "---|")"
else
  printf "%8s %6s  %-28s %12s %10s %12s %10s %12s %12s%s%s\n" "offered" "conns" "client" "µs CPU/req" "held" "achieved/s" "p99 ms" "CPU vs ref" "p99 vs ref" \
    "$( (( ${#CONNECTION_COUNTS[@]} > 1 )) && printf " %12s" "vs $base_count conns")" "$( (( REPEAT > 1 )) && echo "   CPU vs ref, each round")"
fi
for CONNECTIONS in "${CONNECTION_COUNTS[@]}"; do
for rate in "${RATES[@]}"; do
  declare -A per_of=() held_of=() achieved_of=() p99_of=() extended_of=() ratios_of=() p99_ratios_of=()
  for (( round = 1; round <= REPEAT; round++ )); do
    declare -A round_per=() round_held=() round_p99=()
    for client in "${clients[@]}"; do
      if [[ $client == pacer@* ]]; then
        split_variant "$client"
        read -r n achieved cpu p99 extended_s < <(PACER_WAKEUP_MICROS=$wakeup PACER_CONNECTION_ORDER=$order pacer_client "$rate")
      elif [[ $client == pacer-before ]]; then
        read -r n achieved cpu p99 extended_s < <(PACER_LIB=$BEFORE_LIB PACER_LABEL="pacer at $BEFORE_SHA" pacer_client "$rate")
      else
        read -r n achieved cpu p99 extended_s < <("${client}_client" "$rate")
      fi
      per=$(echo "scale=2; $cpu * 1000000 / ($n + 0.000001)" | bc -l)
      (( n > 0 )) || per=0
      held=$(echo "$achieved >= $rate * 0.99 && $achieved <= $rate * 1.01" | bc -l)
      per_of[$client]+="$per "; achieved_of[$client]+="$achieved "; p99_of[$client]+="$p99 "
      held_of[$client]=$(( ${held_of[$client]:-0} + held ))
      (( ${extended_s:-0} > ${extended_of[$client]:-0} )) && extended_of[$client]=$extended_s
      round_per[$client]=$per; round_held[$client]=$held; round_p99[$client]=$p99
    done
    for client in "${clients[@]}"; do   # a ratio only where both held the rate: one behind its schedule is not comparable
      [[ $client != "$reference" && ${round_held[$reference]:-0} == 1 && ${round_held[$client]} == 1 ]] || continue
      ratios_of[$client]+="$(printf "%.2f" "$(echo "${round_per[$client]} / (${round_per[$reference]} + 0.000001)" | bc -l)") "
      [[ $reference == h2load ]] || p99_ratios_of[$client]+="$(printf "%.2f" "$(echo "${round_p99[$client]} / (${round_p99[$reference]} + 0.000001)" | bc -l)") "
    done
    unset round_per round_held round_p99
  done
  for client in "${clients[@]}"; do
    per=$(tr ' ' '\n' <<<"${per_of[$client]}" | median); achieved=$(tr ' ' '\n' <<<"${achieved_of[$client]}" | median)
    p99=$(tr ' ' '\n' <<<"${p99_of[$client]}" | median)
    held_rounds=${held_of[$client]}
    held=$( (( held_rounds == REPEAT )) && echo yes || { (( held_rounds == 0 )) && echo no || echo "$held_rounds/$REPEAT"; })
    (( ${extended_of[$client]:-0} )) && held+=" +${extended_of[$client]}s"
    cpu_ratio="-"; p99_ratio="-"
    if [[ $client == "$reference" ]]; then
      (( held_rounds )) && { cpu_ratio=1; [[ $reference == h2load ]] || p99_ratio=1; }
    elif [[ -n ${ratios_of[$client]:-} ]]; then
      cpu_ratio=$(printf "%.2f" "$(tr ' ' '\n' <<<"${ratios_of[$client]}" | median)")
      [[ -n ${p99_ratios_of[$client]:-} ]] && p99_ratio=$(printf "%.2f" "$(tr ' ' '\n' <<<"${p99_ratios_of[$client]}" | median)")
    fi
    [[ $client == pacer@* ]] && split_variant "$client"
    [[ $CONNECTIONS == "$base_count" && $held_rounds == "$REPEAT" ]] && base_per_of["$rate $client"]=$per
    vs_base_cell=""; (( ${#CONNECTION_COUNTS[@]} > 1 )) && vs_base_cell=$(vs_base "$per" "$held_rounds" "$rate" "$client")
    if [[ $FORMAT == markdown ]]; then
      name=$client; [[ $client == pacer ]] && name="**pacer**"; [[ $client == pacer@* ]] && name="**pacer**, $wakeup${order:+, $order}"
      [[ $client == plain ]] && name="jetty-load-generator"; [[ $client == pacer-before ]] && name="**pacer** at \`$BEFORE_SHA\`"
      cpu_cell=$(with_commas "$per" 1); (( held_rounds == REPEAT )) || cpu_cell="($cpu_cell)"
      ratio_cell=${cpu_ratio/-/–}; (( REPEAT > 1 )) && [[ -n ${ratios_of[$client]:-} ]] && { rounds=${ratios_of[$client]% }; ratio_cell+=" (${rounds// /, })"; }
      echo "| $(with_commas "$rate" 0) | $(with_commas "$CONNECTIONS" 0) | $name | $cpu_cell | $held | $(with_commas "$achieved" 1) | $(with_commas "$p99" 3) | $ratio_cell |${vs_base_cell:+ $vs_base_cell |}"
    else
      name=$client; [[ $client == pacer ]] && name="pacer loadgen"; [[ $client == pacer@* ]] && name="pacer $wakeup µs${order:+ $order}"
      [[ $client == plain ]] && name="jetty-load-generator"; [[ $client == vegeta ]] && name="vegeta (Go)"
      [[ $client == pacer-before ]] && name="pacer at $BEFORE_SHA"
      printf "%8d %6d  %-28s %12.1f %10s %12.1f %10.3f %12s %12s%s%s\n" "$rate" "$CONNECTIONS" "$name" "$per" "$held" "$achieved" "$p99" \
        "$cpu_ratio" "$p99_ratio" "${vs_base_cell:+$(printf " %12s" "$vs_base_cell")}" "$( (( REPEAT > 1 )) && echo "   ${ratios_of[$client]:-}")"
    fi
  done
  unset per_of held_of achieved_of p99_of extended_of ratios_of p99_ratios_of
done
done
[[ -s $work/details ]] && { echo; echo "Per client and round: what the table has no column for; sleeps per response is how often its threads waited in the window and were woken (their voluntary context switches over its responses); the interrupts are the machine's in the window, per response: the timer's and those that wake a thread, on the client's CPU (1) and the server's (0)."; cat "$work/details"; }

fi

[[ $PROFILE == 0 ]] && exit 0
top="${RATES[-1]}"; CONNECTIONS=${CONNECTION_COUNTS[0]}
echo
echo "== where pacer's client CPU goes at $top req/s (JFR execution samples, the measured run)"
jfr_file="${PACER_CACHE:-$HOME/.cache/pacer}/bench/client-$top.jfr"
mkdir -p "$(dirname "$jfr_file")"
pacer_client "$top" -XX:StartFlightRecording=filename="$jfr_file",settings=profile >/dev/null
"$JAVA_HOME/bin/jfr" view --width 160 hot-methods "$jfr_file" 2>/dev/null | head -25 || echo "(jfr view not available in this JDK)"
echo "(the recording: $jfr_file; its stacks: $JAVA_HOME/bin/jfr print --events jdk.ExecutionSample --stack-depth 12 $jfr_file)"
