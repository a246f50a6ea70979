#!/usr/bin/env bash
# The operator's end-to-end tests on the running test cluster (e2e tests tagged "cluster"), after 'mvnw install'
# built the modules and images.sh imported pacer's images. smoke-test.sh calls it between its checks and down.sh.
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
. "$DIR/env.sh"
REPO="$(cd "$DIR/../.." && pwd)"
cd "$REPO"
JAVA_HOME="$(scripts/find-jdk.sh)" ./mvnw -B -ntp -pl e2e surefire:test \
  -Dpacer.e2e.groups=cluster -Dpacer.e2e.excludedGroups=none -Dpacer.kubeconfig="$KUBECONFIG_HOST" "$@"
