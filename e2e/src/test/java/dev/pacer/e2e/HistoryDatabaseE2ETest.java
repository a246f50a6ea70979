package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.cli.PacerCommand;
import dev.pacer.engine.history.Acknowledgement;
import dev.pacer.engine.history.ChangePointParameters;
import dev.pacer.engine.history.Figure;
import dev.pacer.engine.history.HistoryAnalysis;
import dev.pacer.engine.history.HistoryPoint;
import dev.pacer.engine.history.SeriesHistory;
import dev.pacer.engine.report.ResultDocument;
import dev.pacer.operator.history.HistoryRecorder;
import dev.pacer.operator.metrics.HistoryMetrics;
import dev.pacer.store.HistoryStore;
import dev.pacer.store.RecordedRun;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The history in a real PostgreSQL (Debian's): 30 results directories of one spec, as {@code pacer run} writes them
 * (result.json and the raw interval logs), whose P99 integral steps up 15 % at run 18 with a new server build; the
 * schema migrated by Flyway, each run recorded once with its merged histograms, read back into the same analysis as
 * the directories give, acknowledgements kept; and {@code pacer history --database --record} doing the same.
 */
class HistoryDatabaseE2ETest {
    static final int RUNS = 30;
    static final int STEP_AT = 18;
    static final long BASE_EPOCH_MS = 1_795_000_000_000L;
    static final int PERIODS = 10;

    @TempDir
    static Path dir;
    static Postgres postgres;
    static Path runs;

    @BeforeAll
    static void start() throws Exception {
        postgres = Postgres.start();
        runs = dir.resolve("runs");
        Random random = new Random(52);
        for (int i = 0; i < RUNS; i++) {
            double factor = (i >= STEP_AT ? 1.15 : 1) * Math.exp(0.02 * random.nextGaussian());
            write(runs.resolve(String.format(Locale.ROOT, "jetty-%02d", i)), i, factor);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (postgres != null) {
            postgres.close();
        }
    }

    static long windowStart(int index) {
        return BASE_EPOCH_MS + index * 60_000L;
    }

    /** One results directory: result.json and server.hlog, whose window's p99 is about 1 ms times {@code factor}. */
    static void write(Path directory, int index, double factor) throws Exception {
        Files.createDirectories(directory);
        String run = directory.getFileName().toString();
        String tag = index >= STEP_AT ? "0.2.0" : "0.1.0";
        long start = windowStart(index);
        Files.writeString(directory.resolve("result.json"), """
                {"run": "%1$s", "load": "1x1000", "samplePeriodMs": 1000,
                 "window": {"startEpochMs": %2$d, "endEpochMs": %3$d},
                 "result": {"verdict": "Passed", "window": {"startEpochMs": %2$d, "endEpochMs": %3$d},
                   "server": {"histogramsAvailable": true, "p99IntegralMicros": %4$d, "maxIntegralMicros": 60000, "maxMicros": 8000},
                   "clients": {"achievedRate": 1000.0, "offeredRate": 1000.0, "errors": 0}},
                 "spectra": {"server": [{"percentile": 50.0, "valueMicros": 100}, {"percentile": 90.0, "valueMicros": 200},
                   {"percentile": 99.0, "valueMicros": 800}, {"percentile": 99.9, "valueMicros": 2000}, {"percentile": 99.99, "valueMicros": 4000}]},
                 "manifest": {"pacerVersion": "0.1.0",
                   "plan": {"load": "1x1000", "server": {"image": "pacer/server-jetty12:%5$s", "args": ["--mode=core"], "measure": "agent"},
                            "clients": [{"name": "client-0", "ratePerSecond": 1000, "connections": 4}],
                            "request": {"method": "GET", "path": "/plaintext"}, "durationSeconds": 10.0, "samplePeriodMs": 1000},
                   "roles": {"server": {"image": "pacer/server-jetty12:%5$s", "imageId": "sha256:%5$s", "node": "n1",
                                        "kernel": "6.1.0", "jvm": "Eclipse Adoptium 25"},
                             "client-0": {"node": "n2"}}}}
                """.formatted(run, start, start + PERIODS * 1000L, Math.round(10_000 * factor), tag));
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        HistogramLogWriter writer = new HistogramLogWriter(new PrintStream(log, true, StandardCharsets.US_ASCII));
        writer.setBaseTime(start);
        writer.outputLogFormatVersion();
        writer.outputBaseTime(start);
        writer.outputLegend();
        Histogram period = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        for (int p = -2; p < PERIODS; p++) {   // two warm-up periods before the window, left out of the merge
            period.reset();
            for (int r = 0; r < 1000; r++) {
                period.recordValue(Math.round((r < 990 ? 100_000 : 1_000_000) * factor * (p < 0 ? 10 : 1)));
            }
            period.setStartTimeStamp(start + p * 1000L);
            period.setEndTimeStamp(start + (p + 1) * 1000L);
            writer.outputIntervalHistogram(period);
        }
        Files.writeString(directory.resolve("server.hlog"), log.toString(StandardCharsets.US_ASCII));
    }

    static List<HistoryPoint> fromDirectories() throws Exception {
        List<HistoryPoint> points = new ArrayList<>();
        try (Stream<Path> directories = Files.list(runs)) {
            for (Path d : directories.filter(Files::isDirectory).sorted().toList()) {
                points.add(HistoryPoint.of(ResultDocument.read(d)).orElseThrow());
            }
        }
        return points;
    }

    @Test
    void runsAreRecordedOnceWithTheirHistogramsAndAnalyseAsTheirDirectoriesDo() throws Exception {
        try (HistoryStore store = HistoryStore.open(postgres.jdbcUrl(), Postgres.USER, null)) {
            assertThat(store.schemaVersion()).as("V1 the history, V2 its changes").isEqualTo("2");
            int recorded = 0;
            for (int i = 0; i < RUNS; i++) {
                Path directory = runs.resolve(String.format(Locale.ROOT, "jetty-%02d", i));
                if (store.record(RecordedRun.fromResultsDirectory(directory, "bench/jetty-" + i + "/uid-" + i))) {
                    recorded++;
                }
            }
            assertThat(recorded).isEqualTo(RUNS);
            assertThat(store.record(RecordedRun.fromResultsDirectory(runs.resolve("jetty-00"), "bench/jetty-0/uid-0")))
                    .as("a run recorded again is left as it is").isFalse();

            List<HistoryPoint> stored = store.points();
            assertThat(stored).hasSize(RUNS);
            SeriesHistory fromDatabase = new HistoryAnalysis(ChangePointParameters.DEFAULTS).analyse(stored, List.of()).getFirst();
            SeriesHistory fromFiles = new HistoryAnalysis(ChangePointParameters.DEFAULTS).analyse(fromDirectories(), List.of()).getFirst();
            assertThat(fromDatabase.key()).isEqualTo(fromFiles.key());
            assertThat(fromDatabase.changes()).isEqualTo(fromFiles.changes());
            assertThat(fromDatabase.changes()).singleElement().satisfies(c -> {
                assertThat(c.figure()).isEqualTo(Figure.p99Integral);
                assertThat(c.firstRun()).isEqualTo("jetty-" + STEP_AT);
                assertThat(c.digestsBefore()).containsExactly("sha256:0.1.0");
                assertThat(c.digestsAfter()).containsExactly("sha256:0.2.0");
            });

            // the window's histogram, merged without the warm-up periods: any percentile can be asked of it later
            Histogram server = store.histogram("bench/jetty-" + STEP_AT + "/uid-" + STEP_AT, "server").orElseThrow();
            assertThat(server.getTotalCount()).isEqualTo(PERIODS * 1000L);
            assertThat(server.getValueAtPercentile(50)).isLessThan(200_000);
            assertThat(server.getMaxValue()).isLessThan(2_000_000);

            Acknowledgement seen = new Acknowledgement(fromDatabase.key().id(), Figure.p99Integral, "jetty-" + STEP_AT, "the new build, expected");
            store.acknowledge(seen);
            assertThat(store.acknowledgements()).containsExactly(seen);
            assertThat(new HistoryAnalysis(ChangePointParameters.DEFAULTS).analyse(store.points(), store.acknowledgements()).getFirst().alerting())
                    .isEmpty();
        }
    }

    @Test
    void theCommandLineRecordsLocalRunsAndReadsTheDatabase() throws Exception {
        try (Postgres second = Postgres.start()) {
            StringWriter recorded = new StringWriter();
            StringWriter err = new StringWriter();
            int code = new picocli.CommandLine(new PacerCommand()).setOut(new PrintWriter(recorded)).setErr(new PrintWriter(err))
                    .execute("history", "--database", second.jdbcUrl(), "--record", "--fail-on-change", runs.toString());
            assertThat(code).as(err.toString()).isEqualTo(4);
            assertThat(err.toString()).contains("recorded " + RUNS + " new run(s)");
            assertThat(recorded.toString()).contains("30 runs", "confirmed regression");

            StringWriter again = new StringWriter();
            StringWriter againErr = new StringWriter();
            new picocli.CommandLine(new PacerCommand()).setOut(new PrintWriter(again)).setErr(new PrintWriter(againErr))
                    .execute("history", "--database", second.jdbcUrl(), "--record", runs.toString());
            assertThat(againErr.toString()).contains("recorded 0 new run(s)");
            assertThat(again.toString()).isEqualTo(recorded.toString());
        }
    }

    /** The operator's side: a finished run's published result and files recorded when it opted in, once; a database down fails no run. */
    @Test
    void theOperatorRecordsTheRunsThatOptedInAndSaysWhenTheDatabaseIsDown() throws Exception {
        try (Postgres third = Postgres.start()) {
            Path directory = runs.resolve("jetty-05");
            ResultDocument document = ResultDocument.read(directory);
            Map<String, String> files = Map.of("server.hlog", Files.readString(directory.resolve("server.hlog")));
            BenchmarkRun run = new BenchmarkRun();
            run.setMetadata(new ObjectMetaBuilder().withNamespace("bench").withName("jetty-05").withUid("uid-5").build());

            HistoryRecorder labelled = new HistoryRecorder(new HistoryRecorder.Settings(third.jdbcUrl(), Postgres.USER, null, false));
            assertThat(labelled.record(run, document, files).series()).as("not labelled: not recorded").isNull();
            run.getMetadata().setLabels(Map.of(HistoryRecorder.LABEL, "true"));
            assertThat(labelled.record(run, document, files).problem()).isNull();
            assertThat(labelled.record(run, document, files).series().points()).as("recorded once").hasSize(1);
            try (HistoryStore store = HistoryStore.open(third.jdbcUrl(), Postgres.USER, null)) {
                assertThat(store.points()).extracting(HistoryPoint::run).containsExactly("jetty-05");
                assertThat(store.histogram("bench/jetty-05/uid-5", "server")).isPresent();
            }

            HistoryRecorder down = new HistoryRecorder(new HistoryRecorder.Settings("jdbc:postgresql://127.0.0.1:1/none", Postgres.USER, "secret", true));
            assertThat(down.record(run, document, files).problem())
                    .startsWith("the history's database (jdbc:postgresql://127.0.0.1:1/none): ").doesNotContain("secret");
        }
    }

    /**
     * Every run of the series recorded as the operator records them, one by one: the step is told once confirmed, as
     * an alerting regression (the run's event and the metrics), and no more once acknowledged.
     */
    @Test
    void aConfirmedRegressionAlertsUntilAcknowledged() throws Exception {
        try (Postgres fourth = Postgres.start()) {
            SteppedClock clock = new SteppedClock(Instant.ofEpochMilli(BASE_EPOCH_MS + RUNS * 60_000L));
            HistoryRecorder recorder = new HistoryRecorder(new HistoryRecorder.Settings(fourth.jdbcUrl(), Postgres.USER, null, true), clock);
            List<Integer> alertingAfter = new ArrayList<>();
            HistoryRecorder.Recording last = null;
            for (int i = 0; i < RUNS; i++) {
                String name = String.format(Locale.ROOT, "jetty-%02d", i);
                Path directory = runs.resolve(name);
                BenchmarkRun run = new BenchmarkRun();
                run.setMetadata(new ObjectMetaBuilder().withNamespace("bench").withName(name).withUid("uid-" + i).build());
                last = recorder.record(run, ResultDocument.read(directory), Map.of("server.hlog", Files.readString(directory.resolve("server.hlog"))));
                if (!last.alerting().isEmpty()) {
                    alertingAfter.add(i);
                }
            }
            int confirmRuns = ChangePointParameters.DEFAULTS.confirmRuns();
            assertThat(alertingAfter).as("alerting from the run that confirms the step on").first()
                    .isEqualTo(STEP_AT + confirmRuns - 1);
            SeriesHistory.Change change = last.alerting().getFirst();
            assertThat(HistoryRecorder.sentence(last.series(), change)).contains("p99Integral +1", "from run jetty-18 on, after jetty-17",
                    "server builds sha256:0.1.0 then sha256:0.2.0", "--acknowledge " + last.series().key().id() + ":p99Integral:jetty-18");
            String metrics = exposition(HistoryMetrics.snapshots(recorder.series()));
            assertThat(metrics).contains("pacer_history_regressions{label=", "} 1.0", "pacer_history_runs{", "} 30.0",
                    "pacer_history_regression_ratio{figure=\"p99Integral\",first_run=\"jetty-18\"");

            assertThat(changeRows(fourth, last.series().key().id())).as("the changes table, what Grafana annotates")
                    .contains("p99Integral jetty-18 " + ResultDocument.read(runs.resolve("jetty-18")).result().window.endEpochMs
                            + " confirmed regression acknowledged=false");
            BenchmarkRun first = new BenchmarkRun();
            first.setMetadata(new ObjectMetaBuilder().withNamespace("bench").withName("jetty-00").withUid("uid-0").build());
            assertThat(new HistoryRecorder(new HistoryRecorder.Settings(fourth.jdbcUrl(), Postgres.USER, null, true)).seriesOf(first))
                    .as("a schedule's run found in its series from the database alone (a restarted operator)")
                    .hasValueSatisfying(series -> assertThat(series.alerting()).hasSize(1));
            try (HistoryStore store = HistoryStore.open(fourth.jdbcUrl(), Postgres.USER, null)) {   // as pacer history --acknowledge does
                store.acknowledge(new Acknowledgement(last.series().key().id(), Figure.p99Integral, "jetty-18", null));
            }
            clock.advance(HistoryRecorder.ACKNOWLEDGEMENTS_READ_EVERY.minusSeconds(1));
            assertThat(exposition(HistoryMetrics.snapshots(recorder.series()))).as("read again at most every %s",
                    HistoryRecorder.ACKNOWLEDGEMENTS_READ_EVERY).contains("pacer_history_regression_ratio{figure=\"p99Integral\"");
            clock.advance(Duration.ofSeconds(1));
            assertThat(exposition(HistoryMetrics.snapshots(recorder.series()))).as("the acknowledgement read again, no run recorded")
                    .contains("pacer_history_regressions{").doesNotContain("pacer_history_regression_ratio");
            assertThat(changeRows(fourth, last.series().key().id())).anySatisfy(row -> assertThat(row).startsWith("p99Integral jetty-18 ")
                    .endsWith("acknowledged=true"));
            assertThat(recorder.seriesOf(first)).as("what a schedule's Regressed condition reads")
                    .hasValueSatisfying(series -> assertThat(series.alerting()).isEmpty());
            Path directory = runs.resolve("jetty-29");
            BenchmarkRun again = new BenchmarkRun();
            again.setMetadata(new ObjectMetaBuilder().withNamespace("bench").withName("jetty-29").withUid("uid-29").build());
            HistoryRecorder.Recording acknowledged = recorder.record(again, ResultDocument.read(directory),
                    Map.of("server.hlog", Files.readString(directory.resolve("server.hlog"))));
            assertThat(acknowledged.alerting()).isEmpty();
            assertThat(changeRows(fourth, last.series().key().id())).anySatisfy(row -> assertThat(row).startsWith("p99Integral jetty-18 ")
                    .endsWith("acknowledged=true"));
            assertThat(exposition(HistoryMetrics.snapshots(recorder.series()))).contains("pacer_history_regressions{")
                    .doesNotContain("pacer_history_regression_ratio");
        }
    }

    static String exposition(io.prometheus.metrics.model.snapshots.MetricSnapshots snapshots) throws java.io.IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter.create().write(out, snapshots,
                io.prometheus.metrics.config.EscapingScheme.ALLOW_UTF8);
        return out.toString(StandardCharsets.UTF_8);
    }

    /** The changes table's rows of a series, as SQL alone reads them: "figure first_run at_epoch_ms status kind acknowledged=...". */
    private static List<String> changeRows(Postgres postgres, String series) throws Exception {
        List<String> rows = new ArrayList<>();
        try (var connection = java.sql.DriverManager.getConnection(postgres.jdbcUrl(), Postgres.USER, null);
             var query = connection.prepareStatement("SELECT figure, first_run, at_epoch_ms, status, regression, acknowledged FROM changes "
                     + "WHERE series_id = ? ORDER BY at_epoch_ms, figure")) {
            query.setString(1, series);
            try (var rs = query.executeQuery()) {
                while (rs.next()) {
                    rows.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getLong(3) + " " + rs.getString(4) + " "
                            + (rs.getBoolean(5) ? "regression" : "improvement") + " acknowledged=" + rs.getBoolean(6));
                }
            }
        }
        return rows;
    }
}
