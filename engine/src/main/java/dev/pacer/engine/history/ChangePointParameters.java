package dev.pacer.engine.history;

/**
 * The change point search's parameters. docs/history.md states the defaults with the false-positive and detection
 * rates {@code ChangePointsTest} measures with them.
 *
 * @param windowRuns      runs in one window of the weak pass; windows start every half window
 * @param minSegmentRuns  fewest runs on either side of a change
 * @param weakP           a split enters the candidates below this p-value (after the correction for the split's choice)
 * @param finalP          a candidate stays a change below this p-value, tested between its neighbours
 * @param minMagnitude    smallest change kept, as a difference of the means of the log values (0.02: about 2 %)
 * @param confirmRuns     runs after a change (outliers not counted) before it is confirmed; until then it is suspected
 * @param outlierAlpha    the significance of the generalized ESD test that marks single-run outliers
 * @param outlierMaxShare the most runs of a series the outlier test may mark, as a share of its runs
 */
public record ChangePointParameters(int windowRuns, int minSegmentRuns, double weakP, double finalP, double minMagnitude,
                                    int confirmRuns, double outlierAlpha, double outlierMaxShare) {
    public static final ChangePointParameters DEFAULTS = new ChangePointParameters(30, 3, 0.05, 0.001, 0.02, 5, 0.01, 0.1);

    public ChangePointParameters {
        if (windowRuns < 2 * minSegmentRuns || minSegmentRuns < 2) {
            throw new IllegalArgumentException("windowRuns must hold two segments of at least minSegmentRuns (≥ 2) runs");
        }
        if (confirmRuns < 1) {
            throw new IllegalArgumentException("confirmRuns must be at least 1, was " + confirmRuns);
        }
    }

    /** These parameters with another number of later runs that confirm a change. */
    public ChangePointParameters withConfirmRuns(int runs) {
        return new ChangePointParameters(windowRuns, minSegmentRuns, weakP, finalP, minMagnitude, runs, outlierAlpha, outlierMaxShare);
    }
}
