# Sourced: start_registry DIR starts Debian's docker-registry (the CNCF distribution registry) on a free port of the
# host's loopback, storing under DIR; sets registry_port and registry_pid, and returns 1 (its log printed) when it
# does not answer within 10 s. The caller stops it (kill "$registry_pid").
start_registry() {
  local dir=$1
  registry_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  cat >"$dir/registry.yml" <<YAML
version: 0.1
log: {level: warn}
storage: {filesystem: {rootdirectory: $dir/storage}}
http: {addr: 127.0.0.1:$registry_port}
YAML
  docker-registry serve "$dir/registry.yml" >"$dir/registry.log" 2>&1 &
  registry_pid=$!
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$registry_port/v2/" >/dev/null && return 0; sleep 0.1; done
  cat "$dir/registry.log" >&2
  return 1
}
