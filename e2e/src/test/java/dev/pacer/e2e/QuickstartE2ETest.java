package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pacer.api.RunResult;
import dev.pacer.api.Verdict;
import dev.pacer.engine.report.ResultDocument;
import org.assertj.core.data.Offset;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's first command, shortened: examples/quickstart.yaml end to end, then report and compare. */
class QuickstartE2ETest {
    @TempDir
    Path work;

    @Test
    void quickstartRunsToAVerdictAndLeavesNothingRunning() throws Exception {
        String quickstart = Files.readString(Processes.HOME.resolve("examples/quickstart.yaml"))
                .replace("warmup: 5s", "warmup: 3s").replace("duration: 20s", "duration: 5s");
        LocalRuns.Outcome outcome = LocalRuns.run(work, "quickstart", quickstart);
        ResultDocument doc = outcome.document();
        RunResult result = doc.result();
        if (result.verdict == Verdict.Passed) {
            assertThat(outcome.exitCode()).as(outcome.err()).isZero();
        } else {
            // the one other outcome, and not pacer's doing: the machine stopped the clients (a VM descheduled), which
            // their stall meters saw, and the lateness it left was reported as theirs
            assertThat(result.verdict).as("the quickstart passes: %s\n%s", result.reasons, outcome.out()).isEqualTo(Verdict.Invalid);
            assertThat(result.reasons).as("only a client sent late").allSatisfy(r -> assertThat(r).contains("sent late"));
            // a client's own collections in the window, were they as long as the lateness it may have, would be its doing
            @SuppressWarnings("unchecked")
            long maxSendLagP99Ms = ((Number) ((Map<String, Object>) doc.manifest().plan().get("criteria")).get("maxSendLagP99Ms")).longValue();
            for (String client : List.of("client-0", "client-1")) {
                if (result.reasons.stream().noneMatch(r -> r.startsWith(client + " "))) {
                    continue;
                }
                assertThat(result.warnings).as("%s's stall meter saw it stopped", client)
                        .anySatisfy(w -> assertThat(w).startsWith(client + " stalled for"));
                long windowGcMillis = 0;
                var samples = new ObjectMapper().readTree(outcome.directory().resolve(client + ".resources.json").toFile()).path("samples");
                for (var sample : samples) {
                    boolean inWindow = sample.path("endEpochMs").asLong() > result.window.startEpochMs
                            && sample.path("startEpochMs").asLong() < result.window.endEpochMs;
                    windowGcMillis += inWindow ? sample.path("gcPauseMillis").asLong() : 0;
                }
                assertThat(windowGcMillis).as("%s: not its own collections", client).isLessThan(maxSendLagP99Ms);
            }
        }
        assertThat(result.warnings).as("armed before the start: no client begins behind its schedule").noneSatisfy(w -> assertThat(w).contains("backlog"));
        assertThat(outcome.out()).contains("verdict:").contains("P99 integral");
        assertThat(result.server.p99IntegralMicros).isPositive();
        assertThat(result.server.maxIntegralMicros).isPositive();
        assertThat(result.server.p99Micros).isLessThanOrEqualTo(result.clients.p99Micros);
        assertThat(result.clients.perClient).hasSize(2);
        assertThat(doc.periods()).hasSize(5);
        assertThat(doc.agents()).containsKeys("server", "client-0", "client-1");
        assertThat(doc.agents().get("server").cpuset()).isNotNull();
        // what ran: pacer's version, the effective spec, and per role its program, host, kernel, CPU and JVM
        assertThat(doc.manifest().pacerVersion()).isEqualTo("0.1.0");
        assertThat(doc.manifest().plan()).containsEntry("load", "2x500").containsKey("criteria");
        assertThat(doc.manifest().roles()).containsOnlyKeys("server", "client-0", "client-1");
        assertThat(doc.manifest().roles().get("server")).satisfies(r -> {
            assertThat(r.image()).isEqualTo("jetty12");
            assertThat(Path.of(r.imageId())).isDirectory();
            assertThat(r.kernel()).isEqualTo(Files.readString(Path.of("/proc/sys/kernel/osrelease")).trim());
            assertThat(r.cpuModel()).isNotBlank();
            assertThat(r.onlineCpus()).isEqualTo(Runtime.getRuntime().availableProcessors());
            assertThat(r.jvm()).contains(System.getProperty("java.vendor"));
            assertThat(r.jvmArguments()).isNotNull();
            assertThat(r.cpuset()).isEqualTo(doc.agents().get("server").cpuset());
        });
        assertThat(outcome.directory().resolve("report.html")).content().contains("What ran").contains("jetty12");
        // the server's footprint, from its own per-period samples: idle before the load, the window's peak and CPU
        RunResult.Footprint footprint = result.server.footprint;
        assertThat(footprint).as("footprint (unavailable: %s)", result.server.footprintUnavailable).isNotNull();
        assertThat(footprint.idleRssBytes).isGreaterThan(16L << 20);
        assertThat(footprint.peakRssBytes).isGreaterThan(16L << 20);
        assertThat(footprint.peakRssSince).isEqualTo("window");
        assertThat(footprint.cpusAllowed).as("spec.server.cpus 1, pinned").isEqualTo(1);
        assertThat(footprint.cpuSeconds).isPositive();
        assertThat(footprint.cpuMicrosPerRequest).isCloseTo(footprint.cpuSeconds * 1e6 / result.server.requests, Percentage.withPercentage(1));
        assertThat(footprint.cpuUtilization).isBetween(0.0, 1.0);
        assertThat(doc.periods()).allSatisfy(p -> assertThat(p.serverUsage()).isNotNull());
        assertThat(doc.periods().stream().mapToDouble(p -> p.serverUsage().cpuCores()).sum() * doc.samplePeriodMs() / 1000.0)
                .as("the periods' CPU adds up to the window's").isCloseTo(footprint.cpuSeconds, Offset.offset(0.05));
        assertThat(outcome.directory().resolve("server.resources.json")).isNotEmptyFile();
        // each client collected its garbage once while arming, before the load, so that the window's first young
        // collection does not copy the client's whole state (a 40 ms stall at this rate before it did)
        for (String client : List.of("client-0", "client-1")) {
            long startAt = doc.clientRuns().get(client).startAtEpochMs();
            var samples = new ObjectMapper().readTree(outcome.directory().resolve(client + ".resources.json").toFile()).path("samples");
            long before = 0;
            for (var sample : samples) {
                before += sample.path("endEpochMs").asLong() <= startAt ? sample.path("gcCount").asLong() : 0;
            }
            assertThat(before).as("%s: collections before the load", client).isPositive();
        }
        assertThat(outcome.directory().resolve("report.html")).content().contains("id=\"server-footprint\"");
        // the percentile spectrum holds the result's own percentiles, and HdrHistogram's distribution is beside it
        assertThat(doc.spectra().get("server")).anySatisfy(p -> {
            assertThat(p.percentile()).isEqualTo(99.0);
            assertThat(p.valueMicros()).isEqualTo(result.server.p99Micros);
        });
        assertThat(doc.spectra().get("server")).filteredOn(p -> p.percentile() == 50.0).singleElement()
                .satisfies(p -> assertThat(p.valueMicros()).isEqualTo(result.server.p50Micros));
        assertThat(doc.spectra().get("server")).filteredOn(p -> p.percentile() == 99.9).singleElement()
                .satisfies(p -> assertThat(p.valueMicros()).isEqualTo(result.server.p999Micros));
        assertThat(doc.spectra()).containsKeys("client-0", "client-1");
        assertThat(outcome.directory().resolve("server.hgrm")).content().contains("Value     Percentile TotalCount 1/(1-Percentile)");
        for (String file : List.of("result.json", "report.html", "server.hlog", "client-0.responseTime.hlog", "client-1.sendLag.hlog",
                "client-0.responseTime.hgrm")) {
            assertThat(outcome.directory().resolve(file)).isNotEmptyFile();
        }
        String html = Files.readString(outcome.directory().resolve("report.html"));
        assertThat(html).contains("id=\"server-latency\"").contains("id=\"client-latency\"").contains("id=\"achieved-rate\"");
        assertThat(html).doesNotContain("data-points=\"0\"");

        // the report in a real browser: every chart drew its series and a legend to toggle them, and a screenshot is taken
        Map<String, HeadlessChromium.Drawn> drawn = HeadlessChromium.plotsDrawn(outcome.directory().resolve("report.html"));
        assertThat(drawn).containsOnlyKeys("spectrum", "server-latency", "server-percentiles", "cpu", "pauses", "server-memory",
                "client-latency", "achieved-rate", "send-lag");
        assertThat(drawn.values()).allSatisfy(d -> {
            assertThat(d.seriesPixels()).isGreaterThan(200);
            assertThat(d.legendEntries()).isGreaterThanOrEqualTo(2);
        });
        assertThat(drawn.get("spectrum").legendEntries()).as("percentile, server, client-0, client-1").isEqualTo(4);
        assertThat(drawn.get("pauses").legendEntries()).as("seconds, server GC, and each client's GC and longest stall").isEqualTo(6);
        assertThat(html).doesNotContain("data-drawn-length").doesNotContain("frame-");
        Path png = outcome.directory().resolve("report.png");
        HeadlessChromium.screenshot(outcome.directory().resolve("report.html"), png, 1100, 1900);
        assertThat(Files.size(png)).isGreaterThan(20_000);
        assertThat(new String(Files.readAllBytes(png), 1, 3, StandardCharsets.US_ASCII)).isEqualTo("PNG");

        // every process started for the run is gone
        assertThat(ProcessHandle.current().children().filter(ProcessHandle::isAlive).toList()).isEmpty();

        Files.delete(outcome.directory().resolve("report.html"));
        LocalRuns.Outcome report = LocalRuns.pacer(outcome.directory(), "report", outcome.directory().toString());
        assertThat(report.exitCode()).isZero();
        assertThat(outcome.directory().resolve("report.html")).content().contains("id=\"server-latency\"");

        Path page = outcome.directory().resolve("compare.html");
        LocalRuns.Outcome compare = LocalRuns.pacer(outcome.directory(), "compare", outcome.directory().toString(), outcome.directory().toString(),
                "--html", page.toString());
        assertThat(compare.exitCode()).isZero();
        assertThat(compare.out()).contains("P99 integral ms").contains("(+0.0%)").contains("within run-to-run noise").contains("page: " + page);
        // the runs' spectra overlaid: the server's of each run, and each run's clients
        Map<String, HeadlessChromium.Drawn> overlaid = HeadlessChromium.plotsDrawn(page);
        assertThat(overlaid).containsOnlyKeys("spectrum-server", "spectrum-clients", "server-p99");
        assertThat(overlaid.get("spectrum-server").legendEntries()).as("percentile and two runs").isEqualTo(3);
        assertThat(overlaid.get("spectrum-clients").legendEntries()).as("percentile and two runs' two clients").isEqualTo(5);
        assertThat(overlaid.values()).allSatisfy(d -> assertThat(d.seriesPixels()).isGreaterThan(200));
    }

    /**
     * The quickstart on a machine made slow on purpose: one busy loop per CPU at nice 10 runs from before the agents
     * start to after the run (and ends by itself). Each client arms before the start is chosen, so none begins behind
     * its schedule: no backlog caught up in the window, no client achieving more than it offered. The verdict is Passed,
     * or Invalid for the true reason, a client's CPU found saturated or a client sending late.
     */
    @Test
    void theQuickstartUnderACpuHogNeverStartsWithABacklog() throws Exception {
        String quickstart = Files.readString(Processes.HOME.resolve("examples/quickstart.yaml"))
                .replace("name: quickstart-jetty12-core", "name: quickstart-hogged")
                .replace("warmup: 5s", "warmup: 3s").replace("duration: 20s", "duration: 5s");
        try (Processes.BusyLoops hogs = Processes.busyLoopsOnEveryCpu(cpu -> 10, 120)) {
            LocalRuns.Outcome outcome = LocalRuns.run(work, "hogged", quickstart);
            RunResult result = outcome.document().result();
            assertThat(result.warnings).as("no client begins behind its schedule").noneSatisfy(w -> assertThat(w).contains("backlog"));
            assertThat(result.clients.perClient).allSatisfy(c -> assertThat(c.achievedRate)
                    .as("%s achieved no more than it offered", c.name).isLessThanOrEqualTo(c.offeredRate * 1.02));
            if (result.verdict == Verdict.Passed) {
                assertThat(outcome.exitCode()).isZero();
            } else {
                assertThat(result.verdict).as("%s", result.reasons).isEqualTo(Verdict.Invalid);
                assertThat(result.reasons).as("the true reason").allSatisfy(r -> assertThat(r).containsAnyOf("CPU was saturated", "sent late", "the load was not applied",
                        "behind schedule as the window started", "behind schedule at the first look at the window"));
            }
        }
    }
}
