package dev.pacer.contract;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * The body of {@code POST /pacer/v1/run}: one run of one load generator. Golden file: {@code run-request.json}.
 *
 * @param targetUrl         server base URL, e.g. {@code http://10.0.0.5:8080}
 * @param ratePerSecond     requests per second this client offers (open loop)
 * @param connections       connections to the server
 * @param senderThreads     threads pacing the requests (0: chosen from the rate)
 * @param httpVersion       {@code http/1.1} or {@code h2c}
 * @param request           what to send
 * @param warmupMs          warm-up after {@code startAtEpochMs}
 * @param durationMs        measured duration after the warm-up
 * @param samplePeriodMs    sample period (must equal the process's; informational)
 * @param startAtEpochMs    when the load starts, the same instant for every client; 0 arms the client without a start,
 *                          which {@code POST /pacer/v1/run/start} ({@link RunStart}) gives once every client is armed
 * @param requestTimeoutMs  a request not completed after this is a timeout error (0: 30 s)
 * @param rampUpMs          the first part of the warm-up, in which the rate grows linearly from 0 to
 *                          {@code ratePerSecond} (0: the full rate from {@code startAtEpochMs}); at most {@code warmupMs}
 * @param tls               TLS to an {@code https} target; {@code null} for {@code http}
 * @param minWakeupIntervalMicros the pacing thread's shortest sleep: requests due closer together go out on one wake-up
 *                          ({@code null}: {@value #DEFAULT_MIN_WAKEUP_INTERVAL_MICROS} µs; 0: a wake-up per request)
 * @param connectionOrder   HTTP/1.1: which idle connection a request takes, {@value #LAST_USED_FIRST} (the one released
 *                          last; {@code null} too) or {@value #ROUND_ROBIN} (the one idle longest)
 * @param maxConcurrentStreams HTTP/2: requests a connection carries at once, at most (the server's own limit, when
 *                          lower, applies); {@code null}: 1, a stream at a time as HTTP/1.1 does
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"targetUrl", "ratePerSecond", "connections", "senderThreads", "minWakeupIntervalMicros", "connectionOrder", "maxConcurrentStreams", "httpVersion", "request", "warmupMs",
        "durationMs", "samplePeriodMs", "startAtEpochMs", "requestTimeoutMs", "rampUpMs", "tls"})
public record RunRequest(String targetUrl, int ratePerSecond, int connections, int senderThreads, String httpVersion,
                         HttpRequestSpec request, long warmupMs, long durationMs, long samplePeriodMs,
                         long startAtEpochMs, long requestTimeoutMs, long rampUpMs, Tls tls, Integer minWakeupIntervalMicros,
                         String connectionOrder, Integer maxConcurrentStreams) {

    /** A stream at a time over HTTP/2. */
    public RunRequest(String targetUrl, int ratePerSecond, int connections, int senderThreads, String httpVersion,
                      HttpRequestSpec request, long warmupMs, long durationMs, long samplePeriodMs, long startAtEpochMs,
                      long requestTimeoutMs, long rampUpMs, Tls tls, Integer minWakeupIntervalMicros, String connectionOrder) {
        this(targetUrl, ratePerSecond, connections, senderThreads, httpVersion, request, warmupMs, durationMs, samplePeriodMs,
                startAtEpochMs, requestTimeoutMs, rampUpMs, tls, minWakeupIntervalMicros, connectionOrder, null);
    }

    /** In the default connection order. */
    public RunRequest(String targetUrl, int ratePerSecond, int connections, int senderThreads, String httpVersion,
                      HttpRequestSpec request, long warmupMs, long durationMs, long samplePeriodMs, long startAtEpochMs,
                      long requestTimeoutMs, long rampUpMs, Tls tls, Integer minWakeupIntervalMicros) {
        this(targetUrl, ratePerSecond, connections, senderThreads, httpVersion, request, warmupMs, durationMs, samplePeriodMs,
                startAtEpochMs, requestTimeoutMs, rampUpMs, tls, minWakeupIntervalMicros, null);
    }

    /** With the default wake-up interval. */
    public RunRequest(String targetUrl, int ratePerSecond, int connections, int senderThreads, String httpVersion,
                      HttpRequestSpec request, long warmupMs, long durationMs, long samplePeriodMs, long startAtEpochMs,
                      long requestTimeoutMs, long rampUpMs, Tls tls) {
        this(targetUrl, ratePerSecond, connections, senderThreads, httpVersion, request, warmupMs, durationMs, samplePeriodMs,
                startAtEpochMs, requestTimeoutMs, rampUpMs, tls, null);
    }

    /** Cleartext, with a ramp. */
    public RunRequest(String targetUrl, int ratePerSecond, int connections, int senderThreads, String httpVersion,
                      HttpRequestSpec request, long warmupMs, long durationMs, long samplePeriodMs, long startAtEpochMs,
                      long requestTimeoutMs, long rampUpMs) {
        this(targetUrl, ratePerSecond, connections, senderThreads, httpVersion, request, warmupMs, durationMs, samplePeriodMs,
                startAtEpochMs, requestTimeoutMs, rampUpMs, null);
    }

    /** At the full rate from the start. */
    public RunRequest(String targetUrl, int ratePerSecond, int connections, int senderThreads, String httpVersion,
                      HttpRequestSpec request, long warmupMs, long durationMs, long samplePeriodMs, long startAtEpochMs,
                      long requestTimeoutMs) {
        this(targetUrl, ratePerSecond, connections, senderThreads, httpVersion, request, warmupMs, durationMs, samplePeriodMs,
                startAtEpochMs, requestTimeoutMs, 0);
    }

    public static final long DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
    public static final int DEFAULT_MIN_WAKEUP_INTERVAL_MICROS = 1000;
    public static final String ROUND_ROBIN = "roundRobin";
    public static final String LAST_USED_FIRST = "lastUsedFirst";
    /** Half a run's default send-lag limit (10 ms): the interval's own lateness, up to about one interval, leaves room. */
    public static final int MAX_MIN_WAKEUP_INTERVAL_MICROS = 5_000;

    /** HTTP/1.1: whether a request takes the idle connection released last, rather than the one idle longest. */
    @JsonIgnore
    public boolean lastUsedFirst() {
        return !ROUND_ROBIN.equals(connectionOrder);
    }

    /** HTTP/2: requests a connection carries at once, the default applied. */
    @JsonIgnore
    public int streamsPerConnection() {
        return maxConcurrentStreams == null ? 1 : maxConcurrentStreams;
    }

    /** Streams per connection a request may ask for: h2load's own ceiling is the server's, this one bounds a typo. */
    public static final int MAX_CONCURRENT_STREAMS = 1_000;

    /** The pacing thread's shortest sleep, the default applied. */
    @JsonIgnore
    /**
     * How often a client's pacing thread reads its clock for the stall meter at a wake-up interval: the interval in whole
     * milliseconds, as a selector waits, 1 ms at the least (the meter's own).
     */
    public static long stallWatchMillis(long minWakeupIntervalMicros) {
        return Math.max(1, Math.ceilDiv(minWakeupIntervalMicros, 1_000));
    }

    public long minWakeupIntervalNanos() {
        return 1_000L * (minWakeupIntervalMicros == null ? DEFAULT_MIN_WAKEUP_INTERVAL_MICROS : minWakeupIntervalMicros);
    }
    public static final String HTTP_1_1 = "http/1.1";
    public static final String H2C = "h2c";
    public static final String H2 = "h2";

    /**
     * TLS of an {@code https} run.
     *
     * @param protocols             the versions offered, e.g. {@code [TLSv1.3, TLSv1.2]}
     * @param sessionResumption     whether a new connection resumes the client's earlier session (abbreviated handshake)
     * @param requestsPerConnection a connection is closed after this many responses and replaced (0: never)
     * @param trustedCertificatesPem  the certificates the client trusts, PEM: the server's own, or its CA
     * @param trustedCertificatesFile or a file holding them (a mounted Secret's {@code tls.crt}); one of the two
     * @param serverName              the name the server's certificate must hold and the client sends as SNI, while it
     *                                connects to the target's address; {@code null}: the target's host
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonPropertyOrder({"protocols", "sessionResumption", "requestsPerConnection", "trustedCertificatesPem", "trustedCertificatesFile",
            "serverName"})
    public record Tls(List<String> protocols, boolean sessionResumption, int requestsPerConnection, String trustedCertificatesPem,
                      String trustedCertificatesFile, String serverName) {
        /** The certificates given in the request itself, checked against the target's host. */
        public Tls(List<String> protocols, boolean sessionResumption, int requestsPerConnection, String trustedCertificatesPem) {
            this(protocols, sessionResumption, requestsPerConnection, trustedCertificatesPem, null, null);
        }

        /** Whether the request says what to trust. */
        @JsonIgnore
        public boolean trustGiven() {
            return (trustedCertificatesPem != null && !trustedCertificatesPem.isBlank())
                    || (trustedCertificatesFile != null && !trustedCertificatesFile.isBlank());
        }
    }

    @JsonIgnore
    public boolean https() {
        return targetUrl != null && targetUrl.startsWith("https:");
    }

    /** The request every client sends, the same each time. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonPropertyOrder({"method", "path", "headers", "body"})
    public record HttpRequestSpec(String method, String path, Map<String, String> headers, String body) {
    }

    /** Every problem of this request, each naming its field; empty when valid. */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (targetUrl == null || targetUrl.isBlank()) {
            problems.add("targetUrl is required, e.g. http://127.0.0.1:8080");
        } else {
            try {
                URI uri = URI.create(targetUrl);
                if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                    problems.add("targetUrl must be http://host:port or https://host:port, was '" + targetUrl + "'");
                } else if ("https".equals(uri.getScheme()) && (tls == null || !tls.trustGiven())) {
                    problems.add("tls.trustedCertificatesPem (or tls.trustedCertificatesFile) is required with an https targetUrl: "
                            + "the certificate to trust, PEM");
                } else if ("http".equals(uri.getScheme()) && tls != null) {
                    problems.add("tls applies to an https targetUrl only, was '" + targetUrl + "'");
                }
                if (tls != null) {
                    if (tls.protocols() == null || tls.protocols().isEmpty()
                            || !List.of("TLSv1.3", "TLSv1.2").containsAll(tls.protocols())) {
                        problems.add("tls.protocols must list TLSv1.3 and/or TLSv1.2, was " + tls.protocols());
                    }
                    if (tls.requestsPerConnection() < 0) {
                        problems.add("tls.requestsPerConnection must be >= 0 (0: never a new connection), was " + tls.requestsPerConnection());
                    }
                }
            } catch (IllegalArgumentException e) {
                problems.add("targetUrl is not a URL: '" + targetUrl + "'");
            }
        }
        if (ratePerSecond <= 0) {
            problems.add("ratePerSecond must be > 0, was " + ratePerSecond);
        }
        if (connections <= 0) {
            problems.add("connections must be > 0, was " + connections);
        }
        if (senderThreads < 0) {
            problems.add("senderThreads must be >= 0 (0 chooses), was " + senderThreads);
        }
        if (minWakeupIntervalMicros != null && (minWakeupIntervalMicros < 0 || minWakeupIntervalMicros > MAX_MIN_WAKEUP_INTERVAL_MICROS)) {
            problems.add("minWakeupIntervalMicros must be in [0, " + MAX_MIN_WAKEUP_INTERVAL_MICROS + "] (null: "
                    + DEFAULT_MIN_WAKEUP_INTERVAL_MICROS + "), was " + minWakeupIntervalMicros);
        }
        if (connectionOrder != null && !connectionOrder.equals(ROUND_ROBIN) && !connectionOrder.equals(LAST_USED_FIRST)) {
            problems.add("connectionOrder must be roundRobin or lastUsedFirst (null: lastUsedFirst), was '" + connectionOrder + "'");
        } else if (connectionOrder != null && httpVersion != null && !httpVersion.equals(HTTP_1_1)) {
            problems.add("connectionOrder applies to http/1.1 only, was set with httpVersion " + httpVersion);
        }
        if (maxConcurrentStreams != null && (maxConcurrentStreams < 1 || maxConcurrentStreams > MAX_CONCURRENT_STREAMS)) {
            problems.add("maxConcurrentStreams must be in [1, " + MAX_CONCURRENT_STREAMS + "] (null: 1), was " + maxConcurrentStreams);
        } else if (maxConcurrentStreams != null && !H2C.equals(httpVersion) && !H2.equals(httpVersion)) {
            problems.add("maxConcurrentStreams applies to h2c and h2 only, was set with httpVersion " + httpVersion);
        }
        if (httpVersion != null && !httpVersion.equals(HTTP_1_1) && !httpVersion.equals(H2C) && !httpVersion.equals(H2)) {
            problems.add("httpVersion must be http/1.1, h2c or h2, was '" + httpVersion + "'");
        } else if (H2.equals(httpVersion) && !https()) {
            problems.add("httpVersion h2 needs an https targetUrl (HTTP/2 chosen by ALPN inside TLS); h2c is HTTP/2 in cleartext");
        } else if (H2C.equals(httpVersion) && https()) {
            problems.add("httpVersion h2c is cleartext HTTP/2: over https use h2");
        }
        if (warmupMs < 0) {
            problems.add("warmupMs must be >= 0, was " + warmupMs);
        }
        if (rampUpMs < 0) {
            problems.add("rampUpMs must be >= 0 (0: no ramp), was " + rampUpMs);
        } else if (rampUpMs > Math.max(0, warmupMs)) {
            problems.add("rampUpMs must be at most warmupMs (the ramp is part of the warm-up; the measured window runs at the "
                    + "full rate), was " + rampUpMs + " with warmupMs " + warmupMs);
        }
        if (durationMs <= 0) {
            problems.add("durationMs must be > 0, was " + durationMs);
        }
        if (startAtEpochMs < 0) {
            problems.add("startAtEpochMs must be epoch milliseconds, or 0 to arm without a start, was " + startAtEpochMs);
        }
        if (request != null && request.path() != null && !request.path().startsWith("/")) {
            problems.add("request.path must start with '/', was '" + request.path() + "'");
        }
        return problems;
    }

    @JsonIgnore
    public long effectiveRequestTimeoutMs() {
        return requestTimeoutMs > 0 ? requestTimeoutMs : DEFAULT_REQUEST_TIMEOUT_MS;
    }

    @JsonIgnore
    public String method() {
        return request == null || request.method() == null ? "GET" : request.method();
    }

    @JsonIgnore
    public String path() {
        return request == null || request.path() == null ? "/" : request.path();
    }

    /** The end of the measured window. */
    @JsonIgnore
    public long windowEndEpochMs() {
        return startAtEpochMs + warmupMs + durationMs;
    }
}
