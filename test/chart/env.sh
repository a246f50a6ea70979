# Sourced by the chart checks (after test/cluster/env.sh).
export CHART_TOOLS=$PACER_K8S/chart-tools
export HELM_CACHE_HOME=$CHART_TOOLS/helm/cache HELM_CONFIG_HOME=$CHART_TOOLS/helm/config HELM_DATA_HOME=$CHART_TOOLS/helm/data
export PROMETHEUS_OPERATOR_VERSION=v0.85.0
export SCHEMAS=$CHART_TOOLS/schemas-${K8S_VERSION}
