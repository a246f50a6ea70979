#!/usr/bin/env bash
# The history dashboard ("pacer / history") on real components, beside no cluster: Debian's PostgreSQL on loopback,
# its schema made by pacer (Flyway), a series of 30 runs seeded with a 30 % step in the P99 integral from the 19th,
# `pacer history --database` finding the step and writing its changes, then the Grafana built here reading that
# database directly: the dashboard provisioned, every panel's SQL and the change-point annotations run by Grafana's
# backend (/api/ds/query) with rows, the annotation naming the step. One line per check.
# Needs: test/observability/grafana-backend.sh's Grafana, Debian's postgresql (scripts/install-test-deps.sh), a build.
set -uo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$DIR/../.." && pwd)"
. "$DIR/env.sh"
passed=0; failed=0
check() { # description command...
  local what=$1; shift
  if "$@" >/dev/null 2>&1; then echo "ok   $what"; passed=$((passed + 1)); else echo "FAIL $what"; failed=$((failed + 1)); fi
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
. "$DIR/postgres.sh"
WORK=$(mktemp -d)
grafana_pid=""
cleanup() {
  [[ -z $grafana_pid ]] || kill "$grafana_pid" 2>/dev/null
  postgres_stop "$WORK/pg"
  rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/runs"
PG_PORT=$(free_port)
postgres_start "$WORK/pg" "$PG_PORT" 127.0.0.1 || { echo "FAIL PostgreSQL did not start"; exit 1; }
URL="jdbc:postgresql://127.0.0.1:$PG_PORT/postgres"
psql_() { psql -h 127.0.0.1 -p "$PG_PORT" -U pacer -d postgres -v ON_ERROR_STOP=1 -qtA "$@"; }
check "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PG_PORT" psql_ -c 'SELECT 1'

"$REPO/pacer" history --database "$URL" --database-user pacer "$WORK/runs" >"$WORK/migrate.txt" 2>&1
check "pacer history --database made the schema (Flyway): $(psql_ -c 'SELECT max(version) FROM flyway_schema_history' 2>/dev/null)" \
  bash -c "[[ \$(psql -h 127.0.0.1 -p $PG_PORT -U pacer -d postgres -qtA -c \"SELECT count(*) FROM information_schema.tables WHERE table_name IN ('series','runs','changes')\") == 3 ]]"

# 30 runs, a day apart, ending now; the P99 integral 10 ms ±2 %, then 13 ms from run 18 (the 19th) on
psql_ >/dev/null <<'SQL'
INSERT INTO series (id, label, key) VALUES ('abcdef012345', 'jetty12 1x1k GET /plaintext', '{"server": "jetty12"}');
INSERT INTO runs (source, run, series_id, window_end, end_epoch_ms, spec_digest, server_image, server_digest, node, verdict,
                  p99_integral_micros, max_integral_micros, achieved_rate, errors, spectrum_micros, result)
SELECT 'seed/' || i, 'jetty-' || lpad(i::text, 2, '0'), 'abcdef012345', t, (extract(epoch FROM t) * 1000)::bigint, 'spec',
       'pacer/server-jetty12:' || CASE WHEN i < 18 THEN '0.1.0' ELSE '0.2.0' END, 'sha256:' || CASE WHEN i < 18 THEN 'a' ELSE 'b' END,
       'node-1', 'Passed', round(p), round(3 * p), 1000 - (i % 3), 0,
       ARRAY[p / 40, p / 25, p / 20, p / 12, p / 8, 3 * p / 20], '{}'::jsonb
FROM (SELECT i, now() - (29 - i) * interval '1 day' AS t,
             10000 * (1 + 0.01 * ((i * 7919) % 5 - 2)) * CASE WHEN i < 18 THEN 1 ELSE 1.3 END AS p
      FROM generate_series(0, 29) AS i) AS seeded;
SQL
"$REPO/pacer" history --database "$URL" --database-user pacer "$WORK/runs" >"$WORK/history.txt" 2>&1
changes=$(psql_ -c "SELECT figure || ' ' || first_run || ' ' || status FROM changes WHERE series_id = 'abcdef012345' ORDER BY at_epoch_ms" 2>/dev/null | tr '\n' ';')
check "pacer history --database found the step and wrote it for Grafana: ${changes:-no change}" \
  bash -c "grep -q 'p99Integral jetty-18 confirmed' <<<'$changes'"
grep -q 'p99Integral jetty-18 confirmed' <<<"$changes" || cat "$WORK/history.txt"

GRAFANA_PORT=$(free_port)
mkdir -p "$WORK/grafana"/{data,logs,plugins,provisioning/datasources,provisioning/dashboards,dashboards}
cp "$REPO/dashboards/pacer-history.json" "$WORK/grafana/dashboards/"
cat >"$WORK/grafana/provisioning/datasources/history.yaml" <<YAML
apiVersion: 1
datasources:
  - {name: pacer history, uid: pacer-history, type: postgres, url: "127.0.0.1:$PG_PORT", user: pacer,
     jsonData: {database: postgres, sslmode: disable, postgresVersion: 1500}, secureJsonData: {password: ""}}
YAML
cat >"$WORK/grafana/provisioning/dashboards/pacer.yaml" <<YAML
apiVersion: 1
providers:
  - {name: pacer, type: file, folder: pacer, options: {path: "$WORK/grafana/dashboards"}}
YAML
write_grafana_ini "$WORK/grafana" "$GRAFANA_PORT"
"$DIR/grafana-backend.sh"
start_grafana() {
  rm -rf "$WORK/grafana/data" && mkdir -p "$WORK/grafana/data"
  setsid "$GRAFANA_HOME/bin/grafana" server --homepath "$GRAFANA_SRC" --config "$WORK/grafana/grafana.ini" >>"$WORK/grafana.log" 2>&1 </dev/null &
  grafana_pid=$!
}
start_grafana
for attempt in $(seq 240); do
  curl -sf "http://127.0.0.1:$GRAFANA_PORT/api/dashboards/uid/pacer-history" >/dev/null 2>&1 && break
  # this Grafana build sometimes exits creating its first organization on a fresh database: start it again
  kill -0 "$grafana_pid" 2>/dev/null || start_grafana
  sleep 0.5
done
check "Grafana provisioned the dashboard and the PostgreSQL datasource" \
  curl -sf "http://127.0.0.1:$GRAFANA_PORT/api/dashboards/uid/pacer-history"
python3 "$DIR/query_dashboards.py" "http://127.0.0.1:$GRAFANA_PORT" "$REPO/dashboards/pacer-history.json" --datasource pacer-history \
  --var series=abcdef012345 --minutes $(( 60 * 24 * 40 )) >"$WORK/queries.txt" 2>&1
queries=$?
check "every panel's SQL and the series variable answer through Grafana's backend ($(grep -c '^ok' "$WORK/queries.txt") ok)" test $queries == 0
check "the change point is a Grafana annotation on the series: $(grep -m1 '^annotation' "$WORK/queries.txt" | cut -c1-90)" \
  grep -q '^annotation Change points: p99Integral +[23][0-9]\.[0-9] % (confirmed)' "$WORK/queries.txt"
(( queries == 0 )) || { cat "$WORK/queries.txt"; tail -20 "$WORK/grafana.log"; }
echo "$passed passed, $failed failed"
(( failed == 0 ))
