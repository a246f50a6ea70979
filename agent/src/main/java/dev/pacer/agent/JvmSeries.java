package dev.pacer.agent;

import io.prometheus.metrics.instrumentation.jvm.JvmBufferPoolMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmClassLoadingMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmCompilationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmGarbageCollectorMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmRuntimeInfoMetric;
import io.prometheus.metrics.instrumentation.jvm.JvmThreadsMetrics;
import io.prometheus.metrics.instrumentation.jvm.ProcessMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The JVM's series ({@code jvm_*}, {@code process_*}) an agent exports from the process it runs in: every one of
 * client_java's but two. {@code jvm_native_memory_*} reports nothing unless the JVM tracks its native memory, yet
 * reading it starts the platform MBean server and registers JFR's diagnostic commands: ~400 classes and ~9 MiB of
 * the measured server's resident memory. {@code jvm_memory_pool_allocated_bytes_total} listens to every collection's
 * notification; no dashboard reads it.
 */
public final class JvmSeries {
    private JvmSeries() {
    }

    public static void register(PrometheusRegistry registry) {
        JvmMemoryMetrics.builder().register(registry);
        JvmGarbageCollectorMetrics.builder().register(registry);
        JvmThreadsMetrics.builder().register(registry);
        JvmBufferPoolMetrics.builder().register(registry);
        JvmClassLoadingMetrics.builder().register(registry);
        JvmCompilationMetrics.builder().register(registry);
        JvmRuntimeInfoMetric.builder().register(registry);
        ProcessMetrics.builder().register(registry);
    }
}
