package dev.pacer.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.pacer.api.ComparedSeries;
import dev.pacer.api.RunResult;
import dev.pacer.engine.analysis.Integrals;
import dev.pacer.engine.analysis.PeriodComparison;
import dev.pacer.engine.report.ResultDocument;

/**
 * What {@code pacer compare} concludes, for machines: every run's figures, each run against the first (the baseline)
 * with the rank test and the Hodges–Lehmann shift, and the CI checks that failed. Pure; rendered as JSON or Markdown.
 *
 * @param runs        each run's figures, the baseline first
 * @param comparisons each later run against the baseline
 * @param failures    why the comparison fails a CI check, empty when it passes
 */
record ComparisonReport(List<RunFigures> runs, List<Against> comparisons, List<String> failures) {

    record RunFigures(String run, String load, String verdict, Double p99IntegralMillis, Double p99IntegralCorrectedMillis,
                      Integer outlierPeriods, Double maxIntegralMillis, Double serverP99Millis, Double clientP99Millis,
                      Double clientP99IntegralMillis, Double clientP99UncorrectedIntegralMillis, Double achievedRate, Long errors) {
    }

    /**
     * One run against the baseline. {@code percentFaster}: the baseline's P99 integral over the run's, minus one, as
     * Jetty publishes "X % faster" (negative: slower). The other shares are of the baseline's median per-period P99
     * (0.1: 10 % slower).
     */
    record Against(String run, String baseline, Double percentFaster, Double medianChange, Double p, Boolean significant, Double shift,
                   Double shiftLow, Double shiftHigh) {
    }

    /**
     * @param serverP99Nanos each run's per-period server P99s in nanoseconds (from its interval log when there is one), the
     *                       terms of jetty-perf's baseline check
     */
    static ComparisonReport of(List<ResultDocument> documents, ComparedSeries series, List<List<Long>> serverP99Nanos, Double failOnRegressionPercent,
                               Double expectedP99IntegralMillis, double marginPercent, int toleratedOutliers) {
        List<RunFigures> runs = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < documents.size(); i++) {
            ResultDocument d = documents.get(i);
            RunResult r = d.result();
            RunResult.ServerFigures s = r.server;
            List<Long> p99s = serverP99Nanos.get(i);
            Integrals.Corrected corrected = Integrals.corrected(p99s);
            runs.add(new RunFigures(d.run(), d.load(), r.verdict == null ? null : r.verdict.name(),
                    millis(CompareCommand.figure(d, series, ComparedSeries.Figures::p99IntegralMicros)),
                    p99s.isEmpty() ? null : corrected.micros() / 1000.0, p99s.isEmpty() ? null : corrected.outliers(),
                    millis(CompareCommand.figure(d, series, ComparedSeries.Figures::maxIntegralMicros)),
                    millis(CompareCommand.figure(d, series, ComparedSeries.Figures::p99Micros)),
                    millis(r.clients == null ? null : r.clients.p99Micros), millis(r.clients == null ? null : r.clients.p99IntegralMicros),
                    millis(r.clients == null ? null : r.clients.p99UncorrectedIntegralMicros), r.clients == null ? null : r.clients.achievedRate,
                    r.clients == null ? null : r.clients.errors));
            if (expectedP99IntegralMillis != null) {
                if (p99s.isEmpty()) {
                    failures.add(d.run() + ": no per-period server P99s, so no P99 integral to check against " + expectedP99IntegralMillis + " ms");
                    continue;
                }
                long expectedMicros = Math.round(expectedP99IntegralMillis * 1000);
                Integrals.BaselineCheck check = Integrals.BaselineCheck.of(p99s, expectedMicros, marginPercent, toleratedOutliers);
                if (!check.passed()) {
                    // jetty-perf's own lines: the integral, the outliers, the corrected integral, then its verdict
                    failures.add(String.format(Locale.ROOT, "%s: P99 lat integral is %d vs expected %d with %d outlier(s), max = %d, "
                            + "corrected to %d (µs): %s", d.run(), check.integralMicros(), expectedMicros, check.outliers(), toleratedOutliers,
                            check.correctedMicros(), check.message()));
                }
            }
        }
        List<Against> comparisons = new ArrayList<>();
        double[] baseline = CompareCommand.p99s(documents.getFirst(), series);
        for (ResultDocument d : documents.subList(1, documents.size())) {
            var c = PeriodComparison.of(baseline, CompareCommand.p99s(d, series));
            Double faster = percentFaster(documents.getFirst(), d, series);
            comparisons.add(c.map(x -> new Against(d.run(), documents.getFirst().run(), faster, x.medianChange(), x.p(), x.significant(),
                    x.shift(), x.shiftLow(), x.shiftHigh())).orElse(new Against(d.run(), documents.getFirst().run(), faster, null, null, null,
                    null, null, null)));
            if (failOnRegressionPercent != null && c.isPresent() && c.get().significant() && c.get().shift() * 100 > failOnRegressionPercent) {
                failures.add(String.format(Locale.ROOT, "%s regressed against %s: per-period P99 %+.1f %% (95 %% interval %+.1f %% to %+.1f %%, "
                                + "p = %.4f), more than the %.1f %% allowed", d.run(), documents.getFirst().run(), c.get().shift() * 100,
                        c.get().shiftLow() * 100, c.get().shiftHigh() * 100, c.get().p(), failOnRegressionPercent));
            }
        }
        return new ComparisonReport(runs, comparisons, failures);
    }

    String text() {
        StringBuilder text = new StringBuilder();
        failures.forEach(f -> text.append("FAIL ").append(f).append('\n'));
        return text.toString();
    }

    String json() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("runs", runs);
        body.put("comparisons", comparisons);
        body.put("passed", failures.isEmpty());
        body.put("failures", failures);
        try {
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(body) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A table a CI job can post as a comment. */
    String markdown() {
        StringBuilder md = new StringBuilder("| run | load | verdict | P99 integral ms | max integral ms | server p99 ms | client p99 ms "
                + "| client P99 integral ms (corrected) | client P99 integral ms (uncorrected) | achieved req/s | errors |\n");
        md.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (RunFigures r : runs) {
            md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", r.run(), r.load(), r.verdict(),
                    number(r.p99IntegralMillis(), 3), number(r.maxIntegralMillis(), 3), number(r.serverP99Millis(), 3),
                    number(r.clientP99Millis(), 3), number(r.clientP99IntegralMillis(), 3), number(r.clientP99UncorrectedIntegralMillis(), 3),
                    number(r.achievedRate(), 1), r.errors() == null ? "–" : r.errors()));
        }
        if (!comparisons.isEmpty()) {
            md.append("\n| run | against | % faster (P99 integral) | median per-period P99 | shift (95 % interval) | p | |\n"
                    + "|---|---|---:|---:|---:|---:|---|\n");
            for (Against a : comparisons) {
                String faster = a.percentFaster() == null ? "–" : String.format(Locale.ROOT, "%+.1f %%", a.percentFaster());
                md.append(a.p() == null ? String.format(Locale.ROOT, "| %s | %s | %s | – | – | – | not enough periods |%n", a.run(), a.baseline(), faster)
                        : String.format(Locale.ROOT, "| %s | %s | %s | %+.1f %% | %+.1f %% (%+.1f %% to %+.1f %%) | %.4f | %s |%n", a.run(),
                        a.baseline(), faster, a.medianChange() * 100, a.shift() * 100, a.shiftLow() * 100, a.shiftHigh() * 100, a.p(),
                        a.significant() ? "beyond run-to-run noise" : "within run-to-run noise"));
            }
        }
        md.append(failures.isEmpty() ? "\n**Passed.**\n" : "\n**Failed:**\n");
        failures.forEach(f -> md.append("- ").append(f).append('\n'));
        return md.toString();
    }

    /** The baseline's P99 integral over the run's, minus one, in percent: Jetty's "X % faster"; {@code null} without both. */
    static Double percentFaster(ResultDocument baseline, ResultDocument run, ComparedSeries series) {
        Long base = CompareCommand.figure(baseline, series, ComparedSeries.Figures::p99IntegralMicros);
        Long other = CompareCommand.figure(run, series, ComparedSeries.Figures::p99IntegralMicros);
        return base == null || other == null || other == 0 ? null : PeriodComparison.percentFaster(base, other);
    }

    private static Double millis(Long micros) {
        return micros == null ? null : micros / 1000.0;
    }

    private static String number(Double value, int decimals) {
        return value == null ? "–" : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }
}
