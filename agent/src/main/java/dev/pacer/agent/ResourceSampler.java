package dev.pacer.agent;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
    private static final byte[] RESET_PEAK = {'5'};
    private static final String RSS = "VmRSS:";
    private static final String PEAK_RSS = "VmHWM:";
    private static final int MAX_SAMPLES = PeriodSampler.DEFAULT_MAX_RETAINED_PERIODS;

    private final long periodMillis;
    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private final List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
    private final List<Integer> cpus = ProcessInfo.readCpusAllowedList(STATUS).map(CpuList::cpus).orElse(List.of());
    private final ArrayDeque<ResourceUse.Sample> samples = new ArrayDeque<>();   // guarded by this
    private final Map<String, long[]> lastByThread = new HashMap<>();   // tid → {wait ns, slices, CPU ns}
    private final Map<String, Boolean> compilerByThread = new HashMap<>();   // tid → a JIT compiler thread: read once
    // read at each period's close, kept open: that code runs interpreted (ProcFile)
    private final ThreadSchedstats schedstats = new ThreadSchedstats(TASKS);
    private final ProcFile statusFile = new ProcFile(STATUS, 4096);
    private final ProcFile statFile = new ProcFile(PROC_STAT, 4096);
    private FileChannel clearRefs;
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
        String status = statusFile.read();
        long rss = status == null ? 0 : kilobytes(ProcFile.field(status, RSS)) * 1024;
        long peak = status == null ? rss : Math.max(rss, kilobytes(ProcFile.field(status, PEAK_RSS)) * 1024);
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
        long[] sums = new long[3];   // wait, slices, JIT CPU
        Map<String, long[]> now = new HashMap<>();
        try {
            schedstats.readAll((tid, figures) -> {
                Boolean compiler = compilerByThread.get(tid);
                if (compiler == null) {
                    try {
                        compiler = isCompilerThread(Files.readString(TASKS.resolve(tid).resolve("comm")));
                    } catch (IOException gone) {
                        return;   // the thread ended while being read
                    }
                }
                long[] current = {figures.waitNanos(), figures.slices(), figures.cpuNanos()};
                long[] last = lastByThread.getOrDefault(tid, new long[3]);
                now.put(tid, current);
                compilerByThread.put(tid, compiler);
                sums[0] += Math.max(0, current[0] - last[0]);
                sums[1] += Math.max(0, current[1] - last[1]);
                if (compiler) {
                    sums[2] += Math.max(0, current[2] - last[2]);
                }
            });
        } catch (IOException | RuntimeException e) {
            return null;
        }
        lastByThread.clear();
        lastByThread.putAll(now);
        compilerByThread.keySet().retainAll(now.keySet());
        return sums;
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
            String stat = statFile.read();
            return stat == null ? -1 : CpuBusy.busyNanos(stat, cpus);
        } catch (RuntimeException e) {
            return -1;
        }
    }

    private long gcMillis() {
        long millis = 0;
        for (GarbageCollectorMXBean collector : collectors) {
            millis += Math.max(0, collector.getCollectionTime());
        }
        return millis;
    }

    private long gcCount() {
        long count = 0;
        for (GarbageCollectorMXBean collector : collectors) {
            count += Math.max(0, collector.getCollectionCount());
        }
        return count;
    }

    /** A {@code /proc/self/status} size ("123 kB") in kB, 0 where absent. */
    private static long kilobytes(String value) {
        return value == null ? 0 : Long.parseLong(value.replace("kB", "").trim());
    }

    private boolean resetPeak() {
        try {
            if (clearRefs == null) {
                clearRefs = FileChannel.open(CLEAR_REFS, StandardOpenOption.WRITE);
            }
            clearRefs.write(ByteBuffer.wrap(RESET_PEAK));
            return true;
        } catch (IOException | SecurityException | UnsupportedOperationException e) {
            return false;   // not Linux, or a /proc that refuses it: the peak stays the peak since start
        }
    }
}
