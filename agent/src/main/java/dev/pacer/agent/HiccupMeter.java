package dev.pacer.agent;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * jHiccup's method in a few lines: a daemon thread sleeps 1 ms at a time and keeps the longest overshoot since it was
 * last asked. A stall of the whole process (a GC pause, a safepoint, the thread not scheduled for want of a CPU) shows
 * as an overshoot; the process's own work does not.
 * <p>Threads that read the clock at least that often anyway (a client's pacing threads) stand in for the meter's own
 * thread: each reports the longest its clock jumped beyond the sleep it asked for ({@link #watched}). While one has
 * promised to read the clock again within the resolution, the meter's thread sleeps {@link #WATCHED_SLEEP_NANOS}
 * instead. Its thousand wake-ups a second cost a client about 4 % of a core on a VM (3.7 µs per request at 10k req/s,
 * measured): more than a third of what wrk2 spends per request.
 */
public final class HiccupMeter implements AutoCloseable {
    static final long RESOLUTION_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** The meter's own sleep while other threads watch the clock: a stall longer than this shows even if they stop. */
    static final long WATCHED_SLEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final AtomicLong maxOvershootNanos = new AtomicLong();
    private volatile long watchedUntilNanos = Long.MIN_VALUE / 2;   // when a watcher said it reads the clock again
    private final Thread sleeper;
    private volatile boolean closed;

    public HiccupMeter() {
        sleeper = Thread.ofPlatform().daemon().name("pacer-hiccup-meter").start(this::sleepAndMeasure);
    }

    private void sleepAndMeasure() {
        while (!closed) {
            long before = System.nanoTime();
            long sleepNanos = sleepNanos(before, watchedUntilNanos);
            LockSupport.parkNanos(sleepNanos);
            record(System.nanoTime() - before - sleepNanos);
        }
    }

    /** The meter's next sleep: long while a watcher is due to read the clock within the resolution, else the resolution. */
    static long sleepNanos(long nowNanos, long watchedUntilNanos) {
        return nowNanos - watchedUntilNanos <= RESOLUTION_NANOS ? WATCHED_SLEEP_NANOS : RESOLUTION_NANOS;
    }

    /**
     * From a thread that watches the clock ({@link System#nanoTime()}) for the meter.
     *
     * @param longestJumpNanos the longest its clock moved between two of its reads, beyond the sleep it asked for
     * @param nowNanos         when it reports, before it sleeps
     * @param sleepNanos       how long it now sleeps; up to the resolution, it promises to read the clock again by then
     */
    public void watched(long longestJumpNanos, long nowNanos, long sleepNanos) {
        record(longestJumpNanos);
        if (sleepNanos <= RESOLUTION_NANOS) {
            watchedUntilNanos = nowNanos + sleepNanos;
        }
    }

    long watchedUntilNanos() {
        return watchedUntilNanos;
    }

    private void record(long overshootNanos) {
        if (overshootNanos > maxOvershootNanos.get()) {
            maxOvershootNanos.accumulateAndGet(overshootNanos, Math::max);
        }
    }

    /** The longest stall since the last call, and starts again. */
    public long takeMaxMicros() {
        return TimeUnit.NANOSECONDS.toMicros(maxOvershootNanos.getAndSet(0));
    }

    @Override
    public void close() {
        closed = true;
        sleeper.interrupt();
    }
}
