# Sourced by the tests that need a throwaway PostgreSQL: Debian's server binaries (scripts/install-test-deps.sh
# installs the package), a cluster in a directory of the test's own, user pacer trusted, no fsync. Run as root, the
# server runs as the user postgres. With PG_NETNS set (a network namespace's path), it listens inside that namespace.
#   postgres_start DIR PORT ADDRESS [CIDR...]   (CIDR: more client addresses trusted)     postgres_stop DIR
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
pg_as_owner() { if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
postgres_start() {
  local dir=$1 port=$2 address=$3 cidr; shift 3
  [[ -x $PG_BIN/initdb ]] || { echo "no PostgreSQL server in /usr/lib/postgresql: scripts/install-test-deps.sh installs it" >&2; return 1; }
  chmod 755 "$(dirname "$dir")"; mkdir -p "$dir"; [[ $(id -u) -ne 0 ]] || chown postgres:postgres "$dir"
  pg_as_owner "$PG_BIN/initdb" -D "$dir" -U pacer -A trust -E UTF8 --no-sync >"$dir.initdb.log" 2>&1 || { cat "$dir.initdb.log" >&2; return 1; }
  for cidr in "$@"; do echo "host all all $cidr trust" >>"$dir/pg_hba.conf"; done
  ${PG_NETNS:+nsenter --net=$PG_NETNS --} bash -c "$(declare -f pg_as_owner); pg_as_owner '$PG_BIN/pg_ctl' -D '$dir' -w \
    -l '$dir/postgres.log' -o '-p $port -k $dir -c listen_addresses=$address -c fsync=off' start" >/dev/null
}
postgres_stop() {
  ${PG_NETNS:+nsenter --net=$PG_NETNS --} bash -c "$(declare -f pg_as_owner); pg_as_owner '$PG_BIN/pg_ctl' -D '$1' -m immediate -w stop" >/dev/null 2>&1
}
