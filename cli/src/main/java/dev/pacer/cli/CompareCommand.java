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
import dev.pacer.api.RunResult;
import dev.pacer.engine.analysis.HistogramLogs;
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
        List<List<Long>> serverP99Nanos = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            serverP99Nanos.add(serverP99Nanos(directories.get(i), runs.get(i)));
        }
        ComparisonReport report = ComparisonReport.of(runs, serverP99Nanos, failOnRegressionPercent, expectedP99IntegralMillis,
                marginPercent, toleratedOutliers);
        out.print(switch (format) {
            case text -> render(runs) + report.text();
            case json -> report.json();
            case markdown -> report.markdown();
        });
        if (html != null) {
            try {
                ComparisonPage.write(runs, render(runs) + report.text(), html);
                (format == Format.text ? out : spec.commandLine().getErr()).println("page: " + html);
            } catch (IOException e) {
                spec.commandLine().getErr().println("pacer: writing " + html + ": " + e.getMessage());
                return PacerCommand.EXIT_BAD_INPUT;
            }
        }
        out.flush();
        return report.failures().isEmpty() ? PacerCommand.EXIT_OK : EXIT_REGRESSION;
    }

    static String render(List<ResultDocument> runs) {
        StringBuilder text = new StringBuilder();
        text.append(String.format(Locale.ROOT, "%-28s", "figure"));
        for (ResultDocument run : runs) {
            text.append(String.format(Locale.ROOT, " %22s", abbreviate(run.run() + " " + run.load(), 22)));
        }
        text.append('\n');
        row(text, runs, "verdict", d -> null, d -> String.valueOf(d.result().verdict));
        numberRow(text, runs, "P99 integral ms", d -> micros(d.result().server == null ? null : d.result().server.p99IntegralMicros));
        numberRow(text, runs, "P99 integral corrected ms", d -> micros(d.result().server == null ? null : d.result().server.p99IntegralCorrectedMicros));
        numberRow(text, runs, "max integral ms", d -> micros(d.result().server == null ? null : d.result().server.maxIntegralMicros));
        numberRow(text, runs, "server p50 ms", d -> micros(d.result().server == null ? null : d.result().server.p50Micros));
        numberRow(text, runs, "server p99 ms", d -> micros(d.result().server == null ? null : d.result().server.p99Micros));
        numberRow(text, runs, "server max ms", d -> micros(d.result().server == null ? null : d.result().server.maxMicros));
        numberRow(text, runs, "client p99 ms", d -> micros(d.result().clients.p99Micros));
        numberRow(text, runs, "client max ms", d -> micros(d.result().clients.maxMicros));
        numberRow(text, runs, "client P99 integral ms", d -> micros(d.result().clients.p99IntegralMicros));
        numberRow(text, runs, "  uncorrected ms", d -> micros(d.result().clients.p99UncorrectedIntegralMicros));
        numberRow(text, runs, "achieved req/s", d -> d.result().clients.achievedRate);
        numberRow(text, runs, "errors", d -> d.result().clients.errors == null ? null : d.result().clients.errors.doubleValue());
        text.append("\nP99 integral vs ").append(runs.getFirst().run()).append(" (Jetty's \"X % faster\": the baseline's integral over the run's, minus one):\n");
        for (ResultDocument run : runs.subList(1, runs.size())) {
            Double faster = ComparisonReport.percentFaster(runs.getFirst(), run);
            text.append(faster == null ? String.format(Locale.ROOT, "  %-26s no P99 integral to compare%n", run.run())
                    : String.format(Locale.ROOT, "  %-26s %.1f %% %s%n", run.run(), Math.abs(faster), faster >= 0 ? "faster" : "slower (by the same formula)"));
        }
        text.append("\nper-period server P99 vs ").append(runs.getFirst().run())
                .append(" (Mann-Whitney U, two-sided, significant when p < ").append(SIGNIFICANCE).append("):\n");
        double[] baseline = p99s(runs.getFirst());
        for (ResultDocument run : runs.subList(1, runs.size())) {
            Optional<PeriodComparison> comparison = PeriodComparison.of(baseline, p99s(run));
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
    static List<Long> serverP99Nanos(Path path, ResultDocument run) {
        Path log = path.resolve("server.hlog");
        if (Files.isDirectory(path) && Files.isRegularFile(log) && run.window() != null) {
            try {
                return HistogramLogs.parse(Files.readString(log), run.samplePeriodMs()).stream()
                        .filter(p -> p.startEpochMs() >= run.window().startEpochMs && p.endEpochMs() <= run.window().endEpochMs)
                        .map(p -> p.histogram().getTotalCount() == 0 ? 0L : p.histogram().getValueAtPercentile(99)).toList();
            } catch (IOException | RuntimeException unreadable) {
                // the status's figures will do
            }
        }
        RunResult.ServerFigures s = run.result().server;
        return s == null || s.periodP99Micros == null ? List.of() : s.periodP99Micros.stream().map(v -> v * 1000).toList();
    }

    static double[] p99s(ResultDocument run) {
        return run.periods().stream().map(PeriodPoint::server).filter(Objects::nonNull)
                .mapToDouble(PeriodPoint.Stats::p99Micros).toArray();
    }

    private static Double micros(Long micros) {
        return micros == null ? null : micros / 1000.0;
    }

    private static String abbreviate(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 1) + "…";
    }

}
