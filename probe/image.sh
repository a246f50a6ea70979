#!/usr/bin/env bash
# The kernel probe's image, built without a Docker engine: its static binary alone (build.sh) as the one layer of an
# OCI image (umoci), entrypoint /pacer-probe, then copied by skopeo to DEST, a registry or an archive:
#   probe/image.sh docker://registry.example.com/pacer/probe:0.1.0      (push; skopeo login first if it needs one)
#   probe/image.sh docker-archive:/tmp/probe.tar:pacer/probe:0.1.0       (for ctr images import; the test cluster)
# The pod that runs it sets its user (uid 0) and capabilities (BPF, PERFMON): the image sets neither.
# umoci and skopeo are Debian packages (test/cluster/install-packages.sh installs them).
set -euo pipefail
cd "$(dirname "$0")"
DEST=${1:?usage: probe/image.sh DEST (docker://REGISTRY/probe:TAG or docker-archive:FILE:NAME:TAG)}
for tool in umoci skopeo; do
  command -v "$tool" >/dev/null || { echo "probe/image.sh needs $tool (apt-get install $tool)" >&2; exit 1; }
done
VERSION=${PACER_VERSION:-$(sed -n 's|^  <version>\(.*\)</version>|\1|p' ../pom.xml | head -1)}
PACER_VERSION=$VERSION ./build.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
umoci init --layout "$work/oci"
umoci new --image "$work/oci:probe"
umoci unpack --rootless --image "$work/oci:probe" "$work/bundle" >/dev/null
cp target/pacer-probe "$work/bundle/rootfs/pacer-probe"
umoci repack --image "$work/oci:probe" "$work/bundle"
umoci config --image "$work/oci:probe" --os linux --architecture amd64 --config.entrypoint /pacer-probe \
  --config.exposedports 9090/tcp --config.label "org.opencontainers.image.version=$VERSION"
skopeo copy -q "oci:$work/oci:probe" "$DEST"
echo "pacer probe $VERSION -> $DEST"
