#!/usr/bin/env bash
# Jetty 11 against Jetty 12 (ee9, ee10, core), and Chappe when its images are given, the way Jetty compares its
# releases: the suite examples/suites/jetty-comparison.yaml (4 x 60k req/s open loop, 60 s warm-up, 180 s measured,
# three repetitions interleaved, one run at a time), then its table and its sentences ("X is N % faster than jetty11").
# About 80 minutes without Chappe.
#
#   run-all.sh [NAMESPACE]                  the Jetty servers, compared by the agent's processing (NAMESPACE: pacer-bench)
#   CHAPPE_JVM_IMAGE=R/chappe-jvm:shootout CHAPPE_NATIVE_IMAGE=R/chappe-native:shootout run-all.sh
#                                           and Chappe's builds (server-images/chappe/README.md), measured by the kernel
#                                           probe; every Jetty server then runs with measure: both, so that all of them
#                                           are compared by the probe's service series (one instrument for every server)
#   PRINT=1 run-all.sh                      prints the suite it would apply, and applies nothing
#
# The namespace is created when missing. The suite's status is saved in $OUT (default ./comparison-<time>).
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
NS=${1:-pacer-bench}
PACER=${PACER:-$DIR/../../pacer}
SUITE_FILE=$DIR/../suites/jetty-comparison.yaml

# the suite: the example as it is, or with Chappe's servers added and the Jetty servers measured by both
suite() {
  if [[ -z ${CHAPPE_JVM_IMAGE:-}${CHAPPE_NATIVE_IMAGE:-} ]]; then
    cat "$SUITE_FILE"
    return
  fi
  # GET / for every server: Chappe's route in its own shoot-out, and the same request as /plaintext to pacer's servers
  sed -e 's/^\(    - {name: jetty[^,]*, image: [^,]*\)/\1, measure: both/' -e '/^  repetitions:/d' \
      -e 's|^    request: {method: GET, path: /plaintext}|    request: {method: GET, path: /}|' "$SUITE_FILE"
  if [[ -n ${CHAPPE_JVM_IMAGE:-} ]]; then
    echo "    - {name: chappe-jvm, image: $CHAPPE_JVM_IMAGE, args: [\"io.vidocq.chappe.bench.oop.ChappeMain\"], port: 8080, measure: probe, cpus: \"8\", memory: 8Gi, labels: {server: chappe, variant: jvm}}"
  fi
  if [[ -n ${CHAPPE_NATIVE_IMAGE:-} ]]; then
    echo "    - {name: chappe-native, image: $CHAPPE_NATIVE_IMAGE, port: 8080, measure: probe, cpus: \"8\", memory: 8Gi, labels: {server: chappe, variant: native}}"
  fi
  sed -n '/^  repetitions:/p' "$SUITE_FILE"
}

if [[ -n ${PRINT:-} ]]; then
  suite
  exit 0
fi
OUT=${OUT:-$PWD/comparison-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
kubectl get namespace "$NS" >/dev/null 2>&1 || kubectl create namespace "$NS"
name=$(suite | sed -n 's/^  name: //p' | head -1)
kubectl -n "$NS" delete bs "$name" --ignore-not-found --wait=true >/dev/null
suite | kubectl -n "$NS" apply -f -
until phase=$(kubectl -n "$NS" get bs "$name" -o jsonpath='{.status.phase}') && [[ $phase == Succeeded || $phase == Failed ]]; do
  printf '\r%-10s %s runs done, now %s   ' "${phase:-Pending}" "$(kubectl -n "$NS" get bs "$name" -o jsonpath='{.status.runsDone}' 2>/dev/null)" \
    "$(kubectl -n "$NS" get bs "$name" -o jsonpath='{.status.currentRun}' 2>/dev/null)"
  sleep 10
done
echo
kubectl -n "$NS" get bs "$name" -o yaml >"$OUT/$name.yaml"
"$PACER" report --format markdown "$OUT/$name.yaml" | tee "$OUT/table.md"
kubectl -n "$NS" get bs "$name" -o jsonpath='{range .status.comparisons[*]}{@}{"\n"}{end}' | tee "$OUT/comparisons.txt"
[[ $phase == Succeeded ]] || { echo "run-all: the suite $phase (status in $OUT/$name.yaml)" >&2; exit 1; }
