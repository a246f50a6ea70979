package dev.pacer.api;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

import dev.pacer.contract.RunRequest;

/**
 * The rules a spec must satisfy, shared by the CLI and the operator. Each problem names its field and the fix.
 * The local orchestrator adds its own (known server names, CPUs of this machine) on top.
 */
public final class BenchmarkRunValidation {
    public static final Set<String> HTTP_VERSIONS = Set.of("http/1.1", "h2c", "h2");
    static final List<String> CONNECTION_ORDERS = List.of("roundRobin", "lastUsedFirst");
    public static final Set<String> SCHEMES = Set.of("http", "https");
    public static final Set<String> TLS_PROTOCOLS = Set.of("TLSv1.2", "TLSv1.3");
    public static final Set<String> CLEANUP_POLICIES = Set.of("Always", "OnSuccess", "Never");
    static final Duration MIN_SAMPLE_PERIOD = Duration.ofMillis(100);
    /** The admin port of every pod's agent (the contract's default). */
    static final int ADMIN_PORT = BenchmarkRunSpec.ADMIN_PORT;

    private BenchmarkRunValidation() {
    }

    private static void memory(List<FieldProblem> problems, String field, String value) {
        if (value != null && !value.strip().matches(BenchmarkRunSpec.MEMORY_PATTERN)) {
            problems.add(new FieldProblem(field, "must be memory as Kubernetes writes it, e.g. 1Gi, 512Mi or 1073741824, was '" + value + "'"));
        }
    }

    /** The schema's size bounds, for local runs (the API server checks them at admission). */
    private static void atMost(List<FieldProblem> problems, String field, int size, int max, String what) {
        if (size > max) {
            problems.add(new FieldProblem(field, "must hold at most " + max + " " + what + ", held " + size));
        }
    }

    private static int sizeOf(Collection<?> items) {
        return items == null ? 0 : items.size();
    }

    private static int sizeOf(Map<?, ?> items) {
        return items == null ? 0 : items.size();
    }

    private static void podSettings(List<FieldProblem> problems, String field, PodSettings pod) {
        if (pod == null) {
            return;
        }
        atMost(problems, field + ".imagePullSecrets", sizeOf(pod.imagePullSecrets), 16, "secrets");
        atMost(problems, field + ".annotations", sizeOf(pod.annotations), 64, "annotations");
        atMost(problems, field + ".env", sizeOf(pod.env), BenchmarkRunSpec.MAX_LIST_ITEMS, "variables");
        volumes(problems, field, pod);
        if (pod.env == null) {
            return;
        }
        for (int i = 0; i < pod.env.size(); i++) {
            Object name = pod.env.get(i).get("name");
            if (!(name instanceof String text) || text.isBlank()) {
                problems.add(new FieldProblem(field + ".env[" + i + "].name", "is required"));
            } else if (PodSettings.RESERVED_ENV_PREFIXES.stream().anyMatch(text::startsWith)) {
                problems.add(new FieldProblem(field + ".env[" + i + "].name", "'" + name
                        + "' is pacer's own (PACER_*, JAVA_TOOL_OPTIONS): JVM options go in jvmOptions"));
            }
        }
    }

    /** Volumes and their mounts: named once, mounted by name, never over pacer's /tmp, never from the host. */
    private static void volumes(List<FieldProblem> problems, String field, PodSettings pod) {
        atMost(problems, field + ".volumes", sizeOf(pod.volumes), 16, "volumes");
        atMost(problems, field + ".volumeMounts", sizeOf(pod.volumeMounts), 16, "mounts");
        Set<String> names = new TreeSet<>();
        for (int i = 0; pod.volumes != null && i < pod.volumes.size(); i++) {
            String at = field + ".volumes[" + i + "]";
            Object name = pod.volumes.get(i).get("name");
            if (!(name instanceof String text) || text.isBlank()) {
                problems.add(new FieldProblem(at + ".name", "is required"));
                continue;
            }
            if (PodSettings.RESERVED_VOLUME.equals(text)) {
                problems.add(new FieldProblem(at + ".name", "'tmp' is pacer's own volume (an emptyDir on /tmp): name yours otherwise"));
            } else if (!names.add(text)) {
                problems.add(new FieldProblem(at + ".name", "'" + text + "' names two volumes: names must differ"));
            }
            for (String refused : PodSettings.REFUSED_VOLUME_SOURCES) {
                if (pod.volumes.get(i).containsKey(refused)) {
                    problems.add(new FieldProblem(at + "." + refused, "is refused: pacer's pods keep the restricted Pod Security Standard, "
                            + "which forbids host paths; use a configMap, secret or emptyDir"));
                }
            }
        }
        for (int i = 0; pod.volumeMounts != null && i < pod.volumeMounts.size(); i++) {
            String at = field + ".volumeMounts[" + i + "]";
            Object name = pod.volumeMounts.get(i).get("name");
            Object path = pod.volumeMounts.get(i).get("mountPath");
            if (!(name instanceof String text) || text.isBlank()) {
                problems.add(new FieldProblem(at + ".name", "is required: the name of one of " + field + ".volumes"));
            } else if (!names.contains(text)) {
                problems.add(new FieldProblem(at + ".name", "'" + text + "' is none of " + field + ".volumes: add the volume, or mount one of "
                        + names));
            }
            if (!(path instanceof String text) || !text.startsWith("/")) {
                problems.add(new FieldProblem(at + ".mountPath", "is required, an absolute path, e.g. /etc/nginx/conf.d"));
            } else if (text.replaceAll("/+$", "").equals(PodSettings.RESERVED_MOUNT_PATH)) {
                problems.add(new FieldProblem(at + ".mountPath", "/tmp is pacer's (an emptyDir of every pod): mount elsewhere"));
            }
        }
    }

    /**
     * A spec's values as parsed while checking it, defaults applied; {@code null} where the spec got one wrong. The
     * planner builds the plan from these: each value is parsed once, here.
     *
     * @param measure              who measures the server
     * @param httpVersion          the clients' HTTP version
     * @param connectionOrder      HTTP/1.1's choice of idle connection; {@code null} over HTTP/2, where pacer does not choose
     * @param maxConcurrentStreams HTTP/2's streams per connection; {@code null} over HTTP/1.1, a request per connection at a time
     * @param minWakeupIntervalMicros the clients' wake-up interval: the spec's, or by default one that fits {@code maxSendLagP99}
     */
    public record Parsed(Long serverCpuMillis, Measure measure, Long clientCpuMillis, Long ratePerClient, String httpVersion,
                         String connectionOrder, Integer maxConcurrentStreams, Integer minWakeupIntervalMicros, Duration requestTimeout, Duration warmup,
                         Duration duration, Duration samplePeriod, Duration timeout, Duration rampUp, Double rateTolerance,
                         Duration maxP99, Duration maxSendLagP99, Duration maxClientStall, ExpectedP99Integral expectP99Integral) {
    }

    /** {@code spec.criteria.expectP99Integral}, parsed: jetty-perf's baseline check. */
    public record ExpectedP99Integral(Duration value, double margin, int toleratedOutliers) {
    }

    /** Every problem of a spec, each naming its field, and its values: one pass. */
    public record Checked(List<FieldProblem> problems, Parsed parsed) {
    }

    public static List<FieldProblem> validate(BenchmarkRunSpec spec) {
        return check(spec).problems();
    }

    /** Each section of the spec checked on its own, in the spec's order; a section that reads another's value takes it parsed. */
    public static Checked check(BenchmarkRunSpec spec) {
        List<FieldProblem> problems = new ArrayList<>();
        if (spec == null) {
            problems.add(new FieldProblem("spec", "is required"));
            return new Checked(problems, null);
        }
        ServerParsed server = server(problems, spec);
        ClientsParsed clients = clients(problems, spec, server.measure());
        request(problems, spec, server.measure());
        tls(problems, spec, server.measure());
        TimesParsed times = times(problems, spec);
        CriteriaParsed criteria = criteria(problems, spec, server.measure());
        placement(problems, spec);
        cleanup(problems, spec);
        return new Checked(problems, new Parsed(server.cpuMillis(), server.measure(), clients.cpuMillis(), clients.ratePerClient(),
                clients.httpVersion(), clients.connectionOrder(), clients.maxConcurrentStreams(),
                minWakeupIntervalMicros(spec, criteria.maxSendLagP99()), times.requestTimeout(), times.warmup(),
                times.duration(), times.samplePeriod(), times.timeout(), times.rampUp(), criteria.rateTolerance(), criteria.maxP99(),
                criteria.maxSendLagP99(), criteria.maxClientStall(), criteria.expectP99Integral()));
    }

    /** The spec's interval, or the default that fits the send lag allowed; {@code null} when that limit is wrong. */
    private static Integer minWakeupIntervalMicros(BenchmarkRunSpec spec, Duration maxSendLagP99) {
        if (spec.clients != null && spec.clients.minWakeupIntervalMicros != null) {
            return spec.clients.minWakeupIntervalMicros;
        }
        return maxSendLagP99 == null ? null : SpecDefaults.minWakeupIntervalMicros(maxSendLagP99);
    }

    private record ServerParsed(Long cpuMillis, Measure measure) {
    }

    private static ServerParsed server(List<FieldProblem> problems, BenchmarkRunSpec spec) {
        BenchmarkRunSpec.Server server = spec.server;
        if (server == null) {
            problems.add(new FieldProblem("spec.server", "is required: at least spec.server.image"));
            return new ServerParsed(null, null);
        }
        if (server.image == null || server.image.isBlank()) {
            problems.add(new FieldProblem("spec.server.image", "is required, e.g. pacer/server-jetty12:0.1.0"));
        }
        if (server.port != null && (server.port < 1 || server.port > 65535)) {
            problems.add(new FieldProblem("spec.server.port", "must be a port in [1, 65535], was " + server.port));
        } else if (server.port != null && server.port == ADMIN_PORT) {
            problems.add(new FieldProblem("spec.server.port", BenchmarkRunSpec.ADMIN_PORT_MESSAGE));
        }
        memory(problems, "spec.server.memory", server.memory);
        podSettings(problems, "spec.server.pod", server.pod);
        atMost(problems, "spec.server.args", sizeOf(server.args), BenchmarkRunSpec.MAX_LIST_ITEMS, "arguments");
        atMost(problems, "spec.server.jvmOptions", sizeOf(server.jvmOptions), BenchmarkRunSpec.MAX_LIST_ITEMS, "options");
        atMost(problems, "spec.server.command", sizeOf(server.command), BenchmarkRunSpec.MAX_LIST_ITEMS, "words");
        atMost(problems, "spec.server.labels", sizeOf(server.labels), BenchmarkRunSpec.MAX_LABELS, "labels");
        Measure measure = Measure.parse(server.measure).orElse(null);
        if (measure == null) {
            problems.add(new FieldProblem("spec.server.measure", "must be agent, probe, both or none, was '" + server.measure + "'"));
        }
        if (server.readinessPath != null && !server.readinessPath.startsWith("/")) {
            problems.add(new FieldProblem("spec.server.readinessPath", "must be a path starting with /, e.g. /health, was '" + server.readinessPath + "'"));
        }
        if (server.command != null && (server.command.isEmpty() || server.command.getFirst() == null || server.command.getFirst().isBlank())) {
            problems.add(new FieldProblem("spec.server.command", "must name a program first, e.g. [nginx, -c, nginx.conf]; leave it unset for the image's entrypoint"));
        }
        Long cpuMillis = parse(problems, "spec.server.cpus", orDefault(server.cpus, SpecDefaults.CPUS), Quantities::parseCpuMillis);
        if (cpuMillis != null && pinsServer(spec) && (cpuMillis % 1000 != 0 || cpuMillis == 0)) {
            problems.add(new FieldProblem("spec.server.cpus", "must be a whole number of CPUs, at least 1, when the server is pinned (spec.placement.pinCpus or spec.placement.server.pinCpus), was '" + server.cpus + "'"));
        }
        return new ServerParsed(cpuMillis, measure);
    }

    private record ClientsParsed(Long cpuMillis, Long ratePerClient, String httpVersion, String connectionOrder, Integer maxConcurrentStreams) {
    }

    private static ClientsParsed clients(List<FieldProblem> problems, BenchmarkRunSpec spec, Measure measure) {
        BenchmarkRunSpec.Clients clients = spec.clients;
        if (clients == null) {
            problems.add(new FieldProblem("spec.clients", "is required: at least spec.clients.count and spec.clients.rate"));
            return new ClientsParsed(null, null, null, null, null);
        }
        if (clients.count == null) {
            problems.add(new FieldProblem("spec.clients.count", "is required: the number of clients, >= 1"));
        } else if (clients.count < 1 || clients.count > BenchmarkRunSpec.MAX_CLIENTS) {
            problems.add(new FieldProblem("spec.clients.count", "must be in [1, " + BenchmarkRunSpec.MAX_CLIENTS + "], was " + clients.count));
        }
        memory(problems, "spec.clients.memory", clients.memory);
        podSettings(problems, "spec.clients.pod", clients.pod);
        atMost(problems, "spec.clients.jvmOptions", sizeOf(clients.jvmOptions), BenchmarkRunSpec.MAX_LIST_ITEMS, "options");
        Long rate = parse(problems, "spec.clients.rate", clients.rate, Quantities::parseRatePerSecond);
        if (clients.connections != null && (clients.connections < 1 || clients.connections > BenchmarkRunSpec.MAX_CONNECTIONS)) {
            problems.add(new FieldProblem("spec.clients.connections", "must be in [1, " + BenchmarkRunSpec.MAX_CONNECTIONS + "], was " + clients.connections));
        }
        if (clients.senderThreads != null && (clients.senderThreads < 0 || clients.senderThreads > BenchmarkRunSpec.MAX_SENDER_THREADS)) {
            problems.add(new FieldProblem("spec.clients.senderThreads", "must be in [0, " + BenchmarkRunSpec.MAX_SENDER_THREADS + "] (0 chooses), was " + clients.senderThreads));
        }
        if (clients.minWakeupIntervalMicros != null && (clients.minWakeupIntervalMicros < 0
                || clients.minWakeupIntervalMicros > BenchmarkRunSpec.MAX_MIN_WAKEUP_INTERVAL_MICROS)) {
            problems.add(new FieldProblem("spec.clients.minWakeupIntervalMicros", "must be in [0, " + BenchmarkRunSpec.MAX_MIN_WAKEUP_INTERVAL_MICROS
                    + "] µs (unset: 1000, as wrk2's timers send), was " + clients.minWakeupIntervalMicros));
        }
        String version = orDefault(clients.httpVersion, SpecDefaults.HTTP_VERSION);
        boolean http1 = SpecDefaults.HTTP_VERSION.equals(version);
        if (clients.connectionOrder != null && !CONNECTION_ORDERS.contains(clients.connectionOrder)) {
            problems.add(new FieldProblem("spec.clients.connectionOrder", "must be one of " + CONNECTION_ORDERS + ", was '"
                    + clients.connectionOrder + "'"));
        } else if (clients.connectionOrder != null && !http1) {
            problems.add(new FieldProblem("spec.clients.connectionOrder", BenchmarkRunSpec.CONNECTION_ORDER_HTTP1_MESSAGE));
        }
        if (clients.maxConcurrentStreams != null && (clients.maxConcurrentStreams < 1
                || clients.maxConcurrentStreams > BenchmarkRunSpec.MAX_CONCURRENT_STREAMS)) {
            problems.add(new FieldProblem("spec.clients.maxConcurrentStreams", "must be in [1, " + BenchmarkRunSpec.MAX_CONCURRENT_STREAMS
                    + "] (unset: 1), was " + clients.maxConcurrentStreams));
        } else if (clients.maxConcurrentStreams != null && http1) {
            problems.add(new FieldProblem("spec.clients.maxConcurrentStreams", BenchmarkRunSpec.STREAMS_HTTP2_MESSAGE));
        }
        if (!HTTP_VERSIONS.contains(version)) {
            problems.add(new FieldProblem("spec.clients.httpVersion", "must be one of " + HTTP_VERSIONS + ", was '" + clients.httpVersion + "'"));
            version = null;
        } else if ("h2c".equals(version) && measure != null && measure.probe()) {
            problems.add(new FieldProblem("spec.clients.httpVersion", BenchmarkRunSpec.PROBE_H2C_MESSAGE + " (spec.server.measure is "
                    + spec.server.measure + ")"));
        }
        Long cpuMillis = parse(problems, "spec.clients.cpus", orDefault(clients.cpus, SpecDefaults.CPUS), Quantities::parseCpuMillis);
        if (cpuMillis != null && pinsClients(spec) && (cpuMillis % 1000 != 0 || cpuMillis == 0)) {
            problems.add(new FieldProblem("spec.clients.cpus", "must be a whole number of CPUs, at least 1, when the clients are pinned (spec.placement.pinCpus or spec.placement.clients.pinCpus), was '" + clients.cpus + "'"));
        }
        return new ClientsParsed(cpuMillis, rate, version,
                http1 ? orDefault(clients.connectionOrder, SpecDefaults.CONNECTION_ORDER) : null,
                http1 ? null : Objects.requireNonNullElse(clients.maxConcurrentStreams, SpecDefaults.MAX_CONCURRENT_STREAMS));
    }

    private static void request(List<FieldProblem> problems, BenchmarkRunSpec spec, Measure measure) {
        BenchmarkRunSpec.HttpRequest request = spec.request;
        if (request == null) {
            return;
        }
        atMost(problems, "spec.request.headers", sizeOf(request.headers), BenchmarkRunSpec.MAX_HEADERS, "headers");
        atMost(problems, "spec.request.body", request.body == null ? 0 : request.body.length(), BenchmarkRunSpec.MAX_BODY_CHARS, "characters");
        if (measure != null && measure.probe() && request.headers != null && request.headers.keySet().stream().anyMatch("expect"::equalsIgnoreCase)) {
            problems.add(new FieldProblem("spec.request.headers", BenchmarkRunSpec.PROBE_EXPECT_MESSAGE + " (spec.server.measure is "
                    + spec.server.measure + ")"));
        }
        if (request.path != null && !request.path.startsWith("/")) {
            problems.add(new FieldProblem("spec.request.path", "must start with '/', was '" + request.path + "'"));
        }
        if (request.method != null && !request.method.matches("[A-Z]+")) {
            problems.add(new FieldProblem("spec.request.method", "must be an HTTP method in capitals such as GET or POST, was '" + request.method + "'"));
        }
    }

    private record TimesParsed(Duration requestTimeout, Duration warmup, Duration duration, Duration samplePeriod, Duration timeout,
                               Duration rampUp) {
    }

    /** The run's durations and how they fit together: the window in whole sample periods, the ramp inside the warm-up, the timeout after both. */
    private static TimesParsed times(List<FieldProblem> problems, BenchmarkRunSpec spec) {
        Duration requestTimeout = parse(problems, "spec.request.timeout", orDefault(spec.request == null ? null : spec.request.timeout,
                SpecDefaults.REQUEST_TIMEOUT), Quantities::parseDuration);
        Duration warmup = parse(problems, "spec.warmup", orDefault(spec.warmup, SpecDefaults.WARMUP), Quantities::parseDuration);
        Duration duration = parse(problems, "spec.duration", spec.duration, Quantities::parseDuration);
        Duration samplePeriod = parse(problems, "spec.samplePeriod", orDefault(spec.samplePeriod, SpecDefaults.SAMPLE_PERIOD),
                Quantities::parseDuration);
        Duration timeout = parse(problems, "spec.timeout", orDefault(spec.timeout, SpecDefaults.TIMEOUT), Quantities::parseDuration);
        if (samplePeriod != null && samplePeriod.compareTo(MIN_SAMPLE_PERIOD) < 0) {
            problems.add(new FieldProblem("spec.samplePeriod", "must be at least 100ms, was '" + spec.samplePeriod + "'"));
        }
        if (duration != null && samplePeriod != null && !samplePeriod.isZero()) {
            if (duration.toMillis() % samplePeriod.toMillis() != 0 || duration.compareTo(samplePeriod.multipliedBy(2)) < 0) {
                problems.add(new FieldProblem("spec.duration", "must be a multiple of spec.samplePeriod (" + spec.samplePeriod
                        + ") and at least two periods, was '" + spec.duration + "'"));
            }
        }
        if (warmup != null && samplePeriod != null && !samplePeriod.isZero() && warmup.toMillis() % samplePeriod.toMillis() != 0) {
            problems.add(new FieldProblem("spec.warmup", "must be a multiple of spec.samplePeriod (" + spec.samplePeriod + "), was '" + spec.warmup + "'"));
        }
        Duration rampUp = Duration.ZERO;
        if (spec.rampUp != null) {
            rampUp = parse(problems, "spec.rampUp", spec.rampUp, Quantities::parseDuration);
            if (rampUp != null && warmup != null && rampUp.compareTo(warmup) > 0) {
                problems.add(new FieldProblem("spec.rampUp", "must be at most spec.warmup (" + spec.warmup + "): the ramp is part of the "
                        + "warm-up, and the measured window runs at the full rate; was '" + spec.rampUp + "'"));
            }
        }
        if (warmup != null && duration != null && timeout != null && warmup.plus(duration).compareTo(timeout) >= 0) {
            problems.add(new FieldProblem("spec.timeout", "must be longer than spec.warmup + spec.duration (" + spec.warmup + " + " + spec.duration
                    + "), was '" + spec.timeout + "'"));
        }
        return new TimesParsed(requestTimeout, warmup, duration, samplePeriod, timeout, rampUp);
    }

    private record CriteriaParsed(Double rateTolerance, Duration maxP99, Duration maxSendLagP99, Duration maxClientStall,
                                  ExpectedP99Integral expectP99Integral) {
    }

    private static CriteriaParsed criteria(List<FieldProblem> problems, BenchmarkRunSpec spec, Measure measure) {
        BenchmarkRunSpec.Criteria criteria = spec.criteria == null ? new BenchmarkRunSpec.Criteria() : spec.criteria;
        Double rateTolerance = parse(problems, "spec.criteria.rateTolerance", orDefault(criteria.rateTolerance, SpecDefaults.RATE_TOLERANCE),
                Quantities::parseRatio);
        Duration maxSendLagP99 = parse(problems, "spec.criteria.maxSendLagP99", orDefault(criteria.maxSendLagP99, SpecDefaults.MAX_SEND_LAG_P99),
                Quantities::parseDuration);
        Integer wakeupMicros = spec.clients == null ? null : spec.clients.minWakeupIntervalMicros;
        if (maxSendLagP99 != null && wakeupMicros != null && wakeupMicros <= BenchmarkRunSpec.MAX_MIN_WAKEUP_INTERVAL_MICROS
                && 2L * wakeupMicros > maxSendLagP99.toMillis() * 1_000) {   // whole milliseconds, as the CRD's rule can
            problems.add(new FieldProblem("spec.clients.minWakeupIntervalMicros", BenchmarkRunSpec.WAKEUP_INTERVAL_SEND_LAG_MESSAGE
                    + " (at most " + maxSendLagP99.toMillis() * 500 + " for maxSendLagP99 " + orDefault(criteria.maxSendLagP99,
                    SpecDefaults.MAX_SEND_LAG_P99) + "); was " + wakeupMicros));
        }
        Duration maxP99 = criteria.maxP99 == null ? null : parse(problems, "spec.criteria.maxP99", criteria.maxP99, Quantities::parseDuration);
        Duration maxClientStall = criteria.maxClientStall == null ? null
                : parse(problems, "spec.criteria.maxClientStall", criteria.maxClientStall, Quantities::parseDuration);
        // the limit is in whole ms, as the CRD's rule can
        if (maxClientStall != null && wakeupMicros != null && wakeupMicros > 1_000
                && wakeupMicros <= BenchmarkRunSpec.MAX_MIN_WAKEUP_INTERVAL_MICROS
                && 2 * RunRequest.stallWatchMillis(wakeupMicros) > maxClientStall.toMillis()) {
            problems.add(new FieldProblem("spec.criteria.maxClientStall", BenchmarkRunSpec.WAKEUP_INTERVAL_CLIENT_STALL_MESSAGE
                    + " (at least " + 2 * RunRequest.stallWatchMillis(wakeupMicros) + "ms for minWakeupIntervalMicros " + wakeupMicros
                    + "); was " + criteria.maxClientStall));
        }
        ExpectedP99Integral expected = expectedP99Integral(problems, criteria.expectP99Integral);
        if (criteria.expectP99Integral != null && measure != null && !measure.measured()) {
            problems.add(new FieldProblem("spec.criteria.expectP99Integral", BenchmarkRunSpec.EXPECTED_INTEGRAL_UNMEASURED_MESSAGE));
        }
        if (criteria.maxErrorRatio != null && !(criteria.maxErrorRatio >= 0 && criteria.maxErrorRatio <= 1)) {
            problems.add(new FieldProblem("spec.criteria.maxErrorRatio", "must lie in [0, 1], was " + criteria.maxErrorRatio));
        }
        return new CriteriaParsed(rateTolerance, maxP99, maxSendLagP99, maxClientStall, expected);
    }

    private static void placement(List<FieldProblem> problems, BenchmarkRunSpec spec) {
        if (spec.placement != null) {
            nodeSelector(problems, "spec.placement.server.nodeSelector", spec.placement.server);
            nodeSelector(problems, "spec.placement.clients.nodeSelector", spec.placement.clients);
        }
    }

    private static void cleanup(List<FieldProblem> problems, BenchmarkRunSpec spec) {
        if (spec.cleanup == null) {
            return;
        }
        if (spec.cleanup.pods != null && !CLEANUP_POLICIES.contains(spec.cleanup.pods)) {
            problems.add(new FieldProblem("spec.cleanup.pods", "must be one of " + CLEANUP_POLICIES + ", was '" + spec.cleanup.pods + "'"));
        }
        Long ttl = spec.cleanup.ttlSecondsAfterFinished;
        if (ttl != null && (ttl < 0 || ttl > BenchmarkRunSpec.MAX_TTL_SECONDS)) {
            problems.add(new FieldProblem("spec.cleanup.ttlSecondsAfterFinished", "must be in [0, " + BenchmarkRunSpec.MAX_TTL_SECONDS
                    + "] seconds (unset keeps the run), was " + ttl));
        }
    }

    private static ExpectedP99Integral expectedP99Integral(List<FieldProblem> problems, BenchmarkRunSpec.ExpectedIntegral expected) {
        if (expected == null) {
            return null;
        }
        String field = "spec.criteria.expectP99Integral";
        if (expected.value == null) {
            problems.add(new FieldProblem(field + ".value", "is required: the expected P99 integral as a duration, e.g. 180ms"));
            return null;
        }
        Duration value = parse(problems, field + ".value", expected.value, Quantities::parseDuration);
        if (value != null && value.isZero()) {
            problems.add(new FieldProblem(field + ".value", "must be more than 0, e.g. 180ms, was " + expected.value));
            value = null;
        }
        Double margin = parse(problems, field + ".margin", orDefault(expected.margin, SpecDefaults.EXPECTED_INTEGRAL_MARGIN), Quantities::parseRatio);
        int outliers = expected.toleratedOutliers == null ? SpecDefaults.EXPECTED_INTEGRAL_OUTLIERS : expected.toleratedOutliers;
        if (outliers < 0 || outliers > 1000) {
            problems.add(new FieldProblem(field + ".toleratedOutliers", "must be in [0, 1000], e.g. 2 (jetty-perf's), was " + outliers));
            return null;
        }
        return value == null || margin == null ? null : new ExpectedP99Integral(value, margin, outliers);
    }

    /** Whether the clients speak TLS to the server. */
    public static boolean https(RunTemplate spec) {
        return spec.request != null && "https".equals(spec.request.scheme);
    }

    /** The scheme, the HTTP version, the probe and spec.tls agree; the TLS settings are sound. */
    private static void tls(List<FieldProblem> problems, BenchmarkRunSpec spec, Measure measure) {
        String scheme = spec.request == null ? null : spec.request.scheme;
        if (scheme != null && !SCHEMES.contains(scheme)) {
            problems.add(new FieldProblem("spec.request.scheme", "must be http or https, was '" + scheme + "'"));
            return;
        }
        boolean https = https(spec);
        String version = spec.clients == null ? null : spec.clients.httpVersion;
        if ("h2".equals(version) && !https) {
            problems.add(new FieldProblem("spec.clients.httpVersion", BenchmarkRunSpec.H2_NEEDS_HTTPS_MESSAGE));
        } else if ("h2c".equals(version) && https) {
            problems.add(new FieldProblem("spec.clients.httpVersion", BenchmarkRunSpec.H2C_NOT_HTTPS_MESSAGE));
        }
        if (https && measure != null && measure.probe()) {
            problems.add(new FieldProblem("spec.request.scheme", BenchmarkRunSpec.PROBE_TLS_MESSAGE + " (spec.server.measure is "
                    + spec.server.measure + ")"));
        }
        if (spec.tls == null) {
            return;
        }
        if (!https) {
            problems.add(new FieldProblem("spec.tls", BenchmarkRunSpec.TLS_NEEDS_HTTPS_MESSAGE));
        }
        List<String> protocols = spec.tls.protocols;
        if (protocols != null) {
            if (protocols.isEmpty() || protocols.size() > 2) {
                problems.add(new FieldProblem("spec.tls.protocols", "must list TLSv1.3, TLSv1.2 or both, listed " + protocols.size()));
            }
            for (String protocol : protocols) {
                if (!TLS_PROTOCOLS.contains(protocol)) {
                    problems.add(new FieldProblem("spec.tls.protocols", "must list TLSv1.3 and/or TLSv1.2 (older versions are broken and "
                            + "refused by current JDKs), listed '" + protocol + "'"));
                }
            }
        }
        if (spec.tls.requestsPerConnection != null && (spec.tls.requestsPerConnection < 0 || spec.tls.requestsPerConnection > 1_000_000)) {
            problems.add(new FieldProblem("spec.tls.requestsPerConnection", "must be in [0, 1000000] (0: a connection is kept for the "
                    + "whole run), was " + spec.tls.requestsPerConnection));
        }
        RunTemplate.TlsCertificate certificate = spec.tls.certificate;
        if (certificate != null && (certificate.secretName == null) == (certificate.directory == null)) {
            problems.add(new FieldProblem("spec.tls.certificate", BenchmarkRunSpec.CERTIFICATE_SOURCE_MESSAGE + ", not "
                    + (certificate.secretName == null ? "neither" : "both")));
        }
    }

    private static String orDefault(String given, String byDefault) {
        return given == null ? byDefault : given;
    }

    private static void nodeSelector(List<FieldProblem> problems, String field, BenchmarkRunSpec.RolePlacement role) {
        if (role == null || role.nodeSelector == null) {
            return;
        }
        atMost(problems, field, role.nodeSelector.size(), BenchmarkRunSpec.MAX_NODE_SELECTOR_LABELS, "labels");
        role.nodeSelector.forEach((key, value) -> {
            if (key == null || !key.matches(BenchmarkRunSpec.LABEL_KEY_PATTERN)) {
                problems.add(new FieldProblem(field, "'" + key + "' is not a label key: write e.g. pacer.dev/pool or disktype"));
            } else if (value == null || !value.matches(BenchmarkRunSpec.LABEL_VALUE_PATTERN)) {
                problems.add(new FieldProblem(field, "the value of " + key + ", '" + value
                        + "', is not a label value: at most 63 letters, digits, '-', '_' or '.'"));
            }
        });
    }

    /** Whether the server gets exclusive CPUs: its own {@code pinCpus}, else {@code placement.pinCpus} (default true). */
    public static boolean pinsServer(BenchmarkRunSpec spec) {
        return pins(spec, spec.placement == null ? null : spec.placement.server);
    }

    /** Whether the clients get exclusive CPUs: their own {@code pinCpus}, else {@code placement.pinCpus} (default true). */
    public static boolean pinsClients(BenchmarkRunSpec spec) {
        return pins(spec, spec.placement == null ? null : spec.placement.clients);
    }

    private static boolean pins(BenchmarkRunSpec spec, BenchmarkRunSpec.RolePlacement role) {
        if (role != null && role.pinCpus != null) {
            return role.pinCpus;
        }
        return spec.placement == null || spec.placement.pinCpus == null ? SpecDefaults.PIN_CPUS : spec.placement.pinCpus;
    }

    private static <T> T parse(List<FieldProblem> problems, String field, String text, Function<String, T> parser) {
        try {
            return parser.apply(text);
        } catch (IllegalArgumentException e) {
            problems.add(new FieldProblem(field, e.getMessage()));
            return null;
        }
    }
}
