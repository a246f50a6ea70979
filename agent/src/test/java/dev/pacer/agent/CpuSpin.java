package dev.pacer.agent;

import java.lang.management.ManagementFactory;

/** Spends CPU on the calling thread, measured by its own CPU clock: the same amount however busy the machine is. */
final class CpuSpin {
    private static volatile long sink;

    private CpuSpin() {
    }

    static void spinCpu(long cpuNanos) {
        var threads = ManagementFactory.getThreadMXBean();
        long end = threads.getCurrentThreadCpuTime() + cpuNanos;
        long x = 0;
        while (threads.getCurrentThreadCpuTime() < end) {
            x += System.nanoTime() % 7;
        }
        sink += x;
    }
}
