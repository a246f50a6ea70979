package dev.pacer.engine.analysis;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One period of the measured window, for plots and {@code result.json}'s {@code periods}: latencies in microseconds.
 *
 * @param startEpochMs period start
 * @param server       the server's figures, or {@code null} without server histograms
 * @param clients      per client name
 * @param serverSeries the server's other series ({@code residence}, {@code probe.service}, …), or {@code null}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PeriodPoint(long startEpochMs, Stats server, Map<String, ClientStats> clients, Map<String, Stats> serverSeries) {

    public PeriodPoint(long startEpochMs, Stats server, Map<String, ClientStats> clients) {
        this(startEpochMs, server, clients, null);
    }

    public record Stats(long count, long minMicros, long p50Micros, long p99Micros, long maxMicros) {
    }

    public record ClientStats(long count, long p50Micros, long p99Micros, long p999Micros, long maxMicros,
                              long sendLagP99Micros) {
    }
}
