package dev.pacer.operator.metrics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.pacer.api.BenchmarkSuite;
import dev.pacer.api.BenchmarkSuiteStatus;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * The {@code pacer_suite_*} series of docs/design.md ("Metrics"), computed at scrape time from the suites in the
 * operator's cache, running or finished, labelled {@code namespace, suite} and per server its name in the suite:
 * <ul>
 *   <li>each finished run of the suite, by {@code server, rate_per_client, repetition}: the client p99 (the curve of
 *       p99 against offered rate) and the server's P99 integral (whose spread over repetitions PromQL takes);</li>
 *   <li>each server's sustained rate (sweeps) and, at fixed rates, the median P99 integral with its interval.</li>
 * </ul>
 */
public final class SuiteMetrics implements MultiCollector {
    private final Supplier<Collection<BenchmarkSuite>> suites;

    public SuiteMetrics(Supplier<Collection<BenchmarkSuite>> suites) {
        this.suites = suites;
    }

    @Override
    public MetricSnapshots collect() {
        return snapshots(suites.get());
    }

    public static MetricSnapshots snapshots(Collection<BenchmarkSuite> suites) {
        Map<String, GaugeSnapshot.Builder> gauges = new LinkedHashMap<>();
        InfoSnapshot.Builder info = InfoSnapshot.builder().name("pacer_suite").help("One per suite: its phase");
        boolean anyInfo = false;
        for (BenchmarkSuite suite : suites) {
            BenchmarkSuiteStatus status = suite.getStatus();
            if (status == null || status.phase == null) {
                continue;
            }
            Labels labels = Labels.of("namespace", suite.getMetadata().getNamespace(), "suite", suite.getMetadata().getName());
            info.dataPoint(InfoSnapshot.InfoDataPointSnapshot.builder().labels(labels.merge(Labels.of("phase", status.phase))).build());
            anyInfo = true;
            RunMetrics.gauge(gauges, "pacer_suite_runs_done", "Runs of the suite that finished", labels, status.runsDone == null ? null : status.runsDone.doubleValue());
            for (BenchmarkSuiteStatus.SuiteRun run : status.runs == null ? List.<BenchmarkSuiteStatus.SuiteRun>of() : status.runs) {
                if (run.server == null || run.ratePerClient == null) {
                    continue;
                }
                Labels runLabels = labels.merge(Labels.of("server", run.server, "rate_per_client", Long.toString(run.ratePerClient),
                        "repetition", String.valueOf(run.repetition)));
                RunMetrics.gauge(gauges, "pacer_suite_run_client_p99_seconds", "Each run's client p99, by server, rate per client and repetition",
                        runLabels, RunMetrics.micros(run.clientP99Micros));
                RunMetrics.gauge(gauges, "pacer_suite_run_p99_integral_seconds", "Each run's server P99 integral, by server, rate per client and repetition",
                        runLabels, RunMetrics.micros(run.p99IntegralMicros));
                RunMetrics.gauge(gauges, "pacer_suite_run_achieved_rate", "Each run's achieved rate, all clients", runLabels, run.achievedRate);
            }
            for (BenchmarkSuiteStatus.ServerSummary server : status.servers == null ? List.<BenchmarkSuiteStatus.ServerSummary>of() : status.servers) {
                Labels serverLabels = labels.merge(Labels.of("server", server.name));
                RunMetrics.gauge(gauges, "pacer_suite_sustained_rate_per_client", "Sweep: the highest rate per client that passed",
                        serverLabels, server.sustainedRatePerClient == null ? null : server.sustainedRatePerClient.doubleValue());
                if (server.ratePerClient == null) {
                    RunMetrics.gauge(gauges, "pacer_suite_sustained_client_bound", "Sweep: 1 when the clients, not the server, were the limit "
                            + "(the sustained rate is a lower bound), else 0", serverLabels, server.clientBound != null ? 1.0 : 0.0);
                }
                if (server.ratePerClient != null) {
                    Labels atRate = serverLabels.merge(Labels.of("rate_per_client", Long.toString(server.ratePerClient)));
                    String help = "Fixed rates: the median P99 integral over the repetitions and its interval (stat median, low, high)";
                    RunMetrics.gauge(gauges, "pacer_suite_p99_integral_seconds", help, atRate.merge(Labels.of("stat", "median")), RunMetrics.micros(server.p99IntegralMedianMicros));
                    RunMetrics.gauge(gauges, "pacer_suite_p99_integral_seconds", help, atRate.merge(Labels.of("stat", "low")), RunMetrics.micros(server.p99IntegralLowMicros));
                    RunMetrics.gauge(gauges, "pacer_suite_p99_integral_seconds", help, atRate.merge(Labels.of("stat", "high")), RunMetrics.micros(server.p99IntegralHighMicros));
                }
            }
        }
        List<MetricSnapshot> snapshots = new ArrayList<>();
        if (anyInfo) {
            snapshots.add(info.build());
        }
        gauges.values().forEach(g -> snapshots.add(g.build()));
        return new MetricSnapshots(snapshots);
    }
}
