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
        // read once a second, so run interpreted: no regular expression, no string per field
        long ticks = 0;
        boolean found = false;
        for (int at = procStat.startsWith("cpu") ? 0 : nextCpuLine(procStat, 0); at >= 0; at = nextCpuLine(procStat, at)) {
            int end = procStat.indexOf('\n', at);
            end = end < 0 ? procStat.length() : end;
            int field = 0;
            long cpu = -1;
            for (int i = at + 3; i < end; ) {   // fields after "cpu": its number (none on the total line), then counters
                while (i < end && procStat.charAt(i) == ' ') {
                    i++;
                }
                int start = i;
                long value = 0;
                while (i < end && procStat.charAt(i) >= '0' && procStat.charAt(i) <= '9') {
                    value = value * 10 + (procStat.charAt(i) - '0');
                    i++;
                }
                if (i == start) {
                    break;   // not a number: the line is not one of the kernel's counters
                }
                if (field == 0) {
                    if (start != at + 3) {
                        break;   // "cpu  ...": the total of every CPU, not one
                    }
                    cpu = value;
                    if (!cpus.contains((int) cpu)) {
                        break;
                    }
                    found = true;
                } else if (isBusy(field)) {
                    ticks += value;
                }
                field++;
            }
        }
        return found ? ticks * NANOS_PER_TICK : -1;
    }

    /** Where the next line that begins with "cpu" after {@code from} begins, or -1. */
    private static int nextCpuLine(String procStat, int from) {
        int at = procStat.indexOf("\ncpu", from);
        return at < 0 ? -1 : at + 1;
    }

    private static boolean isBusy(int field) {
        for (int busy : BUSY_FIELDS) {
            if (busy == field) {
                return true;
            }
        }
        return false;
    }
}
