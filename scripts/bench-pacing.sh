#!/usr/bin/env bash
# Pacing benchmark (prints figures; not a test): what the client's wake-up interval does to the server's own figures
# and to both sides' CPU, with pacer's own runs (./pacer run) on this machine: the Jetty 12 server (core, with its
# agent) pinned to one CPU, one pacer client on the other, RATE req/s over CONNECTIONS connections, each run WARMUP then
# MEASURED, once per interval of WAKEUPS (clients.minWakeupIntervalMicros) in turn, REPEAT rounds.
# For each run: the server's p50/p99/p99.9 processing time (its agent's histograms over the window), the server's and
# the client's CPU per request (their footprints: CPU time in the window over the window's requests), the server's CPU
# in cores, the client's response time p50/p99 (from each request's intended time) and send lag p99, the verdict.
# Then, per interval, the medians over the rounds. Compare intervals within one invocation only.
# Usage: scripts/bench-pacing.sh [RATE]  (default 20000); WAKEUPS="50 1000" CONNECTIONS=16 WARMUP=8s MEASURED=15s REPEAT=3;
#   ORDER=roundRobin: clients.connectionOrder (unset: the client's default, lastUsedFirst).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
RATE="${1:-20000}"
WAKEUPS="${WAKEUPS:-50 1000}"
CONNECTIONS="${CONNECTIONS:-16}"
WARMUP="${WARMUP:-8s}"
MEASURED="${MEASURED:-15s}"
REPEAT="${REPEAT:-3}"
ORDER="${ORDER:-}"
[[ -z $ORDER || $ORDER == roundRobin || $ORDER == lastUsedFirst ]] || { echo "ORDER must be roundRobin or lastUsedFirst (ORDER=$ORDER)" >&2; exit 2; }
[[ $REPEAT =~ ^[1-9][0-9]*$ ]] || { echo "REPEAT must be a whole number of rounds, 1 or more (REPEAT=$REPEAT)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

spec() { # name wake-up-µs
  jetty12_spec "$1" ", minWakeupIntervalMicros: $2${ORDER:+, connectionOrder: $ORDER}" "" 10ms
}

echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), kernel $(uname -r)"
echo "Jetty 12 core (agent) on one CPU, one pacer client on the other, $RATE req/s, $CONNECTIONS connections," \
     "$WARMUP warm-up, $MEASURED measured, intervals $WAKEUPS µs in turn, connection order ${ORDER:-lastUsedFirst}, $REPEAT rounds"
echo
for round in $(seq 1 "$REPEAT"); do
  for wakeup in $WAKEUPS; do
    name="pacing-bench-$wakeup-$round"
    spec "$name" "$wakeup" >"$work/$name.yaml"
    run_spec "$work" "$name" "$wakeup µs, round $round" "$wakeup|$round"
  done
done
[[ -s $work/rows ]] || { echo "no run left a result" >&2; exit 1; }
python3 - "$work/rows" <<'PY'
import json, statistics, sys
rows = []
for line in open(sys.argv[1]):
    wakeup, rnd, path = line.rstrip("\n").split("|", 2)   # run_spec's label is "interval|round"
    r = json.load(open(path))["result"]
    s, c = r.get("server", {}), r.get("clients", {})
    sf, cf = s.get("footprint") or {}, ((c.get("perClient") or [{}])[0].get("footprint") or {})
    rows.append((wakeup, rnd, s.get("p50Micros"), s.get("p99Micros"), s.get("p999Micros"), sf.get("cpuMicrosPerRequest"),
                 sf.get("cpuCores"), cf.get("cpuMicrosPerRequest"), c.get("p50Micros"), c.get("p99Micros"),
                 c.get("sendLagP99Micros"), r.get("verdict")))
head = ("interval µs", "round", "srv p50 µs", "srv p99 µs", "srv p99.9 µs", "srv µs CPU/req", "srv cores",
        "cli µs CPU/req", "cli p50 µs", "cli p99 µs", "send lag p99 µs", "verdict")
def fmt(v):   # whole figures as they are (a median of two may end in .5), fractions to 3 significant places or so
    if v is None:
        return "-"
    if isinstance(v, str) or isinstance(v, int) or v.is_integer():
        return str(v if not isinstance(v, float) else int(v))
    return "%.2f" % v if v < 10 else "%.1f" % v
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
for row in rows:
    print("| " + " | ".join(fmt(v) for v in row) + " |")
for wakeup in dict.fromkeys(r[0] for r in rows):
    mine = [r for r in rows if r[0] == wakeup]
    med = [statistics.median(v for v in col if v is not None) if any(v is not None for v in col) else None
           for col in list(zip(*mine))[2:11]]
    verdicts = ",".join(r[11] or "-" for r in mine)
    print("| " + " | ".join([wakeup, "median"] + [fmt(v) for v in med] + [verdicts]) + " |")
print()
print("srv: the server's processing time from its agent's histograms over the window; cli: response time from each")
print("request's intended time; send lag: the client's lateness. CPU per request: CPU time in the window over its requests.")
PY
