package dev.pacer.engine.history;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.apache.commons.math3.stat.inference.TTest;

/**
 * Change points of a series of runs, each run a point of one or more log values (one figure, or the percentile
 * spectrum): a windowed E-divisive means search in the manner Apache Otava describes.
 * <ol>
 *   <li><b>Weak pass.</b> Windows of {@code windowRuns} runs, one every half window. In each, the split that
 *       maximises the energy statistic ê (Matteson and James's E-divisive, exponent 1, Euclidean distance) is tested
 *       with Student's t-test (pooled variance) per dimension on the log values; the smallest p-value is multiplied by the number of
 *       dimensions and by the number of splits the segment allowed (Bonferroni: the split was chosen as the best
 *       one, a correction Otava leaves out). Below {@code weakP}, and moving a mean by at least
 *       {@code minMagnitude}, it is a candidate, and both sides are searched again.</li>
 *   <li><b>Merge.</b> Each candidate is tested again between its neighbours; the weakest above {@code finalP} (or
 *       below the magnitude) is dropped, until every one left passes.</li>
 * </ol>
 * Deterministic: no permutation, no randomness. A window's candidates depend on its values alone, so they are
 * memoised: analysing a series as its runs arrive costs the windows that changed, and equals a full recompute.
 */
public final class ChangePoints {
    /** A change: the index of the first run after it, its p-value between its neighbours, and the dimension that moved most. */
    public record Change(int index, double p, int dimension) {
    }

    /** Rounds of moving changes to their best split before the merge settles (it settles in two or three). */
    static final int MAX_RELOCATIONS = 10;
    /** Windows whose candidates are kept; the oldest go first. */
    static final int MEMO_WINDOWS = 100_000;

    private final ChangePointParameters parameters;
    private final Map<Window, List<Integer>> windows = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Window, List<Integer>> eldest) {
            return size() > MEMO_WINDOWS;
        }
    };
    private static final TTest T_TEST = new TTest();

    public ChangePoints(ChangePointParameters parameters) {
        this.parameters = parameters;
    }

    /** The changes of {@code points} ({@code points[run][dimension]}, log values), by index. */
    public List<Change> find(double[][] points) {
        int n = points.length;
        TreeSet<Integer> candidates = new TreeSet<>();
        int window = parameters.windowRuns();
        for (int start = 0; start < n; start += window / 2) {
            int end = Math.min(n, start + window);
            if (end - start >= 2 * parameters.minSegmentRuns()) {
                int offset = start;
                windows.computeIfAbsent(new Window(Arrays.copyOfRange(points, start, end)), w -> weak(w.points()))
                        .forEach(i -> candidates.add(i + offset));
            }
            if (end == n) {
                break;
            }
        }
        return merge(points, new ArrayList<>(candidates));
    }

    private List<Integer> weak(double[][] points) {
        List<Integer> found = new ArrayList<>();
        split(points, 0, points.length, found);
        found.sort(null);
        return List.copyOf(found);
    }

    private void split(double[][] points, int from, int to, List<Integer> found) {
        int min = parameters.minSegmentRuns();
        if (to - from < 2 * min) {
            return;
        }
        double[][] distances = distances(points, from, to);
        int best = -1;
        double bestStatistic = Double.NEGATIVE_INFINITY;
        for (int at = min; at <= to - from - min; at++) {
            double statistic = energy(distances, at);
            if (statistic > bestStatistic) {
                bestStatistic = statistic;
                best = at;
            }
        }
        Test test = test(points, from, from + best, to);
        if (test.p() < parameters.weakP() && test.magnitude() >= parameters.minMagnitude()) {
            found.add(from + best);
            split(points, from, from + best, found);
            split(points, from + best, to, found);
        }
    }

    private List<Change> merge(double[][] points, List<Integer> candidates) {
        List<Integer> kept = new ArrayList<>(candidates);
        int relocations = 0;
        while (true) {
            int weakest = -1;
            double weakestP = -1;
            Test[] tests = new Test[kept.size()];
            for (int k = 0; k < kept.size(); k++) {
                int from = k == 0 ? 0 : kept.get(k - 1);
                int to = k == kept.size() - 1 ? points.length : kept.get(k + 1);
                tests[k] = test(points, from, kept.get(k), to);
                double p = tests[k].magnitude() < parameters.minMagnitude() ? 1 : tests[k].p();
                // of two equally weak candidates (a change found one run apart by two windows), the one the energy
                // statistic favours less goes
                if (p > weakestP || (p == weakestP && p >= 1 && tests[k].energy() < tests[weakest].energy())) {
                    weakest = k;
                    weakestP = p;
                }
            }
            if (weakest < 0 || weakestP < parameters.finalP()) {
                if (relocations++ < MAX_RELOCATIONS && relocate(points, kept)) {
                    continue;   // a change moved: test them all again where they now are
                }
                List<Change> changes = new ArrayList<>();
                for (int k = 0; k < kept.size(); k++) {
                    changes.add(new Change(kept.get(k), tests[k].p(), tests[k].dimension()));
                }
                return changes;
            }
            kept.remove(weakest);
        }
    }

    /**
     * Moves each change to the split the energy statistic favours between its neighbours: a window saw part of the
     * runs around a change, its neighbours' segment sees them all. Whether any moved.
     */
    private boolean relocate(double[][] points, List<Integer> kept) {
        boolean moved = false;
        int min = parameters.minSegmentRuns();
        for (int k = 0; k < kept.size(); k++) {
            int from = k == 0 ? 0 : kept.get(k - 1);
            int to = k == kept.size() - 1 ? points.length : kept.get(k + 1);
            double[][] distances = distances(points, from, to);
            int best = kept.get(k) - from;
            double bestStatistic = energy(distances, best);
            for (int at = min; at <= to - from - min; at++) {
                double statistic = energy(distances, at);
                if (statistic > bestStatistic) {
                    bestStatistic = statistic;
                    best = at;
                }
            }
            if (from + best != kept.get(k)) {
                kept.set(k, from + best);
                moved = true;
            }
        }
        return moved;
    }

    /** The split of [from, to) at {@code at}: its corrected p-value, largest mean difference and energy statistic. */
    private record Test(double p, double magnitude, int dimension, double energy) {
    }

    private Test test(double[][] points, int from, int at, int to) {
        int dimensions = points[0].length;
        int left = at - from;
        int right = to - at;
        if (left < 2 || right < 2) {
            return new Test(1, 0, 0, energy(distances(points, from, to), left));
        }
        double smallest = 1;
        int moved = 0;
        double magnitude = 0;
        for (int d = 0; d < dimensions; d++) {
            double[] before = column(points, from, at, d);
            double[] after = column(points, at, to, d);
            double difference = Math.abs(mean(after) - mean(before));
            double p = pValue(before, after);
            if (p < smallest || (p == smallest && difference > magnitude)) {
                smallest = p;
                moved = d;
            }
            magnitude = Math.max(magnitude, difference);
        }
        int splits = Math.max(1, to - from - 2 * parameters.minSegmentRuns() + 1);
        return new Test(Math.min(1, smallest * dimensions * splits), magnitude, moved, energy(distances(points, from, to), left));
    }

    /** Student's two-sided t-test, the variance pooled (the runs of a series share one spread, and three runs estimate none alone); two constant sides are equal (p 1) or different (p 0). */
    static double pValue(double[] before, double[] after) {
        if (variance(before) == 0 && variance(after) == 0) {
            return mean(before) == mean(after) ? 1 : 0;
        }
        return T_TEST.homoscedasticTTest(before, after);
    }

    /** Matteson and James's ê for the split of a segment at {@code at}, from the segment's distance matrix. */
    static double energy(double[][] distances, int at) {
        int n = distances.length;
        int m = at;
        int k = n - at;
        if (m < 2 || k < 2) {
            return 0;
        }
        double between = 0;
        double withinLeft = 0;
        double withinRight = 0;
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                if (j < at) {
                    withinLeft += distances[i][j];
                } else if (i >= at) {
                    withinRight += distances[i][j];
                } else {
                    between += distances[i][j];
                }
            }
        }
        double e = 2 * between / (m * (double) k) - withinLeft / (m * (m - 1) / 2.0) - withinRight / (k * (k - 1) / 2.0);
        return m * (double) k / n * e;
    }

    private static double[][] distances(double[][] points, int from, int to) {
        int n = to - from;
        double[][] d = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                double sum = 0;
                for (int c = 0; c < points[0].length; c++) {
                    double delta = points[from + i][c] - points[from + j][c];
                    sum += delta * delta;
                }
                d[i][j] = d[j][i] = Math.sqrt(sum);
            }
        }
        return d;
    }

    static double[] column(double[][] points, int from, int to, int dimension) {
        double[] values = new double[to - from];
        for (int i = from; i < to; i++) {
            values[i - from] = points[i][dimension];
        }
        return values;
    }

    static double mean(double[] values) {
        double sum = 0;
        for (double v : values) {
            sum += v;
        }
        return sum / values.length;
    }

    private static double variance(double[] values) {
        double mean = mean(values);
        double sum = 0;
        for (double v : values) {
            sum += (v - mean) * (v - mean);
        }
        return sum;
    }

    /** A window's values, compared by content: the memo's key. */
    private record Window(double[][] points) {
        @Override
        public boolean equals(Object other) {
            return other instanceof Window w && Arrays.deepEquals(points, w.points);
        }

        @Override
        public int hashCode() {
            return Arrays.deepHashCode(points);
        }
    }
}
