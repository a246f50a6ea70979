package dev.pacer.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;

import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.api.ComparedSeries;
import dev.pacer.api.Measure;
import dev.pacer.api.RunResult;
import dev.pacer.engine.analysis.HistogramLogs;
import dev.pacer.engine.analysis.Integrals;
import dev.pacer.engine.analysis.PeriodComparison;
import dev.pacer.engine.analysis.PeriodPoint;
import dev.pacer.engine.report.ComparisonPage;
import dev.pacer.engine.report.ResultDocument;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/**
 * {@code pacer compare DIR|FILE...}: runs side by side (local results directories, or finished BenchmarkRuns saved
 * with {@code kubectl get br NAME -o yaml}), each figure's difference from the first run, and whether the
 * difference of the per-period server P99s exceeds run-to-run noise: a two-sided Mann–Whitney U test (rank test, no
 * normality assumed) over the periods of the two runs, significant when p &lt; {@value #SIGNIFICANCE}, with the
 * Hodges–Lehmann shift and its 95 % interval as the effect size.
 *
 * <p>For CI: {@code --format json|markdown}; {@code --fail-on-regression PCT} exits {@value #EXIT_REGRESSION} when a
 * run's shift exceeds PCT % of the baseline's median and the test finds it significant; {@code --expect-p99-integral
 * MS --margin PCT [--tolerated-outliers N]} checks every run's P99 integral against an expected one (jetty-perf's
 * baseline), its N highest outlier periods (P99 above twice the mean) replaced by the mean, and exits
 * {@value #EXIT_REGRESSION} when one lies outside the margin.
 */
@Command(name = "compare", description = "Compare results directories or finished BenchmarkRuns: figures, differences and a rank test of the per-period P99s.")
final class CompareCommand implements Callable<Integer> {
    static final double SIGNIFICANCE = PeriodComparison.SIGNIFICANCE;
    /** A regression or a baseline missed ({@code --fail-on-regression}, {@code --expect-p99-integral}). */
    static final int EXIT_REGRESSION = 4;

    enum Format { text, json, markdown }

    @CommandLine.Option(names = "--format", defaultValue = "text", description = "text (default), json or markdown")
    Format format;

    @CommandLine.Option(names = "--fail-on-regression", paramLabel = "PCT",
            description = "exit 4 when a run's per-period P99 is slower than the first run's by more than PCT %% (Hodges-Lehmann shift) and significantly so")
    Double failOnRegressionPercent;

    @CommandLine.Option(names = "--expect-p99-integral", paramLabel = "MS",
            description = "the expected P99 integral in ms: exit 4 when a run's lies outside --margin")
    Double expectedP99IntegralMillis;

    @CommandLine.Option(names = "--margin", paramLabel = "PCT", defaultValue = "10", description = "the expected integral's margin, %% (default 10)")
    double marginPercent;

    @CommandLine.Option(names = "--tolerated-outliers", paramLabel = "N", defaultValue = "2",
            description = "outlier periods (P99 above twice the mean) replaced by the mean before the expected integral is checked (default 2)")
    int toleratedOutliers;

    @CommandLine.Option(names = "--series", paramLabel = "SERIES",
            description = "the server series compared, for every run: processing (pacer's agent), service or residence (the kernel probe); "
                    + "default: service when a run was measured by the probe alone, else processing")
    String series;

    @CommandLine.Option(names = "--html", paramLabel = "FILE",
            description = "also write a page overlaying the runs' percentile spectra and per-period server P99s")
    Path html;

    @Parameters(arity = "2..*", paramLabel = "DIR|FILE", description = "Results directories, or BenchmarkRuns with their status"
            + " (kubectl get br NAME -o yaml > NAME.yaml); the first is the baseline.")
    List<Path> directories;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        List<ResultDocument> runs = new ArrayList<>();
        try {
            for (Path path : directories) {
                runs.add(Files.isDirectory(path) ? ResultDocument.read(path)
                        : ResultDocument.fromBenchmarkRun(BenchmarkRunYaml.read(path), path.toString()));
            }
        } catch (IOException e) {
            spec.commandLine().getErr().println("pacer: " + e.getMessage());
            return PacerCommand.EXIT_BAD_INPUT;
        }
        if (marginPercent < 0 || toleratedOutliers < 0 || (failOnRegressionPercent != null && failOnRegressionPercent < 0)) {
            spec.commandLine().getErr().println("pacer: --margin, --tolerated-outliers and --fail-on-regression must not be negative");
            return PacerCommand.EXIT_BAD_INPUT;
        }
        ComparedSeries compared;
        try {
            compared = series(runs, series);
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("pacer: " + e.getMessage());
            return PacerCommand.EXIT_BAD_INPUT;
        }
        List<List<Long>> serverP99Nanos = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            serverP99Nanos.add(serverP99Nanos(directories.get(i), runs.get(i), compared));
        }
        ComparisonReport report = ComparisonReport.of(runs, compared, serverP99Nanos, failOnRegressionPercent, expectedP99IntegralMillis,
                marginPercent, toleratedOutliers);
        out.print(switch (format) {
            case text -> render(runs, compared) + report.text();
            case json -> report.json();
            case markdown -> report.markdown();
        });
        if (html != null) {
            try {
                ComparisonPage.write(runs, render(runs, compared) + report.text(), html);
                (format == Format.text ? out : spec.commandLine().getErr()).println("page: " + html);
            } catch (IOException e) {
                spec.commandLine().getErr().println("pacer: writing " + html + ": " + e.getMessage());
                return PacerCommand.EXIT_BAD_INPUT;
            }
        }
        out.flush();
        return report.failures().isEmpty() ? PacerCommand.EXIT_OK : EXIT_REGRESSION;
    }

    /**
     * The series every run is compared by: the one named, or the one the runs' measures give; refused when a run has no
     * such series, naming the runs and the fix.
     */
    static ComparedSeries series(List<ResultDocument> runs, String named) {
        List<Measure> measures = runs.stream().map(d -> d.result().server == null ? Measure.NONE
                : Measure.parse(d.result().server.measuredBy).orElse(Measure.AGENT)).toList();
        ComparedSeries series = ComparedSeries.of(named, measures);
        List<String> without = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            if (runs.get(i).result().server != null && runs.get(i).result().server.histogramsAvailable
                    && series.in(runs.get(i).result().server).isEmpty()) {
                without.add(runs.get(i).run() + " (measure: " + measures.get(i).spec() + ")");
            }
        }
        if (!without.isEmpty()) {
            throw new IllegalArgumentException("compare: " + String.join(", ", without) + " have no " + series.spec() + " series"
                    + (named == null ? " (compared since a run was measured by the probe alone)" : "") + ": run them with "
                    + series.needs() + ", or compare another series with --series");
        }
        return series;
    }

    static String render(List<ResultDocument> runs, ComparedSeries series) {
        StringBuilder text = new StringBuilder();
        text.append("server series: ").append(series.spec()).append(series == ComparedSeries.PROCESSING
                ? " (pacer's agent in the server)" : " (the kernel probe at the socket)").append(", every run's\n");
        text.append(String.format(Locale.ROOT, "%-28s", "figure"));
        for (ResultDocument run : runs) {
            text.append(String.format(Locale.ROOT, " %22s", abbreviate(run.run() + " " + run.load(), 22)));
        }
        text.append('\n');
        row(text, runs, "verdict", d -> null, d -> String.valueOf(d.result().verdict));
        numberRow(text, runs, "P99 integral ms", d -> micros(figure(d, series, ComparedSeries.Figures::p99IntegralMicros)));
        numberRow(text, runs, "P99 integral corrected ms", d -> {
            List<Long> periods = figure(d, series, ComparedSeries.Figures::periodP99Micros);
            return periods == null || periods.isEmpty() ? null : Integrals.corrected(periods.stream().map(p -> p * 1000).toList()).micros() / 1000.0;
        });
        numberRow(text, runs, "max integral ms", d -> micros(figure(d, series, ComparedSeries.Figures::maxIntegralMicros)));
        numberRow(text, runs, "server p50 ms", d -> micros(figure(d, series, ComparedSeries.Figures::p50Micros)));
        numberRow(text, runs, "server p99 ms", d -> micros(figure(d, series, ComparedSeries.Figures::p99Micros)));
        numberRow(text, runs, "server max ms", d -> micros(figure(d, series, ComparedSeries.Figures::maxMicros)));
        numberRow(text, runs, "client p99 ms", d -> micros(d.result().clients.p99Micros));
        numberRow(text, runs, "client max ms", d -> micros(d.result().clients.maxMicros));
        numberRow(text, runs, "client P99 integral ms", d -> micros(d.result().clients.p99IntegralMicros));
        numberRow(text, runs, "  uncorrected ms", d -> micros(d.result().clients.p99UncorrectedIntegralMicros));
        numberRow(text, runs, "achieved req/s", d -> d.result().clients.achievedRate);
        numberRow(text, runs, "errors", d -> d.result().clients.errors == null ? null : d.result().clients.errors.doubleValue());
        text.append("\nP99 integral vs ").append(runs.getFirst().run()).append(" (Jetty's \"X % faster\": the baseline's integral over the run's, minus one):\n");
        for (ResultDocument run : runs.subList(1, runs.size())) {
            Double faster = ComparisonReport.percentFaster(runs.getFirst(), run, series);
            text.append(faster == null ? String.format(Locale.ROOT, "  %-26s no P99 integral to compare%n", run.run())
                    : String.format(Locale.ROOT, "  %-26s %.1f %% %s%n", run.run(), Math.abs(faster), faster >= 0 ? "faster" : "slower (by the same formula)"));
        }
        text.append("\nper-period server P99 vs ").append(runs.getFirst().run())
                .append(" (Mann-Whitney U, two-sided, significant when p < ").append(SIGNIFICANCE).append("):\n");
        double[] baseline = p99s(runs.getFirst(), series);
        for (ResultDocument run : runs.subList(1, runs.size())) {
            Optional<PeriodComparison> comparison = PeriodComparison.of(baseline, p99s(run, series));
            if (comparison.isEmpty()) {
                text.append(String.format(Locale.ROOT, "  %-26s not enough server periods to test%n", run.run()));
                continue;
            }
            PeriodComparison c = comparison.get();
            text.append(String.format(Locale.ROOT, "  %-26s median %+.1f%%  p = %.4f  %s; shift %+.1f%% (95%% interval %+.1f%% to %+.1f%%)%n",
                    run.run(), c.medianChange() * 100, c.p(), c.verdict(), c.shift() * 100, c.shiftLow() * 100, c.shiftHigh() * 100));
        }
        return text.toString();
    }

    private static void numberRow(StringBuilder text, List<ResultDocument> runs, String name, Function<ResultDocument, Double> value) {
        Double base = value.apply(runs.getFirst());
        row(text, runs, name, value, d -> {
            Double v = value.apply(d);
            if (v == null) {
                return "-";
            }
            String formatted = v == Math.rint(v) && !name.endsWith("ms") ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.3f", v);
            if (d != runs.getFirst() && base != null && base != 0) {
                formatted += String.format(Locale.ROOT, " (%+.1f%%)", 100 * (v - base) / base);
            }
            return formatted;
        });
    }

    private static void row(StringBuilder text, List<ResultDocument> runs, String name, Function<ResultDocument, Double> ignored,
                            Function<ResultDocument, String> cell) {
        text.append(String.format(Locale.ROOT, "%-28s", name));
        for (ResultDocument run : runs) {
            text.append(String.format(Locale.ROOT, " %22s", cell.apply(run)));
        }
        text.append('\n');
    }

    /**
     * A run's per-period server P99s in nanoseconds over its window: from its interval log ({@code server.hlog} in its
     * results directory), exactly as jetty-perf reads them; from a status, its per-period P99s in whole microseconds.
     */
    static List<Long> serverP99Nanos(Path path, ResultDocument run, ComparedSeries series) {
        Optional<ComparedSeries.Figures> figures = series.in(run.result().server);
        Path log = path.resolve("server.hlog");   // the server's main series
        if (figures.map(ComparedSeries.Figures::main).orElse(false) && Files.isDirectory(path) && Files.isRegularFile(log) && run.window() != null) {
            try {
                return HistogramLogs.parse(Files.readString(log), run.samplePeriodMs()).stream()
                        .filter(p -> p.startEpochMs() >= run.window().startEpochMs && p.endEpochMs() <= run.window().endEpochMs)
                        .map(p -> p.histogram().getTotalCount() == 0 ? 0L : p.histogram().getValueAtPercentile(99)).toList();
            } catch (IOException | RuntimeException unreadable) {
                // the status's figures will do
            }
        }
        List<Long> periods = figures.map(ComparedSeries.Figures::periodP99Micros).orElse(null);
        return periods == null ? List.of() : periods.stream().map(v -> v * 1000).toList();
    }

    /** The compared series' per-period P99s in microseconds, the terms of the rank test. */
    static double[] p99s(ResultDocument run, ComparedSeries series) {
        List<Long> periods = figure(run, series, ComparedSeries.Figures::periodP99Micros);
        if (periods != null) {
            return periods.stream().mapToDouble(Long::doubleValue).toArray();
        }
        // a result without per-period P99s in its figures: its periods' server statistics are of its main series alone
        boolean main = series.in(run.result().server).map(ComparedSeries.Figures::main).orElse(false);
        return !main ? new double[0] : run.periods().stream().map(PeriodPoint::server)
                .filter(Objects::nonNull).mapToDouble(PeriodPoint.Stats::p99Micros).toArray();
    }

    /** One figure of the compared series in a run, or null when the run has none. */
    static <T> T figure(ResultDocument run, ComparedSeries series, Function<ComparedSeries.Figures, T> figure) {
        return series.in(run.result().server).map(figure).orElse(null);
    }

    private static Double micros(Long micros) {
        return micros == null ? null : micros / 1000.0;
    }

    private static String abbreviate(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 1) + "…";
    }

}
