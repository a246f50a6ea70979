package dev.pacer.engine.analysis;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

import org.apache.commons.math3.stat.inference.MannWhitneyUTest;

/**
 * Whether one server's per-period P99s differ from another's beyond run-to-run noise: the change of the median, a
 * two-sided Mann–Whitney U test (a rank test: no assumption on the distribution of the P99s, which have long tails),
 * and the Hodges–Lehmann estimate of the shift between the two with its distribution-free 95 % confidence interval
 * (the median of every pairwise difference; the interval from the order statistics the U test's critical value
 * picks, in its normal approximation). {@code pacer compare} and suites both use it.
 *
 * @param medianChange (median of other − median of baseline) / median of baseline
 * @param p            the test's p-value
 * @param shift        Hodges–Lehmann shift of other against baseline, over the baseline's median (0.10: 10 % slower)
 * @param shiftLow     its 95 % interval, lower bound, as a share of the baseline's median
 * @param shiftHigh    upper bound
 */
public record PeriodComparison(double medianChange, double p, double shift, double shiftLow, double shiftHigh) {
    /** The normal quantile of a two-sided 95 % interval. */
    static final double Z_95 = 1.959963984540054;
    /** Significant when p is below this. */
    public static final double SIGNIFICANCE = 0.05;

    /** Empty when either side has fewer than two periods. */
    public static Optional<PeriodComparison> of(double[] baseline, double[] other) {
        if (baseline.length < 2 || other.length < 2) {
            return Optional.empty();
        }
        double p = new MannWhitneyUTest().mannWhitneyUTest(baseline, other);
        double base = median(baseline);
        double[] differences = new double[baseline.length * other.length];
        int i = 0;
        for (double o : other) {
            for (double b : baseline) {
                differences[i++] = o - b;
            }
        }
        Arrays.sort(differences);
        int n = baseline.length;
        int m = other.length;
        // the k-th smallest and largest pairwise differences bound the shift with 95 % confidence (k from the U test)
        int k = (int) Math.floor(n * m / 2.0 - Z_95 * Math.sqrt(n * (double) m * (n + m + 1) / 12.0));
        k = Math.max(0, Math.min(k, differences.length - 1));
        double scale = base == 0 ? 1 : base;
        return Optional.of(new PeriodComparison(base == 0 ? 0 : (median(other) - base) / base, p,
                median(differences) / scale, differences[k] / scale, differences[differences.length - 1 - k] / scale));
    }

    public boolean significant() {
        return p < SIGNIFICANCE;
    }

    /** "difference exceeds run-to-run noise" or "within run-to-run noise". */
    public String verdict() {
        return significant() ? "difference exceeds run-to-run noise" : "within run-to-run noise";
    }

    /**
     * Jetty's "X % faster", from the P99 integrals as Jetty publishes it: the baseline's integral over the other's, minus
     * one, in percent (36.6 ms against 30.0 ms: 22 % faster); negative when the other is slower (30.0 against 36.6:
     * −18 %, said "18 % slower"), so that every surface reads one formula.
     */
    public static double percentFaster(double baselineIntegral, double otherIntegral) {
        return (baselineIntegral / otherIntegral - 1) * 100;
    }

    /**
     * Jetty's sentence, "jetty12-core is 22.0 % faster than jetty11 (P99 integral …)", then the per-period test beside it
     * under its own name: the median per-period P99's change, the rank test and the shift.
     */
    public String sentence(String other, String baseline, long baselineIntegralMicros, long otherIntegralMicros) {
        double faster = otherIntegralMicros == 0 ? 0 : percentFaster(baselineIntegralMicros, otherIntegralMicros);
        String direction = faster >= 0 ? "faster" : "slower";
        double amount = Math.abs(faster); // one formula for both directions, as Jetty's; slower is its negative
        return String.format(Locale.ROOT, "%s is %.1f %% %s than %s by the P99 integral (%.3f ms against %.3f ms, as Jetty publishes); "
                        + "median per-period server P99 %+.1f %% (Mann-Whitney p = %.4f; Hodges-Lehmann shift %+.1f %%, 95 %% interval "
                        + "%+.1f %% to %+.1f %%): %s",
                other, amount, direction, baseline, otherIntegralMicros / 1000.0, baselineIntegralMicros / 1000.0, medianChange * 100, p,
                shift * 100, shiftLow * 100, shiftHigh * 100, verdict());
    }

    public static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n == 0 ? 0 : n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
