package dev.pacer.engine.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.contract.AgentContract;
import dev.pacer.contract.AgentInfo;
import dev.pacer.contract.Golden;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.engine.agents.RunCollector;
import dev.pacer.engine.analysis.Analysis;
import dev.pacer.engine.analysis.AnalysisInput;
import dev.pacer.engine.analysis.HistogramLogs;
import dev.pacer.engine.json.DocumentJson;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.plan.RunPlanner;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.HdrHistogram.HistogramLogWriter;
import org.junit.jupiter.api.Test;

/**
 * The result of a run as pacer writes it, pinned by golden files in the manner of HdrHistogram's log tests: committed
 * interval logs ({@code golden/input/*.hlog}, as agents serve them; the server's window holds one outlier period, a
 * 40× slower second) are read by the collector's parser, analysed, and turned into {@code result.json} and the window's
 * {@code .hgrm} percentile distributions. A change to a figure, its name or its definition shows here as a diff to
 * review. {@link #theIntegralsAreWhatHdrHistogramAloneGivesFromTheCommittedLog} derives the integrals again from the
 * committed log without pacer's parser or analysis.
 * <p>The inputs were made by {@link #intervalLog} (seeded, StrictMath: the same bits on every machine); to make them
 * again, delete {@code golden/input/} and run the test twice.
 */
class ResultGoldenTest {
    static final long PERIOD_MS = 1000;
    static final long START_AT_MS = 1_800_000_000_000L;
    static final long WARMUP_PERIODS = 2;
    static final long WINDOW_PERIODS = 5;
    static final long WINDOW_START_MS = START_AT_MS + WARMUP_PERIODS * PERIOD_MS;
    static final long WINDOW_END_MS = WINDOW_START_MS + WINDOW_PERIODS * PERIOD_MS;
    static final int RATE_PER_CLIENT = 200;

    static RunPlan plan() throws IOException {
        String yaml = """
                kind: BenchmarkRun
                metadata: {name: golden}
                spec:
                  server: {image: pacer/server-jetty12:0.1.0, cpus: 1, labels: {server: jetty12}}
                  clients: {count: 2, rate: %d, cpus: 1}
                  warmup: 2s
                  duration: 5s
                  criteria: {maxP99: 5ms}
                """.formatted(RATE_PER_CLIENT);
        return RunPlanner.plan(BenchmarkRunYaml.read(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "golden.yaml"));
    }

    static final Path INPUTS = Path.of("src/test/resources/golden/input");
    /** The window's period (from 0) in which every server request took 40 times as long: an outlier for the corrected integral. */
    static final int SLOW_SERVER_PERIOD = 3;

    /** A committed input log; written from {@code generator} when absent, failing once for review, as golden files are. */
    static String input(String file, Supplier<String> generator) {
        Path path = INPUTS.resolve(file);
        try {
            if (!Files.exists(path)) {
                Files.createDirectories(INPUTS);
                Files.writeString(path, generator.get(), StandardCharsets.US_ASCII);
                throw new AssertionError("wrote " + path + ": review it and run again");
            }
            return Files.readString(path, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An interval log of every period from the start to the window's end, as an agent serves it; values from {@code seed}. */
    static String intervalLog(long seed, int perPeriod, long medianNanos) {
        return intervalLog(seed, perPeriod, medianNanos, -1);
    }

    /** The same, with every value of the window's period {@code slowPeriod} (from 0; -1: none) 40 times as large. */
    static String intervalLog(long seed, int perPeriod, long medianNanos, int slowPeriod) {
        Random random = new Random(seed);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.US_ASCII);
        HistogramLogWriter writer = new HistogramLogWriter(out);
        writer.setBaseTime(0);
        writer.outputLogFormatVersion();
        writer.outputLegend();
        for (long start = START_AT_MS; start < WINDOW_END_MS; start += PERIOD_MS) {
            Histogram h = new Histogram(60_000_000_000L, 3);
            long stall = start == WINDOW_START_MS + slowPeriod * PERIOD_MS ? 40 : 1;
            for (int i = 0; i < perPeriod; i++) {
                // a log-normal spread around the median (StrictMath: the same bits on every machine), one slow request in a hundred
                long value = stall * Math.round(medianNanos * StrictMath.exp(0.4 * random.nextGaussian())) * (i % 100 == 99 ? 8 : 1);
                h.recordValue(value);
            }
            h.setStartTimeStamp(start);
            h.setEndTimeStamp(start + PERIOD_MS);
            writer.outputIntervalHistogram(h);
        }
        return bytes.toString(StandardCharsets.US_ASCII);
    }

    static RunCollector.Collected collected(RunPlan plan) {
        Map<String, String> logs = new LinkedHashMap<>();
        logs.put("server.hlog", input("server.hlog", () -> intervalLog(1, 2 * RATE_PER_CLIENT, 400_000, SLOW_SERVER_PERIOD)));
        Map<String, AgentInfo> infos = new LinkedHashMap<>();
        infos.put(AgentContract.ROLE_SERVER, new AgentInfo(AgentContract.ROLE_SERVER, "0.1.0", AgentInfo.MEASURED_BY_AGENT, 7L, "node-a",
                65532, "2", 1, 1, "6.18.0", new AgentInfo.Jvm("25.0.1+8", "Eclipse Adoptium", "OpenJDK", List.of(), 1L), START_AT_MS - 60_000,
                PERIOD_MS, List.of(AgentContract.SERIES_PROCESSING), Map.of()));
        Map<String, LoadRunStatus> runStatuses = new LinkedHashMap<>();
        List<AnalysisInput.ClientInput> clients = new ArrayList<>();
        for (RunPlan.ClientRole client : plan.clients()) {
            int index = clients.size();
            String responses = input(client.name() + "." + AgentContract.SERIES_RESPONSE_TIME + ".hlog", () -> intervalLog(10 + index, RATE_PER_CLIENT, 900_000));
            String lags = input(client.name() + "." + AgentContract.SERIES_SEND_LAG + ".hlog", () -> intervalLog(20 + index, RATE_PER_CLIENT, 20_000));
            logs.put(client.name() + "." + AgentContract.SERIES_RESPONSE_TIME + ".hlog", responses);
            logs.put(client.name() + "." + AgentContract.SERIES_SEND_LAG + ".hlog", lags);
            infos.put(client.name(), new AgentInfo(AgentContract.ROLE_CLIENT, "0.1.0", null, 8L + index, "node-b", 65532,
                    Integer.toString(3 + index), 1, 1, "6.18.0", null, START_AT_MS - 30_000, PERIOD_MS,
                    List.of(AgentContract.SERIES_RESPONSE_TIME, AgentContract.SERIES_SEND_LAG), Map.of()));
            long inWindow = WINDOW_PERIODS * RATE_PER_CLIENT;
            runStatuses.put(client.name(), new LoadRunStatus(LoadRunStatus.State.DONE, "http://10.0.0.2:8080/", RATE_PER_CLIENT, (double) RATE_PER_CLIENT,
                    (double) RATE_PER_CLIENT, 1, 16, inWindow + WARMUP_PERIODS * RATE_PER_CLIENT, inWindow + WARMUP_PERIODS * RATE_PER_CLIENT,
                    0L, false, inWindow + WARMUP_PERIODS * RATE_PER_CLIENT, inWindow, 0L, Map.of(), Map.of("2xx", inWindow), 0L, 4L, 0L,
                    null, START_AT_MS, null, null, null, null, null));
            clients.add(new AnalysisInput.ClientInput(client.name(), RATE_PER_CLIENT, HistogramLogs.parse(responses, PERIOD_MS),
                    HistogramLogs.parse(lags, PERIOD_MS), 0, null));
        }
        AnalysisInput input = new AnalysisInput(WINDOW_START_MS, WINDOW_END_MS, PERIOD_MS,
                Optional.of(HistogramLogs.parse(logs.get("server.hlog"), PERIOD_MS)), null, clients, plan.criteria());
        return new RunCollector.Collected(input, logs, infos, runStatuses)
                .placedAt(Map.of(AgentContract.ROLE_SERVER, new RunCollector.Placed("pacer/server-jetty12:0.1.0",
                        "registry.example.com/pacer/server-jetty12@sha256:0123", "node-a", 98_000_000L)));
    }

    @Test
    void resultJsonOfAKnownRun() throws IOException {
        RunPlan plan = plan();
        RunCollector.Collected collected = collected(plan);
        ResultDocument document = ResultDocument.of(plan, collected, Analysis.analyze(collected.input()), List.of("a note"));
        Golden.assertMatches(DocumentJson.MAPPER.writeValueAsString(document) + "\n", "result.json");
    }

    /** The report's page of the same run: its tables and its charts' data (the plot library, a pinned release, left out). */
    @Test
    void reportHtmlOfAKnownRun() throws IOException {
        RunPlan plan = plan();
        RunCollector.Collected collected = collected(plan);
        ResultDocument document = ResultDocument.of(plan, collected, Analysis.analyze(collected.input()), List.of("a note"));
        String html = HtmlReport.render(document);
        assertThat(html).contains(PlotChart.library());
        Golden.assertMatches(html.replace(PlotChart.library(), "<!-- PlotChart.library() -->\n"), "report.html");
    }

    @Test
    void percentileDistributionsOfAKnownRun() throws IOException {
        RunCollector.Collected collected = collected(plan());
        Map<String, String> hgrm = ResultDocument.percentileDistributions(collected);
        Golden.assertMatches(hgrm.get("server.hgrm"), "server.hgrm");
        Golden.assertMatches(hgrm.get("client-0." + AgentContract.SERIES_RESPONSE_TIME + ".hgrm"), "client-0.responseTime.hgrm");
    }

    /**
     * The server's integrals in the golden {@code result.json}, derived again from the committed {@code server.hlog}
     * with HdrHistogram's own log reader and nothing of pacer's (not its parser, not {@code Analysis}), by the
     * definitions of docs/methodology.md, which are jetty-perf's:
     * <ul>
     *   <li>the periods are the log's intervals that start inside the window [{@code WINDOW_START_MS},
     *       {@code WINDOW_END_MS});</li>
     *   <li>a period's P99 is {@code getValueAtPercentile(99)} in ns; the P99 integral is their sum, truncated once to
     *       µs ({@code Σ / 1000}); the max integral the same over {@code getMaxValue()};</li>
     *   <li>the corrected integral: the mean is {@code Σ / n} in ns (integer division), every period whose P99 exceeds
     *       twice the mean counts as the mean, and the sum is truncated once to µs; the outliers are those periods;</li>
     *   <li>each period's P99 in {@code periodP99Micros} is rounded to the nearest µs (for display).</li>
     * </ul>
     */
    @Test
    void theIntegralsAreWhatHdrHistogramAloneGivesFromTheCommittedLog() throws IOException {
        List<Long> p99s = new ArrayList<>();
        long maxSum = 0;
        try (InputStream log = Files.newInputStream(INPUTS.resolve("server.hlog"))) {
            HistogramLogReader reader = new HistogramLogReader(log);
            EncodableHistogram interval;
            while ((interval = reader.nextIntervalHistogram()) != null) {
                Histogram h = (Histogram) interval;
                if (h.getStartTimeStamp() >= WINDOW_START_MS && h.getStartTimeStamp() < WINDOW_END_MS) {
                    p99s.add(h.getValueAtPercentile(99));
                    maxSum += h.getMaxValue();
                }
            }
        }
        assertThat(p99s).as("the window's periods").hasSize((int) WINDOW_PERIODS);
        long sum = p99s.stream().mapToLong(Long::longValue).sum();
        long mean = sum / p99s.size();
        long corrected = p99s.stream().mapToLong(p -> p > 2 * mean ? mean : p).sum();
        long outliers = p99s.stream().filter(p -> p > 2 * mean).count();
        assertThat(outliers).as("the committed log's one slow period is an outlier").isEqualTo(1);

        JsonNode server = DocumentJson.MAPPER.readTree(Files.readString(Path.of("src/test/resources/golden/result.json"))).path("result").path("server");
        assertThat(server.path("p99IntegralMicros").asLong()).isEqualTo(sum / 1000);
        assertThat(server.path("maxIntegralMicros").asLong()).isEqualTo(maxSum / 1000);
        assertThat(server.path("p99IntegralCorrectedMicros").asLong()).isEqualTo(corrected / 1000);
        assertThat(server.path("p99IntegralOutlierPeriods").asInt()).isEqualTo(outliers);
        List<Long> periodMicros = new ArrayList<>();
        server.path("periodP99Micros").forEach(n -> periodMicros.add(n.asLong()));
        assertThat(periodMicros).isEqualTo(p99s.stream().map(p -> Math.round(p / 1000.0)).toList());
    }
}
