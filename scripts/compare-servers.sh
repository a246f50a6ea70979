#!/usr/bin/env bash
# Runs the quickstart's load against Jetty 11, Jetty 12 core, ee10 and ee9, and loom in turn, then compares them.
# Usage: scripts/compare-servers.sh [OUTPUT_DIR]   (default runs/compare-<time>)
set -euo pipefail
PACER_HOME="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$PACER_HOME/runs/compare-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$out"
servers=(
  "jetty11 pacer/server-jetty11:0.1.0 --mode=servlet servlet"
  "jetty12-core pacer/server-jetty12:0.1.0 --mode=core core"
  "jetty12-ee10 pacer/server-jetty12:0.1.0 --mode=ee10 ee10"
  "jetty12-ee9 pacer/server-jetty12-ee9:0.1.0 --mode=ee9 ee9"
  "loom pacer/server-loom:0.1.0 --mode=virtual-threads virtual-threads"
)
dirs=()
for entry in "${servers[@]}"; do
  read -r name image args variant <<<"$entry"
  server_label="${name%%-*}"
  sed -e "s#name: quickstart-jetty12-core#name: $name#" \
      -e "s#image: pacer/server-jetty12:0.1.0#image: $image#" \
      -e "s#args: \[\"--mode=core\"\]#args: [\"$args\"]#" \
      -e "s#labels: {server: jetty12, variant: core}#labels: {server: $server_label, variant: $variant}#" \
      "$PACER_HOME/examples/quickstart.yaml" > "$out/$name.yaml"
  "$PACER_HOME/pacer" run "$out/$name.yaml" --output "$out/$name" || [[ $? -eq 1 ]]
  dirs+=("$out/$name")
done
"$PACER_HOME/pacer" compare "${dirs[@]}" | tee "$out/compare.txt"
