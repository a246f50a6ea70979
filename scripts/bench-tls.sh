#!/usr/bin/env bash
# TLS benchmark (prints figures; not a test): what TLS and its handshakes cost the server and the client, with pacer's
# own runs (./pacer run), one after the other on this machine: the Jetty 12 server (core) pinned to one CPU, one client
# on the other, RATE req/s over CONNECTIONS connections, each run WARMUP then MEASURED:
#   http             cleartext, connections kept
#   https            TLS 1.3, connections kept (one handshake each, in the warm-up)
#   https, renewed   a new connection every RENEW_EVERY responses (RATE / RENEW_EVERY handshakes a second), session
#                    resumption on, then off (every handshake a full one)
# For each: the server's and the client's CPU per request (their footprints: CPU time in the window over the requests),
# handshakes per second in the window and the clients' handshake time (result.tls), the server's and the clients' p99,
# the verdict. Ratios are to the http run of the same invocation only.
# Usage: scripts/bench-tls.sh [RATE]  (default 2000); RENEW_EVERY=20 CONNECTIONS=16 WARMUP=10s MEASURED=20s;
#   CLIENT_FIELDS="minWakeupIntervalMicros: 50": more fields of the spec's clients, as YAML flow mapping entries.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
RATE="${1:-2000}"
RENEW_EVERY="${RENEW_EVERY:-20}"
CONNECTIONS="${CONNECTIONS:-16}"
WARMUP="${WARMUP:-10s}"
MEASURED="${MEASURED:-20s}"
[[ $WARMUP =~ ^[0-9]+s$ && $MEASURED =~ ^[0-9]+s$ ]] || { echo "WARMUP and MEASURED must be whole seconds such as 10s, were '$WARMUP' and '$MEASURED'" >&2; exit 2; }
bench_estimate bench-tls $(( 4 * (${WARMUP%s} + ${MEASURED%s} + 25) )) "4 runs of pacer run, $WARMUP+$MEASURED and about 25 s to start and analyse each"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

spec() { # name scheme tls-yaml
  jetty12_spec "$1" "${CLIENT_FIELDS:+, $CLIENT_FIELDS}" ", scheme: $2" 20ms "$3"
}

echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), kernel $(uname -r)"
echo "Jetty 12 core on one CPU, one pacer client on the other, $RATE req/s, $CONNECTIONS connections, $WARMUP warm-up, $MEASURED measured"
echo
for variant in "http|http|" "https|https|tls: {protocols: [TLSv1.3]}" \
               "https, renewed, resumption on|https|tls: {protocols: [TLSv1.3], requestsPerConnection: $RENEW_EVERY, sessionResumption: true}" \
               "https, renewed, resumption off|https|tls: {protocols: [TLSv1.3], requestsPerConnection: $RENEW_EVERY, sessionResumption: false}"; do
  IFS='|' read -r label scheme tls <<<"$variant"
  name="tls-bench-$(echo "$label" | tr -cs 'a-z' '-' | sed 's/-$//')"
  spec "$name" "$scheme" "$tls" >"$work/$name.yaml"
  run_spec "$work" "$name" "$label"
done
python3 - "$work/rows" <<'PY'
import json, sys
rows = []
for line in open(sys.argv[1]):
    label, path = line.rstrip("\n").split("|", 1)
    r = json.load(open(path))["result"]
    s, c, t = r.get("server", {}), r.get("clients", {}), r.get("tls") or {}
    rows.append((label, (s.get("footprint") or {}).get("cpuMicrosPerRequest"),
                 ((c.get("perClient") or [{}])[0].get("footprint") or {}).get("cpuMicrosPerRequest"), t, s.get("p99Micros"),
                 c.get("p99Micros"), r.get("verdict")))
ms = lambda v: "-" if v is None else "%.3f" % (v / 1000)
num = lambda v: "-" if v is None else "%.1f" % v
ratio = lambda v, base: "-" if v is None or not base else "%.2f" % (v / base)
base_server, base_client = rows[0][1], rows[0][2]
print("%-32s %10s %6s %10s %6s %8s %14s %10s %10s %8s" % ("run", "server", "vs http", "client", "vs http", "hs/s",
      "hs p50/p99 ms", "srv p99 ms", "cli p99 ms", "verdict"))
print("%-32s %10s %6s %10s %6s" % ("", "µs CPU/req", "", "µs CPU/req", ""))
for label, sf, cf, t, sp99, cp99, verdict in rows:
    hs = "-" if not t else "%s/%s" % (ms(t.get("clientHandshakeP50Micros")), ms(t.get("clientHandshakeP99Micros")))
    print("%-32s %10s %6s %10s %6s %8s %14s %10s %10s %8s" % (label, num(sf), ratio(sf, base_server), num(cf), ratio(cf, base_client),
          "-" if not t else "%.1f" % t.get("handshakesPerSecond", 0), hs, ms(sp99), ms(cp99), verdict))
print("server and client CPU per request: CPU time in the window over the requests of the window (result.json's footprints);")
print("hs/s: the clients' handshakes per second in the window; hs p50/p99: the clients' handshake times, TCP connected to done")
PY
