#!/usr/bin/env bash
# Shared helpers of pacer's scripts: the JDK, starting an application pinned with taskset, reading its ports, running
# a spec with `pacer run` for a benchmark.
PACER_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAVA_HOME="$("$PACER_HOME/scripts/find-jdk.sh")" || exit 2
JAVA="$JAVA_HOME/bin/java"
STARTED_PIDS=()

stop_started() {
  local pid
  for pid in "${STARTED_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${STARTED_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  STARTED_PIDS=()
}

# require_built MODULE: its application is built (MODULE/target/app/lib), or the script stops, saying how to build it
require_built() {
  [[ -d $PACER_HOME/$1/target/app/lib ]] || { echo "$1 is not built ($1/target/app/lib is missing): run make build first" >&2; exit 1; }
}

# start_app CPUS MODULE MAIN_CLASS WORKDIR NAME [ARGS...]: starts it in the background; sets APP_PID, ADMIN_PORT, APP_PORT
start_app() {
  local cpus="$1" module="$2" main="$3" work="$4" name="$5"; shift 5
  local ready="$work/$name.ready"
  rm -f "$ready"
  PACER_ADMIN_PORT=0 PACER_READY_FILE="$ready" taskset -c "$cpus" "$JAVA" -cp "$PACER_HOME/$module/target/app/lib/*" "$main" "$@" \
    >"$work/$name.log" 2>&1 &
  APP_PID=$!
  STARTED_PIDS+=("$APP_PID")
  local i
  for i in $(seq 1 600); do
    [[ -f "$ready" ]] && break
    kill -0 "$APP_PID" 2>/dev/null || { echo "$name exited:" >&2; tail -20 "$work/$name.log" >&2; return 1; }
    sleep 0.1
  done
  ADMIN_PORT=$(sed -n 's/.*"adminPort":\([0-9]*\).*/\1/p' "$ready")
  APP_PORT=$(sed -n 's/.*"appPort":\([0-9]*\).*/\1/p' "$ready")
}

# jetty12_spec NAME CLIENT_FIELDS REQUEST_FIELDS MAX_SEND_LAG [MORE_SPEC]: a BenchmarkRun of the Jetty 12 server (core) and
# one client, one CPU each, RATE req/s over CONNECTIONS, WARMUP then MEASURED (the caller's variables); CLIENT_FIELDS and
# REQUEST_FIELDS go on in their flow mappings (", field: value"), MORE_SPEC is a line of its own under spec
jetty12_spec() {
  cat <<YAML
apiVersion: pacer.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: $1}
spec:
  server: {image: pacer/server-jetty12:0.1.0, args: ["--mode=core"], cpus: "1"}
  clients: {count: 1, rate: "$RATE", connections: $CONNECTIONS, cpus: "1"$2}
  request: {path: /plaintext$3}
  ${5:-}
  warmup: $WARMUP
  duration: $MEASURED
  timeout: 5m
  criteria: {rateTolerance: 2%, maxSendLagP99: $4}
YAML
}

# run_spec WORK NAME LABEL [KEY]: `pacer run`s WORK/NAME.yaml into WORK/NAME; appends "KEY|its result.json" to WORK/rows
# (KEY: LABEL unless given), or says there is none (with its log's tail) and goes on
run_spec() {
  local work="$1" name="$2" label="$3" key="${4:-$3}"
  echo "  running: $label" >&2
  "$PACER_HOME/pacer" run "$work/$name.yaml" --output "$work/$name" >"$work/$name.log" 2>&1 || true
  if [[ -s $work/$name/result.json ]]; then
    echo "$key|$work/$name/result.json" >>"$work/rows"
  else
    echo "$label: no result:" >&2; tail -5 "$work/$name.log" >&2
  fi
}

# cpu_seconds PID: user + system CPU seconds of a process so far
cpu_seconds() {
  awk '{ split($0, a, ") "); split(a[2], f, " "); printf "%.2f\n", (f[12] + f[13]) / 100 }' "/proc/$1/stat"
}

# sleeps PID: each of the process's threads and how many times it has gone to sleep so far (its voluntary context
# switches; each sleep ends in a wake-up, what a timer or a socket costs the CPU), as "tid:count tid:count ..."
sleeps() {
  local task
  for task in /proc/"$1"/task/*; do
    awk -v tid="${task##*/}" '/^voluntary_ctxt_switches/ { printf "%s:%s ", tid, $2 }' "$task/status" 2>/dev/null || :
  done
}

# thread_cpu PID: each of the process's threads, its name (spaces as _) and the CPU it has used so far in clock ticks
# (utime + stime), as "tid:name:ticks tid:name:ticks ..."
thread_cpu() {
  local task
  for task in /proc/"$1"/task/*; do
    awk -v tid="${task##*/}" '{ name = substr($0, index($0, "(") + 1); rest = substr(name, index(name, ") ") + 2); sub(/\) .*/, "", name)
      gsub(/[ :]/, "_", name); split(rest, f, " "); printf "%s:%s:%d ", tid, name, f[12] + f[13] }' "$task/stat" 2>/dev/null || :
  done
}

# thread_cpu_split BEFORE AFTER RESPONSES: a JVM client's CPU between two `thread_cpu`, in µs per response, by what its
# threads do: its shard threads (the requests: pacing, sending, reading), the JIT's compilers, the collector and the VM
# thread, and the rest (the per-second histogram samplers, the run's own thread, its admin server); threads gone by the
# second snapshot are left out
thread_cpu_split() {
  awk -v before="$1" -v after="$2" -v n="$3" -v hz="$(getconf CLK_TCK)" 'BEGIN {
    k = split(before, b, " "); for (i = 1; i <= k; i++) { split(b[i], f, ":"); then[f[1]] = f[3] }
    k = split(after, a, " ")
    for (i = 1; i <= k; i++) {
      split(a[i], f, ":"); d = f[3] - ((f[1] in then) ? then[f[1]] : 0)
      part = f[2] ~ /^pacer-shard/ ? "requests" : f[2] ~ /^C[12]_CompilerThre/ ? "jit" : f[2] ~ /^(VM_Thread|GC|Serial|G1)/ ? "vm" : "rest"
      used[part] += d
      if (part == "rest") { name = f[2]; sub(/-[0-9]+$/, "", name); rest[name] += d }
    }
    us = n > 0 ? 1e6 / hz / n : 0
    printf "of its CPU per response, %.1f µs in its shard threads (the requests), %.1f µs compiling (JIT), %.1f µs in GC and the VM thread, %.1f µs in the rest (samplers, run, admin",
      used["requests"] * us, used["jit"] * us, used["vm"] * us, used["rest"] * us
    for (shown = 0; shown < 3; shown++) {   # the rest`s three busiest threads, by name
      top = ""; for (name in rest) if (top == "" || rest[name] > rest[top]) top = name
      if (top == "" || rest[top] <= 0) break
      printf "%s %s %.1f", shown == 0 ? ";" : ",", top, rest[top] * us; delete rest[top]
    }
    printf ")" }'
}

# interrupts: the machine's timer interrupts (LOC) and the interrupts one CPU sends another (RES, and CAL less the
# TLB shootdowns it also counts: mostly to wake a thread there) so far, each CPU's count after a comma, as
# "LOC:c0,c1 RES:c0,c1 CAL:c0,c1 TLB:c0,c1". On a VM each is an exit to the host, charged to whatever ran: what pacing
# at a fine interval costs beyond the requests. x86 names; elsewhere the kinds are missing
interrupts() {
  awk '$1 == "LOC:" || $1 == "RES:" || $1 == "CAL:" || $1 == "TLB:" { printf "%s", $1
    for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) printf "%s%s", (i == 2 ? "" : ","), $i; printf " " }' /proc/interrupts
}

# interrupts_per_response BEFORE AFTER RESPONSES CLIENT_CPU SERVER_CPU: between two `interrupts`, per response, the
# timer interrupts and wake-up interrupts on the client's CPU and the wake-up interrupts on the server's ("n/a" where
# the machine does not name them as x86 does)
interrupts_per_response() {
  awk -v before="$1" -v after="$2" -v n="$3" -v client="$4" -v server="$5" '
    function counts(line, into,    k, i, j, kv, c, kinds) { k = split(line, kinds, " ")
      for (i = 1; i <= k; i++) { split(kinds[i], kv, ":"); split(kv[2], c, ","); for (j in c) into[kv[1], j - 1] = c[j] } }
    function per(kind, cpu) { return n > 0 ? (now[kind, cpu] - then[kind, cpu]) / n : 0 }
    function wakeups(cpu) { return per("RES", cpu) + per("CAL", cpu) - per("TLB", cpu) }
    BEGIN { counts(before, then); counts(after, now)
      if (!(("LOC", client) in now) || !(("RES", client) in now) || !(("CAL", client) in now)) { printf "interrupts per response: n/a"; exit }
      printf "interrupts per response: %.2f timer and %.2f wake-up on the client\047s CPU, %.2f wake-up on the server\047s",
        per("LOC", client), wakeups(client), wakeups(server) }'
}

# sleeps_between BEFORE AFTER: the sleeps between two `sleeps` of one process, by the threads alive at the second. A
# thread that ended in between took its count with it: the figure is then a lower bound, printed after a "≥"
sleeps_between() {
  awk -v before="$1" -v after="$2" 'BEGIN {
    n = split(before, b, " "); for (i = 1; i <= n; i++) { split(b[i], f, ":"); then[f[1]] = f[2] }
    n = split(after, a, " "); for (i = 1; i <= n; i++) { split(a[i], f, ":"); sum += f[2] - ((f[1] in then) ? then[f[1]] : 0); alive[f[1]] = 1 }
    for (tid in then) if (!(tid in alive)) ended++
    printf "%s%d\n", (ended ? "≥" : ""), sum }'
}

require_wrk() {
  command -v wrk >/dev/null && return 0
  echo "installing wrk (Debian package) for the comparison" >&2
  apt-get update -qq >/dev/null && apt-get install -y -qq wrk >/dev/null
}

# start_nginx WORKDIR [CPUS]: Debian's nginx, one worker answering "ok" on keep-alive connections of a free loopback
# port, pinned to CPUS (default 0); sets NGINX_PORT and NGINX_PID, and waits until it answers. With NGINX_TLS=1 it
# serves https (TLS 1.3, a self-signed ECDSA P-256 certificate for 127.0.0.1 made by openssl in WORKDIR/tls.crt); with
# NGINX_HTTP2=1, HTTP/2: over https chosen by ALPN, in cleartext by prior knowledge only (h2c).
start_nginx() {
  local work="$1" cpus="${2:-0}" listen_tls="" scheme=http listen_h2="" curl_h2=()
  NGINX_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  mkdir -p "$work/nginx"
  if [[ ${NGINX_TLS:-} == 1 ]]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$work/tls.key" -out "$work/tls.crt" \
      -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null
    listen_tls="ssl; ssl_certificate $work/tls.crt; ssl_certificate_key $work/tls.key; ssl_protocols TLSv1.3"
    scheme=https
  fi
  if [[ ${NGINX_HTTP2:-} == 1 ]]; then
    listen_h2=" http2"; curl_h2=(--http2-prior-knowledge); [[ $scheme == https ]] && curl_h2=(--http2)
  fi
  cat >"$work/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 16384; }   # 10,000 client connections and more
http {
  access_log off;
  keepalive_requests 100000000;
  keepalive_timeout 300s;
  client_body_temp_path $work/nginx/body;
  http2_max_concurrent_streams 1000;
  server { listen 127.0.0.1:$NGINX_PORT$listen_h2 $listen_tls; location / { return 200 "ok"; } }
}
CONF
  taskset -c "$cpus" nginx -c "$work/nginx.conf" -p "$work/nginx" &
  NGINX_PID=$!
  STARTED_PIDS+=("$NGINX_PID")
  local i
  for i in $(seq 50); do curl -sfk "${curl_h2[@]}" "$scheme://127.0.0.1:$NGINX_PORT/" >/dev/null && return 0; sleep 0.1; done
  echo "nginx did not answer on port $NGINX_PORT" >&2; return 1
}

# A benchmark's planned time, said before it starts: "NAME: about N min (HOW)" on stderr. With BENCH_ESTIMATE_ONLY=1
# (scripts/bench-all.sh sums them) it prints the seconds alone and the script stops there. The seconds are the loads'
# own (warm-up and measured) plus a stated overhead per process started, so an estimate grows with its settings.
bench_estimate() { # NAME SECONDS HOW
  if [[ ${BENCH_ESTIMATE_ONLY:-} == 1 ]]; then echo "$2"; exit 0; fi
  echo "$1: about $(( ($2 + 59) / 60 )) min ($3)" >&2
}

# loadgen_at_commit COMMIT: prints the library folder of pacer's load generator as built at COMMIT (a commit of this
# checkout), built once, offline, from that commit's files into the cache, and kept for the next call
loadgen_at_commit() {
  local sha; sha=$(git -C "$PACER_HOME" rev-parse --verify --quiet "$1^{commit}") \
    || { echo "PACER_BEFORE=$1 is not a commit of this checkout (git rev-parse)" >&2; return 2; }
  local dir="${PACER_CACHE:-$HOME/.cache/pacer}/bench/loadgen-at-$sha"
  if [[ ! -f $dir/built ]]; then
    echo "building pacer's load generator as at ${sha:0:7}, once, into $dir (a minute or two)" >&2
    rm -rf "$dir"; mkdir -p "$dir/src"
    git -C "$PACER_HOME" archive "$sha" | tar -x -C "$dir/src"
    (cd "$dir/src" && JAVA_HOME="$JAVA_HOME" ./mvnw -B -ntp -q -o -pl loadgen-image -am package -DskipTests -Dpacer.e2e.skip=true) >"$dir/build.log" 2>&1 \
      || { echo "the build at ${sha:0:7} failed; its log: $dir/build.log" >&2; return 2; }
    mv "$dir/src/loadgen-image/target/app/lib" "$dir/lib" && rm -rf "$dir/src" && touch "$dir/built"
  fi
  echo "$dir/lib"
}
