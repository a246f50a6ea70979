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
     * reads), and the wake-up after 50 ms comes 3 ms late (the thread not scheduled). Each is reported at the read that
     * saw it; everything else jumps no more than a send's cost. Each sleep is told before it begins, and the end.
     */
    @Test
    void aStallWhileSendingAndOneWhileAsleepAreEachReportedAtTheReadThatSawIt() {
        PacingLoopTest.FakeTicker clock = new PacingLoopTest.FakeTicker();
        clock.stallAtNanos = 50 * MS;
        clock.stallNanos = 3 * MS;
        List<Report> reports = new ArrayList<>();
        Ticker watched = new StallWatchingTicker(clock, (jump, now, sleep, resolution) -> reports.add(new Report(jump, now, sleep)), 0);
        PacingLoop loop = new PacingLoop(Schedule.covering(0, 1_000, 100 * MS), 0, 1, 64, 0, 200 * MS, watched,
                (index, intended, sentAt) -> clock.now += index == 20 ? 7 * MS : SEND_COST_NANOS);

        PacingLoop.Result result = loop.run();

        assertThat(result.sent()).isEqualTo(100);
        assertThat(reports).extracting(Report::longestJumpNanos).filteredOn(jump -> jump > SEND_COST_NANOS)
                .containsExactly(7 * MS, 3 * MS);
        Report afterPause = reports.stream().filter(r -> r.longestJumpNanos() == 7 * MS).findFirst().orElseThrow();
        assertThat(afterPause.nowNanos()).as("at the read after the pause, not once the loop caught up")
                .isBetween(27 * MS, 27 * MS + SEND_COST_NANOS);
        assertThat(afterPause.sleepNanos()).as("told while busy").isZero();
        Report afterLateWakeup = reports.stream().filter(r -> r.longestJumpNanos() == 3 * MS).findFirst().orElseThrow();
        assertThat(afterLateWakeup.nowNanos()).isBetween(53 * MS, 53 * MS + SEND_COST_NANOS);
        assertThat(reports).extracting(Report::sleepNanos).filteredOn(sleep -> sleep != 0 && sleep != Long.MAX_VALUE)
                .as("each sleep told before it begins").containsExactlyElementsOf(clock.parks);
        assertThat(reports.getLast().sleepNanos()).as("the end: it watches no more").isEqualTo(Long.MAX_VALUE);
    }

    /**
     * On a selector's thread: a wait of 1 ms told before it, carried out by the selector, and the selector's own work on
     * what it selected after it. A wait that ends 3 ms late is a stall, seen as it ends; 5 ms of reading responses
     * after it is not the loop's stall; a pause between two of the loop's own reads still is.
     */
    @Test
    void aSelectorsWaitIsWatchedButItsWorkAfterTheWaitIsNotTheLoopsStall() {
        PacingLoopTest.FakeTicker clock = new PacingLoopTest.FakeTicker();
        List<Report> reports = new ArrayList<>();
        Ticker watched = new StallWatchingTicker(clock, (jump, now, sleep, resolution) -> reports.add(new Report(jump, now, sleep)), 0);
        watched.nanoTime();
        watched.waiting(MS);
        assertThat(reports.getLast().sleepNanos()).as("the wait told before it begins").isEqualTo(MS);
        clock.now += 4 * MS;   // the selector woke 3 ms late
        watched.waitEnded();
        clock.now += 5 * MS;   // reading responses, writing requests on the connections they freed
        watched.resumed();
        watched.waiting(MS);
        assertThat(reports).extracting(Report::longestJumpNanos).as("the late wake-up, not the selector's work")
                .filteredOn(jump -> jump > 0).containsExactly(3 * MS);
        int before = reports.size();
        clock.now += MS / 2;   // woke early: responses came
        watched.waitEnded();
        watched.resumed();
        clock.now += 2 * MS;   // the loop's own thread stopped between two of its reads
        watched.nanoTime();
        watched.waiting(MS);
        assertThat(reports.subList(before, reports.size())).extracting(Report::longestJumpNanos).as("a pause within the loop's own work")
                .filteredOn(jump -> jump > 0).containsExactly(2 * MS);
    }

    /**
     * Each send costs 2 ms with requests 1 ms apart: the loop falls behind and never sleeps, yet it reports at each read
     * half a millisecond or more after its last report, so the meter knows it still watches. The 11th send, stopped
     * 7 ms, starts at 20 ms: its pause is reported at the next read, at 27 ms.
     */
    @Test
    void aThreadBehindThatNeverSleepsReportsWhileItWorks() {
        PacingLoopTest.FakeTicker clock = new PacingLoopTest.FakeTicker();
        List<Report> reports = new ArrayList<>();
        Ticker watched = new StallWatchingTicker(clock, (jump, now, sleep, resolution) -> reports.add(new Report(jump, now, sleep)), 0);
        PacingLoop.Result result = new PacingLoop(Schedule.covering(0, 1_000, 100 * MS), 0, 1, 64, 0, 60 * MS, watched,
                (index, intended, sentAt) -> clock.now += index == 10 ? 7 * MS : 2 * MS).run();

        assertThat(result.stoppedBehind()).isTrue();
        assertThat(clock.parks).isEmpty();
        List<Long> times = reports.stream().map(Report::nowNanos).toList();
        assertThat(times.getLast()).isGreaterThanOrEqualTo(60 * MS);
        for (int i = 1; i < times.size(); i++) {
            assertThat(times.get(i) - times.get(i - 1)).as("report %d after the one before", i).isLessThanOrEqualTo(7 * MS);
        }
        assertThat(reports).filteredOn(r -> r.longestJumpNanos() == 7 * MS).singleElement()
                .satisfies(r -> assertThat(r.nowNanos()).isEqualTo(27 * MS));
    }

    @Test
    void aThreadWorkingWithoutAStallReportsOnlyItsOwnWork() {
        PacingLoopTest.FakeTicker clock = new PacingLoopTest.FakeTicker();
        List<Report> reports = new ArrayList<>();
        Ticker watched = new StallWatchingTicker(clock, (jump, now, sleep, resolution) -> reports.add(new Report(jump, now, sleep)), 0);
        new PacingLoop(Schedule.covering(0, 1_000, 100 * MS), 0, 1, 64, 0, 200 * MS, watched,
                (index, intended, sentAt) -> clock.now += SEND_COST_NANOS).run();

        assertThat(reports).isNotEmpty().allSatisfy(r -> assertThat(r.longestJumpNanos()).isBetween(0L, SEND_COST_NANOS));
        assertThat(reports).extracting(Report::sleepNanos).as("no busy reports: it sleeps between sends")
                .doesNotContain(0L);
    }

    @Test
    void theResolutionIsTheWakeupIntervalInWholeMillisecondsAndNeverFinerThanTheMeters() {
        assertThat(StallWatchingTicker.resolutionNanos(0)).isEqualTo(MS);
        assertThat(StallWatchingTicker.resolutionNanos(500_000)).isEqualTo(MS);
        assertThat(StallWatchingTicker.resolutionNanos(MS)).isEqualTo(MS);
        assertThat(StallWatchingTicker.resolutionNanos(1_500_000)).as("a selector waits whole ms").isEqualTo(2 * MS);
        assertThat(StallWatchingTicker.resolutionNanos(4 * MS)).isEqualTo(4 * MS);
    }

    /**
     * Requests 0.2 ms apart on wake-ups at least 4 ms apart: every sleep the loop tells is within the 4 ms resolution it
     * tells with it, so the meter is promised a read within each, and its own thread need not wake every millisecond.
     */
    @Test
    void aLoopWakingEvery4MsTellsA4MsResolutionAndSleepsNoLonger() {
        PacingLoopTest.FakeTicker clock = new PacingLoopTest.FakeTicker();
        List<Long> resolutions = new ArrayList<>();
        List<Long> sleeps = new ArrayList<>();
        Ticker watched = new StallWatchingTicker(clock, (jump, now, sleep, resolution) -> {
            resolutions.add(resolution);
            sleeps.add(sleep);
        }, 4 * MS);
        PacingLoop.Result result = new PacingLoop(Schedule.covering(0, 5_000, 100 * MS), 0, 1, 64, 4 * MS, 200 * MS, watched,
                (index, intended, sentAt) -> clock.now += SEND_COST_NANOS).run();

        assertThat(result.sent()).isEqualTo(500);
        assertThat(resolutions).isNotEmpty().containsOnly(4 * MS);
        assertThat(sleeps.subList(0, sleeps.size() - 1)).as("every sleep but the end's").isNotEmpty()
                .allSatisfy(sleep -> assertThat(sleep).isBetween(0L, 4 * MS));
        assertThat(sleeps).as("a wake-up every 4 ms, not every 0.2").hasSizeLessThan(100);
    }
}
