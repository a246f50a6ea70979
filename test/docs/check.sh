#!/usr/bin/env bash
# The docs against the code: every relative link and anchor of README.md and docs/ resolves, and the generated
# reference pages (docs/reference/) are what the CRDs and the chart give. The CLI and metrics pages are checked by
# the Maven tests that generate them (CliReferenceTest, MetricsReferenceTest). Seconds; no network.
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
python3 "$DIR/check-links.py"
python3 "$DIR/reference.py" --check
