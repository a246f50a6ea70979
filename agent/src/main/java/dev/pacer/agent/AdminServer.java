package dev.pacer.agent;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.pacer.contract.AgentClock;
import dev.pacer.contract.AgentContract;
import dev.pacer.contract.AgentInfo;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The admin HTTP endpoint of every pacer image (docs/design.md, "The agent contract"; paths in {@link AgentContract}):
 * <ul>
 *   <li>{@code GET /healthz}: 200 once {@link #markReady()} was called, 503 before;</li>
 *   <li>{@code GET /metrics}: Prometheus text exposition of the registry;</li>
 *   <li>{@code GET /pacer/v1/info}: JSON from {@link AgentInfo};</li>
 *   <li>{@code GET /pacer/v1/histograms[?series=NAME]}: the HdrHistogram interval log of a sampler (the first one
 *       added when no series is named).</li>
 * </ul>
 * Further routes (the load generator's {@code /pacer/v1/run}) are added with {@link Builder#route}. The server runs
 * on two platform threads of its own so that it never competes with the measured work for more.
 */
public final class AdminServer implements Closeable {
    public static final int DEFAULT_PORT = AgentContract.DEFAULT_ADMIN_PORT;
    public static final String PORT_ENV = AgentContract.ADMIN_PORT_ENV;
    public static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final HttpServer server;
    private final ExecutorService executor;
    private volatile boolean ready;

    private AdminServer(Builder builder) throws IOException {
        server = HttpServer.create(new InetSocketAddress(builder.bindAddress, builder.port), 64);
        executor = Executors.newFixedThreadPool(2, Thread.ofPlatform().daemon().name("pacer-admin-", 0).factory());
        server.setExecutor(executor);
        server.createContext(AgentContract.HEALTHZ, exchange -> {
            if (ready) {
                respond(exchange, 200, "text/plain", "ok\n".getBytes(StandardCharsets.UTF_8));
            } else {
                respond(exchange, 503, "text/plain", "starting\n".getBytes(StandardCharsets.UTF_8));
            }
        });
        PrometheusRegistry registry = builder.registry;
        PrometheusTextFormatWriter metricsWriter = PrometheusTextFormatWriter.create();
        server.createContext(AgentContract.METRICS, exchange -> {
            ByteArrayOutputStream body = new ByteArrayOutputStream(8192);
            metricsWriter.write(body, registry.scrape(), EscapingScheme.ALLOW_UTF8);
            respond(exchange, 200, metricsWriter.getContentType(), body.toByteArray());
        });
        Supplier<AgentInfo> info = builder.info;
        server.createContext(AgentContract.INFO, exchange -> respondJson(exchange, 200, info.get()));
        server.createContext(AgentContract.CLOCK, exchange -> respondJson(exchange, 200, AgentClock.now()));
        Map<String, PeriodSampler> samplers = new LinkedHashMap<>(builder.samplers);
        server.createContext(AgentContract.HISTOGRAMS, exchange -> {
            String series = queryParameter(exchange, "series");
            PeriodSampler sampler = series == null ? samplers.values().stream().findFirst().orElse(null) : samplers.get(series);
            if (sampler == null) {
                respondJson(exchange, 404, Map.of("error", "no histogram series '" + series + "'; series: " + samplers.keySet()));
                return;
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream(64 * 1024);
            sampler.writeLog(body);
            respond(exchange, 200, "text/plain; charset=us-ascii", body.toByteArray());
        });
        builder.routes.forEach((path, handler) -> server.createContext(path, guarded(handler)));
        server.start();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The port from {@value #PORT_ENV}, or {@value #DEFAULT_PORT}. */
    public static int portFromEnvironment() {
        String value = System.getenv(PORT_ENV);
        if (value == null || value.isBlank()) {
            return DEFAULT_PORT;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(PORT_ENV + " must be a port number (0 for any free port), was '" + value + "'");
        }
    }

    public int getPort() {
        return server.getAddress().getPort();
    }

    public void markReady() {
        ready = true;
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    public static String queryParameter(HttpExchange exchange, String name) {
        String query = exchange.getRequestURI().getRawQuery();
        if (query == null) {
            return null;
        }
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair : pair.substring(0, eq);
            if (key.equals(name)) {
                return eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    public static void respondJson(HttpExchange exchange, int status, Object body) throws IOException {
        respond(exchange, status, "application/json", JSON.writeValueAsBytes(body));
    }

    public static void respond(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        try (exchange) {
            exchange.getResponseHeaders().set("Content-Type", contentType);
            exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
            if (body.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        }
    }

    private static HttpHandler guarded(HttpHandler handler) {
        return exchange -> {
            try {
                handler.handle(exchange);
            } catch (IllegalArgumentException e) {
                respondJson(exchange, 400, Map.of("error", String.valueOf(e.getMessage())));
            } catch (RuntimeException e) {
                respondJson(exchange, 500, Map.of("error", e.getClass().getSimpleName() + ": " + e.getMessage()));
            }
        };
    }

    public static final class Builder {
        private String bindAddress = "0.0.0.0";
        private int port = DEFAULT_PORT;
        private PrometheusRegistry registry = new PrometheusRegistry();
        private Supplier<AgentInfo> info;
        private final Map<String, PeriodSampler> samplers = new LinkedHashMap<>();
        private final Map<String, HttpHandler> routes = new LinkedHashMap<>();

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder bindAddress(String bindAddress) {
            this.bindAddress = Objects.requireNonNull(bindAddress);
            return this;
        }

        public Builder registry(PrometheusRegistry registry) {
            this.registry = Objects.requireNonNull(registry);
            return this;
        }

        public Builder info(Supplier<AgentInfo> info) {
            this.info = Objects.requireNonNull(info);
            return this;
        }

        /** Adds a histogram series; the first added is the default of {@code /pacer/v1/histograms}. */
        public Builder sampler(PeriodSampler sampler) {
            samplers.put(sampler.name(), sampler);
            return this;
        }

        public Builder route(String path, HttpHandler handler) {
            routes.put(path, handler);
            return this;
        }

        public AdminServer start() throws IOException {
            Objects.requireNonNull(info, "info: every agent describes itself");
            return new AdminServer(this);
        }
    }
}
