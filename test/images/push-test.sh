#!/usr/bin/env bash
# 'One command builds and pushes every image': scripts/push-images.sh against a real OCI registry (Debian's
# docker-registry, the CNCF distribution registry) on loopback, then every image read back from the registry: all eleven
# are there under REGISTRY/<name>:<version>, for linux/amd64, with an entrypoint, and non-root but for the probe.
# The registry lives in a temporary directory and stops with the test.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
"$REPO/test/cluster/install-packages.sh"
"$REPO/test/cluster/images.sh" base   # the Java base image as an archive: Jib builds offline from it
work=$(mktemp -d)
registry_pid=""
cleanup() { [[ -z $registry_pid ]] || kill "$registry_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "push-test: FAIL: $*" >&2; exit 1; }

. "$REPO/test/images/registry.sh"
start_registry "$work" || fail "the registry did not start"
port=$registry_port
REGISTRY=127.0.0.1:$port/pacer
VERSION=$(sed -n 's|^  <version>\(.*\)</version>|\1|p' "$REPO/pom.xml" | head -1)
echo "push-test: scripts/push-images.sh $REGISTRY"
PACER_INSECURE_REGISTRY=true PACER_IMAGE_BASE="tar://$HOME/.cache/pacer/k8s/java-base-cds.tar" \
  "$REPO/scripts/push-images.sh" "$REGISTRY"

catalog=$(curl -sf "http://127.0.0.1:$port/v2/_catalog")
for name in operator loadgen server-jetty12 server-jetty12-ee9 server-jetty11 server-loom server-netty server-vertx server-helidon probe server-gohttp; do
  grep -q "\"pacer/$name\"" <<<"$catalog" || fail "pacer/$name is not in the registry's catalog: $catalog"
  config=$(skopeo inspect --tls-verify=false --config "docker://$REGISTRY/$name:$VERSION") || fail "cannot read $REGISTRY/$name:$VERSION"
  python3 - "$name" "$config" <<'PY' || fail "$name: its image config is not as expected"
import json, sys
name, config = sys.argv[1], json.loads(sys.argv[2])
c = config.get("config", {})
assert config.get("architecture") == "amd64" and config.get("os") == "linux", (name, config.get("architecture"), config.get("os"))
assert c.get("Entrypoint"), (name, "no entrypoint")
user = c.get("User", "")
if name == "probe":
    assert user == "", (name, "the probe's pod sets its user", user)
else:
    assert user.split(":")[0] == "65532", (name, "runs as", user)
print(f"push-test:   {name}: linux/amd64, entrypoint {c['Entrypoint'][0]}, user {user or '(the pod sets it)'}")
PY
done
echo "push-test: passed: 11 images in $REGISTRY"
