#!/usr/bin/env bash
# The kernel probe's image, built without a Docker engine: its static binary alone (build.sh) as the one layer of an
# OCI image (scripts/static-image.sh), entrypoint /pacer-probe, then copied to DEST, a registry or an archive:
#   probe/image.sh docker://registry.example.com/pacer/probe:0.1.0      (push; credentials as docs/installing.md says)
#   probe/image.sh docker-archive:/tmp/probe.tar:pacer/probe:0.1.0       (for ctr images import; the test cluster)
# The pod that runs it sets its user (uid 0) and capabilities (BPF, PERFMON): the image sets neither.
set -euo pipefail
cd "$(dirname "$0")"
DEST=${1:?usage: probe/image.sh DEST (docker://REGISTRY/probe:TAG or docker-archive:FILE:NAME:TAG)}
VERSION=${PACER_VERSION:-$(sed -n 's|^  <version>\(.*\)</version>|\1|p' ../pom.xml | head -1)}
PACER_VERSION=$VERSION ./build.sh
../scripts/static-image.sh target/pacer-probe "$DEST" --config.entrypoint /pacer-probe \
  --config.exposedports 9090/tcp --config.label "org.opencontainers.image.version=$VERSION"
echo "pacer probe $VERSION -> $DEST"
