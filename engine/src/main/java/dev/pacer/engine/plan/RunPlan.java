package dev.pacer.engine.plan;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.pacer.engine.analysis.AnalysisInput;

/**
 * A spec turned into roles and numbers, with no I/O: what to start, what to post to every client, and how to judge.
 *
 * @param runName        the run's name
 * @param server         the server role
 * @param clients        the client roles, {@code client-0 … client-(N-1)}
 * @param warmup         warm-up
 * @param duration       measured duration
 * @param samplePeriod   sample period
 * @param timeout        the whole run's limit
 * @param load           e.g. {@code 2x500}
 * @param criteria       the verdict's thresholds
 */
public record RunPlan(String runName, ServerRole server, List<ClientRole> clients, Duration warmup, Duration duration,
                      Duration samplePeriod, Duration timeout, String load, AnalysisInput.Criteria criteria) {

    /**
     * @param image       image (Kubernetes) or server name (local)
     * @param args        server arguments
     * @param jvmOptions  JVM options
     * @param port        HTTP port (Kubernetes; locally any free port)
     * @param cpuMillis   CPUs asked, millicores
     * @param memory      memory, Kubernetes quantity
     * @param labels      result labels (server, variant)
     */
    public record ServerRole(String image, List<String> args, List<String> jvmOptions, int port, long cpuMillis,
                             String memory, Map<String, String> labels) {
    }

    /**
     * @param name          {@code client-<index>}
     * @param ratePerSecond offered rate of this client
     * @param connections   connections of this client
     * @param senderThreads sender threads (0: the load generator chooses)
     * @param cpuMillis     CPUs asked, millicores
     */
    public record ClientRole(String name, int ratePerSecond, int connections, int senderThreads, String httpVersion,
                             String image, long cpuMillis, String memory, List<String> jvmOptions) {
    }

    public long totalRatePerSecond() {
        return clients.stream().mapToLong(ClientRole::ratePerSecond).sum();
    }

    /**
     * The start instant shared by every client: at least {@code leadTime} from now, on a period boundary so that the
     * warm-up ends on one too and the measured window holds whole periods.
     */
    public long startAtEpochMs(long nowEpochMs, Duration leadTime) {
        long period = samplePeriod.toMillis();
        long earliest = nowEpochMs + leadTime.toMillis();
        return Math.floorDiv(earliest + period - 1, period) * period;
    }

    /** The body of {@code POST /pacer/v1/run} for one client. */
    public Map<String, Object> runRequest(ClientRole client, String targetUrl, long startAtEpochMs,
                                          String method, String path, Map<String, String> headers, String body,
                                          Duration requestTimeout) {
        return Map.ofEntries(
                Map.entry("targetUrl", targetUrl),
                Map.entry("ratePerSecond", client.ratePerSecond()),
                Map.entry("connections", client.connections()),
                Map.entry("senderThreads", client.senderThreads()),
                Map.entry("httpVersion", client.httpVersion()),
                Map.entry("request", Map.of("method", method, "path", path, "headers", headers, "body", body)),
                Map.entry("warmupMs", warmup.toMillis()),
                Map.entry("durationMs", duration.toMillis()),
                Map.entry("samplePeriodMs", samplePeriod.toMillis()),
                Map.entry("startAtEpochMs", startAtEpochMs),
                Map.entry("requestTimeoutMs", requestTimeout.toMillis()));
    }
}
