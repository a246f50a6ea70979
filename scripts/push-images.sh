#!/usr/bin/env bash
# Builds every pacer image and pushes it to a registry, without a Docker engine:
#   operator, loadgen, server-jetty12 (core and ee10), server-jetty12-ee9, server-jetty11, server-loom,
#   server-netty, server-vertx, server-helidon                                               (Jib)
#   probe, server-gohttp                                                                    (static Go binaries)
# each as REGISTRY/<name>:<version>. Then: helm install ... --set image.registry=REGISTRY, and every example naming
# pacer/<name>:<version> runs from REGISTRY unmodified.
#
#   scripts/push-images.sh registry.example.com/pacer
#
# Credentials: Jib and skopeo both read ~/.docker/config.json; log in once with
#   skopeo login --authfile ~/.docker/config.json registry.example.com
# Environment: PACER_IMAGE_BASE, the Java images' base (default: the pom's, eclipse-temurin:25-jre; a tar:// archive
# works offline); PACER_INSECURE_REGISTRY=true for a registry served over plain HTTP (a test registry).
# Needs a JDK 21+, Go 1.26+, umoci and skopeo (Debian packages).
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
REGISTRY=${1:?usage: scripts/push-images.sh REGISTRY   (e.g. registry.example.com/pacer)}
REGISTRY=${REGISTRY%/}
JAVA_HOME="$("$REPO/scripts/find-jdk.sh")"
export JAVA_HOME
VERSION=$(sed -n 's|^  <version>\(.*\)</version>|\1|p' "$REPO/pom.xml" | head -1)
maven_flags=(-Dpacer.image.registry="$REGISTRY")
[[ -z ${PACER_IMAGE_BASE:-} ]] || maven_flags+=(-Dpacer.image.base="$PACER_IMAGE_BASE")
if [[ ${PACER_INSECURE_REGISTRY:-false} == true ]]; then
  maven_flags+=(-Djib.allowInsecureRegistries=true -DsendCredentialsOverHttp=true)
  export SKOPEO_DEST_FLAGS=--dest-tls-verify=false
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "push-images: the Java images (Jib) -> $REGISTRY"
(cd "$REPO" && ./mvnw -B -ntp -DskipTests \
  -pl operator,loadgen-image,server-images/jetty12,server-images/jetty12-ee9,server-images/jetty11,server-images/loom,server-images/netty,server-images/vertx,server-images/helidon -am \
  install jib:build "${maven_flags[@]}" >"$log" 2>&1) || { tail -40 "$log" >&2; echo "push-images: the Jib build failed" >&2; exit 1; }
grep -o "Built and pushed image as [^ ]*" "$log" | sed 's/^/push-images:   /' || true
echo "push-images: the kernel probe -> $REGISTRY/probe:$VERSION"
PACER_VERSION=$VERSION "$REPO/probe/image.sh" "docker://$REGISTRY/probe:$VERSION" >/dev/null
echo "push-images: the Go peer server -> $REGISTRY/server-gohttp:$VERSION"
PACER_VERSION=$VERSION "$REPO/server-images/gohttp/image.sh" "docker://$REGISTRY/server-gohttp:$VERSION" >/dev/null
echo "push-images: done: helm install pacer charts/pacer -n pacer-system --create-namespace --set image.registry=$REGISTRY"
