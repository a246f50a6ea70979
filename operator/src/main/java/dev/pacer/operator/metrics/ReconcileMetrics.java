package dev.pacer.operator.metrics;

import java.util.Map;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The Java Operator SDK's reconcile hooks as Prometheus series: reconciliations started, finished, failed and
 * retried, events received, and the time each reconcile took.
 */
public final class ReconcileMetrics implements Metrics {
    private final Counter started;
    private final Counter finished;
    private final Counter failed;
    private final Counter retries;
    private final Counter events;
    private final Histogram duration;

    public ReconcileMetrics(PrometheusRegistry registry) {
        started = Counter.builder().name("pacer_operator_reconciliations_started_total")
                .help("Reconciliations started").labelNames("kind").register(registry);
        finished = Counter.builder().name("pacer_operator_reconciliations_success_total")
                .help("Reconciliations that finished without an exception").labelNames("kind").register(registry);
        failed = Counter.builder().name("pacer_operator_reconciliations_failed_total")
                .help("Reconciliations that threw; the SDK retries them").labelNames("kind", "exception").register(registry);
        retries = Counter.builder().name("pacer_operator_reconciliations_retries_total")
                .help("Reconciliations that were retries of a failed one").labelNames("kind").register(registry);
        events = Counter.builder().name("pacer_operator_events_received_total")
                .help("Events (resource and secondary-resource changes, timers) received by the controllers").register(registry);
        duration = Histogram.builder().name("pacer_operator_reconcile_duration_seconds")
                .help("Time each controller execution took").labelNames("controller", "execution")
                .classicUpperBounds(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30).register(registry);
    }

    @Override
    public void receivedEvent(Event event, Map<String, Object> metadata) {
        events.inc();
    }

    @Override
    public void reconcileCustomResource(HasMetadata resource, RetryInfo retryInfo, Map<String, Object> metadata) {
        started.labelValues(resource.getKind()).inc();
        if (retryInfo != null && retryInfo.getAttemptCount() > 0) {
            retries.labelValues(resource.getKind()).inc();
        }
    }

    @Override
    public void finishedReconciliation(HasMetadata resource, Map<String, Object> metadata) {
        finished.labelValues(resource.getKind()).inc();
    }

    @Override
    public void failedReconciliation(HasMetadata resource, Exception exception, Map<String, Object> metadata) {
        failed.labelValues(resource.getKind(), exception.getClass().getSimpleName()).inc();
    }

    @Override
    public <T> T timeControllerExecution(ControllerExecution<T> execution) throws Exception {
        long start = System.nanoTime();
        try {
            return execution.execute();
        } finally {
            duration.labelValues(execution.controllerName(), execution.name()).observe((System.nanoTime() - start) / 1e9);
        }
    }
}
