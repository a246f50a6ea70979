package dev.pacer.contract;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code GET /pacer/v1/resources}: what the measured process used, one sample per sample period, closed on the same
 * wall-clock boundaries as its histograms. The engine sums and maxes the samples of the measured window into the
 * server's footprint and reads the idle figures from the periods before the load. Golden file:
 * {@code resources.json}.
 *
 * @param pid          the process sampled
 * @param periodMillis the sample period
 * @param cpusAllowed  CPUs the process may run on (its cpuset), the denominator of its CPU utilisation
 * @param peakResets   whether each sample's peak RSS is that period's own (the kernel's high-water mark is reset at
 *                     each boundary); when false it is the peak since the process started
 * @param samples      oldest first; bounded, the oldest dropped first
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record ResourceUse(long pid, long periodMillis, Integer cpusAllowed, boolean peakResets, List<Sample> samples) {
    public ResourceUse {
        samples = samples == null ? List.of() : List.copyOf(samples);
    }

    /**
     * One period.
     *
     * @param startEpochMs  the period's start (the first one starts when sampling started)
     * @param endEpochMs    its end
     * @param cpuNanos      CPU time (user + system) the process used in the period
     * @param rssBytes      resident set size at the end of the period
     * @param peakRssBytes  the highest resident set size in the period (see {@link ResourceUse#peakResets()})
     * @param gcPauseMillis time the JVM's collectors report for the period (stop-the-world collectors: pause time);
     *                      absent for a process that is not a JVM
     * @param gcCount       collections in the period; absent for a process that is not a JVM
     * @param runQueueWaitNanos time the process's threads spent runnable but waiting for a CPU in the period
     *                      ({@code /proc/<pid>/task/*}{@code /schedstat}): with {@code cpuNanos}, the CPU the process
     *                      wanted; absent where the kernel does not keep it
     * @param maxHiccupMicros the longest stall of the process in the period, its clock watched at least every 1 ms, or at
     *                      a client's wake-up interval when longer (GC, safepoints, descheduling: jHiccup's method);
     *                      absent where nothing measured it
     * @param runSlices     times the process's threads were put on a CPU in the period (schedstat's third field): the
     *                      wait per slice is how long a thread waited each time it became runnable; absent with the wait
     * @param jitCpuNanos   CPU time the JVM's just-in-time compiler threads ran in the period ({@code C1/C2
     *                      CompilerThread}, their schedstat): threads of the process itself that take its CPUs from its
     *                      work (a client still compiling sends late); absent for a process that is not a JVM
     * @param neighbourCpuNanos CPU time that other processes, and the kernel's interrupt work, used on the CPUs this
     *                      process may run on in the period: those CPUs' busy time ({@code /proc/stat}, in the kernel's
     *                      10 ms ticks; a hypervisor's steal is not counted) less the process's own; meaningful when
     *                      the process is pinned; absent where unknown
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Sample(long startEpochMs, long endEpochMs, long cpuNanos, long rssBytes, long peakRssBytes,
                         Long gcPauseMillis, Long gcCount, Long runQueueWaitNanos, Long maxHiccupMicros, Long runSlices,
                         Long jitCpuNanos, Long neighbourCpuNanos) {
        public Sample(long startEpochMs, long endEpochMs, long cpuNanos, long rssBytes, long peakRssBytes, Long gcPauseMillis, Long gcCount,
                      Long runQueueWaitNanos, Long maxHiccupMicros, Long runSlices) {
            this(startEpochMs, endEpochMs, cpuNanos, rssBytes, peakRssBytes, gcPauseMillis, gcCount, runQueueWaitNanos, maxHiccupMicros,
                    runSlices, null, null);
        }

        public Sample(long startEpochMs, long endEpochMs, long cpuNanos, long rssBytes, long peakRssBytes, Long gcPauseMillis, Long gcCount) {
            this(startEpochMs, endEpochMs, cpuNanos, rssBytes, peakRssBytes, gcPauseMillis, gcCount, null, null, null);
        }
    }
}
