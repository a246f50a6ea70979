package dev.pacer.agent;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * jHiccup's method in a few lines: a daemon thread sleeps 1 ms at a time and keeps the longest overshoot since it was
 * last asked. A stall of the whole process (a GC pause, a safepoint, the thread not scheduled for want of a CPU) shows
 * as an overshoot; the process's own work does not. One wake-up per millisecond: a few µs of CPU each.
 */
public final class HiccupMeter implements AutoCloseable {
    static final long RESOLUTION_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final AtomicLong maxOvershootNanos = new AtomicLong();
    private final Thread sleeper;
    private volatile boolean closed;

    public HiccupMeter() {
        sleeper = Thread.ofPlatform().daemon().name("pacer-hiccup-meter").start(this::sleepAndMeasure);
    }

    private void sleepAndMeasure() {
        while (!closed) {
            long before = System.nanoTime();
            LockSupport.parkNanos(RESOLUTION_NANOS);
            long overshoot = System.nanoTime() - before - RESOLUTION_NANOS;
            maxOvershootNanos.accumulateAndGet(overshoot, Math::max);
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
