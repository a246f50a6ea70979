package dev.pacer.agent;

import java.util.Objects;
import java.util.function.Supplier;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.Unit;
import org.HdrHistogram.Histogram;

/**
 * The agent's metrics, computed from the sampler's closed periods so that the request path pays nothing for them.
 *
 * <pre>
 * # TYPE pacer_requests_total counter
 * pacer_requests_total{role="server"} 1200.0
 * # TYPE pacer_period_latency_seconds gauge
 * pacer_period_latency_seconds{role="server",stat="p99"} 0.000412
 * # TYPE pacer_processing_seconds histogram     (role server only)
 * pacer_processing_seconds_bucket{le="0.0001"} 12.0 ... pacer_processing_seconds_count 1200
 * # TYPE pacer_clamped_values_total counter
 * pacer_clamped_values_total{role="server"} 0.0
 * </pre>
 * {@code stat} is one of {@code min, p50, p99, p999, max}, of the last closed period. Clients add their own
 * series ({@code pacer_errors_total}, {@code pacer_offered_rate}, {@code pacer_send_lag_seconds}) to the same registry.
 */
public final class AgentMetrics {
    public static final String REQUESTS_TOTAL = "pacer_requests_total";
    public static final String PERIOD_LATENCY_SECONDS = "pacer_period_latency_seconds";
    public static final String PROCESSING_SECONDS = "pacer_processing_seconds";
    public static final String CLAMPED_VALUES_TOTAL = "pacer_clamped_values_total";
    public static final String ERRORS_TOTAL = "pacer_errors_total";
    public static final String OFFERED_RATE = "pacer_offered_rate";
    public static final String SEND_LAG_SECONDS = "pacer_send_lag_seconds";
    public static final String TLS_HANDSHAKES_TOTAL = "pacer_tls_handshakes_total";
    public static final String TLS_HANDSHAKE_SECONDS = "pacer_tls_handshake_seconds";

    /** Upper bounds of {@value #PROCESSING_SECONDS}, seconds: 10 µs to 10 s. */
    static final double[] PROCESSING_BUCKETS_SECONDS = {
            0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
            0.25, 0.5, 1, 2.5, 5, 10, Double.POSITIVE_INFINITY};
    private static final double NANOS_PER_SECOND = 1e9;

    private AgentMetrics() {
    }

    /** Registers the series of one sampler; {@code processingHistogram} adds {@value #PROCESSING_SECONDS}. */
    public static void register(PrometheusRegistry registry, String role, PeriodSampler sampler, boolean processingHistogram) {
        Objects.requireNonNull(registry);
        CounterWithCallback.builder().name(REQUESTS_TOTAL).help("Requests measured (server: processed; client: responses and failures)")
                .labelNames("role").callback(cb -> cb.call(sampler.closedCount(), role)).register(registry);
        CounterWithCallback.builder().name(CLAMPED_VALUES_TOTAL).help("Values outside the histogram range, clamped to it")
                .labelNames("role").callback(cb -> cb.call(sampler.clampedValues(), role)).register(registry);
        registerPeriodGauge(registry, PERIOD_LATENCY_SECONDS, "Latency of the last closed sample period", role, sampler::lastPeriod);
        if (processingHistogram) {
            registry.register(new ProcessingHistogramCollector(sampler));
        }
    }

    /** The TLS handshakes of a role: how many (0 in cleartext) and their times in the last closed period. */
    public static void registerHandshakes(PrometheusRegistry registry, String role, PeriodSampler handshakes) {
        CounterWithCallback.builder().name(TLS_HANDSHAKES_TOTAL).help("TLS handshakes completed, each on a new connection")
                .labelNames("role").callback(cb -> cb.call(handshakes.closedCount(), role)).register(registry);
        registerPeriodGauge(registry, TLS_HANDSHAKE_SECONDS, "TLS handshake time (connection to handshake done) in the last closed period",
                role, handshakes::lastPeriod);
    }

    /** A gauge with {@code role} and {@code stat} labels over the last closed period of a sampler. */
    public static void registerPeriodGauge(PrometheusRegistry registry, String name, String help, String role,
                                           Supplier<PeriodSummary> lastPeriod) {
        GaugeWithCallback.builder().name(name).help(help).unit(Unit.SECONDS).labelNames("role", "stat")
                .callback(cb -> {
                    PeriodSummary p = lastPeriod.get();
                    cb.call(p.minNanos() / NANOS_PER_SECOND, role, "min");
                    cb.call(p.p50Nanos() / NANOS_PER_SECOND, role, "p50");
                    cb.call(p.p99Nanos() / NANOS_PER_SECOND, role, "p99");
                    cb.call(p.p999Nanos() / NANOS_PER_SECOND, role, "p999");
                    cb.call(p.maxNanos() / NANOS_PER_SECOND, role, "max");
                }).register(registry);
    }

    /** Classic Prometheus buckets derived from the cumulative HdrHistogram at scrape time. */
    static final class ProcessingHistogramCollector implements Collector {
        private final PeriodSampler sampler;

        ProcessingHistogramCollector(PeriodSampler sampler) {
            this.sampler = sampler;
        }

        @Override
        public MetricSnapshot collect() {
            Histogram cumulative = sampler.cumulativeCopy();
            long[] counts = new long[PROCESSING_BUCKETS_SECONDS.length];
            long previous = 0;
            for (int i = 0; i < counts.length; i++) {
                double upper = PROCESSING_BUCKETS_SECONDS[i];
                long cumulativeCount = Double.isInfinite(upper) ? cumulative.getTotalCount()
                        : cumulative.getCountBetweenValues(0, (long) (upper * NANOS_PER_SECOND));
                counts[i] = Math.max(0, cumulativeCount - previous);
                previous = Math.max(previous, cumulativeCount);
            }
            double sumSeconds = cumulative.getMean() * cumulative.getTotalCount() / NANOS_PER_SECOND;
            return HistogramSnapshot.builder().name(PROCESSING_SECONDS)
                    .help("Server processing time per request, first byte read to last byte written")
                    .unit(Unit.SECONDS)
                    .dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder()
                            .classicHistogramBuckets(ClassicHistogramBuckets.of(PROCESSING_BUCKETS_SECONDS, counts))
                            .sum(sumSeconds).labels(Labels.EMPTY).build())
                    .build();
        }

        @Override
        public String getPrometheusName() {
            return PROCESSING_SECONDS;
        }
    }
}
