package dev.pacer.loadgen.pacing;

/**
 * A pacing thread's ticker that also watches its clock for stalls, for the client's stall meter: between two reads the
 * clock moves by the sleep asked for plus the thread's own work (microseconds per request); beyond that, the thread was
 * stopped (a GC pause, a safepoint) or not scheduled. Before each sleep it reports the longest such jump since the last
 * sleep, and how long it sleeps. One ticker per thread: it keeps that thread's last read.
 */
public final class StallWatchingTicker implements Ticker {
    /** Where the jumps go: the client's stall meter. */
    @FunctionalInterface
    public interface Watch {
        void watched(long longestJumpNanos, long nowNanos, long sleepNanos);
    }

    private final Ticker clock;
    private final Watch watch;
    private boolean read;
    private long lastReadNanos;
    private long sleptNanos;   // asked for since the last read
    private long longestJumpNanos;

    public StallWatchingTicker(Ticker clock, Watch watch) {
        this.clock = clock;
        this.watch = watch;
    }

    @Override
    public long nanoTime() {
        long now = clock.nanoTime();
        if (read) {
            longestJumpNanos = Math.max(longestJumpNanos, now - lastReadNanos - sleptNanos);
        }
        read = true;
        lastReadNanos = now;
        sleptNanos = 0;
        return now;
    }

    @Override
    public void parkNanos(long nanos) {
        long now = nanoTime();
        watch.watched(longestJumpNanos, now, nanos);
        longestJumpNanos = 0;
        sleptNanos = nanos;
        clock.parkNanos(nanos);
    }
}
