package dev.pacer.engine.analysis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.pacer.api.RunResult;
import dev.pacer.contract.ResourceUse;

/**
 * A process's footprint from its per-period resource samples ({@link ResourceUse}), the server's or a client's: idle
 * memory before the load, peak memory and CPU in the measured window, how saturated its CPUs were and its longest
 * stall, period by period. Pure.
 *
 * <p>Periods count as in the window when they lie wholly inside it, as for the histograms.
 */
public final class Footprint {
    /** A period at or above this CPU utilisation (CPU used over the CPUs allowed) is saturated: no CPU was left. */
    public static final double SATURATED_UTILIZATION = 0.95;
    /**
     * A period in which the threads waited this long on average each time they became runnable is saturated too: the
     * CPU was not there when they needed it, whoever had it (a starved process uses little CPU, so its utilisation
     * alone would not show it). A thread that finds a CPU free waits microseconds; one behind a busy neighbour waits a
     * scheduler slice, milliseconds.
     */
    public static final double STARVED_WAIT_MICROS = 1_000;

    private Footprint() {
    }

    /**
     * What the server used.
     *
     * @param use                what the agent or probe sampled, or {@code null} when nothing did
     * @param loadStartEpochMs   when the clients began (the warm-up's start): idle is before it
     * @param requestsInWindow   the server's requests in the window, for the CPU per request; {@code null} if unknown
     */
    public record Input(ResourceUse use, long loadStartEpochMs, long windowStartEpochMs, long windowEndEpochMs,
                        Long requestsInWindow) {
    }

    /**
     * The figures, each window period's usage keyed by its start, and what else took the process's CPUs over the window
     * and over its saturated periods.
     */
    public record Outcome(RunResult.Footprint figures, Map<Long, PeriodPoint.Usage> byPeriod, Competitors inWindow, Competitors whenSaturated) {
        public Outcome(RunResult.Footprint figures, Map<Long, PeriodPoint.Usage> byPeriod) {
            this(figures, byPeriod, Competitors.NONE, Competitors.NONE);
        }
    }

    /**
     * What took a process's CPUs from its work over some periods, each {@code null} where unknown: its own
     * just-in-time compilers and collectors, and other processes (with the kernel's interrupt work) on its CPUs.
     *
     * @param jitNanos          CPU time of its compiler threads
     * @param gcMillis          its collectors' time
     * @param neighbourNanos    CPU time of other processes on its CPUs
     * @param capacityMillis    what its CPUs offered over those periods: their length times the CPUs it may use
     */
    public record Competitors(Long jitNanos, Long gcMillis, Long neighbourNanos, long capacityMillis) {
        static final Competitors NONE = new Competitors(null, null, null, 0);
        /** A competitor that took this share of the CPUs' capacity or more is worth advice against. */
        static final double NOTABLE_SHARE = 0.05;

        Competitors plus(ResourceUse.Sample sample, Integer cpusAllowed) {
            long periodMs = Math.max(0, sample.endEpochMs() - sample.startEpochMs());
            return new Competitors(sum(jitNanos, sample.jitCpuNanos()), sum(gcMillis, sample.gcPauseMillis()),
                    sum(neighbourNanos, sample.neighbourCpuNanos()),
                    capacityMillis + periodMs * (cpusAllowed == null || cpusAllowed < 1 ? 1 : cpusAllowed));
        }

        /**
         * "its JIT compilers ran 950 ms, its collectors paused it 3 ms, other processes ran 40 ms on its CPUs", and the
         * advice against the largest when it took 5 % of the CPUs' capacity or more; empty when nothing is known.
         */
        public String describe() {
            List<String> parts = new ArrayList<>();
            long jit = jitNanos == null ? 0 : jitNanos / 1_000_000;
            long gc = gcMillis == null ? 0 : gcMillis;
            long neighbours = neighbourNanos == null ? 0 : neighbourNanos / 1_000_000;
            if (jitNanos != null) {
                parts.add("its JIT compilers ran " + jit + " ms");
            }
            if (gcMillis != null) {
                parts.add("its collectors paused it " + gc + " ms");
            }
            if (neighbourNanos != null) {
                parts.add("other processes ran " + neighbours + " ms on its CPUs");
            }
            if (parts.isEmpty()) {
                return "";
            }
            double notable = NOTABLE_SHARE * capacityMillis;
            String advice = jit > gc && jit > neighbours && jit >= notable
                    ? " (its compilers were still at work: a longer spec.warmup lets them finish first)"
                    : neighbours > gc && neighbours > jit && neighbours >= notable ? " (keep other work off the clients' CPUs)" : "";
            return String.join(", ", parts) + advice;
        }

        private static Long sum(Long total, Long more) {
            if (more == null) {
                return total;
            }
            return total == null ? more : Long.valueOf(total + more);
        }
    }

    public static Outcome of(Input input) {
        ResourceUse use = input.use();
        RunResult.Footprint figures = new RunResult.Footprint();
        Map<Long, PeriodPoint.Usage> byPeriod = new LinkedHashMap<>();
        ResourceUse.Sample idle = null;
        List<ResourceUse.Sample> window = new ArrayList<>();
        for (ResourceUse.Sample sample : use.samples()) {
            if (sample.endEpochMs() <= input.loadStartEpochMs()) {
                idle = sample;
            }
            if (sample.startEpochMs() >= input.windowStartEpochMs() && sample.endEpochMs() <= input.windowEndEpochMs()) {
                window.add(sample);
            }
        }
        if (idle != null) {
            figures.idleRssBytes = idle.rssBytes();
        }
        figures.cpusAllowed = use.cpusAllowed();
        if (window.isEmpty()) {
            return new Outcome(figures, byPeriod);
        }
        long cpuNanos = 0;
        long windowMs = 0;
        long peak = 0;
        Long gcMillis = null;
        Long gcCount = null;
        double maxUtilization = 0;
        Double maxDemand = null;
        Double maxWait = null;
        Double maxHiccup = null;
        int saturated = 0;
        Competitors inWindow = Competitors.NONE;
        Competitors whenSaturated = Competitors.NONE;
        for (ResourceUse.Sample sample : window) {
            inWindow = inWindow.plus(sample, use.cpusAllowed());
            long periodMs = Math.max(1, sample.endEpochMs() - sample.startEpochMs());
            cpuNanos += sample.cpuNanos();
            windowMs += periodMs;
            peak = Math.max(peak, sample.peakRssBytes());
            if (sample.gcPauseMillis() != null) {
                gcMillis = (gcMillis == null ? 0 : gcMillis) + sample.gcPauseMillis();
            }
            if (sample.gcCount() != null) {
                gcCount = (gcCount == null ? 0 : gcCount) + sample.gcCount();
            }
            double cores = sample.cpuNanos() / (periodMs * 1e6);
            boolean cpusKnown = use.cpusAllowed() != null && use.cpusAllowed() > 0;
            Double utilization = cpusKnown ? cores / use.cpusAllowed() : null;
            Double demand = cpusKnown && sample.runQueueWaitNanos() != null
                    ? (sample.cpuNanos() + sample.runQueueWaitNanos()) / (periodMs * 1e6) / use.cpusAllowed() : null;
            Double waitPerSliceMicros = sample.runQueueWaitNanos() != null && sample.runSlices() != null && sample.runSlices() > 0
                    ? sample.runQueueWaitNanos() / 1e3 / sample.runSlices() : null;
            if (utilization != null) {
                maxUtilization = Math.max(maxUtilization, utilization);
                if (utilization >= SATURATED_UTILIZATION || (waitPerSliceMicros != null && waitPerSliceMicros >= STARVED_WAIT_MICROS)) {
                    saturated++;
                    whenSaturated = whenSaturated.plus(sample, use.cpusAllowed());
                }
            }
            if (waitPerSliceMicros != null) {
                maxWait = maxWait == null ? waitPerSliceMicros : Math.max(maxWait, waitPerSliceMicros);
            }
            if (demand != null) {
                maxDemand = maxDemand == null ? demand : Math.max(maxDemand, demand);
            }
            Double hiccupMillis = sample.maxHiccupMicros() == null ? null : sample.maxHiccupMicros() / 1000.0;
            if (hiccupMillis != null) {
                maxHiccup = maxHiccup == null ? hiccupMillis : Math.max(maxHiccup, hiccupMillis);
            }
            byPeriod.put(sample.startEpochMs(), new PeriodPoint.Usage(round(cores, 3),
                    utilization == null ? null : round(utilization, 3), sample.rssBytes(), sample.peakRssBytes(), sample.gcPauseMillis(),
                    demand == null ? null : round(demand, 3), hiccupMillis, waitPerSliceMicros == null ? null : round(waitPerSliceMicros, 1)));
        }
        figures.peakRssBytes = peak;
        figures.peakRssSince = use.peakResets() ? "window" : "start";
        figures.cpuSeconds = round(cpuNanos / 1e9, 3);
        figures.cpuCores = round(cpuNanos / (windowMs * 1e6), 3);
        if (use.cpusAllowed() != null && use.cpusAllowed() > 0) {
            figures.cpuUtilization = round(figures.cpuCores / use.cpusAllowed(), 3);
            figures.maxPeriodCpuUtilization = round(maxUtilization, 3);
            figures.saturatedPeriods = saturated;
            figures.maxPeriodCpuDemand = maxDemand == null ? null : round(maxDemand, 3);
        }
        figures.maxWaitPerSliceMicros = maxWait == null ? null : round(maxWait, 1);
        figures.maxHiccupMillis = maxHiccup;
        if (input.requestsInWindow() != null && input.requestsInWindow() > 0) {
            figures.cpuMicrosPerRequest = round(cpuNanos / 1e3 / input.requestsInWindow(), 2);
        }
        figures.gcPauseMillis = gcMillis;
        figures.gcCount = gcCount;
        figures.jitCpuSeconds = inWindow.jitNanos() == null ? null : round(inWindow.jitNanos() / 1e9, 3);
        figures.neighbourCpuSeconds = inWindow.neighbourNanos() == null ? null : round(inWindow.neighbourNanos() / 1e9, 3);
        return new Outcome(figures, byPeriod, inWindow, whenSaturated);
    }

    private static double round(double value, int decimals) {
        double scale = Math.pow(10, decimals);
        return Math.round(value * scale) / scale;
    }
}
