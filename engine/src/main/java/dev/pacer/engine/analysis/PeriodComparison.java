package dev.pacer.engine.analysis;

import java.util.Arrays;
import java.util.Locale;

import org.apache.commons.math3.stat.inference.MannWhitneyUTest;

/**
 * Whether one server's per-period P99s differ from another's beyond run-to-run noise: the change of the median and a
 * two-sided Mann–Whitney U test (a rank test: no assumption on the distribution of the P99s, which have long tails).
 * {@code pacer compare} and suites both use it.
 *
 * @param medianChange (median of other − median of baseline) / median of baseline
 * @param p            the test's p-value
 */
public record PeriodComparison(double medianChange, double p) {
    /** Significant when p is below this. */
    public static final double SIGNIFICANCE = 0.05;

    /** Empty when either side has fewer than two periods. */
    public static java.util.Optional<PeriodComparison> of(double[] baseline, double[] other) {
        if (baseline.length < 2 || other.length < 2) {
            return java.util.Optional.empty();
        }
        double p = new MannWhitneyUTest().mannWhitneyUTest(baseline, other);
        double base = median(baseline);
        return java.util.Optional.of(new PeriodComparison(base == 0 ? 0 : (median(other) - base) / base, p));
    }

    public boolean significant() {
        return p < SIGNIFICANCE;
    }

    /** "difference exceeds run-to-run noise" or "within run-to-run noise". */
    public String verdict() {
        return significant() ? "difference exceeds run-to-run noise" : "within run-to-run noise";
    }

    /** Jetty's sentence: "jetty12-core is 22.0 % faster than jetty11 (median per-period P99, p = 0.0001)". */
    public String sentence(String other, String baseline) {
        String direction = medianChange < 0 ? "faster" : "slower";
        return String.format(Locale.ROOT, "%s is %.1f %% %s than %s (median per-period server P99, Mann-Whitney p = %.4f): %s",
                other, Math.abs(medianChange) * 100, direction, baseline, p, verdict());
    }

    public static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n == 0 ? 0 : n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
