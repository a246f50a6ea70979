package dev.pacer.engine.report;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.contract.AgentContract;
import dev.pacer.contract.AgentInfo;
import dev.pacer.contract.Golden;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.engine.agents.RunCollector;
import dev.pacer.engine.analysis.Analysis;
import dev.pacer.engine.analysis.AnalysisInput;
import dev.pacer.engine.analysis.HistogramLogs;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.plan.RunPlanner;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.junit.jupiter.api.Test;

/**
 * The result of a run as pacer writes it, pinned by golden files in the manner of HdrHistogram's log tests: a run of
 * known histograms (seeded, so the same on every machine), written as interval logs the way agents serve them, read
 * back by the collector's parser, analysed, and turned into {@code result.json} and the window's {@code .hgrm}
 * percentile distributions. A change to a figure, its name or its definition shows here as a diff to review.
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

    /** An interval log of every period from the start to the window's end, as an agent serves it; values from {@code seed}. */
    static String intervalLog(long seed, int perPeriod, long medianNanos) {
        Random random = new Random(seed);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.US_ASCII);
        HistogramLogWriter writer = new HistogramLogWriter(out);
        writer.setBaseTime(0);
        writer.outputLogFormatVersion();
        writer.outputLegend();
        for (long start = START_AT_MS; start < WINDOW_END_MS; start += PERIOD_MS) {
            Histogram h = new Histogram(60_000_000_000L, 3);
            for (int i = 0; i < perPeriod; i++) {
                // a log-normal spread around the median (StrictMath: the same bits on every machine), one slow request in a hundred
                long value = Math.round(medianNanos * StrictMath.exp(0.4 * random.nextGaussian())) * (i % 100 == 99 ? 8 : 1);
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
        logs.put("server.hlog", intervalLog(1, 2 * RATE_PER_CLIENT, 400_000));
        Map<String, AgentInfo> infos = new LinkedHashMap<>();
        infos.put(AgentContract.ROLE_SERVER, new AgentInfo(AgentContract.ROLE_SERVER, "0.1.0", AgentInfo.MEASURED_BY_AGENT, 7L, "node-a",
                65532, "2", 1, 1, "6.18.0", new AgentInfo.Jvm("25.0.1+8", "Eclipse Adoptium", "OpenJDK", List.of(), 1L), START_AT_MS - 60_000,
                PERIOD_MS, List.of(AgentContract.SERIES_PROCESSING), Map.of()));
        Map<String, LoadRunStatus> runStatuses = new LinkedHashMap<>();
        List<AnalysisInput.ClientInput> clients = new ArrayList<>();
        for (RunPlan.ClientRole client : plan.clients()) {
            int index = clients.size();
            String responses = intervalLog(10 + index, RATE_PER_CLIENT, 900_000);
            String lags = intervalLog(20 + index, RATE_PER_CLIENT, 20_000);
            logs.put(client.name() + "." + AgentContract.SERIES_RESPONSE_TIME + ".hlog", responses);
            logs.put(client.name() + "." + AgentContract.SERIES_SEND_LAG + ".hlog", lags);
            infos.put(client.name(), new AgentInfo(AgentContract.ROLE_CLIENT, "0.1.0", null, 8L + index, "node-b", 65532,
                    Integer.toString(3 + index), 1, 1, "6.18.0", null, START_AT_MS - 30_000, PERIOD_MS,
                    List.of(AgentContract.SERIES_RESPONSE_TIME, AgentContract.SERIES_SEND_LAG), Map.of()));
            long inWindow = WINDOW_PERIODS * RATE_PER_CLIENT;
            runStatuses.put(client.name(), new LoadRunStatus(LoadRunStatus.State.DONE, "http://10.0.0.2:8080/", RATE_PER_CLIENT, (double) RATE_PER_CLIENT,
                    (double) RATE_PER_CLIENT, 1, 16, inWindow + WARMUP_PERIODS * RATE_PER_CLIENT, inWindow + WARMUP_PERIODS * RATE_PER_CLIENT,
                    0L, false, inWindow + WARMUP_PERIODS * RATE_PER_CLIENT, inWindow, 0L, Map.of(), Map.of("2xx", inWindow), 0L, 4L, 0L,
                    null, START_AT_MS, null));
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
        Golden.assertMatches(ResultDocument.JSON.writeValueAsString(document) + "\n", "result.json");
    }

    @Test
    void percentileDistributionsOfAKnownRun() throws IOException {
        RunCollector.Collected collected = collected(plan());
        Map<String, String> hgrm = ResultDocument.percentileDistributions(collected);
        Golden.assertMatches(hgrm.get("server.hgrm"), "server.hgrm");
        Golden.assertMatches(hgrm.get("client-0." + AgentContract.SERIES_RESPONSE_TIME + ".hgrm"), "client-0.responseTime.hgrm");
    }
}
