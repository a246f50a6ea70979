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
