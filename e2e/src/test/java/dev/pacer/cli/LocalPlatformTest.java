package dev.pacer.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.contract.AgentContract;
import dev.pacer.contract.AgentInfo;
import dev.pacer.engine.agents.RunCollector;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.plan.RunPlanner;
import dev.pacer.engine.protocol.Action;
import dev.pacer.engine.protocol.AgentAnswer;
import dev.pacer.engine.protocol.RoleObservation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI's platform through the engine's contract ({@code RunDriver.Effects} and {@code Observations}), on real
 * processes: what {@link LocalEffects} starts, {@link LocalObservations} sees absent, starting, ready and exited, as
 * the operator's pod effects and observations do with pods.
 */
class LocalPlatformTest {
    private static final Duration START_LIMIT = Duration.ofSeconds(90);

    @TempDir
    Path work;
    private LocalProcessTable table;
    private LocalApps.App serverApp;

    @AfterEach
    void stop() {
        if (table != null) {
            table.stopAll();
        }
    }

    static RunPlan plan(String server) throws IOException {
        String yaml = """
                kind: BenchmarkRun
                metadata: {name: platform}
                spec:
                  server: %s
                  clients: {count: 1, rate: 100, cpus: 1}
                  warmup: 2s
                  duration: 4s
                """.formatted(server);
        return RunPlanner.plan(BenchmarkRunYaml.read(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "platform.yaml"));
    }

    private LocalEffects effects(RunPlan plan, List<String> lines) {
        table = new LocalProcessTable(new CpuLayout(Map.of(), List.of(), List.of()));   // unpinned: any CPU
        serverApp = plan.server().command() == null ? LocalApps.serverFor(plan.server().image()).orElseThrow() : null;
        return new LocalEffects(plan, table, serverApp, null, work, work, null, new ArrayList<>(), lines::add);
    }

    private RoleObservation awaitRole(RunPlan plan, String role, RoleObservation.Presence presence) {
        await().atMost(START_LIMIT).pollInterval(Duration.ofMillis(200)).until(
                () -> observe(plan, role).presence(), p -> p == presence);
        return observe(plan, role);
    }

    private RoleObservation observe(RunPlan plan, String role) {
        LocalObservations seen = new LocalObservations(plan, table, serverApp);
        return AgentContract.ROLE_SERVER.equals(role) ? seen.server() : seen.client(role);
    }

    @Test
    void aServerWithTheAgentAndAClientAreStartedSeenReadyAnsweredForAndSeenGoneOnceStopped() throws IOException {
        RunPlan plan = plan("{image: jetty12, cpus: 1}");
        List<String> lines = new ArrayList<>();
        LocalEffects effects = effects(plan, lines);
        assertThat(observe(plan, AgentContract.ROLE_SERVER).presence()).isEqualTo(RoleObservation.Presence.ABSENT);

        assertThat(effects.createServer()).isEmpty();
        assertThat(effects.createServer()).as("a second create starts nothing more").isEmpty();
        RoleObservation server = awaitRole(plan, AgentContract.ROLE_SERVER, RoleObservation.Presence.READY);
        assertThat(server.address()).isEqualTo("127.0.0.1");
        assertThat(server.port()).as("the port the server's agent reports").isPositive();
        assertThat(server.cpusRequested()).isEqualTo("(not pinned)");
        AgentAnswer<AgentInfo> info = new LocalObservations(plan, table, serverApp).info(AgentContract.ROLE_SERVER);
        assertThat(info.answered()).as(info.error()).isTrue();
        assertThat(info.value().role()).isEqualTo(AgentContract.ROLE_SERVER);
        assertThat(info.value().measuredBy()).isEqualTo(AgentInfo.MEASURED_BY_AGENT);

        assertThat(observe(plan, "client-0").presence()).isEqualTo(RoleObservation.Presence.ABSENT);
        assertThat(effects.createClients(List.of("client-0"))).isEmpty();
        awaitRole(plan, "client-0", RoleObservation.Presence.READY);
        assertThat(new LocalObservations(plan, table, serverApp).info("client-0").value().role()).isEqualTo(AgentContract.ROLE_CLIENT);
        Map<String, RunCollector.Placed> placed = new LocalObservations(plan, table, serverApp).placed();
        assertThat(placed.keySet()).as("where each role ran, for the result's manifest").containsExactly(AgentContract.ROLE_SERVER, "client-0");
        assertThat(placed.get(AgentContract.ROLE_SERVER).image()).isEqualTo("jetty12");
        assertThat(placed.get("client-0").image()).isEqualTo(LocalApps.LOADGEN.name());
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("starting jetty12"))
                .anySatisfy(l -> assertThat(l).contains("starting client-0"));

        effects.cleanUp(new Action.CleanUp("test over"));
        RoleObservation gone = awaitRole(plan, AgentContract.ROLE_SERVER, RoleObservation.Presence.FAILED);
        assertThat(gone.reason()).isEqualTo("ProcessExited");
        assertThat(gone.message()).contains("exited during the run");
        assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList()).isEmpty();
    }

    @Test
    void aServerWithoutTheAgentIsReadyWhenItsChosenPortAnswersAndNobodyAnswersForIt() throws IOException {
        String jwebserver = Path.of(System.getProperty("java.home"), "bin", "jwebserver").toString();
        RunPlan plan = plan("{image: any, cpus: 1, measure: none, readinessPath: /, command: [" + jwebserver
                + ", -b, 127.0.0.1, -d, '${RUN_DIR}', -p, '${PORT}']}");
        LocalEffects effects = effects(plan, new ArrayList<>());

        assertThat(effects.createServer()).isEmpty();
        RoleObservation server = awaitRole(plan, AgentContract.ROLE_SERVER, RoleObservation.Presence.READY);
        assertThat(server.port()).isEqualTo(table.fixedServerPort()).isPositive();
        AgentAnswer<AgentInfo> info = new LocalObservations(plan, table, serverApp).info(AgentContract.ROLE_SERVER);
        assertThat(info.unreachable()).as("measure none: nobody answers for the server").isTrue();
        assertThat(info.error()).contains("not measured");
    }

    @Test
    void aProgramThatCannotStartIsARefusalNamingTheRole() throws IOException {
        RunPlan plan = plan("{image: any, cpus: 1, measure: none, command: [/nonexistent/pacer-server]}");
        Optional<String> refused = effects(plan, new ArrayList<>()).createServer();
        assertThat(refused).hasValueSatisfying(r -> assertThat(r).contains("cannot start server").contains("/nonexistent/pacer-server"));
        assertThat(observe(plan, AgentContract.ROLE_SERVER).presence()).isEqualTo(RoleObservation.Presence.ABSENT);
    }
}
