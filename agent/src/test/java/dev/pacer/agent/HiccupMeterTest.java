package dev.pacer.agent;

import static dev.pacer.agent.HiccupMeter.RESOLUTION_NANOS;
import static dev.pacer.agent.HiccupMeter.WATCHED_SLEEP_NANOS;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** When the meter's own thread may sleep long, and what a watching thread's report counts for. */
class HiccupMeterTest {
    static final long NOW_NANOS = TimeUnit.SECONDS.toNanos(5_000);

    @Test
    void theMeterSleepsLongOnlyWhileAWatcherIsDueToReadTheClockWithinTheResolution() {
        assertThat(HiccupMeter.sleepNanos(NOW_NANOS, Long.MIN_VALUE / 2)).as("never watched").isEqualTo(RESOLUTION_NANOS);
        assertThat(HiccupMeter.sleepNanos(NOW_NANOS, NOW_NANOS + RESOLUTION_NANOS / 2)).as("due in half the resolution")
                .isEqualTo(WATCHED_SLEEP_NANOS);
        // a watcher late by up to the resolution still watches: its lateness is a stall it reports when it reads the clock
        assertThat(HiccupMeter.sleepNanos(NOW_NANOS, NOW_NANOS - RESOLUTION_NANOS)).isEqualTo(WATCHED_SLEEP_NANOS);
        assertThat(HiccupMeter.sleepNanos(NOW_NANOS, NOW_NANOS - RESOLUTION_NANOS - 1)).as("gone quiet")
                .isEqualTo(RESOLUTION_NANOS);
        assertThat(WATCHED_SLEEP_NANOS).isGreaterThan(RESOLUTION_NANOS);
    }

    /** A watcher that sleeps longer than the resolution, or stops for good, ends its watch: the meter is back at 1 ms. */
    @Test
    void onlyAWatcherSleepingNoLongerThanTheResolutionWatchesAndALongerSleepEndsTheWatch() {
        try (HiccupMeter meter = new HiccupMeter()) {
            meter.watched(0, NOW_NANOS, RESOLUTION_NANOS + 1, RESOLUTION_NANOS);
            assertThat(HiccupMeter.sleepNanos(NOW_NANOS, meter.watchedUntilNanos())).isEqualTo(RESOLUTION_NANOS);
            meter.watched(0, NOW_NANOS, RESOLUTION_NANOS, RESOLUTION_NANOS);
            assertThat(meter.watchedUntilNanos()).isEqualTo(NOW_NANOS + RESOLUTION_NANOS);
            assertThat(HiccupMeter.sleepNanos(NOW_NANOS, meter.watchedUntilNanos())).isEqualTo(WATCHED_SLEEP_NANOS);
            meter.watched(0, NOW_NANOS, 0, RESOLUTION_NANOS);
            assertThat(HiccupMeter.sleepNanos(NOW_NANOS, meter.watchedUntilNanos())).as("busy, no sleep: still watching")
                    .isEqualTo(WATCHED_SLEEP_NANOS);
            meter.watched(0, NOW_NANOS, RESOLUTION_NANOS * 10, RESOLUTION_NANOS);
            assertThat(HiccupMeter.sleepNanos(NOW_NANOS, meter.watchedUntilNanos())).as("a 10 ms sleep").isEqualTo(RESOLUTION_NANOS);
            meter.watched(0, NOW_NANOS, RESOLUTION_NANOS, RESOLUTION_NANOS);
            meter.watched(0, NOW_NANOS, Long.MAX_VALUE, RESOLUTION_NANOS);
            assertThat(HiccupMeter.sleepNanos(NOW_NANOS, meter.watchedUntilNanos())).as("done").isEqualTo(RESOLUTION_NANOS);
        }
    }

    /** Ten seconds: longer than any overshoot of the meter's own sleeps in a test, so only the report can give it. */
    @Test
    void aJumpAWatcherReportsIsTheLongestStallUntilTaken() {
        try (HiccupMeter meter = new HiccupMeter()) {
            long tenSecondsMicros = TimeUnit.SECONDS.toMicros(10);
            meter.watched(TimeUnit.SECONDS.toNanos(10), System.nanoTime(), RESOLUTION_NANOS, RESOLUTION_NANOS);
            meter.watched(TimeUnit.MILLISECONDS.toNanos(3), System.nanoTime(), RESOLUTION_NANOS, RESOLUTION_NANOS);
            assertThat(meter.takeMaxMicros()).isGreaterThanOrEqualTo(tenSecondsMicros);
            assertThat(meter.takeMaxMicros()).as("taken: starts again").isLessThan(tenSecondsMicros);
        }
    }

    /** A watcher that wakes every 5 ms, as its run asked, promises within its 5 ms; one finer than 1 ms counts as 1 ms. */
    @Test
    void aWatcherWithACoarserResolutionWatchesThroughSleepsUpToIt() {
        try (HiccupMeter meter = new HiccupMeter()) {
            long fiveMs = 5 * RESOLUTION_NANOS;
            meter.watched(0, NOW_NANOS, fiveMs, fiveMs);
            assertThat(meter.watchedUntilNanos()).isEqualTo(NOW_NANOS + fiveMs);
            assertThat(HiccupMeter.sleepNanos(NOW_NANOS, meter.watchedUntilNanos())).isEqualTo(WATCHED_SLEEP_NANOS);
            meter.watched(0, NOW_NANOS, fiveMs + 1, fiveMs);
            assertThat(HiccupMeter.sleepNanos(NOW_NANOS, meter.watchedUntilNanos())).as("longer than its resolution")
                    .isEqualTo(RESOLUTION_NANOS);
            meter.watched(0, NOW_NANOS, RESOLUTION_NANOS, 1);
            assertThat(meter.watchedUntilNanos()).as("a finer resolution counts as the meter's").isEqualTo(NOW_NANOS + RESOLUTION_NANOS);
        }
    }
}
