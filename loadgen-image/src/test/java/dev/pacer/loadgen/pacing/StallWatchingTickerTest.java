package dev.pacer.loadgen.pacing;

import static dev.pacer.loadgen.pacing.PacingLoopTest.MS;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** A pacing loop on a fake clock, watched for stalls: what it reports to the stall meter, and when. */
class StallWatchingTickerTest {
    static final long SEND_COST_NANOS = 10_000;

    record Report(long longestJumpNanos, long nowNanos, long sleepNanos) {
    }

    /**
     * 100 requests 1 ms apart, each send costing 10 µs: the 21st send is stopped 7 ms (a GC pause, between two clock
     * reads), and the wake-up after 50 ms comes 3 ms late (the thread not scheduled). Both are reported, each at the
     * next sleep; everything else jumps no more than a send's cost.
     */
    @Test
    void aStallWhileSendingAndOneWhileAsleepAreEachReportedBeforeTheNextSleep() {
        PacingLoopTest.FakeTicker clock = new PacingLoopTest.FakeTicker();
        clock.stallAtNanos = 50 * MS;
        clock.stallNanos = 3 * MS;
        List<Report> reports = new ArrayList<>();
        Ticker watched = new StallWatchingTicker(clock, (jump, now, sleep) -> reports.add(new Report(jump, now, sleep)));
        PacingLoop loop = new PacingLoop(Schedule.covering(0, 1_000, 100 * MS), 0, 1, 64, 0, 200 * MS, watched,
                (index, intended, sentAt) -> clock.now += index == 20 ? 7 * MS : SEND_COST_NANOS);

        PacingLoop.Result result = loop.run();

        assertThat(result.sent()).isEqualTo(100);
        assertThat(reports).extracting(Report::longestJumpNanos).filteredOn(jump -> jump > SEND_COST_NANOS)
                .containsExactly(7 * MS, 3 * MS);
        assertThat(reports).extracting(Report::sleepNanos).as("each report tells the sleep then asked for")
                .containsExactlyElementsOf(clock.parks);
        Report afterPause = reports.stream().filter(r -> r.longestJumpNanos() == 7 * MS).findFirst().orElseThrow();
        assertThat(afterPause.nowNanos()).as("reported once the loop caught up, before it slept").isGreaterThan(27 * MS);
    }

    @Test
    void aThreadWorkingWithoutAStallReportsOnlyItsOwnWork() {
        PacingLoopTest.FakeTicker clock = new PacingLoopTest.FakeTicker();
        List<Report> reports = new ArrayList<>();
        Ticker watched = new StallWatchingTicker(clock, (jump, now, sleep) -> reports.add(new Report(jump, now, sleep)));
        new PacingLoop(Schedule.covering(0, 1_000, 100 * MS), 0, 1, 64, 0, 200 * MS, watched,
                (index, intended, sentAt) -> clock.now += SEND_COST_NANOS).run();

        assertThat(reports).isNotEmpty().allSatisfy(r -> assertThat(r.longestJumpNanos()).isBetween(0L, SEND_COST_NANOS));
    }
}
