package dev.pacer.operator.metrics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.ComparedSeries;
import dev.pacer.api.RunResult;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * The {@code pacer_run_*} series of docs/design.md ("Metrics"), computed at scrape time from the runs the operator holds in its cache:
 * every finished run (Succeeded or Failed) still in the cluster, labelled {@code namespace, run, server, variant}
 * (its info also {@code measured_by} and {@code series}: what the server's figures are)
 * ({@code server}/{@code variant} from {@code spec.server.labels}, empty when absent). A deleted run's series vanish
 * with it. Latencies in seconds, as Prometheus expects.
 */
public final class RunMetrics implements MultiCollector {
    private final Supplier<Collection<BenchmarkRun>> runs;

    public RunMetrics(Supplier<Collection<BenchmarkRun>> runs) {
        this.runs = runs;
    }

    @Override
    public MetricSnapshots collect() {
        return snapshots(runs.get());
    }

    /** The snapshots for these runs; runs not yet finished are left out. */
    public static MetricSnapshots snapshots(Collection<BenchmarkRun> runs) {
        Map<String, GaugeSnapshot.Builder> gauges = new LinkedHashMap<>();
        InfoSnapshot.Builder info = InfoSnapshot.builder().name("pacer_run")
                .help("One per finished run: its phase, verdict and server image");
        boolean anyInfo = false;
        for (BenchmarkRun run : runs) {
            BenchmarkRunStatus status = run.getStatus();
            if (status == null || status.phase == null || !status.phase.isFinal()) {
                continue;
            }
            Labels labels = runLabels(run);
            RunResult result = status.result;
            RunResult.ServerFigures measured = result == null ? null : result.server;
            info.dataPoint(InfoSnapshot.InfoDataPointSnapshot.builder().labels(labels.merge(Labels.of(
                    "phase", status.phase.name(),
                    "verdict", result == null || result.verdict == null ? "" : result.verdict.name(),
                    "image", run.getSpec() == null || run.getSpec().server == null || run.getSpec().server.image == null ? "" : run.getSpec().server.image,
                    // what the server figures are: who measured them (agent, probe, both, none) and which series
                    "measured_by", measured == null || measured.measuredBy == null ? "" : measured.measuredBy,
                    "series", measured == null || measured.series == null ? "" : measured.series)))
                    .build());
            anyInfo = true;
            if (result == null) {
                continue;
            }
            RunResult.ServerFigures server = result.server;
            if (server != null && server.histogramsAvailable) {
                gauge(gauges, "pacer_run_p99_integral_seconds", "Sum over the measured periods of each period's server P99", labels, micros(server.p99IntegralMicros));
                gauge(gauges, "pacer_run_max_integral_seconds", "Sum over the measured periods of each period's server maximum", labels, micros(server.maxIntegralMicros));
                gauge(gauges, "pacer_run_p99_integral_corrected_seconds", "P99 integral with every outlier period (P99 above twice the mean) replaced by the mean, as jetty-perf corrects it", labels, micros(server.p99IntegralCorrectedMicros));
                gauge(gauges, "pacer_run_periods", "Sample periods in the measured window", labels, server.samples == null ? null : server.samples.doubleValue());
                // every series the run has, each named by its instrument's word, so a comparison picks one series for all servers
                for (ComparedSeries series : ComparedSeries.values()) {
                    series.in(server).ifPresent(figures -> {
                        Labels named = labels.merge(Labels.of("series", series.spec()));
                        gauge(gauges, "pacer_run_series_p99_integral_seconds", "Sum over the measured periods of each period's server P99, "
                                + "per series: processing (pacer's agent), service and residence (the kernel probe)", named, micros(figures.p99IntegralMicros()));
                        gauge(gauges, "pacer_run_series_max_integral_seconds", "Sum over the measured periods of each period's server maximum, "
                                + "per series: processing (pacer's agent), service and residence (the kernel probe)", named, micros(figures.maxIntegralMicros()));
                        String latency = "Server latency over the measured window by statistic, per series: processing (pacer's agent), "
                                + "service and residence (the kernel probe)";
                        gauge(gauges, "pacer_run_series_latency_seconds", latency, named.merge(Labels.of("stat", "p50")), micros(figures.p50Micros()));
                        gauge(gauges, "pacer_run_series_latency_seconds", latency, named.merge(Labels.of("stat", "p99")), micros(figures.p99Micros()));
                        gauge(gauges, "pacer_run_series_latency_seconds", latency, named.merge(Labels.of("stat", "max")), micros(figures.maxMicros()));
                    });
                }
                String help = "Latency over the measured window by role and statistic";
                gauge(gauges, "pacer_run_latency_seconds", help, labels.merge(Labels.of("role", "server", "stat", "min")), micros(server.minMicros));
                gauge(gauges, "pacer_run_latency_seconds", help, labels.merge(Labels.of("role", "server", "stat", "p50")), micros(server.p50Micros));
                gauge(gauges, "pacer_run_latency_seconds", help, labels.merge(Labels.of("role", "server", "stat", "p99")), micros(server.p99Micros));
                gauge(gauges, "pacer_run_latency_seconds", help, labels.merge(Labels.of("role", "server", "stat", "p999")), micros(server.p999Micros));
                gauge(gauges, "pacer_run_latency_seconds", help, labels.merge(Labels.of("role", "server", "stat", "max")), micros(server.maxMicros));
            }
            RunResult.ClientFigures clients = result.clients;
            if (clients != null) {
                String help = "Latency over the measured window by role and statistic";
                gauge(gauges, "pacer_run_latency_seconds", help, labels.merge(Labels.of("role", "client", "stat", "p50")), micros(clients.p50Micros));
                gauge(gauges, "pacer_run_latency_seconds", help, labels.merge(Labels.of("role", "client", "stat", "p99")), micros(clients.p99Micros));
                gauge(gauges, "pacer_run_latency_seconds", help, labels.merge(Labels.of("role", "client", "stat", "max")), micros(clients.maxMicros));
                gauge(gauges, "pacer_run_achieved_rate", "Responses per second inside the measured window, all clients", labels, clients.achievedRate);
                gauge(gauges, "pacer_run_offered_rate", "Requests per second offered, all clients", labels, clients.offeredRate);
                gauge(gauges, "pacer_run_requests", "Responses inside the measured window, all clients", labels, clients.requests == null ? null : clients.requests.doubleValue());
                gauge(gauges, "pacer_run_errors", "Errors seen by the clients during the run", labels, clients.errors == null ? null : clients.errors.doubleValue());
                gauge(gauges, "pacer_run_resent_requests", "Times the clients sent a request once more during the run after the server refused it "
                        + "unprocessed (HTTP/2 GOAWAY)", labels, clients.resentRequests == null ? 0.0 : clients.resentRequests.doubleValue());
                gauge(gauges, "pacer_run_send_lag_p99_seconds", "The worst client's send lag P99: how late requests left", labels, micros(clients.sendLagP99Micros));
                String integral = "Sum over the measured periods of each period's client P99 (all clients' responses together), from the "
                        + "intended send time (corrected for coordinated omission) or from the actual send time (uncorrected)";
                gauge(gauges, "pacer_run_client_p99_integral_seconds", integral, labels.merge(Labels.of("correction", "corrected")),
                        micros(clients.p99IntegralMicros));
                gauge(gauges, "pacer_run_client_p99_integral_seconds", integral, labels.merge(Labels.of("correction", "uncorrected")),
                        micros(clients.p99UncorrectedIntegralMicros));
            }
            RunResult.Footprint footprint = server == null ? null : server.footprint;
            if (footprint != null) {
                gauge(gauges, "pacer_run_server_idle_rss_bytes", "Server resident memory before the load", labels, number(footprint.idleRssBytes));
                gauge(gauges, "pacer_run_server_peak_rss_bytes", "Server peak resident memory in the measured window", labels, number(footprint.peakRssBytes));
                gauge(gauges, "pacer_run_server_cpu_seconds", "Server CPU time in the measured window", labels, footprint.cpuSeconds);
                gauge(gauges, "pacer_run_server_cpu_per_request_seconds", "Server CPU time per request in the measured window", labels,
                        footprint.cpuMicrosPerRequest == null ? null : footprint.cpuMicrosPerRequest / 1e6);
                gauge(gauges, "pacer_run_server_cpu_utilization_ratio", "Server CPUs busy over the CPUs it may use, 0 to 1, in the window", labels, footprint.cpuUtilization);
                gauge(gauges, "pacer_run_server_saturated_periods", "Periods in which the server's CPUs were at least 95 % busy", labels, number(footprint.saturatedPeriods));
                gauge(gauges, "pacer_run_server_gc_pause_seconds", "Time the server JVM's collectors reported in the window", labels,
                        footprint.gcPauseMillis == null ? null : footprint.gcPauseMillis / 1e3);
                gauge(gauges, "pacer_run_server_image_bytes", "Size of the server's image on its node", labels, number(footprint.imageBytes));
            }
            // each client's own saturation: a client that could not keep up is why a run is Invalid
            if (clients != null && clients.perClient != null) {
                for (RunResult.ClientFigure client : clients.perClient) {
                    RunResult.Footprint f = client.footprint;
                    if (f == null) {
                        continue;
                    }
                    Labels byClient = labels.merge(Labels.of("client", client.name));
                    gauge(gauges, "pacer_run_client_cpu_utilization_ratio", "A client's CPUs busy over the CPUs it may use, 0 to 1, in the window",
                            byClient, f.cpuUtilization);
                    gauge(gauges, "pacer_run_client_saturated_periods", "Periods in which a client used 95 % of its CPUs or waited 1 ms per run slice",
                            byClient, number(f.saturatedPeriods));
                    gauge(gauges, "pacer_run_client_max_wait_per_slice_seconds", "A client's longest mean wait for a CPU per run slice in a period",
                            byClient, f.maxWaitPerSliceMicros == null ? null : f.maxWaitPerSliceMicros / 1e6);
                    gauge(gauges, "pacer_run_client_max_stall_seconds", "A client's longest stall in the window (its clock watched at least every 1 ms, or at its wake-up interval when longer)",
                            byClient, f.maxHiccupMillis == null ? null : f.maxHiccupMillis / 1e3);
                    gauge(gauges, "pacer_run_client_cpu_per_request_seconds", "A client's CPU time per request in the window",
                            byClient, f.cpuMicrosPerRequest == null ? null : f.cpuMicrosPerRequest / 1e6);
                }
            }
            if (status.startAtEpochMs != null) {
                gauge(gauges, "pacer_run_load_start_timestamp_seconds", "When the clients started, the warm-up included, Unix time",
                        labels, status.startAtEpochMs / 1000.0);
            }
            if (result.window != null && result.window.startEpochMs != null) {
                gauge(gauges, "pacer_run_window_start_timestamp_seconds", "Start of the measured window, Unix time", labels, result.window.startEpochMs / 1000.0);
            }
            if (result.window != null && result.window.endEpochMs != null) {
                gauge(gauges, "pacer_run_window_end_timestamp_seconds", "End of the measured window, Unix time", labels, result.window.endEpochMs / 1000.0);
            }
        }
        List<MetricSnapshot> snapshots = new ArrayList<>();
        if (anyInfo) {
            snapshots.add(info.build());
        }
        gauges.values().forEach(g -> snapshots.add(g.build()));
        return new MetricSnapshots(snapshots);
    }

    static Labels runLabels(BenchmarkRun run) {
        Map<String, String> serverLabels = run.getSpec() == null || run.getSpec().server == null || run.getSpec().server.labels == null
                ? Map.of() : run.getSpec().server.labels;
        return Labels.of("namespace", run.getMetadata().getNamespace(), "run", run.getMetadata().getName(),
                "server", serverLabels.getOrDefault("server", ""), "variant", serverLabels.getOrDefault("variant", ""));
    }

    /** Adds a point to the gauge of that name, made on first use; a missing value adds nothing. */
    static void gauge(Map<String, GaugeSnapshot.Builder> gauges, String name, String help, Labels labels, Double value) {
        if (value == null) {
            return;
        }
        gauges.computeIfAbsent(name, n -> GaugeSnapshot.builder().name(n).help(help))
                .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels).value(value).build());
    }

    private static Double number(Number value) {
        return value == null ? null : value.doubleValue();
    }

    static Double micros(Long micros) {
        return micros == null ? null : micros / 1e6;
    }
}
