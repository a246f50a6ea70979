package dev.pacer.loadgen.bench;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;

import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

/**
 * The percentiles of an agent's interval log over a window, for the benchmark scripts: the periods that lie wholly
 * inside {@code [START, END)} (epoch ms) merged. Prints {@code count p50Micros p99Micros maxMicros}.
 *
 * <p>Usage: {@code WindowPercentiles FILE START_EPOCH_MS END_EPOCH_MS}
 */
public final class WindowPercentiles {
    private WindowPercentiles() {
    }

    public static void main(String[] args) throws IOException {
        long start = Long.parseLong(args[1]);
        long end = Long.parseLong(args[2]);
        Histogram merged = new Histogram(3);
        merged.setAutoResize(true);
        try (InputStream in = new FileInputStream(args[0])) {
            HistogramLogReader reader = new HistogramLogReader(in);
            EncodableHistogram next;
            while ((next = reader.nextIntervalHistogram()) != null) {
                if (next.getStartTimeStamp() >= start - 2 && next.getEndTimeStamp() <= end + 2) {   // periods snap to ms
                    merged.add((Histogram) next);
                }
            }
        }
        System.out.printf(Locale.ROOT, "%d %.1f %.1f %.1f%n", merged.getTotalCount(), percentile(merged, 50) / 1e3,
                percentile(merged, 99) / 1e3, merged.getTotalCount() == 0 ? 0 : merged.getMaxValue() / 1e3);
    }

    private static long percentile(Histogram h, double p) {
        return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(p);
    }
}
