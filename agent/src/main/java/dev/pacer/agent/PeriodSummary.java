package dev.pacer.agent;

import org.HdrHistogram.Histogram;

/**
 * The figures of one closed period, kept for the gauges of the last period.
 *
 * @param startEpochMillis start of the period
 * @param endEpochMillis   end of the period
 * @param count            values recorded in the period
 * @param minNanos         smallest value, 0 when the period is empty
 * @param p50Nanos         median
 * @param p99Nanos         99th percentile
 * @param p999Nanos        99.9th percentile
 * @param maxNanos         largest value (HdrHistogram's highest equivalent value)
 */
public record PeriodSummary(long startEpochMillis, long endEpochMillis, long count, long minNanos, long p50Nanos,
                            long p99Nanos, long p999Nanos, long maxNanos) {

    public static final PeriodSummary EMPTY = new PeriodSummary(0, 0, 0, 0, 0, 0, 0, 0);

    static PeriodSummary of(Histogram histogram) {
        if (histogram.getTotalCount() == 0) {
            return new PeriodSummary(histogram.getStartTimeStamp(), histogram.getEndTimeStamp(), 0, 0, 0, 0, 0, 0);
        }
        return new PeriodSummary(histogram.getStartTimeStamp(), histogram.getEndTimeStamp(), histogram.getTotalCount(),
                histogram.getMinValue(), histogram.getValueAtPercentile(50), histogram.getValueAtPercentile(99),
                histogram.getValueAtPercentile(99.9), histogram.getMaxValue());
    }
}
