#!/usr/bin/env bash
# One static binary as the single layer of an OCI image, without a Docker engine (umoci), copied by skopeo to DEST:
#   scripts/static-image.sh BINARY DEST [umoci config arguments...]
# DEST is a registry (docker://REGISTRY/NAME:TAG) or an archive (docker-archive:FILE:NAME:TAG). SKOPEO_DEST_FLAGS adds
# flags to the copy (e.g. --dest-tls-verify=false for a plain-HTTP registry). The binary lands at /<its name>.
# umoci and skopeo are Debian packages (test/cluster/install-packages.sh installs them).
set -euo pipefail
BINARY=${1:?usage: static-image.sh BINARY DEST [umoci config args...]}
DEST=${2:?usage: static-image.sh BINARY DEST [umoci config args...]}
shift 2
for tool in umoci skopeo; do
  command -v "$tool" >/dev/null || { echo "static-image.sh needs $tool (apt-get install $tool)" >&2; exit 1; }
done
[[ -x $BINARY ]] || { echo "static-image.sh: $BINARY is not an executable file" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
umoci init --layout "$work/oci"
umoci new --image "$work/oci:image"
umoci unpack --rootless --image "$work/oci:image" "$work/bundle" >/dev/null
cp "$BINARY" "$work/bundle/rootfs/$(basename "$BINARY")"
umoci repack --image "$work/oci:image" "$work/bundle"
umoci config --image "$work/oci:image" --os linux --architecture amd64 "$@"
# shellcheck disable=SC2086 # flags, split on purpose
skopeo copy -q ${SKOPEO_DEST_FLAGS:-} "oci:$work/oci:image" "$DEST"
