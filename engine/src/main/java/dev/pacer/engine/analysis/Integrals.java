package dev.pacer.engine.analysis;

import java.util.List;

/**
 * The headline figures (docs/design.md, "Results"), over the per-period values of the measured window:
 * <ul>
 *   <li>{@code p99Integral} = Σ of each period's 99th percentile;</li>
 *   <li>{@code maxIntegral} = Σ of each period's maximum;</li>
 *   <li>{@code p99IntegralCorrected}: the periods whose P99 exceeds {@value #OUTLIER_FACTOR} × the mean per-period
 *       P99 are replaced by that mean, at most {@value #MAX_CORRECTED_PERIODS} of them (the largest first).</li>
 * </ul>
 * Pure arithmetic on nanoseconds; no rounding until the caller converts.
 */
public final class Integrals {
    public static final double OUTLIER_FACTOR = 2.0;
    public static final int MAX_CORRECTED_PERIODS = 2;

    private Integrals() {
    }

    public static long sumNanos(List<Long> perPeriodNanos) {
        long sum = 0;
        for (long value : perPeriodNanos) {
            sum = Math.addExact(sum, value);
        }
        return sum;
    }

    /** The corrected P99 integral, in nanoseconds (the mean is kept as a fraction until the end, then rounded). */
    public static long correctedSumNanos(List<Long> perPeriodP99Nanos) {
        return correctedSumNanos(perPeriodP99Nanos, MAX_CORRECTED_PERIODS);
    }

    /** The same with up to {@code tolerated} outlier periods replaced (a baseline's tolerance, {@code pacer compare}). */
    public static long correctedSumNanos(List<Long> perPeriodP99Nanos, int tolerated) {
        if (perPeriodP99Nanos.isEmpty()) {
            return 0;
        }
        long sum = sumNanos(perPeriodP99Nanos);
        double mean = (double) sum / perPeriodP99Nanos.size();
        long[] sortedDescending = perPeriodP99Nanos.stream().mapToLong(Long::longValue).sorted().toArray();
        reverse(sortedDescending);
        double corrected = sum;
        int replaced = 0;
        for (long value : sortedDescending) {
            if (replaced == tolerated || value <= OUTLIER_FACTOR * mean) {
                break;
            }
            corrected += mean - value;
            replaced++;
        }
        return Math.round(corrected);
    }

    private static void reverse(long[] values) {
        for (int i = 0, j = values.length - 1; i < j; i++, j--) {
            long t = values[i];
            values[i] = values[j];
            values[j] = t;
        }
    }

    /** Nanoseconds to whole microseconds, rounded half up. */
    public static long toMicros(long nanos) {
        return Math.round(nanos / 1000.0);
    }
}
