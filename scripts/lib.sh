#!/usr/bin/env bash
# Shared helpers of pacer's scripts: the JDK, starting an application pinned with taskset, reading its ports.
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

# cpu_seconds PID: user + system CPU seconds of a process so far
cpu_seconds() {
  awk '{ split($0, a, ") "); split(a[2], f, " "); printf "%.2f\n", (f[12] + f[13]) / 100 }' "/proc/$1/stat"
}

require_wrk() {
  command -v wrk >/dev/null && return 0
  echo "installing wrk (Debian package) for the comparison" >&2
  apt-get update -qq >/dev/null && apt-get install -y -qq wrk >/dev/null
}
