#!/usr/bin/env bash
# Container images without a registry or a Docker engine.
#   images.sh base   : localhost/pacer/pause:3.10 (Kubernetes' pause.c, static), localhost/pacer/busybox:test
#                      (Debian busybox-static) and the Java base localhost/pacer/java-base:25 (a jlink'ed runtime of
#                      the JDK that builds pacer, plus the glibc libraries it links), once, as docker-archive tars.
#   images.sh pacer  : pacer's images, built by the same Jib recipe a user runs to push to a registry
#                      (./mvnw jib:buildTar, base tar://…/java-base-cds-coh.tar), copied beside the others; imported into the
#                      node's containerd when it runs (a node started later imports every tar itself).
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
. "$DIR/env.sh"
REPO="$(cd "$DIR/../.." && pwd)"
WHAT=${1:-all}
mkdir -p "$IMAGES"
OCI=$PACER_K8S/oci
# the Java base image, renamed whenever its recipe changes so that an older cached one is rebuilt (this one: the JDK's
# class data sharing archives, mapped by every pacer JVM instead of parsing the JDK's classes: jlink's, and the one for
# compact object headers, which the operator runs with)
JAVA_BASE_TAR=$PACER_K8S/java-base-cds-coh.tar
[[ -d $OCI ]] || umoci init --layout "$OCI"

mkimage() { # tag rootfs-dir umoci-config-args...
  local tag=$1 rootfs=$2; shift 2
  local bundle=$PACER_K8S/bundle-$tag
  rm -rf "$bundle"
  umoci new --image "$OCI:$tag"
  umoci unpack --rootless --image "$OCI:$tag" "$bundle" >/dev/null
  cp -a "$rootfs/." "$bundle/rootfs/"
  umoci repack --image "$OCI:$tag" "$bundle"
  umoci config --image "$OCI:$tag" --os linux --architecture amd64 "$@"
  rm -rf "$bundle"
}

base_images() {
  local work=$PACER_K8S/rootfs
  rm -rf "$work"; mkdir -p "$work"
  if [[ ! -f $IMAGES/pause.tar ]]; then
    local src
    src=$(ls -d "$GOMODCACHE/k8s.io/kubernetes@$K8S_VERSION/build/pause/linux" 2>/dev/null || true)
    if [[ -z $src ]]; then (cd "$PACER_K8S/k8s-wrapper" && go mod download k8s.io/kubernetes@$K8S_VERSION); src="$GOMODCACHE/k8s.io/kubernetes@$K8S_VERSION/build/pause/linux"; fi
    mkdir -p "$work/pause"
    gcc -Os -static -Wall -DVERSION=3.10-pacer -o "$work/pause/pause" "$src/pause.c"
    strip "$work/pause/pause"
    mkimage pause "$work/pause" --config.entrypoint /pause --config.user 65535:65535
    skopeo copy -q "oci:$OCI:pause" "docker-archive:$IMAGES/pause.tar:localhost/pacer/pause:3.10"
  fi
  if [[ ! -f $IMAGES/busybox.tar ]]; then
    local r=$work/busybox
    mkdir -p "$r/bin" "$r/tmp" "$r/etc" "$r/www"
    cp /bin/busybox "$r/bin/busybox"
    for a in $(/bin/busybox --list); do [[ -e $r/bin/$a ]] || ln -s busybox "$r/bin/$a"; done
    printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$r/etc/passwd"
    printf 'root:x:0:\nnobody:x:65534:\n' >"$r/etc/group"
    echo 'hello from a pacer test pod' >"$r/www/index.html"
    mkimage busybox "$r" --config.cmd /bin/sh --config.env PATH=/bin --config.workingdir /
    skopeo copy -q "oci:$OCI:busybox" "docker-archive:$IMAGES/busybox.tar:localhost/pacer/busybox:test"
  fi
  if [[ ! -f $JAVA_BASE_TAR ]]; then
    local jdk r=$work/java
    jdk="$("$REPO/scripts/find-jdk.sh")"
    mkdir -p "$r/tmp" "$r/etc"
    chmod 1777 "$r/tmp"
    "$jdk/bin/jlink" --add-modules java.base,java.logging,java.management,java.naming,java.net.http,java.security.jgss,java.sql,java.xml,java.desktop,jdk.httpserver,jdk.management,jdk.unsupported,jdk.crypto.ec,jdk.zipfs \
      --strip-debug --no-header-files --no-man-pages --generate-cds-archive --output "$r/opt/java"
    # jlink archives the JDK's classes for the default object layout only; a JVM with compact object headers (the
    # operator's) would otherwise parse them all into its own metaspace
    "$r/opt/java/bin/java" -XX:+UseCompactObjectHeaders -Xshare:dump >/dev/null
    for so in $(find "$r/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' \) -exec ldd {} \; 2>/dev/null \
                | awk '/=> \//{print $3} /^\s*\/lib/{print $1}' | grep -v "^$r" | sort -u); do
      mkdir -p "$r$(dirname "$so")"; cp -L "$so" "$r$so"
    done
    mkdir -p "$r/lib64"; cp -L /lib64/ld-linux-x86-64.so.2 "$r/lib64/"
    printf 'root:x:0:0:root:/root:/bin/false\nnonroot:x:65532:65532:nonroot:/home/nonroot:/bin/false\n' >"$r/etc/passwd"
    printf 'root:x:0:\nnonroot:x:65532:\n' >"$r/etc/group"
    mkimage java-base "$r" --config.env PATH=/opt/java/bin:/bin --config.env JAVA_HOME=/opt/java --config.user 65532:65532
    skopeo copy -q "oci:$OCI:java-base" "docker-archive:$JAVA_BASE_TAR:localhost/pacer/java-base:25"
  fi
  rm -rf "$work"
}

pacer_images() {
  [[ -f $JAVA_BASE_TAR ]] || base_images
  log "building pacer's images with Jib (base tar://$JAVA_BASE_TAR)"
  (cd "$REPO" && JAVA_HOME="$(scripts/find-jdk.sh)" ./mvnw -B -ntp -q -DskipTests \
      -pl operator,loadgen-image,server-images/jetty12,server-images/jetty12-ee9,server-images/jetty11,server-images/loom -am install jib:buildTar \
      -Dpacer.image.base="tar://$JAVA_BASE_TAR" >"$PACER_K8S/jib.log" 2>&1) \
    || { tail -30 "$PACER_K8S/jib.log" >&2; exit 1; }
  for tar in "$REPO"/operator/target/image/*.tar "$REPO"/loadgen-image/target/image/*.tar "$REPO"/server-images/*/target/image/*.tar; do
    cp "$tar" "$IMAGES/pacer-$(basename "$tar")"
  done
  probe_image
  local sock=$CLUSTER/node/containerd/containerd.sock
  if [[ -S $sock ]]; then
    for tar in "$IMAGES"/pacer-*.tar; do innet ctr -a "$sock" -n k8s.io images import "$tar" >/dev/null; done
    log "imported into the node: $(innet ctr -a "$sock" -n k8s.io images ls -q | grep -c pacer/) pacer images"
  fi
}

# The kernel probe: its static Go binary alone, by the recipe a user runs to push it (probe/image.sh).
probe_image() {
  local version
  version=$(sed -n 's|^  <version>\(.*\)</version>|\1|p' "$REPO/pom.xml" | head -1)
  rm -f "$IMAGES/pacer-probe.tar"
  PACER_VERSION=$version "$REPO/probe/image.sh" "docker-archive:$IMAGES/pacer-probe.tar:pacer/probe:$version" >/dev/null
}

case $WHAT in
  base) base_images ;;
  pacer) pacer_images ;;
  all) base_images; pacer_images ;;
  *) echo "usage: images.sh [base|pacer|all]" >&2; exit 2 ;;
esac
