package dev.pacer.engine.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.api.Measure;
import dev.pacer.contract.AgentContract;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.plan.RunPlanner;
import org.junit.jupiter.api.Test;

/**
 * What {@link RunCollector} asks each agent and what it makes of the answers, against answers recorded in the
 * contract's golden files (the server's and the probe's info, a client's run status, resource samples, an interval log):
 * who answered for the server under each {@code measure}, which series and raw files the run keeps.
 */
class RunCollectorTest {
    static final long WINDOW_START = 1_795_355_400_000L;

    static String golden(String file) throws IOException {
        try (InputStream in = RunCollectorTest.class.getResourceAsStream("/golden/" + file)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** An agent that answers from recorded bodies by path (the query included), 404 for anything else. */
    record Recorded(String where, Map<String, String> answers) implements AgentTransport {
        @Override
        public Response get(String pathAndQuery) {
            String body = answers.get(pathAndQuery);
            return body == null ? new Response(404, "no " + pathAndQuery) : new Response(200, body);
        }

        @Override
        public Response postJson(String path, byte[] json) {
            return new Response(405, "not in this test");
        }

        @Override
        public String describe() {
            return where;
        }
    }

    static RunPlan plan(String measure) throws Exception {
        return plan(measure, "60k");
    }

    static RunPlan plan(String measure, String rate) throws Exception {
        String yaml = """
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkRun
                metadata: {name: collected}
                spec:
                  server: {image: pacer/server-jetty12:0.1.0, cpus: 1, measure: %s}
                  clients: {count: 1, rate: %s, cpus: 1}
                  warmup: 10s
                  duration: 10s
                """.formatted(measure, rate);
        return RunPlanner.plan(BenchmarkRunYaml.read(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "test"),
                RunPlanner.DEFAULT_CLIENT_IMAGE);
    }

    static AgentClient server() throws IOException {
        Map<String, String> answers = new LinkedHashMap<>();
        answers.put(AgentContract.INFO, golden("agent-info-server.json"));
        answers.put(AgentContract.HISTOGRAMS, golden("probe-service.hlog"));
        answers.put(AgentContract.RESOURCES, golden("resources.json"));
        return new AgentClient(new Recorded("server-pod", answers));
    }

    static AgentClient probe() throws IOException {
        Map<String, String> answers = new LinkedHashMap<>();
        answers.put(AgentContract.INFO, golden("agent-info-probe.json"));
        answers.put(AgentContract.HISTOGRAMS, golden("probe-service.hlog"));
        answers.put(AgentContract.HISTOGRAMS + "?series=" + AgentContract.SERIES_SERVICE, golden("probe-service.hlog"));
        answers.put(AgentContract.HISTOGRAMS + "?series=" + AgentContract.SERIES_RESIDENCE, golden("probe-service.hlog"));
        return new AgentClient(new Recorded("probe-pod", answers));
    }

    static Map<String, AgentClient> clients() throws IOException {
        Map<String, String> answers = new LinkedHashMap<>();
        answers.put(AgentContract.INFO, golden("agent-info-server.json"));
        answers.put(AgentContract.RUN, golden("run-status-measuring.json"));
        answers.put(AgentContract.HISTOGRAMS + "?series=" + RunCollector.CLIENT_RESPONSE_TIME_SERIES, golden("probe-service.hlog"));
        answers.put(AgentContract.HISTOGRAMS + "?series=" + RunCollector.CLIENT_SEND_LAG_SERIES, golden("probe-service.hlog"));
        answers.put(AgentContract.RESOURCES, golden("resources.json"));
        return Map.of("client-0", new AgentClient(new Recorded("client-0-pod", answers)));
    }

    @Test
    void theAgentAnswersForTheServerWithItsProcessingTime() throws Exception {
        RunCollector.Collected collected = RunCollector.collect(plan("agent"), server(), null, clients(), WINDOW_START, WINDOW_START + 10_000);
        assertThat(collected.input().serverMeasure().measuredBy()).isEqualTo(Measure.AGENT);
        assertThat(collected.input().serverMeasure().series()).isEqualTo(AgentContract.SERIES_PROCESSING);
        assertThat(collected.input().serverMeasure().otherSeries()).isEmpty();
        assertThat(collected.input().serverMeasure().probeLosses()).as("no probe, no losses").isNull();
        assertThat(collected.input().serverPeriods()).hasValueSatisfying(p -> assertThat(p).isNotEmpty());
        assertThat(collected.infos()).containsOnlyKeys(AgentContract.ROLE_SERVER, "client-0");
        assertThat(collected.rawLogs()).containsOnlyKeys("server.hlog", "client-0.responseTime.hlog", "client-0.sendLag.hlog",
                "client-0.resources.json", "server.resources.json");
        assertThat(collected.input().clients()).singleElement().satisfies(c -> {
            assertThat(c.offeredRatePerSecond()).isEqualTo(60_000.0);
            assertThat(c.errors()).isEqualTo(3);
        });
        assertThat(collected.input().serverResources().unavailable()).isNull();
    }

    @Test
    void theRateAClientOfferedIsThePlansNotWhatTheClientEchoes() throws Exception {
        // the recorded client reports 60000 req/s; the plan asked 45k of it
        RunCollector.Collected collected = RunCollector.collect(plan("agent", "45k"), server(), null, clients(), WINDOW_START, WINDOW_START + 10_000);
        assertThat(collected.runStatuses().get("client-0").offeredRate()).as("the recorded answer").isEqualTo(60_000.0);
        assertThat(collected.input().clients()).singleElement()
                .satisfies(c -> assertThat(c.offeredRatePerSecond()).isEqualTo(45_000.0));
    }

    @Test
    void theProbeInTheServersPlaceAnswersWithServiceAndResidenceAndItsLosses() throws Exception {
        RunCollector.Collected collected = RunCollector.collect(plan("probe"), probe(), null, clients(), WINDOW_START, WINDOW_START + 10_000);
        assertThat(collected.input().serverMeasure().series()).isEqualTo(AgentContract.SERIES_SERVICE);
        assertThat(collected.input().serverMeasure().otherSeries()).containsOnlyKeys(AgentContract.SERIES_RESIDENCE);
        assertThat(collected.input().serverMeasure().probeLosses()).as("the probe's counters from its info").isNotNull();
        assertThat(collected.rawLogs()).containsKeys("server.hlog", "server.residence.hlog");
        assertThat(collected.input().serverResources().unavailable()).as("this probe samples no process")
                .isEqualTo("what measures the server does not sample its process (probe-pod has no " + AgentContract.RESOURCES + ")");
    }

    @Test
    void withBothTheProbeBesideTheAgentAddsItsSeriesUnderItsOwnRole() throws Exception {
        RunCollector.Collected collected = RunCollector.collect(plan("both"), server(), probe(), clients(), WINDOW_START, WINDOW_START + 10_000);
        assertThat(collected.input().serverMeasure().series()).isEqualTo(AgentContract.SERIES_PROCESSING);
        assertThat(collected.input().serverMeasure().otherSeries()).containsOnlyKeys("probe." + AgentContract.SERIES_SERVICE,
                "probe." + AgentContract.SERIES_RESIDENCE);
        assertThat(collected.infos()).containsOnlyKeys(AgentContract.ROLE_SERVER, AgentContract.ROLE_PROBE, "client-0");
        assertThat(collected.input().serverMeasure().probeLosses()).as("the losses of the probe beside the agent").isNotNull();
    }

    @Test
    void nobodyMeasuresTheServerWithNone() throws Exception {
        RunCollector.Collected collected = RunCollector.collect(plan("none"), null, null, clients(), WINDOW_START, WINDOW_START + 10_000);
        assertThat(collected.input().serverPeriods()).isEmpty();
        assertThat(collected.input().serverUnavailableReason()).isEqualTo("the server is not measured (spec.server.measure: none)");
    }

    @Test
    void aServerWithoutHistogramsLeavesTheRunWithoutThemAndASilentOneIsAskedAgain() throws Exception {
        AgentClient noHistograms = new AgentClient(new Recorded("bare-server", Map.of(AgentContract.INFO, golden("agent-info-server.json"))));
        RunCollector.Collected collected = RunCollector.collect(plan("agent"), noHistograms, null, clients(), WINDOW_START, WINDOW_START + 10_000);
        assertThat(collected.input().serverPeriods()).isEmpty();
        assertThat(collected.input().serverUnavailableReason()).contains(AgentContract.HISTOGRAMS);

        AgentClient silent = new AgentClient(new AgentTransport() {
            @Override
            public Response get(String pathAndQuery) throws IOException {
                throw new ConnectException("Connection refused");
            }

            @Override
            public Response postJson(String path, byte[] json) throws IOException {
                throw new ConnectException("Connection refused");
            }

            @Override
            public String describe() {
                return "gone";
            }
        });
        assertThatThrownBy(() -> RunCollector.collect(plan("agent"), silent, null, clients(), WINDOW_START, WINDOW_START + 10_000))
                .isInstanceOf(IOException.class);
    }
}
