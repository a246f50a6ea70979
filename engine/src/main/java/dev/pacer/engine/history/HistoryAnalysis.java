package dev.pacer.engine.history;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeSet;

import dev.pacer.engine.analysis.PeriodComparison;

/**
 * The history of finished runs: grouped into series ({@link SeriesKey}), each figure and the spectrum searched for
 * change points on log values with single-run outliers set aside, each change sized by Hodges–Lehmann with its 95 %
 * interval and confirmed once enough later runs agree. Pure: the CLI reads results directories, the operator a
 * database; both hand their points here. One instance keeps its windows' candidates, so that analysing again as runs
 * arrive is cheap and equals analysing afresh.
 */
public final class HistoryAnalysis {
    private final ChangePointParameters parameters;
    private final Map<Figure, ChangePoints> searches = new EnumMap<>(Figure.class);

    public HistoryAnalysis(ChangePointParameters parameters) {
        this.parameters = parameters;
        for (Figure figure : Figure.values()) {
            searches.put(figure, new ChangePoints(parameters));
        }
    }

    public ChangePointParameters parameters() {
        return parameters;
    }

    /** Every series of these points, by label. */
    public List<SeriesHistory> analyse(Collection<HistoryPoint> points, Collection<Acknowledgement> acknowledged) {
        Map<String, List<HistoryPoint>> bySeries = new LinkedHashMap<>();
        points.forEach(p -> bySeries.computeIfAbsent(p.series().id(), id -> new ArrayList<>()).add(p));
        return bySeries.values().stream().map(series -> analyseSeries(series, acknowledged))
                .sorted(Comparator.comparing((SeriesHistory h) -> h.key().label()).thenComparing(h -> h.key().id())).toList();
    }

    /** One series: its points, in any order, of one key. */
    public SeriesHistory analyseSeries(List<HistoryPoint> series, Collection<Acknowledgement> acknowledged) {
        List<HistoryPoint> ordered = series.stream()
                .sorted(Comparator.comparingLong(HistoryPoint::endEpochMs).thenComparing(HistoryPoint::run)).toList();
        SeriesKey key = ordered.getFirst().series();
        Map<Figure, List<String>> outliers = new EnumMap<>(Figure.class);
        Map<Figure, Double> spreads = new EnumMap<>(Figure.class);
        List<SeriesHistory.Change> changes = new ArrayList<>();
        for (Figure figure : Figure.values()) {
            double[][] values = ordered.stream().map(p -> p.logValues(figure)).toArray(double[][]::new);
            TreeSet<Integer> set = new TreeSet<>();
            for (int d = 0; d < values[0].length; d++) {
                set.addAll(Outliers.of(ChangePoints.column(values, 0, values.length, d), parameters.outlierAlpha(), parameters.outlierMaxShare()));
            }
            outliers.put(figure, set.stream().map(i -> ordered.get(i).run()).toList());
            List<HistoryPoint> kept = new ArrayList<>();
            List<double[]> keptValues = new ArrayList<>();
            for (int i = 0; i < ordered.size(); i++) {
                if (!set.contains(i)) {
                    kept.add(ordered.get(i));
                    keptValues.add(values[i]);
                }
            }
            double[][] searched = keptValues.toArray(double[][]::new);
            List<ChangePoints.Change> found = searches.get(figure).find(searched);
            if (figure != Figure.spectrum) {
                spread(searched, found).ifPresent(s -> spreads.put(figure, s));
            }
            for (int k = 0; k < found.size(); k++) {
                ChangePoints.Change c = found.get(k);
                int from = k == 0 ? 0 : found.get(k - 1).index();
                int to = k == found.size() - 1 ? kept.size() : found.get(k + 1).index();
                changes.add(change(key, figure, c, kept.subList(from, c.index()), kept.subList(c.index(), to), kept.size() - c.index(),
                        acknowledged));
            }
        }
        changes.sort(Comparator.comparingLong((SeriesHistory.Change c) -> endOf(ordered, c.firstRun())).thenComparing(SeriesHistory.Change::figure));
        return new SeriesHistory(key, ordered, outliers, List.copyOf(changes), spreads);
    }

    /** The pooled standard deviation of one-dimensional values within the segments between changes. */
    private static OptionalDouble spread(double[][] values, List<ChangePoints.Change> changes) {
        double squares = 0;
        int degrees = 0;
        int from = 0;
        for (int k = 0; k <= changes.size(); k++) {
            int to = k == changes.size() ? values.length : changes.get(k).index();
            if (to - from >= 2) {
                double[] segment = ChangePoints.column(values, from, to, 0);
                double mean = ChangePoints.mean(segment);
                for (double v : segment) {
                    squares += (v - mean) * (v - mean);
                }
                degrees += segment.length - 1;
            }
            from = to;
        }
        return degrees == 0 ? OptionalDouble.empty() : OptionalDouble.of(Math.sqrt(squares / degrees));
    }

    private SeriesHistory.Change change(SeriesKey key, Figure figure, ChangePoints.Change found, List<HistoryPoint> before,
                                        List<HistoryPoint> after, int runsAfter, Collection<Acknowledgement> acknowledged) {
        double[] beforeValues = before.stream().mapToDouble(p -> p.value(figure, found.dimension())).toArray();
        double[] afterValues = after.stream().mapToDouble(p -> p.value(figure, found.dimension())).toArray();
        PeriodComparison size = PeriodComparison.of(beforeValues, afterValues).orElseThrow();
        String percentile = figure == Figure.spectrum ? percentileName(HistoryPoint.SPECTRUM_PERCENTILES[found.dimension()]) : null;
        SeriesHistory.Status status = runsAfter >= parameters.confirmRuns() ? SeriesHistory.Status.confirmed : SeriesHistory.Status.suspected;
        SeriesHistory.Change change = new SeriesHistory.Change(key.id(), figure, percentile, after.getFirst().run(), before.getLast().run(),
                runsAfter, size.shift(), size.shiftLow(), size.shiftHigh(), found.p(), status, figure.regression(size.shift()), false,
                before.stream().map(HistoryPoint::serverDigest).distinct().toList(), after.stream().map(HistoryPoint::serverDigest).distinct().toList());
        boolean acknowledgedChange = acknowledged.stream().anyMatch(a -> a.covers(change));
        return acknowledgedChange ? new SeriesHistory.Change(change.series(), figure, percentile, change.firstRun(), change.lastRunBefore(), runsAfter,
                change.shift(), change.shiftLow(), change.shiftHigh(), change.p(), status, change.regression(), true, change.digestsBefore(),
                change.digestsAfter()) : change;
    }

    /** p50, p99.9, max. */
    public static String percentileName(double percentile) {
        if (percentile >= 100) {
            return "max";
        }
        return "p" + (percentile == Math.rint(percentile) ? String.valueOf((long) percentile) : String.format(Locale.ROOT, "%s", percentile));
    }

    private static long endOf(List<HistoryPoint> ordered, String run) {
        return ordered.stream().filter(p -> p.run().equals(run)).mapToLong(HistoryPoint::endEpochMs).findFirst().orElse(0);
    }
}
