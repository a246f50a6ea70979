package dev.pacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code pacer history} over results directories as {@code pacer run} writes them: a series of 30 runs of one spec whose
 * P99 integral steps up 15 % at run 18 (with the server's new build), another series of another load, and an Invalid
 * run that belongs to none.
 */
class HistoryCommandTest {
    static final int STEP_AT = 18;

    static String result(String run, int index, String load, String tag, double p99IntegralMicros, String verdict) {
        return """
                {"run": "%1$s", "load": "%2$s",
                 "result": {"verdict": "%5$s", "window": {"startEpochMs": %3$d, "endEpochMs": %4$d},
                   "server": {"histogramsAvailable": true, "p99IntegralMicros": %6$d, "maxIntegralMicros": 60000, "maxMicros": 8000},
                   "clients": {"achievedRate": 1000.0, "offeredRate": 1000.0, "errors": 0}},
                 "spectra": {"server": [{"percentile": 50.0, "valueMicros": 100}, {"percentile": 90.0, "valueMicros": 200},
                   {"percentile": 99.0, "valueMicros": 800}, {"percentile": 99.9, "valueMicros": 2000}, {"percentile": 99.99, "valueMicros": 4000}]},
                 "manifest": {"pacerVersion": "0.1.0",
                   "plan": {"load": "%2$s", "server": {"image": "pacer/server-jetty12:%7$s", "args": ["--mode=core"], "measure": "agent"},
                            "clients": [{"name": "client-0", "ratePerSecond": 1000, "connections": 4, "image": "pacer/loadgen:0.1.0"}],
                            "request": {"method": "GET", "path": "/plaintext"}, "durationSeconds": 10.0, "samplePeriodMs": 1000,
                            "timeoutSeconds": %8$d},
                   "roles": {"server": {"image": "pacer/server-jetty12:%7$s", "imageId": "sha256:%7$s", "node": "n1"},
                             "client-0": {"node": "n1"}}}}
                """.formatted(run, load, 1_795_000_000_000L + index * 60_000L, 1_795_000_010_000L + index * 60_000L, verdict,
                Math.round(p99IntegralMicros), tag, 100 + index);
    }

    /** The two series and the Invalid run under {@code runs}. */
    static Path runs(Path dir) throws Exception {
        Path runs = dir.resolve("runs");
        Random random = new Random(52);
        for (int i = 0; i < 30; i++) {
            String name = String.format(Locale.ROOT, "jetty-%02d", i);
            double p99 = 10_000 * (i >= STEP_AT ? 1.15 : 1) * Math.exp(0.02 * random.nextGaussian());
            write(runs.resolve("suite-a").resolve(name), result(name, i, "1x1000", i >= STEP_AT ? "0.2.0" : "0.1.0", p99, "Passed"));
            String other = String.format(Locale.ROOT, "other-%02d", i);
            write(runs.resolve(other), result(other, i, "1x2000", "0.1.0", 12_000 * Math.exp(0.02 * random.nextGaussian()), "Passed"));
        }
        write(runs.resolve("late-client"), result("late-client", 40, "1x1000", "0.2.0", 99_000, "Invalid"));
        return runs;
    }

    static void write(Path directory, String json) throws Exception {
        Files.createDirectories(directory);
        Files.writeString(directory.resolve("result.json"), json);
    }

    static int history(StringWriter out, String... args) {
        List<String> all = new ArrayList<>(List.of("history"));
        all.addAll(List.of(args));
        return new CommandLine(new PacerCommand()).setOut(new PrintWriter(out)).setErr(new PrintWriter(new StringWriter()))
                .execute(all.toArray(String[]::new));
    }

    @Test
    void findsTheStepOfOneSeriesWithItsSizeAndTheBuildsOnEachSide(@TempDir Path dir) throws Exception {
        Path runs = runs(dir);
        StringWriter out = new StringWriter();
        assertThat(history(out, runs.toString())).isZero();
        String text = out.toString();
        assertThat(text).contains("pacer/server-jetty12 --mode=core · 1x1000 · GET /plaintext · 10 s", "pacer/server-jetty12 --mode=core · 1x2000",
                "30 runs", "server builds: 2", "run-to-run spread (sd of the logs, between changes): p99Integral 0.0", "not in any series: [1 (verdict Invalid: its figures are not the server's)]");
        assertThat(text).containsPattern("p99Integral \\+1\\d\\.\\d % \\[\\+\\d+\\.\\d %, \\+\\d+\\.\\d %\\] from jetty-18 \\(after jetty-17; 12 runs since\\), "
                + "p [0-9.e-]+: confirmed regression; builds sha256:0.1.0 → sha256:0.2.0");
        assertThat(text.split("series ")[2]).as("the other load's series is its own, unchanged").contains("no change");
    }

    @Test
    void gatesCiUntilTheChangeIsAcknowledged(@TempDir Path dir) throws Exception {
        Path runs = runs(dir);
        StringWriter json = new StringWriter();
        assertThat(history(json, runs.toString(), "--format", "json", "--fail-on-change")).isEqualTo(CompareCommand.EXIT_REGRESSION);
        JsonNode tree = new ObjectMapper().readTree(json.toString());
        JsonNode jetty = tree.path("series").get(0);
        assertThat(jetty.path("runs")).hasSize(30);
        assertThat(jetty.path("changes")).hasSize(1);
        JsonNode change = jetty.path("changes").get(0);
        assertThat(change.path("figure").asText()).isEqualTo("p99Integral");
        assertThat(change.path("shift").asDouble()).isBetween(0.10, 0.20);
        String id = jetty.path("id").asText();

        StringWriter bad = new StringWriter();
        assertThat(history(bad, runs.toString(), "--acknowledge", id + ":latency:jetty-18")).isEqualTo(PacerCommand.EXIT_BAD_INPUT);

        StringWriter acknowledged = new StringWriter();
        assertThat(history(acknowledged, runs.toString(), "--acknowledge", id + ":p99Integral:jetty-18", "--note", "the new build, expected",
                "--fail-on-change")).isZero();
        assertThat(acknowledged.toString()).contains("confirmed regression, acknowledged");
        assertThat(runs.resolve(HistoryCommand.ACKNOWLEDGED_FILE)).content().contains("the new build, expected");

        StringWriter markdown = new StringWriter();
        assertThat(history(markdown, runs.toString(), "--format", "markdown", "--series", id, "--fail-on-change")).isZero();
        assertThat(markdown.toString()).contains("| series | runs | figure |", "| `" + id + "` ", "confirmed regression, acknowledged |")
                .doesNotContain("1x2000");
    }

    @Test
    void aDirectoryThatIsNotThereIsBadInput(@TempDir Path dir) {
        StringWriter out = new StringWriter();
        assertThat(history(out, dir.resolve("nowhere").toString())).isEqualTo(PacerCommand.EXIT_BAD_INPUT);
    }
}
