#!/usr/bin/env bash
# The Go peer server's image, built without a Docker engine: its static binary alone (build.sh) as the one layer of an
# OCI image (scripts/static-image.sh), non-root (uid 65532), entrypoint /pacer-gohttp (port: env PORT, else 8080):
#   server-images/gohttp/image.sh docker://registry.example.com/pacer/server-gohttp:0.1.0
#   server-images/gohttp/image.sh docker-archive:/tmp/gohttp.tar:pacer/server-gohttp:0.1.0
set -euo pipefail
cd "$(dirname "$0")"
DEST=${1:?usage: server-images/gohttp/image.sh DEST (docker://REGISTRY/server-gohttp:TAG or docker-archive:FILE:NAME:TAG)}
VERSION=${PACER_VERSION:-$(sed -n 's|^  <version>\(.*\)</version>|\1|p' ../../pom.xml | head -1)}
./build.sh
../../scripts/static-image.sh target/pacer-gohttp "$DEST" --config.entrypoint /pacer-gohttp --config.user 65532:65532 \
  --config.exposedports 8080/tcp --config.label "org.opencontainers.image.version=$VERSION"
echo "pacer server-gohttp $VERSION -> $DEST"
