package dev.pacer.engine.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.contract.RunRequest;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

class RunPlannerTest {
    static BenchmarkRun run(String extra) throws Exception {
        String yaml = """
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkRun
                metadata: {name: ramped}
                spec:
                  server: {image: pacer/server-jetty12:0.1.0, cpus: 1}
                  clients: {count: 2, rate: 40k, cpus: 1}
                  warmup: 20s
                  duration: 30s
                """ + extra;
        return BenchmarkRunYaml.read(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "test");
    }

    @Test
    void theRampReachesEveryClientsRunRequestWithinTheWarmUp() throws Exception {
        RunPlan plan = RunPlanner.plan(run("  rampUp: 10s\n"), RunPlanner.DEFAULT_CLIENT_IMAGE);
        RunRequest request = plan.runRequest(plan.client("client-1"), "http://10.0.0.5:8080", 1_800_000_000_000L);
        assertThat(request.rampUpMs()).isEqualTo(10_000);
        assertThat(request.warmupMs()).isEqualTo(20_000);
        assertThat(request.problems()).isEmpty();
    }

    @Test
    void theClientsPacingAndConnectionOrderReachEveryRunRequest() throws Exception {
        RunPlan plan = RunPlanner.plan(BenchmarkRunYaml.read(new ByteArrayInputStream("""
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkRun
                metadata: {name: paced}
                spec:
                  server: {image: pacer/server-jetty12:0.1.0, cpus: 1}
                  clients: {count: 2, rate: 40k, cpus: 1, minWakeupIntervalMicros: 500, connectionOrder: lastUsedFirst}
                  duration: 30s
                """.getBytes(StandardCharsets.UTF_8)), "test"), RunPlanner.DEFAULT_CLIENT_IMAGE);
        RunRequest request = plan.runRequest(plan.client("client-1"), "http://10.0.0.5:8080", 1_800_000_000_000L);
        assertThat(request.minWakeupIntervalNanos()).isEqualTo(500_000);
        assertThat(request.lastUsedFirst()).isTrue();
        assertThat(request.problems()).isEmpty();

        RunPlan defaultPlan = RunPlanner.plan(run(""), RunPlanner.DEFAULT_CLIENT_IMAGE);
        RunRequest byDefault = defaultPlan.runRequest(defaultPlan.client("client-0"), "http://10.0.0.5:8080", 1_800_000_000_000L);
        assertThat(byDefault.minWakeupIntervalMicros()).as("the spec's default is the load generator's")
                .isEqualTo(dev.pacer.api.SpecDefaults.MIN_WAKEUP_INTERVAL_MICROS).isEqualTo(RunRequest.DEFAULT_MIN_WAKEUP_INTERVAL_MICROS);
        assertThat(byDefault.connectionOrder()).as("the spec's default order, sent explicitly")
                .isEqualTo(dev.pacer.api.SpecDefaults.CONNECTION_ORDER).isEqualTo(RunRequest.LAST_USED_FIRST);
        assertThat(byDefault.lastUsedFirst()).isTrue();
    }

    @Test
    void anUnsetWakeUpIntervalIsNarrowedToHalfATighterSendLagLimitAndAnUnsetOrderIsLeftToHttp2() throws Exception {
        RunPlan tight = RunPlanner.plan(run("  criteria: {maxSendLagP99: 1ms}\n"), RunPlanner.DEFAULT_CLIENT_IMAGE);
        assertThat(tight.client("client-0").minWakeupIntervalMicros()).as("half of 1 ms: a batch's lateness alone stays within the limit")
                .isEqualTo(500);
        RunPlan between = RunPlanner.plan(run("  criteria: {maxSendLagP99: 1.5ms}\n"), RunPlanner.DEFAULT_CLIENT_IMAGE);
        assertThat(between.client("client-0").minWakeupIntervalMicros()).as("half, to the microsecond").isEqualTo(750);
        RunPlan loose = RunPlanner.plan(run("  criteria: {maxSendLagP99: 50ms}\n"), RunPlanner.DEFAULT_CLIENT_IMAGE);
        assertThat(loose.client("client-0").minWakeupIntervalMicros()).isEqualTo(1000);

        RunPlan roundRobin = oneClientAt10k("connectionOrder: roundRobin");
        assertThat(roundRobin.runRequest(roundRobin.client("client-0"), "http://10.0.0.5:8080", 1_800_000_000_000L).lastUsedFirst()).isFalse();

        RunPlan h2c = oneClientAt10k("httpVersion: h2c");
        RunRequest multiplexed = h2c.runRequest(h2c.client("client-0"), "http://10.0.0.5:8080", 1_800_000_000_000L);
        assertThat(multiplexed.connectionOrder()).as("over HTTP/2 a connection carries streams: no order is sent").isNull();
        assertThat(multiplexed.maxConcurrentStreams()).as("a stream at a time by default, sent explicitly").isEqualTo(1);
        assertThat(multiplexed.problems()).isEmpty();
    }

    @Test
    void streamsPerConnectionGoToHttp2ClientsAndNeverToHttp1Ones() throws Exception {
        RunPlan eight = oneClientAt10k("httpVersion: h2c, maxConcurrentStreams: 8");
        RunRequest request = eight.runRequest(eight.client("client-0"), "http://10.0.0.5:8080", 1_800_000_000_000L);
        assertThat(request.streamsPerConnection()).isEqualTo(8);
        assertThat(request.problems()).isEmpty();
        RunPlan http1 = oneClientAt10k("connections: 4");
        assertThat(http1.client("client-0").maxConcurrentStreams()).as("HTTP/1.1 carries a request at a time").isNull();
        assertThatThrownBy(() -> oneClientAt10k("maxConcurrentStreams: 8"))
                .hasMessageContaining("spec.clients.maxConcurrentStreams").hasMessageContaining("h2c and h2 only");
    }

    static RunPlan oneClientAt10k(String clientField) throws Exception {
        return RunPlanner.plan(BenchmarkRunYaml.read(new ByteArrayInputStream("""
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkRun
                metadata: {name: one}
                spec:
                  server: {image: pacer/server-jetty12:0.1.0, cpus: 1}
                  clients: {count: 1, rate: 10k, cpus: 1, %s}
                  duration: 30s
                """.formatted(clientField).getBytes(StandardCharsets.UTF_8)), "test"), RunPlanner.DEFAULT_CLIENT_IMAGE);
    }

    @Test
    void withoutARampEveryClientStartsAtTheFullRate() throws Exception {
        RunPlan plan = RunPlanner.plan(run(""), RunPlanner.DEFAULT_CLIENT_IMAGE);
        assertThat(plan.runRequest(plan.client("client-0"), "http://10.0.0.5:8080", 1_800_000_000_000L).rampUpMs()).isZero();
    }

    @Test
    void aRampLongerThanTheWarmUpIsRefusedNamingTheField() throws Exception {
        Assertions.assertThatThrownBy(() -> RunPlanner.plan(run("  rampUp: 30s\n"), RunPlanner.DEFAULT_CLIENT_IMAGE))
                .isInstanceOf(RunPlanner.InvalidPlanException.class).hasMessageContaining("spec.rampUp");
    }

    /** The port a spec may not give its server is the agents' admin port, one number for both (the api cannot see the contract). */
    @Test
    void theServersForbiddenPortIsTheAgentsAdminPort() {
        org.assertj.core.api.Assertions.assertThat(dev.pacer.api.BenchmarkRunSpec.ADMIN_PORT).isEqualTo(dev.pacer.contract.AgentContract.DEFAULT_ADMIN_PORT);
    }
}
