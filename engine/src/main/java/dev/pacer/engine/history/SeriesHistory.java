package dev.pacer.engine.history;

import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One series analysed: its runs in order, the runs each figure's outlier test set aside, and its changes.
 *
 * @param key      the series
 * @param points   its runs, oldest first
 * @param outliers per figure, the runs set aside as single-run outliers (names)
 * @param changes  every change found, oldest first
 * @param spreads  per figure (not the spectrum), its run-to-run spread: the standard deviation of the logs of its values
 *                 within the segments between changes, outliers left out, pooled; what a change must exceed to be found
 *                 (docs/history.md); absent under two runs a segment
 */
public record SeriesHistory(SeriesKey key, List<HistoryPoint> points, Map<Figure, List<String>> outliers, List<Change> changes,
                            Map<Figure, Double> spreads) {

    /** Confirmed after {@link ChangePointParameters#confirmRuns()} later runs agree; suspected until then. */
    public enum Status { suspected, confirmed }

    /**
     * A change of one figure.
     *
     * @param series         the series' id
     * @param figure         what changed
     * @param percentile     for the spectrum, the percentile that moved most (p50 … p99.99, max); else null
     * @param firstRun       the first run after the change
     * @param lastRunBefore  the last run before it
     * @param runsAfter      runs after it (outliers not counted)
     * @param shift          Hodges–Lehmann shift of the segment after against the segment before, over the median before
     *                       (0.10: 10 % higher)
     * @param shiftLow       its 95 % interval, lower bound
     * @param shiftHigh      upper bound
     * @param p              the change's p-value between its neighbouring changes (corrected, {@link ChangePoints})
     * @param status         suspected or confirmed
     * @param regression     whether the figure got worse
     * @param acknowledged   whether someone acknowledged it ({@link Acknowledgement})
     * @param digestsBefore  the server image digests of the segment before
     * @param digestsAfter   those of the segment after
     */
    public record Change(String series, Figure figure, String percentile, String firstRun, String lastRunBefore, int runsAfter,
                         double shift, double shiftLow, double shiftHigh, double p, Status status, boolean regression,
                         boolean acknowledged, List<String> digestsBefore, List<String> digestsAfter) {
        /** The change in words: the figure, its size and interval, where, how sure, the builds on each side. */
        public String describe() {
            return String.format(Locale.ROOT, "%s%s %+.1f %% (95 %% interval %+.1f %% to %+.1f %%) from run %s on, after %s; %s by %d runs; "
                            + "server builds %s then %s", figure, percentile == null ? "" : " " + percentile, shift * 100, shiftLow * 100,
                    shiftHigh * 100, firstRun, lastRunBefore, status == Status.confirmed ? "confirmed" : "suspected", runsAfter,
                    String.join(",", digestsBefore), String.join(",", digestsAfter));
        }

        /** What alerts: a confirmed regression nobody acknowledged. */
        public boolean alerts() {
            return status == Status.confirmed && regression && !acknowledged;
        }
    }

    /** The changes that alert ({@link Change#alerts()}). */
    public List<Change> alerting() {
        return changes.stream().filter(Change::alerts).toList();
    }

    /**
     * The same analysis with each change marked as these acknowledgements say, as {@link HistoryAnalysis} marks them:
     * an acknowledgement made after the analysis reaches it without analysing the runs again.
     */
    public SeriesHistory acknowledgedBy(Collection<Acknowledgement> acknowledgements) {
        List<Change> marked = changes.stream().map(c -> {
            boolean acknowledged = acknowledgements.stream().anyMatch(a -> a.covers(c));
            return acknowledged == c.acknowledged() ? c : new Change(c.series(), c.figure(), c.percentile(), c.firstRun(), c.lastRunBefore(),
                    c.runsAfter(), c.shift(), c.shiftLow(), c.shiftHigh(), c.p(), c.status(), c.regression(), acknowledged,
                    c.digestsBefore(), c.digestsAfter());
        }).toList();
        return new SeriesHistory(key, points, outliers, marked, spreads);
    }
}
