package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.pacer.engine.suite.SuiteDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Suites through {@code pacer run}: a sweep finds a server's knee; fixed rates aggregate their repetitions. */
class SuiteE2ETest {
    static final int SPIN_MICROS = 400;

    @TempDir
    Path work;

    /**
     * Jetty 12 pinned to CPU 0, each request burning 400 µs of it. Its capacity is measured first, with the same tools:
     * a run offering far more than it can serve (8,000 req/s, 32 connections); the requests the server completed in
     * the window, per second, are what it can do. Then a sweep from a quarter of that must end within ±15 % of it. The
     * limit is a p99 of 100 ms: beyond its capacity a server's backlog grows by the excess every second and its p99
     * passes that at once, while below it a limit of 20 ms failed at 70 % of the capacity on this machine (a pause of
     * the server or of the unpinned build spoils 1 % of a 4 s window). The warm-up is 8 s: with 2 s, the backlog the
     * JIT's first seconds leave drained into the window and failed 1,750 req/s (84 %); with 8 s, 1,900 (91 %) passed.
     */
    @Test
    void aSweepFindsTheKneeOfAServerOfKnownCapacity() throws Exception {
        LocalRuns.Outcome saturated = LocalRuns.run(work, "saturated", """
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkRun
                metadata: {name: saturated}
                spec:
                  server: {image: jetty12, args: ["--mode=core"], cpus: "1"}
                  clients: {count: 1, rate: "8000", connections: 32, cpus: "1"}
                  request: {path: "/plaintext?spinMicros=%d"}
                  warmup: 2s
                  duration: 4s
                  timeout: 2m
                """.formatted(SPIN_MICROS));
        assertThat(saturated.directory().resolve("result.json")).as(saturated.out() + saturated.err()).exists();
        double capacity = saturated.document().result().server.requests / 4.0;
        assertThat(capacity).as("the server cannot serve 8,000 req/s at %d µs of CPU each", SPIN_MICROS).isLessThan(4_000);
        long start = Math.max(100, Math.round(capacity / 4 / 100) * 100);
        LocalRuns.Outcome outcome = LocalRuns.run(work, "knee", """
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkSuite
                metadata: {name: knee}
                spec:
                  template:
                    clients: {count: 1, rate: "%d", connections: 32, cpus: "1"}
                    request: {path: "/plaintext?spinMicros=%d"}
                    warmup: 8s
                    duration: 4s
                    timeout: 2m
                    criteria: {rateTolerance: 3%%, maxSendLagP99: 1s}
                  servers:
                    - {name: jetty12, image: jetty12, args: ["--mode=core"], cpus: "1"}
                  sweep: {start: "%d", max: "%d", growth: 2, resolution: 5%%, maxClientP99: 100ms}
                """.formatted(start, SPIN_MICROS, start, Math.round(capacity * 2)));
        assertThat(outcome.exitCode()).as(outcome.out() + outcome.err()).isZero();
        SuiteDocument suite = SuiteDocument.read(outcome.directory());
        Long sustained = suite.summary().servers().getFirst().sustainedRatePerClient;
        System.out.printf("capacity %.0f req/s (saturated), sustained %d req/s at p99 < 100 ms; rates tried %s%n", capacity, sustained,
                suite.summary().runs().stream().map(r -> r.ratePerClient + (Boolean.TRUE.equals(r.passed) ? "+" : "-")).toList());
        assertThat(sustained).as("the knee of a server of capacity %.0f req/s", capacity).isNotNull()
                .isBetween(Math.round(capacity * 0.85), Math.round(capacity * 1.15));
        assertThat(suite.summary().runs()).allSatisfy(r -> assertThat(r.phase).isEqualTo("Succeeded"));
        assertThat(outcome.directory().resolve("suite.html")).content().contains("Sustained rate").contains("p99-by-rate")
                .contains("<table id=\"suite-sweep-table\">");
        // the curve of client p99 against rate, drawn in a real browser, one legend entry per server
        var drawn = HeadlessChromium.plotsDrawn(outcome.directory().resolve("suite.html"));
        assertThat(drawn).containsKey("p99-by-rate");
        assertThat(drawn.get("p99-by-rate").seriesPixels()).isGreaterThan(50);
        assertThat(drawn.get("p99-by-rate").legendEntries()).as("the rate, and jetty12").isEqualTo(2);
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
     * ({@link GroundTruthServer}: 50 µs of CPU per request, 4 ms once it has run 14 s, so 250 req/s on its one CPU). The
     * short runs (2 s of warm-up, 2 s measured, the server started afresh for each) end before the drop and pass up to
     * the sweep's max, 400 req/s; the 16 s confirmation there outlives it and fails. The figure must move below, to a
     * rate that held for 16 s, and say so.
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
                      command: ["%s", -cp, "%s", %s, "--port=${PORT}", "--burn-micros=50", "--slow-after-seconds=14", "--slow-burn-micros=4000"]
                      port: %d
                      measure: none
                      cpus: "1"
                  sweep: {start: "200", max: "400", growth: 2, resolution: 50%%, maxClientP99: 500ms, confirm: 16s}
                """.formatted(java, Processes.HOME.resolve("e2e/target/test-classes"), GroundTruthServer.class.getName(), freePort()));
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

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
