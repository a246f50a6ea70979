package dev.pacer.agent;

import java.util.List;

/**
 * How long some CPUs ran work of this machine, from the kernel's per-CPU counters ({@code /proc/stat}'s {@code cpuN}
 * lines): user, nice, system, irq and softirq, in the kernel's clock ticks (USER_HZ, 100 a second on Linux's common
 * architectures, so 10 ms apart). Idle and I/O wait are not busy; neither is steal, the time a hypervisor gave the
 * CPU to another machine. Pure.
 */
public final class CpuBusy {
    /** USER_HZ: what /proc/stat counts in. */
    static final long NANOS_PER_TICK = 10_000_000L;
    private static final int[] BUSY_FIELDS = {1, 2, 3, 6, 7};   // user nice system (idle iowait) irq softirq (steal)

    private CpuBusy() {
    }

    /** The busy time of these CPUs since boot in nanoseconds, or -1 when the text names none of them. */
    public static long busyNanos(String procStat, List<Integer> cpus) {
        long ticks = 0;
        boolean found = false;
        for (String line : procStat.split("\n")) {
            if (!line.startsWith("cpu") || line.length() < 4 || !Character.isDigit(line.charAt(3))) {
                continue;   // the "cpu" total, or another counter
            }
            String[] fields = line.trim().split("\\s+");
            if (!cpus.contains(Integer.parseInt(fields[0].substring(3)))) {
                continue;
            }
            found = true;
            for (int field : BUSY_FIELDS) {
                if (field < fields.length) {
                    ticks += Long.parseLong(fields[field]);
                }
            }
        }
        return found ? ticks * NANOS_PER_TICK : -1;
    }
}
