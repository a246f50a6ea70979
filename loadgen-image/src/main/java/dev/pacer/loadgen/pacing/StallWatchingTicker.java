package dev.pacer.loadgen.pacing;

import java.util.concurrent.TimeUnit;

import dev.pacer.agent.HiccupMeter;
import dev.pacer.contract.RunRequest;

/**
 * A pacing thread's ticker that also watches its clock for stalls, for the client's stall meter: between two reads the
 * clock moves by the sleep asked for plus the thread's own work (microseconds per request); beyond that, the thread was
 * stopped (a GC pause, a safepoint) or waited for a CPU. It reports the longest such jump before each sleep, with how
 * long it sleeps, and every {@link #BUSY_REPORT_NANOS} while it works without sleeping (a backlog): a jump that long is
 * reported at the read that saw it. Once the loop is done it reports what is left and that it sleeps for good. One
 * ticker per thread: it keeps that thread's last read.
 * <p>Its resolution is its loop's wake-up interval, rounded up to the whole milliseconds a selector waits, and at least
 * the meter's: a loop that sends on wake-ups 4 ms apart promises the meter to read its clock again within 4 ms, so the
 * meter's own thread need not wake every millisecond beside it.
 */
public final class StallWatchingTicker implements Ticker {
    /** Half the stall meter's resolution: a busy thread renews its promise to watch before it runs out. */
    static final long BUSY_REPORT_NANOS = HiccupMeter.RESOLUTION_NANOS / 2;

    /** Where the jumps go: the client's stall meter. */
    @FunctionalInterface
    public interface Watch {
        /**
         * @param sleepNanos      the sleep that follows, 0 for none, {@link Long#MAX_VALUE} once the thread watches no more
         * @param resolutionNanos the watcher's: a sleep up to it is a promise to read the clock again by its end
         */
        void watched(long longestJumpNanos, long nowNanos, long sleepNanos, long resolutionNanos);
    }

    private final Ticker clock;
    private final Watch watch;
    private final long resolutionNanos;
    private boolean read;
    private long lastReadNanos;
    private long lastReportNanos;
    private long sleptNanos;   // asked for since the last read
    private long longestJumpNanos;

    /** @param wakeupIntervalNanos the loop's shortest interval between wake-ups ({@link PacingLoop}'s) */
    public StallWatchingTicker(Ticker clock, Watch watch, long wakeupIntervalNanos) {
        this.clock = clock;
        this.watch = watch;
        this.resolutionNanos = resolutionNanos(wakeupIntervalNanos);
    }

    /** The interval in whole milliseconds, as a selector waits, and not below the stall meter's resolution. */
    static long resolutionNanos(long wakeupIntervalNanos) {
        long watchMillis = RunRequest.stallWatchMillis(TimeUnit.NANOSECONDS.toMicros(wakeupIntervalNanos));
        return Math.max(HiccupMeter.RESOLUTION_NANOS, TimeUnit.MILLISECONDS.toNanos(watchMillis));
    }

    @Override
    public long nanoTime() {
        long now = clock.nanoTime();
        if (read) {
            longestJumpNanos = Math.max(longestJumpNanos, now - lastReadNanos - sleptNanos);
            if (now - lastReportNanos >= BUSY_REPORT_NANOS) {
                report(now, 0);
            }
        } else {
            read = true;
            lastReportNanos = now;
        }
        lastReadNanos = now;
        sleptNanos = 0;
        return now;
    }

    @Override
    public void parkNanos(long nanos) {
        waiting(nanos);
        clock.parkNanos(nanos);
    }

    @Override
    public void waiting(long nanos) {
        long now = nanoTime();
        report(now, nanos);
        lastReportNanos = now + nanos;   // from the wake-up it asked for: only lateness past it, or work, is due a report
        sleptNanos = nanos;
    }

    /**
     * The selector's own work after its wait (reading responses, sending on the connections they free) is not a stall:
     * the clock is watched again from now. A stall within that work is the stall meter's own thread's to see.
     */
    @Override
    public void resumed() {
        if (read) {
            lastReadNanos = clock.nanoTime();
            sleptNanos = 0;
        }
    }

    @Override
    public void done() {
        report(nanoTime(), Long.MAX_VALUE);
    }

    private void report(long nowNanos, long sleepNanos) {
        watch.watched(longestJumpNanos, nowNanos, sleepNanos, resolutionNanos);
        longestJumpNanos = 0;
        lastReportNanos = nowNanos;
    }
}
