package dev.pacer.agent;

import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.pacer.contract.AgentContract;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The agent as a server under test embeds it: one sampler for the processing time, the admin endpoint and the
 * metrics. Configured from the environment so that every image reads the same variables:
 * <ul>
 *   <li>{@value AdminServer#PORT_ENV}: admin port (default 9090, 0 for any free port);</li>
 *   <li>{@value #SAMPLE_PERIOD_ENV}: sample period in milliseconds (default 1000);</li>
 *   <li>{@value #READY_FILE_ENV}: where to write {@code {"adminPort":…,"appPort":…}} once ready, for local
 *       orchestrators that start processes on free ports.</li>
 * </ul>
 */
public final class Agent implements Closeable {
    public static final String SAMPLE_PERIOD_ENV = AgentContract.SAMPLE_PERIOD_ENV;
    public static final String READY_FILE_ENV = "PACER_READY_FILE";
    /** {@code off} leaves the request path without recording: only for measuring the recording's own overhead. */
    public static final String RECORDING_ENV = "PACER_RECORDING";
    public static final String ROLE_SERVER = AgentContract.ROLE_SERVER;
    public static final String ROLE_CLIENT = AgentContract.ROLE_CLIENT;

    private final String role;
    private final PeriodSampler sampler;
    private final PrometheusRegistry registry;
    private final AdminServer admin;
    private final Map<String, Object> infoExtra = new LinkedHashMap<>();
    /** TLS handshakes, when the server serves https; else null. */
    private final PeriodSampler handshakes;

    private Agent(String role, PeriodSampler sampler, PeriodSampler handshakes, PrometheusRegistry registry,
                  AdminServer.Builder adminBuilder, int adminPort) throws IOException {
        this.role = role;
        this.sampler = sampler;
        this.handshakes = handshakes;
        this.registry = registry;
        List<String> series = handshakes == null ? List.of(sampler.name()) : List.of(sampler.name(), handshakes.name());
        adminBuilder.port(adminPort).registry(registry).sampler(sampler);
        if (handshakes != null) {
            adminBuilder.sampler(handshakes);
        }
        this.admin = adminBuilder.info(() -> ProcessInfo.describe(role, sampler.period().toMillis(), series, infoSnapshot())).start();
    }

    /** A server agent: processing-time sampler named {@code processing}, its metrics and the JVM's. */
    public static Agent startServerAgent(int adminPort) throws IOException {
        return startServerAgent(adminPort, false);
    }

    /**
     * @param https whether the server serves https: then a second series, {@value AgentContract#SERIES_HANDSHAKE}, times
     *              each TLS handshake the server completes ({@link #recordHandshakeNanos})
     */
    public static Agent startServerAgent(int adminPort, boolean https) throws IOException {
        PrometheusRegistry registry = new PrometheusRegistry();
        PeriodSampler sampler = PeriodSampler.builder(AgentContract.SERIES_PROCESSING).period(samplePeriodFromEnvironment()).start();
        AgentMetrics.register(registry, ROLE_SERVER, sampler, true);
        JvmSeries.register(registry);
        ResourceSampler resources = new ResourceSampler(sampler.period().toMillis(), false);
        sampler.addPeriodListener(period -> resources.periodClosed(period.startEpochMillis(), period.endEpochMillis()));
        AdminServer.Builder admin = AdminServer.builder()
                .route(AgentContract.RESOURCES, exchange -> AdminServer.respondJson(exchange, 200, resources.snapshot()));
        PeriodSampler handshakes = https
                ? PeriodSampler.builder(AgentContract.SERIES_HANDSHAKE).period(sampler.period()).start()
                : null;
        if (handshakes != null) {
            AgentMetrics.registerHandshakes(registry, ROLE_SERVER, handshakes);
        }
        return new Agent(ROLE_SERVER, sampler, handshakes, registry, admin, adminPort);
    }

    /** Server agent on the port of {@value AdminServer#PORT_ENV}. */
    public static Agent startServerAgent() throws IOException {
        return startServerAgent(AdminServer.portFromEnvironment());
    }

    /** Server agent on the port of {@value AdminServer#PORT_ENV}, with the handshake series when the server serves https. */
    public static Agent startServerAgent(ServerArgs options) throws IOException {
        return startServerAgent(AdminServer.portFromEnvironment(), options.tls() != null);
    }

    /** A TLS handshake the server completed: from its connection's open to the handshake's end. */
    public void recordHandshakeNanos(long nanos) {
        if (handshakes != null) {
            handshakes.recordNanos(nanos);
        }
    }

    public static Duration samplePeriodFromEnvironment() {
        String value = System.getenv(SAMPLE_PERIOD_ENV);
        if (value == null || value.isBlank()) {
            return Duration.ofSeconds(1);
        }
        try {
            return Duration.ofMillis(Long.parseLong(value.trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(SAMPLE_PERIOD_ENV + " must be milliseconds, was '" + value + "'");
        }
    }

    /** False when {@value #RECORDING_ENV} is {@code off}: servers then install no recording on the request path. */
    public static boolean recordingEnabled() {
        return !"off".equalsIgnoreCase(System.getenv(RECORDING_ENV));
    }

    /** Hot path: records one request's processing time. */
    public void recordNanos(long nanos) {
        sampler.recordNanos(nanos);
    }

    public PeriodSampler sampler() {
        return sampler;
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    public int adminPort() {
        return admin.getPort();
    }

    public String role() {
        return role;
    }

    /** Names the server under test in {@code /pacer/v1/info}: {@code server}, {@code variant} (its mode) and {@code serverVersion}. */
    public Agent describeServer(String server, String variant, String serverVersion) {
        putInfo("server", server);
        putInfo("variant", variant);
        putInfo("serverVersion", serverVersion);
        return this;
    }

    /** When the JVM exits: stops the server (a failure is ignored, the JVM exits anyway), then this agent. */
    public void closeOnExit(Launch.Body stopServer) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                stopServer.run();
            } catch (Exception ignored) {
                // exiting anyway
            }
            close();
        }, "pacer-shutdown"));
    }

    /** Adds a field to {@code /pacer/v1/info} (server name, mode, port…). */
    public synchronized void putInfo(String key, Object value) {
        infoExtra.put(key, value);
    }

    private synchronized Map<String, Object> infoSnapshot() {
        Map<String, Object> copy = new LinkedHashMap<>(infoExtra);
        copy.put("clampedValues", sampler.clampedValues());
        copy.put("droppedPeriods", sampler.droppedPeriods());
        return copy;
    }

    /** Health turns 200 and, if {@value #READY_FILE_ENV} is set, the ports are written there. */
    public void markReady(int appPort) throws IOException {
        putInfo("appPort", appPort);
        writeReadyFile(adminPort(), appPort);
        admin.markReady();
    }

    public static void writeReadyFile(int adminPort, int appPort) throws IOException {
        String path = System.getenv(READY_FILE_ENV);
        if (path == null || path.isBlank()) {
            return;
        }
        Path target = Path.of(path);
        Path temp = target.resolveSibling(target.getFileName() + ".tmp");
        Files.writeString(temp, "{\"adminPort\":" + adminPort + ",\"appPort\":" + appPort + "}\n", StandardCharsets.UTF_8);
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public void close() {
        admin.close();
        sampler.close();
        if (handshakes != null) {
            handshakes.close();
        }
    }
}
