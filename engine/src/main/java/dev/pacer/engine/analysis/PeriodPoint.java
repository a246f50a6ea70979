package dev.pacer.engine.analysis;

import java.util.Map;

/**
 * One period of the measured window, for plots and {@code result.json}'s {@code periods}: latencies in microseconds.
 *
 * @param startEpochMs period start
 * @param server       the server's figures, or {@code null} without server histograms
 * @param clients      per client name
 */
public record PeriodPoint(long startEpochMs, Stats server, Map<String, ClientStats> clients) {

    public record Stats(long count, long minMicros, long p50Micros, long p99Micros, long maxMicros) {
    }

    public record ClientStats(long count, long p50Micros, long p99Micros, long p999Micros, long maxMicros,
                              long sendLagP99Micros) {
    }
}
