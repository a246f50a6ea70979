package dev.pacer.engine.analysis;

import org.HdrHistogram.Histogram;

/** One closed sample period of one agent: its wall-clock bounds and its histogram (values in nanoseconds). */
public record PeriodHistogram(long startEpochMs, long endEpochMs, Histogram histogram) {
    public long lengthMs() {
        return endEpochMs - startEpochMs;
    }
}
