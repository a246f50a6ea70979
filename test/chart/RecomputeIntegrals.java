import java.io.FileInputStream;
import java.io.IOException;

import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

/**
 * An independent recomputation of a run's P99 and max integrals from its raw server log, with HdrHistogram's own log
 * reader and none of pacer's code: java -cp HdrHistogram.jar RecomputeIntegrals.java server.hlog WINDOW_START_MS
 * WINDOW_END_MS PERIOD_MS prints "P99_INTEGRAL_US MAX_INTEGRAL_US PERIODS". A period counts when it lies within the
 * window (its bounds within 2 ms of the period grid, as agents write them) and is one period long; values are in
 * nanoseconds, the sums truncated to microseconds as jetty-perf truncates them.
 */
public class RecomputeIntegrals {
    public static void main(String[] args) throws IOException {
        long start = Long.parseLong(args[1]);
        long end = Long.parseLong(args[2]);
        long period = Long.parseLong(args[3]);
        long p99Nanos = 0;
        long maxNanos = 0;
        int periods = 0;
        try (FileInputStream in = new FileInputStream(args[0])) {
            HistogramLogReader reader = new HistogramLogReader(in);
            EncodableHistogram next;
            while ((next = reader.nextIntervalHistogram()) != null) {
                Histogram h = (Histogram) next;
                long from = h.getStartTimeStamp();
                long to = h.getEndTimeStamp();
                boolean inWindow = from >= start - 2 && to <= end + 2 && Math.abs((to - from) - period) <= 4;
                if (inWindow) {
                    periods++;
                    if (h.getTotalCount() > 0) {
                        p99Nanos += h.getValueAtPercentile(99);
                        maxNanos += h.getMaxValue();
                    }
                }
            }
        }
        System.out.println(p99Nanos / 1000 + " " + maxNanos / 1000 + " " + periods);   // truncated, as jetty-perf
    }
}
