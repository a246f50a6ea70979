package dev.pacer.loadgen.pacing;

import java.util.concurrent.locks.LockSupport;

/** The pacing loop's time: a monotonic clock and a way to wait on it (a fake in tests). */
public interface Ticker {
    long nanoTime();

    /** Waits about this long; may return early (a spurious wake-up, an interrupt): the loop checks the time again. */
    void parkNanos(long nanos);

    /** A wait of about this long that the thread carries out by other means (a selector's): as parking, without parking. */
    default void waiting(long nanos) {
    }

    /** That wait ended, as a return from parking does: the clock is read, so that lateness past the wait is seen. */
    default void waitEnded() {
        nanoTime();
    }

    /** The thread comes back from work of another kind (a selector's, since the wait ended): that time is not its stall. */
    default void resumed() {
    }

    /** The loop is done with this ticker: it neither reads nor sleeps on it again. */
    default void done() {
    }

    Ticker SYSTEM = new Ticker() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public void parkNanos(long nanos) {
            LockSupport.parkNanos(nanos);
        }
    };
}
