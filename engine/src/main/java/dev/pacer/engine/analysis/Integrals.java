package dev.pacer.engine.analysis;

import java.util.List;
import java.util.Locale;

/**
 * The headline figures (docs/design.md, "Results"), over the per-period values of the measured window, as jetty-perf
 * computes them (its {@code Assertions.assertP99Latency}):
 * <ul>
 *   <li>{@code p99Integral} = Σ of each period's 99th percentile, in nanoseconds, truncated once to microseconds;</li>
 *   <li>{@code maxIntegral} = Σ of each period's maximum, the same way;</li>
 *   <li>the corrected P99 integral: with the mean of the periods' P99s (nanoseconds, integer division), every period
 *       whose P99 exceeds {@value #OUTLIER_FACTOR} × the mean is an outlier and counts as the mean.</li>
 * </ul>
 * Pure arithmetic on nanoseconds.
 */
public final class Integrals {
    public static final long OUTLIER_FACTOR = 2;
    /** jetty-perf's tolerance of outlier periods in its baseline check. */
    public static final int TOLERATED_OUTLIERS = 2;

    private Integrals() {
    }

    public static long sumNanos(List<Long> perPeriodNanos) {
        long sum = 0;
        for (long value : perPeriodNanos) {
            sum = Math.addExact(sum, value);
        }
        return sum;
    }

    /** An integral in whole microseconds: the sum in nanoseconds, truncated ({@code trueIntegral /= 1_000}). */
    public static long integralMicros(List<Long> perPeriodNanos) {
        return sumNanos(perPeriodNanos) / 1_000;
    }

    /**
     * The P99 integral with its outlier periods replaced by the mean.
     *
     * @param nanos    the corrected sum, nanoseconds
     * @param outliers how many periods were replaced
     */
    public record Corrected(long nanos, int outliers) {
        public long micros() {
            return nanos / 1_000;
        }
    }

    public static Corrected corrected(List<Long> perPeriodP99Nanos) {
        if (perPeriodP99Nanos.isEmpty()) {
            return new Corrected(0, 0);
        }
        long mean = sumNanos(perPeriodP99Nanos) / perPeriodP99Nanos.size();
        long corrected = 0;
        int outliers = 0;
        for (long value : perPeriodP99Nanos) {
            if (value <= mean * OUTLIER_FACTOR) {
                corrected += value;
            } else {
                outliers++;
                corrected += mean;
            }
        }
        return new Corrected(corrected, outliers);
    }

    /**
     * jetty-perf's baseline check of a P99 integral: the integral inside [expected − margin, expected + margin] passes;
     * otherwise, with at most {@code toleratedOutliers} outlier periods, the corrected integral inside it passes; else
     * it fails, saying whether even the corrected one is out or there were too many outliers.
     *
     * @param passed  whether it holds
     * @param message jetty-perf's words: {@code OK; value within 10.0% error margin}, {@code NOK; value out of …}
     */
    public record BaselineCheck(boolean passed, long integralMicros, long correctedMicros, int outliers, String message) {
        public static BaselineCheck of(List<Long> perPeriodP99Nanos, long expectedMicros, double marginPercent, int toleratedOutliers) {
            long integral = Integrals.integralMicros(perPeriodP99Nanos);
            Corrected corrected = corrected(perPeriodP99Nanos);
            double error = expectedMicros * marginPercent / 100.0;
            double low = expectedMicros - error;
            double high = expectedMicros + error;
            String margin = String.format(Locale.ROOT, "%s%% error margin", marginPercent);
            if (integral >= low && integral <= high) {
                return new BaselineCheck(true, integral, corrected.micros(), corrected.outliers(), "OK; value within " + margin);
            }
            if (corrected.outliers() <= toleratedOutliers) {
                boolean within = corrected.micros() >= low && corrected.micros() <= high;
                return new BaselineCheck(within, integral, corrected.micros(), corrected.outliers(),
                        within ? "OK; corrected value within " + margin : "NOK; value (even corrected one) out of " + margin);
            }
            return new BaselineCheck(false, integral, corrected.micros(), corrected.outliers(),
                    "NOK; value out of " + margin + " and has too many outliers");
        }
    }

    /** Nanoseconds to whole microseconds, rounded half up (percentiles and plots; integrals truncate, as above). */
    public static long toMicros(long nanos) {
        return Math.round(nanos / 1000.0);
    }
}
