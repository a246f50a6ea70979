#!/usr/bin/env bash
# The agent's recording path alone (prints figures; not a test): values per second recorded by 1 and 2 threads.
# Usage: scripts/bench-sampler.sh [SECONDS]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require_built server-images/loom
SECONDS_PER_RUN="${1:-10}"
CP="$PACER_HOME/server-images/loom/target/app/lib/*"
for threads in 1 2; do
  "$JAVA" -cp "$CP" dev.pacer.agent.bench.SamplerThroughput "$threads" "$SECONDS_PER_RUN"
done
