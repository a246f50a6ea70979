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
 * @param serverUsage  what the server process used in the period, or {@code null} when nothing sampled it
 * @param clientUsage  what each client process used in the period, by client name, or {@code null}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PeriodPoint(long startEpochMs, Stats server, Map<String, ClientStats> clients, Map<String, Stats> serverSeries,
                          Usage serverUsage, Map<String, Usage> clientUsage) {

    public PeriodPoint(long startEpochMs, Stats server, Map<String, ClientStats> clients) {
        this(startEpochMs, server, clients, null, null, null);
    }

    /**
     * @param cpuCores       CPUs busy on average in the period
     * @param cpuUtilization cpuCores over the CPUs the server may use, 0 to 1, or {@code null} when its cpuset is unknown
     * @param rssBytes       resident set size at the period's end
     * @param peakRssBytes   highest resident set size in the period
     * @param gcPauseMillis  the collectors' time in the period, or {@code null} for a process that is not a JVM
     * @param cpuDemand      CPU used plus the threads' wait for a CPU, over the CPUs allowed; {@code null} where unknown
     * @param maxHiccupMillis the longest stall in the period; {@code null} where nothing measured it
     * @param waitPerSliceMicros how long the threads waited on average each time they became runnable; {@code null} where unknown
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Usage(double cpuCores, Double cpuUtilization, long rssBytes, long peakRssBytes, Long gcPauseMillis,
                        Double cpuDemand, Double maxHiccupMillis, Double waitPerSliceMicros) {
    }

    public record Stats(long count, long minMicros, long p50Micros, long p99Micros, long maxMicros) {
    }

    public record ClientStats(long count, long p50Micros, long p99Micros, long p999Micros, long maxMicros,
                              long sendLagP99Micros) {
    }
}
