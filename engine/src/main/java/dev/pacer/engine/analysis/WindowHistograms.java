package dev.pacer.engine.analysis;

import java.util.ArrayList;
import java.util.List;

import org.HdrHistogram.Histogram;

/** The analysis's reading of per-period histograms: the periods of the window, sums, percentiles in microseconds. */
final class WindowHistograms {
    static final double NANOS_PER_MILLI = 1e6;

    private WindowHistograms() {
    }

    /** Full periods lying inside the window. */
    public static List<PeriodHistogram> inWindow(List<PeriodHistogram> periods, AnalysisInput input) {
        List<PeriodHistogram> kept = new ArrayList<>();
        for (PeriodHistogram period : periods) {
            if (period.startEpochMs() >= input.windowStartEpochMs() && period.endEpochMs() <= input.windowEndEpochMs()
                    && period.lengthMs() == input.samplePeriodMs()) {
                kept.add(period);
            }
        }
        return kept;
    }

    static Histogram newHistogram(List<PeriodHistogram> like) {
        if (!like.isEmpty()) {
            Histogram h = new Histogram(like.getFirst().histogram().getHighestTrackableValue(),
                    like.getFirst().histogram().getNumberOfSignificantValueDigits());
            h.setAutoResize(true);
            return h;
        }
        Histogram h = new Histogram(3);
        h.setAutoResize(true);
        return h;
    }

    /** One period of a server series, microseconds. */
    static PeriodPoint.Stats stats(Histogram h) {
        boolean empty = h.getTotalCount() == 0;
        return new PeriodPoint.Stats(h.getTotalCount(), micros(empty ? 0 : h.getMinValue()), micros(percentile(h, 50)),
                micros(percentile(h, 99)), micros(empty ? 0 : h.getMaxValue()));
    }

    static long percentile(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(percentile);
    }

    static long micros(long nanos) {
        return Integrals.toMicros(nanos);
    }

    static double round2(double value) {
        return Math.round(value * 100) / 100.0;
    }
}
