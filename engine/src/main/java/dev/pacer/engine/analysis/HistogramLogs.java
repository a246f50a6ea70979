package dev.pacer.engine.analysis;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.HdrHistogram.PackedHistogram;

/**
 * Reads the HdrHistogram interval logs the agents serve (standard format: comment, format version, start time,
 * base time, legend, then {@code start,length,max,compressed} lines, time stamps relative to the base time).
 *
 * <p>The reader turns {@code base + relative} seconds into milliseconds through a double and truncates, so a period
 * that started at {@code …000} ms may come back as {@code …999}: bounds within {@link #SNAP_TOLERANCE_MS} of a
 * multiple of the sample period are snapped to it. Partial periods (the agent's first and last) keep their bounds.
 */
public final class HistogramLogs {
    static final long SNAP_TOLERANCE_MS = 2;

    private HistogramLogs() {
    }

    public static List<PeriodHistogram> parse(String log, long samplePeriodMs) {
        HistogramLogReader reader = new HistogramLogReader(new ByteArrayInputStream(log.getBytes(StandardCharsets.US_ASCII)));
        List<PeriodHistogram> periods = new ArrayList<>();
        EncodableHistogram next;
        while ((next = reader.nextIntervalHistogram()) != null) {
            if (!(next instanceof Histogram histogram)) {
                throw new IllegalArgumentException("expected integer-valued histograms, got " + next.getClass().getSimpleName());
            }
            long start = snap(histogram.getStartTimeStamp(), samplePeriodMs);
            long end = snap(histogram.getEndTimeStamp(), samplePeriodMs);
            periods.add(new PeriodHistogram(start, end, packed(histogram)));
        }
        return periods;
    }

    /**
     * The same counts in HdrHistogram's {@link PackedHistogram}, whose memory follows the buckets in use: a period's
     * few hundred rather than the 27,648 counts (216 KiB) of a plain histogram up to 60 s at 3 digits. A collector holds
     * every period of every series of a run at once (Jetty's 4 clients × 3 series and the server, 240 periods: 690 MB
     * plain), so this is what keeps the operator in its memory limit.
     */
    static Histogram packed(Histogram histogram) {
        PackedHistogram packed = new PackedHistogram(histogram.getLowestDiscernibleValue(), histogram.getHighestTrackableValue(),
                histogram.getNumberOfSignificantValueDigits());
        packed.add(histogram);
        packed.setStartTimeStamp(histogram.getStartTimeStamp());
        packed.setEndTimeStamp(histogram.getEndTimeStamp());
        packed.setTag(histogram.getTag());
        return packed;
    }

    static long snap(long epochMs, long samplePeriodMs) {
        long nearest = Math.round((double) epochMs / samplePeriodMs) * samplePeriodMs;
        return Math.abs(nearest - epochMs) <= SNAP_TOLERANCE_MS ? nearest : epochMs;
    }
}
