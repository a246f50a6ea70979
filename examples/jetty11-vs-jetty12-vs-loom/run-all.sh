#!/usr/bin/env bash
# Runs the comparison one server after the other (runs on the same nodes must not overlap), saves each finished
# BenchmarkRun, and compares the runs that were carried out, the first as baseline: figures, differences, and a rank
# test of the per-period server P99s. About 5 minutes per server.
#
#   run-all.sh [NAMESPACE]                  Jetty 11, Jetty 12 core, ee10 and ee9, loom (NAMESPACE: pacer-bench)
#   CHAPPE_JVM_IMAGE=R/chappe-jvm:shootout CHAPPE_NATIVE_IMAGE=R/chappe-native:shootout run-all.sh
#                                           the same, and Chappe's builds (server-images/chappe/README.md)
#
# The namespace is created when missing. Each run's status is saved in $OUT (default ./comparison-<time>); a run that
# failed is named and left out of the comparison, which needs two runs carried out.
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
NS=${1:-pacer-bench}
OUT=${OUT:-$PWD/comparison-$(date +%Y%m%d-%H%M%S)}
PACER=${PACER:-$DIR/../../pacer}
mkdir -p "$OUT"
kubectl get namespace "$NS" >/dev/null 2>&1 || kubectl create namespace "$NS"

# the variable holding the image of a Chappe file (its placeholder image is replaced by it); empty for pacer's servers
image_var_of() {
  case $(basename "$1") in
    *chappe-jvm*) echo CHAPPE_JVM_IMAGE ;;
    *chappe-native*) echo CHAPPE_NATIVE_IMAGE ;;
  esac
}

carried_out=()
failed=()
for file in "$DIR"/[0-9]-*.yaml; do
  name=$(sed -n 's/^  name: //p' "$file" | head -1)
  image_var=$(image_var_of "$file")
  if [[ -z $image_var ]]; then
    spec=$(cat "$file")
  elif [[ -n ${!image_var:-} ]]; then
    spec=$(sed "s|^    image: registry.example.com/[^ ]*|    image: ${!image_var}|" "$file")
  else
    echo "$name: skipped: set $image_var to its image (server-images/chappe/README.md)"
    continue
  fi
  kubectl -n "$NS" delete br "$name" --ignore-not-found --wait=true >/dev/null
  kubectl -n "$NS" apply -f - <<<"$spec"
  until phase=$(kubectl -n "$NS" get br "$name" -o jsonpath='{.status.phase}') && [[ $phase == Succeeded || $phase == Failed ]]; do
    printf '\r%-14s %-10s %s   ' "$name" "${phase:-Pending}" \
      "$(kubectl -n "$NS" get br "$name" -o jsonpath='{.status.progress.elapsedSeconds}/{.status.progress.totalSeconds} s, achieved {.status.progress.achievedRate} req/s' 2>/dev/null)"
    sleep 5
  done
  echo
  kubectl -n "$NS" get br "$name" -o yaml >"$OUT/$name.yaml"
  kubectl -n "$NS" get br "$name"
  if [[ $phase == Succeeded ]]; then
    carried_out+=("$OUT/$name.yaml")
  else
    failed+=("$name: $(kubectl -n "$NS" get br "$name" -o jsonpath='{.status.conditions[?(@.type=="Failed")].message}')")
  fi
done
for line in "${failed[@]}"; do echo "failed, left out of the comparison: $line" | tee -a "$OUT/failed.txt" >&2; done
if (( ${#carried_out[@]} < 2 )); then
  echo "run-all: ${#carried_out[@]} run(s) carried out: nothing to compare (statuses in $OUT)" >&2
  exit 1
fi
"$PACER" compare "${carried_out[@]}" | tee "$OUT/compare.txt"
