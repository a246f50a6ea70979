#!/usr/bin/env bash
# Copies the dashboards as the cluster tiers last rendered them (real Grafana, headless Chromium) into docs/images,
# where README and the docs show them: the run dashboard of a run (test/chart/install-test.sh) and the comparison
# dashboard of a three-server suite on three nodes (test/cluster/multinode-test.sh). Run it after those tiers, e.g.
# after make test, when a dashboard changed; it says which pictures it has not got.
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
. "$DIR/env.sh"
SHOTS=$PACER_CACHE/observability-screenshots
IMAGES="$DIR/../../docs/images"
missing=0
for shot in dashboard-pacer-run.png dashboard-three-servers.png; do
  if [[ -f $SHOTS/$shot ]]; then
    cp "$SHOTS/$shot" "$IMAGES/$shot"
    log "docs/images/$shot from $(date -r "$SHOTS/$shot" '+%F %T')"
  else
    log "$shot: not rendered yet (its tier has not run here)"
    missing=1
  fi
done
exit $missing
