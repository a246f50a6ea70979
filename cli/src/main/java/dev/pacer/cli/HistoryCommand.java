package dev.pacer.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.pacer.engine.history.Acknowledgement;
import dev.pacer.engine.history.ChangePointParameters;
import dev.pacer.engine.history.Figure;
import dev.pacer.engine.history.HistoryAnalysis;
import dev.pacer.engine.history.HistoryPoint;
import dev.pacer.engine.history.SeriesHistory;
import dev.pacer.engine.json.DocumentJson;
import dev.pacer.engine.report.ResultDocument;
import dev.pacer.store.HistoryStore;
import dev.pacer.store.RecordedRun;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code pacer history [DIR...]}: the finished runs under results directories (by default {@code runs/}) as series of
 * comparable runs, each with its change points, outliers and their sizes (docs/history.md). No server: the results
 * directories are the history; or PostgreSQL ({@code --database}), where the operator records a cluster's runs and
 * {@code --record} adds local ones. {@code --fail-on-change} gates CI; {@code --acknowledge} marks a change as seen.
 */
@Command(name = "history", description = "The runs under results directories (default: runs/) as series over time, with their change points and outliers.")
final class HistoryCommand implements Callable<Integer> {
    /** Where acknowledgements are kept, in the first directory. */
    static final String ACKNOWLEDGED_FILE = "history-acknowledged.json";
    /** Deep enough for runs/NAME/result.json and runs/SUITE/RUN/result.json. */
    private static final int MAX_DEPTH = 4;
    private static final HistoryAnalysis ANALYSIS = new HistoryAnalysis(ChangePointParameters.DEFAULTS);

    enum Format { text, json, markdown }

    @Option(names = "--format", defaultValue = "text", description = "text (default), json or markdown")
    Format format;

    @Option(names = "--fail-on-change", description = "exit 4 when a confirmed regression has not been acknowledged")
    boolean failOnChange;

    @Option(names = "--series", paramLabel = "ID", description = "only this series (its id, as printed)")
    String seriesId;

    @Option(names = "--acknowledge", paramLabel = "SERIES:FIGURE:RUN",
            description = "acknowledge the change of FIGURE in SERIES whose first run after it is RUN (kept in DIR/" + ACKNOWLEDGED_FILE + "), then print the history")
    String acknowledge;

    @Option(names = "--note", paramLabel = "TEXT", description = "why, with --acknowledge")
    String note;

    @Option(names = "--database", paramLabel = "JDBC_URL",
            description = "read the history from PostgreSQL (jdbc:postgresql://host:5432/db) instead of the directories; "
                    + "the password from the environment variable " + PASSWORD_VARIABLE)
    String database;

    @Option(names = "--database-user", paramLabel = "USER", defaultValue = "pacer", description = "the database user (default pacer)")
    String databaseUser;

    @Option(names = "--record", description = "with --database: first record the runs found under the directories (each once)")
    boolean record;

    @Parameters(arity = "0..*", paramLabel = "DIR", description = "Directories holding results directories (default: runs/ under pacer's home)")
    List<Path> directories;

    /** Never an option: a password on a command line shows in every process list. */
    static final String PASSWORD_VARIABLE = "PACER_HISTORY_PASSWORD";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<Path> roots = directories == null || directories.isEmpty() ? List.of(LocalApps.home().resolve("runs")) : directories;
        for (Path root : roots) {
            if (!Files.isDirectory(root) && (database == null || record)) {
                err.println("pacer history: " + root + " is not a directory: give the directories your runs were written to (pacer run -o)");
                return PacerCommand.EXIT_BAD_INPUT;
            }
        }
        if (record && database == null) {
            err.println("pacer history: --record writes to a database: give --database jdbc:postgresql://HOST:PORT/DB");
            return PacerCommand.EXIT_BAD_INPUT;
        }
        Acknowledgement wanted = null;
        if (acknowledge != null) {
            String[] parts = acknowledge.split(":", 3);
            Figure figure = parts.length == 3 ? figure(parts[1]) : null;
            if (figure == null) {
                err.println("pacer history: --acknowledge wants SERIES:FIGURE:RUN, FIGURE one of " + List.of(Figure.values())
                        + ", as the history prints them (got '" + acknowledge + "')");
                return PacerCommand.EXIT_BAD_INPUT;
            }
            wanted = new Acknowledgement(parts[0], figure, parts[2], note);
        }
        List<HistoryPoint> points = new ArrayList<>();
        Map<String, Integer> skipped = new TreeMap<>();
        List<SeriesHistory> analysed;
        if (database == null || record) {
            for (Path directory : resultsDirectories(roots)) {
                ResultDocument document = ResultDocument.read(directory);
                String reason = HistoryPoint.reasonNotAPoint(document);
                if (reason == null) {
                    points.add(HistoryPoint.of(document).orElseThrow());
                } else {
                    skipped.merge(reason, 1, Integer::sum);
                }
            }
        }
        if (database != null) {
            try (HistoryStore store = HistoryStore.open(database, databaseUser, System.getenv(PASSWORD_VARIABLE))) {
                if (record) {
                    int recorded = recordRuns(store, roots);
                    err.println("pacer history: recorded " + recorded + " new run(s) in " + database);
                }
                if (wanted != null) {
                    store.acknowledge(wanted);
                    err.println("pacer history: acknowledged " + acknowledge + " in " + database);
                }
                analysed = ANALYSIS.analyse(store.points(), store.acknowledgements());
                analysed.forEach(store::replaceChanges);   // what the history dashboard draws, as the operator leaves it
            }
        } else {
            Path acknowledgedFile = roots.getFirst().resolve(ACKNOWLEDGED_FILE);
            List<Acknowledgement> acknowledged = readAcknowledged(acknowledgedFile);
            if (wanted != null) {
                acknowledged.add(wanted);
                DocumentJson.MAPPER.writeValue(acknowledgedFile.toFile(), acknowledged);
                err.println("pacer history: acknowledged " + acknowledge + " in " + acknowledgedFile);
            }
            analysed = ANALYSIS.analyse(points, acknowledged);
        }
        List<SeriesHistory> histories = analysed.stream().filter(h -> seriesId == null || h.key().id().equals(seriesId)).toList();
        switch (format) {
            case json -> out.println(DocumentJson.MAPPER.writeValueAsString(json(histories, skipped, ANALYSIS.parameters())));
            case markdown -> markdown(out, histories);
            case text -> text(out, histories, skipped);
        }
        out.flush();
        boolean alerting = histories.stream().anyMatch(h -> !h.alerting().isEmpty());
        return failOnChange && alerting ? CompareCommand.EXIT_REGRESSION : PacerCommand.EXIT_OK;
    }

    /** Every results directory under the roots that the history keeps, recorded once; how many were new. */
    private static int recordRuns(HistoryStore store, List<Path> roots) throws IOException {
        int recorded = 0;
        for (Path directory : resultsDirectories(roots)) {
            if (HistoryPoint.reasonNotAPoint(ResultDocument.read(directory)) == null
                    && store.record(RecordedRun.fromResultsDirectory(directory, directory.toAbsolutePath().normalize().toString()))) {
                recorded++;
            }
        }
        return recorded;
    }

    /** Every directory holding a result.json under the roots, in order. */
    private static List<Path> resultsDirectories(List<Path> roots) throws IOException {
        List<Path> directories = new ArrayList<>();
        for (Path root : roots) {
            try (Stream<Path> files = Files.walk(root, MAX_DEPTH)) {
                files.filter(f -> f.getFileName().toString().equals(ResultDocument.FILE_NAME)).sorted().forEach(f -> directories.add(f.getParent()));
            }
        }
        return directories;
    }

    private static Figure figure(String name) {
        for (Figure f : Figure.values()) {
            if (f.name().equals(name)) {
                return f;
            }
        }
        return null;
    }

    private static List<Acknowledgement> readAcknowledged(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            return new ArrayList<>();
        }
        return new ArrayList<>(DocumentJson.MAPPER.readValue(file.toFile(), new TypeReference<List<Acknowledgement>>() { }));
    }

    private static void text(PrintWriter out, List<SeriesHistory> histories, Map<String, Integer> skipped) {
        if (histories.isEmpty()) {
            out.println("no finished runs with figures found");
        }
        for (SeriesHistory h : histories) {
            HistoryPoint first = h.points().getFirst();
            HistoryPoint last = h.points().getLast();
            out.printf(Locale.ROOT, "series %s  %s%n", h.key().id(), h.key().label());
            out.printf(Locale.ROOT, "  %d runs, %s … %s; server builds: %d%n", h.points().size(), time(first.endEpochMs()), time(last.endEpochMs()),
                    h.points().stream().map(HistoryPoint::serverDigest).distinct().count());
            out.printf(Locale.ROOT, "  last: %s  P99 integral %.3f ms  max integral %.3f ms  achieved %.0f req/s  errors %.0f%n", last.run(),
                    last.figures().get(Figure.p99Integral) / 1000, last.figures().get(Figure.maxIntegral) / 1000,
                    last.figures().get(Figure.achievedRate), last.figures().get(Figure.errors));
            if (!h.spreads().isEmpty()) {
                out.printf(Locale.ROOT, "  run-to-run spread (sd of the logs, between changes): %s%n", String.join(", ",
                        h.spreads().entrySet().stream().map(e -> String.format(Locale.ROOT, "%s %.3f", e.getKey(), e.getValue())).toList()));
            }
            h.outliers().forEach((figure, runs) -> {
                if (!runs.isEmpty()) {
                    out.printf(Locale.ROOT, "  outliers of %s (left out): %s%n", figure, String.join(", ", runs));
                }
            });
            if (h.changes().isEmpty()) {
                out.println("  no change");
            }
            for (SeriesHistory.Change c : h.changes()) {
                out.printf(Locale.ROOT, "  %s%n", sentence(c));
            }
            out.println();
        }
        if (!skipped.isEmpty()) {
            out.println("not in any series: " + skipped.entrySet().stream().map(e -> e.getValue() + " (" + e.getKey() + ")").toList());
        }
    }

    /** "p99Integral +10.2 % [+8.1 %, +12.3 %] from run-b (after run-a, 12 runs after), p 2.1e-06: confirmed regression". */
    static String sentence(SeriesHistory.Change c) {
        return String.format(Locale.ROOT, "%s%s %+.1f %% [%+.1f %%, %+.1f %%] from %s (after %s; %d runs since), p %.1e: %s %s%s; builds %s → %s",
                c.figure(), c.percentile() == null ? "" : " " + c.percentile(), c.shift() * 100, c.shiftLow() * 100, c.shiftHigh() * 100,
                c.firstRun(), c.lastRunBefore(), c.runsAfter(), c.p(), c.status(), c.regression() ? "regression" : "improvement",
                c.acknowledged() ? ", acknowledged" : "", String.join(",", c.digestsBefore()), String.join(",", c.digestsAfter()));
    }

    private static void markdown(PrintWriter out, List<SeriesHistory> histories) {
        out.println("| series | runs | figure | change (95 % interval) | first run after | runs since | p | status |");
        out.println("|---|---|---|---|---|---|---|---|");
        for (SeriesHistory h : histories) {
            if (h.changes().isEmpty()) {
                out.printf(Locale.ROOT, "| `%s` %s | %d | | no change | | | | |%n", h.key().id(), h.key().label(), h.points().size());
            }
            for (SeriesHistory.Change c : h.changes()) {
                out.printf(Locale.ROOT, "| `%s` %s | %d | %s%s | %+.1f %% (%+.1f %% to %+.1f %%) | %s | %d | %.1e | %s %s%s |%n", h.key().id(),
                        h.key().label(), h.points().size(), c.figure(), c.percentile() == null ? "" : " " + c.percentile(), c.shift() * 100,
                        c.shiftLow() * 100, c.shiftHigh() * 100, c.firstRun(), c.runsAfter(), c.p(), c.status(),
                        c.regression() ? "regression" : "improvement", c.acknowledged() ? ", acknowledged" : "");
            }
        }
    }

    private static Map<String, Object> json(List<SeriesHistory> histories, Map<String, Integer> skipped, ChangePointParameters parameters) {
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("parameters", parameters);
        document.put("series", histories.stream().map(h -> {
            Map<String, Object> series = new LinkedHashMap<>();
            series.put("id", h.key().id());
            series.put("label", h.key().label());
            series.put("key", h.key().fields());
            series.put("runs", h.points().stream().map(p -> {
                Map<String, Object> run = new LinkedHashMap<>();
                run.put("run", p.run());
                run.put("endEpochMs", p.endEpochMs());
                run.put("serverImage", p.serverImage());
                run.put("serverDigest", p.serverDigest());
                run.put("verdict", p.verdict());
                run.put("figures", p.figures());
                run.put("spectrumMicros", p.spectrumMicros());
                return run;
            }).toList());
            series.put("outliers", h.outliers());
            series.put("spreads", h.spreads());
            series.put("changes", h.changes());
            return series;
        }).toList());
        document.put("skipped", skipped);
        return document;
    }

    private static String time(long epochMs) {
        return DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneOffset.UTC).format(Instant.ofEpochMilli(epochMs)) + "Z";
    }
}
