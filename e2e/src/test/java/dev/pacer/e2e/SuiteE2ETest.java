package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.pacer.engine.suite.SuiteDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Suites through {@code pacer run}: a sweep finds a server's knee; fixed rates aggregate their repetitions. */
class SuiteE2ETest {
    /** The knee's server answers on a schedule of this many slots a second, whatever the machine's speed. */
    static final long CAPACITY_PER_SECOND = 1_200;

    @TempDir
    Path work;

    /**
     * A server whose capacity is fixed by construction ({@link GroundTruthServer} with {@code --capacity-per-second}:
     * answers leave on one schedule, 1,200 a second, with 100 ms of credit), so neither a slow machine nor the build
     * beside the test moves it. A server that burns CPU per request has a capacity that a busy machine lowers between the
     * run that measures it and the sweep. The sweep starts at half of it, doubles up to 1.5 times it and bisects to
     * 10 %. Beyond the capacity the backlog grows by the excess every second, so a p99 limit of 100 ms fails within a
     * few percent above it (at 6 % over, the backlog is 300 ms deep when the window opens). Below it, a pause of the
     * machine shorter than the credit costs nothing, so the limit holds. The knee must be within 15 % below the capacity
     * and at most 5 % above it: a bisection to 10 % ends within that band whether the capacity itself passes or fails.
     */
    @Test
    void aSweepFindsTheKneeOfAServerOfKnownCapacity() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        long start = CAPACITY_PER_SECOND / 2;
        LocalRuns.Outcome outcome = LocalRuns.run(work, "knee", """
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkSuite
                metadata: {name: knee}
                spec:
                  template:
                    clients: {count: 1, rate: "%d", connections: 32, cpus: "1"}
                    warmup: 5s
                    duration: 4s
                    timeout: 2m
                    criteria: {rateTolerance: 3%%, maxSendLagP99: 1s}
                  servers:
                    - name: paced
                      image: ground-truth
                      command: ["%s", -cp, "%s", %s, "--port=${PORT}", "--capacity-per-second=%d"]
                      port: %d
                      measure: none
                      cpus: "1"
                  sweep: {start: "%d", max: "%d", growth: 2, resolution: 10%%, maxClientP99: 100ms}
                """.formatted(start, java, Processes.HOME.resolve("e2e/target/test-classes"), GroundTruthServer.class.getName(),
                CAPACITY_PER_SECOND, LocalRuns.freePort(), start, CAPACITY_PER_SECOND * 3 / 2));
        assertThat(outcome.exitCode()).as(outcome.out() + outcome.err()).isZero();
        SuiteDocument suite = SuiteDocument.read(outcome.directory());
        Long sustained = suite.summary().servers().getFirst().sustainedRatePerClient;
        System.out.printf("capacity %d req/s, sustained %d req/s at p99 < 100 ms; rates tried %s%n", CAPACITY_PER_SECOND, sustained,
                suite.summary().runs().stream().map(r -> r.ratePerClient + (Boolean.TRUE.equals(r.passed) ? "+" : "-")).toList());
        assertThat(sustained).as("the knee of a server of capacity %d req/s", CAPACITY_PER_SECOND).isNotNull()
                .isBetween(Math.round(CAPACITY_PER_SECOND * 0.85), Math.round(CAPACITY_PER_SECOND * 1.05));
        assertThat(suite.summary().runs()).allSatisfy(r -> assertThat(r.phase).isEqualTo("Succeeded"));
        assertThat(outcome.directory().resolve("suite.html")).content().contains("Sustained rate").contains("p99-by-rate")
                .contains("<table id=\"suite-sweep-table\">");
        // the curve of client p99 against rate, drawn in a real browser, one legend entry per server
        var drawn = HeadlessChromium.plotsDrawn(outcome.directory().resolve("suite.html"));
        assertThat(drawn).containsKey("p99-by-rate");
        assertThat(drawn.get("p99-by-rate").seriesPixels()).isGreaterThan(50);
        assertThat(drawn.get("p99-by-rate").legendEntries()).as("the rate, and the paced server").isEqualTo(2);
        assertThat(outcome.out()).contains("sustained req/s/client");
    }

    @Test
    void fixedRatesInterleaveRepetitionsAndAggregate() throws Exception {
        LocalRuns.Outcome outcome = LocalRuns.run(work, "pair", """
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkSuite
                metadata: {name: pair}
                spec:
                  template:
                    clients: {count: 1, rate: "500", connections: 4, cpus: "1"}
                    request: {path: /plaintext}
                    warmup: 1s
                    duration: 4s
                    timeout: 2m
                    criteria: {rateTolerance: 3%, maxSendLagP99: 50ms}
                  servers:
                    - {name: core, image: jetty12, args: ["--mode=core"], cpus: "1"}
                    - {name: loom, image: loom, cpus: "1"}
                  repetitions: 2
                """);
        assertThat(outcome.exitCode()).as(outcome.out() + outcome.err()).isZero();
        SuiteDocument suite = SuiteDocument.read(outcome.directory());
        assertThat(suite.summary().runs()).extracting(r -> r.name)
                .containsExactly("pair-core-500-1", "pair-loom-500-1", "pair-core-500-2", "pair-loom-500-2");
        for (var run : suite.summary().runs()) {
            assertThat(outcome.directory().resolve(run.name).resolve("result.json")).exists();
        }
        assertThat(suite.summary().servers()).allSatisfy(s -> {
            assertThat(s.repetitions).isEqualTo(2);
            assertThat(s.p99IntegralMedianMicros).isPositive();
            assertThat(s.intervalConfidence).isEqualTo(0.5);
        });
        assertThat(suite.summary().comparisons()).singleElement().asString().startsWith("at 500 req/s per client: loom is");
        assertThat(Files.readString(outcome.directory().resolve("suite.html"))).contains("Integrals at fixed rates")
                .contains("<table id=\"suite-fixed-table\">").contains("pair-loom-500-2/report.html");
        LocalRuns.Outcome again = LocalRuns.pacer(outcome.directory(), "report", outcome.directory().toString());
        assertThat(again.exitCode()).isZero();
        assertThat(again.out()).contains("suite.html");
    }

    /**
     * The confirmation moves a figure down when the confirming run fails: a server whose capacity drops after a while
     * ({@link GroundTruthServer}: 50 µs of CPU per request, then 4 ms one at a time after its first 3,200 requests, so
     * 250 req/s). The drop comes at a request count, so a slow machine's start-up does not move it. A client sends for
     * the warm-up, the window and one period more: the short runs (2 s of warm-up, 2 s measured, the server started
     * afresh for each) send at most 2,800 requests at 400 req/s, even with a warm-up extended by its whole length, and
     * pass up to the sweep's max, 400 req/s. The 16 s confirmation there sends 7,600: it slows 8 s in, its backlog grows
     * by 150 requests a second, and it fails; at length, 300 req/s slows 10.7 s in and fails too. The figure must move
     * below, to a rate that held for 16 s (200 req/s, slowed only in its last 3 s, under the 250 it keeps), and say so.
     */
    @Test
    void aConfirmationThatFailsMovesTheSustainedRateDownAndSaysSo() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        LocalRuns.Outcome outcome = LocalRuns.run(work, "fading", """
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkSuite
                metadata: {name: fading}
                spec:
                  template:
                    clients: {count: 1, rate: "200", connections: 16, cpus: "1"}
                    warmup: 2s
                    duration: 2s
                    timeout: 1m
                    criteria: {rateTolerance: 3%%, maxSendLagP99: 1s}
                  servers:
                    - name: fading
                      image: ground-truth
                      command: ["%s", -cp, "%s", %s, "--port=${PORT}", "--burn-micros=50", "--slow-after-requests=3200", "--slow-burn-micros=4000"]
                      port: %d
                      measure: none
                      cpus: "1"
                  sweep: {start: "200", max: "400", growth: 2, resolution: 50%%, maxClientP99: 500ms, confirm: 16s}
                """.formatted(java, Processes.HOME.resolve("e2e/target/test-classes"), GroundTruthServer.class.getName(), LocalRuns.freePort()));
        assertThat(outcome.exitCode()).as(outcome.out() + outcome.err()).isZero();
        SuiteDocument suite = SuiteDocument.read(outcome.directory());
        var fading = suite.summary().servers().getFirst();
        System.out.printf("sustained %d req/s; runs %s; %s%n", fading.sustainedRatePerClient,
                suite.summary().runs().stream().map(r -> r.name + (Boolean.TRUE.equals(r.passed) ? "+" : "-")).toList(), fading.confirmation);
        assertThat(suite.summary().runs()).as("the short runs passed up to the max")
                .anySatisfy(r -> assertThat(r.name).isEqualTo("fading-fading-400-1").satisfies(n -> assertThat(r.passed).isTrue()));
        assertThat(suite.summary().runs()).as("its confirmation failed")
                .anySatisfy(r -> assertThat(r.name).isEqualTo("fading-fading-400-2").satisfies(n -> assertThat(r.passed).isFalse()));
        assertThat(fading.sustainedRatePerClient).as("moved below the failed confirmation").isNotNull().isLessThan(400L);
        assertThat(fading.confirmation).startsWith("confirmed: " + (fading.sustainedRatePerClient) + " req/s per client held over a 16s run")
                .contains("moved down from 400: its 16s run failed");
        assertThat(outcome.directory().resolve("suite.html")).content().contains("suite-confirmations").contains("moved down from 400");
    }
}
