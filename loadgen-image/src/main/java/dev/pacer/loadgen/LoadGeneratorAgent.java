package dev.pacer.loadgen;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import com.sun.net.httpserver.HttpExchange;
import dev.pacer.agent.AdminServer;
import dev.pacer.agent.Agent;
import dev.pacer.agent.AgentMetrics;
import dev.pacer.agent.JvmSeries;
import dev.pacer.agent.HiccupMeter;
import dev.pacer.agent.Launch;
import dev.pacer.agent.PeriodSampler;
import dev.pacer.agent.ProcessInfo;
import dev.pacer.agent.ResourceSampler;
import dev.pacer.contract.AgentContract;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.contract.RunRequest;
import dev.pacer.contract.RunStart;
import dev.pacer.contract.RunWindow;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The load generator process: the agent's admin endpoint plus {@code POST/GET /pacer/v1/run} and
 * {@code POST /pacer/v1/run/start}. It takes one run, which it arms at once and starts when told, keeps its results
 * until the process ends, and answers 409 to a second one. Histogram series:
 * {@code responseTime} (the default of {@code /pacer/v1/histograms}) and {@code sendLag}.
 */
public final class LoadGeneratorAgent implements Closeable {
    public static final String RESPONSE_TIME_SERIES = AgentContract.SERIES_RESPONSE_TIME;
    public static final String SEND_LAG_SERIES = AgentContract.SERIES_SEND_LAG;
    private static final List<String> ERROR_KINDS = List.of("timeout", "io", "status_4xx", "status_5xx");

    private final PeriodSampler responseTime;
    private final PeriodSampler responseTimeUncorrected;
    private final PeriodSampler sendLag;
    private final PeriodSampler handshake;
    private final AdminServer admin;
    private final Clock clock = Clock.systemUTC();
    private final HiccupMeter stalls = new HiccupMeter();   // this client's stalls; its pacing threads stand in for it
    private volatile LoadRun run;

    public LoadGeneratorAgent(int adminPort) throws IOException {
        responseTime = PeriodSampler.builder(RESPONSE_TIME_SERIES).period(Agent.samplePeriodFromEnvironment()).start();
        sendLag = PeriodSampler.builder(SEND_LAG_SERIES).period(Agent.samplePeriodFromEnvironment()).start();
        responseTimeUncorrected = PeriodSampler.builder(AgentContract.SERIES_RESPONSE_TIME_UNCORRECTED)
                .period(Agent.samplePeriodFromEnvironment()).start();
        handshake = PeriodSampler.builder(AgentContract.SERIES_HANDSHAKE).period(Agent.samplePeriodFromEnvironment()).start();
        PrometheusRegistry registry = new PrometheusRegistry();
        AgentMetrics.register(registry, Agent.ROLE_CLIENT, responseTime, false);
        AgentMetrics.registerPeriodGauge(registry, AgentMetrics.SEND_LAG_SECONDS,
                "Send lag (actual minus intended send time) of the last closed period", Agent.ROLE_CLIENT, sendLag::lastPeriod);
        CounterWithCallback.builder().name(AgentMetrics.ERRORS_TOTAL).help("Failed requests and error statuses by kind")
                .labelNames("role", "kind").callback(cb -> {
                    LoadRun current = run;
                    for (String kind : ERROR_KINDS) {
                        cb.call(current == null ? 0 : current.errorsOfKind(kind), Agent.ROLE_CLIENT, kind);
                    }
                }).register(registry);
        GaugeWithCallback.builder().name(AgentMetrics.OFFERED_RATE).help("Requests per second offered now (0 when not sending)")
                .labelNames("role").callback(cb -> {
                    LoadRun current = run;
                    cb.call(current == null ? 0 : current.offeredRatePerSecond(), Agent.ROLE_CLIENT);
                }).register(registry);
        AgentMetrics.registerHandshakes(registry, Agent.ROLE_CLIENT, handshake);
        JvmSeries.register(registry);
        // what this client used per period: a starved or paused client would blame the server for its own lateness
        ResourceSampler resources = new ResourceSampler(responseTime.period().toMillis(), stalls);
        responseTime.addPeriodListener(period -> resources.periodClosed(period.startEpochMillis(), period.endEpochMillis()));
        admin = AdminServer.builder().port(adminPort).registry(registry)
                .route(AgentContract.RESOURCES, exchange -> AdminServer.respondJson(exchange, 200, resources.snapshot()))
                .sampler(responseTime).sampler(sendLag).sampler(responseTimeUncorrected).sampler(handshake)
                .info(() -> ProcessInfo.describe(Agent.ROLE_CLIENT, responseTime.period().toMillis(),
                        List.of(RESPONSE_TIME_SERIES, SEND_LAG_SERIES, AgentContract.SERIES_RESPONSE_TIME_UNCORRECTED,
                                AgentContract.SERIES_HANDSHAKE), Map.of()))
                .route(AgentContract.RUN, this::handleRun)
                .route(AgentContract.RUN_START, this::handleStart)
                .route(AgentContract.RUN_WINDOW, this::handleWindow)
                .start();
    }

    public int adminPort() {
        return admin.getPort();
    }

    public void markReady() throws IOException {
        Agent.writeReadyFile(adminPort(), 0);
        admin.markReady();
    }

    private void handleRun(HttpExchange exchange) throws IOException {
        switch (exchange.getRequestMethod()) {
            case "GET" -> {
                LoadRun current = run;
                AdminServer.respondJson(exchange, 200, current == null ? LoadRunStatus.idle() : current.status());
            }
            case "POST" -> {
                RunRequest request;
                try (InputStream body = exchange.getRequestBody()) {
                    request = AdminServer.JSON.readValue(body, RunRequest.class);
                } catch (IOException e) {
                    AdminServer.respondJson(exchange, 400, Map.of("error", "the body is not a run: " + e.getMessage()));
                    return;
                }
                List<String> problems = request.problems();
                if (!problems.isEmpty()) {
                    AdminServer.respondJson(exchange, 400, Map.of("error", String.join("; ", problems)));
                    return;
                }
                synchronized (this) {
                    if (run != null) {
                        AdminServer.respondJson(exchange, AgentContract.RUN_ALREADY_TAKEN, Map.of("error", "this load generator already took a run; start a new process for another"));
                        return;
                    }
                    run = new LoadRun(request, responseTime, responseTimeUncorrected, sendLag, handshake, clock, stalls::watched);
                    run.arm();
                }
                AdminServer.respondJson(exchange, AgentContract.RUN_ACCEPTED, run.status());
            }
            default -> AdminServer.respondJson(exchange, 405, Map.of("error", "GET or POST"));
        }
    }

    /** The body of a POST, or null once the exchange was answered: 405 for another method, 400 for a body that does not read. */
    private static <T> T postedBody(HttpExchange exchange, Class<T> type, String what) throws IOException {
        if (!"POST".equals(exchange.getRequestMethod())) {
            AdminServer.respondJson(exchange, 405, Map.of("error", "POST"));
            return null;
        }
        try (InputStream body = exchange.getRequestBody()) {
            return AdminServer.JSON.readValue(body, type);
        } catch (IOException e) {
            AdminServer.respondJson(exchange, 400, Map.of("error", "the body is not " + what + ": " + e.getMessage()));
            return null;
        }
    }

    private void handleStart(HttpExchange exchange) throws IOException {
        RunStart start = postedBody(exchange, RunStart.class, "a start");
        if (start == null) {
            return;
        }
        if (start.startAtEpochMs() <= 0) {
            AdminServer.respondJson(exchange, 400, Map.of("error", "startAtEpochMs is required (epoch milliseconds), was " + start.startAtEpochMs()));
            return;
        }
        LoadRun current = run;
        if (current == null) {
            AdminServer.respondJson(exchange, AgentContract.RUN_ALREADY_TAKEN, Map.of("error", "no run to start: POST " + AgentContract.RUN + " first"));
            return;
        }
        switch (current.start(start.startAtEpochMs())) {
            case ACCEPTED -> AdminServer.respondJson(exchange, AgentContract.RUN_ACCEPTED, current.status());
            case PASSED -> AdminServer.respondJson(exchange, AgentContract.RUN_START_PASSED, Map.of("error",
                    "startAt " + Instant.ofEpochMilli(start.startAtEpochMs()) + " had passed by "
                            + (clock.millis() - start.startAtEpochMs()) + " ms when it arrived; choose a later one"));
            case ALREADY_STARTED -> AdminServer.respondJson(exchange, AgentContract.RUN_ALREADY_TAKEN, Map.of("error",
                    "the load began already, at " + Instant.ofEpochMilli(current.status().startAtEpochMs() == null ? 0 : current.status().startAtEpochMs())));
        }
    }

    private void handleWindow(HttpExchange exchange) throws IOException {
        RunWindow window = postedBody(exchange, RunWindow.class, "a window");
        if (window == null) {
            return;
        }
        LoadRun current = run;
        if (current == null) {
            AdminServer.respondJson(exchange, AgentContract.RUN_WINDOW_REFUSED, Map.of("error", "no run: POST " + AgentContract.RUN + " first"));
            return;
        }
        LoadRun.WindowAnswer answer = current.moveWindow(window.startEpochMs());
        if (answer.moved()) {
            AdminServer.respondJson(exchange, AgentContract.RUN_ACCEPTED, current.status());
        } else {
            AdminServer.respondJson(exchange, AgentContract.RUN_WINDOW_REFUSED, Map.of("error", answer.refusal()));
        }
    }

    @Override
    public void close() {
        admin.close();
        responseTime.close();
        responseTimeUncorrected.close();
        sendLag.close();
        stalls.close();
    }

    public static void main(String[] args) {
        Launch.run("loadgen", () -> start(args));
    }

    static void start(String[] args) throws Exception {
        LoadGeneratorAgent agent = new LoadGeneratorAgent(AdminServer.portFromEnvironment());
        Runtime.getRuntime().addShutdownHook(new Thread(agent::close, "pacer-shutdown"));
        agent.markReady();
        System.out.println("pacer load generator ready, admin port " + agent.adminPort());
        Thread.currentThread().join();
    }
}
