package dev.pacer.agent;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.pacer.contract.CpuList;
import dev.pacer.contract.ResourceUse;

/**
 * What this process used per sample period ({@code GET /pacer/v1/resources}): CPU time, resident set size at the
 * boundary and its peak within the period, and the collectors' time. It listens to the processing-time sampler, so
 * its periods are the histograms' periods.
 *
 * <p>Peak RSS per period: the kernel keeps a high-water mark ({@code VmHWM}) that writing {@code 5} to
 * {@code /proc/self/clear_refs} resets (Linux 4.0+). Read then reset at each boundary, it is the period's own peak.
 * Where the write is refused the mark is the peak since start, and {@link ResourceUse#peakResets()} says so.
 */
public final class ResourceSampler {
    static final Path STATUS = Path.of("/proc/self/status");
    static final Path CLEAR_REFS = Path.of("/proc/self/clear_refs");
    private static final int MAX_SAMPLES = PeriodSampler.DEFAULT_MAX_RETAINED_PERIODS;

    private final long periodMillis;
    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private final List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
    private final ArrayDeque<ResourceUse.Sample> samples = new ArrayDeque<>();   // guarded by this
    private long lastCpuNanos;
    private long lastGcMillis;
    private long lastGcCount;
    private boolean peakResets;

    public ResourceSampler(long periodMillis) {
        this.periodMillis = periodMillis;
        this.lastCpuNanos = os.getProcessCpuTime();
        this.lastGcMillis = gcMillis();
        this.lastGcCount = gcCount();
        this.peakResets = resetPeak();
    }

    /** Called at each period's close, on the sampler's closing thread. */
    public void periodClosed(long startEpochMs, long endEpochMs) {
        long cpu = os.getProcessCpuTime();
        long gcMillis = gcMillis();
        long gcCount = gcCount();
        long rss = statusKilobytes("VmRSS:") * 1024;
        long peak = Math.max(rss, statusKilobytes("VmHWM:") * 1024);
        boolean reset = resetPeak();
        ResourceUse.Sample sample = new ResourceUse.Sample(startEpochMs, endEpochMs, Math.max(0, cpu - lastCpuNanos), rss, peak,
                gcMillis - lastGcMillis, gcCount - lastGcCount);
        lastCpuNanos = cpu;
        lastGcMillis = gcMillis;
        lastGcCount = gcCount;
        synchronized (this) {
            peakResets &= reset;
            samples.addLast(sample);
            while (samples.size() > MAX_SAMPLES) {
                samples.removeFirst();
            }
        }
    }

    public synchronized ResourceUse snapshot() {
        Optional<String> cpuset = ProcessInfo.readCpusAllowedList(STATUS);
        return new ResourceUse(ProcessHandle.current().pid(), periodMillis, cpuset.map(CpuList::count).orElse(null),
                peakResets, new ArrayList<>(samples));
    }

    private long gcMillis() {
        return collectors.stream().mapToLong(c -> Math.max(0, c.getCollectionTime())).sum();
    }

    private long gcCount() {
        return collectors.stream().mapToLong(c -> Math.max(0, c.getCollectionCount())).sum();
    }

    private static long statusKilobytes(String field) {
        return ProcessInfo.readStatusField(STATUS, field).map(v -> Long.parseLong(v.replace("kB", "").trim())).orElse(0L);
    }

    private static boolean resetPeak() {
        try {
            Files.writeString(CLEAR_REFS, "5");
            return true;
        } catch (IOException | SecurityException e) {
            return false;   // not Linux, or a /proc that refuses it: the peak stays the peak since start
        }
    }
}
