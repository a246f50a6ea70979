package dev.pacer.agent;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * jHiccup's method in a few lines: a daemon thread sleeps 1 ms at a time and keeps the longest overshoot since it was
 * last asked. A stall of the whole process (a GC pause, a safepoint, the thread not scheduled for want of a CPU) shows
 * as an overshoot.
 * <p>Threads that read the clock at least that often anyway, or as often as their run asked (a client's pacing threads),
 * stand in for the meter's own
 * thread: each reports the longest its clock jumped between two reads beyond the sleep it asked for ({@link #watched}),
 * which its own work between the reads (microseconds) also shows in, as does a wait for the CPU its process's other
 * threads hold. While one has promised to read the clock again within its resolution, the meter's thread sleeps
 * {@link #WATCHED_SLEEP_NANOS} instead; a watcher that stops (a longer sleep, its loop ended) wakes it back to the
 * resolution at once. Its thousand wake-ups a second cost about 4 % of a core on a VM: alone in an idle JVM it used
 * 0.41 s of CPU in 10 s, and a client at 10k req/s spent 3.7 µs per request more with it than without it.
 * <p>A watcher's resolution may be coarser than the meter's: a pacing thread that sends on wake-ups a few milliseconds
 * apart, as its run asked, watches at that interval. A stall within one of its sleeps is then seen less by up to the
 * sleep, as one within the meter's own sleep is seen less by up to 1 ms; the run asked for no finer timing.
 */
public final class HiccupMeter implements AutoCloseable {
    public static final long RESOLUTION_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** The meter's own sleep while other threads watch the clock: a stall longer than this shows even if they stop. */
    static final long WATCHED_SLEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final AtomicLong maxOvershootNanos = new AtomicLong();
    private static final long UNWATCHED = Long.MIN_VALUE / 2;
    private volatile long watchedUntilNanos = UNWATCHED;   // when a watcher said it reads the clock again
    private volatile boolean sleepingLong;
    private final Thread sleeper;
    private volatile boolean closed;

    public HiccupMeter() {
        sleeper = Thread.ofPlatform().daemon().name("pacer-hiccup-meter").start(this::sleepAndMeasure);
    }

    private void sleepAndMeasure() {
        while (!closed) {
            long before = System.nanoTime();
            // said before the promise is read, as a watcher that stops clears its promise before it reads this: one of
            // the two sees the other's write, so a long sleep begun as the watch ends is cut short
            sleepingLong = true;
            long sleepNanos = sleepNanos(before, watchedUntilNanos);
            sleepingLong = sleepNanos > RESOLUTION_NANOS;
            LockSupport.parkNanos(sleepNanos);
            sleepingLong = false;
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
     * @param sleepNanos       how long it now sleeps: up to its resolution, it promises to read the clock again by then;
     *                         longer ({@link Long#MAX_VALUE} when it stops for good), it watches no more
     * @param resolutionNanos  the watcher's resolution: the meter's ({@link #RESOLUTION_NANOS}), or the longer interval
     *                         between the wake-ups its run asked for; a shorter one counts as the meter's, and one longer
     *                         than the meter's own watched sleep as that
     */
    public void watched(long longestJumpNanos, long nowNanos, long sleepNanos, long resolutionNanos) {
        record(longestJumpNanos);
        if (sleepNanos <= Math.clamp(resolutionNanos, RESOLUTION_NANOS, WATCHED_SLEEP_NANOS)) {
            watchedUntilNanos = nowNanos + sleepNanos;
        } else if (watchedUntilNanos != UNWATCHED) {
            watchedUntilNanos = UNWATCHED;
            if (sleepingLong) {
                LockSupport.unpark(sleeper);
            }
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
