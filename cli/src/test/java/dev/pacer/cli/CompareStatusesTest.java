package dev.pacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code pacer compare} of two finished BenchmarkRuns as {@code kubectl get br NAME -o yaml} saves them. */
class CompareStatusesTest {

    static String run(String name, long p99Base) {
        String p99s = String.join(", ", LongStream.range(0, 10).mapToObj(i -> Long.toString(p99Base + i % 3)).toList());
        return """
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkRun
                metadata: {name: %s, namespace: bench, uid: 1234, managedFields: [{manager: pacer-operator}]}
                spec:
                  server: {image: pacer/server-%s:0.1.0}
                  clients: {count: 2, rate: "200"}
                  duration: 10s
                status:
                  phase: Succeeded
                  load: 2x200
                  result:
                    verdict: Passed
                    window: {startEpochMs: 1795000000000, endEpochMs: 1795000010000}
                    server: {histogramsAvailable: true, samples: 10, p99IntegralMicros: %d, maxIntegralMicros: 9000,
                             periodP99Micros: [%s], periodMaxMicros: [900, 900, 900, 900, 900, 900, 900, 900, 900, 900]}
                    clients: {requests: 4000, achievedRate: 400.0, offeredRate: 400.0, errors: 0, p99Micros: 800, maxMicros: 2000}
                """.formatted(name, name, 10 * p99Base + 9, p99s);
    }

    @Test
    void comparesTwoRunsFromTheirStatusesWithTheRankTest(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("jetty12.yaml"), run("jetty12", 100));
        Files.writeString(dir.resolve("loom.yaml"), run("loom", 400));
        StringWriter out = new StringWriter();
        int code = new CommandLine(new PacerCommand()).setOut(new PrintWriter(out))
                .execute("compare", dir.resolve("jetty12.yaml").toString(), dir.resolve("loom.yaml").toString());
        assertThat(code).isZero();
        assertThat(out.toString()).contains("jetty12 2x200", "loom 2x200", "P99 integral ms", "1.009", "4.009 (+297.3%)");
        assertThat(out.toString()).containsPattern("loom +median \\+\\d+\\.\\d%  p = 0\\.0\\d+  difference exceeds run-to-run noise");
    }

    static int compare(Path dir, StringWriter out, String... options) {
        List<String> args = new ArrayList<>(List.of("compare", dir.resolve("jetty12.yaml").toString(),
                dir.resolve("loom.yaml").toString()));
        args.addAll(List.of(options));
        return new CommandLine(new PacerCommand()).setOut(new PrintWriter(out)).execute(args.toArray(String[]::new));
    }

    @Test
    void forCiJsonAndMarkdownAndARegressionExitsFour(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("jetty12.yaml"), run("jetty12", 100));
        Files.writeString(dir.resolve("loom.yaml"), run("loom", 400));
        StringWriter json = new StringWriter();
        assertThat(compare(dir, json, "--format", "json")).isZero();
        var tree = new ObjectMapper().readTree(json.toString());
        assertThat(tree.path("passed").asBoolean()).isTrue();
        assertThat(tree.path("runs").get(1).path("p99IntegralMillis").asDouble()).isEqualTo(4.009);
        var loom = tree.path("comparisons").get(0);
        assertThat(loom.path("run").asText()).isEqualTo("loom");
        assertThat(loom.path("shift").asDouble()).isCloseTo(300 / 101.0, Assertions.within(0.01));   // 300 µs over the baseline median 101 µs
        assertThat(loom.path("shiftLow").asDouble()).isLessThanOrEqualTo(loom.path("shift").asDouble());
        assertThat(loom.path("significant").asBoolean()).isTrue();

        StringWriter failing = new StringWriter();
        assertThat(compare(dir, failing, "--fail-on-regression", "10")).isEqualTo(CompareCommand.EXIT_REGRESSION);
        assertThat(failing.toString()).contains("FAIL loom regressed against jetty12: per-period P99 +");
        assertThat(compare(dir, new StringWriter(), "--fail-on-regression", "500")).as("a 300 % regression within 500 % allowed").isZero();

        StringWriter baseline = new StringWriter();
        assertThat(compare(dir, baseline, "--format", "markdown", "--expect-p99-integral", "1.0", "--margin", "5")).isEqualTo(CompareCommand.EXIT_REGRESSION);
        assertThat(baseline.toString()).contains("| run | load | verdict | P99 integral ms").contains("| jetty12 | 2x200 | Passed | 1.009 |")
                .contains("- loom: P99 lat integral is 4009 vs expected 1000 with 0 outlier(s), max = 2, corrected to 4009 (µs): "
                        + "NOK; value (even corrected one) out of 5.0% error margin")
                .doesNotContain("- jetty12:");
    }

    /**
     * A run measured as {@code measure} says: its probe's service integral (the main series of a probe-only run, beside
     * the agent's processing with both), and with the agent, a processing integral of a tenth of it.
     */
    static String measured(String name, String measure, long serviceIntegralMicros) {
        long perPeriod = serviceIntegralMicros / 180;
        String periods = String.join(", ", LongStream.range(0, 180).mapToObj(i -> Long.toString(perPeriod + i % 3)).toList());
        String processing = String.join(", ", LongStream.range(0, 180).mapToObj(i -> Long.toString(perPeriod / 10 + i % 3)).toList());
        String server = switch (measure) {
            case "probe" -> "{histogramsAvailable: true, measuredBy: probe, series: service, samples: 180, p99IntegralMicros: %d, maxIntegralMicros: 9000, periodP99Micros: [%s]}"
                    .formatted(serviceIntegralMicros, periods);
            case "both" -> ("{histogramsAvailable: true, measuredBy: both, series: processing, samples: 180, p99IntegralMicros: %d, maxIntegralMicros: 900, "
                    + "periodP99Micros: [%s], otherSeries: [{name: probe.service, p99IntegralMicros: %d, maxIntegralMicros: 9000, periodP99Micros: [%s]}]}")
                    .formatted(serviceIntegralMicros / 10, processing, serviceIntegralMicros, periods);
            default -> "{histogramsAvailable: true, measuredBy: agent, series: processing, samples: 180, p99IntegralMicros: %d, maxIntegralMicros: 900, periodP99Micros: [%s]}"
                    .formatted(serviceIntegralMicros / 10, processing);
        };
        return """
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkRun
                metadata: {name: %s, namespace: bench}
                spec:
                  server: {image: pacer/server-%s:0.1.0, measure: %s}
                  clients: {count: 4, rate: 60k}
                  duration: 180s
                status:
                  phase: Succeeded
                  load: 4x60k
                  result:
                    verdict: Passed
                    server: %s
                    clients: {requests: 43200000, achievedRate: 240000.0, offeredRate: 240000.0, errors: 0, p99Micros: 800, maxMicros: 2000}
                """.formatted(name, name, measure, server);
    }

    /**
     * Jetty's blog figures, a P99 of 36.6, 34.8 and 30.0 µs over 180 periods (integrals 6,588, 6,264 and 5,400 µs): the
     * third is 22 % faster than the first and the second 5 %, by Jetty's formula, in the text, the Markdown and the JSON.
     * Chappe-like, the first is measured by the probe alone; the two Jetty ones by both, so they are compared by the
     * probe's service, never by their agent's processing (a tenth of it here: 900 % faster if it were taken).
     */
    @Test
    void theBlogsFiguresReadTwentyTwoAndFivePercentFasterByOneSeries(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("chappe.yaml"), measured("chappe", "probe", 6_588));
        Files.writeString(dir.resolve("jetty11.yaml"), measured("jetty11", "both", 6_264));
        Files.writeString(dir.resolve("jetty12.yaml"), measured("jetty12", "both", 5_400));
        String[] files = {dir.resolve("chappe.yaml").toString(), dir.resolve("jetty11.yaml").toString(), dir.resolve("jetty12.yaml").toString()};
        StringWriter text = new StringWriter();
        assertThat(new CommandLine(new PacerCommand()).setOut(new PrintWriter(text)).execute(concat("compare", files))).isZero();
        assertThat(text.toString()).contains("server series: service (the kernel probe at the socket)")
                .containsPattern("jetty11 +5\\.2 % faster").containsPattern("jetty12 +22\\.0 % faster");
        StringWriter markdown = new StringWriter();
        assertThat(new CommandLine(new PacerCommand()).setOut(new PrintWriter(markdown)).execute(concat("compare", files, "--format", "markdown"))).isZero();
        assertThat(markdown.toString()).contains("| jetty11 | chappe | +5.2 %").contains("| jetty12 | chappe | +22.0 %");
        StringWriter json = new StringWriter();
        assertThat(new CommandLine(new PacerCommand()).setOut(new PrintWriter(json)).execute(concat("compare", files, "--format", "json"))).isZero();
        var comparisons = new ObjectMapper().readTree(json.toString()).path("comparisons");
        assertThat(comparisons.get(0).path("percentFaster").asDouble()).isCloseTo(5.17, Assertions.within(0.01));
        assertThat(comparisons.get(1).path("percentFaster").asDouble()).isCloseTo(22.0, Assertions.within(0.01));
    }

    /** An agent's processing beside a probe's service is refused, naming the run and both fixes; named, the series is held. */
    @Test
    void runsWithoutTheComparedSeriesAreRefusedNamingThemAndTheFix(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("go.yaml"), measured("go", "probe", 6_000));
        Files.writeString(dir.resolve("jetty12.yaml"), measured("jetty12", "agent", 5_000));
        Files.writeString(dir.resolve("loom.yaml"), measured("loom", "both", 5_000));
        StringWriter err = new StringWriter();
        int code = new CommandLine(new PacerCommand()).setErr(new PrintWriter(err))
                .execute("compare", dir.resolve("go.yaml").toString(), dir.resolve("jetty12.yaml").toString());
        assertThat(code).isEqualTo(PacerCommand.EXIT_BAD_INPUT);
        assertThat(err.toString()).contains("jetty12 (measure: agent) have no service series").contains("measure: probe or both")
                .contains("--series");
        StringWriter named = new StringWriter();
        code = new CommandLine(new PacerCommand()).setErr(new PrintWriter(named))
                .execute("compare", "--series", "processing", dir.resolve("loom.yaml").toString(), dir.resolve("go.yaml").toString());
        assertThat(code).isEqualTo(PacerCommand.EXIT_BAD_INPUT);
        assertThat(named.toString()).contains("go (measure: probe) have no processing series");
        StringWriter bad = new StringWriter();
        assertThat(new CommandLine(new PacerCommand()).setErr(new PrintWriter(bad))
                .execute("compare", "--series", "latency", dir.resolve("loom.yaml").toString(), dir.resolve("go.yaml").toString()))
                .isEqualTo(PacerCommand.EXIT_BAD_INPUT);
        assertThat(bad.toString()).contains("must be processing, service or residence, was 'latency'");
    }

    private static String[] concat(String first, String[] middle, String... last) {
        List<String> all = new ArrayList<>(List.of(first));
        all.addAll(List.of(middle));
        all.addAll(List.of(last));
        return all.toArray(String[]::new);
    }

    @Test
    void aRunWithoutResultIsRefusedNamingIt(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("a.yaml"), run("a", 100));
        Files.writeString(dir.resolve("b.yaml"), """
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkRun
                metadata: {name: b}
                spec: {server: {image: x}, clients: {count: 1, rate: "1"}}
                status: {phase: Measuring}
                """);
        StringWriter err = new StringWriter();
        int code = new CommandLine(new PacerCommand()).setErr(new PrintWriter(err))
                .execute("compare", dir.resolve("a.yaml").toString(), dir.resolve("b.yaml").toString());
        assertThat(code).isEqualTo(PacerCommand.EXIT_BAD_INPUT);
        assertThat(err.toString()).contains("BenchmarkRun b has no status.result (phase Measuring)");
    }
}
