package dev.pacer.engine.protocol;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.contract.AgentInfo;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.engine.agents.RunCollector;
import dev.pacer.engine.analysis.AnalysisInput;
import dev.pacer.engine.analysis.PeriodHistogram;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.plan.RunPlanner;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.HdrHistogram.Histogram;

/**
 * A run under test: its plan, its status, a clock that moves only when told, and fake roles and agents whose
 * answers a test sets. {@link #step()} is one call of the protocol; {@link #outcomes} are handed to the next one.
 */
final class FakeRun implements Observations {
    static final Instant T0 = Instant.parse("2026-11-23T10:00:00.250Z");
    static final String SPEC = """
            apiVersion: pacer.dev/v1alpha1
            kind: BenchmarkRun
            metadata: {name: fake}
            spec:
              server: {image: pacer/server-jetty12:0.1.0, cpus: "1", port: 8080}
              clients: {count: 2, rate: "500", cpus: "1"}
              request: {path: /plaintext}
              warmup: 5s
              duration: 10s
              samplePeriod: 1s
              timeout: 10m
            %s
            """;

    private static final ObjectMapper JSON = new ObjectMapper();

    final RunPlan plan;
    BenchmarkRunStatus status = new BenchmarkRunStatus();
    Instant now = T0;
    RoleObservation server;
    RoleObservation probe = RoleObservation.absent("fake-probe");
    Optional<String> waiting = Optional.empty();
    Optional<List<dev.pacer.engine.preflight.Preflight.NodeFacts>> nodes = Optional.empty();
    final Map<String, RoleObservation> clients = new LinkedHashMap<>();
    final Map<String, AgentAnswer<AgentInfo>> infos = new HashMap<>();
    final Map<String, AgentAnswer<LoadRunStatus>> statuses = new HashMap<>();
    /** Each agent's clock offset against the orchestrator's, microseconds (absent: 0, over a 200 µs round trip). */
    final Map<String, Long> clockOffsetsMicros = new HashMap<>();
    Optional<Double> serverP99 = Optional.empty();
    /** What the server's histograms hold in every period. */
    long serverNanos = 1200;
    Outcomes outcomes = Outcomes.NONE;
    final List<String> asked = new ArrayList<>();

    FakeRun() {
        this("");
    }

    /** A run whose spec has these lines added (indented under spec). */
    FakeRun(String moreSpec) {
        try {
            BenchmarkRun run = BenchmarkRunYaml.read(new ByteArrayInputStream(SPEC.formatted(moreSpec.indent(2))
                    .getBytes(StandardCharsets.UTF_8)), "fake.yaml");
            plan = RunPlanner.plan(run);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        server = RoleObservation.absent("fake-server");
        for (RunPlan.ClientRole c : plan.clients()) {
            clients.put(c.name(), RoleObservation.absent("fake-" + c.name()));
        }
    }

    @Override
    public AgentAnswer<dev.pacer.engine.agents.ClockOffset.Sample> clock(String role) {
        asked.add("clock:" + role);
        long sent = now.toEpochMilli() * 1000;
        return AgentAnswer.of(new dev.pacer.engine.agents.ClockOffset.Sample(sent, sent + 100 + clockOffsetsMicros.getOrDefault(role, 0L), sent + 200));
    }

    @Override
    public Optional<List<dev.pacer.engine.preflight.Preflight.NodeFacts>> nodes() {
        return nodes;
    }

    Decision step() {
        Decision decision = RunProtocol.step(plan, status, this, outcomes, now);
        outcomes = Outcomes.NONE;
        status = decision.status();
        return decision;
    }

    void advance(Duration by) {
        now = now.plus(by);
    }

    void at(long epochMs) {
        now = Instant.ofEpochMilli(epochMs);
    }

    static RoleObservation starting(String name) {
        return new RoleObservation(RoleObservation.Presence.STARTING, name, "node-1", null, null, null, "1", null, null);
    }

    static RoleObservation ready(String name, String ip) {
        return new RoleObservation(RoleObservation.Presence.READY, name, "node-1", ip, null, null, "1", null, null);
    }

    static RoleObservation pinnedReady(String name, String ip, long cpus) {
        return new RoleObservation(RoleObservation.Presence.READY, name, "node-1", ip, null, cpus, Long.toString(cpus), null, null);
    }

    static RoleObservation failed(String name, String reason, String message) {
        return new RoleObservation(RoleObservation.Presence.FAILED, name, "node-1", null, null, null, "1", reason, message);
    }

    static AgentInfo info(String role, String cpuset) {
        return new AgentInfo(role, "0.1.0", AgentInfo.MEASURED_BY_AGENT, 1L, "h", 65532, cpuset, 1, 1, null, null, 0L, 1000L,
                List.of(), Map.of());
    }

    static LoadRunStatus status(LoadRunStatus.State state, double offered, double achieved, long errors) {
        return status(state, offered, achieved, errors, null);
    }

    /** A report of a client that took this start ({@code null}: none yet). */
    static LoadRunStatus status(LoadRunStatus.State state, double offered, double achieved, long errors, Long startAtEpochMs) {
        return new LoadRunStatus(state, null, 500, offered, achieved, 1, 4, null, null, null, null, null, null, errors,
                null, null, null, null, null, null, startAtEpochMs, null, null, null, null, null);
    }

    static LoadRunStatus failedStatus(String failure) {
        return new LoadRunStatus(LoadRunStatus.State.FAILED, null, 500, 0.0, 0.0, 1, 4, null, null, null, null, null, null, 0L,
                null, null, null, null, null, null, null, failure, null, null, null, null);
    }

    /** Every role ready, every agent answering with its info and an idle run. */
    FakeRun allReady() {
        server = ready("fake-server", "10.0.0.1");
        infos.put("server", AgentAnswer.of(info("server", "1")));
        int i = 2;
        for (String name : clients.keySet()) {
            clients.put(name, ready("fake-" + name, "10.0.0." + i));
            infos.put(name, AgentAnswer.of(info("client", Integer.toString(i++))));
            statuses.put(name, AgentAnswer.of(LoadRunStatus.idle()));
        }
        return this;
    }

    /** Every client reporting this state; from {@code WAITING} on, having taken the run's {@code startAt}. */
    void clientsAre(LoadRunStatus.State state, double achievedEach) {
        Long startAt = state.compareTo(LoadRunStatus.State.WAITING) >= 0 ? status.startAtEpochMs : null;
        clients.keySet().forEach(c -> statuses.put(c, AgentAnswer.of(status(state, 500, achievedEach, 0, startAt))));
    }

    /** One client under way with this backlog: requests due that have not gone to the wire. */
    void clientLate(String client, LoadRunStatus.State state, long lateRequests) {
        statuses.put(client, AgentAnswer.of(new LoadRunStatus(state, null, 500, 500.0, 0.0, 1, 4, null, null, null, null, null, null, 0L,
                null, null, null, null, null, null, status.startAtEpochMs, null, lateRequests, null, null, null)));
    }

    /** One client under way, on its schedule, holding a window from this start (as a window move leaves it). */
    void clientHolds(String client, LoadRunStatus.State state, long windowStartEpochMs) {
        clientHolds(client, state, windowStartEpochMs, 0);
    }

    /** One client under way with this backlog, holding a window from this start. */
    void clientHolds(String client, LoadRunStatus.State state, long windowStartEpochMs, long lateRequests) {
        long durationMs = plan.duration().toMillis();
        statuses.put(client, AgentAnswer.of(new LoadRunStatus(state, null, 500, 500.0, 0.0, 1, 4, null, null, null, null, null, null, 0L,
                null, null, null, null, null, new LoadRunStatus.Window(windowStartEpochMs, windowStartEpochMs + durationMs),
                status.startAtEpochMs, null, lateRequests, null, null, null)));
    }

    /** The status as the platform would have kept it now: a later step's may be lost (a failed patch). */
    BenchmarkRunStatus keptCopy() {
        return JSON.convertValue(status, BenchmarkRunStatus.class);
    }

    /** Every role ready, the pods recorded and the clients told to arm, none armed yet. */
    FakeRun armPosted() {
        step();                                   // Pending → Starting, CreateServer
        allReady();
        Decision arm = step();                    // infos, pods; every client armed
        assert arm.actions().stream().allMatch(a -> a instanceof Action.PostRun);
        return this;
    }

    /** Every client armed and {@code startAt} written, no start posted yet. */
    FakeRun startAtWritten() {
        armPosted();
        clientsAre(LoadRunStatus.State.ARMED, 0);
        step();                                   // startAt chosen and kept
        return this;
    }

    /** Drives the run from Pending to WarmingUp with every agent arming and taking the start. */
    FakeRun toWarmingUp() {
        startAtWritten();
        Decision post = step();                   // the start posted
        Outcomes.Builder answers = new Outcomes.Builder();
        post.actions().forEach(a -> answers.started(((Action.PostStart) a).client(),
                AgentAnswer.of(status(LoadRunStatus.State.WAITING, 0, 0, 0, status.startAtEpochMs))));
        outcomes = answers.build();
        step();                                   // → WarmingUp
        clientsAre(LoadRunStatus.State.WAITING, 0);
        return this;
    }

    /** Collected histograms for the window: every period of the server and of every client holds values. */
    RunCollector.Collected collected() {
        long period = plan.samplePeriod().toMillis();
        long start = status.window.startEpochMs;
        long end = status.window.endEpochMs;
        List<PeriodHistogram> serverPeriods = periods(start, end, period, serverNanos, 100);
        List<AnalysisInput.ClientInput> inputs = new ArrayList<>();
        for (RunPlan.ClientRole c : plan.clients()) {
            inputs.add(new AnalysisInput.ClientInput(c.name(), c.ratePerSecond(), periods(start, end, period, 1500, c.ratePerSecond()),
                    periods(start, end, period, 50, 10), 0, null));
        }
        AnalysisInput input = new AnalysisInput(start, end, period, Optional.of(serverPeriods), null, inputs, plan.criteria());
        Map<String, AgentInfo> infoMap = new LinkedHashMap<>();
        infos.forEach((k, v) -> infoMap.put(k, v.value()));
        return new RunCollector.Collected(input, Map.of("server.hlog", "#log\n"), infoMap, Map.of());
    }

    private static List<PeriodHistogram> periods(long start, long end, long period, long valueNanos, long count) {
        List<PeriodHistogram> periods = new ArrayList<>();
        for (long t = start; t < end; t += period) {
            Histogram h = new Histogram(60_000_000_000L, 3);
            h.recordValueWithCount(valueNanos, count);
            periods.add(new PeriodHistogram(t, t + period, h));
        }
        return periods;
    }

    @Override
    public Optional<String> waitingFor() {
        asked.add("queue");
        return waiting;
    }

    @Override
    public RoleObservation probe() {
        asked.add("probe");
        return probe;
    }

    @Override
    public RoleObservation server() {
        asked.add("server");
        return server;
    }

    @Override
    public RoleObservation client(String name) {
        asked.add(name);
        return clients.get(name);
    }

    @Override
    public AgentAnswer<AgentInfo> info(String role) {
        asked.add("info:" + role);
        return infos.getOrDefault(role, AgentAnswer.unreachable("connection refused"));
    }

    @Override
    public AgentAnswer<LoadRunStatus> runStatus(String client) {
        asked.add("runStatus:" + client);
        return statuses.getOrDefault(client, AgentAnswer.unreachable("connection refused"));
    }

    @Override
    public Optional<Double> serverLastPeriodP99Seconds() {
        return serverP99;
    }
}
