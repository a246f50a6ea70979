package dev.pacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code pacer report --format markdown|csv} of a suite as {@code kubectl get bs NAME -o yaml} saves it. */
class ReportTablesTest {
    static final String SWEEP = """
            apiVersion: pacer.dev/v1alpha1
            kind: BenchmarkSuite
            metadata: {name: shootout, namespace: bench}
            spec:
              template: {clients: {count: 4, rate: "1k"}, duration: 30s}
              servers:
                - {name: jetty12, image: pacer/server-jetty12:0.1.0}
              sweep: {start: 25k, max: 100k, maxClientP99: 10ms}
            status:
              phase: Succeeded
              servers:
                - {name: jetty12, sustainedRatePerClient: 50000, p50AtSustainedMicros: 800, p99AtSustainedMicros: 2400,
                   serverP99AtSustainedMicros: 300, serverMeasuredBy: agent, boundBy: server CPU, idleRssBytes: 61500000}
            """;

    static String[] report(Path dir, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = new CommandLine(new PacerCommand()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
        return new String[] {Integer.toString(code), out.toString(), err.toString()};
    }

    @Test
    void aSuitesStatusPrintsAsTheShootOutTable(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("shootout.yaml"), SWEEP);
        String[] markdown = report(dir, "report", "--format", "markdown", file.toString());
        assertThat(markdown[0]).isEqualTo("0");
        assertThat(markdown[1]).contains("| Service | Image MB | RSS idle | Sustained @ p99 < 10ms | p50 | p99 |")
                .contains("| jetty12 | – | 61.5 MB | 200k | 0.80 ms | 2.40 ms | 0.30 ms (agent) | – | – | server CPU |");
        String[] csv = report(dir, "report", "--format", "csv", file.toString());
        assertThat(csv[1].lines()).element(1).asString().startsWith("jetty12,,61500000,200000,50000,false,800,2400,300,agent,");
    }

    @Test
    void aRunOrASuiteWithoutFiguresIsRefusedSayingWhatToGive(@TempDir Path dir) throws Exception {
        Path run = Files.writeString(dir.resolve("run.yaml"), CompareStatusesTest.run("jetty12", 100));
        String[] refused = report(dir, "report", "--format", "csv", run.toString());
        assertThat(refused[0]).isEqualTo("2");
        assertThat(refused[2]).contains("is not a BenchmarkSuite");
        Path pending = Files.writeString(dir.resolve("pending.yaml"), SWEEP.substring(0, SWEEP.indexOf("status:")));
        assertThat(report(dir, "report", "--format", "markdown", pending.toString())[2]).contains("has no status.servers yet");
        assertThat(report(dir, "report", "--format", "markdown", dir.toString())[2]).contains("holds no suite.json");
    }
}
