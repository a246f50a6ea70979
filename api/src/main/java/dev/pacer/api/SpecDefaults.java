package dev.pacer.api;

/**
 * The one home of a spec's defaults: the schema's {@code default}s (admission fills them in), the fields' initial
 * values (a spec read from YAML locally) and the planner's fallbacks all read these.
 */
public final class SpecDefaults {
    public static final int SERVER_PORT = 8080;
    public static final String CPUS = "1";
    public static final String MEMORY = "1Gi";
    public static final String MEASURE = "agent";
    public static final int CONNECTIONS = 16;
    /** 0: the load generator chooses (one shard per 50k req/s, at most the client's CPUs and its connections). */
    public static final int SENDER_THREADS = 0;
    /**
     * Requests due less than 1 ms apart go out together, as wrk2's 1 ms timers send them: a wake-up costs a client more
     * CPU than the request it sends (docs/benchmarks.md). Narrowed to half a tighter {@code maxSendLagP99}
     * ({@link #minWakeupIntervalMicros}).
     */
    public static final int MIN_WAKEUP_INTERVAL_MICROS = 1000;
    /** HTTP/1.1: a request takes the connection released last, as Jetty's and Go's client pools do. */
    public static final String CONNECTION_ORDER = "lastUsedFirst";
    public static final String HTTP_VERSION = "http/1.1";
    /** HTTP/2: a stream at a time per connection, as HTTP/1.1 carries a request at a time. */
    public static final int MAX_CONCURRENT_STREAMS = 1;
    public static final String SCHEME = "http";
    /** TLS 1.3 first; 1.2 still offered, as most servers and load tools do. */
    public static final java.util.List<String> TLS_PROTOCOLS = java.util.List.of("TLSv1.3", "TLSv1.2");
    public static final boolean TLS_SESSION_RESUMPTION = true;
    /** 0: a connection is kept for the whole run (one handshake per connection). */
    public static final int TLS_REQUESTS_PER_CONNECTION = 0;
    public static final String METHOD = "GET";
    public static final String PATH = "/";
    public static final String BODY = "";
    public static final String REQUEST_TIMEOUT = "30s";
    public static final String WARMUP = "60s";
    public static final String SAMPLE_PERIOD = "1s";
    public static final String TIMEOUT = "30m";
    public static final String RATE_TOLERANCE = "1%";
    public static final String MAX_SEND_LAG_P99 = "10ms";
    /** A sweep's limit on the clients' p99 at a rate that passes. */
    public static final String SWEEP_MAX_CLIENT_P99 = "10ms";
    /** jetty-perf's baseline check: its margin and the outlier periods it tolerates. */
    public static final String EXPECTED_INTEGRAL_MARGIN = "10%";
    public static final int EXPECTED_INTEGRAL_OUTLIERS = 2;
    public static final double MAX_ERROR_RATIO = 0.0;
    public static final String CLEANUP_PODS = "OnSuccess";
    public static final boolean PIN_CPUS = true;
    public static final boolean SEPARATE_NODES = true;

    /**
     * The wake-up interval of a spec that sets none: {@link #MIN_WAKEUP_INTERVAL_MICROS}, or half the send-lag limit
     * when that is tighter, since a request waiting for the next wake-up is late by up to one interval.
     *
     * @param maxSendLagP99 the run's {@code criteria.maxSendLagP99}
     */
    public static int minWakeupIntervalMicros(java.time.Duration maxSendLagP99) {
        return (int) Math.min(MIN_WAKEUP_INTERVAL_MICROS, maxSendLagP99.toNanos() / 2_000);
    }

    private SpecDefaults() {
    }
}
