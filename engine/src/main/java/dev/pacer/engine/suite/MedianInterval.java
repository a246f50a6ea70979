package dev.pacer.engine.suite;

import java.util.Arrays;

/**
 * The median of a few repetitions and a distribution-free interval around it from order statistics: the k-th smallest
 * to the k-th largest value covers the true median with probability {@code 1 − 2·P(Binomial(n, ½) ≤ k − 1)}. The
 * widest such interval reaching 95 % needs 6 values; with fewer, the interval is min to max and its confidence,
 * {@code 1 − 2^(1−n)} (75 % for 3 repetitions), is given with it rather than overstated.
 */
public record MedianInterval(double median, double low, double high, double confidence) {
    static final double WANTED = 0.95;

    public static MedianInterval of(double[] values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no values");
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        if (n == 1) {
            return new MedianInterval(median, median, median, 0);
        }
        int k = 1;
        for (int candidate = 1; candidate <= n / 2; candidate++) {
            if (coverage(n, candidate) >= WANTED) {
                k = candidate;
            }
        }
        return new MedianInterval(median, sorted[k - 1], sorted[n - k], coverage(n, k));
    }

    /** 1 − 2·P(Bin(n, ½) ≤ k − 1). */
    static double coverage(int n, int k) {
        double tail = 0;
        double choose = 1;   // C(n, 0)
        for (int i = 0; i < k; i++) {
            tail += choose;
            choose = choose * (n - i) / (i + 1);
        }
        return 1 - 2 * tail / Math.pow(2, n);
    }
}
