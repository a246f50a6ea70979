package dev.pacer.engine.history;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

import org.apache.commons.math3.distribution.TDistribution;

/**
 * Single-run outliers of a series: Rosner's generalized extreme Studentized deviate test (GESD) over each run's
 * distance from the median of the runs around it (seven, fewer at the ends), so that a lasting step is not taken
 * for outliers while a one-run spike is. Outliers are marked and kept out of the change point search, never reported
 * as changes.
 */
public final class Outliers {
    /** Runs on each side of a run in its rolling median. */
    static final int HALF_NEIGHBOURHOOD = 3;
    /** Fewer runs than this: no test (its critical values need a sample). */
    static final int FEWEST_RUNS = 7;

    private Outliers() {
    }

    /** The indices of the outliers of {@code values} (log values), ascending. */
    public static List<Integer> of(double[] values, double alpha, double maxShare) {
        int n = values.length;
        if (n < FEWEST_RUNS) {
            return List.of();
        }
        double[] residuals = new double[n];
        for (int i = 0; i < n; i++) {
            double[] around = Arrays.copyOfRange(values, Math.max(0, i - HALF_NEIGHBOURHOOD), Math.min(n, i + HALF_NEIGHBOURHOOD + 1));
            Arrays.sort(around);
            int m = around.length;
            residuals[i] = values[i] - (m % 2 == 1 ? around[m / 2] : (around[m / 2 - 1] + around[m / 2]) / 2);
        }
        int most = Math.max(1, (int) Math.floor(n * maxShare));
        List<Integer> remaining = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            remaining.add(i);
        }
        List<Integer> removed = new ArrayList<>();
        int outliers = 0;
        for (int step = 1; step <= most && remaining.size() > 2; step++) {
            double mean = remaining.stream().mapToDouble(i -> residuals[i]).average().orElse(0);
            double variance = remaining.stream().mapToDouble(i -> (residuals[i] - mean) * (residuals[i] - mean)).sum() / (remaining.size() - 1);
            double sd = Math.sqrt(variance);
            int worst = remaining.getFirst();
            for (int i : remaining) {
                if (Math.abs(residuals[i] - mean) > Math.abs(residuals[worst] - mean)) {
                    worst = i;
                }
            }
            double statistic = sd == 0 ? (residuals[worst] == mean ? 0 : Double.POSITIVE_INFINITY) : Math.abs(residuals[worst] - mean) / sd;
            int size = n - step + 1;   // the sample this step tests
            double t = new TDistribution(size - 2).inverseCumulativeProbability(1 - alpha / (2.0 * size));
            double critical = (size - 1) * t / Math.sqrt((size - 2 + t * t) * size);
            removed.add(worst);
            remaining.remove(Integer.valueOf(worst));
            if (statistic > critical) {
                outliers = step;    // GESD: the largest step whose statistic exceeds its critical value
            }
        }
        return List.copyOf(new TreeSet<>(removed.subList(0, outliers)));
    }
}
