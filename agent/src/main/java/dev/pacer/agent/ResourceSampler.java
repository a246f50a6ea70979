package dev.pacer.agent;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.pacer.contract.CpuList;
import dev.pacer.contract.ResourceUse;

/**
 * What this process used per sample period ({@code GET /pacer/v1/resources}): CPU time, the time its threads waited
 * for a CPU, resident set size at the boundary and its peak within the period, the collectors' time and the longest
 * stall ({@link HiccupMeter}). It listens to a sampler of the agent, so its periods are the histograms' periods.
 *
 * <p>Peak RSS per period: the kernel keeps a high-water mark ({@code VmHWM}) that writing {@code 5} to
 * {@code /proc/self/clear_refs} resets (Linux 4.0+). Read then reset at each boundary, it is the period's own peak.
 * Where the write is refused the mark is the peak since start, and {@link ResourceUse#peakResets()} says so.
 */
public final class ResourceSampler {
    static final Path STATUS = Path.of("/proc/self/status");
    static final Path CLEAR_REFS = Path.of("/proc/self/clear_refs");
    static final Path TASKS = Path.of("/proc/self/task");
    static final Path PROC_STAT = Path.of("/proc/stat");
    private static final int MAX_SAMPLES = PeriodSampler.DEFAULT_MAX_RETAINED_PERIODS;

    private final long periodMillis;
    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private final List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
    private final List<Integer> cpus = ProcessInfo.readCpusAllowedList(STATUS).map(CpuList::cpus).orElse(List.of());
    private final ArrayDeque<ResourceUse.Sample> samples = new ArrayDeque<>();   // guarded by this
    private final Map<String, long[]> lastByThread = new HashMap<>();   // tid → {wait ns, slices, CPU ns}
    private final Map<String, Boolean> compilerByThread = new HashMap<>();   // tid → a JIT compiler thread: read once
    private final HiccupMeter hiccups;   // null: no stalls measured
    private long lastCpuNanos;
    private long lastGcMillis;
    private long lastGcCount;
    private long lastCpusBusyNanos;
    private boolean peakResets;
    private boolean waitKept;

    /** A sampler of this process that also measures its stalls (clients: a stalled client sends late). */
    public ResourceSampler(long periodMillis) {
        this(periodMillis, true);
    }

    /**
     * @param measureStalls whether a {@link HiccupMeter} runs: not in a server under test, where its thousand wake-ups
     *                      a second would share the server's CPUs, and where GC time already says what a stall would
     */
    public ResourceSampler(long periodMillis, boolean measureStalls) {
        this(periodMillis, measureStalls ? new HiccupMeter() : null);
    }

    /** @param stalls the meter of this process's stalls, null for none (a client's pacing threads also report to it) */
    public ResourceSampler(long periodMillis, HiccupMeter stalls) {
        this.periodMillis = periodMillis;
        this.hiccups = stalls;
        this.lastCpuNanos = os.getProcessCpuTime();
        this.lastGcMillis = gcMillis();
        this.lastGcCount = gcCount();
        this.lastCpusBusyNanos = cpusBusyNanos();
        this.peakResets = resetPeak();
        this.waitKept = schedDelta() != null;
        if (hiccups != null) {
            hiccups.takeMaxMicros();
        }
    }

    /** Called at each period's close, on the sampler's closing thread. */
    public void periodClosed(long startEpochMs, long endEpochMs) {
        long cpu = os.getProcessCpuTime();
        long gcMillis = gcMillis();
        long gcCount = gcCount();
        long rss = statusKilobytes("VmRSS:") * 1024;
        long peak = Math.max(rss, statusKilobytes("VmHWM:") * 1024);
        boolean reset = resetPeak();
        long[] sched = waitKept ? schedDelta() : null;
        long cpusBusy = cpusBusyNanos();
        long cpuUsed = Math.max(0, cpu - lastCpuNanos);
        // the ticks' 10 ms grain can make a busy CPU's count trail the process's own: never below zero
        Long neighbours = cpusBusy < 0 || lastCpusBusyNanos < 0 ? null : Math.max(0, cpusBusy - lastCpusBusyNanos - cpuUsed);
        ResourceUse.Sample sample = new ResourceUse.Sample(startEpochMs, endEpochMs, cpuUsed, rss, peak,
                gcMillis - lastGcMillis, gcCount - lastGcCount, sched == null ? null : sched[0], hiccups == null ? null : hiccups.takeMaxMicros(),
                sched == null ? null : sched[1], sched == null ? null : sched[2], neighbours);
        lastCpusBusyNanos = cpusBusy;
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

    /**
     * Time this process's threads waited for a CPU since the last call, the slices they ran, and the CPU time of its
     * just-in-time compiler threads, summed thread by thread from each {@code /proc/self/task/<tid>/schedstat} (time on
     * a CPU, time waiting, slices) and {@code comm}; a thread that started since counts whole, one that ended within the
     * period is missed (servers and clients wait in long-lived threads). Null where the kernel keeps no schedstat.
     */
    private long[] schedDelta() {
        try (var tasks = Files.newDirectoryStream(TASKS)) {
            long wait = 0;
            long slices = 0;
            long jitCpu = 0;
            Map<String, long[]> now = new HashMap<>();
            for (Path task : tasks) {
                String tid = task.getFileName().toString();
                String[] fields;
                Boolean compiler = compilerByThread.get(tid);
                try {
                    fields = Files.readString(task.resolve("schedstat")).trim().split("\\s+");
                    if (compiler == null) {
                        compiler = isCompilerThread(Files.readString(task.resolve("comm")));
                    }
                } catch (IOException gone) {
                    continue;   // the thread ended while being read
                }
                long[] current = {Long.parseLong(fields[1]), Long.parseLong(fields[2]), Long.parseLong(fields[0])};
                long[] last = lastByThread.getOrDefault(tid, new long[3]);
                now.put(tid, current);
                compilerByThread.put(tid, compiler);
                wait += Math.max(0, current[0] - last[0]);
                slices += Math.max(0, current[1] - last[1]);
                if (compiler) {
                    jitCpu += Math.max(0, current[2] - last[2]);
                }
            }
            lastByThread.clear();
            lastByThread.putAll(now);
            compilerByThread.keySet().retainAll(now.keySet());
            return new long[] {wait, slices, jitCpu};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** HotSpot's compiler threads, as the kernel names them (15 characters): "C1 CompilerThre", "C2 CompilerThre". */
    static boolean isCompilerThread(String comm) {
        return comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre");
    }

    /** The busy time of this process's CPUs since boot, or -1 where unknown. */
    private long cpusBusyNanos() {
        if (cpus.isEmpty()) {
            return -1;
        }
        try {
            return CpuBusy.busyNanos(Files.readString(PROC_STAT), cpus);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
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
