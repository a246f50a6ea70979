# pacer — build and test entry points. 'make test' is the whole suite (what CI runs).
SHELL := /bin/bash
JAVA_HOME := $(shell scripts/find-jdk.sh)
ifeq ($(JAVA_HOME),)
$(error no JDK >= 21 found: see the message above)
endif
export JAVA_HOME
MVN := ./mvnw -B -ntp
NODES ?= 1

.PHONY: build unit docs-check test test-deps cluster-binaries cluster-builds observability-deps observability-builds chart-check e2e bench cluster-up cluster-down images cluster-test clean

## build: compile and package every module (applications land in <module>/target/app/lib)
build:
	$(MVN) -DskipTests install

## unit: tier-1 tests only (no process started, no port opened beyond loopback in-JVM)
unit:
	$(MVN) -Dpacer.e2e.skip=true install

## docs-check: every link of README.md and docs/ resolves; docs/reference/ is what the CRDs and the chart give
docs-check:
	test/docs/check.sh

## test: every test of the project: unit, real processes on loopback (tier 2), the docs' links and generated
## reference, README's quickstart in a fresh clone
## without Go, every image pushed to a real registry, the chart's offline checks, the
## dashboards' lint, and on the test cluster (tiers 3 and 4): its smoke test, the operator end to end, the chart
## installed with Prometheus and Grafana querying every dashboard panel, a newcomer's install driven by
## docs/installing.md's commands, a node without the static CPU manager, and three nodes (the headline shape across
## nodes, clocks, nodes lost)
test: test-deps
	test/cluster/install-packages.sh
	test/observability/install.sh
	test/scripts/background-job-test.sh
	scripts/background-job.sh start cluster-builds --owner $$PPID $(MAKE) --no-print-directory cluster-builds
	scripts/background-job.sh start observability-builds --owner $$PPID $(MAKE) --no-print-directory observability-builds
	$(MVN) install -Dpacer.e2e.excludedGroups=cluster,apiserver
	scripts/background-job.sh wait cluster-builds
	$(MVN) -pl e2e surefire:test -Dpacer.e2e.groups=apiserver -Dpacer.e2e.excludedGroups=none
	test/docs/check.sh
	test/first-contact/quickstart-fresh-clone.sh
	test/images/push-test.sh
	test/chart/check.sh
	scripts/background-job.sh wait observability-builds
	test/observability/lint-dashboards.sh
	test/observability/history-dashboard-test.sh
	test/cluster/smoke-test.sh

## observability-deps: Debian's Prometheus, puppeteer-core, and what observability-builds builds
observability-deps:
	test/observability/install.sh
	test/scripts/background-job-test.sh
	$(MAKE) --no-print-directory observability-builds

## observability-builds: a Grafana built from the Go module proxy and npm, and Grafana's dashboard linter (cached);
## 'make test' builds them in the background while the Maven tests run
observability-builds:
	test/observability/grafana-backend.sh
	test/observability/grafana-frontend.sh
	test/observability/lint-dashboards.sh --build-only

## chart-check: the chart's offline checks (lint --strict, helm-unittest, kubeconform), tools built once
chart-check: cluster-binaries
	test/chart/check.sh

## test-deps: what the tests need beyond the JDK (Debian chromium for the report check), installed once
test-deps:
	scripts/install-test-deps.sh

## cluster-binaries: Debian packages and the Kubernetes v1.32.2 binaries (also used by the kube-api-test tests)
cluster-binaries:
	test/cluster/install-packages.sh
	test/cluster/build-binaries.sh

## cluster-builds: every Kubernetes binary, Helm and the chart checks' tools (cached); 'make test' builds them in the
## background while the Maven tests run, then runs the tests on kube-apiserver (tag "apiserver")
cluster-builds:
	test/cluster/build-binaries.sh
	test/chart/tools.sh

## e2e: tier-2 tests only (after 'make build')
e2e: test-deps cluster-binaries
	$(MVN) -pl e2e verify

## bench: the tables of docs/benchmarks.md with their own commands (WRK2=/path/to/wrk2 for its rows; the probe's as
## root; the operator's on the test cluster, separately); prints the time it will take first; figures, not a test
bench: build
	scripts/bench-all.sh

## cluster-up: the test Kubernetes, NODES=1 (default) or up to 3 (node 1 pool=server, the others pool=clients; builds and caches what is missing under ~/.cache/pacer/k8s)
cluster-up:
	NODES=$(NODES) test/cluster/up.sh

## cluster-down: stops it and removes its processes, mounts, namespaces and cgroups
cluster-down:
	test/cluster/down.sh

## images: pacer's images (Jib, offline base) imported into the test cluster's containerd
images:
	test/cluster/images.sh all

## cluster-test: the test cluster's smoke test (up, checks, down)
cluster-test:
	test/cluster/smoke-test.sh

clean:
	$(MVN) -q clean
