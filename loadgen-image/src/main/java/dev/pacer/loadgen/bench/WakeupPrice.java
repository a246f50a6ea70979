package dev.pacer.loadgen.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.channels.Selector;
import java.util.Arrays;
import java.util.Locale;

/**
 * What this machine charges a thread for one sleep ended by its timer, for the benchmark scripts: a thread waits in
 * a selector with nothing registered and a 1 ms timeout, as a pacing thread waits for its next tick, over and over;
 * the CPU it used over the number of waits is the price. It says what a tick costs here, beside the counts of timer
 * and wake-up interrupts the scripts print per response: a client that ticks every millisecond pays it a thousand
 * times a second whatever its code, more on a VM, where the timer and the idle CPU's wake-up exit to the host.
 * Prints {@code cpuMicrosPerWakeup wallMicrosPerWakeup wakeups}: the median of {@code ROUNDS} rounds of
 * {@code WAKEUPS} waits, after one round not counted (class loading, compilation).
 *
 * <p>Usage: {@code WakeupPrice [WAKEUPS [ROUNDS]]} (defaults 1000 and 3); pin it where the client runs.
 */
public final class WakeupPrice {
    private static final long WAIT_MILLIS = 1;

    private WakeupPrice() {
    }

    public static void main(String[] args) throws IOException {
        int wakeups = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double[] cpuMicros = new double[rounds];
        double[] wallMicros = new double[rounds];
        try (Selector selector = Selector.open()) {
            waits(selector, wakeups);
            for (int round = 0; round < rounds; round++) {
                long cpuStartNanos = threads.getCurrentThreadCpuTime();
                long wallStartNanos = System.nanoTime();
                waits(selector, wakeups);
                cpuMicros[round] = (threads.getCurrentThreadCpuTime() - cpuStartNanos) / 1e3 / wakeups;
                wallMicros[round] = (System.nanoTime() - wallStartNanos) / 1e3 / wakeups;
            }
        }
        System.out.printf(Locale.ROOT, "%.1f %.1f %d%n", median(cpuMicros), median(wallMicros), wakeups);
    }

    private static void waits(Selector selector, int count) throws IOException {
        for (int i = 0; i < count; i++) {
            selector.select(WAIT_MILLIS);
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
